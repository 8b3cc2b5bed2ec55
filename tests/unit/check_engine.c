/* check_engine.c: the exact lifted engine against brute force.
 * Sum and max: log Z, and the log weight of the heaviest world.
 * Random models over up to four predicates of arity up to two and two
 * types (domains of 1..4 and 1..3 constants), weights of both signs,
 * hard formulas, weight 0, constants, equalities, EXIST and FORALL
 * (kept as clause variables or expanded): log Z of the engine (every
 * ordering heuristic, with and without the cache) equals brute force on
 * the original formulas; with random evidence, through the database,
 * log Z and every query marginal equal --method brute's; the same on
 * random models built for the multi-block binomial and the cell graph
 * (whose marginals also against conditioning on each class).  Closed
 * forms for friends-and-smokers at n = 100 ... 10,000. */
#include <math.h>

#include "lifted/engine.h"
#include "lifted/theory.h"
#include "store/store.h"
#include "testutil.h"

static unsigned rs;

static unsigned
rnd(unsigned n)
{
	return tu_rnd(&rs, n);
}

/* A random formula: 1..3 literals joined by random connectives. */
static void
rnd_formula(struct buf *b, int npreds)
{
	static const char *atoms[] = { "P(x)", "Q(y)", "P(y)", "R(x,y)",
	    "R(y,x)", "R(x,x)", "S(x,v)", "Q(x)", "P(A)", "R(x,A)", "S(y,v)",
	    "S(A,v)", "Q(z)", "R(z,x)" };
	static const char *ops[] = { " v ", " ^ ", " => ", " <=> ", " v " };
	int n = 1 + (int)rnd(3);

	for (int i = 0; i < n; i++) {
		int k;
		if (i)
			buf_puts(b, ops[rnd(5)]);
		if (rnd(4) == 0)
			buf_puts(b, "!");
		if (rnd(10) == 0) {
			buf_puts(b, rnd(2) ? "(x = y)" : "(x = A)");
			continue;
		}
		do
			k = (int)rnd(14);
		while (atoms[k][0] - 'P' >= npreds);
		buf_puts(b, atoms[k]);
	}
}

static void
rnd_model(struct buf *b, int nt, int nu, int npreds, int nformulas)
{
	static const char *tc[] = { "A", "B", "C", "D" };
	static const char *uc[] = { "E", "F", "G" };

	buf_puts(b, "t = {");
	for (int i = 0; i < nt; i++)
		buf_printf(b, "%s%s", i ? ", " : "", tc[i]);
	buf_puts(b, "}\nu = {");
	for (int i = 0; i < nu; i++)
		buf_printf(b, "%s%s", i ? ", " : "", uc[i]);
	buf_puts(b, "}\n");
	for (int i = 0; i < npreds; i++)
		buf_puts(b, (const char *[]){ "P(t)\n", "Q(t)\n", "R(t,t)\n",
		    "S(t,u)\n" }[i]);
	for (int i = 0; i < nformulas; i++) {
		int hard = rnd(6) == 0, q = (int)rnd(8);
		struct buf f;
		if (!hard)
			buf_printf(b, "%.3f ", q == 7 ? 0.0 :
			    ((int)rnd(2001) - 1000) / 400.0);
		buf_init(&f);
		rnd_formula(&f, npreds);
		/* one in three binds y: EXIST or FORALL (kept as a clause
		 * variable where the conversion can) */
		if (q < 3 && strchr(f.s, 'y'))
			buf_printf(b, "%s y (%s)", q ? "EXIST" : "FORALL", f.s);
		else
			buf_puts(b, f.s);
		buf_free(&f);
		buf_puts(b, hard ? ".\n" : "\n");
	}
}

static int
engine_run(const struct ct_theory *t, int semiring, int order, int no_cache,
    double *lz, struct eng_stats *st, struct err *e)
{
	struct eng_opts o = { 0 };
	struct eng *g;
	int rc;

	o.semiring = semiring;
	o.order = order;
	o.no_cache = no_cache;
	o.max_nodes = 2000000;
	if ((rc = eng_new(t, &o, &g, e)))
		return rc;
	rc = eng_log_z(g, lz, e);
	if (st)
		eng_get_stats(g, st);
	eng_free(g);
	/* what it counted it gave back */
	ck_assert_int_eq(eng_held_bytes(), 0);
	return rc;
}

static int
engine_log_z(const struct ct_theory *t, int order, int no_cache, double *lz,
    struct eng_stats *st, struct err *e)
{
	return engine_run(t, ENG_SUM, order, no_cache, lz, st, e);
}

