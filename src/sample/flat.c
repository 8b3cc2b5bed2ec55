/* flat.c: flat ground parts: a ground part of a target as class numbers,
 * built once; its weight, its summed-out atoms, and exact enumeration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-int.h"

void
gpart_free(struct gpart *gp)
{
	if (!gp)
		return;
	free(gp->h);
	free(gp->ctag);
	free(gp->aux);
	free(gp->auxcls);
	free(gp->real);
	free(gp->key);
	free(gp->klen);
	free(gp->keybuf);
	free(gp->w);
	free(gp->hard);
	free(gp->first);
	free(gp->lit);
	free(gp->ofirst);
	free(gp->olist);
	free(gp->x);
	free(gp->m);
	free(gp->pm);
	free(gp->lw);
	free(gp->ok);
	free(gp->csum);
	free(gp->ew);
	free(gp->E0);
	free(gp->ob);
	free(gp->oa);
	free(gp->osg);
	free(gp->csn);
	free(gp->E);
	free(gp->tde);
	free(gp->tlist);
	free(gp->tmark);
	free(gp->pE);
	free(gp->pE2);
	free(gp->px);
	free(gp->px2);
	free(gp->plw);
	free(gp->pidx);
	free(gp);
}

/* Lists each class's clauses (a clause once per distinct class). */
static int
gpart_occ(struct gpart *gp)
{
	size_t nl = (size_t)gp->first[gp->nclauses];

	gp->ofirst = xcalloc((size_t)gp->ncls + 2, sizeof *gp->ofirst);
	gp->olist = xmalloc((nl + 1) * sizeof *gp->olist);
	if (!gp->ofirst || !gp->olist)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < gp->nclauses; i++)
			for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
				int c = gp->lit[k] >> 1, seen = 0;
				for (int j = gp->first[i]; j < k && !seen; j++)
					seen = gp->lit[j] >> 1 == c;
				if (seen)
					continue;
				if (pass == 0)
					gp->ofirst[c + 2]++;
				else
					gp->olist[gp->ofirst[c + 1]++] = i;
			}
		for (int c = 2; pass == 0 && c <= gp->ncls + 1; c++)
			gp->ofirst[c] += gp->ofirst[c - 1];
	}
	return 0;
}

/* Picks the atoms to sum out rather than draw: the auxiliary atoms, and
 * greedily (fewest clauses first) every other atom that shares no
 * clause with one already picked.  Given the drawn atoms, each of them
 * is then alone in what is left of its clauses, so summing it out is
 * exact (Rao-Blackwellisation). */
