/* lazy.c: grounding on demand for --method map: the groundings of a
 * clause that a world violates, found by a join over the true atoms of
 * its negative literals (as RockIt's and Tuffy's SQL queries do). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "infer/lazy.h"

#define LZ_ARGS 16             /* arity of a predicate grounded lazily */
#define LZ_LITS 64             /* literals of a clause grounded lazily */
/* A clause of positive weight (or hard) has its whole core in the store
 * at the start (every grounding the evidence leaves open) while the
 * store stays under LZ_CORE_MAX groundings (g->core_max when set) and
 * the join lists at most LZ_CORE_LISTED: the local search then sees
 * every grounding a flip changes.  Past either, the clause is grounded
 * lazily. */
#define LZ_CORE_MAX 2000000
#define LZ_CORE_LISTED 20000000
#define LZ_OVER (-1)           /* a walk's rc: past the core's limits */

/* What a grounding must be to be listed: violated by the world (every
 * literal false), or not decided by the evidence (no literal true by
 * the evidence). */
enum { LZ_VIOLATED, LZ_UNDECIDED };

struct lz_lit {
	int pred;              /* -1: an equality of var[0]/pos[0], var[1]/pos[1] */
	int neg;               /* !atom, or !(a = b) */
	int arity;
	int var[LZ_ARGS];      /* variable, or -1: the domain position pos[] */
	int pos[LZ_ARGS];
};

/* A set of uint64 keys (open addressing; a slot holds key + 1). */
struct u64set {
	uint64_t *v;
	size_t n, cap;
};

struct lz_clause {
	const struct mln_formula *f;
	int nlits;
	struct lz_lit lit[LZ_LITS];
	double radix[64];      /* the key of an assignment: mixed radix */
	struct u64set found;   /* groundings of it listed so far */
};

/* The atoms of a predicate that may make a negative literal false: true
 * in the world (LZ_VIOLATED) or not false by the evidence (LZ_UNDECIDED);
 * args[j * arity + i]: argument i of atom j; by argument i, the atoms
 * with value v are byarg[i][first[i][v] .. first[i][v + 1]). */
struct lz_index {
	int built;
	size_t n;
	int *args;
	size_t *first[LZ_ARGS];
	int *byarg[LZ_ARGS];
};

struct lazy {
	struct ground *g;
	int nc;
	struct lz_clause *c;
	struct lz_index *ix;   /* per predicate */
	int ixmode;            /* the mode the indexes are for, -1 none */
	int core;              /* listing a core: stop past LZ_CORE_* */
	int ncore;             /* clauses of positive weight in the core */
	int64_t found;
};

/* The search of one clause's groundings. */
struct lz_walk {
	struct lazy *lz;
	struct lz_clause *c;
	const signed char *x;
	int mode;
	int assign[64];        /* domain position of each variable, -1 unset */
	char done[LZ_LITS];    /* literal checked under the assignment */
	int64_t listed;        /* groundings met */
	int64_t added;
	int rc;
	struct err *e;
};

/* ---- the set ---- */

static uint64_t
mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/* 1: key newly in, 0: there already, -1: out of memory. */
static int
set_add(struct u64set *s, uint64_t key)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *v = xcalloc(cap, sizeof *v);
		if (!v)
			return -1;
		for (size_t j = 0; j < s->cap; j++)
			if (s->v[j])
				for (i = mix(s->v[j] - 1) & (cap - 1);; i = (i + 1) &
				    (cap - 1))
					if (!v[i]) {
						v[i] = s->v[j];
						break;
					}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	for (i = mix(key) & (s->cap - 1); s->v[i]; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == key + 1)
			return 0;
	s->v[i] = key + 1;
	s->n++;
	return 1;
}

/* ---- the clauses ---- */

static int
const_pos(const struct ground *g, int type, int cst)
{
	const struct mln_domain *d = &g->dom[type];

	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->names[i], g->m->consts.v[cst]))
			return i;
	return -1;
}

/* The literals of formula node n (negated when neg) into c, as one
 * disjunction; 0 when it is no disjunction of literals, 2 when a
 * literal is TRUE (the clause always holds), else 1. */