START_TEST(test_engine_random_models)
{
	int cases = 0, zero = 0, lifted = 0;
	/* SEED=n runs one case (to look at a failure) */
	unsigned lo = getenv("SEED") ? (unsigned)atoi(getenv("SEED")) : 1;
	unsigned hi = getenv("SEED") ? lo : 3200;

	for (unsigned seed = lo; seed <= hi; seed += tu_step()) {
		struct mln_model *m = NULL, *c = NULL;
		struct ct_theory *t = NULL;
		struct mln_domain *d;
		struct mln_domain *md;
		struct err e = { 0 };
		double lz1 = 0, max1 = 0, k = 0;
		int rc1, rc2;
		struct buf b;
		int nt, nu, np, atoms;

		rs = seed * 7919u;
		buf_init(&b);
		nt = 1 + (int)rnd(4);
		nu = 1 + (int)rnd(3);
		np = 1 + (int)rnd(4);
		atoms = nt + (np > 1) * nt + (np > 2) * nt * nt + (np > 3) * nt * nu;
		if (atoms > 18) {
			buf_free(&b);
			continue;  /* brute force would take too long */
		}
		rnd_model(&b, nt, nu, np, 1 + (int)rnd(3));
		if (mln_parse(b.s, b.len, "t.mln", &m, &e) != 0) {
			buf_free(&b);
			continue;  /* a variable only in an equality */
		}
		d = tu_domains(m);
		md = tu_mln_domains(m, d);
		ck_assert_int_eq(mln_to_clauses(m, md, 0, &c, &k, &e), 0);
		rc1 = tu_brute_model_max(m, d, &lz1, &max1, &e);
		if (rc1 == SQLIFT_ELIMIT)
			goto next;
		rc2 = ct_build(c, d, NULL, &t, &e);
		/* the same engine with max for sum: the heaviest world, on the
		 * clauses for max */
		if (rc2 == 0) {
			struct mln_model *cm = NULL;
			struct ct_theory *tm = NULL;
			double mx = 0, km = 0;
			int rc;
			ck_assert_int_eq(mln_to_clauses(m, md, 1, &cm, &km, &e), 0);
			ck_assert_int_eq(ct_build(cm, d, NULL, &tm, &e), 0);
			rc = engine_run(tm, ENG_MAX, ENG_MIN_TABLE, 0, &mx, NULL, &e);
			mx += km - k;
			ct_free(tm);
			mln_free(cm);
			ck_assert_msg(rc == rc1, "seed %u max: status %d vs %d", seed, rc,
			    rc1);
			if (rc1 == 0)
				ck_assert_msg(fabs(max1 - (mx + k)) <= 1e-9 * (1 +
				    fabs(max1)), "seed %u: heaviest world %.15g, engine "
				    "%.15g + %.15g for\n%s", seed, max1, mx, k, b.s);
		}
		/* every ordering, with and without the cache, on one in four */
		for (int order = 0; order < (seed % 4 ? 1 : 4) && rc2 == 0; order++)
			for (int nc = 0; nc < (seed % 4 ? 1 : 2); nc++) {
				double lz2 = 0;
				struct eng_stats st;
				int rc;
				rc = engine_log_z(t, order, nc, &lz2, &st, &e);
				ck_assert_msg(rc == rc1, "seed %u order %d: status %d vs "
				    "brute %d (%s) for\n%s", seed, order, rc, rc1, e.msg,
				    b.s);
				if (rc1 == 0)
					ck_assert_msg(fabs(lz1 - (lz2 + k)) <= 1e-9 *
					    (1 + fabs(lz1)), "seed %u order %d cache %d: log Z "
					    "%.15g, engine %.15g + %.15g for\n%s", seed, order,
					    !nc, lz1, lz2, k, b.s);
				lifted += order == 0 && nc == 0 && st.groundings == 0 &&
				    (st.powers > 0 || st.binomials > 0);
			}
		if (rc2 == SQLIFT_EZERO)
			ck_assert_int_eq(rc1, SQLIFT_EZERO);
		zero += rc1 == SQLIFT_EZERO;
		cases++;
next:
		ct_free(t);
		mln_free(c);
		store_domains_free(d, (int)m->types.n);
		free(md);
		mln_free(m);
		buf_free(&b);
	}
	ck_assert_int_ge(cases, tu_seeds(2000));
	ck_assert_int_ge(zero, tu_seeds(10));
	ck_assert_int_ge(lifted, tu_seeds(500));
}
END_TEST

/* Through the database: random evidence, random queries; --method
 * exact against --method brute, log Z and every marginal. */
