/* check_mln.c: the .mln parser (syntax, types, messages) and the
 * conversion to clauses, which must keep log Z exactly: checked against
 * brute force on thousands of random formulas. */
#include "testutil.h"

static struct mln_model *
parse_ok(const char *text)
{
	struct mln_model *m = NULL;
	struct err e = { 0 };
	int rc = mln_parse(text, strlen(text), "t.mln", &m, &e);

	ck_assert_msg(rc == 0, "parse failed: %s", e.msg);
	return m;
}

/* Parsing must fail with a message containing want. */
static void
parse_bad(const char *text, const char *want)
{
	struct mln_model *m = NULL;
	struct err e = { 0 };
	int rc = mln_parse(text, strlen(text), "t.mln", &m, &e);

	ck_assert_msg(rc == SQLIFT_EINPUT, "'%s' parsed", text);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(e.msg, want) != NULL, "message '%s' lacks '%s'",
	    e.msg, want);
	ck_assert_ptr_null(strchr(e.msg, '\n'));
}

START_TEST(test_declarations)
{
	struct mln_model *m = parse_ok(
	    "// comment\nperson = {Anna, Bob}\n/* block\n comment */\n"
	    "Friends(person, person)\n*Smokes(person)\r\nCancer(person)\n"
	    "num = {0,...,4}\nAge(person,num)\n");

	ck_assert_int_eq(m->preds.n, 4);
	ck_assert_str_eq(m->preds.v[0].name, "Friends");
	ck_assert_int_eq(m->preds.v[0].arity, 2);
	ck_assert_int_eq(m->preds.v[1].closed, 1);
	ck_assert_int_eq(m->preds.v[2].closed, 0);
	ck_assert_int_eq(m->types.v[0].consts.n, 2);
	ck_assert_int_eq(m->types.v[smap_get(&m->typemap, "num")].consts.n, 5);
	ck_assert_int_eq(m->formulas.n, 0);
	mln_free(m);
}
END_TEST

START_TEST(test_formulas)
{
	struct mln_model *m = parse_ok(
	    "Smokes(person)\nCancer(person)\nFriends(person,person)\n"
	    "1.5 Smokes(x) => Cancer(x)\n"
	    "-2e-1 Friends(x,y) ^ Smokes(x) =>\n   Smokes(y)\n"
	    "Smokes(Anna).\n"
	    "0.3 !Smokes(x) v Cancer(x) ^ Smokes(x) <=> Cancer(x)\n"
	    "2 EXIST y Friends(x,y)\n"
	    "1 Friends(x,+y) ^ !(x = y)\n"
	    "Cancer(x)\n");

	ck_assert_int_eq(m->formulas.n, 7);
	ck_assert_str_eq(m->formulas.v[0].text, "1.5 Smokes(x) => Cancer(x)");
	ck_assert_str_eq(m->formulas.v[1].text,
	    "-0.2 (Friends(x,y) ^ Smokes(x)) => Smokes(y)");
	ck_assert_int_eq(m->formulas.v[2].hard, 1);
	ck_assert_str_eq(m->formulas.v[2].text, "Smokes(Anna).");
	/* ^ binds tighter than v, which binds tighter than <=> */
	ck_assert_str_eq(m->formulas.v[3].text,
	    "0.3 (!Smokes(x) v (Cancer(x) ^ Smokes(x))) <=> Cancer(x)");
	ck_assert_str_eq(m->formulas.v[4].text, "2 EXIST y Friends(x,y)");
	/* y is bound, x is free */
	for (int i = 0; i < m->formulas.v[4].nvars; i++)
		ck_assert_int_eq(m->formulas.v[4].free[i],
		    strcmp(m->formulas.v[4].vars[i], "x") == 0);
	ck_assert_str_eq(m->formulas.v[5].text, "1 Friends(x,y) ^ !(x = y)");
	ck_assert_double_eq(m->formulas.v[6].weight, 0);
	/* Anna joined the domain of person through the hard formula */
	ck_assert_int_eq(m->types.v[0].consts.n, 1);
	mln_free(m);
}
END_TEST

