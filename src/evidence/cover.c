/* cover.c: the canonical cover of one predicate's true (or false) atoms
 * by cubes with setineq constraints: orbits of the blocks (coarse.c)
 * per pattern of equal arguments, grouped by equal slices. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube-int.h"

/* Why it is exact and canonical.  Swapping two constants of a block maps
 * the evidence onto itself, so with an atom the evidence holds its whole
 * orbit: the atoms with the same block per argument and the same
 * arguments equal (arguments of one type; the others are independent).
 * An orbit is a tuple over the classes of equal arguments, one block per
 * class, and its constants are the product of the classes' blocks with
 * the classes of one type unequal.  The atoms are grouped by pattern (the
 * classes) and by tuple; every group is checked to be its whole orbit
 * (else, blocks out of date, every constant is taken as its own block).
 * Per pattern the tuples form a relation over blocks, covered exactly by
 * grouping: along the argument with the fewest distinct slices (the
 * other arguments' tuples with a given value), the values with equal
 * slices make one side and their slice is covered in turn; for two
 * arguments that is the fewer of the distinct rows and columns.  Values
 * with equal slices can share every cube, so the least cover of the
 * relation is that of one representative per value class: grouping
 * loses nothing there (Singla et al.'s top-down splits can).  A cube is
 * then the product of its blocks' constants with the pattern's equal
 * arguments equal (eq) and its classes of one type unequal (ne) where
 * their sides share a block.  Every choice depends on sets, not on
 * orders or ids, and the cubes are stored sorted by the names of their
 * constants: the same evidence in any order gives the same cubes. */

typedef int (*idx_cmp)(const void *ctx, size_t x, size_t y);

/* Stable merge sort of the indices a[0..n) by cmp; tmp has room for n. */
static void
msort(size_t *a, size_t *tmp, size_t n, idx_cmp cmp, const void *ctx)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n <= 16) {
		for (size_t p = 1; p < n; p++) {
			size_t x = a[p], q = p;
			for (; q > 0 && cmp(ctx, a[q - 1], x) > 0; q--)
				a[q] = a[q - 1];
			a[q] = x;
		}
		return;
	}
	msort(a, tmp, h, cmp, ctx);
	msort(a + h, tmp, n - h, cmp, ctx);
	while (i < h && j < n)
		tmp[k++] = cmp(ctx, a[j], a[i]) < 0 ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

static int
cmp64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* A cube found, before sorting: per class its values' constants (a
 * length, then the ids by name) from ids[at]; its ne pairs of classes
 * from ne[neat]. */
struct found {
	size_t at, neat;
	int64_t atoms;
	int pat, nne;
};

struct cover {
	struct store *s;
	struct sigs *g;
	int pi, truth, arity, ident;
	int type[64];          /* store type index per argument */
	/* the current pattern: per argument its representative (the first
	 * equal argument of its type); per class its argument */
	int r, cls[64];
	VEC(int) pats;         /* arity reps per pattern, in key order */
	VEC(int64_t) fix[64];  /* per class: its side of the cube being made */
	VEC(int64_t) ids;
	VEC(int) ne;           /* pairs of classes */
	VEC(struct found) found;
	struct err *e;
};

/* The block of constant id in type t, or -1 outside its domain. */
static int64_t
block_of(const struct sigs *g, int t, int64_t id)
{
	const struct type_blocks *b = &g->tb[t];
	size_t lo = i64_lower(b->ids, b->n, id);

	return lo < b->n && b->ids[lo] == id ? b->block[lo] : -1;
}

static int
rank_cmp(const void *ctx, size_t x, size_t y)
{
	const struct sigs *g = ctx;
	int a = idmap_get(&g->rank, (int64_t)x), b = idmap_get(&g->rank, (int64_t)y);

	return (a > b) - (a < b);
}

