/* gibbs.c: the Gibbs samplers' model: which formulas touch which ground
 * atom, the blocks of a sweep, one block's exact conditional draw, and
 * WalkSAT for a start that satisfies the hard formulas. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"
#include "sample/tunables.h"

typedef VEC(int) ivec;

int
gb_form_atoms(const struct ground *g, int f, int *out)
{
	const struct ground_formula *gf = &g->gf.v[f];
	const int *code = g->code.v + gf->start;
	int k = 0;

	for (int i = 0; i < gf->len; i++)
		if (code[i] == OP_ATOM) {
			int u = code[++i], j;
			for (j = 0; j < k && out[j] != u; j++)
				;
			if (j == k)
				out[k++] = u;
		}
	return k;
}

int
gb_eval(const struct gb_model *m, int f, const unsigned char *x, int *stack)
{
	return ground_eval(m->g, (size_t)f, x, stack);
}

int
gb_find(int *parent, int u)
{
	while (parent[u] != u) {
		parent[u] = parent[parent[u]];
		u = parent[u];
	}
	return u;
}

/* Whether the k atoms a[] share one label >= 0. */
static int
same_label(const int *label, const int *a, int k)
{
	for (int i = 1; i < k; i++)
		if (label[a[i]] != label[a[0]])
			return 0;
	return label[a[0]] >= 0;
}

/* Blocks grown along the formulas, hard ones first: a formula's atoms
 * are joined when the union has at most bmax atoms.  With pl (blocked-
 * gibbs: lbg's blocks) the union-find starts from pl->pre and joins only
 * formulas whose atoms share one label >= 0.  Out: parent[], each
 * block's root through gb_find. */
static void
grow_blocks(const struct ground *g, int n, int bmax, int *parent, int *size,
    int *fat, const struct gb_plan *pl)
{
	for (int u = 0; u < n; u++) {
		parent[u] = pl ? pl->pre[u] : u;
		size[u] = 0;
	}
	for (int u = 0; u < n; u++)
		size[parent[u]]++;
	for (int pass = 0; pass < 2; pass++)
		for (size_t f = 0; f < g->gf.n; f++) {
			int k, total = 0;
			if (g->gf.v[f].hard != (pass == 0))
				continue;
			k = gb_form_atoms(g, (int)f, fat);
			if (pl && !same_label(pl->label, fat, k))
				continue;
			for (int i = 0; i < k; i++) {
				int r = gb_find(parent, fat[i]), j;
				for (j = 0; j < i && gb_find(parent, fat[j]) != r; j++)
					;
				if (j == i)
					total += size[r];
			}
			if (total > bmax)
				continue;
			for (int i = 1; i < k; i++) {
				int a = gb_find(parent, fat[0]), b = gb_find(parent,
				    fat[i]);
				if (a != b) {
					parent[b] = a;
					size[a] += size[b];
				}
			}
		}
}

void
gb_hard_free(struct gb_hard *h)
{
	free(h->first);
	free(h->atom);
	memset(h, 0, sizeof *h);
}

/* A hard formula's place in gb_hard_sets's order: the share of its
 * atoms' values that satisfy it (the tighter first), then its number. */
struct hard_cand {
	double share;
	int f, span;
};

static int
cmp_cand(const void *a, const void *b)
{
	const struct hard_cand *x = a, *y = b;

	if (x->share != y->share)
		return x->share < y->share ? -1 : 1;
	return (x->f > y->f) - (x->f < y->f);
}

void
gb_truths(const struct ground *g, int f, const int *a, int k,
    unsigned char *xs, int *stack, unsigned char *t)
{
	for (unsigned p = 0; p < (1u << k); p++) {
		for (int i = 0; i < k; i++)
			xs[a[i]] = (unsigned char)((p >> i) & 1);
		t[p] = (unsigned char)ground_eval(g, (size_t)f, xs, stack);
	}
	for (int i = 0; i < k; i++)
		xs[a[i]] = 0;
}

/* The share of the 2^k values of f's atoms a[] that satisfy it (k at
 * most 8; past that, 1 - 2^-k); xs all 0, left so. */
