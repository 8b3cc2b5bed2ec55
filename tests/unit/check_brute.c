/* check_brute.c: brute force through the public API against closed forms
 * derived by hand for friends-and-smokers (n = 2, 3; with and without
 * evidence), and the conventions: x = y and tautological groundings count,
 * negative weights, hard formulas, Z = 0, constants in formulas, limits. */
#include "testutil.h"

static const double W1 = 1.5, W2 = -0.7;

static const char *SMOKERS =
    "Smokes(person)\nCancer(person)\nFriends(person,person)\n"
    "1.5 Smokes(x) => Cancer(x)\n"
    "-0.7 Friends(x,y) ^ Smokes(x) => Smokes(y)\n";

/* Loads model and evidence into a new database and runs brute force. */
static int
run(const char *model, const char *evidence, const char *queries,
    const char **db_path, char *msg, size_t msglen)
{
	const char *db = tu_file("run.db", NULL);
	const char *mp = tu_file("m.mln", model);
	const char *ev[1];
	struct sqlift_infer_opts o = { 0 };
	int64_t n, run_id;
	sqlift *h;
	int rc;

	unlink(db);
	if (evidence)
		ev[0] = tu_file("e.db", evidence);
	rc = sqlift_open(db, SQLIFT_OPEN_CREATE, &h);
	if (!rc)
		rc = sqlift_load(h, mp, ev, evidence ? 1 : 0, 0, &n);
	o.method = "brute";
	o.allow_zero_weights = 1;  /* random weights may all round to 0 */
	o.queries = queries;
	if (!rc)
		rc = sqlift_infer(h, &o, &run_id);
	snprintf(msg, msglen, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	*db_path = db;
	return rc;
}

static double
marg(const char *db, const char *atom)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT probability FROM marginals WHERE "
	    "run_id = 1 AND atom = '%s'", atom);
	return tu_sql_double(db, sql);
}

static double
log_z(const char *db)
{
	return tu_sql_double(db, "SELECT log_z FROM runs WHERE run_id = 1");
}

/* log of the closed-form term for k smokers among n, no evidence */
static double
term(int n, int k)
{
	double a = log(exp(W1) + 1), b = log(2) + W1;
	double c = log(exp(W2) + 1), d = log(2) + W2;
	int mixed = k * (n - k);

	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * a +
	    (n - k) * b + mixed * c + (n * n - mixed) * d;
}

static void
check_no_evidence(int n)
{
	static const char *names[] = { "A", "B", "C" };
	char model[512], msg[512];
	const char *db;
	double lz = -INFINITY, ps = 0, pc = 0, pf = 0, pself = 0.5;

	snprintf(model, sizeof model, "person = {%s}\n%s",
	    n == 2 ? "A, B" : "A, B, C", SMOKERS);
	ck_assert_msg(run(model, NULL, "Smokes,Cancer,Friends", &db, msg,
	    sizeof msg) == 0, "%s", msg);
	for (int k = 0; k <= n; k++)
		lz = log_add(lz, term(n, k));
	for (int k = 0; k <= n; k++) {
		double p = exp(term(n, k) - lz);
		double mixed = (double)k * (n - k) / (n * (n - 1));
		ps += p * k / n;
		pc += p * ((double)k / n * exp(W1) / (exp(W1) + 1) +
		    (double)(n - k) / n * 0.5);
		pf += p * (mixed / (exp(W2) + 1) + (1 - mixed) * 0.5);
	}
	ck_assert_close(log_z(db), lz, 1e-12);
	for (int i = 0; i < n; i++) {
		char a[32];
		snprintf(a, sizeof a, "Smokes(%s)", names[i]);
		ck_assert_close(marg(db, a), ps, 1e-12);
		snprintf(a, sizeof a, "Cancer(%s)", names[i]);
		ck_assert_close(marg(db, a), pc, 1e-12);
		snprintf(a, sizeof a, "Friends(%s,%s)", names[i], names[i]);
		ck_assert_close(marg(db, a), pself, 1e-12);
	}
	ck_assert_close(marg(db, "Friends(A,B)"), pf, 1e-12);
	ck_assert_close(marg(db, "Friends(B,A)"), pf, 1e-12);
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM marginals"),
	    n + n + n * n, 0);
}

START_TEST(test_smokers_2)
{
	check_no_evidence(2);
}
END_TEST

START_TEST(test_smokers_3)
{
	check_no_evidence(3);
}
END_TEST

/* Evidence Smokes(A), !Cancer(B), Friends(A,B); Friends is then closed.
 * Z = e^{8 w2} a (e^{w1} + e^{w2}) (2 e^{w1} + a), a = e^{w1} + 1. */