START_TEST(test_real_quirks)
{
	/* no final newline, CRLF, quoted constants with //, digits */
	struct mln_model *m = parse_ok(
	    "Has(page,word)\r\nLink(page,page)\r\n"
	    "1 Has(\"http://a.b/c\", W1) v Link(p, \"x//y\") // note\r\n"
	    "-0.5 Link(p, 3)");
	ck_assert_int_eq(m->formulas.n, 2);
	ck_assert_str_eq(m->formulas.v[0].text,
	    "1 Has(\"http://a.b/c\",W1) v Link(p,\"x//y\")");
	mln_free(m);
}
END_TEST

START_TEST(test_errors)
{
	parse_bad("P(t)\n1 P(x) ^ (P(y)\n", "t.mln:2:10: unbalanced parentheses");
	parse_bad("P(t)\n1 P(x) ^ (P(y) P(x))\n", "t.mln:2:16: expected ')', found 'P'");
	parse_bad("P(t)\n1 P(x))\n", "unbalanced parentheses");
	parse_bad("P(t)\n1.2.3 P(x)\n", "t.mln:2:");
	parse_bad("P(t)\n1 Q(x)\n", "unknown predicate Q");
	parse_bad("P(t)\n1 P(x,y)\n", "P takes 1 argument, found more");
	parse_bad("P(t,t)\n1 P(x)\n", "t.mln:2:");
	parse_bad("P(t)\n1 P(x).\n", "not both");
	parse_bad("P(t)\n*P(x) v P(y)\n", "'*' on a literal");
	parse_bad("P(t)\n@1 P(x)\n", "'@'");
	parse_bad("#include \"a.mln\"\n", "#include");
	parse_bad("person motherOf(person)\n", "function");
	parse_bad("P(t) 1.2\n", "Forclift");
	parse_bad("P(t!)\n", "'!' on a declaration argument");
	/* found by fuzzing: huge range bounds, operators at the very end */
	parse_bad("t = {0,...,333333333333333333333333}\n", "needs integers");
	parse_bad("t = {0,...,1.5}\n", "needs integers");
	{
		static const char tail[] = "P(t)\n1 P(x) <=";
		char *exact = malloc(sizeof tail - 1);  /* no NUL after it */
		struct mln_model *m = NULL;
		struct err e = { 0 };
		memcpy(exact, tail, sizeof tail - 1);
		ck_assert_int_eq(mln_parse(exact, sizeof tail - 1, "t.mln", &m, &e),
		    SQLIFT_EINPUT);
		free(exact);
	}
	parse_bad("P(t)\nQ(u)\n1 P(x) v Q(x)\n", "variable x is used as t and as u");
	parse_bad("P(t)\n1 P(x) v y = z\n", "type of variable");
	parse_bad("P(t)\n/* open\n", "unterminated /* comment");
	parse_bad("P(t)\n1 P(\"abc)\n", "unterminated quoted constant");
	parse_bad("P(t)\n1 P(x) & P(y)\n", "t.mln:2:8: unexpected character '&'");
	parse_bad("P(t)\n1 (EXIST x P(x)) v P(x)\n", "inside and outside");
}
END_TEST

/* Random formulas: brute force on the formula and on its clauses must
 * give the same log Z (after the constant the conversion reports). */
static unsigned rnd_state;

static unsigned
rnd(unsigned n)
{
	return tu_rnd(&rnd_state, n);
}