static double
sat_share(const struct ground *g, int f, const int *a, int k,
    unsigned char *xs, int *stack)
{
	unsigned char t[256];
	int sat = 0;

	if (k > 8)
		return 1 - ldexp(1, -k);
	gb_truths(g, f, a, k, xs, stack, t);
	for (unsigned p = 0; p < (1u << k); p++)
		sat += t[p];
	return ldexp(sat, -k);
}

int
gb_hard_sets(const struct ground *g, int n, int *parent, int *fat,
    struct gb_hard *out)
{
	int *hp = xcalloc((size_t)n + 1, sizeof *hp);
	int *hsz = xcalloc((size_t)n + 1, sizeof *hsz);
	int *next = xcalloc((size_t)n + 1, sizeof *next);
	unsigned char *inset = xcalloc((size_t)n + 1, 1);
	unsigned char *xs = xcalloc((size_t)n + 1, 1);
	int maxlen = 1, *stack = NULL;
	ivec first = { 0 }, atom = { 0 }, solo = { 0 };
	VEC(struct hard_cand) cand = { 0 };
	int rc = -1;

	for (size_t f = 0; f < g->gf.n; f++)
		if (g->gf.v[f].len > maxlen)
			maxlen = g->gf.v[f].len;
	if (!hp || !hsz || !next || !inset || !xs ||
	    !(stack = xcalloc((size_t)maxlen + 1, sizeof *stack)))
		goto done;
	for (int u = 0; u < n; u++) {
		hp[u] = u;
		hsz[u] = 1;
	}
	for (size_t f = 0; f < g->gf.n; f++) {
		struct hard_cand c;
		int k, i;
		if (!g->gf.v[f].hard)
			continue;
		k = gb_form_atoms(g, (int)f, fat);
		if (k < 2 || k > GB_HARD_MAX)
			continue;
		for (i = 1; i < k && gb_find(parent, fat[i]) ==
		    gb_find(parent, fat[0]); i++)
			;
		c.span = i < k;
		c.f = (int)f;
		c.share = sat_share(g, (int)f, fat, k, xs, stack);
		if (VEC_PUSH(cand, c) < 0)
			goto done;
	}
	/* the tightest first: an equivalence (half its values) joins its
	 * set before a clause of two atoms (three quarters) can fill it */
	if (cand.n > 1)
		qsort(cand.v, cand.n, sizeof *cand.v, cmp_cand);
	for (size_t c = 0; c < cand.n; c++) {
		int f = cand.v[c].f, span = cand.v[c].span, total = 0, i;
		int k = gb_form_atoms(g, f, fat);
		for (i = 0; i < k; i++) {
			int r = gb_find(hp, fat[i]), j;
			for (j = 0; j < i && gb_find(hp, fat[j]) != r; j++)
				;
			if (j == i)
				total += hsz[r];
		}
		if (total > GB_HARD_SET) {
			if (span && VEC_PUSH(solo, f) < 0)
				goto done;
			continue;
		}
		for (i = 0; i < k; i++)
			inset[fat[i]] |= (unsigned char)(1 + span);
		for (i = 1; i < k; i++) {
			int a = gb_find(hp, fat[0]), b = gb_find(hp, fat[i]);
			if (a != b) {
				hp[b] = a;
				hsz[a] += hsz[b];
			}
		}
	}
	/* a set is a block when one of its formulas spans two (bit 2 on
	 * one of its atoms: gathered on the root) */
	for (int u = 0; u < n; u++)
		if (inset[u] & 2)
			inset[gb_find(hp, u)] |= 2;
	/* the sets, each its root then its other atoms in atom order, then
	 * the formulas past the limit */
	for (int u = 0; u < n; u++)
		next[u] = -1;
	for (int u = n - 1; u >= 0; u--) {
		int r = gb_find(hp, u);
		if (inset[u] && r != u) {
			next[u] = next[r];
			next[r] = u;
		}
	}
	for (int r = 0; r < n; r++) {
		if (!(inset[r] & 2) || gb_find(hp, r) != r)
			continue;
		if (VEC_PUSH(first, (int)atom.n) < 0)
			goto done;
		for (int u = r; u >= 0; u = next[u])
			if (VEC_PUSH(atom, u) < 0)
				goto done;
	}
	for (size_t j = 0; j < solo.n; j++) {
		int k = gb_form_atoms(g, solo.v[j], fat);
		if (VEC_PUSH(first, (int)atom.n) < 0)
			goto done;
		for (int i = 0; i < k; i++)
			if (VEC_PUSH(atom, fat[i]) < 0)
				goto done;
	}
	if (VEC_PUSH(first, (int)atom.n) < 0 || VEC_PUSH(atom, 0) < 0)
		goto done;
	out->n = (int)first.n - 1;
	out->first = first.v;
	out->atom = atom.v;
	first.v = atom.v = NULL;
	rc = 0;
done:
	free(hp);
	free(hsz);
	free(next);
	free(inset);
	free(xs);
	free(stack);
	free(cand.v);
	free(first.v);
	free(atom.v);
	free(solo.v);
	return rc;
}