static void
check_evidence(const char *model_head, const char *evidence,
    const char *const *names)
{
	double a = exp(W1) + 1;
	double lz = 8 * W2 + log(a) + log(exp(W1) + exp(W2)) +
	    log(2 * exp(W1) + a);
	double psc = a / (2 * exp(W1) + a);
	char model[1024], msg[512], atom[64];
	const char *db;

	snprintf(model, sizeof model, "%s%s", model_head, SMOKERS);
	ck_assert_msg(run(model, evidence, "Smokes,Cancer", &db, msg,
	    sizeof msg) == 0, "%s", msg);
	ck_assert_close(log_z(db), lz, 1e-12);
#define M(pred, i, want) do { \
	snprintf(atom, sizeof atom, "%s(%s)", pred, names[i]); \
	ck_assert_close(marg(db, atom), want, 1e-12); } while (0)
	M("Smokes", 0, 1.0);
	M("Smokes", 1, exp(W2) / (exp(W1) + exp(W2)));
	M("Smokes", 2, psc);
	M("Cancer", 0, exp(W1) / a);
	M("Cancer", 1, 0.0);
	M("Cancer", 2, psc * exp(W1) / a + (1 - psc) * 0.5);
#undef M
}

START_TEST(test_smokers_evidence)
{
	static const char *const abc[] = { "A", "B", "C" };
	check_evidence("person = {A, B, C}\n",
	    "Smokes(A)\n!Cancer(B)\nFriends(A, B)\n", abc);
}
END_TEST

/* The same model with constants renamed, formulas reordered and the
 * domain coming from the evidence gives the same numbers. */
START_TEST(test_renaming_reordering)
{
	static const char *const zyx[] = { "Zed", "Yan", "Xu_1" };
	const char *reordered =
	    "Friends(person,person)\nCancer(person)\nSmokes(person)\n"
	    "-0.7 Friends(x,y) ^ Smokes(x) => Smokes(y)\n"
	    "1.5 Smokes(x) => Cancer(x)\n";
	double a = exp(W1) + 1;
	double lz = 8 * W2 + log(a) + log(exp(W1) + exp(W2)) +
	    log(2 * exp(W1) + a);
	char msg[512];
	const char *db;

	check_evidence("person = {Zed, Yan, Xu_1}\n",
	    "// renamed\nSmokes(Zed)\r\n!Cancer(Yan)\nFriends(Zed,Yan)", zyx);
	ck_assert_msg(run(reordered, "Smokes(Zed)\n!Cancer(Yan)\n"
	    "Friends(Zed,Yan)\nFriends(Xu_1,Xu_1)\n!Friends(Xu_1,Xu_1)\n", "Smokes",
	    &db, msg, sizeof msg) == SQLIFT_EINPUT, "contradiction accepted");
	ck_assert_ptr_nonnull(strstr(msg, "contradictory evidence"));
	ck_assert_msg(run(reordered, "Smokes(Zed)\n!Cancer(Yan)\n"
	    "Friends(Zed,Yan)\n!Friends(Xu_1,Xu_1)\n", "Smokes,Cancer", &db, msg,
	    sizeof msg) == 0, "%s", msg);
	ck_assert_close(log_z(db), lz, 1e-12);
}
END_TEST