START_TEST(test_clauses_keep_log_z)
{
	int cases = 0, aux = 0;

	for (unsigned seed = 1; seed <= 2000; seed += tu_step()) {
		struct mln_model *m, *c;
		struct mln_domain *d;
		struct mln_domain *md;
		struct err e = { 0 };
		double lz1, lz2, k;
		struct buf b;
		int rc1, rc2;

		rnd_state = seed;
		buf_init(&b);
		buf_puts(&b, "t = {A, B}\nP(t)\nQ(t)\nR(t,t)\n");
		for (int i = 0; i < 1 + (int)rnd(2); i++) {
			if (rnd(6) == 0)
				tu_rnd_formula(&b, &rnd_state, 2), buf_puts(&b, ".\n");
			else {
				buf_printf(&b, "%.3f ", ((int)rnd(2001) - 1000) / 400.0);
				tu_rnd_formula(&b, &rnd_state, 3);
				buf_puts(&b, "\n");
			}
		}
		if (mln_parse(b.s, b.len, "t.mln", &m, &e) != 0) {
			/* a variable only in an equality has no type */
			ck_assert_msg(strstr(e.msg, "type of variable") != NULL, "%s",
			    e.msg);
			buf_free(&b);
			continue;
		}
		d = tu_domains(m);
		md = tu_mln_domains(m, d);
		ck_assert_int_eq(mln_to_clauses(m, md, 0, &c, &k, &e), 0);
		for (size_t i = 0; i < c->preds.n; i++)
			aux += c->preds.v[i].aux;
		rc1 = tu_brute_model(m, d, &lz1, &e);
		rc2 = tu_brute_model(c, d, &lz2, &e);
		if (rc1 == SQLIFT_ELIMIT || rc2 == SQLIFT_ELIMIT)
			goto next;
		ck_assert_msg(rc1 == rc2, "seed %u: status %d vs %d for\n%s", seed,
		    rc1, rc2, b.s);
		if (rc1 == 0) {
			ck_assert_msg(fabs(lz1 - (lz2 + k)) <= 1e-9 * (1 + fabs(lz1)),
			    "seed %u: log Z %.15g vs clauses %.15g + %.15g for\n%s",
			    seed, lz1, lz2, k, b.s);
			/* every output formula is a clause */
			for (size_t i = 0; i < c->formulas.n; i++)
				ck_assert_ptr_null(strstr(c->formulas.v[i].text, " ^ "));
		}
		cases++;
next:
		buf_free(&b);
		store_domains_free(d, (int)m->types.n);
		free(md);
		mln_free(c);
		mln_free(m);
	}
	ck_assert_int_ge(cases, tu_seeds(1500));
	ck_assert_int_ge(aux, tu_seeds(100));  /* the auxiliary-atom path was exercised */
}
END_TEST

/* A model parsed from text and its clauses for sums (c, constant k) and
 * for max (cm, km), over the test domains d (md for the converter). */
struct cl2 {
	struct mln_model *m, *c, *cm;
	struct mln_domain *d, *md;
	double k, km;
};

static void
cl2_make(struct cl2 *x, const char *text)
{
	struct err e = { 0 };

	memset(x, 0, sizeof *x);
	ck_assert_int_eq(mln_parse(text, strlen(text), "t.mln", &x->m, &e), 0);
	x->d = tu_domains(x->m);
	x->md = tu_mln_domains(x->m, x->d);
	ck_assert_int_eq(mln_to_clauses(x->m, x->md, 0, &x->c, &x->k, &e), 0);
	ck_assert_int_eq(mln_to_clauses(x->m, x->md, 1, &x->cm, &x->km, &e), 0);
}

/* x's clauses keep log Z (sums) and the heaviest world's log weight
 * (max), each plus its constant, as brute force on x's formulas gives
 * them; what names the case in a failure. */
static void
cl2_check_brute(const struct cl2 *x, const char *what)
{
	struct err e = { 0 };
	double lz1, lz2, mx1, mx2;

	ck_assert_int_eq(tu_brute_model_max(x->m, x->d, &lz1, &mx1, &e), 0);
	ck_assert_int_eq(tu_brute_model(x->c, x->d, &lz2, &e), 0);
	ck_assert_msg(fabs(lz1 - (lz2 + x->k)) <= 1e-9 * (1 + fabs(lz1)),
	    "%s: log Z %.15g, clauses %.15g", what, lz1, lz2 + x->k);
	ck_assert_int_eq(tu_brute_model_max(x->cm, x->d, &lz2, &mx2, &e), 0);
	ck_assert_msg(fabs(mx1 - (mx2 + x->km)) <= 1e-9 * (1 + fabs(mx1)),
	    "%s: max %.15g, clauses %.15g", what, mx1, mx2 + x->km);
}

static void
cl2_free(struct cl2 *x)
{
	store_domains_free(x->d, (int)x->m->types.n);
	free(x->md);
	mln_free(x->c);
	mln_free(x->cm);
	mln_free(x->m);
}

