/* lbg-binom.c: lbg's blocks drawn by the binomial rule: the pivots'
 * count from the exact sum over counts (satellites summed out), which
 * pivots uniformly within each class of equal log-odds, then the
 * satellites given them.  The block's shape is checked once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"

struct pair {
	uint64_t key;          /* pivot indices i < j: i * npiv + j */
	double J;
};

static int
pair_cmp(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;

	return p->key < q->key ? -1 : p->key > q->key;
}

/* A factor's log value with the atoms of x as they are: satellite u (its
 * formulas, u summed out) or formula -u-1. */
static double
factor(const struct gb_model *m, int u, unsigned char *x, int *stack)
{
	double v[2] = { 0, 0 };

	if (u < 0) {
		int f = -u - 1;
		return gb_eval(m, f, x, stack) ? m->g->gf.v[f].weight : 0;
	}
	for (int t = 0; t < 2; t++) {
		x[u] = (unsigned char)t;
		for (int j = m->afirst[u]; j < m->afirst[u + 1]; j++) {
			int f = m->aform[j];
			if (gb_eval(m, f, x, stack))
				v[t] += m->g->gf.v[f].weight;
		}
	}
	return log_add(v[0], v[1]);
}

void
lbg_binom_free(struct lbg_binom *bb)
{
	if (!bb)
		return;
	free(bb->hstat);
	free(bb->dfirst);
	free(bb->dfac);
	free(bb->G);
	free(bb);
}

/* What the check keeps per atom. */
struct bwork {
	int *pidx;             /* pivot index, or -1 */
	int *A;                /* satellite u's pivots: A[2u], A[2u + 1] */
	unsigned char *role;   /* 0 outside, 1 pivot, 2 satellite */
	unsigned char *sout;   /* satellite u meets an outside atom */
	unsigned char *x;
	int *fat, *stack;
	VEC(struct pair) pairs;
};

static void
bwork_free(struct bwork *w)
{
	free(w->pidx);
	free(w->A);
	free(w->role);
	free(w->sout);
	free(w->x);
	free(w->fat);
	free(w->stack);
	free(w->pairs.v);
}

/* The shape: every formula of the cluster soft, with at most one
 * satellite and two pivots; a satellite's formulas hold at most two
 * pivots, and none outside when two; a formula of two pivots and no
 * satellite holds no outside atom.  0 if not. */
static int
shape(const struct gb_model *m, struct bwork *w)
{
	const struct ground *g = m->g;

	for (size_t f = 0; f < g->gf.n; f++) {
		int k = gb_form_atoms(g, (int)f, w->fat), np = 0, ns = 0, no = 0;
		int pv[2] = { -1, -1 }, sv = -1;
		for (int i = 0; i < k; i++) {
			int u = w->fat[i];
			if (w->role[u] == 1) {
				if (np < 2)
					pv[np] = u;
				np++;
			} else if (w->role[u] == 2) {
				sv = u;
				ns++;
			} else
				no++;
		}
		if (np + ns == 0)
			continue;
		if (g->gf.v[f].hard || ns > 1 || np > 2)
			return 0;
		if (ns == 0) {
			if (np == 2 && no > 0)
				return 0;
			continue;
		}
		for (int i = 0; i < np; i++) {
			int *a = w->A + 2 * (size_t)sv;
			if (a[0] == pv[i] || a[1] == pv[i])
				continue;
			if (a[0] < 0)
				a[0] = pv[i];
			else if (a[1] < 0)
				a[1] = pv[i];
			else
				return 0;
		}
		if (no > 0)
			w->sout[sv] = 1;
	}
	for (int u = 0; u < m->n; u++)
		if (w->role[u] == 2 && w->A[2 * (size_t)u + 1] >= 0 && w->sout[u])
			return 0;
	return 1;
}

/* A static factor u of pivots i and j: its share of J (one pair) and of
 * hstat (when hs is not NULL). */
static int
pair_factor(const struct gb_model *m, struct bwork *w, int u, int i, int j,
    int npiv, double *hs)
{
	double phi[2][2];
	struct pair p;
	int pi = w->pidx[i], pj = w->pidx[j];

	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			w->x[i] = (unsigned char)a;
			w->x[j] = (unsigned char)b;
			phi[a][b] = factor(m, u, w->x, w->stack);
		}
	w->x[i] = w->x[j] = 0;
	if (u >= 0)
		w->x[u] = 0;
	if (hs) {
		hs[pi] += phi[1][0] - phi[0][0];
		hs[pj] += phi[0][1] - phi[0][0];
	}
	p.key = pi < pj ? (uint64_t)pi * (uint64_t)npiv + (uint64_t)pj :
	    (uint64_t)pj * (uint64_t)npiv + (uint64_t)pi;
	p.J = phi[1][1] - phi[1][0] - phi[0][1] + phi[0][0];
	return VEC_PUSH(w->pairs, p) < 0 ? -1 : 0;
}

