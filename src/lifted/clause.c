/* clause.c: the engine's clauses and theories: copies, blocks added and
 * split, counting groundings and atoms, class keys, components. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

_Thread_local int64_t eng_held;

struct cl *
cl_new(int nvars, int nneq, int nlits, int nargs)
{
	size_t sz = sizeof(struct cl) + (size_t)nlits * sizeof(struct lit) +
	    ((size_t)nvars + 2 * (size_t)nneq + (size_t)nargs) * sizeof(int);
	struct cl *c = xmalloc(sz);

	if (!c)
		return NULL;
	c->w = 0;
	c->hard = 0;
	c->tag = 0;
	c->nvars = nvars;
	c->nneq = nneq;
	c->nlits = nlits;
	c->nargs = nargs;
	c->held = (int)sz + HELD_EXTRA + (int)sizeof(struct cl *);
	eng_held += c->held;
	c->lit = (struct lit *)(c + 1);
	c->blk = (int *)(c->lit + nlits);
	c->neq = (int (*)[2])(c->blk + nvars);
	c->arg = (int *)(c->neq + nneq);
	return c;
}

/* A copy of c with room for extra more inequalities (left unset). */
static struct cl *
cl_copy_room(const struct cl *c, int extra)
{
	struct cl *d = cl_new(c->nvars, c->nneq + extra, c->nlits, c->nargs);

	if (!d)
		return NULL;
	d->w = c->w;
	d->hard = c->hard;
	d->tag = c->tag;
	memcpy(d->lit, c->lit, (size_t)c->nlits * sizeof *d->lit);
	memcpy(d->blk, c->blk, (size_t)c->nvars * sizeof *d->blk);
	memcpy(d->neq, c->neq, (size_t)c->nneq * sizeof *d->neq);
	memcpy(d->arg, c->arg, (size_t)c->nargs * sizeof *d->arg);
	return d;
}

void
cl_free(struct cl *c)
{
	if (!c)
		return;
	eng_held -= c->held;
	free(c);
}

struct cl *
cl_copy(const struct cl *c)
{
	return cl_copy_room(c, 0);
}

int
cl_has_neq(const struct cl *c, int a, int b)
{
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	for (int i = 0; i < c->nneq; i++)
		if (c->neq[i][0] == a && c->neq[i][1] == b)
			return 1;
	return 0;
}

/* c without variable v: replaced by u (u < v) where it occurs, or, with
 * u < 0, a variable in no literal whose inequalities go with it. */
struct cl *
cl_without(const struct cl *c, int v, int u)
{
	struct cl *d = cl_new(c->nvars - 1, c->nneq, c->nlits, c->nargs);
	int n = 0;

	if (!d)
		return NULL;
	d->w = c->w;
	d->hard = c->hard;
	d->tag = c->tag;
	memcpy(d->lit, c->lit, (size_t)c->nlits * sizeof *d->lit);
	for (int x = 0, y = 0; x < c->nvars; x++)
		if (x != v)
			d->blk[y++] = c->blk[x];
	for (int i = 0; i < c->nargs; i++) {
		int x = c->arg[i];
		d->arg[i] = x == v ? u : x > v ? x - 1 : x;
	}
	for (int i = 0; i < c->nneq; i++) {
		int a = c->neq[i][0], b = c->neq[i][1];
		if (u < 0 && (a == v || b == v))
			continue;
		a = a == v ? u : a > v ? a - 1 : a;
		b = b == v ? u : b > v ? b - 1 : b;
		if (a > b) {
			int t = a;
			a = b;
			b = t;
		}
		d->nneq = n;
		if (!cl_has_neq(d, a, b)) {
			d->neq[n][0] = a;
			d->neq[n][1] = b;
			n++;
		}
	}
	d->nneq = n;
	return d;
}

/* c with the inequality a != b added. */
struct cl *
cl_add_neq(const struct cl *c, int a, int b)
{
	struct cl *d = cl_copy_room(c, 1);

	if (!d)
		return NULL;
	d->neq[c->nneq][0] = a < b ? a : b;
	d->neq[c->nneq][1] = a < b ? b : a;
	return d;
}

