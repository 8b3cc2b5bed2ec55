/* multibin.c: the multi-block binomial rule: a unary class split over
 * several blocks that the theory treats alike once each block's private
 * unary clauses are summed out is branched on its total count, one
 * branch per count instead of one per count vector
 * (docs/internals/lifted.md, "The multi-block binomial"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lifted/lifted-int.h"

/* At most this many candidate blocks, and |B|^v clauses per merged
 * clause (v: its variables in the merged blocks). */
#define MB_MAX_BLOCKS 64
#define MB_MAX_GROUP (1 << 20)
#define MB_MAX_VECTORS 4096
/* The product of two count polynomials drops terms this many nats
 * below the largest term of their coefficient: e^-40 is 4e-18, and the
 * terms fall faster than geometrically beyond it. */
#define MB_DROP 40.0
#define MB_TINY 4.248354255291589e-18   /* e^-MB_DROP */
/* Products with fewer terms than this are computed in full. */
#define MB_FULL 4096.0

/* a clause over merged blocks, sorted by merged form, then vector */
struct form {
	uint64_t h;
	int64_t sig;
	int i;
};

struct mb {
	const struct th *t;
	const struct index *ix;
	int pred;
	int nc, c[MB_MAX_BLOCKS];      /* candidate blocks: P(b) a class */
	int *priv;             /* per clause: its block if private, else -1 */
	int nb, b[MB_MAX_BLOCKS];      /* the blocks merged, b[0] first */
	int *bpos;             /* per block of t: its place in b[], or -1 */
	/* per clause: hash of its merged form, and its block vector */
	uint64_t *h;
	int64_t *sig;
	int *nv;
	struct form *fm;       /* scratch of alike's sort */
	int *ord;              /* the clauses over merged blocks, by form */
	int ngrp;              /* their merged forms: first in ord, and how */
	int *gfirst;           /* often each vector of blocks comes */
	int64_t *grep;
};

static int
in_b(const struct mb *m, int blk)
{
	return blk < m->t->nb && m->bpos[blk] >= 0;
}

static uint64_t
mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* Clause c's merged form: its hash, its vector of blocks over the
 * merged blocks (as a number base nb) and how many variables are in
 * them; -1 when two of those variables of one block may be equal. */
static int
merged_form(const struct mb *m, const struct cl *c, uint64_t *h, int64_t *sig,
    int *nv)
{
	uint64_t x;
	int64_t s = 0, mul = 1;
	int v = 0;

	memcpy(&x, &c->w, sizeof x);
	x = mix(mix(mix(x, (uint64_t)c->hard), (uint64_t)c->nvars),
	    (uint64_t)c->nlits);
	x = mix(x, (uint64_t)c->tag);
	for (int k = 0; k < c->nlits; k++)
		x = mix(mix(mix(x, (uint64_t)c->lit[k].pred),
		    (uint64_t)c->lit[k].neg), (uint64_t)c->lit[k].off);
	for (int k = 0; k < c->nargs; k++)
		x = mix(x, (uint64_t)c->arg[k]);
	for (int u = 0; u < c->nvars; u++) {
		int bu = c->blk[u];
		if (!in_b(m, bu)) {
			x = mix(x, (uint64_t)bu);
			continue;
		}
		x = mix(x, (uint64_t)m->b[0]);
		for (int w = 0; w < u; w++)
			if (c->blk[w] == bu && !cl_has_neq(c, w, u))
				return -1;
		s += mul * m->bpos[bu];
		if ((mul *= m->nb) > MB_MAX_GROUP)
			return -1;
		v++;
	}
	/* inequalities but those between two merged variables (implied) */
	for (int u = 0; u < c->nvars; u++)
		for (int w = u + 1; w < c->nvars; w++)
			if (!(in_b(m, c->blk[u]) && in_b(m, c->blk[w])) &&
			    cl_has_neq(c, u, w))
				x = mix(mix(x, (uint64_t)u), (uint64_t)w);
	*h = x;
	*sig = s;
	*nv = v;
	return 0;
}

/* c and d have the same merged form */
static int
same_merged(const struct mb *m, const struct cl *c, const struct cl *d)
{
	if (c->w != d->w || c->hard != d->hard || c->nvars != d->nvars ||
	    c->nlits != d->nlits || c->nargs != d->nargs || c->tag != d->tag ||
	    memcmp(c->lit, d->lit, (size_t)c->nlits * sizeof *c->lit) ||
	    memcmp(c->arg, d->arg, (size_t)c->nargs * sizeof *c->arg))
		return 0;
	for (int u = 0; u < c->nvars; u++) {
		if (in_b(m, c->blk[u]) != in_b(m, d->blk[u]) ||
		    (!in_b(m, c->blk[u]) && c->blk[u] != d->blk[u]))
			return 0;
		for (int w = u + 1; w < c->nvars; w++)
			if (!(in_b(m, c->blk[u]) && in_b(m, c->blk[w])) &&
			    cl_has_neq(c, u, w) != cl_has_neq(d, u, w))
				return 0;
	}
	return 1;
}

