/* infer.c: the inference driver.  Open/closed world follows Alchemy: a
 * predicate with evidence (or declared with '*') is closed-world unless it
 * is queried or named by --ow; --cw closes a predicate; all others are
 * open.  Every ground atom of a query gets a marginal, evidence atoms
 * included (1 or 0), unlike Tuffy, which leaves atoms out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evidence/cube.h"
#include "evidence/evidence.h"
#include "infer/ground.h"
#include "infer/infer.h"
#include "lifted/theory.h"

struct run {
	struct store *s;
	struct mln_model *m;
	struct store_domain *dom;
	struct ground g;
	int *store_pred;       /* model pred -> store index */
	int *closed;
	int *queried;          /* model pred is named by a query */
	int *forced_ow;
	struct query_list q;
	unsigned char *is_query;  /* per ground atom */
	struct err *e;
};

static double
now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Marks predicates named in a comma-separated list. */
static int
mark_list(struct run *r, const char *list, int *mark, const char *opt)
{
	const char *p = list;

	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n) {
			int k = smap_getn(&r->m->predmap, p, n);
			if (k < 0)
				return err_set(r->e, SQLIFT_EUSAGE, "%s: unknown predicate "
				    "%.*s", opt, (int)n, p);
			mark[k] = 1;
		}
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* Marks the ground atoms that a query item names. */
static int
mark_query(struct run *r, const struct query_atom *qa, const char *where)
{
	int p = smap_get(&r->m->predmap, qa->pred);
	const struct mln_pred *pr;
	int fixed[64], idx[64];

	if (p < 0)
		return err_set(r->e, SQLIFT_EUSAGE, "%s: unknown query predicate %s",
		    where, qa->pred);
	pr = &r->m->preds.v[p];
	if (qa->nargs >= 0 && qa->nargs != pr->arity)
		return err_set(r->e, SQLIFT_EUSAGE, "%s: %s takes %d argument%s, "
		    "found %d", where, pr->name, pr->arity, pr->arity == 1 ? "" : "s",
		    qa->nargs);
	for (int i = 0; i < pr->arity; i++) {
		const struct store_domain *d = &r->dom[pr->types[i]];
		fixed[i] = -1;
		if (qa->nargs < 0 || !qa->args[i])
			continue;
		for (int k = 0; k < d->n; k++)
			if (!strcmp(d->names[k], qa->args[i]))
				fixed[i] = k;
		if (fixed[i] < 0)
			return err_set(r->e, SQLIFT_EUSAGE, "%s: %s is not in the "
			    "domain of %s", where, qa->args[i],
			    r->m->types.v[pr->types[i]].name);
	}
	for (int64_t a = r->g.offset[p]; a < r->g.offset[p + 1]; a++) {
		int ok = 1;
		ground_atom_decode(&r->g, a, idx);
		for (int i = 0; i < pr->arity && ok; i++) {
			if (fixed[i] >= 0 && idx[i] != fixed[i])
				ok = 0;
			if (qa->nargs >= 0 && qa->var[i] >= 0 &&
			    idx[i] != idx[qa->var[i]])
				ok = 0;
		}
		if (ok)
			r->is_query[a] = 1;
	}
	return 0;
}

static void
run_free(struct run *r)
{
	ground_free(&r->g);
	if (r->m)
		store_domains_free(r->dom, (int)r->m->types.n);
	mln_free(r->m);
	free(r->store_pred);
	free(r->closed);
	free(r->queried);
	free(r->forced_ow);
	free(r->is_query);
	query_list_free(&r->q);
}

static void
params_text(struct buf *b, const struct sqlift_infer_opts *o)
{
	buf_printf(b, "method=%s", o->method);
	if (o->open_world && *o->open_world)
		buf_printf(b, " ow=%s", o->open_world);
	if (o->closed_world && *o->closed_world)
		buf_printf(b, " cw=%s", o->closed_world);
	if (o->query_file)
		buf_printf(b, " query_file=%s", o->query_file);
}

/* Reads and parses the stored model, the queries, and decides open and
 * closed world for every predicate: a predicate with evidence (or
 * declared with '*') is closed unless queried or named by --ow; --cw
 * closes one.  Then reads the domains. */
