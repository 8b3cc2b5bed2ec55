/* cgsum.c: the cell-graph rule's sum over count vectors, in full, or
 * (given a budget) depth first with subtrees dropped whose upper bound
 * falls below the sum found by e^-(40 + log vectors)
 * (docs/internals/lifted.md, "The pruned sum"); on request with the
 * expected counts of its groups and pairs of groups (for marginals). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* Nats below the largest term found that a dropped subtree's bound
 * must fall, past the log of the vectors there are in all. */
#define CS_DROP 40.0
/* Sweeps of the Jacobi eigenvalue method and mean-field steps. */
#define CS_SWEEPS 60
#define CS_MF 1
/* Nats by which the table of a two-group block's sum (below) may
 * exceed it between its points. */
#define CS_TAB_GAP 0.25
#define CS_TAB_DEPTH 48
/* Ranges of counts (cs_range) of fewer than CS_RANGE_MIN go child by
 * child, as do those past CS_RANGE_LVL halvings. */
#define CS_RANGE_MIN 8
#define CS_RANGE_LVL 48

_Thread_local int cg_test_mode;
_Thread_local int64_t cg_bound_violations, cg_bound_checks, cg_bound_drops;

/* A block of two groups, R constants: its sum with the linear weights
 * b1, b2 of its groups, log G(b1 - b2) + R b2, where
 * G(x) = sum_c C(R, c) e^(x c + Q(c)) and Q(c) its pair weights among
 * its own constants, exact; log G is convex, tabulated at x[], read
 * between points by the chord. */
struct tab {
	int np;
	double *x, *f;
};

struct cs {
	const struct cgsum *p;
	int ng;
	double *lf;            /* log c!, c up to the largest block */
	double *lt;            /* finite stand-in for lr (>= lr) */
	double *lp;            /* lt = lp + lm, lp PSD, lm NSD (kept as nv) */
	double *a, *beta, *y, *t; /* scratch per group */
	double *pref;          /* (ng + 1) x ng: at depth i, per group g its
	                          lw plus the pair weights to the counts of
	                          groups 0..i-1 */
	double *pm, *tail;     /* ng x ng, for the convex part's vertices:
	                          max of lp[g][h] over h from i to its block's
	                          end; what the blocks past i's give */
	double *nv;            /* k x ng: lm's eigenvectors times sqrt(-e) */
	int nk;
	int64_t *cnt;
	int64_t *after;        /* per group: constants of the blocks past
	                          its own */
	struct tab *tb;        /* per block; np 0: not two groups */
	double *ys;            /* per group: a tangent point of range_ub */
	double max, acc;       /* the sum so far */
	double cmax, ctot, *cacc; /* p->ecnt: every term added (e^-cmax:
	                          ctot), and times each group's count */
	double *pacc;          /* p->epair: times m_g m_h (g < h), m_g
	                          (m_g - 1) (g = h), upper triangle */
	double lb, drop;       /* largest term found; margin */
	double nodes, budget;  /* work: per child, the square of the
	                          groups left */
	int stop;
	int check;             /* each subtree in full, against its bound */
};

static double
mulc(double k, double lv)
{
	return k == 0 ? 0 : k * lv;
}

static void
cs_add(double *max, double *acc, double v)
{
	if (v == -INFINITY)
		return;
	if (v > *max) {
		*acc = *acc * exp(*max - v) + 1;
		*max = v;
	} else
		*acc += exp(v - *max);
}

/* The leaf of log term z (the counts in s->cnt) into the expected
 * counts: apart from s->max and s->acc, which test mode resets around
 * subtrees; every leaf comes here once. */
static void
cs_count(struct cs *s, double z)
{
	double e;

	if (z == -INFINITY)
		return;
	if (z > s->cmax) {
		double f = exp(s->cmax - z);
		s->ctot *= f;
		for (int g = 0; g < s->ng; g++)
			s->cacc[g] *= f;
		for (int g = 0; s->pacc && g < s->ng * s->ng; g++)
			s->pacc[g] *= f;
		s->cmax = z;
	}
	e = exp(z - s->cmax);
	s->ctot += e;
	for (int g = 0; g < s->ng; g++)
		s->cacc[g] += (double)s->cnt[g] * e;
	for (int g = 0; s->pacc && g < s->ng; g++) {
		double m = (double)s->cnt[g] * e;
		if (m == 0)
			continue;
		s->pacc[g * s->ng + g] += m * (double)(s->cnt[g] - 1);
		for (int h = g + 1; h < s->ng; h++)
			s->pacc[g * s->ng + h] += m * (double)s->cnt[h];
	}
}

