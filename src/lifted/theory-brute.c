/* theory-brute.c: the test oracle of the constrained theory: log Z by
 * grounding every clause from its constraints and enumerating the worlds
 * of the unknown ground atoms (small domains only).  Only the unit tests
 * call it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "lifted/theory.h"

#define BRUTE_MAX 22  /* ground atoms of ct_brute */

/* Brute force on the theory: type t's constants are 0..N_t-1, block b
 * holding a run of size[t][b] of them. */
struct gclause {
	double w;
	int hard;
	int n;
	int atom[32], neg[32];
};

struct gvec {
	struct gclause *v;
	size_t n, cap;
};

static int
enum_tuple(const struct ct_theory *t, const struct ct_clause *c,
    const struct si_tuple *tu, int **blk, const int *ntc, int v, int *val,
    struct gvec *out)
{
	if (v == c->nvars) {
		struct gclause g = { c->weight, c->hard, c->nlits, { 0 }, { 0 } };
		for (int e = 0; e < tu->nneq; e++)
			if (val[tu->neq[e][0]] == val[tu->neq[e][1]])
				return 0;
		for (int u = 0; u < c->nvars; u++)
			if (val[u] != val[tu->rep[u]])
				return 0;
		if (c->nlits > 32)
			return -1;
		for (int k = 0; k < c->nlits; k++) {
			const struct ct_lit *l = &c->lits[k];
			const struct mln_pred *p = &t->m->preds.v[l->pred];
			int a = 0;
			for (int i = 0; i < p->arity; i++)
				a = a * ntc[p->types[i]] + val[l->var[i]];
			g.atom[k] = a;  /* offset added by the caller */
			g.neg[k] = l->neg;
		}
		return VEC_PUSH(*out, g);
	}
	for (int x = 0; x < ntc[c->type[v]]; x++) {
		if (!si_has(tu, v, blk[c->type[v]][x]))
			continue;
		val[v] = x;
		if (enum_tuple(t, c, tu, blk, ntc, v + 1, val, out) < 0)
			return -1;
	}
	return 0;
}

int
ct_brute(const struct ct_theory *t, double *log_z, double *free_atoms,
    struct err *e)
{
	int nt = (int)t->m->types.n, np = (int)t->m->preds.n, rc = 0;
	int *ntc = xcalloc((size_t)nt + 1, sizeof *ntc);
	int **blk = xcalloc((size_t)nt + 1, sizeof *blk);
	int64_t *off = xcalloc((size_t)np + 1, sizeof *off), natoms = 0;
	int *bit = NULL, nbits = 0, nused = 0;
	struct gvec g = { 0 };
	double max = -INFINITY;
	long double sum = 0;

