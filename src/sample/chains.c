/* chains.c: the Gibbs samplers' chains: each from its own random start on
 * a thread, sweeps over the blocks, running means and batch means of the
 * tracked atoms' conditionals; then marginals, standard errors, R-hat. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"

/* Runs sampling in this process, and a request to stop them
 * (gibbs_cancel, called from a signal handler: lock-free atomics). */
static atomic_int gibbs_running, gibbs_cancelled;

int
gibbs_cancel(void)
{
	if (atomic_load(&gibbs_running) == 0 ||
	    atomic_exchange(&gibbs_cancelled, 1) != 0)
		return 0;
	return 1;
}

struct chain {
	const struct gb_model *m;
	const struct gibbs_opts *o;
	const int *track;
	size_t ntrack;
	int id;
	double t0, deadline;
	struct eng_rng r;
	struct gb_scratch s;
	unsigned char *x;
	double *cur;
	/* per tracked atom, after burn-in: Welford's mean and sum of squared
	 * deviations; the current batch's sum; the batch means so far */
	double *mean, *m2, *acc, *bm;
	int nb;                /* batch means kept */
	int64_t bsize, bfill;  /* sweeps per batch, in the current one */
	int64_t n;             /* sweeps after burn-in */
	VEC(struct gibbs_point) trace;
	int64_t sweep, next_trace;  /* sweeps in all; the next traced */
	int done;
	int cancelled;         /* stopped by gibbs_cancel */
	int failed;            /* 1: out of memory, 2: no start found */
};

static void
chain_free(struct chain *c)
{
	gb_scratch_free(&c->s);
	free(c->x);
	free(c->cur);
	free(c->mean);
	free(c->m2);
	free(c->acc);
	free(c->bm);
	free(c->trace.v);
}

/* Adds one sweep's conditionals of the tracked atoms. */
static void
chain_record(struct chain *c)
{
	size_t nt = c->ntrack;

	c->n++;
	for (size_t t = 0; t < nt; t++) {
		double v = c->cur[c->track[t]], d = v - c->mean[t];
		c->mean[t] += d / (double)c->n;
		c->m2[t] += d * (v - c->mean[t]);
		c->acc[t] += v;
	}
	if (++c->bfill < c->bsize)
		return;
	for (size_t t = 0; t < nt; t++) {
		c->bm[t * GB_BATCHES + (size_t)c->nb] = c->acc[t] /
		    (double)c->bsize;
		c->acc[t] = 0;
	}
	c->bfill = 0;
	if (++c->nb < GB_BATCHES)
		return;
	/* full: pairs of batches become one of twice the size */
	for (size_t t = 0; t < nt; t++)
		for (int b = 0; b < GB_BATCHES / 2; b++)
			c->bm[t * GB_BATCHES + (size_t)b] =
			    (c->bm[t * GB_BATCHES + 2 * (size_t)b] +
			    c->bm[t * GB_BATCHES + 2 * (size_t)b + 1]) / 2;
	c->nb = GB_BATCHES / 2;
	c->bsize *= 2;
}

static int
chain_trace(struct chain *c)
{
	struct gibbs_point p;

	p.chain = c->id;
	p.sweeps = c->n;
	p.seconds = now_seconds() - c->t0;
	p.estimate = c->ntrack ? c->mean[0] : NAN;
	return VEC_PUSH(c->trace, p) < 0 ? -1 : 0;
}

