/* check_store.c: each load is one transaction (a failure leaves the file
 * exactly as it was, or absent when it was new), locked databases and
 * newer schemas are refused, models are replaced only when asked, and
 * every allocation failure during a load is reported, never a crash. */
#include <sys/stat.h>

#include "store/store.h"
#include "testutil.h"

static const char *MODEL =
    "person = {Anna}\nFriends(person,person)\nSmokes(person)\n"
    "0.5 Smokes(x) ^ Friends(x,y) => Smokes(y)\n";

/* Whole-file checksum, to prove a failed command changed nothing. */
static unsigned long long
file_sum(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned long long h = 1469598103934665603ULL;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		h = (h ^ (unsigned)c) * 1099511628211ULL;
	fclose(f);
	return h;
}

static int
load(const char *db, const char *model, const char *ev, int flags, char *msg)
{
	const char *evs[1] = { ev };
	int64_t n;
	sqlift *h;
	int rc = sqlift_open(db, SQLIFT_OPEN_CREATE, &h);

	if (!rc)
		rc = sqlift_load(h, model, evs, ev ? 1 : 0, flags, &n);
	snprintf(msg, 512, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	return rc;
}

START_TEST(test_failed_first_load_leaves_nothing)
{
	const char *db = tu_file("new.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	const char *ev = tu_file("e.db", "Smokes(Bob)\nFriends(Bob)\n");
	char msg[512];

	ck_assert_int_eq(load(db, m, ev, 0, msg), SQLIFT_EINPUT);
	ck_assert_msg(strstr(msg, "e.db:2: Friends takes 2 arguments, found 1"),
	    "%s", msg);
	ck_assert_int_ne(access(db, F_OK), 0);
	ck_assert_int_eq(load(db, tu_file("bad.mln", "P(t)\n1 P(x\n"), NULL, 0,
	    msg), SQLIFT_EINPUT);
	ck_assert_msg(strstr(msg, "bad.mln:2:"), "%s", msg);
	ck_assert_int_ne(access(db, F_OK), 0);
}
END_TEST

START_TEST(test_failed_append_changes_nothing)
{
	static const char *bad[] = {
	    "Smokes(Anna)\nSmokes(Bob\n",          /* unclosed atom */
	    "Smokes(Bob)\nCancer(Bob)\n",          /* undeclared predicate */
	    "Smokes(Bob)\n!Smokes(Anna)\n",        /* contradicts stored */
	    "Smokes(Cy)\n!Smokes(Cy)\n",           /* contradicts itself */
	    "Smokes(Bob) Smokes(Cy)\n",            /* two atoms */
	    "0.7 Smokes(Bob)\n",                   /* soft evidence */
	};
	const char *db = tu_file("s.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	char msg[512];
	unsigned long long before;

	ck_assert_int_eq(load(db, m, tu_file("ok.db", "Smokes(Anna)\n"), 0, msg),
	    0);
	before = file_sum(db);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int rc = load(db, m, tu_file("bad.db", bad[i]), 0, msg);
		ck_assert_msg(rc == SQLIFT_EINPUT, "case %zu: %d %s", i, rc, msg);
		ck_assert_msg(strstr(msg, "bad.db:"), "%s", msg);
		ck_assert_int_eq(file_sum(db), before);
	}
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM evidence_atoms"),
	    1, 0);
}
END_TEST

START_TEST(test_locked)
{
	const char *db = tu_file("l.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	char msg[512];
	sqlite3 *other;
	unsigned long long before;

	ck_assert_int_eq(load(db, m, NULL, 0, msg), 0);
	before = file_sum(db);
	ck_assert_int_eq(sqlite3_open(db, &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
	    SQLITE_OK);
	ck_assert_int_eq(load(db, m, tu_file("e.db", "Smokes(Bob)\n"), 0, msg),
	    SQLIFT_EDB);
	ck_assert_msg(strstr(msg, "locked"), "%s", msg);
	sqlite3_exec(other, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(other);
	ck_assert_int_eq(file_sum(db), before);
}
END_TEST

START_TEST(test_newer_schema_and_foreign_files)
{
	const char *db = tu_file("n.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	const char *txt = tu_file("notes.txt", "not a database at all, but long "
	    "enough to have a header of sorts............................"
	    "...........................................................\n");
	char msg[512];
	sqlite3 *h;

	ck_assert_int_eq(load(db, m, NULL, 0, msg), 0);
	ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL);
	sqlite3_close(h);
	ck_assert_int_eq(load(db, m, NULL, 0, msg), SQLIFT_EDB);
	ck_assert_msg(strstr(msg, "schema version 99 is newer"), "%s", msg);
	ck_assert_int_eq(load(txt, m, NULL, 0, msg), SQLIFT_EDB);
	ck_assert_msg(strstr(msg, "not a database"), "%s", msg);
	ck_assert_int_eq(sqlite3_open(tu_file("other.db", NULL), &h), SQLITE_OK);
	sqlite3_exec(h, "CREATE TABLE t(x)", NULL, NULL, NULL);
	sqlite3_close(h);
	ck_assert_int_eq(load(tu_file("other.db", NULL), m, NULL, 0, msg),
	    SQLIFT_EDB);
	ck_assert_msg(strstr(msg, "not a sqlift database"), "%s", msg);
}
END_TEST

START_TEST(test_model_reload_and_replace)
{
	const char *db = tu_file("r.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	const char *m2 = tu_file("m2.mln", "Friends(person,person)\n"
	    "Smokes(person,person)\nCancer(person)\n1 Cancer(x)\n");
	char msg[512];
	unsigned long long before;

	ck_assert_int_eq(load(db, m, tu_file("e.db", "Smokes(Bob)\n"
	    "Friends(Anna,Bob)\n"), 0, msg), 0);
	before = file_sum(db);
	ck_assert_int_eq(load(db, m, NULL, 0, msg), 0);  /* same model: no-op */
	ck_assert_int_eq(file_sum(db), before);
	ck_assert_int_eq(load(db, m2, NULL, 0, msg), SQLIFT_EUSAGE);
	ck_assert_msg(strstr(msg, "--replace"), "%s", msg);
	ck_assert_int_eq(file_sum(db), before);
	ck_assert_int_eq(load(db, m2, NULL, SQLIFT_LOAD_REPLACE, msg), 0);
	/* Friends kept its evidence; Smokes changed arity and lost it */
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM evidence_atoms"),
	    1, 0);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM evidence_atoms "
	    "WHERE atom = 'Friends(Anna,Bob)'"), 1, 0);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM predicates"), 3, 0);
}
END_TEST

