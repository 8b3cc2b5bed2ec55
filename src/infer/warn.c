/* warn.c: the warnings of a run (warn.h): collected as text for
 * runs.warnings and handed to the log function as they are found. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "infer/warn.h"
#include "sample/tunables.h"

void
warn_init(struct warns *w, sqlift_log_fn *log, void *log_arg)
{
	buf_init(&w->text);
	w->n = 0;
	w->log = log;
	w->log_arg = log_arg;
}

void
warn_free(struct warns *w)
{
	buf_free(&w->text);
	w->n = 0;
}

void
warn_add(struct warns *w, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	buf_printf(&w->text, "%s%s", w->n ? "\n" : "", line);
	w->n++;
	if (w->log) {
		char msg[sizeof line + 16];
		snprintf(msg, sizeof msg, "warning: %s", line);
		w->log(w->log_arg, msg);
	}
}

const char *
warn_text(const struct warns *w)
{
	return w->n && !w->text.oom ? w->text.s : NULL;
}

int
warn_zero_count(const struct mln_model *m, int *line)
{
	int n = 0;

	*line = 0;
	for (size_t i = 0; i < m->formulas.n; i++)
		if (m->formulas.v[i].unweighted && n++ == 0)
			*line = m->formulas.v[i].line;
	return n;
}

/* The warning's text: where the first is, the count, what it means. */
static void
zero_text(char *s, size_t len, const struct mln_model *m, int n, int line)
{
	snprintf(s, len, "%s:%d: %d of %zu formula%s%s no weight%s: %s 0, as "
	    "in Alchemy, and change%s no probability", m->file, line, n,
	    m->formulas.n, m->formulas.n == 1 ? "" : "s", n == 1 ? " has" :
	    " have", n == 1 ? "" : ", the first here", n == 1 ? "it weighs" :
	    "they weigh", n == 1 ? "s" : "");
}

void
warn_load(const struct mln_model *m, sqlift_log_fn *log, void *arg)
{
	char line[1024], msg[1040];
	int first, n = warn_zero_count(m, &first);

	if (!n || !log)
		return;
	zero_text(line, sizeof line, m, n, first);
	snprintf(msg, sizeof msg, "warning: %s", line);
	log(arg, msg);
}

int
warn_zero_weights(struct warns *w, const struct mln_model *m, int allow,
    struct err *e)
{
	char line[1024];
	int first, n = warn_zero_count(m, &first);
	size_t zero = 0;

	/* every formula of weight 0, whether written or not */
	for (size_t i = 0; i < m->formulas.n; i++)
		zero += !m->formulas.v[i].hard && m->formulas.v[i].weight == 0;
	if (zero > 0 && zero == m->formulas.n && !allow)
		return err_set(e, SQLIFT_EINPUT, "%s:%d: every formula weighs 0%s: "
		    "every probability would be 0.5; give weights, or "
		    "--allow-zero-weights", m->file, n ? first :
		    m->formulas.v[0].line, n ? " (a formula without a weight "
		    "weighs 0, as in Alchemy)" : "");
	if (n) {
		zero_text(line, sizeof line, m, n, first);
		warn_add(w, "%s", line);
	}
	return 0;
}

void
warn_lis(struct warns *w, const struct lis_result *r, int64_t samples_asked,
    double max_seconds)
{
	/* nothing drawn: every estimate is exact, whatever the weights */
	if (r->st.draws > 0 && !isnan(r->ess) && (r->ess < WARN_ESS_MIN ||
	    r->ess < WARN_ESS_SHARE * (double)r->samples))
		warn_add(w, "effective sample size %.1f of %lld samples (below "
		    "%g, or below %g%% of the samples): the estimates and their "
		    "standard errors are not to be trusted; draw more samples or "
		    "try another --proposal", r->ess, (long long)r->samples,
		    WARN_ESS_MIN, 100 * WARN_ESS_SHARE);
	/* drawing nothing, a stream stops after one round: not a shortfall */
	if (samples_asked > 0 && r->samples < samples_asked && r->st.draws > 0 &&
	    !r->interrupted && max_seconds > 0)
		warn_add(w, "lis drew %lld of the %lld samples asked: "
		    "--max-seconds %g stopped it", (long long)r->samples,
		    (long long)samples_asked, max_seconds);
	if (r->unestimated > 0)
		warn_add(w, "%zu query group%s got no estimate (every sample "
		    "weighed 0): %s marginal%s recorded as 0.5", r->unestimated,
		    r->unestimated == 1 ? "" : "s", r->unestimated == 1 ? "its" :
		    "their", r->unestimated == 1 ? " is" : "s are");
	if (r->one_sided > 0)
		warn_add(w, "%zu query group%s marginal%s, 0 or 1 with a "
		    "standard error of 0, from one side of %s: every sample of "
		    "the other side weighed 0; draw more samples, unless a hard "
		    "formula forces the atom", r->one_sided, r->one_sided == 1 ?
		    " has its" : "s have their", r->one_sided == 1 ? "" : "s",
		    r->one_sided == 1 ? "its pair" : "their pairs");
}

void
warn_engine(struct warns *w, const struct eng_stats *st, const char *order)
{
	if (st->order_fallbacks > 0)
		warn_add(w, "order %s fell back to population's at %lld search "
		    "node%s of more than 64 atom classes", order,
		    (long long)st->order_fallbacks,
		    st->order_fallbacks == 1 ? "" : "s");
	if (st->props_full > 0)
		warn_add(w, "the adaptive proposals' tables are full (%zu "
		    "cells): later sampled nodes drew from the fixed proposal "
		    "(%lld lookups refused)", (size_t)PROP_CELLS,
		    (long long)st->props_full);
}

void
warn_rhat(struct warns *w, const char *what, double rhat)
{
	if (rhat > WARN_RHAT_MAX)
		warn_add(w, "R-hat of %s is %.3f (above %g): the chains have not "
		    "mixed; draw more samples", what, rhat, WARN_RHAT_MAX);
}
