/* infer-gibbs.c: --method gibbs, blocked-gibbs and lbg for the inference
 * driver: the ground model, one group per unknown query atom, the
 * samplers of sample/gibbs.c, R-hat into the stats and warnings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer-int.h"
#include "infer/lazy.h"

/* What a stopped exact attempt left in gr and rows, dropped. */
static void
results_clear(struct groups *gr, struct qrows *rows)
{
	for (size_t k = 0; k < rows->n; k++)
		free(rows->v[k].atom);
	rows->n = 0;
	for (size_t k = 0; k < gr->v.n; k++)
		free(gr->v.v[k].be);
	gr->v.n = 0;
	smap_free(&gr->ids);
	smap_init(&gr->ids);
}

/* Algorithm 2 of Venugopal and Gogate grows clusters while each one's
 * conditional stays cheap by the lifted rules.  Its first question is
 * whether the whole model is such a cluster: when the lifted search
 * solves it within the exact budget (--exact-budget units of work, a
 * node of n clauses counting 1 + n / 64, LBG_EXACT_BUDGET by default;
 * LBG_EXACT_MEMORY bytes; LBG_EXACT_SECONDS, or half of --max-seconds),
 * nothing lies outside the cluster,
 * every sweep would be an exact draw of the whole world, and the
 * Rao-Blackwellised marginals (each atom's conditional probability
 * given the other clusters, here none) are the exact ones from the
 * first sweep: they are computed once and no chain is run.  A search
 * stopped at a limit leaves nothing behind (*solved 0). */
int64_t
infer_lbg_budget(const struct sqlift_infer_opts *o)
{
	return o->exact_budget == 0 ? LBG_EXACT_BUDGET : o->exact_budget < 0 ?
	    0 : o->exact_budget;
}

double
infer_lbg_seconds(const struct sqlift_infer_opts *o)
{
	return o->max_seconds > 0 && o->max_seconds / 2 < LBG_EXACT_SECONDS ?
	    o->max_seconds / 2 : LBG_EXACT_SECONDS;
}

double
infer_lbg_memory(const struct sqlift_infer_opts *o)
{
	double cap = o->max_memory > 0 ? (double)o->max_memory :
	    eng_default_memory();

	return cap < LBG_EXACT_MEMORY ? cap : LBG_EXACT_MEMORY;
}

int
infer_lbg_lifted(struct run *r, const struct sqlift_infer_opts *o,
    struct built *b, double *log_z, struct groups *gr, struct qrows *rows,
    struct buf *stats, int *solved)
{
	struct eng_opts lim = { 0 };
	int rc;

	*solved = 0;
	if (!(lim.max_work = infer_lbg_budget(o)))
		return 0;
	lim.max_seconds = infer_lbg_seconds(o);
	lim.max_memory = infer_lbg_memory(o);
	rc = infer_exact_solve(r, o, &lim, b, log_z, gr, rows, stats);
	if (rc == SQLIFT_ELIMIT) {
		results_clear(gr, rows);
		*log_z = 0;  /* as a sampled run's */
		stats->len = 0;
		if (stats->s)
			stats->s[0] = '\0';
		err_clear(r->e);
		return 0;
	}
	if (rc)
		return rc;
	*solved = 1;
	/* exact_solve's object, with how lbg took it */
	if (stats->len && stats->s[stats->len - 1] == '}') {
		stats->s[--stats->len] = '\0';
		buf_printf(stats, ",\"clusters\":1,\"lifted\":\"the whole "
		    "model, solved by the lifted search\"}");
	}
	return stats->oom ? err_oom(r->e) : 0;
}

/* The samplers' ground model: every grounding the evidence leaves open.
 * Enumerated while the formulas have at most GIBBS_MAX_ENUMERATED
 * groundings; past that, found by joins over the evidence (lazy.c's
 * cores, as map's: Cora's co-author clause has 10^13 groundings and 10^5
 * open), when every clause's core fits in GROUND_MAX_GROUNDINGS and the
 * formulas that are not clauses have at most GIBBS_MAX_ENUMERATED.
 * *joins: 1 when found by joins. */
