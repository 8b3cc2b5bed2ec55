/* cube-unknown.c: the cubes of a predicate's unknown atoms, the
 * complement of its true and false cubes, built dimension by dimension
 * in the order that makes the fewest (struct comp, run_ordered), part by
 * part of equal arguments where the known cubes have = or !=
 * (cube_complement). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube-int.h"

/* Pairs of arguments with = or != in some known cube, at most, for the
 * complement by parts (2^PAIRS_MAX choices of = or !=). */
#define PAIRS_MAX 6
#define MARK_OUT (1 << 16)     /* a mark of a negated side (64 sides max) */
/* The mark of a constant of a known cube (the cover took only constants
 * with a rank). */
#define MARK(c, id) ((c)->mark[idmap_get((c)->rank, (id))])
#define ORDER_MAX 3            /* classes whose every order is tried */

static const int64_t *
known_side(const struct known *k, int arity, size_t cube, int d, size_t *n)
{
	size_t j = cube * (size_t)arity + (size_t)d;

	*n = (j + 1 < k->at.n ? k->at.v[j + 1] : k->ids.n) - k->at.v[j];
	return k->ids.v + k->at.v[j];
}

/* The constraints of known cube q: *neq eq pairs, then *nne ne pairs. */
static const int *
known_cons(const struct known *k, size_t q, int *neq, int *nne)
{
	const int *p = k->cons.v + k->cat.v[q];

	*neq = p[0];
	*nne = p[1];
	return p + 2;
}

int
cube_known_add(struct known *k, int arity, const struct store_ids *side,
    const struct store_cons *cons)
{
	size_t total = k->ids.n;
	int neq = cons ? cons->neq : 0, nne = cons ? cons->nne : 0;

	for (int i = 0; i < arity; i++)
		total += side[i].n;
	if (vec_grow_((void **)&k->ids.v, &k->ids.cap, total,
	    sizeof *k->ids.v) < 0 ||
	    vec_grow_((void **)&k->at.v, &k->at.cap, k->at.n + (size_t)arity,
	    sizeof *k->at.v) < 0 ||
	    vec_grow_((void **)&k->cons.v, &k->cons.cap, k->cons.n + 2 +
	    2 * (size_t)(neq + nne), sizeof *k->cons.v) < 0 ||
	    VEC_PUSH(k->cat, k->cons.n) < 0)
		return -1;
	for (int i = 0; i < arity; i++) {
		k->at.v[k->at.n++] = k->ids.n;
		if (side[i].n > 0)
			memcpy(k->ids.v + k->ids.n, side[i].v,
			    side[i].n * sizeof *side[i].v);
		k->ids.n += side[i].n;
	}
	k->cons.v[k->cons.n++] = neq;
	k->cons.v[k->cons.n++] = nne;
	for (int q = 0; q < neq; q++)
		for (int h = 0; h < 2; h++)
			k->cons.v[k->cons.n++] = cons->eq[q][h];
	for (int q = 0; q < nne; q++)
		for (int h = 0; h < 2; h++)
			k->cons.v[k->cons.n++] = cons->ne[q][h];
	k->n++;
	return 0;
}

/* Is constant v of argument last equal to a fixed partner of one of
 * its inequalities? */
static int
ne_hit(const struct store_cons *cons, const struct store_ids *side,
    int last, int64_t v)
{
	for (int q = 0; q < cons->nne; q++)
		if ((cons->ne[q][0] == last && side[cons->ne[q][1]].v[0] == v) ||
		    (cons->ne[q][1] == last && side[cons->ne[q][0]].v[0] == v))
			return 1;
	return 0;
}

/* The products whose union is a cube with constraints, appended to out:
 * the arguments in a constraint take each constant of their side in
 * turn (one equal to an earlier argument, that one's constant), but for
 * last, in inequalities only, whose side loses its partners' constants;
 * so a diagonal or all pairs but the diagonal of n constants make n
 * products.  pos[0..npos) are the arguments still to fix. */
