/* ground.c: grounds a model over its domains for brute-force enumeration.
 * Each grounding of a formula is simplified against the evidence: a
 * grounding decided by evidence adds its weight to a constant (or makes
 * Z = 0 when hard and false); the rest become postfix programs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "infer/ground.h"

int64_t
ground_atom_index(const struct ground *g, int p, const int *idx)
{
	const struct mln_pred *pr = &g->m->preds.v[p];
	int64_t a = 0;

	for (int i = 0; i < pr->arity; i++)
		a = a * g->dom[pr->types[i]].n + idx[i];
	return g->offset[p] + a;
}

int
ground_atom_decode(const struct ground *g, int64_t a, int *idx)
{
	int p = 0;

	while (p + 1 < g->npreds && g->offset[p + 1] <= a)
		p++;
	a -= g->offset[p];
	for (int i = g->m->preds.v[p].arity - 1; i >= 0; i--) {
		int n = g->dom[g->m->preds.v[p].types[i]].n;
		idx[i] = (int)(a % n);
		a /= n;
	}
	return p;
}

char *
ground_atom_text(const struct ground *g, int64_t a)
{
	int idx[64];
	int p = ground_atom_decode(g, a, idx);
	const struct mln_pred *pr = &g->m->preds.v[p];
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "%s(", pr->name);
	for (int i = 0; i < pr->arity; i++)
		buf_printf(&b, "%s%s", i ? "," : "",
		    g->dom[pr->types[i]].names[idx[i]]);
	buf_puts(&b, ")");
	return buf_take(&b);
}

void
ground_const_add(struct ground *g, double x)
{
	double t = g->log_const + x;

	if (fabs(g->log_const) >= fabs(x))
		g->log_const_c += (g->log_const - t) + x;
	else
		g->log_const_c += (x - t) + g->log_const;
	g->log_const = t;
}

int
ground_truth(const struct ground *g, int p, int64_t a)
{
	size_t lo;

	if (g->doff[p] >= 0)
		return g->truth[g->doff[p] + a - g->offset[p]];
	lo = i64_lower(g->etrue.v, g->etrue.n, a);
	return lo < g->etrue.n && g->etrue.v[lo] == a;
}

int
ground_unk(const struct ground *g, int p, int64_t a)
{
	return g->doff[p] >= 0 ? g->unk[g->doff[p] + a - g->offset[p]] : -1;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Evidence rows arrive with store constant ids: map them to positions. */
struct ev_ctx {
	struct ground *g;
	int p;
	struct idmap *pos;     /* per type: const id -> domain position */
};

static int
ev_row(void *ctx_, const int64_t *args, int truth)
{
	struct ev_ctx *c = ctx_;
	const struct mln_pred *pr = &c->g->m->preds.v[c->p];
	int idx[64];
	int64_t a;

	for (int i = 0; i < pr->arity; i++) {
		if ((idx[i] = idmap_get(&c->pos[pr->types[i]], args[i])) < 0)
			return SQLIFT_EINTERNAL;
	}
	a = ground_atom_index(c->g, c->p, idx);
	if (c->g->doff[c->p] >= 0)
		c->g->truth[c->g->doff[c->p] + a - c->g->offset[c->p]] =
		    (signed char)truth;
	else if (truth > 0 && VEC_PUSH(c->g->etrue, a) < 0)
		return SQLIFT_ENOMEM;
	return 0;
}

