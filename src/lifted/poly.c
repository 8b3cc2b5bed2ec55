/* poly.c: products of count polynomials kept as the logs of their
 * coefficients, the sums over count vectors of the multi-block binomial
 * (multibin.c; docs/internals/lifted.md, "The multi-block binomial"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lifted/lifted-int.h"

/* e^-POLY_DROP: the terms of a coefficient fall faster than
 * geometrically beyond it */
#define MB_TINY 4.248354255291589e-18
/* Products with fewer terms than this are computed in full. */
#define MB_FULL 4096.0

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

/* log of coefficient j of a times b, a's terms lo .. hi, the largest at
 * i: its terms outwards from i until they fall below MB_TINY */
static double
coef_direct(const double *a, const double *b, int64_t j, int64_t lo,
    int64_t hi, int64_t i)
{
	double max = a[i] + b[j - i], sum = 1, e;

	for (int64_t k = i + 1; k <= hi; k++) {
		if ((e = exp(a[k] + b[j - k] - max)) < MB_TINY)
			break;
		sum += e;
	}
	for (int64_t k = i - 1; k >= lo; k--) {
		if ((e = exp(a[k] + b[j - k] - max)) < MB_TINY)
			break;
		sum += e;
	}
	return max + log(sum);
}

void
poly_mul(const double *a, int64_t na, const double *b, int64_t nb, double *c,
    double *ra, double *rb, const unsigned char *need, int64_t nneed)
{
	int full = (double)(na + 1) * (double)(nb + 1) < MB_FULL, fast, np = 0;
	int64_t alo, ahi, blo, bhi, i = 0, pi[2], pj[2], plo[2], phi[2];
	double pmax[2];

	support(a, na, &alo, &ahi);
	support(b, nb, &blo, &bhi);
	/* the ratios cost two exp per coefficient of a and b: worth it
	 * when many coefficients are asked for */
	fast = !full && (!need || nneed * 64 > na + nb) &&
	    ratios(a, alo, ahi, ra, ra + na) && ratios(b, blo, bhi, rb, rb + nb);
	for (int64_t j = 0; j <= na + nb; j++) {
		int64_t lo = j - bhi > alo ? j - bhi : alo;
		int64_t hi = j - blo < ahi ? j - blo : ahi;
		double max, sum = 0;
		if (need && !need[j])
			continue;
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
		if (!fast) {
			c[j] = coef_direct(a, b, j, lo, hi, i);
			continue;
		}
		/* kept until a second one comes, then summed together */
		pi[np] = i, pj[np] = j, plo[np] = lo, phi[np] = hi;
		pmax[np++] = a[i] + b[j - i];
		if (np == 2)
			np = flush(ra, rb, na, nb, pi, pj, plo, phi, pmax, np, c);
	}
	flush(ra, rb, na, nb, pi, pj, plo, phi, pmax, np, c);
}
