/* cellgraph.c: the cell-graph rule for a component of two-variable
 * clauses: Z as a sum over how many constants of each block fall in
 * each cell, with per-cell and per-pair weights
 * (docs/internals/lifted.md, "The cell-graph rule"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* Bounds of the rule: blocks in the component, classes of one constant
 * (bits of a cell), atoms between two constants, cells in all, and the
 * count vectors the sum may visit. */
#define CG_MAX_BLOCKS 16
#define CG_MAX_BITS 8
#define CG_MAX_PAIR 10
#define CG_MAX_CELLS 256
#define CG_MAX_TERMS 1e30
/* Sums of fewer vectors are taken in full; of up to CG_FULL_TERMS, in
 * full where the pruned sum gives up. */
#define CG_PRUNE_TERMS 1e5
#define CG_FULL_TERMS 4e6
/* Work of a pruned sum (lifted/cgsum.c) in its first round of block
 * orders; each round has 10 times the last's, CG_ROUNDS in all.  Sums
 * past CG_FULL_TERMS are pruned only with at most CG_MAX_FREE groups in
 * a block. */
#define CG_BUDGET 3e7
#define CG_ROUNDS 2
#define CG_MAX_FREE 4
/* Work of the large pruned sums an engine gave up, past which it
 * leaves them to the other rules (the binomial's children repeat
 * them). */
#define CG_WASTE 1e8
/* Clause evaluations the pair weights may take in all. */
#define CG_MAX_WORK 3e7

/* Where a literal of a grounding reads its truth value: a bit of the
 * first or second constant's cell, or an atom between the two. */
enum { SRC_A, SRC_B, SRC_PAIR };

struct cg {
	struct eng *g;
	const struct th *t;
	const struct index *ix;
	int nb, blk[CG_MAX_BLOCKS];    /* blocks used, in t's numbering */
	int *lb;               /* per block of t: its place in blk[], or -1 */
	int *bit;              /* per class: its bit in its block's cell or -1 */
	int nbits[CG_MAX_BLOCKS];
	int cell0[CG_MAX_BLOCKS + 1];  /* first global cell of each block */
	double *lw;            /* per cell: log weight */
	double *lr;            /* per pair of cells: log pair weight */
	int ncell;
	double work;           /* clause evaluations so far */
};

/* One literal of a ground clause, as its source and polarity. */
struct glit {
	int src, idx, neg;
};

struct gcl {
	double w;
	int hard, n;
	struct glit l[MAX_VARS];
};

static double
gcl_eval(const struct gcl *c, unsigned ca, unsigned cb, unsigned pair)
{
	for (int k = 0; k < c->n; k++) {
		const struct glit *l = &c->l[k];
		unsigned v = l->src == SRC_A ? ca : l->src == SRC_B ? cb : pair;
		if ((int)((v >> l->idx) & 1) != l->neg)
			return c->hard ? 0 : c->w;
	}
	return c->hard ? -INFINITY : 0;
}

static int
lit_vars(const struct eng *g, const struct cl *c, const struct lit *l,
    int *u, int *v)
{
	int a = arity(g, l->pred);

	*u = c->arg[l->off];
	*v = a == 2 ? c->arg[l->off + 1] : *u;
	return a;
}

/* Whether the rule applies to the shape of t: fills the blocks and the
 * cell bits. */
