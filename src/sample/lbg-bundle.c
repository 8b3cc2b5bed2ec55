/* lbg-bundle.c: conditionals shared between exchangeable atoms.  Atom
 * u's formulas fall into bundles, one per template (the formula's weight,
 * its program with u marked and every other atom replaced by its
 * predicate); two atoms whose bundle of a template holds the same
 * formulas once u is marked (the same other atoms, the same program)
 * get the same contribution from it to their log-odds.  So a block of
 * independent atoms computes each distinct bundle once per draw instead
 * of once per atom: in [R(x, y) v S(y, z)], every R(x, y) of one y shares
 * the bundle {S(y, z) v *}, every S(y, z) of one y the bundle
 * {R(x, y) v *}: a sweep reads O(n^2) formulas instead of O(n^3).  Two
 * bundles are taken as the same when their template, size and two
 * independent 64-bit sums of their formulas' hashes agree (a multiset
 * hash: the formulas' order does not matter). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"

typedef VEC(int) ivec;

struct inc {                   /* one formula of the atom at hand */
	uint64_t sig, h1, h2;
	int f;
	int t;                 /* by_template: its template's number */
};

struct bkey {                  /* a bundle: template, hashes, size */
	uint64_t sig, h1, h2;
	int64_t n;
};

/* What building needs beside the bundles: each one's key, an open
 * addressing table of them, and the arrays as they grow. */
struct builder {
	struct bkey *keys;
	size_t kcap;
	int *slot;
	size_t cap;            /* slots, a power of 2 */
	ivec ff, form, rep, abun;
};

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/* Formula f seen from atom u: its template (weight, opcodes, u marked,
 * other atoms by predicate, u's predicate) and two hashes of its content
 * (other atoms by number). */
static void
describe(const struct gb_model *m, const int *pred, int u, int f,
    struct inc *o)
{
	const struct ground_formula *gf = &m->g->gf.v[f];
	const int *code = m->g->code.v + gf->start;
	uint64_t w;

	memcpy(&w, &gf->weight, sizeof w);
	o->sig = mix(mix(mix(0x5111f7, w), (uint64_t)gf->hard),
	    (uint64_t)pred[u]);
	o->h1 = mix(0x1b873593, w);
	o->h2 = mix(0xcc9e2d51, w);
	o->f = f;
	for (int i = 0; i < gf->len; i++) {
		uint64_t op = (uint64_t)code[i] + 1;
		if (code[i] == OP_ATOM) {
			int v = code[++i];
			uint64_t sv = v == u ? 0 : 1 + (uint64_t)pred[v];
			uint64_t cv = v == u ? 0 : 1 + (uint64_t)v;
			o->sig = mix(mix(o->sig, op), sv);
			o->h1 = mix(mix(o->h1, op), cv);
			o->h2 = mix(mix(o->h2, op ^ 0xa5a5), cv * 0x94d049bb133111ebULL);
		} else {
			o->sig = mix(o->sig, op);
			o->h1 = mix(o->h1, op);
			o->h2 = mix(o->h2, op ^ 0xa5a5);
		}
	}
}