static int
known_expand(struct known *out, int arity, struct store_ids *side,
    const int *rep, const struct store_cons *cons, const int *pos, int npos,
    int last)
{
	int64_t one[64];
	struct store_ids keep;
	int rc = 0;

	if (npos == 0 && last < 0)
		return cube_known_add(out, arity, side, NULL);
	if (npos == 0) {
		int64_t *v;
		size_t n = 0;
		keep = side[last];
		if (!(v = xmalloc((keep.n + 1) * sizeof *v)))
			return -1;
		for (size_t k = 0; k < keep.n; k++)
			if (!ne_hit(cons, side, last, keep.v[k]))
				v[n++] = keep.v[k];
		side[last] = (struct store_ids){ v, n, 0 };
		if (n > 0)
			rc = cube_known_add(out, arity, side, NULL);
		side[last] = keep;
		free(v);
		return rc;
	}
	keep = side[pos[0]];
	for (size_t k = 0; k < keep.n && !rc; k++) {
		int ok = 1, p = pos[0];
		one[p] = keep.v[k];
		side[p] = (struct store_ids){ &one[p], 1, 0 };
		if (rep[p] != p)
			ok = side[rep[p]].v[0] == one[p];
		for (int q = 0; q < cons->nne && ok; q++)
			if (cons->ne[q][1] == p && cons->ne[q][0] != last)
				ok = side[cons->ne[q][0]].v[0] != one[p];
		if (ok)
			rc = known_expand(out, arity, side, rep, cons, pos + 1, npos - 1,
			    last);
	}
	side[pos[0]] = keep;
	return rc;
}

/* The known cubes of k as products (without constraints) into out. */
static int
known_products(const struct known *k, int arity, struct known *out)
{
	for (size_t q = 0; q < k->n; q++) {
		struct store_ids side[64];
		struct store_cons cons;
		const int *p = known_cons(k, q, &cons.neq, &cons.nne);
		int rep[64], in[64] = { 0 }, pos[64], npos = 0, last = -1;
		for (int d = 0; d < arity; d++) {
			size_t n;
			const int64_t *v = known_side(k, arity, q, d, &n);
			side[d] = (struct store_ids){ (int64_t *)(uintptr_t)v, n, 0 };
		}
		if (cons.neq == 0 && cons.nne == 0) {
			if (cube_known_add(out, arity, side, NULL) < 0)
				return -1;
			continue;
		}
		cons.eq = (int (*)[2])(uintptr_t)p;
		cons.ne = (int (*)[2])(uintptr_t)(p + 2 * cons.neq);
		/* eq pairs tie a later argument to an earlier one, ne pairs are
		 * of earlier arguments, as cover.c makes them */
		for (int i = 0; i < arity; i++)
			rep[i] = i;
		for (int h = 0; h < cons.neq; h++) {
			rep[cons.eq[h][1]] = cons.eq[h][0];
			in[cons.eq[h][0]] = in[cons.eq[h][1]] = 2;
		}
		for (int h = 0; h < cons.nne; h++)
			for (int j = 0; j < 2; j++)
				in[cons.ne[h][j]] |= 1;
		for (int i = 0; i < arity; i++)
			if (in[i] == 1)
				last = i;  /* in inequalities only: not enumerated */
		for (int i = 0; i < arity; i++)
			if (in[i] && i != last)
				pos[npos++] = i;
		if (known_expand(out, arity, side, rep, &cons, pos, npos, last) < 0)
			return -1;
	}
	return 0;
}

static int
byc_val(const void *x, const void *y)
{
	const struct byc *a = x, *b = y;

	return (a->val > b->val) - (a->val < b->val);
}

/* The unknown atoms of a predicate: the complement of its known cubes,
 * built dimension by dimension, in the order run_ordered picks.  At
 * dimension d, the constants of the domain are grouped by the set of
 * (remaining) known cubes whose side holds them; each group recurses
 * with those cubes on the next dimension, and the constants in no side
 * make one cube whose other sides are whole domains.  A side that is
 * most of its domain is stored negated.  The dimensions are the classes
 * of a part (cube_complement): a class's side is that of each of its
 * arguments. */
struct comp {
	struct store *s;
	int pi, arity;                 /* arity: classes of the part */
	const struct known *known;     /* over the classes */
	int64_t dom_n[64];             /* domain size per class */
	struct store_ids side[64];     /* the cube being built, per class */
	uint64_t neg;                  /* negated sides so far */
	double atoms;                  /* of the cube being built, as a product */
	int64_t ncubes;
	int dry;                       /* count the cubes, store none */
	/* the part: per argument its class, per class its first argument,
	 * pairs of classes unequal */
	int nargs, cls_of[64], first[64], npne, pne[PAIRS_MAX][2];
	int64_t arg_dom[64];           /* domain size per argument */
	int *mark;                     /* [rank] counts, zero between uses */
	VEC(int64_t) tmp;              /* a known cube's class sides */
	struct err *e;
	/* scratch of one grouping step, dead once it recurses: per (constant,
	 * cube) pair, per constant and per group, cap entries each */
	size_t cap;
	size_t *pcube, *pnext;         /* a constant's cubes, linked */
	size_t *head, *tail, *npairs;  /* per constant: its list */
	size_t *group, *rep, *ngc;     /* its group; per group: a constant, size */
	struct byc *ord;               /* (name rank, index) to sort */
	int64_t *xid;                  /* per index: the constant id */
	const struct idmap *rank;      /* const id -> rank of its name */
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
	free(c->mark);
	free(c->tmp.v);
}

