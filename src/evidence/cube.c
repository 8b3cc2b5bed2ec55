/* cube.c: the greedy top-down hypercube builder.  A cube is a product of
 * sets of constants, one per argument.  Starting from the bounding box of
 * a predicate's true (or false) atoms, a cube that is not full is split
 * in two along one argument: preferably into the values whose slice is
 * complete (a cube at once) and the rest, otherwise into the values with
 * the most and the fewest atoms; each half shrinks to its bounding box.
 * Counts and bounding boxes are SQL queries on the evidence tables. */
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube.h"

struct node {
	struct store_ids side[64];
};

struct node_stack {
	struct node **v;
	size_t n, cap;
};

static void
node_free(struct node *n, int arity)
{
	if (!n)
		return;
	for (int i = 0; i < arity; i++)
		free(n->side[i].v);
	free(n);
}

static struct node *
node_copy(const struct node *n, int arity)
{
	struct node *c = xcalloc(1, sizeof *c);

	if (!c)
		return NULL;
	for (int i = 0; i < arity; i++)
		for (size_t k = 0; k < n->side[i].n; k++)
			if (VEC_PUSH(c->side[i], n->side[i].v[k]) < 0) {
				node_free(c, arity);
				return NULL;
			}
	return c;
}

struct byc {
	int64_t val, count;
};

static int
byc_desc(const void *x, const void *y)
{
	const struct byc *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->val > b->val) - (a->val < b->val);
}

/* Splits n along dim: values with chosen[k] set go left.  Pushes both. */
static int
split_push(struct node_stack *stack, const struct node *n, int arity,
    int dim, const struct byc *vals, size_t nv, const unsigned char *left)
{
	struct node *a = node_copy(n, arity), *b = node_copy(n, arity);

	if (!a || !b) {
		node_free(a, arity);
		node_free(b, arity);
		return -1;
	}
	a->side[dim].n = b->side[dim].n = 0;
	for (size_t k = 0; k < nv; k++) {
		struct store_ids *dst = left[k] ? &a->side[dim] : &b->side[dim];
		if (VEC_PUSH(*dst, vals[k].val) < 0) {
			node_free(a, arity);
			node_free(b, arity);
			return -1;
		}
	}
	if (VEC_PUSH(*stack, a) < 0) {
		node_free(a, arity);
		node_free(b, arity);
		return -1;
	}
	if (VEC_PUSH(*stack, b) < 0) {
		node_free(b, arity);
		return -1;
	}
	return 0;
}

/* Below this many atoms a cube's atoms are read once and split in
 * memory by the same rules, instead of a few queries per step. */
#define CUBE_IN_MEMORY 200000

struct mem {
	const int64_t *rows;   /* arity ids per atom */
	int arity;
	int dim;               /* for the sort comparator */
};

static int
row_cmp(const void *x, const void *y, void *arg)
{
	const struct mem *m = arg;
	int64_t a = m->rows[*(const size_t *)x * m->arity + m->dim];
	int64_t b = m->rows[*(const size_t *)y * m->arity + m->dim];

	return (a > b) - (a < b);
}

static int
id_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Cubes of the atoms idx[0..n) (indices into m->rows), exactly covering
 * them.  Uses and reorders idx.  One sort per argument gives both the
 * side (the distinct values) and the atom count of each value. */
