/* mapworld.c: a MAP world read back from the lifted search in the max
 * semiring, one atom class at a time: a class of the theory is fixed
 * all true, or else all false, or else split as the binomial rule does
 * (k constants of its block true, the others false) at the first k
 * whose branch keeps the optimum, until no clause is left.  Each step
 * keeps the optimum, so the classes fixed make a MAP world
 * (self-reducibility); a class of several blocks that no MAP world
 * fixes whole stops it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* Hands class key to put (its blocks the engine's: memb maps them to
 * constants); 1 when it is not a class of the theory's predicates. */
static int
emit(struct eng *g, const int *key, size_t len, int truth,
    eng_world_fn *put, void *arg, int *rc)
{
	const struct mln_pred *p = &g->ct->m->preds.v[key[0]];
	int block[MAX_VARS], eq[MAX_VARS];

	if (len != 1 + 2 * (size_t)p->arity)
		return 1;
	for (int i = 0; i < p->arity; i++) {
		block[i] = key[1 + 2 * i];
		eq[i] = key[2 + 2 * i];
	}
	*rc = put(arg, key[0], block, eq, truth);
	return 0;
}

/* The units u (entries: length, truth, key) to put; 1 as emit. */
static int
emit_units(struct eng *g, const struct units *u, eng_world_fn *put,
    void *arg, int *rc)
{
	for (size_t i = 0; i < u->n && !*rc; i += 2 + (size_t)u->v[i])
		if (emit(g, u->v + i + 2, (size_t)u->v[i], u->v[i + 1], put, arg,
		    rc))
			return 1;
	return 0;
}

static int
close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

/* t conditioned on class key = truth and simplified, in *out, when its
 * optimum is target (its constant and its search's value); else *out
 * NULL.  *u gets the units the condition fixed. */
static int
try_class(struct eng *g, const struct th *t, const struct asg *as,
    double target, struct th **out, double *konst, struct units *u)
{
	struct th *c = th_copy(t), *c2;
	double assigned, z;
	int rc;

	*out = NULL;
	memset(u, 0, sizeof *u);
	if (!c || simplify_keep(g, c, as, konst, &assigned, u) < 0) {
		th_free(c);
		return err_oom(g->e);
	}
	if (*konst == -INFINITY) {
		th_free(c);
		return 0;
	}
	if (!(c2 = th_copy(c))) {
		th_free(c);
		return err_oom(g->e);
	}
	if ((rc = search_solve(g, c2, &z))) {
		th_free(c);
		return rc;
	}
	if (close_to(*konst + z, target))
		*out = c;
	else
		th_free(c);
	return 0;
}

/* The per-type map of constants to blocks, from the theory's. */
static int **
memb_new(const struct eng *g)
{
	int nt = (int)g->ct->m->types.n, **m = xcalloc((size_t)nt + 1,
	    sizeof *m);

	for (int ty = 0; m && ty < nt; ty++) {
		int n = g->ct->dom[ty].n;
		if (!(m[ty] = xmalloc(((size_t)n + 1) * sizeof **m))) {
			eng_world_free(m, nt);
			return NULL;
		}
		for (int i = 0; i < n; i++)
			m[ty][i] = g->boff[ty] + g->ct->block_of[ty][i];
	}
	return m;
}

void
eng_world_free(int **memb, int ntypes)
{
	for (int ty = 0; memb && ty < ntypes; ty++)
		free(memb[ty]);
	free(memb);
}

/* Class key of t, in one block b of n > 1 constants, neither all true
 * nor all false in a MAP world: the binomial's branch of the optimum,
 * k of its atoms true (block b keeps k constants, a new block the
 * other n - k).  *out NULL when no branch keeps it. */
static int
split_class(struct eng *g, struct th *t, const int *key, size_t len, int b,
    double target, struct th **out, int *nb, int64_t *kout, double *konst,
    struct units *u)
{
	int64_t n = t->size[b];
	int kt[KEY_BUF], kf[KEY_BUF], rc = 0;
	struct asg as = { 2, { kt, kf }, { len, len }, { 1, 0 } };

	*out = NULL;
	memset(u, 0, sizeof *u);
	if ((*nb = th_add_block(t, 0, t->type[b])) < 0 ||
	    th_split(t, b, *nb) < 0)
		return err_oom(g->e);
	key_with(key, len, b, b, kt);
	key_with(key, len, b, *nb, kf);
	for (int64_t k = 1; k < n && !rc && !*out; k++) {
		t->size[b] = k;
		t->size[*nb] = n - k;
		free(u->v);
		rc = try_class(g, t, &as, target, out, konst, u);
		*kout = k;
	}
	t->size[b] = n;
	t->size[*nb] = 0;
	return rc;
}

int
eng_map_world(struct eng *g, eng_world_fn *put, void *arg, int ***memb,
    int *found, struct err *e)
{
	struct th *t = NULL;
	double lz, target;
	int rc, other = 0;

	*found = 0;
	*memb = NULL;
	if (g->sr != &sr_max)
		return err_set(e, SQLIFT_EINTERNAL, "a MAP world needs the max "
		    "semiring");
	if ((rc = eng_log_z(g, &lz, e)))
		return rc;
	target = lz - g->top_add;
	if (!(*memb = memb_new(g)))
		return err_oom(e);
	if (emit_units(g, &g->top_units, put, arg, &rc) || rc)
		return rc;
	if (!(t = th_copy(g->top)))
		return err_oom(e);
	while (t->c.n > 0 && !rc && !other) {
		struct index ix;
		int key[KEY_BUF], fixed = 0, b;
		size_t len;
		if (index_build(g, t, &ix) < 0) {
			rc = err_oom(e);
			break;
		}
		if (ix.ncls == 0) {     /* clauses of no atom: constants */
			index_free(&ix);
			break;
		}
		len = ix.occ[ix.first[0]].len;
		memcpy(key, ix.occ[ix.first[0]].key, len * sizeof *key);
		b = ix.slots[0] == 1 ? ix.big[0] : -1;
		index_free(&ix);
		for (int v = 2; v >= 0 && !fixed && !rc; v--) {
			struct asg as = { 1, { key, NULL }, { len, 0 }, { v, 0 } };
			struct th *c;
			struct units u;
			double konst;
			int nb = -1;
			int64_t k = 0;
			if (v == 0 && b < 0)
				break;
			/* v: 2 all true, 1 all false, 0 split */
			as.truth[0] = v == 2;
			rc = v ? try_class(g, t, &as, target, &c, &konst, &u) :
			    split_class(g, t, key, len, b, target, &c, &nb, &k,
			    &konst, &u);
			if (rc || !c) {
				free(u.v);
				continue;
			}
			fixed = 1;
			th_free(t);
			t = c;
			target -= konst;
			if (v == 0) {
				/* b keeps its first k constants, nb the others */
				int ty = t->type[b], kf[KEY_BUF];
				int64_t seen = 0;
				for (int i = 0; i < g->ct->dom[ty].n; i++)
					if ((*memb)[ty][i] == b && seen++ >= k)
						(*memb)[ty][i] = nb;
				key_with(key, len, b, nb, kf);
				if (emit(g, key, len, 1, put, arg, &rc) ||
				    (!rc && emit(g, kf, len, 0, put, arg, &rc)))
					other = 1;
			} else if (emit(g, key, len, v == 2, put, arg, &rc))
				other = 1;
			if (!rc && !other && emit_units(g, &u, put, arg, &rc))
				other = 1;
			free(u.v);
		}
		if (!fixed && !rc)
			other = 1;
	}
	th_free(t);
	*found = !rc && !other;
	return rc;
}
