/* check_util.c: struct idset and struct idmap answer as a plain sorted
 * array of the same ids does, dense or sparse, and whichever form they
 * switch to on the way; the set's hash table has a power-of-two number
 * of slots (its probe masks with slots - 1). */
#include "testutil.h"
#include "util/util.h"

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
ref_has(const int64_t *v, size_t n, int64_t id)
{
	size_t i = i64_lower(v, n, id);

	return i < n && v[i] == id;
}

/* Adds ids[0 .. n) to a set, checking every return against a sorted
 * reference, then asks about each id and its neighbours. */
static void
check_set(const int64_t *ids, size_t n)
{
	struct idset s = { 0 };
	int64_t *ref = calloc(n + 1, sizeof *ref);
	size_t m = 0;

	ck_assert_ptr_nonnull(ref);
	for (size_t i = 0; i < n; i++) {
		int had = ref_has(ref, m, ids[i]);
		ck_assert_int_eq(idset_add(&s, ids[i]), !had);
		if (!had) {
			ref[m++] = ids[i];
			qsort(ref, m, sizeof *ref, cmp_i64);
		}
		ck_assert_uint_eq(s.n, m);
		if (s.keys)
			ck_assert_uint_eq(s.slots & (s.slots - 1), 0);
	}
	for (size_t i = 0; i < n; i++)
		for (int64_t d = -1; d <= 1; d++)
			if (ids[i] + d >= 0)
				ck_assert_int_eq(idset_has(&s, ids[i] + d),
				    ref_has(ref, m, ids[i] + d));
	ck_assert_int_eq(idset_has(&s, -1), 0);
	idset_free(&s);
	free(ref);
}

START_TEST(test_idset)
{
	enum { N = 3000 };
	int64_t *v = calloc(N, sizeof *v);
	uint64_t x = 88172645463325252ULL;

	ck_assert_ptr_nonnull(v);
	/* dense, with repeats */
	for (size_t i = 0; i < N; i++)
		v[i] = (int64_t)(i % 1000);
	check_set(v, N);
	/* dense for n ids (n not a power of two over 4), then one far id
	 * turns it into a table, then many more far ids */
	for (size_t n = 3; n < 40; n += 6) {
		for (size_t i = 0; i < n; i++)
			v[i] = (int64_t)i;
		for (size_t i = n; i < N; i++)
			v[i] = 1000000000000LL + (int64_t)(i * 7919);
		check_set(v, N);
	}
	/* random ids near 2^40 and small ones, mixed */
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = i % 3 ? (int64_t)(x >> 24) : (int64_t)(x % 50);
	}
	check_set(v, N);
	free(v);
}
END_TEST

START_TEST(test_idmap)
{
	enum { N = 2000 };
	int64_t ids[N];
	int val[N];
	struct idmap m;

	for (int sparse = 0; sparse < 2; sparse++) {
		for (int i = 0; i < N; i++) {
			/* distinct ids, in no order */
			int k = (i * 761) % N;
			ids[i] = sparse ? -5 + (int64_t)k * 1000003 : 40 + k;
			val[i] = 3 * i + 1;
		}
		ck_assert_int_eq(idmap_init(&m, ids, val, N), 0);
		ck_assert_int_eq(m.ids != NULL, sparse);
		for (int i = 0; i < N; i++) {
			ck_assert_int_eq(idmap_get(&m, ids[i]), val[i]);
			ck_assert_int_eq(idmap_get(&m, ids[i] + (sparse ? 1 :
			    N)), -1);
		}
		ck_assert_int_eq(idmap_get(&m, INT64_MIN), -1);
		ck_assert_int_eq(idmap_get(&m, INT64_MAX), -1);
		idmap_free(&m);
	}
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = { test_idset, test_idmap };

	return tu_main("util", 0, tests, sizeof tests / sizeof *tests);
}
