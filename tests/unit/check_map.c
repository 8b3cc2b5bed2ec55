/* check_map.c: --method map against brute force.  For each model (the
 * families of the test suite at up to 14 unknown ground atoms, and
 * random models with random evidence), through the database: the run's
 * log weight equals the heaviest world's by brute force (evidence as
 * hard unit formulas, every predicate open), the world in map_atoms
 * scores that log weight under brute force (every atom of it a hard
 * unit formula: one world left), the bound equals it and the run says
 * optimal; Z = 0 for brute force is a failed map run. */
#include <math.h>

#include "store/store.h"
#include "testutil.h"

static unsigned rs;
static int lifted_worlds;      /* runs whose world was read back lifted */

static unsigned
rnd(unsigned n)
{
	return tu_rnd(&rs, n);
}

/* The brute-force heaviest world of model text mln plus extra lines of
 * hard units; its status. */
static int
brute_max(const char *mln, const char *extra, double *max)
{
	struct buf b;
	struct mln_model *m = NULL;
	struct mln_domain *d;
	struct err e = { 0 };
	double lz;
	int rc;

	buf_init(&b);
	buf_puts(&b, mln);
	buf_puts(&b, "\n");
	buf_puts(&b, extra ? extra : "");
	ck_assert_int_eq(mln_parse(b.s, b.len, "b.mln", &m, &e), 0);
	d = tu_domains(m);
	rc = tu_brute_model_max(m, d, &lz, max, &e);
	store_domains_free(d, (int)m->types.n);
	mln_free(m);
	buf_free(&b);
	return rc;
}

/* Evidence lines ("!P(A)") as hard unit formulas ("!P(A)."). */
static void
units(struct buf *out, const char *ev)
{
	for (const char *p = ev; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n)
			buf_printf(out, "%.*s.\n", (int)n, p);
		p = nl ? nl + 1 : p + n;
	}
}

/* Checks run `run` of the database at dbp: its log weight, bound and
 * optimality against the brute-force optimum max, and its world (with
 * the evidence as hard units, u) scored alone by brute force. */
