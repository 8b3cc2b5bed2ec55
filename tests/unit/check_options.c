/* check_options.c: the option table through the public interface: every
 * option is listed once with a help text, range and default; the setter
 * takes keys and long options, refuses bad values with a message naming
 * the option and its range, and leaves the runs.parameters text as it
 * was before the table. */
#include "testutil.h"

static void
set_bad(const char *name, const char *value, const char *want)
{
	sqlift_infer_opts *o = sqlift_infer_opts_new();
	const char *m;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(sqlift_infer_opts_set(o, name, value), SQLIFT_EUSAGE);
	m = sqlift_infer_opts_errmsg(o);
	ck_assert_msg(strstr(m, want) != NULL, "'%s' lacks '%s'", m, want);
	sqlift_infer_opts_free(o);
}

START_TEST(test_table)
{
	const struct sqlift_infer_option *d = NULL, *e;
	int n = 0;

	while ((d = sqlift_infer_option_next(d))) {
		n++;
		ck_assert_ptr_nonnull(d->name);
		ck_assert_ptr_nonnull(d->flag);
		ck_assert_ptr_nonnull(d->range);
		ck_assert_ptr_nonnull(d->dflt);
		ck_assert_msg(d->help && d->help[0] &&
		    d->help[strlen(d->help) - 1] == '\n', "%s: help", d->name);
		for (e = sqlift_infer_option_next(d); e;
		    e = sqlift_infer_option_next(e)) {
			ck_assert_str_ne(d->name, e->name);
			ck_assert_str_ne(d->flag, e->flag);
			ck_assert(!d->letter || d->letter != e->letter);
		}
	}
	ck_assert_int_eq(n, 24);
}
END_TEST

START_TEST(test_set)
{
	sqlift_infer_opts *o = sqlift_infer_opts_new();
	struct buf b;

	ck_assert_int_eq(sqlift_infer_opts_set(o, "method", "lis"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "--threads", "4"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "exact_budget", "0"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "--max-seconds", "2.5"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "open_world", "A,B"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "open_world", "C"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "--ow", ""), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "verbose", "yes"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "seed", "18446744073709551615"),
	    0);
	ck_assert_int_eq(o->threads, 4);
	ck_assert_int_eq(o->exact_budget, -1);   /* 0: none */
	ck_assert_int_eq(o->verbose, 1);
	ck_assert(o->seed == UINT64_MAX);
	buf_init(&b);
	opts_params(&b, o);
	ck_assert_str_eq(b.s, "method=lis max_seconds=2.5 threads=4 "
	    "exact_budget=0");
	buf_free(&b);
	sqlift_infer_opts_free(o);
	sqlift_infer_opts_free(NULL);
}
END_TEST

/* --max-memory: a number of bytes and K, M, G or T, powers of 1024;
 * 0 is no limit (stored as -1), written as 0 in runs.parameters. */
START_TEST(test_set_memory)
{
	static const struct {
		const char *text;
		int64_t bytes;
	} ok[] = { { "512M", 536870912 }, { "2G", 2147483648 },
	    { "1.5g", 1610612736 }, { "65536", 65536 }, { "64K", 65536 },
	    { "1T", 1099511627776 }, { "0", -1 } };
	sqlift_infer_opts *o = sqlift_infer_opts_new();
	struct buf b;

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		ck_assert_int_eq(sqlift_infer_opts_set(o, "--max-memory",
		    ok[i].text), 0);
		ck_assert_int_eq(o->max_memory, ok[i].bytes);
	}
	ck_assert_int_eq(sqlift_infer_opts_set(o, "max_memory", "3G"), 0);
	ck_assert_int_eq(sqlift_infer_opts_set(o, "method", "exact"), 0);
	buf_init(&b);
	opts_params(&b, o);
	ck_assert_str_eq(b.s, "method=exact max_memory=3221225472");
	buf_free(&b);
	sqlift_infer_opts_free(o);
	set_bad("--max-memory", "2X", "--max-memory is '2X', expected a size "
	    "such as 512M or 2G, or 0 for no limit");
	set_bad("max_memory", "-1G", "expected a size");
	set_bad("max_memory", "G", "expected a size");
	set_bad("max_memory", "0.5", "expected a size");
	set_bad("max_memory", "2GB", "expected a size");
	set_bad("max_memory", "9999999T", "expected a size");
}
END_TEST

START_TEST(test_set_bad)
{
	set_bad("threads", "0", "threads is '0', expected an integer from 1 "
	    "to 256");
	set_bad("--threads", "x", "--threads is 'x', expected an integer");
	set_bad("samples", "-2", "samples is '-2', expected an integer of at "
	    "least 1");
	set_bad("--max-seconds", "0", "expected a positive number");
	set_bad("seed", "-1", "seed is '-1', expected a non-negative integer");
	set_bad("order", "fast", "order is 'fast', expected one of min-table, "
	    "population, rel-min-fill, min-fill");
	set_bad("verbose", "maybe", "expected true or false");
	set_bad("thread", "1", "unknown option 'thread'");
	set_bad("--exact_budget", "1", "unknown option");
	set_bad("samples", NULL, "samples has no value");
}
END_TEST

/* A struct filled in directly is checked against the same table. */
START_TEST(test_check)
{
	struct sqlift_infer_opts o = { 0 };
	struct err e = { 0 };

	ck_assert_int_eq(opts_check(&o, &e), 0);
	o.exact_budget = -1;
	o.threads = 256;
	ck_assert_int_eq(opts_check(&o, &e), 0);
	o.threads = 300;
	ck_assert_int_eq(opts_check(&o, &e), SQLIFT_EUSAGE);
	ck_assert_str_eq(e.msg, "threads is '300', expected an integer from 1 "
	    "to 256");
	o.threads = 0;
	o.proposal = "best";
	ck_assert_int_eq(opts_check(&o, &e), SQLIFT_EUSAGE);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_table,
		test_set,
		test_set_memory,
		test_set_bad,
		test_check,
	};

	return tu_main("options", 0, tests, sizeof tests / sizeof *tests);
}
