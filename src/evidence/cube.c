/* cube.c: the greedy top-down hypercube builder.  A cube is a product of
 * sets of constants, one per argument.  Starting from the bounding box of
 * a predicate's true (or false) atoms, a cube that is not full is split
 * in two along one argument: preferably into the values whose slice is
 * complete (a cube at once) and the rest, otherwise into the values with
 * the most and the fewest atoms; each half shrinks to its bounding box.
 * Counts and bounding boxes are SQL queries on the evidence tables. */
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

/* Block signatures: for each stored type, a hash per constant id of the
 * (cube, argument) pairs whose side holds it, in the order cubes are
 * made; constants with equal signatures form a block. */
struct kcube {
	struct store_ids side[64];
};

struct sigs {
	int ntypes;
	uint64_t **h;          /* [type index][const id] */
	int64_t *cap;
	int64_t seq;           /* cubes made so far */
	/* the known cubes of the current predicate, for the complement */
	struct { struct kcube **v; size_t n, cap; } known;
	int arity;
};

static void
known_clear(struct sigs *g)
{
	for (size_t k = 0; k < g->known.n; k++) {
		for (int i = 0; i < g->arity; i++)
			free(g->known.v[k]->side[i].v);
		free(g->known.v[k]);
	}
	g->known.n = 0;
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

/* Stores a known cube, adds it to the signatures and keeps a copy for
 * the complement. */
static int
emit(struct store *s, struct sigs *g, int pi, int truth, int64_t atoms,
    const struct store_ids *side, struct err *e)
{
	struct kcube *k;
	int rc = store_cube_put(s, pi, truth, atoms, side, 0, e);

	if (rc)
		return rc;
	if (sig_add(g, s, pi, side) < 0 || !(k = xcalloc(1, sizeof *k)))
		return err_oom(e);
	for (int i = 0; i < g->arity; i++)
		for (size_t j = 0; j < side[i].n; j++)
			if (VEC_PUSH(k->side[i], side[i].v[j]) < 0) {
				for (int x = 0; x <= i; x++)
					free(k->side[x].v);
				free(k);
				return err_oom(e);
			}
	if (VEC_PUSH(g->known, k) < 0) {
		for (int x = 0; x < g->arity; x++)
			free(k->side[x].v);
		free(k);
		return err_oom(e);
	}
	return 0;
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
	struct kcube **known;
	struct store_ids dom[64];      /* domain ids per argument */
	struct store_ids side[64];     /* the cube being built */
	unsigned neg;                  /* negated sides so far */
	double atoms;                  /* of the cube being built */
	int64_t ncubes;
	struct err *e;
};

static int
pair_cmp(const void *x, const void *y)
{
	const struct { int64_t id; size_t cube; } *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->cube > b->cube) - (a->cube < b->cube);
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
	c->side[d].n = 0;
	for (size_t k = 0; k < n; k++)
		if (VEC_PUSH(c->side[d], list[k]) < 0)
			return err_oom(c->e);
	if (negate)
		c->neg |= 1u << d;
	else
		c->neg &= ~(1u << d);
	return 0;
}

