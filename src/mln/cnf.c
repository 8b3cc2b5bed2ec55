/* cnf.c: converts formulas to clauses without changing the distribution.
 * Alchemy divides a formula's weight among its CNF clauses, which changes
 * the model; here a formula whose CNF has several clauses gets an
 * auxiliary atom A(free vars) with hard clauses A <=> F and the weight on
 * A, and a conjunction of literals becomes its negation (one clause) with
 * the weight negated plus a constant.  Both keep Z and every marginal.
 *
 * Quantifiers are expanded over the domain, except a universal one in a
 * hard formula, or in a soft formula G where G is F (weight w > 0) or !F
 * (w < 0): its variable becomes a clause variable.  Such a soft formula
 * gets A(free vars) with hard clauses A => G only and the weight
 * log(e^|w| - 1) on A, since summing out A gives 1 + (e^|w| - 1) [G] =
 * e^(|w| [G]); w < 0 adds the constant w, as e^(w [F]) = e^w e^(-w [!F]).
 * That weight holds for sums (Z, marginals); for the heaviest world
 * (max) it is |w|, as max(1, e^|w| [G]) = e^(|w| [G]), so the caller says
 * which it wants.
 * So Tuffy's "-2.47 EXIST y !student(x) v advisedBy(x,y)" needs no
 * clause over every constant.  Weight 0 multiplies every world by 1 and
 * is dropped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "mln/mln.h"

struct cctx {
	const struct mln_model *m;
	struct mln_model *out;
	const struct mln_domain *d;
	const struct mln_formula *f;
	int *subst;            /* per var: -1 or constant of out */
	int *once;             /* per var: bound by exactly one quantifier */
	int *lifted;           /* per var: a clause variable, not expanded */
	int lift;              /* keep universal quantifiers as variables */
	int max;               /* clauses for the max semiring */
	int naux;              /* the next auxiliary predicate's number */
	VEC(struct mln_node *) owned; /* Tseitin atoms the CNFs borrow */
	size_t work;           /* nodes and clause literals made for f */
	size_t work_max;       /* past it, f is too large (big) */
	int big;               /* c->f passed its budget */
	int oom;               /* set also when big: every path stops */
};

/* Nodes and literals one formula may make: an <=> chain doubles at each
 * link and a tree of them distributes, so 300 bytes could ask for
 * terabytes.  A fixed part, and a share per constant for quantifiers
 * expanded over large domains. */
#define CNF_WORK_FIXED ((size_t)1 << 18)
#define CNF_WORK_PER_CONST 512

static size_t work_fixed = CNF_WORK_FIXED;

void
mln_clause_budget(size_t fixed)
{
	work_fixed = fixed ? fixed : CNF_WORK_FIXED;
}

/* Counts k units of work for the formula; -1 (c->big, c->oom) past its
 * budget. */
static int
spend(struct cctx *c, size_t k)
{
	if ((c->work += k) <= c->work_max)
		return 0;
	c->big = 1;
	c->oom = 1;
	return -1;
}

static struct mln_node *
mk(struct cctx *c, enum mln_kind k, struct mln_node *a, struct mln_node *b)
{
	int binary = k == MLN_AND || k == MLN_OR;
	struct mln_node *n = NULL;

	if ((k == MLN_NOT && !a) || (binary && (!a || !b)) || spend(c, 1) < 0 ||
	    !(n = xcalloc(1, sizeof *n))) {
		c->oom = 1;
		mln_node_free(a);
		mln_node_free(b);
		return NULL;
	}
	n->kind = k;
	n->a = a;
	n->b = b;
	n->pred = -1;
	return n;
}

/* Literal copy with the substitution applied; constants are renumbered
 * into the output model. */
