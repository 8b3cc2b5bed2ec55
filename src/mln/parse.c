/* parse.c: recursive-descent parser for Alchemy .mln files
 * (declarations, inline domains, weighted and hard formulas), with Tuffy's
 * closed-world '*' on declarations, over the tokens of lex.c.  Errors
 * name file:line:column. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "mln/lex.h"
#include "mln/mln.h"

/* how many constants of a domain list ahead their map slot is fetched */
#define PREFETCH_AHEAD 8

struct parser {
	struct mln_model *m;
	const char *file;
	struct err *e;
	struct tokens toks;
	size_t pos, end;       /* current token, end of current statement */
	/* the formula being parsed */
	VEC(char *) vars;
	VEC(int) vartypes;
	int nbound;            /* vars bound by an enclosing quantifier */
	int depth;             /* nesting of '(', '!' and quantifiers */
	int nlits;             /* literals so far */
	long max_domain;       /* constants a domain declaration may give */
};

static int
perr(struct parser *p, const struct token *t, const char *fmt, ...)
    PRINTF(3, 4);

static int
perr(struct parser *p, const struct token *t, const char *fmt, ...)
{
	char msg[ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(p->e, SQLIFT_EINPUT, "%s:%d:%d: %s", p->file, t->line,
	    t->col, msg);
}

static int
is_binop(enum tok t)
{
	return t == T_AND || t == T_OR || t == T_IMP || t == T_IFF;
}

/* Finds the end of the statement that starts at p->pos: a line end with
 * balanced brackets, not after a binary operator or '!', and not before a
 * line that starts with a binary operator (formulas may span lines). */
static void
stmt_bounds(struct parser *p)
{
	size_t i = p->pos;
	int depth = 0;

	for (;; i++) {
		enum tok t = p->toks.v[i].t;
		if (t == T_EOF)
			break;
		if (t == T_LP || t == T_LB)
			depth++;
		else if ((t == T_RP || t == T_RB) && depth > 0)
			depth--;
		else if (t == T_NL && depth == 0) {
			size_t j = i;
			enum tok prev = i > p->pos ? p->toks.v[i - 1].t : T_NL;
			if (is_binop(prev) || prev == T_NOT || prev == T_COMMA)
				continue;
			while (p->toks.v[j].t == T_NL)
				j++;
			if (is_binop(p->toks.v[j].t))
				continue;
			break;
		}
	}
	p->end = i;
}

static const struct token *
peek(struct parser *p)
{
	/* line ends inside a statement are continuation: skip them */
	while (p->pos < p->end && p->toks.v[p->pos].t == T_NL)
		p->pos++;
	if (p->pos >= p->end)
		return &p->toks.v[p->end];
	return &p->toks.v[p->pos];
}

static const struct token *
next(struct parser *p)
{
	const struct token *t = peek(p);
	if (p->pos < p->end)
		p->pos++;
	return t;
}

/* A better-worded expect that prints the token text. */
static int
unexpected(struct parser *p, const struct token *k, const char *what)
{
	if (k->t == T_NL || k->t == T_EOF)
		return perr(p, k, "expected %s, found %s", what, lex_tok_name(k->t));
	return perr(p, k, "expected %s, found '%.*s'", what, k->len, k->s);
}

static int
want(struct parser *p, enum tok t, const char *what)
{
	const struct token *k = peek(p);

	if (k->t != t)
		return unexpected(p, k, what);
	next(p);
	return 0;
}

static int
is_var_name(const struct token *t)
{
	return t->t == T_IDENT && islower((unsigned char)t->s[0]);
}

int
mln_const(struct mln_model *m, const char *name)
{
	const char *kept;
	int c = smap_intern(&m->constmap, name, strlen(name), (int)m->consts.n,
	    &kept);

	if (c < 0 || c < (int)m->consts.n)
		return c;
	/* the name is the map's copy, which lives as long as the model */
	if (VEC_PUSH(m->consts, (char *)kept) < 0)
		return -1;  /* a call again for name would push it again */
	return c;
}

int
mln_type_add_const(struct mln_model *m, int t, int c)
{
	struct mln_type *ty = &m->types.v[t];

	if (idset_has(&ty->member, c))
		return 0;
	if (VEC_PUSH(ty->consts, c) < 0)
		return -1;
	if (idset_add(&ty->member, c) < 0) {
		ty->consts.n--;
		return -1;
	}
	return 0;
}

static int
type_get(struct mln_model *m, const char *s, int len)
{
	struct mln_type ty = { 0 };
	int t = smap_getn(&m->typemap, s, (size_t)len);

	if (t >= 0)
		return t;
	if (!(ty.name = xstrndup(s, (size_t)len)))
		return -1;
	if (VEC_PUSH(m->types, ty) < 0) {
		free(ty.name);
		return -1;
	}
	t = (int)m->types.n - 1;
	if (smap_putn(&m->typemap, s, (size_t)len, t) < 0)
		return -1;
	return t;
}

void
mln_node_free(struct mln_node *n)
{
	if (!n)
		return;
	mln_node_free(n->a);
	mln_node_free(n->b);
	free(n->args);
	free(n->qvars);
	free(n);
}

static struct mln_node *
node_new(enum mln_kind k, struct mln_node *a, struct mln_node *b)
{
	struct mln_node *n = xcalloc(1, sizeof *n);

	if (!n) {
		mln_node_free(a);
		mln_node_free(b);
		return NULL;
	}
	n->kind = k;
	n->a = a;
	n->b = b;
	return n;
}

struct mln_node *
mln_node_copy(const struct mln_node *n)
{
	struct mln_node *c;

	if (!n)
		return NULL;
	if (!(c = xcalloc(1, sizeof *c)))
		return NULL;
	*c = *n;
	c->a = c->b = NULL;
	c->args = NULL;
	c->qvars = NULL;
	if (n->nargs && !(c->args = xmalloc(n->nargs * sizeof *c->args)))
		goto fail;
	if (n->nargs)
		memcpy(c->args, n->args, n->nargs * sizeof *c->args);
	if (n->nq && !(c->qvars = xmalloc(n->nq * sizeof *c->qvars)))
		goto fail;
	if (n->nq)
		memcpy(c->qvars, n->qvars, n->nq * sizeof *c->qvars);
	if ((n->a && !(c->a = mln_node_copy(n->a))) ||
	    (n->b && !(c->b = mln_node_copy(n->b))))
		goto fail;
	return c;
fail:
	mln_node_free(c);
	return NULL;
}

/* Variable index by name in the current formula, adding it if new. */
static int
var_get(struct parser *p, const struct token *t)
{
	char *name;

	for (size_t i = 0; i < p->vars.n; i++)
		if ((int)strlen(p->vars.v[i]) == t->len &&
		    !strncmp(p->vars.v[i], t->s, (size_t)t->len))
			return (int)i;
	if (!(name = xstrndup(t->s, (size_t)t->len)))
		return -1;
	if (VEC_PUSH(p->vars, name) < 0) {
		free(name);
		return -1;
	}
	if (VEC_PUSH(p->vartypes, -1) < 0)
		return -1;
	return (int)p->vars.n - 1;
}

/* Gives variable v type ty, or reports a clash at token t. */
static int
var_type(struct parser *p, const struct token *t, int v, int ty)
{
	int old = p->vartypes.v[v];

	if (old >= 0 && old != ty)
		return perr(p, t, "variable %s is used as %s and as %s",
		    p->vars.v[v], p->m->types.v[old].name, p->m->types.v[ty].name);
	p->vartypes.v[v] = ty;
	return 0;
}

static int parse_formula(struct parser *p, struct mln_node **out);

/* Enters one level of nesting at token t; the caller leaves with
 * p->depth-- once done. */
static int
nest_enter(struct parser *p, const struct token *t)
{
	if (++p->depth > MLN_MAX_DEPTH)
		return perr(p, t, "formula nested deeper than %d levels of "
		    "'(', '!' and quantifiers", MLN_MAX_DEPTH);
	return 0;
}

/* Counts one more literal of the formula, at token t. */
static int
lit_count(struct parser *p, const struct token *t)
{
	if (++p->nlits > MLN_MAX_FORMULA_LITS)
		return perr(p, t, "a formula of more than %d literals",
		    MLN_MAX_FORMULA_LITS);
	return 0;
}

/* term := var | +var | Constant | "quoted" | number */
static int
parse_term(struct parser *p, struct mln_term *out, const struct token **at)
{
	const struct token *t = next(p);
	char name[1024];

	*at = t;
	if (t->t == T_PLUS) {
		/* Alchemy's per-constant weights: at inference each constant
		 * gets the same weight, which is the plain variable. */
		t = next(p);
		*at = t;
		if (!is_var_name(t))
			return unexpected(p, t, "a variable after '+'");
	}
	if (is_var_name(t)) {
		out->var = var_get(p, t);
		out->cst = -1;
		return out->var < 0 ? err_oom(p->e) : 0;
	}
	if (t->t != T_IDENT && t->t != T_STR && t->t != T_NUM)
		return unexpected(p, t, "a variable or constant");
	if (t->t == T_NUM && (t->s[0] == '-' || t->s[0] == '+' ||
	    memchr(t->s, '.', (size_t)t->len)))
		return unexpected(p, t, "a variable or constant");
	if (t->len >= (int)sizeof name)
		return perr(p, t, "constant longer than %zu characters",
		    sizeof name - 1);
	memcpy(name, t->s, (size_t)t->len);
	name[t->len] = '\0';
	out->var = -1;
	out->cst = mln_const(p->m, name);
	return out->cst < 0 ? err_oom(p->e) : 0;
}

/* Records the type of a term in argument position of type ty. */
static int
term_typed(struct parser *p, const struct token *t, struct mln_term *x, int ty)
{
	if (x->var >= 0)
		return var_type(p, t, x->var, ty);
	if (mln_type_add_const(p->m, ty, x->cst) < 0)
		return err_oom(p->e);
	return 0;
}

static int
parse_atom(struct parser *p, struct mln_node **out)
{
	const struct token *name = next(p), *at, *open;
	struct mln_node *n;
	struct mln_pred *pr;
	int pi, rc, i;

	pi = smap_getn(&p->m->predmap, name->s, (size_t)name->len);
	if (pi < 0)
		return perr(p, name, "unknown predicate %.*s", name->len, name->s);
	if ((rc = lit_count(p, name)))
		return rc;
	pr = &p->m->preds.v[pi];
	if (!(n = node_new(MLN_ATOM, NULL, NULL)))
		return err_oom(p->e);
	n->pred = pi;
	n->nargs = pr->arity;
	if (!(n->args = xcalloc((size_t)pr->arity, sizeof *n->args))) {
		mln_node_free(n);
		return err_oom(p->e);
	}
	open = peek(p);
	if ((rc = want(p, T_LP, "'('")))
		goto fail;
	for (i = 0; i < pr->arity; i++) {
		if (peek(p)->t == T_NL || peek(p)->t == T_EOF) {
			rc = perr(p, open, "unclosed atom: this '(' is not closed");
			goto fail;
		}
		if (i > 0 && (rc = want(p, T_COMMA, "','")))
			goto fail;
		if (i == 0 && peek(p)->t == T_RP) {
			rc = perr(p, peek(p), "%s takes %d argument%s, found 0",
			    pr->name, pr->arity, pr->arity == 1 ? "" : "s");
			goto fail;
		}
		if ((rc = parse_term(p, &n->args[i], &at)) ||
		    (rc = term_typed(p, at, &n->args[i], pr->types[i])))
			goto fail;
	}
	if (peek(p)->t == T_COMMA) {
		rc = perr(p, peek(p), "%s takes %d argument%s, found more",
		    pr->name, pr->arity, pr->arity == 1 ? "" : "s");
		goto fail;
	}
	if (peek(p)->t == T_NL || peek(p)->t == T_EOF) {
		rc = perr(p, open, "unclosed atom: this '(' is not closed");
		goto fail;
	}
	if ((rc = want(p, T_RP, "')'")))
		goto fail;
	*out = n;
	return 0;
fail:
	mln_node_free(n);
	return rc;
}

/* t1 = t2 between two terms */
static int
parse_eq(struct parser *p, struct mln_node **out)
{
	const struct token *at;
	struct mln_node *n;
	int rc;

	if ((rc = lit_count(p, peek(p))))
		return rc;
	n = node_new(MLN_EQ, NULL, NULL);
	if (!n || !(n->args = xcalloc(2, sizeof *n->args))) {
		mln_node_free(n);
		return err_oom(p->e);
	}
	n->nargs = 2;
	if ((rc = parse_term(p, &n->args[0], &at)) ||
	    (rc = want(p, T_EQ, "'='")) ||
	    (rc = parse_term(p, &n->args[1], &at))) {
		mln_node_free(n);
		return rc;
	}
	n->pred = -1;
	*out = n;
	return 0;
}

static int
parse_quant(struct parser *p, struct mln_node **out)
{
	const struct token *q = next(p);
	struct mln_node *n;
	VEC(int) vs = { 0 };
	int rc;

	if ((rc = nest_enter(p, q)))
		return rc;
	n = node_new(q->t == T_EXIST ? MLN_EXIST : MLN_FORALL, NULL, NULL);
	if (!n)
		return err_oom(p->e);
	do {
		const struct token *t = next(p);
		int v;
		if (!is_var_name(t)) {
			rc = unexpected(p, t, "a variable after the quantifier");
			goto fail;
		}
		if ((v = var_get(p, t)) < 0 || VEC_PUSH(vs, v) < 0) {
			rc = err_oom(p->e);
			goto fail;
		}
	} while (peek(p)->t == T_COMMA && next(p));
	n->qvars = vs.v;
	n->nq = (int)vs.n;
	vs.v = NULL;
	if ((rc = parse_formula(p, &n->a)))
		goto fail;
	p->depth--;
	*out = n;
	return 0;
fail:
	free(vs.v);
	mln_node_free(n);
	return rc;
}

static int
parse_unary(struct parser *p, struct mln_node **out)
{
	const struct token *t = peek(p);
	int rc;

	if (t->t == T_NOT) {
		struct mln_node *a = NULL;
		if ((rc = nest_enter(p, next(p))))
			return rc;
		rc = parse_unary(p, &a);
		p->depth--;
		if (rc)
			return rc;
		if (!(*out = node_new(MLN_NOT, a, NULL)))
			return err_oom(p->e);
		return 0;
	}
	if (t->t == T_LP) {
		const struct token *open = next(p);
		if ((rc = nest_enter(p, open)))
			return rc;
		rc = parse_formula(p, out);
		p->depth--;
		if (rc)
			return rc;
		if (peek(p)->t != T_RP) {
			const struct token *k = peek(p);
			mln_node_free(*out);
			*out = NULL;
			if (k->t == T_NL || k->t == T_EOF)
				return perr(p, open, "unbalanced parentheses: this '(' "
				    "is not closed");
			return unexpected(p, k, "')'");
		}
		next(p);
		return 0;
	}
	if (t->t == T_EXIST || t->t == T_FORALL)
		return parse_quant(p, out);
	if (t->t == T_STAR)
		return perr(p, t, "'*' on a literal (Alchemy's mutual-exclusion "
		    "shorthand) is not supported");
	if (t->t == T_IDENT && p->pos + 1 < p->end &&
	    p->toks.v[p->pos + 1].t == T_LP)
		return parse_atom(p, out);
	if (t->t == T_IDENT || t->t == T_STR || t->t == T_NUM || t->t == T_PLUS)
		return parse_eq(p, out);
	return unexpected(p, t, "an atom, '!', '(' or a quantifier");
}

typedef int (*parse_fn)(struct parser *, struct mln_node **);

/* left-associative binary level: sub (op sub)* */
static int
parse_left(struct parser *p, struct mln_node **out, enum tok op,
    enum mln_kind k, parse_fn sub)
{
	struct mln_node *l = NULL, *r = NULL;
	int rc;

	if ((rc = sub(p, &l)))
		return rc;
	while (peek(p)->t == op) {
		next(p);
		if ((rc = sub(p, &r))) {
			mln_node_free(l);
			return rc;
		}
		if (!(l = node_new(k, l, r)))
			return err_oom(p->e);
	}
	*out = l;
	return 0;
}

static int
parse_and(struct parser *p, struct mln_node **out)
{
	return parse_left(p, out, T_AND, MLN_AND, parse_unary);
}

static int
parse_or(struct parser *p, struct mln_node **out)
{
	return parse_left(p, out, T_OR, MLN_OR, parse_and);
}

/* right-associative implication: the operands in a row, then the tree
 * from the right (a loop, so a long chain needs no deep recursion) */
static int
parse_imp(struct parser *p, struct mln_node **out)
{
	VEC(struct mln_node *) v = { 0 };
	struct mln_node *x = NULL, *r;
	int rc;

	for (;;) {
		if ((rc = parse_or(p, &x)))
			goto fail;
		if (VEC_PUSH(v, x) < 0) {
			mln_node_free(x);
			rc = err_oom(p->e);
			goto fail;
		}
		if (peek(p)->t != T_IMP)
			break;
		next(p);
	}
	r = v.v[--v.n];
	while (v.n > 0) {
		if (!(r = node_new(MLN_IMPLIES, v.v[--v.n], r))) {
			rc = err_oom(p->e);
			goto fail;
		}
	}
	free(v.v);
	*out = r;
	return 0;
fail:
	while (v.n > 0)
		mln_node_free(v.v[--v.n]);
	free(v.v);
	return rc;
}

static int
parse_formula(struct parser *p, struct mln_node **out)
{
	const struct token *t = peek(p);

	if (t->t == T_EXIST || t->t == T_FORALL)
		return parse_quant(p, out);
	return parse_left(p, out, T_IFF, MLN_IFF, parse_imp);
}

/* Checks variable use and fills free[]: a quantified variable may not
 * also be used outside its quantifier, and every variable needs a type. */
static int
check_vars(struct parser *p, const struct mln_node *n, int *bound, int *used,
    const struct token *at)
{
	int rc = 0;

	if (!n)
		return 0;
	if (n->kind == MLN_ATOM || n->kind == MLN_EQ) {
		for (int i = 0; i < n->nargs; i++) {
			int v = n->args[i].var;
			if (v < 0)
				continue;
			used[v] |= bound[v] ? 2 : 1;
		}
		return 0;
	}
	if (n->kind == MLN_EXIST || n->kind == MLN_FORALL) {
		for (int i = 0; i < n->nq; i++) {
			if (bound[n->qvars[i]])
				return perr(p, at, "variable %s is quantified twice",
				    p->vars.v[n->qvars[i]]);
			bound[n->qvars[i]] = 1;
		}
		rc = check_vars(p, n->a, bound, used, at);
		for (int i = 0; i < n->nq; i++)
			bound[n->qvars[i]] = 0;
		return rc;
	}
	if ((rc = check_vars(p, n->a, bound, used, at)))
		return rc;
	return check_vars(p, n->b, bound, used, at);
}

/* Equalities give types: a variable equal to a typed variable shares
 * its type; a constant equal to a typed variable joins its domain. */
static int
type_equalities(struct parser *p, struct mln_node *n, const struct token *at,
    int *changed)
{
	int rc;

	if (!n)
		return 0;
	if (n->kind == MLN_EQ) {
		struct mln_term *x = &n->args[0], *y = &n->args[1];
		int tx = x->var >= 0 ? p->vartypes.v[x->var] : -1;
		int ty = y->var >= 0 ? p->vartypes.v[y->var] : -1;
		if (x->var >= 0 && y->var >= 0) {
			if (tx >= 0 && ty >= 0 && tx != ty)
				return perr(p, at, "'%s = %s' compares a %s with a %s",
				    p->vars.v[x->var], p->vars.v[y->var],
				    p->m->types.v[tx].name, p->m->types.v[ty].name);
			if (tx >= 0 && ty < 0)
				p->vartypes.v[y->var] = tx, *changed = 1;
			if (ty >= 0 && tx < 0)
				p->vartypes.v[x->var] = ty, *changed = 1;
		} else if (x->var >= 0 && tx >= 0) {
			if ((rc = term_typed(p, at, y, tx)))
				return rc;
		} else if (y->var >= 0 && ty >= 0) {
			if ((rc = term_typed(p, at, x, ty)))
				return rc;
		}
		return 0;
	}
	if ((rc = type_equalities(p, n->a, at, changed)))
		return rc;
	return type_equalities(p, n->b, at, changed);
}

static void
formula_clear(struct parser *p)
{
	for (size_t i = 0; i < p->vars.n; i++)
		free(p->vars.v[i]);
	p->vars.n = 0;
	p->vartypes.n = 0;
}

/* The value of a number token, read whole however long; -1 on out of
 * memory. */
static int
parse_number(const struct token *t, double *v)
{
	char *s = xstrndup(t->s, (size_t)t->len);

	if (!s)
		return -1;
	*v = strtod(s, NULL);
	free(s);
	return 0;
}

/* If n (negated when neg) is a chain of op (MLN_OR or MLN_AND) over
 * literals, the number of its literals; otherwise -1. */
static int
flat_lits(const struct mln_node *n, int neg, enum mln_kind op)
{
	enum mln_kind k = n->kind;
	int a, b;

	if (k == MLN_ATOM || k == MLN_EQ)
		return 1;
	if (k == MLN_NOT)
		return flat_lits(n->a, !neg, op);
	if (k == MLN_AND || k == MLN_OR) {
		if ((k == op) == neg)
			return -1;
		a = flat_lits(n->a, neg, op);
		b = flat_lits(n->b, neg, op);
		return a < 0 || b < 0 ? -1 : a + b;
	}
	if (k == MLN_IMPLIES) {
		/* a => b is !a v b */
		if ((op == MLN_OR) == neg)
			return -1;
		a = flat_lits(n->a, !neg, op);
		b = flat_lits(n->b, neg, op);
		return a < 0 || b < 0 ? -1 : a + b;
	}
	return -1;
}

/* The formula becomes one clause of its literals (mln_to_clauses): a
 * disjunction, or a soft conjunction (negated); the engine takes at most
 * MLN_MAX_CLAUSE_LITS of them. */
static int
check_clause_size(struct parser *p, const struct mln_formula *f,
    const struct token *at)
{
	int n = flat_lits(f->root, 0, MLN_OR);

	if (n < 0 && !f->hard)
		n = flat_lits(f->root, 0, MLN_AND);
	if (n > MLN_MAX_CLAUSE_LITS && (f->hard || f->weight != 0))
		return perr(p, at, "a clause of %d literals; the lifted "
		    "methods handle at most %d", n, MLN_MAX_CLAUSE_LITS);
	return 0;
}

static int
parse_formula_stmt(struct parser *p)
{
	const struct token *first = peek(p), *t;
	struct mln_formula f = { 0 };
	struct mln_node *root = NULL;
	int rc, *bound = NULL, *used = NULL, changed;
	size_t i;

	f.line = first->line;
	p->depth = 0;
	p->nlits = 0;
	if (first->t == T_NUM) {
		if (parse_number(first, &f.weight) < 0)
			return err_oom(p->e);
		if (!isfinite(f.weight))
			return perr(p, first, "weight is not a finite number");
		next(p);
	}
	if (peek(p)->t == T_AT)
		return perr(p, peek(p), "Tuffy's '@' weight syntax is not supported");
	if ((rc = parse_formula(p, &root)))
		goto fail;
	t = peek(p);
	if (t->t == T_DOT) {
		if (first->t == T_NUM) {
			rc = perr(p, t, "a formula has a weight or ends in '.' "
			    "(hard), not both");
			goto fail;
		}
		f.hard = 1;
		next(p);
		t = peek(p);
	}
	f.unweighted = first->t != T_NUM && !f.hard;
	if (t->t == T_RP) {
		rc = perr(p, t, "unbalanced parentheses: ')' without '('");
		goto fail;
	}
	if (t->t != T_NL && t->t != T_EOF) {
		rc = unexpected(p, t, "an operator or the end of the formula");
		goto fail;
	}
	f.root = root;
	if ((rc = check_clause_size(p, &f, first)))
		goto fail;
	bound = xcalloc(p->vars.n, sizeof *bound);
	used = xcalloc(p->vars.n, sizeof *used);
	if (!bound || !used) {
		rc = err_oom(p->e);
		goto fail;
	}
	if ((rc = check_vars(p, root, bound, used, first)))
		goto fail;
	do {
		changed = 0;
		if ((rc = type_equalities(p, root, first, &changed)))
			goto fail;
	} while (changed);
	for (i = 0; i < p->vars.n; i++) {
		if (used[i] == 3) {
			rc = perr(p, first, "variable %s is used both inside and "
			    "outside its quantifier", p->vars.v[i]);
			goto fail;
		}
		if (p->vartypes.v[i] < 0) {
			rc = perr(p, first, "the type of variable %s is unknown: "
			    "it appears in no predicate", p->vars.v[i]);
			goto fail;
		}
	}
	f.root = root;
	f.nvars = (int)p->vars.n;
	f.vars = p->vars.v;
	f.vartypes = p->vartypes.v;
	f.free = used;
	for (i = 0; i < p->vars.n; i++)
		f.free[i] = used[i] == 1;
	p->vars.v = NULL, p->vars.n = p->vars.cap = 0;
	p->vartypes.v = NULL, p->vartypes.n = p->vartypes.cap = 0;
	free(bound);
	if (VEC_PUSH(p->m->formulas, f) < 0) {
		mln_node_free(f.root);
		for (i = 0; i < (size_t)f.nvars; i++)
			free(f.vars[i]);
		free(f.vars);
		free(f.vartypes);
		free(f.free);
		return err_oom(p->e);
	}
	return 0;
fail:
	free(bound);
	free(used);
	mln_node_free(root);
	formula_clear(p);
	return rc;
}

/* The value of a plain integer token of at most nine digits. */
static int
int_value(const struct token *t, long *v)
{
	long r = 0;
	int i = 0, neg = 0;

	if (t->t != T_NUM)
		return -1;
	if (t->s[0] == '-' || t->s[0] == '+')
		neg = t->s[i++] == '-';
	if (t->len - i < 1 || t->len - i > 9)
		return -1;
	for (; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -1;
		r = r * 10 + (t->s[i] - '0');
	}
	*v = neg ? -r : r;
	return 0;
}

/* name = { C1, C2, ... } with integer ranges {0,...,9} */
static int
parse_domain(struct parser *p)
{
	const struct token *name = next(p), *t;
	int ty, have_num = 0;
	long last_num = 0;
	char buf[1024];

	if (smap_getn(&p->m->typemap, name->s, (size_t)name->len) >= 0) {
		int t0 = smap_getn(&p->m->typemap, name->s, (size_t)name->len);
		if (p->m->types.v[t0].consts.n)
			return perr(p, name, "domain of %.*s declared twice",
			    name->len, name->s);
	}
	if ((ty = type_get(p->m, name->s, name->len)) < 0)
		return err_oom(p->e);
	next(p); /* = */
	if (want(p, T_LB, "'{'"))
		return p->e->status;
	if (peek(p)->t == T_RB) {
		next(p);
		return 0;
	}
	/* room for a constant every other token: no rehash on the way */
	if (smap_reserve(&p->m->constmap, p->m->consts.n +
	    (p->end - p->pos) / 2 + 1) < 0)
		return err_oom(p->e);
	for (;;) {
		/* the slot of the constant PREFETCH_AHEAD ahead (every other
		 * token) is fetched while this one is interned */
		const struct token *ahead = p->pos + 2 * PREFETCH_AHEAD < p->end ?
		    &p->toks.v[p->pos + 2 * PREFETCH_AHEAD] : NULL;
		if (ahead && (ahead->t == T_IDENT || ahead->t == T_STR ||
		    ahead->t == T_NUM))
			smap_prefetch(&p->m->constmap, ahead->s, (size_t)ahead->len);
		t = next(p);
		if (t->t == T_ELLIPSIS) {
			const struct token *hi;
			long h;
			if (peek(p)->t == T_COMMA)
				next(p);
			hi = next(p);
			if (!have_num || hi->t != T_NUM)
				return perr(p, t, "'...' needs integers on both sides");
			if (int_value(hi, &h) < 0)
				return perr(p, hi, "'...' needs integers on both sides");
			if (h - last_num > 10000000)
				return perr(p, t, "range too large");
			if (h - last_num > p->max_domain -
			    (long)p->m->types.v[ty].consts.n)
				return perr(p, hi, "domain of %.*s has more than %ld "
				    "constants (raise the limit with --max-domain)",
				    name->len, name->s, p->max_domain);
			for (long k = last_num + 1; k <= h; k++) {
				int c;
				snprintf(buf, sizeof buf, "%ld", k);
				if ((c = mln_const(p->m, buf)) < 0 ||
				    mln_type_add_const(p->m, ty, c) < 0)
					return err_oom(p->e);
			}
			have_num = 0;
		} else if (t->t == T_IDENT || t->t == T_STR || t->t == T_NUM) {
			int c;
			if (t->len >= (int)sizeof buf)
				return perr(p, t, "constant too long");
			if ((long)p->m->types.v[ty].consts.n >= p->max_domain)
				return perr(p, t, "domain of %.*s has more than %ld "
				    "constants (raise the limit with --max-domain)",
				    name->len, name->s, p->max_domain);
			memcpy(buf, t->s, (size_t)t->len);
			buf[t->len] = '\0';
			if ((c = mln_const(p->m, buf)) < 0 ||
			    mln_type_add_const(p->m, ty, c) < 0)
				return err_oom(p->e);
			have_num = t->t == T_NUM && int_value(t, &last_num) == 0;
		} else {
			return unexpected(p, t, "a constant");
		}
		t = next(p);
		if (t->t == T_RB)
			break;
		if (t->t != T_COMMA)
			return unexpected(p, t, "',' or '}'");
	}
	t = peek(p);
	if (t->t != T_NL && t->t != T_EOF)
		return unexpected(p, t, "end of line after '}'");
	return 0;
}

/* Pred(type, ...) with an optional leading '*' (Tuffy: closed world). */
static int
parse_decl(struct parser *p, int closed)
{
	const struct token *name = next(p), *t;
	struct mln_pred pr = { 0 };
	VEC(int) ty = { 0 };
	int rc;

	pr.closed = closed;
	pr.line = name->line;
	next(p); /* ( */
	if (peek(p)->t == T_RP) {
		rc = perr(p, peek(p), "a predicate needs at least one argument");
		goto fail;
	}
	for (;;) {
		int k;
		t = next(p);
		if (t->t != T_IDENT) {
			rc = unexpected(p, t, "a type name");
			goto fail;
		}
		if (t->len > 1 && t->s[t->len - 1] == '!') {
			rc = perr(p, t, "'!' on a declaration argument is not "
			    "supported");
			goto fail;
		}
		if (ty.n == MLN_MAX_ARITY) {
			rc = perr(p, t, "%.*s has more than %d arguments",
			    name->len, name->s, MLN_MAX_ARITY);
			goto fail;
		}
		if ((k = type_get(p->m, t->s, t->len)) < 0 || VEC_PUSH(ty, k) < 0) {
			rc = err_oom(p->e);
			goto fail;
		}
		t = next(p);
		if (t->t == T_RP)
			break;
		if (t->t == T_NOT) {
			rc = perr(p, t, "'!' on a declaration argument is not "
			    "supported");
			goto fail;
		}
		if (t->t != T_COMMA) {
			rc = unexpected(p, t, "',' or ')'");
			goto fail;
		}
	}
	t = peek(p);
	if (t->t != T_NL && t->t != T_EOF) {
		rc = unexpected(p, t, "end of line after a declaration");
		goto fail;
	}
	if (!(pr.name = xstrndup(name->s, (size_t)name->len))) {
		rc = err_oom(p->e);
		goto fail;
	}
	pr.arity = (int)ty.n;
	pr.types = ty.v;
	if (VEC_PUSH(p->m->preds, pr) < 0) {
		free(pr.name);
		free(ty.v);
		return err_oom(p->e);
	}
	if (smap_putn(&p->m->predmap, name->s, (size_t)name->len,
	    (int)p->m->preds.n - 1) < 0)
		return err_oom(p->e);  /* the model owns pr now */
	return 0;
fail:
	free(ty.v);
	return rc;
}

/* Is the statement "[!]Pred(C1, ..., Cn)" with constants only and no
 * weight, a line of an evidence file?  *literal: an argument is a number
 * or a quoted string, which no declaration has. */
static int
ground_atom_stmt(const struct parser *p, int *literal)
{
	const struct token *k = p->toks.v;
	size_t i = p->pos;

	*literal = 0;
	if (k[i].t == T_NOT)
		i++;
	if (i + 1 >= p->end || k[i].t != T_IDENT || k[i + 1].t != T_LP)
		return 0;
	for (i += 2; i < p->end; i += 2) {
		if (k[i].t == T_NUM || k[i].t == T_STR)
			*literal = 1;
		else if (k[i].t != T_IDENT || is_var_name(&k[i]))
			return 0;
		if (i + 1 < p->end && k[i + 1].t == T_RP)
			return i + 2 == p->end;
		if (i + 1 >= p->end || k[i + 1].t != T_COMMA)
			return 0;
	}
	return 0;
}

static int
parse_statement(struct parser *p)
{
	const struct token *t = peek(p);
	const struct token *t1 = &p->toks.v[p->pos + 1 < p->end ? p->pos + 1 : p->end];
	const struct token *pt = t->t == T_NOT ? t1 : t;
	int literal;

	/* a ground atom of a declared predicate, a negated one, or one with
	 * numbers or strings for arguments: a file of evidence */
	if (ground_atom_stmt(p, &literal) && (t->t == T_NOT || literal ||
	    smap_getn(&p->m->predmap, pt->s, (size_t)pt->len) >= 0)) {
		const struct token *rp = &p->toks.v[p->end - 1];
		int n = (int)(rp->s + rp->len - t->s);
		return perr(p, t, "%.*s%s is a ground atom without a weight: "
		    "this looks like evidence, not a model", n > 60 ? 60 : n, t->s,
		    n > 60 ? "..." : "");
	}
	switch (t->t) {
	case T_HASH:
		return perr(p, t, "#include and other '#' directives are not "
		    "supported");
	case T_AT:
		return perr(p, t, "Tuffy's '@' weight syntax is not supported");
	case T_STAR:
		if (t1->t == T_IDENT && p->pos + 2 < p->end &&
		    p->toks.v[p->pos + 2].t == T_LP &&
		    smap_getn(&p->m->predmap, t1->s, (size_t)t1->len) < 0) {
			next(p);
			return parse_decl(p, 1);
		}
		return perr(p, t, "'*' on a literal (Alchemy's mutual-exclusion "
		    "shorthand) is not supported");
	case T_IDENT:
		if (t1->t == T_EQ && p->pos + 2 < p->end &&
		    p->toks.v[p->pos + 2].t == T_LB)
			return parse_domain(p);
		if (t1->t == T_IDENT && p->pos + 2 < p->end &&
		    p->toks.v[p->pos + 2].t == T_LP)
			return perr(p, t, "function declarations are not supported");
		if (t1->t == T_LP &&
		    smap_getn(&p->m->predmap, t->s, (size_t)t->len) < 0) {
			/* an undeclared predicate: a declaration if its
			 * arguments are bare names and nothing follows */
			size_t i = p->pos + 2;
			int decl = 1;
			while (i < p->end && p->toks.v[i].t != T_RP) {
				enum tok k = p->toks.v[i].t;
				if (k != T_IDENT && k != T_COMMA && k != T_NL &&
				    k != T_NOT)
					decl = 0;
				i++;
			}
			if (decl && i < p->end && i + 1 <= p->end &&
			    (p->toks.v[i + 1].t == T_NL ||
			    p->toks.v[i + 1].t == T_EOF || i + 1 == p->end))
				return parse_decl(p, 0);
			if (decl && i + 1 < p->end && p->toks.v[i + 1].t == T_NUM)
				return perr(p, t, "weights on declarations "
				    "(Forclift syntax) are not supported");
			return perr(p, t, "unknown predicate %.*s", t->len, t->s);
		}
		return parse_formula_stmt(p);
	default:
		return parse_formula_stmt(p);
	}
}

void
mln_free(struct mln_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->types.n; i++) {
		free(m->types.v[i].name);
		free(m->types.v[i].consts.v);
		idset_free(&m->types.v[i].member);
	}
	for (size_t i = 0; i < m->preds.n; i++) {
		free(m->preds.v[i].name);
		free(m->preds.v[i].types);
	}
	for (size_t i = 0; i < m->formulas.n; i++) {
		struct mln_formula *f = &m->formulas.v[i];
		mln_node_free(f->root);
		for (int j = 0; j < f->nvars; j++)
			free(f->vars[j]);
		free(f->vars);
		free(f->vartypes);
		free(f->free);
		free(f->text);
	}
	free(m->types.v);
	free(m->preds.v);
	free(m->formulas.v);
	free(m->consts.v);
	free(m->file);
	smap_free(&m->typemap);
	smap_free(&m->predmap);
	smap_free(&m->constmap);
	free(m);
}

