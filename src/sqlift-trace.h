/* sqlift-trace.h: reading the convergence trace of a sampling run, for
 * `sqlift plot`.  Part of the public interface of libsqlift, kept apart
 * from sqlift.h until it is folded in there. */
#ifndef SQLIFT_TRACE_H
#define SQLIFT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sqlift.h"

/* One row of the table run_trace: the estimate after the first samples
 * samples of the run. */
struct sqlift_trace_point {
	int64_t samples;
	double log_z;          /* estimate of log Z; NaN if not recorded */
	double log_z_stderr;   /* its standard error; NaN if not recorded */
	double ess;            /* effective sample size; NaN if not recorded */
};

/* Reads the trace of run run_id, by samples, in a read transaction;
 * changes nothing.  Fails with SQLIFT_EUSAGE when there is no such run or
 * the run has no trace (its method does not sample).  *points: caller
 * frees with free(); NULL on failure. */
SQLIFT_WUR int sqlift_trace(sqlift *db, int64_t run_id,
    struct sqlift_trace_point **points, size_t *n);

#endif
