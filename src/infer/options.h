/* options.h: the options of an inference run (struct sqlift_infer_opts,
 * opaque to the public interface) and their one table, options.c, from
 * which the setter, the job file keys, --help and runs.parameters come. */
#ifndef SQLIFT_OPTIONS_H
#define SQLIFT_OPTIONS_H

#include "sqlift.h"
#include "util/util.h"

/* Zero is "not given" for every field: infer.c applies the defaults.
 * Strings are borrowed, except in an object from sqlift_infer_opts_new(),
 * which owns them (set through the table, freed with it). */
struct sqlift_infer_opts {
	const char *method;      /* "exact", "lis", "ground-lis", "brute",
	                            "gibbs", "blocked-gibbs" */
	const char *queries;     /* comma-separated predicate names, or NULL */
	const char *query_file;  /* Alchemy query atoms file, or NULL */
	const char *open_world;  /* comma-separated predicates forced open */
	const char *closed_world;/* comma-separated predicates forced closed */
	uint64_t seed;
	const char *result_path; /* Alchemy-style .result file, or NULL */
	const char *job_path;    /* recorded in the run row, or NULL */
	int verbose;             /* summary lines to log */
	int allow_zero_weights;  /* run a model whose formulas all weigh 0 */
	/* exact: */
	const char *order;       /* min-table (NULL), population,
	                            rel-min-fill, min-fill */
	const char *constraints; /* setineq (NULL) or normal */
	int64_t max_nodes;       /* 0: no limit */
	double max_seconds;      /* 0: no limit (lis: stop sampling then) */
	int64_t max_memory;      /* bytes the search and its cache may hold;
	                            0: eng_default_memory(), -1: no limit */
	/* lis, ground-lis: */
	int64_t samples;         /* 0: 1000, or as many as max_seconds allows */
	int threads;             /* independent streams; 0: 1 */
	const char *proposal;    /* adaptive (NULL), binomial, uniform */
	int64_t exact_budget;    /* nodes of exact search tried on a part
	                            before sampling it; 0: the default (10000),
	                            -1: none, sample every branch */
	const char *marginals;   /* auto (NULL), counts, path, pairs */
	int particles;           /* per flat part (sequential Monte Carlo);
	                            0 (the default) or 1: none */
	/* gibbs, blocked-gibbs (samples: sweeps per chain): */
	int chains;              /* 0: 4 */
	int64_t burn_in;         /* 0: the default, -1: none */
	int block_size;          /* blocked-gibbs; 0: GB_BLOCK_DEFAULT */
	const char *grounding;   /* map: lazy (NULL) or full */
	/* where the library's output goes; NULL: nowhere */
	sqlift_progress_fn *progress;
	void *progress_arg;
	sqlift_log_fn *log;
	void *log_arg;
	/* sqlift_infer_opts_new() only: */
	int owned;               /* the strings are this object's copies */
	char msg[ERR_MAX];       /* sqlift_infer_opts_errmsg() */
};

/* Sets option name (a job key, or "--" and a long option) from the text
 * value, as sqlift_infer_opts_set() does; on a bad name or value, e gets
 * SQLIFT_EUSAGE and a message naming it and what is allowed. */
int opts_set(struct sqlift_infer_opts *o, const char *name,
    const char *value, struct err *e) WUR;
/* Checks the fields set directly (not through opts_set) against the
 * table; zero fields are always fine. */
int opts_check(const struct sqlift_infer_opts *o, struct err *e) WUR;
/* Whether name is an option (a job key, or "--" and a long option). */
int opts_known(const char *name);
/* Whether name is a path, relative to the job file in a job. */
int opts_is_path(const char *name);
/* Appends the run's parameters as stored in runs.parameters. */
void opts_params(struct buf *b, const struct sqlift_infer_opts *o);

#endif
