/* check_lbgstate.c: lbg's kept log-odds (src/sample/lbg-state.c) against
 * the log-odds computed directly.  On small models of the WebKB MLN's
 * shape (classes, links held symmetric, words), friends and smokers
 * with <=>, and a model with a hard formula, random changes of single
 * atoms (lbg_state_flip) and of whole blocks (lbg_state_after) are
 * applied; after each batch every kept L[u] must equal the sum, over u's
 * formulas that hold no other atom of u's block, of the formula's weight
 * with u true less with u false, each formula evaluated by
 * ground_eval (to 1e-9). */
#include <math.h>

#include "sample/gibbs-int.h"
#include "store/store.h"
#include "testutil.h"

/* A linear congruential stream, independent of the sampler's. */
static unsigned
rnd(unsigned *s, unsigned n)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) % n;
}

/* The first block that lists u; -1: none. */
static int
block_of(const struct gb_model *m, int u)
{
	for (int b = 0; b < m->nblocks; b++)
		for (int i = m->bfirst[b]; i < m->bfirst[b + 1]; i++)
			if (m->batom[i] == u)
				return b;
	return -1;
}

static int
in_block(const struct gb_model *m, int b, int v)
{
	for (int i = m->bfirst[b]; i < m->bfirst[b + 1]; i++)
		if (m->batom[i] == v)
			return 1;
	return 0;
}

/* u's log-odds from its formulas without another atom of its block. */
static double
direct(const struct gb_model *m, int u, unsigned char *x, int *stack,
    int *fat)
{
	const struct ground *g = m->g;
	int b = block_of(m, u);
	unsigned char old = x[u];
	double d = 0;

	for (size_t f = 0; f < g->gf.n; f++) {
		int k = gb_form_atoms(g, (int)f, fat), has = 0, other = 0, t1, t0;
		for (int i = 0; i < k; i++) {
			has |= fat[i] == u;
			other |= fat[i] != u && in_block(m, b, fat[i]);
		}
		if (!has || other)
			continue;
		x[u] = 1;
		t1 = ground_eval(g, f, x, stack);
		x[u] = 0;
		t0 = ground_eval(g, f, x, stack);
		d += g->gf.v[f].weight * (t1 - t0);
	}
	x[u] = old;
	return d;
}

/* Every kept atom's L against direct(); the number checked. */
static int
compare(const struct gb_model *m, const struct gb_scratch *s,
    unsigned char *x, int *stack, int *fat)
{
	int n = 0;

	for (int u = 0; u < m->n; u++) {
		if (!m->ls->track[u])
			continue;
		ck_assert_close(s->L[u], direct(m, u, x, stack, fat), 1e-9);
		n++;
	}
	return n;
}

/* Grounds text (every predicate open, no evidence), builds lbg's model
 * with its kept log-odds and checks them through 3,000 random changes;
 * at least min_kept atoms must be kept. */
