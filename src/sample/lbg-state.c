/* lbg-state.c: lbg's log-odds kept as the chain moves.  For each atom u
 * it keeps (track[u]), L[u] is the log-odds of u true against false
 * from u's formulas that hold no other atom of u's block.  Each formula
 * of at most LS_K atoms is a table of its 2^k log weights, one per
 * shape (the same program up to its atoms, the same weight), so a
 * change of atom v moves the L of the other atoms of v's formulas by
 * four table reads each and evaluates no formula.  An atom whose
 * neighbours rarely change is then drawn in O(1) instead of from all its
 * formulas: on M4 (the WebKB MLN) a page's class reads a formula for
 * every page it may link to, and the classes hardly move while the
 * links do. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "infer/ground.h"
#include "sample/gibbs-int.h"
#include "util/util.h"

/* The atoms of formula f in slot order (first appearance) into a[];
 * their number, or LS_K + 1 when there are more. */
static int
slots(const struct ground *g, int f, int *a)
{
	const struct ground_formula *gf = &g->gf.v[f];
	const int *code = g->code.v + gf->start;
	int k = 0;

	for (int i = 0; i < gf->len; i++)
		if (code[i] == OP_ATOM) {
			int u = code[++i], j;
			for (j = 0; j < k && a[j] != u; j++)
				;
			if (j < k)
				continue;
			if (k == LS_K)
				return LS_K + 1;
			a[k++] = u;
		}
	return k;
}

/* Whether formulas f and h (slot atoms a, b) are the same program up to
 * their atoms' names, with the same weight. */
static int
same_shape(const struct ground *g, int f, const int *a, int h, const int *b,
    int k)
{
	const struct ground_formula *gf = &g->gf.v[f], *gh = &g->gf.v[h];
	const int *cf = g->code.v + gf->start, *ch = g->code.v + gh->start;

	if (gf->len != gh->len || gf->weight != gh->weight)
		return 0;
	for (int i = 0; i < gf->len; i++) {
		if (cf[i] != ch[i])
			return 0;
		if (cf[i] == OP_ATOM) {
			int j, l;
			i++;
			for (j = 0; j < k && a[j] != cf[i]; j++)
				;
			for (l = 0; l < k && b[l] != ch[i]; l++)
				;
			if (j != l)
				return 0;
		}
	}
	return 1;
}

/* A hash of f's program with its atoms as slots, and its weight. */
static uint64_t
hash_shape(const struct ground *g, int f, const int *a, int k)
{
	const struct ground_formula *gf = &g->gf.v[f];
	const int *code = g->code.v + gf->start;
	uint64_t h = 1469598103934665603ULL, wb;

	memcpy(&wb, &gf->weight, sizeof wb);
	h = (h ^ wb) * 1099511628211ULL;
	for (int i = 0; i < gf->len; i++) {
		int c = code[i];
		if (c == OP_ATOM) {
			int j;
			h = (h ^ (uint64_t)c) * 1099511628211ULL;
			for (j = 0; j < k && a[j] != code[i + 1]; j++)
				;
			c = 16 + j;
			i++;
		}
		h = (h ^ (uint64_t)c) * 1099511628211ULL;
	}
	return h;
}

/* f's table: 2^k log weights, LS_W doubles (the rest 0); xs all 0. */
static void
table(const struct ground *g, int f, const int *a, int k, unsigned char *xs,
    int *stack, double *w)
{
	unsigned char t[LS_W];
	double wt = g->gf.v[f].weight;

	memset(w, 0, LS_W * sizeof *w);
	gb_truths(g, f, a, k, xs, stack, t);
	for (unsigned p = 0; p < (1u << k); p++)
		w[p] = t[p] ? wt : 0;
}

/* Shapes by program (open addressing on hash_shape): per shape its
 * table and a formula of it. */
struct shapes {
	double *w;             /* LS_W per shape */
	int *rep;
	int n, cap;
	int *slot;             /* hash slots: shape + 1, 0 free */
	uint64_t *hash;        /* per shape */
	int nslot;
};

