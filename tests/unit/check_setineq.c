/* check_setineq.c: randomised property tests of the setineq module
 * against brute-force enumeration of solutions over small domains split
 * into blocks: canonical form, counting (of tuples and of overlapping
 * sets), join, projection with extension counts, block splits and
 * restriction each keep exactly the set of solutions. */
#include "constraint/setineq.h"
#include "testutil.h"

#define MAXV 4
#define MAXC 9   /* constants per type at most */

static unsigned rs;
static unsigned max_constraints = 4;  /* per random tuple, plus one */

static unsigned
rnd(unsigned n)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 16) % n;
}

/* A universe: 2 types, constants 0..nc-1 of each, blk[t][c] its block. */
struct uni {
	struct si_space *sp;
	int nc[2];
	int blk[2][MAXC];
};

static void
uni_make(struct uni *u)
{
	u->sp = si_space_new(2);
	for (int t = 0; t < 2; t++) {
		int nb = 1 + (int)rnd(3), c = 0;
		for (int b = 0; b < nb; b++) {
			int size = 1 + (int)rnd(3);
			ck_assert_int_eq(si_space_add_block(u->sp, t, size), b);
			for (int k = 0; k < size; k++)
				u->blk[t][c++] = b;
		}
		u->nc[t] = c;
	}
}

/* All assignments as mixed-radix numbers; sol[i] for each. */
static int
nassign(const struct uni *u, const struct si_tuple *t)
{
	int n = 1;
	for (int v = 0; v < t->nvars; v++)
		n *= u->nc[t->type[v]];
	return n;
}

static void
decode(const struct uni *u, const struct si_tuple *t, int i, int *val)
{
	for (int v = t->nvars - 1; v >= 0; v--) {
		val[v] = i % u->nc[t->type[v]];
		i /= u->nc[t->type[v]];
	}
}

static int
satisfies(const struct uni *u, const struct si_tuple *t, const int *val)
{
	for (int v = 0; v < t->nvars; v++) {
		if (!si_has(t, v, u->blk[t->type[v]][val[v]]))
			return 0;
		if (val[v] != val[t->rep[v]])
			return 0;
	}
	for (int e = 0; e < t->nneq; e++)
		if (val[t->neq[e][0]] == val[t->neq[e][1]])
			return 0;
	return 1;
}

static void
solutions(const struct uni *u, const struct si_tuple *t, char *sol)
{
	int val[MAXV + 1];
	for (int i = 0; i < nassign(u, t); i++) {
		decode(u, t, i, val);
		sol[i] = (char)satisfies(u, t, val);
	}
}

static struct si_tuple *
rnd_tuple(const struct uni *u, int nvars, const int *types)
{
	struct si_tuple *t = si_tuple_new(u->sp, nvars, types);

	for (int v = 0; v < nvars; v++) {
		if (rnd(2)) {
			uint64_t s = rnd(8);
			si_in(t, v, &s);
		}
	}
	int nc = (int)rnd(max_constraints);

	for (int k = 0; k < nc; k++) {
		int a = (int)rnd((unsigned)nvars), b = (int)rnd((unsigned)nvars);
		if (types[a] != types[b])
			continue;
		if (rnd(3) == 0)
			si_eq(t, a, b);
		else
			ck_assert_int_eq(si_neq(t, a, b), 0);
	}
	return t;
}

static void
rnd_types(int *nvars, int *types)
{
	*nvars = 1 + (int)rnd(MAXV);
	for (int v = 0; v < *nvars; v++)
		types[v] = (int)rnd(2);
}

START_TEST(test_canon_and_count)
{
	int cases = 0;

	for (unsigned seed = 1; seed <= 3000; seed += tu_step()) {
		struct uni u;
		struct si_set s = { 0 };
		int nvars, types[MAXV], n, brute = 0;
		struct si_tuple *t;
		char *want, *got;

		rs = seed;
		uni_make(&u);
		rnd_types(&nvars, types);
		t = rnd_tuple(&u, nvars, types);
		n = nassign(&u, t);
		want = calloc((size_t)n, 1);
		got = calloc((size_t)n, 1);
		solutions(&u, t, want);
		for (int i = 0; i < n; i++)
			brute += want[i];
		ck_assert_int_eq(si_canon(t, u.sp, &s), 0);
		for (size_t k = 0; k < s.v.n; k++) {
			char *one = calloc((size_t)n, 1);
			ck_assert(si_is_canonical(s.v.v[k], u.sp));
			solutions(&u, s.v.v[k], one);
			for (int i = 0; i < n; i++) {
				ck_assert_msg(!(one[i] && got[i]), "seed %u: pieces overlap",
				    seed);
				got[i] |= one[i];
			}
			free(one);
		}
		ck_assert_msg(memcmp(want, got, (size_t)n) == 0,
		    "seed %u: canonical pieces change the solutions", seed);
		ck_assert_msg(si_count(t, u.sp) == brute, "seed %u: count %g vs %d",
		    seed, si_count(t, u.sp), brute);
		cases += brute > 0;
		si_set_free(&s);
		si_tuple_free(t);
		si_space_free(u.sp);
		free(want);
		free(got);
	}
	ck_assert_int_ge(cases, tu_seeds(1000));
}
END_TEST

