/* check_theory.c: the constrained theory means what the model means.
 * For random models (constants, equalities, existentials, hard formulas,
 * both signs of weight) brute force on the original formulas equals brute
 * force on the theory built from their clauses, grounded back from its
 * setineq constraints, plus the constants both steps report. */
#include "evidence/blocks.h"
#include "lifted/theory.h"
#include "store/store.h"
#include "testutil.h"

static unsigned rs;

static unsigned
rnd(unsigned n)
{
	return tu_rnd(&rs, n);
}

START_TEST(test_theory_keeps_log_z)
{
	int cases = 0, blocks2 = 0;

	for (unsigned seed = 1; seed <= 1500; seed += tu_step()) {
		struct mln_model *m = NULL, *c = NULL;
		struct ct_theory *t = NULL;
		struct mln_domain *d;
		struct mln_domain *md;
		struct err e = { 0 };
		double lz1 = 0, lz2 = 0, k = 0;
		int rc1, rc2;
		struct buf b;

		rs = seed;
		buf_init(&b);
		buf_puts(&b, rnd(2) ? "t = {A, B, C}\n" : "t = {A, B}\n");
		buf_puts(&b, "P(t)\nQ(t)\nR(t,t)\n");
		for (int i = 0; i < 1 + (int)rnd(2); i++) {
			if (rnd(5) == 0) {
				tu_rnd_formula(&b, &rs, 2);
				buf_puts(&b, ".\n");
			} else {
				buf_printf(&b, "%.3f ", ((int)rnd(2001) - 1000) / 400.0);
				tu_rnd_formula(&b, &rs, 2);
				buf_puts(&b, "\n");
			}
		}
		if (mln_parse(b.s, b.len, "t.mln", &m, &e) != 0) {
			buf_free(&b);
			continue;  /* a variable only in an equality */
		}
		d = tu_domains(m);
		md = tu_mln_domains(m, d);
		ck_assert_int_eq(mln_to_clauses(m, md, 0, &c, &k, &e), 0);
		rc1 = tu_brute_model(m, d, &lz1, &e);
		rc2 = ct_build(c, d, NULL, &t, &e);
		if (rc2 == 0) {
			for (size_t ty = 0; ty < m->types.n; ty++)
				blocks2 += t->sp->nblocks[ty] < d[ty].n;
			rc2 = ct_brute(t, &lz2, NULL, &e);
		}
		if (rc1 == SQLIFT_ELIMIT || rc2 == SQLIFT_ELIMIT)
			goto next;
		ck_assert_msg(rc1 == rc2, "seed %u: status %d vs %d (%s) for\n%s",
		    seed, rc1, rc2, e.msg, b.s);
		if (rc1 == 0)
			ck_assert_msg(fabs(lz1 - (lz2 + k)) <= 1e-9 * (1 + fabs(lz1)),
			    "seed %u: log Z %.15g vs theory %.15g + %.15g for\n%s", seed,
			    lz1, lz2, k, b.s);
		cases++;
next:
		ct_free(t);
		mln_free(c);
		store_domains_free(d, (int)m->types.n);
		free(md);
		mln_free(m);
		buf_free(&b);
	}
	ck_assert_int_ge(cases, tu_seeds(800));
	ck_assert_int_ge(blocks2, tu_seeds(100));  /* blocks of several constants occur */
}
END_TEST

/* The Normal form of c and ev (constants of evidence and formulas
 * alone, the rest of a type together) has log Z lz (brute force). */
static void
normal_agrees(const struct mln_model *c, const struct mln_domain *dom,
    struct ct_evidence *ev, double lz, unsigned seed)
{
	struct ct_theory *tn = NULL;
	struct err e = { 0 };
	double lzn = 0;

	ev->normal = 1;
	ck_assert_int_eq(ct_build(c, dom, ev, &tn, &e), 0);
	for (size_t ty = 0; ty < c->types.n; ty++) {
		int big = 0;  /* one block holds all the others */
		for (int x = 0; x < tn->sp->nblocks[ty]; x++)
			big += tn->sp->size[ty][x] > 1;
		ck_assert_int_le(big, 1);
	}
	ck_assert_int_eq(ct_brute(tn, &lzn, NULL, &e), 0);
	ck_assert_msg(fabs(lzn - lz) <= 1e-9 * (1 + fabs(lz)),
	    "seed %u: normal form %.15g vs %.15g", seed, lzn, lz);
	ct_free(tn);
}