static int
collect(const struct ground *g, struct lz_clause *c, const struct mln_node *n,
    int neg)
{
	const struct mln_formula *f = c->f;
	int r, s;

	switch (n->kind) {
	case MLN_TRUE:
	case MLN_FALSE:
		return (n->kind == MLN_TRUE) != neg ? 2 : 1;
	case MLN_NOT:
		return collect(g, c, n->a, !neg);
	case MLN_OR:
	case MLN_AND:
	case MLN_IMPLIES:
		if ((n->kind == MLN_AND) != neg)
			return 0;
		r = collect(g, c, n->a, n->kind == MLN_IMPLIES ? !neg : neg);
		s = r ? collect(g, c, n->b, neg) : 0;
		return r && s ? (r == 2 || s == 2 ? 2 : 1) : 0;
	case MLN_ATOM:
	case MLN_EQ: {
		struct lz_lit *l = &c->lit[c->nlits];
		int eq = n->kind == MLN_EQ;
		if (c->nlits >= LZ_LITS || n->nargs > LZ_ARGS)
			return 0;
		l->pred = eq ? -1 : n->pred;
		l->neg = neg;
		l->arity = n->nargs;
		for (int i = 0; i < n->nargs; i++) {
			const struct mln_term *t = &n->args[i];
			int type = eq ? (n->args[0].var >= 0 ? f->vartypes[
			    n->args[0].var] : n->args[1].var >= 0 ?
			    f->vartypes[n->args[1].var] : -1) :
			    g->m->preds.v[n->pred].types[i];
			l->var[i] = t->var;
			l->pos[i] = t->var >= 0 ? 0 : type < 0 ? -2 - t->cst :
			    const_pos(g, type, t->cst);
			if (!eq && t->var < 0 && l->pos[i] < 0)
				return 1;  /* cannot happen: constants are in domains */
		}
		if (eq && l->var[0] < 0 && l->var[1] < 0)
			return (strcmp(g->m->consts.v[n->args[0].cst],
			    g->m->consts.v[n->args[1].cst]) == 0) != neg ? 2 : 1;
		c->nlits++;
		return 1;
	}
	default:
		return 0;
	}
}

/* ---- the truth of literals ---- */

static int64_t
lit_atom(const struct lz_walk *w, const struct lz_lit *l)
{
	int idx[LZ_ARGS];

	for (int i = 0; i < l->arity; i++)
		idx[i] = l->var[i] >= 0 ? w->assign[l->var[i]] : l->pos[i];
	return ground_atom_index(w->lz->g, l->pred, idx);
}

/* An equality literal's value under the assignment (store ids compared,
 * as ground.c does). */
static int
eq_value(const struct lz_walk *w, const struct lz_lit *l)
{
	const struct ground *g = w->lz->g;
	int64_t id[2];

	for (int i = 0; i < 2; i++) {
		int v = l->var[i], o = l->var[1 - i];
		if (v >= 0)
			id[i] = g->dom[w->c->f->vartypes[v]].ids[w->assign[v]];
		else if (l->pos[i] < 0)
			id[i] = -1 - i;
		else
			id[i] = g->dom[w->c->f->vartypes[o]].ids[l->pos[i]];
	}
	return (id[0] == id[1]) != l->neg;
}

/* Whether literal l (every variable set) lets the grounding be listed:
 * false in the world (LZ_VIOLATED), not true by the evidence
 * (LZ_UNDECIDED). */
static int
lit_ok(const struct lz_walk *w, const struct lz_lit *l)
{
	const struct ground *g = w->lz->g;
	int64_t a;
	int t;

	if (l->pred < 0)
		return !eq_value(w, l);
	a = lit_atom(w, l);
	t = ground_truth(g, l->pred, a);
	if (t < 0 && w->mode == LZ_UNDECIDED)
		return 1;
	if (t < 0)
		t = w->x[ground_unk(g, l->pred, a)] != 0;
	return t == l->neg;
}

/* ---- the indexes ---- */

static void
index_free(struct lz_index *x)
{
	free(x->args);
	for (int i = 0; i < LZ_ARGS; i++) {
		free(x->first[i]);
		free(x->byarg[i]);
	}
	memset(x, 0, sizeof *x);
}