START_TEST(test_set_count_and_join)
{
	for (unsigned seed = 1; seed <= 2000; seed += tu_step()) {
		struct uni u;
		struct si_set s = { 0 };
		int nvars, types[MAXV], n, brute = 0, nt;
		char *any, *one, *both;
		struct si_tuple *j;

		rs = seed * 7919u;
		uni_make(&u);
		rnd_types(&nvars, types);
		nt = 1 + (int)rnd(4);
		for (int k = 0; k < nt; k++)
			ck_assert_int_eq(VEC_PUSH(s.v, rnd_tuple(&u, nvars, types)), 0);
		n = nassign(&u, s.v.v[0]);
		any = calloc((size_t)n, 1);
		one = calloc((size_t)n, 1);
		both = calloc((size_t)n, 1);
		for (int k = 0; k < nt; k++) {
			solutions(&u, s.v.v[k], one);
			for (int i = 0; i < n; i++)
				any[i] |= one[i];
		}
		for (int i = 0; i < n; i++)
			brute += any[i];
		ck_assert_msg(si_set_count(&s, u.sp) == brute,
		    "seed %u: union count %g vs %d", seed, si_set_count(&s, u.sp),
		    brute);
		/* join = intersection of solutions */
		j = si_join(s.v.v[0], s.v.v[nt - 1]);
		solutions(&u, s.v.v[0], one);
		solutions(&u, s.v.v[nt - 1], both);
		solutions(&u, j, any);
		for (int i = 0; i < n; i++)
			ck_assert_msg(any[i] == (one[i] && both[i]), "seed %u: join",
			    seed);
		si_tuple_free(j);
		si_set_free(&s);
		si_space_free(u.sp);
		free(any), free(one), free(both);
	}
}
END_TEST

START_TEST(test_project)
{
	int split = 0;

	for (unsigned seed = 1; seed <= 3000; seed += tu_step()) {
		struct uni u;
		struct si_set c = { 0 }, p = { 0 };
		struct si_ext ext = { 0 };
		int nvars, types[MAXV];
		struct si_tuple *t;

		rs = seed * 104729u;
		max_constraints = 8;
		uni_make(&u);
		rnd_types(&nvars, types);
		if (nvars < 2)
			nvars = 2, types[1] = types[0];
		if (seed % 3 == 0) {
			/* x0 unequal to all others: Bell(nvars - 1) splits */
			for (int w = 0; w < nvars; w++)
				types[w] = types[0];
			t = si_tuple_new(u.sp, nvars, types);
			for (int w = 1; w < nvars; w++)
				ck_assert_int_eq(si_neq(t, 0, w), 0);
		} else {
			t = rnd_tuple(&u, nvars, types);
		}
		ck_assert_int_eq(si_canon(t, u.sp, &c), 0);
		for (size_t k = 0; k < c.v.n; k++) {
			const struct si_tuple *q = c.v.v[k];
			int v = seed % 3 == 0 ? 0 : (int)rnd((unsigned)nvars);
			int nq = nassign(&u, q);
			int val[MAXV + 1], pv[MAXV + 1];
			int *extcount;
			si_set_clear(&p);
			ext.n = 0;
			ck_assert_int_eq(si_project(q, u.sp, v, &p, &ext), 0);
			split += p.v.n > 1;
			/* extension counts of every projected assignment */
			extcount = calloc((size_t)nq, sizeof *extcount);
			for (int i = 0; i < nq; i++) {
				decode(&u, q, i, val);
				if (!satisfies(&u, q, val))
					continue;
				extcount[i] = 1;
			}
			for (size_t m = 0; m < p.v.n; m++) {
				const struct si_tuple *r = p.v.v[m];
				ck_assert_int_eq(r->nvars, nvars - 1);
				for (int i = 0; i < nassign(&u, r); i++) {
					int e = 0;
					decode(&u, r, i, pv);
					if (!satisfies(&u, r, pv))
						continue;
					/* extensions: values of v completing pv */
					for (int x = 0; x < u.nc[q->type[v]]; x++) {
						for (int w = 0, o = 0; w < nvars; w++)
							val[w] = w == v ? x : pv[o++];
						e += satisfies(&u, q, val);
					}
					ck_assert_msg(e == (int)ext.v[m], "seed %u: extension "
					    "count %d, said %g", seed, e, ext.v[m]);
				}
			}
			/* every projected solution of q is in exactly one piece */
			for (int i = 0; i < nq; i++) {
				int in = 0;
				decode(&u, q, i, val);
				if (!satisfies(&u, q, val))
					continue;
				for (int w = 0, o = 0; w < nvars; w++)
					if (w != v)
						pv[o++] = val[w];
				for (size_t m = 0; m < p.v.n; m++)
					in += satisfies(&u, p.v.v[m], pv);
				ck_assert_msg(in == 1, "seed %u: projected solution in %d "
				    "pieces", seed, in);
			}
			free(extcount);
		}
		si_set_free(&p);
		free(ext.v);
		si_set_free(&c);
		si_tuple_free(t);
		si_space_free(u.sp);
	}
	ck_assert_int_ge(split, tu_seeds(50));  /* the Bell splitting was exercised */
}
END_TEST