static void
check_model(const char *text, int min_kept)
{
	struct mln_model *mm = NULL;
	struct mln_domain *d;
	struct ground g;
	struct gb_model m;
	struct gb_scratch s;
	struct err e = { 0 };
	int *sp, *closed, *stack, *fat, kept;
	unsigned char *x;
	unsigned seed = 7;

	ck_assert_int_eq(mln_parse(text, strlen(text), "t.mln", &mm, &e), 0);
	d = tu_domains(mm);
	sp = calloc(mm->preds.n + 1, sizeof *sp);
	closed = calloc(mm->preds.n + 1, sizeof *closed);
	for (size_t i = 0; i < mm->preds.n; i++)
		sp[i] = -1;
	ck_assert_int_eq(ground_atoms(&g, mm, d, NULL, sp, closed, &e), 0);
	ck_assert_int_eq(ground_formulas(&g, &e), 0);
	ck_assert_int_eq(gb_model_build(&m, &g, 1, 1, &e), 0);
	ck_assert_ptr_nonnull(m.ls);
	ck_assert_int_eq(gb_scratch_new(&s, &m), 0);
	x = calloc((size_t)m.n + 1, 1);
	stack = calloc((size_t)m.maxlen + 1, sizeof *stack);
	fat = calloc((size_t)m.maxlen + 1, sizeof *fat);
	for (int u = 0; u < m.n; u++)
		x[u] = (unsigned char)rnd(&seed, 2);
	lbg_state_refresh(&m, x, s.L);
	kept = compare(&m, &s, x, stack, fat);
	ck_assert_int_ge(kept, min_kept);
	for (int round = 0; round < 30; round++) {
		for (int step = 0; step < 100; step++) {
			if (rnd(&seed, 2)) {
				int v = (int)rnd(&seed, (unsigned)m.n);
				x[v] ^= 1;
				lbg_state_flip(&m, v, x, s.L);
			} else {
				int b = (int)rnd(&seed, (unsigned)m.nblocks);
				for (int i = m.bfirst[b]; i < m.bfirst[b + 1]; i++) {
					int u = m.batom[i];
					s.xold[i - m.bfirst[b]] = x[u];
					x[u] = (unsigned char)rnd(&seed, 2);
				}
				lbg_state_after(&m, b, x, &s);
			}
		}
		ck_assert_int_eq(compare(&m, &s, x, stack, fat), kept);
	}
	free(x);
	free(stack);
	free(fat);
	gb_scratch_free(&s);
	gb_model_free(&m);
	ground_free(&g);
	free(sp);
	free(closed);
	store_domains_free(d, (int)mm->types.n);
	mln_free(mm);
}

/* The WebKB MLN's shape at three pages: the links pair up (a block of
 * Linked(a, b) and Linked(b, a)), each class is in a formula per page */
START_TEST(test_webkb_shape)
{
	check_model("page = {P0, P1, P2}\n"
	    "A(page)\nB(page)\nW(page)\nLinked(page, page)\n"
	    "0.8 A(p1) ^ Linked(p1, p2) => B(p2)\n"
	    "1.1 B(p1) ^ Linked(p1, p2) => A(p2)\n"
	    "0.5 A(p1) ^ B(p2) => Linked(p1, p2)\n"
	    "1.5 Linked(p1, p2) => Linked(p2, p1)\n"
	    "1.2 W(p) => A(p)\n"
	    "-0.3 A(p) <=> B(p)\n", 9);
}
END_TEST

/* friends and smokers with a symmetric friendship by <=> */
START_TEST(test_smokers)
{
	check_model("p = {A, B, C}\n"
	    "Friends(p, p)\nSmokes(p)\nCancer(p)\n"
	    "1.5 Smokes(x) => Cancer(x)\n"
	    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
	    "-0.8 Friends(x, y)\n"
	    "0.6 Friends(x, y) <=> Friends(y, x)\n", 1);
}
END_TEST

/* a hard formula: its atoms are not kept, but their changes move the
 * kept atoms they share formulas with */
START_TEST(test_hard)
{
	check_model("t = {X, Y, Z}\n"
	    "R(t)\nS(t)\nT(t, t)\n"
	    "R(x) v S(x).\n"
	    "0.7 S(x) ^ T(x, y) => R(y)\n"
	    "-0.4 T(x, y)\n"
	    "0.9 T(x, y) ^ T(y, x)\n", 1);
}
END_TEST

/* a group with an atom also in a block of hard formulas (lbg-random's
 * seed 8): P2(y, z) is in P0's groups and in the hard sets with P1(y),
 * so a formula of P0 and P2 is inside P0's block */
START_TEST(test_hard_in_group)
{
	check_model("obj = {C0, C1}\n"
	    "P0(obj, obj)\nP1(obj)\nP2(obj, obj)\nP3(obj)\n"
	    "1.66 !P3(y) v P2(y, y) v P2(y, y)\n"
	    "1.40 !P1(z)\n"
	    "!P2(y, z) v !P1(y).\n"
	    "0.69 P3(x)\n"
	    "-0.28 !P0(x, y) v !P2(z, y)\n", 1);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = { test_webkb_shape, test_smokers,
		test_hard, test_hard_in_group };

	return tu_main("lbgstate", 0, tests, sizeof tests / sizeof *tests);
}