static int
cmp_form(const void *a, const void *b)
{
	const struct form *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	if (x->sig != y->sig)
		return x->sig < y->sig ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Vector sig (base nb, one digit per merged variable of a clause of nv
 * of them, pairwise distinct) has groundings: no block gets more of the
 * variables than it has constants. */
static int
feasible(const struct mb *m, int64_t sig, int nv)
{
	int64_t cnt[MB_MAX_BLOCKS] = { 0 };

	for (int v = 0; v < nv; v++, sig /= m->nb)
		if (++cnt[sig % m->nb] > m->t->size[m->b[sig % m->nb]])
			return 0;
	return 1;
}

/* The clauses of t but the merged blocks' private ones are, ground, the
 * clauses of a theory over the union of the blocks in m->b: each merged
 * form comes with every vector of blocks that has groundings, each as
 * often (m->grep[g] times for group g; the others, without groundings,
 * any number of times: normalisation drops them). */
static int
alike(struct mb *m)
{
	const struct th *t = m->t;
	int n = 0;

	for (int i = 0; i < t->nb; i++)
		m->bpos[i] = -1;
	for (int k = 0; k < m->nb; k++)
		m->bpos[m->b[k]] = k;
	for (size_t i = 0; i < t->c.n; i++) {
		if (m->priv[i] >= 0 && in_b(m, m->priv[i]))
			continue;
		if (merged_form(m, t->c.v[i], &m->h[i], &m->sig[i], &m->nv[i]) < 0)
			return 0;
		if (m->nv[i] > 0) {
			m->fm[n].h = m->h[i];
			m->fm[n].sig = m->sig[i];
			m->fm[n++].i = (int)i;
		}
	}
	qsort(m->fm, (size_t)n, sizeof *m->fm, cmp_form);
	for (int k = 0; k < n; k++)
		m->ord[k] = m->fm[k].i;
	m->ngrp = 0;
	for (int s = 0, e; s < n; s = e) {
		int64_t all = 1, rep = -1;
		int k = s, nv = m->nv[m->ord[s]];
		const struct cl *c = t->c.v[m->ord[s]];
		for (e = s; e < n && m->h[m->ord[e]] == m->h[m->ord[s]]; e++)
			if (!same_merged(m, c, t->c.v[m->ord[e]]))
				return 0;
		for (int v = 0; v < nv; v++)
			if ((all *= m->nb) > MB_MAX_VECTORS)
				return 0;
		for (int64_t sig = 0; sig < all; sig++) {
			int64_t cnt = 0;
			for (; k < e && m->sig[m->ord[k]] == sig; k++)
				cnt++;
			if (!feasible(m, sig, nv))
				continue;
			if (rep < 0)
				rep = cnt;
			else if (cnt != rep)
				return 0;
		}
		m->gfirst[m->ngrp] = s;
		m->grep[m->ngrp++] = rep < 0 ? 0 : rep;
	}
	return 1;
}

/* Marks in m->priv the clauses private to a candidate block b: one
 * variable, in b, and every class but P(b) in such clauses of b only. */
static void
find_private(struct mb *m)
{
	const struct th *t = m->t;
	const struct index *ix = m->ix;
	int changed = 1;

	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		m->priv[i] = -1;
		for (int k = 0; c->nvars == 1 && k < m->nc; k++)
			if (c->blk[0] == m->c[k])
				m->priv[i] = c->blk[0];
	}
	while (changed) {
		changed = 0;
		for (int k = 0; k < ix->ncls; k++) {
			const struct occ *o = &ix->occ[ix->first[k]];
			int end = ix->first[k] + index_occurrences(ix, k), mixed = 0;
			int p = m->priv[o->cl];
			if (o->key[0] == m->pred)
				continue;
			for (int j = ix->first[k]; j < end && !mixed; j++)
				mixed = m->priv[ix->occ[j].cl] != p;
			if (!mixed)
				continue;
			for (int j = ix->first[k]; j < end; j++)
				if (m->priv[ix->occ[j].cl] >= 0) {
					m->priv[ix->occ[j].cl] = -1;
					changed = 1;
				}
		}
	}
}

/* The largest set of candidate blocks found alike, greedily. */
static void
pick_blocks(struct mb *m)
{
	int best[MB_MAX_BLOCKS], nbest = 0, used[MB_MAX_BLOCKS] = { 0 };

	for (int s = 0; s < m->nc; s++) {
		if (used[s])
			continue;
		m->nb = 1;
		m->b[0] = m->c[s];
		for (int k = s + 1; k < m->nc; k++) {
			if (used[k])
				continue;
			m->b[m->nb++] = m->c[k];
			if (alike(m))
				used[k] = 1;
			else
				m->nb--;
		}
		if (m->nb > nbest) {
			nbest = m->nb;
			memcpy(best, m->b, (size_t)m->nb * sizeof *best);
		}
	}
	m->nb = nbest;
	memcpy(m->b, best, (size_t)nbest * sizeof *best);
}

/* The first and last finite entries of a[0 .. n] (lo > hi: none). */
static void
support(const double *a, int64_t n, int64_t *lo, int64_t *hi)
{
	for (*lo = 0; *lo <= n && a[*lo] == -INFINITY; (*lo)++)
		;
	for (*hi = n; *hi >= *lo && a[*hi] == -INFINITY; (*hi)--)
		;
}

/* e^(a[k + 1] - a[k]) into r[k] and its inverse into ri[k], lo <= k <
 * hi; 0 when one is out of range (then the caller takes exp of each
 * term) */
static int
ratios(const double *a, int64_t lo, int64_t hi, double *r, double *ri)
{
	for (int64_t k = lo; k < hi; k++) {
		double d = a[k + 1] - a[k];
		if (!(fabs(d) < 300))
			return 0;
		r[k] = exp(d);
		ri[k] = exp(-d);
	}
	return 1;
}