static int
run_setup(struct run *r, const struct sqlift_infer_opts *o, char **text,
    char **path, char **fp)
{
	struct store *s = r->s;
	struct err *e = r->e;
	int *forced_cw = NULL;
	int rc;

	if ((rc = store_model_get(s, text, path, fp, e)))
		goto out;
	if (!*text) {
		rc = err_set(e, SQLIFT_EUSAGE, "%s: no model loaded: run 'sqlift "
		    "load' first", store_path(s));
		goto out;
	}
	if ((rc = mln_parse(*text, strlen(*text), *path, &r->m, e)))
		goto out;
	{
		size_t np = r->m->preds.n;
		r->store_pred = xcalloc(np + 1, sizeof *r->store_pred);
		r->closed = xcalloc(np + 1, sizeof *r->closed);
		r->queried = xcalloc(np + 1, sizeof *r->queried);
		r->forced_ow = xcalloc(np + 1, sizeof *r->forced_ow);
		forced_cw = xcalloc(np + 1, sizeof *forced_cw);
		if (!r->store_pred || !r->closed || !r->queried || !r->forced_ow ||
		    !forced_cw) {
			rc = err_oom(e);
			goto out;
		}
	}
	if ((o->queries && (rc = query_parse_list(o->queries, &r->q, e))) ||
	    (o->query_file && (rc = query_parse_file(o->query_file, &r->q, e))))
		goto out;
	for (size_t i = 0; i < r->q.v.n; i++) {
		int p = smap_get(&r->m->predmap, r->q.v.v[i].pred);
		if (p < 0) {
			rc = err_set(e, SQLIFT_EUSAGE, "unknown query predicate %s",
			    r->q.v.v[i].pred);
			goto out;
		}
		r->queried[p] = 1;
	}
	if ((rc = mark_list(r, o->open_world, r->forced_ow, "--ow")) ||
	    (rc = mark_list(r, o->closed_world, forced_cw, "--cw")))
		goto out;
	for (size_t p = 0; p < r->m->preds.n; p++) {
		const struct mln_pred *mp = &r->m->preds.v[p];
		int64_t nev = 0;
		r->store_pred[p] = store_pred_find(s, mp->name, strlen(mp->name));
		if (r->store_pred[p] >= 0 &&
		    (rc = store_pred_count(s, r->store_pred[p], &nev, e)))
			goto out;
		if (forced_cw[p] && (r->queried[p] || r->forced_ow[p])) {
			rc = err_set(e, SQLIFT_EUSAGE, "%s is closed-world (--cw) but "
			    "also %s", mp->name, r->queried[p] ? "queried" :
			    "open-world (--ow)");
			goto out;
		}
		r->closed[p] = forced_cw[p] || ((nev > 0 || mp->closed) &&
		    !r->queried[p] && !r->forced_ow[p]);
	}
	rc = store_domains(s, r->m, &r->dom, e);
out:
	free(forced_cw);
	return rc;
}

