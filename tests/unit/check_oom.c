/* check_oom.c: every allocation of a run fails in turn (k = 1, 2, ...
 * until the run no longer reaches allocation k), through the public API
 * on a small model with evidence: an exact run, one through the
 * multi-block binomial, one whose cubes' complement goes by parts of
 * equal arguments, and lis runs on two threads, one that samples
 * every branch, one that enumerates the small parts.  For each k the run returns SQLIFT_ENOMEM and leaves the
 * database file as it was, or, where the engine goes on without the
 * memory (its cache stops caching), gives run 1's answers to the bit.
 * Each k runs in a child process, so that under ASan LeakSanitizer
 * checks it for leaks at its exit; two run at once.  A few thousand runs: make check
 * skips it, make check-slow (SQLIFT_TEST_SLOW=1) runs it. */
#include <sys/wait.h>

#include "util/util.h"
#include "testutil.h"

static const char *MODEL =
    "person = {A, B, C}\nSmokes(person)\nCancer(person)\n"
    "Friends(person, person)\n1.5 Smokes(x) => Cancer(x)\n"
    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
    "-0.8 EXIST y Friends(x, y) ^ Cancer(y)\n";
static const char *EVIDENCE = "Smokes(A)\nFriends(A,B)\n!Friends(B,C)\n";
/* friends-and-smokers with Cancer's evidence splitting the persons whose
 * Smokes is unknown into three blocks: the multi-block binomial (explain:
 * "3 blocks alike: 4 branches").  Three persons keep the sweep at about
 * 4,100 allocations: under ASan each costs a child run. */
static const char *MB_MODEL =
    "person = {A, B, D}\nSmokes(person)\nCancer(person)\n"
    "Friends(person, person)\n1.5 Smokes(x) => Cancer(x)\n"
    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n";
static const char *MB_EVIDENCE = "!Cancer(B)\nCancer(D)\n";
/* a diagonal and a symmetric pair: known cubes with = and !=, so the
 * cubes a run builds take the unknown atoms' complement by parts */
static const char *PARTS_MODEL =
    "person = {A, B, C}\nSame(person,person)\nSmokes(person)\n"
    "Friends(person, person)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
    "0.7 Same(x, y) ^ Smokes(x) => Smokes(y)\n";
static const char *PARTS_EVIDENCE = "Same(A,A)\nSame(B,B)\nSame(C,C)\n"
    "Friends(A,B)\nFriends(B,A)\n";
/* the WebKB MLN's shape: lbg keeps every atom's log-odds (lbg-state.c:
 * explain says 16 atoms, 8 formula shapes) */
static const char *LBG_MODEL =
    "page = {P0, P1, P2}\nA(page)\nB(page)\nW(page)\n"
    "Linked(page, page)\n0.8 A(p1) ^ Linked(p1, p2) => B(p2)\n"
    "0.5 A(p1) ^ B(p2) => Linked(p1, p2)\n"
    "1.5 Linked(p1, p2) => Linked(p2, p1)\n1.2 W(p) => A(p)\n";
static const char *LBG_EVIDENCE = "W(P0)\n!Linked(P1, P2)\n";
/* the paper's M1 at one y: a group of 16 atoms drawn by the binomial
 * rule on S, each T(Y0, z) summed out as a weight of S's count
 * (lbg_binom_group) */
static const char *LBG_GROUP_MODEL =
    "xs = {X0, X1, X2, X3, X4, X5, X6}\nys = {Y0}\n"
    "zs = {Z0, Z1, Z2, Z3, Z4, Z5}\nR(xs)\nS(xs, ys)\nT(ys, zs)\n"
    "0.9 R(x) v S(x, y)\n1.1 S(x, y) v T(y, z)\n";
static const char *LBG_GROUP_EVIDENCE = "R(X0)\n!R(X1)\nT(Y0, Z0)\n";
static const char *model, *evidence;  /* of the sweep: MODEL by default */
static int with_cubes;  /* the sweep's database has stored cubes */