/* One step of a side of a coefficient's terms (see window_sums): term t
 * of the side is the one before it (e) times p[t] q[-t], n terms in all,
 * summed onto acc from the largest outwards until they fall below
 * MB_TINY.  Two terms a step, the product taken apart from the running
 * term so that the chain is one multiplication long (the second term
 * waits for e, not for the first), or the last one; live drops to 0 at
 * the end.  A macro on plain variables, which stay in registers. */
#define SIDE_STEP(p, q, n, t, e, acc, live) do {			\
	if ((t) + 1 < (n)) {						\
		double x_ = (p)[t] * (q)[-(t)];				\
		double e1_ = (e) * x_;					\
		double e2_ = (e) * (x_ * ((p)[(t) + 1] * (q)[-(t) - 1]));	\
		if (e1_ < MB_TINY)					\
			(live) = 0;					\
		else {							\
			(acc) += e1_;					\
			if (e2_ < MB_TINY)				\
				(live) = 0;				\
			else {						\
				(acc) += e2_;				\
				(e) = e2_;				\
				(t) += 2;				\
			}						\
		}							\
	} else {							\
		if ((t) == (n) - 1 && ((e) *= (p)[t] * (q)[-(t)]) >= MB_TINY) \
			(acc) += (e);					\
		(live) = 0;						\
	}								\
} while (0)

#ifdef __SSE2__
/* The first steps of four sides (see window_sums), the two sides up in
 * the lanes of one SSE2 vector and the two down in another: the same
 * products, sums and comparisons lane by lane as SIDE_STEP's, so the
 * same bits.  While every side takes two terms a step and none would
 * stop; the step where one would is left to SIDE_STEP, from the state
 * handed back. */
static void
sides_sse2(const double *p0, const double *q0, int64_t n0, int64_t *t0,
    double *e0, double *a0, const double *p1, const double *q1, int64_t n1,
    int64_t *t1, double *e1, double *a1, const double *p2, const double *q2,
    int64_t n2, int64_t *t2, double *e2, double *a2, const double *p3,
    const double *q3, int64_t n3, int64_t *t3, double *e3, double *a3)
{
	const __m128d tiny = _mm_set1_pd(MB_TINY);
	__m128d eu = _mm_set_pd(*e2, *e0), au = _mm_set_pd(*a2, *a0);
	__m128d ed = _mm_set_pd(*e3, *e1), ad = _mm_set_pd(*a3, *a1);
	int64_t u0 = *t0, u1 = *t1, u2 = *t2, u3 = *t3;
	double lane[2];

	while (u0 + 1 < n0 && u1 + 1 < n1 && u2 + 1 < n2 && u3 + 1 < n3) {
		__m128d xu = _mm_mul_pd(_mm_set_pd(p2[u2], p0[u0]),
		    _mm_set_pd(q2[-u2], q0[-u0]));
		__m128d yu = _mm_mul_pd(_mm_set_pd(p2[u2 + 1], p0[u0 + 1]),
		    _mm_set_pd(q2[-u2 - 1], q0[-u0 - 1]));
		__m128d xd = _mm_mul_pd(_mm_set_pd(p3[u3], p1[u1]),
		    _mm_set_pd(q3[-u3], q1[-u1]));
		__m128d yd = _mm_mul_pd(_mm_set_pd(p3[u3 + 1], p1[u1 + 1]),
		    _mm_set_pd(q3[-u3 - 1], q1[-u1 - 1]));
		__m128d f1u = _mm_mul_pd(eu, xu), f2u = _mm_mul_pd(eu, _mm_mul_pd(xu, yu));
		__m128d f1d = _mm_mul_pd(ed, xd), f2d = _mm_mul_pd(ed, _mm_mul_pd(xd, yd));
		if (_mm_movemask_pd(_mm_cmplt_pd(f1u, tiny)) |
		    _mm_movemask_pd(_mm_cmplt_pd(f2u, tiny)) |
		    _mm_movemask_pd(_mm_cmplt_pd(f1d, tiny)) |
		    _mm_movemask_pd(_mm_cmplt_pd(f2d, tiny)))
			break;
		au = _mm_add_pd(_mm_add_pd(au, f1u), f2u);
		ad = _mm_add_pd(_mm_add_pd(ad, f1d), f2d);
		eu = f2u;
		ed = f2d;
		u0 += 2, u1 += 2, u2 += 2, u3 += 2;
	}
	*t0 = u0, *t1 = u1, *t2 = u2, *t3 = u3;
	_mm_storeu_pd(lane, eu);
	*e0 = lane[0], *e2 = lane[1];
	_mm_storeu_pd(lane, au);
	*a0 = lane[0], *a2 = lane[1];
	_mm_storeu_pd(lane, ed);
	*e1 = lane[0], *e3 = lane[1];
	_mm_storeu_pd(lane, ad);
	*a1 = lane[0], *a3 = lane[1];
}
#endif

/* The sums of the terms of coefficients j[0 .. nj) (1 <= nj <= 2) of
 * poly_mul's product relative to their largest, terms i[l] (1): upwards
 * each term is its neighbour times ra[k - 1] rb[nb + j - k], downwards
 * times rb[j - k - 1] ra[na + k] (ra, rb as ratios() leaves them).  The
 * four sides are stepped in turn: each one's sums are exactly those of
 * one side at a time, and the independent chains overlap in the CPU. */
