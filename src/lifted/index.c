/* index.c: the class index of a theory: its atom classes (literals
 * hashed and sorted by class key), their atoms, and where they occur. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

int
occ_cmp(const void *a, const void *b)
{
	const struct occ *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->key, y->key, x->len * sizeof *x->key);
}

/* A word-at-a-time mix: byte-wise fnv1a was too slow for the cache's
 * keys (docs/internals/lis.md, "Search costs"). */
uint64_t
key_hash(const int *v, size_t n)
{
	uint64_t h = FNV_INIT;

	for (size_t i = 0; i < n; i++)
		h = hash_mix(h, (uint64_t)(uint32_t)v[i]);
	return h;
}

int
occ_same(const struct occ *x, const struct occ *y)
{
	if (x->len != y->len)
		return 0;
	for (size_t i = 0; i < x->len; i++)
		if (x->key[i] != y->key[i])
			return 0;
	return 1;
}

/* Sorts ix->occ by key as a stable sort would, without qsort over every
 * occurrence (many occurrences, few classes: docs/internals/lis.md,
 * "Search costs"): the classes found by hashing, their keys sorted, the
 * occurrences placed by class in their order. */
static int
occ_sort(struct index *ix)
{
	size_t n = (size_t)ix->nocc, cap = 16, nc = 0;
	int *slot, *cls = xmalloc((n + 1) * sizeof *cls);
	int *rep = xmalloc((n + 1) * sizeof *rep), *pos;
	struct occ *sorted, *reps;
	int rc = -1;

	while (cap < 2 * n)
		cap *= 2;
	slot = xmalloc(cap * sizeof *slot);
	if (!cls || !rep || !slot)
		goto done;
	for (size_t i = 0; i < cap; i++)
		slot[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct occ *o = &ix->occ[i];
		uint64_t h = key_hash(o->key, o->len);
		size_t j;
		for (j = h & (cap - 1); slot[j] >= 0 &&
		    !occ_same(&ix->occ[rep[slot[j]]], o); j = (j + 1) & (cap - 1))
			;
		if (slot[j] < 0) {
			rep[nc] = (int)i;
			slot[j] = (int)nc++;
		}
		cls[i] = slot[j];
	}
	/* the classes in key order: slot[] now holds each class's rank */
	reps = xmalloc((nc + 1) * sizeof *reps);
	sorted = xmalloc((n + 1) * sizeof *sorted);
	pos = xcalloc(nc + 1, sizeof *pos);
	if (!reps || !sorted || !pos) {
		free(reps);
		free(sorted);
		free(pos);
		goto done;
	}
	for (size_t c = 0; c < nc; c++) {
		reps[c] = ix->occ[rep[c]];
		reps[c].cl = (int)c;
	}
	qsort(reps, nc, sizeof *reps, occ_cmp);
	for (size_t r = 0; r < nc; r++)
		slot[reps[r].cl] = (int)r;
	for (size_t i = 0; i < n; i++)
		pos[slot[cls[i]] + 1]++;
	for (size_t r = 1; r < nc; r++)
		pos[r] += pos[r - 1];
	for (size_t i = 0; i < n; i++)
		sorted[pos[slot[cls[i]]]++] = ix->occ[i];
	free(ix->occ);
	ix->occ = sorted;
	free(reps);
	free(pos);
	rc = 0;
done:
	free(cls);
	free(rep);
	free(slot);
	return rc;
}

void
index_free(struct index *ix)
{
	eng_held -= ix->held;
	free(ix->occ);
	free(ix->keybuf);
	free(ix->lpos);
	free(ix->cls_of);
	free(ix->first);
	free(ix->atoms);
	free(ix->slots);
	free(ix->big);
	memset(ix, 0, sizeof *ix);
}