static int
gpart_summed(struct gpart *gp)
{
	char *has = xcalloc((size_t)gp->nclauses + 1, 1);
	int *ord = xmalloc(((size_t)gp->ncls + 1) * sizeof *ord), n = 0;

	gp->real = xmalloc((size_t)gp->ncls + 1);
	if (!has || !ord || !gp->real)
		goto oom;
	for (int c = 0; c < gp->ncls; c++) {
		gp->real[c] = gp->aux[c] < 0;
		if (gp->aux[c] >= 0)
			for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++)
				has[gp->olist[j]] = 1;
		else
			ord[n++] = c;
	}
	gp->nreal = n;
	/* fewest clauses first: a counting sort by degree, stable */
	{
		int maxd = 0, *cnt, *tmp;
		for (int k = 0; k < n; k++) {
			int d = gp->ofirst[ord[k] + 1] - gp->ofirst[ord[k]];
			if (d > maxd)
				maxd = d;
		}
		cnt = xcalloc((size_t)maxd + 2, sizeof *cnt);
		tmp = xmalloc(((size_t)n + 1) * sizeof *tmp);
		if (!cnt || !tmp) {
			free(cnt);
			free(tmp);
			goto oom;
		}
		for (int k = 0; k < n; k++)
			cnt[gp->ofirst[ord[k] + 1] - gp->ofirst[ord[k]] + 1]++;
		for (int d = 1; d <= maxd + 1; d++)
			cnt[d] += cnt[d - 1];
		for (int k = 0; k < n; k++)
			tmp[cnt[gp->ofirst[ord[k] + 1] - gp->ofirst[ord[k]]]++] = ord[k];
		memcpy(ord, tmp, (size_t)n * sizeof *ord);
		free(cnt);
		free(tmp);
	}
	for (int k = 0; k < n; k++) {
		int c = ord[k], ok = 1;
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1] && ok; j++)
			ok = !has[gp->olist[j]];
		if (!ok)
			continue;
		gp->aux[c] = gp->naux++;
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++)
			has[gp->olist[j]] = 1;
	}
	gp->ndraw = 0;
	for (int c = 0; c < gp->ncls; c++)
		gp->ndraw += gp->aux[c] < 0;
	gp->auxcls = xmalloc(((size_t)gp->naux + 1) * sizeof *gp->auxcls);
	gp->lw = xmalloc(2 * ((size_t)gp->naux + 1) * sizeof *gp->lw);
	gp->ok = xmalloc(2 * ((size_t)gp->naux + 1));
	if (!gp->auxcls || !gp->lw || !gp->ok)
		goto oom;
	for (int c = 0; c < gp->ncls; c++)
		if (gp->aux[c] >= 0)
			gp->auxcls[gp->aux[c]] = c;
	gp->csum = xmalloc(((size_t)gp->nclauses + 1) * sizeof *gp->csum);
	gp->ew = xmalloc(((size_t)gp->nclauses + 1) * sizeof *gp->ew);
	gp->csn = xmalloc((size_t)gp->nclauses + 1);
	if (!gp->csum || !gp->ew || !gp->csn)
		goto oom;
	for (int i = 0; i < gp->nclauses; i++) {
		gp->csum[i] = -1;
		gp->csn[i] = -1;
		gp->ew[i] = exp(gp->w[i]);
		for (int k = gp->first[i]; k < gp->first[i + 1]; k++)
			if (gp->aux[gp->lit[k] >> 1] >= 0) {
				int neg = gp->lit[k] & 1;
				gp->csum[i] = gp->aux[gp->lit[k] >> 1];
				gp->csn[i] = gp->csn[i] < 0 || gp->csn[i] == neg ?
				    (signed char)neg : 2;
			}
	}
	free(has);
	free(ord);
	return 0;
oom:
	free(has);
	free(ord);
	return -1;
}

/* The flat copy of t, or *out NULL when t is not all ground or has a
 * clause with two auxiliary atoms. */