START_TEST(test_split_and_restrict)
{
	for (unsigned seed = 1; seed <= 2000; seed += tu_step()) {
		struct uni u;
		int nvars, types[MAXV], n, ty, b, k, nb, first = -1, v;
		struct si_tuple *t;
		char *before, *after;

		rs = seed * 31337u;
		uni_make(&u);
		rnd_types(&nvars, types);
		t = rnd_tuple(&u, nvars, types);
		n = nassign(&u, t);
		before = calloc((size_t)n, 1);
		after = calloc((size_t)n, 1);
		solutions(&u, t, before);
		/* split block b of type ty after its first k constants */
		ty = (int)rnd(2);
		b = (int)rnd((unsigned)u.sp->nblocks[ty]);
		k = (int)rnd((unsigned)u.sp->size[ty][b] + 1);
		nb = si_space_split(u.sp, ty, b, k);
		ck_assert_int_ge(nb, 0);
		ck_assert_int_eq(si_tuple_split(t, ty, b, nb), 0);
		for (int c = 0; c < u.nc[ty]; c++)
			if (u.blk[ty][c] == b) {
				if (first < 0)
					first = c;
				if (c - first >= k)
					u.blk[ty][c] = nb;
			}
		solutions(&u, t, after);
		ck_assert_msg(memcmp(before, after, (size_t)n) == 0,
		    "seed %u: a block split changed the solutions", seed);
		/* restriction of one variable to one block */
		v = (int)rnd((unsigned)nvars);
		b = (int)rnd((unsigned)u.sp->nblocks[t->type[v]]);
		si_in_block(t, v, b);
		solutions(&u, t, after);
		for (int i = 0; i < n; i++) {
			int val[MAXV + 1];
			decode(&u, t, i, val);
			ck_assert(after[i] == (before[i] &&
			    u.blk[t->type[v]][val[v]] == b));
		}
		si_tuple_free(t);
		si_space_free(u.sp);
		free(before);
		free(after);
	}
}
END_TEST

START_TEST(test_text_and_large_counts)
{
	struct si_space *sp = si_space_new(1);
	int types[3] = { 0, 0, 0 };
	struct si_tuple *t;
	char *s;

	si_space_add_block(sp, 0, 100000);
	si_space_add_block(sp, 0, 3);
	t = si_tuple_new(sp, 3, types);
	ck_assert_int_eq(si_neq(t, 0, 1), 0);
	ck_assert_int_eq(si_neq(t, 1, 2), 0);
	/* x0 != x1 != x2 over 100003 constants: n (n-1)^2 */
	ck_assert_double_eq(si_count(t, sp), 100003.0 * 100002.0 * 100002.0);
	si_in_block(t, 2, 1);
	s = si_tuple_text(t, sp);
	ck_assert_str_eq(s, "[x0 in {b0,b1} ^ x1 in {b0,b1} ^ x2 in {b1} ^ "
	    "x0 != x1 ^ x1 != x2]");
	free(s);
	si_tuple_free(t);
	si_space_free(sp);
}
END_TEST

/* Domains of many blocks (two words of bits), so that si_index lists
 * tuples by block and sets the wide ones apart, and si_set_count meets
 * repeats, tuples within others and wide tuples: every tuple sharing a
 * solution with q is found, in order, and union counts match brute
 * force.  Two variables, so brute force stays small. */
#define BIGC 200
static int big_blk[2][BIGC];

