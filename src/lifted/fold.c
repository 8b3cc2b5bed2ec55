/* fold.c: folds the evidence into a clause of the constrained theory
 * (Mittal et al. 2015, 4.3): the groundings the evidence satisfies leave
 * the clause and add their weight to the constant, literals it falsifies
 * leave the groundings concerned, and what is left is split into clauses,
 * one per set of undecided literals. */
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "lifted/theory-int.h"

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

/* The predicate tuple e put on the literal's variables of a clause tuple
 * shape like t: the groundings whose atom is in e.  NULL: out of memory. */
static struct si_tuple *
lift(const struct si_tuple *t, const struct si_space *sp,
    const struct ct_lit *l, const struct si_tuple *e, int arity)
{
	struct si_tuple *x = si_tuple_copy(t);

	(void)sp;
	if (!x)
		return NULL;
	for (int i = 0; i < arity; i++)
		if (e->rep[i] != i)
			si_eq(x, l->var[i], l->var[e->rep[i]]);
	for (int i = 0; i < arity; i++)
		si_in(x, l->var[i], e->support + (size_t)e->rep[i] * e->nwords);
	for (int k = 0; k < e->nneq; k++)
		if (si_neq(x, l->var[e->neq[k][0]], l->var[e->neq[k][1]]) < 0) {
			si_tuple_free(x);
			return NULL;
		}
	return x;
}

void
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

/* Does predicate tuple e constrain equality (an orbit, theory.c)? */
static int
has_eq(const struct si_tuple *e)
{
	for (int i = 0; i < e->nvars; i++)
		if (e->rep[i] != i)
			return 1;
	return e->nneq > 0;
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

/* outside() where some cube constrains equality: t less each cube in
 * turn, by si_subtract. */
static int
outside_eq(const struct si_tuple *t, const struct si_space *sp,
    const struct ct_lit *l, int arity, const struct si_tuple *const *cube,
    size_t n, struct si_set *out, double deadline)
{
	struct si_set cur = { 0 }, next = { 0 };
	int rc = si_canon(t, sp, &cur);

	for (size_t k = 0; k < n && !rc && cur.v.n; k++) {
		struct si_tuple *r = lift(t, sp, l, cube[k], arity);
		if (!r || (deadline > 0 && now_seconds() > deadline)) {
			si_tuple_free(r);
			rc = -1;
			break;
		}
		for (size_t i = 0; i < cur.v.n && !rc; i++)
			rc = si_subtract(cur.v.v[i], r, sp, &next);
		si_tuple_free(r);
		si_set_free(&cur);
		cur = next;
		memset(&next, 0, sizeof next);
	}
	for (size_t i = 0; i < cur.v.n && !rc; i++) {
		if (VEC_PUSH(out->v, cur.v.v[i]) < 0)
			rc = -1;
		else
			cur.v.v[i] = NULL;
	}
	si_set_free(&cur);
	si_set_free(&next);
	return rc < 0 ? -1 : 0;
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
	for (size_t k = 0; k < fc->cubes.n; k++)
		if (has_eq(fc->cubes.v[k]))
			return outside_eq(x, t->sp, l, arity, fc->cubes.v,
			    fc->cubes.n, out, t->deadline);
	return outside(x, t->sp, l, arity, fc->cubes.v, fc->cubes.n, 0, out,
	    t->deadline);
}

int
fold_clause(struct ct_theory *t, struct fold_ctx *fc,
    const struct ct_clause *c, double *konst, int *zero, struct ct_clauses *out)
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
					double f = ct_set_count(&fal, t->sp);
					nsat = n < 0 || f < 0 ? -1 : n - f;
				}
			} else if (!r && ev->closed) {
				/* not true is false */
				r = meet(x, t->sp, l, tru, &fc->near[0], ar,
				    &sat) || outside_near(fc, t, l, x, ar, &fal);
				if (!r)
					nsat = ct_set_count(&sat, t->sp);
			} else if (!r) {
				r = meet(x, t->sp, l, l->neg ? fl : tru,
				    &fc->near[l->neg ? 1 : 0], ar, &sat) ||
				    meet(x, t->sp, l, l->neg ? tru : fl,
				    &fc->near[l->neg ? 0 : 1], ar, &fal) ||
				    outside_near(fc, t, l, x, ar, &rest);
				if (!r)
					nsat = ct_set_count(&sat, t->sp);
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