int
index_build(const struct eng *g, const struct th *t, struct index *ix)
{
	size_t nl = 0, kmax = 1;
	int *kp;

	memset(ix, 0, sizeof *ix);
	for (size_t i = 0; i < t->c.n; i++) {
		nl += (size_t)t->c.v[i]->nlits;
		for (int k = 0; k < t->c.v[i]->nlits; k++) {
			size_t a = 1 + 2 * (size_t)arity(g, t->c.v[i]->lit[k].pred);
			if (a > kmax)
				kmax = a;
		}
	}
	ix->occ = xmalloc((nl + 1) * sizeof *ix->occ);
	ix->keybuf = xmalloc((nl * kmax + 1) * sizeof *ix->keybuf);
	ix->lpos = xmalloc((t->c.n + 1) * sizeof *ix->lpos);
	ix->cls_of = xmalloc((nl + 1) * sizeof *ix->cls_of);
	ix->first = xmalloc((nl + 1) * sizeof *ix->first);
	ix->atoms = xmalloc((nl + 1) * sizeof *ix->atoms);
	ix->slots = xmalloc((nl + 1) * sizeof *ix->slots);
	ix->big = xmalloc((nl + 1) * sizeof *ix->big);
	if (!ix->occ || !ix->keybuf || !ix->lpos || !ix->cls_of || !ix->first ||
	    !ix->atoms || !ix->slots || !ix->big) {
		index_free(ix);
		return -1;
	}
	kp = ix->keybuf;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		ix->lpos[i] = ix->nocc;
		for (int k = 0; k < c->nlits; k++) {
			struct occ *o = &ix->occ[ix->nocc++];
			o->len = lit_key(g, c, &c->lit[k], kp);
			o->key = kp;
			o->cl = (int)i;
			o->li = k;
			kp += o->len;
		}
	}
	if (occ_sort(ix) < 0) {
		index_free(ix);
		return -1;
	}
	for (int i = 0; i < ix->nocc; i++) {
		const struct occ *o = &ix->occ[i];
		if (i == 0 || !occ_same(o, o - 1))
			ix->first[ix->ncls++] = i;
		ix->cls_of[ix->lpos[o->cl] + o->li] = ix->ncls - 1;
	}
	index_resize(g, t, ix);
	ix->held = (int64_t)((nl + 1) * (sizeof *ix->occ + sizeof *ix->cls_of +
	    sizeof *ix->first + sizeof *ix->atoms + sizeof *ix->slots +
	    sizeof *ix->big) + (nl * kmax + 1) * sizeof *ix->keybuf +
	    (t->c.n + 1) * sizeof *ix->lpos + 8 * HELD_EXTRA);
	eng_held += ix->held;
	return 0;
}

/* The atoms of ix's classes and their total, and their slots, from
 * t's block sizes (t: the theory ix was built on, sizes perhaps since
 * changed). */
void
index_resize(const struct eng *g, const struct th *t, struct index *ix)
{
	ix->total = 0;
	for (int k = 0; k < ix->ncls; k++) {
		const struct occ *o = &ix->occ[ix->first[k]];
		const struct cl *c = t->c.v[o->cl];
		const struct lit *l = &c->lit[o->li];
		int s = 0, big = -1;
		ix->atoms[k] = lit_atoms(g, c, l, t->size);
		ix->total += ix->atoms[k];
		for (int a = 0; a < arity(g, l->pred); a++)
			if ((int)o->key[2 + 2 * a] == a &&
			    t->size[o->key[1 + 2 * a]] > 1) {
				s++;
				if (big < 0 || t->size[o->key[1 + 2 * a]] <
				    t->size[big])
					big = o->key[1 + 2 * a];
			}
		ix->slots[k] = s;
		ix->big[k] = big;
	}
}

int
index_occurrences(const struct index *ix, int k)
{
	return (k + 1 < ix->ncls ? ix->first[k + 1] : ix->nocc) - ix->first[k];
}

int
index_is_aux(const struct eng *g, const struct index *ix, int k)
{
	return g->ct->m->preds.v[ix->occ[ix->first[k]].key[0]].aux;
}

/* Class k is one ground atom that the sampler draws itself (auxiliary
 * atoms are left to the others, which force them or leave them free). */
int
index_drawable(const struct eng *g, const struct index *ix, int k)
{
	return ix->slots[k] == 0 && !index_is_aux(g, ix, k);
}

/* The drawable classes of ix, and in *first the first of them. */
int
index_count_drawable(const struct eng *g, const struct index *ix, int *first)
{
	int n = 0;

	*first = -1;
	for (int c = 0; c < ix->ncls; c++)
		if (index_drawable(g, ix, c) && n++ == 0)
			*first = c;
	return n;
}