/* 1 when t's evidence holds orbits: tuples with equalities or
 * inequalities between their variables. */
static int
has_orbits(const struct ct_theory *t, const struct mln_model *c)
{
	int eq = 0;

	for (size_t p = 0; p < c->preds.n; p++)
		for (int w = 0; w < 2; w++) {
			const struct si_set *set = w ? &t->ev[p].tru : &t->ev[p].fal;
			for (size_t x = 0; x < set->v.n; x++)
				for (int v = 0; v < set->v.v[x]->nvars; v++)
					eq |= set->v.v[x]->rep[v] != v ||
					    set->v.v[x]->nneq > 0;
		}
	return eq;
}

/* With evidence: the run of --method brute on the database against the
 * theory built from the same database's cubes, grounded back. */
START_TEST(test_theory_with_evidence)
{
	static const char *names[] = { "A", "B", "C" };
	int cases = 0, withev = 0, nfree = 0, norbit = 0;

	for (unsigned seed = 1; seed <= 400; seed += tu_step()) {
		const char *dbp = tu_file("ev.db", NULL);
		struct buf mb, eb;
		struct mln_model *m = NULL, *c = NULL;
		struct mln_domain *dom = NULL;
		struct mln_domain *md = NULL;
		struct ct_evidence *ev = NULL;
		struct ct_theory *t = NULL;
		struct store *st = NULL;
		struct sqlift_infer_opts o = { 0 };
		struct err e = { 0 };
		const char *evs[1];
		char queries[32] = "";
		int queried[3] = { 0 }, *closed = NULL, rc1, rc2, sym;
		double lz1 = 0, lz2 = 0, k = 0;
		int64_t n, run;
		sqlift *h;

		rs = seed * 2654435761u;
		unlink(dbp);
		buf_init(&mb);
		buf_init(&eb);
		buf_puts(&mb, "t = {A, B, C}\nP(t)\nQ(t)\nR(t,t)\n");
		for (int i = 0; i < 1 + (int)rnd(2); i++) {
			if (rnd(6) == 0) {
				tu_rnd_formula(&mb, &rs, 2);
				buf_puts(&mb, ".\n");
			} else {
				buf_printf(&mb, "%.3f ", ((int)rnd(2001) - 1000) / 400.0);
				tu_rnd_formula(&mb, &rs, 2);
				buf_puts(&mb, "\n");
			}
		}
		/* half the time R symmetric, with or without its diagonal, and
		 * P and Q only of A: blocks that a cube side splits (equality
		 * in the evidence) */
		sym = rnd(2);
		for (int a = 0; a < 3; a++) {
			if (rnd(10) < 3 && (!sym || a == 0))
				buf_printf(&eb, "%sP(%s)\n", rnd(2) ? "!" : "", names[a]);
			if (rnd(10) < 3 && (!sym || a == 0))
				buf_printf(&eb, "%sQ(%s)\n", rnd(2) ? "!" : "", names[a]);
			for (int b = sym ? a + 1 : 0; b < 3; b++)
				if (rnd(10) < 4) {
					const char *neg = rnd(2) ? "!" : "";
					buf_printf(&eb, "%sR(%s,%s)\n", neg, names[a], names[b]);
					if (sym)
						buf_printf(&eb, "%sR(%s,%s)\n", neg, names[b],
						    names[a]);
				}
			if (sym == 1 && rnd(2))
				buf_printf(&eb, "R(%s,%s)\n", names[a], names[a]);
		}
		for (int p = 0; p < 3; p++)
			if ((queried[p] = rnd(2)))
				snprintf(queries + strlen(queries), sizeof queries -
				    strlen(queries), "%s%s", queries[0] ? "," : "",
				    (const char *[]){ "P", "Q", "R" }[p]);
		if (mln_parse(mb.s, mb.len, "t.mln", &m, &e) != 0)
			goto next;  /* a variable only in an equality */
		evs[0] = tu_file("ev.txt", eb.s ? eb.s : "");
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_msg(sqlift_load(h, tu_file("ev.mln", mb.s), evs, 1, 0,
		    &n) == 0, "%s", sqlift_errmsg(h));
		ck_assert_int_eq(sqlift_cubes(h, NULL), 0);
		o.method = "brute";
		o.allow_zero_weights = 1;  /* random weights may all round to 0 */
		o.queries = queries[0] ? queries : NULL;
		rc1 = sqlift_infer(h, &o, &run);
		sqlift_close(h);
		if (rc1 == 0)
			lz1 = tu_sql_double(dbp, "SELECT log_z FROM runs");
		/* the theory, from the same database */
		ck_assert_int_eq(store_open(dbp, 0, &st, &e), 0);
		ck_assert_int_eq(store_begin(st, &e), 0);
		ck_assert_int_eq(store_domains(st, m, &dom, &e), 0);
		md = tu_mln_domains(m, dom);
		ck_assert_int_eq(mln_to_clauses(m, md, 0, &c, &k, &e), 0);
		closed = calloc(c->preds.n + 1, sizeof *closed);
		for (size_t p = 0; p < m->preds.n; p++) {
			int64_t cnt = 0;
			int sp = store_pred_find(st, m->preds.v[p].name,
			    strlen(m->preds.v[p].name));
			ck_assert_int_eq(store_pred_count(st, sp, &cnt, &e), 0);
			closed[p] = cnt > 0 && !queried[p];
			withev += cnt > 0;
		}
		ck_assert_int_eq(blocks_read(st, c, dom, closed, &ev, &e), 0);
		rc2 = ct_build(c, dom, ev, &t, &e);
		if (rc2 == 0) {
			double fa = -1;
			norbit += has_orbits(t, c);
			rc2 = ct_brute(t, &lz2, &fa, &e);
			if (rc2 == 0)
				ck_assert_msg(fa == t->free_atoms, "seed %u: %g free atoms, "
				    "theory says %g for\n%sevidence:\n%squeries %s", seed,
				    fa, t->free_atoms, mb.s, eb.s, queries);
			nfree += rc2 == 0 && fa > 0;
		}
		if (rc1 == SQLIFT_ELIMIT || rc2 == SQLIFT_ELIMIT)
			goto next;
		ck_assert_msg(rc1 == rc2, "seed %u: status %d vs %d (%s) for\n%s"
		    "evidence:\n%squeries %s", seed, rc1, rc2, e.msg, mb.s, eb.s,
		    queries);
		if (rc1 == 0)
			ck_assert_msg(fabs(lz1 - (lz2 + k)) <= 1e-9 * (1 + fabs(lz1)),
			    "seed %u: log Z %.15g vs theory %.15g + %.15g for\n%s"
			    "evidence:\n%squeries %s", seed, lz1, lz2, k, mb.s, eb.s,
			    queries);
		/* the Normal form (constants of evidence and formulas alone, the
		 * rest of a type together) agrees */
		if (rc1 == 0)
			normal_agrees(c, dom, ev, lz2, seed);
		cases++;
next:
		ct_free(t);
		if (c)
			ct_evidence_free(ev, (int)c->types.n, (int)c->preds.n);
		free(closed);
		if (m)
			store_domains_free(dom, (int)m->types.n);
		free(md);
		if (st)
			store_rollback(st);
		store_close(st);
		mln_free(c);
		mln_free(m);
		buf_free(&mb);
		buf_free(&eb);
	}
	ck_assert_int_ge(cases, tu_seeds(200));
	ck_assert_int_ge(withev, tu_seeds(300));
	ck_assert_int_ge(nfree, tu_seeds(20));  /* free atoms were counted */
	ck_assert_int_ge(norbit, tu_seeds(21));  /* orbits were folded */
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_theory_keeps_log_z,
		test_theory_with_evidence,
	};

	return tu_main("theory", 1, tests, sizeof tests / sizeof *tests);
}