/* Appends the blocks of the sweep to bfirst/batom: the grown blocks (or
 * one per atom outside the hard blocks when bmax is 1), then the sets of
 * hard formulas across them (gb_hard_sets). */
static int
make_blocks(const struct ground *g, int n, int bmax, ivec *bfirst,
    ivec *batom, int *fat, const struct gb_plan *pl)
{
	int *parent = xcalloc((size_t)n + 1, sizeof *parent);
	int *size = xcalloc((size_t)n + 1, sizeof *size);
	int *covered = xcalloc((size_t)n + 1, sizeof *covered);
	int rc = -1;

	if (!parent || !size || !covered)
		goto done;
	if (bmax > 1) {
		int *next = covered;  /* reused: members linked by root */
		grow_blocks(g, n, bmax, parent, size, fat, pl);
		for (int u = 0; u < n; u++)
			next[u] = -1;
		/* one block per root, members in atom order */
		for (int u = n - 1; u >= 0; u--) {
			int r = gb_find(parent, u);
			if (r != u) {
				next[u] = next[r];
				next[r] = u;
			}
		}
		for (int u = 0; u < n; u++) {
			if (gb_find(parent, u) != u)
				continue;
			if (VEC_PUSH(*bfirst, (int)batom->n) < 0)
				goto done;
			/* the root, then its members */
			if (VEC_PUSH(*batom, u) < 0)
				goto done;
			for (int v = next[u]; v >= 0; v = next[v])
				if (VEC_PUSH(*batom, v) < 0)
					goto done;
		}
	} else {
		for (int u = 0; u < n; u++)
			parent[u] = u;
		for (size_t f = 0; f < g->gf.n; f++) {
			int k;
			if (!g->gf.v[f].hard)
				continue;
			k = gb_form_atoms(g, (int)f, fat);
			if (k >= 2 && k <= GB_HARD_MAX)
				for (int i = 0; i < k; i++)
					covered[fat[i]] = 1;
		}
		for (int u = 0; u < n; u++)
			if (!covered[u] && (VEC_PUSH(*bfirst, (int)batom->n) < 0 ||
			    VEC_PUSH(*batom, u) < 0))
				goto done;
	}
	{
		struct gb_hard hs = { 0 };
		int ok = gb_hard_sets(g, n, parent, fat, &hs) == 0;
		for (int j = 0; ok && j < hs.n; j++) {
			ok = VEC_PUSH(*bfirst, (int)batom->n) == 0;
			for (int i = hs.first[j]; ok && i < hs.first[j + 1]; i++)
				ok = VEC_PUSH(*batom, hs.atom[i]) == 0;
		}
		gb_hard_free(&hs);
		if (!ok)
			goto done;
	}
	rc = VEC_PUSH(*bfirst, (int)batom->n) < 0 ? -1 : 0;
done:
	free(parent);
	free(size);
	free(covered);
	return rc;
}

/* aform: each atom's formulas, each once. */
static int
make_incidence(struct gb_model *m, int *fat)
{
	const struct ground *g = m->g;
	size_t nf = g->gf.n, total = 0;

	if (!(m->afirst = xcalloc((size_t)m->n + 2, sizeof *m->afirst)))
		return -1;
	for (size_t f = 0; f < nf; f++) {
		int k = gb_form_atoms(g, (int)f, fat);
		for (int i = 0; i < k; i++)
			m->afirst[fat[i] + 2]++;
		total += (size_t)k;
		if (g->gf.v[f].hard)
			m->nhard++;
		if (g->gf.v[f].len > m->maxlen)
			m->maxlen = g->gf.v[f].len;
	}
	for (int u = 0; u < m->n; u++)
		m->afirst[u + 2] += m->afirst[u + 1];
	if (!(m->aform = xcalloc(total + 1, sizeof *m->aform)))
		return -1;
	for (size_t f = 0; f < nf; f++) {
		int k = gb_form_atoms(g, (int)f, fat);
		for (int i = 0; i < k; i++)
			m->aform[m->afirst[fat[i] + 1]++] = (int)f;
	}
	return 0;
}