/* Room for one more shape and its slot; -1: out of memory. */
static int
shapes_grow(struct shapes *s)
{
	if (2 * (s->n + 1) > s->nslot) {
		int ns = s->nslot ? 2 * s->nslot : 1024;
		int *sl = xcalloc((size_t)ns, sizeof *sl);
		if (!sl)
			return -1;
		for (int i = 0; i < s->n; i++) {
			size_t h = s->hash[i] % (size_t)ns;
			while (sl[h])
				h = (h + 1) % (size_t)ns;
			sl[h] = i + 1;
		}
		free(s->slot);
		s->slot = sl;
		s->nslot = ns;
	}
	if (s->n == s->cap) {
		int nc = s->cap ? 2 * s->cap : 64;
		double *nw = realloc(s->w, (size_t)nc * LS_W * sizeof *nw);
		int *nr;
		uint64_t *nh;
		if (!nw)
			return -1;
		s->w = nw;
		if (!(nr = realloc(s->rep, (size_t)nc * sizeof *nr)))
			return -1;
		s->rep = nr;
		if (!(nh = realloc(s->hash, (size_t)nc * sizeof *nh)))
			return -1;
		s->hash = nh;
		s->cap = nc;
	}
	return 0;
}

/* The shape of formula f (slot atoms a, k of them), its table made when
 * new; -1: out of memory. */
static int
shape_of(struct shapes *s, const struct ground *g, int f, const int *a,
    int k, const int *fatom, unsigned char *xs, int *stack)
{
	uint64_t hv = hash_shape(g, f, a, k);
	size_t h;

	if (shapes_grow(s) < 0)
		return -1;
	h = hv % (size_t)s->nslot;
	while (s->slot[h]) {
		int i = s->slot[h] - 1, r = s->rep[i];
		if (s->hash[i] == hv && same_shape(g, f, a, r,
		    fatom + (size_t)r * LS_K, k))
			return i;
		h = (h + 1) % (size_t)s->nslot;
	}
	table(g, f, a, k, xs, stack, s->w + (size_t)s->n * LS_W);
	s->rep[s->n] = f;
	s->hash[s->n] = hv;
	s->slot[h] = s->n + 1;
	return s->n++;
}

void
lbg_state_free(struct lbg_state *st)
{
	if (!st)
		return;
	free(st->W);
	free(st->fshape);
	free(st->fatom);
	free(st->fk);
	free(st->fext);
	free(st->track);
	free(st->blk);
	free(st->full);
	free(st->ifirst);
	free(st->iform);
	free(st->pfirst);
	free(st->edge);
	free(st);
}

/* Which atoms are kept: those of exactly one block of kind 0, 1 or 3
 * (drawn from their conditional: a group, independent atoms, a tree)
 * whose formulas are all soft, of at most LS_K atoms and of weight at
 * most LS_WEIGHT_MAX in size.  Sets blk (an atom's first block: its
 * group, before the blocks of hard sets and swap groups, so that two
 * atoms share a kept atom's block exactly when their blk are equal),
 * fk, fatom and track. */
static int
pick(const struct gb_model *m, struct lbg_state *st)
{
	const struct ground *g = m->g;
	size_t nf = g->gf.n;
	unsigned char *many = xcalloc((size_t)m->n + 1, 1);

	if (!many)
		return -1;
	for (int u = 0; u < m->n; u++)
		st->blk[u] = -1;
	for (int b = 0; b < m->nblocks; b++)
		for (int i = m->bfirst[b]; i < m->bfirst[b + 1]; i++) {
			int u = m->batom[i];
			if (st->blk[u] == -1)
				st->blk[u] = b;
			else
				many[u] = 1;
		}
	for (size_t f = 0; f < nf; f++) {
		int k = slots(g, (int)f, st->fatom + f * LS_K);
		st->fk[f] = (unsigned char)(k > LS_K || g->gf.v[f].hard ||
		    fabs(g->gf.v[f].weight) > LS_WEIGHT_MAX ? 0xff : k);
	}
	for (int u = 0; u < m->n; u++) {
		int b = st->blk[u], ok = b >= 0 && !many[u] &&
		    (m->indep[b] == 0 || m->indep[b] == 1 || m->indep[b] == 3);
		for (int q = m->afirst[u]; ok && q < m->afirst[u + 1]; q++)
			ok = st->fk[m->aform[q]] != 0xff;
		st->track[u] = (unsigned char)ok;
		st->ntrack += ok;
	}
	free(many);
	return 0;
}

/* Per formula its shape and the slots whose atom's L holds it; per
 * block of kind 0 whose atoms are all kept, its formulas of two or more
 * of them (ifirst, iform); -1: out of memory. */
