/* simplify.c: normalisation and simplification of a theory under an
 * assignment of atom classes (lifted unit propagation). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* Splits clauses until every literal keeps its distinct variables of one
 * block apart, and drops clauses without groundings. */
int
th_normalise(const struct eng *g, struct th *t)
{
	size_t keep = 0;

	for (size_t i = 0; i < t->c.n; i++) {
		struct cl *c = t->c.v[i];
		int u = -1, v = -1;
		for (int k = 0; k < c->nlits && u < 0; k++) {
			const int *x = c->arg + c->lit[k].off;
			int n = arity(g, c->lit[k].pred);
			for (int a = 0; a < n && u < 0; a++)
				for (int b = 0; b < a && u < 0; b++)
					if (x[a] != x[b] && c->blk[x[a]] == c->blk[x[b]] &&
					    !cl_has_neq(c, x[a], x[b])) {
						u = x[a] < x[b] ? x[a] : x[b];
						v = x[a] < x[b] ? x[b] : x[a];
					}
		}
		if (u >= 0) {
			struct cl *m = cl_without(c, v, u), *n = cl_add_neq(c, u, v);
			if (!m || !n) {
				cl_free(m);
				cl_free(n);
				return -1;
			}
			cl_free(c);
			t->c.v[i] = m;
			if (th_push(t, n) < 0)
				return -1;
			i--;
			continue;
		}
	}
	for (size_t i = 0; i < t->c.n; i++) {
		if (cl_count(t->c.v[i], t->size) > 0)
			t->c.v[keep++] = t->c.v[i];
		else
			cl_free(t->c.v[i]);
	}
	t->c.n = keep;
	return 0;
}

static int
asg_eval(const struct asg *as, const int *key, size_t len)
{
	for (int i = 0; as && i < as->n; i++)
		if (as->len[i] == len && !memcmp(as->key[i], key, len * sizeof *key))
			return as->truth[i];
	return -1;
}

static int
lit_same_atom(const struct eng *g, const struct cl *c, const struct lit *a,
    const struct lit *b)
{
	return a->pred == b->pred && !memcmp(c->arg + a->off, c->arg + b->off,
	    (size_t)arity(g, a->pred) * sizeof *c->arg);
}

/* Simplifies t in place under assignment as: literals of assigned
 * classes are evaluated, satisfied groundings leave (their weight to
 * *konst), falsified literals go, duplicate literals merge, tautologies
 * leave, and variables in no literal are counted out.  A hard clause
 * falsified everywhere makes *konst -inf. */
int
units_eval(const struct units *u, const int *key, size_t len)
{
	for (size_t i = 0; i < u->n; i += 2 + (size_t)u->v[i])
		if ((size_t)u->v[i] == len && !memcmp(u->v + i + 2, key, len *
		    sizeof *key))
			return u->v[i + 1];
	return -1;
}

/* Adds key (hash h) -> truth; m has room. */
void
amap_put(struct amap *m, uint64_t h, const int *key, size_t len, int truth)
{
	size_t i;

	for (i = h & (m->cap - 1); m->v[i].key; i = (i + 1) & (m->cap - 1))
		;
	m->v[i].h = h;
	m->v[i].key = key;
	m->v[i].len = len;
	m->v[i].truth = truth;
}

int
amap_eval(const struct amap *m, const int *key, size_t len)
{
	uint64_t h = fnv1a(FNV_INIT, key, len * sizeof *key);

	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct aent *a = &m->v[i];
		if (!a->key)
			return -1;
		if (a->h == h && a->len == len &&
		    !memcmp(a->key, key, len * sizeof *key))
			return a->truth;
	}
}

/* Appends a step to g->trace (a copy of c); on no memory the record
 * is marked unusable. */