/* bform: each block's formulas, each once. */
static int
make_block_forms(struct gb_model *m)
{
	int *stamp = xcalloc(m->g->gf.n + 1, sizeof *stamp);
	ivec ff = { 0 }, bf = { 0 };

	if (!stamp)
		return -1;
	for (int b = 0; b < m->nblocks; b++) {
		if (VEC_PUSH(ff, (int)bf.n) < 0)
			goto fail;
		for (int i = m->bfirst[b]; i < m->bfirst[b + 1]; i++) {
			int u = m->batom[i];
			for (int j = m->afirst[u]; j < m->afirst[u + 1]; j++) {
				int f = m->aform[j];
				if (stamp[f] == b + 1)
					continue;
				stamp[f] = b + 1;
				if (VEC_PUSH(bf, f) < 0)
					goto fail;
			}
		}
	}
	if (VEC_PUSH(ff, (int)bf.n) < 0 || VEC_PUSH(bf, 0) < 0)
		goto fail;
	m->ffirst = ff.v;
	m->bform = bf.v;
	free(stamp);
	return 0;
fail:
	free(ff.v);
	free(bf.v);
	free(stamp);
	return -1;
}

int
gb_model_build(struct gb_model *m, const struct ground *g, int block_max,
    int lbg, struct err *e)
{
	ivec bfirst = { 0 }, batom = { 0 };
	int *fat = NULL, maxlen = 1;

	memset(m, 0, sizeof *m);
	m->g = g;
	m->n = (int)g->unk_atom.n;
	for (size_t f = 0; f < g->gf.n; f++)
		if (g->gf.v[f].len > maxlen)
			maxlen = g->gf.v[f].len;
	if (!(fat = xcalloc((size_t)maxlen + 1, sizeof *fat)) ||
	    make_incidence(m, fat) < 0)
		goto fail;
	if (lbg == 1) {
		if (lbg_blocks(m, fat) < 0)
			goto fail;
	} else {
		struct gb_plan pl = { 0 };
		int rc = 0;
		if (lbg == 2 && block_max > 1 &&
		    (!(pl.pre = xcalloc((size_t)m->n + 1, sizeof *pl.pre)) ||
		    !(pl.label = xcalloc((size_t)m->n + 1, sizeof *pl.label)) ||
		    lbg_ground_plan(m, block_max, fat, &pl) < 0))
			rc = -1;
		if (!rc)
			rc = make_blocks(g, m->n, block_max, &bfirst, &batom, fat,
			    pl.pre ? &pl : NULL);
		free(pl.pre);
		free(pl.label);
		if (rc < 0 || VEC_PUSH(batom, 0) < 0)
			goto fail;
		m->bfirst = bfirst.v;
		m->batom = batom.v;
		m->nblocks = (int)bfirst.n - 1;
		bfirst.v = batom.v = NULL;
	}
	/* largest: of the blocks drawn by enumeration (s->lw's size) */
	for (int b = 0; b < m->nblocks; b++) {
		int k = m->bfirst[b + 1] - m->bfirst[b];
		if (m->indep && m->indep[b]) {
			if (k > m->largest_indep)
				m->largest_indep = k;
			if (m->indep[b] == 2 && m->bin[b]->npiv > m->largest_piv)
				m->largest_piv = m->bin[b]->npiv;
		} else if (k > m->largest)
			m->largest = k;
	}
	if (make_block_forms(m) < 0 || (lbg == 1 && LBG_STATE &&
	    lbg_state_make(m) < 0))
		goto fail;
	for (int b = 0; b < m->nblocks; b++)
		if (m->ffirst[b + 1] - m->ffirst[b] > m->maxbform)
			m->maxbform = m->ffirst[b + 1] - m->ffirst[b];
	if (m->maxlen < 1)
		m->maxlen = 1;
	free(fat);
	return 0;
fail:
	free(fat);
	free(bfirst.v);
	free(batom.v);
	gb_model_free(m);
	return err_oom(e);
}

