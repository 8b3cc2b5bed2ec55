/* setineq.c: tuples of subset, equality and inequality constraints over
 * domain blocks: canonical form, join, exact counting of a tuple (a
 * chromatic polynomial per inequality component) and of a set (split into
 * disjoint tuples), projection with extension counts (Lemma 3.1 of Mittal
 * et al. 2015, splitting by the Bell partitions of the inequality
 * partners), block splits and restriction, and an index of a set's
 * tuples by block. */
#include <stdlib.h>
#include <string.h>

#include "constraint/setineq.h"

struct si_space *
si_space_new(int ntypes)
{
	struct si_space *sp = xcalloc(1, sizeof *sp);

	if (!sp)
		return NULL;
	sp->ntypes = ntypes;
	sp->nblocks = xcalloc((size_t)ntypes + 1, sizeof *sp->nblocks);
	sp->size = xcalloc((size_t)ntypes + 1, sizeof *sp->size);
	if (!sp->nblocks || !sp->size) {
		si_space_free(sp);
		return NULL;
	}
	return sp;
}

int
si_space_add_block(struct si_space *sp, int t, int64_t size)
{
	int64_t *s = xrealloc(sp->size[t],
	    ((size_t)sp->nblocks[t] + 1) * sizeof *s);

	if (!s)
		return -1;
	sp->size[t] = s;
	s[sp->nblocks[t]] = size;
	return sp->nblocks[t]++;
}

void
si_space_free(struct si_space *sp)
{
	if (!sp)
		return;
	for (int t = 0; sp->size && t < sp->ntypes; t++)
		free(sp->size[t]);
	free(sp->size);
	free(sp->nblocks);
	free(sp);
}

static int
words_for(const struct si_space *sp)
{
	int m = 1;

	for (int t = 0; t < sp->ntypes; t++)
		if (sp->nblocks[t] > m)
			m = sp->nblocks[t];
	return (m + 63) / 64;
}

static uint64_t *
sup(const struct si_tuple *t, int v)
{
	return t->support + (size_t)v * t->nwords;
}

struct si_tuple *
si_tuple_new(const struct si_space *sp, int nvars, const int *types)
{
	struct si_tuple *t = xcalloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->nvars = nvars;
	t->nwords = words_for(sp);
	t->type = xcalloc((size_t)nvars + 1, sizeof *t->type);
	t->rep = xcalloc((size_t)nvars + 1, sizeof *t->rep);
	t->support = xcalloc((size_t)nvars * t->nwords + 1, sizeof *t->support);
	if (!t->type || !t->rep || !t->support) {
		si_tuple_free(t);
		return NULL;
	}
	for (int v = 0; v < nvars; v++) {
		int nb = sp->nblocks[types[v]];
		t->type[v] = types[v];
		t->rep[v] = v;
		/* whole words, then the rest (domains of thousands of blocks) */
		for (int i = 0; i < nb / 64; i++)
			sup(t, v)[i] = ~(uint64_t)0;
		if (nb % 64)
			sup(t, v)[nb / 64] = ((uint64_t)1 << (nb % 64)) - 1;
	}
	return t;
}

struct si_tuple *
si_tuple_copy(const struct si_tuple *t)
{
	struct si_tuple *c = xcalloc(1, sizeof *c);

	if (!c)
		return NULL;
	*c = *t;
	c->type = xmalloc(((size_t)t->nvars + 1) * sizeof *c->type);
	c->rep = xmalloc(((size_t)t->nvars + 1) * sizeof *c->rep);
	c->support = xmalloc(((size_t)t->nvars * t->nwords + 1) *
	    sizeof *c->support);
	c->neq = xmalloc(((size_t)t->nneq + 1) * sizeof *c->neq);
	if (!c->type || !c->rep || !c->support || !c->neq) {
		si_tuple_free(c);
		return NULL;
	}
	memcpy(c->type, t->type, (size_t)t->nvars * sizeof *c->type);
	memcpy(c->rep, t->rep, (size_t)t->nvars * sizeof *c->rep);
	memcpy(c->support, t->support,
	    (size_t)t->nvars * t->nwords * sizeof *c->support);
	if (t->nneq)
		memcpy(c->neq, t->neq, (size_t)t->nneq * sizeof *c->neq);
	return c;
}

void
si_tuple_free(struct si_tuple *t)
{
	if (!t)
		return;
	free(t->type);
	free(t->rep);
	free(t->support);
	free(t->neq);
	free(t);
}

void
si_in(struct si_tuple *t, int v, const uint64_t *blocks)
{
	uint64_t *s = sup(t, t->rep[v]);

	for (int i = 0; i < t->nwords; i++)
		s[i] &= blocks[i];
}