static struct mln_node *
lit_copy(struct cctx *c, const struct mln_node *n, int neg)
{
	struct mln_node *l = mk(c, n->kind, NULL, NULL);

	if (!l)
		return NULL;
	l->pred = n->pred;
	l->nargs = n->nargs;
	if (!(l->args = xcalloc((size_t)n->nargs + 1, sizeof *l->args))) {
		c->oom = 1;
		mln_node_free(l);
		return NULL;
	}
	for (int i = 0; i < n->nargs; i++) {
		const struct mln_term *t = &n->args[i];
		if (t->var >= 0 && c->subst[t->var] >= 0) {
			l->args[i].var = -1;
			l->args[i].cst = c->subst[t->var];
		} else if (t->var >= 0) {
			l->args[i] = *t;
		} else {
			l->args[i].var = -1;
			if ((l->args[i].cst = mln_const(c->out,
			    c->m->consts.v[t->cst])) < 0)
				c->oom = 1;
		}
	}
	return neg ? mk(c, MLN_NOT, l, NULL) : l;
}

static struct mln_node *nnf(struct cctx *c, const struct mln_node *n, int neg);
static struct mln_node *named(struct cctx *c, struct mln_node *s);
static struct mln_node *nnf_not(struct cctx *c, const struct mln_node *n);
static int count_bound(const struct mln_node *n, int *once);

/* The AND or OR of v[0 .. n) in their order, as a balanced tree: an
 * EXIST over 60,000 constants made a left chain that deep, and every
 * recursive walk of it overflowed the stack.  v is consumed; NULL when
 * out of memory (every node freed). */
static struct mln_node *
balanced(struct cctx *c, enum mln_kind k, struct mln_node **v, size_t n)
{
	if (n == 0)
		return mk(c, k == MLN_OR ? MLN_FALSE : MLN_TRUE, NULL, NULL);
	while (n > 1) {
		size_t h = 0;
		for (size_t i = 0; i + 1 < n; i += 2)
			v[h++] = mk(c, k, v[i], v[i + 1]);
		if (n % 2)
			v[h++] = v[n - 1];
		n = h;
	}
	return v[0];
}

/* OR (or AND) of the body over every value of the bound variables. */
static struct mln_node *
expand(struct cctx *c, const struct mln_node *n, int k, int disj, int neg)
{
	int v, t;
	struct mln_node **x, *r;

	if (k == n->nq)
		return nnf(c, n->a, neg);
	v = n->qvars[k];
	t = c->f->vartypes[v];
	if (!(x = xcalloc((size_t)c->d[t].n + 1, sizeof *x))) {
		c->oom = 1;
		return NULL;
	}
	for (int i = 0; i < c->d[t].n; i++) {
		if (!c->oom && (c->subst[v] = mln_const(c->out,
		    c->d[t].names[i])) < 0)
			c->oom = 1;
		/* after a failure, NULLs: balanced() frees what was made */
		x[i] = c->oom ? NULL : expand(c, n, k + 1, disj, neg);
	}
	c->subst[v] = -1;
	r = balanced(c, disj ? MLN_OR : MLN_AND, x, (size_t)c->d[t].n);
	free(x);
	return c->oom ? (mln_node_free(r), NULL) : r;
}

/* A side n of <=> in sign neg (*x) and in the other (*nx): it appears
 * twice, so one without quantifiers is named when large and negated as
 * it is; one with quantifiers is converted in each sign, as a universal
 * in one is an existential in the other (a clause variable or
 * expanded). */
static void
iff_side(struct cctx *c, const struct mln_node *n, int neg,
    struct mln_node **x, struct mln_node **nx)
{
	if (count_bound(n, NULL)) {
		*x = nnf(c, n, neg);
		*nx = nnf(c, n, !neg);
	} else {
		*x = named(c, nnf(c, n, neg));
		*nx = *x ? nnf_not(c, *x) : NULL;
	}
}

/* Negation normal form with quantifiers expanded: only AND, OR, TRUE,
 * FALSE and literals (atoms and equalities, possibly under one NOT). */