void
gb_lbg_free(struct gb_model *m)
{
	free(m->bfirst);
	free(m->batom);
	for (int b = 0; m->bin && b < m->nblocks; b++)
		lbg_binom_free(m->bin[b]);
	free(m->bin);
	for (int b = 0; m->tree && b < m->nblocks; b++)
		lbg_tree_free(m->tree[b]);
	free(m->tree);
	lbg_bundles_free(m->bun);
	lbg_state_free(m->ls);
	m->ls = NULL;
	free(m->indep);
	free(m->cJ);
	free(m->swk);
	free(m->cl);
	free(m->cl_of_pred);
	m->bfirst = m->batom = NULL;
	m->bin = NULL;
	m->tree = NULL;
	m->bun = NULL;
	m->indep = NULL;
	m->cJ = NULL;
	m->swk = NULL;
	m->cl = NULL;
	m->cl_of_pred = NULL;
	m->nblocks = m->ncl = 0;
	m->largest_indep = m->largest_piv = 0;
}

void
gb_model_free(struct gb_model *m)
{
	gb_lbg_free(m);
	free(m->afirst);
	free(m->aform);
	free(m->ffirst);
	free(m->bform);
	memset(m, 0, sizeof *m);
}

int
gb_scratch_new(struct gb_scratch *s, const struct gb_model *m)
{
	size_t nf = m->g->gf.n + 1;

	memset(s, 0, sizeof *s);
	s->stack = xcalloc((size_t)m->maxlen + 1, sizeof *s->stack);
	s->lw = xcalloc((size_t)1 << m->largest, sizeof *s->lw);
	s->mark = xcalloc((size_t)m->maxlen + 1, sizeof *s->mark);
	s->viol = xcalloc(nf, sizeof *s->viol);
	s->vpos = xcalloc(nf, sizeof *s->vpos);
	s->fpos = xcalloc(nf, sizeof *s->fpos);
	s->fval = xcalloc((size_t)m->maxbform + 1, 1);
	if (m->indep) {
		size_t k = (size_t)m->largest_indep + 1, p = (size_t)m->largest_piv;
		size_t nc = (p > LBG_CLASSES ? p : LBG_CLASSES) + 1;
		s->cid = xcalloc(k, sizeof *s->cid);
		s->memb = xcalloc(k, sizeof *s->memb);
		s->ccount = xcalloc(nc, sizeof *s->ccount);
		s->cstart = xcalloc(nc, sizeof *s->cstart);
		s->cslot = xcalloc(2 * LBG_CLASSES, sizeof *s->cslot);
		s->cp = xcalloc(nc, sizeof *s->cp);
		s->ckey = xcalloc(nc, sizeof *s->ckey);
		/* lbg_binom_update: a table row per class and one more */
		s->h = xcalloc(p + 1, sizeof *s->h);
		s->dp = xcalloc((p + 2) * (p + 1), sizeof *s->dp);
		s->dw = xcalloc(p + 2, sizeof *s->dw);
		s->dq = xcalloc((LBG_RB_CLASSES + 2) * (p + 1), sizeof *s->dq);
		s->dg = xcalloc(p + 2, sizeof *s->dg);
		s->pk = xcalloc(p + 2, sizeof *s->pk);
		s->dl = xcalloc(p + 2, sizeof *s->dl);
		if (!s->cid || !s->memb || !s->ccount || !s->cstart ||
		    !s->cslot || !s->cp || !s->ckey || !s->h || !s->dp ||
		    !s->dw || !s->dq || !s->dg || !s->pk || !s->dl) {
			gb_scratch_free(s);
			return -1;
		}
	}
	if (m->ls) {
		size_t k = (size_t)(m->largest > m->largest_indep ? m->largest :
		    m->largest_indep) + 1;
		s->L = xcalloc((size_t)m->n + 1, sizeof *s->L);
		s->xold = xcalloc(k, 1);
		s->xchg = xcalloc(k, sizeof *s->xchg);
		if (!s->L || !s->xold || !s->xchg) {
			gb_scratch_free(s);
			return -1;
		}
	}
	if (m->cJ) {
		size_t q = LBG_CLIQUE_MAX + 2;
		s->qh = xcalloc(q, sizeof *s->qh);
		s->qi = xcalloc(q, sizeof *s->qi);
		s->qz = xcalloc(q, sizeof *s->qz);
		s->qsuf = xcalloc(q * q, sizeof *s->qsuf);
		s->qpre = xcalloc(q * q, sizeof *s->qpre);
		if (!s->qh || !s->qi || !s->qz || !s->qsuf || !s->qpre) {
			gb_scratch_free(s);
			return -1;
		}
	}
	if (m->swk) {
		/* a swap group is a block of kind 5: in largest_indep */
		s->swc = xcalloc((size_t)m->largest_indep + 1, sizeof *s->swc);
		s->swf = xcalloc(nf, sizeof *s->swf);
		s->fstamp = xcalloc(nf, sizeof *s->fstamp);
		if (!s->swc || !s->swf || !s->fstamp) {
			gb_scratch_free(s);
			return -1;
		}
	}
	if (m->bun) {
		s->bd = xcalloc((size_t)m->bun->nb + 1, sizeof *s->bd);
		s->bok = xcalloc((size_t)m->bun->nb + 1, 1);
		s->bstamp = xcalloc((size_t)m->bun->nb + 1, sizeof *s->bstamp);
		if (!s->bd || !s->bok || !s->bstamp) {
			gb_scratch_free(s);
			return -1;
		}
	}
	if (!s->stack || !s->lw || !s->mark || !s->viol || !s->vpos ||
	    !s->fpos || !s->fval) {
		gb_scratch_free(s);
		return -1;
	}
	return 0;
}