START_TEST(test_engine_with_evidence)
{
	static const char *tc[] = { "A", "B", "C", "D" }, *uc[] = { "E", "F",
	    "G" };
	int cases = 0, withev = 0, marg = 0;

	for (unsigned seed = 1; seed <= 700; seed += tu_step()) {
		const char *dbp = tu_file("ev.db", NULL);
		struct buf mb, eb;
		struct sqlift_infer_opts o = { 0 };
		const char *evs[1];
		char queries[32] = "";
		int nt, nu, np, atoms, rc1, rc2;
		int64_t n, run;
		double lz1, lz2, diff, nm1, nm2;
		char sql[512];
		sqlift *h;

		rs = seed * 2654435761u;
		nt = 1 + (int)rnd(4);
		nu = 1 + (int)rnd(3);
		np = 1 + (int)rnd(4);
		atoms = nt + (np > 1) * nt + (np > 2) * nt * nt + (np > 3) * nt * nu;
		if (atoms > 20)
			continue;
		unlink(dbp);
		buf_init(&mb);
		buf_init(&eb);
		rnd_model(&mb, nt, nu, np, 1 + (int)rnd(3));
		for (int a = 0; a < nt; a++) {
			if (rnd(10) < 3)
				buf_printf(&eb, "%sP(%s)\n", rnd(2) ? "!" : "", tc[a]);
			if (np > 1 && rnd(10) < 3)
				buf_printf(&eb, "%sQ(%s)\n", rnd(2) ? "!" : "", tc[a]);
			for (int b = 0; np > 2 && b < nt; b++)
				if (rnd(10) < 3)
					buf_printf(&eb, "%sR(%s,%s)\n", rnd(2) ? "!" : "",
					    tc[a], tc[b]);
			for (int b = 0; np > 3 && b < nu; b++)
				if (rnd(10) < 3)
					buf_printf(&eb, "%sS(%s,%s)\n", rnd(2) ? "!" : "",
					    tc[a], uc[b]);
		}
		for (int p = 0; p < np; p++)
			if (rnd(3))
				snprintf(queries + strlen(queries), sizeof queries -
				    strlen(queries), "%s%c", queries[0] ? "," : "",
				    "PQRS"[p]);
		evs[0] = tu_file("ev.txt", eb.s ? eb.s : "");
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		if (sqlift_load(h, tu_file("ev.mln", mb.s), evs, 1, 0, &n) != 0) {
			sqlift_close(h);
			goto next;  /* a variable only in an equality */
		}
		withev += eb.s != NULL;
		o.method = "brute";
		o.allow_zero_weights = 1;  /* random weights may all round to 0 */
		o.queries = queries[0] ? queries : NULL;
		rc1 = sqlift_infer(h, &o, &run);
		o.method = "exact";
		o.max_nodes = 1000000;
		rc2 = sqlift_infer(h, &o, &run);
		ck_assert_msg(rc1 == rc2, "seed %u: brute %d, exact %d (%s) for\n%s"
		    "evidence:\n%squeries %s", seed, rc1, rc2, sqlift_errmsg(h),
		    mb.s, eb.s, queries);
		sqlift_close(h);
		if (rc1)
			goto next;
		lz1 = tu_sql_double(dbp, "SELECT log_z FROM runs WHERE run_id = 1");
		lz2 = tu_sql_double(dbp, "SELECT log_z FROM runs WHERE run_id = 2");
		ck_assert_msg(fabs(lz1 - lz2) <= 1e-9 * (1 + fabs(lz1)), "seed %u: "
		    "log Z brute %.15g, exact %.15g for\n%sevidence:\n%squeries %s",
		    seed, lz1, lz2, mb.s, eb.s, queries);
		nm1 = tu_sql_double(dbp, "SELECT count(*) FROM marginals WHERE "
		    "run_id = 1");
		nm2 = tu_sql_double(dbp, "SELECT count(*) FROM marginals WHERE "
		    "run_id = 2");
		snprintf(sql, sizeof sql, "SELECT max(abs(a.probability - "
		    "b.probability)) FROM marginals a JOIN marginals b USING (atom) "
		    "WHERE a.run_id = 1 AND b.run_id = 2");
		diff = tu_sql_double(dbp, sql);
		ck_assert_msg(nm1 == nm2 && (nm1 == 0 || diff <= 1e-9), "seed %u: "
		    "%g vs %g marginals, largest difference %g for\n%sevidence:\n%s"
		    "queries %s", seed, nm1, nm2, diff, mb.s, eb.s, queries);
		marg += nm1 > 0;
		cases++;
next:
		buf_free(&mb);
		buf_free(&eb);
	}
	ck_assert_int_ge(cases, tu_seeds(300));
	ck_assert_int_ge(withev, tu_seeds(250));
	ck_assert_int_ge(marg, tu_seeds(200));
}
END_TEST

/* The multi-block binomial (lifted/multibin.c) on random models where it
 * applies: P and Q unary, F binary, formulas that treat persons alike
 * but for their private unary clauses, evidence drawn per atom (P and Q
 * atoms each observed with probability 0.4), so that persons fall into
 * several blocks with P unknown; exact against --method brute, log Z and
 * every marginal, and explain names the rule on some of them. */
/* Explains the run set up in o (counting in *fired a plan that names
 * rule), then runs it by brute force (run 1) and exact (run 2) on the
 * database at dbp, which h holds and which is closed here; log Z and
 * every marginal must agree.  1: a case compared, 0: Z = 0 for both. */
static int
brute_vs_exact(sqlift *h, const char *dbp, struct sqlift_infer_opts *o,
    const char *rule, int *fired, unsigned seed, const char *mb,
    const char *eb)
{
	char *plan = NULL;
	size_t planlen = 0;
	int64_t run;
	double lz1, lz2, diff, nm1, nm2;
	FILE *pf;
	int rc1, rc2;

	o->allow_zero_weights = 1;  /* random weights may all round to 0 */
	o->method = "exact";
	ck_assert(pf = open_memstream(&plan, &planlen));
	/* (explain fails where the evidence breaks a hard formula) */
	rc1 = sqlift_explain(h, o, 0, pf);
	fclose(pf);
	*fired += rc1 == 0 && strstr(plan, rule) != NULL;
	free(plan);
	o->method = "brute";
	rc1 = sqlift_infer(h, o, &run);
	o->method = "exact";
	rc2 = sqlift_infer(h, o, &run);
	ck_assert_msg(rc1 == rc2, "seed %u: brute %d, exact %d (%s) for\n%s"
	    "evidence:\n%s", seed, rc1, rc2, sqlift_errmsg(h), mb, eb);
	sqlift_close(h);
	if (rc1)
		return 0;
	lz1 = tu_sql_double(dbp, "SELECT log_z FROM runs WHERE run_id = 1");
	lz2 = tu_sql_double(dbp, "SELECT log_z FROM runs WHERE run_id = 2");
	ck_assert_msg(fabs(lz1 - lz2) <= 1e-9 * (1 + fabs(lz1)), "seed %u: "
	    "log Z brute %.15g, exact %.15g for\n%sevidence:\n%s", seed, lz1,
	    lz2, mb, eb);
	nm1 = tu_sql_double(dbp, "SELECT count(*) FROM marginals WHERE "
	    "run_id = 1");
	nm2 = tu_sql_double(dbp, "SELECT count(*) FROM marginals WHERE "
	    "run_id = 2");
	diff = tu_sql_double(dbp, "SELECT max(abs(a.probability - "
	    "b.probability)) FROM marginals a JOIN marginals b USING (atom) "
	    "WHERE a.run_id = 1 AND b.run_id = 2");
	ck_assert_msg(nm1 == nm2 && (nm1 == 0 || diff <= 1e-9), "seed %u: "
	    "%g vs %g marginals, largest difference %g for\n%sevidence:\n%s",
	    seed, nm1, nm2, diff, mb, eb);
	return 1;
}