static void
sf_note(struct eng *g, int kind, const struct cl *c, int lit)
{
	struct sftrace *tr = g->trace;
	struct cl *x = NULL;

	if (tr->bad)
		return;
	if ((c && !(x = cl_copy(c))) ||
	    vec_grow_((void **)&tr->v, &tr->cap, tr->n + 1, sizeof *tr->v)) {
		cl_free(x);
		tr->bad = 1;
		return;
	}
	tr->v[tr->n].kind = kind;
	tr->v[tr->n].lit = lit;
	tr->v[tr->n++].c = x;
}

void
sftrace_free(struct sftrace *tr)
{
	for (size_t i = 0; i < tr->n; i++)
		cl_free(tr->v[i].c);
	free(tr->v);
	memset(tr, 0, sizeof *tr);
}

/* simplify()'s *konst and *assigned from the record, in its order of
 * additions, with the block sizes size; -1 when the record is unusable. */
int
sftrace_replay(const struct eng *g, const struct sftrace *tr,
    const int64_t *size, double *konst, double *assigned)
{
	double k = 0;

	if (tr->bad)
		return -1;
	*konst = 0;
	*assigned = 0;
	for (size_t i = 0; i < tr->n; i++) {
		const struct sfev *e = &tr->v[i];
		if (e->kind == SF_SAT)
			k += e->c->w * cl_count(e->c, size);
		else if (e->kind == SF_PASS) {
			*konst += k;
			k = 0;
		} else
			*assigned += lit_atoms(g, e->c, &e->c->lit[e->lit], size);
	}
	return 0;
}

static int
simplify_pass(struct eng *g, struct th *t, const struct asg *as,
    const struct units *u, double *konst)
{
	size_t keep = 0;
	int key[KEY_BUF];

	*konst = 0;
	if (th_normalise(g, t) < 0)
		return -1;
	for (size_t i = 0; i < t->c.n; i++) {
		struct cl *c = t->c.v[i], *d;
		double cnt = cl_count(c, t->size);
		int sat = 0, nk = 0, kept[MAX_VARS], nargs = 0, changed = 0;
		for (int k = 0; k < c->nlits && !sat; k++) {
			const struct lit *l = &c->lit[k];
			size_t kl = lit_key(g, c, l, key);
			int dup = 0, tv = as ? asg_eval(as, key, kl) : -1;
			if (tv < 0)
				tv = units_eval(u, key, kl);
			if (tv < 0 && g->amap)
				tv = amap_eval(g->amap, key, kl);
			if (tv >= 0) {
				if (tv != l->neg)
					sat = 1;
				changed = 1;
				continue;
			}
			for (int j = 0; j < nk && !sat && !dup; j++)
				if (lit_same_atom(g, c, &c->lit[kept[j]], l)) {
					if (c->lit[kept[j]].neg != l->neg)
						sat = 1;
					dup = 1;
				}
			if (dup) {
				changed = 1;
				continue;
			}
			if (nk == MAX_VARS)
				goto fail;
			kept[nk++] = k;
			nargs += arity(g, l->pred);
		}
		if (sat) {
			if (!c->hard)
				*konst += c->w * cnt;
			if (c->tag)
				counts_push(g, c->tag - 1, cnt);
			if (g->trace && (c->tag || !c->hard))
				sf_note(g, SF_SAT, c, 0);
			if (g->trace && c->tag)
				g->trace->bad = 1;
			cl_free(c);
			continue;
		}
		if (nk == 0) {
			if (c->hard)
				*konst = -INFINITY;
			if (c->hard && g->trace)
				g->trace->bad = 1;
			cl_free(c);
			continue;
		}
		if (changed) {
			if (!(d = cl_new(c->nvars, c->nneq, nk, nargs)))
				goto fail;
			d->w = c->w;
			d->hard = c->hard;
			d->tag = c->tag;
			memcpy(d->blk, c->blk, (size_t)c->nvars * sizeof *d->blk);
			memcpy(d->neq, c->neq, (size_t)c->nneq * sizeof *d->neq);
			nargs = 0;
			for (int j = 0; j < nk; j++) {
				const struct lit *l = &c->lit[kept[j]];
				int a = arity(g, l->pred);
				d->lit[j] = *l;
				d->lit[j].off = nargs;
				memcpy(d->arg + nargs, c->arg + l->off, (size_t)a *
				    sizeof *d->arg);
				nargs += a;
			}
			cl_free(c);
			c = d;
		}
		/* variables in no literal whose inequality partners are pairwise
		 * distinct have the same number of values in every grounding */
		for (int v = c->nvars - 1; v >= 0; v--) {
			int used = 0, nb[MAX_VARS], deg = 0, clique = 1;
			for (int a = 0; a < c->nargs && !used; a++)
				used = c->arg[a] == v;
			if (used)
				continue;
			for (int j = 0; j < c->nneq && deg < MAX_VARS; j++)
				if (c->neq[j][0] == v || c->neq[j][1] == v)
					nb[deg++] = c->neq[j][0] ^ c->neq[j][1] ^ v;
			for (int a = 0; a < deg && clique; a++)
				for (int b = 0; b < a && clique; b++)
					clique = cl_has_neq(c, nb[a], nb[b]);
			if (!clique)
				continue;
			if (!(d = cl_without(c, v, -1)))
				goto fail;
			if (!c->hard)
				d->w *= (double)(t->size[c->blk[v]] - deg);
			if (!c->hard && g->trace && (c->blk[v] == g->trace->b0 ||
			    c->blk[v] == g->trace->b1))
				g->trace->bad = 1;
			cl_free(c);
			c = d;
		}
		t->c.v[keep++] = c;
		continue;
fail:
		t->c.v[keep++] = c;
		while (++i < t->c.n)
			t->c.v[keep++] = t->c.v[i];
		t->c.n = keep;
		return -1;
	}
	t->c.n = keep;
	return 0;
}

