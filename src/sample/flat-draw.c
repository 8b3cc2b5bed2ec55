/* flat-draw.c: drawing a flat ground part: the pilot Gibbs run, the
 * look-ahead target, sequential draws and particles (SMC). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-int.h"

static double gpart_seq(struct eng *g, struct gpart *gp);

static int gpart_look_init(struct gpart *gp);

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One pilot chain from start 0 (each atom drawn from gpart_q1), 1 (all
 * false) or 2 (all true): its marginals into pm. */
static void
gpart_chain(struct eng *g, struct gpart *gp, int start, int *auxs,
    int *save, double *pm)
{
	for (int c = 0; c < gp->ncls; c++) {
		gp->m[c] = 0.5;
		pm[c] = 0;
	}
	for (int c = 0; c < gp->ncls; c++)
		if (gp->real[c])
			gp->x[c] = start == 0 ?
			    eng_rng_unit(g->smp->rng) < gpart_q1(gp, c) : start == 2;
	/* every atom but the auxiliary ones is drawn in the pilot: summing
	 * out an atom of many clauses costs all of them per neighbour */
	for (int c = 0; c < gp->ncls; c++)
		if (gp->real[c]) {
			save[c] = gp->aux[c];
			gp->aux[c] = -1;
		}
	for (int sw = 0; sw < PILOT_SWEEPS; sw++)
		for (int c = 0; c < gp->ncls; c++) {
			double p;
			if (gp->aux[c] >= 0)
				continue;
			p = 1 / (1 + exp(-gpart_logodds(gp, c, auxs)));
			gp->x[c] = eng_rng_unit(g->smp->rng) < p;
			if (sw >= PILOT_BURN)
				pm[c] += p / (PILOT_SWEEPS - PILOT_BURN);
		}
	for (int c = 0; c < gp->ncls; c++) {
		if (gp->real[c])
			gp->aux[c] = save[c];
		pm[c] = !gp->real[c] ? 0.5 : pm[c] < 0.01 ? 0.01 :
		    pm[c] > 0.99 ? 0.99 : pm[c];
	}
}

/* The pilot: three chains, from gpart_q1's draws, all false and all
 * true, and of their marginals the ones whose look-ahead proposal gives
 * the largest median log weight over PILOT_TRIALS sequences, the first
 * chain's unless another's is larger by PILOT_MARGIN.  One chain stays
 * in the mode it starts near; the mode with the larger Z gives the
 * larger weights.  The median and the margin keep a proposal that drew
 * one lucky weight from winning (docs/internals/lis.md, "Flat parts").
 * A part that draws fewer than
 * PILOT_STARTS_MIN atoms has one chain: there the other two and the
 * trials cost more than the samples.  The trials are dropped and the
 * proposal is fixed afterwards, so the weights stay unbiased.  Sets
 * gp->pm and the look-ahead state for it. */
static int
gpart_pilot(struct eng *g, struct gpart *gp)
{
	size_t n = (size_t)gp->ncls + 1;
	int *auxs = xmalloc(((size_t)gp->naux + 1) * sizeof *auxs);
	int *save = xmalloc(n * sizeof *save), best = -1, rc = -1;
	int starts = gp->ndraw >= PILOT_STARTS_MIN ? 3 : 1;
	double *cand = xmalloc((size_t)starts * n * sizeof *cand), bz = -INFINITY;

	if (!auxs || !save || !cand ||
	    !(gp->pm = xcalloc(n, sizeof *gp->pm)))
		goto done;
	for (int s = 0; s < starts; s++) {
		double lw[PILOT_TRIALS], z;
		gpart_chain(g, gp, s, auxs, save, cand + (size_t)s * n);
		if (starts == 1) {
			best = 0;
			break;
		}
		memcpy(gp->m, cand + (size_t)s * n, n * sizeof *gp->m);
		if (gpart_look_init(gp) < 0)
			goto done;
		for (int t = 0; t < PILOT_TRIALS; t++)
			lw[t] = gpart_seq(g, gp);
		qsort(lw, PILOT_TRIALS, sizeof *lw, dbl_cmp);
		z = (lw[PILOT_TRIALS / 2 - 1] + lw[PILOT_TRIALS / 2]) / 2;
		if (best < 0 || z > bz + PILOT_MARGIN) {
			best = s;
			bz = z;
		}
	}
	memcpy(gp->pm, cand + (size_t)best * n, n * sizeof *gp->pm);
	memcpy(gp->m, gp->pm, n * sizeof *gp->m);
	rc = gpart_look_init(gp);
done:
	free(auxs);
	free(save);
	free(cand);
	return rc;
}

