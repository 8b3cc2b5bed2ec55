/* warn.h: the warnings of a run: what it found suspect without stopping
 * (formulas of weight 0, a low effective sample size, a fallback taken).
 * Each goes to the log function at once, as "warning: ..." (sqlift
 * prints "sqlift: warning: ..."), and into runs.warnings, a line each. */
#ifndef SQLIFT_WARN_H
#define SQLIFT_WARN_H

#include "sqlift.h"
#include "mln/mln.h"
#include "sample/lis.h"
#include "util/util.h"

/* Thresholds, stated once (man/sqlift.1, DIAGNOSTICS). */
#define WARN_ESS_MIN 30.0      /* effective samples below this */
#define WARN_ESS_SHARE 0.01    /* or below this share of the samples */
#define WARN_RHAT_MAX 1.1      /* R-hat above this (chains to come) */

struct warns {
	struct buf text;       /* the lines, joined by '\n' */
	int n;
	sqlift_log_fn *log;    /* NULL: recorded only */
	void *log_arg;
};

void warn_init(struct warns *w, sqlift_log_fn *log, void *log_arg);
void warn_free(struct warns *w);
/* Adds one warning (no newline); a warning that cannot be allocated is
 * still logged when it can be formatted, and left out of the text. */
void warn_add(struct warns *w, const char *fmt, ...) PRINTF(2, 3);
/* The lines for runs.warnings; NULL when there is none. */
const char *warn_text(const struct warns *w);

/* Formulas of m written without a weight (mln_formula.unweighted):
 * their number, and in *line the first one's line. */
int warn_zero_count(const struct mln_model *m, int *line);
/* At load: the warning on formulas without a weight, to log (NULL:
 * none). */
void warn_load(const struct mln_model *m, sqlift_log_fn *log, void *arg);
/* At infer: fails (SQLIFT_EINPUT) when there are formulas and every one
 * weighs 0 (written so or without a weight), unless allow is set; warns
 * when some are without a weight. */
int warn_zero_weights(struct warns *w, const struct mln_model *m,
    int allow, struct err *e) WUR;
/* After a sampling run: the effective sample size of log Z's estimate
 * below WARN_ESS_MIN or WARN_ESS_SHARE of the samples (when something
 * was drawn), fewer samples than asked, groups without an estimate. */
void warn_lis(struct warns *w, const struct lis_result *r,
    int64_t samples_asked, double max_seconds);
/* After the search (exact or sampled): the fallbacks it took, from its
 * statistics; order: the order asked for, by name. */
void warn_engine(struct warns *w, const struct eng_stats *st,
    const char *order);
/* For the samplers of several chains: R-hat above WARN_RHAT_MAX. */
void warn_rhat(struct warns *w, const char *what, double rhat);

#endif
