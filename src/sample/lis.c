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
#include <unistd.h>

#include "sample/lis-acc.h"
#include "sample/lis.h"
#include "sqlift.h"

/* Path marginals, per group: the sums of its part's weights w (s1 and
 * s2 of Z's part) and of w v, w^2 v^2, w^2 v, with w = exp(lw - m), m
 * the largest log weight its part had in the stream. */
struct pacc {
	double m, w1, w2, s1, s2, s3;
};

/* Z's trace in a stream: its parts' sums after r rounds. */
struct snap {
	int64_t r;
	struct acc *a;
};

/* What a target is in a stream. */
enum { TG_NEW, TG_LIVE, TG_EXACT, TG_NONE };

struct stream {
	const struct ct_theory *t;
	const struct lis_opts *o;
	const struct lis_group *gr;
	size_t ngr, ntg;       /* targets: Z, then per group true, false */
	int id;
	int64_t quota;         /* 0: until the deadline */
	double t0, deadline;
	double *known;         /* per group: marginal without search, or -1 */
	struct tacc *ta;       /* per target */
	struct snap *snap;     /* Z's trace points */
	size_t nsnap;
	int *slot;             /* per group: eng_track slot, or -1 (pairs) */
	char *counted;         /* per group: by eng_track_count */
	int *spart;            /* per group: the part of Z holding its slot */
	struct pacc *pa;       /* per group (path) */
	int64_t n;
	int cancelled;         /* stopped by lis_cancel */
	struct eng_stats st;
	struct err e;
	int rc;
	atomic_llong *done;
	atomic_int *stop;
	double last_progress;  /* when progress was last reported */
	/* stream_run's sampling state: */
	struct eng *g;
	struct eng_target **tg;    /* per target; NULL once exact or none */
	unsigned char *state;      /* per target: TG_* */
	double *row;               /* per target: the last sample's log Z */
	double *tv;                /* per group: the last tracked value */
	struct eng_rng r;
	size_t held;               /* clauses the live targets hold */
	size_t npath;              /* groups tracked in Z's samples */
};