/* The constants of every block of type t, by name (once per build). */
static int
bmem_get(struct sigs *g, int t)
{
	const struct type_blocks *b = &g->tb[t];
	struct bmem *m = &g->bm[t];
	size_t *ord = NULL, *tmp = NULL;

	if (m->at)
		return 0;
	if (!(m->at = xcalloc((size_t)b->nblocks + 2, sizeof *m->at)) ||
	    !(m->ids = xcalloc(b->n + 1, sizeof *m->ids)) ||
	    !(ord = xcalloc(b->n + 1, sizeof *ord)) ||
	    !(tmp = xcalloc(b->n + 1, sizeof *tmp))) {
		free(m->at);    /* not filled: m->at stays NULL */
		free(m->ids);
		free(ord);
		m->at = NULL;
		m->ids = NULL;
		return -1;
	}
	for (size_t k = 0; k < b->n; k++)
		ord[k] = (size_t)b->ids[k];
	msort(ord, tmp, b->n, rank_cmp, g);
	for (size_t k = 0; k < b->n; k++)
		m->at[b->block[k] + 1]++;
	for (int k = 0; k < b->nblocks; k++)
		m->at[k + 1] += m->at[k];
	memcpy(tmp, m->at, ((size_t)b->nblocks + 1) * sizeof *tmp);
	for (size_t k = 0; k < b->n; k++) {
		int64_t id = (int64_t)ord[k];
		m->ids[tmp[block_of(g, t, id)]++] = id;
	}
	free(ord);
	free(tmp);
	return 0;
}

/* The relation of one step: n rows of r values, their atoms, the free
 * dimensions; the grouping along d fills the rest. */
struct rel {
	const int64_t *v, *w;
	size_t n;
	int r, nd, d;
	const int *dims;
	size_t *ord, *tmp, *rid, *rs, *rl, *ro, nruns;
};

static int
cmp_rest(const void *ctx, size_t x, size_t y)
{
	const struct rel *R = ctx;

	for (int k = 0; k < R->nd; k++) {
		int d = R->dims[k], c;
		if (d != R->d &&
		    (c = cmp64(R->v[x * (size_t)R->r + (size_t)d],
		    R->v[y * (size_t)R->r + (size_t)d])))
			return c;
	}
	return 0;
}

static int
cmp_vrid(const void *ctx, size_t x, size_t y)
{
	const struct rel *R = ctx;
	int c = cmp64(R->v[x * (size_t)R->r + (size_t)R->d],
	    R->v[y * (size_t)R->r + (size_t)R->d]);

	return c ? c : (R->rid[x] > R->rid[y]) - (R->rid[x] < R->rid[y]);
}

