/* mln.h: the parsed form of a Markov logic network in Alchemy syntax:
 * types, predicates, constants and weighted first-order formulas, and the
 * conversion of formulas to clauses that keeps their weights exact. */
#ifndef SQLIFT_MLN_H
#define SQLIFT_MLN_H

#include "util/util.h"

/* Limits of a model, checked by the parser (file:line:column) and applied
 * by the engine (src/lifted/) with these same constants. */
#define MLN_MAX_ARITY 64        /* arguments of a predicate */
#define MLN_MAX_CLAUSE_LITS 64  /* literals of one clause */
/* Nesting of '(', '!' and quantifiers in a formula, and literals of one
 * formula: they bound the depth of the formula tree that the recursive
 * passes (parser, clause conversion, printing) walk. */
#define MLN_MAX_DEPTH 1000
#define MLN_MAX_FORMULA_LITS 4096
/* Limits of a load, the defaults of options that raise them (load
 * --max-constants, --max-domain, --max-line; sqlift_limit()): constants
 * in the database, constants of one type (declared or from evidence),
 * bytes of one line of an evidence or query file.  Far above any shared
 * dataset (Cora: 16,500 constants), they bound the time and memory a
 * damaged or hostile input can take. */
#define MLN_MAX_CONSTANTS 10000000
#define MLN_MAX_DOMAIN 1000000
#define MLN_MAX_LINE (1 << 20)

enum mln_kind {
	MLN_ATOM, MLN_EQ, MLN_NOT, MLN_AND, MLN_OR, MLN_IMPLIES, MLN_IFF,
	MLN_EXIST, MLN_FORALL, MLN_TRUE, MLN_FALSE
};

/* A term is a formula variable (var >= 0) or a model constant (cst). */
struct mln_term {
	int var;               /* index into formula vars, or -1 */
	int cst;               /* index into model constants when var < 0 */
};

struct mln_node {
	enum mln_kind kind;
	int pred;              /* MLN_ATOM: index into model preds */
	int nargs;             /* MLN_ATOM: arity; MLN_EQ: 2 */
	struct mln_term *args;
	struct mln_node *a, *b;/* operands; quantifiers keep the body in a */
	int *qvars, nq;        /* quantifiers: bound variables */
};

struct mln_type {
	char *name;
	VEC(int) consts;       /* declared constants (model constant index) */
	struct idset member;   /* the model constants in consts */
};

struct mln_pred {
	char *name;
	int arity;
	int *types;            /* arity type indices */
	int closed;            /* declared closed-world (Tuffy '*') */
	int aux;               /* introduced by clause conversion */
	int line;
};

struct mln_formula {
	struct mln_node *root;
	double weight;         /* log weight of each true grounding */
	int hard;              /* hard formula: weight is infinite */
	int unweighted;        /* soft, written without a weight: weight 0,
	                          as in Alchemy */
	int nvars;
	char **vars;           /* variable names */
	int *vartypes;         /* type of each variable */
	int *free;             /* free[i]: variable i is not quantified */
	int line;
	char *text;            /* canonical text, from mln_formula_text() */
};

struct mln_model {
	char *file;                   /* name used in messages */
	VEC(struct mln_type) types;
	VEC(struct mln_pred) preds;
	VEC(struct mln_formula) formulas;
	VEC(char *) consts;           /* constant names: constmap's copies */
	struct smap typemap, predmap, constmap;
};

/* Parses Alchemy MLN text; file is used in messages only.  On success
 * *out is a new model the caller frees with mln_free(); on failure the
 * message names file:line:column. */
int mln_parse(const char *text, size_t len, const char *file,
    struct mln_model **out, struct err *e) WUR;
/* As mln_parse, also refusing a domain declared with more than
 * max_domain constants (load; mln_parse reads a stored model, which
 * passed at its load). */
int mln_parse_limited(const char *text, size_t len, const char *file,
    long max_domain, struct mln_model **out, struct err *e) WUR;
void mln_free(struct mln_model *m);

/* Looks up or adds a constant; -1 on out of memory. */
int mln_const(struct mln_model *m, const char *name);
/* Adds constant c to type t's declared constants if absent. */
int mln_type_add_const(struct mln_model *m, int t, int c) WUR;

/* Canonical text of a formula (with weight and period); caller frees. */
char *mln_formula_text(const struct mln_model *m, const struct mln_formula *f);
/* Deep copy of a node; NULL on out of memory. */
struct mln_node *mln_node_copy(const struct mln_node *n);
void mln_node_free(struct mln_node *n);

/* A type's constants at inference time: n constants, by name, with their
 * ids in the database (store_domains() fills them; the clause conversion
 * reads only the names). */
struct mln_domain {
	int n;
	int64_t *ids;
	char **names;
	char *pool;    /* the names, when they share this one block; NULL:
	                * each its own allocation */
};

/* Converts every formula to clauses (disjunctions of literals), keeping
 * the distribution exactly: a formula whose CNF has one clause becomes
 * that clause; a conjunction of literals becomes the negated clause with
 * the negated weight and a constant; otherwise an auxiliary predicate A
 * with hard clauses A <=> F and a unit clause carrying the weight.
 * Quantifiers are expanded over the domains, except universal ones that
 * can stay clause variables (see cnf.c); a formula with weight 0 is
 * dropped.  The result is a new model (preds and constants copied, aux
 * preds appended) whose formulas are all clauses (d[t] gives type t's
 * constants); *log_const gets what must be added to the clauses' log Z
 * to give the model's.  max: the clauses are for the heaviest world (the
 * max semiring), where some auxiliary weights differ from those for Z. */
int mln_to_clauses(const struct mln_model *m, const struct mln_domain *d,
    int max, struct mln_model **out, double *log_const, struct err *e) WUR;
/* The conversion of one formula stops with SQLIFT_ELIMIT past this many
 * nodes and clause literals plus 512 per constant of the domains (0: the
 * default, 2^18).  For harnesses that must stay small; not thread-safe. */
void mln_clause_budget(size_t fixed);

#endif