/* Whether atom a of p may be true: in the world x, or (x NULL) by the
 * evidence or unknown. */
static int
may_be_true(const struct ground *g, int p, int64_t a, const signed char *x)
{
	int t = ground_truth(g, p, a);

	if (t < 0)
		return x ? x[ground_unk(g, p, a)] != 0 : 1;
	return t;
}

static int
index_build(struct lazy *lz, int p, const signed char *x)
{
	const struct ground *g = lz->g;
	const struct mln_pred *pr = &g->m->preds.v[p];
	struct lz_index *ix = &lz->ix[p];
	int k = pr->arity, idx[LZ_ARGS];
	size_t cap = 0;

	index_free(ix);
	ix->built = 1;
	/* closed predicates: their true atoms are the list etrue */
	if (g->doff[p] < 0) {
		size_t lo = i64_lower(g->etrue.v, g->etrue.n, g->offset[p]);
		size_t hi = i64_lower(g->etrue.v, g->etrue.n, g->offset[p + 1]);
		cap = hi - lo;
		if (!(ix->args = xmalloc((cap * (size_t)k + 1) * sizeof *ix->args)))
			return -1;
		for (size_t j = lo; j < hi; j++) {
			(void)ground_atom_decode(g, g->etrue.v[j], idx);
			memcpy(ix->args + ix->n++ * (size_t)k, idx, (size_t)k *
			    sizeof *idx);
		}
	} else {
		for (int64_t a = g->offset[p]; a < g->offset[p + 1]; a++) {
			if (!may_be_true(g, p, a, x))
				continue;
			if (ix->n >= cap) {
				size_t c = 2 * cap + 256;
				int *v = realloc(ix->args, (c * (size_t)k + 1) *
				    sizeof *v);
				if (!v)
					return -1;
				ix->args = v;
				cap = c;
			}
			(void)ground_atom_decode(g, a, idx);
			memcpy(ix->args + ix->n++ * (size_t)k, idx, (size_t)k *
			    sizeof *idx);
		}
	}
	for (int i = 0; i < k; i++) {
		int nv = g->dom[pr->types[i]].n;
		size_t *first = xcalloc((size_t)nv + 2, sizeof *first);
		int *by = xmalloc((ix->n + 1) * sizeof *by);
		ix->first[i] = first;
		ix->byarg[i] = by;
		if (!first || !by)
			return -1;
		for (size_t j = 0; j < ix->n; j++)
			first[ix->args[j * (size_t)k + (size_t)i] + 1]++;
		for (int v = 0; v < nv; v++)
			first[v + 1] += first[v];
		for (size_t j = 0; j < ix->n; j++)
			by[first[ix->args[j * (size_t)k + (size_t)i]]++] = (int)j;
		for (int v = nv; v > 0; v--)
			first[v] = first[v - 1];
		first[0] = 0;
	}
	return 0;
}

/* ---- the search ---- */

static void emit(struct lz_walk *w);
static void walk(struct lz_walk *w);

/* The value of argument i of literal l under the assignment, or -1. */
static int
arg_value(const struct lz_walk *w, const struct lz_lit *l, int i)
{
	return l->var[i] >= 0 ? w->assign[l->var[i]] : l->pos[i];
}

/* Candidates of negative literal l: the atoms of its index with the
 * value of its most selective set argument; *list NULL: all. */
static size_t
candidates(const struct lz_walk *w, const struct lz_lit *l, const int **list)
{
	const struct lz_index *ix = &w->lz->ix[l->pred];
	size_t best = ix->n;

	*list = NULL;
	for (int i = 0; i < l->arity; i++) {
		int v = arg_value(w, l, i);
		size_t n;
		if (v < 0)
			continue;
		n = ix->first[i][v + 1] - ix->first[i][v];
		if (n <= best) {
			best = n;
			*list = ix->byarg[i] + ix->first[i][v];
		}
	}
	return best;
}

/* Sets the variables of l from candidate atom j of its index; 0 when
 * the atom does not match what is set. */