START_TEST(test_csv_and_folders)
{
	const char *db = tu_file("c.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	char dir[300], msg[512];

	snprintf(dir, sizeof dir, "%s/ev", tu_dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	tu_file("ev/Friends.csv", "Anna,Bob\r\n\"Bob, Jr.\",Anna,0\nCy,Cy,true\n");
	tu_file("ev/x.db", "Smokes(Cy)\n!Smokes(\"Bob, Jr.\")\n");
	tu_file("ev/README", "ignored\n");
	ck_assert_int_eq(load(db, m, dir, 0, msg), 0);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM evidence_atoms"),
	    5, 0);
	ck_assert_close(tu_sql_double(db, "SELECT truth FROM evidence_atoms WHERE "
	    "atom = 'Friends(\"Bob, Jr.\",Anna)'"), 0, 0);
	ck_assert_close(tu_sql_double(db, "SELECT truth FROM evidence_atoms WHERE "
	    "atom = 'Smokes(\"Bob, Jr.\")'"), 0, 0);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM domains"), 4, 0);
	tu_file("ev/Friends.csv", "Anna,Bob,maybe\n");
	ck_assert_int_eq(load(db, m, tu_file("ev/Friends.csv", NULL), 0, msg),
	    SQLIFT_EINPUT);
	ck_assert_msg(strstr(msg, "Friends.csv:1: truth column is 'maybe'"), "%s",
	    msg);
	tu_file("ev/Friends.csv", "Anna,Bob\nAnna\n");
	ck_assert_int_eq(load(db, m, tu_file("ev/Friends.csv", NULL), 0, msg),
	    SQLIFT_EINPUT);
	ck_assert_msg(strstr(msg, "Friends.csv:2: Friends takes 2 arguments: "
	    "expected 2 or 3 columns, found 1"), "%s", msg);
	tu_file("ev/Cancer.csv", "Anna\n");
	ck_assert_int_eq(load(db, m, tu_file("ev/Cancer.csv", NULL), 0, msg),
	    SQLIFT_EINPUT);
	ck_assert_msg(strstr(msg, "no predicate Cancer"), "%s", msg);
}
END_TEST

START_TEST(test_load_oom)
{
	const char *m = tu_file("m.mln", MODEL);
	const char *ev = tu_file("e.db", "Smokes(Bob)\nFriends(Anna,Bob)\n"
	    "!Friends(Bob,Cy)\n");
	char db[300];
	int ok = 0;

	for (long k = 1; k < 5000 && !ok; k++) {
		char msg[512];
		int rc;
		snprintf(db, sizeof db, "%s/oom.db", tu_dir);
		unlink(db);
		util_fail_alloc_after(k);
		rc = load(db, m, ev, 0, msg);
		util_fail_alloc_after(0);
		ck_assert_msg(rc == 0 || rc == SQLIFT_ENOMEM, "k=%ld rc=%d %s", k, rc,
		    msg);
		if (rc)
			ck_assert_int_ne(access(db, F_OK), 0);
		ok = rc == 0;
	}
	ck_assert(ok);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM evidence_atoms"),
	    3, 0);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_failed_first_load_leaves_nothing,
		test_failed_append_changes_nothing,
		test_locked,
		test_newer_schema_and_foreign_files,
		test_model_reload_and_replace,
		test_csv_and_folders,
		test_load_oom,
	};

	return tu_main("store", 1, tests, sizeof tests / sizeof *tests);
}