static struct mln_node *
nnf(struct cctx *c, const struct mln_node *n, int neg)
{
	enum mln_kind and = neg ? MLN_OR : MLN_AND, or = neg ? MLN_AND : MLN_OR;

	if (c->oom)
		return NULL;
	switch (n->kind) {
	case MLN_ATOM:
	case MLN_EQ:
		return lit_copy(c, n, neg);
	case MLN_TRUE:
	case MLN_FALSE:
		return mk(c, (n->kind == MLN_TRUE) != neg ? MLN_TRUE : MLN_FALSE,
		    NULL, NULL);
	case MLN_NOT:
		return nnf(c, n->a, !neg);
	case MLN_AND:
		return mk(c, and, nnf(c, n->a, neg), nnf(c, n->b, neg));
	case MLN_OR:
		return mk(c, or, nnf(c, n->a, neg), nnf(c, n->b, neg));
	case MLN_IMPLIES:
		return mk(c, or, nnf(c, n->a, !neg), nnf(c, n->b, neg));
	case MLN_IFF: {
		/* a <=> b is (!a v b) ^ (a v !b); its negation (a v b) ^
		 * (!a v !b) */
		struct mln_node *x, *y, *nx, *ny;
		iff_side(c, n->a, 0, &x, &nx);
		iff_side(c, n->b, neg, &y, &ny);
		return mk(c, MLN_AND, mk(c, MLN_OR, nx, y), mk(c, MLN_OR, x, ny));
	}
	case MLN_EXIST:
	case MLN_FORALL:
		if (c->lift && (n->kind == MLN_EXIST) == neg) {
			int ok = 1;
			for (int i = 0; i < n->nq; i++)
				ok &= c->once[n->qvars[i]];
			if (ok) {
				for (int i = 0; i < n->nq; i++)
					c->lifted[n->qvars[i]] = 1;
				return nnf(c, n->a, neg);
			}
		}
		{
			/* a universal under an expanded existential stays
			 * expanded: its copies in the disjuncts are separate
			 * (EXIST z FORALL y is not FORALL y EXIST z) */
			int disj = (n->kind == MLN_EXIST) != neg, lift = c->lift;
			struct mln_node *x;
			if (disj)
				c->lift = 0;
			x = expand(c, n, 0, disj, neg);
			c->lift = lift;
			return x;
		}
	}
	return NULL;
}

/* Counts in once[] (unless NULL) the quantifiers binding each variable;
 * returns whether n has a quantifier. */
static int
count_bound(const struct mln_node *n, int *once)
{
	int q;

	if (!n)
		return 0;
	q = n->kind == MLN_EXIST || n->kind == MLN_FORALL;
	for (int i = 0; once && q && i < n->nq; i++)
		once[n->qvars[i]]++;
	q |= count_bound(n->a, once);
	return count_bound(n->b, once) | q;
}

/* Marks in seen[] the variables of n's literals. */
static void
mark_vars(const struct mln_node *n, int *seen)
{
	if (!n)
		return;
	for (int i = 0; (n->kind == MLN_ATOM || n->kind == MLN_EQ) &&
	    i < n->nargs; i++)
		if (n->args[i].var >= 0)
			seen[n->args[i].var] = 1;
	mark_vars(n->a, seen);
	mark_vars(n->b, seen);
}

/* A clause is a list of borrowed literal nodes; a CNF a list of those. */
typedef VEC(const struct mln_node *) clause_t;
typedef VEC(clause_t) cnf_t;

static void
cnf_free(cnf_t *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->v[i].v);
	free(x->v);
	memset(x, 0, sizeof *x);
}

static int
clause_cat(clause_t *dst, const clause_t *a, const clause_t *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (VEC_PUSH(*dst, a->v[i]) < 0)
			return -1;
	for (size_t i = 0; i < b->n; i++)
		if (VEC_PUSH(*dst, b->v[i]) < 0)
			return -1;
	return 0;
}

/* A disjunction whose sides' clauses multiply past this (an EXIST over
 * a conjunction: 2^n clauses over n constants) gets a Tseitin atom for
 * a side instead; below it, distribution, as before. */
#define CNF_PRODUCT 64

static int tseitin(struct cctx *c, const struct mln_node *n, cnf_t *x);

/* CNF of an NNF tree by distribution, except where a disjunction's
 * clauses would multiply past CNF_PRODUCT: a side of it is then one
 * Tseitin atom (tseitin()). */