static int
bind(struct lz_walk *w, const struct lz_lit *l, size_t j, int *set, int *nset)
{
	const int *args = w->lz->ix[l->pred].args + j * (size_t)l->arity;

	*nset = 0;
	for (int i = 0; i < l->arity; i++) {
		int v = arg_value(w, l, i);
		if (v >= 0 && v != args[i])
			goto undo;
		if (v < 0) {
			w->assign[l->var[i]] = args[i];
			set[(*nset)++] = l->var[i];
		}
	}
	return 1;
undo:
	for (int i = 0; i < *nset; i++)
		w->assign[set[i]] = -1;
	return 0;
}

/* Checks the literals whose variables are all set, then sets more: from
 * the index of the negative literal with the fewest candidates, else one
 * variable over its domain; a full assignment is emitted. */
static void
walk(struct lz_walk *w)
{
	struct lz_clause *c = w->c;
	int marked[LZ_LITS], nm = 0, gen = -1, var = -1;
	size_t fewest = (size_t)-1;

	for (int k = 0; k < c->nlits; k++) {
		const struct lz_lit *l = &c->lit[k];
		int all = 1;
		if (w->done[k])
			continue;
		for (int i = 0; i < l->arity && all; i++)
			all = arg_value(w, l, i) >= 0 || (l->var[i] < 0 &&
			    l->pred < 0);
		if (all) {
			if (!lit_ok(w, l))
				goto out;
			w->done[k] = 1;
			marked[nm++] = k;
		}
	}
	for (int k = 0; k < c->nlits; k++) {
		const struct lz_lit *l = &c->lit[k];
		const int *list;
		size_t n;
		if (w->done[k])
			continue;
		if (l->pred >= 0 && l->neg) {
			n = candidates(w, l, &list);
			if (n < fewest)
				fewest = n, gen = k;
		}
		for (int i = 0; i < l->arity && var < 0; i++)
			if (l->var[i] >= 0 && w->assign[l->var[i]] < 0)
				var = l->var[i];
	}
	for (int v = 0; v < c->f->nvars && var < 0 && gen < 0; v++)
		if (w->assign[v] < 0)
			var = v;
	if (gen >= 0) {
		const struct lz_lit *l = &c->lit[gen];
		const int *list;
		size_t n = candidates(w, l, &list);
		int set[LZ_ARGS], nset;
		for (size_t j = 0; j < n && !w->rc; j++)
			if (bind(w, l, list ? (size_t)list[j] : j, set, &nset)) {
				walk(w);
				for (int i = 0; i < nset; i++)
					w->assign[set[i]] = -1;
			}
	} else if (var >= 0) {
		for (int i = 0; i < w->lz->g->dom[c->f->vartypes[var]].n &&
		    !w->rc; i++) {
			w->assign[var] = i;
			walk(w);
		}
		w->assign[var] = -1;
	} else
		emit(w);
out:
	for (int k = 0; k < nm; k++)
		w->done[marked[k]] = 0;
}

/* A grounding listed: its program over its unknown literals into g (a
 * clause's literals joined by OR), unless the evidence decides it. */