static int
by_sig(const void *a, const void *b)
{
	const struct inc *x = a, *y = b;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

/* Sorts v[0..n) by template (sig), through tmp: a counting sort when
 * there are at most 16 templates (an atom's usual few), else qsort.
 * The order within a template does not matter (its hashes are sums). */
static void
by_template(struct inc *v, struct inc *tmp, int n)
{
	uint64_t sig[16];
	int nd = 0, rank[16], start[17] = { 0 };

	for (int j = 0; j < n; j++) {
		int d = 0;
		while (d < nd && sig[d] != v[j].sig)
			d++;
		if (d == nd) {
			if (nd == 16) {
				qsort(v, (size_t)n, sizeof *v, by_sig);
				return;
			}
			sig[nd++] = v[j].sig;
		}
		v[j].t = d;
	}
	/* the templates ascending, as qsort would order them */
	for (int d = 0; d < nd; d++) {
		rank[d] = 0;
		for (int e = 0; e < nd; e++)
			rank[d] += sig[e] < sig[d];
	}
	for (int j = 0; j < n; j++)
		start[rank[v[j].t] + 1]++;
	for (int d = 0; d < nd; d++)
		start[d + 1] += start[d];
	for (int j = 0; j < n; j++)
		tmp[start[rank[v[j].t]]++] = v[j];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

void
lbg_bundles_free(struct lbg_bundles *b)
{
	if (!b)
		return;
	free(b->ffirst);
	free(b->form);
	free(b->rep);
	free(b->afirst);
	free(b->abun);
	free(b->on);
	free(b);
}

/* Bundle id of key k: found or added (its formulas from run[0..n), of
 * atom u); nb: the bundles so far; -1: out of memory. */
static int
bundle_id(struct builder *bd, int *nb, const struct bkey *k,
    const struct inc *run, int n, int u)
{
	size_t h;

	if ((size_t)*nb * 2 >= bd->cap) {
		size_t nc = bd->cap ? bd->cap * 2 : 1024;
		int *ns = xmalloc(nc * sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < nc; i++)
			ns[i] = -1;
		for (int j = 0; j < *nb; j++) {
			h = (size_t)(bd->keys[j].h1 ^ bd->keys[j].sig) & (nc - 1);
			while (ns[h] >= 0)
				h = (h + 1) & (nc - 1);
			ns[h] = j;
		}
		free(bd->slot);
		bd->slot = ns;
		bd->cap = nc;
	}
	h = (size_t)(k->h1 ^ k->sig) & (bd->cap - 1);
	for (; bd->slot[h] >= 0; h = (h + 1) & (bd->cap - 1)) {
		const struct bkey *o = &bd->keys[bd->slot[h]];
		if (o->sig == k->sig && o->h1 == k->h1 && o->h2 == k->h2 &&
		    o->n == k->n)
			return bd->slot[h];
	}
	if ((size_t)*nb >= bd->kcap) {
		size_t nc = bd->kcap ? bd->kcap * 2 : 256;
		struct bkey *nk = xrealloc(bd->keys, nc * sizeof *nk);
		if (!nk)
			return -1;
		bd->keys = nk;
		bd->kcap = nc;
	}
	bd->keys[*nb] = *k;
	bd->slot[h] = *nb;
	if (VEC_PUSH(bd->ff, (int)bd->form.n) < 0 || VEC_PUSH(bd->rep, u) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (VEC_PUSH(bd->form, run[i].f) < 0)
			return -1;
	return (*nb)++;
}

int
lbg_bundles_make(struct gb_model *m, const int *pred,
    const unsigned char *want, struct lbg_bundles **out)
{
	struct lbg_bundles *b = xcalloc(1, sizeof *b);
	struct builder bd = { 0 };
	struct inc *tmp = NULL, *tmp2 = NULL;
	int *users = NULL, maxinc = 0, rc = -1;

	*out = NULL;
	for (int u = 0; u < m->n; u++)
		if (m->afirst[u + 1] - m->afirst[u] > maxinc)
			maxinc = m->afirst[u + 1] - m->afirst[u];
	if (!b || !(tmp = xcalloc((size_t)maxinc + 1, sizeof *tmp)) ||
	    !(tmp2 = xcalloc((size_t)maxinc + 1, sizeof *tmp2)) ||
	    !(b->afirst = xcalloc((size_t)m->n + 1, sizeof *b->afirst)) ||
	    !(b->on = xcalloc((size_t)m->n + 1, 1)))
		goto done;
	for (int u = 0; u < m->n; u++) {
		int nf = m->afirst[u + 1] - m->afirst[u];
		b->afirst[u] = (int)bd.abun.n;
		if (!want[u])
			continue;
		for (int j = 0; j < nf; j++)
			describe(m, pred, u, m->aform[m->afirst[u] + j], &tmp[j]);
		by_template(tmp, tmp2, nf);
		for (int s = 0, e; s < nf; s = e) {
			struct bkey k = { tmp[s].sig, 0, 0, 0 };
			int id;
			for (e = s; e < nf && tmp[e].sig == tmp[s].sig; e++) {
				k.h1 += tmp[e].h1;
				k.h2 += tmp[e].h2;
			}
			k.n = e - s;
			id = bundle_id(&bd, &b->nb, &k, tmp + s, e - s, u);
			if (id < 0 || VEC_PUSH(bd.abun, id) < 0)
				goto done;
		}
	}
	b->afirst[m->n] = (int)bd.abun.n;
	if (VEC_PUSH(bd.ff, (int)bd.form.n) < 0 || VEC_PUSH(bd.form, 0) < 0 ||
	    VEC_PUSH(bd.rep, 0) < 0 || VEC_PUSH(bd.abun, 0) < 0)
		goto done;
	b->ffirst = bd.ff.v;
	b->form = bd.form.v;
	b->rep = bd.rep.v;
	b->abun = bd.abun.v;
	bd.ff.v = bd.form.v = bd.rep.v = bd.abun.v = NULL;
	/* an atom reads its bundles only when those shared with another
	 * atom hold at least half its formulas: otherwise little is saved
	 * (a prior's unit formula is a bundle every atom shares) */
	if (!(users = xcalloc((size_t)b->nb + 1, sizeof *users)))
		goto done;
	for (int q = 0; q < b->afirst[m->n]; q++)
		users[b->abun[q]]++;
	for (int u = 0; u < m->n; u++) {
		int shared = 0;
		for (int q = b->afirst[u]; q < b->afirst[u + 1]; q++) {
			int j = b->abun[q];
			if (users[j] > 1)
				shared += b->ffirst[j + 1] - b->ffirst[j];
		}
		b->on[u] = 2 * shared >= m->afirst[u + 1] - m->afirst[u] &&
		    shared > 0;
	}
	*out = b;
	b = NULL;
	rc = 0;
done:
	free(bd.ff.v);
	free(bd.form.v);
	free(bd.rep.v);
	free(bd.abun.v);
	free(bd.keys);
	free(bd.slot);
	free(tmp);
	free(tmp2);
	free(users);
	lbg_bundles_free(b);
	return rc;
}

/* The log-odds of u true against false in x from formulas F[0..n),
 * each holding u: their soft weights with u true less those with u
 * false; bits 1 and 2 of *bad: some hard one false with u false, with u
 * true. */
double
lbg_logodds(const struct gb_model *m, int u, const int *F, int n,
    unsigned char *x, int *stack, unsigned char *bad)
{
	unsigned char old = x[u];
	double d = 0;
	int ok0 = 1, ok1 = 1;

	for (int q = 0; q < n; q++) {
		const struct ground_formula *gf = &m->g->gf.v[F[q]];
		int t0, t1;
		x[u] = 1;
		t1 = gb_eval(m, F[q], x, stack);
		x[u] = 0;
		t0 = gb_eval(m, F[q], x, stack);
		if (gf->hard) {
			ok1 &= t1;
			ok0 &= t0;
		} else
			d += gf->weight * (t1 - t0);
	}
	x[u] = old;
	*bad = (unsigned char)((!ok0) | ((!ok1) << 1));
	return d;
}

double
lbg_bundle_p(const struct gb_model *m, int u, unsigned char *x,
    struct gb_scratch *s)
{
	const struct lbg_bundles *b = m->bun;
	double d = 0;
	unsigned char bad = 0;

	for (int q = b->afirst[u]; q < b->afirst[u + 1]; q++) {
		int j = b->abun[q];
		if (s->bstamp[j] != s->stamp) {
			/* on its representative's formulas, which are u's
			 * but for u itself */
			s->bd[j] = lbg_logodds(m, b->rep[j], b->form + b->ffirst[j],
			    b->ffirst[j + 1] - b->ffirst[j], x, s->stack, &s->bok[j]);
			s->bstamp[j] = s->stamp;
		}
		d += s->bd[j];
		bad |= s->bok[j];
	}
	/* the current value is allowed (x satisfies the hard formulas) */
	return bad & 2 ? 0 : bad & 1 ? 1 : 1 / (1 + exp(-d));
}
