/* lbg-swap.c: label swaps between aligned cliques (lbg-coupled.c).
 * Where strong pair formulas hold cliques alike (papers that cite each
 * other share a category; each paper's categories are a clique), one
 * clique's draw keeps the group's common pattern, and the group leaves
 * it only through worlds of low weight.  A swap of two positions in
 * every clique of the group at once, kept by Metropolis, moves the whole
 * group from one pattern to another in one step. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"
#include "util/util.h"

/* A pure formula f of the atom at position pa of clique ra and the one
 * at pb of clique rb (ra < rb: their roots), with its interaction. */
struct link {
	int ra, rb, pa, pb, f;
	double J;
};
typedef VEC(struct link) lvec;
typedef VEC(int) ivec;

static int
by_link(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->ra != y->ra)
		return x->ra < y->ra ? -1 : 1;
	if (x->rb != y->rb)
		return x->rb < y->rb ? -1 : 1;
	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	return x->pb < y->pb ? -1 : x->pb > y->pb;
}

/* by_link, then by formula: the interactions of a pair of positions are
 * summed in the same order on every machine */
static int
by_link_f(const void *a, const void *b)
{
	const struct link *x = a, *y = b;
	int c = by_link(a, b);

	return c ? c : x->f < y->f ? -1 : x->f > y->f;
}

/* The atom at position p of the clique rooted at r. */
static int
at(const struct lbg_coupled *cp, int r, int p)
{
	int v = r;

	while (p-- > 0)
		v = cp->next[v];
	return v;
}

/* Every pure soft formula of two atoms of different cliques of the same
 * size and label, merged per pair of positions (interactions summed). */
static int
collect(const struct gb_model *m, const int *in, const struct lbg_coupled *cp,
    const int *pos, int *fat, lvec *L)
{
	const struct ground *g = m->g;
	unsigned char *x = xcalloc((size_t)m->n + 1, 1);
	int *stack = xcalloc((size_t)m->maxlen + 1, sizeof *stack);
	size_t d = 0;
	int rc = -1;

	if (!x || !stack)
		goto done;
	for (size_t f = 0; f < g->gf.n; f++) {
		const struct ground_formula *gf = &g->gf.v[f];
		struct link l;
		int u, v, ru, rv;
		if (gf->hard || gf->weight == 0 ||
		    gb_form_atoms(g, (int)f, fat) != 2)
			continue;
		u = fat[0];
		v = fat[1];
		ru = cp->root[u];
		rv = cp->root[v];
		if (ru == rv || cp->size[ru] < 2 || cp->size[ru] != cp->size[rv] ||
		    !in[u] || in[u] != in[v])
			continue;
		l.ra = ru < rv ? ru : rv;
		l.rb = ru < rv ? rv : ru;
		l.pa = pos[ru < rv ? u : v];
		l.pb = pos[ru < rv ? v : u];
		l.f = (int)f;
		l.J = lbg_interaction(m, (int)f, u, v, x, stack);
		if (VEC_PUSH(*L, l) < 0)
			goto done;
	}
	if (L->n > 0) {
		qsort(L->v, L->n, sizeof *L->v, by_link_f);
		for (size_t i = 1; i < L->n; i++)
			if (by_link(&L->v[i], &L->v[d]) == 0)
				L->v[d].J += L->v[i].J;
			else
				L->v[++d] = L->v[i];
		L->n = d + 1;
	}
	rc = 0;
done:
	free(x);
	free(stack);
	return rc;
}

/* The n links l[] of cliques ra, rb: an alignment when those of
 * positive interaction pair their k positions one to one; then map[p]
 * is rb's position for ra's p, inv the reverse. */
static int
aligned(const struct link *l, size_t n, int k, int *map, int *inv)
{
	uint32_t sa = 0, sb = 0;
	int c = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(l[i].J > 0))
			continue;
		if ((sa >> l[i].pa & 1) || (sb >> l[i].pb & 1))
			return 0;
		sa |= 1u << l[i].pa;
		sb |= 1u << l[i].pb;
		map[l[i].pa] = l[i].pb;
		inv[l[i].pb] = l[i].pa;
		c++;
	}
	return c == k;
}

/* The aligned pairs as adjacency lists over the roots: nfirst[r] ..
 * nfirst[r + 1] in nb (the other root) and nmap (the offset in maps of
 * the position map from r to it). */