static void
window_sums(const double *ra, const double *rb, int64_t na, int64_t nb,
    const int64_t *i, const int64_t *j, const int64_t *lo,
    const int64_t *hi, int nj, double *sum)
{
	/* sides 0 and 1: coefficient j[0] up and down; 2 and 3: j[1] */
	const double *p0 = ra + i[0], *q0 = rb + nb + j[0] - i[0] - 1;
	const double *p1 = rb + j[0] - i[0], *q1 = ra + na + i[0] - 1;
	const double *p2 = p0, *q2 = q0, *p3 = p1, *q3 = q1;
	int64_t n0 = hi[0] - i[0], n1 = i[0] - lo[0], n2 = 0, n3 = 0;
	int64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
	double e0 = 1, e1 = 1, e2 = 1, e3 = 1, a0 = 1, a1 = 0, a2 = 1, a3 = 0;
	int l0 = 1, l1 = 1, l2 = nj > 1, l3 = nj > 1;

	if (nj > 1) {
		p2 = ra + i[1], q2 = rb + nb + j[1] - i[1] - 1;
		p3 = rb + j[1] - i[1], q3 = ra + na + i[1] - 1;
		n2 = hi[1] - i[1], n3 = i[1] - lo[1];
	}
#ifdef __SSE2__
	if (nj > 1)
		sides_sse2(p0, q0, n0, &t0, &e0, &a0, p1, q1, n1, &t1, &e1, &a1,
		    p2, q2, n2, &t2, &e2, &a2, p3, q3, n3, &t3, &e3, &a3);
#endif
	while (l0 | l1 | l2 | l3) {
		if (l0)
			SIDE_STEP(p0, q0, n0, t0, e0, a0, l0);
		if (l1)
			SIDE_STEP(p1, q1, n1, t1, e1, a1, l1);
		if (l2)
			SIDE_STEP(p2, q2, n2, t2, e2, a2, l2);
		if (l3)
			SIDE_STEP(p3, q3, n3, t3, e3, a3, l3);
	}
	sum[0] = a0 + a1;
	if (nj > 1)
		sum[1] = a2 + a3;
}

/* c[j] for the n coefficients poly_mul keeps waiting (j, top term i,
 * range lo .. hi, largest term max); returns 0, none waiting. */
static int
flush(const double *ra, const double *rb, int64_t na, int64_t nb,
    const int64_t *i, const int64_t *j, const int64_t *lo, const int64_t *hi,
    const double *max, int n, double *c)
{
	double sum[2];

	if (!n)
		return 0;
	window_sums(ra, rb, na, nb, i, j, lo, hi, n, sum);
	for (int l = 0; l < n; l++)
		c[j[l]] = max[l] + log(sum[l]);
	return 0;
}

/* log of the coefficients of the product of polynomials a (degree na)
 * and b (degree nb), into c (degree na + nb); ra, rb: scratch of 2 na
 * and 2 nb doubles.  Both are log-concave (finite on an interval), so the
 * terms of each coefficient are unimodal: a large product adds only
 * those within MB_DROP nats of the largest, each from its neighbour by
 * the ratios of a's and b's neighbouring coefficients. */
static void
poly_mul(const double *a, int64_t na, const double *b, int64_t nb, double *c,
    double *ra, double *rb)
{
	int full = (double)(na + 1) * (double)(nb + 1) < MB_FULL, fast, np = 0;
	int64_t alo, ahi, blo, bhi, i = 0, pi[2], pj[2], plo[2], phi[2];
	double pmax[2];

	support(a, na, &alo, &ahi);
	support(b, nb, &blo, &bhi);
	fast = !full && ratios(a, alo, ahi, ra, ra + na) &&
	    ratios(b, blo, bhi, rb, rb + nb);
	for (int64_t j = 0; j <= na + nb; j++) {
		int64_t lo = j - bhi > alo ? j - bhi : alo;
		int64_t hi = j - blo < ahi ? j - blo : ahi;
		double max, sum = 0, e;
		c[j] = -INFINITY;
		if (lo > hi)
			continue;
		if (full) {
			max = -INFINITY;
			for (int64_t k = lo; k <= hi; k++)
				if (a[k] + b[j - k] > max)
					max = a[k] + b[j - k];
			for (int64_t k = lo; k <= hi; k++)
				sum += exp(a[k] + b[j - k] - max);
			c[j] = max + log(sum);
			continue;
		}
		/* climb from the last top, then add outwards */
		if (i < lo)
			i = lo;
		if (i > hi)
			i = hi;
		while (i < hi && a[i + 1] + b[j - i - 1] >= a[i] + b[j - i])
			i++;
		while (i > lo && a[i - 1] + b[j - i + 1] > a[i] + b[j - i])
			i--;
		max = a[i] + b[j - i];
		if (fast) {
			/* kept until a second one comes, then summed together */
			pi[np] = i, pj[np] = j, plo[np] = lo, phi[np] = hi;
			pmax[np++] = max;
			if (np == 2)
				np = flush(ra, rb, na, nb, pi, pj, plo, phi, pmax, np, c);
			continue;
		}
		e = 1;
		for (int64_t k = i; k <= hi; k++) {
			if (k > i)
				e = exp(a[k] + b[j - k] - max);
			if (e < MB_TINY)
				break;
			sum += e;
		}
		for (int64_t k = i - 1; k >= lo; k--) {
			e = exp(a[k] + b[j - k] - max);
			if (e < MB_TINY)
				break;
			sum += e;
		}
		c[j] = max + log(sum);
	}
	flush(ra, rb, na, nb, pi, pj, plo, phi, pmax, np, c);
}