/* The static factors: J per pair, each pair of pivots once or more, the
 * sums alike (to 1e-9).  0 if not; -1: out of memory. */
static int
pairs_alike(const struct gb_model *m, struct bwork *w, int npiv, double *hs,
    double *J)
{
	const struct ground *g = m->g;
	size_t distinct = 0;
	double s0 = 0;

	w->pairs.n = 0;
	for (int u = 0; u < m->n; u++)
		if (w->role[u] == 2 && w->A[2 * (size_t)u + 1] >= 0 &&
		    pair_factor(m, w, u, w->A[2 * (size_t)u],
		    w->A[2 * (size_t)u + 1], npiv, hs) < 0)
			return -1;
	for (size_t f = 0; f < g->gf.n; f++) {
		int k = gb_form_atoms(g, (int)f, w->fat), np = 0, ns = 0;
		int pv[2] = { -1, -1 };
		for (int i = 0; i < k; i++)
			if (w->role[w->fat[i]] == 1) {
				if (np < 2)
					pv[np] = w->fat[i];
				np++;
			} else if (w->role[w->fat[i]] == 2)
				ns++;
		if (ns == 0 && np == 2 &&
		    pair_factor(m, w, -(int)f - 1, pv[0], pv[1], npiv, hs) < 0)
			return -1;
	}
	*J = 0;
	if (w->pairs.n == 0)
		return 1;
	qsort(w->pairs.v, w->pairs.n, sizeof *w->pairs.v, pair_cmp);
	for (size_t i = 0; i < w->pairs.n; ) {
		double s = 0;
		size_t j = i;
		for (; j < w->pairs.n && w->pairs.v[j].key == w->pairs.v[i].key; j++)
			s += w->pairs.v[j].J;
		if (distinct++ == 0)
			s0 = s;
		else if (!(fabs(s - s0) <= 1e-9 * (1 + fabs(s0))))
			return 0;
		i = j;
	}
	if (distinct != (size_t)npiv * (size_t)(npiv - 1) / 2)
		return 0;
	*J = s0;
	return 1;
}

/* The factors of one pivot, per pivot (counting sort). */
static int
dynamic(const struct gb_model *m, struct bwork *w, struct lbg_binom *bb)
{
	const struct ground *g = m->g;
	int npiv = bb->npiv;

	if (!(bb->dfirst = xcalloc((size_t)npiv + 2, sizeof *bb->dfirst)))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (int i = 0; i < npiv; i++)
				bb->dfirst[i + 2] += bb->dfirst[i + 1];
			if (!(bb->dfac = xcalloc((size_t)bb->dfirst[npiv + 1] + 1,
			    sizeof *bb->dfac)))
				return -1;
		}
		for (int u = 0; u < m->n; u++)
			if (w->role[u] == 2 && w->A[2 * (size_t)u] >= 0 &&
			    w->A[2 * (size_t)u + 1] < 0) {
				int i = w->pidx[w->A[2 * (size_t)u]];
				if (pass == 0)
					bb->dfirst[i + 2]++;
				else
					bb->dfac[bb->dfirst[i + 1]++] = u;
			}
		for (size_t f = 0; f < g->gf.n; f++) {
			int k = gb_form_atoms(g, (int)f, w->fat), np = 0, ns = 0,
			    pv = -1;
			for (int i = 0; i < k; i++)
				if (w->role[w->fat[i]] == 1) {
					pv = w->fat[i];
					np++;
				} else if (w->role[w->fat[i]] == 2)
					ns++;
			if (ns != 0 || np != 1)
				continue;
			if (pass == 0)
				bb->dfirst[w->pidx[pv] + 2]++;
			else
				bb->dfac[bb->dfirst[w->pidx[pv] + 1]++] = -(int)f - 1;
		}
	}
	return 0;
}