struct adj {
	int *nfirst, *nb, *nmap;
	ivec maps;
	ivec ends;             /* per aligned pair: ra, rb, the map's offset */
};

static int
adjacency(const struct gb_model *m, const struct lbg_coupled *cp,
    const lvec *L, struct adj *A)
{
	int map[LBG_CLIQUE_MAX], inv[LBG_CLIQUE_MAX], *fill;

	for (size_t i = 0, j; i < L->n; i = j) {
		int k = cp->size[L->v[i].ra];
		for (j = i; j < L->n && L->v[j].ra == L->v[i].ra &&
		    L->v[j].rb == L->v[i].rb; j++)
			;
		if (!aligned(L->v + i, j - i, k, map, inv))
			continue;
		if (VEC_PUSH(A->ends, L->v[i].ra) < 0 ||
		    VEC_PUSH(A->ends, L->v[i].rb) < 0 ||
		    VEC_PUSH(A->ends, (int)A->maps.n) < 0)
			return -1;
		for (int p = 0; p < 2 * k; p++)
			if (VEC_PUSH(A->maps, p < k ? map[p] : inv[p - k]) < 0)
				return -1;
	}
	A->nfirst = xcalloc((size_t)m->n + 2, sizeof *A->nfirst);
	A->nb = xcalloc(2 * (A->ends.n / 3) + 1, sizeof *A->nb);
	A->nmap = xcalloc(2 * (A->ends.n / 3) + 1, sizeof *A->nmap);
	fill = xcalloc((size_t)m->n + 1, sizeof *fill);
	if (!A->nfirst || !A->nb || !A->nmap || !fill) {
		free(fill);
		return -1;
	}
	for (size_t e = 0; e < A->ends.n; e += 3) {
		A->nfirst[A->ends.v[e] + 1]++;
		A->nfirst[A->ends.v[e + 1] + 1]++;
	}
	for (int u = 0; u < m->n; u++)
		A->nfirst[u + 1] += A->nfirst[u];
	for (size_t e = 0; e < A->ends.n; e += 3) {
		int a = A->ends.v[e], b = A->ends.v[e + 1], o = A->ends.v[e + 2];
		int k = cp->size[a], ia = A->nfirst[a] + fill[a]++,
		    ib = A->nfirst[b] + fill[b]++;
		A->nb[ia] = b;
		A->nmap[ia] = o;
		A->nb[ib] = a;
		A->nmap[ib] = o + k;
	}
	free(fill);
	return 0;
}

/* The groups, breadth first over the aligned pairs from each clique not
 * yet in one, in atom order; canon: per clique member j of the group,
 * the positions aligned with the first clique's 0 .. k-1. */
static int
group(const struct gb_model *m, const struct lbg_coupled *cp,
    const struct adj *A, struct lbg_swaps *out)
{
	ivec first = { 0 }, atom = { 0 }, ks = { 0 };
	unsigned char *seen = xcalloc((size_t)m->n + 1, 1);
	int *q = xcalloc(LBG_SWAP_MAX, sizeof *q);
	int (*canon)[LBG_CLIQUE_MAX] = xcalloc(LBG_SWAP_MAX, sizeof *canon);
	int rc = -1;

	if (!seen || !q || !canon)
		goto done;
	for (int r = 0; r < m->n; r++) {
		int k = cp->size[r], nq = 0;
		if (cp->root[r] != r || k < 2 || seen[r] ||
		    A->nfirst[r] == A->nfirst[r + 1])
			continue;
		seen[r] = 1;
		q[nq++] = r;
		for (int p = 0; p < k; p++)
			canon[0][p] = p;
		for (int h = 0; h < nq && nq < LBG_SWAP_MAX; h++)
			for (int e = A->nfirst[q[h]]; e < A->nfirst[q[h] + 1] &&
			    nq < LBG_SWAP_MAX; e++) {
				int b = A->nb[e];
				const int *mp = A->maps.v + A->nmap[e];
				if (seen[b])
					continue;
				seen[b] = 1;
				for (int p = 0; p < k; p++)
					canon[nq][p] = mp[canon[h][p]];
				q[nq++] = b;
			}
		if (nq < 2)
			continue;
		if (VEC_PUSH(first, (int)atom.n) < 0 || VEC_PUSH(ks, k) < 0)
			goto done;
		for (int j = 0; j < nq; j++)
			for (int p = 0; p < k; p++)
				if (VEC_PUSH(atom, at(cp, q[j], canon[j][p])) < 0)
					goto done;
	}
	if (VEC_PUSH(first, (int)atom.n) < 0)
		goto done;
	out->n = (int)ks.n;
	out->first = first.v;
	out->atom = atom.v;
	out->k = ks.v;
	first.v = atom.v = ks.v = NULL;
	rc = 0;
done:
	free(first.v);
	free(atom.v);
	free(ks.v);
	free(seen);
	free(q);
	free(canon);
	return rc;
}

