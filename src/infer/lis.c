/* lis.c: the sampling driver.  Each thread is one stream: its own engine
 * (caches and proposals), its own generator seeded from (seed, stream),
 * and every target drawn once per round, so that all targets have the
 * same number of samples.  The streams' samples are merged in the order
 * (round, stream), which makes the numbers depend on seed and threads
 * only, when the run is stopped by --samples. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "infer/lis.h"
#include "sqlift.h"

struct stream {
	const struct ct_theory *t;
	const struct lis_opts *o;
	const struct lis_group *gr;
	size_t ngr, ntg;       /* targets: Z, then per group true, false */
	int id;
	int64_t quota;         /* 0: until the deadline */
	double t0, deadline;
	double *known;         /* per group: marginal without search, or -1 */
	double *lw;            /* [round * ntg + target] */
	int64_t n;
	struct eng_stats st;
	struct err e;
	int rc;
	atomic_llong *done;
	atomic_int *stop;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
lis_estimate(const double *lw, size_t stride, int64_t n, double *log_z,
    double *stderr_lz, double *ess)
{
	double m = -INFINITY, s1 = 0, s2 = 0, mean, var;

	for (int64_t i = 0; i < n; i++)
		if (lw[(size_t)i * stride] > m)
			m = lw[(size_t)i * stride];
	if (n == 0 || m == -INFINITY) {
		*log_z = -INFINITY;
		*stderr_lz = NAN;
		*ess = 0;
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		double w = exp(lw[(size_t)i * stride] - m);
		s1 += w;
		s2 += w * w;
	}
	mean = s1 / (double)n;
	*log_z = m + log(mean);
	*ess = s1 * s1 / s2;
	if (n < 2) {
		*stderr_lz = NAN;
		return;
	}
	var = (s2 / (double)n - mean * mean) * (double)n / (double)(n - 1);
	*stderr_lz = sqrt((var > 0 ? var : 0) / (double)n) / mean;
}

static void
progress(struct stream *s)
{
	static double last;
	double t = now_s();
	long long done = atomic_load(s->done);

	if (t - last < 0.1)
		return;
	last = t;
	if (s->o->samples > 0)
		fprintf(stderr, "\rlis: %lld/%lld samples, %.1f s", done,
		    (long long)s->o->samples, t - s->t0);
	else
		fprintf(stderr, "\rlis: %lld samples, %.1f/%g s", done, t - s->t0,
		    s->o->max_seconds);
	fflush(stderr);
}

static void *
stream_run(void *arg)
{
	struct stream *s = arg;
	struct eng *g = NULL;
	struct eng_target **tg = xcalloc(s->ntg + 1, sizeof *tg);
	struct eng_rng r;
	size_t cap = 0;
	int rc = 0;

	eng_rng_seed(&r, s->o->seed, (uint64_t)s->id);
	if (!tg) {
		rc = err_oom(&s->e);
		goto done;
	}
	if ((rc = eng_new(s->t, &s->o->eo, &g, &s->e)) ||
	    (rc = eng_target_new(g, -1, NULL, NULL, 1, &tg[0], &s->known[0],
	    &s->e)))
		goto done;
	for (size_t i = 0; i < s->ngr && !rc; i++) {
		const struct lis_group *q = &s->gr[i];
		rc = eng_target_new(g, q->pred, q->block, q->eq, 1, &tg[1 + 2 * i],
		    &s->known[1 + i], &s->e);
		if (!rc && tg[1 + 2 * i])
			rc = eng_target_new(g, q->pred, q->block, q->eq, 0,
			    &tg[2 + 2 * i], &s->known[1 + i], &s->e);
	}
	if (rc)
		goto done;
	while (s->quota == 0 || s->n < s->quota) {
		if (atomic_load(s->stop) ||
		    (s->deadline > 0 && now_s() > s->deadline))
			break;
		if ((size_t)s->n + 1 > cap) {
			size_t nc = cap ? 2 * cap : 64;
			double *nl = xrealloc(s->lw, nc * s->ntg * sizeof *nl);
			if (!nl) {
				rc = err_oom(&s->e);
				break;
			}
			s->lw = nl;
			cap = nc;
		}
		for (size_t i = 0; i < s->ntg && !rc; i++) {
			double *w = &s->lw[(size_t)s->n * s->ntg + i];
			if (!tg[i])
				*w = NAN;
			else
				rc = eng_sample(g, tg[i], &r, w, &s->e);
		}
		if (rc)
			break;
		s->n++;
		atomic_fetch_add(s->done, 1);
		if (s->o->progress && s->id == 0)
			progress(s);
	}
done:
	if (rc)
		atomic_store(s->stop, 1);
	if (g)
		eng_get_stats(g, &s->st);
	for (size_t i = 0; tg && i < s->ntg; i++)
		eng_target_free(tg[i]);
	free(tg);
	eng_free(g);
	s->rc = rc;
	return NULL;
}

/* Trace points: 1, 2, 5, 10, 20, 50, ... and n. */
static int
trace(const double *lw, size_t stride, int64_t n, struct lis_result *res)
{
	size_t cap = 64;

	if (!(res->trace = xcalloc(cap, sizeof *res->trace)))
		return -1;
	for (int64_t d = 1; d <= n; d *= 10)
		for (int k = 0; k < 3; k++) {
			static const int step[] = { 1, 2, 5 };
			int64_t m = d * step[k];
			struct lis_point *p;
			if (m >= n || res->ntrace + 1 >= cap)
				break;
			p = &res->trace[res->ntrace++];
			p->samples = m;
			lis_estimate(lw, stride, m, &p->log_z, &p->stderr_lz, &p->ess);
		}
	res->trace[res->ntrace].samples = n;
	lis_estimate(lw, stride, n, &res->trace[res->ntrace].log_z,
	    &res->trace[res->ntrace].stderr_lz, &res->trace[res->ntrace].ess);
	res->ntrace++;
	return 0;
}