int
lbg_binom_check(const struct gb_model *m, const int *pred, const int *cl,
    int a, int b, int piv, double *J, double *cost, struct lbg_binom **out)
{
	struct bwork w = { 0 };
	struct lbg_binom *bb = NULL;
	size_t n = (size_t)m->n + 1;
	int npiv = 0, rc = -1;
	double inc = 0;

	if (out)
		*out = NULL;
	w.pidx = xcalloc(n, sizeof *w.pidx);
	w.A = xcalloc(2 * n, sizeof *w.A);
	w.role = xcalloc(n, 1);
	w.sout = xcalloc(n, 1);
	w.x = xcalloc(n, 1);
	w.fat = xcalloc((size_t)m->maxlen + 1, sizeof *w.fat);
	w.stack = xcalloc((size_t)m->maxlen + 1, sizeof *w.stack);
	if (!w.pidx || !w.A || !w.role || !w.sout || !w.x || !w.fat || !w.stack)
		goto done;
	for (int u = 0; u < m->n; u++) {
		int c = cl[pred[u]];
		w.pidx[u] = w.A[2 * u] = w.A[2 * u + 1] = -1;
		if (c != a && c != b)
			continue;
		w.role[u] = pred[u] == piv ? 1 : 2;
		if (w.role[u] == 1)
			w.pidx[u] = npiv++;
		inc += m->afirst[u + 1] - m->afirst[u];
	}
	rc = 0;
	if (npiv == 0 || npiv > LBG_PIVOT_MAX || !shape(m, &w))
		goto done;
	if (out && (!(bb = xcalloc(1, sizeof *bb)) ||
	    !(bb->hstat = xcalloc((size_t)npiv + 1, sizeof *bb->hstat)))) {
		rc = -1;
		goto done;
	}
	if ((rc = pairs_alike(m, &w, npiv, bb ? bb->hstat : NULL, J)) != 1)
		goto done;
	/* the factors twice over (h, then the satellites' draw), the
	 * table of counts */
	*cost = 6 * inc + (double)npiv * npiv;
	if (bb) {
		bb->npiv = npiv;
		bb->J = *J;
		for (int u = 0; u < m->n; u++)
			bb->nsat += w.role[u] == 2;
		if (dynamic(m, &w, bb) < 0) {
			rc = -1;
			goto done;
		}
		*out = bb;
		bb = NULL;
	}
done:
	lbg_binom_free(bb);
	bwork_free(&w);
	return rc;
}

/* A pivot's formula of no satellite (pivot index i, formula f). */
struct pform {
	int i, f;
	int alone;             /* it holds no other atom: a fixed field */
};

/* What lbg_binom_group finds: per satellite j (a[npiv + j]) the one
 * pivot it meets (index), or -1; per pivot, while a satellite is read,
 * the log weight a true pivot adds at each value of it; the full
 * satellites' weight per count; the pivots' formulas of no satellite. */
struct gwork {
	int *sone, *stamp;
	double *dv;
	double *G;             /* npiv + 1 */
	double *hs;            /* per pivot: its formulas of it alone */
	VEC(struct pform) pf;
};

static void
gwork_free(struct gwork *w)
{
	free(w->sone);
	free(w->stamp);
	free(w->dv);
	free(w->G);
	free(w->hs);
	free(w->pf.v);
}

/* Satellite s's formulas against the pivots (a group's roles in gs):
 * into w->dv per pivot met what a true one adds at each value of s, into
 * A[v] the weight of those that hold with every pivot false; returns the
 * pivots met, *p0 the first, *pout whether a formula of s holds an atom
 * outside the group (its weights then move with the rest). */
static int
sat_meets(const struct gb_model *m, int s, int si, struct lbg_gscratch *gs,
    int *stack, struct gwork *w, int *p0, int *pout, double A[2])
{
	const struct ground *g = m->g;
	int met = 0;

	*p0 = -1;
	*pout = 0;
	A[0] = A[1] = 0;
	for (int j = m->afirst[s]; j < m->afirst[s + 1]; j++) {
		int f = m->aform[j], n = gb_form_atoms(g, f, gs->fat), pv = -1;
		int pi;
		for (int q = 0; q < n; q++)
			if (gs->role[gs->fat[q]] == 1)
				pv = gs->fat[q];
			else if (gs->fat[q] != s)
				*pout = 1;
		for (int v = 0; v < 2; v++) {
			gs->x[s] = (unsigned char)v;
			A[v] += factor(m, -f - 1, gs->x, stack);
		}
		gs->x[s] = 0;
		if (pv < 0)
			continue;
		pi = gs->pidx[pv];
		if (w->stamp[pi] != si) {
			w->stamp[pi] = si;
			w->dv[2 * pi] = w->dv[2 * pi + 1] = 0;
			if (met++ == 0)
				*p0 = pi;
		}
		for (int v = 0; v < 2; v++) {
			gs->x[s] = (unsigned char)v;
			gs->x[pv] = 1;
			w->dv[2 * pi + v] += factor(m, -f - 1, gs->x, stack);
			gs->x[pv] = 0;
			w->dv[2 * pi + v] -= factor(m, -f - 1, gs->x, stack);
		}
		gs->x[s] = 0;
	}
	return met;
}

