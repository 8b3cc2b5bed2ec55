/* check_lis.c: lifted importance sampling against exact answers.
 *
 * Every model here is one that exact inference finishes; its exact log Z
 * and marginals come from --method exact (itself checked against brute
 * force in check_engine).  Over 100 seeds of 1000 samples each:
 *   - the 95% interval log Z +- 1.96 stderr covers the exact log Z in 90
 *     to 99 runs (a wrong variance or a biased estimator fails this);
 *   - every run's log Z is within 1% of exact, and its marginals within
 *     0.02 on average.
 * With --exact-budget 0 every binomial is sampled; with a small budget
 * the top is sampled and small parts solved exactly.  With --marginals
 * path (marginals from Z's own samples) only the marginals are held to
 * 0.02: the constants split off for the groups make Z's sampler less
 * lifted, so log Z and its coverage are only reported.  The islands once
 * more with their flat parts drawn by particles (--particles 4:
 * sequential Monte Carlo, whose Z estimate must be as unbiased).  Then:
 * the same seed and threads give bit-identical tables.
 *
 * That is make check-slow (SQLIFT_TEST_SLOW=1); make check runs two
 * seeds, a smoke test of every configuration without the coverage
 * bounds, which need 100.  CHECK_LIS_SEEDS=n runs n seeds instead. */
#include <math.h>

#include "testutil.h"

struct lis_case {
	const char *name, *model, *evidence, *queries;
};

/* A chain of 36 persons, P1 friends with P2 and so on (Friends closed
 * world), with an EXIST formula of negative weight (auxiliary atoms). */
#define CHAIN_PERSONS "P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, " \
	"P13, P14, P15, P16, P17, P18, P19, P20, P21, P22, P23, P24, P25, " \
	"P26, P27, P28, P29, P30, P31, P32, P33, P34, P35, P36"
#define CHAIN_MODEL "Smokes(person)\nCancer(person)\n" \
	"*Friends(person, person)\n1.5 Smokes(x) => Cancer(x)\n" \
	"1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n" \
	"-0.8 EXIST y Friends(x, y) ^ Smokes(y)\n"
#define CHAIN_FRIENDS \
	"Friends(P1,P2)\nFriends(P2,P3)\nFriends(P3,P4)\nFriends(P4,P5)\n" \
	"Friends(P5,P6)\nFriends(P6,P7)\nFriends(P7,P8)\nFriends(P8,P9)\n" \
	"Friends(P9,P10)\nFriends(P10,P11)\nFriends(P11,P12)\nFriends(P12,P13)\n" \
	"Friends(P13,P14)\nFriends(P14,P15)\nFriends(P15,P16)\nFriends(P16,P17)\n" \
	"Friends(P17,P18)\nFriends(P18,P19)\nFriends(P19,P20)\nFriends(P20,P21)\n" \
	"Friends(P21,P22)\nFriends(P22,P23)\nFriends(P23,P24)\nFriends(P24,P25)\n" \
	"Friends(P25,P26)\nFriends(P26,P27)\nFriends(P27,P28)\nFriends(P28,P29)\n" \
	"Friends(P29,P30)\nFriends(P30,P31)\nFriends(P31,P32)\nFriends(P32,P33)\n" \
	"Friends(P33,P34)\nFriends(P34,P35)\nFriends(P35,P36)\n"

/* Twenty islands: P1 and P2 friends, P3 and P4, and so on. */
#define ISLAND_PERSONS CHAIN_PERSONS ", P37, P38, P39, P40"
#define ISLAND_FRIENDS \
	"Friends(P1,P2)\nFriends(P3,P4)\nFriends(P5,P6)\nFriends(P7,P8)\n" \
	"Friends(P9,P10)\nFriends(P11,P12)\nFriends(P13,P14)\n" \
	"Friends(P15,P16)\nFriends(P17,P18)\nFriends(P19,P20)\n" \
	"Friends(P21,P22)\nFriends(P23,P24)\nFriends(P25,P26)\n" \
	"Friends(P27,P28)\nFriends(P29,P30)\nFriends(P31,P32)\n" \
	"Friends(P33,P34)\nFriends(P35,P36)\nFriends(P37,P38)\n" \
	"Friends(P39,P40)\n"