/* --- the look-ahead target ---------------------------------------------
 *
 * With atoms 0 .. c-1 drawn (in class order), the look-ahead target is
 * the part's weight with the atoms not yet drawn taken as independent
 * with their marginals m: a clause of weight w counts e^w if its drawn
 * atoms satisfy it, else u + (1 - u) e^w, u the chance that its atoms
 * not yet drawn leave it false; a summed-out atom a counts
 * log(e^E[2a] + e^E[2a+1]), E[2a+v] the sum of its clauses' logs with
 * a = v.  Before any draw it is a guess at log Z; after the last it is
 * the part's weight.  Drawing atom c with chance proportional to the
 * target with c at each value is the sequential proposal, and the
 * target's ratio from one atom to the next is a particle's incremental
 * weight (gpart_smc).  Summed-out atoms count with what is drawn of
 * their clauses at every step, not only after their last clause: else
 * the particles have nothing to go by until then (docs/internals/lis.md,
 * "Flat parts"). */

/* log(e^a + e^b), b's share dropped when it is below e^-40 of a's
 * (below a double's precision): most summed-out atoms are all but
 * certain, and this is the look-ahead's inner loop. */
static inline double
look_add(double a, double b)
{
	double d = b - a;

	if (d < -40 || b == -INFINITY)
		return a;
	if (d > 40 || a == -INFINITY)
		return b;
	return d < 0 ? a + log1p(exp(d)) : b + log1p(exp(-d));
}

/* The log count of clause i, not satisfied by its drawn atoms, when
 * pu is the chance that its atoms not yet drawn leave it false. */
static double
gpart_unsat(const struct gpart *gp, int i, double pu)
{
	return gp->hard[i] ? log1p(-pu) : log(pu + (1 - pu) * gp->ew[i]);
}

/* The log of clause i's count in the look-ahead target before (v < 0)
 * or after class c is drawn as v, its summed-out atom (if any) at sv. */
static double
gpart_phi(const struct gpart *gp, const char *x, int i, int c, int v,
    int sv)
{
	double pu = 1;

	for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
		int d = gp->lit[k] >> 1, neg = gp->lit[k] & 1, val;
		if (gp->aux[d] >= 0)
			val = sv;
		else if (d == c && v >= 0)
			val = v;
		else if (d < c)
			val = x[d];
		else {
			pu *= neg ? gp->m[d] : 1 - gp->m[d];
			continue;
		}
		if (val != neg)
			return gp->hard[i] ? 0 : gp->w[i];
	}
	return gpart_unsat(gp, i, pu);
}

/* The look-ahead state before any draw for the marginals m: E (2 per
 * summed-out atom) and the target's log, kept in gp->E0 and gp->g0. */
static int
gpart_look_init(struct gpart *gp)
{
	size_t na = 2 * ((size_t)gp->naux + 1);
	int nl = gp->ofirst[gp->ncls];

	if (!gp->E0 && (!(gp->E0 = xmalloc(na * sizeof *gp->E0)) ||
	    !(gp->E = xmalloc(na * sizeof *gp->E)) ||
	    !(gp->tde = xmalloc(2 * na * sizeof *gp->tde)) ||
	    !(gp->tlist = xmalloc(na * sizeof *gp->tlist)) ||
	    !(gp->tmark = xmalloc(na * sizeof *gp->tmark)) ||
	    !(gp->ob = xmalloc(((size_t)nl + 1) * sizeof *gp->ob)) ||
	    !(gp->oa = xmalloc(((size_t)nl + 1) * sizeof *gp->oa)) ||
	    !(gp->osg = xmalloc((size_t)nl + 1))))
		return -1;
	for (int c = 0; c < gp->ncls; c++)
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
			int i = gp->olist[j];
			double pb = 1, pa = 1;
			gp->osg[j] = -1;
			for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
				int d = gp->lit[k] >> 1, neg = gp->lit[k] & 1;
				double f = neg ? gp->m[d] : 1 - gp->m[d];
				if (gp->aux[d] >= 0 || d < c)
					continue;
				pb *= f;
				if (d > c)
					pa *= f;
				else
					gp->osg[j] = gp->osg[j] < 0 ||
					    gp->osg[j] == neg ? (signed char)neg : 2;
			}
			gp->ob[j] = gpart_unsat(gp, i, pb);
			gp->oa[j] = gpart_unsat(gp, i, pa);
		}
	gp->g0 = 0;
	for (int a = 0; a < gp->naux; a++) {
		gp->E0[2 * a] = gp->E0[2 * a + 1] = 0;
		gp->tmark[a] = -1;
	}
	for (int i = 0; i < gp->nclauses; i++) {
		int a = gp->csum[i];
		if (a < 0)
			gp->g0 += gpart_phi(gp, gp->x, i, -1, -1, 0);
		else
			for (int sv = 0; sv < 2; sv++)
				gp->E0[2 * a + sv] += gpart_phi(gp, gp->x, i,
				    -1, -1, sv);
	}
	for (int a = 0; a < gp->naux; a++)
		gp->g0 += look_add(gp->E0[2 * a], gp->E0[2 * a + 1]);
	return 0;
}