/* A chain's memory and its start; -1 with c->failed set. */
static int
chain_start(struct chain *c)
{
	const struct gb_model *m = c->m;
	size_t nt = c->ntrack;

	if (gb_scratch_new(&c->s, m) < 0 ||
	    !(c->x = xcalloc((size_t)m->n + 1, 1)) ||
	    !(c->cur = xcalloc((size_t)m->n + 1, sizeof *c->cur)) ||
	    !(c->mean = xcalloc(nt + 1, sizeof *c->mean)) ||
	    !(c->m2 = xcalloc(nt + 1, sizeof *c->m2)) ||
	    !(c->acc = xcalloc(nt + 1, sizeof *c->acc)) ||
	    !(c->bm = xcalloc(nt * GB_BATCHES + 1, sizeof *c->bm))) {
		c->failed = 1;
		return -1;
	}
	c->bsize = 1;
	c->next_trace = 1;
	eng_rng_seed(&c->r, c->o->seed, (uint64_t)c->id);
	/* a dispersed start: every atom a fair coin, then the hard formulas
	 * repaired */
	for (int u = 0; u < m->n; u++)
		c->x[u] = eng_rng_unit(&c->r) < 0.5;
	if (m->nhard && gb_walksat(m, c->x, &c->s, &c->r) < 0) {
		c->failed = 2;
		return -1;
	}
	if (m->ls)
		lbg_state_refresh(m, c->x, c->s.L);
	return 0;
}

/* Draws block b of c's sweep by its kind; with lbg's kept log-odds,
 * moves them by the block's changes. */
static void
draw(struct chain *c, int b)
{
	const struct gb_model *m = c->m;
	const int *a = m->batom + m->bfirst[b];
	int k = m->bfirst[b + 1] - m->bfirst[b];

	if (m->ls)
		for (int i = 0; i < k; i++)
			c->s.xold[i] = c->x[a[i]];
	if (m->indep && m->indep[b] == 1)
		lbg_update(m, b, c->x, c->cur, &c->s, &c->r);
	else if (m->indep && m->indep[b] == 2)
		lbg_binom_update(m, b, c->x, c->cur, &c->s, &c->r);
	else if (m->indep && m->indep[b] == 3)
		lbg_tree_update(m, b, c->x, c->cur, &c->s, &c->r);
	else if (m->indep && m->indep[b] == 4)
		lbg_clique_update(m, b, c->x, c->cur, &c->s, &c->r);
	else if (m->indep && m->indep[b] == 5)
		lbg_swap_update(m, b, c->x, &c->s, &c->r);
	else if (m->ls && m->ls->full[b])
		lbg_state_block(m, b, c->x, c->cur, &c->s, &c->r);
	else
		gb_update(m, b, c->x, c->cur, &c->s, &c->r);
	if (m->ls)
		lbg_state_after(m, b, c->x, &c->s);
}

/* One sweep, or the chain's end (c->done); -1 on failure.  Under a
 * deadline a chain ends only once it has recorded a sweep: its first
 * sweeps may end before the burn-in's half time and the thread's other
 * chains may then take it past the deadline. */
static int
chain_step(struct chain *c)
{
	const struct gb_model *m = c->m;

	if (atomic_load(&gibbs_cancelled))
		c->cancelled = 1;
	if (c->cancelled || (c->o->sweeps > 0 && c->n >= c->o->sweeps) ||
	    (c->deadline > 0 && c->n > 0 &&
	    now_seconds() > c->deadline)) {
		c->done = 1;
		if (c->trace.n == 0 || c->trace.v[c->trace.n - 1].sweeps != c->n)
			if (chain_trace(c) < 0) {
				c->failed = 1;
				return -1;
			}
		return 0;
	}
	if (m->ls && c->sweep > 0 && c->sweep % LS_REFRESH == 0)
		lbg_state_refresh(m, c->x, c->s.L);
	for (int b = 0; b < m->nblocks; b++)
		draw(c, b);
	/* under a deadline, burn-in ends at half the time */
	if (++c->sweep <= c->o->burn_in && !(c->deadline > 0 &&
	    now_seconds() > (c->t0 + c->deadline) / 2))
		return 0;
	chain_record(c);
	if (c->n >= c->next_trace || c->n == c->o->sweeps) {
		if (chain_trace(c) < 0) {
			c->failed = 1;
			return -1;
		}
		c->next_trace = c->next_trace < 8 ? c->next_trace * 2 :
		    c->next_trace + c->next_trace / 4;
	}
	return 0;
}

struct worker {
	struct chain *c;
	int first, step, nchains;
	double last_progress;
};