void
th_free(struct th *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->c.n; i++)
		cl_free(t->c.v[i]);
	free(t->c.v);
	free(t->size);
	free(t->type);
	free(t->gid);
	free(t);
}

int
th_add_block(struct th *t, int64_t size, int type)
{
	if (t->nb == t->capb) {
		int cap = t->capb ? 2 * t->capb : 8;
		int64_t *s = xrealloc(t->size, (size_t)cap * sizeof *s);
		int *ty;
		if (!s)
			return -1;
		t->size = s;
		if (!(ty = xrealloc(t->type, (size_t)cap * sizeof *ty)))
			return -1;
		t->type = ty;
		if (t->gid) {
			if (!(ty = xrealloc(t->gid, (size_t)cap * sizeof *ty)))
				return -1;
			t->gid = ty;
		}
		t->capb = cap;
	}
	t->size[t->nb] = size;
	t->type[t->nb] = type;
	if (t->gid)
		t->gid[t->nb] = t->gnb++;
	return t->nb++;
}

/* A theory with t's blocks and no clauses. */
struct th *
th_empty_like(const struct th *t)
{
	struct th *d = xcalloc(1, sizeof *d);

	if (!d)
		return NULL;
	d->capb = t->nb > 0 ? t->nb : 1;
	d->size = xmalloc((size_t)d->capb * sizeof *d->size);
	d->type = xmalloc((size_t)d->capb * sizeof *d->type);
	if (t->gid)
		d->gid = xmalloc((size_t)d->capb * sizeof *d->gid);
	if (!d->size || !d->type || (t->gid && !d->gid)) {
		th_free(d);
		return NULL;
	}
	d->nb = t->nb;
	d->gnb = t->gnb;
	memcpy(d->size, t->size, (size_t)t->nb * sizeof *d->size);
	memcpy(d->type, t->type, (size_t)t->nb * sizeof *d->type);
	if (t->gid)
		memcpy(d->gid, t->gid, (size_t)t->nb * sizeof *d->gid);
	return d;
}

/* Takes c: frees it when it cannot be added. */
int
th_push(struct th *t, struct cl *c)
{
	if (!c)
		return -1;
	if (VEC_PUSH(t->c, c) < 0) {
		cl_free(c);
		return -1;
	}
	return 0;
}

struct th *
th_copy(const struct th *t)
{
	struct th *d = th_empty_like(t);

	for (size_t i = 0; d && i < t->c.n; i++)
		if (th_push(d, cl_copy(t->c.v[i])) < 0) {
			th_free(d);
			return NULL;
		}
	return d;
}

static double
falling(int64_t n, int k)
{
	double r = 1;

	for (int i = 0; i < k; i++)
		r *= (double)(n - i);
	return n < k ? 0 : r;
}

static void
part_rec(const struct cl *c, const int *vs, int m, int i, int *cls, int k,
    int64_t n, double *sum)
{
	if (i == m) {
		*sum += falling(n, k);
		return;
	}
	for (int j = 0; j <= k; j++) {
		int ok = 1;
		for (int u = 0; u < i && ok; u++)
			if (cls[u] == j && cl_has_neq(c, vs[u], vs[i]))
				ok = 0;
		if (!ok)
			continue;
		cls[i] = j;
		part_rec(c, vs, m, i + 1, cls, j == k ? k + 1 : k, n, sum);
	}
}

/* Groundings of c: per block, the proper colourings of its inequality
 * graph with the block's constants (a sum over partitions of the
 * variables into independent sets). */
double
cl_count(const struct cl *c, const int64_t *size)
{
	double r = 1;
	int vs[MAX_VARS], cls[MAX_VARS];

	for (int v = 0; v < c->nvars && r > 0; v++) {
		int b = c->blk[v], m = 0, first = 1;
		for (int u = 0; u < v && first; u++)
			first = c->blk[u] != b;
		if (!first)
			continue;
		for (int u = v; u < c->nvars; u++) {
			int has = 0;
			if (c->blk[u] != b)
				continue;
			for (int i = 0; i < c->nneq && !has; i++)
				has = c->neq[i][0] == u || c->neq[i][1] == u;
			if (has && m < MAX_VARS)
				vs[m++] = u;
			else
				r *= (double)size[b];
		}
		if (m) {
			double s = 0;
			part_rec(c, vs, m, 0, cls, 0, size[b], &s);
			r *= s;
		}
	}
	return r;
}