void
gb_scratch_free(struct gb_scratch *s)
{
	free(s->stack);
	free(s->lw);
	free(s->mark);
	free(s->viol);
	free(s->vpos);
	free(s->fpos);
	free(s->fval);
	free(s->cid);
	free(s->memb);
	free(s->ccount);
	free(s->cstart);
	free(s->cslot);
	free(s->cp);
	free(s->ckey);
	free(s->h);
	free(s->dp);
	free(s->dw);
	free(s->dq);
	free(s->dg);
	free(s->pk);
	free(s->dl);
	free(s->bd);
	free(s->bok);
	free(s->bstamp);
	free(s->qh);
	free(s->qi);
	free(s->qz);
	free(s->qsuf);
	free(s->qpre);
	free(s->swc);
	free(s->swf);
	free(s->fstamp);
	free(s->L);
	free(s->xold);
	free(s->xchg);
	memset(s, 0, sizeof *s);
}

/* The log weights of block b's 2^k values into s->lw, visited in Gray
 * code order: each step flips one atom and evaluates only its formulas.
 * Leaves the block's atoms at the last value visited. */
static void
block_weights(const struct gb_model *m, int b, unsigned char *x,
    struct gb_scratch *s)
{
	const int *a = m->batom + m->bfirst[b];
	const int *F = m->bform + m->ffirst[b];
	int k = m->bfirst[b + 1] - m->bfirst[b];
	int nf = m->ffirst[b + 1] - m->ffirst[b], nviol = 0;
	uint32_t nv = (uint32_t)1 << k;
	double sum = 0;

	for (int i = 0; i < k; i++)
		x[a[i]] = 0;
	for (int j = 0; j < nf; j++) {
		const struct ground_formula *gf = &m->g->gf.v[F[j]];
		int t = gb_eval(m, F[j], x, s->stack);
		s->fpos[F[j]] = j;
		s->fval[j] = (unsigned char)t;
		if (t && !gf->hard)
			sum += gf->weight;
		else if (!t && gf->hard)
			nviol++;
	}
	s->lw[0] = nviol ? -INFINITY : sum;
	for (uint32_t g = 1; g < nv; g++) {
		int i = __builtin_ctz(g), u = a[i];
		x[u] ^= 1;
		for (int q = m->afirst[u]; q < m->afirst[u + 1]; q++) {
			int f = m->aform[q], j = s->fpos[f];
			const struct ground_formula *gf = &m->g->gf.v[f];
			int t = gb_eval(m, f, x, s->stack);
			if (t == s->fval[j])
				continue;
			s->fval[j] = (unsigned char)t;
			if (gf->hard)
				nviol += t ? -1 : 1;
			else
				sum += t ? gf->weight : -gf->weight;
		}
		s->lw[g ^ (g >> 1)] = nviol ? -INFINITY : sum;
	}
}