/* Tuffy's UW-CSE form: a negative weight on EXIST becomes A => (the
 * negation, a universal: no clause over every constant) with
 * log(e^|w| - 1) on A for sums and |w| for max; weight 0 is dropped.
 * The clauses do not grow with the domain, and keep log Z (brute force
 * on four constants). */
START_TEST(test_clauses_exist)
{
	static const char *const doms[] = { "t = {A, B}\n",
	    "t = {A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S}\n" };

	for (int i = 0; i < 2; i++) {
		struct err e = { 0 };
		double lz1, lz2;
		struct cl2 x;
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%sS(t)\nR(t,t)\nU(t,t)\n"
		    "-2.47 EXIST y !S(x) v R(x,y) v U(x,y)\n0 EXIST y R(y,x)\n"
		    "0.5 R(x,y) => S(y)\n", doms[i]);
		cl2_make(&x, b.s);
		/* A => S(x), A => !R(x,y), A => !U(x,y), A, and the last one */
		ck_assert_int_eq((int)x.c->formulas.n, 5);
		ck_assert_int_eq((int)x.cm->formulas.n, 5);
		ck_assert(x.c->formulas.v[3].weight == log(expm1(2.47)));
		ck_assert(x.cm->formulas.v[3].weight == 2.47);
		ck_assert_double_eq_tol(x.k, -2.47 * (i ? 19 : 2), 1e-9);
		ck_assert(x.km == x.k);
		if (i == 0) {
			ck_assert_int_eq(tu_brute_model(x.m, x.d, &lz1, &e), 0);
			ck_assert_int_eq(tu_brute_model(x.c, x.d, &lz2, &e), 0);
			ck_assert_double_eq_tol(lz1, lz2 + x.k, 1e-9);
		}
		buf_free(&b);
		cl2_free(&x);
	}
}
END_TEST

/* A universal inside an expanded existential stays expanded: EXIST z
 * FORALL y is not FORALL y EXIST z (the clauses said log 9 for a hard
 * one where brute force says log 7).  Log Z and the heaviest world
 * against brute force on the formulas, hard and soft. */
START_TEST(test_clauses_exist_forall)
{
	static const char *const f[] = {
	    "EXIST z FORALL y P(y, z).\n",
	    "1.3 EXIST z FORALL y P(y, z)\n",
	    "-0.9 EXIST z FORALL y P(y, z)\n",
	    "FORALL z EXIST y FORALL w (P(y, z) v !P(w, y)).\n",
	    "0.7 FORALL z EXIST y FORALL w (P(y, z) ^ P(w, w))\n",
	};

	for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
		struct cl2 x;
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "t = {A, B}\nP(t, t)\n%s", f[i]);
		cl2_make(&x, b.s);
		cl2_check_brute(&x, f[i]);
		buf_free(&b);
		cl2_free(&x);
	}
}
END_TEST

/* EXIST over a conjunction distributes into 3^9 clauses at three
 * constants; with Tseitin atoms the clauses add up instead, and log Z
 * and the heaviest world's log weight stay as brute force on the
 * formulas themselves gives them (two constants, where both fit). */
START_TEST(test_clauses_tseitin)
{
	static const char *const body =
	    "R(t,t)\nS(t,t)\n"
	    "1.2 EXIST y, z (R(x,y) ^ S(y,z) ^ R(z,x))\n"
	    "-0.8 EXIST y, z (S(x,y) ^ R(y,z) ^ !S(z,z))\n"
	    "EXIST y, z (R(x,y) ^ S(y,z) ^ S(z,x)) v S(x,x).\n";

	for (int i = 0; i < 2; i++) {
		struct cl2 x;
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s%s", i ? "t = {A, B, C}\n" : "t = {A, B}\n", body);
		cl2_make(&x, b.s);
		ck_assert_msg(x.c->formulas.n < (i ? 400 : 100), "%zu clauses",
		    x.c->formulas.n);
		for (size_t j = 0; j < x.c->formulas.n; j++)
			ck_assert_ptr_null(strstr(x.c->formulas.v[j].text, " ^ "));
		if (i == 0)
			cl2_check_brute(&x, "tseitin");
		buf_free(&b);
		cl2_free(&x);
	}
}
END_TEST