/* The block of lbg_binom_group, from what it found. */
static int
group_block(const int *a, int npiv, int k, struct gwork *w, int nfull,
    struct lbg_binom **out)
{
	struct lbg_binom *bb = xcalloc(1, sizeof *bb);
	int nd = 0;

	if (!bb)
		return -1;
	bb->npiv = npiv;
	bb->nsat = k - npiv;
	bb->hstat = xcalloc((size_t)npiv + 1, sizeof *bb->hstat);
	bb->dfirst = xcalloc((size_t)npiv + 2, sizeof *bb->dfirst);
	for (int j = 0; j < k - npiv; j++)
		nd += w->sone[j] >= 0;
	bb->dfac = xcalloc((size_t)nd + w->pf.n + 1, sizeof *bb->dfac);
	if (!bb->hstat || !bb->dfirst || !bb->dfac) {
		lbg_binom_free(bb);
		return -1;
	}
	/* per pivot its factors, by a counting sort: satellites, formulas */
	for (int j = 0; j < k - npiv; j++)
		if (w->sone[j] >= 0)
			bb->dfirst[w->sone[j] + 2]++;
	for (size_t q = 0; q < w->pf.n; q++)
		bb->dfirst[w->pf.v[q].i + 2] += !w->pf.v[q].alone;
	for (int i = 0; i < npiv; i++)
		bb->dfirst[i + 2] += bb->dfirst[i + 1];
	for (int j = 0; j < k - npiv; j++)
		if (w->sone[j] >= 0)
			bb->dfac[bb->dfirst[w->sone[j] + 1]++] = a[npiv + j];
	for (size_t q = 0; q < w->pf.n; q++)
		if (!w->pf.v[q].alone)
			bb->dfac[bb->dfirst[w->pf.v[q].i + 1]++] =
			    -w->pf.v[q].f - 1;
	memcpy(bb->hstat, w->hs, (size_t)npiv * sizeof *bb->hstat);
	if (nfull) {
		bb->G = w->G;
		w->G = NULL;
	}
	*out = bb;
	return 0;
}

/* The formulas of the group's atoms, each once (from its first atom of
 * the group): 0 if one is hard or holds two pivots or two satellites;
 * a pivot's formulas of no satellite into w->pf; -1: out of memory. */
static int
group_forms(const struct gb_model *m, const int *a, int k,
    struct lbg_gscratch *gs, struct gwork *w, double *inc)
{
	const struct ground *g = m->g;

	for (int i = 0; i < k; i++) {
		int u = a[i];
		*inc += m->afirst[u + 1] - m->afirst[u];
		for (int j = m->afirst[u]; j < m->afirst[u + 1]; j++) {
			int f = m->aform[j], n = gb_form_atoms(g, f, gs->fat);
			int np = 0, ns = 0, first = -1, pv = -1;
			for (int q = 0; q < n; q++) {
				int v = gs->fat[q];
				if (!gs->role[v])
					continue;
				if (first < 0)
					first = v;
				if (gs->role[v] == 1) {
					np++;
					pv = v;
				} else
					ns++;
			}
			if (first != u)
				continue;
			if (g->gf.v[f].hard || np > 1 || ns > 1)
				return 0;
			if (np == 1 && ns == 0 && VEC_PUSH(w->pf,
			    ((struct pform){ gs->pidx[pv], f, n == np })) < 0)
				return -1;
		}
	}
	return 1;
}

