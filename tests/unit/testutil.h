/* testutil.h: helpers shared by the Check unit tests: temporary files,
 * brute force on a model text without a database, and SQL read-back. */
#ifndef SQLIFT_TESTUTIL_H
#define SQLIFT_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "infer/ground.h"
#include "infer/options.h"
#include "mln/mln.h"
#include "sqlift.h"

static char tu_dir[256] __attribute__((unused));

static inline void
tu_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(tu_dir, sizeof tu_dir, "%s/sqlift-test-XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tu_dir));
}

static inline void
tu_teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tu_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tu_dir);
}

/* Writes text to tu_dir/name; returns the path (static buffer ring). */
static inline const char *
tu_file(const char *name, const char *text)
{
	static char paths[256][512];
	static int k;
	char *p = paths[k++ % 256];
	FILE *f;

	snprintf(p, 512, "%s/%s", tu_dir, name);
	if (!text)
		return p;
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* Domains made of each type's declared constants. */
static inline struct mln_domain *
tu_domains(const struct mln_model *m)
{
	struct mln_domain *d = calloc(m->types.n + 1, sizeof *d);

	for (size_t t = 0; t < m->types.n; t++) {
		const struct mln_type *ty = &m->types.v[t];
		d[t].n = (int)ty->consts.n;
		d[t].ids = calloc(ty->consts.n + 1, sizeof *d[t].ids);
		d[t].names = calloc(ty->consts.n + 1, sizeof *d[t].names);
		for (size_t i = 0; i < ty->consts.n; i++) {
			d[t].ids[i] = ty->consts.v[i] + 1;
			d[t].names[i] = strdup(m->consts.v[ty->consts.v[i]]);
		}
	}
	return d;
}

/* The domains as mln_to_clauses() wants them (names borrowed from d). */
static inline struct mln_domain *
tu_mln_domains(const struct mln_model *m, const struct mln_domain *d)
{
	struct mln_domain *md = calloc(m->types.n + 1, sizeof *md);

	for (size_t ty = 0; ty < m->types.n; ty++) {
		md[ty].n = d[ty].n;
		md[ty].names = d[ty].names;
	}
	return md;
}

/* Brute-force log Z of a parsed model with no evidence, all predicates
 * open, and the log weight of its heaviest world (log_max may be NULL).
 * Returns the status. */
static inline int
tu_brute_model_max(const struct mln_model *m, const struct mln_domain *d,
    double *log_z, double *log_max, struct err *e)
{
	struct ground g;
	int *sp = calloc(m->preds.n + 1, sizeof *sp);
	int *closed = calloc(m->preds.n + 1, sizeof *closed);
	int rc;

	for (size_t i = 0; i < m->preds.n; i++)
		sp[i] = -1;
	rc = ground_atoms(&g, m, d, NULL, sp, closed, e);
	if (!rc)
		rc = ground_formulas(&g, e);
	if (!rc)
		rc = brute_solve(&g, log_z, NULL, log_max, e);
	ground_free(&g);
	free(sp);
	free(closed);
	return rc;
}

static inline int
tu_brute_model(const struct mln_model *m, const struct mln_domain *d,
    double *log_z, struct err *e)
{
	return tu_brute_model_max(m, d, log_z, NULL, e);
}

/* One double from a SQL query on the database at path. */
static inline double
tu_sql_double(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	double v = NAN;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* The property loops run every seed under SQLIFT_TEST_SLOW=1 (make
 * check-slow) and every seventh otherwise (make check: seeds 1, 8, 15,
 * ...; 7 is prime to the seed % k the loops branch on), held to a
 * seventh of each "at least" count. */
static inline int
tu_slow(void)
{
	const char *s = getenv("SQLIFT_TEST_SLOW");

	return s && *s && strcmp(s, "0") != 0;
}

/* The step between the seeds of a property loop. */
static inline unsigned
tu_step(void)
{
	return tu_slow() ? 1 : 7;
}

/* An "at least" count n of the full loop, for the seeds that run. */
static inline int
tu_seeds(int n)
{
	return tu_slow() ? n : (n + 6) / 7;
}

/* A linear congruential generator for property tests. */
static inline unsigned
tu_rnd(unsigned *state, unsigned n)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 16) % n;
}

/* A random formula over P(t), Q(t), R(t,t), the constants A and B,
 * equalities, existentials and every connective, depth at most depth. */
static inline void
tu_rnd_formula(struct buf *b, unsigned *st, int depth)
{
	static const char *atoms[] = { "P(x)", "P(y)", "Q(x)", "R(x,y)",
	    "R(y,x)", "R(x,x)", "P(A)", "R(x,B)" };
	static const char *eqs[] = { "(x = y)", "(x = A)", "(A = B)" };
	static const char *ops[] = { " ^ ", " v ", " => ", " <=> " };
	unsigned k = tu_rnd(st, 10);

	if (depth == 0 || k < 3) {
		if (tu_rnd(st, 4) == 0)
			buf_puts(b, "!");
		if (tu_rnd(st, 8) == 0)
			buf_puts(b, eqs[tu_rnd(st, 3)]);
		else
			buf_puts(b, atoms[tu_rnd(st, 8)]);
		return;
	}
	if (k == 3) {
		buf_puts(b, "!(");
		tu_rnd_formula(b, st, depth - 1);
		buf_puts(b, ")");
		return;
	}
	if (k == 4) {
		buf_printf(b, "(EXIST z%d (R(x,z%d) ^ ", depth, depth);
		tu_rnd_formula(b, st, depth - 1);
		buf_puts(b, "))");
		return;
	}
	buf_puts(b, "(");
	tu_rnd_formula(b, st, depth - 1);
	buf_puts(b, ops[tu_rnd(st, 4)]);
	tu_rnd_formula(b, st, depth - 1);
	buf_puts(b, ")");
}

/* The test case of suite s (with the temporary-folder fixture when
 * fixture is set, and a 600 s timeout). */
static inline TCase *
tu_tcase(Suite *s, int fixture)
{
	TCase *tc = tcase_create("core");

	if (fixture)
		tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return tc;
}

/* Runs suite s; the exit status of a test program. */
static inline int
tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/* Runs the tests of one suite, as tu_tcase() and tu_run(). */
static inline int
tu_main(const char *name, int fixture, const TTest *const *tests, size_t n)
{
	Suite *s = suite_create(name);
	TCase *tc = tu_tcase(s, fixture);

	for (size_t i = 0; i < n; i++)
		tcase_add_test(tc, tests[i]);
	return tu_run(s);
}

#define ck_assert_close(a, b, tol) do { \
	double a_ = (a), b_ = (b); \
	ck_assert_msg(fabs(a_ - b_) <= (tol) * (1 + fabs(b_)), \
	    "%s = %.15g, expected %.15g", #a, a_, b_); \
} while (0)

/* Whole-file checksum (FNV-1a), to show a failed command changed
 * nothing. */
static inline unsigned long long
tu_file_sum(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned long long h = 1469598103934665603ULL;
	int c;

	ck_assert_ptr_nonnull(f);
	while ((c = fgetc(f)) != EOF)
		h = (h ^ (unsigned)c) * 1099511628211ULL;
	fclose(f);
	return h;
}

static inline void
tu_file_copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char b[4096];
	size_t n;

	ck_assert(in && out);
	while ((n = fread(b, 1, sizeof b, in)) > 0)
		ck_assert_uint_eq(fwrite(b, 1, n, out), n);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

#endif
