/* coarse.c: the domain blocks, the coarsest partition of each type into
 * interchangeable constants: a and b share a block iff swapping them maps
 * the evidence (true and false atoms) onto itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/coarse.h"

/* Why two steps suffice.  Interchangeability is an equivalence: if the
 * swaps (a b) and (b c) keep the evidence, so does (a c) = (a b)(b c)(a b).
 * Let S(a) be the set of entries of a (store_sig_each: its atoms with a
 * written *).  When a and b share no atom, (a b) keeps the evidence iff
 * S(a) = S(b); when they share one, S(a) names b and S(b) does not, so
 * they differ, and (a b) keeps the evidence iff S(a) with b written #
 * equals S(b) with a written #: an atom X holding a goes to swap(X), whose
 * entry for b is X's entry for a with b written #.  So the blocks are the
 * classes of constants with equal S(a), joined along the pairs that share
 * an atom and pass the second test. */

struct ctype {
	VEC(int64_t) ids;      /* the domain, ascending */
	VEC(char) text;        /* entries, each ended by '\n', by constant */
	size_t *beg, *end;     /* per constant: its entries in text */
	int *cnt;              /* per constant: entries */
	int *up;               /* union-find parent */
};

struct coarse {
	int ntypes;
	struct ctype *ty;
	VEC(char *) scratch;   /* swap test: transformed entries */
	struct buf tb;
	struct err *e;
	int bad;               /* an entry's constant outside its domain */
};

static long
find_pos(const struct ctype *c, int64_t id)
{
	size_t lo = i64_lower(c->ids.v, c->ids.n, id);

	return lo < c->ids.n && c->ids.v[lo] == id ? (long)lo : -1;
}

