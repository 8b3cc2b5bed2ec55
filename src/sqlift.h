/* sqlift.h: the public interface of libsqlift, lifted inference in Markov
 * logic networks with evidence and results kept in SQLite.  Everything the
 * library exports starts with sqlift_. */
#ifndef SQLIFT_H
#define SQLIFT_H

#include <stdint.h>
#include <stdio.h>

#ifdef __GNUC__
#define SQLIFT_WUR __attribute__((warn_unused_result))
#else
#define SQLIFT_WUR
#endif

/* One status for the whole library; the message is in the handle. */
enum sqlift_status {
	SQLIFT_OK = 0,
	SQLIFT_EUSAGE,    /* bad options or arguments */
	SQLIFT_EINPUT,    /* malformed or missing input file */
	SQLIFT_EDB,       /* database unusable: locked, newer schema, I/O */
	SQLIFT_ELIMIT,    /* problem too large for the chosen method */
	SQLIFT_EZERO,     /* hard formulas contradict the evidence: Z = 0 */
	SQLIFT_ENOMEM,    /* out of memory */
	SQLIFT_EINTERNAL  /* a bug: please report */
};

typedef struct sqlift sqlift;

#define SQLIFT_OPEN_CREATE 1 /* create the database file if it is missing */

/* Opens (or creates) the database at path.  *out is set even on failure so
 * that sqlift_errmsg() can say why; caller frees with sqlift_close(). */
SQLIFT_WUR int sqlift_open(const char *path, int flags, sqlift **out);
/* Closes the handle; NULL is fine.  If the handle created the database file
 * and nothing was ever committed to it, the file is removed. */
void sqlift_close(sqlift *db);
/* The message of the last failure, one line; borrowed, valid until the
 * next call on db. */
const char *sqlift_errmsg(const sqlift *db);
const char *sqlift_version(void);

#define SQLIFT_LOAD_REPLACE 1 /* replace a different model already stored */

/* Stores the model (if given) and appends evidence (Alchemy .db files, CSV
 * files named after their predicate, or folders of those), in one
 * transaction.  Returns the number of evidence atoms read in *n_atoms. */
SQLIFT_WUR int sqlift_load(sqlift *db, const char *model_path,
    const char *const *evidence, int n_evidence, int flags,
    int64_t *n_atoms);

struct sqlift_infer_opts {
	const char *method;      /* "exact", "lis", "ground-lis", "brute" */
	const char *queries;     /* comma-separated predicate names, or NULL */
	const char *query_file;  /* Alchemy query atoms file, or NULL */
	const char *open_world;  /* comma-separated predicates forced open */
	const char *closed_world;/* comma-separated predicates forced closed */
	uint64_t seed;
	const char *result_path; /* Alchemy-style .result file, or NULL */
	const char *job_path;    /* recorded in the run row, or NULL */
	int verbose;
	/* exact: */
	const char *order;       /* min-table (NULL), population,
	                            rel-min-fill, min-fill */
	const char *constraints; /* setineq (NULL) or normal */
	int64_t max_nodes;       /* 0: no limit */
	double max_seconds;      /* 0: no limit (lis: stop sampling then) */
	/* lis, ground-lis: */
	int64_t samples;         /* 0: 1000, or as many as max_seconds allows */
	int threads;             /* independent streams; 0: 1 */
	const char *proposal;    /* adaptive (NULL), binomial, uniform */
	int64_t exact_budget;    /* nodes of exact search tried on a part
	                            before sampling it; 0: the default (10000),
	                            -1: none, sample every branch */
	int progress;            /* a progress bar on stderr */
	const char *marginals;   /* auto (NULL), path, pairs */
	int particles;           /* per flat part (sequential Monte Carlo);
	                            0 (the default) or 1: none */
};

/* Runs inference in one transaction and records the run; *run_id gets
 * the new run's id. */
SQLIFT_WUR int sqlift_infer(sqlift *db, const struct sqlift_infer_opts *o,
    int64_t *run_id);

/* Runs a job file (see sqlift.ini(5)): load, then infer.  Opens the
 * database the job names; *db_out is set as with sqlift_open() and must be
 * closed by the caller. */
SQLIFT_WUR int sqlift_run_job(const char *ini_path, sqlift **db_out,
    int64_t *run_id);

/* Rebuilds the hypercubes of the evidence and the domain blocks, in one
 * transaction; prints per predicate atoms, cubes and compression. */
SQLIFT_WUR int sqlift_cubes(sqlift *db, FILE *out);

/* Prints the constrained theory (blocks, clauses with constraints, the
 * evidence constant) that lifted inference would work on; changes
 * nothing.  normal: the Normal form of Mittal et al. (every constant of
 * the evidence or of a formula its own block, the others of a type one). */
SQLIFT_WUR int sqlift_explain(sqlift *db, const struct sqlift_infer_opts *o,
    int normal, FILE *out);

/* Prints a summary of what the database holds. */
SQLIFT_WUR int sqlift_info(sqlift *db, FILE *out);

/* One row of the table run_trace: the estimate after the first samples
 * samples of a sampling run (for `sqlift plot`). */
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