/* A multi-block binomial whose branches meet the rule again with other
 * private parts (the slow suite's seed 559 of test_engine_with_evidence):
 * the inner one's polynomial must not stand for the outer's (it did, and
 * Q(B)'s marginal was 0.46 instead of 0.69). */
START_TEST(test_engine_multibin_nested)
{
	static const char mb[] = "t = {A, B, C, D}\nu = {E}\nP(t)\nQ(t)\n"
	    "1.270 Q(y)\n-1.225 P(x) ^ Q(z) v P(A)\n"
	    "-0.230 EXIST y (!P(A) v Q(x) v Q(y))\n";
	const char *dbp = tu_file("mbn.db", NULL), *evs[1];
	struct sqlift_infer_opts o = { 0 };
	int fired = 0;
	int64_t n;
	sqlift *h;

	unlink(dbp);
	evs[0] = tu_file("mbn.txt", "!Q(C)\n");
	ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_int_eq(sqlift_load(h, tu_file("mbn.mln", mb), evs, 1, 0, &n),
	    0);
	o.queries = "Q";
	ck_assert_int_eq(brute_vs_exact(h, dbp, &o, "multi-block binomial",
	    &fired, 559, mb, "!Q(C)\n"), 1);
	ck_assert_int_eq(fired, 1);
}
END_TEST

START_TEST(test_engine_multibin)
{
	/* Q mostly in formulas of one variable: its evidence splits the
	 * persons into blocks that differ only in private unary clauses */
	static const char *forms[] = { "P(x) ^ F(x,y) => P(y)", "Q(x)", "P(x)",
	    "P(x) v P(y)", "!P(x) v Q(x)", "P(x) <=> Q(x)", "F(x,y) => P(x)",
	    "P(x) ^ P(y) => F(x,y)", "P(x) ^ F(x,y) => Q(x)",
	    "!P(x) v Q(x) v F(x,x)" };
	int cases = 0, fired = 0;

	for (unsigned seed = 1; seed <= 700; seed += tu_step()) {
		const char *dbp = tu_file("mb.db", NULL);
		struct buf mb, eb;
		struct sqlift_infer_opts o = { 0 };
		const char *evs[1];
		int nt, usef, nf;
		int64_t n;
		sqlift *h;

		rs = seed * 2246822519u;
		usef = rnd(2);
		nt = usef ? 3 : 4 + (int)rnd(5);
		nf = (int)rnd(3);
		buf_init(&mb);
		buf_init(&eb);
		buf_puts(&mb, "t = {");
		for (int i = 0; i < nt; i++)
			buf_printf(&mb, "%sC%d", i ? ", " : "", i);
		buf_printf(&mb, "}\nP(t)\nQ(t)\n%s", usef ? "F(t,t)\n" : "");
		buf_printf(&mb, "%.3f P(x) => Q(x)\n%.3f %s\n", ((int)rnd(2001) -
		    1000) / 400.0, ((int)rnd(2001) - 1000) / 400.0, usef &&
		    rnd(2) ? "P(x) ^ F(x,y) => P(y)" : rnd(2) ? "P(x) v P(y)" :
		    "P(x) ^ P(y)");
		for (int i = 0; i < nf; i++) {
			const char *f;
			do
				f = forms[rnd(10)];
			while (!usef && strchr(f, 'F'));
			if (rnd(8) == 0)
				buf_printf(&mb, "%s.\n", f);
			else
				buf_printf(&mb, "%.3f %s\n", ((int)rnd(2001) - 1000) /
				    400.0, f);
		}
		for (int a = 0; a < nt; a++) {
			if (rnd(10) < 4)
				buf_printf(&eb, "%sP(C%d)\n", rnd(2) ? "!" : "", a);
			if (rnd(10) < 4)
				buf_printf(&eb, "%sQ(C%d)\n", rnd(2) ? "!" : "", a);
			for (int b = 0; usef && b < nt; b++)
				if (rnd(10) < 1)
					buf_printf(&eb, "%sF(C%d,C%d)\n", rnd(2) ? "!" : "",
					    a, b);
		}
		unlink(dbp);
		evs[0] = tu_file("mb.txt", eb.s ? eb.s : "");
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_int_eq(sqlift_load(h, tu_file("mb.mln", mb.s), evs, 1, 0,
		    &n), 0);
		o.queries = usef ? "P,Q,F" : "P,Q";
		o.open_world = usef ? "P,Q,F" : "P,Q";
		cases += brute_vs_exact(h, dbp, &o, "multi-block binomial", &fired,
		    seed, mb.s, eb.s ? eb.s : "");
		buf_free(&mb);
		buf_free(&eb);
	}
	ck_assert_int_ge(cases, tu_seeds(600));  /* Z > 0 */
	ck_assert_int_ge(fired, tu_seeds(250));
}
END_TEST

/* The cell-graph rule (lifted/cellgraph.c) on random two-variable models
 * over one type of 1..5 constants: P and Q unary, F binary, formulas of
 * up to three literals over x and y (self-joins F(x,y), F(y,x), F(x,x),
 * equalities), some hard; in half the cases evidence on P and Q, and at
 * n = 4 and 5 on F's diagonal (at 5 also on the pairs (a, a+1) and
 * (a, a+2) mod 5, so that brute force has at most 16 unknown atoms).
 * Log Z and every marginal against --method brute to 1e-9; explain
 * names the rule on some of them. */