void
gb_update(const struct gb_model *m, int b, unsigned char *x, double *cur,
    struct gb_scratch *s, struct eng_rng *r)
{
	block_weights(m, b, x, s);
	gb_draw_lw(m->batom + m->bfirst[b], m->bfirst[b + 1] - m->bfirst[b],
	    s->lw, x, cur, r);
}

void
gb_draw_lw(const int *a, int k, double *lw, unsigned char *x, double *cur,
    struct eng_rng *r)
{
	uint32_t nv = (uint32_t)1 << k, pick = 0;
	double max = -INFINITY, total = 0, u;

	for (uint32_t v = 0; v < nv; v++)
		if (lw[v] > max)
			max = lw[v];
	/* the current value is allowed, so max is finite */
	for (uint32_t v = 0; v < nv; v++) {
		lw[v] = lw[v] == -INFINITY ? 0 : exp(lw[v] - max);
		total += lw[v];
	}
	u = eng_rng_unit(r) * total;
	for (int i = 0; i < k; i++)
		cur[a[i]] = 0;
	for (uint32_t v = 0; v < nv; v++) {
		double w = lw[v];
		if (w == 0)
			continue;
		if (u >= 0) {
			pick = v;
			u -= w;
		}
		for (int i = 0; i < k; i++)
			if ((v >> i) & 1)
				cur[a[i]] += w;
	}
	for (int i = 0; i < k; i++) {
		x[a[i]] = (unsigned char)((pick >> i) & 1);
		cur[a[i]] /= total;
	}
}

/* WalkSAT's bookkeeping: f violated or not. */
static void
viol_set(struct gb_scratch *s, int f, int violated)
{
	if (violated && s->vpos[f] < 0) {
		s->vpos[f] = s->nviol;
		s->viol[s->nviol++] = f;
	} else if (!violated && s->vpos[f] >= 0) {
		int last = s->viol[--s->nviol];
		s->viol[s->vpos[f]] = last;
		s->vpos[last] = s->vpos[f];
		s->vpos[f] = -1;
	}
}

/* Hard formulas of u that a flip of u would make false. */
static int
break_count(const struct gb_model *m, int u, unsigned char *x,
    struct gb_scratch *s)
{
	int nb = 0;

	x[u] ^= 1;
	for (int j = m->afirst[u]; j < m->afirst[u + 1]; j++) {
		int f = m->aform[j];
		if (m->g->gf.v[f].hard && s->vpos[f] < 0 &&
		    !gb_eval(m, f, x, s->stack))
			nb++;
	}
	x[u] ^= 1;
	return nb;
}

int
gb_walksat(const struct gb_model *m, unsigned char *x, struct gb_scratch *s,
    struct eng_rng *r)
{
	const struct ground *g = m->g;
	int64_t flips = 0, max_flips = 1000000 + 100 * (int64_t)m->n;

	s->nviol = 0;
	for (size_t f = 0; f < g->gf.n; f++) {
		s->vpos[f] = -1;
		if (g->gf.v[f].hard && !gb_eval(m, (int)f, x, s->stack))
			viol_set(s, (int)f, 1);
	}
	while (s->nviol > 0) {
		int f = s->viol[(int)(eng_rng_unit(r) * s->nviol)], k, u;
		if (flips++ >= max_flips)
			return -1;
		k = gb_form_atoms(g, f, s->mark);
		if (eng_rng_unit(r) < 0.5)
			u = s->mark[(int)(eng_rng_unit(r) * k)];
		else {
			int best = -1;
			u = s->mark[0];
			for (int i = 0; i < k; i++) {
				int nb = break_count(m, s->mark[i], x, s);
				if (best < 0 || nb < best) {
					best = nb;
					u = s->mark[i];
				}
			}
		}
		x[u] ^= 1;
		for (int j = m->afirst[u]; j < m->afirst[u + 1]; j++) {
			int h = m->aform[j];
			if (g->gf.v[h].hard)
				viol_set(s, h, !gb_eval(m, h, x, s->stack));
		}
	}
	return 0;
}