/* log Z of one constant of block b's private clauses with P true and
 * false (0 when it has none) */
static int
private_z(struct eng *g, const struct mb *m, int b, const int *key,
    size_t len, double *zt, double *zf)
{
	const struct th *t = m->t;
	struct th *p = th_empty_like(t), *c;
	struct index ix;
	struct buf *plan = g->plan;
	double expected;
	int rc = 0, has = 0;

	if (!p)
		return err_oom(g->e);
	for (size_t i = 0; i < t->c.n; i++)
		if (m->priv[i] == b && th_push(p, cl_copy(t->c.v[i])) < 0) {
			th_free(p);
			return err_oom(g->e);
		}
	p->size[b] = 1;
	if (index_build(g, p, &ix) < 0) {
		th_free(p);
		return err_oom(g->e);
	}
	for (int k = 0; k < ix.ncls && !has; k++)
		has = ix.occ[ix.first[k]].len == len &&
		    !memcmp(ix.occ[ix.first[k]].key, key, len * sizeof *key);
	expected = ix.total - has;
	index_free(&ix);
	g->plan = NULL;
	for (int v = 0; v < 2 && !rc; v++) {
		struct asg as = { 1, { key }, { len }, { !v } };
		if (!(c = th_copy(p)))
			rc = err_oom(g->e);
		else
			rc = search_child(g, c, &as, expected, v ? zf : zt);
	}
	g->plan = plan;
	th_free(p);
	return rc;
}

/* The theory over the merged blocks: the clauses of t but the private
 * ones of the merged blocks and those over them, and each merged form
 * (alike) as often as it came with each vector of blocks, over b[0],
 * which takes all the merged blocks' constants. */
static struct th *
merged_theory(const struct mb *m, int64_t total)
{
	const struct th *t = m->t;
	struct th *d = th_empty_like(t);

	for (size_t i = 0; d && i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		int keep = !(m->priv[i] >= 0 && in_b(m, m->priv[i]));
		for (int u = 0; u < c->nvars && keep; u++)
			keep = !in_b(m, c->blk[u]);
		if (keep && th_push(d, cl_copy(c)) < 0) {
			th_free(d);
			d = NULL;
		}
	}
	for (int g = 0; d && g < m->ngrp; g++) {
		struct cl *c = cl_copy(t->c.v[m->ord[m->gfirst[g]]]), *x;
		for (int u = 0; c && u < c->nvars; u++)
			for (int w = 0; c && w < u; w++)
				if (in_b(m, c->blk[u]) && in_b(m, c->blk[w]) &&
				    !cl_has_neq(c, w, u)) {
					x = cl_add_neq(c, w, u);
					cl_free(c);
					c = x;
				}
		for (int u = 0; c && u < c->nvars; u++)
			if (in_b(m, c->blk[u]))
				c->blk[u] = m->b[0];
		for (int64_t r = 0; c && r < m->grep[g]; r++) {
			x = r + 1 < m->grep[g] ? cl_copy(c) : c;
			if (th_push(d, x) < 0) {
				if (x != c)
					cl_free(c);
				c = NULL;
			}
		}
		if (c && !m->grep[g])
			cl_free(c);
		else if (!c) {
			th_free(d);
			d = NULL;
		}
	}
	for (int k = 0; d && k < m->nb; k++)
		d->size[m->b[k]] = k ? 0 : total;
	return d;
}

/* log Z of one atom of a unit clause of weight w: e^w when the literal
 * holds, 1 when not; kept for the last 8 weights (the replays of a
 * template ask for the same few again and again). */
static double
unit_z(struct eng *g, double w)
{
	double z;
	int slot;

	for (int k = 0; k < g->nuz; k++)
		if (g->uz[k][0] == w)
			return g->uz[k][1];
	slot = g->nuz < 8 ? g->nuz++ : 0;
	z = w > 0 ? w + log1p(exp(-w)) : log1p(exp(w));
	g->uz[slot][0] = w;
	g->uz[slot][1] = z;
	return z;
}

/* log Z of t when each of its clauses is soft, has one literal over all
 * its variables and a class of its own (each of its groundings is a
 * ground atom of no other clause), else NaN. */
static double
units_z(struct eng *g, const struct th *t, const struct index *ix)
{
	double z = 0;

	if (ix->ncls != (int)t->c.n)
		return NAN;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		double n;
		if (c->hard || c->nlits != 1)
			return NAN;
		for (int u = 0; u < c->nvars; u++) {
			int in = 0;
			for (int a = 0; a < c->nargs && !in; a++)
				in = c->arg[a] == u;
			if (!in)
				return NAN;
		}
		n = cl_count(c, t->size);
		if (n != ix->atoms[ix->cls_of[ix->lpos[i]]])
			return NAN;
		z += n * unit_z(g, c->w);
	}
	return z;
}

/* A branch child of unit clauses alone kept to stand for the children
 * of other counts (replay): the child simplified, its index, and what
 * its simplification added up. */
struct tmpl {
	struct sftrace tr;
	struct th *t;
	struct index ix;
};

static void
tmpl_free(struct tmpl *tp)
{
	sftrace_free(&tp->tr);
	if (tp->t)
		index_free(&tp->ix);
	th_free(tp->t);
	tp->t = NULL;
}

