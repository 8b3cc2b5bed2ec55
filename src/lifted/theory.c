/* theory.c: builds the constrained theory from a clause model: blocks
 * (each constant named in a formula alone, the rest of its domain
 * together), clauses standardised apart with constants turned into
 * variables on singleton blocks, and equality literals turned into
 * constraints (the groundings they satisfy go to the constant).  Also the
 * brute-force grounding of a theory, the oracle of its meaning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "lifted/theory.h"

#define BRUTE_MAX 22  /* ground atoms of ct_brute */

/* Domain position of model constant c in type t, or -1. */
static int
dom_pos(const struct store_domain *dom, const struct mln_model *m, int t,
    int c)
{
	for (int i = 0; i < dom[t].n; i++)
		if (!strcmp(dom[t].names[i], m->consts.v[c]))
			return i;
	return -1;
}

/* Marks the constants named in n (as arguments of type known there). */
static void
mark_named(const struct mln_model *m, const struct mln_formula *f,
    const struct mln_node *n, const struct store_domain *dom, char **named)
{
	if (!n)
		return;
	if (n->kind == MLN_ATOM) {
		for (int i = 0; i < n->nargs; i++)
			if (n->args[i].var < 0) {
				int t = m->preds.v[n->pred].types[i];
				int p = dom_pos(dom, m, t, n->args[i].cst);
				if (p >= 0)
					named[t][p] = 1;
			}
	} else if (n->kind == MLN_EQ) {
		int t = n->args[0].var >= 0 ? f->vartypes[n->args[0].var] :
		    n->args[1].var >= 0 ? f->vartypes[n->args[1].var] : -1;
		for (int i = 0; i < 2 && t >= 0; i++)
			if (n->args[i].var < 0) {
				int p = dom_pos(dom, m, t, n->args[i].cst);
				if (p >= 0)
					named[t][p] = 1;
			}
	}
	mark_named(m, f, n->a, dom, named);
	mark_named(m, f, n->b, dom, named);
}

void
ct_free(struct ct_theory *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->clauses.n; i++) {
		struct ct_clause *c = &t->clauses.v[i];
		for (int k = 0; k < c->nlits; k++)
			free(c->lits[k].var);
		free(c->lits);
		free(c->type);
		si_set_free(&c->cons);
	}
	free(t->clauses.v);
	for (size_t p = 0; t->ev && p < t->m->preds.n; p++) {
		si_set_free(&t->ev[p].tru);
		si_set_free(&t->ev[p].fal);
	}
	free(t->ev);
	for (int k = 0; t->block_of && k < (int)t->m->types.n; k++)
		free(t->block_of[k]);
	free(t->block_of);
	si_space_free(t->sp);
	free(t);
}

/* The leaves of a clause (an OR tree). */
struct leaves {
	const struct mln_node *v[256];
	int neg[256];
	int n;
};

static int
collect(const struct mln_node *n, int neg, struct leaves *l)
{
	if (n->kind == MLN_OR && !neg)
		return collect(n->a, 0, l) < 0 ? -1 : collect(n->b, 0, l);
	if (n->kind == MLN_NOT)
		return collect(n->a, !neg, l);
	if (l->n == 256)
		return -1;
	l->v[l->n] = n;
	l->neg[l->n] = neg;
	l->n++;
	return 0;
}

/* Clause variable of a term: formula variables map through fv[], each
 * constant occurrence gets a fresh variable on its singleton block. */
struct cbuild {
	struct ct_theory *t;
	const struct mln_formula *f;
	int *fv;               /* formula var -> clause var, -1 */
	VEC(int) type;         /* clause var types */
	VEC(int) cblock;       /* clause var: singleton block or -1 */
};

static int
term_var(struct cbuild *b, const struct mln_term *x, int type)
{
	int blk;

	if (x->var >= 0)
		return b->fv[x->var];
	blk = b->t->block_of[type][dom_pos(b->t->dom, b->t->m, type, x->cst)];
	if (VEC_PUSH(b->type, type) < 0 || VEC_PUSH(b->cblock, blk) < 0)
		return -1;
	return (int)b->type.n - 1;
}

static double
set_count(const struct si_set *s, const struct si_space *sp)
{
	double n = 0;

	for (size_t i = 0; i < s->v.n && n >= 0; i++) {
		double k = si_count(s->v.v[i], sp);
		n = k < 0 ? -1 : n + k;
	}
	return n;
}

/* rest := rest with (a = b) (keep_eq) or (a != b); the part removed goes
 * to *gone (counted). */
static int
split_eq(struct si_set *rest, const struct si_space *sp, int a, int b,
    int keep_eq, double *gone)
{
	struct si_set next = { 0 };

	*gone = 0;
	for (size_t i = 0; i < rest->v.n; i++) {
		struct si_tuple *x = si_tuple_copy(rest->v.v[i]);
		struct si_tuple *y = si_tuple_copy(rest->v.v[i]);
		struct si_set tmp = { 0 };
		int rc = 0;
		if (!x || !y) {
			si_tuple_free(x);
			si_tuple_free(y);
			si_set_free(&next);
			return -1;
		}
		si_eq(x, a, b);
		rc = si_neq(y, a, b);
		if (!rc)
			rc = si_canon(keep_eq ? y : x, sp, &tmp);
		if (!rc) {
			double n = set_count(&tmp, sp);
			if (n < 0)
				rc = -1;
			else
				*gone += n;
		}
		si_set_free(&tmp);
		if (!rc)
			rc = si_canon(keep_eq ? x : y, sp, &next);
		si_tuple_free(x);
		si_tuple_free(y);
		if (rc) {
			si_set_free(&next);
			return -1;
		}
	}
	si_set_free(rest);
	*rest = next;
	return 0;
}

/* A live piece of a clause: some of its groundings and the literals still
 * undecided there (bit j: literal j). */
struct piece {
	struct si_tuple *t;
	uint64_t live;
};
struct pieces {
	struct piece *v;
	size_t n, cap;
};

static void
pieces_free(struct pieces *p)
{
	for (size_t i = 0; i < p->n; i++)
		si_tuple_free(p->v[i].t);
	free(p->v);
	memset(p, 0, sizeof *p);
}

