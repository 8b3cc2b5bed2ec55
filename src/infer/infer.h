/* infer.h: one inference run inside an open transaction: read the model
 * and evidence, decide open and closed world, solve with the chosen
 * method, and record the run, its marginals and the .result file. */
#ifndef SQLIFT_INFER_H
#define SQLIFT_INFER_H

#include "sqlift.h"
#include "infer/options.h"
#include "store/store.h"

/* *result_tmp gets the name of a written .result file still to be
 * renamed into place after commit (caller frees), or NULL. */
int infer_run(struct store *s, const struct sqlift_infer_opts *o,
    int64_t *run_id, char **result_tmp, struct err *e) WUR;

/* Prints the constrained theory the lifted engine would see: blocks,
 * clauses with their constraints, the evidence constant.  Rebuilds the
 * cubes inside the caller's transaction, which the caller rolls back.
 * normal: the Normal form (every constant its own block). */
int infer_explain(struct store *s, const struct sqlift_infer_opts *o,
    int normal, FILE *out, struct err *e) WUR;

#endif
