/* lbg-pair.c: the blocks of a cluster that lbg cannot lift (its groups
 * are too large): its atoms paired by how strongly the soft formulas
 * couple them, so that two atoms held in opposite values (A xor B under
 * heavy formulas) move together instead of waiting for a flip through a
 * world of low weight. */
#include <math.h>
#include <stdlib.h>

#include "sample/gibbs-int.h"

/* Formulas with more atoms of the cluster than this add no pairs: they
 * couple each pair more weakly, and their pairs grow as k^2. */
#define PAIR_FORM_MAX 4
/* Pairs collected at most (12 bytes each): past it the matching works
 * on the formulas read so far. */
#define PAIR_EDGES_MAX (1 << 22)

struct edge {
	int u, v;
	float w;
};

static int
by_atoms(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* heaviest first; ties by atoms, so the matching is the same on every
 * machine */
static int
by_weight(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return by_atoms(a, b);
}

int
lbg_pairs(const struct gb_model *m, const int *in, int *fat, int *mate)
{
	const struct ground *g = m->g;
	struct edge *e = NULL;
	size_t n = 0, cap = 0, d = 0;

	for (int u = 0; u < m->n; u++)
		mate[u] = -1;
	for (size_t f = 0; f < g->gf.n && n < PAIR_EDGES_MAX; f++) {
		int k, c = 0, a[PAIR_FORM_MAX];
		if (g->gf.v[f].hard || g->gf.v[f].weight == 0)
			continue;
		k = gb_form_atoms(g, (int)f, fat);
		for (int i = 0; i < k && c <= PAIR_FORM_MAX; i++)
			if (in[fat[i]] && c++ < PAIR_FORM_MAX)
				a[c - 1] = fat[i];
		if (c < 2 || c > PAIR_FORM_MAX)
			continue;
		for (int i = 0; i < c; i++)
			for (int j = i + 1; j < c; j++) {
				if (in[a[i]] != in[a[j]])
					continue;
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 1024;
					struct edge *t = xrealloc(e, nc * sizeof *e);
					if (!t) {
						free(e);
						return -1;
					}
					e = t;
					cap = nc;
				}
				e[n].u = a[i] < a[j] ? a[i] : a[j];
				e[n].v = a[i] < a[j] ? a[j] : a[i];
				e[n++].w = (float)fabs(g->gf.v[f].weight);
			}
	}
	if (n == 0) {
		free(e);
		return 0;
	}
	/* one edge per pair of atoms, its formulas' weights summed */
	qsort(e, n, sizeof *e, by_atoms);
	for (size_t i = 1; i < n; i++)
		if (e[i].u == e[d].u && e[i].v == e[d].v)
			e[d].w += e[i].w;
		else
			e[++d] = e[i];
	n = d + 1;
	/* greedy matching, heaviest pair first */
	qsort(e, n, sizeof *e, by_weight);
	for (size_t i = 0; i < n; i++)
		if (mate[e[i].u] < 0 && mate[e[i].v] < 0) {
			mate[e[i].u] = e[i].v;
			mate[e[i].v] = e[i].u;
		}
	free(e);
	return 0;
}
