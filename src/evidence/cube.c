/* cube.c: the greedy top-down hypercube builder.  A cube is a product of
 * sets of constants, one per argument.  Starting from the bounding box of
 * a predicate's true (or false) atoms, a cube that is not full is split
 * in two along one argument: preferably into the values whose slice is
 * complete (a cube at once) and the rest, otherwise into the values with
 * the most and the fewest atoms; each half shrinks to its bounding box.
 * Counts and bounding boxes are SQL queries on the evidence tables, or,
 * up to cube_in_memory atoms, counted in memory by the same rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube.h"

struct node {
	struct store_ids side[64];
};

struct node_stack {
	struct node **v;
	size_t n, cap;
};

static void
node_free(struct node *n, int arity)
{
	if (!n)
		return;
	for (int i = 0; i < arity; i++)
		free(n->side[i].v);
	free(n);
}

static struct node *
node_copy(const struct node *n, int arity)
{
	struct node *c = xcalloc(1, sizeof *c);

	if (!c)
		return NULL;
	for (int i = 0; i < arity; i++)
		for (size_t k = 0; k < n->side[i].n; k++)
			if (VEC_PUSH(c->side[i], n->side[i].v[k]) < 0) {
				node_free(c, arity);
				return NULL;
			}
	return c;
}

/* The known cubes of the current predicate, kept for the complement: all
 * their sides in one array; side d of cube k, j = k * arity + d, is
 * ids[at[j]] up to at[j + 1] (ids.n for the last side). */
struct known {
	VEC(int64_t) ids;
	VEC(size_t) at;
	size_t n;              /* cubes */
};

/* Block signatures: for each stored type, a hash per constant id of the
 * (cube, argument) pairs whose side holds it, in the order cubes are
 * made; constants with equal signatures form a block. */
struct sigs {
	int ntypes;
	uint64_t **h;          /* [type index][const id] */
	int64_t *cap;
	int64_t seq;           /* cubes made so far */
	struct known known;    /* of the current predicate */
	int arity;
	int64_t *dom_n;        /* [type index] domain size, -1 until read */
	int open;              /* the store's cube statements are open */
};

static const int64_t *
known_side(const struct known *k, int arity, size_t cube, int d, size_t *n)
{
	size_t j = cube * (size_t)arity + (size_t)d;

	*n = (j + 1 < k->at.n ? k->at.v[j + 1] : k->ids.n) - k->at.v[j];
	return k->ids.v + k->at.v[j];
}

static void
known_clear(struct sigs *g)
{
	g->known.ids.n = g->known.at.n = g->known.n = 0;
}

static int
sig_add(struct sigs *g, struct store *s, int pi, const struct store_ids *side)
{
	const struct store_pred *p = store_pred_at(s, pi);

	g->seq++;
	for (int i = 0; i < p->arity; i++) {
		int t = store_type_at(s, p->types[i]);
		int64_t pair[2] = { g->seq, i };
		for (size_t k = 0; k < side[i].n; k++) {
			int64_t c = side[i].v[k];
			if (c >= g->cap[t]) {
				int64_t cap = (c + 1) * 2;
				uint64_t *h = xrealloc(g->h[t], (size_t)cap * sizeof *h);
				if (!h)
					return -1;
				for (int64_t x = g->cap[t]; x < cap; x++)
					h[x] = FNV_INIT;
				g->h[t] = h;
				g->cap[t] = cap;
			}
			g->h[t][c] = fnv1a(g->h[t][c], pair, sizeof pair);
		}
	}
	return 0;
}

/* Stores a known cube, adds it to the signatures and appends its sides
 * to the known cubes, for the complement. */
static int
emit(struct store *s, struct sigs *g, int pi, int truth, int64_t atoms,
    const struct store_ids *side, struct err *e)
{
	struct known *k = &g->known;
	size_t total = k->ids.n;
	int rc = store_cube_put(s, pi, truth, atoms, side, 0, e);

	if (rc)
		return rc;
	for (int i = 0; i < g->arity; i++)
		total += side[i].n;
	if (sig_add(g, s, pi, side) < 0 ||
	    vec_grow_((void **)&k->ids.v, &k->ids.cap, total,
	    sizeof *k->ids.v) < 0 ||
	    vec_grow_((void **)&k->at.v, &k->at.cap, k->at.n +
	    (size_t)g->arity, sizeof *k->at.v) < 0)
		return err_oom(e);
	for (int i = 0; i < g->arity; i++) {
		k->at.v[k->at.n++] = k->ids.n;
		if (side[i].n > 0)
			memcpy(k->ids.v + k->ids.n, side[i].v,
			    side[i].n * sizeof *side[i].v);
		k->ids.n += side[i].n;
	}
	k->n++;
	return 0;
}

struct byc {
	int64_t val, count;
};

static int
byc_desc(const void *x, const void *y)
{
	const struct byc *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->val > b->val) - (a->val < b->val);
}