void
si_in_block(struct si_tuple *t, int v, int block)
{
	uint64_t *s = sup(t, t->rep[v]);
	int had = (int)((s[block / 64] >> (block % 64)) & 1);

	memset(s, 0, (size_t)t->nwords * sizeof *s);
	if (had)
		s[block / 64] = (uint64_t)1 << (block % 64);
}

void
si_not_in(struct si_tuple *t, int v, const uint64_t *blocks)
{
	uint64_t *s = sup(t, t->rep[v]);

	for (int i = 0; i < t->nwords; i++)
		s[i] &= ~blocks[i];
}

/* Rewrites inequality pairs after a change of representatives: sorted,
 * without repeats. */
static void
neq_normalise(struct si_tuple *t)
{
	int n = 0;

	for (int i = 0; i < t->nneq; i++) {
		int a = t->rep[t->neq[i][0]], b = t->rep[t->neq[i][1]], dup = 0;
		if (a > b) {
			int x = a;
			a = b;
			b = x;
		}
		for (int j = 0; j < n; j++)
			if (t->neq[j][0] == a && t->neq[j][1] == b)
				dup = 1;
		if (!dup) {
			t->neq[n][0] = a;
			t->neq[n][1] = b;
			n++;
		}
	}
	t->nneq = n;
}

void
si_eq(struct si_tuple *t, int a, int b)
{
	int ra = t->rep[a], rb = t->rep[b], keep, gone;

	if (ra == rb)
		return;
	keep = ra < rb ? ra : rb;
	gone = ra < rb ? rb : ra;
	for (int i = 0; i < t->nwords; i++)
		sup(t, keep)[i] &= sup(t, gone)[i];
	for (int v = 0; v < t->nvars; v++)
		if (t->rep[v] == gone)
			t->rep[v] = keep;
	neq_normalise(t);
}

int
si_neq(struct si_tuple *t, int a, int b)
{
	int (*n)[2] = xrealloc(t->neq, ((size_t)t->nneq + 1) * sizeof *n);

	if (!n)
		return -1;
	t->neq = n;
	n[t->nneq][0] = t->rep[a];
	n[t->nneq][1] = t->rep[b];
	t->nneq++;
	neq_normalise(t);
	return 0;
}

static int
sup_empty(const struct si_tuple *t, int v)
{
	for (int i = 0; i < t->nwords; i++)
		if (sup(t, v)[i])
			return 0;
	return 1;
}

static int
sup_same(const struct si_tuple *t, int a, int b)
{
	return memcmp(sup(t, a), sup(t, b), (size_t)t->nwords *
	    sizeof(uint64_t)) == 0;
}

int
si_is_canonical(const struct si_tuple *t, const struct si_space *sp)
{
	(void)sp;
	for (int i = 0; i < t->nneq; i++) {
		int a = t->neq[i][0], b = t->neq[i][1];
		if (a == b || t->rep[a] != a || t->rep[b] != b || !sup_same(t, a, b))
			return 0;
	}
	for (int v = 0; v < t->nvars; v++)
		if (t->rep[t->rep[v]] != t->rep[v] || t->rep[v] > v)
			return 0;
	return 1;
}

static void
neq_remove(struct si_tuple *t, int i)
{
	t->neq[i][0] = t->neq[t->nneq - 1][0];
	t->neq[i][1] = t->neq[t->nneq - 1][1];
	t->nneq--;
}

static double count_canonical(const struct si_tuple *t,
    const struct si_space *sp);

/* Takes ownership of t.  Canonical pieces without solutions (more
 * variables unequal than their blocks have constants) are dropped. */
static int
canon_rec(struct si_tuple *t, const struct si_space *sp, struct si_set *out)
{
	struct si_tuple *p1 = NULL, *p2 = NULL;
	int a = -1, b = -1, k;

	for (int v = 0; v < t->nvars; v++)
		if (t->rep[v] == v && sup_empty(t, v)) {
			si_tuple_free(t);
			return 0;
		}
	for (k = 0; k < t->nneq; k++) {
		if (t->neq[k][0] == t->neq[k][1]) {  /* x != x */
			si_tuple_free(t);
			return 0;
		}
		if (!sup_same(t, t->neq[k][0], t->neq[k][1])) {
			a = t->neq[k][0];
			b = t->neq[k][1];
			break;
		}
	}
	if (a < 0) {
		double n = count_canonical(t, sp);
		if (n <= 0) {  /* empty, or out of memory */
			si_tuple_free(t);
			return n < 0 ? -1 : 0;
		}
		if (VEC_PUSH(out->v, t) < 0) {
			si_tuple_free(t);
			return -1;
		}
		return 0;
	}
	/* a in Sa \ Sb: a != b holds anyway; a in Sa & Sb and b in Sb \ Sa:
	 * holds anyway; both in Sa & Sb: keep a != b */
	if (!(p1 = si_tuple_copy(t)) || !(p2 = si_tuple_copy(t))) {
		si_tuple_free(p1);
		si_tuple_free(t);
		return -1;
	}
	for (int i = 0; i < t->nwords; i++) {
		uint64_t sa = sup(t, a)[i], sb = sup(t, b)[i];
		sup(p1, a)[i] = sa & ~sb;
		sup(p2, a)[i] = sa & sb;
		sup(p2, b)[i] = sb & ~sa;
		sup(t, a)[i] = sup(t, b)[i] = sa & sb;
	}
	neq_remove(p1, k);
	neq_remove(p2, k);
	if (canon_rec(p1, sp, out) < 0) {
		si_tuple_free(p2);
		si_tuple_free(t);
		return -1;
	}
	if (canon_rec(p2, sp, out) < 0) {
		si_tuple_free(t);
		return -1;
	}
	return canon_rec(t, sp, out);
}

