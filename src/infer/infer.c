/* infer.c: the inference driver.  Open/closed world follows Alchemy: a
 * predicate with evidence (or declared with '*') is closed-world unless it
 * is queried or named by --ow; --cw closes a predicate; all others are
 * open.  Every ground atom of a query gets a marginal, evidence atoms
 * included (1 or 0), unlike Tuffy, which leaves atoms out. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/blocks.h"
#include "evidence/cube.h"
#include "evidence/evidence.h"
#include "infer/ground.h"
#include "infer/infer.h"
#include "infer/infer-int.h"
#include "infer/map.h"
#include "infer/warn.h"
#include "sample/gibbs.h"
#include "sample/lis.h"
#include "lifted/engine.h"
#include "lifted/theory.h"

static void
qrows_free(struct qrows *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].atom);
	free(q->v);
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

/* Resolves query item qa: its predicate (*pred) and the domain position
 * of each constant argument (fixed[i], or -1 for a variable). */
static int
query_resolve(struct run *r, const struct query_atom *qa, const char *where,
    int *pred, int *fixed)
{
	int p = smap_get(&r->m->predmap, qa->pred);
	const struct mln_pred *pr;

	if (p < 0)
		return err_set(r->e, SQLIFT_EUSAGE, "%s: unknown query predicate %s",
		    where, qa->pred);
	pr = &r->m->preds.v[p];
	if (qa->nargs >= 0 && qa->nargs != pr->arity)
		return err_set(r->e, SQLIFT_EUSAGE, "%s: %s takes %d argument%s, "
		    "found %d", where, pr->name, pr->arity, pr->arity == 1 ? "" : "s",
		    qa->nargs);
	for (int i = 0; i < pr->arity; i++) {
		const struct mln_domain *d = &r->dom[pr->types[i]];
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
	*pred = p;
	return 0;
}

/* Does the atom at domain positions idx match query item qa? */
static int
query_match(const struct query_atom *qa, int arity, const int *fixed,
    const int *idx)
{
	for (int i = 0; i < arity; i++) {
		if (fixed[i] >= 0 && idx[i] != fixed[i])
			return 0;
		if (qa->nargs >= 0 && qa->var[i] >= 0 && idx[i] != idx[qa->var[i]])
			return 0;
	}
	return 1;
}

/* Marks the ground atoms that a query item names. */
int
infer_mark_query(struct run *r, const struct query_atom *qa, const char *where)
{
	int p, fixed[64], idx[64], rc;

	if ((rc = query_resolve(r, qa, where, &p, fixed)))
		return rc;
	for (int64_t a = r->g.offset[p]; a < r->g.offset[p + 1]; a++) {
		ground_atom_decode(&r->g, a, idx);
		if (query_match(qa, r->m->preds.v[p].arity, fixed, idx))
			r->is_query[a - r->is_query_lo] = 1;
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
	warn_free(&r->w);
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

	r->max_seconds = o->max_seconds;

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

/* The evidence of one queried predicate indexed by block (true, false),
 * so that an atom is looked up among the few cubes of its blocks: Cora
 * has 69,350 query atoms and 9,391 cubes of category. */
struct ev_look {
	struct si_index *ix[2];
	struct si_ids near;
};

static void
ev_look_free(struct ev_look *lk)
{
	si_index_free(lk->ix[0]);
	si_index_free(lk->ix[1]);
	free(lk->near.v);
	memset(lk, 0, sizeof *lk);
}

/* Is the atom at domain positions idx (blocks blk) in one of s's tuples
 * (w: 0 true, 1 false)?  The tuples are over the predicate's arguments.
 * 1, 0 or -1 (out of memory). */
static int
in_ev_set(const struct ct_theory *t, int p, int w, struct ev_look *lk,
    const int *blk, const int *idx)
{
	const struct mln_pred *mp = &t->m->preds.v[p];
	const struct si_set *s = w ? &t->ev[p].fal : &t->ev[p].tru;
	struct si_tuple *q;
	int found = 0;

	if (s->v.n == 0)
		return 0;
	if ((!lk->ix[w] && !(lk->ix[w] = si_index_new(s, t->sp))) ||
	    !(q = si_tuple_new(t->sp, mp->arity, mp->types)))
		return -1;
	for (int i = 0; i < mp->arity; i++)
		si_in_block(q, i, blk[i]);
	if (si_index_meets(lk->ix[w], q, NULL, &lk->near) < 0) {
		si_tuple_free(q);
		return -1;
	}
	si_tuple_free(q);
	for (size_t k = 0; k < lk->near.n && !found; k++) {
		const struct si_tuple *tu = s->v.v[lk->near.v[k]];
		int in = 1;
		for (int i = 0; i < mp->arity && in; i++)
			in = si_has(tu, i, blk[i]) && idx[tu->rep[i]] == idx[i];
		for (int j = 0; j < tu->nneq && in; j++)
			in = mp->types[tu->neq[j][0]] != mp->types[tu->neq[j][1]] ||
			    idx[tu->neq[j][0]] != idx[tu->neq[j][1]];
		found = in;
	}
	return found;
}

/* The marginal of the query atom at positions idx: 1 or 0 from the
 * evidence, else its group's, computed once per group. */
static int
exact_marginal(struct run *r, const struct ct_theory *t, struct eng *g,
    double log_z, struct groups *gr, struct ev_look *lk, int p,
    const int *idx, double *pr, int64_t *group)
{
	const struct mln_pred *mp = &r->m->preds.v[p];
	int blk[64], eq[64], k, in;
	char key[64 * 24];
	size_t kl = 0;

	*group = -1;
	for (int i = 0; i < mp->arity; i++) {
		blk[i] = t->block_of[mp->types[i]][idx[i]];
		eq[i] = i;
		for (int j = 0; j < i && eq[i] == i; j++)
			if (mp->types[j] == mp->types[i] && idx[j] == idx[i])
				eq[i] = j;
	}
	if ((in = in_ev_set(t, p, 0, lk, blk, idx)) < 0)
		return err_oom(r->e);
	if (in) {
		*pr = 1;
		return 0;
	}
	if (!t->ev[p].closed && (in = in_ev_set(t, p, 1, lk, blk, idx)) < 0)
		return err_oom(r->e);
	if (t->ev[p].closed || in) {
		*pr = 0;
		return 0;
	}
	kl += (size_t)snprintf(key, sizeof key, "%d", p);
	for (int i = 0; i < mp->arity; i++)
		kl += (size_t)snprintf(key + kl, sizeof key - kl, ":%d.%d", blk[i],
		    eq[i]);
	if ((k = smap_getn(&gr->ids, key, kl)) < 0) {
		struct group ng = { p, 0, 0.5, NAN, NAN, NULL };
		/* g NULL: computed later (lis), remember the class */
		if (g) {
			int rc = eng_marginal(g, p, blk, eq, &ng.p, r->e);
			if (rc)
				return rc;
		} else {
			if (!(ng.be = xmalloc(2 * (size_t)mp->arity * sizeof *ng.be +
			    1)))
				return err_oom(r->e);
			memcpy(ng.be, blk, (size_t)mp->arity * sizeof *blk);
			memcpy(ng.be + mp->arity, eq, (size_t)mp->arity * sizeof *eq);
		}
		k = (int)gr->v.n;
		if (VEC_PUSH(gr->v, ng) < 0) {
			free(ng.be);
			return err_oom(r->e);
		}
		if (smap_putn(&gr->ids, key, kl, k) < 0)
			return err_oom(r->e);
	}
	gr->v.v[k].atoms++;
	*pr = gr->v.v[k].p;
	*group = k;
	return 0;
}

/* Marks the atoms of query item qa in seen (positions of predicate p in
 * row-major order). */
static int
exact_mark(struct run *r, const struct query_atom *qa, int p,
    unsigned char *seen, int64_t natoms)
{
	const struct mln_pred *pr = &r->m->preds.v[p];
	int fixed[64], idx[64], rc, q;

	if ((rc = query_resolve(r, qa, "query", &q, fixed)))
		return rc;
	for (int64_t a = 0; a < natoms; a++) {
		int64_t x = a;
		for (int i = pr->arity - 1; i >= 0; i--) {
			idx[i] = (int)(x % r->dom[pr->types[i]].n);
			x /= r->dom[pr->types[i]].n;
		}
		if (query_match(qa, pr->arity, fixed, idx))
			seen[a] = 1;
	}
	return 0;
}

static int
exact_queries(struct run *r, const struct ct_theory *t, struct eng *g,
    double log_z, struct groups *gr, struct qrows *rows)
{
	for (size_t p = 0; p < r->m->preds.n; p++) {
		const struct mln_pred *mp = &r->m->preds.v[p];
		struct ev_look lk = { { NULL, NULL }, { NULL, 0, 0 } };
		unsigned char *seen;
		int64_t natoms = 1;
		int idx[64], rc = 0;
		if (!r->queried[p])
			continue;
		for (int i = 0; i < mp->arity; i++) {
			natoms *= r->dom[mp->types[i]].n;
			if (natoms > ((int64_t)1 << 31))
				return err_set(r->e, SQLIFT_ELIMIT, "query %s has more "
				    "than 2^31 ground atoms", mp->name);
		}
		if (!(seen = xcalloc((size_t)natoms + 1, 1)))
			return err_oom(r->e);
		for (size_t i = 0; i < r->q.v.n && !rc; i++)
			if (!strcmp(r->q.v.v[i].pred, mp->name))
				rc = exact_mark(r, &r->q.v.v[i], (int)p, seen, natoms);
		for (int64_t a = 0; a < natoms && !rc; a++) {
			struct qrow q = { (int)p, -1, 0, NULL };
			struct buf b;
			int64_t x = a;
			if (!seen[a])
				continue;
			for (int i = mp->arity - 1; i >= 0; i--) {
				idx[i] = (int)(x % r->dom[mp->types[i]].n);
				x /= r->dom[mp->types[i]].n;
			}
			if ((rc = exact_marginal(r, t, g, log_z, gr, &lk, (int)p,
			    idx, &q.p, &q.group)))
				break;
			buf_init(&b);
			buf_printf(&b, "%s(", mp->name);
			for (int i = 0; i < mp->arity; i++)
				buf_printf(&b, "%s%s", i ? "," : "",
				    r->dom[mp->types[i]].names[idx[i]]);
			buf_puts(&b, ")");
			if (!(q.atom = buf_take(&b)) || VEC_PUSH(*rows, q) < 0) {
				free(q.atom);
				rc = err_oom(r->e);
			}
		}
		free(seen);
		ev_look_free(&lk);
		if (rc)
			return rc;
	}
	return 0;
}

static void
built_free(struct built *b)
{
	ct_free(b->t);
	if (b->c)
		ct_evidence_free(b->ev, (int)b->c->types.n, (int)b->c->preds.n);
	free(b->closed);
	mln_free(b->c);
	memset(b, 0, sizeof *b);
}

/* The part of the build that reads the database: cubes, clauses and
 * the evidence by block.  The cubes and blocks stored by `sqlift cubes`
 * are read as they are when key (store_evidence_fingerprint's cubes key
 * of this transaction) says they were built from the same evidence,
 * domains and catalogue; otherwise they are built again, into the temp
 * tables of the transaction. */
static int
build_read(struct run *r, int normal, const char *key, struct built *b)
{
	struct err *e = r->e;
	int rc, current;

	memset(b, 0, sizeof *b);
	b->t0 = now_seconds();
	if ((rc = store_cubes_current(r->s, key, &current, e)) ||
	    (!current && (rc = cube_build_all(r->s, NULL, e))))
		return rc;
	if ((rc = mln_to_clauses(r->m, r->dom, r->map, &b->c, &b->k, e)))
		return rc;
	if (!(b->closed = xcalloc(b->c->preds.n + 1, sizeof *b->closed)))
		return err_oom(e);
	memcpy(b->closed, r->closed, r->m->preds.n * sizeof *b->closed);
	if ((rc = blocks_read(r->s, b->c, r->dom, b->closed, &b->ev, e)))
		return rc;
	b->ev->normal = normal;
	b->ev->max_seconds = r->max_seconds;
	return 0;
}

/* The rest, from memory: the constrained theory. */
int
infer_build_finish(struct built *b, const struct mln_domain *dom, struct err *e)
{
	int rc = ct_build(b->c, dom, b->ev, &b->t, e);

	b->seconds = now_seconds() - b->t0;
	return rc;
}

static int
build_theory(struct run *r, int normal, struct built *b)
{
	char fp[17], key[33];
	int rc;

	if ((rc = store_evidence_fingerprint(r->s, fp, key, r->e)) ||
	    (rc = build_read(r, normal, key, b)))
		return rc;
	return infer_build_finish(b, r->dom, r->e);
}

/* Exact lifted inference: the constrained theory of the model and the
 * evidence (b, read), then the engine; marginals per group of query
 * atoms. */
int
infer_exact_solve(struct run *r, const struct sqlift_infer_opts *o,
    const struct eng_opts *lim, struct built *b, double *log_z,
    struct groups *gr, struct qrows *rows, struct buf *stats)
{
	struct eng *g = NULL;
	struct eng_opts eo = *lim;
	struct eng_stats st;
	struct err *e = r->e;
	int rc;

	eo.order = o->order ? eng_order_parse(o->order) : ENG_MIN_TABLE;
	if ((rc = infer_build_finish(b, r->dom, e)) ||
	    (rc = eng_new(b->t, &eo, &g, e)) ||
	    (rc = eng_log_z(g, log_z, e)) ||
	    (rc = exact_queries(r, b->t, g, *log_z, gr, rows)))
		goto done;
	*log_z += b->k;
	eng_get_stats(g, &st);
	warn_engine(&r->w, &st, eng_order_name(eo.order));
	buf_printf(stats, "{\"nodes\":%lld,\"cache_hits\":%lld,"
	    "\"decompositions\":%lld,\"powers\":%lld,\"binomials\":%lld,"
	    "\"groundings\":%lld,\"largest_grounding\":%lld,\"order\":\"%s\","
	    "\"constraints\":\"%s\",\"theory_seconds\":%.3f}",
	    (long long)st.nodes,
	    (long long)st.cache_hits, (long long)st.decompositions,
	    (long long)st.powers, (long long)st.binomials,
	    (long long)st.groundings, (long long)st.largest_grounding,
	    eng_order_name(eo.order), b->ev->normal ? "normal" : "setineq",
	    b->seconds);
	if (stats->oom)
		rc = err_oom(e);
done:
	eng_free(g);
	return rc;
}

/* Lifted importance sampling (ground: on the ground model, every
 * constant its own block) on the theory of b, read.  The groups of query
 * atoms are found first, then sampled with the theory. */
static int
lis_solve(struct run *r, const struct sqlift_infer_opts *o, int ground,
    struct built *b, double *log_z, struct groups *gr, struct qrows *rows,
    struct buf *stats, struct lis_result *res)
{
	struct lis_opts lo = { 0 };
	struct lis_group *lg = NULL;
	struct err *e = r->e;
	int rc, normal = o->constraints && !strcmp(o->constraints, "normal");

	lo.eo.order = o->order ? eng_order_parse(o->order) : ENG_MIN_TABLE;
	lo.eo.proposal = o->proposal ? eng_proposal_parse(o->proposal) :
	    ENG_PROP_ADAPTIVE;
	lo.eo.particles = o->particles;
	lo.eo.exact_budget = o->exact_budget == 0 ? 10000 : o->exact_budget < 0 ?
	    0 : o->exact_budget;
	lo.samples = o->samples > 0 ? o->samples : o->max_seconds > 0 ? 0 :
	    1000;
	lo.max_seconds = o->max_seconds;
	lo.eo.max_seconds = o->max_seconds;  /* stops a sample that runs over */
	lo.eo.max_memory = (double)o->max_memory;
	lo.seed = o->seed;
	lo.threads = o->threads > 0 ? o->threads : 1;
	lo.progress = o->progress;
	lo.progress_arg = o->progress_arg;
	lo.marginals = o->marginals ? lis_marginals_parse(o->marginals) :
	    LIS_AUTO;
	if ((rc = infer_build_finish(b, r->dom, e)) ||
	    (rc = exact_queries(r, b->t, NULL, 0, gr, rows)))
		goto done;
	if (!(lg = xcalloc(gr->v.n + 1, sizeof *lg))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t k = 0; k < gr->v.n; k++) {
		const struct group *x = &gr->v.v[k];
		lg[k].pred = x->pred;
		lg[k].block = x->be;
		lg[k].eq = x->be + r->m->preds.v[x->pred].arity;
	}
	if ((rc = lis_run(b->t, &lo, lg, gr->v.n, res, e)))
		goto done;
	warn_engine(&r->w, &res->st, eng_order_name(lo.eo.order));
	for (size_t k = 0; k < gr->v.n; k++) {
		gr->v.v[k].p = lg[k].p;
		gr->v.v[k].se = lg[k].stderr_p;
	}
	for (size_t k = 0; k < rows->n; k++)
		if (rows->v[k].group >= 0)
			rows->v[k].p = gr->v.v[rows->v[k].group].p;
	*log_z = res->log_z + b->k;
	for (size_t k = 0; k < res->ntrace; k++)
		res->trace[k].log_z += b->k;
	buf_printf(stats, "{\"nodes\":%lld,\"draws\":%lld,\"exact_tries\":%lld,"
	    "\"exact_fails\":%lld,\"enumerations\":%lld,\"parts\":%zu,"
	    "\"flat_parts\":%lld,\"path_groups\":%zu,\"pair_groups\":%zu,"
	    "\"count_groups\":%zu,\"cache_hits\":%lld,\"powers\":%lld,"
	    "\"groundings\":%lld,\"threads\":%d,\"exact_budget\":%lld,"
	    "\"order\":\"%s\",\"constraints\":\"%s\","
	    "\"theory_seconds\":%.3f}",
	    (long long)res->st.nodes, (long long)res->st.draws,
	    (long long)res->st.exact_tries, (long long)res->st.exact_fails,
	    (long long)res->st.enumerations, res->parts,
	    (long long)res->st.flat_parts, res->path_groups, res->pair_groups,
	    res->count_groups, (long long)res->st.cache_hits, (long long)res->st.powers,
	    (long long)res->st.groundings, lo.threads,
	    (long long)lo.eo.exact_budget, eng_order_name(lo.eo.order),
	    ground ? "ground" : normal ? "normal" : "setineq", b->seconds);
	if (stats->oom)
		rc = err_oom(e);
done:
	free(lg);
	return rc;
}

/* Brute force on the ground model, its atoms read (ground_atoms). */
static int
brute_run(struct run *r, double *log_z, struct qrows *rows, int64_t *unknown)
{
	double *marg = NULL;
	int rc;

	if (!(r->is_query = xcalloc((size_t)r->g.natoms + 1, 1)))
		return err_oom(r->e);
	for (size_t i = 0; i < r->q.v.n; i++)
		if ((rc = infer_mark_query(r, &r->q.v.v[i], "query")))
			return rc;
	if ((rc = ground_formulas(&r->g, r->e)))
		return rc;
	if (!(marg = xcalloc(r->g.unk_atom.n + 1, sizeof *marg)))
		return err_oom(r->e);
	if ((rc = brute_solve(&r->g, log_z, marg, NULL, r->e)))
		goto done;
	*unknown = (int64_t)r->g.unk_atom.n;
	for (int64_t a = 0; a < r->g.natoms; a++) {
		struct qrow q = { 0, -1, 0, NULL };
		int idx[64];
		if (!r->is_query[a])
			continue;
		q.p = r->g.truth[a] >= 0 ? r->g.truth[a] : marg[r->g.unk[a]];
		q.pred = ground_atom_decode(&r->g, a, idx);
		if (!(q.atom = ground_atom_text(&r->g, a)) ||
		    VEC_PUSH(*rows, q) < 0) {
			free(q.atom);
			rc = err_oom(r->e);
			goto done;
		}
	}
done:
	free(marg);
	return rc;
}

/* Unknown atoms of the model's predicates, counted without grounding. */
static int
count_unknown(struct run *r, int64_t *out)
{
	*out = 0;
	for (size_t p = 0; p < r->m->preds.n; p++) {
		const struct mln_pred *mp = &r->m->preds.v[p];
		int64_t n = 1, nev = 0;
		int rc;
		if (r->closed[p])
			continue;
		for (int i = 0; i < mp->arity; i++)
			n *= r->dom[mp->types[i]].n;
		if (r->store_pred[p] >= 0 &&
		    (rc = store_pred_count(r->s, r->store_pred[p], &nev, r->e)))
			return rc;
		*out += n - nev;
	}
	return 0;
}

/* The lines of -v, to the log function; a line that cannot be
 * allocated is left out. */
static void
log_summary(const struct sqlift_infer_opts *o, int64_t id, int64_t unknown,
    size_t nrows, double log_z, double seconds, const struct lis_result *lr,
    size_t ngroups, const char *stats)
{
	struct buf b;

	for (int k = 0; k < 3; k++) {
		buf_init(&b);
		if (k == 0 && isnan(log_z))  /* gibbs, map: no estimate of Z */
			buf_printf(&b, "run %lld: %s, %lld unknown atoms, %zu %s, "
			    "%.3f s", (long long)id, o->method, (long long)unknown, nrows,
			    strcmp(o->method, "map") ? "query atoms" :
			    "atoms in the world", seconds);
		else if (k == 0)
			buf_printf(&b, "run %lld: %s, %lld unknown atoms, %zu query "
			    "atoms, log Z = %.12g, %.3f s", (long long)id, o->method,
			    (long long)unknown, nrows, log_z, seconds);
		else if (k == 1 && lr)
			buf_printf(&b, "run %lld: %lld samples, log Z stderr %.3g, "
			    "ESS %.1f", (long long)id, (long long)lr->samples,
			    lr->stderr_lz, lr->ess);
		else if (k == 2 && stats)
			buf_printf(&b, "run %lld: %zu groups, %s", (long long)id,
			    ngroups, stats);
		if (b.s && !b.oom)
			o->log(o->log_arg, b.s);
		buf_free(&b);
	}
}

/* Fails unless the result file out can be replaced: a directory cannot. */
static int
result_check(const char *out, struct err *e)
{
	struct stat st;

	if (out && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		return err_set(e, SQLIFT_EINPUT, "%s: is a directory, not a "
		    "result file", out);
	return 0;
}

/* Creates a new temporary beside the result file out, *tmp its name, for
 * sqlift_infer to rename over out.  O_EXCL: a link planted under that name
 * makes the open fail instead of writing where the link points.  A device,
 * a pipe or a link named as out (/dev/stdout) is written through directly,
 * *tmp NULL: renaming over it would replace it. */
static int
result_open(const char *out, char **tmp, FILE **f, struct err *e)
{
	struct stat st;
	struct buf b;
	int fd = -1, tries, err = 0;

	if ((lstat(out, &st) == 0 && S_ISLNK(st.st_mode)) ||
	    (stat(out, &st) == 0 && !S_ISREG(st.st_mode))) {
		if (!(*f = fopen(out, "w")))
			return err_set(e, SQLIFT_EINPUT, "%s: cannot write result "
			    "file: %s", out, strerror(errno));
		return 0;
	}
	for (tries = 0; fd < 0 && tries < 100; tries++) {
		buf_init(&b);
		buf_printf(&b, "%s.%ld.%d.tmp", out, (long)getpid(), tries);
		if (!(*tmp = buf_take(&b)))
			return err_oom(e);
		if ((fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
		    0666)) < 0) {
			err = errno;
			free(*tmp);
			*tmp = NULL;
			if (err != EEXIST)
				break;
		}
	}
	if (fd < 0)
		return err_set(e, SQLIFT_EINPUT, "%s: cannot write result file: "
		    "%s", out, strerror(err));
	if (!(*f = fdopen(fd, "w"))) {
		close(fd);
		return err_oom(e);  /* *tmp is removed by the caller */
	}
	return 0;
}

/* Flushes and closes the result file *f, syncing a temporary (tmp). */
static int
result_close(const char *out, int tmp, FILE **f, struct err *e)
{
	int bad = fflush(*f) != 0 || ferror(*f) ||
	    (tmp && fsync(fileno(*f)) != 0);

	bad |= fclose(*f) != 0;
	*f = NULL;
	return bad ? err_set(e, SQLIFT_EINPUT, "%s: cannot write result file",
	    out) : 0;
}

/* The parameters and the queried predicates as the runs row has them. */
static int
run_texts(const struct run *r, const struct sqlift_infer_opts *o,
    struct buf *params, struct buf *qtext)
{
	opts_params(params, o);
	for (size_t i = 0; i < r->q.v.n; i++)
		buf_printf(qtext, "%s%s", i ? "," : "", r->q.v.v[i].pred);
	return params->oom || qtext->oom ? -1 : 0;
}

/* What a failed run's row holds, owned: the run's transaction is rolled
 * back before the row is written. */
struct infer_failure {
	struct store_run row;
	struct buf params, qtext;
	char *model_fp, *started, *error, *job_file, *warnings;
	char evfp[17];
};

void
infer_failure_free(struct infer_failure *f)
{
	if (!f)
		return;
	buf_free(&f->params);
	buf_free(&f->qtext);
	free(f->model_fp);
	free(f->started);
	free(f->error);
	free(f->job_file);
	free(f->warnings);
	free(f);
}

/* The row of run r, which failed with e's message after it started;
 * NULL when even that cannot be had (out of memory, a database that
 * cannot be read).  Takes fp and started. */
static struct infer_failure *
failure_new(const struct run *r, const struct sqlift_infer_opts *o,
    char **fp, char **started, const char *evfp, double seconds)
{
	struct infer_failure *f = xcalloc(1, sizeof *f);
	struct err scratch = { 0 };

	if (!f)
		return NULL;
	buf_init(&f->params);
	buf_init(&f->qtext);
	f->model_fp = *fp;
	f->started = *started;
	*fp = *started = NULL;
	if (evfp[0])
		memcpy(f->evfp, evfp, sizeof f->evfp);
	else if (store_evidence_fingerprint(r->s, f->evfp, NULL, &scratch) != 0)
		goto fail;
	if (run_texts(r, o, &f->params, &f->qtext) ||
	    !(f->error = xstrdup(r->e->msg)) ||
	    (o->job_path && !(f->job_file = xstrdup(o->job_path))) ||
	    (warn_text(&r->w) && !(f->warnings = xstrdup(warn_text(&r->w)))))
		goto fail;
	f->row.warnings = f->warnings;
	f->row.method = o->method;  /* o outlives f: both end in infer_commit */
	f->row.status = r->e->status == SQLIFT_EINTR ? "interrupted" :
	    "failed";
	f->row.error = f->error;
	f->row.parameters = f->params.s;
	f->row.queries = f->qtext.s ? f->qtext.s : "";
	f->row.job_file = f->job_file;
	f->row.model_fp = f->model_fp;
	f->row.evidence_fp = f->evfp;
	f->row.started_at = f->started;
	f->row.log_z = NAN;
	f->row.map_log_weight = NAN;
	f->row.seed = o->seed;
	f->row.unknown_atoms = f->row.query_atoms = -1;
	f->row.seconds = seconds;
	return f;
fail:
	infer_failure_free(f);
	return NULL;
}

void
infer_failure_record(struct store *s, struct infer_failure *f)
{
	struct err scratch = { 0 };
	int64_t id;

	/* a file this command created is removed rather than kept for it */
	if (f && !store_is_new(s) && (store_begin(s, &scratch) ||
	    store_run_add(s, &f->row, &id, &scratch) ||
	    store_commit(s, &scratch)))
		store_rollback(s);
	infer_failure_free(f);
}

/* Ground atoms of the open predicates (evidence included): what
 * grounding takes (the closed ones' true atoms are a list). */
static double
map_atoms_open(const struct run *r)
{
	double n = 0;

	for (size_t p = 0; p < r->m->preds.n; p++) {
		double k = !r->closed[p];
		for (int i = 0; i < r->m->preds.v[p].arity; i++)
			k *= r->dom[r->m->preds.v[p].types[i]].n;
		n += k;
	}
	return n;
}

/* The read phase of a run, in one snapshot of the database: the model,
 * queries and domains (run_setup), then for method (0 exact, 1 lis,
 * 2 ground-lis, 3 map) the cubes, clauses and evidence by block into b,
 * and the count of unknown atoms (map: also the ground atoms, when at
 * most MAP_GROUND_ATOMS), or for -1 (brute, gibbs) the ground atoms, or
 * for 4 (lbg) both, where a limit reached by either is kept in
 * r->lifted_err or r->ground_err (the run takes the other way); and the
 * fingerprint of the evidence read, which the run records. */
static int
run_read(struct run *r, const struct sqlift_infer_opts *o, int method,
    struct built *b, char **text, char **path, char **fp, char evfp[17],
    int64_t *unknown)
{
	int normal = o->constraints && !strcmp(o->constraints, "normal");
	char key[33];
	int rc;

	if ((rc = store_begin_snapshot(r->s, r->e)) ||
	    (rc = run_setup(r, o, text, path, fp)) ||
	    (rc = store_evidence_fingerprint(r->s, evfp, method < 0 ? NULL : key,
	    r->e)))
		return rc;
	if (method == 4 && (rc = build_read(r, normal, key, b)) == SQLIFT_ELIMIT) {
		r->lifted_err = *r->e;
		err_clear(r->e);
		built_free(b);
	} else if (method == 4 && !rc)
		rc = count_unknown(r, unknown);
	if (rc && !r->lifted_err.status)
		return rc;
	if (method < 0 || method == 4) {
		r->g.who = strcmp(o->method, "brute") ? o->method : NULL;
		/* the samplers hold the closed predicates' true atoms only */
		r->g.sparse = r->g.who != NULL;
		rc = ground_atoms(&r->g, r->m, r->dom, r->s, r->store_pred,
		    r->closed, r->e);
		if (method == 4 && rc == SQLIFT_ELIMIT && !r->lifted_err.status) {
			r->ground_err = *r->e;
			err_clear(r->e);
			rc = 0;
		}
	} else if (!(rc = build_read(r, method == 2 ? CT_GROUND : normal, key,
	    b)))
		rc = count_unknown(r, unknown);
	/* map: the world is found and written on the ground model */
	if (!rc && method == 3 && map_atoms_open(r) <= MAP_GROUND_ATOMS) {
		r->g.sparse = 1;
		rc = ground_atoms(&r->g, r->m, r->dom, r->s, r->store_pred,
		    r->closed, r->e);
	}
	return rc;
}

/* The result file's lines: the marginals as Alchemy writes them, or for
 * map Alchemy's MAP format, the true atoms (of the queried predicates,
 * when there are queries) one a line. */
static void
result_rows(const struct run *r, const struct qrows *rows, int map, FILE *f)
{
	for (size_t k = 0; k < rows->n; k++)
		if (!map)
			fprintf(f, "%s %.9g\n", rows->v[k].atom, rows->v[k].p);
		else if (rows->v[k].p > 0 && (!r->q.v.n ||
		    r->queried[rows->v[k].pred]))
			fprintf(f, "%s\n", rows->v[k].atom);
}

/* The rows of a finished run, in the write transaction: runs, its
 * groups, trace and marginals (map: its world, into map_atoms). */
static int
run_write(struct run *r, const struct store_run *row, const struct groups *gr,
    const struct qrows *rows, const struct lis_result *lr,
    const struct gibbs_result *gres, int64_t *run_id)
{
	struct store *s = r->s;
	struct err *e = r->e;
	int rc;

	if ((rc = store_run_add(s, row, run_id, e)))
		return rc;
	for (size_t k = 0; k < gr->v.n; k++)
		if ((rc = store_group_add(s, *run_id, (int64_t)k,
		    r->m->preds.v[gr->v.v[k].pred].name, gr->v.v[k].atoms,
		    gr->v.v[k].p, gr->v.v[k].se, gr->v.v[k].rhat, e)))
			return rc;
	for (size_t k = 0; k < lr->ntrace; k++)
		if ((rc = store_trace_add(s, *run_id, lr->trace[k].samples,
		    lr->trace[k].log_z, lr->trace[k].stderr_lz, lr->trace[k].ess,
		    e)))
			return rc;
	for (size_t k = 0; k < gres->ntrace; k++)
		if ((rc = store_trace_chain_add(s, *run_id, gres->trace[k].chain,
		    gres->trace[k].sweeps, gres->trace[k].seconds,
		    gres->trace[k].estimate, e)))
			return rc;
	for (size_t k = 0; r->map && k < rows->n; k++)
		if ((rc = store_map_atom_add(s, *run_id,
		    r->m->preds.v[rows->v[k].pred].name, rows->v[k].atom,
		    rows->v[k].p > 0, e)))
			return rc;
	for (size_t k = 0; !r->map && k < rows->n; k++)
		if ((rc = store_marginal_add(s, *run_id,
		    r->m->preds.v[rows->v[k].pred].name, rows->v[k].atom,
		    rows->v[k].p, rows->v[k].group, e)))
			return rc;
	return 0;
}

/* The method's part of a run's row: its status, and the figures of
 * the sampler (lr, gres) or of the MAP world (mw) that ran. */
static void
run_row(struct store_run *row, const struct sqlift_infer_opts *o,
    const struct lis_result *lr, const struct gibbs_result *gres,
    const struct map_world *mw)
{
	row->method = o->method;
	row->status = (lr && lr->interrupted) || (gres && gres->interrupted) ?
	    "interrupted" : "ok";
	if (lr) {
		row->samples = lr->samples;
		row->log_z_stderr = lr->stderr_lz;
		row->ess = lr->ess;
		row->proposal = o->proposal ? o->proposal : "adaptive";
	} else if (gres) {
		row->samples = gres->sweeps;
		row->log_z_stderr = NAN;
		row->ess = NAN;
	}
	row->map_log_weight = mw ? mw->log_weight : NAN;
	row->map_bound = mw ? mw->bound : 0;
	row->map_optimal = mw ? mw->proven : 0;
}

int
infer_run(struct store *s, const struct sqlift_infer_opts *o, int64_t *run_id,
    char **result_tmp, struct infer_failure **failed, struct err *e)
{
	struct run r = { 0 };
	char *text = NULL, *path = NULL, *fp = NULL, *started = NULL;
	double t0 = now_seconds(), log_z = 0;
	char evfp[17] = "";
	struct store_run row = { 0 };
	struct buf params, qtext, stats;
	struct qrows rows = { 0 };
	struct groups gr = { 0 };
	FILE *res = NULL;
	int64_t unknown = 0;
	int rc, exact, lis, gibbs, lbg, map, kept;
	struct lis_result lr = { 0 };
	struct gibbs_result gres = { 0 };
	struct map_world mw = { 0 };
	struct built b = { 0 };

	*result_tmp = NULL;
	*failed = NULL;
	r.s = s;
	r.e = e;
	r.t0 = t0;
	warn_init(&r.w, o->log, o->log_arg);
	buf_init(&params);
	buf_init(&qtext);
	buf_init(&stats);
	smap_init(&gr.ids);
	if ((rc = opts_check(o, e)) || (rc = result_check(o->result_path, e)))
		goto done;
	exact = o->method && !strcmp(o->method, "exact");
	lis = o->method && !strcmp(o->method, "lis") ? 1 :
	    o->method && !strcmp(o->method, "ground-lis") ? 2 : 0;
	gibbs = o->method && (!strcmp(o->method, "gibbs") ||
	    !strcmp(o->method, "blocked-gibbs") || !strcmp(o->method, "lbg"));
	lbg = o->method && !strcmp(o->method, "lbg");
	map = o->method && !strcmp(o->method, "map");
	r.map = map;
	if (!o->method || (!exact && !lis && !gibbs && !map &&
	    strcmp(o->method, "brute") != 0)) {
		rc = err_set(e, SQLIFT_EUSAGE, "unknown method '%s' (available: "
		    "exact, lis, ground-lis, brute, gibbs, blocked-gibbs, lbg, "
		    "map)",
		    o->method ? o->method : "");
		goto done;
	}
	if (!(started = store_now(s))) {
		rc = err_oom(e);
		goto done;
	}
	/* read the inputs in a snapshot, compute with no lock held */
	rc = run_read(&r, o, exact ? 0 : lis ? lis : map ? 3 : lbg ? 4 : -1, &b,
	    &text, &path, &fp, evfp, &unknown);
	store_rollback(s);
	if (rc || (rc = warn_zero_weights(&r.w, r.m, o->allow_zero_weights, e)))
		goto done;
	if (exact) {
		struct eng_opts lim = { 0 };
		lim.max_nodes = o->max_nodes;
		lim.max_seconds = o->max_seconds;
		lim.max_memory = (double)o->max_memory;
		rc = infer_exact_solve(&r, o, &lim, &b, &log_z, &gr, &rows, &stats);
	} else if (lis) {
		rc = lis_solve(&r, o, lis == 2, &b, &log_z, &gr, &rows, &stats,
		    &lr);
		if (!rc)
			warn_lis(&r.w, &lr, o->samples, o->max_seconds);
	} else if (gibbs) {
		int solved = 0;
		if (lbg && !r.lifted_err.status)
			rc = infer_lbg_lifted(&r, o, &b, &log_z, &gr, &rows, &stats,
			    &solved);
		if (!solved)
			built_free(&b);  /* the sampler works on the ground model */
		if (!rc && !solved && r.ground_err.status)
			rc = err_set(e, r.ground_err.status, "%s", r.ground_err.msg);
		else if (!rc && !solved)
			rc = infer_gibbs_solve(&r, o, &gr, &rows, &stats, &gres,
			    &unknown);
	} else if (map) {
		if (!(rc = infer_map_solve(&r, o, &b, &mw, &stats)))
			rc = infer_map_rows(&r, &mw, &rows);
		log_z = NAN;
	} else
		rc = brute_run(&r, &log_z, &rows, &unknown);
	if (rc)
		goto done;
	if (run_texts(&r, o, &params, &qtext)) {
		rc = err_oom(e);
		goto done;
	}
	run_row(&row, o, lis ? &lr : NULL, gibbs ? &gres : NULL,
	    map ? &mw : NULL);
	row.parameters = params.s;
	row.queries = qtext.s ? qtext.s : "";
	row.job_file = o->job_path;
	row.model_fp = fp;
	row.evidence_fp = evfp;
	row.started_at = started;
	row.log_z = log_z;
	row.seed = o->seed;
	row.unknown_atoms = unknown;
	row.query_atoms = (int64_t)rows.n;
	row.stats = stats.s;
	row.warnings = warn_text(&r.w);
	row.seconds = now_seconds() - t0;
	if (o->result_path &&
	    (rc = result_open(o->result_path, result_tmp, &res, e)))
		goto done;
	if (res)
		result_rows(&r, &rows, map, res);
	if (res && (rc = result_close(o->result_path, *result_tmp != NULL,
	    &res, e)))
		goto done;
	/* the one short write: the caller commits it */
	if ((rc = store_begin(s, e)) ||
	    (rc = run_write(&r, &row, &gr, &rows, &lr, &gres, run_id)))
		goto done;
	if (o->verbose && o->log)
		log_summary(o, *run_id, unknown, rows.n, log_z, row.seconds,
		    lis ? &lr : NULL, gr.v.n, stats.s);
	rc = 0;
	if (gres.interrupted)
		rc = err_set(e, SQLIFT_EINTR, "interrupted: run %lld keeps the "
		    "%lld sweeps per chain drawn", (long long)*run_id,
		    (long long)gres.sweeps);
	else if (lr.interrupted)
		rc = err_set(e, SQLIFT_EINTR, "interrupted: run %lld keeps the "
		    "%lld samples drawn", (long long)*run_id,
		    (long long)lr.samples);
done:
	/* interrupted with samples: kept; else a run that started (a model,
	 * a known method) and failed leaves a row */
	kept = rc == SQLIFT_EINTR && (lr.interrupted || gres.interrupted);
	if (rc && !kept && fp && started)
		*failed = failure_new(&r, o, &fp, &started, evfp,
		    now_seconds() - t0);
	if (res)
		fclose(res);
	if (rc && !kept && *result_tmp) {
		remove(*result_tmp);
		free(*result_tmp);
		*result_tmp = NULL;
	}
	qrows_free(&rows);
	smap_free(&gr.ids);
	for (size_t k = 0; k < gr.v.n; k++)
		free(gr.v.v[k].be);
	free(gr.v.v);
	lis_result_free(&lr);
	gibbs_result_free(&gres);
	free(mw.truth);
	built_free(&b);
	free(text);
	free(path);
	free(fp);
	free(started);
	buf_free(&params);
	buf_free(&qtext);
	buf_free(&stats);
	run_free(&r);
	return rc;
}

/* explain's plan is a sketch: it stops EXPLAIN_SECONDS after explain
 * began (and at least half a second after the theory was built), and
 * when the search holds EXPLAIN_MEMORY bytes. */
#define EXPLAIN_SECONDS 3.0
#define EXPLAIN_MEMORY (1024.0 * 1024 * 1024)

void
infer_print_worlds(const struct run *r, FILE *out)
{
	for (size_t p = 0; p < r->m->preds.n; p++)
		fprintf(out, "predicate %s: %s world\n", r->m->preds.v[p].name,
		    r->closed[p] ? "closed" : "open");
}

/* explain -m lbg, first: the whole model one cluster when the lifted
 * search finds its log Z within lbg's budget (*whole 1, printed); infer
 * (infer_lbg_lifted) spends the same budget on log Z and the marginals. */
static int
lbg_explain_whole(struct run *r, const struct sqlift_infer_opts *o,
    int normal, const char *path, FILE *out, int *whole)
{
	struct built b = { 0 };
	struct eng_opts eo = { 0 };
	struct eng_stats st;
	struct eng *g = NULL;
	double lz;
	int rc;

	*whole = 0;
	if (!(eo.max_work = infer_lbg_budget(o)))
		return 0;
	eo.order = o->order ? eng_order_parse(o->order) : ENG_MIN_TABLE;
	eo.max_seconds = infer_lbg_seconds(o);
	eo.max_memory = infer_lbg_memory(o);
	if (eo.order < 0)
		eo.order = ENG_MIN_TABLE;
	if (!(rc = build_theory(r, normal, &b)) &&
	    !(rc = eng_new(b.t, &eo, &g, r->e)))
		rc = eng_log_z(g, &lz, r->e);
	if (rc == SQLIFT_ELIMIT) {
		err_clear(r->e);
		rc = 0;
	} else if (!rc) {
		*whole = 1;
		eng_get_stats(g, &st);
		fprintf(out, "model: %s\n", path);
		infer_print_worlds(r, out);
		fprintf(out, "clusters: 1\n  cluster 1: the whole model; lifted: "
		    "the lifted search finds log Z (%.17g) in %lld nodes within "
		    "the budget, so every sweep would be an exact draw: infer "
		    "computes the marginals, not samples them, if they fit in "
		    "the same budget\n", lz + b.k, (long long)st.nodes);
	}
	eng_free(g);
	built_free(&b);
	return rc;
}

int
infer_explain(struct store *s, const struct sqlift_infer_opts *o, int normal,
    FILE *out, struct err *e)
{
	struct run r = { 0 };
	char *text = NULL, *path = NULL, *fp = NULL, *body = NULL;
	struct built b = { 0 };
	double t0 = now_seconds();
	int rc;

	r.s = s;
	r.e = e;
	r.map = o->method && !strcmp(o->method, "map");
	if ((rc = run_setup(&r, o, &text, &path, &fp)))
		goto done;
	if (o->method && !strcmp(o->method, "lbg")) {
		int whole;
		if (!(rc = lbg_explain_whole(&r, o, normal, path, out, &whole)) &&
		    !whole)
			rc = infer_lbg_explain(&r, path, out);
		goto done;
	}
	if ((rc = build_theory(&r, normal, &b)))
		goto done;
	if (!(body = ct_text(b.t))) {
		rc = err_oom(e);
		goto done;
	}
	fprintf(out, "model: %s\nconstraints: %s\n", path, normal ? "normal" :
	    "setineq");
	infer_print_worlds(&r, out);
	fprintf(out, "%s", body);
	fprintf(out, "clause conversion constant %.17g\n", b.k);
	{
		struct eng_opts eo = { 0 };
		struct eng *g = NULL;
		struct buf plan;
		eo.order = o->order ? eng_order_parse(o->order) : ENG_MIN_TABLE;
		eo.semiring = r.map ? ENG_MAX : ENG_SUM;
		eo.max_nodes = o->max_nodes ? o->max_nodes : 100000;
		eo.max_seconds = o->max_seconds > 0 ? o->max_seconds :
		    fmax(0.5, floor(10 * (EXPLAIN_SECONDS - (now_seconds() -
		    t0))) / 10);
		eo.max_memory = o->max_memory ? (double)o->max_memory :
		    fmin(eng_default_memory(), EXPLAIN_MEMORY);
		if (eo.order < 0) {
			rc = err_set(e, SQLIFT_EUSAGE, "unknown order '%s'", o->order);
			goto done;
		}
		buf_init(&plan);
		if ((rc = eng_new(b.t, &eo, &g, e)) == 0)
			rc = eng_plan(g, &plan, e);
		eng_free(g);
		if (rc == SQLIFT_ELIMIT) {
			buf_printf(&plan, "  (stopped: %s)\n", e->msg);
			rc = 0;
		}
		if (!rc)
			fprintf(out, "plan (%s%s order; [xN]: times a full run takes "
			    "the step):\n%s", r.map ? "map, max semiring, " : "",
			    eng_order_name(eo.order), plan.s ? plan.s :
			    "  nothing to do\n");
		buf_free(&plan);
		if (rc)
			goto done;
	}
done:
	free(body);
	built_free(&b);
	free(text);
	free(path);
	free(fp);
	run_free(&r);
	return rc;
}
