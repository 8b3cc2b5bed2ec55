/* theory.c: builds the constrained theory from a clause model: blocks
 * (each constant named in a formula alone, the rest of its domain
 * together), clauses standardised apart with constants turned into
 * variables on singleton blocks, and equality literals turned into
 * constraints (the groundings they satisfy go to the constant); the
 * evidence cubes become tuples over blocks (by orbits where a cube splits
 * a block) and are folded in by fold.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "lifted/theory-int.h"

/* Domain position of model constant c in type t, or -1. */
static int
dom_pos(const struct mln_domain *dom, const struct mln_model *m, int t,
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
    const struct mln_node *n, const struct mln_domain *dom, char **named)
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

/* The leaves of a clause (an OR tree), with room past
 * MLN_MAX_CLAUSE_LITS so that a clause over the limit is counted first and
 * refused after its variables are. */
#define LEAVES_MAX (4 * MLN_MAX_CLAUSE_LITS)
struct leaves {
	const struct mln_node *v[LEAVES_MAX];
	int neg[LEAVES_MAX];
	int n;
};

static int
collect(const struct mln_node *n, int neg, struct leaves *l)
{
	if (n->kind == MLN_OR && !neg)
		return collect(n->a, 0, l) < 0 ? -1 : collect(n->b, 0, l);
	if (n->kind == MLN_NOT)
		return collect(n->a, !neg, l);
	if (l->n == LEAVES_MAX)
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

double
ct_set_count(const struct si_set *s, const struct si_space *sp)
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
			double n = ct_set_count(&tmp, sp);
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

struct litvec {
	struct ct_lit *v;
	size_t n, cap;
};

/* The atoms of leaves l as literals over clause variables, appended to
 * lits; *always is set by a true leaf.  -1: out of memory. */
static int
clause_lits(struct cbuild *b, const struct leaves *l, struct litvec *lits,
    int *always)
{
	for (int i = 0; i < l->n; i++) {
		const struct mln_node *n = l->v[i];
		struct ct_lit lit = { 0 };
		if (n->kind == MLN_TRUE)
			*always |= !l->neg[i];
		if (n->kind == MLN_FALSE)
			*always |= l->neg[i];
		if (n->kind != MLN_ATOM)
			continue;
		lit.pred = n->pred;
		lit.neg = l->neg[i];
		if (!(lit.var = xcalloc((size_t)n->nargs + 1, sizeof *lit.var)))
			return -1;
		for (int k = 0; k < n->nargs; k++)
			if ((lit.var[k] = term_var(b, &n->args[k],
			    b->t->m->preds.v[n->pred].types[k])) < 0) {
				free(lit.var);
				return -1;
			}
		if (VEC_PUSH(*lits, lit) < 0) {
			free(lit.var);
			return -1;
		}
	}
	return 0;
}

static int
build_clause(struct ct_theory *t, struct fold_ctx *fc,
    const struct mln_formula *f, int *zero, struct err *e)
{
	struct cbuild b = { t, f, NULL, { 0 }, { 0 } };
	struct ct_clause c = { 0 };
	struct leaves l = { { 0 }, { 0 }, 0 };
	struct si_tuple *tu = NULL;
	struct litvec lits = { 0 };
	int rc = 0, always = 0;

	c.weight = f->weight;
	c.hard = f->hard;
	c.line = f->line;
	if (collect(f->root, 0, &l) < 0)
		return err_set(e, SQLIFT_ELIMIT, "%s:%d: a clause of more than "
		    "%d literals; the lifted methods handle at most %d",
		    t->m->file ? t->m->file : "model", f->line, LEAVES_MAX,
		    MLN_MAX_CLAUSE_LITS);
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
	if (clause_lits(&b, &l, &lits, &always) < 0)
		goto oom;
	/* equality literals: their variables (constants get theirs too) */
	{
		int eqa[LEAVES_MAX], eqb[LEAVES_MAX], eqneg[LEAVES_MAX];
		int neq = 0;
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
		if (l.n > MLN_MAX_CLAUSE_LITS) {
			/* fold.c keeps a 64-bit mask of a clause's literals */
			rc = err_set(e, SQLIFT_ELIMIT, "%s:%d: a clause of %d "
			    "literals; the lifted methods handle at most %d",
			    t->m->file ? t->m->file : "model", f->line, l.n,
			    MLN_MAX_CLAUSE_LITS);
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
			double n = c.hard ? 0 : ct_set_count(&c.cons, t->sp);
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
		double n = c.hard ? ct_set_count(&c.cons, t->sp) : 0;
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
	rc = fold_clause(t, fc, &c, &t->log_const, zero, &t->clauses);
	if (rc < 0) {
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
		known = ct_set_count(&t->ev[p].tru, t->sp);
		if (known < 0 || (used = ct_set_count(&t->ev[p].fal, t->sp)) < 0)
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

/* Does every side of cube cu cover whole blocks?  cnt: per type, a
 * zeroed count per block, left zeroed. */
static int
cube_aligned(const struct ct_theory *t, const struct mln_pred *mp,
    const struct ct_cube *cu, int64_t **cnt)
{
	int ok = 1;

	for (int i = 0; i < mp->arity; i++) {
		int ty = mp->types[i];
		for (int q = 0; q < cu->npos[i]; q++)
			cnt[ty][t->block_of[ty][cu->pos[i][q]]]++;
		for (int q = 0; q < cu->npos[i]; q++) {
			int b = t->block_of[ty][cu->pos[i][q]];
			if (cnt[ty][b] && cnt[ty][b] != t->sp->size[ty][b])
				ok = 0;
			cnt[ty][b] = 0;
		}
	}
	return ok;
}

/* The orbits of the atoms of the cubes that split a block: the blocks are
 * classes of interchangeable constants (evidence/coarse.c), so with an
 * atom the evidence holds every atom with the same blocks and the same
 * equal arguments.  An orbit is the tuple: each argument in its block,
 * equal arguments equal, the others of one block unequal.  ok is cleared
 * when the orbits hold more atoms than the cubes: the blocks were not
 * interchangeable. */
struct orbits {
	struct smap seen;
	double atoms, in_orbits;
	struct si_set *dst;
};

static int
orbit_add(struct ct_theory *t, const struct mln_pred *mp, const int *pos,
    struct orbits *o)
{
	char key[64 * 24];
	size_t kl = 0;
	int blk[64], eq[64], rc = 0;
	struct si_tuple *x;

	o->atoms++;
	for (int i = 0; i < mp->arity; i++) {
		blk[i] = t->block_of[mp->types[i]][pos[i]];
		eq[i] = i;
		for (int j = 0; j < i && eq[i] == i; j++)
			if (mp->types[j] == mp->types[i] && pos[j] == pos[i])
				eq[i] = j;
		kl += (size_t)snprintf(key + kl, sizeof key - kl, "%d.%d:", blk[i],
		    eq[i]);
	}
	if (smap_getn(&o->seen, key, kl) >= 0)
		return 0;
	if (smap_putn(&o->seen, key, kl, 1) < 0 ||
	    !(x = si_tuple_new(t->sp, mp->arity, mp->types)))
		return -1;
	for (int i = 0; i < mp->arity && !rc; i++) {
		si_in_block(x, i, blk[i]);
		if (eq[i] != i)
			si_eq(x, i, eq[i]);
		for (int j = 0; j < i && !rc; j++)
			if (eq[i] == i && eq[j] == j && mp->types[j] == mp->types[i] &&
			    blk[j] == blk[i])
				rc = si_neq(x, j, i);
	}
	if (!rc) {
		size_t before = o->dst->v.n;
		rc = si_canon(x, t->sp, o->dst);
		for (size_t k = before; k < o->dst->v.n && !rc; k++) {
			double n = si_count(o->dst->v.v[k], t->sp);
			if (n < 0)
				rc = -1;
			else
				o->in_orbits += n;
		}
	}
	si_tuple_free(x);
	return rc;
}

/* The atoms of cube cu, each to orbit_add. */
static int
cube_orbits(struct ct_theory *t, const struct mln_pred *mp,
    const struct ct_cube *cu, struct orbits *o)
{
	int at[64] = { 0 }, pos[64];

	for (int i = 0; i < mp->arity; i++)
		if (cu->npos[i] == 0)
			return 0;
	for (;;) {
		int i;
		int keep = 1;
		for (i = 0; i < mp->arity; i++)
			pos[i] = cu->pos[i][at[i]];
		for (int q = 0; q < cu->neq && keep; q++)
			keep = pos[cu->eq[q][0]] == pos[cu->eq[q][1]];
		for (int q = 0; q < cu->nne && keep; q++)
			keep = pos[cu->ne[q][0]] != pos[cu->ne[q][1]];
		if (keep && orbit_add(t, mp, pos, o) < 0)
			return -1;
		for (i = mp->arity - 1; i >= 0; i--) {
			if (++at[i] < cu->npos[i])
				break;
			at[i] = 0;
		}
		if (i < 0)
			return 0;
	}
}

/* Do orbit tuples x and y differ at most in the blocks variable v
 * allows?  hash: the same without v's support. */
static int
same_but_v(const struct si_tuple *x, const struct si_tuple *y, int v)
{
	size_t w = (size_t)x->nwords;

	if (x->nneq != y->nneq || memcmp(x->rep, y->rep, (size_t)x->nvars *
	    sizeof *x->rep) || (x->nneq && memcmp(x->neq, y->neq,
	    (size_t)x->nneq * sizeof *x->neq)))
		return 0;
	for (int u = 0; u < x->nvars; u++)
		if (u != v && x->rep[u] == u && memcmp(x->support + u * w,
		    y->support + u * w, w * sizeof *x->support))
			return 0;
	return 1;
}

static uint64_t
hash_but_v(const struct si_tuple *x, int v)
{
	size_t w = (size_t)x->nwords;
	uint64_t h = FNV_INIT;

	for (int u = 0; u < x->nvars; u++)
		h = hash_mix(h, (uint64_t)x->rep[u]);
	for (int e = 0; e < x->nneq; e++)
		h = hash_mix(h, (uint64_t)x->neq[e][0] << 32 | (uint64_t)x->neq[e][1]);
	for (int u = 0; u < x->nvars; u++)
		if (u != v && x->rep[u] == u)
			for (size_t k = 0; k < w; k++)
				h = hash_mix(h, x->support[u * w + k]);
	return h;
}

/* Joins the tuples s->v[from..] that differ only in the blocks of one
 * variable free of equalities and inequalities: their union is the tuple
 * with the union of those blocks (the orbits are disjoint, so are the
 * unions). */
static int
merge_orbits(struct si_set *s, size_t from)
{
	size_t cap = 16, n;
	int *slot;

	if (s->v.n - from < 2)
		return 0;
	while (cap < 2 * (s->v.n - from))
		cap *= 2;
	if (!(slot = xmalloc(cap * sizeof *slot)))
		return -1;
	for (int v = 0; v < s->v.v[from]->nvars; v++) {
		memset(slot, -1, cap * sizeof *slot);
		for (size_t i = from; i < s->v.n; i++) {
			struct si_tuple *x = s->v.v[i];
			size_t h, w = (size_t)x->nwords;
			int used = x->rep[v] != v;
			for (int u = 0; u < x->nvars; u++)
				used |= u != v && x->rep[u] == v;
			for (int e = 0; e < x->nneq && !used; e++)
				used = x->neq[e][0] == v || x->neq[e][1] == v;
			if (used)
				continue;
			h = (size_t)hash_but_v(x, v) & (cap - 1);
			for (; slot[h] >= 0; h = (h + 1) & (cap - 1))
				if (same_but_v(s->v.v[slot[h]], x, v))
					break;
			if (slot[h] < 0) {
				slot[h] = (int)i;
				continue;
			}
			for (size_t k = 0; k < w; k++)
				s->v.v[slot[h]]->support[(size_t)v * w + k] |=
				    x->support[(size_t)v * w + k];
			si_tuple_free(x);
			s->v.v[i] = NULL;
		}
		n = from;
		for (size_t i = from; i < s->v.n; i++)
			if (s->v.v[i])
				s->v.v[n++] = s->v.v[i];
		s->v.n = n;
	}
	free(slot);
	return 0;
}

/* Adds the constraints of cube cu to x (its sides set) and appends the
 * canonical tuples of x to dst; 0 or -1 out of memory.  Sides of an
 * equality are the same set (cover.c), so supports meet exactly. */
static int
cube_cons_tuples(struct ct_theory *t, const struct ct_cube *cu,
    struct si_tuple *x, struct si_set *dst)
{
	for (int q = 0; q < cu->neq; q++)
		si_eq(x, cu->eq[q][0], cu->eq[q][1]);
	for (int q = 0; q < cu->nne; q++) {
		int a = x->rep[cu->ne[q][0]], b = x->rep[cu->ne[q][1]];
		if (a == b)
			return 0;  /* x != x: no atom */
		if (si_neq(x, a < b ? a : b, a < b ? b : a) < 0)
			return -1;
	}
	return si_canon(x, t->sp, dst);
}

/* The evidence of every predicate as tuples over its arguments: a cube
 * whose sides are unions of blocks as one tuple (with its = and !=), the
 * others by orbits. */
static int
ev_sets(struct ct_theory *t, const struct ct_evidence *ev, struct err *e)
{
	const struct mln_model *m = t->m;
	int64_t **cnt = NULL;
	int rc = 0;

	if (!(t->ev = xcalloc(m->preds.n + 1, sizeof *t->ev)) ||
	    !(cnt = xcalloc(m->types.n + 1, sizeof *cnt)))
		rc = err_oom(e);
	for (size_t k = 0; k < m->types.n && !rc; k++)
		if (!(cnt[k] = xcalloc((size_t)t->sp->nblocks[k] + 1,
		    sizeof **cnt)))
			rc = err_oom(e);
	for (size_t p = 0; ev && p < m->preds.n && !rc; p++) {
		const struct ct_pred_ev *pe = &ev->pred[p];
		const struct mln_pred *mp = &m->preds.v[p];
		struct orbits orb[2] = { 0 };
		struct si_set oset[2] = { 0 };
		t->ev[p].closed = pe->closed;
		smap_init(&orb[0].seen);
		smap_init(&orb[1].seen);
		orb[0].dst = &oset[0];
		orb[1].dst = &oset[1];
		for (size_t k = 0; k < pe->cubes.n && !rc; k++) {
			const struct ct_cube *cu = &pe->cubes.v[k];
			struct si_tuple *x;
			struct si_set *dst = cu->truth ? &t->ev[p].tru : &t->ev[p].fal;
			if (!cube_aligned(t, mp, cu, cnt)) {
				if (cube_orbits(t, mp, cu, &orb[cu->truth != 0]) < 0)
					rc = err_oom(e);
				continue;
			}
			if (!(x = si_tuple_new(t->sp, mp->arity, mp->types))) {
				rc = err_oom(e);
				break;
			}
			for (int i = 0; i < mp->arity; i++) {
				uint64_t *bits = x->support + (size_t)i * x->nwords;
				memset(bits, 0, (size_t)x->nwords * sizeof *bits);
				for (int q = 0; q < cu->npos[i]; q++) {
					int b = t->block_of[mp->types[i]][cu->pos[i][q]];
					bits[b / 64] |= (uint64_t)1 << (b % 64);
				}
			}
			if (cu->neq || cu->nne) {
				/* a cube with = and != (evidence/cover.c): its
				 * canonical tuples */
				rc = cube_cons_tuples(t, cu, x, dst) < 0 ? err_oom(e) : 0;
				si_tuple_free(x);
			} else if (VEC_PUSH(dst->v, x) < 0) {
				si_tuple_free(x);
				rc = err_oom(e);
			}
		}
		for (int w = 0; w < 2 && !rc; w++) {
			struct si_set *dst = w ? &t->ev[p].tru : &t->ev[p].fal;
			if (orb[w].in_orbits != orb[w].atoms)
				rc = err_set(e, SQLIFT_EINTERNAL, "the evidence of %s "
				    "splits a block of interchangeable constants: run "
				    "sqlift cubes again", mp->name);
			else if (merge_orbits(&oset[w], 0) < 0)
				rc = err_oom(e);
			for (size_t k = 0; k < oset[w].v.n && !rc; k++) {
				if (VEC_PUSH(dst->v, oset[w].v.v[k]) < 0)
					rc = err_oom(e);
				else
					oset[w].v.v[k] = NULL;
			}
			si_set_free(&oset[w]);
		}
		si_set_free(&oset[0]);
		si_set_free(&oset[1]);
		smap_free(&orb[0].seen);
		smap_free(&orb[1].seen);
	}
	for (size_t k = 0; cnt && k < m->types.n; k++)
		free(cnt[k]);
	free(cnt);
	return rc;
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
			free(cu->eq);
			free(cu->ne);
		}
		free(ev->pred[p].cubes.v);
	}
	free(ev->pred);
	free(ev);
}

/* The theory's blocks of type k: each named constant alone (every
 * constant, grounded), the others together (normal form) or by
 * evidence block, numbered in order of first occurrence.  Evidence
 * blocks are found in an array over their range when it is not much
 * wider than the domain, else by name in a map. */
static int
theory_blocks(struct ct_theory *t, int k, const char *named,
    const struct ct_evidence *ev, struct err *e)
{
	const struct mln_domain *d = &t->dom[k];
	int by_ev = ev && ev->normal != 1 && ev->normal != CT_GROUND;
	int lo = 0, hi = -1, rest = -1, *slot = NULL, rc = 0;
	struct smap by;

	smap_init(&by);
	for (int p = 0; by_ev && p < d->n; p++)
		if (!named[p]) {
			int b = ev->block[k][p];
			if (hi < lo)
				lo = hi = b;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	if (hi >= lo && (int64_t)hi - lo < 4 * (int64_t)d->n + 64) {
		if (!(slot = xmalloc(((size_t)(hi - lo) + 1) * sizeof *slot)))
			return err_oom(e);
		memset(slot, -1, ((size_t)(hi - lo) + 1) * sizeof *slot);
	}
	for (int p = 0; p < d->n && !rc; p++) {
		char key[32];
		int blk = -1, *at = NULL;
		if (named[p] || (ev && ev->normal == CT_GROUND))
			key[0] = '\0';  /* a block of its own */
		else if (ev && ev->normal == 1)
			at = &rest;
		else if (!ev)
			at = &rest;  /* every constant in evidence block 0 */
		else if (slot)
			at = &slot[ev->block[k][p] - lo];
		else {
			snprintf(key, sizeof key, "e%d", ev->block[k][p]);
			blk = smap_get(&by, key);
		}
		if (at)
			blk = *at;
		if (blk < 0) {
			if ((blk = si_space_add_block(t->sp, k, 0)) < 0 ||
			    (!at && key[0] && smap_put(&by, key, blk) < 0)) {
				rc = err_oom(e);
				break;
			}
			if (at)
				*at = blk;
		}
		t->block_of[k][p] = blk;
		t->sp->size[k][blk]++;
	}
	free(slot);
	smap_free(&by);
	return rc;
}

int
ct_build(const struct mln_model *m, const struct mln_domain *dom,
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
	for (int k = 0; k < nt && !rc; k++)
		rc = theory_blocks(t, k, named[k], ev, e);
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