int
si_canon(const struct si_tuple *t, const struct si_space *sp,
    struct si_set *out)
{
	struct si_tuple *c = si_tuple_copy(t);

	if (!c)
		return -1;
	return canon_rec(c, sp, out);
}

struct si_tuple *
si_join(const struct si_tuple *a, const struct si_tuple *b)
{
	struct si_tuple *c = si_tuple_copy(a);

	if (!c)
		return NULL;
	for (int v = 0; v < b->nvars; v++)
		if (b->rep[v] != v)
			si_eq(c, v, b->rep[v]);
	for (int v = 0; v < b->nvars; v++)
		if (b->rep[v] == v)
			si_in(c, v, sup(b, v));
	for (int i = 0; i < b->nneq; i++)
		if (si_neq(c, b->neq[i][0], b->neq[i][1]) < 0) {
			si_tuple_free(c);
			return NULL;
		}
	return c;
}

/* Constants allowed to v: by the set bits only, as canonicalising calls
 * this for every piece and the domains of real data have thousands of
 * blocks, mostly not allowed. */
static double
support_size(const struct si_tuple *t, const struct si_space *sp, int v)
{
	double n = 0;
	int ty = t->type[v];

	for (int i = 0; i < t->nwords; i++)
		for (uint64_t w = sup(t, v)[i]; w; w &= w - 1) {
			int b = i * 64 + __builtin_ctzll(w);
			if (b < sp->nblocks[ty])
				n += (double)sp->size[ty][b];
		}
	return n;
}

/* Chromatic polynomial of the inequality graph on nodes[0..k) at n:
 * the ways to give the nodes values from n so that neighbours differ,
 * summed over the partitions of the nodes into independent sets. */
static double
chromatic(const struct si_tuple *t, const int *nodes, int k, int *part,
    int i, int nparts, double n)
{
	double total = 0;

	if (i == k) {
		double f = 1;
		for (int j = 0; j < nparts; j++)
			f *= n - j;
		return f > 0 ? f : 0;
	}
	for (int p = 0; p <= nparts; p++) {
		int ok = 1;
		for (int j = 0; j < i && ok; j++) {
			if (part[j] != p)
				continue;
			for (int e = 0; e < t->nneq; e++)
				if ((t->neq[e][0] == nodes[i] && t->neq[e][1] == nodes[j]) ||
				    (t->neq[e][1] == nodes[i] && t->neq[e][0] == nodes[j]))
					ok = 0;
		}
		if (!ok)
			continue;
		part[i] = p;
		total += chromatic(t, nodes, k, part, i + 1,
		    p == nparts ? nparts + 1 : nparts, n);
	}
	return total;
}

/* Count of a canonical tuple; -1 when out of memory. */
static double
count_canonical(const struct si_tuple *t, const struct si_space *sp)
{
	int n = t->nvars, *comp, *nodes, *part;
	double total = 1;

	comp = xmalloc(((size_t)n + 1) * sizeof *comp);
	nodes = xmalloc(((size_t)n + 1) * sizeof *nodes);
	part = xmalloc(((size_t)n + 1) * sizeof *part);
	if (!comp || !nodes || !part) {
		free(comp), free(nodes), free(part);
		return -1;
	}
	/* components of the inequality graph over representatives */
	for (int v = 0; v < n; v++)
		comp[v] = v;
	for (int changed = 1; changed;) {
		changed = 0;
		for (int e = 0; e < t->nneq; e++) {
			int a = t->neq[e][0], b = t->neq[e][1];
			int m = comp[a] < comp[b] ? comp[a] : comp[b];
			if (comp[a] != m || comp[b] != m)
				comp[a] = comp[b] = m, changed = 1;
		}
	}
	for (int c = 0; c < n; c++) {
		int k = 0;
		if (t->rep[c] != c || comp[c] != c)
			continue;
		for (int v = 0; v < n; v++)
			if (t->rep[v] == v && comp[v] == c)
				nodes[k++] = v;
		total *= chromatic(t, nodes, k, part, 0, 0,
		    support_size(t, sp, c));
	}
	free(comp), free(nodes), free(part);
	return total;
}