static void
cg_models(unsigned step, int *casesp, int *firedp)
{
	static const char *atoms[] = { "P(x)", "P(y)", "F(x,y)", "F(y,x)",
	    "F(x,x)", "F(y,y)", "Q(x)", "Q(y)", "(x = y)" };
	static const char *ops[] = { " v ", " ^ ", " => ", " <=> " };
	int cases = 0, fired = 0;

	for (unsigned seed = 1; seed <= 210; seed += step * tu_step()) {
		const char *dbp = tu_file("cg.db", NULL);
		struct buf mb, eb;
		struct sqlift_infer_opts o = { 0 };
		const char *evs[1];
		int nt, useq, nf, rc1;
		int64_t n;
		sqlift *h;

		rs = seed * 2654435761u;
		nt = 1 + (int)rnd(5);
		useq = nt <= 3;
		nf = 1 + (int)rnd(4);
		buf_init(&mb);
		buf_init(&eb);
		buf_puts(&mb, "t = {");
		for (int i = 0; i < nt; i++)
			buf_printf(&mb, "%sC%d", i ? ", " : "", i);
		buf_printf(&mb, "}\nP(t)\nF(t,t)\n%s", useq ? "Q(t)\n" : "");
		for (int i = 0; i < nf; i++) {
			int hard = rnd(5) == 0, nl = 1 + (int)rnd(3);
			if (!hard)
				buf_printf(&mb, "%.3f ", ((int)rnd(2001) - 1000) / 400.0);
			for (int k = 0; k < nl; k++) {
				int a;
				/* the first a predicate, which types x */
				do
					a = (int)rnd(k ? 9 : 8);
				while (!useq && atoms[a][0] == 'Q');
				buf_printf(&mb, "%s%s%s", k ? ops[rnd(4)] : "",
				    rnd(4) == 0 ? "!" : "", atoms[a]);
			}
			buf_puts(&mb, hard ? ".\n" : "\n");
		}
		for (int a = 0; a < nt && rnd(2); a++) {
			if (rnd(10) < 3)
				buf_printf(&eb, "%sP(C%d)\n", rnd(2) ? "!" : "", a);
			if (useq && rnd(10) < 3)
				buf_printf(&eb, "%sQ(C%d)\n", rnd(2) ? "!" : "", a);
		}
		/* n = 4: 16 unknown atoms, n = 5: 15 (brute force's time) */
		for (int a = 0; a < nt && nt >= 4; a++) {
			buf_printf(&eb, "%sF(C%d,C%d)\n", rnd(2) ? "!" : "", a, a);
			if (nt == 5)
				buf_printf(&eb, "%sF(C%d,C%d)\n%sF(C%d,C%d)\n", rnd(2) ?
				    "!" : "", a, (a + 1) % nt, rnd(2) ? "!" : "", a,
				    (a + 2) % nt);
		}
		unlink(dbp);
		evs[0] = tu_file("cg.txt", eb.s ? eb.s : "");
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		rc1 = sqlift_load(h, tu_file("cg.mln", mb.s), evs, 1, 0, &n);
		ck_assert_msg(rc1 == 0, "seed %u: %s for\n%s", seed,
		    sqlift_errmsg(h), mb.s);
		o.queries = useq ? "P,Q,F" : "P,F";
		o.open_world = o.queries;
		cases += brute_vs_exact(h, dbp, &o, "cell graph", &fired, seed, mb.s,
		    eb.s ? eb.s : "");
		buf_free(&mb);
		buf_free(&eb);
	}
	*casesp = cases;
	*firedp = fired;
}

START_TEST(test_engine_cellgraph)
{
	int cases, fired;
	int64_t hits0 = cg_marg_hits;

	cg_models(1, &cases, &fired);
	ck_assert_int_ge(cases, tu_seeds(150));
	ck_assert_int_ge(fired, tu_seeds(80));
	/* marginals from log Z's cell graph (lifted/cgmarg.c) among those
	 * checked against brute force */
	ck_assert_int_ge(cg_marg_hits - hits0, tu_seeds(100));
}
END_TEST

/* The same models (every third) with the cell graph's pruned sum
 * (lifted/cgsum.c) on every sum, however small: log Z and marginals
 * against brute force as above. */
START_TEST(test_engine_cellgraph_pruned)
{
	int cases, fired;

	cg_test_mode = 1;
	cg_models(3, &cases, &fired);
	cg_test_mode = 0;
	ck_assert_int_ge(cases, tu_seeds(50));
	ck_assert_int_ge(fired, tu_seeds(15));
}
END_TEST

/* log of the cell-graph sum by its definition, for test_engine_cgsum:
 * every count vector, block by block, its multinomials, weights and
 * pair weights. */
/* >= 0: each term times that group's count, or with direct_pair >= 0
 * times the ordered pairs of constants in the two */
static int direct_count = -1, direct_pair = -1;

static double
cgsum_direct(const struct cgsum *p, int b, int g, int64_t left,
    int64_t *cnt)
{
	double t = 0, m = -INFINITY, s = 0;

	if (b == p->nb) {
		if (direct_count >= 0) {
			int64_t c = cnt[direct_count], w = direct_pair < 0 ? c :
			    direct_pair == direct_count ? c * (c - 1) :
			    c * cnt[direct_pair];
			if (w == 0)
				return -INFINITY;
			t = log((double)w);
		}
		for (int i = 0; i < p->ng; i++) {
			t += (double)cnt[i] * p->lw[i] - lgamma((double)cnt[i] + 1);
			for (int j = i; j < p->ng; j++) {
				double k = i == j ? cnt[i] * (cnt[i] - 1) / 2.0 :
				    (double)cnt[i] * (double)cnt[j];
				if (k > 0)
					t += k * p->lr[i * p->ng + j];
			}
		}
		for (int i = 0; i < p->nb; i++)
			t += lgamma((double)p->n[i] + 1);
		return t;
	}
	if (g == p->ng || p->gb[g] != b) {
		if (left > 0)
			return -INFINITY;
		return cgsum_direct(p, b + 1, g, b + 1 < p->nb ?
		    p->n[b + 1] : 0, cnt);
	}
	for (int64_t c = 0; c <= left; c++) {
		cnt[g] = c;
		t = cgsum_direct(p, b, g + 1, left - c, cnt);
		cnt[g] = 0;
		if (t == -INFINITY)
			continue;
		/* s: the sum of e^(term - m), m the largest so far */
		if (t > m) {
			s = s * exp(m - t) + 1;
			m = t;
		} else
			s += exp(t - m);
	}
	return m == -INFINITY ? m : m + log(s);
}