int
ground_atoms(struct ground *g, const struct mln_model *m,
    const struct mln_domain *dom, struct store *s, const int *store_pred,
    const int *closed, struct err *e)
{
	struct ev_ctx c = { 0 };
	int nt = (int)m->types.n, rc = 0, sparse = g->sparse;
	double total = 0, held = 0;
	const char *who = g->who;  /* the caller's, kept */

	memset(g, 0, sizeof *g);
	g->who = who;
	g->sparse = sparse;
	g->m = m;
	g->dom = dom;
	g->npreds = (int)m->preds.n;
	if (!(g->offset = xcalloc((size_t)g->npreds + 1, sizeof *g->offset)) ||
	    !(g->doff = xcalloc((size_t)g->npreds + 1, sizeof *g->doff)))
		return err_oom(e);
	for (int p = 0; p < g->npreds; p++) {
		double n = 1;
		for (int i = 0; i < m->preds.v[p].arity; i++)
			n *= dom[m->preds.v[p].types[i]].n;
		g->offset[p] = (int64_t)total;
		g->doff[p] = sparse && closed[p] ? -1 : (int64_t)held;
		total += n;
		held += sparse && closed[p] ? 0 : n;
	}
	if (held > GROUND_MAX_ATOMS || total > 4e18)
		return err_set(e, SQLIFT_ELIMIT, "%s: the model has %.0f "
		    "%sground atoms, more than the %ld it can hold",
		    who ? who : "brute force", held, sparse ? "open " : "",
		    GROUND_MAX_ATOMS);
	g->natoms = (int64_t)total;
	g->offset[g->npreds] = g->natoms;
	g->truth = xmalloc((size_t)held + 1);
	g->unk = xmalloc(((size_t)held + 1) * sizeof *g->unk);
	c.pos = xcalloc((size_t)nt, sizeof *c.pos);
	if (!g->truth || !g->unk || !c.pos) {
		rc = err_oom(e);
		goto done;
	}
	memset(g->truth, -1, (size_t)held);
	for (int t = 0; t < nt; t++)
		if (idmap_init(&c.pos[t], dom[t].ids, NULL, (size_t)dom[t].n) < 0) {
			rc = err_oom(e);
			goto done;
		}
	c.g = g;
	for (int p = 0; p < g->npreds; p++) {
		if (!s || store_pred[p] < 0)
			continue;
		c.p = p;
		if ((rc = store_atoms_each(s, store_pred[p], ev_row, &c, e))) {
			if (rc == SQLIFT_EINTERNAL)
				err_set(e, rc, "evidence constant outside its domain");
			else if (rc == SQLIFT_ENOMEM)
				err_oom(e);
			goto done;
		}
	}
	if (g->etrue.n)
		qsort(g->etrue.v, g->etrue.n, sizeof *g->etrue.v, cmp_i64);
	for (int p = 0; p < g->npreds; p++)
		for (int64_t a = g->offset[p]; g->doff[p] >= 0 &&
		    a < g->offset[p + 1]; a++) {
			int64_t h = g->doff[p] + a - g->offset[p];
			g->unk[h] = -1;
			if (g->truth[h] >= 0)
				continue;
			if (closed[p]) {
				g->truth[h] = 0;
				continue;
			}
			g->unk[h] = (int)g->unk_atom.n;
			if (VEC_PUSH(g->unk_atom, a) < 0) {
				rc = err_oom(e);
				goto done;
			}
		}
done:
	for (int t = 0; t < nt && c.pos; t++)
		idmap_free(&c.pos[t]);
	free(c.pos);
	return rc;
}

void
ground_free(struct ground *g)
{
	free(g->offset);
	free(g->doff);
	free(g->etrue.v);
	free(g->truth);
	free(g->unk);
	free(g->unk_atom.v);
	free(g->gf.v);
	free(g->code.v);
	memset(g, 0, sizeof *g);
}

/* Grounding of one formula: assign[v] is the domain position of var v. */
struct gctx {
	struct ground *g;
	const struct mln_formula *f;
	int *assign;
	int oom;
};

enum { G_FALSE = 0, G_TRUE = 1, G_RES = 2 };

static void
emit(struct gctx *c, int op)
{
	if (VEC_PUSH(c->g->code, op) < 0)
		c->oom = 1;
}

/* The store constant id a term stands for under the assignment. */
static int64_t
term_id(struct gctx *c, const struct mln_term *t, int type)
{
	const struct mln_domain *d = &c->g->dom[type];

	if (t->var >= 0)
		return d->ids[c->assign[t->var]];
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->names[i], c->g->m->consts.v[t->cst]))
			return d->ids[i];
	return -1;
}

static int
term_pos(struct gctx *c, const struct mln_term *t, int type)
{
	const struct mln_domain *d = &c->g->dom[type];

	if (t->var >= 0)
		return c->assign[t->var];
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->names[i], c->g->m->consts.v[t->cst]))
			return i;
	return -1;
}

static int geval(struct gctx *c, const struct mln_node *n);