double
si_count(const struct si_tuple *t, const struct si_space *sp)
{
	struct si_set s = { 0 };
	double total = 0;

	if (si_canon(t, sp, &s) < 0) {
		si_set_free(&s);
		return -1;
	}
	for (size_t i = 0; i < s.v.n && total >= 0; i++) {
		double n = count_canonical(s.v.v[i], sp);
		total = n < 0 ? -1 : total + n;
	}
	si_set_free(&s);
	return total;
}

/* p and not r, as p ^ c1 ^ ... ^ c(i-1) ^ !ci over the atomic
 * constraints ci of r: disjoint pieces. */
int
si_subtract(const struct si_tuple *p, const struct si_tuple *r,
    const struct si_space *sp, struct si_set *out)
{
	struct si_tuple *acc = si_tuple_copy(p);
	int rc = 0;

	if (!acc)
		return -1;
	/* subset constraints of r's classes */
	for (int v = 0; v < r->nvars && !rc; v++) {
		struct si_tuple *x;
		if (r->rep[v] != v)
			continue;
		if (!(x = si_tuple_copy(acc))) {
			rc = -1;
			break;
		}
		si_not_in(x, v, sup(r, v));
		rc = canon_rec(x, sp, out);
		si_in(acc, v, sup(r, v));
	}
	/* equalities: v = rep[v] */
	for (int v = 0; v < r->nvars && !rc; v++) {
		struct si_tuple *x;
		if (r->rep[v] == v)
			continue;
		if (!(x = si_tuple_copy(acc)) || si_neq(x, v, r->rep[v]) < 0) {
			si_tuple_free(x);
			rc = -1;
			break;
		}
		rc = canon_rec(x, sp, out);
		si_eq(acc, v, r->rep[v]);
	}
	/* inequalities */
	for (int e = 0; e < r->nneq && !rc; e++) {
		struct si_tuple *x;
		if (!(x = si_tuple_copy(acc))) {
			rc = -1;
			break;
		}
		si_eq(x, r->neq[e][0], r->neq[e][1]);
		rc = canon_rec(x, sp, out);
		if (!rc)
			rc = si_neq(acc, r->neq[e][0], r->neq[e][1]);
	}
	si_tuple_free(acc);
	return rc;
}

struct si_index {
	const struct si_set *s;    /* borrowed */
	int nvars;
	int *nb;                   /* per variable: blocks of its type */
	size_t **start;            /* per variable: nb + 1 offsets into list */
	int **list;                /* per variable: the tuples allowing each
	                              block, ascending */
	struct si_ids *wide;       /* per variable: the tuples allowing most
	                              blocks (not in list, which they would
	                              fill) */
	unsigned *seen;            /* per tuple: the query that last met it */
	unsigned query;
};

static int
popcount(const uint64_t *w, int nwords)
{
	int n = 0;

	for (int i = 0; i < nwords; i++)
		n += __builtin_popcountll(w[i]);
	return n;
}

static int
ids_push(struct si_ids *ids, int x)
{
	return VEC_PUSH(*ids, x);
}

/* Wide: listed apart rather than under each of its blocks. */
static int
is_wide(const uint64_t *w, int nwords, int nb)
{
	int n = popcount(w, nwords);

	return n > 32 && n > nb / 4;
}

void
si_index_free(struct si_index *ix)
{
	if (!ix)
		return;
	for (int v = 0; v < ix->nvars; v++) {
		if (ix->start)
			free(ix->start[v]);
		if (ix->list)
			free(ix->list[v]);
		if (ix->wide)
			free(ix->wide[v].v);
	}
	free(ix->start);
	free(ix->list);
	free(ix->wide);
	free(ix->nb);
	free(ix->seen);
	free(ix);
}

