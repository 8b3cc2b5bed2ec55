/* lbg-coupled.c: the blocks of a cluster that lbg cannot lift (its groups
 * are too large): its strongly coupled atoms drawn together, so that
 * atoms that heavy formulas hold in a pattern (A xor B; at most one of a
 * paper's categories) move together instead of waiting for a flip
 * through a world of low weight.
 *
 * Pairs of atoms, heaviest first (the summed |weight| of the formulas
 * that hold both), become blocks; where their formulas allow, cliques:
 * atoms every two of which meet only in soft formulas of those two
 * unknown atoms alone, with the same interaction J in all pairs.  Given
 * the rest a clique's weight is exp(sum_i h_i x_i + J K(K-1)/2), K its
 * true atoms, drawn exactly by the sum over counts
 * (lbg_clique_update); another pair is drawn by enumeration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"
#include "util/util.h"

/* Formulas with more atoms of the cluster than this add no pairing
 * weight: they couple each pair more weakly, and their pairs grow as
 * k^2.  Past CLIQUE_FORM_MAX a formula's atoms join no clique. */
#define PAIR_FORM_MAX 4
#define CLIQUE_FORM_MAX 64
/* Pairs collected at most: past it there are no cliques, and the
 * matching works on the formulas read so far. */
#define PAIR_EDGES_MAX (1 << 22)

struct edge {
	int u, v;
	float w;               /* pairing weight: sum of |weight| */
	unsigned char impure;  /* a formula of both that is hard or holds
	                          another unknown atom */
	double J;              /* sum of the pure formulas' interactions */
};

static int
by_atoms(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* heaviest first; ties by atoms, so the blocks are the same on every
 * machine */
static int
by_weight(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return by_atoms(a, b);
}

double
lbg_interaction(const struct gb_model *m, int f, int u, int v, unsigned char *x,
    int *stack)
{
	double t = 0;

	for (int s = 0; s < 4; s++) {
		x[u] = (unsigned char)(s & 1);
		x[v] = (unsigned char)(s >> 1);
		if (gb_eval(m, f, x, stack))
			t += s == 0 || s == 3 ? 1 : -1;
	}
	x[u] = x[v] = 0;
	return m->g->gf.v[f].weight * t;
}

struct coll {
	struct edge *e;
	size_t n, cap;
	int full;              /* PAIR_EDGES_MAX reached */
};

static int
push(struct coll *c, int a, int b, float w, int pure, double J)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 1024;
		struct edge *t = xrealloc(c->e, nc * sizeof *t);
		if (!t)
			return -1;
		c->e = t;
		c->cap = nc;
	}
	c->e[c->n].u = a < b ? a : b;
	c->e[c->n].v = a < b ? b : a;
	c->e[c->n].w = w;
	c->e[c->n].impure = (unsigned char)!pure;
	c->e[c->n++].J = J;
	return 0;
}

/* Every pair of atoms of one label that share a formula, with its
 * pairing weight, purity and J; noclique[u]: u lies in a formula of more
 * than CLIQUE_FORM_MAX atoms of its label. */
static int
collect(const struct gb_model *m, const int *in, int *fat, struct coll *c,
    unsigned char *noclique, unsigned char *x, int *stack)
{
	const struct ground *g = m->g;
	int a[CLIQUE_FORM_MAX];

	for (size_t f = 0; f < g->gf.n; f++) {
		const struct ground_formula *gf = &g->gf.v[f];
		int k = gb_form_atoms(g, (int)f, fat), cnt = 0, pure;
		float w;
		if (!gf->hard && gf->weight == 0)
			continue;
		for (int i = 0; i < k; i++)
			if (in[fat[i]] && cnt++ < CLIQUE_FORM_MAX)
				a[cnt - 1] = fat[i];
		if (cnt < 2)
			continue;
		if (cnt > CLIQUE_FORM_MAX) {
			for (int i = 0; i < k; i++)
				if (in[fat[i]])
					noclique[fat[i]] = 1;
			continue;
		}
		pure = !gf->hard && k == 2;
		w = !gf->hard && cnt <= PAIR_FORM_MAX ? (float)fabs(gf->weight) :
		    0;
		for (int i = 0; i < cnt; i++)
			for (int j = i + 1; j < cnt; j++) {
				if (in[a[i]] != in[a[j]])
					continue;
				if (c->n == PAIR_EDGES_MAX) {
					c->full = 1;
					return 0;
				}
				if (push(c, a[i], a[j], w, pure, pure ?
				    lbg_interaction(m, (int)f, a[i], a[j], x, stack) :
				    0) < 0)
					return -1;
			}
	}
	return 0;
}