static int
pieces_add(struct pieces *p, struct si_set *s, uint64_t live)
{
	for (size_t i = 0; i < s->v.n; i++) {
		struct piece x = { s->v.v[i], live };
		if (VEC_PUSH(*p, x) < 0)
			return -1;
		s->v.v[i] = NULL;
	}
	s->v.n = 0;
	return 0;
}

/* Do pieces a and b have the same undecided literals and constraints,
 * but for the blocks class v allows? */
static int
same_but(const struct piece *a, const struct piece *b, int v)
{
	const struct si_tuple *x = a->t, *y = b->t;
	size_t w = (size_t)x->nwords;

	if (a->live != b->live || x->nwords != y->nwords ||
	    x->nneq != y->nneq ||
	    (x->nvars && memcmp(x->rep, y->rep, (size_t)x->nvars *
	    sizeof *x->rep)) ||
	    (x->nneq && memcmp(x->neq, y->neq, (size_t)x->nneq *
	    sizeof *x->neq)))
		return 0;
	for (int u = 0; u < x->nvars; u++)
		if (u != v && x->rep[u] == u &&
		    memcmp(x->support + u * w, y->support + u * w,
		    w * sizeof *x->support))
			return 0;
	return 1;
}

/* Word by word (fnv1a byte by byte was most of the cost): the supports
 * are thousands of blocks wide and mostly zero. */
static uint64_t
hash_but(const struct piece *a, int v)
{
	const struct si_tuple *x = a->t;
	size_t w = (size_t)x->nwords;
	uint64_t h = hash_mix(FNV_INIT, a->live);

	for (int u = 0; u < x->nvars; u++)
		h = hash_mix(h, (uint64_t)x->rep[u]);
	for (int e = 0; e < x->nneq; e++)
		h = hash_mix(h, (uint64_t)x->neq[e][0] << 32 |
		    (uint64_t)x->neq[e][1]);
	for (int u = 0; u < x->nvars; u++)
		if (u != v && x->rep[u] == u)
			for (size_t k = 0; k < w; k++)
				if (x->support[u * w + k])
					h = hash_mix(h, x->support[u * w + k] ^
					    (k << 8 | (size_t)u));
	return h;
}

/* Merges pieces that differ only in the blocks of one class (in no
 * inequality): x ^ v in A and x ^ v in B, disjoint, become x ^ v in A|B.
 * The cubes of one atom split the values of an argument as they were
 * built (Cora: a paper's false categories lie in several cubes), and
 * without merging every later literal splits each part again. */
static int
merge_pieces(struct pieces *p)
{
	size_t cap = 16, n;
	int *slot;

	if (p->n < 2)
		return 0;
	while (cap < 2 * p->n)
		cap *= 2;
	if (!(slot = xmalloc(cap * sizeof *slot)))
		return -1;
	for (int v = 0; v < p->v[0].t->nvars; v++) {
		memset(slot, -1, cap * sizeof *slot);
		for (size_t i = 0; i < p->n; i++) {
			struct si_tuple *x = p->v[i].t;
			size_t h;
			int used = 0;
			if (x->rep[v] != v)
				continue;
			for (int e = 0; e < x->nneq && !used; e++)
				used = x->neq[e][0] == v || x->neq[e][1] == v;
			if (used)
				continue;
			h = (size_t)hash_but(&p->v[i], v) & (cap - 1);
			for (; slot[h] >= 0; h = (h + 1) & (cap - 1))
				if (same_but(&p->v[slot[h]], &p->v[i], v))
					break;
			if (slot[h] < 0) {
				slot[h] = (int)i;
				continue;
			}
			for (int k = 0; k < x->nwords; k++) {
				size_t at = (size_t)v * x->nwords + (size_t)k;
				p->v[slot[h]].t->support[at] |= x->support[at];
			}
			si_tuple_free(x);
			p->v[i].t = NULL;
		}
		n = 0;
		for (size_t i = 0; i < p->n; i++)
			if (p->v[i].t)
				p->v[n++] = p->v[i];
		p->n = n;
	}
	free(slot);
	return 0;
}

/* The predicate tuple e (no equalities) put on the literal's variables
 * of a clause tuple shape like t: the groundings whose atom is in e. */
static struct si_tuple *
lift(const struct si_tuple *t, const struct si_space *sp,
    const struct ct_lit *l, const struct si_tuple *e, int arity)
{
	struct si_tuple *x = si_tuple_copy(t);

	(void)sp;
	if (!x)
		return NULL;
	for (int i = 0; i < arity; i++)
		si_in(x, l->var[i], e->support + (size_t)e->rep[i] * e->nwords);
	return x;
}

/* The evidence of every predicate indexed by block, made when a clause
 * first needs it: a clause piece meets few of the thousands of cubes of
 * an atom, and trying them all made folding quadratic. */
struct fold_ctx {
	struct si_index **ix;  /* per predicate: [2p] true, [2p + 1] false */
	struct si_ids near[2]; /* the true and false cubes that can meet */
	VEC(const struct si_tuple *) cubes;  /* of both, for outside() */
};

static void
fold_ctx_free(struct fold_ctx *fc, size_t npreds)
{
	for (size_t k = 0; fc->ix && k < 2 * npreds; k++)
		si_index_free(fc->ix[k]);
	free(fc->ix);
	free(fc->near[0].v);
	free(fc->near[1].v);
	free(fc->cubes.v);
}

/* fc->near[w] := the cubes of the literal's true (w = 0) or false (1)
 * evidence that can meet x. */
static int
near_cubes(struct fold_ctx *fc, const struct ct_theory *t,
    const struct ct_lit *l, int w, const struct si_tuple *x)
{
	const struct si_set *set = w ? &t->ev[l->pred].fal : &t->ev[l->pred].tru;
	struct si_index **ix = &fc->ix[2 * (size_t)l->pred + (size_t)w];

	fc->near[w].n = 0;
	if (set->v.n == 0)
		return 0;
	if (!*ix && !(*ix = si_index_new(set, t->sp)))
		return -1;
	return si_index_meets(*ix, x, l->var, &fc->near[w]);
}

/* out gets t and (the union of) the tuples ids of set, as canonical
 * disjoint tuples (the cubes are disjoint). */