/* search_child, but a child of unit clauses alone (units_z) is summed up
 * here instead of searched; with tp, such a child is kept in tp (its
 * simplification recorded) instead of freed.  Takes c. */
static int
child_z(struct eng *g, struct th *c, const struct asg *as, double expected,
    double *out, struct tmpl *tp)
{
	struct index ix;
	double konst, assigned, z;
	int rc;

	g->trace = tp ? &tp->tr : NULL;
	rc = simplify(g, c, as, &konst, &assigned);
	g->trace = NULL;
	if (rc < 0) {
		th_free(c);
		return err_oom(g->e);
	}
	if (konst == -INFINITY) {
		th_free(c);
		*out = -INFINITY;
		return 0;
	}
	if (index_build(g, c, &ix) < 0) {
		th_free(c);
		return err_oom(g->e);
	}
	z = units_z(g, c, &ix);
	konst += (expected - assigned - ix.total) * g->sr->free_atom;
	if (isnan(z)) {
		index_free(&ix);
		g->depth++;
		rc = search_solve(g, c, &z);
		g->depth--;
		if (rc)
			return rc;
	} else {
		g->st.nodes++;
		g->depth++;
		plan_line(g, "unit clauses alone: summed per atom");
		g->depth--;
		if (tp && !tp->tr.bad) {
			tp->t = c;
			tp->ix = ix;
		} else {
			index_free(&ix);
			th_free(c);
		}
	}
	*out = konst + z;
	return 0;
}

/* child_z's value for the child of count k from template tp: the same
 * additions in the same order with blocks b0 and b1 of sizes k and
 * n - k; NaN when tp cannot give it. */
static double
replay(struct eng *g, struct tmpl *tp, int64_t k, int64_t n,
    double expected)
{
	double konst, assigned, z;

	tp->t->size[tp->tr.b0] = k;
	tp->t->size[tp->tr.b1] = n - k;
	if (sftrace_replay(g, &tp->tr, tp->t->size, &konst, &assigned) < 0)
		return NAN;
	index_resize(g, tp->t, &tp->ix);
	z = units_z(g, tp->t, &tp->ix);
	konst += (expected - assigned - tp->ix.total) * g->sr->free_atom;
	return konst + z;
}

/* The counts lo..hi over which d's children keep one structure: every
 * variable of a clause can take a constant of its own in b0 and in b1
 * (so normalisation drops the same clauses), with a finite weight. */
static void
replay_range(const struct th *d, const double *w, int64_t n, int64_t *lo,
    int64_t *hi)
{
	int64_t m = 2;

	for (size_t i = 0; i < d->c.n; i++)
		if (d->c.v[i]->nvars > m)
			m = d->c.v[i]->nvars;
	for (*lo = m; *lo <= n - m && w[*lo] == -INFINITY; (*lo)++)
		;
	for (*hi = n - m; *hi >= *lo && w[*hi] == -INFINITY; (*hi)--)
		;
}

/* The child of count k: from the template when there is one (tp->t)
 * and lo < k < hi, else in full (at lo, kept as the template; at hi,
 * checked against the template: on a difference *redo is set). */
static int
branch_child(struct eng *g, const struct th *d, const struct asg *as,
    int64_t k, int64_t n, int64_t lo, int64_t hi, double expected,
    struct tmpl *tp, double *out, int *redo)
{
	struct th *c;
	int rc;

	if (tp->t && k > lo && k < hi) {
		*out = replay(g, tp, k, n, expected);
		g->st.nodes++;
		return 0;
	}
	if (!(c = th_copy(d)))
		return err_oom(g->e);
	rc = child_z(g, c, as, expected, out, k == lo && hi - lo > 1 ? tp : NULL);
	if (rc)
		return rc;
	if (tp->t && (k == lo || k == hi) && replay(g, tp, k, n, expected) != *out) {
		*redo = k == hi;
		tmpl_free(tp);
	}
	return 0;
}

/* Branches merged theory d on the count of P(b0), weighing branch K by
 * w[K]; d is freed by the caller.  Between the counts lo and hi the
 * children differ only in the sizes of b0 and its complement, so one
 * is simplified and the others are its sums redone with their sizes
 * (docs/internals/lifted.md, "Replayed branches"). */
static int
branch(struct eng *g, struct th *d, int b0, const int *key, size_t len,
    const double *w, int64_t n, double *out)
{
	int kt[KEY_BUF], kf[KEY_BUF], nb, rc = 0, redo = 0;
	struct asg as = { 2, { kt, kf }, { len, len }, { 1, 0 } };
	struct index ix;
	struct tmpl tp = { { 0 }, NULL, { 0 } };
	double expected, *terms, mult = g->mult;
	int64_t lo, hi;

	if (index_build(g, d, &ix) < 0)
		return err_oom(g->e);
	expected = ix.total - (double)n;
	index_free(&ix);
	if (!(terms = xmalloc(((size_t)n + 1) * sizeof *terms)))
		return err_oom(g->e);
	if ((nb = th_add_block(d, 0, d->type[b0])) < 0 || th_split(d, b0, nb) < 0) {
		free(terms);
		return err_oom(g->e);
	}
	key_with(key, len, b0, b0, kt);
	key_with(key, len, b0, nb, kf);
	replay_range(d, w, n, &lo, &hi);
	tp.tr.b0 = b0;
	tp.tr.b1 = nb;
	if (g->plan || g->ntag)
		lo = hi = -1;
	if (g->plan)
		g->mult *= (double)n + 1;
	for (int64_t k = 0; k <= n && !rc; k++) {
		if ((g->plan && k != n / 2) || w[k] == -INFINITY) {
			terms[k] = -INFINITY;
			continue;
		}
		d->size[b0] = k;
		d->size[nb] = n - k;
		rc = branch_child(g, d, &as, k, n, lo, hi, expected, &tp,
		    &terms[k], &redo);
		/* the template differed at hi: the counts between in full */
		for (int64_t j = lo + 1; redo && j < hi && !rc; j++) {
			struct th *c;
			if (w[j] == -INFINITY)
				continue;
			g->st.nodes--;
			d->size[b0] = j;
			d->size[nb] = n - j;
			if (!(c = th_copy(d)))
				rc = err_oom(g->e);
			else
				rc = child_z(g, c, &as, expected, &terms[j], NULL);
			terms[j] += w[j];
		}
		redo = 0;
		terms[k] += w[k];
	}
	tmpl_free(&tp);
	g->mult = mult;
	if (!rc)
		*out = sr_sum.combine(terms, n + 1);
	free(terms);
	return rc;
}

