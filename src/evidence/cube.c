/* cube.c: the greedy top-down hypercube builder.  A cube is a product of
 * sets of constants, one per argument.  Starting from the bounding box of
 * a predicate's true (or false) atoms, a cube that is not full is split
 * in two along one argument: preferably into the values whose slice is
 * complete (a cube at once) and the rest, otherwise into the values with
 * the most and the fewest atoms; each half shrinks to its bounding box.
 * Counts and bounding boxes are SQL queries on the evidence tables, or,
 * up to a limit of atoms, counted in memory by the same rules
 * (cube-mem.c); the unknown atoms are the complement (cube-unknown.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/coarse.h"
#include "evidence/cube-int.h"

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

static void
known_clear(struct sigs *g)
{
	g->known.ids.n = g->known.at.n = g->known.n = 0;
	g->known.cons.n = g->known.cat.n = 0;
}

/* 0 when every constant of the sides is in its argument's domain and
 * is a constant (has a rank). */
static int
side_check(struct store *s, const struct sigs *g, int pi,
    const struct store_ids *side)
{
	const struct store_pred *p = store_pred_at(s, pi);

	for (int i = 0; i < p->arity; i++) {
		int t = store_type_at(s, p->types[i]);
		/* a domain row may name no constant: no rank then, and the
		 * unknown cubes index their marks by rank */
		for (size_t k = 0; k < side[i].n; k++)
			if (!store_in_domain(s, t, side[i].v[k]) ||
			    idmap_get(&g->rank, side[i].v[k]) < 0)
				return -1;
	}
	return 0;
}

/* Stores a known cube with its constraints (cons may be NULL) and
 * appends it to the known cubes, for the complement. */
int
cube_emit(struct store *s, struct sigs *g, int pi, int truth, int64_t atoms,
    const struct store_ids *side, const struct store_cons *cons,
    struct err *e)
{
	int rc;

	if ((rc = store_cube_put(s, pi, truth, atoms, side, 0, cons, e)))
		return rc;
	if (side_check(s, g, pi, side) < 0)
		return err_set(e, SQLIFT_EDB, "%s: corrupt database: evidence "
		    "of %s holds a constant id not in its domain", store_path(s),
		    store_pred_at(s, pi)->name);
	return cube_known_add(&g->known, g->arity, side, cons) < 0 ?
	    err_oom(e) : 0;
}

int
cube_byc_desc(const void *x, const void *y)
{
	const struct byc *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->val > b->val) - (a->val < b->val);
}

/* Heapsort: n log n at worst and no allocation (qsort may malloc). */
void
cube_byc_sort(struct byc *v, size_t n,
    int (*cmp)(const void *, const void *))
{
	for (size_t end = n, start = n / 2; end > 1; ) {
		size_t r;
		struct byc t;
		if (start > 0) {
			r = --start;         /* building the heap */
		} else {
			t = v[0];            /* moving the largest to the end */
			v[0] = v[--end];
			v[end] = t;
			r = 0;
		}
		for (size_t c; (c = 2 * r + 1) < end; r = c) {
			if (c + 1 < end && cmp(&v[c], &v[c + 1]) < 0)
				c++;
			if (cmp(&v[r], &v[c]) >= 0)
				break;
			t = v[r];
			v[r] = v[c];
			v[c] = t;
		}
	}
}

/* The split rule of both builders.  cnt[i] holds the atom count of each
 * value of argument i (cnt[i].n is the side's length).  The argument whose
 * complete slices (values with a full slice of atoms) hold the most
 * atoms is chosen, if some argument has such values but not only such;
 * otherwise the longest side.  *complete tells which. */
int
cube_pick_dim(int arity, const struct store_ids *cnt, double full,
    int *complete)
{
	double best_score = 0;
	int best = -1;

	for (int i = 0; i < arity; i++) {
		double slice = full / (double)cnt[i].n;
		size_t k, c = 0;
		if (cnt[i].n < 2)
			continue;
		for (k = 0; k < cnt[i].n; k++)
			c += (double)cnt[i].v[k] == slice;
		if (c > 0 && c < cnt[i].n && (double)c * slice > best_score) {
			best_score = (double)c * slice;
			best = i;
		}
	}
	*complete = best >= 0;
	if (best < 0)
		for (int i = 0; i < arity; i++)
			if (cnt[i].n >= 2 && (best < 0 || cnt[i].n > cnt[best].n))
				best = i;
	return best;
}

/* Orders the values of the chosen side by atoms, most first, and marks
 * those that go left: the complete slices, or the first half. */