START_TEST(test_conventions)
{
	char msg[512];
	const char *db;

	/* tautological groundings count: 9 groundings of weight 0.8, and 9
	 * free atoms */
	ck_assert_int_eq(run("p = {A, B, C}\nR(p,p)\n0.8 R(x,y) v !R(x,y)\n",
	    NULL, "R", &db, msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 9 * 0.8 + 9 * log(2), 1e-12);
	/* x = y groundings count: P(x) ^ x = y is true only for y = x */
	ck_assert_int_eq(run("p = {A, B, C}\nP(p)\n-1.3 P(x) ^ (x = y)\n",
	    NULL, NULL, &db, msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 3 * log(1 + exp(-1.3)), 1e-12);
	/* x != y: one weighted grounding per ordered pair of distinct people */
	ck_assert_int_eq(run("p = {A, B, C}\nR(p,p)\n2 R(x,y) ^ !(x = y)\n",
	    NULL, NULL, &db, msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 6 * log(1 + exp(2.0)) + 3 * log(2), 1e-12);
	/* hard formulas: 3 allowed (S, C) pairs per person */
	ck_assert_int_eq(run("p = {A, B}\nS(p)\nC(p)\nS(x) => C(x).\n", NULL,
	    "C", &db, msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 2 * log(3), 1e-12);
	ck_assert_close(marg(db, "C(A)"), 2.0 / 3, 1e-12);
	/* a constant named in a formula, with evidence on it */
	ck_assert_int_eq(run("p = {A, B}\nS(p)\n0.9 S(A)\n", "S(A)\n", NULL, &db,
	    msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 0.9, 1e-12);  /* S closed: S(B) false */
	ck_assert_int_eq(run("p = {A, B}\nS(p)\n0.9 S(A)\n", "!S(A)\n", "S", &db,
	    msg, sizeof msg), 0);
	ck_assert_close(log_z(db), log(2), 1e-12);
	/* an existential over the domain: EXIST y R(x,y) per x */
	ck_assert_int_eq(run("p = {A, B}\nR(p,p)\n0.5 EXIST y R(x,y)\n", NULL,
	    "R", &db, msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 2 * log(3 * exp(0.5) + 1), 1e-12);
}
END_TEST

START_TEST(test_zero_and_limits)
{
	char msg[512];
	const char *db;

	ck_assert_int_eq(run("p = {A, B}\nS(p)\nS(x).\n", "!S(A)\n", "S", &db, msg,
	    sizeof msg), SQLIFT_EZERO);
	ck_assert_ptr_nonnull(strstr(msg, "Z = 0"));
	ck_assert_int_eq(run("p = {A, B}\nS(p)\nS(x).\n!S(x).\n", NULL, "S", &db,
	    msg, sizeof msg), SQLIFT_EZERO);
	/* the failed run left its row, with its message, and nothing else */
	ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM runs WHERE "
	    "status = 'failed' AND error LIKE 'Z = 0%'"), 1, 0);
	ck_assert_close(tu_sql_double(db, "SELECT (SELECT count(*) FROM runs) + "
	    "(SELECT count(*) FROM run_marginals)"), 1, 0);
	/* 25 unknown atoms: over the limit, which the message names */
	ck_assert_int_eq(run("p = {A, B, C, D, E}\nR(p,p)\n1 R(x,y)\n", NULL,
	    "R", &db, msg, sizeof msg), SQLIFT_ELIMIT);
	ck_assert_ptr_nonnull(strstr(msg, "25 unknown atoms"));
	ck_assert_ptr_nonnull(strstr(msg, "24"));
	/* 20 unknown atoms are fine: per x, S(x) true makes all four
	 * groundings true (R free), else each R(x,y) chooses e or 1 */
	ck_assert_int_eq(run("p = {A, B, C, D}\nR(p,p)\nS(p)\n1 R(x,y) v S(x)\n",
	    NULL, "R", &db, msg, sizeof msg), 0);
	ck_assert_close(log_z(db), 4 * log(16 * exp(4.0) + pow(1 + exp(1.0), 4)),
	    1e-12);
	ck_assert_int_eq(run("p = {A, B, C, D}\nR(p,p)\nS(p)\n1 R(x,y) v S(x)\n",
	    "S(A)\nS(B)\n", "R", &db, msg, sizeof msg), 0);
	/* R(x,y) v S(x): S closed with S(A), S(B) true, S(C), S(D) false */
	ck_assert_close(log_z(db), 8 * 1.0 + 8 * log(2) + 8 * log(1 + exp(1.0)),
	    1e-12);
}
END_TEST

/* Every allocation failure during a run is reported, and leaves no run
 * but failed ones. */
START_TEST(test_infer_oom)
{
	const char *db = tu_file("oom.db", NULL);
	const char *mp = tu_file("m.mln", "p = {A, B}\nS(p)\nC(p)\n"
	    "R(p,p)\n0.4 S(x) => C(x)\n1 EXIST y R(x,y) ^ S(y)\n");
	const char *ev[1] = { tu_file("e.db", "S(A)\n!R(A,B)\n") };
	const char *rp = tu_file("oom.result", NULL);
	struct sqlift_infer_opts o = { 0 };
	int64_t n, run_id;
	int ok = 0;
	sqlift *h;

	ck_assert_int_eq(sqlift_open(db, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_int_eq(sqlift_load(h, mp, ev, 1, 0, &n), 0);
	sqlift_close(h);
	o.method = "brute";
	o.allow_zero_weights = 1;  /* random weights may all round to 0 */
	o.queries = "C,R";
	o.result_path = rp;
	for (long k = 1; k < 20000 && !ok; k++) {
		int rc;
		ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
		util_fail_alloc_after(k);
		rc = sqlift_infer(h, &o, &run_id);
		util_fail_alloc_after(0);
		ck_assert_msg(rc == 0 || rc == SQLIFT_ENOMEM, "k=%ld rc=%d %s", k, rc,
		    sqlift_errmsg(h));
		sqlift_close(h);
		if (rc) {
			ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM runs "
			    "WHERE status <> 'failed' OR error <> 'out of memory'"), 0,
			    0);
			ck_assert_close(tu_sql_double(db, "SELECT count(*) FROM "
			    "run_marginals"), 0, 0);
			ck_assert_int_ne(access(rp, F_OK), 0);
		}
		ok = rc == 0;
	}
	ck_assert(ok);
	ck_assert_int_eq(access(rp, F_OK), 0);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_smokers_2,
		test_smokers_3,
		test_smokers_evidence,
		test_renaming_reordering,
		test_conventions,
		test_zero_and_limits,
		test_infer_oom,
	};

	return tu_main("brute", 1, tests, sizeof tests / sizeof *tests);
}