static int
cg_shape(struct cg *s)
{
	const struct th *t = s->t;
	const struct index *ix = s->ix;
	const struct eng *g = s->g;
	int selfjoin = 0;

	for (int b = 0; b < t->nb; b++)
		s->lb[b] = -1;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		int seen[2] = { 0, 0 };
		if (c->nvars < 1 || c->nvars > 2 || c->tag)
			return 0;
		for (int k = 0; k < c->nlits; k++) {
			int u, v, a = lit_vars(g, c, &c->lit[k], &u, &v);
			if (a < 1 || a > 2)
				return 0;
			/* two variables of one block in a literal are apart */
			if (u != v && c->blk[u] == c->blk[v] && !cl_has_neq(c, u, v))
				return 0;
			seen[u] = seen[v] = 1;
		}
		for (int v = 0; v < c->nvars; v++) {
			int b = c->blk[v];
			if (!seen[v])
				return 0;
			if (s->lb[b] < 0) {
				if (s->nb == CG_MAX_BLOCKS)
					return 0;
				s->lb[b] = s->nb;
				s->blk[s->nb++] = b;
			}
		}
	}
	for (int k = 0; k < ix->ncls; k++) {
		const int *key = ix->occ[ix->first[k]].key;
		int b = s->lb[key[1]];
		s->bit[k] = -1;
		if (arity(g, key[0]) == 1 || key[4] == 0) {
			if (s->nbits[b] == CG_MAX_BITS)
				return 0;
			s->bit[k] = s->nbits[b]++;
		} else if (t->type[key[1]] == t->type[key[3]])
			selfjoin = 1;
	}
	/* Without a binary class over one type the binomial and the power
	 * rule lift the theory at least as well (bipartite clauses, as in
	 * Kazemi & Poole's graphs, take O(n) nodes there and O(n^2)
	 * count vectors here). */
	if (!selfjoin)
		return 0;
	s->cell0[0] = 0;
	for (int b = 0; b < s->nb; b++) {
		s->cell0[b + 1] = s->cell0[b] + (1 << s->nbits[b]);
		if (s->cell0[b + 1] > CG_MAX_CELLS)
			return 0;
	}
	s->ncell = s->cell0[s->nb];
	return 1;
}

/* The atoms between a constant A of block p and a constant B of block
 * q (p <= q; A != B): per off-diagonal class, cls(A, B) and cls(B, A)
 * where they exist; *n of them. */
static int
pair_atoms(const struct cg *s, int p, int q, int (*pa)[2], int *n)
{
	*n = 0;
	for (int k = 0; k < s->ix->ncls; k++) {
		const int *key = s->ix->occ[s->ix->first[k]].key;
		int b1, b2;
		if (s->bit[k] >= 0)
			continue;
		b1 = s->lb[key[1]];
		b2 = s->lb[key[3]];
		for (int o = 0; o < 2; o++)
			if ((o == 0 && b1 == p && b2 == q) ||
			    (o == 1 && b1 == q && b2 == p)) {
				if (*n == CG_MAX_PAIR)
					return -1;
				pa[*n][0] = k;
				pa[(*n)++][1] = o;
			}
	}
	return 0;
}

/* Clause i grounded with variable 0 on the constant of side x0 (0: A,
 * 1: B) and variable 1 on the other (a one-variable clause, or both
 * variables equal: every variable on A). */
static void
ground(const struct cg *s, int i, int x0, int diag, int (*pa)[2], int npa,
    struct gcl *out)
{
	const struct cl *c = s->t->c.v[i];

	out->w = c->w;
	out->hard = c->hard;
	out->n = c->nlits;
	for (int k = 0; k < c->nlits; k++) {
		int u, v, cls = s->ix->cls_of[s->ix->lpos[i] + k];
		struct glit *l = &out->l[k];
		(void)lit_vars(s->g, c, &c->lit[k], &u, &v);
		l->neg = c->lit[k].neg;
		if (s->bit[cls] >= 0) {
			l->src = diag ? SRC_A : (u == 0) == (x0 == 0) ? SRC_A : SRC_B;
			l->idx = s->bit[cls];
		} else {
			/* on A first: orientation 0 */
			int o = (u == 0) == (x0 == 0) ? 0 : 1;
			l->src = SRC_PAIR;
			l->idx = 0;
			for (int j = 0; j < npa; j++)
				if (pa[j][0] == cls && pa[j][1] == o)
					l->idx = j;
		}
	}
}

/* Cell weights: the one-variable clauses and the groundings of two
 * variables of one block on one constant. */
static void
cell_weights(struct cg *s)
{
	const struct th *t = s->t;

	for (int c = 0; c < s->ncell; c++)
		s->lw[c] = 0;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		struct gcl gc;
		int b;
		if (c->nvars == 2 && (c->blk[0] != c->blk[1] || cl_has_neq(c, 0, 1)))
			continue;
		b = s->lb[c->blk[0]];
		ground(s, (int)i, 0, 1, NULL, 0, &gc);
		for (int x = 0; x < 1 << s->nbits[b]; x++)
			s->lw[s->cell0[b] + x] += gcl_eval(&gc, (unsigned)x, 0, 0);
	}
}

