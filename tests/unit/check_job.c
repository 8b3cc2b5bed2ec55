/* check_job.c: INI job files: every malformed file is refused with its
 * line, paths are taken from the job's folder, and a good job loads and
 * runs in one go with the result also written as an Alchemy file. */
#include "job/job.h"
#include "testutil.h"

static void
job_bad(const char *text, const char *want)
{
	struct job j;
	struct err e = { 0 };
	const char *p = tu_file("bad.ini", text);

	ck_assert_int_eq(job_read(p, &j, &e), SQLIFT_EINPUT);
	ck_assert_msg(strstr(e.msg, want) != NULL, "'%s' lacks '%s'", e.msg, want);
}

START_TEST(test_bad_jobs)
{
	job_bad("[database]\npath = a.db\n[nonsense]\nx = 1\n", "bad.ini:4: "
	    "unknown section [nonsense]");
	job_bad("[database]\npath = a.db\n[infer]\nmethod = brute\nquery = A\n",
	    "bad.ini:5: unknown key 'query' in [infer]");
	job_bad("[database]\npath =\n", "bad.ini:2: path has no value");
	job_bad("[database]\npath = a.db\n[infer]\nseed = -3\n", "bad.ini:4: seed");
	job_bad("[database]\npath = a.db\nthis is not ini\n", "bad.ini:3:");
	job_bad("[load]\nmodel = m.mln\n", "[database] path is missing");
	job_bad("[database]\npath = a.db\n[infer]\nqueries = A\n", "needs a method");
	job_bad("[database]\npath = a.db\n[load]\nreplace = maybe\n", "bad.ini:4:");
	job_bad("[database]\npath = a.db\n[load]\nreplace_evidence = 2\n",
	    "bad.ini:4: replace_evidence is '2', expected true or false");
	job_bad("[database]\npath = a.db\n[load]\ncsv_header = maybe\n",
	    "bad.ini:4: csv_header is 'maybe', expected yes, no or auto");
	job_bad("[database]\npath = a.db\n[load]\nmax_constants = 0\n",
	    "bad.ini:4: max_constants is '0', expected a positive integer");
	job_bad("[database]\npath = a.db\n[load]\nmax_line = 12x\n",
	    "bad.ini:4: max_line is '12x'");
	job_bad("[database]\npath = a.db\n[load]\nmax_domains = 5\n",
	    "bad.ini:4: unknown key 'max_domains' in [load]");
}
END_TEST

START_TEST(test_load_keys)
{
	struct job j;
	struct err e = { 0 };

	ck_assert_int_eq(job_read(tu_file("k.ini", "[database]\npath = x.db\n"
	    "[load]\nreplace_evidence = yes\ncsv_header = NO\n"
	    "max_constants = 7\nmax_domain = 8\nmax_line = 9\n"), &j, &e), 0);
	ck_assert_int_eq(j.replace_evidence, 1);
	ck_assert_int_eq(j.replace, 0);
	ck_assert_int_eq(j.csv_header, SQLIFT_LOAD_CSV_NO_HEADER);
	ck_assert_int_eq(j.limit[SQLIFT_LIMIT_CONSTANTS], 7);
	ck_assert_int_eq(j.limit[SQLIFT_LIMIT_DOMAIN], 8);
	ck_assert_int_eq(j.limit[SQLIFT_LIMIT_LINE], 9);
	job_free(&j);
}
END_TEST

START_TEST(test_paths_relative_to_job)
{
	struct job j;
	struct err e = { 0 };
	char want[600];

	ck_assert_int_eq(job_read(tu_file("j.ini", "[database]\npath = x.db\n"
	    "[load]\nmodel = /abs/m.mln\nevidence = e1.db\nevidence = e2.db\n"),
	    &j, &e), 0);
	snprintf(want, sizeof want, "%s/x.db", tu_dir);
	ck_assert_str_eq(j.database, want);
	ck_assert_str_eq(j.model, "/abs/m.mln");
	ck_assert_int_eq(j.evidence.n, 2);
	job_free(&j);
}
END_TEST

START_TEST(test_job_runs)
{
	char msg[600];
	const char *db = tu_file("job.db", NULL), *ini;
	sqlift *h = NULL;
	int64_t run_id;
	FILE *f;
	int rc, lines = 0;
	char line[256];

	tu_file("m.mln", "p = {A, B}\nS(p)\nC(p)\n0.4 S(x) => C(x)\n");
	tu_file("e.db", "S(A)\n");
	ini = tu_file("j.ini", "; comment\n[database]\npath = job.db\n[load]\n"
	    "model = m.mln\nevidence = e.db\n[infer]\nmethod = brute\n"
	    "queries = C\nseed = 7\nresult = out.result\n");
	rc = sqlift_run_job(ini, &h, &run_id);
	snprintf(msg, sizeof msg, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_msg(rc == 0, "%s", msg);
	ck_assert_int_eq(run_id, 1);
	ck_assert_close(tu_sql_double(db, "SELECT seed FROM runs"), 7, 0);
	/* C(A) follows S(A): e^0.4 / (e^0.4 + 1); C(B) is free */
	ck_assert_close(tu_sql_double(db, "SELECT probability FROM marginals "
	    "WHERE atom = 'C(A)'"), exp(0.4) / (exp(0.4) + 1), 1e-12);
	f = fopen(tu_file("out.result", NULL), "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		lines++;
	fclose(f);
	ck_assert_int_eq(lines, 2);
	/* a failing job leaves the database as it was: no second run */
	tu_file("e.db", "S(A)\n!S(A)\n");
	rc = sqlift_run_job(ini, &h, &run_id);
	sqlift_close(h);
	ck_assert_int_eq(rc, SQLIFT_EINPUT);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM runs"), 1, 0);
}
END_TEST

/* A job that omits exact_budget runs as the command line does without
 * --exact-budget: the same parameters and the same estimate. */
START_TEST(test_job_default_budget)
{
	const char *db = tu_file("budget.db", NULL), *ini;
	struct sqlift_infer_opts o = { 0 };
	sqlift *h = NULL;
	int64_t run_id;
	char msg[600];
	int rc;

	tu_file("m.mln", "p = {A, B, C}\nS(p)\nC(p)\n0.4 S(x) => C(x)\n"
	    "0.3 S(x) ^ C(y)\n");
	ini = tu_file("b.ini", "[database]\npath = budget.db\n[load]\n"
	    "model = m.mln\n[infer]\nmethod = lis\nqueries = C\nsamples = 50\n"
	    "seed = 3\n");
	rc = sqlift_run_job(ini, &h, &run_id);
	snprintf(msg, sizeof msg, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_msg(rc == 0, "%s", msg);
	o.method = "lis";
	o.queries = "C";
	o.samples = 50;
	o.seed = 3;
	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	rc = sqlift_infer(h, &o, &run_id);
	snprintf(msg, sizeof msg, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_msg(rc == 0, "%s", msg);
	ck_assert_close(tu_sql_double(db, "SELECT count(DISTINCT parameters) "
	    "FROM runs"), 1, 0);
	ck_assert_close(tu_sql_double(db, "SELECT count(DISTINCT log_z) "
	    "FROM runs"), 1, 0);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_bad_jobs,
		test_load_keys,
		test_paths_relative_to_job,
		test_job_runs,
		test_job_default_budget,
	};

	return tu_main("job", 1, tests, sizeof tests / sizeof *tests);
}