static int
comp_rec(struct comp *c, int d, const size_t *cubes, size_t nc)
{
	double before = c->atoms;
	struct store_ids used = { 0 };
	int rc = 0;

	if (nc == 0) {
		/* nothing known here: whole domains from d on */
		for (int j = d; j < c->arity && !rc; j++) {
			rc = comp_side(c, j, NULL, 0, 1);
			c->atoms *= (double)c->dom[j].n;
		}
		if (!rc)
			rc = comp_emit(c);
		c->atoms = before;
		return rc;
	}
	/* the constants of argument d in some side, sorted, with the
	 * cubes holding each: a signature per constant */
	{
		struct { int64_t id; size_t cube; } *pairs = NULL;
		size_t np = 0, cap = 0;
		for (size_t k = 0; k < nc; k++) {
			const struct store_ids *sd = &c->known[cubes[k]]->side[d];
			for (size_t j = 0; j < sd->n; j++) {
				if (np == cap) {
					void *q = xrealloc(pairs, (cap = cap ? cap * 2 : 64) *
					    sizeof *pairs);
					if (!q) {
						free(pairs);
						return err_oom(c->e);
					}
					pairs = q;
				}
				pairs[np].id = sd->v[j];
				pairs[np].cube = cubes[k];
				np++;
			}
		}
		/* sort by constant, then cube: runs give each signature */
		qsort(pairs, np, sizeof *pairs, pair_cmp);
		{
			/* group constants by their cube lists */
			struct smap groups;
			VEC(struct store_ids) gconst = { 0 };
			VEC(size_t *) gcubes = { 0 };
			VEC(size_t) gn = { 0 };
			size_t i = 0;
			smap_init(&groups);
			while (i < np && !rc) {
				size_t j = i;
				struct buf key;
				int gi;
				buf_init(&key);
				while (j < np && pairs[j].id == pairs[i].id) {
					buf_printf(&key, "%zu,", pairs[j].cube);
					j++;
				}
				if (key.oom || VEC_PUSH(used, pairs[i].id) < 0) {
					buf_free(&key);
					rc = err_oom(c->e);
					break;
				}
				if ((gi = smap_get(&groups, key.s)) < 0) {
					struct store_ids z = { 0 };
					size_t *cl = xcalloc(j - i + 1, sizeof *cl);
					gi = (int)gconst.n;
					if (!cl || smap_put(&groups, key.s, gi) < 0 ||
					    VEC_PUSH(gconst, z) < 0) {
						free(cl);
						buf_free(&key);
						rc = err_oom(c->e);
						break;
					}
					for (size_t q = i; q < j; q++)
						cl[q - i] = pairs[q].cube;
					if (VEC_PUSH(gcubes, cl) < 0 || VEC_PUSH(gn, j - i) < 0) {
						free(cl);
						buf_free(&key);
						rc = err_oom(c->e);
						break;
					}
				}
				buf_free(&key);
				if (VEC_PUSH(gconst.v[gi], pairs[i].id) < 0) {
					rc = err_oom(c->e);
					break;
				}
				i = j;
			}
			free(pairs);
			/* each group: its constants here, its cubes further on */
			for (size_t g = 0; g < gconst.n && !rc; g++) {
				if (d == c->arity - 1)
					continue;  /* fully covered at the last argument */
				rc = comp_side(c, d, gconst.v[g].v, gconst.v[g].n, 0);
				c->atoms = before * (double)gconst.v[g].n;
				if (!rc)
					rc = comp_rec(c, d + 1, gcubes.v[g], gn.v[g]);
			}
			for (size_t g = 0; g < gconst.n; g++) {
				free(gconst.v[g].v);
				free(gcubes.v[g]);
			}
			free(gconst.v);
			free(gcubes.v);
			free(gn.v);
			smap_free(&groups);
		}
	}
	/* the constants of argument d in no side: all the rest */
	if (!rc && c->dom[d].n > used.n) {
		rc = comp_side(c, d, used.v, used.n, 1);
		c->atoms = before * (double)(c->dom[d].n - used.n);
		for (int j = d + 1; j < c->arity && !rc; j++) {
			rc = comp_side(c, j, NULL, 0, 1);
			c->atoms *= (double)c->dom[j].n;
		}
		if (!rc)
			rc = comp_emit(c);
	}
	c->atoms = before;
	free(used.v);
	return rc;
}

static int
complement(struct store *s, struct sigs *g, int pi, int64_t *ncubes,
    struct err *e)
{
	const struct store_pred *p = store_pred_at(s, pi);
	struct comp c = { 0 };
	size_t *all = NULL;
	int rc = 0;

	c.s = s;
	c.pi = pi;
	c.arity = p->arity;
	c.known = g->known.v;
	c.atoms = 1;
	c.e = e;
	if ((rc = store_cube_open(s, pi, 1, e)))  /* for its insert statements */
		goto done;
	for (int i = 0; i < p->arity && !rc; i++)
		rc = store_domain_ids(s, store_type_at(s, p->types[i]), &c.dom[i], e);
	if (!rc && !(all = xcalloc(g->known.n + 1, sizeof *all)))
		rc = err_oom(e);
	for (size_t k = 0; !rc && k < g->known.n; k++)
		all[k] = k;
	if (!rc && p->arity > 0)
		rc = comp_rec(&c, 0, all, g->known.n);
done:
	store_cube_close(s);
	*ncubes = c.ncubes;
	free(all);
	for (int i = 0; i < p->arity; i++) {
		free(c.dom[i].v);
		free(c.side[i].v);
	}
	return rc;
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

struct mem {
	const int64_t *rows;   /* arity ids per atom */
	int arity;
	int64_t *key;          /* hash scratch for count_dim: cap slots */
	size_t *slot;
	size_t cap;
};


static int
id_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* The distinct values of argument dim among atoms idx[0..n) and the
 * atoms of each, by hashing: linear time. */
static int
count_dim(struct mem *m, const size_t *idx, size_t n, int dim,
    struct store_ids *side, struct store_ids *cnt)
{
	size_t cap = 16, mask;

	while (cap < 2 * n)
		cap *= 2;
	if (cap > m->cap) {
		int64_t *k = xrealloc(m->key, cap * sizeof *k);
		size_t *sl = k ? xrealloc(m->slot, cap * sizeof *sl) : NULL;
		if (k)
			m->key = k;
		if (!k || !sl)
			return -1;
		m->slot = sl;
		m->cap = cap;
	}
	mask = cap - 1;
	for (size_t k = 0; k < cap; k++)
		m->slot[k] = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		int64_t v = m->rows[idx[k] * m->arity + dim];
		size_t h = ((uint64_t)v * 0x9e3779b97f4a7c15ULL >> 20) & mask;
		while (m->slot[h] != SIZE_MAX && m->key[h] != v)
			h = (h + 1) & mask;
		if (m->slot[h] == SIZE_MAX) {
			m->key[h] = v;
			m->slot[h] = side->n;
			if (VEC_PUSH(*side, v) < 0 || VEC_PUSH(*cnt, 0) < 0)
				return -1;
		}
		cnt->v[m->slot[h]]++;
	}
	return 0;
}