/* The pruned sum of lifted/cgsum.c on random cell graphs (1..3
 * blocks of 0..30 constants, 1..3 groups each, log pair weights in
 * [-1.5, 1.5] and some zero weights), against cgsum_direct to 1e-9:
 * pruned, and every subtree summed in full against its bound; weights
 * this large drop most subtrees.  Each group's expected count (what
 * marginals come from, lifted/cgmarg.c) against the direct sum of the
 * terms times that group's count. */
START_TEST(test_engine_cgsum)
{
	int64_t drops = 0;

	cg_bound_violations = cg_bound_checks = cg_bound_drops = 0;
	for (unsigned seed = 1; seed <= 280; seed += tu_step()) {
		int gb[9], ng = 0, nb;
		double lw[9], lr[81], want, got, vectors = 1, nodes;
		double ecnt[9], ewant[9], epair[81], pwant[2];
		int pg[2], ph[2];
		int64_t n[3], cnt[9] = { 0 };
		struct cgsum p;

		rs = seed * 2654435761u;
		nb = 1 + (int)rnd(3);
		for (int b = 0; b < nb; b++) {
			int m = 1 + (int)rnd(3);
			double v;
			/* at most 2e4 vectors in all, for cgsum_direct */
			n[b] = 1 + (int64_t)rnd(30);
			while ((v = exp(lgamma((double)n[b] + m) -
			    lgamma((double)n[b] + 1) - lgamma(m))) * vectors > 2e4)
				n[b] /= 2;
			vectors *= v;
			for (int k = 0; k < m; k++) {
				gb[ng] = b;
				lw[ng++] = ((int)rnd(2001) - 1000) / 500.0;
			}
		}
		for (int i = 0; i < ng; i++)
			for (int j = i; j < ng; j++)
				lr[i * ng + j] = lr[j * ng + i] = rnd(12) == 0 ?
				    -INFINITY : ((int)rnd(2001) - 1000) / 666.7;
		p = (struct cgsum){ ng, nb, gb, lw, lr, n, ecnt, epair };
		want = cgsum_direct(&p, 0, 0, n[0], cnt);
		/* each group's expected count: its count times each term; and
		 * of two pairs of groups, their pairs of constants */
		for (int g = 0; g < ng; g++) {
			direct_count = g;
			ewant[g] = exp(cgsum_direct(&p, 0, 0, n[0], cnt) - want);
		}
		for (int k = 0; k < 2; k++) {
			direct_count = pg[k] = (int)rnd((unsigned)ng);
			direct_pair = ph[k] = (int)rnd((unsigned)ng);
			pwant[k] = exp(cgsum_direct(&p, 0, 0, n[0], cnt) - want);
			direct_pair = -1;
		}
		direct_count = -1;
		for (int mode = 0; mode <= 2; mode++) {
			cg_test_mode = mode;
			ck_assert_int_eq(cgsum(&p, vectors, INFINITY, &got,
			    &nodes), 0);
			cg_test_mode = 0;
			ck_assert_msg(want == -INFINITY ? got == want :
			    fabs(got - want) <= 1e-9 * (1 + fabs(want)),
			    "seed %u mode %d: %.17g, direct %.17g", seed, mode,
			    got, want);
			for (int g = 0; g < ng && want > -INFINITY; g++)
				ck_assert_msg(fabs(ecnt[g] - ewant[g]) <= 1e-9 *
				    (1 + ewant[g]), "seed %u mode %d group %d: "
				    "expected count %.17g, direct %.17g", seed,
				    mode, g, ecnt[g], ewant[g]);
			for (int k = 0; k < 2 && want > -INFINITY; k++) {
				double e = epair[pg[k] * ng + ph[k]];
				ck_assert_msg(fabs(e - pwant[k]) <= 1e-9 *
				    (1 + pwant[k]), "seed %u mode %d groups %d, %d: "
				    "expected pairs %.17g, direct %.17g", seed, mode,
				    pg[k], ph[k], e, pwant[k]);
			}
		}
		drops = cg_bound_drops;
	}
	ck_assert_int_eq(cg_bound_violations, 0);
	ck_assert_int_ge(cg_bound_checks, tu_seeds(2000));
	ck_assert_int_ge(drops, tu_seeds(500));
}
END_TEST

/* Marginals from the cell graph of log Z (lifted/cgmarg.c) against
 * those by conditioning each class (cg_marg_off), every one to 1e-9
 * and, above 1e-300, to 1e-9 of itself: the families of bench/fo2.sh
 * with two-variable self-joins (graph, symcan, fo2) with random weights
 * over 12..35 persons (Friends queried too below 20), evidence on
 * Smokes and Cancer in 9 blocks as in
 * tests/sh/cellgraph.test (the pruned sum from about 30), strong
 * weights making some marginals tiny (their groups' conditioned
 * sums). */
