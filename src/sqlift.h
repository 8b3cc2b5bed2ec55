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
	SQLIFT_EINTERNAL, /* a bug: please report */
	SQLIFT_EINTR      /* stopped by sqlift_cancel() */
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
/* Replace the stored evidence with exactly what the files say, instead of
 * appending to it: atoms the files leave out go, atoms whose truth
 * changed take the new one.  Identical files change nothing. */
#define SQLIFT_LOAD_REPLACE_EVIDENCE 2
/* The first row of a CSV file: a header to skip when it names the
 * predicate's argument types (the default), always, or never. */
#define SQLIFT_LOAD_CSV_HEADER 4
#define SQLIFT_LOAD_CSV_NO_HEADER 8

/* Stores the model (if given; NULL keeps the stored one) and appends
 * evidence (Alchemy .db files, CSV files named after their predicate, or
 * folders of those), in one transaction.  Returns the number of evidence
 * atoms read in *n_atoms. */
SQLIFT_WUR int sqlift_load(sqlift *db, const char *model_path,
    const char *const *evidence, int n_evidence, int flags,
    int64_t *n_atoms);
/* Limits of load on db, as sqlite3_limit(): sets limit which to value
 * when value > 0 and returns the limit before (-1 for an unknown which).
 * Passing one fails the load with a message that names it. */
enum {
	SQLIFT_LIMIT_CONSTANTS, /* constants in the database (10,000,000) */
	SQLIFT_LIMIT_DOMAIN,    /* constants of one type (1,000,000) */
	SQLIFT_LIMIT_LINE       /* bytes of an evidence line (1,048,576) */
};
int64_t sqlift_limit(sqlift *db, int which, int64_t value);
/* After a load with SQLIFT_LOAD_REPLACE_EVIDENCE: the stored atoms it
 * added, flipped and removed (all 0 when the evidence was the same). */
void sqlift_load_changes(const sqlift *db, int64_t *added, int64_t *flipped,
    int64_t *removed);

/* The options of an inference run: create with sqlift_infer_opts_new(),
 * set with sqlift_infer_opts_set() (the same names and values as the keys
 * of a job file's [infer] section), free with sqlift_infer_opts_free().
 * Opaque, so that an option is added in one table (options.c) without
 * changing the interface. */
typedef struct sqlift_infer_opts sqlift_infer_opts;

/* NULL when out of memory.  Every option starts at its default. */
sqlift_infer_opts *sqlift_infer_opts_new(void);
/* NULL is fine. */
void sqlift_infer_opts_free(sqlift_infer_opts *o);
/* Sets option name ("threads", or the long option "--threads") from its
 * text ("4"), copied.  A flag takes "true" or "false" (also "yes", "no",
 * "1", "0").  On an unknown name or a bad value returns SQLIFT_EUSAGE and
 * sqlift_infer_opts_errmsg() names the option and what it allows. */
SQLIFT_WUR int sqlift_infer_opts_set(sqlift_infer_opts *o, const char *name,
    const char *value);
/* The message of the last failed set, one line; borrowed, valid until the
 * next call on o. */
const char *sqlift_infer_opts_errmsg(const sqlift_infer_opts *o);

/* How far a sampling run is, for a progress function. */
struct sqlift_progress {
	int64_t samples;       /* rounds drawn so far, by every stream */
	int64_t max_samples;   /* the samples option, or 0 */
	double seconds;        /* since sampling began */
	double max_seconds;    /* the max_seconds option, or 0 */
	int done;              /* 1 on the last call, when sampling has ended */
};
/* Called from the sampling thread of the first stream, at most every
 * 0.1 s while lis or ground-lis samples (gibbs, blocked-gibbs: from
 * chain 0's thread, samples being its sweeps after the burn-in), then
 * once with done set.  The
 * library itself never writes to stderr (as curl's progress function). */
typedef void sqlift_progress_fn(void *arg, const struct sqlift_progress *p);
/* Called with each line (no newline) of a run's summary, when the
 * verbose option is set, and with each warning of a run, always: a line
 * that starts "warning: " (also in runs.warnings, without the prefix). */
