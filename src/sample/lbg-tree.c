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

/* Orders a[] breadth first from a[0] along the group's formulas of two
 * of its atoms (fi[e], fj[e] with fj[e] >= 0), the parents in par and
 * the old place of each new one in old_of; 0 if they are no tree. */
static int
bfs(int *a, int k, const int *fi, const int *fj, size_t nf, int *par,
    int *old_of)
{
	int uf[LBG_GROUP_MAX], newpos[LBG_GROUP_MAX], b[LBG_GROUP_MAX];
	unsigned char seen[LBG_GROUP_MAX][LBG_GROUP_MAX] = { { 0 } };
	int head = 0, tail = 1, ok = 1;

	for (int i = 0; i < k; i++) {
		uf[i] = i;
		newpos[i] = -1;
	}
	/* a tree: k - 1 distinct edges that join every atom (a repeated
	 * pair is one edge with several formulas) */
	for (size_t e = 0; e < nf && ok; e++) {
		int r, q;
		if (fj[e] < 0)
			continue;
		r = gb_find(uf, fi[e]);
		q = gb_find(uf, fj[e]);
		if (r == q)
			ok = seen[fi[e]][fj[e]];
		else
			uf[r] = q;
		seen[fi[e]][fj[e]] = seen[fj[e]][fi[e]] = 1;
	}
	for (int i = 1; i < k && ok; i++)
		ok = gb_find(uf, i) == gb_find(uf, 0);
	if (!ok)
		return 0;
	old_of[0] = 0;
	newpos[0] = 0;
	par[0] = -1;
	for (; head < tail; head++)
		for (int w = 0, v = old_of[head]; w < k; w++)
			if (seen[v][w] && newpos[w] < 0) {
				newpos[w] = tail;
				par[tail] = head;
				old_of[tail++] = w;
			}
	for (int i = 0; i < k; i++)
		b[i] = a[old_of[i]];
	memcpy(a, b, (size_t)k * sizeof *a);
	return 1;
}

int
lbg_tree_make(const struct gb_model *m, int *a, int k, int *pos, int *fat,
    struct lbg_tree **out, double *cost)
{
	ivec fi = { 0 }, fj = { 0 }, ff = { 0 };
	struct lbg_tree *t = NULL;
	int rc, old_of[LBG_GROUP_MAX], npos[LBG_GROUP_MAX], par[LBG_GROUP_MAX];

	*out = NULL;
	if (k > LBG_GROUP_MAX)  /* the arrays here and in lbg_tree_update */
		return 0;
	for (int i = 0; i < k; i++)
		pos[a[i]] = i;
	rc = group_forms(m, a, k, pos, fat, &fi, &fj, &ff);
	for (int i = 0; i < k; i++)
		pos[a[i]] = -1;
	if (rc == 1)
		rc = bfs(a, k, fi.v, fj.v, ff.n, par, old_of);
	if (rc == 1 && (!(t = xcalloc(1, sizeof *t)) ||
	    !(t->par = xmalloc((size_t)k * sizeof *t->par)) ||
	    !(t->nfirst = xcalloc((size_t)2 * k + 1, sizeof *t->nfirst)) ||
	    !(t->form = xcalloc(ff.n + 1, sizeof *t->form))))
		rc = -1;
	if (rc == 1) {
		/* per atom (new order) its formulas: those of it alone, then
		 * those with its parent */
		t->k = k;
		memcpy(t->par, par, (size_t)k * sizeof *par);
		for (int i = 0; i < k; i++)
			npos[old_of[i]] = i;
		*cost = 0;
		for (int s = 0, n = 0; s < 2 * k; s++) {
			int i = s / 2, edge = s % 2;
			t->nfirst[s] = n;
			for (size_t e = 0; e < ff.n; e++) {
				int p = npos[fi.v[e]], q = fj.v[e] < 0 ? -1 :
				    npos[fj.v[e]];
				if (edge ? (q >= 0 && ((p == i && par[i] == q) ||
				    (q == i && par[i] == p))) : (q < 0 && p == i)) {
					t->form[n++] = ff.v[e];
					*cost += edge ? 4 : 2;
				}
			}
			t->nfirst[s + 1] = n;
		}
		*out = t;
	} else
		lbg_tree_free(t);
	free(fi.v);
	free(fj.v);
	free(ff.v);
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

/* P(1) of a value in {0, 1} with log weights l0, l1 (not both -inf). */
static double
p_true(double l0, double l1)
{
	return l1 == -INFINITY ? 0 : l0 == -INFINITY ? 1 :
	    1 / (1 + exp(l0 - l1));
}

void
lbg_tree_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r)
{
	const struct lbg_tree *t = m->tree[b];
	const int *a = m->batom + m->bfirst[b], *F = t->form, *nf = t->nfirst;
	int k = t->k, v[LBG_GROUP_MAX];
	/* psi[i][vi][vp]: i's formulas with its parent; sub: i's subtree
	 * (first its formulas alone); msg: the subtree's message to the
	 * parent; out: the rest's to i */
	double psi[LBG_GROUP_MAX][2][2];
	double sub[LBG_GROUP_MAX][2] = { { 0 } }, msg[LBG_GROUP_MAX][2];
	double out[LBG_GROUP_MAX][2];

	for (int i = 0; i < k; i++)
		for (int vi = 0; vi < 2; vi++) {
			x[a[i]] = (unsigned char)vi;
			sub[i][vi] = s->L && m->ls->track[a[i]] ?
			    (vi ? s->L[a[i]] : 0) : forms_weight(m, F + nf[2 * i],
			    nf[2 * i + 1] - nf[2 * i], x, s->stack);
			for (int vp = 0; i > 0 && vp < 2; vp++) {
				x[a[t->par[i]]] = (unsigned char)vp;
				psi[i][vi][vp] = forms_weight(m, F + nf[2 * i + 1],
				    nf[2 * i + 2] - nf[2 * i + 1], x, s->stack);
			}
		}
	/* upwards: children come after their parent in the order */
	for (int i = k - 1; i > 0; i--) {
		int p = t->par[i];
		for (int vp = 0; vp < 2; vp++) {
			msg[i][vp] = log_add(sub[i][0] + psi[i][0][vp],
			    sub[i][1] + psi[i][1][vp]);
			sub[p][vp] += msg[i][vp];
		}
	}
	/* downwards: the draw, and each atom's marginal (the current world
	 * is allowed, so the root's weight is finite) */
	out[0][0] = out[0][1] = 0;
	v[0] = eng_rng_unit(r) < p_true(sub[0][0], sub[0][1]);
	for (int i = 1; i < k; i++) {
		int p = t->par[i], vp = v[p];
		double cav[2];
		v[i] = eng_rng_unit(r) < p_true(sub[i][0] + psi[i][0][vp],
		    sub[i][1] + psi[i][1][vp]);
		/* the parent's weight without i's subtree: where that
		 * subtree has none, no world has that parent value anyway */
		for (int q = 0; q < 2; q++)
			cav[q] = msg[i][q] == -INFINITY ? -INFINITY :
			    out[p][q] + sub[p][q] - msg[i][q];
		for (int vi = 0; vi < 2; vi++)
			out[i][vi] = log_add(cav[0] + psi[i][vi][0],
			    cav[1] + psi[i][vi][1]);
	}
	for (int i = 0; i < k; i++) {
		cur[a[i]] = p_true(sub[i][0] + out[i][0], sub[i][1] + out[i][1]);
		x[a[i]] = (unsigned char)v[i];
	}
}