/* dl[v]: what drawing class c as v adds to the look-ahead target's log,
 * given x and E; what it would add to E is left in gp->tde for
 * gpart_look_set. */
static void
gpart_look(struct gpart *gp, const char *x, const double *E, int c,
    double dl[2])
{
	int nt = 0;

	dl[0] = dl[1] = 0;
	for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
		int i = gp->olist[j], a = gp->csum[i], t, sat = 0;
		double d[2];
		for (int k = gp->first[i]; k < gp->first[i + 1] && !sat; k++) {
			int e = gp->lit[k] >> 1;
			sat = e < c && gp->aux[e] < 0 && x[e] != (gp->lit[k] & 1);
		}
		if (sat)
			continue;  /* satisfied before and after */
		for (int v = 0; v < 2; v++)
			d[v] = (gp->osg[j] == 2 || v != gp->osg[j] ?
			    (gp->hard[i] ? 0 : gp->w[i]) : gp->oa[j]) - gp->ob[j];
		if (a < 0) {
			dl[0] += d[0];
			dl[1] += d[1];
			continue;
		}
		if ((t = gp->tmark[a]) < 0) {
			t = gp->tmark[a] = nt;
			gp->tlist[nt++] = a;
			for (int u = 0; u < 4; u++)
				gp->tde[4 * t + u] = 0;
		}
		for (int sv = 0; sv < 2; sv++)
			if (gp->csn[i] != 2 && sv == gp->csn[i])
				for (int v = 0; v < 2; v++)
					gp->tde[4 * t + 2 * v + sv] += d[v];
	}
	gp->nt = nt;
	for (int t = 0; t < nt; t++) {
		int a = gp->tlist[t];
		double s = look_add(E[2 * a], E[2 * a + 1]);
		gp->tmark[a] = -1;
		if (s == -INFINITY)
			continue;  /* the target is 0 already */
		for (int v = 0; v < 2; v++)
			dl[v] += look_add(E[2 * a] + gp->tde[4 * t + 2 * v],
			    E[2 * a + 1] + gp->tde[4 * t + 2 * v + 1]) - s;
	}
}

/* E after gpart_look's class is drawn as v. */
static void
gpart_look_set(const struct gpart *gp, double *E, int v)
{
	for (int t = 0; t < gp->nt; t++) {
		int a = gp->tlist[t];
		E[2 * a] += gp->tde[4 * t + 2 * v];
		E[2 * a + 1] += gp->tde[4 * t + 2 * v + 1];
	}
}

/* The sequential proposal's chance of true from gpart_look's dl, with a
 * uniform share of PROP_EPS over all the part's draws, not on each draw:
 * that would draw many atoms of a large part against their conditional
 * (docs/internals/lis.md, "Flat parts"). */
static double
gpart_look_q1(const struct gpart *gp, const double dl[2])
{
	double p, eps = PROP_EPS / gp->ndraw;

	if (dl[0] == -INFINITY && dl[1] == -INFINITY)
		p = 0.5;
	else
		p = 1 / (1 + exp(dl[0] - dl[1]));
	return (1 - eps) * p + eps / 2;
}

/* Draws class c into x: from the look-ahead target (look: E kept up to
 * date, *inc its log change) with the adaptive proposal, else from c's
 * Bernoulli table.  Returns the log of the chance of the value drawn. */