int
mln_parse(const char *text, size_t len, const char *file,
    struct mln_model **out, struct err *e)
{
	return mln_parse_limited(text, len, file, LONG_MAX, out, e);
}

int
mln_parse_limited(const char *text, size_t len, const char *file,
    long max_domain, struct mln_model **out, struct err *e)
{
	struct parser p = { 0 };
	int rc;

	*out = NULL;
	p.max_domain = max_domain;
	p.file = file;
	p.e = e;
	if (!(p.m = xcalloc(1, sizeof *p.m)) || !(p.m->file = xstrdup(file))) {
		free(p.m);
		return err_oom(e);
	}
	if ((rc = lex_text(file, text, len, &p.toks, e)))
		goto done;
	while (p.toks.v[p.pos].t != T_EOF) {
		if (p.toks.v[p.pos].t == T_NL) {
			p.pos++;
			continue;
		}
		stmt_bounds(&p);
		if ((rc = parse_statement(&p)))
			goto done;
		if (p.pos < p.end && peek(&p)->t != T_NL && peek(&p)->t != T_EOF) {
			rc = unexpected(&p, peek(&p), "end of line");
			goto done;
		}
		p.pos = p.end;
	}
	for (size_t i = 0; i < p.m->formulas.n; i++) {
		struct mln_formula *f = &p.m->formulas.v[i];
		if (!(f->text = mln_formula_text(p.m, f))) {
			rc = err_oom(e);
			goto done;
		}
	}
done:
	formula_clear(&p);
	free(p.vars.v);
	free(p.vartypes.v);
	free(p.toks.v);
	if (rc) {
		mln_free(p.m);
		return rc;
	}
	*out = p.m;
	return 0;
}
