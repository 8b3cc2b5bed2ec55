/* cache.c: the cache of solved theories, keyed by the theory up to a
 * renaming of its blocks and classes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

void
ib_add(struct ibuf *b, int x, int *oom)
{
	if (b->n >= b->cap && (*oom || vec_grow_((void **)&b->v, &b->cap,
	    b->n + 1, sizeof *b->v))) {
		*oom = 1;
		return;
	}
	b->v[b->n++] = x;
}

static void
ib_add64(struct ibuf *b, uint64_t x, int *oom)
{
	ib_add(b, (int)(uint32_t)(x >> 32), oom);
	ib_add(b, (int)(uint32_t)x, oom);
}

static uint64_t
dbits(double w)
{
	uint64_t u;
	memcpy(&u, &w, sizeof u);
	return u;
}

/* A clause's place in the key: the hash of its renaming-free signature
 * (weight, shape, its variables' block sizes, its literals' signs and
 * arguments), then its place in t. */
struct sig {
	uint64_t h;
	size_t cl;
};

/* Sorts a[0 .. n) by h, stably (tmp: room for n more): a merge sort,
 * as qsort's calls through its comparison were a tenth of the time. */
static void
sig_sort(struct sig *a, struct sig *tmp, size_t n)
{
	struct sig *src = a, *dst = tmp;

	for (size_t i = 1; i < n; i++) {
		/* runs of 8 by insertion */
		struct sig x = a[i];
		size_t j = i;
		if (i % 8 == 0)
			continue;
		while (j % 8 && a[j - 1].h > x.h) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
	for (size_t w = 8; w < n; w *= 2) {
		struct sig *t;
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = src[j].h < src[i].h ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

static uint64_t
cl_sig(const struct eng *g, const struct th *t, const struct cl *c)
{
	uint64_t h = hash_mix(FNV_INIT, (uint64_t)c->hard << 48 |
	    (uint64_t)c->nvars << 32 | (uint64_t)c->nneq << 16 |
	    (uint64_t)c->nlits);

	h = hash_mix(h, dbits(c->w));
	h = hash_mix(h, (uint64_t)c->tag);
	for (int v = 0; v < c->nvars; v++)
		h = hash_mix(h, (uint64_t)t->size[c->blk[v]]);
	for (int k = 0; k < c->nlits; k++) {
		int ar = arity(g, c->lit[k].pred);
		h = hash_mix(h, (uint64_t)c->lit[k].neg << 8 | (uint64_t)ar);
		for (int a = 0; a < ar; a++)
			h = hash_mix(h, (uint64_t)c->arg[c->lit[k].off + a]);
	}
	for (int j = 0; j < c->nneq; j++)
		h = hash_mix(h, (uint64_t)c->neq[j][0] << 32 |
		    (uint64_t)c->neq[j][1]);
	return h;
}

/* A key of t up to renaming of blocks and predicates: clauses sorted by
 * the hash of a renaming-free signature, then written with blocks and
 * predicates numbered in order of appearance, then the blocks' sizes.
 * Equal keys mean isomorphic theories whatever the order (the converse
 * may miss: clauses of equal signatures keep t's order, and so may a
 * hash collision). */
int
cache_key(const struct eng *g, const struct th *t, struct ibuf *key)
{
	struct sig *sg = xmalloc((2 * t->c.n + 1) * sizeof *sg);
	int *bmap = xmalloc(((size_t)t->nb + 1) * sizeof *bmap);
	int *pmap = xmalloc((g->ct->m->preds.n + 1) * sizeof *pmap);
	int *border = xmalloc(((size_t)t->nb + 1) * sizeof *border);
	int oom = !sg || !bmap || !pmap || !border, nbm = 0, npm = 0;

	for (size_t i = 0; i < t->c.n && !oom; i++) {
		sg[i].h = cl_sig(g, t, t->c.v[i]);
		sg[i].cl = i;
	}
	if (!oom) {
		sig_sort(sg, sg + t->c.n, t->c.n);
		for (int b = 0; b < t->nb; b++)
			bmap[b] = -1;
		for (size_t p = 0; p < g->ct->m->preds.n; p++)
			pmap[p] = -1;
	}
	key->n = 0;
	for (size_t i = 0; i < t->c.n && !oom; i++) {
		const struct cl *c = t->c.v[sg[i].cl];
		ib_add(key, c->hard, &oom);
		ib_add64(key, dbits(c->w), &oom);
		ib_add(key, c->tag, &oom);
		ib_add(key, c->nvars, &oom);
		ib_add(key, c->nneq, &oom);
		ib_add(key, c->nlits, &oom);
		for (int v = 0; v < c->nvars; v++) {
			if (bmap[c->blk[v]] < 0) {
				border[nbm] = c->blk[v];
				bmap[c->blk[v]] = nbm++;
			}
			ib_add(key, bmap[c->blk[v]], &oom);
		}
		for (int j = 0; j < c->nneq; j++) {
			ib_add(key, c->neq[j][0], &oom);
			ib_add(key, c->neq[j][1], &oom);
		}
		for (int k = 0; k < c->nlits; k++) {
			const struct lit *l = &c->lit[k];
			if (pmap[l->pred] < 0)
				pmap[l->pred] = npm++;
			ib_add(key, pmap[l->pred], &oom);
			ib_add(key, l->neg, &oom);
			for (int a = 0; a < arity(g, l->pred); a++)
				ib_add(key, c->arg[l->off + a], &oom);
		}
	}
	for (int b = 0; b < nbm && !oom; b++)
		ib_add64(key, (uint64_t)t->size[border[b]], &oom);
	free(sg);
	free(bmap);
	free(pmap);
	free(border);
	return oom ? -1 : 0;
}

struct centry *
cache_find(struct eng *g, const struct ibuf *key, uint64_t h)
{
	size_t mask = g->capcache - 1;

	if (!g->capcache)
		return NULL;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct centry *c = &g->cache[i];
		if (!c->key)
			return c;
		if (c->h == h && c->len == key->n &&
		    !memcmp(c->key, key->v, key->n * sizeof *key->v))
			return c;
	}
}

/* What an entry of n key ints and ne counts adds to eng_held. */
static int64_t
entry_held(size_t n, size_t ne)
{
	return (int64_t)(n * sizeof(int) + 1 + HELD_EXTRA +
	    (ne ? ne * (sizeof(int) + sizeof(double)) + 2 * HELD_EXTRA : 0));
}

/* Stores a result, and the expected counts that ga holds from `from`
 * on; a full cache (or no memory) just stops caching.  The cache stops
 * growing once the engine holds half of --max-memory: it only saves
 * work (an entry is a theory's value, which the search computes again
 * without it), while the search cannot go on without its memory. */
void
cache_put(struct eng *g, const struct ibuf *key, uint64_t h, double val,
    size_t from)
{
	struct centry *c;
	size_t ne = from < g->ga.n ? g->ga.n - from : 0;

	if (g->cache_ints + key->n + 3 * ne > CACHE_INTS)
		return;
	if (g->mem_cap > 0 && eng_held + entry_held(key->n, ne) >
	    g->mem_cap / 2)
		return;
	if (2 * (g->ncache + 1) > g->capcache) {
		size_t cap = g->capcache ? 2 * g->capcache : 1024;
		struct centry *n = xcalloc(cap, sizeof *n), *old = g->cache;
		size_t oc = g->capcache;
		if (!n)
			return;
		if (g->mem_cap > 0 && eng_held + (int64_t)((cap - oc) *
		    sizeof *n) > g->mem_cap / 2) {
			free(n);
			return;
		}
		g->cache = n;
		g->capcache = cap;
		g->cache_held += (int64_t)((cap - oc) * sizeof *n);
		eng_held += (int64_t)((cap - oc) * sizeof *n);
		for (size_t i = 0; i < oc; i++)
			if (old[i].key) {
				size_t j = old[i].h & (cap - 1);
				while (n[j].key)
					j = (j + 1) & (cap - 1);
				n[j] = old[i];
			}
		free(old);
	}
	c = cache_find(g, key, h);
	if (c->key)
		return;
	if (!(c->key = xmalloc(key->n * sizeof *key->v + 1)))
		return;
	memcpy(c->key, key->v, key->n * sizeof *key->v);
	c->len = key->n;
	c->h = h;
	c->val = val;
	c->track_over = 0;
	c->ne = 0;
	c->etag = NULL;
	c->ev = NULL;
	if (ne) {
		counts_compact(g, from);
		ne = g->ga.n - from;
		c->etag = xmalloc(ne * sizeof *c->etag);
		c->ev = xmalloc(ne * sizeof *c->ev);
		if (!c->etag || !c->ev) {
			/* without its counts the entry would be wrong */
			free(c->etag);
			free(c->ev);
			free(c->key);
			c->etag = NULL;
			c->ev = NULL;
			c->key = NULL;
			return;
		}
		memcpy(c->etag, g->ga.tag + from, ne * sizeof *c->etag);
		memcpy(c->ev, g->ga.v + from, ne * sizeof *c->ev);
		c->ne = (int)ne;
		g->cache_ints += 3 * ne;
	}
	g->ncache++;
	g->cache_ints += key->n;
	g->cache_held += entry_held(key->n, ne);
	eng_held += entry_held(key->n, ne);
}

/* Marks the cached theory of key as one whose tracked atoms were over
 * the exact budget: later samples draw it without trying again. */
void
cache_mark_over(struct eng *g, const struct ibuf *key, uint64_t h)
{
	struct centry *c = cache_find(g, key, h);

	if (c && c->key)
		c->track_over = 1;
}
