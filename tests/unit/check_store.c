/* check_store.c: each load is one transaction (a failure leaves the file
 * exactly as it was, or absent when it was new), locked databases and
 * newer schemas are refused, models are replaced only when asked, every
 * allocation failure during a load is reported, never a crash, and the
 * results of sampling runs (schema version 4) are stored and read back;
 * version 5's blocks pass PRAGMA integrity_check, migrated or new. */
#include <sys/stat.h>

#include "store/store.h"
#include "testutil.h"

static const char *MODEL =
    "person = {Anna}\nFriends(person,person)\nSmokes(person)\n"
    "0.5 Smokes(x) ^ Friends(x,y) => Smokes(y)\n";

/* One text from a SQL query on the database at path, or NULL; caller
 * frees. */
static char *
sql_text(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *v = NULL;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void
ck_sql_text(const char *path, const char *sql, const char *want)
{
	char *got = sql_text(path, sql);

	ck_assert_msg(got && !strcmp(got, want), "%s: '%s', expected '%s'", sql,
	    got ? got : "(null)", want);
	free(got);
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
	before = tu_file_sum(db);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int rc = load(db, m, tu_file("bad.db", bad[i]), 0, msg);
		ck_assert_msg(rc == SQLIFT_EINPUT, "case %zu: %d %s", i, rc, msg);
		ck_assert_msg(strstr(msg, "bad.db:"), "%s", msg);
		ck_assert_int_eq(tu_file_sum(db), before);
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
	before = tu_file_sum(db);
	ck_assert_int_eq(sqlite3_open(db, &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
	    SQLITE_OK);
	/* fail at once rather than wait the default 60 s for the lock */
	setenv("SQLIFT_BUSY_TIMEOUT", "0", 1);
	ck_assert_int_eq(load(db, m, tu_file("e.db", "Smokes(Bob)\n"), 0, msg),
	    SQLIFT_EDB);
	unsetenv("SQLIFT_BUSY_TIMEOUT");
	ck_assert_msg(strstr(msg, "locked"), "%s", msg);
	sqlite3_exec(other, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(other);
	ck_assert_int_eq(tu_file_sum(db), before);
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
	before = tu_file_sum(db);
	ck_assert_msg(load(db, m, NULL, 0, msg) == 0, "%s", msg);  /* same model: no-op */
	ck_assert_int_eq(tu_file_sum(db), before);
	ck_assert_int_eq(load(db, m2, NULL, 0, msg), SQLIFT_EUSAGE);
	ck_assert_msg(strstr(msg, "--replace"), "%s", msg);
	ck_assert_int_eq(tu_file_sum(db), before);
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

START_TEST(test_sampling_results)
{
	const char *db = tu_file("lis.db", NULL);
	struct store_run r = { 0 };
	struct sqlift_trace_point *pts;
	struct err e = { 0 };
	struct store *s;
	int64_t exact, lis, bare;
	unsigned long long before;
	size_t n;
	sqlift *h;

	ck_assert_int_eq(store_open(db, 1, &s, &e), 0);
	ck_assert_msg(store_begin(s, &e) == 0, "%s", e.msg);
	r.method = "exact";
	r.status = "ok";
	r.parameters = "method=exact";
	r.queries = "S";
	r.model_fp = r.evidence_fp = "0123456789abcdef";
	r.started_at = "2026-11-22T00:00:00.000Z";
	r.log_z = 1.5;
	/* samples == 0: the four columns stay NULL whatever the rest says */
	r.log_z_stderr = 0.1;
	r.ess = 3;
	r.proposal = "ignored";
	ck_assert_int_eq(store_run_add(s, &r, &exact, &e), 0);
	r.method = "lis";
	r.samples = 1000;
	r.log_z_stderr = 0.25;
	r.ess = NAN;
	r.proposal = "uniform";
	ck_assert_int_eq(store_run_add(s, &r, &lis, &e), 0);
	r.samples = 10;
	r.log_z_stderr = NAN;
	r.ess = 4.5;
	r.proposal = NULL;
	ck_assert_int_eq(store_run_add(s, &r, &bare, &e), 0);
	ck_assert_int_eq(exact, 1);
	ck_assert_int_eq(lis, 2);
	ck_assert_int_eq(bare, 3);
	ck_assert_int_eq(store_group_add(s, exact, 0, "S", 2, 0.5, NAN, NAN, &e), 0);
	ck_assert_int_eq(store_group_add(s, lis, 0, "S", 2, 0.4, 0.01, NAN, &e), 0);
	ck_assert_int_eq(store_marginal_add(s, exact, "S", "S(A)", 0.5, 0, &e),
	    0);
	ck_assert_int_eq(store_marginal_add(s, exact, "S", "S(B)", 1, -1, &e), 0);
	ck_assert_int_eq(store_marginal_add(s, lis, "S", "S(A)", 0.4, 0, &e), 0);
	ck_assert_int_eq(store_marginal_add(s, lis, "S", "S(B)", 1, -1, &e), 0);
	/* out of order, as threads may finish; read back by samples */
	ck_assert_int_eq(store_trace_add(s, lis, 100, 1.45, NAN, NAN, &e), 0);
	ck_assert_int_eq(store_trace_add(s, lis, 10, 1.4, 0.5, 7.5, &e), 0);
	ck_assert_int_eq(store_trace_add(s, lis, 10, 1.3, 0.5, 7.5, &e),
	    SQLIFT_EDB);
	ck_assert_msg(strstr(e.msg, "run_trace"), "%s", e.msg);
	/* the statement is kept and reset after a failure */
	ck_assert_int_eq(store_trace_add(s, lis, 1000, 1.5, 0.05, 700, &e), 0);
	ck_assert_int_eq(store_commit(s, &e), 0);
	store_close(s);

	ck_sql_text(db, "SELECT quote(samples) || quote(log_z_stderr) || "
	    "quote(ess) || quote(proposal) FROM runs WHERE run_id = 1",
	    "NULLNULLNULLNULL");
	ck_sql_text(db, "SELECT samples || ' ' || log_z_stderr || ' ' || "
	    "quote(ess) || ' ' || proposal FROM runs WHERE run_id = 2",
	    "1000 0.25 NULL uniform");
	ck_sql_text(db, "SELECT samples || ' ' || quote(log_z_stderr) || ' ' || "
	    "ess || ' ' || quote(proposal) FROM runs WHERE run_id = 3",
	    "10 NULL 4.5 NULL");
	ck_sql_text(db, "SELECT group_concat(quote(stderr), ' ') FROM "
	    "(SELECT stderr FROM run_groups ORDER BY run_id)", "NULL 0.01");
	/* the view: stderr last, from the atom's group */
	ck_sql_text(db, "SELECT group_concat(name, ',') FROM "
	    "pragma_table_info('marginals')",
	    "run_id,predicate,atom,probability,group_id,stderr");
	ck_sql_text(db, "SELECT group_concat(run_id || atom || '=' || "
	    "quote(stderr), ' ') FROM (SELECT * FROM marginals ORDER BY run_id, "
	    "atom)", "1S(A)=NULL 1S(B)=NULL 2S(A)=0.01 2S(B)=NULL");
	ck_sql_text(db, "SELECT group_concat(samples || ':' || quote(log_z) || "
	    "':' || quote(log_z_stderr) || ':' || quote(ess), ' ') FROM "
	    "(SELECT * FROM run_trace ORDER BY run_id, samples)",
	    "10:1.4:0.5:7.5 100:1.45:NULL:NULL 1000:1.5:0.05:700.0");

	/* the public reader changes nothing */
	before = tu_file_sum(db);
	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	ck_assert_int_eq(sqlift_trace(h, lis, &pts, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(pts[0].samples, 10);
	ck_assert_close(pts[0].log_z, 1.4, 0);
	ck_assert_close(pts[0].log_z_stderr, 0.5, 0);
	ck_assert_close(pts[0].ess, 7.5, 0);
	ck_assert_int_eq(pts[1].samples, 100);
	ck_assert(isnan(pts[1].log_z_stderr) && isnan(pts[1].ess));
	ck_assert_int_eq(pts[2].samples, 1000);
	free(pts);
	ck_assert_int_eq(sqlift_trace(h, exact, &pts, &n), SQLIFT_EUSAGE);
	ck_assert_msg(strstr(sqlift_errmsg(h), "run 1 (exact) has no "
	    "convergence trace"), "%s", sqlift_errmsg(h));
	ck_assert_ptr_null(pts);
	ck_assert_int_eq(sqlift_trace(h, 9, &pts, &n), SQLIFT_EUSAGE);
	ck_assert_msg(strstr(sqlift_errmsg(h), "lis.db: no run 9"), "%s",
	    sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_int_eq(tu_file_sum(db), before);
}
END_TEST

START_TEST(test_migration_from_v3)
{
	const char *db = tu_file("v3.db", NULL);
	const char *m = tu_file("m.mln", MODEL);
	struct sqlift_trace_point *pts;
	unsigned long long before;
	char msg[512];
	sqlite3 *h3;
	sqlift *h;
	size_t n;

	ck_assert_int_eq(load(db, m, tu_file("e.db", "Smokes(Anna)\n"), 0, msg),
	    0);
	/* make it a version 3 database with a run, as sqlift 3 left it */
	ck_assert_int_eq(sqlite3_open(db, &h3), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h3, "DROP VIEW IF EXISTS cube_atoms; "
	    "ALTER TABLE cubes DROP COLUMN eq; ALTER TABLE cubes DROP COLUMN ne; "
	    "CREATE VIEW cube_atoms (predicate, truth, atom) AS SELECT NULL, "
	    "NULL, NULL WHERE 0; DROP VIEW marginals; "
	    "DROP VIEW marginals_Smokes; DROP VIEW marginals_Friends; "
	    "ALTER TABLE run_marginals DROP COLUMN args; "
	    "DROP TABLE run_trace; ALTER TABLE run_groups DROP COLUMN rhat; "
	    "ALTER TABLE run_groups DROP COLUMN stderr; "
	    "ALTER TABLE runs DROP COLUMN log_z_stderr; ALTER TABLE runs DROP "
	    "COLUMN samples; ALTER TABLE runs DROP COLUMN ess; ALTER TABLE runs "
	    "DROP COLUMN proposal; CREATE VIEW marginals (run_id, predicate, "
	    "atom, probability, group_id) AS SELECT run_id, predicate, atom, "
	    "probability, group_id FROM run_marginals; "
	    "INSERT INTO runs (run_id, method, status, log_z, seed, parameters, "
	    "queries, model_fingerprint, evidence_fingerprint, started_at, "
	    "finished_at, seconds, sqlift_version) VALUES (1, 'exact', 'ok', 2.5, "
	    "0, 'method=exact', 'Smokes', 'f', 'f', 't', 't', 0, '0.1.0'); "
	    "INSERT INTO run_groups VALUES (1, 0, 'Smokes', 1, 0.25); "
	    "INSERT INTO run_marginals VALUES (1, 'Smokes', 'Smokes(Anna)', 1, "
	    "NULL), (1, 'Smokes', 'Smokes(Bob)', 0.25, 0); "
	    "ALTER TABLE runs DROP COLUMN error; "
	    "ALTER TABLE runs DROP COLUMN warnings; "
	    "ALTER TABLE runs DROP COLUMN map_log_weight; "
	    "ALTER TABLE runs DROP COLUMN map_bound; "
	    "ALTER TABLE runs DROP COLUMN map_optimal; DROP TABLE map_atoms; "
	    "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h3);
	/* reading does not migrate: a version 3 run has no trace */
	before = tu_file_sum(db);
	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	ck_assert_int_eq(sqlift_trace(h, 1, &pts, &n), SQLIFT_EUSAGE);
	ck_assert_msg(strstr(sqlift_errmsg(h), "no convergence trace"), "%s",
	    sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_int_eq(tu_file_sum(db), before);
	/* the first write does, keeping the run */
	ck_assert_msg(load(db, m, NULL, 0, msg) == 0, "%s", msg);
	ck_assert_close(tu_sql_double(db, "PRAGMA user_version"),
	    STORE_SCHEMA_VERSION, 0);
	ck_sql_text(db, "SELECT group_concat(atom || '=' || probability || '/' || "
	    "quote(group_id) || '/' || quote(stderr), ' ') FROM (SELECT * FROM "
	    "marginals ORDER BY atom)",
	    "Smokes(Anna)=1.0/NULL/NULL Smokes(Bob)=0.25/0/NULL");
	ck_sql_text(db, "SELECT quote(samples) || quote(log_z_stderr) || "
	    "quote(ess) || quote(proposal) || quote(stats) || quote(error) || "
	    "quote(warnings) FROM runs", "NULLNULLNULLNULLNULLNULLNULL");
	ck_sql_text(db, "SELECT quote(stderr) FROM run_groups", "NULL");
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM run_trace"), 0, 0);
	ck_sql_text(db, "SELECT group_concat(name, ',') FROM "
	    "pragma_table_info('marginals')",
	    "run_id,predicate,atom,probability,group_id,stderr");
	/* and the views of version 7 over the marginals of old runs */
	ck_sql_text(db, "SELECT group_concat(run_id || ':' || person || '=' || "
	    "probability, ' ') FROM (SELECT * FROM marginals_Smokes ORDER BY "
	    "person)", "1:Anna=1.0 1:Bob=0.25");
	ck_sql_text(db, "SELECT group_concat(name, ',') FROM "
	    "pragma_table_info('marginals_Friends')",
	    "run_id,person1,person2,probability,atom");
}
END_TEST

START_TEST(test_migration_blocks)
{
	const char *db = tu_file("v4.db", NULL);
	const char *m = tu_file("m.mln", "person = {Anna, Bob, Cy}\n"
	    "Friends(person,person)\nSmokes(person)\n"
	    "0.5 Smokes(x) ^ Friends(x,y) => Smokes(y)\n");
	char msg[512], *rows, *got;
	sqlite3 *h4;
	sqlift *h;

	ck_assert_int_eq(load(db, m, tu_file("e.db", "Smokes(Anna)\n"
	    "Friends(Bob,Cy)\n"), 0, msg), 0);
	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	ck_assert_int_eq(sqlift_cubes(h, NULL), 0);
	sqlift_close(h);
	ck_sql_text(db, "PRAGMA integrity_check", "ok");
	rows = sql_text(db, "SELECT group_concat(type_id || ':' || const_id || "
	    "':' || block, ' ') FROM (SELECT * FROM blocks ORDER BY 1, 2)");
	ck_assert_ptr_nonnull(rows);
	/* blocks as version 4 declared it, which integrity_check flags */
	ck_assert_int_eq(sqlite3_open(db, &h4), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h4, "DROP VIEW IF EXISTS cube_atoms; "
	    "ALTER TABLE cubes DROP COLUMN eq; ALTER TABLE cubes DROP COLUMN ne; "
	    "CREATE VIEW cube_atoms (predicate, truth, atom) AS SELECT NULL, "
	    "NULL, NULL WHERE 0; CREATE TABLE b4 (type_id INTEGER NOT "
	    "NULL, block INTEGER NOT NULL, const_id INTEGER NOT NULL, PRIMARY KEY "
	    "(type_id, const_id)) WITHOUT ROWID; INSERT INTO b4 (type_id, block, "
	    "const_id) SELECT type_id, block, const_id FROM blocks; DROP TABLE "
	    "blocks; ALTER TABLE b4 RENAME TO blocks; DROP VIEW "
	    "marginals_Smokes; DROP VIEW marginals_Friends; ALTER TABLE "
	    "run_marginals DROP COLUMN args; ALTER TABLE runs DROP COLUMN error; ALTER TABLE runs DROP COLUMN warnings; "
	    "ALTER TABLE run_groups DROP COLUMN rhat; ALTER TABLE run_trace DROP COLUMN seconds; ALTER TABLE run_trace DROP COLUMN estimate; "
	    "ALTER TABLE runs DROP COLUMN map_log_weight; "
	    "ALTER TABLE runs DROP COLUMN map_bound; "
	    "ALTER TABLE runs DROP COLUMN map_optimal; DROP TABLE map_atoms; "
	    "PRAGMA user_version = 4",
	    NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h4);
	got = sql_text(db, "PRAGMA integrity_check");
	ck_assert_msg(got && strstr(got, "NULL value in blocks.block"), "%s",
	    got ? got : "(null)");
	free(got);
	/* the first write migrates, keeping the blocks */
	ck_assert_msg(load(db, m, NULL, 0, msg) == 0, "%s", msg);
	ck_sql_text(db, "PRAGMA integrity_check", "ok");
	ck_sql_text(db, "SELECT group_concat(type_id || ':' || const_id || ':' || "
	    "block, ' ') FROM (SELECT * FROM blocks ORDER BY 1, 2)", rows);
	free(rows);
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
		test_sampling_results,
		test_migration_from_v3,
		test_migration_blocks,
	};

	return tu_main("store", 1, tests, sizeof tests / sizeof *tests);
}