static struct si_tuple *
big_tuple(struct si_space *sp, const int *types)
{
	struct si_tuple *t = si_tuple_new(sp, 2, types);

	for (int v = 0; v < 2; v++) {
		int nb = sp->nblocks[types[v]], mode = (int)rnd(3);
		uint64_t bits[4] = { 0 };
		for (int k = 1 + (int)rnd(4); mode && k > 0; k--) {
			int b = (int)rnd((unsigned)nb);
			bits[b / 64] |= (uint64_t)1 << (b % 64);
		}
		if (mode == 1)
			si_in(t, v, bits);       /* a few blocks */
		else if (mode == 2)
			si_not_in(t, v, bits);   /* all but a few: wide */
	}
	if (types[0] == types[1] && rnd(3) == 0) {
		if (rnd(2))
			si_eq(t, 0, 1);
		else
			ck_assert_int_eq(si_neq(t, 0, 1), 0);
	}
	return t;
}

static int
big_sat(const struct si_tuple *t, int a, int b)
{
	int val[2] = { a, b };

	for (int v = 0; v < 2; v++)
		if (!si_has(t, v, big_blk[t->type[v]][val[v]]) ||
		    val[v] != val[t->rep[v]])
			return 0;
	return t->nneq == 0 || a != b;
}

START_TEST(test_index_many_blocks)
{
	int listed = 0, wide = 0;

	for (unsigned seed = 1; seed <= 300; seed += tu_step()) {
		struct si_space *sp = si_space_new(2);
		struct si_set s = { 0 };
		struct si_ids near = { 0 };
		struct si_index *ix;
		struct si_tuple *q;
		int nc[2] = { 0, 0 }, types[2], map[2] = { 0, 1 }, nt, brute = 0;

		rs = seed * 104729u;
		for (int t = 0; t < 2; t++)
			for (int b = 0, nb = 40 + (int)rnd(60); b < nb; b++) {
				int size = 1 + (int)rnd(2);
				ck_assert_int_eq(si_space_add_block(sp, t, size), b);
				while (size-- > 0)
					big_blk[t][nc[t]++] = b;
			}
		types[0] = 0;
		types[1] = (int)rnd(2);
		if (types[1] == 0 && rnd(2)) {
			map[0] = 1;
			map[1] = 0;
		}
		nt = 1 + (int)rnd(12);
		for (int k = 0; k < nt; k++) {
			struct si_tuple *t = k > 0 && rnd(4) == 0 ?
			    si_tuple_copy(s.v.v[rnd((unsigned)k)]) : big_tuple(sp, types);
			ck_assert_int_eq(VEC_PUSH(s.v, t), 0);
		}
		q = big_tuple(sp, types);
		ck_assert_ptr_nonnull(ix = si_index_new(&s, sp));
		ck_assert_int_eq(si_index_meets(ix, q, map, &near), 0);
		for (size_t k = 1; k < near.n; k++)
			ck_assert_int_lt(near.v[k - 1], near.v[k]);
		for (int j = 0; j < nt; j++) {
			int shares = 0, in = 0;
			for (int a = 0; a < nc[0] && !shares; a++)
				for (int b = 0; b < nc[types[1]] && !shares; b++) {
					int val[2] = { a, b };
					shares = big_sat(q, a, b) &&
					    big_sat(s.v.v[j], val[map[0]], val[map[1]]);
				}
			for (size_t k = 0; k < near.n; k++)
				in |= near.v[k] == j;
			ck_assert_msg(!shares || in, "seed %u: tuple %d meets q but "
			    "is not listed", seed, j);
			listed += in;
			wide += si_count(s.v.v[j], sp) > 1000;
		}
		for (int a = 0; a < nc[0]; a++)
			for (int b = 0; b < nc[types[1]]; b++) {
				int any = 0;
				for (int j = 0; j < nt && !any; j++)
					any = big_sat(s.v.v[j], a, b);
				brute += any;
			}
		ck_assert_msg(si_set_count(&s, sp) == brute, "seed %u: union count "
		    "%g vs %d", seed, si_set_count(&s, sp), brute);
		si_index_free(ix);
		si_tuple_free(q);
		free(near.v);
		si_set_free(&s);
		si_space_free(sp);
	}
	ck_assert_int_ge(listed, tu_seeds(300));
	ck_assert_int_ge(wide, tu_seeds(300));
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_canon_and_count,
		test_set_count_and_join,
		test_project,
		test_split_and_restrict,
		test_text_and_large_counts,
		test_index_many_blocks,
	};

	return tu_main("setineq", 0, tests, sizeof tests / sizeof *tests);
}