static double
cs_log(double max, double acc)
{
	return max == -INFINITY ? -INFINITY : max + log(acc);
}

/* Eigen-decomposition of the symmetric n x n matrix m (destroyed) by
 * cyclic Jacobi rotations: m ends diagonal, v holds the eigenvectors
 * as columns. */
static void
jacobi(double *m, double *v, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			v[i * n + j] = i == j;
	for (int sw = 0; sw < CS_SWEEPS; sw++) {
		double off = 0;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				off += m[i * n + j] * m[i * n + j];
		if (off < 1e-30)
			break;
		for (int p = 0; p < n; p++)
			for (int q = p + 1; q < n; q++) {
				double apq = m[p * n + q], th, t, c, s;
				if (fabs(apq) < 1e-300)
					continue;
				th = (m[q * n + q] - m[p * n + p]) / (2 * apq);
				t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
				c = 1 / sqrt(t * t + 1);
				s = t * c;
				for (int k = 0; k < n; k++) {
					double mkp = m[k * n + p], mkq = m[k * n + q];
					m[k * n + p] = c * mkp - s * mkq;
					m[k * n + q] = s * mkp + c * mkq;
				}
				for (int k = 0; k < n; k++) {
					double mpk = m[p * n + k], mqk = m[q * n + k];
					m[p * n + k] = c * mpk - s * mqk;
					m[q * n + k] = s * mpk + c * mqk;
				}
				for (int k = 0; k < n; k++) {
					double vkp = v[k * n + p], vkq = v[k * n + q];
					v[k * n + p] = c * vkp - s * vkq;
					v[k * n + q] = s * vkp + c * vkq;
				}
			}
	}
}

/* Whether group g is in a block of two groups (whose pair weights
 * among its own constants the bound takes exactly, by its table). */
static int
two(const struct cs *s, int g)
{
	return s->tb[s->p->gb[g]].np > 0;
}

/* log G(x) of the block of groups g, g + 1, and its derivative (the
 * mean count of g) in *d. */
static double
tab_eval(const struct cs *s, int g, double x, double *d)
{
	const double *lt = s->lt;
	int ng = s->ng;
	int64_t r = s->p->n[s->p->gb[g]];
	double m = -INFINITY, acc = 0, ac = 0;

	for (int64_t c = 0; c <= r; c++) {
		double k = (double)c, j = (double)(r - c);
		double v = s->lf[r] - s->lf[c] - s->lf[r - c] + x * k +
		    k * (k - 1) / 2 * lt[g * ng + g] +
		    j * (j - 1) / 2 * lt[(g + 1) * ng + g + 1] +
		    k * j * lt[g * ng + g + 1];
		if (v > m) {
			acc = acc * exp(m - v) + 1;
			ac = ac * exp(m - v) + k;
			m = v;
		} else {
			acc += exp(v - m);
			ac += k * exp(v - m);
		}
	}
	*d = ac / acc;
	return m + log(acc);
}

/* Adds the point (x, f) to t. */
static int
tab_add(struct tab *t, double x, double f)
{
	if (t->np % 256 == 0) {
		size_t k = (size_t)t->np + 256;
		double *nx = xrealloc(t->x, k * sizeof *nx), *nf;
		if (!nx)
			return -1;
		t->x = nx;
		if (!(nf = xrealloc(t->f, k * sizeof *nf)))
			return -1;
		t->f = nf;
	}
	t->x[t->np] = x;
	t->f[t->np++] = f;
	return 0;
}

/* Points on (a, b] until the chord of each interval is within
 * CS_TAB_GAP of log G: for a convex function it is within
 * (b - a)(f'(b) - f'(a)) / 4 (past CS_TAB_DEPTH halvings the chord is
 * kept as it is, still above log G). */
static int
tab_fill(struct cs *s, int g, struct tab *t, double a, double da, double b,
    double fb, double db, int depth)
{
	if (depth < CS_TAB_DEPTH && (b - a) * (db - da) / 4 > CS_TAB_GAP) {
		double m = (a + b) / 2, dm, fm = tab_eval(s, g, m, &dm);
		return tab_fill(s, g, t, a, da, m, fm, dm, depth + 1) < 0 ? -1 :
		    tab_fill(s, g, t, m, dm, b, fb, db, depth + 1);
	}
	return tab_add(t, b, fb);
}