static int
meet(const struct si_tuple *t, const struct si_space *sp,
    const struct ct_lit *l, const struct si_set *set,
    const struct si_ids *ids, int arity, struct si_set *out)
{
	for (size_t i = 0; i < ids->n; i++) {
		struct si_tuple *x = lift(t, sp, l, set->v.v[ids->v[i]], arity);
		int rc = x ? si_canon(x, sp, out) : -1;
		si_tuple_free(x);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Block b of the argument at hand is allowed by cube k. */
struct bk {
	int b, k;
};

static int
bk_cmp(const void *a, const void *b)
{
	const struct bk *x = a, *y = b;

	if (x->b != y->b)
		return (x->b > y->b) - (x->b < y->b);
	return (x->k > y->k) - (x->k < y->k);
}

/* The cubes (ascending) that allow block b. */
struct krun {
	const int *k;
	int n, b;
};

static int
krun_cmp(const void *a, const void *b)
{
	const struct krun *x = a, *y = b;

	if (x->n != y->n)
		return (x->n > y->n) - (x->n < y->n);
	for (int i = 0; i < x->n; i++)
		if (x->k[i] != y->k[i])
			return (x->k[i] > y->k[i]) - (x->k[i] < y->k[i]);
	return (x->b > y->b) - (x->b < y->b);
}

/* out gets the groundings of t whose atom of literal l lies in none of
 * the n disjoint cubes, as disjoint canonical pieces; -1 out of memory
 * or past deadline (0: none).  Argument by argument from i: the blocks
 * argument i may take are grouped by the cubes that allow them; those in
 * no cube give one piece, those allowed by the same cubes one piece
 * each, on which the remaining arguments must escape just these cubes.
 * So the pieces follow the cubes' own structure, where subtracting the
 * cubes one by one split every piece by every cube. */
static int
outside(const struct si_tuple *t, const struct si_space *sp,
    const struct ct_lit *l, int arity, const struct si_tuple *const *cube,
    size_t n, int i, struct si_set *out, double deadline)
{
	VEC(struct bk) bk = { 0 };
	int *ks = NULL, nw = t->nwords, rc = -1;
	struct krun *runs = NULL;
	size_t nruns = 0;
	uint64_t *mask = NULL;
	struct si_tuple *y = NULL;
	const uint64_t *s;

	if (n == 0)
		return si_canon(t, sp, out);
	if (i == arity)
		return 0;  /* in every cube left */
	if (deadline > 0 && now_seconds() > deadline)
		return -1;
	s = t->support + (size_t)t->rep[l->var[i]] * nw;
	for (size_t k = 0; k < n; k++) {
		const struct si_tuple *c = cube[k];
		const uint64_t *side = c->support + (size_t)c->rep[i] * c->nwords;
		for (int w = 0; w < nw && w < c->nwords; w++)
			for (uint64_t x = side[w] & s[w]; x; x &= x - 1) {
				struct bk e = { w * 64 + __builtin_ctzll(x),
				    (int)k };
				if (VEC_PUSH(bk, e) < 0)
					goto done;
			}
	}
	if (bk.n > 1)
		qsort(bk.v, bk.n, sizeof *bk.v, bk_cmp);
	/* the blocks in no cube */
	if (!(mask = xcalloc((size_t)nw + 1, sizeof *mask)) ||
	    !(y = si_tuple_copy(t)))
		goto done;
	for (size_t m = 0; m < bk.n; m++)
		mask[bk.v[m].b / 64] |= (uint64_t)1 << (bk.v[m].b % 64);
	si_not_in(y, l->var[i], mask);
	if (si_canon(y, sp, out) < 0)
		goto done;
	if (i + 1 == arity || bk.n == 0) {
		rc = 0;  /* the blocks in some cube are inside it */
		goto done;
	}
	/* the blocks allowed by the same cubes, together */
	if (!(ks = xmalloc((bk.n + 1) * sizeof *ks)) ||
	    !(runs = xmalloc((bk.n + 1) * sizeof *runs)))
		goto done;
	for (size_t m = 0; m < bk.n; m++) {
		ks[m] = bk.v[m].k;
		if (m == 0 || bk.v[m].b != bk.v[m - 1].b) {
			runs[nruns].k = ks + m;
			runs[nruns].n = 0;
			runs[nruns].b = bk.v[m].b;
			nruns++;
		}
		runs[nruns - 1].n++;
	}
	if (nruns > 1)
		qsort(runs, nruns, sizeof *runs, krun_cmp);
	for (size_t g = 0; g < nruns;) {
		const struct si_tuple **sub;
		size_t h = g;
		int r;
		memset(mask, 0, (size_t)nw * sizeof *mask);
		for (; h < nruns && runs[h].n == runs[g].n &&
		    (runs[g].n == 0 || !memcmp(runs[h].k, runs[g].k,
		    (size_t)runs[g].n * sizeof(int)));
		    h++)
			mask[runs[h].b / 64] |= (uint64_t)1 << (runs[h].b % 64);
		if (!(sub = xmalloc(((size_t)runs[g].n + 1) * sizeof *sub)))
			goto done;
		for (int q = 0; q < runs[g].n; q++)
			sub[q] = cube[runs[g].k[q]];
		memcpy(y->support, t->support, (size_t)t->nvars * nw *
		    sizeof *y->support);
		si_in(y, l->var[i], mask);
		r = outside(y, sp, l, arity, sub, (size_t)runs[g].n, i + 1, out,
		    deadline);
		free(sub);
		if (r < 0)
			goto done;
		g = h;
	}
	rc = 0;
done:
	si_tuple_free(y);
	free(mask);
	free(runs);
	free(ks);
	free(bk.v);
	return rc;
}

/* outside() of the cubes in fc->near (true and false): the groundings
 * of x whose atom of l is not evidence. */
static int
outside_near(struct fold_ctx *fc, const struct ct_theory *t,
    const struct ct_lit *l, const struct si_tuple *x, int arity,
    struct si_set *out)
{
	fc->cubes.n = 0;
	for (int w = 0; w < 2; w++) {
		const struct si_set *set = w ? &t->ev[l->pred].fal :
		    &t->ev[l->pred].tru;
		for (size_t k = 0; k < fc->near[w].n; k++)
			if (VEC_PUSH(fc->cubes, set->v.v[fc->near[w].v[k]]) < 0)
				return -1;
	}
	return outside(x, t->sp, l, arity, fc->cubes.v, fc->cubes.n, 0, out,
	    t->deadline);
}

/* Folds the evidence into clause c: adds the weights of the groundings it
 * satisfies to *konst, and appends to out the clauses left, one for each
 * set of undecided literals.  *zero is set when a hard clause is false
 * by evidence for some grounding. */
static int
fold(struct ct_theory *t, struct fold_ctx *fc, const struct ct_clause *c,
    double *konst, int *zero, struct ct_clauses *out)
{
	struct pieces cur = { 0 }, next = { 0 };
	uint64_t all = c->nlits >= 64 ? ~(uint64_t)0 :
	    (((uint64_t)1 << c->nlits) - 1);
	int rc = -1;

	for (size_t i = 0; i < c->cons.v.n; i++) {
		struct piece x = { si_tuple_copy(c->cons.v.v[i]), all };
		if (!x.t || VEC_PUSH(cur, x) < 0) {
			si_tuple_free(x.t);
			goto done;
		}
	}
	for (int j = 0; j < c->nlits && j < 64; j++) {
		const struct ct_lit *l = &c->lits[j];
		const struct ct_ev *ev = &t->ev[l->pred];
		int ar = t->m->preds.v[l->pred].arity;
		for (size_t i = 0; i < cur.n; i++) {
			struct si_set sat = { 0 }, fal = { 0 }, rest = { 0 };
			const struct si_tuple *x = cur.v[i].t;
			if (t->deadline > 0 && (i & 15) == 0 && now_seconds() > t->deadline) {
				rc = -2;
				goto done;
			}
			uint64_t live = cur.v[i].live, off = live & ~((uint64_t)1 << j);
			const struct si_set *tru = &ev->tru, *fl = &ev->fal;
			double nsat = 0;
			int r;
			fc->near[1].n = 0;
			r = near_cubes(fc, t, l, 0, x) ||
			    (!ev->closed && near_cubes(fc, t, l, 1, x));
			if (!r && ev->closed && l->neg) {
				/* satisfied where the atom is not true: all but
				 * the groundings where it is */
				r = meet(x, t->sp, l, tru, &fc->near[0], ar, &fal);
				if (!r) {
					double n = si_count(x, t->sp);
					double f = set_count(&fal, t->sp);
					nsat = n < 0 || f < 0 ? -1 : n - f;
				}
			} else if (!r && ev->closed) {
				/* not true is false */
				r = meet(x, t->sp, l, tru, &fc->near[0], ar,
				    &sat) || outside_near(fc, t, l, x, ar, &fal);
				if (!r)
					nsat = set_count(&sat, t->sp);
			} else if (!r) {
				r = meet(x, t->sp, l, l->neg ? fl : tru,
				    &fc->near[l->neg ? 1 : 0], ar, &sat) ||
				    meet(x, t->sp, l, l->neg ? tru : fl,
				    &fc->near[l->neg ? 0 : 1], ar, &fal) ||
				    outside_near(fc, t, l, x, ar, &rest);
				if (!r)
					nsat = set_count(&sat, t->sp);
			}
			if (!r && nsat < 0)
				r = 1;  /* out of memory */
			if (!r && !c->hard)
				*konst += c->weight * nsat;
			if (!r)
				r = pieces_add(&next, &fal, off) ||
				    pieces_add(&next, &rest, live);
			si_set_free(&sat);
			si_set_free(&fal);
			si_set_free(&rest);
			if (r) {
				if (t->deadline > 0 && now_seconds() > t->deadline)
					rc = -2;
				goto done;
			}
		}
		pieces_free(&cur);
		cur = next;
		memset(&next, 0, sizeof next);
		if (merge_pieces(&cur) < 0)
			goto done;
	}
	/* group the pieces by their undecided literals */
	for (size_t i = 0; i < cur.n; i++) {
		struct ct_clause d = { 0 };
		uint64_t live = cur.v[i].live;
		int k = 0, oom = 0;
		if (!cur.v[i].t)
			continue;
		if (live == 0) {
			/* false by evidence for these groundings */
			double n = c->hard ? si_count(cur.v[i].t, t->sp) : 0;
			if (n < 0)
				goto done;
			if (n > 0)
				*zero = 1;
			continue;
		}
		d = *c;
		d.cons.v.v = NULL;
		d.cons.v.n = d.cons.v.cap = 0;
		d.nlits = 0;
		for (int j = 0; j < c->nlits; j++)
			d.nlits += (int)((live >> j) & 1);
		if (!(d.type = xmalloc(((size_t)c->nvars + 1) * sizeof *d.type)) ||
		    !(d.lits = xcalloc((size_t)d.nlits + 1, sizeof *d.lits))) {
			free(d.type);
			goto done;
		}
		if (c->nvars)
			memcpy(d.type, c->type, (size_t)c->nvars * sizeof *d.type);
		for (int j = 0; j < c->nlits; j++) {
			int ar = t->m->preds.v[c->lits[j].pred].arity;
			if (!((live >> j) & 1))
				continue;
			d.lits[k] = c->lits[j];
			d.lits[k].var = xmalloc(((size_t)ar + 1) * sizeof(int));
			if (!d.lits[k].var)
				break;
			if (ar)
				memcpy(d.lits[k].var, c->lits[j].var,
				    (size_t)ar * sizeof(int));
			k++;
		}
		for (size_t i2 = i; i2 < cur.n && k == d.nlits && !oom; i2++)
			if (cur.v[i2].t && cur.v[i2].live == live) {
				if (VEC_PUSH(d.cons.v, cur.v[i2].t) < 0)
					oom = 1;
				else
					cur.v[i2].t = NULL;
			}
		/* pushed only whole: what failed is freed here, once */
		if (k < d.nlits || oom || VEC_PUSH(*out, d) < 0) {
			for (int j = 0; j < k; j++)
				free(d.lits[j].var);
			free(d.lits);
			free(d.type);
			si_set_free(&d.cons);
			goto done;
		}
	}
	rc = 0;
done:
	pieces_free(&cur);
	pieces_free(&next);
	return rc;
}

static int
build_clause(struct ct_theory *t, struct fold_ctx *fc,
    const struct mln_formula *f, int *zero, struct err *e)
{
	struct cbuild b = { t, f, NULL, { 0 }, { 0 } };
	struct ct_clause c = { 0 };
	struct leaves l = { { 0 }, { 0 }, 0 };
	struct si_tuple *tu = NULL;
	VEC(struct ct_lit) lits = { 0 };
	int rc = 0, always = 0;

	c.weight = f->weight;
	c.hard = f->hard;
	c.line = f->line;
	if (collect(f->root, 0, &l) < 0)
		return err_set(e, SQLIFT_ELIMIT, "a clause with more than 256 "
		    "literals");
	if (!(b.fv = xcalloc((size_t)f->nvars + 1, sizeof *b.fv)))
		return err_oom(e);
	for (int v = 0; v < f->nvars; v++) {
		b.fv[v] = -1;
		if (!f->free[v])
			continue;
		if (VEC_PUSH(b.type, f->vartypes[v]) < 0 ||
		    VEC_PUSH(b.cblock, -1) < 0)
			goto oom;
		b.fv[v] = (int)b.type.n - 1;
	}
	/* atoms become literals over clause variables */
	for (int i = 0; i < l.n; i++) {
		const struct mln_node *n = l.v[i];
		struct ct_lit lit = { 0 };
		if (n->kind == MLN_TRUE)
			always |= !l.neg[i];
		if (n->kind == MLN_FALSE)
			always |= l.neg[i];
		if (n->kind != MLN_ATOM)
			continue;
		lit.pred = n->pred;
		lit.neg = l.neg[i];
		if (!(lit.var = xcalloc((size_t)n->nargs + 1, sizeof *lit.var)))
			goto oom;
		for (int k = 0; k < n->nargs; k++)
			if ((lit.var[k] = term_var(&b, &n->args[k],
			    t->m->preds.v[n->pred].types[k])) < 0) {
				free(lit.var);
				goto oom;
			}
		if (VEC_PUSH(lits, lit) < 0) {
			free(lit.var);
			goto oom;
		}
	}
	/* equality literals: their variables (constants get theirs too) */
	{
		int eqa[256], eqb[256], eqneg[256], neq = 0;
		for (int i = 0; i < l.n; i++) {
			const struct mln_node *n = l.v[i];
			int ty;
			if (n->kind != MLN_EQ)
				continue;
			ty = n->args[0].var >= 0 ? f->vartypes[n->args[0].var] :
			    n->args[1].var >= 0 ? f->vartypes[n->args[1].var] : -1;
			if (ty < 0) {
				/* two constants: decided now */
				int same = !strcmp(t->m->consts.v[n->args[0].cst],
				    t->m->consts.v[n->args[1].cst]);
				always |= same != l.neg[i];
				continue;
			}
			if ((eqa[neq] = term_var(&b, &n->args[0], ty)) < 0 ||
			    (eqb[neq] = term_var(&b, &n->args[1], ty)) < 0)
				goto oom;
			eqneg[neq++] = l.neg[i];
		}
		c.nvars = (int)b.type.n;
		c.type = b.type.v;
		b.type.v = NULL;
		if (c.nvars > 64) {
			/* the lifted code keeps per-variable arrays of 64 */
			rc = err_set(e, SQLIFT_ELIMIT, "%s:%d: a clause with %d "
			    "variables (each constant counts as one); the lifted "
			    "methods handle at most 64", t->m->file ? t->m->file :
			    "model", f->line, c.nvars);
			goto done_owned;
		}
		if (!(tu = si_tuple_new(t->sp, c.nvars, c.type)))
			goto oom;
		for (int v = 0; v < c.nvars; v++)
			if (b.cblock.v[v] >= 0)
				si_in_block(tu, v, b.cblock.v[v]);
		if (si_canon(tu, t->sp, &c.cons) < 0)
			goto oom;
		if (always) {
			/* true for every grounding */
			double n = c.hard ? 0 : set_count(&c.cons, t->sp);
			if (n < 0)
				goto oom;
			t->log_const += c.weight * n;
			goto skip;
		}
		for (int k = 0; k < neq; k++) {
			double gone;
			/* (a = b) satisfies where a = b: keep a != b; !(a = b)
			 * satisfies where a != b: keep a = b */
			if (split_eq(&c.cons, t->sp, eqa[k], eqb[k], eqneg[k],
			    &gone) < 0)
				goto oom;
			if (!c.hard)
				t->log_const += c.weight * gone;
		}
	}
	if (c.cons.v.n == 0)
		goto skip;
	if (lits.n == 0) {
		/* false for the groundings left */
		double n = c.hard ? set_count(&c.cons, t->sp) : 0;
		if (n < 0)
			goto oom;
		if (n > 0)
			*zero = 1;
		goto skip;
	}
	c.nlits = (int)lits.n;
	c.lits = lits.v;
	lits.v = NULL;
	lits.n = 0;
	if ((rc = fold(t, fc, &c, &t->log_const, zero, &t->clauses)) < 0) {
		rc = rc == -2 ? err_set(e, SQLIFT_ELIMIT, "%s:%d: folding the "
		    "evidence into this formula stopped at --max-seconds: the "
		    "evidence splits the domains into too many blocks",
		    t->m->file ? t->m->file : "model", f->line) : err_oom(e);
		goto done_owned;
	}
	goto done_owned;  /* fold made the clauses that stay */
skip:
	si_set_free(&c.cons);
	free(c.type);
	goto done;
oom:
	rc = err_oom(e);
done_owned:
	for (int k = 0; k < c.nlits; k++)
		free(c.lits[k].var);
	free(c.lits);
	c.lits = NULL;
	c.nlits = 0;
	si_set_free(&c.cons);
	free(c.type);
done:
	for (size_t k = 0; k < lits.n; k++)
		free(lits.v[k].var);
	free(lits.v);
	si_tuple_free(tu);
	free(b.fv);
	free(b.type.v);
	free(b.cblock.v);
	return rc;
}

/* The groundings of clause tuple x, projected onto the arguments of
 * literal l: tuples over the predicate's arguments, appended to out. */
static int
project_lit(const struct ct_theory *t, const struct si_tuple *x,
    const struct ct_lit *l, struct si_set *out)
{
	const struct mln_pred *p = &t->m->preds.v[l->pred];
	struct si_set cur = { 0 }, next = { 0 };
	struct si_ext ext = { 0 };
	int keep[64] = { 0 }, rank[64], rc = -1, nk = 0;
	struct si_tuple *c = si_tuple_copy(x);

	if (!c || x->nvars > 64 || VEC_PUSH(cur.v, c) < 0) {
		si_tuple_free(c);
		goto done;
	}
	for (int i = 0; i < p->arity; i++)
		keep[l->var[i]] = 1;
	for (int v = x->nvars - 1; v >= 0; v--) {
		if (keep[v])
			continue;
		for (size_t k = 0; k < cur.v.n; k++)
			if (si_project(cur.v.v[k], t->sp, v, &next, &ext) < 0)
				goto done;
		si_set_free(&cur);
		cur = next;
		memset(&next, 0, sizeof next);
	}
	for (int v = 0; v < x->nvars; v++)
		rank[v] = keep[v] ? nk++ : -1;
	for (size_t k = 0; k < cur.v.n; k++) {
		const struct si_tuple *q = cur.v.v[k];
		struct si_tuple *a = si_tuple_new(t->sp, p->arity, p->types);
		int first[64];
		if (!a)
			goto done;
		for (int r = 0; r < nk; r++)
			first[r] = -1;
		for (int i = 0; i < p->arity; i++) {
			int r = rank[l->var[i]];
			si_in(a, i, q->support + (size_t)q->rep[r] * q->nwords);
			if (first[r] < 0)
				first[r] = i;
			else
				si_eq(a, i, first[r]);
		}
		for (int r = 0; r < nk; r++)
			if (q->rep[r] != r)
				si_eq(a, first[r], first[q->rep[r]]);
		for (int e2 = 0; e2 < q->nneq; e2++)
			if (si_neq(a, first[q->neq[e2][0]], first[q->neq[e2][1]]) < 0) {
				si_tuple_free(a);
				goto done;
			}
		if (VEC_PUSH(out->v, a) < 0) {
			si_tuple_free(a);
			goto done;
		}
	}
	rc = 0;
done:
	free(ext.v);
	si_set_free(&cur);
	si_set_free(&next);
	return rc;
}

/* Unknown atoms that no clause mentions: per open predicate, its unknown
 * atoms minus the union of the clauses' projections onto its literals. */
static int
count_free(struct ct_theory *t)
{
	t->free_atoms = 0;
	for (size_t p = 0; p < t->m->preds.n; p++) {
		const struct mln_pred *mp = &t->m->preds.v[p];
		struct si_set covered = { 0 };
		double all = 1, known, used;
		if (t->ev[p].closed)
			continue;
		for (int i = 0; i < mp->arity; i++) {
			double n = 0;
			for (int b = 0; b < t->sp->nblocks[mp->types[i]]; b++)
				n += (double)t->sp->size[mp->types[i]][b];
			all *= n;
		}
		known = set_count(&t->ev[p].tru, t->sp);
		if (known < 0 || (used = set_count(&t->ev[p].fal, t->sp)) < 0)
			return -1;
		known += used;
		for (size_t k = 0; k < t->clauses.n; k++) {
			const struct ct_clause *c = &t->clauses.v[k];
			for (int j = 0; j < c->nlits; j++) {
				if (c->lits[j].pred != (int)p)
					continue;
				for (size_t q = 0; q < c->cons.v.n; q++)
					if (project_lit(t, c->cons.v.v[q], &c->lits[j],
					    &covered) < 0) {
						si_set_free(&covered);
						return -1;
					}
			}
		}
		used = covered.v.n ? si_set_count(&covered, t->sp) : 0;
		si_set_free(&covered);
		if (used < 0)
			return -1;
		t->free_atoms += all - known - used;
	}
	return 0;
}

/* The evidence of every predicate as tuples over its arguments. */
static int
ev_sets(struct ct_theory *t, const struct ct_evidence *ev, struct err *e)
{
	const struct mln_model *m = t->m;

	if (!(t->ev = xcalloc(m->preds.n + 1, sizeof *t->ev)))
		return err_oom(e);
	for (size_t p = 0; ev && p < m->preds.n; p++) {
		const struct ct_pred_ev *pe = &ev->pred[p];
		const struct mln_pred *mp = &m->preds.v[p];
		t->ev[p].closed = pe->closed;
		for (size_t k = 0; k < pe->cubes.n; k++) {
			const struct ct_cube *cu = &pe->cubes.v[k];
			struct si_tuple *x = si_tuple_new(t->sp, mp->arity, mp->types);
			if (!x)
				return err_oom(e);
			for (int i = 0; i < mp->arity; i++) {
				uint64_t *bits = x->support + (size_t)i * x->nwords;
				memset(bits, 0, (size_t)x->nwords * sizeof *bits);
				for (int q = 0; q < cu->npos[i]; q++) {
					int b = t->block_of[mp->types[i]][cu->pos[i][q]];
					bits[b / 64] |= (uint64_t)1 << (b % 64);
				}
			}
			struct si_set *dst = cu->truth ? &t->ev[p].tru : &t->ev[p].fal;
			if (VEC_PUSH(dst->v, x) < 0) {
				si_tuple_free(x);
				return err_oom(e);
			}
		}
	}
	return 0;
}

void
ct_evidence_free(struct ct_evidence *ev, int ntypes, int npreds)
{
	if (!ev)
		return;
	for (int k = 0; ev->block && k < ntypes; k++)
		free(ev->block[k]);
	free(ev->block);
	for (int p = 0; ev->pred && p < npreds; p++) {
		for (size_t c = 0; c < ev->pred[p].cubes.n; c++) {
			struct ct_cube *cu = &ev->pred[p].cubes.v[c];
			for (int i = 0; cu->pos && i < cu->nargs; i++)
				free(cu->pos[i]);
			free(cu->pos);
			free(cu->npos);
		}
		free(ev->pred[p].cubes.v);
	}
	free(ev->pred);
	free(ev);
}

int
ct_build(const struct mln_model *m, const struct store_domain *dom,
    const struct ct_evidence *ev, struct ct_theory **out, struct err *e)
{
	struct ct_theory *t = xcalloc(1, sizeof *t);
	char **named = NULL;
	struct fold_ctx fc = { 0 };
	int nt = (int)m->types.n, rc = 0, zero = 0;

	*out = NULL;
	if (!t)
		return err_oom(e);
	t->m = m;  /* before any goto done: ct_free reads it */
	if (!(t->sp = si_space_new(nt)) ||
	    !(t->block_of = xcalloc((size_t)nt + 1, sizeof *t->block_of)) ||
	    !(named = xcalloc((size_t)nt + 1, sizeof *named))) {
		rc = err_oom(e);
		goto done;
	}
	if (ev && ev->max_seconds > 0)
		t->deadline = now_seconds() + ev->max_seconds;
	t->dom = dom;
	for (int k = 0; k < nt; k++)
		if (!(named[k] = xcalloc((size_t)dom[k].n + 1, 1)) ||
		    !(t->block_of[k] = xcalloc((size_t)dom[k].n + 1, sizeof(int)))) {
			rc = err_oom(e);
			goto done;
		}
	for (size_t i = 0; i < m->formulas.n; i++)
		mark_named(m, &m->formulas.v[i], m->formulas.v[i].root, dom, named);
	/* the Normal form: every constant in a formula or in the evidence
	 * alone, the others of a type together (Mittal et al., 4.4) */
	for (size_t p = 0; ev && ev->normal == 1 && p < m->preds.n; p++)
		for (size_t c = 0; c < ev->pred[p].cubes.n; c++) {
			const struct ct_cube *cu = &ev->pred[p].cubes.v[c];
			for (int i = 0; i < cu->nargs; i++)
				for (int j = 0; j < cu->npos[i]; j++)
					named[m->preds.v[p].types[i]][cu->pos[i][j]] = 1;
		}
	/* blocks: each named constant alone; the others by evidence block */
	for (int k = 0; k < nt && !rc; k++) {
		struct smap by;
		smap_init(&by);
		for (int p = 0; p < dom[k].n && !rc; p++) {
			char key[32];
			int blk;
			if (named[k][p] || (ev && ev->normal == CT_GROUND))
				snprintf(key, sizeof key, "n%d", p);
			else if (ev && ev->normal == 1)
				snprintf(key, sizeof key, "rest");
			else
				snprintf(key, sizeof key, "e%d", ev ? ev->block[k][p] : 0);
			if ((blk = smap_get(&by, key)) < 0) {
				if ((blk = si_space_add_block(t->sp, k, 0)) < 0 ||
				    smap_put(&by, key, blk) < 0) {
					rc = err_oom(e);
					break;
				}
			}
			t->block_of[k][p] = blk;
			t->sp->size[k][blk]++;
		}
		smap_free(&by);
	}
	if (!rc)
		rc = ev_sets(t, ev, e);
	if (!rc && !(fc.ix = xcalloc(2 * m->preds.n + 1, sizeof *fc.ix)))
		rc = err_oom(e);
	for (size_t i = 0; i < m->formulas.n && !rc; i++)
		rc = build_clause(t, &fc, &m->formulas.v[i], &zero, e);
	if (!rc && zero)
		rc = err_set(e, SQLIFT_EZERO, "Z = 0: the evidence violates a hard "
		    "formula, or a hard formula is false whatever the world");
	if (!rc && count_free(t) < 0)
		rc = err_oom(e);
done:
	fold_ctx_free(&fc, m->preds.n);
	for (int k = 0; named && k < nt; k++)
		free(named[k]);
	free(named);
	if (rc) {
		ct_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* Brute force on the theory: type t's constants are 0..N_t-1, block b
 * holding a run of size[t][b] of them. */
struct gclause {
	double w;
	int hard;
	int n;
	int atom[32], neg[32];
};

struct gvec {
	struct gclause *v;
	size_t n, cap;
};

static int
enum_tuple(const struct ct_theory *t, const struct ct_clause *c,
    const struct si_tuple *tu, int **blk, const int *ntc, int v, int *val,
    struct gvec *out)
{
	if (v == c->nvars) {
		struct gclause g = { c->weight, c->hard, c->nlits, { 0 }, { 0 } };
		for (int e = 0; e < tu->nneq; e++)
			if (val[tu->neq[e][0]] == val[tu->neq[e][1]])
				return 0;
		for (int u = 0; u < c->nvars; u++)
			if (val[u] != val[tu->rep[u]])
				return 0;
		if (c->nlits > 32)
			return -1;
		for (int k = 0; k < c->nlits; k++) {
			const struct ct_lit *l = &c->lits[k];
			const struct mln_pred *p = &t->m->preds.v[l->pred];
			int a = 0;
			for (int i = 0; i < p->arity; i++)
				a = a * ntc[p->types[i]] + val[l->var[i]];
			g.atom[k] = a;  /* offset added by the caller */
			g.neg[k] = l->neg;
		}
		return VEC_PUSH(*out, g);
	}
	for (int x = 0; x < ntc[c->type[v]]; x++) {
		if (!si_has(tu, v, blk[c->type[v]][x]))
			continue;
		val[v] = x;
		if (enum_tuple(t, c, tu, blk, ntc, v + 1, val, out) < 0)
			return -1;
	}
	return 0;
}

int
ct_brute(const struct ct_theory *t, double *log_z, double *free_atoms,
    struct err *e)
{
	int nt = (int)t->m->types.n, np = (int)t->m->preds.n, rc = 0;
	int *ntc = xcalloc((size_t)nt + 1, sizeof *ntc);
	int **blk = xcalloc((size_t)nt + 1, sizeof *blk);
	int64_t *off = xcalloc((size_t)np + 1, sizeof *off), natoms = 0;
	int *bit = NULL, nbits = 0;
	struct gvec g = { 0 };
	double max = -INFINITY;
	long double sum = 0;

	if (!ntc || !blk || !off) {
		rc = err_oom(e);
		goto done;
	}
	for (int k = 0; k < nt; k++) {
		int x = 0;
		for (int b = 0; b < t->sp->nblocks[k]; b++)
			ntc[k] += (int)t->sp->size[k][b];
		if (!(blk[k] = xcalloc((size_t)ntc[k] + 1, sizeof **blk))) {
			rc = err_oom(e);
			goto done;
		}
		for (int b = 0; b < t->sp->nblocks[k]; b++)
			for (int64_t i = 0; i < t->sp->size[k][b]; i++)
				blk[k][x++] = b;
	}
	for (int p = 0; p < np; p++) {
		int64_t n = 1;
		for (int i = 0; i < t->m->preds.v[p].arity; i++)
			n *= ntc[t->m->preds.v[p].types[i]];
		off[p] = natoms;
		natoms += n;
	}
	/* bits for the unknown atoms only: not closed, in no evidence cube */
	if (natoms > 4096 || !(bit = xmalloc(((size_t)natoms + 1) * sizeof *bit))) {
		rc = natoms > 4096 ? err_set(e, SQLIFT_ELIMIT, "theory brute "
		    "force: %lld atoms", (long long)natoms) : err_oom(e);
		goto done;
	}
	for (int p = 0; p < np; p++) {
		const struct mln_pred *mp = &t->m->preds.v[p];
		for (int64_t a = off[p]; a < (p + 1 < np ? off[p + 1] : natoms); a++) {
			int pos[64], unknown = !t->ev[p].closed;
			int64_t r = a - off[p];
			for (int i = mp->arity - 1; i >= 0; i--) {
				pos[i] = (int)(r % ntc[mp->types[i]]);
				r /= ntc[mp->types[i]];
			}
			for (int w = 0; w < 2 && unknown; w++) {
				const struct si_set *set = w ? &t->ev[p].fal : &t->ev[p].tru;
				for (size_t k = 0; k < set->v.n && unknown; k++) {
					int in = 1;
					for (int i = 0; i < mp->arity && in; i++)
						in = si_has(set->v.v[k], i,
						    blk[mp->types[i]][pos[i]]);
					unknown = !in;
				}
			}
			bit[a] = unknown ? nbits++ : -1;
		}
	}
	if (nbits > BRUTE_MAX) {
		rc = err_set(e, SQLIFT_ELIMIT, "theory brute force: %d unknown "
		    "atoms", nbits);
		goto done;
	}
	for (size_t i = 0; i < t->clauses.n && !rc; i++) {
		const struct ct_clause *c = &t->clauses.v[i];
		size_t before = g.n;
		int val[64];
		for (size_t k = 0; k < c->cons.v.n && !rc; k++)
			if (enum_tuple(t, c, c->cons.v.v[k], blk, ntc, 0, val, &g) < 0)
				rc = err_oom(e);
		for (size_t k = before; k < g.n && !rc; k++)
			for (int j = 0; j < g.v[k].n; j++) {
				int a = bit[g.v[k].atom[j] + off[c->lits[j].pred]];
				if (a < 0)  /* folding left an evidence atom */
					rc = err_set(e, SQLIFT_EINTERNAL, "clause %zu holds "
					    "an evidence atom", i);
				g.v[k].atom[j] = a;
			}
	}
	if (!rc && free_atoms) {
		unsigned char *used = xcalloc((size_t)nbits + 1, 1);
		if (!used) {
			rc = err_oom(e);
			goto done;
		}
		for (size_t k = 0; k < g.n; k++)
			for (int j = 0; j < g.v[k].n; j++)
				used[g.v[k].atom[j]] = 1;
		*free_atoms = 0;
		for (int a = 0; a < nbits; a++)
			*free_atoms += !used[a];
		free(used);
	}
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (uint64_t w = 0; w < ((uint64_t)1 << nbits); w++) {
			double lw = 0;
			int ok = 1;
			for (size_t k = 0; k < g.n && ok; k++) {
				int sat = 0;
				for (int j = 0; j < g.v[k].n && !sat; j++)
					sat = (int)((w >> g.v[k].atom[j]) & 1) != g.v[k].neg[j];
				if (sat)
					lw += g.v[k].hard ? 0 : g.v[k].w;
				else if (g.v[k].hard)
					ok = 0;
			}
			if (!ok)
				continue;
			if (pass == 0 && lw > max)
				max = lw;
			if (pass == 1)
				sum += expl((long double)lw - max);
		}
	if (!rc && max == -INFINITY)
		rc = err_set(e, SQLIFT_EZERO, "Z = 0");
	if (!rc)
		*log_z = t->log_const + max + (double)logl(sum);
done:
	for (int k = 0; blk && k < nt; k++)
		free(blk[k]);
	free(blk);
	free(ntc);
	free(off);
	free(bit);
	free(g.v);
	return rc;
}

char *
ct_text(const struct ct_theory *t)
{
	struct buf b;

	buf_init(&b);
	for (int k = 0; k < (int)t->m->types.n; k++) {
		buf_printf(&b, "type %s:", t->m->types.v[k].name);
		for (int x = 0; x < t->sp->nblocks[k]; x++)
			buf_printf(&b, " b%d=%lld", x, (long long)t->sp->size[k][x]);
		buf_puts(&b, "\n");
	}
	for (size_t i = 0; i < t->clauses.n; i++) {
		const struct ct_clause *c = &t->clauses.v[i];
		if (c->hard)
			buf_puts(&b, "hard ");
		else
			buf_printf(&b, "%g ", c->weight);
		for (int k = 0; k < c->nlits; k++) {
			const struct ct_lit *l = &c->lits[k];
			const struct mln_pred *p = &t->m->preds.v[l->pred];
			buf_printf(&b, "%s%s%s(", k ? " v " : "", l->neg ? "!" : "",
			    p->name);
			for (int a = 0; a < p->arity; a++)
				buf_printf(&b, "%sx%d", a ? "," : "", l->var[a]);
			buf_puts(&b, ")");
		}
		buf_puts(&b, " :");
		for (size_t k = 0; k < c->cons.v.n; k++) {
			char *s = si_tuple_text(c->cons.v.v[k], t->sp);
			buf_printf(&b, "%s %s", k ? " v" : "", s ? s : "?");
			free(s);
		}
		buf_puts(&b, "\n");
	}
	buf_printf(&b, "free atoms %.17g\nconstant %.17g\n", t->free_atoms,
	    t->log_const);
	return buf_take(&b);
}