static int
mem_split(struct store *s, int pi, int truth, struct mem *m, size_t *idx,
    size_t n, int64_t *ncubes, struct err *e)
{
	struct store_ids side[64], cnt[64];
	struct byc *bv = NULL;
	int64_t *lset = NULL;
	double full = 1, best_score = 0;
	int best = -1, dim, rc = 0;
	size_t nl = 0, nv, nleft = 0;

	memset(side, 0, sizeof side);
	memset(cnt, 0, sizeof cnt);
	for (int i = 0; i < m->arity; i++) {
		m->dim = i;
		qsort_r(idx, n, sizeof *idx, row_cmp, m);
		for (size_t k = 0; k < n; k++) {
			int64_t v = m->rows[idx[k] * m->arity + i];
			if (k == 0 || v != side[i].v[side[i].n - 1]) {
				if (VEC_PUSH(side[i], v) < 0 || VEC_PUSH(cnt[i], 0) < 0) {
					rc = err_oom(e);
					goto done;
				}
			}
			cnt[i].v[cnt[i].n - 1]++;
		}
		full *= (double)side[i].n;
	}
	if ((double)n == full) {
		rc = store_cube_put(s, pi, truth, (int64_t)n, side, e);
		++*ncubes;
		goto done;
	}
	/* prefer splitting off the complete slices, scored by their atoms */
	for (int i = 0; i < m->arity; i++) {
		double slice = full / (double)side[i].n;
		size_t complete = 0;
		if (side[i].n < 2)
			continue;
		for (size_t k = 0; k < cnt[i].n; k++)
			complete += (double)cnt[i].v[k] == slice;
		if (complete > 0 && complete < side[i].n &&
		    (double)complete * slice > best_score) {
			best_score = (double)complete * slice;
			best = i;
		}
	}
	dim = best;
	if (dim < 0)
		for (int i = 0; i < m->arity; i++)
			if (side[i].n >= 2 && (dim < 0 || side[i].n > side[dim].n))
				dim = i;
	/* the values of dim with their counts, most atoms first */
	nv = side[dim].n;
	if (!(bv = xcalloc(nv + 1, sizeof *bv)) ||
	    !(lset = xcalloc(nv + 1, sizeof *lset))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t k = 0; k < nv; k++)
		bv[k] = (struct byc){ side[dim].v[k], cnt[dim].v[k] };
	qsort(bv, nv, sizeof *bv, byc_desc);
	for (size_t k = 0; k < nv; k++)
		if (best >= 0 ? (double)bv[k].count == full / (double)nv :
		    k < nv / 2)
			lset[nl++] = bv[k].val;
	qsort(lset, nl, sizeof *lset, id_cmp);
	/* left atoms first, then the right ones */
	for (size_t k = 0; k < n; k++) {
		int64_t v = m->rows[idx[k] * m->arity + dim];
		if (bsearch(&v, lset, nl, sizeof *lset, id_cmp)) {
			size_t t = idx[nleft];
			idx[nleft++] = idx[k];
			idx[k] = t;
		}
	}
	free(bv);
	free(lset);
	bv = NULL;
	lset = NULL;
	for (int i = 0; i < m->arity; i++) {
		free(side[i].v);
		free(cnt[i].v);
	}
	memset(side, 0, sizeof side);
	memset(cnt, 0, sizeof cnt);
	if ((rc = mem_split(s, pi, truth, m, idx, nleft, ncubes, e)))
		goto done;
	rc = mem_split(s, pi, truth, m, idx + nleft, n - nleft, ncubes, e);
done:
	for (int i = 0; i < m->arity; i++) {
		free(side[i].v);
		free(cnt[i].v);
	}
	free(bv);
	free(lset);
	return rc;
}

/* Reads the atoms inside the current cube (or all of them) and splits
 * them in memory. */
static int
mem_build(struct store *s, int pi, int truth, int all, int64_t *ncubes,
    struct err *e)
{
	struct store_ids rows = { 0 };
	struct mem m = { NULL, store_pred_at(s, pi)->arity, 0 };
	size_t n, *idx = NULL;
	int rc;

	if ((rc = all ? store_cube_rows_all(s, &rows, e) :
	    store_cube_rows(s, &rows, e)))
		goto done;
	n = m.arity ? rows.n / (size_t)m.arity : 0;
	if (!(idx = xcalloc(n + 1, sizeof *idx))) {
		rc = err_oom(e);
		goto done;
	}
	for (size_t k = 0; k < n; k++)
		idx[k] = k;
	m.rows = rows.v;
	if (n > 0)
		rc = mem_split(s, pi, truth, &m, idx, n, ncubes, e);
done:
	free(idx);
	free(rows.v);
	return rc;
}