	if (!ntc || !blk || !off) {
		rc = err_oom(e);
		goto done;
	}
	for (int k = 0; k < nt; k++) {
		int x = 0;
		for (int b = 0; b < t->sp->nblocks[k]; b++)
			ntc[k] += (int)t->sp->size[k][b];
		if (!(blk[k] = xcalloc((size_t)ntc[k] + 1, sizeof **blk))) {
			rc = err_oom(e);
			goto done;
		}
		for (int b = 0; b < t->sp->nblocks[k]; b++)
			for (int64_t i = 0; i < t->sp->size[k][b]; i++)
				blk[k][x++] = b;
	}
	for (int p = 0; p < np; p++) {
		int64_t n = 1;
		for (int i = 0; i < t->m->preds.v[p].arity; i++)
			n *= ntc[t->m->preds.v[p].types[i]];
		off[p] = natoms;
		natoms += n;
	}
	/* bits for the unknown atoms only: not closed, in no evidence cube */
	if (natoms > 4096 || !(bit = xmalloc(((size_t)natoms + 1) * sizeof *bit))) {
		rc = natoms > 4096 ? err_set(e, SQLIFT_ELIMIT, "theory brute "
		    "force: %lld atoms", (long long)natoms) : err_oom(e);
		goto done;
	}
	for (int p = 0; p < np; p++) {
		const struct mln_pred *mp = &t->m->preds.v[p];
		for (int64_t a = off[p]; a < (p + 1 < np ? off[p + 1] : natoms); a++) {
			int pos[64], unknown = !t->ev[p].closed;
			int64_t r = a - off[p];
			for (int i = mp->arity - 1; i >= 0; i--) {
				pos[i] = (int)(r % ntc[mp->types[i]]);
				r /= ntc[mp->types[i]];
			}
			for (int w = 0; w < 2 && unknown; w++) {
				const struct si_set *set = w ? &t->ev[p].fal : &t->ev[p].tru;
				for (size_t k = 0; k < set->v.n && unknown; k++) {
					const struct si_tuple *x = set->v.v[k];
					int in = 1;
					for (int i = 0; i < mp->arity && in; i++)
						in = si_has(x, i, blk[mp->types[i]][pos[i]]) &&
						    pos[x->rep[i]] == pos[i];
					for (int q = 0; q < x->nneq && in; q++)
						in = pos[x->neq[q][0]] != pos[x->neq[q][1]];
					unknown = !in;
				}
			}
			bit[a] = unknown ? nbits++ : -1;
		}
	}
	if (nbits > BRUTE_MAX) {
		rc = err_set(e, SQLIFT_ELIMIT, "theory brute force: %d unknown "
		    "atoms", nbits);
		goto done;
	}
	for (size_t i = 0; i < t->clauses.n && !rc; i++) {
		const struct ct_clause *c = &t->clauses.v[i];
		size_t before = g.n;
		int val[64];
		for (size_t k = 0; k < c->cons.v.n && !rc; k++)
			if (enum_tuple(t, c, c->cons.v.v[k], blk, ntc, 0, val, &g) < 0)
				rc = err_oom(e);
		for (size_t k = before; k < g.n && !rc; k++)
			for (int j = 0; j < g.v[k].n; j++) {
				int a = bit[g.v[k].atom[j] + off[c->lits[j].pred]];
				if (a < 0)  /* folding left an evidence atom */
					rc = err_set(e, SQLIFT_EINTERNAL, "clause %zu holds "
					    "an evidence atom", i);
				g.v[k].atom[j] = a;
			}
	}
	/* atoms in no ground clause are free: a factor 2 each, not enumerated */
	if (!rc) {
		int *idx = xmalloc(((size_t)nbits + 1) * sizeof *idx);
		if (!idx) {
			rc = err_oom(e);
			goto done;
		}
		for (int a = 0; a < nbits; a++)
			idx[a] = -1;
		for (size_t k = 0; k < g.n; k++)
			for (int j = 0; j < g.v[k].n; j++) {
				int *a = &idx[g.v[k].atom[j]];
				if (*a < 0)
					*a = nused++;
				g.v[k].atom[j] = *a;
			}
		free(idx);
		if (free_atoms)
			*free_atoms = nbits - nused;
	}
	/* one pass, the log-sum-exp kept relative to the largest weight yet */
	for (uint64_t w = 0; !rc && w < ((uint64_t)1 << nused); w++) {
		double lw = 0;
		int ok = 1;
		for (size_t k = 0; k < g.n && ok; k++) {
			int sat = 0;
			for (int j = 0; j < g.v[k].n && !sat; j++)
				sat = (int)((w >> g.v[k].atom[j]) & 1) != g.v[k].neg[j];
			if (sat)
				lw += g.v[k].hard ? 0 : g.v[k].w;
			else if (g.v[k].hard)
				ok = 0;
		}
		if (!ok)
			continue;
		if (lw > max) {
			sum = sum * expl((long double)max - lw) + 1;
			max = lw;
		} else
			sum += expl((long double)lw - max);
	}
	if (!rc && max == -INFINITY)
		rc = err_set(e, SQLIFT_EZERO, "Z = 0");
	if (!rc)
		*log_z = t->log_const + max + (double)logl(sum) +
		    (nbits - nused) * log(2.0);
done:
	for (int k = 0; blk && k < nt; k++)
		free(blk[k]);
	free(blk);
	free(ntc);
	free(off);
	free(bit);
	free(g.v);
	return rc;
}