/* A copy of t in which each clause where two variables of one candidate
 * block may be equal is split, as th_normalise does within a literal:
 * once with them apart and once as one variable (its groundings are
 * those of the two); *out NULL when no clause needs it. */
static int
split_equal(const struct mb *m, const struct th *t, struct th **out)
{
	struct th *d = NULL;

	*out = NULL;
	for (size_t i = 0; i < (d ? d->c.n : t->c.n); i++) {
		const struct cl *c = (d ? d : t)->c.v[i];
		struct cl *x, *y;
		int u = -1, v = -1;
		for (int a = 0; a < c->nvars && u < 0; a++)
			for (int b = a + 1; b < c->nvars && u < 0; b++)
				if (c->blk[a] == c->blk[b] && !cl_has_neq(c, a, b))
					for (int k = 0; k < m->nc; k++)
						if (c->blk[a] == m->c[k]) {
							u = a;
							v = b;
						}
		if (u < 0)
			continue;
		if (!d && !(d = th_copy(t)))
			return -1;
		c = d->c.v[i];
		if (!(x = cl_without(c, v, u)) || !(y = cl_add_neq(c, u, v))) {
			cl_free(x);
			th_free(d);
			return -1;
		}
		cl_free(d->c.v[i]);
		d->c.v[i--] = x;
		if (th_push(d, y) < 0) {
			th_free(d);
			return -1;
		}
	}
	*out = d;
	return 0;
}

/* The last count polynomial and the blocks it came from: each
 * marginal's two searches (atom true, atom false) merge the same
 * blocks with the same private parts. */
struct mbpoly {
	int nb;
	int64_t n[MB_MAX_BLOCKS];
	double zt[MB_MAX_BLOCKS], zf[MB_MAX_BLOCKS];
	int64_t deg;
	double *w;
};

void
multibin_free(struct eng *g)
{
	if (g->mbp)
		free(g->mbp->w);
	free(g->mbp);
	g->mbp = NULL;
}

/* m's blocks and parts are those of g->mbp (bit for bit) */
static int
poly_same(const struct eng *g, const struct mb *m, const double *zt,
    const double *zf)
{
	const struct mbpoly *c = g->mbp;

	if (!c || c->nb != m->nb)
		return 0;
	for (int k = 0; k < m->nb; k++)
		if (c->n[k] != m->t->size[m->b[k]] ||
		    memcmp(&c->zt[k], &zt[k], sizeof *zt) ||
		    memcmp(&c->zf[k], &zf[k], sizeof *zf))
			return 0;
	return 1;
}

/* Keeps w (degree deg) in g->mbp; nothing on no memory (a cache). */
static void
poly_keep(struct eng *g, const struct mb *m, const double *zt,
    const double *zf, const double *w, int64_t deg)
{
	struct mbpoly *c = g->mbp;
	double *x = xmalloc(((size_t)deg + 1) * sizeof *x);

	if (!x)
		return;
	if (!c && !(c = g->mbp = xcalloc(1, sizeof *c))) {
		free(x);
		return;
	}
	free(c->w);
	c->w = x;
	memcpy(x, w, ((size_t)deg + 1) * sizeof *x);
	c->deg = deg;
	c->nb = m->nb;
	for (int k = 0; k < m->nb; k++) {
		c->n[k] = m->t->size[m->b[k]];
		c->zt[k] = zt[k];
		c->zf[k] = zf[k];
	}
}

/* w[0 .. total]: log of the coefficients of prod_b (e^f_b + e^t_b x)^n_b
 * over the merged blocks, f_b and t_b their private parts' log Z per
 * constant with P false and true; p, q: scratch of as many doubles, ra,
 * rb: of twice as many. */