static int
to_cnf(struct cctx *c, const struct mln_node *n, cnf_t *out)
{
	cnf_t a = { 0 }, b = { 0 };
	int rc = -1;

	memset(out, 0, sizeof *out);
	switch (n->kind) {
	case MLN_TRUE:
		return 0;
	case MLN_FALSE: {
		clause_t empty = { 0 };
		return VEC_PUSH(*out, empty);
	}
	case MLN_AND:
		if (to_cnf(c, n->a, &a) < 0 || to_cnf(c, n->b, &b) < 0)
			goto done;
		for (size_t i = 0; i < b.n; i++) {
			if (VEC_PUSH(a, b.v[i]) < 0)
				goto done;
			b.v[i].v = NULL;  /* a owns it now: freed once */
		}
		free(b.v);
		memset(&b, 0, sizeof b);
		*out = a;
		return 0;
	case MLN_OR:
		if (to_cnf(c, n->a, &a) < 0 || to_cnf(c, n->b, &b) < 0)
			goto done;
		/* the side with more clauses, then the other if need be */
		for (int k = 0; k < 2 && a.n * b.n > CNF_PRODUCT; k++) {
			int left = a.n >= b.n;
			if ((left ? a.n : b.n) > 1 &&
			    tseitin(c, left ? n->a : n->b, left ? &a : &b) < 0)
				goto done;
		}
		for (size_t i = 0; i < a.n; i++)
			for (size_t j = 0; j < b.n; j++) {
				clause_t cl = { 0 };
				if (spend(c, a.v[i].n + b.v[j].n) < 0 ||
				    clause_cat(&cl, &a.v[i], &b.v[j]) < 0 ||
				    VEC_PUSH(*out, cl) < 0) {
					free(cl.v);
					goto done;
				}
			}
		rc = 0;
		goto done;
	default: {
		clause_t cl = { 0 };
		if (VEC_PUSH(cl, n) < 0 || VEC_PUSH(*out, cl) < 0) {
			free(cl.v);
			return -1;
		}
		return 0;
	}
	}
done:
	cnf_free(&a);
	cnf_free(&b);
	if (rc < 0)
		cnf_free(out);
	return rc;
}

/* A copy of literal l, or NULL with c->oom set: clause_node reads a
 * NULL extra as no extra literal, which would drop it silently. */
static struct mln_node *
copy_lit(struct cctx *c, const struct mln_node *l)
{
	struct mln_node *x = mln_node_copy(l);

	if (!x)
		c->oom = 1;
	return x;
}

static struct mln_node *
node_of_lit(struct cctx *c, const struct mln_node *l, int negate)
{
	struct mln_node *x;

	if (l->kind == MLN_NOT) {
		x = mln_node_copy(l->a);
		if (!x)
			c->oom = 1;
		return negate ? x : mk(c, MLN_NOT, x, NULL);
	}
	if (!(x = mln_node_copy(l)))
		c->oom = 1;
	return negate ? mk(c, MLN_NOT, x, NULL) : x;
}

/* Disjunction of the clause's literals (each negated if negate), with an
 * extra literal in front if extra is given. */
static struct mln_node *
clause_node(struct cctx *c, const clause_t *cl, int negate,
    struct mln_node *extra)
{
	struct mln_node **x = xcalloc(cl->n + 2, sizeof *x), *r;
	size_t n = 0;

	if (!x) {
		c->oom = 1;
		mln_node_free(extra);
		return NULL;
	}
	if (extra)
		x[n++] = extra;
	for (size_t i = 0; i < cl->n; i++)
		x[n++] = node_of_lit(c, cl->v[i], negate);
	r = balanced(c, MLN_OR, x, n);
	free(x);
	return r;
}