/* Each <=> has its sides twice, so a chain of k doubled k times (24
 * links in 150 bytes asked for terabytes); a side past a few nodes is
 * named by a Tseitin atom.  A chain of 24 converts to a few clauses per
 * link, and one of 7 keeps log Z and the heaviest world (brute force on
 * the formula itself).  What still multiplies (20 nested EXIST over two
 * constants) stops at the budget with the formula's line, and an EXIST
 * over a large domain is within it (the budget grows with constants). */
START_TEST(test_clauses_budget)
{
	struct err e = { 0 };
	struct mln_model *m, *c = NULL;
	struct mln_domain md[2] = { { 0 } };
	static char a[] = "A", b[] = "B";
	char *two[] = { a, b }, **many, *pool;
	enum { N = 40000 };
	double k;
	struct cl2 x;
	struct buf t;

	for (int len = 7; len <= 24; len += 17) {
		buf_init(&t);
		buf_printf(&t, "t = {A}\nP(t)\nQ(t)\n1.3 P(x)");
		for (int i = 0; i < len; i++)
			buf_printf(&t, " <=> %s(x)", i % 3 ? "P" : "!Q");
		buf_printf(&t, "\n");
		cl2_make(&x, t.s);
		ck_assert_msg(x.c->formulas.n < 60 * (size_t)len, "%zu clauses",
		    x.c->formulas.n);
		if (len == 7)
			cl2_check_brute(&x, "<=> chain of 7");
		cl2_free(&x);
		buf_free(&t);
	}

	buf_init(&t);
	buf_printf(&t, "t = {A, B}\nP(t)\n\n1 EXIST v0");
	for (int i = 1; i < 20; i++)
		buf_printf(&t, ", v%d", i);
	buf_printf(&t, " (P(v0)");
	for (int i = 1; i < 20; i++)
		buf_printf(&t, " ^ P(v%d)", i);
	buf_printf(&t, ")\n");
	ck_assert_int_eq(mln_parse(t.s, strlen(t.s), "t.mln", &m, &e), 0);
	md[0].n = 2;
	md[0].names = two;
	ck_assert_int_eq(mln_to_clauses(m, md, 0, &c, &k, &e), SQLIFT_ELIMIT);
	ck_assert_ptr_null(c);
	ck_assert_msg(strncmp(e.msg, "t.mln:4: ", 9) == 0, "%s", e.msg);
	mln_free(m);
	buf_free(&t);

	many = calloc(N, sizeof *many);
	pool = calloc(N, 8);
	ck_assert(many && pool);
	for (int i = 0; i < N; i++)
		snprintf(many[i] = pool + 8 * i, 8, "C%d", i);
	md[0].n = N;
	md[0].names = many;
	static const char *const big =
	    "t = {A}\nP(t)\nR(t,t)\n1.5 EXIST y (R(x,y) v P(y))\n";
	ck_assert_int_eq(mln_parse(big, strlen(big), "t.mln", &m, &e), 0);
	ck_assert_int_eq(mln_to_clauses(m, md, 0, &c, &k, &e), 0);
	ck_assert_int_eq((int)c->formulas.n, 1);
	mln_free(c);
	mln_free(m);
	free(many);
	free(pool);
}
END_TEST

START_TEST(test_parse_oom)
{
	/* every allocation failure is reported, never a crash */
	const char *text = "t = {A, B}\nP(t)\nR(t,t)\n"
	    "1.5 P(x) => EXIST y R(x,y)\nP(A).\n";
	int ok = 0;

	for (long k = 1; k < 2000 && !ok; k++) {
		struct mln_model *m = NULL;
		struct err e = { 0 };
		int rc;
		util_fail_alloc_after(k);
		rc = mln_parse(text, strlen(text), "t.mln", &m, &e);
		util_fail_alloc_after(0);
		ck_assert_msg(rc == 0 || rc == SQLIFT_ENOMEM, "k=%ld rc=%d %s", k,
		    rc, e.msg);
		ok = rc == 0;
		mln_free(m);
	}
	ck_assert(ok);
}
END_TEST