/* Runs (values of d) by their slices: length, then the rests' numbers. */
static int
cmp_run(const void *ctx, size_t a, size_t b)
{
	const struct rel *R = ctx;

	if (R->rl[a] != R->rl[b])
		return R->rl[a] < R->rl[b] ? -1 : 1;
	for (size_t t = 0; t < R->rl[a]; t++) {
		size_t x = R->rid[R->ord[R->rs[a] + t]],
		    y = R->rid[R->ord[R->rs[b] + t]];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static void
rel_free(struct rel *R)
{
	free(R->ord);
	R->ord = NULL;
}

/* Groups the values of dimension d by their slices; the number of
 * distinct slices, or -1 out of memory. */
static long
rel_group(struct rel *R, int d)
{
	size_t n = R->n, k, groups = 0;

	R->d = d;
	if (!R->ord && !(R->ord = xmalloc(6 * (n + 1) * sizeof *R->ord)))
		return -1;
	R->tmp = R->ord + n + 1;
	R->rid = R->tmp + n + 1;
	R->rs = R->rid + n + 1;
	R->rl = R->rs + n + 1;
	R->ro = R->rl + n + 1;
	for (k = 0; k < n; k++)
		R->ord[k] = k;
	msort(R->ord, R->tmp, n, cmp_rest, R);
	for (k = 0; k < n; k++)
		R->rid[R->ord[k]] = k && !cmp_rest(R, R->ord[k - 1], R->ord[k]) ?
		    R->rid[R->ord[k - 1]] : k;
	msort(R->ord, R->tmp, n, cmp_vrid, R);
	R->nruns = 0;
	for (k = 0; k < n; k++) {
		const int64_t *x = R->v + R->ord[k] * (size_t)R->r;
		if (k == 0 || x[d] != R->v[R->ord[k - 1] * (size_t)R->r + (size_t)d]) {
			R->rs[R->nruns] = k;
			R->rl[R->nruns++] = 0;
		}
		R->rl[R->nruns - 1]++;
	}
	for (k = 0; k < R->nruns; k++)
		R->ro[k] = k;
	msort(R->ro, R->tmp, R->nruns, cmp_run, R);
	for (k = 0; k < R->nruns; k++)
		groups += k == 0 || cmp_run(R, R->ro[k - 1], R->ro[k]) != 0;
	return (long)groups;
}

static int
cmp_i64(const void *x, const void *y)
{
	return cmp64(*(const int64_t *)x, *(const int64_t *)y);
}

/* Appends the constants of the values of class j (sorted by name) to
 * c->ids, after their number. */
static int
class_side(struct cover *c, int j)
{
	struct sigs *g = c->g;
	int t = c->type[c->cls[j]];
	size_t at = c->ids.n, n = 0, nf = c->fix[j].n;
	const int64_t *fv = c->fix[j].v;

	if (VEC_PUSH(c->ids, 0) < 0)
		return -1;
	for (size_t k = 0; k < nf; k++) {
		const int64_t *src = &fv[k];
		size_t m = 1;
		if (!c->ident) {
			if (bmem_get(g, t) < 0)
				return -1;
			src = g->bm[t].ids + g->bm[t].at[fv[k]];
			m = g->bm[t].at[fv[k] + 1] - g->bm[t].at[fv[k]];
		}
		if (vec_grow_((void **)&c->ids.v, &c->ids.cap, c->ids.n + m,
		    sizeof *c->ids.v) < 0)
			return -1;
		memcpy(c->ids.v + c->ids.n, src, m * sizeof *src);
		c->ids.n += m;
		n += m;
	}
	c->ids.v[at] = (int64_t)n;
	if (c->ident || nf > 1) {
		/* by name: sort the ranks' order through a scratch of indices */
		size_t *o = xmalloc(2 * (n + 1) * sizeof *o);
		if (!o)
			return -1;
		for (size_t k = 0; k < n; k++)
			o[k] = (size_t)c->ids.v[at + 1 + k];
		msort(o, o + n + 1, n, rank_cmp, g);
		for (size_t k = 0; k < n; k++)
			c->ids.v[at + 1 + k] = (int64_t)o[k];
		free(o);
	}
	return 0;
}

/* Do the (sorted) values of classes j and k share one? */
static int
fix_meet(const struct cover *c, int j, int k)
{
	const int64_t *a = c->fix[j].v, *b = c->fix[k].v;
	size_t p = 0, q = 0;

	while (p < c->fix[j].n && q < c->fix[k].n) {
		if (a[p] == b[q])
			return 1;
		if (a[p] < b[q])
			p++;
		else
			q++;
	}
	return 0;
}

/* Keeps the cube of the sides in c->fix, of the given atoms. */
static int
found_add(struct cover *c, int64_t atoms)
{
	struct found f = { c->ids.n, c->ne.n, atoms, (int)c->pats.n / c->arity - 1,
	    0 };

	for (int j = 0; j < c->r; j++)
		qsort(c->fix[j].v, c->fix[j].n, sizeof *c->fix[j].v, cmp_i64);
	for (int j = 0; j < c->r; j++) {
		if (class_side(c, j) < 0)
			return -1;
		for (int k = j + 1; k < c->r; k++)
			if (c->type[c->cls[j]] == c->type[c->cls[k]] && fix_meet(c, j, k)) {
				if (VEC_PUSH(c->ne, j) < 0 || VEC_PUSH(c->ne, k) < 0)
					return -1;
				f.nne++;
			}
	}
	return VEC_PUSH(c->found, f);
}

/* Covers the relation of rows v (r values each, atoms w) over the free
 * dimensions dims[0..nd); the chosen ones are in c->fix. */
static int
cover_rec(struct cover *c, const int64_t *v, const int64_t *w, size_t n,
    const int *dims, int nd)
{
	struct rel R = { v, w, n, c->r, nd, -1, dims, NULL, NULL, NULL, NULL,
	    NULL, NULL, 0 };
	int64_t *sv = NULL, *sw = NULL;
	int sub[64], best = -1, rc = 0;
	long bestn = -1;

	if (nd == 1) {
		int64_t atoms = 0;
		c->fix[dims[0]].n = 0;
		for (size_t k = 0; k < n; k++) {
			if (VEC_PUSH(c->fix[dims[0]], v[k * (size_t)c->r +
			    (size_t)dims[0]]) < 0)
				return -1;
			atoms += w[k];
		}
		return found_add(c, atoms);
	}
	for (int k = 0; k < nd; k++) {
		long m = rel_group(&R, dims[k]);
		if (m < 0) {
			rel_free(&R);
			return -1;
		}
		if (bestn < 0 || m < bestn) {
			bestn = m;
			best = dims[k];
		}
	}
	for (int k = 0, j = 0; k < nd; k++)
		if (dims[k] != best)
			sub[j++] = dims[k];
	if (rel_group(&R, best) < 0 ||
	    !(sv = xmalloc((n + 1) * (size_t)c->r * sizeof *sv)) ||
	    !(sw = xmalloc((n + 1) * sizeof *sw))) {
		rc = -1;
		goto done;
	}
	for (size_t k = 0; k < R.nruns && !rc; ) {
		size_t first = R.ro[k], len = R.rl[first], e = k;
		memset(sw, 0, len * sizeof *sw);
		for (size_t t = 0; t < len; t++)
			memcpy(sv + t * (size_t)c->r, v + R.ord[R.rs[first] + t] *
			    (size_t)c->r, (size_t)c->r * sizeof *sv);
		/* the values with this slice: the side of best */
		for (; e < R.nruns && (e == k || !cmp_run(&R, R.ro[k], R.ro[e]));
		    e++) {
			size_t run = R.ro[e];
			for (size_t t = 0; t < len; t++)
				sw[t] += w[R.ord[R.rs[run] + t]];
		}
		/* the slice's cubes need their sides: set best's last, since
		 * the recursion on the slice overwrites only the others */
		c->fix[best].n = 0;
		for (size_t q = k; q < e && !rc; q++)
			if (VEC_PUSH(c->fix[best], v[R.ord[R.rs[R.ro[q]]] *
			    (size_t)c->r + (size_t)best]) < 0)
				rc = -1;
		if (!rc)
			rc = cover_rec(c, sv, sw, len, sub, nd - 1);
		k = e;
	}
done:
	free(sv);
	free(sw);
	rel_free(&R);
	return rc;
}

/* The keys of the atoms, 2 * arity values each: the pattern (per
 * argument its representative), then per class its block (the constant
 * itself when ident), -1 after the last class. */
struct keys {
	const int64_t *k;
	size_t len, cmp;       /* values per key, values compared */
};

static int
cmp_key(const void *ctx, size_t x, size_t y)
{
	const struct keys *K = ctx;
	const int64_t *a = K->k + x * K->len, *b = K->k + y * K->len;

	for (size_t i = 0; i < K->cmp; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* 0, or -1 when a constant is outside its argument's domain. */
static int
make_keys(struct cover *c, const int64_t *rows, size_t n, int64_t *key)
{
	size_t A = (size_t)c->arity;

	for (size_t a = 0; a < n; a++) {
		const int64_t *x = rows + a * A;
		int64_t *k = key + a * 2 * A;
		size_t nc = 0;
		for (size_t i = 0; i < A; i++) {
			size_t rep = i;
			for (size_t j = 0; j < i && rep == i; j++)
				if (c->type[j] == c->type[i] && x[j] == x[i])
					rep = j;
			k[i] = (int64_t)rep;
			if (rep == i) {
				int64_t b = block_of(c->g, c->type[i], x[i]);
				if (b < 0 || idmap_get(&c->g->rank, x[i]) < 0)
					return -1;
				k[A + nc++] = c->ident ? x[i] : b;
			}
		}
		for (; nc < A; nc++)
			k[A + nc] = -1;
	}
	return 0;
}

/* Is every group of equal keys (ord sorted) its whole orbit: as many
 * atoms as the ways to give its classes distinct constants of their
 * blocks?  1 yes, 0 no, -1 out of memory. */
static int
orbits_whole(struct cover *c, const int64_t *key, const size_t *ord,
    size_t n, const struct keys *K)
{
	size_t A = (size_t)c->arity;

	for (size_t a = 0, e; a < n; a = e) {
		const int64_t *k = key + ord[a] * 2 * A, *blk = k + A;
		int ct[64], r = 0;
		double size = 1;
		for (e = a + 1; e < n && !cmp_key(K, ord[a], ord[e]); e++)
			;
		for (size_t i = 0; i < A; i++)
			if (k[i] == (int64_t)i)
				ct[r++] = c->type[i];
		for (int j = 0; j < r; j++) {
			const struct bmem *m = &c->g->bm[ct[j]];
			int same = 0;
			if (bmem_get(c->g, ct[j]) < 0)
				return -1;
			for (int q = 0; q < j; q++)
				same += ct[q] == ct[j] && blk[q] == blk[j];
			size *= (double)(m->at[blk[j] + 1] - m->at[blk[j]]) - same;
		}
		if (size != (double)(e - a))
			return 0;
	}
	return 1;
}

/* The cubes of one pattern: the groups of equal keys ord[a..e). */
static int
cover_pattern(struct cover *c, const int64_t *key, const size_t *ord,
    size_t a, size_t e, const struct keys *K)
{
	size_t A = (size_t)c->arity, nt = 0;
	const int64_t *k0 = key + ord[a] * 2 * A;
	int64_t *v, *w;
	int dims[64], rc;

	c->r = 0;
	for (size_t i = 0; i < A; i++) {
		if (VEC_PUSH(c->pats, (int)k0[i]) < 0)
			return -1;
		if (k0[i] == (int64_t)i)
			c->cls[c->r++] = (int)i;
	}
	for (int j = 0; j < c->r; j++)
		dims[j] = j;
	if (!(v = xmalloc((e - a + 1) * (size_t)c->r * sizeof *v)) ||
	    !(w = xmalloc((e - a + 1) * sizeof *w))) {
		free(v);
		return -1;
	}
	for (size_t p = a, q; p < e; p = q) {
		for (q = p + 1; q < e && !cmp_key(K, ord[p], ord[q]); q++)
			;
		memcpy(v + nt * (size_t)c->r, key + ord[p] * 2 * A + A,
		    (size_t)c->r * sizeof *v);
		w[nt++] = (int64_t)(q - p);
	}
	rc = cover_rec(c, v, w, nt, dims, c->r);
	free(v);
	free(w);
	return rc;
}

/* Found cubes by pattern, then by their classes' constants' names. */
static int
cmp_found(const void *ctx, size_t x, size_t y)
{
	const struct cover *c = ctx;
	const struct found *a = &c->found.v[x], *b = &c->found.v[y];
	const int64_t *p = c->ids.v + a->at, *q = c->ids.v + b->at;
	int r = 0;

	if (a->pat != b->pat)
		return a->pat < b->pat ? -1 : 1;
	for (size_t i = 0; i < (size_t)c->arity; i++)
		r += c->pats.v[(size_t)a->pat * (size_t)c->arity + i] == (int)i;
	for (int j = 0; j < r; j++) {
		if (*p != *q)
			return *p < *q ? -1 : 1;
		for (int64_t t = 1; t <= *p; t++)
			if (p[t] != q[t])
				return idmap_get(&c->g->rank, p[t]) <
				    idmap_get(&c->g->rank, q[t]) ? -1 : 1;
		p += *p + 1;
		q += *q + 1;
	}
	return 0;
}

/* Stores found cube f. */
static int
found_emit(struct cover *c, const struct found *f)
{
	const int *rep = c->pats.v + (size_t)f->pat * (size_t)c->arity;
	struct store_ids side[64];
	int eq[64][2], ne[64][2], cls[64], r = 0, rc;
	struct store_cons cons = { 0, 0, eq, ne };
	const int64_t *p = c->ids.v + f->at;
	int (*many)[2] = NULL;

	for (int i = 0; i < c->arity; i++) {
		if (rep[i] == i) {
			cls[r] = i;
			side[i] = (struct store_ids){ (int64_t *)(p + 1), (size_t)*p, 0 };
			p += *p + 1;
			r++;
		} else {
			side[i] = side[rep[i]];
			eq[cons.neq][0] = rep[i];
			eq[cons.neq++][1] = i;
		}
	}
	if (f->nne > 64) {
		if (!(many = xcalloc((size_t)f->nne, sizeof *many)))
			return err_oom(c->e);
		cons.ne = many;
	}
	for (int k = 0; k < f->nne; k++) {
		cons.ne[k][0] = cls[c->ne.v[f->neat + 2 * (size_t)k]];
		cons.ne[k][1] = cls[c->ne.v[f->neat + 2 * (size_t)k + 1]];
	}
	cons.nne = f->nne;
	rc = cube_emit(c->s, c->g, c->pi, c->truth, f->atoms, side,
	    cons.neq || cons.nne ? &cons : NULL, c->e);
	free(many);
	return rc;
}

int
cover_run(struct store *s, struct sigs *g, int pi, int truth,
    const int64_t *rows, size_t n, int64_t *ncubes, struct err *e)
{
	const struct store_pred *sp = store_pred_at(s, pi);
	struct cover c = { 0 };
	struct keys K;
	int64_t *key = NULL;
	size_t *ord = NULL, *tmp = NULL, A = (size_t)sp->arity;
	int rc = 0, whole;

	if (n == 0 || A == 0)
		return 0;
	c.s = s;
	c.g = g;
	c.pi = pi;
	c.truth = truth;
	c.arity = sp->arity;
	c.e = e;
	for (size_t i = 0; i < A; i++)
		c.type[i] = store_type_at(s, sp->types[i]);
	K = (struct keys){ NULL, 2 * A, 2 * A };
	if (!(key = xmalloc(n * 2 * A * sizeof *key)) ||
	    !(ord = xmalloc(2 * n * sizeof *ord))) {
		rc = err_oom(e);
		goto done;
	}
	tmp = ord + n;
	K.k = key;
	for (;;) {
		if (make_keys(&c, rows, n, key) < 0) {
			rc = err_set(e, SQLIFT_EDB, "%s: corrupt database: evidence "
			    "of %s holds a constant id not in its domain",
			    store_path(s), sp->name);
			goto done;
		}
		for (size_t a = 0; a < n; a++)
			ord[a] = a;
		msort(ord, tmp, n, cmp_key, &K);
		if (c.ident || (whole = orbits_whole(&c, key, ord, n, &K)) == 1)
			break;
		if (whole < 0) {
			rc = err_oom(e);
			goto done;
		}
		c.ident = 1;  /* blocks out of date: each constant alone */
	}
	/* per pattern (the first arity values of the keys) */
	K.cmp = A;
	for (size_t a = 0, b; a < n && !rc; a = b) {
		for (b = a + 1; b < n && !cmp_key(&K, ord[a], ord[b]); b++)
			;
		K.cmp = 2 * A;
		if (cover_pattern(&c, key, ord, a, b, &K) < 0)
			rc = err_oom(e);
		K.cmp = A;
	}
	/* stored by pattern and names */
	if (!rc) {
		size_t nf = c.found.n;
		free(ord);
		if (!(ord = xmalloc(2 * (nf + 1) * sizeof *ord)))
			rc = err_oom(e);
		for (size_t k = 0; !rc && k < nf; k++)
			ord[k] = k;
		if (!rc)
			msort(ord, ord + nf + 1, nf, cmp_found, &c);
		for (size_t k = 0; !rc && k < nf; k++) {
			rc = found_emit(&c, &c.found.v[ord[k]]);
			++*ncubes;
		}
	}
done:
	free(key);
	free(ord);
	for (int i = 0; i < 64; i++)
		free(c.fix[i].v);
	free(c.pats.v);
	free(c.ids.v);
	free(c.ne.v);
	free(c.found.v);
	return rc;
}