int
lis_marginals_parse(const char *s)
{
	static const char *names[] = { "auto", "path", "pairs", "counts" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* Adds one round: Z's parts' log weights lw and the tracked
 * expectations v. */
static void
path_add(struct stream *s, const double *lw, const double *v)
{
	for (size_t k = 0; k < s->ngr; k++) {
		struct pacc *a = &s->pa[k];
		double l, w;
		if (s->slot[k] < 0)
			continue;
		l = s->spart[k] >= 0 ? lw[s->spart[k]] : 0;
		if (l == -INFINITY)
			continue;
		if (a->w1 == 0 || l > a->m) {
			double f = a->w1 == 0 ? 0 : exp(a->m - l);
			a->w1 *= f;
			a->w2 *= f * f;
			a->s1 *= f;
			a->s2 *= f * f;
			a->s3 *= f * f;
			a->m = l;
		}
		w = exp(l - a->m);
		a->w1 += w;
		a->w2 += w * w;
		a->s1 += w * v[k];
		a->s2 += w * w * v[k] * v[k];
		a->s3 += w * w * v[k];
	}
}

/* Trace points: after 1, 2, 5, 10, 20, 50, ... rounds. */
static int
trace_round(int64_t r)
{
	while (r % 10 == 0)
		r /= 10;
	return r == 1 || r == 2 || r == 5;
}

/* The clauses the targets of a stream may hold (about 100 bytes each). */
#define MAX_HELD 4000000

/* Runs drawing in this process, and a request to stop them (lis_cancel,
 * called from a signal handler: lock-free atomics only). */
static atomic_int lis_drawing, lis_cancelled;

int
lis_cancel(void)
{
	if (atomic_load(&lis_drawing) == 0 ||
	    atomic_exchange(&lis_cancelled, 1) != 0)
		return 0;
	return 1;
}

/* A stream stops after this many rounds whatever --max-seconds says. */
#define MAX_ROUNDS ((int64_t)1 << 24)

/* Reports progress at most every 0.1 s; done: the last report. */
static void
progress(struct stream *s, int done)
{
	struct sqlift_progress p = { 0 };
	double t = now_seconds();

	if (!done && t - s->last_progress < 0.1)
		return;
	s->last_progress = t;
	p.samples = atomic_load(s->done);
	p.max_samples = s->o->samples;
	p.seconds = t - s->t0;
	p.max_seconds = s->o->max_seconds;
	p.done = done;
	s->o->progress(s->o->progress_arg, &p);
}

/* --marginals auto without counted classes: by pairs when there are at
 * most LIS_PAIRS_MAX groups to estimate and the group's part of the
 * theory is small and not ground (WebKB's first 10 pages: marginals
 * within 0.0001 by pairs in 0.55 s per 1000 samples, 0.0198 by path in
 * 0.01 s; a ground part's samples give its atoms as much as a pair
 * would); else by path (Cora's thousands of groups: 13 samples in 17 s
 * by pairs, 1000 in 11 s by path).  Groups going by pairs get slot -1. */
static void
auto_pairs(struct stream *s, const size_t *size, const int *ground)
{
	size_t n = 0;

	for (size_t k = 0; k < s->ngr; k++)
		n += s->slot[k] == -2;
	for (size_t k = 0; k < s->ngr && n <= LIS_PAIRS_MAX; k++)
		if (s->slot[k] == -2 && size[k] <= LIS_PAIRS_CLAUSES && !ground[k])
			s->slot[k] = -1;
}

/* Creates target i (round 0): Z, or group (i - 1) / 2 with its atom true
 * (odd i) or false. */
static int
target_make(struct stream *s, struct eng *g, size_t i, struct eng_target **tg,
    unsigned char *state)
{
	const struct lis_group *q;
	size_t k = (i - 1) / 2;
	int rc;

	if (i == 0)
		rc = eng_target_new(g, -1, NULL, NULL, 1, &tg[0], &s->known[0],
		    &s->e);
	else {
		q = &s->gr[k];
		rc = eng_target_new(g, q->pred, q->block, q->eq, i % 2, &tg[i],
		    &s->known[1 + k], &s->e);
	}
	state[i] = rc ? TG_NEW : tg[i] ? TG_LIVE : TG_NONE;
	/* a known marginal needs neither of its group's targets */
	if (!rc && i % 2 == 1 && !tg[i])
		state[i + 1] = TG_NONE;
	return rc;
}

/* Decides how each group's marginal is estimated: known at once, then
 * (as tracking splits blocks of the theory, once all are known) counted
 * or tracked in Z's samples, the rest by pairs of targets. */
static int
stream_groups(struct stream *s)
{
	struct eng *g = s->g;
	unsigned char *state = s->state;
	double min = 2;        /* atoms of the classes counted */
	int *comp = NULL, *ground = NULL, rc = 0;
	size_t *size = NULL;

	if (!(comp = xmalloc((s->ngr + 1) * sizeof *comp)) ||
	    !(size = xmalloc((s->ngr + 1) * sizeof *size)) ||
	    !(ground = xmalloc((s->ngr + 1) * sizeof *ground))) {
		rc = err_oom(&s->e);
		goto done;
	}
	for (size_t k = 0; k < s->ngr && !rc; k++) {
		const struct lis_group *q = &s->gr[k];
		int kn = eng_known(g, q->pred, q->block, q->eq, &size[k],
		    &comp[k], &ground[k], &s->known[1 + k]);
		s->slot[k] = -2;
		if (kn < 0)
			rc = err_oom(&s->e);
		else if (kn > 0) {
			state[1 + 2 * k] = state[2 + 2 * k] = TG_NONE;
			s->slot[k] = -1;
			comp[k] = -1;
		} else if (s->o->marginals == LIS_PAIRS)
			s->slot[k] = -1;
	}
	/* counts first (tracking by path may split their blocks): counts
	 * takes every group of several atoms, and so does auto when one of
	 * them has LIS_COUNT_MIN atoms or more; else auto takes none (a
	 * counted class split by path's tracking could fall into two
	 * parts).  The others go by path (eng_track_count), or under auto
	 * without counted classes perhaps by pairs (auto_pairs). */
	if (s->o->marginals == LIS_AUTO) {
		min = INFINITY;
		for (size_t k = 0; k < s->ngr; k++)
			if (s->slot[k] == -2 && !ground[k] && eng_class_atoms(g,
			    s->gr[k].pred, s->gr[k].block, s->gr[k].eq) >=
			    LIS_COUNT_MIN)
				min = 2;
	}
	for (size_t k = 0; k < s->ngr && !rc; k++) {
		const struct lis_group *q = &s->gr[k];
		if (s->slot[k] != -2 || ground[k] || min == INFINITY ||
		    (s->o->marginals != LIS_COUNTS && s->o->marginals != LIS_AUTO))
			continue;
		int counted;
		rc = eng_track_count(g, q->pred, q->block, q->eq, min,
		    &s->slot[k], &counted, &s->e);
		if (!rc && s->slot[k] >= 0) {
			state[1 + 2 * k] = state[2 + 2 * k] = TG_NONE;
			s->counted[k] = (char)counted;
			s->npath++;
		}
	}
	if (!rc && s->o->marginals == LIS_AUTO && min == INFINITY)
		auto_pairs(s, size, ground);
	for (size_t k = 0; k < s->ngr && !rc; k++) {
		const struct lis_group *q = &s->gr[k];
		if (s->slot[k] != -2)
			continue;
		rc = eng_track(g, q->pred, q->block, q->eq, &s->slot[k], &s->e);
		if (!rc && s->slot[k] >= 0) {
			state[1 + 2 * k] = state[2 + 2 * k] = TG_NONE;
			s->npath++;
		}
	}
done:
	free(comp);
	free(size);
	free(ground);
	return rc;
}

/* Target i's step of a round: made in round 0, then one sample, its
 * parts' weights kept in s->ta[i].last.  *late: the deadline passed
 * (the round is dropped); *exact_all cleared when a target still
 * samples. */
static int
stream_target(struct stream *s, size_t i, int *late, int *exact_all)
{
	struct eng_target **tg = s->tg;
	int rc;

	if (s->state[i] == TG_NEW) {
		if ((rc = target_make(s, s->g, i, tg, s->state)))
			return rc;
		if (tg[i] && tacc_init(&s->ta[i], eng_target_parts(tg[i]),
		    eng_target_konst(tg[i])) < 0)
			return err_oom(&s->e);
		if (i == 0 && tg[0])
			for (size_t k = 0; k < s->ngr; k++)
				s->spart[k] = eng_slot_part(tg[0], s->slot[k]);
		s->held += eng_target_size(tg[i]);
		if (s->held > MAX_HELD)
			return err_set(&s->e, SQLIFT_ELIMIT, "lis: the marginals "
			    "of %zu query groups would hold more than %d "
			    "clauses (each group samples the part of the "
			    "theory that holds it, here %zu clauses): query "
			    "fewer atoms", s->ngr, MAX_HELD,
			    eng_target_size(tg[i]));
	}
	if (s->state[i] != TG_LIVE)
		return 0;
	if ((rc = eng_sample(s->g, tg[i], &s->r, &s->row[i], &s->e))) {
		/* out of time inside a sample: drop the round */
		if (rc == SQLIFT_ELIMIT && s->deadline > 0) {
			*late = 1;
			return 0;
		}
		return rc;
	}
	if (s->ta[i].np)
		memcpy(s->ta[i].last, eng_part_weights(tg[i]),
		    s->ta[i].np * sizeof *s->ta[i].last);
	if (i == 0 && s->npath) {
		const double *v = eng_tracked(s->g);
		for (size_t k = 0; k < s->ngr; k++)
			if (s->slot[k] >= 0)
				s->tv[k] = v[s->slot[k]];
	}
	if (s->n == 0 && eng_target_exact(tg[i])) {
		/* nothing drawn: the same in every round */
		s->state[i] = TG_EXACT;
		s->held -= eng_target_size(tg[i]);
		eng_target_free(tg[i]);
		tg[i] = NULL;
	} else
		*exact_all = 0;
	*late = s->deadline > 0 && s->n > 0 && (i & 15) == 15 &&
	    now_seconds() > s->deadline;
	return 0;
}

/* Keeps Z's parts' sums after this round, for the trace. */
static int
stream_snap(struct stream *s)
{
	struct snap *sn = xrealloc(s->snap, (s->nsnap + 1) * sizeof *sn);

	if (!sn)
		return err_oom(&s->e);
	s->snap = sn;
	sn += s->nsnap;
	sn->r = s->n;
	if (!(sn->a = xmalloc((s->ta[0].np + 1) * sizeof *sn->a)))
		return err_oom(&s->e);
	memcpy(sn->a, s->ta[0].a, s->ta[0].np * sizeof *sn->a);
	s->nsnap++;
	return 0;
}

/* One stream, on its own thread: rounds of every live target until its
 * quota, the deadline, a stop from another stream, or nothing left to
 * draw. */
static void *
stream_run(void *arg)
{
	struct stream *s = arg;
	int rc = 0, late = 0, exact_all = 0;

	s->tg = xcalloc(s->ntg + 1, sizeof *s->tg);
	s->state = xcalloc(s->ntg + 1, 1);
	s->row = xmalloc((s->ntg + 1) * sizeof *s->row);
	eng_rng_seed(&s->r, s->o->seed, (uint64_t)s->id);
	if (!s->tg || !s->state || !s->row ||
	    !(s->ta = xcalloc(s->ntg + 1, sizeof *s->ta))) {
		rc = err_oom(&s->e);
		goto done;
	}
	for (size_t i = 0; i <= s->ngr; i++)
		s->known[i] = -1;
	if (!(s->slot = xmalloc((s->ngr + 1) * sizeof *s->slot)) ||
	    !(s->spart = xmalloc((s->ngr + 1) * sizeof *s->spart)) ||
	    !(s->pa = xcalloc(s->ngr + 1, sizeof *s->pa)) ||
	    !(s->counted = xcalloc(s->ngr + 1, 1)) ||
	    !(s->tv = xcalloc(s->ngr + 1, sizeof *s->tv))) {
		rc = err_oom(&s->e);
		goto done;
	}
	if ((rc = eng_new(s->t, &s->o->eo, &s->g, &s->e)) ||
	    (rc = stream_groups(s)))
		goto done;
	while ((s->quota == 0 || s->n < s->quota) && s->n < MAX_ROUNDS &&
	    !exact_all) {
		if (atomic_load(&lis_cancelled)) {
			s->cancelled = 1;
			break;
		}
		if (atomic_load(s->stop) ||
		    (s->deadline > 0 && s->n > 0 && now_seconds() > s->deadline))
			break;
		exact_all = 1;
		for (size_t i = 0; i < s->ntg && !rc && !late; i++)
			rc = stream_target(s, i, &late, &exact_all);
		if (rc || late)
			break;
		/* the round is complete: count it */
		for (size_t i = 0; i < s->ntg; i++)
			if (s->state[i] == TG_LIVE || s->state[i] == TG_EXACT)
				tacc_add(&s->ta[i]);  /* exact: round 0's */
		if (s->npath && s->ta[0].konst > -INFINITY)
			path_add(s, s->ta[0].last, s->tv);
		s->n++;
		if (trace_round(s->n) && s->ta[0].a && (rc = stream_snap(s)))
			break;
		atomic_fetch_add(s->done, 1);
		if (s->o->progress && s->id == 0)
			progress(s, 0);
	}
done:
	if (rc)
		atomic_store(s->stop, 1);
	if (s->g)
		eng_get_stats(s->g, &s->st);
	for (size_t i = 0; s->tg && i < s->ntg; i++)
		eng_target_free(s->tg[i]);
	free(s->tg);
	free(s->state);
	free(s->row);
	free(s->tv);
	eng_free(s->g);
	s->tg = NULL;
	s->state = NULL;
	s->row = NULL;
	s->tv = NULL;
	s->g = NULL;
	s->rc = rc;
	return NULL;
}

/* Z over all streams after r rounds each (the streams with fewer, all
 * of theirs; r < 0: all); *samples gets how many that is. */
static int
z_at(const struct stream *s, int nt, int64_t r, struct lis_point *p)
{
	const struct tacc **src = xcalloc((size_t)nt, sizeof *src);
	struct tacc *tmp = xcalloc((size_t)nt, sizeof *tmp);
	struct acc *a = NULL;
	size_t np;
	double konst;
	int64_t n;
	int rc = -1;

	if (!src || !tmp)
		goto done;
	for (int i = 0; i < nt; i++) {
		const struct tacc *t = &s[i].ta[0];
		src[i] = t;
		if (r < 0 || s[i].n <= r)
			continue;
		for (size_t j = 0; j < s[i].nsnap; j++)
			if (s[i].snap[j].r == r) {
				tmp[i] = *t;
				tmp[i].a = s[i].snap[j].a;
				tmp[i].n = r;
				src[i] = &tmp[i];
			}
	}
	if (tacc_merge(src, nt, &a, &np, &konst, &n) < 0)
		goto done;
	p->samples = n;
	acc_parts(a, np, konst, n, &p->log_z, &p->stderr_lz, &p->ess);
	rc = 0;
done:
	free(a);
	free(src);
	free(tmp);
	return rc;
}

/* Trace points: after 1, 2, 5, 10, ... rounds of each stream, and at
 * the end. */
static int
trace(const struct stream *s, int nt, int64_t rounds, struct lis_result *res)
{
	size_t cap = 64;

	if (!(res->trace = xcalloc(cap, sizeof *res->trace)))
		return -1;
	for (int64_t r = 1; r < rounds && res->ntrace + 1 < cap; r++)
		if (trace_round(r) && z_at(s, nt, r, &res->trace[res->ntrace++]) < 0)
			return -1;
	return z_at(s, nt, -1, &res->trace[res->ntrace++]);
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
	a->enumerations += b->enumerations;
	a->flat_parts += b->flat_parts;
	a->order_fallbacks += b->order_fallbacks;
	a->props_full += b->props_full;
}

/* Group k's path estimate over all streams: the weighted mean of its
 * expectations (weights: its part's), and the ratio estimator's
 * standard error; 1 when no sample weighed anything (0.5, NaN). */
static int
path_result(const struct stream *s, int nt, size_t k, double *p,
    double *se)
{
	double m = -INFINITY, w = 0, w2 = 0, a = 0, b = 0, c = 0, v;

	for (int i = 0; i < nt; i++)
		if (s[i].pa[k].w1 > 0 && s[i].pa[k].m > m)
			m = s[i].pa[k].m;
	for (int i = 0; i < nt; i++) {
		const struct pacc *x = &s[i].pa[k];
		double f;
		if (x->w1 == 0)
			continue;
		f = exp(x->m - m);
		w += x->w1 * f;
		w2 += x->w2 * f * f;
		a += x->s1 * f;
		b += x->s2 * f * f;
		c += x->s3 * f * f;
	}
	if (w == 0) {
		*p = 0.5;
		*se = NAN;
		return 1;
	}
	*p = a / w;
	v = (b - 2 * *p * c + *p * *p * w2) / (w * w);
	*se = sqrt(v > 0 ? v : 0);
	return 0;
}

/* Target i's estimate over all streams. */
static int
target_result(const struct stream *s, int nt, size_t i, double *log_z,
    double *stderr_lz, double *ess)
{
	const struct tacc **src = xcalloc((size_t)nt, sizeof *src);
	struct acc *a = NULL;
	size_t np;
	double konst;
	int64_t n;
	int rc = -1;

	if (src) {
		for (int j = 0; j < nt; j++)
			src[j] = &s[j].ta[i];
		if (tacc_merge(src, nt, &a, &np, &konst, &n) == 0) {
			acc_parts(a, np, konst, n, log_z, stderr_lz, ess);
			rc = 0;
		}
	}
	free(a);
	free(src);
	return rc;
}

/* The streams: the threads asked for, but no more than the samples (a
 * stream with no quota would draw until the deadline, or forever). */
static int
streams(const struct lis_opts *o)
{
	int nt = o->threads > 0 ? o->threads : 1;

	return o->samples > 0 && nt > o->samples ? (int)o->samples : nt;
}

/* Each group's marginal over all streams: known, tracked in Z's samples
 * (path_result), or the pair Z(atom) / (Z(atom) + Z(not atom)) with the
 * delta method's standard error; res->unestimated counts those left at
 * 0.5, res->one_sided those by pairs with one side 0 in every sample.
 * -1 when out of memory. */
static int
group_results(const struct stream *s, int nt, struct lis_group *gr,
    size_t ngr, struct lis_result *res)
{
	for (size_t i = 0; i < ngr; i++) {
		double la, sa, lb, sb, ess, p;
		if (s[0].known[1 + i] >= 0) {
			gr[i].p = s[0].known[1 + i];
			gr[i].stderr_p = 0;
			continue;
		}
		if (s[0].slot[i] >= 0) {
			res->unestimated += (size_t)path_result(s, nt, i, &gr[i].p,
			    &gr[i].stderr_p);
			if (!res->st.draws)
				gr[i].stderr_p = 0;
			continue;
		}
		if (target_result(s, nt, 1 + 2 * i, &la, &sa, &ess) < 0 ||
		    target_result(s, nt, 2 + 2 * i, &lb, &sb, &ess) < 0)
			return -1;
		if (la == -INFINITY && lb == -INFINITY) {
			gr[i].p = 0.5;
			gr[i].stderr_p = NAN;
			res->unestimated++;
			continue;
		}
		p = la == -INFINITY ? 0 : 1 / (1 + exp(lb - la));
		gr[i].p = p;
		res->one_sided += res->st.draws && (la == -INFINITY ||
		    lb == -INFINITY);
		sa = la == -INFINITY || isnan(sa) || !res->st.draws ? 0 : sa;
		sb = lb == -INFINITY || isnan(sb) || !res->st.draws ? 0 : sb;
		gr[i].stderr_p = p * (1 - p) * sqrt(sa * sa + sb * sb);
	}
	return 0;
}

int
lis_run(const struct ct_theory *t, const struct lis_opts *o,
    struct lis_group *gr, size_t ngr, struct lis_result *res, struct err *e)
{
	int nt = streams(o), rc = 0;
	struct stream *s = xcalloc((size_t)nt, sizeof *s);
	pthread_t *th = xcalloc((size_t)nt, sizeof *th);
	size_t ntg = 1 + 2 * ngr;
	double t0 = now_seconds();
	int64_t total = 0, rounds = 0;
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
	if (atomic_fetch_add(&lis_drawing, 1) == 0)
		atomic_store(&lis_cancelled, 0);
	for (int i = 1; i < nt; i++)
		if (pthread_create(&th[i], NULL, stream_run, &s[i]) != 0) {
			atomic_store(&stop, 1);
			for (int j = 1; j < i; j++)
				pthread_join(th[j], NULL);
			atomic_fetch_sub(&lis_drawing, 1);
			rc = err_set(e, SQLIFT_EINTERNAL, "cannot start a thread");
			goto done;
		}
	stream_run(&s[0]);
	for (int i = 1; i < nt; i++)
		pthread_join(th[i], NULL);
	atomic_fetch_sub(&lis_drawing, 1);
	if (o->progress)
		progress(&s[0], 1);
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
		res->interrupted |= s[i].cancelled;
	}
	if (total == 0 && res->interrupted) {
		rc = err_set(e, SQLIFT_EINTR, "interrupted before the first "
		    "sample");
		goto done;
	}
	if (total == 0) {
		rc = err_set(e, SQLIFT_ELIMIT, "lis drew no sample within "
		    "--max-seconds %g", o->max_seconds);
		goto done;
	}
	/* each target's parts merged stream by stream */
	res->samples = total;
	res->parts = s[0].ta ? s[0].ta[0].np : 0;
	for (size_t i = 0; i < ngr; i++)
		if (s[0].known[1 + i] < 0) {
			res->path_groups += s[0].slot[i] >= 0 && !s[0].counted[i];
			res->count_groups += s[0].counted[i];
			res->pair_groups += s[0].slot[i] < 0;
		}
	if (target_result(s, nt, 0, &res->log_z, &res->stderr_lz, &res->ess) < 0)
		goto oom;
	if (res->log_z == -INFINITY) {
		/* a drawn sample of weight 0 may only have missed the worlds
		 * the hard formulas allow */
		rc = err_set(e, SQLIFT_EZERO, "Z = 0 in all %lld samples: the hard "
		    "formulas contradict each other or the evidence%s",
		    (long long)total, res->st.draws ? ", or the samples missed "
		    "every world they allow (draw more, or use the adaptive "
		    "proposal; exact says which)" : "");
		goto done;
	}
	if (trace(s, nt, rounds, res) < 0)
		goto oom;
	if (res->st.draws == 0) {
		/* nothing was drawn: every estimate is exact */
		res->stderr_lz = 0;
		for (size_t i = 0; i < res->ntrace; i++)
			res->trace[i].stderr_lz = 0;
	}
	if (group_results(s, nt, gr, ngr, res) < 0)
		goto oom;
	goto done;
oom:
	rc = err_oom(e);
done:
	for (int i = 0; s && i < nt; i++) {
		free(s[i].known);
		for (size_t j = 0; s[i].ta && j < ntg; j++)
			tacc_free(&s[i].ta[j]);
		free(s[i].ta);
		for (size_t j = 0; j < s[i].nsnap; j++)
			free(s[i].snap[j].a);
		free(s[i].snap);
		free(s[i].slot);
		free(s[i].spart);
		free(s[i].pa);
		free(s[i].counted);
	}
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