/* Combines two results already evaluated in order; code of a starts at
 * mark.  A constant result never leaves code behind. */
static int
g_and(struct gctx *c, int ra, int rb, size_t mark)
{
	if (ra == G_FALSE || rb == G_FALSE) {
		c->g->code.n = mark;
		return G_FALSE;
	}
	if (ra == G_TRUE)
		return rb;
	if (rb == G_TRUE)
		return ra;
	emit(c, OP_AND);
	return G_RES;
}

static int
g_or(struct gctx *c, int ra, int rb, size_t mark)
{
	if (ra == G_TRUE || rb == G_TRUE) {
		c->g->code.n = mark;
		return G_TRUE;
	}
	if (ra == G_FALSE)
		return rb;
	if (rb == G_FALSE)
		return ra;
	emit(c, OP_OR);
	return G_RES;
}

static int
g_not(struct gctx *c, int r)
{
	if (r == G_RES) {
		emit(c, OP_NOT);
		return r;
	}
	return !r;
}

/* A quantifier: OR (EXIST) or AND (FORALL) of the body over all values
 * of the bound variables, innermost variable last. */
static int
g_quant(struct gctx *c, const struct mln_node *n, int k)
{
	const struct mln_formula *f = c->f;
	int v, t, r, exist = n->kind == MLN_EXIST;
	size_t mark = c->g->code.n;

	if (k == n->nq)
		return geval(c, n->a);
	v = n->qvars[k];
	t = f->vartypes[v];
	r = exist ? G_FALSE : G_TRUE;
	for (int i = 0; i < c->g->dom[t].n; i++) {
		int rb;
		c->assign[v] = i;
		rb = g_quant(c, n, k + 1);
		r = exist ? g_or(c, r, rb, mark) : g_and(c, r, rb, mark);
		if (r == (exist ? G_TRUE : G_FALSE))
			break;
	}
	return r;
}

static int
geval(struct gctx *c, const struct mln_node *n)
{
	size_t mark = c->g->code.n;
	int ra, rb;

	switch (n->kind) {
	case MLN_TRUE:
		return G_TRUE;
	case MLN_FALSE:
		return G_FALSE;
	case MLN_ATOM: {
		const struct mln_pred *pr = &c->g->m->preds.v[n->pred];
		int idx[64], r;
		int64_t a;
		for (int i = 0; i < pr->arity; i++)
			if ((idx[i] = term_pos(c, &n->args[i], pr->types[i])) < 0)
				return G_FALSE; /* cannot happen: constants are in domains */
		a = ground_atom_index(c->g, n->pred, idx);
		if ((r = ground_truth(c->g, n->pred, a)) >= 0)
			return r;
		emit(c, OP_ATOM);
		emit(c, ground_unk(c->g, n->pred, a));
		return G_RES;
	}
	case MLN_EQ: {
		/* the type of either side that is a variable */
		int t = n->args[0].var >= 0 ? c->f->vartypes[n->args[0].var] :
		    n->args[1].var >= 0 ? c->f->vartypes[n->args[1].var] : -1;
		if (t < 0)
			return strcmp(c->g->m->consts.v[n->args[0].cst],
			    c->g->m->consts.v[n->args[1].cst]) == 0;
		return term_id(c, &n->args[0], t) == term_id(c, &n->args[1], t);
	}
	case MLN_NOT:
		return g_not(c, geval(c, n->a));
	case MLN_AND:
		ra = geval(c, n->a);
		if (ra == G_FALSE)
			return G_FALSE;
		rb = geval(c, n->b);
		return g_and(c, ra, rb, mark);
	case MLN_OR:
		ra = geval(c, n->a);
		if (ra == G_TRUE)
			return G_TRUE;
		rb = geval(c, n->b);
		return g_or(c, ra, rb, mark);
	case MLN_IMPLIES:
		ra = g_not(c, geval(c, n->a));
		if (ra == G_TRUE)
			return G_TRUE;
		rb = geval(c, n->b);
		return g_or(c, ra, rb, mark);
	case MLN_IFF:
		ra = geval(c, n->a);
		rb = geval(c, n->b);
		if (ra != G_RES && rb != G_RES)
			return ra == rb;
		if (ra != G_RES)
			return ra ? rb : g_not(c, rb);
		if (rb != G_RES)
			return rb ? ra : g_not(c, ra);
		emit(c, OP_IFF);
		return G_RES;
	case MLN_EXIST:
	case MLN_FORALL:
		return g_quant(c, n, 0);
	}
	return G_FALSE;
}