/* The groundings of the two-variable clauses on A in block p and B in
 * q (p <= q) into gc (2 per clause at most); returns how many. */
static int
pair_clauses(const struct cg *s, int p, int q, int (*pa)[2], int npa,
    struct gcl *gc)
{
	const struct th *t = s->t;
	int ng = 0;

	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		int bu, bv;
		if (c->nvars != 2)
			continue;
		bu = s->lb[c->blk[0]];
		bv = s->lb[c->blk[1]];
		if (bu == p && bv == q)
			ground(s, (int)i, 0, 0, pa, npa, &gc[ng++]);
		if (bu == q && bv == p)
			ground(s, (int)i, 1, 0, pa, npa, &gc[ng++]);
	}
	return ng;
}

/* Pair weights of blocks p <= q: over the atoms between A in p and B in
 * q, the product of their groundings' weights. */
static int
pair_weights(struct cg *s, int p, int q)
{
	const struct th *t = s->t;
	int pa[CG_MAX_PAIR][2], npa, ng, kp = 1 << s->nbits[p];
	unsigned read = 0;
	int kq = 1 << s->nbits[q];
	struct gcl *gc;

	if (pair_atoms(s, p, q, pa, &npa) < 0)
		return 0;
	s->work += (double)kp * kq * (1 << npa) * (double)(2 * t->c.n + 1);
	if (s->work > CG_MAX_WORK)
		return 0;
	if (!(gc = xmalloc((2 * t->c.n + 1) * sizeof *gc)))
		return -1;
	ng = pair_clauses(s, p, q, pa, npa, gc);
	/* within one block, the pair in the order of the bits the pair
	 * clauses read: cells that differ in other bits then get the same
	 * floating-point row, and merge (same_row) */
	for (int k = 0; k < ng; k++)
		for (int l = 0; l < gc[k].n; l++)
			if (gc[k].l[l].src != SRC_PAIR)
				read |= 1u << gc[k].l[l].idx;
	for (int i = 0; i < kp; i++)
		for (int j = 0; j < kq; j++) {
			double r = -INFINITY;
			unsigned a = (unsigned)i, b = (unsigned)j;
			if (p == q && (a & read) > (b & read)) {
				a = (unsigned)j;
				b = (unsigned)i;
			}
			for (unsigned x = 0; x < 1u << npa; x++) {
				double f = 0;
				for (int k = 0; k < ng && f > -INFINITY; k++)
					f += gcl_eval(&gc[k], a, b, x);
				r = s->g->sr->add(r, f);
			}
			s->lr[(size_t)(s->cell0[p] + i) * s->ncell + s->cell0[q] + j] = r;
			s->lr[(size_t)(s->cell0[q] + j) * s->ncell + s->cell0[p] + i] = r;
		}
	free(gc);
	return 1;
}

/* In the max semiring, the largest term over the count vectors (the
 * sum semiring's sum is cgsum's): groups (merged cells) in block order,
 * blocks of one group (whose count is their size) first. */
struct maxsum {
	int ng;
	const int *gb;         /* per group: its block */
	const double *lw, *lr; /* group weights, pair weights (ng x ng) */
	const int64_t *n;      /* per block: constants */
	int64_t *cnt;
	double max;
};

static double
mulc(double k, double lv)
{
	return k == 0 ? 0 : k * lv;
}

static void
max_rec(struct maxsum *s, int i, int64_t left, double z)
{
	int first, last;
	double lin, diag;

	if (i == s->ng) {
		if (z > s->max)
			s->max = z;
		return;
	}
	first = i == 0 || s->gb[i] != s->gb[i - 1];
	last = i + 1 == s->ng || s->gb[i + 1] != s->gb[i];
	if (first)
		left = s->n[s->gb[i]];
	/* c constants in group i: c log w, C(c, 2) log r_ii, and c times
	 * the pair weights to the constants of the groups before it */
	lin = s->lw[i];
	for (int h = 0; h < i && lin > -INFINITY; h++)
		lin += mulc((double)s->cnt[h], s->lr[i * s->ng + h]);
	diag = s->lr[i * s->ng + i];
	for (int64_t c = last ? left : 0; c <= left; c++) {
		double k = (double)c;
		double v = z + mulc(k, lin) + mulc(k * (k - 1) / 2, diag);
		if (v == -INFINITY)
			continue;
		s->cnt[i] = c;
		max_rec(s, i + 1, left - c, v);
	}
	s->cnt[i] = 0;
}