int
lbg_swap_groups(const struct gb_model *m, const int *in,
    const struct lbg_coupled *cp, int *fat, struct lbg_swaps *out)
{
	lvec L = { 0 };
	struct adj A = { 0 };
	int *pos = xcalloc((size_t)m->n + 1, sizeof *pos), rc = -1;

	memset(out, 0, sizeof *out);
	if (!pos)
		goto done;
	for (int r = 0; r < m->n; r++)
		if (cp->root[r] == r) {
			int p = 0;
			for (int v = r; v >= 0; v = cp->next[v])
				pos[v] = p++;
		}
	if (collect(m, in, cp, pos, fat, &L) < 0 ||
	    adjacency(m, cp, &L, &A) < 0 || group(m, cp, &A, out) < 0)
		goto done;
	rc = 0;
done:
	free(pos);
	free(L.v);
	free(A.nfirst);
	free(A.nb);
	free(A.nmap);
	free(A.maps.v);
	free(A.ends.v);
	return rc;
}

void
lbg_swaps_free(struct lbg_swaps *sw)
{
	free(sw->first);
	free(sw->atom);
	free(sw->k);
	memset(sw, 0, sizeof *sw);
}

/* log W of x over formulas F[0..n): -inf when a hard one is false. */
static double
score(const struct gb_model *m, const int *F, int n, const unsigned char *x,
    int *stack)
{
	double sum = 0;

	for (int j = 0; j < n; j++) {
		const struct ground_formula *gf = &m->g->gf.v[F[j]];
		int t = gb_eval(m, F[j], x, stack);
		if (gf->hard && !t)
			return -INFINITY;
		if (t && !gf->hard)
			sum += gf->weight;
	}
	return sum;
}

void
lbg_swap_update(const struct gb_model *m, int b, unsigned char *x,
    struct gb_scratch *s, struct eng_rng *r)
{
	const int *a = m->batom + m->bfirst[b];
	int n = m->bfirst[b + 1] - m->bfirst[b], k = m->swk[b];
	int pi = -1, pj = -1;

	/* k - 1 proposals, never the same pair twice in a row (it would
	 * undo the last: with k = 2 every sweep ended where it began) */
	for (int t = 0; t < k - 1; t++) {
		int i, j, nc = 0, nf = 0;
		double before, after;
		do {
			i = (int)(eng_rng_unit(r) * k);
			j = (int)(eng_rng_unit(r) * (k - 1));
			j += j >= i;
		} while ((i == pi && j == pj) || (i == pj && j == pi));
		pi = i;
		pj = j;
		/* exchanging two different values flips both */
		for (int c = 0; c < n; c += k)
			if (x[a[c + i]] != x[a[c + j]]) {
				s->swc[nc++] = a[c + i];
				s->swc[nc++] = a[c + j];
			}
		if (nc == 0)
			continue;
		if (++s->fst == 0) {
			memset(s->fstamp, 0, (m->g->gf.n + 1) * sizeof *s->fstamp);
			s->fst = 1;
		}
		for (int c = 0; c < nc; c++) {
			int u = s->swc[c];
			for (int e = m->afirst[u]; e < m->afirst[u + 1]; e++)
				if (s->fstamp[m->aform[e]] != s->fst) {
					s->fstamp[m->aform[e]] = s->fst;
					s->swf[nf++] = m->aform[e];
				}
		}
		before = score(m, s->swf, nf, x, s->stack);
		for (int c = 0; c < nc; c++)
			x[s->swc[c]] ^= 1;
		after = score(m, s->swf, nf, x, s->stack);
		if (after == -INFINITY || (after < before &&
		    eng_rng_unit(r) >= exp(after - before)))
			for (int c = 0; c < nc; c++)
				x[s->swc[c]] ^= 1;
	}
}