typedef void sqlift_log_fn(void *arg, const char *line);
void sqlift_infer_opts_set_progress(sqlift_infer_opts *o,
    sqlift_progress_fn *fn, void *arg);
void sqlift_infer_opts_set_log(sqlift_infer_opts *o, sqlift_log_fn *fn,
    void *arg);
/* sqlift_load()'s notes (a CSV header row skipped) and warnings (a model
 * with formulas of weight 0) go to fn,
 * a line each starting "warning: "; NULL (the default): nowhere.  A job
 * (sqlift_run_job_opts) lends its base's log function to its load. */
void sqlift_set_log(sqlift *db, sqlift_log_fn *fn, void *arg);

/* One option, as listed by sqlift_infer_option_next(): the table that
 * the job keys, `sqlift infer`'s options and its --help come from. */
struct sqlift_infer_option {
	const char *name;      /* job key and setter name: "exact_budget" */
	const char *flag;      /* long option of sqlift infer: "exact-budget" */
	int letter;            /* its short option, or 0 */
	const char *arg;       /* the value in --help ("N"); NULL: a flag */
	const char *range;     /* what it allows: "1 to 256", "auto, path" */
	const char *dflt;      /* its default: "10000", "none" */
	const char *help;      /* --help's text; lines end in '\n' */
};
/* The first option (prev NULL) or the one after prev; NULL after the
 * last.  Borrowed, static. */
const struct sqlift_infer_option *sqlift_infer_option_next(
    const struct sqlift_infer_option *prev);


/* Runs inference and records the run; *run_id gets the new run's id.
 * The inputs are read in one read transaction, the run computes with no
 * lock held and writes its rows in one short transaction at the end,
 * waiting for another writer up to the busy timeout (60 s, or the
 * environment's SQLIFT_BUSY_TIMEOUT seconds, read by sqlift_open).
 * Needs a database it can write.  A run that fails once started is
 * rolled back and
 * then recorded with status 'failed' (runs.error: the message).  A
 * sampling run stopped by sqlift_cancel() keeps the samples drawn so
 * far: it is recorded with status 'interrupted', *run_id is set, and
 * SQLIFT_EINTR is returned. */
SQLIFT_WUR int sqlift_infer(sqlift *db, const sqlift_infer_opts *o,
    int64_t *run_id);

/* Async-signal-safe, for a SIGINT or SIGTERM handler: the sampling runs
 * of this process stop drawing at their next round.  1 if a run was
 * drawing and is now asked to stop; 0 if none is (or a stop was already
 * asked), and the caller decides, such as by dying of the signal. */
int sqlift_cancel(void);

/* Runs a job file (see sqlift.ini(5)): load, then infer.  Opens the
 * database the job names; *db_out is set as with sqlift_open() and must be
 * closed by the caller. */
SQLIFT_WUR int sqlift_run_job(const char *ini_path, sqlift **db_out,
    int64_t *run_id);
/* The same, with the progress and log functions of base (NULL: none);
 * the options themselves come from the job file alone. */
SQLIFT_WUR int sqlift_run_job_opts(const char *ini_path,
    const sqlift_infer_opts *base, sqlift **db_out, int64_t *run_id);

/* Rebuilds the hypercubes of the evidence and the domain blocks, in one
 * transaction; prints per predicate atoms, cubes and compression.  A
 * database that cannot be written (sqlift_readonly) gets them computed
 * and printed, not stored. */
SQLIFT_WUR int sqlift_cubes(sqlift *db, FILE *out);

/* 1 if the database file or its folder (where SQLite puts its journal)
 * cannot be written, else 0. */
int sqlift_readonly(sqlift *db);

/* Prints the constrained theory (blocks, clauses with constraints, the
 * evidence constant) that lifted inference would work on; changes
 * nothing.  normal: the Normal form of Mittal et al. (every constant of
 * the evidence or of a formula its own block, the others of a type one). */
SQLIFT_WUR int sqlift_explain(sqlift *db, const sqlift_infer_opts *o,
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