/* Every allocation failure in the conversion (named <=> sides, balanced
 * expansions, Tseitin atoms, lifted universals) is reported, never a
 * crash; ASan's leak check sees what a failed path leaves. */
START_TEST(test_clauses_oom)
{
	struct buf t;
	struct mln_model *m;
	struct mln_domain *d, *md;
	struct err e = { 0 };
	int ok = 0;

	buf_init(&t);
	buf_printf(&t, "t = {A, B, C}\nP(t)\nR(t,t)\n1.2 P(x)");
	for (int i = 0; i < 9; i++)
		buf_printf(&t, " <=> %s", i % 2 ? "P(x)" : "R(x,x)");
	buf_printf(&t, "\n0.7 EXIST y, z (R(x,y) ^ R(y,z) ^ P(z))\n"
	    "-0.4 EXIST y R(x,y) ^ P(y)\nR(x,y) => P(x).\n");
	ck_assert_int_eq(mln_parse(t.s, t.len, "t.mln", &m, &e), 0);
	d = tu_domains(m);
	md = tu_mln_domains(m, d);
	for (long k = 1; k < 200000 && !ok; k++) {
		struct mln_model *c = NULL;
		double lk;
		int rc;
		util_fail_alloc_after(k);
		rc = mln_to_clauses(m, md, (int)(k % 2), &c, &lk, &e);
		/* done only when no allocation failed: a failure taken for
		 * success (a dropped literal) must not end the sweep */
		ok = util_fail_alloc_left() > 0;
		util_fail_alloc_after(0);
		ck_assert_msg(rc == 0 || rc == SQLIFT_ENOMEM, "k=%ld rc=%d %s", k,
		    rc, e.msg);
		ck_assert_msg(!ok || rc == 0, "k=%ld: rc=%d with no failure", k,
		    rc);
		mln_free(c);
	}
	ck_assert(ok);
	store_domains_free(d, (int)m->types.n);
	free(md);
	mln_free(m);
	buf_free(&t);
}
END_TEST

/* Text of n repetitions of s between head and tail; caller frees. */
static char *
repeat(const char *head, const char *s, int n, const char *tail)
{
	struct buf b;

	buf_init(&b);
	buf_puts(&b, head);
	for (int i = 0; i < n; i++)
		buf_puts(&b, s);
	buf_puts(&b, tail);
	ck_assert(!b.oom);
	return buf_take(&b);
}

START_TEST(test_limits)
{
	/* hostile nesting and chains are refused, never a crash */
	static const struct {
		const char *head, *s, *tail, *want;
		int n;
	} c[] = {
		{ "t = {A}\nP(t)\n1 ", "(", "P(x)", "t.mln:3:1003: formula nested "
		    "deeper than 1000 levels", 200000 },
		{ "t = {A}\nP(t)\n1 ", "!", "P(x)", "t.mln:3:1003: formula "
		    "nested deeper than 1000", 200000 },
		{ "t = {A}\nP(t)\n1 ", "EXIST y ", "P(y)", "t.mln:3:8003: "
		    "formula nested deeper", 200000 },
		{ "t = {A}\nP(t)\n1 P(x)", " v P(x)", "\n", "t.mln:3:", 200000 },
		{ "t = {A}\nP(t)\n1 P(x)", " => P(x)", "\n", "more than 4096 "
		    "literals", 200000 },
		{ "t = {A}\nP(t)\n1 P(x)", " v P(x)", "\n", "t.mln:3:1: a clause "
		    "of 65 literals; the lifted methods handle at most 64", 64 },
		{ "t = {A}\nP(t)\nP(x)", " v P(x)", ".\n", "a clause of 65", 64 },
		{ "t = {A}\nP(t)\n-1 P(x)", " ^ !P(x)", "\n", "a clause of 65", 64 },
		{ "t = {A}\nP(t)\n1 P(x) => !(P(x)", " ^ P(x)", ")\n",
		    "a clause of 66", 64 },
		{ "t = {A}\nP(t", ",t", ")\n", "t.mln:2:131: P has more than 64 "
		    "arguments", 64 },
	};

	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char *text = repeat(c[i].head, c[i].s, c[i].n, c[i].tail);
		parse_bad(text, c[i].want);
		free(text);
	}
	/* at the limits, and where the clauses stay small, they parse */
	char *ok[] = {
		repeat("t = {A}\nP(t)\n1 P(x)", " v P(x)", 63, "\n"),
		repeat("t = {A}\nP(t)\nP(x)", " ^ P(x)", 100, ".\n"),
		repeat("t = {A}\nP(t)\n0 P(x)", " v P(x)", 100, "\n"),
		repeat("t = {A}\nP(t)\n1 (P(x) v P(x)) ^ (P(x)", " v P(x)", 40,
		    ")\n"),
		repeat("t = {A}\nP(t", ",t", 63, ")\n"),
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		mln_free(parse_ok(ok[i]));
		free(ok[i]);
	}
	/* a UTF-8 byte-order mark is skipped; a NUL byte is named */
	mln_free(parse_ok("\xef\xbb\xbft = {A}\nP(t)\n1 P(x)\n"));
	{
		struct mln_model *m0 = NULL;
		struct err e = { 0 };
		ck_assert_int_eq(mln_parse("t = {A}\nP(\0t)\n", 13, "t.mln",
		    &m0, &e), SQLIFT_EINPUT);
		ck_assert_str_eq(e.msg, "t.mln:2:3: NUL byte (not a text file?)");
	}
	/* a number is read whole, however long */
	char *num = repeat("t = {A}\nP(t)\n12.5e", "0", 67, "1 P(x)\n");
	struct mln_model *m = parse_ok(num);
	ck_assert(m->formulas.v[0].weight == 125);
	mln_free(m);
	free(num);
}
END_TEST