/* Cells of one block with equal pair weights to every cell (and to each
 * other as to themselves) merge into one group, of the summed weight:
 * the multinomial over them sums to (w + w')^m (in the max semiring,
 * the larger weight: m constants all in the better cell). */
static int
same_row(const struct cg *s, int a, int b)
{
	const double *ra = s->lr + (size_t)a * s->ncell;
	const double *rb = s->lr + (size_t)b * s->ncell;

	if (ra[a] != rb[b] || ra[a] != ra[b])
		return 0;
	for (int c = 0; c < s->ncell; c++)
		if (c != a && c != b && ra[c] != rb[c])
			return 0;
	return 1;
}

/* The runs of groups of one block in ord[0..m-1] by their block: in
 * block order (o = 0), smallest block first (1) or largest (2). */
static void
sort_blocks(int *ord, int m, const int *gb, const int64_t *n, int o)
{
	for (int a = 1; a < m; a++)
		for (int b = a; b > 0; b--) {
			int x = gb[ord[b - 1]], y = gb[ord[b]], x1;
			if (o == 0)
				x1 = x > y;
			else if (n[x] != n[y])
				x1 = o == 1 ? n[x] > n[y] : n[x] < n[y];
			else
				x1 = x > y;
			if (!x1)
				break;
			x = ord[b - 1];
			ord[b - 1] = ord[b];
			ord[b] = x;
		}
}

/* The groups in the order ord: their blocks ogb, weights ogw and pair
 * weights glr (ng x ng, from the cells' rep). */
static void
in_order(const struct cg *s, int ng, const int *ord, const int *gb,
    const double *gw, const int *rep, int *ogb, double *ogw, double *glr)
{
	for (int i = 0; i < ng; i++) {
		ogb[i] = gb[ord[i]];
		ogw[i] = gw[ord[i]];
		for (int j = 0; j < ng; j++)
			glr[i * ng + j] = s->lr[(size_t)rep[ord[i]] * s->ncell +
			    rep[ord[j]]];
	}
}

/* The atoms between A in block p and B in block r (p <= r), as
 * pair_atoms lists them, and per atom e and pair of cells (i of p, j of
 * r) the probability that it is true given A in i and B in j (A != B):
 * the pair's weight with the atom true over its weight.  One pass over
 * the pair's assignments, as pair_weights takes. */
struct pairq {
	int done, npa, pa[CG_MAX_PAIR][2];
	double *q;             /* q[(e * kp + i) * kr + j] */
};

static int
pair_q(const struct cg *s, int p, int r, struct pairq *pq)
{
	int kp = 1 << s->nbits[p], kr = 1 << s->nbits[r], ng;
	double on[CG_MAX_PAIR];
	struct gcl *gc;

	pq->done = 1;
	if (pair_atoms(s, p, r, pq->pa, &pq->npa) < 0 || pq->npa == 0) {
		pq->npa = 0;
		return 0;
	}
	if (!(pq->q = xmalloc(((size_t)pq->npa * kp * kr + 1) *
	    sizeof *pq->q)) ||
	    !(gc = xmalloc((2 * s->t->c.n + 1) * sizeof *gc)))
		return -1;
	ng = pair_clauses(s, p, r, pq->pa, pq->npa, gc);
	for (int i = 0; i < kp; i++)
		for (int j = 0; j < kr; j++) {
			double tot = -INFINITY;
			for (int e = 0; e < pq->npa; e++)
				on[e] = -INFINITY;
			for (unsigned x = 0; x < 1u << pq->npa; x++) {
				double f = 0;
				for (int l = 0; l < ng && f > -INFINITY; l++)
					f += gcl_eval(&gc[l], (unsigned)i, (unsigned)j, x);
				tot = s->g->sr->add(tot, f);
				for (int e = 0; e < pq->npa; e++)
					if ((x >> e) & 1)
						on[e] = s->g->sr->add(on[e], f);
			}
			for (int e = 0; e < pq->npa; e++)
				pq->q[((size_t)e * kp + i) * kr + j] =
				    tot == -INFINITY ? 0 : exp(on[e] - tot);
		}
	free(gc);
	return 0;
}