/* The tables of the blocks of two groups.  Past the ends log G is at
 * most its value at the lower end (it grows) and its value at the
 * upper end plus R per unit (its slope is a mean count): the ends lie
 * where the pair weights' slope in c is outweighed by 60 nats. */
static int
tab_build(struct cs *s)
{
	const struct cgsum *p = s->p;
	const double *lt = s->lt;
	int ng = s->ng;

	for (int g = 0; g + 1 < ng; g++) {
		int b = p->gb[g], h = g + 1;
		struct tab *t = &s->tb[b];
		double span, fa, fb, da, db, r = (double)p->n[b];
		if ((g > 0 && p->gb[g - 1] == b) || p->gb[h] != b ||
		    (h + 1 < ng && p->gb[h + 1] == b) || p->n[b] < 2)
			continue;
		span = r * (fabs(lt[g * ng + g]) + fabs(lt[h * ng + h]) +
		    2 * fabs(lt[g * ng + h])) + log(r + 1) + 60;
		fa = tab_eval(s, g, -span, &da);
		fb = tab_eval(s, g, span, &db);
		if (tab_add(t, -span, fa) < 0 ||
		    tab_fill(s, g, t, -span, da, span, fb, db, 0) < 0) {
			free(t->x);
			free(t->f);
			memset(t, 0, sizeof *t);
			return -1;
		}
	}
	return 0;
}

/* An upper bound on log G(x) (linear weights of the two groups b1,
 * b2, r constants) plus r b2. */
static double
tab_ub(const struct tab *t, int64_t r, double b1, double b2)
{
	double x, u;
	int lo = 0, hi = t->np - 1;

	if (b1 == -INFINITY || b2 == -INFINITY)
		return -INFINITY;   /* not reached: the caller takes those */
	x = b1 - b2;
	if (x <= t->x[0])
		u = t->f[0];
	else if (x >= t->x[hi])
		u = t->f[hi] + (double)r * (x - t->x[hi]);
	else {
		while (hi - lo > 1) {
			int m = (lo + hi) / 2;
			if (t->x[m] <= x)
				lo = m;
			else
				hi = m;
		}
		u = t->f[lo] + (t->f[hi] - t->f[lo]) * (x - t->x[lo]) /
		    (t->x[hi] - t->x[lo]);
	}
	return u + (double)r * b2;
}

/* lt, and its split into a positive and a negative semidefinite part. */
static int
cs_split(struct cs *s)
{
	int n = s->ng;
	double lo = INFINITY, *m, *v;

	for (int i = 0; i < n * n; i++)
		if (s->p->lr[i] > -INFINITY && s->p->lr[i] < lo)
			lo = s->p->lr[i];
	if (lo == INFINITY)
		lo = 0;
	for (int i = 0; i < n * n; i++)
		s->lt[i] = s->p->lr[i] > -INFINITY ? s->p->lr[i] : lo;
	if (tab_build(s) < 0)
		return -1;
	if (!(m = xmalloc((size_t)n * n * sizeof *m)) ||
	    !(v = xmalloc((size_t)n * n * sizeof *v))) {
		free(m);
		return -1;
	}
	/* the pair weights among the constants of a block of two groups
	 * are its table's */
	memcpy(m, s->lt, (size_t)n * n * sizeof *m);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (s->p->gb[i] == s->p->gb[j] && two(s, i))
				m[i * n + j] = 0;
	jacobi(m, v, n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double pp = 0;
			for (int k = 0; k < n; k++) {
				double e = m[k * n + k], x = v[i * n + k] * v[j * n + k];
				if (e > 0)
					pp += e * x;
			}
			s->lp[i * n + j] = pp;
		}
	/* lm = -sum_k nv_k nv_k' */
	s->nk = 0;
	for (int k = 0; k < n; k++)
		if (m[k * n + k] < 0) {
			double f = sqrt(-m[k * n + k]);
			for (int i = 0; i < n; i++)
				s->nv[s->nk * n + i] = f * v[i * n + k];
			s->nk++;
		}
	free(m);
	free(v);
	return 0;
}