/* The database tu_dir/oom-ref.db holding the model, the evidence and run
 * 1 of o, done without a failure. */
static const char *
setup_db(const struct sqlift_infer_opts *o)
{
	const char *db = tu_file("oom-ref.db", NULL);
	const char *ev[1] = { tu_file("oom.txt", evidence ? evidence :
	    EVIDENCE) };
	int64_t n, run;
	sqlift *h;

	unlink(db);
	ck_assert_int_eq(sqlift_open(db, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_msg(sqlift_load(h, tu_file("oom.mln", model ? model : MODEL),
	    ev, 1, 0,
	    &n) == 0, "%s", sqlift_errmsg(h));
	if (with_cubes)
		ck_assert_msg(sqlift_cubes(h, NULL) == 0, "%s", sqlift_errmsg(h));
	ck_assert_msg(sqlift_infer(h, o, &run) == 0, "%s", sqlift_errmsg(h));
	ck_assert_int_eq(run, 1);
	sqlift_close(h);
	return db;
}

/* How a child's run of o ended: its exit status (apart from 0 and 1,
 * which ASan and LeakSanitizer use). */
enum { RUN_DONE = 10, RUN_NOMEM, RUN_OTHER, RUN_DEGRADED };

/* In a child: one run of o with the k-th allocation failing.  Exits
 * RUN_DONE when the run succeeded without reaching allocation k,
 * RUN_DEGRADED when it succeeded though allocation k failed (a cache
 * that stops caching), RUN_NOMEM when it said out of memory, RUN_OTHER
 * otherwise; LeakSanitizer, where built in, turns a leak into its own
 * exit status. */
static void
child_run(const char *db, const struct sqlift_infer_opts *o, long k)
{
	int64_t run;
	sqlift *h;
	int rc;

	if (sqlift_open(db, 0, &h) != 0) {
		fprintf(stderr, "k=%ld: open: %s\n", k, sqlift_errmsg(h));
		sqlift_close(h);
		exit(RUN_OTHER);
	}
	util_fail_alloc_after(k);
	rc = sqlift_infer(h, o, &run);
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

/* Differences between run 2 and run 1 (log Z, its error, the samples,
 * every marginal): 0 when they agree to the bit. */
static double
differences(const char *db)
{
	return tu_sql_double(db, "SELECT "
	    "(SELECT count(*) FROM runs x, runs y WHERE x.run_id = 1 AND "
	    "y.run_id = 2 AND (x.log_z IS NOT y.log_z OR x.log_z_stderr IS NOT "
	    "y.log_z_stderr OR x.ess IS NOT y.ess OR x.samples IS NOT "
	    "y.samples)) + "
	    "(SELECT count(*) FROM marginals x LEFT JOIN marginals y ON "
	    "y.atom = x.atom AND y.run_id = 2 WHERE x.run_id = 1 AND "
	    "x.probability IS NOT y.probability) + "
	    "abs((SELECT count(*) FROM marginals WHERE run_id = 2) - "
	    "(SELECT count(*) FROM marginals WHERE run_id = 1))");
}

/* Checks the end of the child run of o that failed allocation k on db
 * (wait status ws): returns RUN_DONE, RUN_NOMEM or RUN_DEGRADED, and for
 * the last two puts db back as ref was (checksum sum). */
static int
check_child(const struct sqlift_infer_opts *o, long k, int ws, const char *db,
    const char *ref, unsigned long long sum)
{
	ck_assert_msg(WIFEXITED(ws), "%s, k=%ld: killed by signal %d",
	    o->method, k, WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
	ck_assert_msg(WEXITSTATUS(ws) != RUN_OTHER, "%s, k=%ld: a status "
	    "other than out of memory", o->method, k);
	ck_assert_msg(WEXITSTATUS(ws) >= RUN_DONE &&
	    WEXITSTATUS(ws) <= RUN_DEGRADED, "%s, k=%ld: exit status %d "
	    "(a leak? see the log)", o->method, k, WEXITSTATUS(ws));
	if (WEXITSTATUS(ws) == RUN_DONE)
		return RUN_DONE;
	if (WEXITSTATUS(ws) == RUN_NOMEM) {
		/* at most the failed run's row, then as it was */
		ck_assert_msg(tu_sql_double(db, "SELECT count(*) FROM runs "
		    "WHERE run_id > 1 AND (status <> 'failed' OR error <> "
		    "'out of memory') OR run_id > 2") == 0 &&
		    tu_sql_double(db, "SELECT (SELECT count(*) FROM "
		    "run_marginals WHERE run_id > 1) + (SELECT count(*) FROM "
		    "run_groups WHERE run_id > 1) + (SELECT count(*) FROM "
		    "run_trace WHERE run_id > 1)") == 0, "%s, k=%ld: the failed run "
		    "changed the database", o->method, k);
	} else {
		/* went on without: the same answers as run 1 */
		fprintf(stderr, "%s, k=%ld: went on without that allocation\n",
		    o->method, k);
		ck_assert_msg(differences(db) == 0, "%s, k=%ld: the run that went "
		    "on after a failed allocation differs from run 1", o->method,
		    k);
	}
	tu_file_copy(ref, db);
	ck_assert(tu_file_sum(db) == sum);
	return WEXITSTATUS(ws);
}

/* Children run at once, each on its own copy of the database: the
 * machines that run the sweep have two cores. */
#define JOBS 2

/* Fails allocation k = 1, 2, ... of a run of o until the run no longer
 * reaches it (JOBS values of k at a time); returns how many it made. */
static long
sweep(const struct sqlift_infer_opts *o)
{
	const char *ref = setup_db(o), *db[JOBS];
	unsigned long long sum = tu_file_sum(ref);
	/* OOM_K=n starts at k = n (to look at a failure) */
	long k = getenv("OOM_K") ? strtol(getenv("OOM_K"), NULL, 10) : 1;
	long degraded = 0, done = 0;

	for (int j = 0; j < JOBS; j++) {
		char name[32];
		snprintf(name, sizeof name, "oom-%d.db", j);
		db[j] = strdup(tu_file(name, NULL));
		tu_file_copy(ref, db[j]);
	}
	for (; !done && k < 1000000; k += JOBS) {
		pid_t pid[JOBS];
		int ws[JOBS];

		fflush(stderr);
		for (int j = 0; j < JOBS; j++) {
			pid[j] = fork();
			ck_assert_int_ge(pid[j], 0);
			if (pid[j] == 0)
				child_run(db[j], o, k + j);
		}
		for (int j = 0; j < JOBS; j++)
			ck_assert_int_eq(waitpid(pid[j], &ws[j], 0), pid[j]);
		/* in order of k: the first run that did not reach its k ends
		 * the sweep, and the larger k of the same round are not looked
		 * at (they did not reach theirs either) */
		for (int j = 0; j < JOBS && !done; j++) {
			int end = check_child(o, k + j, ws[j], db[j], ref, sum);
			if (end == RUN_DONE) {
				ck_assert_double_eq(differences(db[j]), 0);
				done = k + j;
			} else if (end == RUN_DEGRADED)
				degraded++;
		}
	}
	ck_assert_msg(done > 0, "%s: no run of a million allocations ended",
	    o->method);
	fprintf(stderr, "%s: %ld allocations failed in turn, %ld of them "
	    "without failing the run\n", o->method, done - 1, degraded);
	for (int j = 0; j < JOBS; j++)
		free((char *)db[j]);
	return done - 1;
}

START_TEST(test_oom_exact)
{
	struct sqlift_infer_opts o = { 0 };

	o.method = "exact";
	o.queries = "Smokes,Cancer";
	ck_assert_int_gt(sweep(&o), 100);
}
END_TEST

/* An exact run that reads the cubes and blocks `sqlift cubes` stored
 * (their key current: store_cubes_current). */
START_TEST(test_oom_exact_cubes)
{
	struct sqlift_infer_opts o = { 0 };

	o.method = "exact";
	o.queries = "Smokes,Cancer";
	with_cubes = 1;
	ck_assert_int_gt(sweep(&o), 100);
	with_cubes = 0;
}
END_TEST

/* An exact run through the multi-block binomial (lifted/multibin.c). */
START_TEST(test_oom_multibin)
{
	struct sqlift_infer_opts o = { 0 };

	model = MB_MODEL;
	evidence = MB_EVIDENCE;
	o.method = "exact";
	o.queries = "Smokes,Cancer";
	o.open_world = "Smokes,Cancer";
	ck_assert_int_gt(sweep(&o), 100);
	model = evidence = NULL;
}
END_TEST

/* An exact run whose cubes' complement goes by parts
 * (evidence/cube-unknown.c). */
START_TEST(test_oom_parts)
{
	struct sqlift_infer_opts o = { 0 };

	model = PARTS_MODEL;
	evidence = PARTS_EVIDENCE;
	o.method = "exact";
	o.queries = "Smokes";
	ck_assert_int_gt(sweep(&o), 100);
	model = evidence = NULL;
}
END_TEST

/* A lis run with 2 threads and the given exact budget. */
static long
sweep_lis(int64_t exact_budget)
{
	struct sqlift_infer_opts o = { 0 };

	o.method = "lis";
	o.queries = "Smokes,Cancer";
	o.seed = 3;
	o.samples = 40;
	o.threads = 2;
	o.exact_budget = exact_budget;
	return sweep(&o);
}

/* Every branch drawn. */
START_TEST(test_oom_lis)
{
	ck_assert_int_gt(sweep_lis(-1), 100);
}
END_TEST

/* A small exact budget: small ground parts enumerated exactly
 * (Rao-Blackwellised), the rest drawn. */
START_TEST(test_oom_lis_tries)
{
	ck_assert_int_gt(sweep_lis(3), 100);
}
END_TEST

/* The sweep of lbg's sampler (no exact budget) on model m and evidence
 * ev: its clusters, blocks, kept log-odds (lbg-state.c) and chains, 2
 * chains on 2 threads; the allocations it made. */
static long
sweep_lbg(const char *m, const char *ev, const char *queries)
{
	struct sqlift_infer_opts o = { 0 };
	long n;

	model = m;
	evidence = ev;
	o.method = "lbg";
	o.queries = queries;
	o.seed = 3;
	o.samples = 20;
	o.chains = 2;
	o.threads = 2;
	o.exact_budget = -1;
	n = sweep(&o);
	model = evidence = NULL;
	return n;
}

/* WebKB's shape: every atom's log-odds kept. */
START_TEST(test_oom_lbg)
{
	ck_assert_int_gt(sweep_lbg(LBG_MODEL, LBG_EVIDENCE, "A,B,W,Linked"),
	    100);
}
END_TEST

/* A cluster whose large group is a binomial block by counts. */
START_TEST(test_oom_lbg_group)
{
	ck_assert_int_gt(sweep_lbg(LBG_GROUP_MODEL, LBG_GROUP_EVIDENCE,
	    "R,S,T"), 100);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = { test_oom_exact, test_oom_exact_cubes,
	    test_oom_multibin, test_oom_parts, test_oom_lis, test_oom_lis_tries,
	    test_oom_lbg, test_oom_lbg_group };
	Suite *s;
	TCase *tc;

	if (!tu_slow()) {
		printf("oom: skipped: runs in make check-slow\n");
		return 77;  /* SKIP, to automake */
	}

	/* each k writes and copies a database: in memory (tmpfs), where
	 * there is one, the sweep does not wait on the disk's syncs */
	if (access("/dev/shm", W_OK | X_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	s = suite_create("oom");
	tc = tu_tcase(s, 1);
	/* a sweep is a few thousand child runs: under ASan on a loaded
	 * machine one takes more than tu_tcase's 600 s; Check cannot report
	 * a test of 2,147 s or more (it packs microseconds in an int) */
	tcase_set_timeout(tc, 2000);
	for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
		tcase_add_test(tc, tests[i]);
	return tu_run(s);
}