/* The off-diagonal class k, pos[] per cell its group's place in the
 * sum (-1: none), share[] its share of the group's weight, pq[] per
 * pair of blocks (p * nb + r) its pair_q, filled when first needed:
 * into qg, per pair of groups g, h, what a pair of constants (A in g,
 * B in h) adds to k's expected count, the sum over their cells c1, c2
 * of the two shares times k(A, B)'s probability.  0: k is not between
 * two blocks of the rule. */
static int
pair_class(const struct cg *s, int k, int ng, const int *pos,
    const double *share, struct pairq *pq, double *qg)
{
	const int *key = s->ix->occ[s->ix->first[k]].key;
	int b1 = s->lb[key[1]], b2 = s->lb[key[3]], e = -1;
	int p = b1 < b2 ? b1 : b2, r = b1 < b2 ? b2 : b1;
	int k1 = 1 << s->nbits[b1], k2 = 1 << s->nbits[b2];
	int kp = 1 << s->nbits[p], kr = 1 << s->nbits[r];
	struct pairq *x = &pq[p * s->nb + r];

	if (!x->done && pair_q(s, p, r, x) < 0)
		return -1;
	/* k(A, B) with A in p: orientation 0 where b1 is p */
	for (int j = 0; j < x->npa; j++)
		if (x->pa[j][0] == k && x->pa[j][1] == (b1 == p ? 0 : 1))
			e = j;
	if (e < 0)
		return 0;
	for (int i = 0; i < ng * ng; i++)
		qg[i] = 0;
	for (int i = 0; i < k1; i++)
		for (int j = 0; j < k2; j++) {
			int c1 = s->cell0[b1] + i, c2 = s->cell0[b2] + j;
			double q = b1 == p ? x->q[((size_t)e * kp + i) * kr + j] :
			    x->q[((size_t)e * kp + j) * kr + i];
			if (pos[c1] >= 0 && pos[c2] >= 0)
				qg[pos[c1] * ng + pos[c2]] += share[c1] * share[c2] * q;
		}
	return 1;
}

/* Records the sum sm (log *out, terms vectors, ecnt its expected
 * counts per group) for the marginals of t's classes, keyed as in the
 * top theory (cgmarg.c): by exchangeability an atom's marginal is its
 * class's expected count of true atoms over its atoms.  A cell-bit
 * class (unary, or binary on one constant) counts the constants in the
 * cells with its bit; an off-diagonal one the pairs of constants, by
 * their cells, times its atom's probability given the two cells. */
static int
cg_record(struct cg *s, int ng, const int *ord, const int *grp,
    const double *gw, const struct cgsum *sm, double lz, double terms,
    const double *ecnt)
{
	const struct index *ix = s->ix;
	double *v = xmalloc(((size_t)ng * ng + 1) * sizeof *v);
	double *share = xmalloc(((size_t)s->ncell + 1) * sizeof *share);
	int *pos = xmalloc(((size_t)s->ncell + 1) * sizeof *pos);
	struct pairq *pq = xcalloc((size_t)s->nb * s->nb + 1, sizeof *pq);
	int rec = -1, rc = -1;

	if (!v || !share || !pos || !pq ||
	    (rec = cgm_add_rec(s->g, sm, lz, terms, ecnt)) < 0)
		goto done;
	/* per cell: its place in the sum and share of its group's weight */
	for (int c = 0; c < s->ncell; c++) {
		pos[c] = -1;
		share[c] = 0;
		for (int i = 0; i < ng && grp[c] >= 0; i++)
			if (ord[i] == grp[c]) {
				pos[c] = i;
				share[c] = exp(s->lw[c] - gw[grp[c]]);
			}
	}
	for (int k = 0; k < ix->ncls; k++) {
		const struct occ *o = &ix->occ[ix->first[k]];
		int b = s->lb[o->key[1]], buf[KEY_BUF], bin = s->bit[k] < 0, r;
		if (bin && (r = pair_class(s, k, ng, pos, share, pq, v)) <= 0) {
			if (r < 0)
				goto done;
			continue;
		}
		/* per group of the sum: the share of its cells with the bit */
		for (int i = 0; i < ng && !bin; i++)
			v[i] = 0;
		for (int x = 0; x < 1 << s->nbits[b] && !bin; x++) {
			int c = s->cell0[b] + x;
			if (((x >> s->bit[k]) & 1) && pos[c] >= 0)
				v[pos[c]] += share[c];
		}
		if (cgm_add_class(s->g, rec, th_gkey(s->t, o->key, o->len, buf),
		    o->len, bin, ix->atoms[k], v) < 0)
			goto done;
	}
	rc = 0;
done:
	free(v);
	free(share);
	free(pos);
	for (int i = 0; pq && i < s->nb * s->nb; i++)
		free(pq[i].q);
	free(pq);
	return rc;
}