/* Chain 0's sweeps, at most every 0.1 s (its worker calls it), and once
 * with done set at the end. */
static void
progress(struct worker *w, int done)
{
	const struct gibbs_opts *o = w->c[0].o;
	struct sqlift_progress p = { 0 };
	double t = now_seconds();

	if (!o->progress || (!done && t - w->last_progress < 0.1))
		return;
	w->last_progress = t;
	p.samples = w->c[0].n;
	p.max_samples = o->sweeps;
	p.seconds = t - w->c[0].t0;
	p.max_seconds = o->max_seconds;
	p.done = done;
	o->progress(o->progress_arg, &p);
}

/* A thread's chains, a sweep each in turn, so that under a deadline
 * they get the same time. */
static void *
worker_run(void *arg)
{
	struct worker *w = arg;
	int left = 0;

	for (int i = w->first; i < w->nchains; i += w->step)
		if (chain_start(&w->c[i]) == 0)
			left++;
	while (left > 0) {
		for (int i = w->first; i < w->nchains; i += w->step) {
			struct chain *c = &w->c[i];
			if (c->done || c->failed)
				continue;
			if (chain_step(c) < 0 || c->done)
				left--;
		}
		if (w->first == 0)
			progress(w, 0);
	}
	return NULL;
}

/* Batch-means variance of one chain's mean of tracked atom t. */
static double
chain_var(const struct chain *c, size_t t)
{
	const double *bm = c->bm + t * GB_BATCHES;
	double mu = 0, ss = 0;

	if (c->nb < 2)
		return c->n > 1 ? c->m2[t] / (double)(c->n - 1) / (double)c->n :
		    NAN;
	for (int b = 0; b < c->nb; b++)
		mu += bm[b];
	mu /= c->nb;
	for (int b = 0; b < c->nb; b++)
		ss += (bm[b] - mu) * (bm[b] - mu);
	return ss / (c->nb - 1) / c->nb;
}

#define RHAT_TINY 1e-20

/* The chains' statistics for tracked atom t into res. */
static void
combine(const struct chain *c, int K, size_t t, struct gibbs_result *res)
{
	double sum = 0, var = 0, w = 0, b = 0, nbar = 0, mu;

	for (int j = 0; j < K; j++) {
		sum += c[j].mean[t];
		var += chain_var(&c[j], t);
		nbar += (double)c[j].n;
	}
	mu = sum / K;
	nbar /= K;
	res->p[t] = mu;
	res->se[t] = sqrt(var) / K;
	if (K < 2 || nbar < 2) {
		res->rhat[t] = NAN;
		return;
	}
	for (int j = 0; j < K; j++) {
		w += c[j].m2[t] / (double)(c[j].n - 1);
		b += (c[j].mean[t] - mu) * (c[j].mean[t] - mu);
	}
	w /= K;
	b /= K - 1;            /* B / n */
	/* the values lie in [0, 1]: variances below RHAT_TINY are rounding
	 * (an atom whose conditional never changes) */
	if (w < RHAT_TINY)
		res->rhat[t] = b < RHAT_TINY ? 1 : INFINITY;
	else
		res->rhat[t] = sqrt(((nbar - 1) / nbar * w + b) / w);
}

static int
collect(struct chain *c, int K, size_t ntrack, struct gibbs_result *res,
    struct err *e)
{
	size_t np = 0;

	res->sweeps = -1;
	for (int j = 0; j < K; j++) {
		if (res->sweeps < 0 || c[j].n < res->sweeps)
			res->sweeps = c[j].n;
		np += c[j].trace.n;
	}
	if (res->sweeps < 1 && res->interrupted)
		return err_set(e, SQLIFT_EINTR, "interrupted before a sweep "
		    "after the burn-in");
	if (res->sweeps < 1)
		return err_set(e, SQLIFT_ELIMIT, "gibbs: no sweep after the "
		    "burn-in within the time allowed");
	res->p = xcalloc(ntrack + 1, sizeof *res->p);
	res->se = xcalloc(ntrack + 1, sizeof *res->se);
	res->rhat = xcalloc(ntrack + 1, sizeof *res->rhat);
	res->trace = xcalloc(np + 1, sizeof *res->trace);
	if (!res->p || !res->se || !res->rhat || !res->trace)
		return err_oom(e);
	for (size_t t = 0; t < ntrack; t++)
		combine(c, K, t, res);
	for (int j = 0; j < K; j++)
		for (size_t i = 0; i < c[j].trace.n; i++)
			res->trace[res->ntrace++] = c[j].trace.v[i];
	return 0;
}