/* The class key of literal l: pred, then per argument its block and the
 * first argument with the same variable.  Returns its length. */
size_t
lit_key(const struct eng *g, const struct cl *c, const struct lit *l,
    int *key)
{
	int a = arity(g, l->pred);
	const int *x = c->arg + l->off;

	key[0] = l->pred;
	for (int i = 0; i < a; i++) {
		int f = 0;
		while (x[f] != x[i])
			f++;
		key[1 + 2 * i] = c->blk[x[i]];
		key[2 + 2 * i] = f;
	}
	return 1 + 2 * (size_t)a;
}

/* A class key of t in the numbering of the theory the search started
 * from (see struct th): key itself, or its copy in buf. */
const int *
th_gkey(const struct th *t, const int *key, size_t len, int *buf)
{
	if (!t || !t->gid)
		return key;
	buf[0] = key[0];
	for (size_t i = 1; i + 1 < len; i += 2) {
		buf[i] = t->gid[key[i]];
		buf[i + 1] = key[i + 1];
	}
	return buf;
}

/* Ground atoms of the class of literal l. */
double
lit_atoms(const struct eng *g, const struct cl *c, const struct lit *l,
    const int64_t *size)
{
	int a = arity(g, l->pred), per[MAX_VARS], nper = 0, cnt[MAX_VARS];
	const int *x = c->arg + l->off;
	double r = 1;

	for (int i = 0; i < a; i++) {
		int dup = 0, b = c->blk[x[i]], k;
		for (int j = 0; j < i && !dup; j++)
			dup = x[j] == x[i];
		if (dup)
			continue;
		for (k = 0; k < nper && per[k] != b; k++)
			;
		if (k == nper) {
			per[nper] = b;
			cnt[nper++] = 0;
		}
		cnt[k]++;
	}
	for (int k = 0; k < nper; k++)
		r *= falling(size[per[k]], cnt[k]);
	return r;
}

/* Splits block b: variables of b in each clause take b or nb in every
 * combination (inequalities across the two are implied). */
int
th_split(struct th *t, int b, int nb)
{
	size_t n0 = t->c.n;

	for (size_t i = 0; i < n0; i++) {
		struct cl *c = t->c.v[i];
		int vs[20], m = 0;
		for (int v = 0; v < c->nvars; v++)
			if (c->blk[v] == b) {
				if (m == 20)
					return -1;
				vs[m++] = v;
			}
		for (uint32_t mask = 1; m && mask < (1u << m); mask++) {
			struct cl *d = cl_copy(c);
			int n = 0;
			if (!d)
				return -1;
			for (int j = 0; j < m; j++)
				if (mask >> j & 1)
					d->blk[vs[j]] = nb;
			for (int j = 0; j < d->nneq; j++)
				if (d->blk[d->neq[j][0]] == d->blk[d->neq[j][1]])
					memcpy(d->neq[n++], d->neq[j], sizeof d->neq[j]);
			d->nneq = n;
			if (th_push(t, d) < 0)
				return -1;
		}
	}
	return 0;
}

/* Splits one constant of block b off into a new block of its own;
 * returns that block, -1 out of memory. */
int
th_split_one(struct th *t, int b)
{
	int nb = th_add_block(t, 1, t->type[b]);

	if (nb < 0 || th_split(t, b, nb) < 0)
		return -1;
	t->size[b]--;
	return nb;
}

