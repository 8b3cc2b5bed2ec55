/* cube-mem.c: the in-memory splitter: up to a limit of atoms, a
 * cube's atoms are read once and split by the same rules as the SQL
 * splitter of cube.c, counting in memory instead of a few queries per
 * step. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube-int.h"

/* Up to this many atoms a cube's atoms are read once and split in
 * memory by the same rules, instead of a few queries per step. */
static long mem_limit = 200000;

void
cube_set_memory_limit(long atoms)
{
	mem_limit = atoms;
}

long
cube_mem_limit(void)
{
	return mem_limit;
}

static void
byc_swap(struct byc *v, size_t i, size_t j)
{
	struct byc t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* Puts the element of rank r in cube_byc_desc order at v[r], those before it
 * in v[0..r) (quickselect with a median of three; a heapsort once the
 * partitions go badly). */
static void
byc_select(struct byc *v, size_t n, size_t r)
{
	size_t lo = 0, hi = n;
	int budget = 16;

	for (size_t m = n; m > 1; m /= 2)
		budget += 2;
	while (hi - lo > 2) {
		size_t mid = lo + (hi - lo) / 2, st = lo;
		if (budget-- == 0) {
			cube_byc_sort(v + lo, hi - lo, cube_byc_desc);
			return;
		}
		/* order v[lo], v[mid], v[hi - 1]; the median is the pivot */
		if (cube_byc_desc(&v[mid], &v[lo]) < 0)
			byc_swap(v, mid, lo);
		if (cube_byc_desc(&v[hi - 1], &v[mid]) < 0) {
			byc_swap(v, hi - 1, mid);
			if (cube_byc_desc(&v[mid], &v[lo]) < 0)
				byc_swap(v, mid, lo);
		}
		byc_swap(v, mid, hi - 1);
		for (size_t i = lo; i < hi - 1; i++)
			if (cube_byc_desc(&v[i], &v[hi - 1]) < 0)
				byc_swap(v, i, st++);
		byc_swap(v, st, hi - 1);
		if (st == r)
			return;
		if (r < st)
			hi = st;
		else
			lo = st + 1;
	}
	if (hi - lo == 2 && cube_byc_desc(&v[lo + 1], &v[lo]) < 0)
		byc_swap(v, lo, lo + 1);
}

/* The in-memory splitter's state: the atoms, their values numbered per
 * argument, and scratch that every step reuses (a step is done with it
 * before it recurses). */
struct mem {
	const int64_t *rows;   /* arity ids per atom */
	size_t nrows;
	int arity;
	size_t *num;           /* [dim * nrows + atom]: its value's number */
	int64_t *val[64];      /* [dim][number]: the value */
	size_t *pos[64];       /* [dim][number]: index in side[dim] of the
	                        * current step, SIZE_MAX when not in it */
	struct store_ids side[64], cnt[64];  /* values and their atoms */
	VEC(size_t) sidenum[64];             /* their numbers */
	struct byc *bv;        /* per value of the split argument: vcap */
	unsigned char *left;
	size_t vcap;
};

static void
mem_free(struct mem *m)
{
	for (int i = 0; i < 64; i++) {
		free(m->side[i].v);
		free(m->cnt[i].v);
		free(m->sidenum[i].v);
	}
	free(m->num);
	free(m->val[0]);
	free(m->pos[0]);
	free(m->bv);
	free(m->left);
}

/* Numbers the distinct values of every argument among all the atoms, by
 * hashing, so that steps count values by indexing. */
static int
mem_number(struct mem *m)
{
	size_t n = m->nrows, cap = 16, mask, *slot;
	int64_t *val;

	while (cap < 2 * n)
		cap *= 2;
	mask = cap - 1;
	slot = xmalloc(cap * sizeof *slot);
	val = xmalloc((size_t)m->arity * n * sizeof *val);
	m->pos[0] = xmalloc((size_t)m->arity * n * sizeof *m->pos[0]);
	m->num = xmalloc((size_t)m->arity * n * sizeof *m->num);
	m->val[0] = val;
	if (!slot || !val || !m->pos[0] || !m->num) {
		free(slot);
		return -1;
	}
	memset(m->pos[0], 0xff, (size_t)m->arity * n * sizeof *m->pos[0]);
	for (int d = 0; d < m->arity; d++) {
		size_t *num = m->num + (size_t)d * n, nv = 0;
		m->val[d] = val;
		m->pos[d] = m->pos[0] + (size_t)d * n;
		memset(slot, 0xff, cap * sizeof *slot);
		for (size_t k = 0; k < n; k++) {
			int64_t v = m->rows[k * (size_t)m->arity + (size_t)d];
			size_t h = hash_id(v, mask);
			while (slot[h] != SIZE_MAX && val[slot[h]] != v)
				h = (h + 1) & mask;
			if (slot[h] == SIZE_MAX) {
				slot[h] = nv;
				val[nv++] = v;
			}
			num[k] = slot[h];
		}
		val += nv;
	}
	free(slot);
	return 0;
}

/* The distinct values of argument dim among atoms idx[0..n), in order of
 * first appearance, and the atoms of each: linear time.  Leaves pos[dim]
 * set for them (mem_unmark() clears it). */
static int
count_dim(struct mem *m, const size_t *idx, size_t n, int dim)
{
	struct store_ids *side = &m->side[dim], *cnt = &m->cnt[dim];
	const size_t *num = m->num + (size_t)dim * m->nrows;
	const int64_t *val = m->val[dim];
	size_t *pos = m->pos[dim], *sn;

	if (vec_grow_((void **)&side->v, &side->cap, n, sizeof *side->v) < 0 ||
	    vec_grow_((void **)&cnt->v, &cnt->cap, n, sizeof *cnt->v) < 0 ||
	    vec_grow_((void **)&m->sidenum[dim].v, &m->sidenum[dim].cap, n,
	    sizeof *m->sidenum[dim].v) < 0)
		return -1;
	sn = m->sidenum[dim].v;
	side->n = 0;
	for (size_t k = 0; k < n; k++) {
		size_t u = num[idx[k]], j = pos[u];
		if (j == SIZE_MAX) {
			j = pos[u] = side->n++;
			sn[j] = u;
			side->v[j] = val[u];
			cnt->v[j] = 0;
		}
		cnt->v[j]++;
	}
	cnt->n = m->sidenum[dim].n = side->n;
	return 0;
}

/* Clears pos[] of the values counted for arguments [0, arity). */
static void
mem_unmark(struct mem *m, int arity)
{
	for (int d = 0; d < arity; d++)
		for (size_t j = 0; j < m->sidenum[d].n; j++)
			m->pos[d][m->sidenum[d].v[j]] = SIZE_MAX;
}

/* Cubes of the atoms idx[0..n) (indices into m->rows), exactly covering
 * them.  Uses and reorders idx.  The left values are those cube_pick_left()
 * marks, found without sorting: the complete slices, or the nv / 2 first
 * in cube_byc_desc order (a total order), whatever order they come in. */
static int
mem_split(struct store *s, struct sigs *g, int pi, int truth, struct mem *m,
    size_t *idx, size_t n, int64_t *ncubes, struct err *e)
{
	const struct store_ids *side, *cnt;
	const size_t *num, *pos;
	double full = 1, slice;
	int complete, dim, rc;
	size_t nv, nleft = 0;

	for (int i = 0; i < m->arity; i++) {
		if (count_dim(m, idx, n, i) < 0)
			return err_oom(e);
		full *= (double)m->side[i].n;
	}
	if ((double)n == full) {
		mem_unmark(m, m->arity);
		++*ncubes;
		return cube_emit(s, g, pi, truth, (int64_t)n, m->side, e);
	}
	dim = cube_pick_dim(m->arity, m->cnt, full, &complete);
	side = &m->side[dim];
	cnt = &m->cnt[dim];
	nv = side->n;
	slice = full / (double)nv;
	if (nv > m->vcap) {
		size_t cap = nv * 2;
		struct byc *bv = xrealloc(m->bv, cap * sizeof *bv);
		unsigned char *left = bv ? xrealloc(m->left, cap) : NULL;
		if (bv)
			m->bv = bv;
		if (!bv || !left)
			return err_oom(e);
		m->left = left;
		m->vcap = cap;
	}
	if (complete) {
		for (size_t k = 0; k < nv; k++)
			m->left[k] = (double)cnt->v[k] == slice;
	} else {
		struct byc pivot;
		for (size_t k = 0; k < nv; k++)
			m->bv[k] = (struct byc){ side->v[k], cnt->v[k] };
		byc_select(m->bv, nv, nv / 2 - 1);
		pivot = m->bv[nv / 2 - 1];
		for (size_t k = 0; k < nv; k++) {
			struct byc x = { side->v[k], cnt->v[k] };
			m->left[k] = cube_byc_desc(&x, &pivot) <= 0;
		}
	}
	/* left atoms first, then the right ones */
	num = m->num + (size_t)dim * m->nrows;
	pos = m->pos[dim];
	for (size_t k = 0; k < n; k++)
		if (m->left[pos[num[idx[k]]]]) {
			size_t t = idx[nleft];
			idx[nleft++] = idx[k];
			idx[k] = t;
		}
	mem_unmark(m, m->arity);
	if ((rc = mem_split(s, g, pi, truth, m, idx, nleft, ncubes, e)))
		return rc;
	return mem_split(s, g, pi, truth, m, idx + nleft, n - nleft, ncubes, e);
}

/* Cubes of the n atoms in rows (arity ids each, borrowed). */
int
cube_mem_run(struct store *s, struct sigs *g, int pi, int truth,
    const int64_t *rows, size_t n, int64_t *ncubes, struct err *e)
{
	struct mem m = { 0 };
	size_t *idx = NULL;
	int rc = 0;

	m.rows = rows;
	m.nrows = n;
	m.arity = store_pred_at(s, pi)->arity;
	if (n == 0 || m.arity == 0)
		return 0;
	if (!(idx = xcalloc(n, sizeof *idx)) || mem_number(&m) < 0)
		rc = err_oom(e);
	for (size_t k = 0; !rc && k < n; k++)
		idx[k] = k;
	if (!rc)
		rc = mem_split(s, g, pi, truth, &m, idx, n, ncubes, e);
	free(idx);
	mem_free(&m);
	return rc;
}

/* Reads the atoms inside the current cube and splits them in memory. */
int
cube_mem_build(struct store *s, struct sigs *g, int pi, int truth,
    int64_t *ncubes, struct err *e)
{
	struct store_ids rows = { 0 };
	int arity = store_pred_at(s, pi)->arity;
	int rc = store_cube_rows(s, &rows, e);

	if (!rc && arity > 0)
		rc = cube_mem_run(s, g, pi, truth, rows.v, rows.n / (size_t)arity,
		    ncubes, e);
	free(rows.v);
	return rc;
}
