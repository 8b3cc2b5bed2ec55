/* check_theory.c: the constrained theory means what the model means.
 * For random models (constants, equalities, existentials, hard formulas,
 * both signs of weight) brute force on the original formulas equals brute
 * force on the theory built from their clauses, grounded back from its
 * setineq constraints, plus the constants both steps report. */
#include "lifted/theory.h"
#include "testutil.h"

static unsigned rs;

static unsigned
rnd(unsigned n)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 16) % n;
}

static void
rnd_formula(struct buf *b, int depth)
{
	static const char *atoms[] = { "P(x)", "P(y)", "Q(x)", "R(x,y)",
	    "R(y,x)", "R(x,x)", "P(A)", "R(x,B)", "(x = y)", "(x = A)",
	    "(A = B)" };
	static const char *ops[] = { " ^ ", " v ", " => ", " <=> " };
	unsigned k = rnd(10);

	if (depth == 0 || k < 3) {
		if (rnd(3) == 0)
			buf_puts(b, "!");
		buf_puts(b, atoms[rnd(11)]);
		return;
	}
	if (k == 3) {
		buf_printf(b, "(EXIST z%d R(x,z%d))", depth, depth);
		return;
	}
	buf_puts(b, "(");
	rnd_formula(b, depth - 1);
	buf_puts(b, ops[rnd(4)]);
	rnd_formula(b, depth - 1);
	buf_puts(b, ")");
}

START_TEST(test_theory_keeps_log_z)
{
	int cases = 0, blocks2 = 0;

	for (unsigned seed = 1; seed <= 1500; seed++) {
		struct mln_model *m = NULL, *c = NULL;
		struct ct_theory *t = NULL;
		struct store_domain *d;
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
				rnd_formula(&b, 2);
				buf_puts(&b, ".\n");
			} else {
				buf_printf(&b, "%.3f ", ((int)rnd(2001) - 1000) / 400.0);
				rnd_formula(&b, 2);
				buf_puts(&b, "\n");
			}
		}
		if (mln_parse(b.s, b.len, "t.mln", &m, &e) != 0) {
			buf_free(&b);
			continue;  /* a variable only in an equality */
		}
		d = tu_domains(m);
		md = calloc(m->types.n, sizeof *md);
		for (size_t ty = 0; ty < m->types.n; ty++) {
			md[ty].n = d[ty].n;
			md[ty].names = d[ty].names;
		}
		ck_assert_int_eq(mln_to_clauses(m, md, &c, &k, &e), 0);
		rc1 = tu_brute_model(m, d, &lz1, &e);
		rc2 = ct_build(c, d, &t, &e);
		if (rc2 == 0) {
			for (size_t ty = 0; ty < m->types.n; ty++)
				blocks2 += t->sp->nblocks[ty] < d[ty].n;
			rc2 = ct_brute(t, &lz2, &e);
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
	ck_assert_int_ge(cases, 800);
	ck_assert_int_ge(blocks2, 100);  /* blocks of several constants occur */
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_theory_keeps_log_z,
	};

	return tu_main("theory", 0, tests, sizeof tests / sizeof *tests);
}