static int
shape_all(const struct gb_model *m, struct lbg_state *st)
{
	const struct ground *g = m->g;
	size_t nf = g->gf.n;
	struct shapes sh = { 0 };
	int *stack = xcalloc((size_t)m->maxlen + 1, sizeof *stack), rc = -1;
	unsigned char *xs = xcalloc((size_t)m->n + 1, 1);
	size_t ni = 0;

	if (!stack || !xs)
		goto done;
	for (size_t f = 0; f < nf; f++) {
		const int *a = st->fatom + f * LS_K;
		int k = st->fk[f], any = 0;
		st->fshape[f] = -1;
		st->fext[f] = 0;
		if (k == 0xff)
			continue;
		for (int i = 0; i < k; i++) {
			int j;
			if (!st->track[a[i]])
				continue;
			any = 1;
			for (j = 0; j < k && (j == i || st->blk[a[j]] !=
			    st->blk[a[i]]); j++)
				;
			if (j == k)
				st->fext[f] |= (unsigned char)(1u << i);
		}
		if (!any)
			continue;
		if ((st->fshape[f] = shape_of(&sh, g, (int)f, a, k, st->fatom,
		    xs, stack)) < 0)
			goto done;
	}
	/* blocks of kind 0 drawn from L: their inner formulas */
	for (int b = 0; b < m->nblocks; b++) {
		int full = m->indep[b] == 0;
		for (int i = m->bfirst[b]; full && i < m->bfirst[b + 1]; i++)
			full = st->track[m->batom[i]];
		st->full[b] = (unsigned char)full;
		st->ifirst[b] = (int)ni;
		for (int j = m->ffirst[b]; full && j < m->ffirst[b + 1]; j++) {
			int f = m->bform[j], k = st->fk[f], c = 0;
			for (int i = 0; i < k; i++)
				c += st->blk[st->fatom[(size_t)f * LS_K + i]] == b;
			if (c >= 2)
				st->iform[ni++] = f;
		}
	}
	st->ifirst[m->nblocks] = (int)ni;
	st->W = sh.w;
	st->nshape = sh.n;
	sh.w = NULL;
	rc = 0;
done:
	free(sh.w);
	free(sh.rep);
	free(sh.hash);
	free(sh.slot);
	free(stack);
	free(xs);
	return rc;
}

/* Per atom v the formulas whose other kept slots its changes move, as
 * edges in v's run of st->edge (pfirst), each a copy of what the move
 * reads, so that a change streams through its run; -1: out of memory. */
static int
propagation(const struct gb_model *m, struct lbg_state *st)
{
	size_t np = 0;

	if (!(st->pfirst = xcalloc((size_t)m->n + 1, sizeof *st->pfirst)))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		np = 0;
		for (int v = 0; v < m->n; v++) {
			st->pfirst[v] = (int)np;
			for (int q = m->afirst[v]; q < m->afirst[v + 1]; q++) {
				int f = m->aform[q], sv;
				const int *a = st->fatom + (size_t)f * LS_K;
				struct ls_edge *ed;
				if (!st->fext[f])
					continue;
				for (sv = 0; a[sv] != v; sv++)
					;
				if (!(st->fext[f] & ~(1u << sv)))
					continue;
				if (pass) {
					ed = &st->edge[np];
					ed->shape = st->fshape[f];
					memcpy(ed->atom, a, sizeof ed->atom);
					ed->k = st->fk[f];
					ed->sv = (unsigned char)sv;
					ed->ext = (unsigned char)(st->fext[f] &
					    ~(1u << sv));
				}
				np++;
			}
		}
		st->pfirst[m->n] = (int)np;
		if (!pass && !(st->edge = xcalloc(np + 1, sizeof *st->edge)))
			return -1;
	}
	return 0;
}