/* A file of ground atoms is evidence, not a model; a domain declaration
 * stops at the load's limit. */
START_TEST(test_evidence_and_domain_limit)
{
	struct mln_model *m = NULL;
	struct err e = { 0 };
	const char *big = "n = {1,...,7777778}\nP(n)\n";
	const char *abc = "n = {A, B, C}\nP(n)\n";

	parse_bad("Friends(Anna, Bob)\nFriends(Bob, Anna)\n", "t.mln:2:1: "
	    "Friends(Bob, Anna) is a ground atom without a weight: this looks "
	    "like evidence, not a model");
	parse_bad("!Smokes(Anna)\n", "t.mln:1:1: !Smokes(Anna) is a ground");
	parse_bad("Age(Anna, 31)\n", "t.mln:1:1: Age(Anna, 31) is a ground");
	parse_bad("Name(\"A b\")\n", "is a ground atom");
	/* weighted, hard, with variables, a declaration: a model */
	mln_free(parse_ok("S(p)\n2 S(Anna)\nS(Bob).\nS(x)\n!S(x)\n"));
	mln_free(parse_ok("Friends(Person, Person)\n1 Friends(x, y)\n"));
	ck_assert_int_eq(mln_parse_limited(big, strlen(big), "t.mln", 1000000,
	    &m, &e), SQLIFT_EINPUT);
	ck_assert_str_eq(e.msg, "t.mln:1:12: domain of n has more than 1000000 "
	    "constants (raise the limit with --max-domain)");
	ck_assert_int_eq(mln_parse_limited(abc, strlen(abc), "t.mln", 2,
	    &m, &e), SQLIFT_EINPUT);
	ck_assert_str_eq(e.msg, "t.mln:1:12: domain of n has more than 2 "
	    "constants (raise the limit with --max-domain)");
	ck_assert_int_eq(mln_parse_limited(abc, strlen(abc), "t.mln", 3,
	    &m, &e), 0);
	ck_assert_int_eq(m->types.v[0].consts.n, 3);
	mln_free(m);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_declarations,
		test_formulas,
		test_real_quirks,
		test_errors,
		test_clauses_keep_log_z,
		test_clauses_exist,
		test_clauses_tseitin,
		test_clauses_exist_forall,
		test_clauses_budget,
		test_parse_oom,
		test_clauses_oom,
		test_limits,
		test_evidence_and_domain_limit,
	};

	return tu_main("mln", 0, tests, sizeof tests / sizeof *tests);
}