static int
gibbs_ground(struct run *r, int *joins)
{
	struct lazy *lz = NULL;
	double total = ground_enumerations(&r->g);
	int rc;

	*joins = 0;
	r->g.max_enumerated = GIBBS_MAX_ENUMERATED;
	if (total <= GIBBS_MAX_ENUMERATED)
		return ground_formulas(&r->g, r->e);
	r->g.core_max = GROUND_MAX_GROUNDINGS;
	if (!(rc = lazy_new(&r->g, &lz, r->e)) && lazy_clauses(lz) > 0)
		rc = err_set(r->e, SQLIFT_ELIMIT, "%s: the formulas have %.0f "
		    "groundings, and the evidence leaves more than %ld of them "
		    "open (or its joins list more than it can hold)", r->g.who,
		    total, GROUND_MAX_GROUNDINGS);
	lazy_free(lz);
	*joins = !rc;
	return rc;
}

/* Gibbs sampling on the ground model, its atoms read (ground_atoms):
 * each unknown query atom its own group, with its standard error; the
 * largest R-hat of each query predicate in stats and, above
 * WARN_RHAT_MAX, in the warnings. */
int
infer_gibbs_solve(struct run *r, const struct sqlift_infer_opts *o,
    struct groups *gr, struct qrows *rows, struct buf *stats,
    struct gibbs_result *res, int64_t *unknown)
{
	struct gibbs_opts go = { 0 };
	VEC(int) track = { 0 };
	double *rmax = NULL, t0, t1;
	int64_t lo, hi = 0;
	int rc, joins;