/* simplify_pass() until no hard clause is a single literal: such a
 * clause fixes every atom of its class (lifted unit propagation).
 * *assigned gets the atoms so fixed. */
int
simplify_keep(struct eng *g, struct th *t, const struct asg *as,
    double *konst, double *assigned, struct units *keep)
{
	struct units u = { 0 };
	int key[KEY_BUF];

	*konst = 0;
	*assigned = 0;
	for (;;) {
		double k;
		int added = 0;
		if (simplify_pass(g, t, as, &u, &k) < 0) {
			free(u.v);
			return -1;
		}
		*konst += k;
		if (g->trace)
			sf_note(g, SF_PASS, NULL, 0);
		if (*konst == -INFINITY)
			break;
		for (size_t i = 0; i < t->c.n; i++) {
			const struct cl *c = t->c.v[i];
			size_t kl;
			if (!c->hard || c->nlits != 1)
				continue;
			kl = lit_key(g, c, &c->lit[0], key);
			if ((as && asg_eval(as, key, kl) >= 0) ||
			    units_eval(&u, key, kl) >= 0 ||
			    (g->amap && amap_eval(g->amap, key, kl) >= 0))
				continue;
			if (vec_grow_((void **)&u.v, &u.cap, u.n + 2 + kl,
			    sizeof *u.v)) {
				free(u.v);
				return -1;
			}
			u.v[u.n] = (int)kl;
			u.v[u.n + 1] = !c->lit[0].neg;
			memcpy(u.v + u.n + 2, key, kl * sizeof *key);
			u.n += 2 + kl;
			track_set(g, t, key, kl, !c->lit[0].neg);
			*assigned += lit_atoms(g, c, &c->lit[0], t->size);
			if (g->trace)
				sf_note(g, SF_ASSIGN, c, 0);
			added = 1;
		}
		if (!added)
			break;
	}
	if (keep)
		*keep = u;
	else
		free(u.v);
	return 0;
}

int
simplify(struct eng *g, struct th *t, const struct asg *as, double *konst,
    double *assigned)
{
	return simplify_keep(g, t, as, konst, assigned, NULL);
}