int
infer_run(struct store *s, const struct sqlift_infer_opts *o, int64_t *run_id,
    char **result_tmp, struct err *e)
{
	struct run r = { 0 };
	char *text = NULL, *path = NULL, *fp = NULL, *started = NULL;
	double t0 = now_seconds(), log_z = 0, *marg = NULL;
	char evfp[17];
	struct store_run row = { 0 };
	struct buf params, qtext;
	FILE *res = NULL;
	int64_t nq = 0;
	int rc;

	*result_tmp = NULL;
	r.s = s;
	r.e = e;
	buf_init(&params);
	buf_init(&qtext);
	if (!o->method || strcmp(o->method, "brute") != 0) {
		rc = err_set(e, SQLIFT_EUSAGE, "unknown method '%s' (available: "
		    "brute)", o->method ? o->method : "");
		goto done;
	}
	if (!(started = store_now(s))) {
		rc = err_oom(e);
		goto done;
	}
	if ((rc = run_setup(&r, o, &text, &path, &fp)))
		goto done;
	if ((rc = ground_atoms(&r.g, r.m, r.dom, s, r.store_pred, r.closed, e)))
		goto done;
	if (!(r.is_query = xcalloc((size_t)r.g.natoms + 1, 1))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t i = 0; i < r.q.v.n; i++)
		if ((rc = mark_query(&r, &r.q.v.v[i], "query")))
			goto done;
	if ((rc = ground_formulas(&r.g, e)))
		goto done;
	if (!(marg = xcalloc(r.g.unk_atom.n + 1, sizeof *marg))) {
		rc = err_oom(e);
		goto done;
	}
	if ((rc = brute_solve(&r.g, &log_z, marg, e)))
		goto done;
	if ((rc = store_evidence_fingerprint(s, evfp, e)))
		goto done;
	for (int64_t a = 0; a < r.g.natoms; a++)
		nq += r.is_query[a];
	params_text(&params, o);
	for (size_t i = 0; i < r.q.v.n; i++)
		buf_printf(&qtext, "%s%s", i ? "," : "", r.q.v.v[i].pred);
	if (params.oom || qtext.oom) {
		rc = err_oom(e);
		goto done;
	}
	row.method = o->method;
	row.status = "ok";
	row.parameters = params.s;
	row.queries = qtext.s ? qtext.s : "";
	row.job_file = o->job_path;
	row.model_fp = fp;
	row.evidence_fp = evfp;
	row.started_at = started;
	row.log_z = log_z;
	row.seed = o->seed;
	row.unknown_atoms = (int64_t)r.g.unk_atom.n;
	row.query_atoms = nq;
	row.seconds = now_seconds() - t0;
	if ((rc = store_run_add(s, &row, run_id, e)))
		goto done;
	if (o->result_path) {
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s.tmp", o->result_path);
		if (!(*result_tmp = buf_take(&b))) {
			rc = err_oom(e);
			goto done;
		}
		if (!(res = fopen(*result_tmp, "w"))) {
			rc = err_set(e, SQLIFT_EINPUT, "%s: cannot write result file",
			    o->result_path);
			goto done;
		}
	}
	for (int64_t a = 0; a < r.g.natoms; a++) {
		char *atom;
		double pr;
		int idx[64];
		if (!r.is_query[a])
			continue;
		pr = r.g.truth[a] >= 0 ? r.g.truth[a] : marg[r.g.unk[a]];
		if (!(atom = ground_atom_text(&r.g, a))) {
			rc = err_oom(e);
			goto done;
		}
		rc = store_marginal_add(s, *run_id,
		    r.m->preds.v[ground_atom_decode(&r.g, a, idx)].name, atom, pr, e);
		if (!rc && res)
			fprintf(res, "%s %.9g\n", atom, pr);
		free(atom);
		if (rc)
			goto done;
	}
	if (res && (fclose(res) != 0 ? (res = NULL, 1) : (res = NULL, 0))) {
		rc = err_set(e, SQLIFT_EINPUT, "%s: cannot write result file",
		    o->result_path);
		goto done;
	}
	if (o->verbose)
		fprintf(stderr, "sqlift: run %lld: %s, %zu unknown atoms, %lld "
		    "query atoms, log Z = %.12g, %.3f s\n", (long long)*run_id,
		    o->method, r.g.unk_atom.n, (long long)nq, log_z, row.seconds);
	rc = 0;
done:
	if (res)
		fclose(res);
	if (rc && *result_tmp) {
		remove(*result_tmp);
		free(*result_tmp);
		*result_tmp = NULL;
	}
	free(marg);
	free(text);
	free(path);
	free(fp);
	free(started);
	buf_free(&params);
	buf_free(&qtext);
	run_free(&r);
	return rc;
}

int
infer_explain(struct store *s, const struct sqlift_infer_opts *o, int normal,
    FILE *out, struct err *e)
{
	struct run r = { 0 };
	char *text = NULL, *path = NULL, *fp = NULL, *body = NULL;
	struct mln_model *c = NULL;
	struct mln_domain *md = NULL;
	struct ct_evidence *ev = NULL;
	struct ct_theory *t = NULL;
	int *closed = NULL, rc;
	double k = 0;

	r.s = s;
	r.e = e;
	if ((rc = run_setup(&r, o, &text, &path, &fp)) ||
	    (rc = cube_build_all(s, NULL, e)))
		goto done;
	if (!(md = xcalloc(r.m->types.n + 1, sizeof *md))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t ty = 0; ty < r.m->types.n; ty++) {
		md[ty].n = r.dom[ty].n;
		md[ty].names = r.dom[ty].names;
	}
	if ((rc = mln_to_clauses(r.m, md, &c, &k, e)))
		goto done;
	if (!(closed = xcalloc(c->preds.n + 1, sizeof *closed))) {
		rc = err_oom(e);
		goto done;
	}
	memcpy(closed, r.closed, r.m->preds.n * sizeof *closed);
	if ((rc = ct_evidence_read(s, c, r.dom, closed, &ev, e)))
		goto done;
	ev->normal = normal;
	if ((rc = ct_build(c, r.dom, ev, &t, e)))
		goto done;
	if (!(body = ct_text(t))) {
		rc = err_oom(e);
		goto done;
	}
	fprintf(out, "model: %s\nconstraints: %s\n", path, normal ? "normal" :
	    "setineq");
	for (size_t p = 0; p < r.m->preds.n; p++)
		fprintf(out, "predicate %s: %s world\n", r.m->preds.v[p].name,
		    r.closed[p] ? "closed" : "open");
	fprintf(out, "%s", body);
	fprintf(out, "clause conversion constant %.17g\n", k);
done:
	free(body);
	ct_free(t);
	if (c)
		ct_evidence_free(ev, (int)c->types.n, (int)c->preds.n);
	free(closed);
	free(md);
	mln_free(c);
	free(text);
	free(path);
	free(fp);
	run_free(&r);
	return rc;
}
