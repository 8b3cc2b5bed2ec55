/* engine.c: the public exact API of the lifted engine (engine.h): the
 * engine theory built from a constrained theory, log Z, marginals by
 * conditioning one component of the top theory, the schematic plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

struct conv {
	const struct ct_clause *c;
	const struct si_tuple *tu;
	int nreps, rep[MAX_VARS], ri[MAX_VARS], choice[MAX_VARS];
};

static int
conv_rec(struct eng *g, struct th *t, struct conv *cv, int r)
{
	const struct ct_clause *c = cv->c;
	const struct si_tuple *tu = cv->tu;

	if (r == cv->nreps) {
		int nneq = 0, nargs = 0;
		struct cl *d;
		for (int k = 0; k < c->nlits; k++)
			nargs += arity(g, c->lits[k].pred);
		for (int j = 0; j < tu->nneq; j++)
			nneq += cv->choice[cv->ri[tu->neq[j][0]]] ==
			    cv->choice[cv->ri[tu->neq[j][1]]];
		if (!(d = cl_new(cv->nreps, nneq, c->nlits, nargs)))
			return -1;
		d->w = c->weight;
		d->hard = c->hard;
		for (int v = 0; v < cv->nreps; v++)
			d->blk[v] = cv->choice[v];
		nneq = 0;
		for (int j = 0; j < tu->nneq; j++) {
			int a = cv->ri[tu->neq[j][0]], b = cv->ri[tu->neq[j][1]];
			if (cv->choice[a] != cv->choice[b])
				continue;
			d->neq[nneq][0] = a < b ? a : b;
			d->neq[nneq][1] = a < b ? b : a;
			nneq++;
		}
		nargs = 0;
		for (int k = 0; k < c->nlits; k++) {
			const struct ct_lit *l = &c->lits[k];
			d->lit[k].pred = l->pred;
			d->lit[k].neg = l->neg;
			d->lit[k].off = nargs;
			for (int a = 0; a < arity(g, l->pred); a++)
				d->arg[nargs++] = cv->ri[tu->rep[l->var[a]]];
		}
		return th_push(t, d);
	}
	{
		int v = cv->rep[r], ty = tu->type[v];
		for (int b = 0; b < g->ct->sp->nblocks[ty]; b++) {
			if (!si_has(tu, v, b))
				continue;
			cv->choice[r] = g->boff[ty] + b;
			if (conv_rec(g, t, cv, r + 1) < 0)
				return -1;
		}
	}
	return 0;
}

double
eng_default_memory(void)
{
	double two = 2.0 * (1 << 30), half = mem_total() / 2;

	return half > 0 && half < two ? half : two;
}

int64_t
eng_held_bytes(void)
{
	return eng_held;
}

int
eng_new(const struct ct_theory *ct, const struct eng_opts *o,
    struct eng **out, struct err *e)
{
	struct eng *g = xcalloc(1, sizeof *g);
	int nt = ct->sp->ntypes, nb = 0;
	struct index ix;
	double konst, expected, assigned;

	*out = NULL;
	if (!g)
		return err_oom(e);
	g->ct = ct;
	g->e = e;
	if (o)
		g->o = *o;
	g->sr = g->o.semiring == ENG_MAX ? &sr_max : &sr_sum;
	g->t0 = now_seconds();
	g->mem_cap = (int64_t)(g->o.max_memory > 0 ? g->o.max_memory :
	    g->o.max_memory < 0 ? 0 : eng_default_memory());
	g->rss_cap = g->o.max_memory < 0 ? 0 : 0.75 * mem_total();
	if (!(g->boff = xcalloc((size_t)nt + 1, sizeof *g->boff)) ||
	    !(g->top = xcalloc(1, sizeof *g->top)))
		goto oom;
	for (int ty = 0; ty < nt; ty++) {
		g->boff[ty] = nb;
		for (int b = 0; b < ct->sp->nblocks[ty]; b++, nb++)
			if (th_add_block(g->top, ct->sp->size[ty][b], ty) < 0)
				goto oom;
	}
	for (size_t i = 0; i < ct->clauses.n; i++) {
		const struct ct_clause *c = &ct->clauses.v[i];
		for (size_t k = 0; k < c->cons.v.n; k++) {
			struct conv cv = { c, c->cons.v.v[k], 0, { 0 }, { 0 }, { 0 } };
			if (c->nvars > MAX_VARS) {
				eng_free(g);
				return err_set(e, SQLIFT_ELIMIT, "a clause with %d "
				    "variables", c->nvars);
			}
			for (int v = 0; v < c->nvars; v++)
				if (cv.tu->rep[v] == v) {
					cv.ri[v] = cv.nreps;
					cv.rep[cv.nreps++] = v;
				}
			if (conv_rec(g, g->top, &cv, 0) < 0)
				goto oom;
		}
	}
	if (th_normalise(g, g->top) < 0 || index_build(g, g->top, &ix) < 0)
		goto oom;
	expected = ix.total;
	index_free(&ix);
	if (simplify_keep(g, g->top, NULL, &konst, &assigned,
	    &g->top_units) < 0 ||
	    index_build(g, g->top, &ix) < 0)
		goto oom;
	g->top_atoms = ix.total;
	index_free(&ix);
	g->top_add = ct->log_const + ct->free_atoms * g->sr->free_atom + konst +
	    (expected - assigned - g->top_atoms) * g->sr->free_atom;
	*out = g;
	return 0;
oom:
	eng_free(g);
	return err_oom(e);
}

void
eng_free(struct eng *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->capcache; i++) {
		free(g->cache[i].key);
		free(g->cache[i].etag);
		free(g->cache[i].ev);
	}
	free(g->cache);
	eng_held -= g->cache_held;
	for (int i = 0; g->reps && i < g->nreps; i++)
		free(g->reps[i].v);
	free(g->reps);
	free(g->trk_log);
	free(g->trk.v);
	free(g->trk_keys);
	free(g->trk_v);
	free(g->tags);
	free(g->ga.tag);
	free(g->ga.v);
	multibin_free(g);
	cgm_free(g);
	top_drop(g);
	th_free(g->top);
	free(g->top_units.v);
	smp_free(g->smp_state);
	free(g->boff);
	free(g);
}

int
eng_log_z(struct eng *g, double *log_z, struct err *e)
{
	struct th *t;
	double z;
	int rc;

	g->e = e;
	g->ga.n = 0;           /* counts are eng_sample's */
	if (g->top_done) {
		*log_z = g->top_z;
		return 0;
	}
	if (g->top_add == -INFINITY)
		return err_set(e, SQLIFT_EZERO, "Z = 0: the hard formulas "
		    "contradict the evidence");
	if (!(t = th_copy(g->top)))
		return err_oom(e);
	g->cg_top = 1;
	if ((rc = search_solve(g, t, &z)))
		return rc;
	if (z == -INFINITY)
		return err_set(e, SQLIFT_EZERO, "Z = 0: the hard formulas "
		    "contradict each other or the evidence");
	g->top_z = g->top_add + z;
	g->top_done = 1;
	*log_z = g->top_z;
	return 0;
}