START_TEST(test_engine_cgmarg)
{
	static const char *fams[][4] = {
	    { "Friends(x, y) => Friends(y, x).", "!Friends(x, x).",
	      "Smokes(x) ^ Friends(x, y) => Smokes(y)",
	      "Cancer(x) ^ Friends(x, y) => Cancer(y)" },
	    { "Friends(x, y) => Friends(y, x)",
	      "Friends(x, y) ^ Smokes(y) => Cancer(x)",
	      "Smokes(x) ^ Friends(x, y) => Smokes(y)", "" },
	    { "Smokes(x) v Smokes(y)",
	      "Smokes(x) ^ Friends(x, y) => Cancer(x)",
	      "Smokes(x) ^ Smokes(y) => Friends(x, y)",
	      "Friends(x, x) v Cancer(x)" } };
	int64_t hits0 = cg_marg_hits, ref0 = cg_marg_refined;
	int cases = 0;

	for (unsigned seed = 1; seed <= 84; seed += tu_step()) {
		const char *dbp = tu_file("cgm.db", NULL);
		struct buf mb, eb;
		struct sqlift_infer_opts o = { 0 };
		const char *evs[1];
		int f, nt;
		int64_t n, run;
		double diff, rel, nm;
		sqlift *h;

		rs = seed * 2246822519u + 12345u;
		rnd(2);
		f = (int)(seed % 3);
		nt = 12 + (int)rnd(24);
		buf_init(&mb);
		buf_init(&eb);
		buf_puts(&mb, "person = {");
		for (int i = 0; i < nt; i++)
			buf_printf(&mb, "%sP%d", i ? ", " : "", i);
		buf_puts(&mb, "}\nSmokes(person)\nCancer(person)\n"
		    "Friends(person, person)\n");
		/* a formula ending in '.' is hard */
		for (int k = 0; k < 4 && fams[f][k][0]; k++)
			if (strchr(fams[f][k], '.'))
				buf_printf(&mb, "%s\n", fams[f][k]);
			else
				buf_printf(&mb, "%.2f %s\n", ((int)rnd(2001) - 1000) /
				    200.0, fams[f][k]);
		for (int i = 0; i < nt; i++) {
			if (i % 5 == 1 || i % 5 == 2)
				buf_printf(&eb, "%sSmokes(P%d)\n", i % 5 == 2 ? "!" :
				    "", i);
			if (i % 7 == 1 || i % 7 == 3)
				buf_printf(&eb, "%sCancer(P%d)\n", i % 7 == 3 ? "!" :
				    "", i);
		}
		unlink(dbp);
		evs[0] = tu_file("cgm.txt", eb.s);
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_msg(sqlift_load(h, tu_file("cgm.mln", mb.s), evs, 1, 0,
		    &n) == 0, "seed %u: %s", seed, sqlift_errmsg(h));
		/* Friends by conditioning takes seconds from about 20 */
		o.queries = nt < 20 ? "Smokes,Cancer,Friends" : "Smokes,Cancer";
		o.open_world = "Smokes,Cancer,Friends";
		o.method = "exact";
		o.allow_zero_weights = 1;
		cg_marg_off = 1;
		ck_assert_msg(sqlift_infer(h, &o, &run) == 0, "seed %u: %s",
		    seed, sqlift_errmsg(h));
		cg_marg_off = 0;
		ck_assert_msg(sqlift_infer(h, &o, &run) == 0, "seed %u: %s",
		    seed, sqlift_errmsg(h));
		sqlift_close(h);
		nm = tu_sql_double(dbp, "SELECT count(*) FROM marginals a JOIN "
		    "marginals b USING (atom) WHERE a.run_id = 1 AND "
		    "b.run_id = 2");
		diff = tu_sql_double(dbp, "SELECT max(abs(a.probability - "
		    "b.probability)) FROM marginals a JOIN marginals b USING "
		    "(atom) WHERE a.run_id = 1 AND b.run_id = 2");
		rel = tu_sql_double(dbp, "SELECT coalesce(max(abs(a.probability "
		    "- b.probability) / a.probability), 0) FROM marginals a JOIN "
		    "marginals b USING (atom) WHERE a.run_id = 1 AND "
		    "b.run_id = 2 AND a.probability > 1e-300");
		ck_assert_msg(nm == 2 * nt + (nt < 20 ? nt * nt : 0) &&
		    diff <= 1e-9 && rel <= 1e-9,
		    "seed %u: %g marginals, largest difference %g, relative "
		    "%g for\n%s", seed, nm, diff, rel, mb.s);
		cases++;
		buf_free(&mb);
		buf_free(&eb);
	}
	ck_assert_int_ge(cases, tu_seeds(84));
	ck_assert_int_ge(cg_marg_hits - hits0, 4 * tu_seeds(84));
	ck_assert_int_ge(cg_marg_refined - ref0, tu_seeds(84) / 4);
}
END_TEST

/* The theory of model text without evidence, and what it is built from
 * (text_theory_free frees them). */
struct text_theory {
	struct mln_model *m, *c;
	struct mln_domain *d;
	struct mln_domain *md;
	struct ct_theory *t;
	double k;              /* the clause conversion's constant */
};

static void
text_theory(const char *text, struct text_theory *x)
{
	struct err e = { 0 };

	memset(x, 0, sizeof *x);
	ck_assert_msg(mln_parse(text, strlen(text), "t.mln", &x->m, &e) == 0,
	    "%s", e.msg);
	x->d = tu_domains(x->m);
	x->md = tu_mln_domains(x->m, x->d);
	ck_assert_int_eq(mln_to_clauses(x->m, x->md, 0, &x->c, &x->k, &e), 0);
	ck_assert_int_eq(ct_build(x->c, x->d, NULL, &x->t, &e), 0);
}

static void
text_theory_free(struct text_theory *x)
{
	ct_free(x->t);
	mln_free(x->c);
	store_domains_free(x->d, (int)x->m->types.n);
	free(x->md);
	mln_free(x->m);
}

/* log Z of model text (no evidence) by the engine, with the clause
 * conversion's constant. */
