/* check_warn.c: the rules of a run's warnings (infer/warn.c) at their
 * edges, on results built by hand: the ESS thresholds (below 30, below
 * 1% of the samples, nothing drawn), fewer samples than asked, groups
 * left at 0.5, R-hat, the engine's fallbacks, formulas of weight 0; the
 * text joined a line each and the lines logged with their prefix. */
#include "testutil.h"
#include "infer/warn.h"

struct logged {
	char lines[8][1100];
	int n;
};

static void
log_line(void *arg, const char *line)
{
	struct logged *l = arg;

	if (l->n < 8)
		snprintf(l->lines[l->n++], sizeof l->lines[0], "%s", line);
}

/* A sampling result with draws, ess of samples, nothing else. */
static struct lis_result
result(double ess, int64_t samples)
{
	struct lis_result r;

	memset(&r, 0, sizeof r);
	r.ess = ess;
	r.samples = samples;
	r.st.draws = 1;
	return r;
}

/* The number of warnings warn_lis gives r (samples asked: as drawn). */
static int
lis_warnings(const struct lis_result *r)
{
	struct warns w;
	int n;

	warn_init(&w, NULL, NULL);
	warn_lis(&w, r, r->samples, 0);
	n = w.n;
	ck_assert(n ? warn_text(&w) != NULL : warn_text(&w) == NULL);
	warn_free(&w);
	return n;
}

START_TEST(test_ess)
{
	struct lis_result r = result(30, 3000);

	/* 30 of 3000 is neither below 30 nor below 1% */
	ck_assert_int_eq(lis_warnings(&r), 0);
	r = result(29.99, 100);
	ck_assert_int_eq(lis_warnings(&r), 1);
	r = result(30, 3001);
	ck_assert_int_eq(lis_warnings(&r), 1);
	r = result(500, 100000);
	ck_assert_int_eq(lis_warnings(&r), 1);
	r = result(1000, 100000);
	ck_assert_int_eq(lis_warnings(&r), 0);
	/* nothing drawn: every estimate exact, whatever the ESS says */
	r = result(1, 1000);
	r.st.draws = 0;
	ck_assert_int_eq(lis_warnings(&r), 0);
	r = result(NAN, 1000);
	ck_assert_int_eq(lis_warnings(&r), 0);
}
END_TEST

START_TEST(test_lis_other)
{
	struct lis_result r = result(900, 1000);
	struct logged l = { .n = 0 };
	struct warns w;

	r.unestimated = 2;
	r.one_sided = 3;
	warn_init(&w, log_line, &l);
	warn_lis(&w, &r, 5000, 2.5);   /* 1000 of 5000 asked */
	ck_assert_int_eq(w.n, 3);
	ck_assert_str_eq(warn_text(&w), "lis drew 1000 of the 5000 samples "
	    "asked: --max-seconds 2.5 stopped it\n2 query groups got no "
	    "estimate (every sample weighed 0): their marginals are recorded "
	    "as 0.5\n3 query groups have their marginals, 0 or 1 with a "
	    "standard error of 0, from one side of their pairs: every sample "
	    "of the other side weighed 0; draw more samples, unless a hard "
	    "formula forces the atom");
	ck_assert_int_eq(l.n, 3);
	ck_assert_str_eq(l.lines[0], "warning: lis drew 1000 of the 5000 "
	    "samples asked: --max-seconds 2.5 stopped it");
	warn_free(&w);
	/* interrupted, or no time limit: not a shortfall */
	r.unestimated = 0;
	r.one_sided = 0;
	r.interrupted = 1;
	warn_init(&w, NULL, NULL);
	warn_lis(&w, &r, 5000, 2.5);
	r.interrupted = 0;
	warn_lis(&w, &r, 5000, 0);
	ck_assert_int_eq(w.n, 0);
	ck_assert_ptr_null(warn_text(&w));
	warn_free(&w);
}
END_TEST