int
gpart_build(struct eng *g, const struct th *t, struct gpart **out)
{
	struct gpart *gp = NULL;
	struct index ix;
	size_t nl = 0, kl = 0;
	int ok = 1;

	*out = NULL;
	if (index_build(g, t, &ix) < 0)
		return -1;
	for (int c = 0; c < ix.ncls && ok; c++)
		ok = ix.slots[c] == 0 && ix.atoms[c] == 1;
	for (size_t i = 0; i < t->c.n && ok; i++) {
		const struct cl *c = t->c.v[i];
		int a = -1;
		ok = cl_count(c, t->size) == 1;
		for (int k = 0; k < c->nlits && ok; k++) {
			int cls = ix.cls_of[ix.lpos[i] + k];
			if (index_is_aux(g, &ix, cls))
				ok = a < 0 || a == cls, a = cls;
		}
		nl += (size_t)c->nlits;
	}
	if (!ok)
		goto done;
	if (!(gp = xcalloc(1, sizeof *gp)))
		goto oom;
	gp->ncls = ix.ncls;
	gp->nclauses = (int)t->c.n;
	for (int c = 0; c < ix.ncls; c++)
		kl += ix.occ[ix.first[c]].len;
	gp->h = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->h);
	gp->aux = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->aux);
	gp->key = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->key);
	gp->klen = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->klen);
	gp->keybuf = xmalloc((kl + 1) * sizeof *gp->keybuf);
	gp->x = xcalloc((size_t)ix.ncls + 1, 1);
	gp->m = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->m);
	gp->w = xmalloc((t->c.n + 1) * sizeof *gp->w);
	gp->hard = xmalloc(t->c.n + 1);
	gp->first = xmalloc((t->c.n + 1) * sizeof *gp->first);
	gp->lit = xmalloc((nl + 1) * sizeof *gp->lit);
	if (!gp->h || !gp->aux || !gp->key || !gp->klen || !gp->keybuf ||
	    !gp->x || !gp->m || !gp->w || !gp->hard || !gp->first || !gp->lit)
		goto oom;
	kl = 0;
	for (int c = 0; c < ix.ncls; c++) {
		const struct occ *o = &ix.occ[ix.first[c]];
		int gk[KEY_BUF];
		/* in the top theory's numbering: tracking and proposals */
		memcpy(gp->keybuf + kl, th_gkey(t, o->key, o->len, gk),
		    o->len * sizeof *o->key);
		gp->key[c] = gp->keybuf + kl;
		gp->klen[c] = o->len;
		kl += o->len;
		gp->h[c] = prop_atom_key(fnv1a(FNV_INIT, gp->key[c],
		    o->len * sizeof *o->key));
		gp->aux[c] = index_is_aux(g, &ix, c) ? gp->naux++ : -1;
	}
	nl = 0;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		gp->w[i] = c->w;
		gp->hard[i] = (char)c->hard;
		gp->first[i] = (int)nl;
		for (int k = 0; k < c->nlits; k++)
			gp->lit[nl++] = 2 * ix.cls_of[ix.lpos[i] + k] + !!c->lit[k].neg;
		if (c->tag) {
			if (!gp->ctag && !(gp->ctag = xcalloc((size_t)ix.ncls + 1,
			    sizeof *gp->ctag)))
				goto oom;
			gp->ctag[ix.cls_of[ix.lpos[i]]] = c->tag;
		}
	}
	gp->first[t->c.n] = (int)nl;
	if (gpart_occ(gp) < 0 || gpart_summed(gp) < 0)
		goto oom;
done:
	index_free(&ix);
	*out = gp;
	return 0;
oom:
	index_free(&ix);
	gpart_free(gp);
	return -1;
}

/* gpart_build's copy for drawing: *out also NULL when t has fewer than
 * BATCH_MIN atoms to draw while the exact budget is not 0 (the search's
 * per-node adaptive tables learn their conditionals, and it may solve
 * parts exactly). */
int
gpart_new(struct eng *g, const struct th *t, struct gpart **out)
{
	int rc = gpart_build(g, t, out);

	if (rc == 0 && *out && (*out)->nreal < BATCH_MIN &&
	    g->o.exact_budget > 0) {
		gpart_free(*out);
		*out = NULL;
	}
	return rc;
}

/* A part that is nearly ground (its ground atoms at most twice its
 * classes) has little to lift: grounded whole (every block
 * split into constants of their own), it is drawn from a flat copy, as
 * a search through it would cost a copy of the part per atom.  *out
 * stays NULL when the part is not nearly ground, or its grounding would
 * have more than GROUND_MAX clauses or atoms. */
int
gpart_nearly(struct eng *g, const struct th *t, struct gpart **out)
{
	struct index ix;
	struct th *u;
	double clauses = 0;
	int nb, near, rc = 0;

	*out = NULL;
	if (index_build(g, t, &ix) < 0)
		return -1;
	near = ix.total <= 2.0 * ix.ncls && ix.total <= GROUND_MAX;
	index_free(&ix);
	for (size_t i = 0; i < t->c.n && near; i++)
		clauses += cl_count(t->c.v[i], t->size);
	if (!near || clauses > GROUND_MAX)
		return 0;
	if (!(u = th_copy(t)))
		return -1;
	nb = u->nb;
	for (int b = 0; b < nb && rc == 0; b++) {
		int split = u->size[b] > 1;
		while (u->size[b] > 1 && rc == 0)
			rc = th_split_one(u, b) < 0 ? -1 : 0;
		/* after a split (and once in any case), not per block: a
		 * pass over every clause per block is quadratic */
		if (rc == 0 && (split || b == nb - 1) && th_normalise(g, u) < 0)
			rc = -1;
	}
	if (rc == 0)
		rc = gpart_new(g, u, out);
	th_free(u);
	return rc;
}