static int
uf_find(int *up, int x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static int
on_sig(void *ctx, int t, int64_t id, const char *x, size_t len)
{
	struct coarse *g = ctx;
	struct ctype *c;
	long k;

	if (t < 0 || t >= g->ntypes || (k = find_pos(&g->ty[t], id)) < 0) {
		g->bad = 1;
		return SQLIFT_EDB;
	}
	c = &g->ty[t];
	if (vec_grow_((void **)&c->text.v, &c->text.cap, c->text.n + len + 1,
	    1) < 0)
		return err_oom(g->e);
	if (c->cnt[k] == 0)
		c->beg[k] = c->text.n;
	memcpy(c->text.v + c->text.n, x, len);
	c->text.n += len;
	c->text.v[c->text.n++] = '\n';
	c->end[k] = c->text.n;
	c->cnt[k]++;
	return 0;
}

static int
str_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Appends the entries of constant k with the token "@other" written "#"
 * to g->tb, each NUL-ended. */
static void
swap_text(struct coarse *g, const struct ctype *c, long k, int64_t other)
{
	char tok[32];
	size_t tn = (size_t)snprintf(tok, sizeof tok, "@%lld", (long long)other);
	const char *p = c->text.v + c->beg[k], *end = c->text.v + c->end[k];

	while (p < end) {
		const char *w = p;
		while (*w != ' ' && *w != '\n')
			w++;
		if ((size_t)(w - p) == tn && !memcmp(p, tok, tn))
			buf_add(&g->tb, "#", 1);
		else
			buf_add(&g->tb, p, (size_t)(w - p));
		buf_add(&g->tb, *w == '\n' ? "" : " ", 1);  /* NUL ends an entry */
		p = w + 1;
	}
}

/* Does swapping constants ka and kb (positions in c) keep the evidence?
 * 1 yes, 0 no, -1 out of memory. */
static int
swap_keeps(struct coarse *g, const struct ctype *c, long ka, long kb)
{
	size_t n = (size_t)c->cnt[ka];
	const char *p;
	int same = 1;

	buf_clear(&g->tb);
	swap_text(g, c, ka, c->ids.v[kb]);
	swap_text(g, c, kb, c->ids.v[ka]);
	if (g->tb.oom ||
	    vec_grow_((void **)&g->scratch.v, &g->scratch.cap, 2 * n + 1,
	    sizeof *g->scratch.v) < 0)
		return -1;
	g->scratch.n = 0;
	for (p = g->tb.s; p < g->tb.s + g->tb.len; p += strlen(p) + 1)
		g->scratch.v[g->scratch.n++] = (char *)(uintptr_t)p;
	qsort(g->scratch.v, n, sizeof *g->scratch.v, str_cmp);
	qsort(g->scratch.v + n, n, sizeof *g->scratch.v, str_cmp);
	for (size_t i = 0; i < n && same; i++)
		same = !strcmp(g->scratch.v[i], g->scratch.v[n + i]);
	return same;
}

static int
on_pair(void *ctx, int t, int64_t a, int64_t b)
{
	struct coarse *g = ctx;
	struct ctype *c;
	long ka, kb;
	int ra, rb, r;

	if (t < 0 || t >= g->ntypes)
		return 0;
	c = &g->ty[t];
	if ((ka = find_pos(c, a)) < 0 || (kb = find_pos(c, b)) < 0) {
		g->bad = 1;
		return SQLIFT_EDB;
	}
	ra = uf_find(c->up, (int)ka);
	rb = uf_find(c->up, (int)kb);
	if (ra == rb || c->cnt[ka] != c->cnt[kb])
		return 0;
	if ((r = swap_keeps(g, c, ka, kb)) < 0)
		return err_oom(g->e);
	if (r)
		c->up[ra > rb ? ra : rb] = ra < rb ? ra : rb;
	return 0;
}

/* Joins the constants of c with equal entries. */
static int
group_equal(struct ctype *c)
{
	size_t n = c->ids.n, cap = 16;
	int *slot;

	while (cap < 2 * n)
		cap *= 2;
	if (!(slot = xmalloc(cap * sizeof *slot)))
		return -1;
	memset(slot, -1, cap * sizeof *slot);
	for (size_t k = 0; k < n; k++) {
		const char *x = c->cnt[k] ? c->text.v + c->beg[k] : "";
		size_t len = c->cnt[k] ? c->end[k] - c->beg[k] : 0;
		size_t h = (size_t)fnv1a(FNV_INIT, x, len) & (cap - 1);
		c->up[k] = (int)k;
		for (;; h = (h + 1) & (cap - 1)) {
			int o = slot[h];
			if (o < 0) {
				slot[h] = (int)k;
				break;
			}
			if ((size_t)(c->cnt[o] ? c->end[o] - c->beg[o] : 0) == len &&
			    (len == 0 || !memcmp(c->text.v + c->beg[o], x, len))) {
				c->up[k] = o;
				break;
			}
		}
	}
	free(slot);
	return 0;
}

static void
ctype_free(struct ctype *c)
{
	free(c->ids.v);
	free(c->text.v);
	free(c->beg);
	free(c->end);
	free(c->cnt);
	free(c->up);
}

void
coarse_free(struct type_blocks *tb, int ntypes)
{
	for (int t = 0; tb && t < ntypes; t++) {
		free(tb[t].ids);
		free(tb[t].block);
	}
	free(tb);
}

int
coarse_blocks(struct store *s, FILE *report, struct type_blocks **out,
    struct err *e)
{
	struct coarse g = { 0 };
	struct type_blocks *tb = NULL;
	int *block = NULL, rc = 0;

	g.e = e;
	buf_init(&g.tb);
	g.ntypes = store_ntypes(s);
	if (!(g.ty = xcalloc((size_t)g.ntypes + 1, sizeof *g.ty)) ||
	    (out && !(tb = xcalloc((size_t)g.ntypes + 1, sizeof *tb)))) {
		free(g.ty);
		return err_oom(e);
	}
	for (int t = 0; t < g.ntypes && !rc; t++) {
		struct ctype *c = &g.ty[t];
		struct store_ids ids = { 0 };
		size_t n;
		if ((rc = store_domain_ids(s, t, &ids, e)))
			break;
		c->ids.v = ids.v;
		c->ids.n = ids.n;
		c->ids.cap = ids.cap;
		n = ids.n + 1;
		if (!(c->beg = xcalloc(n, sizeof *c->beg)) ||
		    !(c->end = xcalloc(n, sizeof *c->end)) ||
		    !(c->cnt = xcalloc(n, sizeof *c->cnt)) ||
		    !(c->up = xcalloc(n, sizeof *c->up)))
			rc = err_oom(e);
	}
	if (!rc)
		rc = store_sig_each(s, on_sig, &g, e);
	for (int t = 0; t < g.ntypes && !rc; t++)
		if (group_equal(&g.ty[t]) < 0)
			rc = err_oom(e);
	if (!rc)
		rc = store_pairs_each(s, on_pair, &g, e);
	if (g.bad)
		rc = err_set(e, SQLIFT_EDB, "%s: corrupt database: evidence holds "
		    "a constant id not in its domain", store_path(s));
	for (int t = 0; t < g.ntypes && !rc; t++) {
		struct ctype *c = &g.ty[t];
		int nblocks = 0;
		free(block);
		if (!(block = xcalloc(c->ids.n + 1, sizeof *block))) {
			rc = err_oom(e);
			break;
		}
		/* numbered by their smallest constant id: the same evidence
		 * under other ids in the same order gives the same numbers */
		for (size_t k = 0; k < c->ids.n; k++) {
			int r = uf_find(c->up, (int)k);
			block[k] = (size_t)r == k ? nblocks++ : block[r];
		}
		rc = store_blocks_put(s, t, c->ids.v, block, c->ids.n, report, e);
		if (tb) {
			/* the caller's: the domain and its blocks */
			tb[t] = (struct type_blocks){ c->ids.v, block, c->ids.n,
			    nblocks };
			c->ids.v = NULL;
			block = NULL;
		}
	}
	free(block);
	if (rc)
		coarse_free(tb, g.ntypes);
	else if (out)
		*out = tb;
	for (int t = 0; t < g.ntypes; t++)
		ctype_free(&g.ty[t]);
	free(g.ty);
	free(g.scratch.v);
	buf_free(&g.tb);
	return rc;
}