struct si_index *
si_index_new(const struct si_set *s, const struct si_space *sp)
{
	struct si_index *ix = xcalloc(1, sizeof *ix);
	size_t *at = NULL;
	int nv;

	if (!ix)
		return NULL;
	nv = s->v.n ? s->v.v[0]->nvars : 0;
	ix->s = s;
	ix->nvars = nv;
	if (!(ix->nb = xcalloc((size_t)nv + 1, sizeof *ix->nb)) ||
	    !(ix->start = xcalloc((size_t)nv + 1, sizeof *ix->start)) ||
	    !(ix->list = xcalloc((size_t)nv + 1, sizeof *ix->list)) ||
	    !(ix->wide = xcalloc((size_t)nv + 1, sizeof *ix->wide)) ||
	    !(ix->seen = xcalloc(s->v.n + 1, sizeof *ix->seen)))
		goto oom;
	for (int v = 0; v < nv; v++) {
		int nb = sp->nblocks[s->v.v[0]->type[v]];
		size_t *st;
		ix->nb[v] = nb;
		if (!(st = ix->start[v] = xcalloc((size_t)nb + 2, sizeof *st)))
			goto oom;
		/* counts in st[b + 1], then offsets: st[b] is where b starts */
		for (size_t j = 0; j < s->v.n; j++) {
			const struct si_tuple *t = s->v.v[j];
			const uint64_t *w = sup(t, t->rep[v]);
			if (is_wide(w, t->nwords, nb)) {
				if (ids_push(&ix->wide[v], (int)j) < 0)
					goto oom;
				continue;
			}
			for (int i = 0; i < t->nwords; i++)
				for (uint64_t x = w[i]; x; x &= x - 1) {
					int b = i * 64 + __builtin_ctzll(x);
					if (b < nb)
						st[b + 1]++;
				}
		}
		for (int b = 1; b <= nb; b++)
			st[b] += st[b - 1];
		free(at);
		if (!(at = xmalloc(((size_t)nb + 1) * sizeof *at)) ||
		    !(ix->list[v] = xmalloc((st[nb] + 1) * sizeof **ix->list)))
			goto oom;
		memcpy(at, st, (size_t)nb * sizeof *at);
		for (size_t j = 0; j < s->v.n; j++) {
			const struct si_tuple *t = s->v.v[j];
			const uint64_t *w = sup(t, t->rep[v]);
			if (is_wide(w, t->nwords, nb))
				continue;
			for (int i = 0; i < t->nwords; i++)
				for (uint64_t x = w[i]; x; x &= x - 1) {
					int b = i * 64 + __builtin_ctzll(x);
					if (b < nb)
						ix->list[v][at[b]++] = (int)j;
				}
		}
	}
	free(at);
	return ix;
oom:
	free(at);
	si_index_free(ix);
	return NULL;
}