/* The merged edge of atoms u < v, or NULL (e sorted by atoms). */
static const struct edge *
find(const struct edge *e, size_t n, int u, int v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].u < u || (e[mid].u == u && e[mid].v < v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].u == u && e[lo].v == v ? &e[lo] : NULL;
}

static int
same_J(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1);
}

/* Whether cliques A and B (members listed from their roots by next[])
 * joined make a clique of interaction J: every cross pair pure with J. */
static int
joinable(const struct edge *e, size_t n, const int *next, int ra, int rb,
    double J)
{
	for (int a = ra; a >= 0; a = next[a])
		for (int b = rb; b >= 0; b = next[b]) {
			const struct edge *p = find(e, n, a < b ? a : b, a < b ? b : a);
			if (!p || p->impure || !same_J(p->J, J))
				return 0;
		}
	return 1;
}

/* Kruskal on the edges byw, heaviest first (e: the same sorted by atoms,
 * for the cross pairs' lookups): an edge of two single atoms makes
 * them a clique when it is pure, else a pair; one that would join
 * cliques (or a clique and a single atom) joins them when the union is
 * still a clique.  Without cliques (cl 0) only pairs. */
static void
couple(struct lbg_coupled *out, const struct edge *e, size_t n,
    const struct edge *byw, const unsigned char *noclique, int *tail, int cl)
{
	int *root = out->root, *size = out->size, *next = out->next,
	    *mate = out->mate;

	for (size_t i = 0; i < n; i++) {
		const struct edge *p = &byw[i];
		int ra = root[p->u], rb = root[p->v], pure;
		double J;
		if (ra == rb || mate[p->u] >= 0 || mate[p->v] >= 0)
			continue;
		pure = cl && !p->impure && p->J != 0 && !noclique[p->u] &&
		    !noclique[p->v];
		if (!pure) {
			if (p->w > 0 && size[ra] == 1 && size[rb] == 1) {
				mate[p->u] = p->v;
				mate[p->v] = p->u;
			}
			continue;
		}
		if (size[ra] + size[rb] > LBG_CLIQUE_MAX)
			continue;
		J = size[ra] > 1 ? out->J[ra] : size[rb] > 1 ? out->J[rb] : p->J;
		if ((size[ra] > 1 && !same_J(out->J[ra], J)) ||
		    (size[rb] > 1 && !same_J(out->J[rb], J)) ||
		    !joinable(e, n, next, ra, rb, J))
			continue;
		if (rb < ra) {
			int t = ra;
			ra = rb;
			rb = t;
		}
		/* rb's members appended to ra's list */
		next[tail[ra]] = rb;
		tail[ra] = tail[rb];
		for (int b = rb; b >= 0; b = next[b])
			root[b] = ra;
		size[ra] += size[rb];
		size[rb] = 0;
		out->J[ra] = J;
	}
}

int
lbg_coupled(const struct gb_model *m, const int *in, int *fat,
    struct lbg_coupled *out)
{
	struct coll c = { 0 };
	struct edge *byw = NULL;
	size_t d = 0;
	int *next, *tail;
	int *stack = xcalloc((size_t)m->maxlen + 1, sizeof *stack);
	unsigned char *noclique = xcalloc((size_t)m->n + 1, 1);
	unsigned char *x = xcalloc((size_t)m->n + 1, 1);
	int rc = -1;

	memset(out, 0, sizeof *out);
	next = out->next = xcalloc((size_t)m->n + 1, sizeof *next);
	tail = xcalloc((size_t)m->n + 1, sizeof *tail);
	out->root = xcalloc((size_t)m->n + 1, sizeof *out->root);
	out->size = xcalloc((size_t)m->n + 1, sizeof *out->size);
	out->J = xcalloc((size_t)m->n + 1, sizeof *out->J);
	out->mate = xcalloc((size_t)m->n + 1, sizeof *out->mate);
	if (!next || !tail || !stack || !noclique || !x || !out->root ||
	    !out->size || !out->J || !out->mate)
		goto done;
	for (int u = 0; u < m->n; u++) {
		out->root[u] = u;
		out->size[u] = 1;
		out->mate[u] = -1;
		next[u] = -1;
		tail[u] = u;
	}
	if (collect(m, in, fat, &c, noclique, x, stack) < 0)
		goto done;
	if (c.n == 0) {
		rc = 0;
		goto done;
	}
	/* one edge per pair of atoms: weights and J summed, impure if any */
	qsort(c.e, c.n, sizeof *c.e, by_atoms);
	for (size_t i = 1; i < c.n; i++)
		if (c.e[i].u == c.e[d].u && c.e[i].v == c.e[d].v) {
			c.e[d].w += c.e[i].w;
			c.e[d].J += c.e[i].J;
			c.e[d].impure |= c.e[i].impure;
		} else
			c.e[++d] = c.e[i];
	c.n = d + 1;
	/* a copy by weight to walk; c.e stays by atoms for the lookups */
	if (!(byw = xcalloc(c.n, sizeof *byw)))
		goto done;
	memcpy(byw, c.e, c.n * sizeof *byw);
	qsort(byw, c.n, sizeof *byw, by_weight);
	couple(out, c.e, c.n, byw, noclique, tail, !c.full);
	rc = 0;
done:
	free(c.e);
	free(byw);
	free(tail);
	free(stack);
	free(noclique);
	free(x);
	return rc;
}

