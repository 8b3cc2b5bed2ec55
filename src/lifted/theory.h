/* theory.h: the constrained theory the lifted engine works on (Mittal et
 * al. 2015, section 4): clauses standardised apart and constant-free,
 * each with a setineq constraint set over its variables, on domains split
 * into blocks.  Constants named in formulas become variables restricted
 * to their own singleton block; equality literals become constraints.
 * Evidence is not folded in yet (issue 3, next step). */
#ifndef SQLIFT_THEORY_H
#define SQLIFT_THEORY_H

#include "constraint/setineq.h"
#include "mln/mln.h"
#include "store/store.h"

struct ct_lit {
	int pred;              /* predicate of the clause model */
	int neg;
	int *var;              /* clause variable of each argument */
};

struct ct_clause {
	double weight;
	int hard;
	int line;              /* of the source formula */
	int nvars;
	int *type;             /* per clause variable */
	int nlits;
	struct ct_lit *lits;
	struct si_set cons;    /* canonical tuples over the variables */
};

struct ct_theory {
	const struct mln_model *m;    /* the clause model: borrowed */
	struct si_space *sp;          /* the blocks of every type */
	VEC(struct ct_clause) clauses;
	double log_const;             /* added to log Z */
	int **block_of;               /* [type][domain position] -> block */
	const struct store_domain *dom;
};

/* Builds the theory of clause model m (every formula a clause, as from
 * mln_to_clauses) over domains dom.  Caller frees with ct_free(). */
int ct_build(const struct mln_model *m, const struct store_domain *dom,
    struct ct_theory **out, struct err *e) WUR;
void ct_free(struct ct_theory *t);

/* log Z of the theory by enumerating the worlds of its ground atoms,
 * grounding every clause from its constraints: the test oracle that the
 * theory means what the model meant (small domains only). */
int ct_brute(const struct ct_theory *t, double *log_z, struct err *e) WUR;

/* Readable text of the theory (for sqlift explain); caller frees. */
char *ct_text(const struct ct_theory *t);

#endif
