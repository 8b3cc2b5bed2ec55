/* infer.h: one inference run: read the model and evidence in a snapshot,
 * decide open and closed world, solve with the chosen method with no lock
 * held, and record the run and its marginals in a write transaction at
 * the end, and the .result file. */
#ifndef SQLIFT_INFER_H
#define SQLIFT_INFER_H

#include "sqlift.h"
#include "infer/options.h"
#include "store/store.h"

/* What the runs row of a failed run holds. */
struct infer_failure;

/* Called with no transaction open; returns 0 inside the write
 * transaction of the run's rows, for the caller to commit (or, on error,
 * roll back).  *result_tmp gets the name of a written .result file still
 * to be renamed into place after commit (caller frees), or NULL.  A run
 * that fails after it started (a model loaded, a known method) sets
 * *failed to its row, to be written by infer_failure_record once the
 * caller has rolled back; else *failed is NULL.  A sampling run
 * interrupted (lis_cancel) after its first sample is recorded whole with
 * status 'interrupted' and returns SQLIFT_EINTR with *failed NULL: the
 * caller commits it. */
int infer_run(struct store *s, const struct sqlift_infer_opts *o,
    int64_t *run_id, char **result_tmp, struct infer_failure **failed,
    struct err *e) WUR;

/* Writes f's row (status 'failed') in a transaction of its own, unless
 * this command created the file; a row that cannot be written is left
 * out and the run's error stands.  Frees f; f may be NULL. */
void infer_failure_record(struct store *s, struct infer_failure *f);
void infer_failure_free(struct infer_failure *f);

/* Prints the constrained theory the lifted engine would see: blocks,
 * clauses with their constraints, the evidence constant.  Rebuilds the
 * cubes inside the caller's transaction, which the caller rolls back.
 * normal: the Normal form (every constant its own block). */
int infer_explain(struct store *s, const struct sqlift_infer_opts *o,
    int normal, FILE *out, struct err *e) WUR;

#endif