static void
map_check(const char *dbp, int run, const char *mln, const char *u,
    double max, const char *what)
{
	double lw, bound, opt, wmax;
	char sql[128];
	struct buf w;
	sqlite3 *db;
	sqlite3_stmt *st;

	snprintf(sql, sizeof sql, "SELECT map_log_weight FROM runs WHERE "
	    "run_id = %d", run);
	lw = tu_sql_double(dbp, sql);
	snprintf(sql, sizeof sql, "SELECT map_bound FROM runs WHERE run_id = "
	    "%d", run);
	bound = tu_sql_double(dbp, sql);
	snprintf(sql, sizeof sql, "SELECT map_optimal FROM runs WHERE run_id "
	    "= %d", run);
	opt = tu_sql_double(dbp, sql);
	ck_assert_msg(fabs(lw - max) <= 1e-9 * (1 + fabs(max)), "%s run %d: "
	    "map %.15g, brute %.15g for\n%s\nevidence units:\n%s", what, run,
	    lw, max, mln, u ? u : "");
	ck_assert_msg(fabs(bound - max) <= 1e-9 * (1 + fabs(max)) && opt == 1,
	    "%s run %d: bound %.15g, optimal %g", what, run, bound, opt);
	buf_init(&w);
	buf_puts(&w, u ? u : "");
	ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
	snprintf(sql, sizeof sql, "SELECT atom, truth FROM map_atoms WHERE "
	    "run_id = %d", run);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		buf_printf(&w, "%s%s.\n", sqlite3_column_int(st, 1) ? "" : "!",
		    (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	snprintf(sql, sizeof sql, "SELECT json_extract(stats, '$.world') = "
	    "'lifted' FROM runs WHERE run_id = %d", run);
	lifted_worlds += tu_sql_double(dbp, sql) == 1;
	ck_assert_int_eq(brute_max(mln, w.s, &wmax), 0);
	ck_assert_msg(fabs(wmax - max) <= 1e-9 * (1 + fabs(max)), "%s run %d: "
	    "the world scores %.15g, the optimum is %.15g", what, run, wmax,
	    max);
	buf_free(&w);
}

/* One case: model mln (its domains declared in it), evidence ev, the
 * predicates ow opened; run 1 as by default (the lifted search, then
 * the ground world), run 2 with the lifted search stopped at once (the
 * ground solver alone: local search, CBC, cutting planes).  1:
 * compared; 0: Z = 0 for all three. */
static int
map_case(const char *mln, const char *ev, const char *ow, const char *what)
{
	const char *dbp = tu_file("m.db", NULL);
	const char *evs[1];
	struct sqlift_infer_opts o = { 0 };
	struct buf u;
	double max;
	int rc1, rc2, rc3;
	int64_t n, run;
	sqlift *h;

	unlink(dbp);
	buf_init(&u);
	units(&u, ev);
	rc1 = brute_max(mln, u.s, &max);
	evs[0] = tu_file("m.txt", ev ? ev : "");
	ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_int_eq(sqlift_load(h, tu_file("m.mln", mln), evs, 1, 0, &n),
	    0);
	o.method = "map";
	o.allow_zero_weights = 1;
	o.open_world = ow;
	rc2 = sqlift_infer(h, &o, &run);
	o.max_nodes = 1;
	rc3 = sqlift_infer(h, &o, &run);
	ck_assert_msg(rc1 == rc2 && rc1 == rc3, "%s: brute %d, map %d and %d "
	    "(%s) for\n%s\nevidence:\n%s", what, rc1, rc2, rc3,
	    sqlift_errmsg(h), mln, ev ? ev : "");
	sqlift_close(h);
	if (!rc1) {
		map_check(dbp, 1, mln, u.s, max, what);
		map_check(dbp, 2, mln, u.s, max, what);
	}
	buf_free(&u);
	return !rc1;
}

/* The families of the test suite, at sizes of at most 14 unknown
 * atoms. */
START_TEST(test_map_families)
{
	static const struct {
		const char *what, *mln, *ev, *ow;
	} c[] = {
		{ "friends and smokers", "person = {A, B}\nFriends(person, "
		    "person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => "
		    "Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n",
		    NULL, NULL },
		{ "friends and smokers, evidence", "person = {A, B, C}\n"
		    "Friends(person, person)\nSmokes(person)\nCancer(person)\n"
		    "1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) "
		    "=> Smokes(y)\n-0.4 Smokes(x)\n", "Smokes(A)\n!Cancer(A)\n"
		    "Friends(A,B)\n", "Smokes,Cancer,Friends" },
		{ "symmetric friendship", "person = {A, B, C}\nF(person, "
		    "person)\nS(person)\n1.2 F(x,y) => F(y,x)\n0.8 S(x) ^ S(y) "
		    "=> F(x,y)\n-0.3 F(x,y)\n0.5 S(x)\n", NULL, NULL },
		{ "hard symmetric irreflexive", "person = {A, B, C}\nF(person, "
		    "person)\nS(person)\nC(person)\nF(x,y) => F(y,x).\n!F(x,x).\n"
		    "1.3 F(x,y) ^ S(x) => S(y)\n-0.7 S(x)\n1.1 S(x) => C(x)\n"
		    "-0.2 F(x,y)\n", "S(A)\n", "S,C,F" },
		{ "transitivity", "t = {A, B, C}\nR(t,t)\n1.0 R(x,y) ^ R(y,z) "
		    "=> R(x,z)\n-0.6 R(x,y)\n0.9 R(x,y) => R(y,x)\n",
		    "R(A,B)\n", "R" },
		{ "existential", "t = {A, B, C}\nP(t)\nR(t,t)\n1.4 EXIST y "
		    "R(x,y)\n-0.5 R(x,y)\n0.7 P(x) <=> R(x,x)\n", NULL, NULL },
		{ "conjunction and equivalence", "t = {A, B, C, D}\nP(t)\nQ(t)"
		    "\n-1.2 P(x) ^ Q(x)\n0.6 P(x) <=> !Q(x)\n0.3 P(A)\n", NULL,
		    NULL },
		{ "hard clauses against the weights", "t = {A, B, C}\nP(t)\n"
		    "Q(t)\nP(x) v Q(x).\n-2 P(x)\n-1 Q(x)\n0.5 P(x) ^ Q(y) ^ !(x "
		    "= y)\n", NULL, NULL },
		{ "evidence against a hard clause", "t = {A, B}\nP(t)\nQ(t)\n"
		    "P(x) => Q(x).\n1 P(x)\n", "P(A)\n!Q(A)\n", "P,Q" },
		{ "single occurrence with shared atoms", "t = {A, B, C}\n"
		    "u = {E, F}\nP(t)\nS(u)\nR(t,u)\n1.2 P(x) ^ S(y) => R(x,y)\n"
		    "-0.7 R(x,y)\n0.4 S(y)\n-0.3 P(x)\n", "R(A,E)\n", "P,S,R" },
		{ "multi-block evidence", "person = {A, B, C, D, E}\nSmokes("
		    "person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n-0.8 "
		    "Smokes(x)\n0.6 Smokes(x) ^ Smokes(y) ^ !(x = y)\n",
		    "Cancer(A)\n!Cancer(B)\nSmokes(C)\n", "Smokes,Cancer" },
	};
	int compared = 0;

	lifted_worlds = 0;
	for (size_t i = 0; i < sizeof c / sizeof *c; i++)
		compared += map_case(c[i].mln, c[i].ev, c[i].ow, c[i].what);
	ck_assert_int_ge(compared, 10);
	ck_assert_int_ge(lifted_worlds, 6);
}
END_TEST

/* Random models over P(t), Q(t), R(t,t) with t = {A, B} or {A, B, C},
 * formulas of every connective, EXIST, constants and equalities,
 * weights of both signs and hard ones, and random evidence, at most 14
 * unknown atoms. */
START_TEST(test_map_random)
{
	static const char *tc[] = { "A", "B", "C" };
	int compared = 0, cases = 0;
	unsigned hi = tu_slow() ? 200 : 12;

	for (unsigned seed = 1; seed <= hi; seed++) {
		struct buf mb, eb;
		int nt, nev = 0, nf, atoms;

		rs = seed * 2654435761u;
		nt = 2 + (int)rnd(2);
		nf = 1 + (int)rnd(3);
		atoms = 2 * nt + nt * nt;
		buf_init(&mb);
		buf_init(&eb);
		buf_puts(&mb, nt == 2 ? "t = {A, B}\n" : "t = {A, B, C}\n");
		buf_puts(&mb, "P(t)\nQ(t)\nR(t,t)\n");
		for (int f = 0; f < nf; f++) {
			int hard = rnd(6) == 0;
			unsigned st = rs;
			if (!hard)
				buf_printf(&mb, "%.3f ", ((int)rnd(2001) - 1000) / 400.0);
			tu_rnd_formula(&mb, &st, 2);
			rs = st;
			buf_puts(&mb, hard ? ".\n" : "\n");
		}
		for (int a = 0; a < nt; a++) {
			if (rnd(10) < 3)
				buf_printf(&eb, "%sP(%s)\n", rnd(2) ? "!" : "", tc[a]),
				    nev++;
			if (rnd(10) < 3)
				buf_printf(&eb, "%sQ(%s)\n", rnd(2) ? "!" : "", tc[a]),
				    nev++;
			for (int b = 0; b < nt; b++)
				if (rnd(10) < 3)
					buf_printf(&eb, "%sR(%s,%s)\n", rnd(2) ? "!" : "",
					    tc[a], tc[b]), nev++;
		}
		if (atoms - nev <= 14) {
			struct mln_model *m = NULL;
			struct err e = { 0 };
			char what[32];
			/* a variable only in an equality does not parse */
			if (mln_parse(mb.s, mb.len, "r.mln", &m, &e) == 0) {
				snprintf(what, sizeof what, "seed %u", seed);
				compared += map_case(mb.s, eb.s, "P,Q,R", what);
				cases++;
			}
			mln_free(m);
		}
		buf_free(&mb);
		buf_free(&eb);
	}
	ck_assert_int_ge(cases, tu_slow() ? 120 : 7);
	ck_assert_int_ge(compared, tu_slow() ? 70 : 4);
}
END_TEST

/* The cell graph in the max semiring at n = 2100 persons (more ground
 * atoms than map grounds: the log weight alone): for
 * 0.8 S(x) ^ S(y) => F(x,y), -0.3 F(x,y), w S(x), the heaviest world
 * with k smokers has each F(x,y) at its best given S (true where both
 * smoke: 0.5, else false: 0.8), so the optimum is the largest over k of
 * 0.5 k^2 + 0.8 (n^2 - k^2) + w k, summed here; explain --method map
 * names the rule. */
START_TEST(test_map_cellgraph)
{
	static const double ws[] = { 0.5, 300, -2 };
	const char *dbp = tu_file("cg.db", NULL);

	for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
		struct sqlift_infer_opts o = { 0 };
		struct buf mb;
		double best = -INFINITY, n = 2100, lw;
		int64_t nl, run;
		char plan[4096];
		size_t got;
		FILE *f;
		sqlift *h;

		unlink(dbp);
		buf_init(&mb);
		buf_puts(&mb, "person = {");
		for (int k = 0; k < (int)n; k++)
			buf_printf(&mb, "%sP%d", k ? ", " : "", k);
		buf_printf(&mb, "}\nS(person)\nF(person, person)\n0.8 S(x) ^ S(y) "
		    "=> F(x,y)\n-0.3 F(x,y)\n%g S(x)\n", ws[i]);
		for (double k = 0; k <= n; k++) {
			double v = 0.5 * k * k + 0.8 * (n * n - k * k) + ws[i] * k;
			if (v > best)
				best = v;
		}
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_int_eq(sqlift_load(h, tu_file("cg.mln", mb.s), NULL, 0,
		    0, &nl), 0);
		o.method = "map";
		ck_assert_ptr_nonnull(f = tmpfile());
		ck_assert_int_eq(sqlift_explain(h, &o, 0, f), 0);
		rewind(f);
		got = fread(plan, 1, sizeof plan - 1, f);
		plan[got] = 0;
		fclose(f);
		ck_assert_msg(strstr(plan, "cell graph"), "%s", plan);
		ck_assert_int_eq(sqlift_infer(h, &o, &run), 0);
		sqlift_close(h);
		lw = tu_sql_double(dbp, "SELECT map_log_weight FROM runs");
		ck_assert_msg(fabs(lw - best) <= 1e-9 * (1 + fabs(best)), "w %g: "
		    "map %.15g, closed form %.15g", ws[i], lw, best);
		ck_assert_int_eq((int)tu_sql_double(dbp, "SELECT map_optimal "
		    "FROM runs"), 1);
		buf_free(&mb);
	}
}
END_TEST

/* The outputs: -r writes the world's true atoms of the queried
 * predicates, one a line (Alchemy's MAP format); the view map_R has the
 * world's R rows with a column per argument; explain --method map names
 * the single-occurrence rule on a model where it applies; every
 * unknown atom has its row in map_atoms. */
START_TEST(test_map_outputs)
{
	const char *dbp = tu_file("o.db", NULL), *res = tu_file("o.result",
	    NULL);
	const char *mln = "t = {A, B, C}\nu = {E, F}\nP(t)\nS(u)\nR(t,u)\n"
	    "1.2 P(x) ^ S(y) => R(x,y)\n-0.7 R(x,y)\n0.4 S(y)\n0.3 P(x)\n";
	struct sqlift_infer_opts o = { 0 };
	char plan[4096], line[128], sql[256];
	int64_t n, run;
	size_t got;
	int lines = 0;
	FILE *f;
	sqlift *h;

	unlink(dbp);
	ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_int_eq(sqlift_load(h, tu_file("o.mln", mln), NULL, 0, 0, &n),
	    0);
	o.method = "map";
	ck_assert_ptr_nonnull(f = tmpfile());
	ck_assert_int_eq(sqlift_explain(h, &o, 0, f), 0);
	rewind(f);
	got = fread(plan, 1, sizeof plan - 1, f);
	plan[got] = 0;
	fclose(f);
	ck_assert_msg(strstr(plan, "single occurrence: 3 t constants"), "%s",
	    plan);
	o.queries = "R,P";
	o.result_path = res;
	ck_assert_int_eq(sqlift_infer(h, &o, &run), 0);
	sqlift_close(h);
	ck_assert_ptr_nonnull(f = fopen(res, "r"));
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		ck_assert_msg(line[0] == 'R' || line[0] == 'P', "%s", line);
		snprintf(sql, sizeof sql, "SELECT truth FROM map_atoms WHERE atom "
		    "= '%s'", line);
		ck_assert_msg(tu_sql_double(dbp, sql) == 1, "%s", line);
		lines++;
	}
	fclose(f);
	ck_assert_int_eq(lines, (int)tu_sql_double(dbp, "SELECT count(*) FROM "
	    "map_atoms WHERE truth = 1 AND predicate IN ('R', 'P')"));
	ck_assert_int_eq((int)tu_sql_double(dbp, "SELECT count(*) FROM map_R "
	    "WHERE t IS NOT NULL AND u IS NOT NULL"), 6);
	ck_assert_int_eq((int)tu_sql_double(dbp, "SELECT count(*) FROM map_R "
	    "JOIN map_atoms USING (run_id, atom, truth)"), 6);
	/* 3 P, 2 S and 6 R atoms */
	ck_assert_int_eq((int)tu_sql_double(dbp, "SELECT count(*) FROM "
	    "map_atoms"), 11);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = { test_map_families,
	    test_map_random, test_map_cellgraph, test_map_outputs };

	return tu_main("map", 1, tests, sizeof tests / sizeof *tests);
}