int
lbg_state_make(struct gb_model *m)
{
	size_t nf = m->g->gf.n + 1, nb = (size_t)m->nblocks + 1;
	struct lbg_state *st = xcalloc(1, sizeof *st);

	if (!st)
		return -1;
	st->fshape = xcalloc(nf, sizeof *st->fshape);
	st->fatom = xcalloc(nf * LS_K, sizeof *st->fatom);
	st->fk = xcalloc(nf, 1);
	st->fext = xcalloc(nf, 1);
	st->track = xcalloc((size_t)m->n + 1, 1);
	st->blk = xcalloc((size_t)m->n + 1, sizeof *st->blk);
	st->full = xcalloc(nb, 1);
	st->ifirst = xcalloc(nb, sizeof *st->ifirst);
	st->iform = xcalloc((size_t)m->ffirst[m->nblocks] + 1,
	    sizeof *st->iform);
	if (!st->fshape || !st->fatom || !st->fk || !st->fext || !st->track ||
	    !st->blk || !st->full || !st->ifirst || !st->iform ||
	    pick(m, st) < 0 || shape_all(m, st) < 0 || propagation(m, st) < 0) {
		lbg_state_free(st);
		return -1;
	}
	if (st->ntrack == 0) {
		lbg_state_free(st);
		st = NULL;
	}
	m->ls = st;
	return 0;
}

/* Formula f's pattern in x: bit i the value of its slot i. */
static unsigned
pattern(const struct lbg_state *st, int f, const unsigned char *x)
{
	const int *a = st->fatom + (size_t)f * LS_K;
	unsigned p = 0;

	for (int i = 0; i < st->fk[f]; i++)
		p |= (unsigned)x[a[i]] << i;
	return p;
}

/* The log-odds slot i's atom gets from table w at pattern p. */
static double
delta(const double *w, unsigned p, int i)
{
	return w[p | (1u << i)] - w[p & ~(1u << i)];
}

void
lbg_state_refresh(const struct gb_model *m, const unsigned char *x,
    double *L)
{
	const struct lbg_state *st = m->ls;

	for (int u = 0; u < m->n; u++)
		L[u] = 0;
	for (size_t f = 0; f < m->g->gf.n; f++) {
		unsigned e = st->fext[f], p;
		const double *w;
		if (!e)
			continue;
		p = pattern(st, (int)f, x);
		w = st->W + (size_t)st->fshape[f] * LS_W;
		for (int i = 0; e; i++, e >>= 1)
			if (e & 1)
				L[st->fatom[f * LS_K + (size_t)i]] += delta(w, p, i);
	}
}

void
lbg_state_flip(const struct gb_model *m, int v, const unsigned char *x,
    double *L)
{
	const struct lbg_state *st = m->ls;
	const struct ls_edge *ed = st->edge + st->pfirst[v];
	const struct ls_edge *end = st->edge + st->pfirst[v + 1];

	for (; ed < end; ed++) {
		const double *w = st->W + (size_t)ed->shape * LS_W;
		unsigned pn = 0, po, e = ed->ext;
		for (int i = 0; i < ed->k && i < LS_K; i++)
			pn |= (unsigned)x[ed->atom[i]] << i;
		po = pn ^ (1u << ed->sv);
		for (int i = 0; e; i++, e >>= 1)
			if (e & 1)
				L[ed->atom[i]] += delta(w, pn, i) - delta(w, po, i);
	}
}

void
lbg_state_block(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r)
{
	const struct lbg_state *st = m->ls;
	const int *a = m->batom + m->bfirst[b];
	const int *F = st->iform + st->ifirst[b];
	int k = m->bfirst[b + 1] - m->bfirst[b];
	int nf = st->ifirst[b + 1] - st->ifirst[b];

	for (uint32_t v = 0; v < (uint32_t)1 << k; v++) {
		double lw = 0;
		for (int i = 0; i < k; i++) {
			x[a[i]] = (unsigned char)((v >> i) & 1);
			if (x[a[i]])
				lw += s->L[a[i]];
		}
		for (int j = 0; j < nf; j++)
			lw += st->W[(size_t)st->fshape[F[j]] * LS_W +
			    pattern(st, F[j], x)];
		s->lw[v] = lw;
	}
	gb_draw_lw(a, k, s->lw, x, cur, r);
}

void
lbg_state_after(const struct gb_model *m, int b, unsigned char *x,
    struct gb_scratch *s)
{
	const int *a = m->batom + m->bfirst[b];
	int k = m->bfirst[b + 1] - m->bfirst[b], nc = 0;

	/* back to the old values, then each change in turn, so that every
	 * formula's old and new patterns are those of one change */
	for (int i = 0; i < k; i++)
		if (x[a[i]] != s->xold[i]) {
			s->xchg[nc++] = a[i];
			x[a[i]] = s->xold[i];
		}
	for (int j = 0; j < nc; j++) {
		x[s->xchg[j]] ^= 1;
		lbg_state_flip(m, s->xchg[j], x, s->L);
	}
}