static double
gpart_step(struct eng *g, struct gpart *gp, char *x, double *E, int c,
    int look, double *inc)
{
	double dl[2] = { 0, 0 }, q1;

	if (look)
		gpart_look(gp, x, E, c, dl);
	q1 = look && g->o.proposal == ENG_PROP_ADAPTIVE ?
	    gpart_look_q1(gp, dl) : prop_p1(g, gp->h[c]);
	x[c] = eng_rng_unit(g->smp->rng) < q1;
	g->st.draws++;
	if (look)
		gpart_look_set(gp, E, x[c]);
	*inc = dl[(int)x[c]];
	return log(x[c] ? q1 : 1 - q1);
}

/* A particle system of k particles through the drawn atoms (sequential
 * Monte Carlo): the targets are the look-ahead targets, one per drawn
 * atom, the last the part's weight; the particles are resampled
 * (systematically) on a fixed schedule, every ndraw / 64 atoms.  The
 * product of the mean weights between resamplings is an unbiased
 * estimate of the part's Z (Del Moral 2004), and with the particles'
 * final weights their values estimate the marginals.  Where one
 * sequence of draws drifts off, resampling drops the particles that
 * did. */
static int
gpart_smc(struct eng *g, struct gpart *gp, int k, double *out)
{
	double lz;
	int step, since = 0, left;
	size_t n = (size_t)gp->ncls, na = 2 * (size_t)gp->naux;

	if (g->o.proposal == ENG_PROP_ADAPTIVE && !gp->pm &&
	    gpart_pilot(g, gp) < 0)
		return -1;
	for (int c = 0; c < gp->ncls; c++)
		gp->m[c] = gp->pm ? gp->pm[c] : 0.5;
	if (!gp->px && (!(gp->px = xmalloc((size_t)k * n + 1)) ||
	    !(gp->px2 = xmalloc((size_t)k * n + 1)) ||
	    !(gp->pE = xmalloc(((size_t)k * na + 1) * sizeof *gp->pE)) ||
	    !(gp->pE2 = xmalloc(((size_t)k * na + 1) * sizeof *gp->pE2)) ||
	    !(gp->plw = xmalloc(((size_t)k + 1) * sizeof *gp->plw)) ||
	    !(gp->pidx = xmalloc(((size_t)k + 1) * sizeof *gp->pidx))))
		return -1;
	if (!gp->E0 && gpart_look_init(gp) < 0)
		return -1;  /* without the pilot: m 1/2 */
	g->st.binomials++;
	lz = gp->g0;
	for (int j = 0; j < k; j++) {
		gp->plw[j] = 0;
		memcpy(gp->pE + (size_t)j * na, gp->E0, na * sizeof *gp->pE);
	}
	step = gp->ndraw / 64 > 1 ? gp->ndraw / 64 : 1;
	left = gp->ndraw;
	for (int c = 0; c < gp->ncls; c++) {
		if (gp->aux[c] >= 0)
			continue;
		left--;
		for (int j = 0; j < k; j++) {
			double inc, lq = gpart_step(g, gp, gp->px + (size_t)j * n,
			    gp->pE + (size_t)j * na, c, 1, &inc);
			gp->plw[j] += inc - lq;
		}
		if (++since < step && left > 0)
			continue;
		since = 0;
		{
			/* the mean weight, then systematic resampling */
			double mx = -INFINITY, sum = 0, u, acc = 0;
			for (int j = 0; j < k; j++)
				if (gp->plw[j] > mx)
					mx = gp->plw[j];
			if (mx == -INFINITY) {
				*out = -INFINITY;
				return 0;
			}
			for (int j = 0; j < k; j++)
				sum += exp(gp->plw[j] - mx);
			lz += mx + log(sum / k);
			if (left == 0)
				break;
			u = eng_rng_unit(g->smp->rng) / k;
			for (int j = 0, i = 0; j < k; j++) {
				acc += exp(gp->plw[j] - mx) / sum;
				while (i < k && u + (double)i / k < acc)
					gp->pidx[i++] = j;
				if (j == k - 1)
					while (i < k)
						gp->pidx[i++] = j;
			}
			for (int i = 0; i < k; i++) {
				memcpy(gp->px2 + (size_t)i * n, gp->px +
				    (size_t)gp->pidx[i] * n, n);
				memcpy(gp->pE2 + (size_t)i * na, gp->pE +
				    (size_t)gp->pidx[i] * na, na * sizeof *gp->pE);
			}
			{
				char *t = gp->px;
				double *te = gp->pE;
				gp->px = gp->px2;
				gp->px2 = t;
				gp->pE = gp->pE2;
				gp->pE2 = te;
			}
			for (int j = 0; j < k; j++)
				gp->plw[j] = 0;
		}
	}
	*out = lz;
	if ((g->npath || gp->ctag) && lz > -INFINITY) {
		/* the particles' final weights: marginals of their atoms */
		double mx = -INFINITY, sum = 0;
		char *save = gp->x;
		for (int j = 0; j < k; j++)
			if (gp->plw[j] > mx)
				mx = gp->plw[j];
		for (int j = 0; j < k; j++)
			sum += exp(gp->plw[j] - mx);
		for (int c = 0; c < gp->ncls; c++)
			gp->m[c] = 0;  /* the estimates, gathered here */
		for (int j = 0; j < k; j++) {
			double w = exp(gp->plw[j] - mx) / sum;
			gp->x = gp->px + (size_t)j * n;
			(void)gpart_logw(gp);
			for (int c = 0; c < gp->ncls; c++)
				if (gp->aux[c] < 0)
					gp->m[c] += w * gp->x[c];
				else if (gp->real[c])
					gp->m[c] += w * gpart_sum_p1(gp, gp->aux[c]);
		}
		gp->x = save;
		for (int c = 0; c < gp->ncls; c++)
			if (gp->real[c])
				gpart_track(g, gp, c, gp->m[c]);
	}
	return 0;
}