/* How many constants are in the sides of all the classes in mask (of
 * one type): a listed side holds its constants, a negated one the
 * domain's others. */
static double
side_meet(struct comp *c, uint64_t mask)
{
	int base = -1, nl = 0;
	double n = 0;

	for (int j = 0; j < c->arity; j++)
		if ((mask >> j & 1) && !(c->neg >> j & 1)) {
			nl++;
			if (base < 0 || c->side[j].n < c->side[base].n)
				base = j;
		}
	if (base < 0) {
		/* all negated: the domain less the union of their lists */
		n = (double)c->dom_n[__builtin_ctzll(mask)];
		for (int j = 0; j < c->arity; j++)
			for (size_t k = 0; (mask >> j & 1) && k < c->side[j].n; k++)
				if (!MARK(c, c->side[j].v[k])) {
					MARK(c, c->side[j].v[k]) = 1;
					n--;
				}
	} else {
		/* base's constants marked by every other listed side, by no
		 * negated one */
		for (int j = 0; j < c->arity; j++)
			for (size_t k = 0; (mask >> j & 1) && j != base &&
			    k < c->side[j].n; k++)
				MARK(c, c->side[j].v[k]) += c->neg >> j & 1 ? MARK_OUT : 1;
		for (size_t k = 0; k < c->side[base].n; k++)
			n += MARK(c, c->side[base].v[k]) == nl - 1;
	}
	for (int j = 0; j < c->arity; j++)
		for (size_t k = 0; (mask >> j & 1) && k < c->side[j].n; k++)
			MARK(c, c->side[j].v[k]) = 0;
	return n;
}

/* lab[0..n-1]: each argument labelled by the smallest argument it is
 * taken equal to, where pair h is taken equal when bit h of set is. */
static void
merge_labels(int *lab, int n, int (*pair)[2], int npair, unsigned set)
{
	for (int i = 0; i < n; i++)
		lab[i] = i;
	for (int h = 0; h < npair; h++) {
		int x = lab[pair[h][0]], y = lab[pair[h][1]], lo = x < y ? x : y;
		for (int i = 0; (set >> h & 1) && i < n; i++)
			if (lab[i] == x || lab[i] == y)
				lab[i] = lo;
	}
}

/* The atoms of the cube in c->side with the part's classes c->pne
 * unequal: by inclusion and exclusion over the pairs whose sides meet
 * (the others differ anyway), which go to ne as argument pairs. */
static double
part_atoms(struct comp *c, int (*ne)[2], int *nne)
{
	int edge[PAIRS_MAX][2], m = 0;
	double sum = 0;

	for (int k = 0; k < c->npne; k++) {
		int a = c->pne[k][0], b = c->pne[k][1];
		if (side_meet(c, 1ull << a | 1ull << b) > 0) {
			edge[m][0] = a;
			edge[m][1] = b;
			ne[m][0] = c->first[a] < c->first[b] ? c->first[a] : c->first[b];
			ne[m][1] = c->first[a] < c->first[b] ? c->first[b] : c->first[a];
			m++;
		}
	}
	*nne = m;
	/* sum over the sets of pairs taken equal: per class of equal classes
	 * (labelled by its smallest) the constants common to their sides */
	for (unsigned t = 0; t < 1u << m; t++) {
		int lab[64];
		double prod = 1;
		merge_labels(lab, c->arity, edge, m, t);
		for (int j = 0; j < c->arity && prod > 0; j++) {
			uint64_t mask = 0;
			if (lab[j] != j)
				continue;
			for (int i = j; i < c->arity; i++)
				if (lab[i] == j)
					mask |= 1ull << i;
			prod *= mask == 1ull << j ? (c->neg >> j & 1 ?
			    (double)(c->dom_n[j] - (int64_t)c->side[j].n) :
			    (double)c->side[j].n) : side_meet(c, mask);
		}
		sum += __builtin_popcount(t) & 1 ? -prod : prod;
	}
	return sum;
}