static double
engine_model(const char *text, struct eng_stats *st)
{
	struct text_theory x;
	struct err e = { 0 };
	double lz = 0;

	text_theory(text, &x);
	ck_assert_msg(engine_log_z(x.t, ENG_MIN_TABLE, 0, &lz, st, &e) == 0, "%s",
	    e.msg);
	text_theory_free(&x);
	return lz + x.k;
}

static void
persons(struct buf *b, int n)
{
	buf_puts(b, "person = {");
	for (int i = 0; i < n; i++)
		buf_printf(b, "%sP%d", i ? ", " : "", i);
	buf_puts(b, "}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n");
}

/* Closed forms for friends-and-smokers without evidence, n = 100 ...
 * 10,000, derived by hand:
 *  - w1 Smokes(x) => Cancer(x) alone: per person, e^w1 for (S,C) in
 *    {00, 01, 11} and 1 for 10: Z = (3 e^w1 + 1)^n, times 2^(n^2) for
 *    the Friends atoms in no formula;
 *  - with w2 Smokes(x) ^ Friends(x,y) => Smokes(y): with k smokers, a
 *    pair x != y with S(x), !S(y) gives e^w2 + 1 (over Friends(x,y)),
 *    any other pair 2 e^w2, and x = y is a tautology, e^w2 times 2 for
 *    Friends(x,x); each smoker e^w1 + 1, each other 2 e^w1:
 *    Z = sum_k C(n,k) (e^w1+1)^k (2e^w1)^(n-k) (e^w2+1)^(k(n-k))
 *        (2e^w2)^(n(n-1)-k(n-k)) (2e^w2)^n. */
START_TEST(test_engine_closed_forms)
{
	const double w1 = 1.5, w2 = -1.1;
	static const int sizes[] = { 100, 1000, 10000 };

	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		int n = sizes[i];
		long double max = -INFINITY, sum = 0, want1, want2, *term;
		struct eng_stats st;
		double got;
		struct buf b;

		buf_init(&b);
		persons(&b, n);
		buf_printf(&b, "%g Smokes(x) => Cancer(x)\n", w1);
		want1 = n * logl(3 * expl(w1) + 1) + (long double)n * n * logl(2);
		got = engine_model(b.s, &st);
		ck_assert_msg(fabsl(got - want1) <= 1e-9L * fabsl(want1), "n = %d: "
		    "%.15g, closed form %.15Lg", n, got, want1);
		buf_printf(&b, "%g Smokes(x) ^ Friends(x, y) => Smokes(y)\n", w2);
		term = calloc((size_t)n + 1, sizeof *term);
		for (int k = 0; k <= n; k++) {
			long double kk = (long double)k * (n - k);
			term[k] = lgammal(n + 1) - lgammal(k + 1) - lgammal(n - k + 1) +
			    k * logl(expl(w1) + 1) + (n - k) * logl(2 * expl(w1)) +
			    kk * logl(expl(w2) + 1) + ((long double)n * (n - 1) - kk) *
			    logl(2 * expl(w2)) + n * logl(2 * expl(w2));
			if (term[k] > max)
				max = term[k];
		}
		for (int k = 0; k <= n; k++)
			sum += expl(term[k] - max);
		want2 = max + logl(sum);
		free(term);
		got = engine_model(b.s, &st);
		ck_assert_msg(fabsl(got - want2) <= 1e-9L * fabsl(want2), "n = %d: "
		    "%.15g, closed form %.15Lg", n, got, want2);
		ck_assert_int_eq(st.groundings, 0);  /* lifted all the way */
		buf_free(&b);
	}
}
END_TEST

/* A search that holds more than max_memory bytes (its theories,
 * indexes and cache, eng_held) stops with SQLIFT_ELIMIT and says so:
 * transitivity over 7 persons does not lift, and already its first
 * theory holds more than 64 KB.  With the default cap (the smaller of
 * 2 GB and half the machine's memory) the same search runs on to
 * --max-nodes.  Either way, once the engine is freed it holds nothing. */
START_TEST(test_engine_memory_limit)
{
	static const char text[] = "person = {A, B, C, D, E, F, G}\n"
	    "Friends(person, person)\n"
	    "1.2 Friends(x, y) ^ Friends(y, z) => Friends(x, z)\n";
	static const double caps[] = { 65536, 0 };
	struct text_theory x;

	text_theory(text, &x);
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		struct eng_opts o = { 0 };
		struct err e = { 0 };
		struct eng *g;
		double lz;
		o.max_nodes = 5000;
		o.max_memory = caps[i];
		ck_assert_int_eq(eng_new(x.t, &o, &g, &e), 0);
		ck_assert_int_eq(eng_log_z(g, &lz, &e), SQLIFT_ELIMIT);
		ck_assert_int_gt(eng_held_bytes(), 0);
		eng_free(g);
		ck_assert_int_eq(eng_held_bytes(), 0);
		ck_assert_msg(caps[i] > 0 ? strstr(e.msg, "exact inference "
		    "stopped at --max-memory 64K while grounding") && strstr(e.msg,
		    ": the search and its cache need more memory (try --method "
		    "lis)") : strstr(e.msg, "--max-nodes 5000") != NULL, "cap %g: %s",
		    caps[i], e.msg);
	}
	text_theory_free(&x);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_engine_random_models,
		test_engine_with_evidence,
		test_engine_multibin, test_engine_multibin_nested,
		test_engine_cellgraph,
		test_engine_cellgraph_pruned,
		test_engine_cgsum,
		test_engine_cgmarg,
		test_engine_closed_forms,
		test_engine_memory_limit,
	};

	return tu_main("engine", 1, tests, sizeof tests / sizeof *tests);
}