static int
byc_val(const void *x, const void *y)
{
	const struct byc *a = x, *b = y;

	return (a->val > b->val) - (a->val < b->val);
}

/* Heapsort: n log n at worst and no allocation (qsort may malloc). */
static void
byc_sort(struct byc *v, size_t n, int (*cmp)(const void *, const void *))
{
	for (size_t end = n, start = n / 2; end > 1; ) {
		size_t r;
		struct byc t;
		if (start > 0) {
			r = --start;         /* building the heap */
		} else {
			t = v[0];            /* moving the largest to the end */
			v[0] = v[--end];
			v[end] = t;
			r = 0;
		}
		for (size_t c; (c = 2 * r + 1) < end; r = c) {
			if (c + 1 < end && cmp(&v[c], &v[c + 1]) < 0)
				c++;
			if (cmp(&v[r], &v[c]) >= 0)
				break;
			t = v[r];
			v[r] = v[c];
			v[c] = t;
		}
	}
}

static void
byc_swap(struct byc *v, size_t i, size_t j)
{
	struct byc t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* Puts the element of rank r in byc_desc order at v[r], those before it
 * in v[0..r) (quickselect with a median of three; a heapsort once the
 * partitions go badly). */
static void
byc_select(struct byc *v, size_t n, size_t r)
{
	size_t lo = 0, hi = n;
	int budget = 16;

	for (size_t m = n; m > 1; m /= 2)
		budget += 2;
	while (hi - lo > 2) {
		size_t mid = lo + (hi - lo) / 2, st = lo;
		if (budget-- == 0) {
			byc_sort(v + lo, hi - lo, byc_desc);
			return;
		}
		/* order v[lo], v[mid], v[hi - 1]; the median is the pivot */
		if (byc_desc(&v[mid], &v[lo]) < 0)
			byc_swap(v, mid, lo);
		if (byc_desc(&v[hi - 1], &v[mid]) < 0) {
			byc_swap(v, hi - 1, mid);
			if (byc_desc(&v[mid], &v[lo]) < 0)
				byc_swap(v, mid, lo);
		}
		byc_swap(v, mid, hi - 1);
		for (size_t i = lo; i < hi - 1; i++)
			if (byc_desc(&v[i], &v[hi - 1]) < 0)
				byc_swap(v, i, st++);
		byc_swap(v, st, hi - 1);
		if (st == r)
			return;
		if (r < st)
			hi = st;
		else
			lo = st + 1;
	}
	if (hi - lo == 2 && byc_desc(&v[lo + 1], &v[lo]) < 0)
		byc_swap(v, lo, lo + 1);
}

static size_t
hash_id(int64_t v, size_t mask)
{
	return ((uint64_t)v * 0x9e3779b97f4a7c15ULL >> 20) & mask;
}

/* The unknown atoms of a predicate: the complement of its known cubes,
 * built argument by argument.  At argument d, the constants of the
 * domain are grouped by the set of (remaining) known cubes whose side
 * holds them; each group recurses with those cubes on the next argument,
 * and the constants in no side make one cube whose other sides are whole
 * domains.  A side that is most of its domain is stored negated. */
struct comp {
	struct store *s;
	int pi, arity;
	const struct known *known;
	int64_t dom_n[64];             /* domain size per argument */
	struct store_ids side[64];     /* the cube being built */
	unsigned neg;                  /* negated sides so far */
	double atoms;                  /* of the cube being built */
	int64_t ncubes;
	struct err *e;
	/* scratch of one grouping step, dead once it recurses: per (constant,
	 * cube) pair, per constant and per group, cap entries each */
	size_t cap;
	size_t *pcube, *pnext;         /* a constant's cubes, linked */
	size_t *head, *tail, *npairs;  /* per constant: its list */
	size_t *group, *rep, *ngc;     /* its group; per group: a constant, size */
	struct byc *ord;               /* (constant id, index) to sort */
	size_t tcap;
	int64_t *hkey;                 /* hash table: constant id or list hash */
	size_t *hval;
};

/* Room for np pairs and a hash table of tsize slots. */
static int
comp_scratch(struct comp *c, size_t np, size_t tsize)
{
	if (np > c->cap) {
		size_t cap = np < 64 ? 64 : np * 2;
		size_t *p = xrealloc(c->pcube, 9 * cap * sizeof *p);
		struct byc *o;
		if (!p)
			return -1;
		c->pcube = p;
		if (!(o = xrealloc(c->ord, cap * sizeof *o)))
			return -1;
		c->ord = o;
		c->cap = cap;
		c->pnext = p + cap;
		c->head = p + 2 * cap;
		c->tail = p + 3 * cap;
		c->npairs = p + 4 * cap;
		c->group = p + 5 * cap;
		c->rep = p + 6 * cap;
		c->ngc = p + 7 * cap;
	}
	if (tsize > c->tcap) {
		int64_t *k = xrealloc(c->hkey, tsize * sizeof *k);
		size_t *v;
		if (!k)
			return -1;
		c->hkey = k;
		if (!(v = xrealloc(c->hval, tsize * sizeof *v)))
			return -1;
		c->hval = v;
		c->tcap = tsize;
	}
	return 0;
}

static void
comp_free(struct comp *c)
{
	for (int i = 0; i < 64; i++)
		free(c->side[i].v);
	free(c->pcube);
	free(c->ord);
	free(c->hkey);
	free(c->hval);
}

static int
comp_emit(struct comp *c)
{
	if (c->atoms <= 0)
		return 0;
	c->ncubes++;
	return store_cube_put(c->s, c->pi, -1, (int64_t)c->atoms, c->side,
	    c->neg, c->e);
}

/* Sets side d to the constants in list (or all but them when negate). */
static int
comp_side(struct comp *c, int d, const int64_t *list, size_t n, int negate)
{
	if (vec_grow_((void **)&c->side[d].v, &c->side[d].cap, n,
	    sizeof *c->side[d].v) < 0)
		return err_oom(c->e);
	if (n > 0)
		memcpy(c->side[d].v, list, n * sizeof *list);
	c->side[d].n = n;
	if (negate)
		c->neg |= 1u << d;
	else
		c->neg &= ~(1u << d);
	return 0;
}

/* Whether constants x and y (indices of this step) lie in the same
 * cubes. */
static int
same_cubes(const struct comp *c, size_t x, size_t y)
{
	size_t p = c->head[x], q = c->head[y];

	if (c->npairs[x] != c->npairs[y])
		return 0;
	for (; p != SIZE_MAX; p = c->pnext[p], q = c->pnext[q])
		if (c->pcube[p] != c->pcube[q])
			return 0;
	return 1;
}

/* cubes[0..nc) are known cube indices, ascending. */
static int
comp_rec(struct comp *c, int d, const int64_t *cubes, size_t nc)
{
	double before = c->atoms;
	size_t np = 0, nd = 0, ng = 0, tsize = 16, mask, nlist = 0;
	int64_t *used = NULL, *gconst, *gcubes, *gn, *glen;
	int last = d == c->arity - 1, rc = 0;

	if (nc == 0) {
		/* nothing known here: whole domains from d on */
		for (int j = d; j < c->arity && !rc; j++) {
			rc = comp_side(c, j, NULL, 0, 1);
			c->atoms *= (double)c->dom_n[j];
		}
		if (!rc)
			rc = comp_emit(c);
		c->atoms = before;
		return rc;
	}
	for (size_t k = 0; k < nc; k++) {
		size_t n;
		(void)known_side(c->known, c->arity, (size_t)cubes[k], d, &n);
		np += n;
	}
	while (tsize < 2 * np)
		tsize *= 2;
	mask = tsize - 1;
	if (comp_scratch(c, np, tsize) < 0)
		return err_oom(c->e);
	/* the constants of argument d in some side, each with the list of
	 * cubes holding it (ascending, as cubes is) */
	memset(c->hval, 0xff, tsize * sizeof *c->hval);
	np = 0;
	for (size_t k = 0; k < nc; k++) {
		size_t n;
		const int64_t *v = known_side(c->known, c->arity, (size_t)cubes[k],
		    d, &n);
		for (size_t j = 0; j < n; j++) {
			size_t h = hash_id(v[j], mask), x;
			while (c->hval[h] != SIZE_MAX && c->hkey[h] != v[j])
				h = (h + 1) & mask;
			if ((x = c->hval[h]) == SIZE_MAX) {
				x = c->hval[h] = nd++;
				c->hkey[h] = v[j];
				c->ord[x] = (struct byc){ v[j], (int64_t)x };
				c->head[x] = SIZE_MAX;
				c->npairs[x] = 0;
			}
			c->pcube[np] = (size_t)cubes[k];
			c->pnext[np] = SIZE_MAX;
			if (c->head[x] == SIZE_MAX)
				c->head[x] = np;
			else
				c->pnext[c->tail[x]] = np;
			c->tail[x] = np++;
			c->npairs[x]++;
		}
	}
	byc_sort(c->ord, nd, byc_val);
	/* group the constants by their cube lists, groups numbered in the
	 * order of their least constant */
	if (!last) {
		memset(c->hval, 0xff, tsize * sizeof *c->hval);
		for (size_t r = 0; r < nd; r++) {
			size_t x = (size_t)c->ord[r].count, h, gi;
			uint64_t hh = FNV_INIT;
			for (size_t p = c->head[x]; p != SIZE_MAX; p = c->pnext[p])
				hh = (hh ^ c->pcube[p]) * 0x100000001b3ULL;
			h = hash_id((int64_t)hh, mask);
			while ((gi = c->hval[h]) != SIZE_MAX &&
			    ((uint64_t)c->hkey[h] != hh || !same_cubes(c, c->rep[gi], x)))
				h = (h + 1) & mask;
			if (gi == SIZE_MAX) {
				gi = c->hval[h] = ng++;
				c->hkey[h] = (int64_t)hh;
				c->rep[gi] = x;
				c->ngc[gi] = 0;
				nlist += c->npairs[x];
			}
			c->group[x] = gi;
			c->ngc[gi]++;
		}
	}
	/* what recursion needs, in one block: the constants in some side
	 * (ascending), per group its constants (ascending) and its cubes,
	 * and the group sizes */
	if (!(used = xmalloc((2 * nd + nlist + 2 * ng + 1) * sizeof *used)))
		return err_oom(c->e);
	gconst = used + nd;
	gcubes = gconst + (last ? 0 : nd);
	gn = gcubes + nlist;
	glen = gn + ng;
	for (size_t r = 0; r < nd; r++)
		used[r] = c->ord[r].val;
	if (!last) {
		size_t at = 0;
		for (size_t gi = 0; gi < ng; gi++) {
			gn[gi] = (int64_t)c->ngc[gi];
			glen[gi] = (int64_t)c->npairs[c->rep[gi]];
			c->ngc[gi] = at;     /* from here on: where its constants go */
			at += (size_t)gn[gi];
		}
		for (size_t r = 0; r < nd; r++) {
			size_t x = (size_t)c->ord[r].count;
			gconst[c->ngc[c->group[x]]++] = c->ord[r].val;
		}
		at = 0;
		for (size_t gi = 0; gi < ng; gi++)
			for (size_t p = c->head[c->rep[gi]]; p != SIZE_MAX;
			    p = c->pnext[p])
				gcubes[at++] = (int64_t)c->pcube[p];
	}
	/* each group: its constants here, its cubes further on (the scratch
	 * is free again) */
	for (size_t gi = 0, at = 0, ct = 0; gi < ng && !rc; gi++) {
		rc = comp_side(c, d, gconst + at, (size_t)gn[gi], 0);
		c->atoms = before * (double)gn[gi];
		if (!rc)
			rc = comp_rec(c, d + 1, gcubes + ct, (size_t)glen[gi]);
		at += (size_t)gn[gi];
		ct += (size_t)glen[gi];
	}
	/* the constants of argument d in no side: all the rest */
	if (!rc && c->dom_n[d] > (int64_t)nd) {
		rc = comp_side(c, d, used, nd, 1);
		c->atoms = before * (double)(c->dom_n[d] - (int64_t)nd);
		for (int j = d + 1; j < c->arity && !rc; j++) {
			rc = comp_side(c, j, NULL, 0, 1);
			c->atoms *= (double)c->dom_n[j];
		}
		if (!rc)
			rc = comp_emit(c);
	}
	c->atoms = before;
	free(used);
	return rc;
}

/* Domain size of stored type index t, read once per build. */
static int
dom_size(struct store *s, struct sigs *g, int t, int64_t *n, struct err *e)
{
	if (g->dom_n[t] < 0) {
		struct store_ids ids = { 0 };
		int rc = store_domain_ids(s, t, &ids, e);
		free(ids.v);
		if (rc)
			return rc;
		g->dom_n[t] = (int64_t)ids.n;
	}
	*n = g->dom_n[t];
	return 0;
}

/* The complement of the known cubes of predicate pi; the store's cube
 * statements must be open (for the inserts). */
static int
complement(struct store *s, struct sigs *g, int pi, int64_t *ncubes,
    struct err *e)
{
	const struct store_pred *p = store_pred_at(s, pi);
	struct comp c = { 0 };
	int64_t *all = NULL;
	int rc = 0;

	c.s = s;
	c.pi = pi;
	c.arity = p->arity;
	c.known = &g->known;
	c.atoms = 1;
	c.e = e;
	for (int i = 0; i < p->arity && !rc; i++)
		rc = dom_size(s, g, store_type_at(s, p->types[i]), &c.dom_n[i], e);
	if (!rc && !(all = xcalloc(g->known.n + 1, sizeof *all)))
		rc = err_oom(e);
	for (size_t k = 0; !rc && k < g->known.n; k++)
		all[k] = (int64_t)k;
	if (!rc && p->arity > 0)
		rc = comp_rec(&c, 0, all, g->known.n);
	*ncubes = c.ncubes;
	free(all);
	comp_free(&c);
	return rc;
}

/* The split rule of both builders.  cnt[i] holds the atom count of each
 * value of argument i (cnt[i].n is the side's length).  The argument whose
 * complete slices (values with a full slice of atoms) hold the most
 * atoms is chosen, if some argument has such values but not only such;
 * otherwise the longest side.  *complete tells which. */
static int
pick_dim(int arity, const struct store_ids *cnt, double full, int *complete)
{
	double best_score = 0;
	int best = -1;

	for (int i = 0; i < arity; i++) {
		double slice = full / (double)cnt[i].n;
		size_t k, c = 0;
		if (cnt[i].n < 2)
			continue;
		for (k = 0; k < cnt[i].n; k++)
			c += (double)cnt[i].v[k] == slice;
		if (c > 0 && c < cnt[i].n && (double)c * slice > best_score) {
			best_score = (double)c * slice;
			best = i;
		}
	}
	*complete = best >= 0;
	if (best < 0)
		for (int i = 0; i < arity; i++)
			if (cnt[i].n >= 2 && (best < 0 || cnt[i].n > cnt[best].n))
				best = i;
	return best;
}

/* Orders the values of the chosen side by atoms, most first, and marks
 * those that go left: the complete slices, or the first half. */
static void
pick_left(struct byc *bv, size_t nv, int complete, double slice,
    unsigned char *left)
{
	qsort(bv, nv, sizeof *bv, byc_desc);
	for (size_t k = 0; k < nv; k++)
		left[k] = complete ? (double)bv[k].count == slice : k < nv / 2;
}

/* Splits n along dim: values with chosen[k] set go left.  Pushes both. */
static int
split_push(struct node_stack *stack, const struct node *n, int arity,
    int dim, const struct byc *vals, size_t nv, const unsigned char *left)
{
	struct node *a = node_copy(n, arity), *b = node_copy(n, arity);

	if (!a || !b) {
		node_free(a, arity);
		node_free(b, arity);
		return -1;
	}
	a->side[dim].n = b->side[dim].n = 0;
	for (size_t k = 0; k < nv; k++) {
		struct store_ids *dst = left[k] ? &a->side[dim] : &b->side[dim];
		if (VEC_PUSH(*dst, vals[k].val) < 0) {
			node_free(a, arity);
			node_free(b, arity);
			return -1;
		}
	}
	if (VEC_PUSH(*stack, a) < 0) {
		node_free(a, arity);
		node_free(b, arity);
		return -1;
	}
	if (VEC_PUSH(*stack, b) < 0) {
		node_free(b, arity);
		return -1;
	}
	return 0;
}

/* Up to this many atoms a cube's atoms are read once and split in
 * memory by the same rules, instead of a few queries per step. */
static long cube_in_memory = 200000;

void
cube_set_memory_limit(long atoms)
{
	cube_in_memory = atoms;
}

/* The in-memory splitter's state: the atoms, their values numbered per
 * argument, and scratch that every step reuses (a step is done with it
 * before it recurses). */
struct mem {
	const int64_t *rows;   /* arity ids per atom */
	size_t nrows;
	int arity;
	size_t *num;           /* [dim * nrows + atom]: its value's number */
	int64_t *val[64];      /* [dim][number]: the value */
	size_t *pos[64];       /* [dim][number]: index in side[dim] of the
	                        * current step, SIZE_MAX when not in it */
	struct store_ids side[64], cnt[64];  /* values and their atoms */
	VEC(size_t) sidenum[64];             /* their numbers */
	struct byc *bv;        /* per value of the split argument: vcap */
	unsigned char *left;
	size_t vcap;
};

static void
mem_free(struct mem *m)
{
	for (int i = 0; i < 64; i++) {
		free(m->side[i].v);
		free(m->cnt[i].v);
		free(m->sidenum[i].v);
	}
	free(m->num);
	free(m->val[0]);
	free(m->pos[0]);
	free(m->bv);
	free(m->left);
}

/* Numbers the distinct values of every argument among all the atoms, by
 * hashing, so that steps count values by indexing. */
static int
mem_number(struct mem *m)
{
	size_t n = m->nrows, cap = 16, mask, *slot;
	int64_t *val;

	while (cap < 2 * n)
		cap *= 2;
	mask = cap - 1;
	slot = xmalloc(cap * sizeof *slot);
	val = xmalloc((size_t)m->arity * n * sizeof *val);
	m->pos[0] = xmalloc((size_t)m->arity * n * sizeof *m->pos[0]);
	m->num = xmalloc((size_t)m->arity * n * sizeof *m->num);
	m->val[0] = val;
	if (!slot || !val || !m->pos[0] || !m->num) {
		free(slot);
		return -1;
	}
	memset(m->pos[0], 0xff, (size_t)m->arity * n * sizeof *m->pos[0]);
	for (int d = 0; d < m->arity; d++) {
		size_t *num = m->num + (size_t)d * n, nv = 0;
		m->val[d] = val;
		m->pos[d] = m->pos[0] + (size_t)d * n;
		memset(slot, 0xff, cap * sizeof *slot);
		for (size_t k = 0; k < n; k++) {
			int64_t v = m->rows[k * (size_t)m->arity + (size_t)d];
			size_t h = hash_id(v, mask);
			while (slot[h] != SIZE_MAX && val[slot[h]] != v)
				h = (h + 1) & mask;
			if (slot[h] == SIZE_MAX) {
				slot[h] = nv;
				val[nv++] = v;
			}
			num[k] = slot[h];
		}
		val += nv;
	}
	free(slot);
	return 0;
}

/* The distinct values of argument dim among atoms idx[0..n), in order of
 * first appearance, and the atoms of each: linear time.  Leaves pos[dim]
 * set for them (mem_unmark() clears it). */
static int
count_dim(struct mem *m, const size_t *idx, size_t n, int dim)
{
	struct store_ids *side = &m->side[dim], *cnt = &m->cnt[dim];
	const size_t *num = m->num + (size_t)dim * m->nrows;
	const int64_t *val = m->val[dim];
	size_t *pos = m->pos[dim], *sn;

	if (vec_grow_((void **)&side->v, &side->cap, n, sizeof *side->v) < 0 ||
	    vec_grow_((void **)&cnt->v, &cnt->cap, n, sizeof *cnt->v) < 0 ||
	    vec_grow_((void **)&m->sidenum[dim].v, &m->sidenum[dim].cap, n,
	    sizeof *m->sidenum[dim].v) < 0)
		return -1;
	sn = m->sidenum[dim].v;
	side->n = 0;
	for (size_t k = 0; k < n; k++) {
		size_t u = num[idx[k]], j = pos[u];
		if (j == SIZE_MAX) {
			j = pos[u] = side->n++;
			sn[j] = u;
			side->v[j] = val[u];
			cnt->v[j] = 0;
		}
		cnt->v[j]++;
	}
	cnt->n = m->sidenum[dim].n = side->n;
	return 0;
}

/* Clears pos[] of the values counted for arguments [0, arity). */
static void
mem_unmark(struct mem *m, int arity)
{
	for (int d = 0; d < arity; d++)
		for (size_t j = 0; j < m->sidenum[d].n; j++)
			m->pos[d][m->sidenum[d].v[j]] = SIZE_MAX;
}

/* Cubes of the atoms idx[0..n) (indices into m->rows), exactly covering
 * them.  Uses and reorders idx.  The left values are those pick_left()
 * marks, found without sorting: the complete slices, or the nv / 2 first
 * in byc_desc order (a total order), whatever order they come in. */
static int
mem_split(struct store *s, struct sigs *g, int pi, int truth, struct mem *m,
    size_t *idx, size_t n, int64_t *ncubes, struct err *e)
{
	const struct store_ids *side, *cnt;
	const size_t *num, *pos;
	double full = 1, slice;
	int complete, dim, rc;
	size_t nv, nleft = 0;

	for (int i = 0; i < m->arity; i++) {
		if (count_dim(m, idx, n, i) < 0)
			return err_oom(e);
		full *= (double)m->side[i].n;
	}
	if ((double)n == full) {
		mem_unmark(m, m->arity);
		++*ncubes;
		return emit(s, g, pi, truth, (int64_t)n, m->side, e);
	}
	dim = pick_dim(m->arity, m->cnt, full, &complete);
	side = &m->side[dim];
	cnt = &m->cnt[dim];
	nv = side->n;
	slice = full / (double)nv;
	if (nv > m->vcap) {
		size_t cap = nv * 2;
		struct byc *bv = xrealloc(m->bv, cap * sizeof *bv);
		unsigned char *left = bv ? xrealloc(m->left, cap) : NULL;
		if (bv)
			m->bv = bv;
		if (!bv || !left)
			return err_oom(e);
		m->left = left;
		m->vcap = cap;
	}
	if (complete) {
		for (size_t k = 0; k < nv; k++)
			m->left[k] = (double)cnt->v[k] == slice;
	} else {
		struct byc pivot;
		for (size_t k = 0; k < nv; k++)
			m->bv[k] = (struct byc){ side->v[k], cnt->v[k] };
		byc_select(m->bv, nv, nv / 2 - 1);
		pivot = m->bv[nv / 2 - 1];
		for (size_t k = 0; k < nv; k++) {
			struct byc x = { side->v[k], cnt->v[k] };
			m->left[k] = byc_desc(&x, &pivot) <= 0;
		}
	}
	/* left atoms first, then the right ones */
	num = m->num + (size_t)dim * m->nrows;
	pos = m->pos[dim];
	for (size_t k = 0; k < n; k++)
		if (m->left[pos[num[idx[k]]]]) {
			size_t t = idx[nleft];
			idx[nleft++] = idx[k];
			idx[k] = t;
		}
	mem_unmark(m, m->arity);
	if ((rc = mem_split(s, g, pi, truth, m, idx, nleft, ncubes, e)))
		return rc;
	return mem_split(s, g, pi, truth, m, idx + nleft, n - nleft, ncubes, e);
}

/* Cubes of the n atoms in rows (arity ids each, borrowed). */
static int
mem_run(struct store *s, struct sigs *g, int pi, int truth,
    const int64_t *rows, size_t n, int64_t *ncubes, struct err *e)
{
	struct mem m = { 0 };
	size_t *idx = NULL;
	int rc = 0;

	m.rows = rows;
	m.nrows = n;
	m.arity = store_pred_at(s, pi)->arity;
	if (n == 0 || m.arity == 0)
		return 0;
	if (!(idx = xcalloc(n, sizeof *idx)) || mem_number(&m) < 0)
		rc = err_oom(e);
	for (size_t k = 0; !rc && k < n; k++)
		idx[k] = k;
	if (!rc)
		rc = mem_split(s, g, pi, truth, &m, idx, n, ncubes, e);
	free(idx);
	mem_free(&m);
	return rc;
}

/* Reads the atoms inside the current cube and splits them in memory. */
static int
mem_build(struct store *s, struct sigs *g, int pi, int truth,
    int64_t *ncubes, struct err *e)
{
	struct store_ids rows = { 0 };
	int arity = store_pred_at(s, pi)->arity;
	int rc = store_cube_rows(s, &rows, e);

	if (!rc && arity > 0)
		rc = mem_run(s, g, pi, truth, rows.v, rows.n / (size_t)arity,
		    ncubes, e);
	free(rows.v);
	return rc;
}

/* Cubes of one predicate's atoms of one truth value, through SQL while
 * they are many; the store's cube statements must be open on pi and
 * truth. */
static int
build_one(struct store *s, struct sigs *g, int pi, int truth,
    int64_t *ncubes, int64_t *natoms, struct err *e)
{
	int arity = store_pred_at(s, pi)->arity;
	struct node_stack stack = { 0 };
	struct store_ids vals[64], counts[64];
	struct byc *bv = NULL;
	unsigned char *left = NULL;
	struct node *n = NULL;
	int rc;

	memset(vals, 0, sizeof vals);
	memset(counts, 0, sizeof counts);
	*ncubes = *natoms = 0;
	{
		/* small enough to split in memory from the start */
		int64_t all;
		if ((rc = store_cube_count_all(s, &all, e)))
			goto done;
		*natoms = all;
		if (all == 0)
			goto done;  /* no atoms of this truth */
		if (all <= cube_in_memory) {
			struct store_ids rows = { 0 };
			if (!(rc = store_cube_rows_all(s, &rows, e)) && arity > 0)
				rc = mem_run(s, g, pi, truth, rows.v,
				    rows.n / (size_t)arity, ncubes, e);
			free(rows.v);
			goto done;
		}
		*natoms = 0;
	}
	if (!(n = xcalloc(1, sizeof *n))) {
		rc = err_oom(e);
		goto done;
	}
	for (int i = 0; i < arity; i++)
		if ((rc = store_cube_distinct(s, i, 1, &n->side[i], e)))
			goto done;
	if (VEC_PUSH(stack, n) < 0) {
		rc = err_oom(e);
		goto done;
	}
	n = NULL;
	while (stack.n > 0) {
		double full = 1;
		int64_t count;
		int empty = 0;

		n = stack.v[--stack.n];
		/* shrink to the bounding box of the atoms inside */
		if ((rc = store_cube_sides(s, n->side, e)))
			goto done;
		for (int i = 0; i < arity; i++) {
			struct store_ids tmp = { 0 };
			if ((rc = store_cube_distinct(s, i, 0, &tmp, e))) {
				free(tmp.v);
				goto done;
			}
			free(n->side[i].v);
			n->side[i] = tmp;
			empty |= tmp.n == 0;
			full *= (double)tmp.n;
		}
		if (empty) {
			node_free(n, arity);
			n = NULL;
			continue;
		}
		if ((rc = store_cube_sides(s, n->side, e)) ||
		    (rc = store_cube_count(s, &count, e)))
			goto done;
		if (count <= cube_in_memory && (double)count != full) {
			if ((rc = mem_build(s, g, pi, truth, ncubes, e)))
				goto done;
			*natoms += count;
			node_free(n, arity);
			n = NULL;
			continue;
		}
		if ((double)count == full) {
			if ((rc = emit(s, g, pi, truth, count, n->side, e)))
				goto done;
			++*ncubes;
			*natoms += count;
			node_free(n, arity);
			n = NULL;
			continue;
		}
		/* atom counts per value of every argument, then the rule */
		for (int i = 0; i < arity; i++) {
			if (n->side[i].n < 2) {
				vals[i].n = 0;
				counts[i].n = n->side[i].n;  /* a length, never read */
				continue;
			}
			if ((rc = store_cube_groups(s, i, &vals[i], &counts[i], e)))
				goto done;
		}
		{
			int complete, dim = pick_dim(arity, counts, full, &complete);
			size_t nv = vals[dim].n;
			free(bv);
			free(left);
			bv = xcalloc(nv + 1, sizeof *bv);
			left = xcalloc(nv + 1, 1);
			if (!bv || !left) {
				rc = err_oom(e);
				goto done;
			}
			for (size_t k = 0; k < nv; k++)
				bv[k] = (struct byc){ vals[dim].v[k], counts[dim].v[k] };
			pick_left(bv, nv, complete, full / (double)nv, left);
			if (split_push(&stack, n, arity, dim, bv, nv, left) < 0) {
				rc = err_oom(e);
				goto done;
			}
		}
		node_free(n, arity);
		n = NULL;
	}
	rc = 0;
done:
	node_free(n, arity);
	for (size_t i = 0; i < stack.n; i++)
		node_free(stack.v[i], arity);
	free(stack.v);
	for (int i = 0; i < arity; i++) {
		free(vals[i].v);
		free(counts[i].v);
	}
	free(bv);
	free(left);
	return rc;
}

/* The atoms of one predicate, by truth. */
struct pred_rows {
	int arity;
	struct store_ids r[2]; /* arity ids per atom */
	int64_t n[2];
	struct err *e;
};

static int
pred_row(void *ctx, const int64_t *args, int truth)
{
	struct pred_rows *x = ctx;
	struct store_ids *r = &x->r[truth != 0];

	if (vec_grow_((void **)&r->v, &r->cap, r->n + (size_t)x->arity,
	    sizeof *r->v) < 0)
		return err_oom(x->e);
	if (x->arity > 0)
		memcpy(r->v + r->n, args, (size_t)x->arity * sizeof *args);
	r->n += (size_t)x->arity;
	x->n[truth != 0]++;
	return 0;
}

/* Opens the store's cube statements on predicate pi and truth, closing
 * those open before. */
static int
cube_open(struct store *s, struct sigs *g, int pi, int truth, struct err *e)
{
	if (g->open)
		store_cube_close(s);
	g->open = 1;               /* even half prepared, they need closing */
	return store_cube_open(s, pi, truth, e);
}

/* The true cubes, the false ones, then the unknown ones of predicate pi.
 * When all its atoms fit in memory they are read in one scan (in the
 * order a scan per truth value gives) and only inserts are needed, which
 * the cube statements of any predicate do; otherwise the statements are
 * opened on pi, once per truth value. */
static int
build_pred(struct store *s, struct sigs *g, int pi, int64_t *cubes,
    int64_t *atoms, int64_t *unknown, struct err *e)
{
	struct pred_rows x = { 0 };
	int64_t total;
	int rc;

	x.arity = store_pred_at(s, pi)->arity;
	x.e = e;
	cubes[0] = cubes[1] = atoms[0] = atoms[1] = 0;
	if ((rc = store_pred_count(s, pi, &total, e)))
		return rc;
	if (total <= cube_in_memory) {
		if ((!g->open && (rc = cube_open(s, g, pi, 1, e))) ||
		    (rc = store_atoms_each(s, pi, pred_row, &x, e)))
			goto done;
		for (int t = 1; t >= 0 && !rc; t--) {
			atoms[t] = x.n[t];
			rc = mem_run(s, g, pi, t, x.r[t].v, (size_t)x.n[t], &cubes[t],
			    e);
		}
	} else if (!(rc = cube_open(s, g, pi, 1, e)) &&
	    !(rc = build_one(s, g, pi, 1, &cubes[1], &atoms[1], e)) &&
	    !(rc = cube_open(s, g, pi, 0, e))) {
		rc = build_one(s, g, pi, 0, &cubes[0], &atoms[0], e);
	}
	if (!rc)
		rc = complement(s, g, pi, unknown, e);
done:
	free(x.r[0].v);
	free(x.r[1].v);
	return rc;
}

int
cube_build_all(struct store *s, FILE *report, struct err *e)
{
	struct sigs g = { 0 };
	int rc;

	g.ntypes = store_ntypes(s);
	g.h = xcalloc((size_t)g.ntypes + 1, sizeof *g.h);
	g.cap = xcalloc((size_t)g.ntypes + 1, sizeof *g.cap);
	g.dom_n = xcalloc((size_t)g.ntypes + 1, sizeof *g.dom_n);
	if (!g.h || !g.cap || !g.dom_n) {
		rc = err_oom(e);
		goto done;
	}
	for (int t = 0; t < g.ntypes; t++)
		g.dom_n[t] = -1;
	if ((rc = store_cubes_clear(s, e)))
		goto done;
	for (int p = 0; p < store_npreds(s); p++) {
		int64_t cubes[2], atoms[2], unknown = 0;
		known_clear(&g);
		g.arity = store_pred_at(s, p)->arity;
		if (g.arity > 64) {
			rc = err_set(e, SQLIFT_ELIMIT, "more than 64 arguments");
			goto done;
		}
		if ((rc = build_pred(s, &g, p, cubes, atoms, &unknown, e)))
			goto done;
		if (report) {
			int64_t a = atoms[0] + atoms[1], c = cubes[0] + cubes[1];
			fprintf(report, "%-24s %9lld true in %6lld cubes, %9lld false in "
			    "%6lld cubes: %.1f atoms per cube; unknown in %lld cubes\n",
			    store_pred_at(s, p)->name, (long long)atoms[1],
			    (long long)cubes[1], (long long)atoms[0],
			    (long long)cubes[0], c ? (double)a / (double)c : 0.0,
			    (long long)unknown);
		}
	}
	if (!(rc = store_blocks_build(s, g.h, g.cap, report, e)))
		rc = store_cube_view(s, e);
done:
	if (g.open)
		store_cube_close(s);
	free(g.known.ids.v);
	free(g.known.at.v);
	free(g.dom_n);
	for (int t = 0; g.h && t < g.ntypes; t++)
		free(g.h[t]);
	free(g.h);
	free(g.cap);
	return rc;
}