/* pref at depth i + 1 from depth i with c constants in group i. */
static void
cs_push(struct cs *s, int i, int64_t c)
{
	const double *from = s->pref + (size_t)i * s->ng;
	double *to = s->pref + (size_t)(i + 1) * s->ng;

	for (int g = i + 1; g < s->ng; g++)
		to[g] = from[g] > -INFINITY ? from[g] +
		    mulc((double)c, s->p->lr[g * s->ng + i]) : from[g];
}

/* pm and tail, from lp. */
static void
cs_vertices(struct cs *s)
{
	const struct cgsum *p = s->p;
	int ng = s->ng;

	for (int g = 0; g < ng; g++) {
		double t = 0;
		for (int i = ng - 1; i >= 0; i--) {
			int last = i + 1 == ng || p->gb[i + 1] != p->gb[i];
			double lp = s->lp[g * ng + i];
			s->pm[g * ng + i] = last || lp > s->pm[g * ng + i + 1] ?
			    lp : s->pm[g * ng + i + 1];
			s->tail[g * ng + i] = t;
			/* i opens its block: the block counts for the ones
			 * before it */
			if (i == 0 || p->gb[i - 1] != p->gb[i])
				t += (double)p->n[p->gb[i]] * (p->gb[g] ==
				    p->gb[i] ? s->lp[g * ng + g] :
				    s->pm[g * ng + i]);
		}
	}
}

/* t = lm y over the groups from i. */
static void
cs_lmy(struct cs *s, int i)
{
	int ng = s->ng;

	for (int g = i; g < ng; g++)
		s->t[g] = 0;
	for (int k = 0; k < s->nk; k++) {
		const double *v = s->nv + (size_t)k * ng;
		double u = 0;
		for (int h = i; h < ng; h++)
			u += v[h] * s->y[h];
		for (int g = i; g < ng; g++)
			s->t[g] -= v[g] * u;
	}
}

/* The groups g..e-1 of g's block (returns e): the largest beta in *m
 * and the sum of e^(beta - m) in *tot (0 when every beta is -inf). */
static int
block_lse(const struct cs *s, int g, double *m, double *tot)
{
	const int *gb = s->p->gb;
	int e = g;

	*m = -INFINITY;
	*tot = 0;
	while (e < s->ng && gb[e] == gb[g]) {
		if (s->beta[e] > *m)
			*m = s->beta[e];
		e++;
	}
	for (int h = g; h < e; h++)
		*tot += *m == -INFINITY ? 0 : exp(s->beta[h] - *m);
	return e;
}

/*
 * An upper bound on the log of the sum over the completions of the
 * counts of groups 0..i-1 (z: the log of their part; left: constants
 * of group i's block still to place, whose log factorial z holds; fy:
 * the tangent point below, or NULL for one mean-field step's).
 * With r the counts of groups i.., the quadratic part q(r) <= r'lt r/2
 * - sum r_g lt_gg/2 splits in lp and lm: r'lp r/2 is convex, so at
 * most a linear function at least as large at the vertices of the
 * product of the blocks' simplices; r'lm r/2 is concave, so at most its
 * tangent at any y.  The bound is then linear in r, and the multinomial sums over
 * it in closed form, per block (sum_g e^beta_g)^R_b / R_b!; a whole block
 * of two groups sums by its table, with the pairs among its constants
 * (which lt's split leaves out) exact.
 */
