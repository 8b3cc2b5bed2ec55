/* lbg-tree.c: lbg's draw of a group whose formulas hold at most two of
 * its atoms and join them as a tree (a word-feature star: a page's class
 * and the words that only point at it), by sum-product instead of the
 * 2^k enumeration of gb_update: the same conditional, each formula
 * evaluated 2 or 4 times instead of about 2^k / k times per atom. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"

typedef VEC(int) ivec;

void
lbg_tree_free(struct lbg_tree *t)
{
	if (!t)
		return;
	free(t->par);
	free(t->nfirst);
	free(t->form);
	free(t);
}

/* The group's formulas, each once (at its first atom in a[]): per
 * formula its atoms of the group at pos[] as i (and j, or -1); 0 when
 * one holds three or more.  pos[u]: u's place in a[], else -1. */
static int
group_forms(const struct gb_model *m, const int *a, int k, const int *pos,
    int *fat, ivec *fi, ivec *fj, ivec *ff)
{
	for (int i = 0; i < k; i++)
		for (int q = m->afirst[a[i]]; q < m->afirst[a[i] + 1]; q++) {
			int f = m->aform[q], n = gb_form_atoms(m->g, f, fat);
			int in[3], c = 0, first = 1;
			for (int t = 0; t < n; t++) {
				int p = pos[fat[t]];
				if (p < 0)
					continue;
				if (p < i)
					first = 0;
				if (c < 3)
					in[c] = p;
				c++;
			}
			if (!first)
				continue;
			if (c > 2)
				return 0;
			if (VEC_PUSH(*fi, in[0]) < 0 || VEC_PUSH(*fj, c == 2 ?
			    in[1] : -1) < 0 || VEC_PUSH(*ff, f) < 0)
				return -1;
		}
	return 1;
}

/* Orders a[] breadth first from a[0] along edges (ei, ej), parents in
 * par (positions in the new order); 0 if the edges are no tree. */
static int
bfs(int *a, int k, const int *ei, const int *ej, size_t ne, int *par,
    int *old_of)
{
	int *uf = xcalloc((size_t)k, sizeof *uf), head = 0, tail = 1, ok = 1;
	int *newpos = xcalloc((size_t)k, sizeof *newpos), *b;
	unsigned char seen[LBG_GROUP_MAX][LBG_GROUP_MAX] = { { 0 } };

	b = xcalloc((size_t)k, sizeof *b);
	if (!uf || !newpos || !b) {
		free(uf);
		free(newpos);
		free(b);
		return -1;
	}
	for (int i = 0; i < k; i++) {
		uf[i] = i;
		newpos[i] = -1;
	}
	/* a tree: k - 1 distinct edges that join every atom (a repeated
	 * pair is one edge with several formulas) */
	for (size_t e = 0; e < ne && ok; e++) {
		int r = gb_find(uf, ei[e]), s = gb_find(uf, ej[e]);
		if (r == s)
			ok = seen[ei[e]][ej[e]];
		else
			uf[r] = s;
		seen[ei[e]][ej[e]] = seen[ej[e]][ei[e]] = 1;
	}
	for (int i = 1; i < k && ok; i++)
		ok = gb_find(uf, i) == gb_find(uf, 0);
	if (ok) {
		old_of[0] = 0;
		newpos[0] = 0;
		par[0] = -1;
		while (head < tail) {
			int v = old_of[head];
			for (size_t e = 0; e < ne; e++) {
				int w = ei[e] == v ? ej[e] : ej[e] == v ? ei[e] : -1;
				if (w < 0 || newpos[w] >= 0)
					continue;
				newpos[w] = tail;
				par[tail] = newpos[v];
				old_of[tail++] = w;
			}
			head++;
		}
		for (int i = 0; i < k; i++)
			b[i] = a[old_of[i]];
		memcpy(a, b, (size_t)k * sizeof *a);
	}
	free(uf);
	free(newpos);
	free(b);
	return ok;
}

int
lbg_tree_make(const struct gb_model *m, int *a, int k, int *pos, int *fat,
    struct lbg_tree **out, double *cost)
{
	ivec fi = { 0 }, fj = { 0 }, ff = { 0 }, ei = { 0 }, ej = { 0 };
	struct lbg_tree *t = NULL;
	int rc, *old_of = xcalloc((size_t)k, sizeof *old_of), *par;
	int *npos = xcalloc((size_t)k, sizeof *npos);