static const struct lis_case cases[] = {
	{ "smokers", "person = {A, B, C}\nSmokes(person)\nCancer(person)\n"
	    "Friends(person, person)\n1.5 Smokes(x) => Cancer(x)\n"
	    "-0.7 Friends(x, y) ^ Smokes(x) => Smokes(y)\n", NULL,
	    "Smokes,Cancer,Friends" },
	{ "smokers-evidence", "person = {A, B, C, D, E, F}\nSmokes(person)\n"
	    "Cancer(person)\nFriends(person, person)\n"
	    "1.5 Smokes(x) => Cancer(x)\n"
	    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n",
	    "Smokes(A)\n!Smokes(B)\nFriends(A,C)\nFriends(C,D)\n!Cancer(E)\n",
	    "Smokes,Cancer" },
	/* the power rule over x with parts that must be sampled: biased if
	 * one draw were raised to the power of the block size */
	{ "power", "t = {A, B, C, D, E}\nu = {K, L, M}\nR(t, u)\nS(t)\nT(u)\n"
	    "1.2 R(x, y) ^ S(x)\n-0.8 S(x) v T(y)\n0.6 !R(x, y) v T(y)\n", NULL,
	    "S,T" },
	{ "hard", "t = {A, B, C, D}\nP(t)\nQ(t)\nR(t, t)\n"
	    "P(x) ^ R(x, y) => Q(y).\n0.9 P(x)\n-0.4 R(x, y)\n2 Q(x) => P(x)\n",
	    "P(A)\n!Q(B)\n", "Q" },
	/* the chain: the evidence leaves every person apart, so the part is
	 * all ground and drawn from its flat copy (gpart) */
	{ "chain", "person = {" CHAIN_PERSONS "}\n" CHAIN_MODEL,
	    CHAIN_FRIENDS "Smokes(P3)\n", "Smokes" },
	/* the chain and four interchangeable persons X (one block) tied to
	 * P1: nearly ground, so grounded whole and drawn flat */
	{ "chain-block", "person = {" CHAIN_PERSONS ", X1, X2, X3, X4}\n"
	    CHAIN_MODEL, CHAIN_FRIENDS "Smokes(P3)\nFriends(X1,P1)\n"
	    "Friends(X2,P1)\nFriends(X3,P1)\nFriends(X4,P1)\n", "Smokes" },
	/* twenty independent parts, drawn with the uniform proposal: the
	 * mean over samples of the product of the parts' weights has the
	 * product of their variances (covered in 16 of 30 runs, ESS 5);
	 * the product of the parts' means has their sum */
	{ "islands", "person = {" ISLAND_PERSONS "}\n" CHAIN_MODEL,
	    ISLAND_FRIENDS "Smokes(P3)\n", "Smokes" },
	/* friends and smokers over 12 persons, 9 of them interchangeable:
	 * the count of smokers among them is drawn by a node with a pilot
	 * (count_pilot: 8 atoms or more) */
	{ "smokers-12", "person = {P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, "
	    "P11, P12}\nSmokes(person)\nCancer(person)\n"
	    "Friends(person, person)\n1.5 Smokes(x) => Cancer(x)\n"
	    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n",
	    "Smokes(P1)\n!Smokes(P2)\nCancer(P3)\n", "Smokes,Cancer" },
};