static double
cs_bound(struct cs *s, int i, int64_t left, double z, const double *fy)
{
	const struct cgsum *p = s->p;
	int ng = s->ng, first = i == 0 || p->gb[i] != p->gb[i - 1];
	double c = 0, ub;

	/* group i opens its block: none of it is placed */
	if (first)
		left = p->n[p->gb[i]];

	for (int g = i; g < ng; g++) {
		/* r'lp r/2 at a vertex (each block's constants in one group):
		 * a constant of g meets its block in g and another block in
		 * the group best for g */
		double cv = s->tail[g * ng + i] + (double)left *
		    (p->gb[g] == p->gb[i] ? s->lp[g * ng + g] : s->pm[g * ng + i]);
		s->a[g] = s->pref[(size_t)i * ng + g] - (two(s, g) ? 0 :
		    s->lt[g * ng + g] / 2) + cv / 2;
	}
	if (fy) {
		/* the tangent at a given point */
		memcpy(s->y + i, fy + i, (size_t)(ng - i) * sizeof *s->y);
		cs_lmy(s, i);
	}
	for (int it = fy ? CS_MF : 0; it <= CS_MF; it++) {
		/* beta = a + lm y; then y: each block's constants spread
		 * over its groups by e^beta */
		if (it > 0 && !fy)
			cs_lmy(s, i);
		for (int g = i; g < ng; g++)
			s->beta[g] = s->a[g] + (it > 0 ? s->t[g] : 0);
		if (it == CS_MF)
			break;
		for (int g = i; g < ng;) {
			double m, tot, nb = g == i ? (double)left :
			    (double)p->n[p->gb[g]];
			int e = block_lse(s, g, &m, &tot);
			for (int h = g; h < e; h++)
				s->y[h] = tot == 0 ? 0 : nb * exp(s->beta[h] - m) / tot;
			g = e;
		}
	}
	if (CS_MF == 0 && !fy)
		cs_lmy(s, i);
	for (int g = i; g < ng; g++)
		c -= s->y[g] * s->t[g] / 2;
	ub = z + c;
	for (int g = i; g < ng;) {
		double m, tot, nb = g == i ? (double)left : (double)p->n[p->gb[g]];
		int e = block_lse(s, g, &m, &tot);
		int o = s->beta[e - 1] == -INFINITY ? g : e - 1;
		if (two(s, g) && e - g == 2 && nb > 0 &&
		    s->beta[g] > -INFINITY && s->beta[g + 1] > -INFINITY)
			/* a whole block of two groups, its multinomial in G */
			ub += tab_ub(&s->tb[p->gb[g]], (int64_t)nb, s->beta[g],
			    s->beta[g + 1]);
		else if (two(s, g) && nb > 1)
			/* its constants in one group o (the other forbidden,
			 * or placed): their pairs */
			ub += tot == 0 ? -INFINITY : nb * (m + log(tot)) +
			    nb * (nb - 1) / 2 * s->lt[o * ng + o];
		else if (nb > 0)
			ub += tot == 0 ? -INFINITY : nb * (m + log(tot));
		if (g == i && !first)
			ub -= s->lf[left];
		g = e;
	}
	return ub;
}

static double
cs_thr(const struct cs *s)
{
	double cur = cs_log(s->max, s->acc);

	return (cur > s->lb ? cur : s->lb) - s->drop;
}

/* The term of group i with c constants, given z and the counts before
 * (one: the only group of its block, whose multinomial is 1). */
static double
cs_term(const struct cs *s, int i, int64_t c, double z, int one)
{
	double k = (double)c, lin = s->pref[i * s->ng + i];

	if (one)
		return z + mulc(k, lin) + mulc(k * (k - 1) / 2,
		    s->p->lr[i * s->ng + i]);
	return z - s->lf[c] + mulc(k, lin) +
	    mulc(k * (k - 1) / 2, s->p->lr[i * s->ng + i]);
}

static void cs_rec(struct cs *, int, int64_t, double, int);

/* Child c of group i (left constants of its block to place, z the log
 * of the groups before): its subtree, unless its bound falls below the
 * threshold (prune); in test mode its sum in full, checked against the
 * bound, returned.  single: the subtree is one vector. */
static double
cs_child(struct cs *s, int i, int64_t left, double z, int64_t c, int prune,
    int single)
{
	const struct cgsum *p = s->p;
	int first = i == 0 || p->gb[i] != p->gb[i - 1];
	int last = i + 1 == s->ng || p->gb[i + 1] != p->gb[i];
	double v = cs_term(s, i, c, z, first && last), ub, m0, a0, sub;

	if (v == -INFINITY)
		return v;
	s->cnt[i] = c;
	cs_push(s, i, c);
	s->nodes += single ? 1 : (double)(s->ng - i) * (s->ng - i);
	if (s->nodes > s->budget && prune) {
		s->stop = 1;
		return -INFINITY;
	}
	if (!prune || single) {
		cs_rec(s, i + 1, left - c, v, prune);
		return -INFINITY;
	}
	ub = cs_bound(s, i + 1, left - c, v, NULL);
	if (ub < cs_thr(s))
		cg_bound_drops++;
	if (!s->check) {
		if (ub >= cs_thr(s))
			cs_rec(s, i + 1, left - c, v, prune);
		return -INFINITY;
	}
	/* test mode: every subtree in full, checked against its bound */
	m0 = s->max;
	a0 = s->acc;
	s->max = -INFINITY;
	s->acc = 0;
	cs_rec(s, i + 1, left - c, v, prune);
	sub = cs_log(s->max, s->acc);
	cg_bound_checks++;
	if (sub > ub + 1e-9 * (1 + fabs(ub)))
		cg_bound_violations++;
	cs_add(&m0, &a0, sub);
	s->max = m0;
	s->acc = a0;
	return sub;
}