/* Appends a formula to out with f's variables. */
static int
add_formula(struct cctx *c, struct mln_node *root, double w, int hard)
{
	const struct mln_formula *f = c->f;
	struct mln_formula g = { 0 };

	if (!root || c->oom || spend(c, 4 + (size_t)f->nvars) < 0) {
		mln_node_free(root);
		return -1;
	}
	g.root = root;
	g.weight = w;
	g.hard = hard;
	g.line = f->line;
	g.nvars = f->nvars;
	g.vars = xcalloc((size_t)f->nvars + 1, sizeof *g.vars);
	g.vartypes = xcalloc((size_t)f->nvars + 1, sizeof *g.vartypes);
	g.free = xcalloc((size_t)f->nvars + 1, sizeof *g.free);
	if (!g.vars || !g.vartypes || !g.free)
		goto fail;
	mark_vars(root, g.free);
	for (int i = 0; i < f->nvars; i++) {
		if (!(g.vars[i] = xstrdup(f->vars[i])))
			goto fail;
		g.vartypes[i] = f->vartypes[i];
		g.free[i] = f->free[i] || (g.free[i] && c->lifted[i]);
	}
	if (!(g.text = mln_formula_text(c->out, &g)) ||
	    VEC_PUSH(c->out->formulas, g) < 0)
		goto fail;
	return 0;
fail:
	mln_node_free(g.root);
	for (int i = 0; g.vars && i < f->nvars; i++)
		free(g.vars[i]);
	free(g.vars);
	free(g.vartypes);
	free(g.free);
	free(g.text);
	return -1;
}

/* A fresh auxiliary predicate over the free variables of c->f (and, if
 * lifted, the variables kept as clause variables); returns the atom
 * A(those variables), or NULL. */
static struct mln_node *
aux_atom(struct cctx *c, int k, int lifted)
{
	const struct mln_formula *f = c->f;
	struct mln_pred p = { 0 };
	struct mln_node *a;
	char name[64];
	int arity = 0, j = 0;

#define AUX_ARG(i) (f->free[i] || (lifted && c->lifted[i]))
	for (int i = 0; i < f->nvars; i++)
		arity += AUX_ARG(i);
	do
		snprintf(name, sizeof name, "_aux%d", k++);
	while (smap_get(&c->out->predmap, name) >= 0);
	p.arity = arity;
	p.aux = 1;
	p.line = f->line;
	if (!(p.name = xstrdup(name)) ||
	    !(p.types = xcalloc((size_t)arity + 1, sizeof *p.types)) ||
	    !(a = mk(c, MLN_ATOM, NULL, NULL))) {
		free(p.name);
		free(p.types);
		c->oom = 1;
		return NULL;
	}
	a->nargs = arity;
	if (!(a->args = xcalloc((size_t)arity + 1, sizeof *a->args))) {
		free(p.name);
		free(p.types);
		mln_node_free(a);
		c->oom = 1;
		return NULL;
	}
	for (int i = 0; i < f->nvars; i++)
		if (AUX_ARG(i)) {
			p.types[j] = f->vartypes[i];
			a->args[j].var = i;
			a->args[j].cst = -1;
			j++;
		}
	if (VEC_PUSH(c->out->preds, p) < 0) {
		free(p.name);
		free(p.types);
		mln_node_free(a);
		c->oom = 1;
		return NULL;
	}
	if (smap_put(&c->out->predmap, name, (int)c->out->preds.n - 1) < 0) {
		mln_node_free(a);  /* the model owns p now */
		c->oom = 1;
		return NULL;
	}
	a->pred = (int)c->out->preds.n - 1;
	return a;
#undef AUX_ARG
}

/* The NNF tree of !n, for an NNF tree n (a new tree). */
static struct mln_node *
nnf_not(struct cctx *c, const struct mln_node *n)
{
	struct mln_node *x;

	switch (n->kind) {
	case MLN_AND:
	case MLN_OR:
		x = nnf_not(c, n->a);
		return mk(c, n->kind == MLN_AND ? MLN_OR : MLN_AND, x,
		    nnf_not(c, n->b));
	case MLN_TRUE:
	case MLN_FALSE:
		return mk(c, n->kind == MLN_TRUE ? MLN_FALSE : MLN_TRUE, NULL,
		    NULL);
	default:
		if (spend(c, 1) < 0)
			return NULL;
		if (!(x = mln_node_copy(n->kind == MLN_NOT ? n->a : n)))
			c->oom = 1;
		return n->kind == MLN_NOT ? x : mk(c, MLN_NOT, x, NULL);
	}
}