/* Keeps only the clauses of t in the component (clauses linked by
 * shared classes) of class qc. */
static int
keep_component(struct th *t, const struct index *ix, int qc)
{
	int n = (int)t->c.n, *comp, r;
	size_t keep = 0;

	if (th_components(t, ix, &comp) < 0)
		return -1;
	r = comp[ix->occ[ix->first[qc]].cl];
	for (int i = 0; i < n; i++) {
		if (comp[i] == r)
			t->c.v[keep++] = t->c.v[i];
		else
			cl_free(t->c.v[i]);
	}
	t->c.n = keep;
	free(comp);
	return 0;
}

/* The key of the class of pred's atoms with arguments in the theory's
 * blocks block[] (of each argument's type), equal as eq[] says; returns
 * its length. */
size_t
top_key(const struct eng *g, int pred, const int *block, const int *eq,
    int *key)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];

	key[0] = pred;
	for (int i = 0; i < p->arity; i++) {
		key[1 + 2 * i] = g->boff[p->types[i]] + block[i];
		key[2 + 2 * i] = eq[i];
	}
	return 1 + 2 * (size_t)p->arity;
}

/* Frees the index of the top theory and its components (it is rebuilt
 * when needed); returns -1. */
int
top_drop(struct eng *g)
{
	if (g->top_ix)
		index_free(g->top_ix);
	free(g->top_ix);
	free(g->top_root);
	free(g->top_first);
	free(g->top_cls);
	free(g->top_ground);
	g->top_ix = NULL;
	g->top_root = g->top_first = g->top_cls = NULL;
	g->top_ground = NULL;
	return -1;
}