static void
emit(struct lz_walk *w)
{
	struct lazy *lz = w->lz;
	struct ground *g = lz->g;
	const struct mln_formula *f = w->c->f;
	struct ground_formula gf = { f->weight, f->hard, (int)g->code.n, 0 };
	int nu = 0, r;

	if (lz->core && (w->listed >= LZ_CORE_LISTED ||
	    g->gf.n >= (g->core_max > 0 ? (size_t)g->core_max :
	    LZ_CORE_MAX))) {
		w->rc = LZ_OVER;
		return;
	}
	w->listed++;
	if (w->mode == LZ_VIOLATED) {
		double key = 0;
		for (int v = 0; v < f->nvars; v++)
			key += w->c->radix[v] * w->assign[v];
		if ((r = set_add(&w->c->found, (uint64_t)key)) <= 0) {
			if (r < 0)
				w->rc = err_oom(w->e);
			return;
		}
		lz->found++;
	}
	for (int k = 0; k < w->c->nlits; k++) {
		const struct lz_lit *l = &w->c->lit[k];
		int64_t a;
		if (l->pred < 0)
			continue;
		a = lit_atom(w, l);
		if (ground_truth(g, l->pred, a) >= 0)
			continue;
		if (VEC_PUSH(g->code, OP_ATOM) < 0 || VEC_PUSH(g->code,
		    ground_unk(g, l->pred, a)) < 0 || (l->neg &&
		    VEC_PUSH(g->code, OP_NOT) < 0) || (nu && VEC_PUSH(g->code,
		    OP_OR) < 0)) {
			w->rc = err_oom(w->e);
			return;
		}
		nu++;
	}
	if (!nu) {
		/* false by the evidence (no literal true and none unknown);
		 * a violated one was counted satisfied in log_const */
		if (w->mode == LZ_VIOLATED && !f->hard)
			ground_const_add(g, -f->weight);
		if (f->hard && !g->zero) {
			g->zero = 1;
			g->zero_why = f->text;
		}
		return;
	}
	gf.len = (int)g->code.n - gf.start;
	if (g->gf.n >= GROUND_MAX_GROUNDINGS) {
		w->rc = err_set(w->e, SQLIFT_ELIMIT, "%s: more than %ld "
		    "groundings left after the evidence", g->who ? g->who :
		    "map", GROUND_MAX_GROUNDINGS);
		return;
	}
	if (VEC_PUSH(g->gf, gf) < 0) {
		w->rc = err_oom(w->e);
		return;
	}
	w->added++;
	/* a violated one was counted satisfied in log_const */
	if (w->mode == LZ_VIOLATED && !f->hard)
		ground_const_add(g, -f->weight);
}

/* Lists the groundings of clause c in mode (x: the world); *added: the
 * ones put in g. */
static int
clause_walk(struct lazy *lz, struct lz_clause *c, int mode,
    const signed char *x, int64_t *listed, int64_t *added, struct err *e)
{
	struct lz_walk *w = xcalloc(1, sizeof *w);
	int rc;

	if (!w)
		return err_oom(e);
	w->lz = lz;
	w->c = c;
	w->x = x;
	w->mode = mode;
	w->e = e;
	for (int v = 0; v < 64; v++)
		w->assign[v] = -1;
	for (int k = 0; k < c->nlits; k++) {
		int p = c->lit[k].pred;
		if (p >= 0 && c->lit[k].neg && !lz->ix[p].built &&
		    index_build(lz, p, mode == LZ_VIOLATED ? x : NULL) < 0) {
			free(w);
			return err_oom(e);
		}
	}
	walk(w);
	*listed = w->listed;
	*added += w->added;
	rc = w->rc;
	free(w);
	return rc;
}

static void
indexes_drop(struct lazy *lz)
{
	for (int p = 0; p < lz->g->npreds; p++)
		index_free(&lz->ix[p]);
	lz->ixmode = -1;
}

int
lazy_more(void *lz_, const signed char *x, int64_t *added, struct err *e)
{
	struct lazy *lz = lz_;
	int rc = 0;

	*added = 0;
	indexes_drop(lz);
	for (int k = 0; k < lz->nc && !rc; k++) {
		int64_t listed;
		rc = clause_walk(lz, &lz->c[k], LZ_VIOLATED, x, &listed, added, e);
	}
	return rc;
}

/* Formula f as a clause into c; 0 when it is none (or its groundings
 * have no key), 2 when it always holds. */
static int
clause_of(const struct ground *g, const struct mln_formula *f,
    struct lz_clause *c)
{
	double n = 1;
	int r;

	memset(c, 0, sizeof *c);
	c->f = f;
	if (f->nvars > 64)
		return 0;
	for (int v = 0; v < f->nvars; v++) {
		if (!f->free[v])
			return 0;
		c->radix[v] = n;
		n *= g->dom[f->vartypes[v]].n;
	}
	if (n > 9e15)
		return 0;
	r = collect(g, c, f->root, 0);
	for (int k = 0; k < c->nlits && r == 1; k++)
		if (c->lit[k].pred >= 0 && c->lit[k].arity > LZ_ARGS)
			r = 0;
	return r;
}

/* The groundings of formula f (free variables). */
static double
groundings(const struct ground *g, const struct mln_formula *f)
{
	double n = 1;

	for (int v = 0; v < f->nvars; v++)
		if (f->free[v])
			n *= g->dom[f->vartypes[v]].n;
	return n;
}

