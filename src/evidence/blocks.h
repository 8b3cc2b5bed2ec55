/* blocks.h: reading the cubes and evidence blocks stored for a clause
 * model into the plain structures of the lifted theory (struct
 * ct_evidence), so that the theory never reads the database. */
#ifndef SQLIFT_BLOCKS_H
#define SQLIFT_BLOCKS_H

#include "lifted/theory.h"
#include "mln/mln.h"
#include "store/store.h"

/* Reads the cubes and blocks stored for clause model m over domains dom
 * (aux predicates have no evidence); closed[p] per predicate of m.
 * Caller frees *out with ct_evidence_free(). */
int blocks_read(struct store *s, const struct mln_model *m,
    const struct mln_domain *dom, const int *closed,
    struct ct_evidence **out, struct err *e) WUR;

#endif