/* One sequence of draws of a ground part into x: the log of (its
 * weight given the draws, the summed-out atoms summed out) over
 * Q(draws). */
static double
gpart_seq(struct eng *g, struct gpart *gp)
{
	int look = g->o.proposal == ENG_PROP_ADAPTIVE;
	double lq = 0;

	if (look)
		memcpy(gp->E, gp->E0, 2 * (size_t)gp->naux * sizeof *gp->E);
	for (int c = 0; c < gp->ncls; c++) {
		double inc;
		if (gp->aux[c] < 0)
			lq += gpart_step(g, gp, gp->x, gp->E, c, look, &inc);
	}
	return gpart_logw(gp) - lq;
}

/* One sample of a ground part: *out = gpart_seq's log weight. */
static int
gpart_sample(struct eng *g, struct gpart *gp, double *out)
{
	g->st.binomials++;
	if (g->o.proposal == ENG_PROP_ADAPTIVE && !gp->pm &&
	    gpart_pilot(g, gp) < 0)
		return -1;
	if (gp->pm)
		memcpy(gp->m, gp->pm, (size_t)gp->ncls * sizeof *gp->m);
	*out = gpart_seq(g, gp);
	for (int c = 0; c < gp->ncls && (g->npath || gp->ctag); c++)
		if (gp->aux[c] < 0)
			gpart_track(g, gp, c, gp->x[c]);
		else if (gp->real[c] && *out > -INFINITY)
			gpart_track(g, gp, c, gpart_sum_p1(gp, gp->aux[c]));
	/* the Bernoulli tables learn from the weights only where they are
	 * used: with the pilot's marginals they are not, and other targets'
	 * searches share them (docs/internals/lis.md, "Flat parts") */
	for (int c = 0; c < gp->ncls && *out > -INFINITY && !gp->pm; c++) {
		struct prop *p;
		if (gp->aux[c] >= 0 || g->o.proposal == ENG_PROP_UNIFORM ||
		    !(p = prop_get(g, gp->h[c], 1)))
			continue;
		p->visits++;
		p->lw = log_add(p->lw, *out);
		p->lw2 = log_add(p->lw2, 2 * *out);
		if (gp->x[c])
			p->lwk = log_add(p->lwk, *out);
	}
	return 0;
}

/* One draw of a flat part: particles (gpart_smc) where --particles asks
 * for them, else one sequence (gpart_sample), which with the look-ahead
 * proposal is mostly the better buy (docs/internals/lis.md, "Flat
 * parts"). */
int
gpart_draw(struct eng *g, struct gpart *gp, double *out)
{
	int k = g->o.particles > 1 ? g->o.particles : 1;

	return k > 1 ? gpart_smc(g, gp, k, out) : gpart_sample(g, gp, out);
}