void
lbg_coupled_free(struct lbg_coupled *c)
{
	free(c->root);
	free(c->size);
	free(c->J);
	free(c->mate);
	free(c->next);
	memset(c, 0, sizeof *c);
}

/* Clique block b: with the other atoms of the clique false, each atom's
 * log-odds h_i from its formulas (a hard one makes it forced); then
 * log e_t of the free atoms' e^h by suffix and prefix tables, K drawn
 * from exp(J K(K-1)/2) e_K (K counting the forced true atoms too), which
 * atoms given K from the suffix table, and each atom's marginal
 * sum_K exp(J K(K-1)/2) e^h_i e_{K-1}(the others) / Z. */
void
lbg_clique_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r)
{
	const int *a = m->batom + m->bfirst[b];
	int k = m->bfirst[b + 1] - m->bfirst[b], q = 0, f = 0, w = k + 1;
	double J = m->cJ[b], *lh = s->qh, *S = s->qsuf, *P = s->qpre,
	    *lz = s->qz, Z = -INFINITY, u;
	int *fr = s->qi, forced[LBG_CLIQUE_MAX];

	for (int i = 0; i < k; i++)
		x[a[i]] = 0;
	for (int i = 0; i < k; i++) {
		int v = a[i];
		unsigned char bad;
		double h = lbg_logodds(m, v, m->aform + m->afirst[v],
		    m->afirst[v + 1] - m->afirst[v], x, s->stack, &bad);
		if (bad & 2)
			cur[v] = 0;        /* true breaks a hard formula */
		else if (bad & 1) {
			cur[v] = 1;        /* false does */
			forced[f++] = i;
		} else {
			lh[q] = h;
			fr[q++] = i;
		}
	}
	/* the forced atoms true only now: every h_i is with the others
	 * false (their pairs count in J K(K-1)/2) */
	for (int i = 0; i < f; i++)
		x[a[forced[i]]] = 1;
	/* S[j * w + t] = log e_t(e^lh[j .. q)), P[j * w + t] of [0 .. j) */
	for (int t = 0; t <= q; t++)
		S[q * w + t] = P[t] = t ? -INFINITY : 0;
	for (int j = q - 1; j >= 0; j--)
		for (int t = 0; t <= q; t++)
			S[j * w + t] = t ? log_add(S[(j + 1) * w + t],
			    lh[j] + S[(j + 1) * w + t - 1]) : 0;
	for (int j = 1; j <= q; j++)
		for (int t = 0; t <= q; t++)
			P[j * w + t] = t ? log_add(P[(j - 1) * w + t],
			    lh[j - 1] + P[(j - 1) * w + t - 1]) : 0;
	for (int t = 0; t <= q; t++) {
		double K = f + t;
		lz[t] = J * K * (K - 1) / 2 + S[t];
		Z = log_add(Z, lz[t]);
	}
	/* each free atom's marginal */
	for (int j = 0; j < q; j++) {
		double pj = -INFINITY;
		for (int t = 1; t <= q; t++) {
			double e = -INFINITY, K = f + t;
			for (int c = 0; c <= t - 1; c++)
				e = log_add(e, P[j * w + c] + S[(j + 1) * w + t - 1 - c]);
			pj = log_add(pj, J * K * (K - 1) / 2 + lh[j] + e);
		}
		cur[a[fr[j]]] = exp(pj - Z);
	}
	/* K, then which atoms */
	u = eng_rng_unit(r);
	{
		int t = 0, left;
		for (; t < q; t++) {
			u -= exp(lz[t] - Z);
			if (u < 0)
				break;
		}
		left = t;
		for (int j = 0; j < q && left > 0; j++) {
			double pj = exp(lh[j] + S[(j + 1) * w + left - 1] -
			    S[j * w + left]);
			if (eng_rng_unit(r) < pj) {
				x[a[fr[j]]] = 1;
				left--;
			}
		}
	}
}