/* Loads case c into a fresh database and runs exact inference (run 1). */
static const char *
setup(const struct lis_case *c)
{
	const char *db = tu_file("lis.db", NULL);
	const char *ev[1];
	struct sqlift_infer_opts o = { 0 };
	int64_t n, run;
	sqlift *h;

	unlink(db);
	ev[0] = tu_file("lis.txt", c->evidence ? c->evidence : "");
	ck_assert_int_eq(sqlift_open(db, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_msg(sqlift_load(h, tu_file("lis.mln", c->model), ev, 1, 0,
	    &n) == 0, "%s: %s", c->name, sqlift_errmsg(h));
	o.method = "exact";
	o.queries = c->queries;
	ck_assert_msg(sqlift_infer(h, &o, &run) == 0, "%s: %s", c->name,
	    sqlift_errmsg(h));
	ck_assert_int_eq(run, 1);
	sqlift_close(h);
	return db;
}

static const char *marginals;  /* of the runs of lis_once */
static int particles;          /* of the runs of lis_once */

static int64_t
lis_once(const char *db, const struct lis_case *c, uint64_t seed,
    int64_t budget, const char *proposal, int threads)
{
	struct sqlift_infer_opts o = { 0 };
	int64_t run;
	sqlift *h;

	o.method = "lis";
	o.queries = c->queries;
	o.seed = seed;
	o.samples = 1000;
	o.exact_budget = budget;
	o.proposal = proposal;
	o.threads = threads;
	o.marginals = marginals;
	o.particles = particles;
	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	ck_assert_msg(sqlift_infer(h, &o, &run) == 0, "%s: %s", c->name,
	    sqlift_errmsg(h));
	sqlift_close(h);
	return run;
}

static int
seeds(void)
{
	const char *s = getenv("CHECK_LIS_SEEDS");

	if (s && atoi(s) > 0)
		return atoi(s);
	return tu_slow() ? 100 : 2;
}

/* seeds() seeds of case c; returns how many intervals covered log Z. */
static int
coverage(const struct lis_case *c, int64_t budget, const char *proposal)
{
	const char *db = setup(c);
	double lz = tu_sql_double(db, "SELECT log_z FROM runs WHERE run_id = 1");
	double msum = 0, worst = 0;
	int covered = 0, n = seeds();

	for (uint64_t seed = 1; seed <= (uint64_t)n; seed++) {
		int64_t run = lis_once(db, c, seed, budget, proposal, 1);
		char sql[512];
		double est, se, merr;
		snprintf(sql, sizeof sql, "SELECT log_z FROM runs WHERE run_id = "
		    "%lld", (long long)run);
		est = tu_sql_double(db, sql);
		snprintf(sql, sizeof sql, "SELECT log_z_stderr FROM runs WHERE "
		    "run_id = %lld", (long long)run);
		se = tu_sql_double(db, sql);
		snprintf(sql, sizeof sql, "SELECT avg(abs(a.probability - "
		    "b.probability)) FROM marginals a JOIN marginals b USING (atom) "
		    "WHERE a.run_id = 1 AND b.run_id = %lld", (long long)run);
		merr = tu_sql_double(db, sql);
		/* by path, constants split off for the groups make Z's sampler
		 * less lifted: its log Z is reported, not held to 1% */
		ck_assert_msg(!strcmp(marginals, "path") ||
		    fabs(est - lz) <= 0.01 * fabs(lz), "%s, budget %lld, "
		    "%s, seed %llu: log Z %.6g, exact %.6g: off by more than 1%%",
		    c->name, (long long)budget, proposal, (unsigned long long)seed,
		    est, lz);
		msum += merr;
		if (fabs(est - lz) / fabs(lz) > worst)
			worst = fabs(est - lz) / fabs(lz);
		covered += fabs(est - lz) <= 1.96 * se;
	}
	ck_assert_msg(msum / n <= 0.02, "%s, budget %lld, %s, %s: marginals off "
	    "by %.4f on average", c->name, (long long)budget, proposal,
	    marginals, msum / n);
	fprintf(stderr, "lis: %s, budget %lld, %s, %s marginals: largest log Z "
	    "error %.3g%%, marginals off by %.4f on average\n", c->name,
	    (long long)budget, proposal, marginals, 100 * worst, msum / n);
	return covered;
}

/* Every case with every branch sampled; two with the binomial proposal,
 * two with exact parts (budget 3); then marginals from Z's own samples
 * (path) rather than by pairs of estimates; the 12 smokers both ways;
 * then marginals as expected counts (counts), whose Z is held to the
 * coverage as well: their unit clauses of weight 0 leave it as it is. */
static const struct {
	int c;
	int64_t budget;
	const char *proposal, *marginals;
	int particles;         /* 0: the default */
} cfg[] = {
	{ 0, -1, "adaptive", "pairs", 0 }, { 1, -1, "adaptive", "pairs", 0 },
	{ 2, -1, "adaptive", "pairs", 0 }, { 3, -1, "adaptive", "pairs", 0 },
	{ 0, -1, "binomial", "pairs", 0 }, { 2, -1, "binomial", "pairs", 0 },
	{ 1, 3, "adaptive", "pairs", 0 }, { 2, 3, "adaptive", "pairs", 0 },
	{ 0, -1, "adaptive", "path", 0 }, { 1, -1, "adaptive", "path", 0 },
	{ 2, -1, "adaptive", "path", 0 }, { 3, 3, "adaptive", "path", 0 },
	{ 4, -1, "adaptive", "pairs", 0 }, { 4, -1, "adaptive", "path", 0 },
	{ 5, -1, "adaptive", "pairs", 0 }, { 6, -1, "uniform", "pairs", 0 },
	/* the islands drawn by four particles each */
	{ 6, -1, "adaptive", "pairs", 4 },
	/* counts drawn from nodes with a pilot */
	{ 7, 3, "adaptive", "pairs", 0 }, { 7, -1, "adaptive", "pairs", 0 },
	/* marginals as expected counts from Z's own samples */
	{ 0, -1, "adaptive", "counts", 0 }, { 2, -1, "adaptive", "counts", 0 },
	{ 3, 3, "adaptive", "counts", 0 }, { 7, -1, "adaptive", "counts", 0 },
};

START_TEST(test_lis_coverage)
{
	const struct lis_case *c = &cases[cfg[_i].c];
	int covered;

	marginals = cfg[_i].marginals;
	particles = cfg[_i].particles;
	covered = coverage(c, cfg[_i].budget, cfg[_i].proposal);
	fprintf(stderr, "lis: %s, budget %lld, %s, %s marginals, particles %d: "
	    "covered in %d of %d runs\n", c->name, (long long)cfg[_i].budget,
	    cfg[_i].proposal, marginals, particles, covered, seeds());
	particles = 0;
	if (seeds() == 100 && strcmp(marginals, "path"))
		ck_assert_msg(covered >= 90 && covered <= 99, "%s, budget %lld, %s: "
		    "the 95%% interval covered exact log Z in %d of 100 runs",
		    c->name, (long long)cfg[_i].budget, cfg[_i].proposal, covered);
}
END_TEST

/* The tables of two runs agree to the bit (times and ids aside). */
static double
differences(const char *db, int64_t a, int64_t b)
{
	char sql[1024];

	snprintf(sql, sizeof sql, "SELECT "
	    "(SELECT count(*) FROM runs x, runs y WHERE x.run_id = %1$lld AND "
	    "y.run_id = %2$lld AND (x.log_z IS NOT y.log_z OR x.log_z_stderr "
	    "IS NOT y.log_z_stderr OR x.ess IS NOT y.ess OR x.samples IS NOT "
	    "y.samples)) + "
	    "(SELECT count(*) FROM run_groups x JOIN run_groups y USING "
	    "(group_id) WHERE x.run_id = %1$lld AND y.run_id = %2$lld AND "
	    "(x.probability IS NOT y.probability OR x.stderr IS NOT y.stderr)) + "
	    "(SELECT count(*) FROM marginals x JOIN marginals y USING (atom) "
	    "WHERE x.run_id = %1$lld AND y.run_id = %2$lld AND "
	    "x.probability IS NOT y.probability) + "
	    "(SELECT count(*) FROM run_trace x JOIN run_trace y USING (samples) "
	    "WHERE x.run_id = %1$lld AND y.run_id = %2$lld AND (x.log_z IS NOT "
	    "y.log_z OR x.ess IS NOT y.ess OR x.log_z_stderr IS NOT "
	    "y.log_z_stderr))", (long long)a, (long long)b);
	return tu_sql_double(db, sql);
}

START_TEST(test_lis_reproducible)
{
	const struct lis_case *c = &cases[1];
	const char *db = setup(c);
	int64_t r1 = lis_once(db, c, 7, -1, NULL, 2);
	int64_t r2 = lis_once(db, c, 7, -1, NULL, 2);
	int64_t r3 = lis_once(db, c, 8, -1, NULL, 2);
	int64_t r4 = lis_once(db, c, 7, -1, NULL, 1);
	char sql[256];

	ck_assert_double_eq(differences(db, r1, r2), 0);
	marginals = "path";
	{
		int64_t p1 = lis_once(db, c, 7, -1, NULL, 2);
		int64_t p2 = lis_once(db, c, 7, -1, NULL, 2);
		ck_assert_double_eq(differences(db, p1, p2), 0);
	}
	marginals = "counts";
	{
		int64_t p1 = lis_once(db, c, 7, -1, NULL, 2);
		int64_t p2 = lis_once(db, c, 7, -1, NULL, 2);
		ck_assert_double_eq(differences(db, p1, p2), 0);
	}
	marginals = NULL;
	/* and the comparison can fail: another seed, or other streams */
	ck_assert_double_gt(differences(db, r1, r3), 0);
	ck_assert_double_gt(differences(db, r1, r4), 0);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM run_trace WHERE run_id "
	    "= %lld", (long long)r1);
	ck_assert_double_ge(tu_sql_double(db, sql), 9);
	snprintf(sql, sizeof sql, "SELECT samples FROM runs WHERE run_id = %lld",
	    (long long)r1);
	ck_assert_double_eq(tu_sql_double(db, sql), 1000);
}
END_TEST

/* A run stopped by time on one thread is the run of --samples set to
 * what it drew, with the same seed. */
START_TEST(test_lis_time_reproducible)
{
	const struct lis_case *c = &cases[4];
	const char *db = setup(c);
	struct sqlift_infer_opts o = { 0 };
	int64_t r1, r2, n;
	char sql[128];
	sqlift *h;

	o.method = "lis";
	o.queries = c->queries;
	o.seed = 11;
	o.max_seconds = 0.3;
	ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
	ck_assert_msg(sqlift_infer(h, &o, &r1) == 0, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	snprintf(sql, sizeof sql, "SELECT samples FROM runs WHERE run_id = %lld",
	    (long long)r1);
	n = (int64_t)tu_sql_double(db, sql);
	ck_assert_int_gt(n, 1);
	{
		struct sqlift_infer_opts p = o;
		p.max_seconds = 0;
		p.samples = n;
		ck_assert_int_eq(sqlift_open(db, 0, &h), 0);
		ck_assert_msg(sqlift_infer(h, &p, &r2) == 0, "%s",
		    sqlift_errmsg(h));
		sqlift_close(h);
	}
	ck_assert_double_eq(differences(db, r1, r2), 0);
}
END_TEST

/* A run of case c (database db from setup) with marginals how, and how
 * many of its marginals are those of the exact run to 1e-9. */
static double
mode_exact(const char *db, const struct lis_case *c, const char *how,
    int64_t *run)
{
	char sql[256];

	marginals = how;
	*run = lis_once(db, c, 1, 0, NULL, 1);
	marginals = NULL;
	snprintf(sql, sizeof sql, "SELECT count(*) FROM marginals a JOIN "
	    "marginals b USING (atom) WHERE a.run_id = 1 AND b.run_id = %lld AND "
	    "abs(a.probability - b.probability) <= 1e-9", (long long)*run);
	return tu_sql_double(db, sql);
}

/* By path, where every part is solved exactly, the marginals are exact:
 * each group's atom gets its exact conditional.  Two persons in one
 * block: the group R(x,y), x != y, needs both, after P's group has split
 * one off (a case that once read the split block as a ground atom). */
START_TEST(test_lis_path_exact)
{
	static const struct lis_case c = { "pair", "person = {A, B}\n"
	    "P(person)\nR(person, person)\n0.7 P(x) ^ R(x, y) => P(y)\n"
	    "-1.2 R(x, y)\n0.4 R(x, x)\n", NULL, "P,R" };
	int64_t run;

	ck_assert_double_eq(mode_exact(setup(&c), &c, "path", &run), 6);
}
END_TEST

/* By counts, where every part is solved exactly, each group's expected
 * count is exact: the search carries it through sums over counts (the
 * shares), the power rule (power), evidence and the cache.  Against exact
 * inference, on the cases the default budget solves without a draw, and
 * the pair above; smokers-evidence has ground parts only, whose atoms
 * go by path (hard's two constants without evidence share a block). */
START_TEST(test_lis_counts_exact)
{
	static const struct lis_case pair = { "pair", "person = {A, B}\n"
	    "P(person)\nR(person, person)\n0.7 P(x) ^ R(x, y) => P(y)\n"
	    "-1.2 R(x, y)\n0.4 R(x, x)\n", NULL, "P,R" };
	static const int which[] = { 0, 1, 2, 3, 7, -1 };
	static const int counted[] = { 1, 0, 1, 1, 1, 1 };
	const struct lis_case *c = which[_i] < 0 ? &pair : &cases[which[_i]];
	const char *db = setup(c);
	char sql[256];
	int64_t run;
	double n;

	n = tu_sql_double(db, "SELECT count(*) FROM marginals WHERE run_id = 1");
	ck_assert_double_gt(n, 0);
	ck_assert_double_eq(mode_exact(db, c, "counts", &run), n);
	snprintf(sql, sizeof sql, "SELECT json_extract(stats, '$.draws') = 0 "
	    "AND (json_extract(stats, '$.count_groups') > 0) = %d FROM runs "
	    "WHERE run_id = %lld", counted[_i], (long long)run);
	ck_assert_msg(tu_sql_double(db, sql) == 1, "%s: drew, or counted %s",
	    c->name, counted[_i] ? "no group" : "a group");
}
END_TEST

/* A ground part small enough is enumerated (with the default budget):
 * log Z and every marginal exact, the auxiliary atoms of the EXIST
 * formula and the Cancer atoms (they share no clause) summed out. */
START_TEST(test_lis_enum_exact)
{
	static const struct lis_case c = { "chain6", "person = {P1, P2, P3, "
	    "P4, P5, P6}\n" CHAIN_MODEL, "Friends(P1,P2)\nFriends(P2,P3)\n"
	    "Friends(P3,P4)\nFriends(P4,P5)\nFriends(P5,P6)\nSmokes(P3)\n",
	    "Smokes,Cancer" };
	const char *db = setup(&c);
	int64_t run;
	char sql[256];

	/* Smokes(P3) too */
	ck_assert_double_eq(mode_exact(db, &c, "path", &run), 12);
	snprintf(sql, sizeof sql, "SELECT abs(a.log_z - b.log_z) FROM runs a, "
	    "runs b WHERE a.run_id = 1 AND b.run_id = %lld", (long long)run);
	ck_assert_double_le(tu_sql_double(db, sql), 1e-9);
	snprintf(sql, sizeof sql, "SELECT json_extract(stats, '$.enumerations') "
	    "> 0 AND json_extract(stats, '$.draws') = 0 FROM runs WHERE run_id "
	    "= %lld", (long long)run);
	ck_assert_double_eq(tu_sql_double(db, sql), 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("lis");
	TCase *tc = tu_tcase(s, 1);

	tcase_add_loop_test(tc, test_lis_coverage, 0,
	    (int)(sizeof cfg / sizeof *cfg));
	tcase_add_test(tc, test_lis_reproducible);
	tcase_add_test(tc, test_lis_path_exact);
	tcase_add_loop_test(tc, test_lis_counts_exact, 0, 6);
	tcase_add_test(tc, test_lis_enum_exact);
	tcase_add_test(tc, test_lis_time_reproducible);
	return tu_run(s);
}
