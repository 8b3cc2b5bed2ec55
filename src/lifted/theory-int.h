/* theory-int.h: what theory.c and fold.c share and nothing outside the
 * building of the constrained theory sees. */
#ifndef SQLIFT_THEORY_INT_H
#define SQLIFT_THEORY_INT_H

#include "lifted/theory.h"

/* The evidence of every predicate indexed by block, made when a clause
 * first needs it: a clause piece meets few of the thousands of cubes of
 * an atom, and trying them all made folding quadratic.  ct_build() owns
 * one for all its clauses: ix has 2 * npreds entries, zeroed. */
struct fold_ctx {
	struct si_index **ix;  /* per predicate: [2p] true, [2p + 1] false */
	struct si_ids near[2]; /* the true and false cubes that can meet */
	VEC(const struct si_tuple *) cubes;  /* of both, for outside() */
};
void fold_ctx_free(struct fold_ctx *fc, size_t npreds);

/* Folds the evidence into clause c: adds the weights of the groundings it
 * satisfies to *konst, and appends to out the clauses left, one for each
 * set of undecided literals.  *zero is set when a hard clause is false
 * by evidence for some grounding.  Returns 0, -1 out of memory, -2 past
 * the theory's deadline. */
int fold_clause(struct ct_theory *t, struct fold_ctx *fc,
    const struct ct_clause *c, double *konst, int *zero,
    struct ct_clauses *out);

/* The number of groundings of the tuples of s. */
double ct_set_count(const struct si_set *s, const struct si_space *sp);

#endif