int
gibbs_run(const struct ground *g, const struct gibbs_opts *o,
    const int *track, size_t ntrack, struct gibbs_result *res,
    struct err *e)
{
	struct gb_model m;
	int K = o->chains > 0 ? o->chains : 1, T = o->threads > 0 ?
	    o->threads : 1, rc = 0, started = 0;
	struct chain *c = NULL;
	struct worker *w = NULL;
	pthread_t *th = NULL;
	double t0 = now_seconds();

	memset(res, 0, sizeof *res);
	if (g->zero)
		return err_set(e, SQLIFT_EZERO, "Z = 0: the evidence violates the "
		    "hard formula %s", g->zero_why);
	if ((rc = gb_model_build(&m, g, o->block_max, o->lbg, e)))
		return rc;
	res->blocks_seconds = now_seconds() - t0;
	res->blocks = m.nblocks;
	res->block_atoms = m.bfirst[m.nblocks];
	res->largest = m.largest;
	for (int p = 0; p < m.ncl; p++)
		res->clusters += m.cl_of_pred[p] == p;
	for (int b = 0; m.indep && b < m.nblocks; b++)
		res->binomial += m.indep[b] == 2;
	if (T > K)
		T = K;
	c = xcalloc((size_t)K, sizeof *c);
	w = xcalloc((size_t)T, sizeof *w);
	th = xcalloc((size_t)T, sizeof *th);
	if (!c || !w || !th) {
		rc = err_oom(e);
		goto done;
	}
	for (int j = 0; j < K; j++) {
		c[j].m = &m;
		c[j].o = o;
		c[j].track = track;
		c[j].ntrack = ntrack;
		c[j].id = j;
		c[j].t0 = t0;
		c[j].deadline = o->max_seconds > 0 ? t0 + o->max_seconds : 0;
	}
	for (int i = 0; i < T; i++) {
		w[i].c = c;
		w[i].first = i;
		w[i].step = T;
		w[i].nchains = K;
	}
	if (atomic_fetch_add(&gibbs_running, 1) == 0)
		atomic_store(&gibbs_cancelled, 0);
	for (started = 1; started < T; started++)
		if (pthread_create(&th[started], NULL, worker_run,
		    &w[started]) != 0)
			break;
	worker_run(&w[0]);
	for (int i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	if (started < T)
		for (int i = started; i < T; i++)
			worker_run(&w[i]);
	atomic_fetch_sub(&gibbs_running, 1);
	progress(&w[0], 1);
	for (int j = 0; j < K; j++)
		res->interrupted |= c[j].cancelled;
	for (int j = 0; j < K && !rc; j++)
		if (c[j].failed == 1)
			rc = err_oom(e);
		else if (c[j].failed == 2)
			rc = err_set(e, SQLIFT_EZERO, "Z = 0: no world satisfying "
			    "the hard formulas together with the evidence was "
			    "found (WalkSAT gave up)");
	if (!rc)
		rc = collect(c, K, ntrack, res, e);
done:
	for (int j = 0; c && j < K; j++)
		chain_free(&c[j]);
	free(c);
	free(w);
	free(th);
	gb_model_free(&m);
	if (rc)
		gibbs_result_free(res);
	return rc;
}

void
gibbs_result_free(struct gibbs_result *r)
{
	free(r->p);
	free(r->se);
	free(r->rhat);
	free(r->trace);
	memset(r, 0, sizeof *r);
}