/* Tseitin's encoding: the CNF x of the NNF tree n becomes the one
 * clause Y, Y a fresh atom over the formula's variables, with the hard
 * clauses of Y <=> n: (!Y v C) for each clause C of x, (Y v D) for each
 * clause D of !n.  Each world of the other atoms has one value of Y
 * that satisfies them, so Z, the marginals and the heaviest world are
 * as before, with clauses that add where distribution multiplies. */
static int
tseitin(struct cctx *c, const struct mln_node *n, cnf_t *x)
{
	struct mln_node *y = aux_atom(c, c->naux++, 1), *nn = NULL;
	cnf_t d = { 0 };
	clause_t one = { 0 };

	if (!y || VEC_PUSH(c->owned, y) < 0) {
		mln_node_free(y);
		c->oom = 1;
		return -1;
	}
	for (size_t i = 0; i < x->n && !c->oom; i++)
		if (add_formula(c, clause_node(c, &x->v[i], 0, mk(c, MLN_NOT,
		    mln_node_copy(y), NULL)), 0, 1) < 0)
			c->oom = 1;
	if (!c->oom && (!(nn = nnf_not(c, n)) || to_cnf(c, nn, &d) < 0))
		c->oom = 1;  /* without its (Y v D) clauses Y would be free */
	for (size_t i = 0; i < d.n && !c->oom; i++)
		if (add_formula(c, clause_node(c, &d.v[i], 0, copy_lit(c, y)),
		    0, 1) < 0)
			c->oom = 1;
	cnf_free(&d);
	mln_node_free(nn);
	cnf_free(x);
	if (c->oom || VEC_PUSH(one, y) < 0 || VEC_PUSH(*x, one) < 0) {
		free(one.v);
		c->oom = 1;
		return -1;
	}
	return 0;
}

/* Nodes of the tree n, counting up to cap. */
static size_t
tree_size(const struct mln_node *n, size_t cap)
{
	size_t k = 0;

	if (!n)
		return 0;
	k = 1 + tree_size(n->a, cap);
	return k >= cap ? k : k + tree_size(n->b, cap - k);
}

/* The NNF tree s, or when it has more than NAMED_SIZE nodes a Tseitin
 * atom Y with hard clauses Y <=> s (s consumed): a side of <=> appears
 * twice, so a chain of k of them doubled k times (24 links in 150 bytes
 * made 2^24 copies); named, it grows by a few clauses per link. */
#define NAMED_SIZE 64

static struct mln_node *
named(struct cctx *c, struct mln_node *s)
{
	cnf_t x = { 0 };
	struct mln_node *y = NULL;

	if (!s || tree_size(s, NAMED_SIZE + 1) <= NAMED_SIZE)
		return s;
	if (to_cnf(c, s, &x) == 0 && tseitin(c, s, &x) == 0 &&
	    !(y = mln_node_copy(x.v[0].v[0])))
		c->oom = 1;
	cnf_free(&x);
	mln_node_free(s);
	return y;
}

/* Constant val of model arg is named by key (smap_copy's callback). */
static void
const_name(void *arg, const char *key, int val)
{
	struct mln_model *o = arg;

	o->consts.v[val] = (char *)key;
}