/* Does every variable of t allow a block that q's counterpart allows? */
static int
meets_blocks(const struct si_tuple *t, const struct si_tuple *q,
    const int *map)
{
	int nw = t->nwords < q->nwords ? t->nwords : q->nwords;

	for (int v = 0; v < t->nvars; v++) {
		const uint64_t *a = sup(t, t->rep[v]);
		const uint64_t *b = sup(q, q->rep[map ? map[v] : v]);
		int any = 0;
		for (int i = 0; i < nw && !any; i++)
			any = (a[i] & b[i]) != 0;
		if (!any)
			return 0;
	}
	return 1;
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int
si_index_meets(struct si_index *ix, const struct si_tuple *q,
    const int *map, struct si_ids *out)
{
	const struct si_set *s = ix->s;
	const uint64_t *qs;
	double best_cost = 0;
	int best = -1, nb;

	out->n = 0;
	if (ix->nvars == 0) {
		for (size_t j = 0; j < s->v.n; j++)
			if (ids_push(out, (int)j) < 0)
				return -1;
		return 0;
	}
	if (++ix->query == 0) {
		memset(ix->seen, 0, s->v.n * sizeof *ix->seen);
		ix->query = 1;
	}
	/* walk the lists of the variable expected to list fewest tuples */
	for (int v = 0; v < ix->nvars; v++) {
		int qv = map ? map[v] : v;
		int n = popcount(sup(q, q->rep[qv]), q->nwords);
		double cost = (double)ix->wide[v].n + (ix->nb[v] ? (double)n *
		    (double)ix->start[v][ix->nb[v]] / ix->nb[v] : 0);
		if (best < 0 || cost < best_cost) {
			best = v;
			best_cost = cost;
		}
	}
	qs = sup(q, q->rep[map ? map[best] : best]);
	nb = ix->nb[best];
	for (int i = 0; i < q->nwords; i++)
		for (uint64_t x = qs[i]; x; x &= x - 1) {
			int b = i * 64 + __builtin_ctzll(x);
			if (b >= nb)
				break;
			const size_t *st = ix->start[best];
			for (size_t k = st[b]; k < st[b + 1]; k++) {
				int j = ix->list[best][k];
				if (ix->seen[j] == ix->query)
					continue;
				ix->seen[j] = ix->query;
				if (meets_blocks(s->v.v[j], q, map) &&
				    ids_push(out, j) < 0)
					return -1;
			}
		}
	for (size_t k = 0; k < ix->wide[best].n; k++) {
		int j = ix->wide[best].v[k];
		if (meets_blocks(s->v.v[j], q, map) && ids_push(out, j) < 0)
			return -1;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, int_cmp);
	return 0;
}

static uint64_t
tuple_hash(const struct si_tuple *t)
{
	uint64_t h = FNV_INIT;

	h = fnv1a(h, t->rep, (size_t)t->nvars * sizeof *t->rep);
	h = fnv1a(h, t->support, (size_t)t->nvars * t->nwords *
	    sizeof *t->support);
	h = fnv1a(h, &t->nneq, sizeof t->nneq);
	return fnv1a(h, t->neq, (size_t)t->nneq * sizeof *t->neq);
}

static int
tuple_same(const struct si_tuple *a, const struct si_tuple *b)
{
	/* (memcmp with a NULL argument is undefined even for 0 bytes) */
	return a->nvars == b->nvars && a->nwords == b->nwords &&
	    a->nneq == b->nneq &&
	    (a->nvars == 0 || (!memcmp(a->rep, b->rep, (size_t)a->nvars *
	    sizeof *a->rep) && !memcmp(a->support, b->support,
	    (size_t)a->nvars * a->nwords * sizeof *a->support))) &&
	    (a->nneq == 0 || !memcmp(a->neq, b->neq, (size_t)a->nneq *
	    sizeof *a->neq));
}

/* Is every solution of a one of b?  (Sufficient test: b's subset
 * constraints hold in a's, its equalities are a's, and each of its
 * inequalities is a's or follows from disjoint subsets.) */
static int
tuple_within(const struct si_tuple *a, const struct si_tuple *b)
{
	int nw = a->nwords < b->nwords ? a->nwords : b->nwords;

	for (int v = 0; v < a->nvars; v++) {
		const uint64_t *x = sup(a, a->rep[v]), *y = sup(b, b->rep[v]);
		if (b->rep[v] != v && a->rep[v] != a->rep[b->rep[v]])
			return 0;
		for (int i = 0; i < a->nwords; i++)
			if (x[i] & ~(i < nw ? y[i] : 0))
				return 0;
	}
	for (int e = 0; e < b->nneq; e++) {
		int p = a->rep[b->neq[e][0]], q = a->rep[b->neq[e][1]], ok = 0;
		for (int f = 0; f < a->nneq && !ok; f++)
			ok = (a->neq[f][0] == p && a->neq[f][1] == q) ||
			    (a->neq[f][0] == q && a->neq[f][1] == p);
		if (!ok) {
			/* or the two allow no block in common */
			ok = 1;
			for (int i = 0; i < a->nwords && ok; i++)
				ok = !(sup(a, p)[i] & sup(a, q)[i]);
		}
		if (!ok)
			return 0;
	}
	return 1;
}

/* s without repeated tuples, borrowing them; -1 out of memory. */
static int
set_unique(const struct si_set *s, struct si_set *out)
{
	size_t cap = 16;
	int *slot;

	while (cap < 2 * s->v.n)
		cap *= 2;
	if (!(slot = xmalloc(cap * sizeof *slot)))
		return -1;
	memset(slot, -1, cap * sizeof *slot);
	for (size_t i = 0; i < s->v.n; i++) {
		size_t h = (size_t)tuple_hash(s->v.v[i]) & (cap - 1);
		int dup = 0;
		for (; slot[h] >= 0 && !dup; h = (h + 1) & (cap - 1))
			dup = tuple_same(out->v.v[slot[h]], s->v.v[i]);
		if (dup)
			continue;
		slot[h] = (int)out->v.n;
		if (VEC_PUSH(out->v, s->v.v[i]) < 0) {
			free(slot);
			return -1;
		}
	}
	free(slot);
	return 0;
}

struct by_size {
	const struct si_tuple *t;
	double size;           /* blocks allowed: product over the classes */
	size_t at;
};

static int
by_size_cmp(const void *a, const void *b)
{
	const struct by_size *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Orders s's tuples by the blocks they allow, most first: a small tuple
 * after a large one is often within it, and a large one after many small
 * ones would be split by each. */
static int
big_first(struct si_set *s)
{
	struct by_size *v = xmalloc((s->v.n + 1) * sizeof *v);

	if (!v)
		return -1;
	for (size_t i = 0; i < s->v.n; i++) {
		const struct si_tuple *t = s->v.v[i];
		v[i].t = t;
		v[i].at = i;
		v[i].size = 1;
		for (int k = 0; k < t->nvars; k++)
			if (t->rep[k] == k)
				v[i].size *= popcount(sup(t, k), t->nwords);
	}
	if (s->v.n > 1)
		qsort(v, s->v.n, sizeof *v, by_size_cmp);
	for (size_t i = 0; i < s->v.n; i++)
		s->v.v[i] = (struct si_tuple *)v[i].t;
	free(v);
	return 0;
}

/* The union as the disjoint sum of each tuple minus the tuples before
 * it; repeats are dropped first, the large tuples come first, a tuple
 * within an earlier one adds nothing, and only the earlier tuples that
 * can overlap it are subtracted.
 * (Projections of clause pieces onto an atom repeat and overlap a lot.) */
double
si_set_count(const struct si_set *s, const struct si_space *sp)
{
	struct si_set pieces = { 0 }, next = { 0 }, u = { 0 };
	struct si_ids near = { 0 };
	struct si_index *ix = NULL;
	double total = -1, sum = 0;

	if (set_unique(s, &u) < 0 || big_first(&u) < 0 ||
	    !(ix = si_index_new(&u, sp)))
		goto out;
	for (size_t i = 0; i < u.v.n; i++) {
		const struct si_tuple *x = u.v.v[i];
		int within = 0;
		if (si_index_meets(ix, x, NULL, &near) < 0)
			goto out;
		for (size_t k = 0; k < near.n && near.v[k] < (int)i && !within;
		    k++)
			within = tuple_within(x, u.v.v[near.v[k]]);
		if (within)
			continue;
		if (si_canon(x, sp, &pieces) < 0)
			goto out;
		for (size_t k = 0; k < near.n && near.v[k] < (int)i &&
		    pieces.v.n; k++) {
			const struct si_tuple *r = u.v.v[near.v[k]];
			for (size_t m = 0; m < pieces.v.n; m++)
				if (si_subtract(pieces.v.v[m], r, sp, &next) < 0)
					goto out;
			si_set_free(&pieces);
			pieces = next;
			memset(&next, 0, sizeof next);
		}
		for (size_t m = 0; m < pieces.v.n; m++) {
			double n = count_canonical(pieces.v.v[m], sp);
			if (n < 0)
				goto out;
			sum += n;
		}
		si_set_clear(&pieces);
	}
	total = sum;
out:
	si_index_free(ix);
	free(u.v.v);  /* borrowed tuples */
	free(near.v);
	si_set_free(&pieces);
	si_set_free(&next);
	return total;
}

/* A copy of t without variable v (which no constraint may mention but
 * as its own class); later variables move down by one. */
static struct si_tuple *
drop_var(const struct si_tuple *t, int v)
{
	struct si_tuple *c = xcalloc(1, sizeof *c);
	int n = t->nvars - 1, k = 0;

	if (!c)
		return NULL;
	c->nvars = n;
	c->nwords = t->nwords;
	c->type = xcalloc((size_t)n + 1, sizeof *c->type);
	c->rep = xcalloc((size_t)n + 1, sizeof *c->rep);
	c->support = xcalloc((size_t)n * t->nwords + 1, sizeof *c->support);
	c->neq = xcalloc((size_t)t->nneq + 1, sizeof *c->neq);
	if (!c->type || !c->rep || !c->support || !c->neq) {
		si_tuple_free(c);
		return NULL;
	}
	for (int u = 0; u < t->nvars; u++) {
		int nu = u > v ? u - 1 : u, r = t->rep[u];
		if (u == v)
			continue;
		c->type[nu] = t->type[u];
		c->rep[nu] = r > v ? r - 1 : r;
		memcpy(sup(c, nu), sup(t, u), (size_t)t->nwords * sizeof(uint64_t));
	}
	for (int e = 0; e < t->nneq; e++) {
		int a = t->neq[e][0], b = t->neq[e][1];
		if (a == v || b == v)
			continue;
		c->neq[k][0] = a > v ? a - 1 : a;
		c->neq[k][1] = b > v ? b - 1 : b;
		k++;
	}
	c->nneq = k;
	return c;
}

/* Makes v no longer its class's representative (if it is and the class
 * has other members): the next smallest member takes over. */
static void
hand_over(struct si_tuple *t, int v)
{
	int next = -1;

	if (t->rep[v] != v)
		return;
	for (int u = 0; u < t->nvars && next < 0; u++)
		if (u != v && t->rep[u] == v)
			next = u;
	if (next < 0)
		return;
	memcpy(sup(t, next), sup(t, v), (size_t)t->nwords * sizeof(uint64_t));
	for (int u = 0; u < t->nvars; u++)
		if (t->rep[u] == v)
			t->rep[u] = next;
	for (int e = 0; e < t->nneq; e++)
		for (int s = 0; s < 2; s++)
			if (t->neq[e][s] == v)
				t->neq[e][s] = next;
	t->rep[v] = v;  /* v alone now, its constraints moved */
	neq_normalise(t);
}

static int
push_projected(struct si_set *out, struct si_ext *ext, struct si_tuple *t,
    int v, double x)
{
	struct si_tuple *d = drop_var(t, v);

	if (!d)
		return -1;
	if (VEC_PUSH(out->v, d) < 0) {
		si_tuple_free(d);
		return -1;
	}
	if (VEC_PUSH(*ext, x) < 0)
		return -1;
	return 0;
}

/* Enumerates the partitions of partners[i..k) into classes (part[]) and
 * emits a projected tuple for each consistent one. */
static int
project_parts(const struct si_tuple *t, const struct si_space *sp, int v,
    const int *partners, int k, int *part, int i, int nparts,
    struct si_set *out, struct si_ext *ext)
{
	if (i == k) {
		struct si_tuple *c = si_tuple_copy(t);
		double n = support_size(t, sp, v) - nparts;
		int rc = 0, bad = 0;
		if (!c)
			return -1;
		for (int a = 0; a < k; a++)
			for (int b = a + 1; b < k; b++)
				if (part[a] == part[b])
					si_eq(c, partners[a], partners[b]);
		for (int e = 0; e < c->nneq; e++)
			if (c->neq[e][0] == c->neq[e][1])
				bad = 1;  /* partners already unequal, put together */
		for (int a = 0; a < k && !bad && !rc; a++)
			for (int b = a + 1; b < k && !rc; b++)
				if (part[a] != part[b])
					rc = si_neq(c, partners[a], partners[b]);
		if (!bad && !rc && n > 0)
			rc = push_projected(out, ext, c, v, n);
		si_tuple_free(c);
		return rc;
	}
	for (int p = 0; p <= nparts; p++) {
		part[i] = p;
		if (project_parts(t, sp, v, partners, k, part, i + 1,
		    p == nparts ? nparts + 1 : nparts, out, ext) < 0)
			return -1;
	}
	return 0;
}

int
si_project(const struct si_tuple *t, const struct si_space *sp, int v,
    struct si_set *out, struct si_ext *ext)
{
	struct si_tuple *c = si_tuple_copy(t);
	int *partners = NULL, *part = NULL, k = 0, alone = 1, rc;

	if (!c)
		return -1;
	for (int u = 0; u < c->nvars; u++)
		if (u != v && c->rep[u] == c->rep[v])
			alone = 0;
	if (!alone) {
		/* v equals another variable: exactly one extension */
		hand_over(c, v);
		rc = push_projected(out, ext, c, v, 1);
		si_tuple_free(c);
		return rc;
	}
	partners = xcalloc((size_t)c->nvars + 1, sizeof *partners);
	part = xcalloc((size_t)c->nvars + 1, sizeof *part);
	if (!partners || !part) {
		rc = -1;
		goto done;
	}
	for (int e = 0; e < c->nneq; e++) {
		if (c->neq[e][0] == v)
			partners[k++] = c->neq[e][1];
		else if (c->neq[e][1] == v)
			partners[k++] = c->neq[e][0];
	}
	if (k == 0) {
		double n = support_size(c, sp, v);
		rc = n > 0 ? push_projected(out, ext, c, v, n) : 0;
	} else {
		rc = project_parts(c, sp, v, partners, k, part, 0, 0, out, ext);
	}
done:
	free(partners);
	free(part);
	si_tuple_free(c);
	return rc;
}

int
si_space_split(struct si_space *sp, int t, int b, int64_t k)
{
	int64_t rest = sp->size[t][b] - k;
	int nb = si_space_add_block(sp, t, rest);

	if (nb >= 0)
		sp->size[t][b] = k;
	return nb;
}

int
si_tuple_split(struct si_tuple *t, int ty, int b, int nb)
{
	if (nb / 64 >= t->nwords) {
		int nw = nb / 64 + 1;
		uint64_t *s = xcalloc((size_t)t->nvars * nw + 1, sizeof *s);
		if (!s)
			return -1;
		for (int v = 0; v < t->nvars; v++)
			memcpy(s + (size_t)v * nw, sup(t, v),
			    (size_t)t->nwords * sizeof *s);
		free(t->support);
		t->support = s;
		t->nwords = nw;
	}
	for (int v = 0; v < t->nvars; v++)
		if (t->type[v] == ty && ((sup(t, v)[b / 64] >> (b % 64)) & 1))
			sup(t, v)[nb / 64] |= (uint64_t)1 << (nb % 64);
	return 0;
}

void
si_set_clear(struct si_set *s)
{
	for (size_t i = 0; i < s->v.n; i++)
		si_tuple_free(s->v.v[i]);
	s->v.n = 0;
}

void
si_set_free(struct si_set *s)
{
	si_set_clear(s);
	free(s->v.v);
	memset(s, 0, sizeof *s);
}

char *
si_tuple_text(const struct si_tuple *t, const struct si_space *sp)
{
	struct buf b;
	const char *sep = "";

	buf_init(&b);
	buf_puts(&b, "[");
	for (int v = 0; v < t->nvars; v++) {
		if (t->rep[v] != v) {
			buf_printf(&b, "%sx%d = x%d", sep, v, t->rep[v]);
			sep = " ^ ";
			continue;
		}
		buf_printf(&b, "%sx%d in {", sep, v);
		for (int k = 0, first = 1; k < sp->nblocks[t->type[v]]; k++)
			if ((sup(t, v)[k / 64] >> (k % 64)) & 1) {
				buf_printf(&b, "%sb%d", first ? "" : ",", k);
				first = 0;
			}
		buf_puts(&b, "}");
		sep = " ^ ";
	}
	for (int e = 0; e < t->nneq; e++)
		buf_printf(&b, "%sx%d != x%d", sep, t->neq[e][0], t->neq[e][1]),
		    sep = " ^ ";
	buf_puts(&b, "]");
	return buf_take(&b);
}
