/* text.c: prints formulas back in canonical Alchemy syntax, fully
 * parenthesised, for storage, messages and `sqlift info`. */
#include <stdio.h>
#include <stdlib.h>

#include "mln/mln.h"

static void
term_text(struct buf *b, const struct mln_model *m, const struct mln_formula *f,
    const struct mln_term *t)
{
	if (t->var >= 0)
		buf_puts(b, f->vars[t->var]);
	else
		buf_puts(b, m->consts.v[t->cst]);
}

static void
node_text(struct buf *b, const struct mln_model *m, const struct mln_formula *f,
    const struct mln_node *n, int top)
{
	static const char *ops[] = {
		[MLN_AND] = " ^ ", [MLN_OR] = " v ", [MLN_IMPLIES] = " => ",
		[MLN_IFF] = " <=> "
	};

	switch (n->kind) {
	case MLN_ATOM:
		buf_puts(b, m->preds.v[n->pred].name);
		buf_puts(b, "(");
		for (int i = 0; i < n->nargs; i++) {
			if (i)
				buf_puts(b, ",");
			term_text(b, m, f, &n->args[i]);
		}
		buf_puts(b, ")");
		break;
	case MLN_EQ:
		if (!top)
			buf_puts(b, "(");
		term_text(b, m, f, &n->args[0]);
		buf_puts(b, " = ");
		term_text(b, m, f, &n->args[1]);
		if (!top)
			buf_puts(b, ")");
		break;
	case MLN_NOT:
		buf_puts(b, "!");
		node_text(b, m, f, n->a, 0);
		break;
	case MLN_TRUE:
		buf_puts(b, "true");
		break;
	case MLN_FALSE:
		buf_puts(b, "false");
		break;
	case MLN_EXIST:
	case MLN_FORALL:
		if (!top)
			buf_puts(b, "(");
		buf_puts(b, n->kind == MLN_EXIST ? "EXIST " : "FORALL ");
		for (int i = 0; i < n->nq; i++) {
			if (i)
				buf_puts(b, ",");
			buf_puts(b, f->vars[n->qvars[i]]);
		}
		buf_puts(b, " ");
		node_text(b, m, f, n->a, 1);
		if (!top)
			buf_puts(b, ")");
		break;
	default:
		if (!top)
			buf_puts(b, "(");
		/* flatten chains of the same associative operator */
		node_text(b, m, f, n->a, (n->kind == MLN_AND || n->kind == MLN_OR) &&
		    n->a->kind == n->kind ? 1 : 0);
		buf_puts(b, ops[n->kind]);
		node_text(b, m, f, n->b, (n->kind == MLN_AND || n->kind == MLN_OR) &&
		    n->b->kind == n->kind ? 1 : 0);
		if (!top)
			buf_puts(b, ")");
		break;
	}
}

char *
mln_formula_text(const struct mln_model *m, const struct mln_formula *f)
{
	struct buf b;

	buf_init(&b);
	if (!f->hard) {
		/* the shortest text that reads back as the same double */
		char w[32];
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(w, sizeof w, "%.*g", prec, f->weight);
			if (strtod(w, NULL) == f->weight)
				break;
		}
		buf_printf(&b, "%s ", w);
	}
	node_text(&b, m, f, f->root, 1);
	if (f->hard)
		buf_puts(&b, ".");
	return buf_take(&b);
}