/* Every grounding of clause c (n of them) that the evidence leaves open
 * into the store; the constant takes the weight of those true by the
 * evidence (n minus the ones listed: open or false).  With core set,
 * past the limits of LZ_CORE_*, the store is left as it was and *over
 * is 1. */
static int
core_walk(struct lazy *lz, struct lz_clause *c, double n, int core, int *over,
    struct err *e)
{
	struct ground *g = lz->g;
	size_t had = g->gf.n, code = g->code.n;
	int64_t listed, added = 0;
	int rc;

	*over = 0;
	if (lz->ixmode != LZ_UNDECIDED)
		indexes_drop(lz);
	lz->ixmode = LZ_UNDECIDED;
	lz->core = core;
	rc = clause_walk(lz, c, LZ_UNDECIDED, NULL, &listed, &added, e);
	lz->core = 0;
	if (rc == LZ_OVER) {
		g->gf.n = had;
		g->code.n = code;
		*over = 1;
		return 0;
	}
	if (!rc && !c->f->hard)
		ground_const_add(g, c->f->weight * (n - (double)listed));
	lz->found += added;
	return rc;
}

int
lazy_new(struct ground *g, struct lazy **out, struct err *e)
{
	const struct mln_model *m = g->m;
	struct lazy *lz = xcalloc(1, sizeof *lz);
	signed char *x0 = NULL;
	int rc = 0, over;
	int64_t added;
	double enumerated = 0;

	*out = lz;
	if (lz)
		lz->g = g;  /* first: lazy_free reads it */
	if (!lz || !(lz->c = xcalloc(m->formulas.n + 1, sizeof *lz->c)) ||
	    !(lz->ix = xcalloc((size_t)g->npreds + 1, sizeof *lz->ix)) ||
	    !(x0 = xcalloc(g->unk_atom.n + 1, 1)))
		return err_oom(e);
	lz->ixmode = -1;
	for (size_t k = 0; k < m->formulas.n && !rc; k++) {
		const struct mln_formula *f = &m->formulas.v[k];
		struct lz_clause *c = &lz->c[lz->nc];
		double n = groundings(g, f);
		int r;
		if (!f->hard && f->weight == 0)
			continue;  /* adds 0 in every world */
		if (!(r = clause_of(g, f, c))) {
			/* not a clause: enumerated, within max_enumerated */
			if (g->max_enumerated > 0 &&
			    (enumerated += n) > g->max_enumerated) {
				rc = err_set(e, SQLIFT_ELIMIT, "%s: the formulas "
				    "that are not clauses have %.0f groundings, more "
				    "than the %.0f it can enumerate", g->who ? g->who :
				    "map", enumerated, g->max_enumerated);
				continue;
			}
			rc = ground_formula(g, k, e);
			continue;
		}
		if (r == 2) {
			/* always true */
			if (!f->hard)
				ground_const_add(g, f->weight * n);
			continue;
		}
		/* bad when true: every grounding the evidence leaves open,
		 * at once; the others are true (weight) or false (nothing) by
		 * the evidence.  Bad when false: the same while the core is
		 * small, else counted satisfied until a world violates it. */
		if ((rc = core_walk(lz, c, n, f->hard || f->weight > 0, &over,
		    e)) || !over) {
			lz->ncore += f->hard || f->weight > 0;
			continue;
		}
		if (!f->hard)
			ground_const_add(g, f->weight * n);
		lz->nc++;
	}
	if (!rc)
		rc = lazy_more(lz, x0, &added, e);
	free(x0);
	return rc;
}

void
lazy_free(struct lazy *lz)
{
	if (!lz)
		return;
	if (lz->ix)
		indexes_drop(lz);
	for (int k = 0; k < lz->nc; k++)
		free(lz->c[k].found.v);
	free(lz->c);
	free(lz->ix);
	free(lz);
}

int64_t
lazy_found(const struct lazy *lz)
{
	return lz->found;
}

int
lazy_clauses(const struct lazy *lz)
{
	return lz->nc;
}

int
lazy_core_clauses(const struct lazy *lz)
{
	return lz->ncore;
}