static int
find_root(int *uf, int x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

/* Numbers the components of t (clauses linked by a shared class) in
 * order of their first clause: *comp[i] is clause i's.  Returns how many,
 * -1 out of memory. */
int
th_components(const struct th *t, const struct index *ix, int **comp)
{
	int n = (int)t->c.n, nc = 0, *uf = xmalloc(((size_t)n + 1) * sizeof *uf);
	int *c = xmalloc(((size_t)n + 1) * sizeof *c);

	*comp = NULL;
	if (!uf || !c) {
		free(uf);
		free(c);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		uf[i] = i;
		c[i] = -1;
	}
	for (int i = 1; i < ix->nocc; i++)
		if (occ_same(&ix->occ[i], &ix->occ[i - 1])) {
			int a = find_root(uf, ix->occ[i].cl);
			int b = find_root(uf, ix->occ[i - 1].cl);
			if (a != b)
				uf[a] = b;
		}
	for (int i = 0; i < n; i++) {
		int r = find_root(uf, i);
		if (c[r] < 0)
			c[r] = nc++;
		uf[i] = r;
	}
	for (int i = 0; i < n; i++)
		c[i] = c[uf[i]];
	free(uf);
	*comp = c;
	return nc;
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Moves the clauses of t into parts[0 .. nc), clause i into comp[i]'s
 * (from th_components()), and frees t; -1 out of memory (parts then hold
 * what was moved).  Each part keeps only the blocks its clauses use,
 * renumbered in their order (see struct th), so that the search below
 * costs what the part has and not what the whole theory had
 * (docs/internals/lis.md, "Search costs"). */
int
th_distribute(struct th *t, const int *comp, int nc, struct th **parts)
{
	int *map = xmalloc(((size_t)t->nb + 1) * sizeof *map);
	int *bl = xmalloc(((size_t)t->nb + 1) * sizeof *bl);
	int *first = xcalloc((size_t)nc + 2, sizeof *first);
	int *order = xmalloc((t->c.n + 1) * sizeof *order);
	int rc = 0, n = (int)t->c.n;

	if (!map || !bl || !first || !order) {
		rc = -1;
		goto done;
	}
	for (int b = 0; b < t->nb; b++)
		map[b] = -1;
	/* clauses by part, in their order: a counting sort */
	for (int i = 0; i < n; i++)
		first[comp[i] + 2]++;
	for (int k = 2; k <= nc + 1; k++)
		first[k] += first[k - 1];
	for (int i = 0; i < n; i++)
		order[first[comp[i] + 1]++] = i;
	for (int k = 0; k < nc && !rc; k++) {
		struct th *d;
		int m = 0;
		for (int j = first[k]; j < first[k + 1]; j++) {
			const struct cl *c = t->c.v[order[j]];
			for (int v = 0; v < c->nvars; v++)
				if (map[c->blk[v]] < 0) {
					map[c->blk[v]] = 0;
					bl[m++] = c->blk[v];
				}
		}
		if (m > 1)
			qsort(bl, (size_t)m, sizeof *bl, int_cmp);
		if (!(d = parts[k] = xcalloc(1, sizeof *d)) ||
		    !(d->size = xmalloc(((size_t)m + 1) * sizeof *d->size)) ||
		    !(d->type = xmalloc(((size_t)m + 1) * sizeof *d->type)) ||
		    !(d->gid = xmalloc(((size_t)m + 1) * sizeof *d->gid))) {
			rc = -1;
			break;
		}
		d->capb = m + 1;
		d->nb = m;
		d->gnb = t->gid ? t->gnb : t->nb;
		for (int j = 0; j < m; j++) {
			map[bl[j]] = j;
			d->size[j] = t->size[bl[j]];
			d->type[j] = t->type[bl[j]];
			d->gid[j] = t->gid ? t->gid[bl[j]] : bl[j];
		}
		for (int j = first[k]; j < first[k + 1] && !rc; j++) {
			struct cl *c = t->c.v[order[j]];
			for (int v = 0; v < c->nvars; v++)
				c->blk[v] = map[c->blk[v]];
			rc = th_push(d, c);  /* takes the clause */
			t->c.v[order[j]] = NULL;
		}
		for (int j = 0; j < m; j++)
			map[bl[j]] = -1;
	}
done:
	free(map);
	free(bl);
	free(first);
	free(order);
	th_free(t);
	return rc < 0 ? -1 : 0;
}

/* Class cls's key with its block b (at the class's slot) replaced. */
void
key_with(const int *key, size_t len, int b, int nb, int *out)
{
	memcpy(out, key, len * sizeof *key);
	for (size_t i = 1; i < len; i += 2)
		if (out[i] == b)
			out[i] = nb;
}