/* Cubes of the atoms idx[0..n) (indices into m->rows), exactly covering
 * them.  Uses and reorders idx. */
static int
mem_split(struct store *s, struct sigs *g, int pi, int truth, struct mem *m,
    size_t *idx, size_t n, int64_t *ncubes, struct err *e)
{
	struct store_ids side[64], cnt[64];
	struct byc *bv = NULL;
	int64_t *lset = NULL;
	unsigned char *left = NULL;
	double full = 1;
	int complete, dim, rc = 0;
	size_t nl = 0, nv, nleft = 0;

	memset(side, 0, sizeof side);
	memset(cnt, 0, sizeof cnt);
	for (int i = 0; i < m->arity; i++) {
		if (count_dim(m, idx, n, i, &side[i], &cnt[i]) < 0) {
			rc = err_oom(e);
			goto done;
		}
		full *= (double)side[i].n;
	}
	if ((double)n == full) {
		rc = emit(s, g, pi, truth, (int64_t)n, side, e);
		++*ncubes;
		goto done;
	}
	dim = pick_dim(m->arity, cnt, full, &complete);
	nv = side[dim].n;
	if (!(bv = xcalloc(nv + 1, sizeof *bv)) ||
	    !(lset = xcalloc(nv + 1, sizeof *lset)) ||
	    !(left = xcalloc(nv + 1, 1))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t k = 0; k < nv; k++)
		bv[k] = (struct byc){ side[dim].v[k], cnt[dim].v[k] };
	pick_left(bv, nv, complete, full / (double)nv, left);
	for (size_t k = 0; k < nv; k++)
		if (left[k])
			lset[nl++] = bv[k].val;
	qsort(lset, nl, sizeof *lset, id_cmp);
	/* left atoms first, then the right ones */
	for (size_t k = 0; k < n; k++) {
		int64_t v = m->rows[idx[k] * m->arity + dim];
		if (bsearch(&v, lset, nl, sizeof *lset, id_cmp)) {
			size_t t = idx[nleft];
			idx[nleft++] = idx[k];
			idx[k] = t;
		}
	}
	free(bv);
	free(lset);
	free(left);
	bv = NULL;
	lset = NULL;
	left = NULL;
	for (int i = 0; i < m->arity; i++) {
		free(side[i].v);
		free(cnt[i].v);
	}
	memset(side, 0, sizeof side);
	memset(cnt, 0, sizeof cnt);
	if ((rc = mem_split(s, g, pi, truth, m, idx, nleft, ncubes, e)))
		goto done;
	rc = mem_split(s, g, pi, truth, m, idx + nleft, n - nleft, ncubes, e);
done:
	for (int i = 0; i < m->arity; i++) {
		free(side[i].v);
		free(cnt[i].v);
	}
	free(bv);
	free(lset);
	free(left);
	return rc;
}

/* Reads the atoms inside the current cube (or all of them) and splits
 * them in memory. */
static int
mem_build(struct store *s, struct sigs *g, int pi, int truth, int all,
    int64_t *ncubes, struct err *e)
{
	struct store_ids rows = { 0 };
	struct mem m = { NULL, store_pred_at(s, pi)->arity, NULL, NULL, 0 };
	size_t n, *idx = NULL;
	int rc;

	if ((rc = all ? store_cube_rows_all(s, &rows, e) :
	    store_cube_rows(s, &rows, e)))
		goto done;
	n = m.arity ? rows.n / (size_t)m.arity : 0;
	if (!(idx = xcalloc(n + 1, sizeof *idx))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t k = 0; k < n; k++)
		idx[k] = k;
	m.rows = rows.v;
	if (n > 0)
		rc = mem_split(s, g, pi, truth, &m, idx, n, ncubes, e);
done:
	free(m.key);
	free(m.slot);
	free(idx);
	free(rows.v);
	return rc;
}

/* Cubes of one predicate's atoms of one truth value. */
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
	if ((rc = store_cube_open(s, pi, truth, e)))
		goto done;
	{
		/* small enough to split in memory from the start */
		int64_t all;
		if ((rc = store_cube_count_all(s, &all, e)))
			goto done;
		*natoms = all;
		if (all == 0)
			goto done;  /* no atoms of this truth */
		if (all <= cube_in_memory) {
			rc = mem_build(s, g, pi, truth, 1, ncubes, e);
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
			if ((rc = mem_build(s, g, pi, truth, 0, ncubes, e)))
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
	store_cube_close(s);
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
	if (!g.h || !g.cap) {
		rc = err_oom(e);
		goto done;
	}
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
		for (int t = 1; t >= 0; t--)
			if ((rc = build_one(s, &g, p, t, &cubes[t], &atoms[t], e)))
				goto done;
		if ((rc = complement(s, &g, p, &unknown, e)))
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
	known_clear(&g);
	free(g.known.v);
	for (int t = 0; g.h && t < g.ntypes; t++)
		free(g.h[t]);
	free(g.h);
	free(g.cap);
	return rc;
}