/* The chance that atom c is true given the atoms drawn before it
 * (classes below c), the others independent with their marginals m,
 * clause by clause: where the pilot Gibbs run starts. */
double
gpart_q1(const struct gpart *gp, int c)
{
	double l[2] = { 0, 0 }, p;

	for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
		int i = gp->olist[j], sat = 0, sv[2] = { 0, 0 };
		double frac, pu = 1;
		for (int m = gp->first[i]; m < gp->first[i + 1] && !sat; m++) {
			int d = gp->lit[m] >> 1, neg = gp->lit[m] & 1;
			if (d == c)
				sv[!neg] = 1;  /* true when c is !neg */
			else if (d < c && gp->aux[d] < 0)
				sat = gp->x[d] != neg;
			else
				pu *= neg ? gp->m[d] : 1 - gp->m[d];
		}
		if (sat)
			continue;
		frac = 1 - pu;
		for (int v = 0; v < 2; v++)
			if (sv[v])
				l[v] += gp->hard[i] ? 0 : gp->w[i];
			else if (gp->hard[i])
				l[v] += log(frac);
			else
				l[v] += log(frac * exp(gp->w[i]) + 1 - frac);
	}
	if (l[0] == -INFINITY && l[1] == -INFINITY)
		p = 0.5;
	else
		p = 1 / (1 + exp(l[0] - l[1]));
	return (1 - PROP_EPS) * p + PROP_EPS / 2;
}

/* The log weight of gp's values x, its auxiliary atoms summed out. */
double
gpart_logw(struct gpart *gp)
{
	double sum = 0;

	for (int a = 0; a < 2 * gp->naux; a++) {
		gp->lw[a] = 0;
		gp->ok[a] = 1;
	}
	for (int i = 0; i < gp->nclauses && sum > -INFINITY; i++) {
		int sat = 0, a = -1;
		for (int k = gp->first[i]; k < gp->first[i + 1] && !sat; k++) {
			int c = gp->lit[k] >> 1, neg = gp->lit[k] & 1;
			if (gp->aux[c] < 0)
				sat = gp->x[c] != neg;
			else if (a >= 0 && a != 2 * gp->aux[c] + !neg)
				sat = 1;  /* A v !A */
			else
				a = 2 * gp->aux[c] + !neg;  /* true when A is !neg */
		}
		if (sat)
			sum += gp->hard[i] ? 0 : gp->w[i];
		else if (a < 0)
			sum += gp->hard[i] ? -INFINITY : 0;
		else if (gp->hard[i])
			gp->ok[a ^ 1] = 0;
		else
			gp->lw[a] += gp->w[i];
	}
	for (int a = 0; a < gp->naux && sum > -INFINITY; a++) {
		double z0 = gp->ok[2 * a] ? gp->lw[2 * a] : -INFINITY;
		double z1 = gp->ok[2 * a + 1] ? gp->lw[2 * a + 1] : -INFINITY;
		sum += log_add(z0, z1);
	}
	return sum;
}

/* After gpart_logw: the chance that summed-out atom number a is true
 * given the drawn atoms. */
double
gpart_sum_p1(const struct gpart *gp, int a)
{
	double z0 = gp->ok[2 * a] ? gp->lw[2 * a] : -INFINITY;
	double z1 = gp->ok[2 * a + 1] ? gp->lw[2 * a + 1] : -INFINITY;

	if (z1 == -INFINITY)
		return z0 == -INFINITY ? 0.5 : 0;
	if (z0 == -INFINITY)
		return 1;
	return 1 / (1 + exp(z0 - z1));
}

/* Atom c of a ground part has expectation v in this draw (or exactly):
 * for its path slot, and for its counted class. */
void
gpart_track(struct eng *g, const struct gpart *gp, int c, double v)
{
	track_set(g, NULL, gp->key[c], gp->klen[c], v);
	if (gp->ctag && gp->ctag[c])
		counts_push(g, gp->ctag[c] - 1, v);
}

/* An exact alternative to drawing a small ground part: every value of
 * its atoms enumerated, which gives log Z and each atom's marginal in
 * one pass (the search would need two exact searches per tracked
 * atom). */