/* top: record the sum for marginals (cg_record), when it is the sum
 * semiring's and Z > 0. */
static int
cg_sum(struct cg *s, double *out, int *applied, int top)
{
	int *grp = xmalloc((size_t)s->ncell * sizeof *grp);
	int *rep = xmalloc((size_t)s->ncell * sizeof *rep);
	int *gb = xmalloc((size_t)s->ncell * sizeof *gb), ng = 0;
	double *gw = xmalloc((size_t)s->ncell * sizeof *gw), *glr = NULL;
	int64_t *n = xmalloc((size_t)s->nb * sizeof *n);
	int *ord = xmalloc((size_t)s->ncell * sizeof *ord), *ogb = NULL;
	int nord = 0, nmulti = 0, r, maxg = 0, pruned = 0;
	double terms = 1, *ogw = NULL, *ecnt = NULL;
	struct cgsum sm;
	int rc = -1;

	*applied = 0;
	if (!grp || !rep || !gb || !gw || !n || !ord)
		goto done;
	for (int b = 0; b < s->nb; b++) {
		int m = 0;
		n[b] = s->t->size[s->blk[b]];
		for (int c = s->cell0[b]; c < s->cell0[b + 1]; c++) {
			int k;
			grp[c] = -1;
			if (s->lw[c] == -INFINITY)
				continue;
			for (k = ng - m; k < ng && !same_row(s, rep[k], c); k++)
				;
			if (k == ng) {
				rep[ng] = c;
				gb[ng] = b;
				gw[ng++] = -INFINITY;
				m++;
			}
			grp[c] = k;
			gw[k] = s->g->sr->add(gw[k], s->lw[c]);
		}
		if (m == 0 && n[b] > 0) {
			/* every cell of a constant forbidden */
			*out = -INFINITY;
			*applied = 1;
			rc = 0;
			goto done;
		}
		if (m > 0)
			terms *= exp(lchoose(n[b] + m - 1, m - 1));
		if (m > maxg)
			maxg = m;
	}
	rc = 0;
	if (terms > CG_MAX_TERMS)
		goto done;
	/* blocks of one group first: their counts are fixed */
	for (int i = 0; i < ng; i++) {
		int one = (i == 0 || gb[i - 1] != gb[i]) &&
		    (i + 1 == ng || gb[i + 1] != gb[i]);
		ord[one ? nord++ : ng - 1 - nmulti++] = i;
	}
	/* (the groups of several-group blocks came in reverse) */
	for (int a = nord, b = ng - 1; a < b; a++, b--) {
		int x = ord[a];
		ord[a] = ord[b];
		ord[b] = x;
	}
	if (!(glr = xmalloc(((size_t)ng * ng + 1) * sizeof *glr)) ||
	    !(ogb = xmalloc(((size_t)ng + 1) * sizeof *ogb)) ||
	    !(ogw = xmalloc(((size_t)ng + 1) * sizeof *ogw)) ||
	    (top && s->g->sr->counts &&
	    !(ecnt = xmalloc(((size_t)ng + 1) * sizeof *ecnt)))) {
		rc = -1;
		goto done;
	}
	if (!s->g->sr->counts) {
		struct maxsum mx = { ng, ogb, ogw, glr, n, NULL, -INFINITY };
		in_order(s, ng, ord, gb, gw, rep, ogb, ogw, glr);
		if (!(mx.cnt = xcalloc((size_t)ng + 1, sizeof *mx.cnt))) {
			rc = -1;
			goto done;
		}
		/* a block with no groups has no constants */
		max_rec(&mx, 0, 0, 0);
		free(mx.cnt);
		*out = mx.max;
	}
	/* the pruned sum's work depends on the order of the blocks: a
	 * large sum tries three orders in rounds of growing budgets, a
	 * medium one the first, then goes in full */
	for (int k = 0; s->g->sr->counts && k < 3 * CG_ROUNDS + 1; k++) {
		double nodes, budget = CG_BUDGET * pow(10, k / 3);
		int big = terms > CG_FULL_TERMS, o = k % 3;
		if (terms < CG_PRUNE_TERMS && k < 3 * CG_ROUNDS)
			continue;
		if (k == 3 * CG_ROUNDS) {
			if (big)
				goto done;
			budget = INFINITY;
			o = 0;
		} else if (k > 0 && !big)
			continue;
		else if (big && (maxg > CG_MAX_FREE ||
		    s->g->cg_wasted > CG_WASTE))
			goto done;
		sort_blocks(ord + nord, ng - nord, gb, n, o);
		in_order(s, ng, ord, gb, gw, rep, ogb, ogw, glr);
		/* a block with no groups has no constants */
		sm = (struct cgsum){ ng, s->nb, ogb, ogw, glr, n, ecnt, NULL };
		if ((r = cgsum(&sm, terms, budget, out, &nodes)) < 0) {
			rc = -1;
			goto done;
		}
		if (r == 0) {
			pruned = budget < INFINITY;
			break;
		}
		if (big)
			s->g->cg_wasted += nodes;
	}
	*applied = 1;
	if (ecnt && *out > -INFINITY &&
	    cg_record(s, ng, ord, grp, gw, &sm, *out, terms, ecnt) < 0) {
		rc = -1;
		goto done;
	}
	plan_line(s->g, "cell graph: %d cells in %d groups over %d blocks, "
	    "%.3g count vectors%s", s->ncell, ng, s->nb, terms,
	    pruned ? ", pruned" : "");
done:
	free(grp);
	free(rep);
	free(gb);
	free(gw);
	free(glr);
	free(n);
	free(ord);
	free(ogb);
	free(ogw);
	free(ecnt);
	return rc;
}