/*
 * Ranges of counts of the second last group i of a block (the last,
 * i + 1, takes the rest): the terms of the two groups with c and
 * left - c constants are -log c! - log (left - c)! (concave) plus a
 * quadratic in c of coefficient q (below), and the bound on what
 * follows the block, at a fixed tangent point, is convex in c (a
 * log-sum-exp or a chord of a convex function of weights affine in c).
 * So over c in [a, b] the sum is at most (b - a + 1) times e^ of the
 * largest term (the concave part's largest, found by bisection on its
 * differences, plus q b^2 when q > 0) and of the larger end's bound.
 */
static double
range_term(const struct cs *s, int i, int64_t left, double z, int64_t c,
    double q)
{
	int ng = s->ng;
	const double *lr = s->p->lr, *pref = s->pref + (size_t)i * ng;
	double k = (double)c, j = (double)(left - c);

	return z - s->lf[c] - s->lf[left - c] + k * pref[i] +
	    k * (k - 1) / 2 * lr[i * ng + i] + j * (pref[i + 1] +
	    k * lr[(i + 1) * ng + i]) + j * (j - 1) / 2 *
	    lr[(i + 1) * ng + i + 1] - (q > 0 ? q * k * k : 0);
}

static double
range_max(const struct cs *s, int i, int64_t left, double z, int64_t a,
    int64_t b)
{
	const double *lr = s->p->lr;
	int ng = s->ng;
	double q = lr[i * ng + i] / 2 + lr[(i + 1) * ng + i + 1] / 2 -
	    lr[(i + 1) * ng + i];

	double top = q > 0 ? q * (double)b * (double)b : 0;

	/* the first c whose next difference is not positive */
	while (a < b) {
		int64_t m = a + (b - a) / 2;
		if (range_term(s, i, left, z, m + 1, q) >
		    range_term(s, i, left, z, m, q))
			a = m + 1;
		else
			b = m;
	}
	return range_term(s, i, left, z, a, q) + top;
}

/* The bound past the block (e its end) with c constants in i: at the
 * tangent point fy, or (NULL) its own, left in s->y. */
static double
range_rest(struct cs *s, int i, int e, int64_t left, int64_t c,
    const double *fy)
{
	if (e == s->ng)
		return 0;
	cs_push(s, i, c);
	cs_push(s, i + 1, left - c);
	return cs_bound(s, e, 0, 0, fy);
}

/* The bound on the sum over c in [a, b]. */
static double
range_ub(struct cs *s, int i, int64_t left, double z, int64_t a, int64_t b)
{
	int ng = s->ng, e = i + 2;
	double *ya = s->ys, ra, rb;

	ra = range_rest(s, i, e, left, a, NULL);
	if (e < ng)
		memcpy(ya + e, s->y + e, (size_t)(ng - e) * sizeof *ya);
	rb = range_rest(s, i, e, left, b, ya);
	s->nodes += 2.0 * (ng - i) * (ng - i);
	return log((double)(b - a + 1)) + range_max(s, i, left, z, a, b) +
	    (ra > rb ? ra : rb);
}

/* The children a..b of group i by halves, dropping halves whose bound
 * falls below the threshold. */
static void
cs_range(struct cs *s, int i, int64_t left, double z, int64_t a, int64_t b,
    int lvl)
{
	int64_t m = a + (b - a) / 2;

	if (s->stop)
		return;
	if (b - a + 1 < CS_RANGE_MIN || lvl == CS_RANGE_LVL) {
		for (int64_t c = a; c <= b && !s->stop; c++)
			(void)cs_child(s, i, left, z, c, 1, 0);
		return;
	}
	if (s->nodes > s->budget) {
		s->stop = 1;
		return;
	}
	if (range_ub(s, i, left, z, a, b) < cs_thr(s)) {
		cg_bound_drops++;
		return;
	}
	cs_range(s, i, left, z, a, m, lvl + 1);
	cs_range(s, i, left, z, m + 1, b, lvl + 1);
}

/* Test mode: the bounds of the halves cs_range would take against the
 * sums of the children (sub[c], log). */