static void
stats_add(struct eng_stats *a, const struct eng_stats *b)
{
	a->nodes += b->nodes;
	a->cache_hits += b->cache_hits;
	a->decompositions += b->decompositions;
	a->powers += b->powers;
	a->binomials += b->binomials;
	a->groundings += b->groundings;
	if (b->largest_grounding > a->largest_grounding)
		a->largest_grounding = b->largest_grounding;
	a->draws += b->draws;
	a->exact_tries += b->exact_tries;
	a->exact_fails += b->exact_fails;
}

int
lis_run(const struct ct_theory *t, const struct lis_opts *o,
    struct lis_group *gr, size_t ngr, struct lis_result *res, struct err *e)
{
	int nt = o->threads > 0 ? o->threads : 1, rc = 0;
	struct stream *s = xcalloc((size_t)nt, sizeof *s);
	pthread_t *th = xcalloc((size_t)nt, sizeof *th);
	size_t ntg = 1 + 2 * ngr;
	double *all = NULL, t0 = now_s();
	int64_t total = 0, rounds = 0, k = 0;
	atomic_llong done = 0;
	atomic_int stop = 0;

	memset(res, 0, sizeof *res);
	if (!s || !th)
		goto oom;
	for (int i = 0; i < nt; i++) {
		struct stream *x = &s[i];
		x->t = t;
		x->o = o;
		x->gr = gr;
		x->ngr = ngr;
		x->ntg = ntg;
		x->id = i;
		x->t0 = t0;
		x->deadline = o->max_seconds > 0 ? t0 + o->max_seconds : 0;
		x->quota = o->samples > 0 ? o->samples / nt +
		    (i < o->samples % nt) : 0;
		x->done = &done;
		x->stop = &stop;
		if (!(x->known = xmalloc((ngr + 1) * sizeof *x->known)))
			goto oom;
	}
	for (int i = 1; i < nt; i++)
		if (pthread_create(&th[i], NULL, stream_run, &s[i]) != 0) {
			for (int j = 1; j < i; j++)
				pthread_join(th[j], NULL);
			rc = err_set(e, SQLIFT_EINTERNAL, "cannot start a thread");
			goto done;
		}
	stream_run(&s[0]);
	for (int i = 1; i < nt; i++)
		pthread_join(th[i], NULL);
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	for (int i = 0; i < nt; i++)
		if (s[i].rc) {
			*e = s[i].e;
			rc = s[i].rc;
			goto done;
		}
	for (int i = 0; i < nt; i++) {
		total += s[i].n;
		if (s[i].n > rounds)
			rounds = s[i].n;
		stats_add(&res->st, &s[i].st);
	}
	if (total == 0) {
		rc = err_set(e, SQLIFT_ELIMIT, "lis drew no sample within "
		    "--max-seconds %g", o->max_seconds);
		goto done;
	}
	/* merged in the order (round, stream) */
	if (!(all = xmalloc((size_t)total * ntg * sizeof *all)))
		goto oom;
	for (int64_t j = 0; j < rounds; j++)
		for (int i = 0; i < nt; i++)
			if (j < s[i].n)
				memcpy(&all[(size_t)k++ * ntg], &s[i].lw[(size_t)j * ntg],
				    ntg * sizeof *all);
	res->samples = total;
	lis_estimate(all, ntg, total, &res->log_z, &res->stderr_lz, &res->ess);
	if (res->log_z == -INFINITY) {
		rc = err_set(e, SQLIFT_EZERO, "Z = 0 in all %lld samples: the hard "
		    "formulas contradict each other or the evidence",
		    (long long)total);
		goto done;
	}
	if (trace(all, ntg, total, res) < 0)
		goto oom;
	for (size_t i = 0; i < ngr; i++) {
		double la, sa, lb, sb, ess, p;
		if (s[0].known[1 + i] >= 0) {
			gr[i].p = s[0].known[1 + i];
			gr[i].stderr_p = 0;
			continue;
		}
		lis_estimate(all + 1 + 2 * i, ntg, total, &la, &sa, &ess);
		lis_estimate(all + 2 + 2 * i, ntg, total, &lb, &sb, &ess);
		if (la == -INFINITY && lb == -INFINITY) {
			gr[i].p = 0.5;
			gr[i].stderr_p = NAN;
			continue;
		}
		p = la == -INFINITY ? 0 : 1 / (1 + exp(lb - la));
		gr[i].p = p;
		sa = la == -INFINITY ? 0 : sa;
		sb = lb == -INFINITY ? 0 : sb;
		gr[i].stderr_p = p * (1 - p) * sqrt(sa * sa + sb * sb);
	}
	goto done;
oom:
	rc = err_oom(e);
done:
	for (int i = 0; s && i < nt; i++) {
		free(s[i].known);
		free(s[i].lw);
	}
	free(all);
	free(s);
	free(th);
	if (rc)
		lis_result_free(res);
	return rc;
}

void
lis_result_free(struct lis_result *r)
{
	free(r->trace);
	r->trace = NULL;
	r->ntrace = 0;
}