/* A copy of the component of the top theory that holds class key (NULL
 * when no clause has it); out NULL: only *n, its number of clauses
 * (n may be NULL when out is not); *comp (if not NULL): its number. */
int
top_component(struct eng *g, const int *key, size_t len, struct th **out,
    size_t *n, int *comp)
{
	struct index *ix = g->top_ix;
	struct th *t;
	int r = -1;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!ix) {
		int nc = 0, nt = (int)g->top->c.n;
		if (!(ix = g->top_ix = xcalloc(1, sizeof *ix)))
			return -1;
		if (index_build(g, g->top, ix) < 0) {
			free(ix);
			g->top_ix = NULL;
			return -1;
		}
		if (th_components(g->top, ix, &g->top_root) < 0)
			return top_drop(g);
		for (int i = 0; i < nt; i++)
			if (g->top_root[i] >= nc)
				nc = g->top_root[i] + 1;
		/* clauses by component: a counting sort */
		g->top_first = xcalloc((size_t)nc + 2, sizeof *g->top_first);
		g->top_cls = xmalloc(((size_t)nt + 1) * sizeof *g->top_cls);
		g->top_ground = xmalloc((size_t)nc + 1);
		if (!g->top_first || !g->top_cls || !g->top_ground)
			return top_drop(g);
		memset(g->top_ground, 1, (size_t)nc + 1);
		for (int c = 0; c < ix->ncls; c++)
			if (ix->atoms[c] != 1)
				g->top_ground[g->top_root[ix->occ[ix->first[c]].cl]] = 0;
		for (int i = 0; i < nt; i++)
			g->top_first[g->top_root[i] + 2]++;
		for (int k = 2; k <= nc + 1; k++)
			g->top_first[k] += g->top_first[k - 1];
		for (int i = 0; i < nt; i++)
			g->top_cls[g->top_first[g->top_root[i] + 1]++] = i;
	}
	{
		/* classes are sorted by key: binary search */
		int lo = 0, hi = ix->ncls;
		struct occ q = { key, len, 0, 0 };
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2, c;
			c = occ_cmp(&ix->occ[ix->first[mid]], &q);
			if (c == 0) {
				r = g->top_root[ix->occ[ix->first[mid]].cl];
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (comp)
		*comp = r;
	if (r < 0)
		return 0;
	if (!out) {
		*n = (size_t)(g->top_first[r + 1] - g->top_first[r]);
		return 0;
	}
	if (!(t = th_empty_like(g->top)))
		return -1;
	for (int i = g->top_first[r]; i < g->top_first[r + 1]; i++) {
		struct cl *c;
		if (!(c = cl_copy(g->top->c.v[g->top_cls[i]])) || th_push(t, c) < 0) {
			th_free(t);
			return -1;
		}
	}
	*out = t;
	return 0;
}

/* One atom of class (pred, block, eq) fixed to truth, in the component
 * of the theory that holds its class: the other components are factors
 * of Z(atom) and Z(not atom) alike, so the marginal is
 * Z_c(atom) / (Z_c(atom) + Z_c(not atom)) on the component alone.  *out
 * and *konst (what it adds outside *out), or *known, the atom's marginal
 * when no search is needed (*out NULL). */
int
cond_theory(struct eng *g, int pred, const int *block, const int *eq,
    int truth, struct th **out, double *konst, double *known)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	struct th *t;
	int key[KEY_BUF], nb[MAX_VARS], rc;
	size_t len = top_key(g, pred, block, eq, key);
	struct asg as = { 1, { key }, { len }, { 1 } };
	struct index ix;
	int found = 0;
	double k, assigned, atoms;

	as.truth[0] = truth;
	*out = NULL;
	*known = -1;
	/* fixed by a hard unit clause of the theory? */
	if ((rc = units_eval(&g->top_units, key, len)) >= 0) {
		*known = rc;
		return 0;
	}
	if ((rc = top_component(g, key, len, &t, NULL, NULL)) < 0)
		return err_oom(g->e);
	if (!t) {
		/* in no clause: a free atom */
		*known = 0.5;
		return 0;
	}
	for (int i = 0; i < p->arity; i++) {
		int b = g->boff[p->types[i]] + block[i];
		if (eq[i] != i) {
			key[1 + 2 * i] = nb[i] = nb[eq[i]];
			continue;
		}
		if (t->size[b] > 1) {
			if ((nb[i] = th_split_one(t, b)) < 0) {
				th_free(t);
				return err_oom(g->e);
			}
		} else
			nb[i] = b;
		key[1 + 2 * i] = nb[i];
	}
	if (th_normalise(g, t) < 0 || index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	for (int c = 0; c < ix.ncls && !found; c++) {
		const struct occ *o = &ix.occ[ix.first[c]];
		if (o->len == len && !memcmp(o->key, key, len * sizeof *key)) {
			found = 1;
			if (keep_component(t, &ix, c) < 0) {
				index_free(&ix);
				th_free(t);
				return err_oom(g->e);
			}
		}
	}
	index_free(&ix);
	if (!found) {
		/* in no clause: a free atom */
		th_free(t);
		*known = 0.5;
		return 0;
	}
	if (index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	atoms = ix.total;
	index_free(&ix);
	if (simplify(g, t, &as, &k, &assigned) < 0 ||
	    index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	k += (atoms - 1 - assigned - ix.total) * LOG2;
	index_free(&ix);
	*konst = k;
	*out = t;
	return 0;
}

int
eng_marginal(struct eng *g, int pred, const int *block, const int *eq,
    double *prob, struct err *e)
{
	double z[2], lz, known;
	int rc;

	g->e = e;
	if (g->o.semiring != ENG_SUM)
		return err_set(e, SQLIFT_EINTERNAL, "marginals need the sum");
	if ((rc = eng_log_z(g, &lz, e)))
		return rc;
	/* from log Z's cell graph, when it summed the class's component */
	{
		int key[KEY_BUF];
		size_t len = top_key(g, pred, block, eq, key);
		if ((rc = cgm_marginal(g, key, len, prob)) < 0)
			return err_oom(e);
		if (rc)
			return 0;
	}
	/* Z_c(atom true), then Z_c(atom false) */
	for (int v = 0; v < 2; v++) {
		struct th *t;
		double konst, s;
		if ((rc = cond_theory(g, pred, block, eq, !v, &t, &konst, &known)))
			return rc;
		if (!t) {
			*prob = known;
			return 0;
		}
		if (konst == -INFINITY) {
			th_free(t);
			z[v] = -INFINITY;
			continue;
		}
		if ((rc = search_solve(g, t, &s)))
			return rc;
		z[v] = konst + s;
	}
	if (z[0] == -INFINITY)
		*prob = 0;
	else
		*prob = 1 / (1 + exp(z[1] - z[0]));
	return 0;
}

int
eng_plan(struct eng *g, struct buf *out, struct err *e)
{
	struct th *t;
	double z;
	int rc;

	g->e = e;
	g->ga.n = 0;
	g->plan = out;
	g->mult = 1;
	g->est_nodes = 0;
	g->plan_lines = 0;
	if (!(t = th_copy(g->top)))
		return err_oom(e);
	rc = search_solve(g, t, &z);
	g->plan = NULL;
	if (rc)
		return rc;
	buf_printf(out, "  estimated nodes: %.3g\n", g->est_nodes);
	return out->oom ? err_oom(e) : 0;
}

void
eng_get_stats(const struct eng *g, struct eng_stats *st)
{
	*st = g->st;
}