/* Returns 1 when the rule applies to t (then *out is its log Z, or *rc
 * an error); 0 leaves t to the other rules.  top: t is the top theory
 * or one of its components, unconditioned, whose cell-bit classes'
 * marginals then go to g->cgm (eng_marginal).  Does not take t. */
int
cellgraph(struct eng *g, const struct th *t, const struct index *ix, int top,
    double *out, int *rc)
{
	struct cg s;
	int ok = 0, applied = 0;

	*rc = 0;
	memset(&s, 0, sizeof s);
	s.g = g;
	s.t = t;
	s.ix = ix;
	s.lb = xmalloc(((size_t)t->nb + 1) * sizeof *s.lb);
	s.bit = xmalloc(((size_t)ix->ncls + 1) * sizeof *s.bit);
	if (!s.lb || !s.bit)
		goto oom;
	if (!cg_shape(&s))
		goto done;
	s.lw = xmalloc((size_t)s.ncell * sizeof *s.lw);
	s.lr = xmalloc((size_t)s.ncell * s.ncell * sizeof *s.lr);
	if (!s.lw || !s.lr)
		goto oom;
	cell_weights(&s);
	for (int p = 0; p < s.nb; p++)
		for (int q = p; q < s.nb; q++) {
			int r = pair_weights(&s, p, q);
			if (r < 0)
				goto oom;
			if (r == 0)
				goto done;
		}
	if (cg_sum(&s, out, &applied, top && !g->plan) < 0)
		goto oom;
	ok = applied;
	goto done;
oom:
	*rc = err_oom(g->e);
	ok = 1;
done:
	free(s.lb);
	free(s.bit);
	free(s.lw);
	free(s.lr);
	return ok;
}