/* Copies types, predicates and constants of m into a new model. */
static struct mln_model *
copy_signature(const struct mln_model *m)
{
	struct mln_model *o = xcalloc(1, sizeof *o);

	if (!o || !(o->file = xstrdup(m->file)) ||
	    (m->consts.n && !(o->consts.v = xcalloc(m->consts.n,
	    sizeof *o->consts.v))))
		goto fail;
	o->consts.n = o->consts.cap = m->consts.n;
	if (smap_copy(&o->constmap, &m->constmap, const_name, o) < 0)
		goto fail;
	for (size_t i = 0; i < m->types.n; i++) {
		struct mln_type t = { 0 };
		if (!(t.name = xstrdup(m->types.v[i].name)) ||
		    VEC_PUSH(o->types, t) < 0) {
			free(t.name);
			goto fail;
		}
		if (smap_put(&o->typemap, t.name, (int)i) < 0)
			goto fail;
		for (size_t k = 0; k < m->types.v[i].consts.n; k++)
			if (mln_type_add_const(o, (int)i, m->types.v[i].consts.v[k]) < 0)
				goto fail;
	}
	for (size_t i = 0; i < m->preds.n; i++) {
		struct mln_pred p = m->preds.v[i];
		p.name = xstrdup(p.name);
		p.types = xcalloc((size_t)p.arity + 1, sizeof *p.types);
		if (!p.name || !p.types) {
			free(p.name);
			free(p.types);
			goto fail;
		}
		memcpy(p.types, m->preds.v[i].types, (size_t)p.arity * sizeof *p.types);
		if (VEC_PUSH(o->preds, p) < 0) {
			free(p.name);
			free(p.types);
			goto fail;
		}
		if (smap_put(&o->predmap, p.name, (int)i) < 0)
			goto fail;
	}
	return o;
fail:
	mln_free(o);
	return NULL;
}

/* A soft formula F with weight w != 0 whose G (F if w > 0, else !F) has
 * a universal quantifier to keep: hard clauses A => G, the weight
 * log(e^|w| - 1) on A and the constant min(w, 0) per grounding.  Returns
 * 1 if done, 0 if G has no such quantifier (nothing added), -1 when out
 * of memory. */
static int
lifted_soft(struct cctx *c, int naux, double groundings, double *log_const)
{
	const struct mln_formula *f = c->f;
	double a = fabs(f->weight);
	struct mln_node *g, *x;
	cnf_t cg = { 0 };
	int any = 0, rc = -1;

	c->lift = 1;
	g = nnf(c, f->root, f->weight < 0);
	c->lift = 0;
	for (int i = 0; i < f->nvars; i++)
		any |= c->lifted[i];
	if (!g || c->oom || !any) {
		mln_node_free(g);
		return c->oom ? -1 : 0;
	}
	if (to_cnf(c, g, &cg) < 0 || !(x = aux_atom(c, naux, 0)))
		goto done;
	for (size_t i = 0; i < cg.n && !c->oom; i++) {
		struct mln_node *na = mk(c, MLN_NOT, mln_node_copy(x), NULL);
		if (add_formula(c, clause_node(c, &cg.v[i], 0, na), 0, 1) < 0)
			c->oom = 1;
	}
	if (c->oom)
		mln_node_free(x);
	else if (add_formula(c, x, c->max ? a : a + log(-expm1(-a)), 0) == 0)
		rc = 1;
	*log_const += fmin(f->weight, 0) * groundings;
done:
	cnf_free(&cg);
	mln_node_free(g);
	return rc;
}

int
mln_to_clauses(const struct mln_model *m, const struct mln_domain *d, int max,
    struct mln_model **out, double *log_const, struct err *e)
{
	struct cctx c = { 0 };
	int naux = 1;