int
ground_formula(struct ground *g, size_t k, struct err *e)
{
	const struct mln_formula *f = &g->m->formulas.v[k];
	struct gctx c = { g, f, NULL, 0 };
	int empty = 0, rc = 0;

	if (!(c.assign = xcalloc((size_t)f->nvars + 1, sizeof *c.assign)))
		return err_oom(e);
	for (int v = 0; v < f->nvars; v++)
		if (f->free[v] && g->dom[f->vartypes[v]].n == 0)
			empty = 1;
	/* odometer over the free variables */
	while (!empty) {
		size_t start = g->code.n;
		int r = geval(&c, f->root), v;
		if (c.oom) {
			rc = err_oom(e);
			break;
		}
		if (r == G_RES && g->gf.n >= GROUND_MAX_GROUNDINGS) {
			rc = err_set(e, SQLIFT_ELIMIT, "%s: more than %ld "
			    "groundings left after the evidence",
			    g->who ? g->who : "brute force",
			    GROUND_MAX_GROUNDINGS);
			break;
		}
		if (r == G_RES) {
			struct ground_formula gf = { f->weight, f->hard,
			    (int)start, (int)(g->code.n - start) };
			if (VEC_PUSH(g->gf, gf) < 0) {
				rc = err_oom(e);
				break;
			}
		} else if (r == G_TRUE && !f->hard) {
			g->log_const += f->weight;
		} else if (r == G_FALSE && f->hard && !g->zero) {
			g->zero = 1;
			g->zero_why = f->text;
		}
		for (v = f->nvars - 1; v >= 0; v--) {
			if (!f->free[v])
				continue;
			if (++c.assign[v] < g->dom[f->vartypes[v]].n)
				break;
			c.assign[v] = 0;
		}
		if (v < 0)
			break;
	}
	free(c.assign);
	return rc;
}

double
ground_enumerations(const struct ground *g)
{
	const struct mln_model *m = g->m;
	double total = 0;

	for (size_t k = 0; k < m->formulas.n; k++) {
		const struct mln_formula *f = &m->formulas.v[k];
		double n = 1;
		for (int v = 0; v < f->nvars; v++)
			if (f->free[v])
				n *= g->dom[f->vartypes[v]].n;
		total += n;
	}
	return total;
}

int
ground_formulas(struct ground *g, struct err *e)
{
	const struct mln_model *m = g->m;
	double total = ground_enumerations(g);
	int rc;

	if (total > (g->max_enumerated > 0 ? g->max_enumerated :
	    GROUND_MAX_GROUNDINGS))
		return err_set(e, SQLIFT_ELIMIT, "%s: the formulas have "
		    "%.0f groundings, more than the %.0f it can hold",
		    g->who ? g->who : "brute force", total, g->max_enumerated > 0 ?
		    g->max_enumerated : (double)GROUND_MAX_GROUNDINGS);
	for (size_t k = 0; k < m->formulas.n; k++)
		if ((rc = ground_formula(g, k, e)))
			return rc;
	return 0;
}

int
ground_eval(const struct ground *g, size_t k, const unsigned char *x,
    int *stack)
{
	const struct ground_formula *f = &g->gf.v[k];
	const int *code = g->code.v + f->start;
	int sp = 0;

	for (int i = 0; i < f->len; i++) {
		switch (code[i]) {
		case OP_ATOM:
			stack[sp++] = x[code[++i]] != 0;
			break;
		case OP_NOT:
			stack[sp - 1] = !stack[sp - 1];
			break;
		case OP_AND:
			sp--;
			stack[sp - 1] = stack[sp - 1] && stack[sp];
			break;
		case OP_OR:
			sp--;
			stack[sp - 1] = stack[sp - 1] || stack[sp];
			break;
		case OP_IFF:
			sp--;
			stack[sp - 1] = stack[sp - 1] == stack[sp];
			break;
		}
	}
	return sp > 0 ? stack[0] : 1;
}