START_TEST(test_rhat_engine)
{
	struct eng_stats st;
	struct warns w;

	memset(&st, 0, sizeof st);
	warn_init(&w, NULL, NULL);
	warn_rhat(&w, "log Z", 1.1);
	warn_engine(&w, &st, "min-table");
	ck_assert_int_eq(w.n, 0);
	warn_rhat(&w, "log Z", 1.25);
	st.order_fallbacks = 3;
	st.props_full = 7;
	warn_engine(&w, &st, "min-fill");
	ck_assert_int_eq(w.n, 3);
	ck_assert_str_eq(warn_text(&w), "R-hat of log Z is 1.250 (above 1.1): "
	    "the chains have not mixed; draw more samples\norder min-fill fell "
	    "back to population's at 3 search nodes of more than 64 atom "
	    "classes\nthe adaptive proposals' tables are full (16777216 cells): "
	    "later sampled nodes drew from the fixed proposal (7 lookups "
	    "refused)");
	warn_free(&w);
}
END_TEST

/* warn_zero_weights on model text: its return and the text. */
static int
zero(const char *text, int allow, char *out, size_t len)
{
	struct mln_model *m = NULL;
	struct err e = { 0 };
	struct warns w;
	int rc;

	ck_assert_int_eq(mln_parse(text, strlen(text), "m.mln", &m, &e), 0);
	warn_init(&w, NULL, NULL);
	rc = warn_zero_weights(&w, m, allow, &e);
	snprintf(out, len, "%s", rc ? e.msg : warn_text(&w) ? warn_text(&w) :
	    "");
	warn_free(&w);
	mln_free(m);
	return rc;
}

START_TEST(test_zero)
{
	char s[1024];

	/* hard formulas have no weight and are not 0 */
	ck_assert_int_eq(zero("p = {A}\nS(p)\nS(x).\n1 S(x)\n", 0, s,
	    sizeof s), 0);
	ck_assert_str_eq(s, "");
	ck_assert_int_eq(zero("p = {A}\nS(p)\nS(x).\nS(x) v S(x)\n", 0, s,
	    sizeof s), 0);
	ck_assert_str_eq(s, "m.mln:4: 1 of 2 formulas has no weight: it "
	    "weighs 0, as in Alchemy, and changes no probability");
	ck_assert_int_eq(zero("p = {A}\nS(p)\n\nS(x)\n!S(x)\n", 0, s,
	    sizeof s), SQLIFT_EINPUT);
	ck_assert_str_eq(s, "m.mln:4: every formula weighs 0 (a formula "
	    "without a weight weighs 0, as in Alchemy): every probability "
	    "would be 0.5; give weights, or --allow-zero-weights");
	ck_assert_int_eq(zero("p = {A}\nS(p)\n\nS(x)\n!S(x)\n", 1, s,
	    sizeof s), 0);
	ck_assert_str_eq(s, "m.mln:4: 2 of 2 formulas have no weight, the "
	    "first here: they weigh 0, as in Alchemy, and change no "
	    "probability");
	/* no formula at all: declarations only, nothing refused */
	ck_assert_int_eq(zero("p = {A}\nS(p)\n", 0, s, sizeof s), 0);
	ck_assert_str_eq(s, "");
	/* written as 0: refused when all are, never warned */
	ck_assert_int_eq(zero("p = {A}\nS(p)\n0 S(x)\n-0.0 !S(x)\n", 0, s,
	    sizeof s), SQLIFT_EINPUT);
	ck_assert_str_eq(s, "m.mln:3: every formula weighs 0: every "
	    "probability would be 0.5; give weights, or --allow-zero-weights");
	ck_assert_int_eq(zero("p = {A}\nS(p)\n0 S(x)\n2 !S(x)\n", 0, s,
	    sizeof s), 0);
	ck_assert_str_eq(s, "");
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_ess,
		test_lis_other,
		test_rhat_engine,
		test_zero,
	};

	return tu_main("warn", 0, tests, sizeof tests / sizeof *tests);
}