/* Stores the cube in c->side (per class) over the arguments: a class's
 * later arguments equal to its first, its unequal classes' firsts
 * unequal where their sides meet. */
static int
comp_emit(struct comp *c)
{
	struct store_ids side[64];
	int eq[64][2], ne[PAIRS_MAX][2];
	struct store_cons cons = { 0, 0, eq, ne };
	uint64_t neg = 0;
	double atoms = c->atoms;

	if (atoms <= 0 || (c->npne > 0 &&
	    (atoms = part_atoms(c, ne, &cons.nne)) <= 0))
		return 0;
	c->ncubes++;
	if (c->dry)
		return 0;
	for (int i = 0; i < c->nargs; i++) {
		int j = c->cls_of[i];
		side[i] = c->side[j];
		neg |= (c->neg >> j & 1u) << i;
		if (c->first[j] != i) {
			eq[cons.neq][0] = c->first[j];
			eq[cons.neq++][1] = i;
		}
	}
	return store_cube_put(c->s, c->pi, -1, (int64_t)atoms, side, neg,
	    cons.neq || cons.nne ? &cons : NULL, c->e);
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
		c->neg |= UINT64_C(1) << d;
	else
		c->neg &= ~(UINT64_C(1) << d);
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
				c->ord[x] = (struct byc){ idmap_get(c->rank, v[j]),
				    (int64_t)x };
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

/* The complement over the classes of the known cubes k (over them). */
static int
comp_all(struct comp *c, const struct known *k)
{
	int64_t *all = xcalloc(k->n + 1, sizeof *all);
	int rc;

	if (!all)
		return err_oom(c->e);
	for (size_t q = 0; q < k->n; q++)
		all[q] = (int64_t)q;
	c->known = k;
	c->atoms = 1;
	c->neg = 0;
	rc = comp_rec(c, 0, all, k->n);
	free(all);
	return rc;
}

/* The known cubes of k in the current part, as products over its
 * classes, into kp: a cube whose constraints the part breaks is left
 * out; a class's side is its arguments' sides intersected, in the first
 * one's order (a cube with an empty one is left out). */
static int
part_known(struct comp *c, const struct known *k, struct known *kp)
{
	kp->ids.n = kp->at.n = kp->cons.n = kp->cat.n = kp->n = 0;
	for (size_t q = 0; q < k->n; q++) {
		struct store_ids side[64];
		size_t at[64];
		int neq, nne, ok = 1;
		const int *p = known_cons(k, q, &neq, &nne);
		for (int h = 0; h < neq + nne && ok; h++)
			ok = (c->cls_of[p[2 * h]] == c->cls_of[p[2 * h + 1]]) ==
			    (h < neq);
		c->tmp.n = 0;
		for (int j = 0; j < c->arity && ok; j++) {
			size_t n, m;
			const int64_t *v = known_side(k, c->nargs, q, c->first[j], &n);
			int others = 0;
			for (int i = c->first[j] + 1; i < c->nargs; i++)
				if (c->cls_of[i] == j) {
					const int64_t *w = known_side(k, c->nargs, q, i, &m);
					others++;
					for (size_t t = 0; t < m; t++)
						MARK(c, w[t])++;
				}
			at[j] = c->tmp.n;
			for (size_t t = 0; t < n; t++)
				if (MARK(c, v[t]) == others && VEC_PUSH(c->tmp, v[t]) < 0)
					return -1;
			for (int i = c->first[j] + 1; i < c->nargs; i++)
				if (c->cls_of[i] == j) {
					const int64_t *w = known_side(k, c->nargs, q, i, &m);
					for (size_t t = 0; t < m; t++)
						MARK(c, w[t]) = 0;
				}
			ok = c->tmp.n > at[j];
		}
		if (!ok)
			continue;
		for (int j = 0; j < c->arity; j++)
			side[j] = (struct store_ids){ c->tmp.v + at[j], (j + 1 < c->arity ?
			    at[j + 1] : c->tmp.n) - at[j], 0 };
		if (cube_known_add(kp, c->arity, side, NULL) < 0)
			return -1;
	}
	return 0;
}

/* The next order of o[0..n) after it, lexicographically; 0 after the
 * last. */
static int
next_order(int *o, int n)
{
	int i = n - 2, j = n - 1, t;

	while (i >= 0 && o[i] > o[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (o[j] < o[i])
		j--;
	t = o[i];
	o[i] = o[j];
	o[j] = t;
	for (int a = i + 1, b = n - 1; a < b; a++, b--) {
		t = o[a];
		o[a] = o[b];
		o[b] = t;
	}
	return 1;
}

/* The classes of a part as numbered by their first argument. */
struct part {
	int r, first[64], cls_of[64], npne, pne[PAIRS_MAX][2];
	int64_t dom[64];
};

/* Numbers the classes of part nat in order o: dimension t is class o[t]. */
static void
part_apply(struct comp *c, const struct part *nat, const int *o)
{
	int inv[64];

	for (int t = 0; t < nat->r; t++) {
		c->first[t] = nat->first[o[t]];
		c->dom_n[t] = nat->dom[o[t]];
		inv[o[t]] = t;
	}
	for (int i = 0; i < c->nargs; i++)
		c->cls_of[i] = inv[nat->cls_of[i]];
	for (int q = 0; q < nat->npne; q++) {
		c->pne[q][0] = inv[nat->pne[q][0]];
		c->pne[q][1] = inv[nat->pne[q][1]];
	}
	c->arity = nat->r;
	c->npne = nat->npne;
}

/* The complement in the current part (c's classes, numbered by first
 * argument) of the known cubes k, the classes taken in the order that
 * makes the fewest cubes, each order of up to ORDER_MAX classes counted
 * first (ties: the lowest order); kp is scratch. */
static int
run_ordered(struct comp *c, const struct known *k, struct known *kp)
{
	struct part nat;
	int o[64], best[64], dry = c->dry, rc = 0;
	int64_t before = c->ncubes, fewest = -1;

	nat.r = c->arity;
	nat.npne = c->npne;
	memcpy(nat.first, c->first, sizeof nat.first);
	memcpy(nat.cls_of, c->cls_of, sizeof nat.cls_of);
	memcpy(nat.pne, c->pne, sizeof nat.pne);
	memcpy(nat.dom, c->dom_n, sizeof nat.dom);
	for (int t = 0; t < nat.r; t++)
		o[t] = best[t] = t;
	if (nat.r > 1 && nat.r <= ORDER_MAX) {
		c->dry = 1;
		do {
			part_apply(c, &nat, o);
			c->ncubes = 0;
			rc = part_known(c, k, kp) < 0 ? err_oom(c->e) : comp_all(c, kp);
			if (!rc && (fewest < 0 || c->ncubes < fewest)) {
				fewest = c->ncubes;
				memcpy(best, o, (size_t)nat.r * sizeof *o);
			}
		} while (!rc && next_order(o, nat.r));
		c->dry = dry;
		c->ncubes = before;
		if (rc)
			return rc;
		if (dry) {
			c->ncubes += fewest;
			return 0;
		}
	}
	part_apply(c, &nat, best);
	return part_known(c, k, kp) < 0 ? err_oom(c->e) : comp_all(c, kp);
}

/* The complement part by part.  Each choice of = or != for the pairs
 * (bit h of m: pair h equal) that transitivity does not contradict is a
 * part: its atoms have exactly those pairs equal, so the parts are
 * disjoint and cover every atom.  Its classes of equal arguments
 * (numbered by their first argument) are the dimensions, the known
 * cubes that meet it are products there (part_known), and its unknown
 * atoms are their complement less the tuples that break its !=. */
static int
run_parts(struct comp *c, const struct known *k, int (*pair)[2], int npair)
{
	struct known kp = { 0 };
	int rc = 0;

	for (unsigned m = 0; m < 1u << npair && !rc; m++) {
		int lab[64], ci[64], r = 0, ok = 1;
		merge_labels(lab, c->nargs, pair, npair, m);
		for (int h = 0; h < npair && ok; h++)
			ok = (m >> h & 1) || lab[pair[h][0]] != lab[pair[h][1]];
		if (!ok)
			continue;
		for (int i = 0; i < c->nargs; i++)
			if (lab[i] == i) {
				c->first[r] = i;
				c->dom_n[r] = c->arg_dom[i];
				ci[i] = r++;
			}
		for (int i = 0; i < c->nargs; i++)
			c->cls_of[i] = ci[lab[i]];
		c->arity = r;
		c->npne = 0;
		for (int h = 0; h < npair; h++) {
			int a = c->cls_of[pair[h][0]], b = c->cls_of[pair[h][1]], dup = 0;
			if (m >> h & 1)
				continue;
			if (a > b) {
				int t = a;
				a = b;
				b = t;
			}
			for (int q = 0; q < c->npne; q++)
				dup |= c->pne[q][0] == a && c->pne[q][1] == b;
			if (!dup) {
				c->pne[c->npne][0] = a;
				c->pne[c->npne++][1] = b;
			}
		}
		rc = run_ordered(c, k, &kp);
	}
	known_free(&kp);
	return rc;
}

/* The complement with every argument its own class and no constraint:
 * the known cubes k must be products. */
static int
run_plain(struct comp *c, const struct known *k)
{
	struct known kp = { 0 };
	int rc;

	c->arity = c->nargs;
	c->npne = 0;
	for (int i = 0; i < c->nargs; i++) {
		c->cls_of[i] = c->first[i] = i;
		c->dom_n[i] = c->arg_dom[i];
	}
	rc = run_ordered(c, k, &kp);
	known_free(&kp);
	return rc;
}

/* The complement by parts of the known cubes k or the plain one of their
 * products ex, whichever makes fewer cubes (ties: plain); each
 * counted first without storing. */
static int
run_fewer(struct comp *c, const struct known *k, const struct known *ex,
    int (*pair)[2], int npair)
{
	int64_t by_parts;
	int rc;

	c->dry = 1;
	rc = run_parts(c, k, pair, npair);
	by_parts = c->ncubes;
	c->ncubes = 0;
	if (!rc)
		rc = run_plain(c, ex);
	c->dry = 0;
	if (rc)
		return rc;
	rc = by_parts < c->ncubes;
	c->ncubes = 0;
	return rc ? run_parts(c, k, pair, npair) : run_plain(c, ex);
}

/* The complement of the known cubes of predicate pi.  Without = or != in
 * them, the plain complement.  With them, on at most PAIRS_MAX pairs of
 * arguments, the complement by parts (run_parts) or the plain one of
 * the known cubes taken as products (a diagonal of n constants as n
 * singletons, all pairs but the diagonal as n rows), whichever makes
 * fewer cubes (ties: plain); on more pairs, the plain one.  So a
 * diagonal known true leaves one cube x != y, and no predicate gets more
 * unknown cubes than the plain complement gives. */
int
cube_complement(struct store *s, struct sigs *g, int pi, int64_t *ncubes,
    struct err *e)
{
	const struct store_pred *p = store_pred_at(s, pi);
	const struct known *k = &g->known;
	struct comp c = { 0 };
	struct known ex = { 0 };
	int pair[PAIRS_MAX][2], npair = 0, rc = 0;
	unsigned char used[64][64];

	*ncubes = 0;
	if (p->arity <= 0)
		return 0;
	c.s = s;
	c.pi = pi;
	c.nargs = p->arity;
	c.rank = &g->rank;
	c.e = e;
	for (int i = 0; i < p->arity && !rc; i++)
		rc = dom_size(s, g, store_type_at(s, p->types[i]), &c.arg_dom[i], e);
	/* the pairs with = or != in some known cube, ascending */
	memset(used, 0, sizeof used);
	for (size_t q = 0; q < k->n; q++) {
		int neq, nne;
		const int *v = known_cons(k, q, &neq, &nne);
		for (int h = 0; h < neq + nne; h++) {
			int a = v[2 * h], b = v[2 * h + 1];
			used[a < b ? a : b][a < b ? b : a] = 1;
		}
	}
	for (int a = 0; a < c.nargs; a++)
		for (int b = a + 1; b < c.nargs; b++)
			if (used[a][b] && npair++ < PAIRS_MAX) {
				pair[npair - 1][0] = a;
				pair[npair - 1][1] = b;
			}
	if (!rc && !(c.mark = xcalloc(g->nconst + 1, sizeof *c.mark)))
		rc = err_oom(e);
	if (!rc && npair > 0 && known_products(k, c.nargs, &ex) < 0)
		rc = err_oom(e);
	if (!rc && npair == 0)
		rc = run_plain(&c, k);
	else if (!rc && npair > PAIRS_MAX)
		rc = run_plain(&c, &ex);
	else if (!rc)
		rc = run_fewer(&c, k, &ex, pair, npair);
	*ncubes = c.ncubes;
	known_free(&ex);
	comp_free(&c);
	return rc;
}