	go.block_max = !strcmp(o->method, "blocked-gibbs") ? (o->block_size ?
	    o->block_size : GB_BLOCK_DEFAULT) : 1;
	go.lbg = !strcmp(o->method, "lbg") ? 1 :
	    !strcmp(o->method, "blocked-gibbs") ? 2 : 0;
	go.sweeps = o->samples > 0 ? o->samples : o->max_seconds > 0 ? 0 :
	    1000;
	go.burn_in = o->burn_in < 0 ? 0 : o->burn_in > 0 ? o->burn_in :
	    go.sweeps > 0 ? go.sweeps / 10 : 100;
	go.max_seconds = o->max_seconds;
	go.seed = o->seed;
	go.chains = o->chains > 0 ? o->chains : 4;
	go.threads = o->threads > 0 ? o->threads : 1;
	go.progress = o->progress;
	go.progress_arg = o->progress_arg;
	/* the queried predicates' atoms only: a closed predicate's may be
	 * far more than the model holds (sparse) */
	lo = r->g.natoms;
	for (size_t p = 0; p < r->m->preds.n; p++)
		if (r->queried[p]) {
			if (r->g.offset[p] < lo)
				lo = r->g.offset[p];
			if (r->g.offset[p + 1] > hi)
				hi = r->g.offset[p + 1];
		}
	if (hi < lo)
		hi = lo;
	r->is_query_lo = lo;
	if (!(r->is_query = xcalloc((size_t)(hi - lo) + 1, 1)) ||
	    !(rmax = xcalloc(r->m->preds.n + 1, sizeof *rmax)))
		return err_oom(r->e);
	for (size_t i = 0; i < r->q.v.n; i++)
		if ((rc = infer_mark_query(r, &r->q.v.v[i], "query")))
			goto done;
	r->g.who = o->method;
	t0 = now_seconds();
	if ((rc = gibbs_ground(r, &joins)))
		goto done;
	t1 = now_seconds();
	*unknown = (int64_t)r->g.unk_atom.n;
	for (int64_t a = lo; a < hi; a++) {
		struct qrow q = { 0, -1, 0, NULL };
		int idx[64], t;
		if (!r->is_query[a - lo])
			continue;
		q.pred = ground_atom_decode(&r->g, a, idx);
		if ((t = ground_truth(&r->g, q.pred, a)) >= 0)
			q.p = t;
		else {
			struct group x = { q.pred, 1, 0, 0, NAN, NULL };
			q.group = (int64_t)gr->v.n;
			if (VEC_PUSH(gr->v, x) < 0 ||
			    VEC_PUSH(track, ground_unk(&r->g, q.pred, a)) < 0) {
				rc = err_oom(r->e);
				goto done;
			}
		}
		if (!(q.atom = ground_atom_text(&r->g, a)) ||
		    VEC_PUSH(*rows, q) < 0) {
			free(q.atom);
			rc = err_oom(r->e);
			goto done;
		}
	}
	if ((rc = gibbs_run(&r->g, &go, track.v, track.n, res, r->e)))
		goto done;
	for (size_t k = 0; k < gr->v.n; k++) {
		int p = gr->v.v[k].pred;
		gr->v.v[k].p = res->p[k];
		gr->v.v[k].se = res->se[k];
		gr->v.v[k].rhat = res->rhat[k];
		if (!(res->rhat[k] <= rmax[p]))
			rmax[p] = res->rhat[k];
	}
	for (size_t k = 0; k < rows->n; k++)
		if (rows->v[k].group >= 0)
			rows->v[k].p = gr->v.v[rows->v[k].group].p;
	buf_printf(stats, "{\"chains\":%d,\"threads\":%d,\"sweeps\":%lld,"
	    "\"burn_in\":%lld,\"blocks\":%lld,\"block_atoms\":%lld,"
	    "\"largest_block\":%d,\"groundings\":%zu,\"code\":%zu,"
	    "\"ground_seconds\":%.3f,\"blocks_seconds\":%.3f", go.chains,
	    go.threads, (long long)res->sweeps, (long long)go.burn_in,
	    (long long)res->blocks, (long long)res->block_atoms, res->largest,
	    r->g.gf.n, r->g.code.n, t1 - t0, res->blocks_seconds);
	if (joins)
		buf_printf(stats, ",\"grounded_by\":\"joins\"");
	if (go.lbg == 1)
		buf_printf(stats, ",\"clusters\":%d,\"binomial_blocks\":%d",
		    res->clusters, res->binomial);
	buf_printf(stats, ",\"rhat\":{");
	for (size_t p = 0, n = 0; p < r->m->preds.n; p++) {
		const char *name = r->m->preds.v[p].name;
		int used = 0;
		for (size_t k = 0; k < gr->v.n && !used; k++)
			used = gr->v.v[k].pred == (int)p;
		if (!used)
			continue;
		if (isfinite(rmax[p]))
			buf_printf(stats, "%s\"%s\":%.4f", n++ ? "," : "", name,
			    rmax[p]);
		else
			buf_printf(stats, "%s\"%s\":null", n++ ? "," : "", name);
		if (!(rmax[p] <= WARN_RHAT_MAX) && go.chains > 1) {
			char what[300];
			snprintf(what, sizeof what, "%s's marginals", name);
			warn_rhat(&r->w, what, isnan(rmax[p]) ? INFINITY :
			    rmax[p]);
		}
	}
	buf_printf(stats, "}}");
	if (stats->oom)
		rc = err_oom(r->e);
done:
	free(track.v);
	free(rmax);
	return rc;
}

int
infer_lbg_explain(struct run *r, const char *path, FILE *out)
{
	struct buf text;
	int rc, joins;

	buf_init(&text);
	r->g.who = "lbg";
	r->g.sparse = 1;
	if ((rc = ground_atoms(&r->g, r->m, r->dom, r->s, r->store_pred,
	    r->closed, r->e)) || (rc = gibbs_ground(r, &joins)))
		return rc;
	if (r->g.zero)
		return err_set(r->e, SQLIFT_EZERO, "Z = 0: the evidence violates "
		    "the hard formula %s", r->g.zero_why);
	if (!(rc = lbg_explain(&r->g, &text, r->e))) {
		fprintf(out, "model: %s\n", path);
		infer_print_worlds(r, out);
		fprintf(out, "%s", text.s ? text.s : "");
	}
	buf_free(&text);
	return rc;
}