int
lbg_binom_group(const struct gb_model *m, const int *pred, int *a, int k,
    int piv, struct lbg_gscratch *gs, double *cost, struct lbg_binom **out)
{
	struct gwork w = { 0 };
	int npiv = 0, nfull = 0, rc = 0, *tmp, *stack;
	double inc = 0;

	if (out)
		*out = NULL;
	for (int i = 0; i < k; i++)
		npiv += pred[a[i]] == piv;
	if (npiv == 0 || npiv == k || npiv > LBG_PIVOT_MAX)
		return 0;
	tmp = xcalloc((size_t)k + 1, sizeof *tmp);
	stack = xcalloc((size_t)m->maxlen + 1, sizeof *stack);
	w.sone = xcalloc((size_t)(k - npiv) + 1, sizeof *w.sone);
	w.stamp = xcalloc((size_t)npiv + 1, sizeof *w.stamp);
	w.dv = xcalloc(2 * (size_t)npiv + 1, sizeof *w.dv);
	w.G = xcalloc((size_t)npiv + 1, sizeof *w.G);
	w.hs = xcalloc((size_t)npiv + 1, sizeof *w.hs);
	if (!tmp || !stack || !w.sone || !w.stamp || !w.dv || !w.G || !w.hs) {
		rc = -1;
		goto done;
	}
	/* pivots first, each kind in a[]'s order */
	for (int i = 0, p = 0, q = npiv; i < k; i++)
		tmp[pred[a[i]] == piv ? p++ : q++] = a[i];
	memcpy(a, tmp, (size_t)k * sizeof *a);
	for (int i = 0; i < k; i++) {
		gs->role[a[i]] = i < npiv ? 1 : 2;
		if (i < npiv)
			gs->pidx[a[i]] = i;
	}
	for (int i = 0; i < npiv; i++)
		w.stamp[i] = -1;
	if ((rc = group_forms(m, a, k, gs, &w, &inc)) != 1)
		goto done;
	rc = 0;
	/* per pivot its formulas of no satellite that hold outside atoms
	 * (counted in stamp) */
	for (size_t q = 0; q < w.pf.n; q++)
		if (!w.pf.v[q].alone &&
		    ++w.stamp[w.pf.v[q].i] >= LBG_PIVOT_FORMS)
			goto done;
	for (int i = 0; i < npiv; i++)
		w.stamp[i] = -1;
	for (size_t q = 0; q < w.pf.n; q++) {
		const struct pform *pf = &w.pf.v[q];
		int u = a[pf->i];
		if (!pf->alone)
			continue;
		gs->x[u] = 1;
		w.hs[pf->i] += factor(m, -pf->f - 1, gs->x, stack);
		gs->x[u] = 0;
		w.hs[pf->i] -= factor(m, -pf->f - 1, gs->x, stack);
	}
	for (int j = 0; j < k - npiv; j++) {
		double A[2];
		int p0, pout, met = sat_meets(m, a[npiv + j], j, gs, stack, &w,
		    &p0, &pout, A);
		w.sone[j] = met == 1 ? p0 : -1;
		if (met <= 1)
			continue;
		if (met < npiv || pout)
			goto done;
		for (int i = 0; i < npiv; i++)
			for (int v = 0; v < 2; v++)
				if (!(fabs(w.dv[2 * i + v] - w.dv[2 * p0 + v]) <=
				    1e-9 * (1 + fabs(w.dv[2 * p0 + v]))))
					goto done;
		for (int K = 0; K <= npiv; K++)
			w.G[K] += log_add(A[0] + K * w.dv[2 * p0],
			    A[1] + K * w.dv[2 * p0 + 1]);
		nfull++;
	}
	/* the factors twice over and the table of counts (G is fixed) */
	*cost = 6 * inc + (double)npiv * npiv;
	rc = 1;
	if (out && group_block(a, npiv, k, &w, nfull, out) < 0)
		rc = -1;
done:
	for (int i = 0; i < k; i++) {
		gs->role[a[i]] = 0;
		gs->pidx[a[i]] = -1;
	}
	gwork_free(&w);
	free(tmp);
	free(stack);
	return rc;
}

/* log C(n, k) for k = 0..n into lc. */
static void
lchoose_row(int n, double *lc)
{
	lc[0] = 0;
	for (int k = 1; k <= n; k++)
		lc[k] = lc[k - 1] + log((double)(n - k + 1) / k);
}

