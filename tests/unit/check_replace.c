/* check_replace.c: replacing the evidence through the public API: the
 * counts of added, flipped and removed atoms, identical files leaving
 * the file as it was, a clash among the new files, and every allocation
 * of a replacement failing in turn (115 of them, in child processes),
 * each leaving the database exactly as it was or replaced whole. */
#include <sys/wait.h>

#include "util/util.h"
#include "testutil.h"

static const char *MODEL =
    "person = {A}\nSmokes(person)\nFriends(person, person)\n"
    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n";
static const char *EV_A = "Smokes(A)\n!Smokes(B)\nFriends(A,B)\n"
    "Friends(B,C)\nSmokes(E)\n";
/* Smokes(E) gone (and E with it), Smokes(B) flipped, Friends(C,D) new */
static const char *EV_B = "Friends(A,B)\nSmokes(B)\nFriends(B,C)\n"
    "Smokes(A)\nFriends(C,D)\n";
/* The stored evidence and domains of EV_B, as text. */
static const char *STATE_B = "Friends(A,B)=1 Friends(B,C)=1 Friends(C,D)=1 "
    "Smokes(A)=1 Smokes(B)=1 |A B C D |4";

/* The evidence atoms, the members of person and the number of constants
 * of the database at path, as one line. */
static void
state(const char *path, char *out, size_t n)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct buf b;
	static const char *const q[] = {
		"SELECT atom || '=' || truth || ' ' FROM evidence_atoms ORDER BY 1",
		"SELECT '|'",
		("SELECT c.name || ' ' FROM domains d JOIN constants c USING "
		    "(const_id) ORDER BY 1"),
		"SELECT '|' || count(*) FROM constants",
	};

	buf_init(&b);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
		ck_assert_int_eq(sqlite3_prepare_v2(db, q[i], -1, &st, NULL),
		    SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW)
			buf_puts(&b, (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	snprintf(out, n, "%s", b.s ? b.s : "");
	buf_free(&b);
}

/* tu_dir/ref.db holding MODEL and EV_A. */
static const char *
setup_db(void)
{
	const char *db = tu_file("ref.db", NULL);
	const char *ev[1] = { tu_file("a.txt", EV_A) };
	int64_t n;
	sqlift *h;

	unlink(db);
	ck_assert_int_eq(sqlift_open(db, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_msg(sqlift_load(h, tu_file("m.mln", MODEL), ev, 1, 0, &n) == 0,
	    "%s", sqlift_errmsg(h));
	sqlift_close(h);
	return db;
}

static int
replace(const char *db, const char *text, int64_t counts[3])
{
	const char *ev[1] = { tu_file("new.txt", text) };
	int64_t n;
	sqlift *h;
	int rc;

	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	rc = sqlift_load(h, NULL, ev, 1, SQLIFT_LOAD_REPLACE_EVIDENCE, &n);
	sqlift_load_changes(h, &counts[0], &counts[1], &counts[2]);
	sqlift_close(h);
	return rc;
}

START_TEST(test_replace_counts)
{
	const char *db = setup_db();
	unsigned long long sum = tu_file_sum(db);
	int64_t c[3];
	char got[512];

	/* the same atoms in another order: nothing written */
	ck_assert_int_eq(replace(db, "Smokes(E)\nFriends(B,C)\nSmokes(A)\n"
	    "Friends(A,B)\n!Smokes(B)\nSmokes(A)\n", c), 0);
	ck_assert(c[0] == 0 && c[1] == 0 && c[2] == 0);
	/* the list of files changed (new.txt, 6 atoms read): only it */
	ck_assert(tu_file_sum(db) != sum);
	ck_assert_int_eq(replace(db, "Smokes(A)\n!Smokes(A)\n", c),
	    SQLIFT_EINPUT);
	ck_assert_int_eq(replace(db, EV_B, c), 0);
	ck_assert(c[0] == 1 && c[1] == 1 && c[2] == 1);
	state(db, got, sizeof got);
	ck_assert_str_eq(got, STATE_B);
	sum = tu_file_sum(db);
	ck_assert_int_eq(replace(db, EV_B, c), 0);
	ck_assert(c[0] == 0 && c[1] == 0 && c[2] == 0);
	ck_assert(tu_file_sum(db) == sum);
}
END_TEST

enum { RUN_DONE = 10, RUN_NOMEM, RUN_OTHER, RUN_DEGRADED };

/* In a child: the replacement with allocation k failing. */
static void
child_run(const char *db, const char *ev, long k)
{
	int64_t n;
	sqlift *h;
	int rc;

	if (sqlift_open(db, 0, &h) != 0)
		exit(RUN_OTHER);
	util_fail_alloc_after(k);
	rc = sqlift_load(h, NULL, &ev, 1, SQLIFT_LOAD_REPLACE_EVIDENCE, &n);
	if (rc == 0)
		rc = util_fail_alloc_left() > 0 ? RUN_DONE : RUN_DEGRADED;
	else if (rc == SQLIFT_ENOMEM)
		rc = RUN_NOMEM;
	else {
		fprintf(stderr, "k=%ld: status %d: %s\n", k, rc, sqlift_errmsg(h));
		rc = RUN_OTHER;
	}
	util_fail_alloc_after(0);
	sqlift_close(h);
	exit(rc);
}

START_TEST(test_replace_oom)
{
	const char *ref = setup_db(), *db = tu_file("oom.db", NULL);
	const char *ev = tu_file("b.txt", EV_B);
	unsigned long long sum = tu_file_sum(ref);
	char got[512];
	long k;
	int ws;

	tu_file_copy(ref, db);
	for (k = 1; k < 100000; k++) {
		pid_t pid;

		fflush(stderr);
		ck_assert_int_ge(pid = fork(), 0);
		if (pid == 0)
			child_run(db, ev, k);
		ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
		ck_assert_msg(WIFEXITED(ws), "k=%ld: killed by signal %d", k,
		    WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
		ck_assert_msg(WEXITSTATUS(ws) >= RUN_DONE &&
		    WEXITSTATUS(ws) <= RUN_DEGRADED && WEXITSTATUS(ws) != RUN_OTHER,
		    "k=%ld: exit status %d", k, WEXITSTATUS(ws));
		if (WEXITSTATUS(ws) == RUN_NOMEM) {
			ck_assert_msg(tu_file_sum(db) == sum, "k=%ld: a failed "
			    "replacement changed the database", k);
			continue;
		}
		state(db, got, sizeof got);
		ck_assert_msg(!strcmp(got, STATE_B), "k=%ld: %s", k, got);
		if (WEXITSTATUS(ws) == RUN_DONE)
			break;
		tu_file_copy(ref, db);
	}
	ck_assert_int_gt(k, 50);
	fprintf(stderr, "replace: %ld allocations failed in turn\n", k - 1);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = { test_replace_counts, test_replace_oom };

	return tu_main("replace", 1, tests, sizeof tests / sizeof *tests);
}
