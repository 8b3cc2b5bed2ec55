/* lis.h: lifted importance sampling over a constrained theory (Gogate &
 * Domingos 2011; Gogate, Jha & Venugopal 2012): independent streams on
 * threads, each with its own engine (engine.h) and proposals; estimates
 * of log Z and of marginals with standard errors, and a trace. */
#ifndef SQLIFT_LIS_H
#define SQLIFT_LIS_H

#include "sqlift.h"
#include "sample/sample.h"

struct lis_opts {
	struct eng_opts eo;    /* order, proposal, exact_budget */
	int64_t samples;       /* 0: until max_seconds */
	double max_seconds;    /* 0: no limit */
	uint64_t seed;
	int threads;           /* streams; the same seed and threads give
	                          the same numbers (with samples, not time) */
	sqlift_progress_fn *progress;  /* NULL: none (stream 0 calls it) */
	void *progress_arg;
	int marginals;         /* enum lis_marginals */
};

/* How a group's marginal is estimated. */
enum lis_marginals {
	LIS_AUTO,              /* counts when a class has LIS_COUNT_MIN
	                          atoms or more; else pairs for at most
	                          LIS_PAIRS_MAX groups in small parts (of
	                          at most LIS_PAIRS_CLAUSES clauses), not
	                          ground; else path (the default) */
	LIS_PATH,              /* ground atoms from the samples of Z */
	LIS_PAIRS,             /* Z(atom) and Z(not atom), sampled apart */
	LIS_COUNTS             /* a class's expected count from the samples
	                          of Z (eng_track_count); a ground atom by
	                          path */
};
/* Small classes only: path under auto, as splitting a few constants off
 * leaves the part nearly ground, and ground parts are enumerated (IMDB's
 * fold 1, 113 classes of 2 persons: 0.05 s by path, 0.14 s by counts). */
#define LIS_COUNT_MIN 8
#define LIS_PAIRS_MAX 32
#define LIS_PAIRS_CLAUSES 2000
/* "auto", "path", "pairs", "counts"; -1 if unknown */
int lis_marginals_parse(const char *s);

/* One group of interchangeable query atoms (eng_marginal's arguments). */
struct lis_group {
	int pred;
	const int *block, *eq;
	double p, stderr_p;    /* out */
};

struct lis_point {
	int64_t samples;
	double log_z, stderr_lz, ess;
};

struct lis_result {
	double log_z, stderr_lz, ess;
	int64_t samples;
	struct lis_point *trace;
	size_t ntrace;
	struct eng_stats st;   /* summed over the streams */
	size_t parts;          /* Z's independent parts */
	size_t path_groups, pair_groups, count_groups;  /* groups not known,
	                                                   by each way */
	size_t unestimated;    /* groups whose samples all weighed 0: their
	                          marginal is 0.5, their stderr NaN */
	size_t one_sided;      /* groups by pairs with one side's samples all
	                          0 while drawing: their marginal is 0 or 1
	                          with a stderr of 0, maybe for want of
	                          samples */
	int interrupted;       /* lis_cancel stopped the drawing */
};

/* Samples theory t.  Each target is estimated as the product of its
 * independent parts' mean weights (eng_part_weights); log Z's standard
 * error is the delta method's, the root of the sum over the parts of
 * (se(mean) / mean)^2, and its ESS the smallest of the parts'.  A
 * marginal is, by pairs, Z^(atom) / (Z^(atom) + Z^(not atom)) on the
 * part that holds the atom, two estimates from the same number of
 * samples, with the delta method's error; by path and by counts, the
 * weighted mean over Z's samples of the atom's expectation given each
 * sample's path (eng_track; eng_track_count: the group's expected count
 * over its atoms), weighted by its part's weights, with the ratio
 * estimator's error.  Z = 0 in every sample is SQLIFT_EZERO. */
int lis_run(const struct ct_theory *t, const struct lis_opts *o,
    struct lis_group *gr, size_t ngr, struct lis_result *res,
    struct err *e) WUR;
void lis_result_free(struct lis_result *r);

/* Async-signal-safe: the runs drawing in this process stop at their next
 * round; lis_run then returns the samples drawn so far with
 * res->interrupted set, or SQLIFT_EINTR before the first.  1 if that was
 * asked of a run, 0 if none is drawing or a stop was already asked. */
int lis_cancel(void);

#endif