/* Cubes of one predicate's atoms of one truth value. */
static int
build_one(struct store *s, int pi, int truth, int64_t *ncubes,
    int64_t *natoms, struct err *e)
{
	int arity = store_pred_at(s, pi)->arity;
	struct node_stack stack = { 0 };
	struct store_ids vals = { 0 }, counts = { 0 };
	struct byc *bv = NULL;
	unsigned char *left = NULL;
	struct node *n = NULL;
	int rc;

	*ncubes = *natoms = 0;
	if ((rc = store_cube_open(s, pi, truth, e)))
		goto done;
	if (!(n = xcalloc(1, sizeof *n))) {
		rc = err_oom(e);
		goto done;
	}
	for (int i = 0; i < arity; i++)
		if ((rc = store_cube_distinct(s, i, 1, &n->side[i], e)))
			goto done;
	if (arity > 0 && n->side[0].n == 0)
		goto done;  /* no atoms of this truth */
	{
		/* small enough to split in memory from the start */
		int64_t all;
		if ((rc = store_cube_count_all(s, &all, e)))
			goto done;
		if (all <= CUBE_IN_MEMORY) {
			rc = mem_build(s, pi, truth, 1, ncubes, e);
			*natoms = all;
			goto done;
		}
	}
	if (VEC_PUSH(stack, n) < 0) {
		rc = err_oom(e);
		goto done;
	}
	n = NULL;
	while (stack.n > 0) {
		double full = 1, best_score = 0;
		int64_t count;
		int best = -1, empty = 0;

		n = stack.v[--stack.n];
		/* shrink to the bounding box of the atoms inside */
		if ((rc = store_cube_sides(s, n->side, e)))
			goto done;
		for (int i = 0; i < arity; i++) {
			struct store_ids tmp = { 0 };
			if ((rc = store_cube_distinct(s, i, 0, &tmp, e))) {
				free(tmp.v);
				goto done;
			}
			free(n->side[i].v);
			n->side[i] = tmp;
			empty |= tmp.n == 0;
			full *= (double)tmp.n;
		}
		if (empty) {
			node_free(n, arity);
			n = NULL;
			continue;
		}
		if ((rc = store_cube_sides(s, n->side, e)) ||
		    (rc = store_cube_count(s, &count, e)))
			goto done;
		if (count <= CUBE_IN_MEMORY && (double)count != full) {
			if ((rc = mem_build(s, pi, truth, 0, ncubes, e)))
				goto done;
			*natoms += count;
			node_free(n, arity);
			n = NULL;
			continue;
		}
		if ((double)count == full) {
			if ((rc = store_cube_put(s, pi, truth, count, n->side, e)))
				goto done;
			++*ncubes;
			*natoms += count;
			node_free(n, arity);
			n = NULL;
			continue;
		}
		/* prefer a split off the complete slices, scored by atoms */
		for (int i = 0; i < arity; i++) {
			double slice = full / (double)n->side[i].n;
			size_t complete = 0;
			if (n->side[i].n < 2)
				continue;
			if ((rc = store_cube_groups(s, i, &vals, &counts, e)))
				goto done;
			for (size_t k = 0; k < vals.n; k++)
				complete += (double)counts.v[k] == slice;
			if (complete > 0 && complete < vals.n &&
			    (double)complete * slice > best_score) {
				best_score = (double)complete * slice;
				best = i;
			}
		}
		{
			int dim = best;
			size_t nv;
			if (dim < 0)  /* no complete slice: the longest side */
				for (int i = 0; i < arity; i++)
					if (n->side[i].n >= 2 &&
					    (dim < 0 || n->side[i].n > n->side[dim].n))
						dim = i;
			if ((rc = store_cube_groups(s, dim, &vals, &counts, e)))
				goto done;
			nv = vals.n;
			free(bv);
			free(left);
			bv = xcalloc(nv + 1, sizeof *bv);
			left = xcalloc(nv + 1, 1);
			if (!bv || !left) {
				rc = err_oom(e);
				goto done;
			}
			for (size_t k = 0; k < nv; k++) {
				bv[k].val = vals.v[k];
				bv[k].count = counts.v[k];
			}
			qsort(bv, nv, sizeof *bv, byc_desc);
			for (size_t k = 0; k < nv; k++)
				left[k] = best >= 0 ?
				    (double)bv[k].count == full / (double)n->side[dim].n :
				    k < nv / 2;
			if (split_push(&stack, n, arity, dim, bv, nv, left) < 0) {
				rc = err_oom(e);
				goto done;
			}
		}
		node_free(n, arity);
		n = NULL;
	}
	rc = 0;
done:
	node_free(n, arity);
	for (size_t i = 0; i < stack.n; i++)
		node_free(stack.v[i], arity);
	free(stack.v);
	free(vals.v);
	free(counts.v);
	free(bv);
	free(left);
	store_cube_close(s);
	return rc;
}

int
cube_build_all(struct store *s, FILE *report, struct err *e)
{
	int rc;

	if ((rc = store_cubes_clear(s, e)))
		return rc;
	for (int p = 0; p < store_npreds(s); p++) {
		int64_t cubes[2], atoms[2];
		for (int t = 1; t >= 0; t--)
			if ((rc = build_one(s, p, t, &cubes[t], &atoms[t], e)))
				return rc;
		if (report) {
			int64_t a = atoms[0] + atoms[1], c = cubes[0] + cubes[1];
			fprintf(report, "%-24s %9lld true in %6lld cubes, %9lld false in "
			    "%6lld cubes: %.1f atoms per cube\n",
			    store_pred_at(s, p)->name, (long long)atoms[1],
			    (long long)cubes[1], (long long)atoms[0],
			    (long long)cubes[0], c ? (double)a / (double)c : 0.0);
		}
	}
	if ((rc = store_blocks_build(s, report, e)))
		return rc;
	return store_cube_view(s, e);
}