/* A draw from weights exp(lw[lo..hi]); returns the index. */
static int
draw_log(const double *lw, int lo, int hi, struct eng_rng *r)
{
	double max = -INFINITY, tot = 0, u;

	for (int k = lo; k <= hi; k++)
		if (lw[k] > max)
			max = lw[k];
	for (int k = lo; k <= hi; k++)
		tot += exp(lw[k] - max);
	u = eng_rng_unit(r) * tot;
	for (int k = lo; k <= hi; k++) {
		double e = exp(lw[k] - max);
		if (u < e)
			return k;
		u -= e;
	}
	for (int k = hi; k >= lo; k--)  /* u past the total by rounding */
		if (lw[k] > -INFINITY)
			return k;
	return lo;
}

/* The pivots' classes: equal h (as bits, the first LBG_CLASSES kinds),
 * the others a class each; returns their number, with members in
 * s->memb from s->cstart[c], s->ccount[c] of them, h in s->cp[c]. */
static int
classes(const int *piv, int N, struct gb_scratch *s)
{
	int nc = 0, pos = 0, named = 0;

	for (int i = 0; i < 2 * LBG_CLASSES; i++)
		s->cslot[i] = -1;
	for (int i = 0; i < N; i++) {
		uint64_t key;
		unsigned q;
		memcpy(&key, &s->h[i], sizeof key);
		q = (unsigned)((key * 0x9e3779b97f4a7c15ULL) >> 54) %
		    (2 * LBG_CLASSES);
		while (s->cslot[q] >= 0 && s->ckey[s->cslot[q]] != key)
			q = (q + 1) % (2 * LBG_CLASSES);
		if (s->cslot[q] < 0 && named < LBG_CLASSES) {
			s->cslot[q] = nc;
			named++;
			s->ckey[nc] = key;
			s->cp[nc] = s->h[i];
			s->ccount[nc++] = 0;
		}
		if (s->cslot[q] >= 0)
			s->cid[i] = s->cslot[q];
		else {
			s->cid[i] = nc;
			s->cp[nc] = s->h[i];
			s->ccount[nc++] = 0;
		}
		s->ccount[s->cid[i]]++;
	}
	for (int c = 0; c < nc; c++) {
		s->cstart[c] = pos;
		pos += s->ccount[c];
		s->ccount[c] = 0;
	}
	for (int i = 0; i < N; i++) {
		int c = s->cid[i];
		s->memb[s->cstart[c] + s->ccount[c]++] = piv[i];
	}
	return nc;
}

/* dst = src times (1 + e^hc x)^nk, in log space (src's terms above tot
 * are -inf); lc is scratch for log C(nk, k). */
static void
mul_class(const double *src, double *dst, int N, int nk, double hc, int tot,
    double *lc)
{
	lchoose_row(nk, lc);
	for (int K = 0; K <= N; K++) {
		double max = -INFINITY, sum = 0;
		int lo = K - tot > 0 ? K - tot : 0, hi = nk < K ? nk : K;
		for (int k = lo; k <= hi; k++) {
			double v = src[K - k] + lc[k] + k * hc;
			if (v > max)
				max = v;
		}
		if (max == -INFINITY) {
			dst[K] = -INFINITY;
			continue;
		}
		for (int k = lo; k <= hi; k++)
			sum += exp(src[K - k] + lc[k] + k * hc - max);
		dst[K] = max + log(sum);
	}
}

/* Every pivot's P(true | rest) into cur: per class c, E[k_c] / n_c, with
 * E[k_c | K] from the other classes' product (prefix F row c times the
 * suffix from c + 1: O(N^2) per class) and P(K) from lw.  Only for at
 * most LBG_RB_CLASSES classes. */
static void
rb_pivots(int N, int nc, const double *F, const double *lw,
    struct gb_scratch *s, double *cur)
{
	size_t W = (size_t)N + 1;
	double *B = s->dq, *G = s->dg, *pk = s->pk, *lc = s->dl, max = -INFINITY,
	    tot = 0;
	int after = 0;