double
gpart_enum(struct eng *g, struct gpart *gp)
{
	int n = 0, ns = 0, *idx = xmalloc(((size_t)gp->ncls + 1) * sizeof *idx);
	int *sidx = xmalloc(((size_t)gp->ncls + 1) * sizeof *sidx);
	double *l1 = xmalloc(((size_t)gp->ncls + 1) * sizeof *l1);
	double *s1 = xmalloc(((size_t)gp->ncls + 1) * sizeof *s1), z = -INFINITY;

	if (!idx || !sidx || !l1 || !s1) {
		z = NAN;
		goto done;
	}
	for (int c = 0; c < gp->ncls; c++)
		if (gp->aux[c] < 0) {
			l1[n] = -INFINITY;
			idx[n++] = c;
		} else if (gp->real[c]) {
			s1[ns] = -INFINITY;
			sidx[ns++] = c;
		}
	for (uint64_t m = 0; m < (uint64_t)1 << n; m++) {
		double lw;
		for (int j = 0; j < n; j++)
			gp->x[idx[j]] = (char)(m >> j & 1);
		lw = gpart_logw(gp);
		if (lw == -INFINITY)
			continue;
		z = log_add(z, lw);
		for (int j = 0; j < n; j++)
			if (gp->x[idx[j]])
				l1[j] = log_add(l1[j], lw);
		for (int j = 0; j < ns; j++)
			s1[j] = log_add(s1[j], lw + log(gpart_sum_p1(gp,
			    gp->aux[sidx[j]])));
	}
	for (int j = 0; j < n; j++)
		gpart_track(g, gp, idx[j], z == -INFINITY ? 0 : exp(l1[j] - z));
	for (int j = 0; j < ns; j++)
		gpart_track(g, gp, sidx[j], z == -INFINITY ? 0 : exp(s1[j] - z));
done:
	free(idx);
	free(sidx);
	free(l1);
	free(s1);
	return z;
}

/* What clause i adds to the log weight given x, its auxiliary atom
 * (if any) taken as false (v = 0) or true (v = 1); -1 in *a if none. */
static double
gpart_clause(const struct gpart *gp, int i, int v, int *a)
{
	int sat = 0;

	*a = -1;
	for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
		int c = gp->lit[k] >> 1, neg = gp->lit[k] & 1;
		if (gp->aux[c] < 0)
			sat |= gp->x[c] != neg;
		else {
			*a = gp->aux[c];
			sat |= v != neg;
		}
	}
	if (sat)
		return gp->hard[i] ? 0 : gp->w[i];
	return gp->hard[i] ? -INFINITY : 0;
}

/* The log factor of summed-out atom number a given the drawn atoms. */
static double
gpart_sumfactor(const struct gpart *gp, int a)
{
	int cls = gp->auxcls[a];
	double f[2] = { 0, 0 };

	for (int v = 0; v < 2; v++)
		for (int j = gp->ofirst[cls]; j < gp->ofirst[cls + 1]; j++) {
			int b;
			f[v] += gpart_clause(gp, gp->olist[j], v, &b);
		}
	return log_add(f[0], f[1]);
}

/* The log odds of atom c being true given every other atom's value in
 * x, the auxiliary atoms of its clauses summed out (over all of their
 * clauses). */
double
gpart_logodds(struct gpart *gp, int c, int *auxs)
{
	double l[2];
	int na = 0;

	for (int v = 0; v < 2; v++) {
		double sum = 0;
		gp->x[c] = (char)v;
		na = 0;
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
			int a, i = gp->olist[j], dup = 0;
			double w = gpart_clause(gp, i, 0, &a);
			if (a < 0) {
				sum += w;
				continue;
			}
			for (int u = 0; u < na && !dup; u++)
				dup = auxs[u] == a;
			if (!dup)
				auxs[na++] = a;
		}
		for (int u = 0; u < na; u++)
			sum += gpart_sumfactor(gp, auxs[u]);
		l[v] = sum;
	}
	if (l[0] == -INFINITY && l[1] == -INFINITY)
		return 0;
	return l[1] - l[0];
}