static void
range_check(struct cs *s, int i, int64_t left, double z, int64_t a,
    int64_t b, int lvl, const double *sub)
{
	double ub, m = -INFINITY, acc = 0, got;

	if (b - a + 1 < CS_RANGE_MIN || lvl == CS_RANGE_LVL)
		return;
	ub = range_ub(s, i, left, z, a, b);
	for (int64_t c = a; c <= b; c++)
		cs_add(&m, &acc, sub[c]);
	got = cs_log(m, acc);
	cg_bound_checks++;
	if (got > ub + 1e-9 * (1 + fabs(ub)))
		cg_bound_violations++;
	range_check(s, i, left, z, a, a + (b - a) / 2, lvl + 1, sub);
	range_check(s, i, left, z, a + (b - a) / 2 + 1, b, lvl + 1, sub);
}

/* Whether the children of group i go by ranges: i second last in its
 * block, the weights of the two groups finite. */
static int
ranged(const struct cs *s, int i)
{
	const struct cgsum *p = s->p;
	const double *lr = p->lr, *pref = s->pref + (size_t)i * s->ng;
	int ng = s->ng;

	return i + 1 < ng && p->gb[i + 1] == p->gb[i] &&
	    (i + 2 == ng || p->gb[i + 2] != p->gb[i]) &&
	    pref[i] > -INFINITY && pref[i + 1] > -INFINITY &&
	    lr[i * ng + i] > -INFINITY && lr[(i + 1) * ng + i + 1] > -INFINITY &&
	    lr[(i + 1) * ng + i] > -INFINITY;
}

/* Adds the completions of groups 0..i-1 to the sum (prune: drop
 * subtrees whose bound falls below the threshold). */
static void
cs_rec(struct cs *s, int i, int64_t left, double z, int prune)
{
	const struct cgsum *p = s->p;
	int first, last, single;
	double *sub;

	if (s->stop)
		return;
	if (i == s->ng) {
		cs_add(&s->max, &s->acc, z);
		if (s->cacc)
			cs_count(s, z);
		return;
	}
	first = i == 0 || p->gb[i] != p->gb[i - 1];
	last = i + 1 == s->ng || p->gb[i + 1] != p->gb[i];
	/* the child's subtree is one vector */
	single = i + 1 == s->ng || (i + 2 == s->ng && !last);
	if (first) {
		left = p->n[p->gb[i]];
		if (!last)
			z += s->lf[left];
	}
	if (prune && !single && ranged(s, i)) {
		if (!s->check) {
			cs_range(s, i, left, z, 0, left, 0);
			s->cnt[i] = 0;
			return;
		}
		if ((sub = xmalloc(((size_t)left + 1) * sizeof *sub))) {
			for (int64_t c = 0; c <= left; c++)
				sub[c] = cs_child(s, i, left, z, c, prune, single);
			range_check(s, i, left, z, 0, left, 0, sub);
			free(sub);
			s->cnt[i] = 0;
			return;
		}
	}
	for (int64_t c = last ? left : 0; c <= left && !s->stop; c++)
		(void)cs_child(s, i, left, z, c, prune, single);
	s->cnt[i] = 0;
}

/* A first large term: down the groups, each count the one whose
 * subtree has the largest bound. */
static double
cs_dive(struct cs *s)
{
	const struct cgsum *p = s->p;
	int64_t left = 0;
	double z = 0;

	for (int i = 0; i < s->ng; i++) {
		int first = i == 0 || p->gb[i] != p->gb[i - 1];
		int last = i + 1 == s->ng || p->gb[i + 1] != p->gb[i];
		double best = -INFINITY, bz = -INFINITY;
		int64_t bc = 0;
		if (first) {
			left = p->n[p->gb[i]];
			if (!last)
				z += s->lf[left];
		}
		for (int64_t c = last ? left : 0; c <= left; c++) {
			double v = cs_term(s, i, c, z, first && last), ub;
			s->cnt[i] = c;
			cs_push(s, i, c);
			ub = v == -INFINITY || i + 1 == s->ng ? v :
			    cs_bound(s, i + 1, left - c, v, NULL);
			if (ub > best) {
				best = ub;
				bc = c;
				bz = v;
			}
		}
		if (bz == -INFINITY) {
			memset(s->cnt, 0, (size_t)s->ng * sizeof *s->cnt);
			return -INFINITY;
		}
		s->cnt[i] = bc;
		cs_push(s, i, bc);
		z = bz;
		left -= bc;
	}
	memset(s->cnt, 0, (size_t)s->ng * sizeof *s->cnt);
	return z;
}