	for (int K = 0; K <= N; K++)
		if (lw[K] > max)
			max = lw[K];
	for (int K = 0; K <= N; K++)
		tot += pk[K] = exp(lw[K] - max);
	B[(size_t)nc * W] = 0;
	for (size_t k = 1; k < W; k++)
		B[(size_t)nc * W + k] = -INFINITY;
	for (int c = nc - 1; c > 0; c--) {
		mul_class(B + (size_t)(c + 1) * W, B + (size_t)c * W, N,
		    s->ccount[c], s->cp[c], after, lc);
		after += s->ccount[c];
	}
	for (int c = 0; c < nc; c++) {
		const double *Fc = F + (size_t)c * W, *Bc = B + (size_t)(c + 1) * W;
		int nk = s->ccount[c];
		double e = 0;
		for (int M = 0; M <= N; M++) {
			double m2 = -INFINITY, sum = 0;
			for (int a = 0; a <= M; a++)
				if (Fc[a] + Bc[M - a] > m2)
					m2 = Fc[a] + Bc[M - a];
			if (m2 > -INFINITY)
				for (int a = 0; a <= M; a++)
					sum += exp(Fc[a] + Bc[M - a] - m2);
			G[M] = m2 == -INFINITY ? m2 : m2 + log(sum);
		}
		lchoose_row(nk, lc);
		for (int K = 0; K <= N; K++) {
			double m2 = -INFINITY, sw = 0, skw = 0;
			int lo = K - (N - nk) > 0 ? K - (N - nk) : 0;
			int hi = nk < K ? nk : K;
			if (pk[K] == 0)
				continue;
			for (int k = lo; k <= hi; k++)
				if (G[K - k] + lc[k] + k * s->cp[c] > m2)
					m2 = G[K - k] + lc[k] + k * s->cp[c];
			for (int k = lo; k <= hi && m2 > -INFINITY; k++) {
				double w = exp(G[K - k] + lc[k] + k * s->cp[c] - m2);
				sw += w;
				skw += k * w;
			}
			if (sw > 0)
				e += pk[K] / tot * skw / sw;
		}
		for (int j = 0; j < nk; j++)
			cur[s->memb[s->cstart[c] + j]] = e / nk;
	}
}

void
lbg_binom_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r)
{
	const struct lbg_binom *bb = m->bin[b];
	const int *piv = m->batom + m->bfirst[b];
	int N = bb->npiv, nc, tot = 0, K;
	double *F = s->dp, *lc = s->dw;
	size_t W = (size_t)N + 1;

	/* h: the static part and the factors of one pivot, given x */
	for (int i = 0; i < N; i++) {
		double h = bb->hstat[i];
		for (int j = bb->dfirst[i]; j < bb->dfirst[i + 1]; j++) {
			int u = bb->dfac[j];
			x[piv[i]] = 1;
			h += factor(m, u, x, s->stack);
			x[piv[i]] = 0;
			h -= factor(m, u, x, s->stack);
		}
		s->h[i] = h;
	}
	nc = classes(piv, N, s);
	/* F row c: log of [x^K] prod_{c' < c} (1 + e^h_c' x)^n_c' */
	F[0] = 0;
	for (size_t k = 1; k < W; k++)
		F[k] = -INFINITY;
	for (int c = 0; c < nc; c++) {
		mul_class(F + (size_t)c * W, F + (size_t)(c + 1) * W, N,
		    s->ccount[c], s->cp[c], tot, lc);
		tot += s->ccount[c];
	}
	/* the count of true pivots, then per class backwards its share */
	for (int k = 0; k <= N; k++)
		lc[k] = F[(size_t)nc * W + (size_t)k] + bb->J * k * (k - 1) / 2.0;
	for (int k = 0; bb->G && k <= N; k++)
		lc[k] += bb->G[k];
	K = draw_log(lc, 0, N, r);
	if (nc <= LBG_RB_CLASSES)
		rb_pivots(N, nc, F, lc, s, cur);
	for (int c = nc - 1; c >= 0; c--) {
		const double *src = F + (size_t)c * W;
		int nk = s->ccount[c], *v = s->memb + s->cstart[c], t, few;
		int lo, hi;
		tot -= nk;
		lo = K - tot > 0 ? K - tot : 0;
		hi = nk < K ? nk : K;
		lchoose_row(nk, lc);
		for (int k = lo; k <= hi; k++)
			lc[k] += src[K - k] + k * s->cp[c];
		t = draw_log(lc, lo, hi, r);
		K -= t;
		few = t <= nk - t ? t : nk - t;
		for (int j = 0; j < few; j++) {
			int o = j + (int)(eng_rng_unit(r) * (nk - j)), tmp = v[j];
			v[j] = v[o];
			v[o] = tmp;
		}
		for (int j = 0; j < nk; j++) {
			x[v[j]] = (unsigned char)((j < few) == (t <= nk - t));
			if (nc > LBG_RB_CLASSES)
				cur[v[j]] = (double)t / nk;
		}
	}
	lbg_draw_indep(m, piv + N, bb->nsat, x, cur, s, r);
}