void
cube_pick_left(struct byc *bv, size_t nv, int complete, double slice,
    unsigned char *left)
{
	qsort(bv, nv, sizeof *bv, cube_byc_desc);
	for (size_t k = 0; k < nv; k++)
		left[k] = complete ? (double)bv[k].count == slice : k < nv / 2;
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

/* Cubes of one predicate's atoms of one truth value, through SQL while
 * they are many; the store's cube statements must be open on pi and
 * truth. */
static int
build_one(struct store *s, struct sigs *g, int pi, int truth,
    int64_t *ncubes, int64_t *natoms, struct err *e)
{
	int arity = store_pred_at(s, pi)->arity;
	struct node_stack stack = { 0 };
	struct store_ids vals[64], counts[64];
	struct byc *bv = NULL;
	unsigned char *left = NULL;
	struct node *n = NULL;
	int rc;

	memset(vals, 0, sizeof vals);
	memset(counts, 0, sizeof counts);
	*ncubes = *natoms = 0;
	{
		/* small enough to split in memory from the start */
		int64_t all;
		if ((rc = store_cube_count_all(s, &all, e)))
			goto done;
		*natoms = all;
		if (all == 0)
			goto done;  /* no atoms of this truth */
		if (all <= g->in_memory) {
			struct store_ids rows = { 0 };
			if (!(rc = store_cube_rows_all(s, &rows, e)) && arity > 0)
				rc = cover_run(s, g, pi, truth, rows.v,
				    rows.n / (size_t)arity, ncubes, e);
			free(rows.v);
			goto done;
		}
		*natoms = 0;
	}
	if (!(n = xcalloc(1, sizeof *n))) {
		rc = err_oom(e);
		goto done;
	}
	for (int i = 0; i < arity; i++)
		if ((rc = store_cube_distinct(s, i, 1, &n->side[i], e)))
			goto done;
	if (VEC_PUSH(stack, n) < 0) {
		rc = err_oom(e);
		goto done;
	}
	n = NULL;
	while (stack.n > 0) {
		double full = 1;
		int64_t count;
		int empty = 0;

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
		if (count <= g->in_memory && (double)count != full) {
			if ((rc = cube_mem_build(s, g, pi, truth, ncubes, e)))
				goto done;
			*natoms += count;
			node_free(n, arity);
			n = NULL;
			continue;
		}
		if ((double)count == full) {
			if ((rc = cube_emit(s, g, pi, truth, count, n->side, NULL, e)))
				goto done;
			++*ncubes;
			*natoms += count;
			node_free(n, arity);
			n = NULL;
			continue;
		}
		/* atom counts per value of every argument, then the rule */
		for (int i = 0; i < arity; i++) {
			if (n->side[i].n < 2) {
				vals[i].n = 0;
				counts[i].n = n->side[i].n;  /* a length, never read */
				continue;
			}
			if ((rc = store_cube_groups(s, i, &vals[i], &counts[i], e)))
				goto done;
		}
		{
			int complete, dim = cube_pick_dim(arity, counts, full, &complete);
			size_t nv = vals[dim].n;
			free(bv);
			free(left);
			bv = xcalloc(nv + 1, sizeof *bv);
			left = xcalloc(nv + 1, 1);
			if (!bv || !left) {
				rc = err_oom(e);
				goto done;
			}
			for (size_t k = 0; k < nv; k++)
				bv[k] = (struct byc){ vals[dim].v[k], counts[dim].v[k] };
			cube_pick_left(bv, nv, complete, full / (double)nv, left);
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
	for (int i = 0; i < arity; i++) {
		free(vals[i].v);
		free(counts[i].v);
	}
	free(bv);
	free(left);
	return rc;
}

/* The atoms of one predicate, by truth. */
struct pred_rows {
	int arity;
	struct store_ids r[2]; /* arity ids per atom */
	int64_t n[2];
	struct err *e;
};

static int
pred_row(void *ctx, const int64_t *args, int truth)
{
	struct pred_rows *x = ctx;
	struct store_ids *r = &x->r[truth != 0];

	if (vec_grow_((void **)&r->v, &r->cap, r->n + (size_t)x->arity,
	    sizeof *r->v) < 0)
		return err_oom(x->e);
	if (x->arity > 0)
		memcpy(r->v + r->n, args, (size_t)x->arity * sizeof *args);
	r->n += (size_t)x->arity;
	x->n[truth != 0]++;
	return 0;
}

/* Opens the store's cube statements on predicate pi and truth, closing
 * those open before. */
static int
cube_open(struct store *s, struct sigs *g, int pi, int truth, struct err *e)
{
	if (g->open)
		store_cube_close(s);
	g->open = 1;               /* even half prepared, they need closing */
	return store_cube_open(s, pi, truth, e);
}

/* The true cubes, the false ones, then the unknown ones of predicate pi.
 * When all its atoms fit in memory they are read in one scan (in the
 * order a scan per truth value gives) and only inserts are needed, which
 * the cube statements of any predicate do; otherwise the statements are
 * opened on pi, once per truth value. */
static int
build_pred(struct store *s, struct sigs *g, int pi, int64_t *cubes,
    int64_t *atoms, int64_t *unknown, struct err *e)
{
	struct pred_rows x = { 0 };
	int64_t total;
	int rc;

	x.arity = store_pred_at(s, pi)->arity;
	x.e = e;
	cubes[0] = cubes[1] = atoms[0] = atoms[1] = 0;
	if ((rc = store_pred_count(s, pi, &total, e)))
		return rc;
	if (total <= g->in_memory) {
		if ((!g->open && (rc = cube_open(s, g, pi, 1, e))) ||
		    (rc = store_atoms_each(s, pi, pred_row, &x, e)))
			goto done;
		for (int t = 1; t >= 0 && !rc; t--) {
			atoms[t] = x.n[t];
			rc = cover_run(s, g, pi, t, x.r[t].v, (size_t)x.n[t], &cubes[t],
			    e);
		}
	} else if (!(rc = cube_open(s, g, pi, 1, e)) &&
	    !(rc = build_one(s, g, pi, 1, &cubes[1], &atoms[1], e)) &&
	    !(rc = cube_open(s, g, pi, 0, e))) {
		rc = build_one(s, g, pi, 0, &cubes[0], &atoms[0], e);
	}
	if (!rc)
		rc = cube_complement(s, g, pi, unknown, e);
done:
	free(x.r[0].v);
	free(x.r[1].v);
	return rc;
}

int
cube_build_all(struct store *s, FILE *report, struct err *e)
{
	struct sigs g = { 0 };
	int rc;

	g.ntypes = store_ntypes(s);
	g.dom_n = xcalloc((size_t)g.ntypes + 1, sizeof *g.dom_n);
	if (!g.dom_n) {
		rc = err_oom(e);
		goto done;
	}
	for (int t = 0; t < g.ntypes; t++)
		g.dom_n[t] = -1;
	g.in_memory = cube_mem_limit();
	/* the blocks first: the cover is by blocks; the names order it */
	if ((rc = store_consts_load(s, e)) || (rc = store_cubes_clear(s, e)) ||
	    (rc = coarse_blocks(s, NULL, &g.tb, e)) ||
	    (rc = store_const_ranks(s, &g.rank, &g.nconst, e)))
		goto done;
	if (!(g.bm = xcalloc((size_t)g.ntypes + 1, sizeof *g.bm))) {
		rc = err_oom(e);
		goto done;
	}
	for (int p = 0; p < store_npreds(s); p++) {
		int64_t cubes[2], atoms[2], unknown = 0;
		known_clear(&g);
		g.arity = store_pred_at(s, p)->arity;
		if (g.arity > 64) {
			rc = err_set(e, SQLIFT_ELIMIT, "more than 64 arguments");
			goto done;
		}
		if ((rc = build_pred(s, &g, p, cubes, atoms, &unknown, e)))
			goto done;
		if (report) {
			int64_t a = atoms[0] + atoms[1], c = cubes[0] + cubes[1];
			fprintf(report, "%-24s %9lld true in %6lld cubes, %9lld false in "
			    "%6lld cubes: %.1f atoms per cube; unknown in %lld cubes\n",
			    store_pred_at(s, p)->name, (long long)atoms[1],
			    (long long)cubes[1], (long long)atoms[0],
			    (long long)cubes[0], c ? (double)a / (double)c : 0.0,
			    (long long)unknown);
		}
	}
	if (g.open)
		store_cube_close(s);
	g.open = 0;
	/* the types' lines after the predicates' */
	for (int t = 0; t < g.ntypes; t++)
		store_blocks_report(s, t, g.tb[t].n, g.tb[t].nblocks, report);
	if (!(rc = store_cube_view(s, e)))
		rc = store_cubes_stamp(s, e);
done:
	if (g.open)
		store_cube_close(s);
	for (int t = 0; g.bm && t < g.ntypes; t++) {
		free(g.bm[t].ids);
		free(g.bm[t].at);
	}
	free(g.bm);
	coarse_free(g.tb, g.ntypes);
	idmap_free(&g.rank);
	known_free(&g.known);
	free(g.dom_n);
	return rc;
}