/* log of the sum of p's count vectors (vectors of them) into *out: 0;
 * with a finite budget the sum is pruned, 1 when it gave up past that
 * work; -1 out of memory. */
int
cgsum(const struct cgsum *p, double vectors, double budget, double *out,
    double *nodes)
{
	struct cs s;
	int64_t nmax = 0;
	int ng = p->ng, rc = -1, prune;

	memset(&s, 0, sizeof s);
	s.p = p;
	s.ng = ng;
	s.budget = budget;
	prune = budget < INFINITY || cg_test_mode;
	if (cg_test_mode == 2)
		s.check = 1;
	for (int b = 0; b < p->nb; b++)
		if (p->n[b] > nmax)
			nmax = p->n[b];
	s.lf = xmalloc(((size_t)nmax + 1) * sizeof *s.lf);
	s.lt = xmalloc(((size_t)ng * ng + 1) * sizeof *s.lt);
	s.lp = xmalloc(((size_t)ng * ng + 1) * sizeof *s.lp);
	s.a = xmalloc(((size_t)ng * 4 + 1) * sizeof *s.a);
	s.pref = xmalloc(((size_t)(ng + 1) * ng + 1) * sizeof *s.pref);
	s.pm = xmalloc(((size_t)ng * ng + 1) * sizeof *s.pm);
	s.tail = xmalloc(((size_t)ng * ng + 1) * sizeof *s.tail);
	s.nv = xmalloc(((size_t)ng * ng + 1) * sizeof *s.nv);
	s.cnt = xcalloc((size_t)ng + 1, sizeof *s.cnt);
	s.after = xcalloc((size_t)ng + 1, sizeof *s.after);
	s.tb = xcalloc((size_t)p->nb + 1, sizeof *s.tb);
	s.ys = xmalloc(((size_t)ng + 1) * sizeof *s.ys);
	if ((p->ecnt || p->epair) &&
	    !(s.cacc = xcalloc((size_t)ng + 1, sizeof *s.cacc)))
		goto done;
	if (p->epair &&
	    !(s.pacc = xcalloc((size_t)ng * ng + 1, sizeof *s.pacc)))
		goto done;
	if (!s.lf || !s.lt || !s.lp || !s.a || !s.cnt || !s.after || !s.tb ||
	    !s.ys ||
	    !s.pref || !s.pm || !s.tail || !s.nv)
		goto done;
	for (int g = 0; g < ng; g++)
		s.pref[g] = p->lw[g];
	s.beta = s.a + ng;
	s.y = s.a + 2 * ng;
	s.t = s.a + 3 * ng;
	s.lf[0] = 0;
	for (int64_t c = 1; c <= nmax; c++)
		s.lf[c] = lgamma((double)c + 1);
	for (int g = ng - 1; g >= 0; g--)
		s.after[g] = g + 1 == ng ? 0 : s.after[g + 1] +
		    (p->gb[g + 1] != p->gb[g] ? p->n[p->gb[g + 1]] : 0);
	s.max = -INFINITY;
	s.cmax = -INFINITY;
	s.lb = -INFINITY;
	if (prune) {
		if (cs_split(&s) < 0)
			goto done;
		cs_vertices(&s);
		s.lb = cs_dive(&s);
		s.drop = CS_DROP + log(vectors > 1 ? vectors : 1);
	}
	cs_rec(&s, 0, 0, 0, prune);
	*out = cs_log(s.max, s.acc);
	for (int g = 0; p->ecnt && g < ng; g++)
		p->ecnt[g] = s.ctot > 0 ? s.cacc[g] / s.ctot : 0;
	for (int g = 0; p->epair && g < ng; g++)
		for (int h = g; h < ng; h++)
			p->epair[g * ng + h] = p->epair[h * ng + g] = s.ctot > 0 ?
			    s.pacc[g * ng + h] / s.ctot : 0;
	rc = s.stop;
	*nodes = s.nodes;
done:
	free(s.lf);
	free(s.lt);
	free(s.lp);
	free(s.a);
	free(s.pref);
	free(s.pm);
	free(s.tail);
	free(s.nv);
	free(s.cnt);
	free(s.after);
	for (int b = 0; s.tb && b < p->nb; b++) {
		free(s.tb[b].x);
		free(s.tb[b].f);
	}
	free(s.tb);
	free(s.ys);
	free(s.cacc);
	free(s.pacc);
	return rc;
}
