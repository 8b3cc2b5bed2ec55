/* cube-unknown.c: the cubes of a predicate's unknown atoms, the
 * complement of its true and false cubes, built argument by argument
 * (see struct comp). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube-int.h"

static const int64_t *
known_side(const struct known *k, int arity, size_t cube, int d, size_t *n)
{
	size_t j = cube * (size_t)arity + (size_t)d;

	*n = (j + 1 < k->at.n ? k->at.v[j + 1] : k->ids.n) - k->at.v[j];
	return k->ids.v + k->at.v[j];
}

static int
byc_val(const void *x, const void *y)
{
	const struct byc *a = x, *b = y;

	return (a->val > b->val) - (a->val < b->val);
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
	struct byc *ord;               /* (name rank, index) to sort */
	int64_t *xid;                  /* per index: the constant id */
	const int *rank;               /* [const id]: rank of its name */
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
		int64_t *x;
		if (!p)
			return -1;
		c->pcube = p;
		if (!(o = xrealloc(c->ord, cap * sizeof *o)))
			return -1;
		c->ord = o;
		if (!(x = xrealloc(c->xid, cap * sizeof *x)))
			return -1;
		c->xid = x;
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
	free(c->xid);
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
	    c->neg, NULL, c->e);
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
				c->ord[x] = (struct byc){ c->rank[v[j]], (int64_t)x };
				c->xid[x] = v[j];
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
	cube_byc_sort(c->ord, nd, byc_val);
	/* group the constants by their cube lists, groups numbered in the
	 * order of their first constant by name */
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
		used[r] = c->xid[c->ord[r].count];
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
			gconst[c->ngc[c->group[x]]++] = c->xid[x];
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
int
cube_complement(struct store *s, struct sigs *g, int pi, int64_t *ncubes,
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
	c.rank = g->rank;
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