	*out = NULL;
	*log_const = 0;
	c.m = m;
	c.d = d;
	c.max = max;
	c.naux = 1;
	c.work_max = work_fixed;
	for (size_t t = 0; t < m->types.n; t++)
		c.work_max += CNF_WORK_PER_CONST * (size_t)d[t].n;
	if (!(c.out = copy_signature(m)))
		return err_oom(e);
	for (size_t k = 0; k < m->formulas.n && !c.oom; k++) {
		const struct mln_formula *f = &m->formulas.v[k];
		struct mln_node *pos = NULL, *neg = NULL;
		cnf_t cp = { 0 }, cn = { 0 };
		double groundings = 1;
		int units = 1, quant;

		c.f = f;
		c.work = 0;
		free(c.subst);
		free(c.once);
		free(c.lifted);
		c.subst = xmalloc(((size_t)f->nvars + 1) * sizeof *c.subst);
		c.once = xcalloc((size_t)f->nvars + 1, sizeof *c.once);
		c.lifted = xcalloc((size_t)f->nvars + 1, sizeof *c.lifted);
		if (!c.subst || !c.once || !c.lifted) {
			c.oom = 1;
			break;
		}
		quant = count_bound(f->root, c.once);
		for (int i = 0; i < f->nvars; i++) {
			c.subst[i] = -1;
			c.once[i] = c.once[i] == 1;
			if (f->free[i])
				groundings *= d[f->vartypes[i]].n;
		}
		if (!f->hard && f->weight == 0)
			continue;
		if (quant && !f->hard) {
			switch (lifted_soft(&c, naux, groundings, log_const)) {
			case 1:
				naux++;
				continue;
			case -1:
				c.oom = 1;
				continue;
			}
			c.work = 0;  /* nothing kept: the formula starts afresh */
		}
		c.lift = f->hard;
		if (!(pos = nnf(&c, f->root, 0)) || to_cnf(&c, pos, &cp) < 0) {
			c.oom = 1;
			goto next;
		}
		for (size_t i = 0; i < cp.n; i++)
			units &= cp.v[i].n == 1;
		if (f->hard) {
			for (size_t i = 0; i < cp.n; i++)
				if (add_formula(&c, clause_node(&c, &cp.v[i], 0, NULL),
				    0, 1) < 0)
					c.oom = 1;
		} else if (cp.n == 0) {
			*log_const += f->weight * groundings;  /* always true */
		} else if (cp.n == 1) {
			if (add_formula(&c, clause_node(&c, &cp.v[0], 0, NULL),
			    f->weight, 0) < 0)
				c.oom = 1;
		} else if (units) {
			/* w [l1 ^ ... ^ lk] = w - w [!l1 v ... v !lk] */
			clause_t all = { 0 };
			for (size_t i = 0; i < cp.n; i++)
				if (VEC_PUSH(all, cp.v[i].v[0]) < 0)
					c.oom = 1;
			if (!c.oom && add_formula(&c, clause_node(&c, &all, 1, NULL),
			    -f->weight, 0) < 0)
				c.oom = 1;
			free(all.v);
			*log_const += f->weight * groundings;
		} else {
			/* A <=> F: (!A v C) for each clause C of F, (A v D) for
			 * each clause D of !F, and the weight on A */
			struct mln_node *a = aux_atom(&c, naux++, 0);
			if (!a || !(neg = nnf(&c, f->root, 1)) || to_cnf(&c, neg, &cn) < 0) {
				mln_node_free(a);
				c.oom = 1;
				goto next;
			}
			for (size_t i = 0; i < cp.n && !c.oom; i++) {
				struct mln_node *na = mk(&c, MLN_NOT, mln_node_copy(a), NULL);
				if (add_formula(&c, clause_node(&c, &cp.v[i], 0, na), 0, 1) < 0)
					c.oom = 1;
			}
			for (size_t i = 0; i < cn.n && !c.oom; i++)
				if (add_formula(&c, clause_node(&c, &cn.v[i], 0,
				    copy_lit(&c, a)), 0, 1) < 0)
					c.oom = 1;
			if (!c.oom && add_formula(&c, a, f->weight, 0) < 0)
				c.oom = 1;
			else if (c.oom)
				mln_node_free(a);
		}
next:
		cnf_free(&cp);
		cnf_free(&cn);
		mln_node_free(pos);
		mln_node_free(neg);
	}
	free(c.subst);
	free(c.once);
	free(c.lifted);
	for (size_t i = 0; i < c.owned.n; i++)
		mln_node_free(c.owned.v[i]);
	free(c.owned.v);
	if (c.oom) {
		mln_free(c.out);
		if (c.big)
			return err_set(e, SQLIFT_ELIMIT, "%s:%d: the formula's "
			    "clauses over the domains pass %zu nodes (each <=> "
			    "doubles its sides, each quantifier multiplies them "
			    "by its domain); split it with auxiliary predicates",
			    m->file, c.f->line, c.work_max);
		return err_oom(e);
	}
	*out = c.out;
	return 0;
}