	par = xcalloc((size_t)k, sizeof *par);
	*out = NULL;
	if (k > LBG_GROUP_MAX) {  /* lbg_tree_update's arrays */
		free(old_of);
		free(npos);
		free(par);
		return 0;
	}
	for (int i = 0; i < k; i++)
		pos[a[i]] = i;
	rc = !old_of || !npos || !par ? -1 :
	    group_forms(m, a, k, pos, fat, &fi, &fj, &ff);
	for (int i = 0; i < k; i++)
		pos[a[i]] = -1;
	for (size_t e = 0; rc == 1 && e < ff.n; e++)
		if (fj.v[e] >= 0 && (VEC_PUSH(ei, fi.v[e]) < 0 ||
		    VEC_PUSH(ej, fj.v[e]) < 0))
			rc = -1;
	if (rc == 1)
		rc = bfs(a, k, ei.v, ej.v, ei.n, par, old_of);
	if (rc == 1 && !(t = xcalloc(1, sizeof *t)))
		rc = -1;
	if (rc == 1) {
		/* per atom (new order) its formulas: those of it alone, then
		 * those with its parent */
		t->k = k;
		t->par = par;
		par = NULL;
		t->nfirst = xcalloc((size_t)2 * k + 1, sizeof *t->nfirst);
		t->form = xcalloc(ff.n + 1, sizeof *t->form);
		if (!t->nfirst || !t->form)
			rc = -1;
		for (int i = 0; i < k; i++)
			npos[old_of[i]] = i;
		*cost = 0;
		for (int s = 0, n = 0; rc == 1 && s < 2 * k; s++) {
			int i = s / 2, edge = s % 2;
			t->nfirst[s] = n;
			for (size_t e = 0; e < ff.n; e++) {
				int p = npos[fi.v[e]], q = fj.v[e] < 0 ? -1 :
				    npos[fj.v[e]];
				if (edge ? (q >= 0 && ((p == i && t->par[i] == q) ||
				    (q == i && t->par[i] == p))) : (q < 0 && p == i)) {
					t->form[n++] = ff.v[e];
					*cost += edge ? 4 : 2;
				}
			}
			t->nfirst[s + 1] = n;
		}
	}
	if (rc == 1)
		*out = t;
	else
		lbg_tree_free(t);
	free(fi.v);
	free(fj.v);
	free(ff.v);
	free(ei.v);
	free(ej.v);
	free(old_of);
	free(npos);
	free(par);
	return rc;
}

/* Log weight of formulas F[0..n) in x: their soft weights when true,
 * -inf when a hard one is false. */
static double
forms_weight(const struct gb_model *m, const int *F, int n,
    const unsigned char *x, int *stack)
{
	double w = 0;

	for (int j = 0; j < n; j++) {
		const struct ground_formula *gf = &m->g->gf.v[F[j]];
		int t = gb_eval(m, F[j], x, stack);
		if (gf->hard) {
			if (!t)
				return -INFINITY;
		} else if (t)
			w += gf->weight;
	}
	return w;
}

/* Draws v in {0, 1} with log weights l0, l1. */
static int
draw2(struct eng_rng *r, double l0, double l1)
{
	double p = l1 == -INFINITY ? 0 : l0 == -INFINITY ? 1 :
	    1 / (1 + exp(l0 - l1));
	return eng_rng_unit(r) < p;
}

void
lbg_tree_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r)
{
	const struct lbg_tree *t = m->tree[b];
	const int *a = m->batom + m->bfirst[b], *F = t->form, *nf = t->nfirst;
	int k = t->k, v[LBG_GROUP_MAX];
	/* phi: alone; psi[i][vi][vp]: with the parent; sub: i's subtree;
	 * msg: the subtree's message to the parent; out: the rest's to i */
	double phi[LBG_GROUP_MAX][2], psi[LBG_GROUP_MAX][2][2];
	double sub[LBG_GROUP_MAX][2], msg[LBG_GROUP_MAX][2];
	double out[LBG_GROUP_MAX][2];

	for (int i = 0; i < k; i++)
		for (int vi = 0; vi < 2; vi++) {
			x[a[i]] = (unsigned char)vi;
			phi[i][vi] = forms_weight(m, F + nf[2 * i],
			    nf[2 * i + 1] - nf[2 * i], x, s->stack);
			for (int vp = 0; i > 0 && vp < 2; vp++) {
				x[a[t->par[i]]] = (unsigned char)vp;
				psi[i][vi][vp] = forms_weight(m, F + nf[2 * i + 1],
				    nf[2 * i + 2] - nf[2 * i + 1], x, s->stack);
			}
		}
	for (int i = 0; i < k; i++) {
		sub[i][0] = phi[i][0];
		sub[i][1] = phi[i][1];
	}
	/* upwards: children come after their parent in the order */
	for (int i = k - 1; i > 0; i--) {
		int p = t->par[i];
		for (int vp = 0; vp < 2; vp++) {
			msg[i][vp] = lbg_lse(sub[i][0] + psi[i][0][vp],
			    sub[i][1] + psi[i][1][vp]);
			sub[p][vp] += msg[i][vp];
		}
	}
	/* downwards: the draw, and each atom's marginal (the current world
	 * is allowed, so the root's weight is finite) */
	out[0][0] = out[0][1] = 0;
	v[0] = draw2(r, sub[0][0], sub[0][1]);
	for (int i = 1; i < k; i++) {
		int p = t->par[i], vp = v[p];
		double cav[2];
		v[i] = draw2(r, sub[i][0] + psi[i][0][vp],
		    sub[i][1] + psi[i][1][vp]);
		/* the parent's weight without i's subtree: where that
		 * subtree has none, no world has that parent value anyway */
		for (int q = 0; q < 2; q++)
			cav[q] = msg[i][q] == -INFINITY ? -INFINITY :
			    out[p][q] + sub[p][q] - msg[i][q];
		for (int vi = 0; vi < 2; vi++)
			out[i][vi] = lbg_lse(cav[0] + psi[i][vi][0],
			    cav[1] + psi[i][vi][1]);
	}
	for (int i = 0; i < k; i++) {
		double l0 = sub[i][0] + out[i][0], l1 = sub[i][1] + out[i][1];
		cur[a[i]] = l1 == -INFINITY ? 0 : l0 == -INFINITY ? 1 :
		    1 / (1 + exp(l0 - l1));
		x[a[i]] = (unsigned char)v[i];
	}
}
