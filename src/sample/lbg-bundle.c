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
};

struct lbg_bkey {
	uint64_t sig, h1, h2;
	int64_t n;
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
	int nd = 0, start[17] = { 0 };

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
	}
	/* the templates ascending, as qsort would order them */
	for (int i = 1; i < nd; i++)
		for (int k = i; k > 0 && sig[k - 1] > sig[k]; k--) {
			uint64_t t = sig[k];
			sig[k] = sig[k - 1];
			sig[k - 1] = t;
		}
	for (int j = 0; j < n; j++) {
		int d = 0;
		while (sig[d] != v[j].sig)
			d++;
		start[d + 1]++;
	}
	for (int d = 0; d < nd; d++)
		start[d + 1] += start[d];
	for (int j = 0; j < n; j++) {
		int d = 0;
		while (sig[d] != v[j].sig)
			d++;
		tmp[start[d]++] = v[j];
	}
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
	free(b->keys);
	free(b);
}

/* Bundle id of key k: found or added (its formulas from run[0..n));
 * -1: out of memory. */
static int
bundle_id(struct lbg_bundles *b, struct lbg_bkey *k, const struct inc *run,
    int n, int u, ivec *ff, ivec *form, ivec *rep, int **slot, size_t *cap)
{
	size_t h;

	if ((size_t)b->nb * 2 >= *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		int *ns = xmalloc(nc * sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < nc; i++)
			ns[i] = -1;
		for (int j = 0; j < b->nb; j++) {
			h = (size_t)(b->keys[j].h1 ^ b->keys[j].sig) & (nc - 1);
			while (ns[h] >= 0)
				h = (h + 1) & (nc - 1);
			ns[h] = j;
		}
		free(*slot);
		*slot = ns;
		*cap = nc;
	}
	h = (size_t)(k->h1 ^ k->sig) & (*cap - 1);
	for (; (*slot)[h] >= 0; h = (h + 1) & (*cap - 1)) {
		const struct lbg_bkey *o = &b->keys[(*slot)[h]];
		if (o->sig == k->sig && o->h1 == k->h1 && o->h2 == k->h2 &&
		    o->n == k->n)
			return (*slot)[h];
	}
	if ((size_t)b->nb >= b->kcap) {
		size_t nc = b->kcap ? b->kcap * 2 : 256;
		struct lbg_bkey *nk = xrealloc(b->keys, nc * sizeof *nk);
		if (!nk)
			return -1;
		b->keys = nk;
		b->kcap = nc;
	}
	b->keys[b->nb] = *k;
	(*slot)[h] = b->nb;
	if (VEC_PUSH(*ff, (int)form->n) < 0 || VEC_PUSH(*rep, u) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (VEC_PUSH(*form, run[i].f) < 0)
			return -1;
	return b->nb++;
}

int
lbg_bundles_make(struct gb_model *m, const int *pred,
    const unsigned char *want, struct lbg_bundles **out)
{
	struct lbg_bundles *b = xcalloc(1, sizeof *b);
	ivec ff = { 0 }, form = { 0 }, rep = { 0 }, abun = { 0 };
	struct inc *tmp = NULL, *tmp2 = NULL;
	int *slot = NULL, *users = NULL, maxinc = 0, rc = -1;
	size_t cap = 0;

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
		b->afirst[u] = (int)abun.n;
		if (!want[u])
			continue;
		for (int j = 0; j < nf; j++)
			describe(m, pred, u, m->aform[m->afirst[u] + j], &tmp[j]);
		by_template(tmp, tmp2, nf);
		for (int s = 0, e; s < nf; s = e) {
			struct lbg_bkey k = { tmp[s].sig, 0, 0, 0 };
			int id;
			for (e = s; e < nf && tmp[e].sig == tmp[s].sig; e++) {
				k.h1 += tmp[e].h1;
				k.h2 += tmp[e].h2;
			}
			k.n = e - s;
			id = bundle_id(b, &k, tmp + s, e - s, u, &ff, &form, &rep,
			    &slot, &cap);
			if (id < 0 || VEC_PUSH(abun, id) < 0)
				goto done;
		}
	}
	b->afirst[m->n] = (int)abun.n;
	if (VEC_PUSH(ff, (int)form.n) < 0 || VEC_PUSH(form, 0) < 0 ||
	    VEC_PUSH(rep, 0) < 0 || VEC_PUSH(abun, 0) < 0)
		goto done;
	/* an atom reads its bundles only when those shared with another
	 * atom hold at least half its formulas: otherwise little is saved
	 * (a prior's unit formula is a bundle every atom shares) */
	if (!(users = xcalloc((size_t)b->nb + 1, sizeof *users)))
		goto done;
	for (int q = 0; q < b->afirst[m->n]; q++)
		users[abun.v[q]]++;
	for (int u = 0; u < m->n; u++) {
		int shared = 0;
		for (int q = b->afirst[u]; q < b->afirst[u + 1]; q++) {
			int j = abun.v[q];
			if (users[j] > 1)
				shared += ff.v[j + 1] - ff.v[j];
		}
		b->on[u] = 2 * shared >= m->afirst[u + 1] - m->afirst[u] &&
		    shared > 0;
	}
	b->ffirst = ff.v;
	b->form = form.v;
	b->rep = rep.v;
	b->abun = abun.v;
	ff.v = form.v = rep.v = abun.v = NULL;
	*out = b;
	b = NULL;
	rc = 0;
done:
	free(ff.v);
	free(form.v);
	free(rep.v);
	free(abun.v);
	free(tmp);
	free(tmp2);
	free(slot);
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