static int
count_poly(struct eng *g, const struct mb *m, size_t len, double *w,
    double *p, double *q, double *ra, double *rb)
{
	int64_t deg = -1;
	int key[KEY_BUF], rc;
	double zt[MB_MAX_BLOCKS], zf[MB_MAX_BLOCKS];

	for (int k = 0; k < m->nb; k++) {
		key[0] = m->pred;
		key[1] = m->b[k];
		key[2] = 0;
		if ((rc = private_z(g, m, m->b[k], key, len, &zt[k], &zf[k])))
			return rc;
	}
	if (poly_same(g, m, zt, zf)) {
		memcpy(w, g->mbp->w, ((size_t)g->mbp->deg + 1) * sizeof *w);
		return 0;
	}
	for (int k = 0; k < m->nb; k++) {
		int64_t n = m->t->size[m->b[k]];
		for (int64_t j = 0; j <= n; j++)
			p[j] = lchoose(n, j) + (j ? (double)j * zt[k] : 0) +
			    (n - j ? (double)(n - j) * zf[k] : 0);
		if (deg < 0)
			memcpy(w, p, ((size_t)n + 1) * sizeof *w);
		else {
			poly_mul(w, deg, p, n, q, ra, rb);
			memcpy(w, q, ((size_t)(deg + n) + 1) * sizeof *w);
		}
		deg = deg < 0 ? n : deg + n;
	}
	poly_keep(g, m, zt, zf, w, deg);
	return 0;
}

static void
plan_rule(struct eng *g, const struct mb *m, int64_t total)
{
	char ct[200];
	int key[3] = { m->pred, m->b[0], 0 };
	int64_t *size = xmalloc(((size_t)m->t->nb + 1) * sizeof *size);

	if (!size)
		return;
	memcpy(size, m->t->size, (size_t)m->t->nb * sizeof *size);
	size[m->b[0]] = total;
	class_text(g, size, key, ct, sizeof ct);
	free(size);
	plan_line(g, "multi-block binomial on %s, %d blocks alike: %lld "
	    "branches", ct, m->nb, (long long)total + 1);
}

/* The rule on class cls (at most one slot, of a unary predicate P):
 * returns 1 and solves t when P's classes over two or more blocks are
 * alike (*rc: the status), else 0.  Does not take t. */
int
multibin(struct eng *g, const struct th *t, const struct index *ix, int cls,
    double *out, int *rc)
{
	struct mb m = { .t = t, .ix = ix, .pred = ix->occ[ix->first[cls]].key[0] };
	int key[KEY_BUF], ok = 0;
	size_t len = 0, nc;
	int64_t total = 0;
	double *w = NULL, *p = NULL, *q = NULL, *ra = NULL, *rb = NULL;
	struct th *d = NULL, *split = NULL;
	struct index six = { 0 };

	*rc = 0;
	for (int k = 0; k < ix->ncls; k++) {
		const struct occ *o = &ix->occ[ix->first[k]];
		if (o->key[0] != m.pred || t->size[o->key[1]] < 1)
			continue;
		if (m.nc == MB_MAX_BLOCKS)
			return 0;
		m.c[m.nc++] = o->key[1];
		len = o->len;
	}
	if (m.nc < 2)
		return 0;
	if (split_equal(&m, t, &split) < 0 ||
	    (split && index_build(g, split, &six) < 0)) {
		*rc = err_oom(g->e);
		goto done;
	}
	if (split) {
		m.t = split;
		m.ix = &six;
	}
	nc = m.t->c.n + 1;
	m.priv = xmalloc(nc * sizeof *m.priv);
	m.bpos = xmalloc(((size_t)t->nb + 1) * sizeof *m.bpos);
	m.h = xmalloc(nc * sizeof *m.h);
	m.sig = xmalloc(nc * sizeof *m.sig);
	m.nv = xmalloc(nc * sizeof *m.nv);
	m.ord = xmalloc(nc * sizeof *m.ord);
	m.fm = xmalloc(nc * sizeof *m.fm);
	m.gfirst = xmalloc(nc * sizeof *m.gfirst);
	m.grep = xmalloc(nc * sizeof *m.grep);
	if (!m.priv || !m.bpos || !m.h || !m.sig || !m.nv || !m.ord ||
	    !m.fm || !m.gfirst || !m.grep) {
		*rc = err_oom(g->e);
		goto done;
	}
	find_private(&m);
	pick_blocks(&m);
	if (m.nb < 2)
		goto done;
	(void)alike(&m);       /* m.bpos for the blocks picked */
	for (int k = 0; k < m.nb; k++)
		total += t->size[m.b[k]];
	if (!(w = xmalloc(((size_t)total + 1) * sizeof *w)) ||
	    !(p = xmalloc(((size_t)total + 1) * sizeof *p)) ||
	    !(q = xmalloc(((size_t)total + 1) * sizeof *q)) ||
	    !(ra = xmalloc(2 * ((size_t)total + 1) * sizeof *ra)) ||
	    !(rb = xmalloc(2 * ((size_t)total + 1) * sizeof *rb))) {
		*rc = err_oom(g->e);
		goto done;
	}
	ok = 1;
	g->st.binomials++;
	g->st.multibinomials++;
	if (g->plan) {
		/* a schematic run follows one branch: its weight is moot */
		plan_rule(g, &m, total);
		memset(w, 0, ((size_t)total + 1) * sizeof *w);
	} else if ((*rc = count_poly(g, &m, len, w, p, q, ra, rb)))
		goto done;
	key[0] = m.pred;
	key[1] = m.b[0];
	key[2] = 0;
	if (!(d = merged_theory(&m, total)))
		*rc = err_oom(g->e);
	else
		*rc = branch(g, d, m.b[0], key, len, w, total, out);
done:
	th_free(d);
	th_free(split);
	if (split)
		index_free(&six);
	free(w);
	free(p);
	free(q);
	free(ra);
	free(rb);
	free(m.priv);
	free(m.bpos);
	free(m.h);
	free(m.sig);
	free(m.nv);
	free(m.ord);
	free(m.fm);
	free(m.gfirst);
	free(m.grep);
	return ok || *rc;
}
