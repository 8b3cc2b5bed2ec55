/* search.c: the lifted search (Gogate & Domingos's LSD/PTP, with the
 * rules of Mittal et al. 2015): search_solve() takes a simplified theory
 * and returns its log Z through
 *   components (AND) -> cache -> power rule -> single occurrence (max
 *   only) -> multi-block binomial (multibin.c), cell graph
 *   (cellgraph.c), binomial or grounding;
 * while sampling it hands nodes to the sampler (sample/node.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

static double
sum_branch(double z, int64_t n, int64_t k)
{
	return z + lchoose(n, k);
}

#define SUM_ZERO (-11500.0)

/* log of the sum of e^terms, each scaled by the largest */
static double
sum_combine(const double *terms, int64_t n)
{
	double max = -INFINITY;
	long double sum = 0;

	for (int64_t k = 0; k < n; k++)
		if (terms[k] > max)
			max = terms[k];
	/* below SUM_ZERO expl is exactly 0 (long double's least subnormal
	 * is e^-11399), and its underflow path is slow */
	for (int64_t k = 0; k < n && max > -INFINITY; k++)
		if (terms[k] - max >= SUM_ZERO)
			sum += expl((long double)(terms[k] - max));
	return max == -INFINITY ? max : max + (double)logl(sum);
}

static double
max_branch(double z, int64_t n, int64_t k)
{
	(void)n;
	(void)k;
	return z;
}

static double
max_combine(const double *terms, int64_t n)
{
	double max = -INFINITY;

	for (int64_t k = 0; k < n; k++)
		if (terms[k] > max)
			max = terms[k];
	return max;
}

static double
sum_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

static double
max_add(double a, double b)
{
	return a > b ? a : b;
}

const struct semiring sr_sum = { LOG2, sum_branch, sum_combine, sum_add, 1 };
const struct semiring sr_max = { 0.0, max_branch, max_combine, max_add, 0 };

void
plan_line(struct eng *g, const char *fmt, ...)
{
	va_list ap;
	char line[400];

	if (!g->plan)
		return;
	if (++g->plan_lines > 200) {
		if (g->plan_lines == 201)
			buf_puts(g->plan, "  ...\n");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	buf_printf(g->plan, "%*s%s  [x%.3g]\n", 2 + 2 * g->depth, "", line,
	    g->mult);
}

/* "Smokes(person:480)": the class of key, with its blocks' sizes. */
void
class_text(const struct eng *g, const int64_t *size, const int *key,
    char *out, size_t n)
{
	const struct mln_pred *p = &g->ct->m->preds.v[key[0]];
	size_t k = (size_t)snprintf(out, n, "%s(", p->name);

	for (int i = 0; i < p->arity && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, "%s%s:%lld", i ? "," : "",
		    g->ct->m->types.v[p->types[i]].name,
		    key[2 + 2 * i] == i ? (long long)size[key[1 + 2 * i]] :
		    (long long)-1);
	if (k < n)
		snprintf(out + k, n - k, ")");
}

/* Simplifies child (under as) whose unknown atoms were `expected`, and
 * solves it; *out gets its log Z with constants and free atoms.  Takes
 * child. */
int
search_child(struct eng *g, struct th *child, const struct asg *as,
    double expected, double *out)
{
	struct index ix;
	double konst, z, assigned;
	int rc;

	if (simplify(g, child, as, &konst, &assigned) < 0) {
		th_free(child);
		return err_oom(g->e);
	}
	if (konst == -INFINITY) {
		th_free(child);
		*out = -INFINITY;
		return 0;
	}
	if (index_build(g, child, &ix) < 0) {
		th_free(child);
		return err_oom(g->e);
	}
	konst += (expected - assigned - ix.total) * g->sr->free_atom;
	index_free(&ix);
	g->depth++;
	rc = search_solve(g, child, &z);
	g->depth--;
	if (rc)
		return rc;
	*out = konst + z;
	return 0;
}

/* AND decomposition: returns 1 and solves when t has several
 * components. Takes t and frees ix in that case. */
static int
decompose(struct eng *g, struct th *t, struct index *ix, int top, double *out,
    int *rc)
{
	int *comp, ncomp = th_components(t, ix, &comp);
	struct th **parts = NULL;
	double sum = 0;

	*rc = 0;
	if (ncomp < 0) {
		*rc = err_oom(g->e);
		th_free(t);
		return 1;
	}
	if (ncomp < 2) {
		free(comp);
		return 0;
	}
	index_free(ix);        /* the parts build their own */
	g->st.decompositions++;
	plan_line(g, "AND: %d independent parts", ncomp);
	if (!(parts = xcalloc((size_t)ncomp, sizeof *parts))) {
		th_free(t);
		goto oom;
	}
	if (th_distribute(t, comp, ncomp, parts) < 0)
		goto oom;
	for (int k = 0; k < ncomp; k++) {
		double z;
		struct th *p = parts[k];
		parts[k] = NULL;
		g->cg_top = top;
		if ((*rc = search_solve(g, p, &z)))
			break;
		sum += z;
	}
	*out = sum;
	goto done;
oom:
	*rc = err_oom(g->e);
done:
	for (int k = 0; parts && k < ncomp; k++)
		th_free(parts[k]);
	free(parts);
	free(comp);
	return 1;
}

/* Power rule: a block b and, in every clause, a variable of b in every
 * literal, at the same argument of each class, and distinct from the
 * clause's other variables of b.  Fills x[clause]. */
static int
power_rec(const struct eng *g, const struct th *t, const struct index *ix,
    int b, int i, int *x, int *cpos)
{
	const struct cl *c;

	if (i == (int)t->c.n)
		return 1;
	c = t->c.v[i];
	for (int v = 0; v < c->nvars; v++) {
		int ok = c->blk[v] == b, set[MAX_VARS], nset = 0;
		for (int u = 0; u < c->nvars && ok; u++)
			if (u != v && c->blk[u] == b && !cl_has_neq(c, u, v))
				ok = 0;
		for (int k = 0; k < c->nlits && ok; k++) {
			const struct lit *l = &c->lit[k];
			int cls = ix->cls_of[ix->lpos[i] + k], pos = -1;
			for (int a = 0; a < arity(g, l->pred) && pos < 0; a++)
				if (c->arg[l->off + a] == v)
					pos = a;
			if (pos < 0)
				ok = 0;
			else if (cpos[cls] < 0) {
				cpos[cls] = pos;
				if (nset < MAX_VARS)
					set[nset++] = cls;
				else
					ok = 0;
			} else if (cpos[cls] != pos)
				ok = 0;
		}
		if (ok) {
			x[i] = v;
			if (power_rec(g, t, ix, b, i + 1, x, cpos))
				return 1;
		}
		for (int j = 0; j < nset; j++)
			cpos[set[j]] = -1;
	}
	return 0;
}

/* Returns 1 when the power rule applies to t: then it takes t, frees
 * ix and solves. */
static int
power(struct eng *g, struct th *t, struct index *ix, double *out,
    int *rc)
{
	int *x = xmalloc((t->c.n + 1) * sizeof *x);
	int *cpos = xmalloc(((size_t)ix->ncls + 1) * sizeof *cpos), best = -1;

	*rc = 0;
	if (!x || !cpos) {
		free(x);
		free(cpos);
		*rc = err_oom(g->e);
		th_free(t);
		return 1;
	}
	for (int b = 0; b < t->nb; b++) {
		int ok;
		if (t->size[b] < 2 || (best >= 0 && t->size[b] <= t->size[best]))
			continue;
		for (int k = 0; k < ix->ncls; k++)
			cpos[k] = -1;
		ok = power_rec(g, t, ix, b, 0, x, cpos);
		if (ok)
			best = b;
	}
	if (best >= 0) {
		int64_t n = t->size[best];
		int nb;
		double z, expected = ix->total / (double)n;
		for (int k = 0; k < ix->ncls; k++)
			cpos[k] = -1;
		(void)power_rec(g, t, ix, best, 0, x, cpos);
		index_free(ix);    /* the child builds its own */
		g->st.powers++;
		plan_line(g, "power rule: %lld alike parts, one per %s constant",
		    (long long)n, g->ct->m->types.v[t->type[best]].name);
		if ((nb = th_add_block(t, 1, t->type[best])) < 0) {
			*rc = err_oom(g->e);
			th_free(t);
			goto done;
		}
		t->size[best] = n - 1;
		for (size_t i = 0; i < t->c.n; i++) {
			struct cl *c = t->c.v[i];
			int m = 0;
			c->blk[x[i]] = nb;
			for (int j = 0; j < c->nneq; j++)
				if (c->neq[j][0] != x[i] && c->neq[j][1] != x[i])
					memcpy(c->neq[m++], c->neq[j], sizeof c->neq[j]);
			c->nneq = m;
		}
		if (!g->smp || g->mode.trying) {
			size_t m = g->ga.n;
			if ((*rc = search_child(g, t, NULL, expected, &z)) == 0) {
				*out = (double)n * z;
				counts_scale(g, m, g->ga.n, (double)n);
			}
		} else
			*rc = smp_power(g, t, n, expected, out);
	}
done:
	free(x);
	free(cpos);
	return best >= 0;
}

/* Single occurrence in the max semiring (Mittal et al. 2014; with
 * setineq constraints, one block at a time as in Mittal et al. 2015):
 * a block b of n > 1 constants with at most one variable in b in every
 * clause.  A ground atom then has at most one constant of b, and a
 * ground clause touches the atoms of one constant c of b ("copy c")
 * and atoms of no constant of b (shared).  Given the shared atoms the
 * n copies are alike and independent, so some MAP world gives them the
 * same values, and the optimum is that of the theory with b one
 * constant and every clause with a variable in b weighing n times as
 * much.  Returns 1 when it applies: then it takes t, frees ix and
 * solves. */
static int
single_occ(struct eng *g, struct th *t, struct index *ix, double *out,
    int *rc)
{
	int best = -1;

	*rc = 0;
	for (int b = 0; b < t->nb; b++) {
		int ok = t->size[b] >= 2, any = 0;
		for (size_t i = 0; i < t->c.n && ok; i++) {
			const struct cl *c = t->c.v[i];
			int m = 0;
			for (int v = 0; v < c->nvars; v++)
				m += c->blk[v] == b;
			ok = m <= 1;
			any |= m == 1;
		}
		if (ok && any && (best < 0 || t->size[b] > t->size[best]))
			best = b;
	}
	if (best < 0)
		return 0;
	{
		int64_t n = t->size[best];
		double expected = ix->total;
		index_free(ix);    /* the child builds its own */
		g->st.single_occ++;
		plan_line(g, "single occurrence: %lld %s constants as one, their "
		    "clauses weighing %lld times", (long long)n,
		    g->ct->m->types.v[t->type[best]].name, (long long)n);
		for (size_t i = 0; i < t->c.n; i++) {
			struct cl *c = t->c.v[i];
			for (int v = 0; v < c->nvars; v++)
				if (c->blk[v] == best && !c->hard)
					c->w *= (double)n;
		}
		t->size[best] = 1;
		*rc = search_child(g, t, NULL, expected, out);
	}
	return 1;
}

/* Generalized binomial on class cls, whose one slot is in block b (or a
 * single ground atom when b < 0): k of its atoms true, for every k.
 * Frees ix. */
static int
search_binomial(struct eng *g, struct th *t, struct index *ix, int cls,
    double *out)
{
	const struct occ *o = &ix->occ[ix->first[cls]];
	int b = ix->big[cls], nb = -1, kt[KEY_BUF], kf[KEY_BUF], rc = 0;
	int64_t n = b >= 0 ? t->size[b] : 1;
	double expected = ix->total - ix->atoms[cls], *terms;
	struct asg as = { 2, { kt, kf }, { o->len, o->len }, { 1, 0 } };
	size_t *mk = NULL;     /* per k: where its counts begin in ga */

	g->st.binomials++;
	if (g->plan) {
		char ct[200];
		class_text(g, t->size, o->key, ct, sizeof ct);
		plan_line(g, "binomial on %s: %lld branches", ct, (long long)n + 1);
	}
	if (!(terms = xmalloc(((size_t)n + 2) * sizeof *terms)) ||
	    (g->ntag && !(mk = xmalloc(((size_t)n + 2) * sizeof *mk)))) {
		free(terms);
		return err_oom(g->e);
	}
	if (b < 0)
		memcpy(kt, o->key, o->len * sizeof *kt);
	else {
		if ((nb = th_add_block(t, 0, t->type[b])) < 0)
			rc = err_oom(g->e);
		if (!rc && th_split(t, b, nb) < 0)
			rc = err_oom(g->e);
		key_with(o->key, o->len, b, b, kt);
		key_with(o->key, o->len, b, nb, kf);
	}
	index_free(ix);        /* the children build their own */
	if (b < 0) {
		/* a single atom: true, then false */
		as.n = 1;
		for (int v = 0; v < 2 && !rc; v++) {
			struct th *c = th_copy(t);
			as.truth[0] = !v;
			if (mk)
				mk[v] = g->ga.n;
			if (!c)
				rc = err_oom(g->e);
			else
				rc = search_child(g, c, &as, expected, &terms[v]);
		}
		n = 1;
	} else {
		double mult = g->mult;
		if (g->plan)
			g->mult *= (double)n + 1;
		for (int64_t k = 0; k <= n && !rc; k++) {
			struct th *c;
			if (mk)
				mk[k] = g->ga.n;
			if (g->plan && k != n / 2) {
				terms[k] = -INFINITY;
				continue;
			}
			t->size[b] = k;
			t->size[nb] = n - k;
			if (!(c = th_copy(t))) {
				rc = err_oom(g->e);
				break;
			}
			rc = search_child(g, c, &as, expected, &terms[k]);
			if (!rc)
				terms[k] = g->sr->branch(terms[k], n, k);
		}
		g->mult = mult;
	}
	if (!rc)
		*out = g->sr->combine(terms, n + 1);
	if (!rc && mk)
		counts_shares(g, mk, terms, (size_t)n + 1, *out);
	free(terms);
	free(mk);
	return rc;
}

/* Grounds one constant of block b: b keeps the others. */
static int
ground_one(struct eng *g, struct th *t, struct index *ix, int cls,
    double *out)
{
	int b = ix->big[cls], nb;
	double expected;
	const struct occ *o = &ix->occ[ix->first[cls]];
	const struct mln_model *m = g->ct->m;
	char step[sizeof g->step];

	g->st.groundings++;
	snprintf(step, sizeof step, "grounding a block of %lld %s constants "
	    "for %s/%d", (long long)t->size[b], m->types.v[t->type[b]].name,
	    m->preds.v[o->key[0]].name, arity(g, o->key[0]));
	/* a limit's message names the largest grounding the search needed */
	if (t->size[b] > g->st.largest_grounding) {
		g->st.largest_grounding = t->size[b];
		memcpy(g->step, step, sizeof step);
	}
	plan_line(g, "%s", step);
	if ((nb = th_split_one(t, b)) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	expected = ix->total;
	index_free(ix);
	return search_child(g, t, NULL, expected, out);
}

/* "512M", "2G", "1.5G": n bytes in the units --max-memory reads. */
static void
size_text(int64_t n, char *out, size_t len)
{
	static const char units[] = "KMGT";
	double x = (double)n;
	int u = -1;

	while (u < 3 && x >= 1024) {
		x /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, len, "%lld", (long long)n);
	else
		snprintf(out, len, "%.3g%c", x, units[u]);
}

static int
limits(struct eng *g, const struct th *t)
{
	g->st.nodes++;
	if (g->mode.piloting)
		g->pilot_nodes++;
	/* an exact attempt pays for the size of the theories it visits: a
	 * node of n clauses costs 1 + n / BUDGET_CLAUSES of the budget */
	g->try_work += 1 + (int64_t)t->c.n / BUDGET_CLAUSES;
	if (g->mode.trying && g->try_work > g->try_limit)
		return ENG_OVER_BUDGET;
	/* each level holds a few frames of the C stack: a search this deep
	 * (a block grounded one constant at a time) would overflow it */
	if (g->depth > ENG_MAX_DEPTH)
		return err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "%d levels of search%s%s: the theory does not lift (try "
		    "--method lis)", ENG_MAX_DEPTH, g->step[0] ? " while " : "",
		    g->step);
	if (g->o.max_work > 0 && g->try_work > g->o.max_work)
		return err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "its budget of %lld units of work%s%s", (long long)g->o.max_work,
		    g->step[0] ? " while " : "", g->step);
	if (g->o.max_nodes > 0 && g->st.nodes > g->o.max_nodes)
		return err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "--max-nodes %lld%s%s: the theory does not lift (try --method "
		    "lis)", (long long)g->o.max_nodes, g->step[0] ? " while " : "",
		    g->step);
	if (g->o.max_seconds > 0 && now_seconds() - g->t0 > g->o.max_seconds)
		return err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "--max-seconds %g%s%s: the theory does not lift (try --method "
		    "lis)", g->o.max_seconds, g->step[0] ? " while " : "", g->step);
	/* The search and its cache hold eng_held bytes; a node that would
	 * hold more than the cap stops here, before the kernel kills the
	 * process.  Every level of the search holds its theory, and where
	 * a theory does not lift they are large (docs/internals/lis.md,
	 * "Search costs"). */
	if (g->mem_cap > 0 && eng_held > g->mem_cap) {
		char cap[32];
		size_text(g->mem_cap, cap, sizeof cap);
		return err_set(g->e, SQLIFT_ELIMIT, "%s stopped at --max-memory "
		    "%s%s%s%s: the search and its cache need more memory%s",
		    g->smp ? "sampling" : "exact inference", cap,
		    g->o.max_memory > 0 ? "" : " (the default)", g->step[0] ?
		    " while " : "", g->step, g->smp ? "" : " (try --method lis)");
	}
	/* What it does not count (the sampler's state, the evidence) is
	 * bounded by the resident memory, checked at a large node and
	 * every 1024 nodes. */
	if (g->rss_cap > 0 && (t->c.n >= 4096 || (g->st.nodes & 1023) == 0)) {
		double m = mem_resident();
		if (m > g->rss_cap)
			return err_set(g->e, SQLIFT_ELIMIT, "%s stopped: it holds "
			    "%.1f GB, more than 3/4 of this machine's memory%s%s: the "
			    "theory does not lift%s", g->smp ? "sampling" :
			    "exact inference", m / 1e9, g->step[0] ? " while " : "",
			    g->step, g->smp ? "" : " (try --method lis)");
	}
	return 0;
}

/* The cache's answer for t, if it has one (*state 1: *out set, t
 * freed, as on an error); *key and *h get t's key.  *state 2: t is
 * known to be over the exact budget (or its tracked atoms are) and must
 * be drawn.  A cached value counts while sampling only when the tracked
 * atoms of t are solved too (smp_track_part). */
static int
cache_lookup(struct eng *g, struct th *t, const struct index *ix,
    int sampling, struct ibuf *key, uint64_t *h, int *state, double *out)
{
	struct centry *c;
	int rc = 0;

	*state = 0;
	if (cache_key(g, t, key) < 0) {
		th_free(t);
		*state = 1;
		return err_oom(g->e);
	}
	*h = key_hash(key->v, key->n);
	if ((c = cache_find(g, key, *h)) && c->key) {
		int over = 0;
		double val = c->val;
		if (!isnan(val) && (!sampling || (!c->track_over &&
		    ((rc = smp_track_part(g, t, ix, &over)) || !over)))) {
			g->st.cache_hits++;
			plan_line(g, "cache hit");
			/* smp_track_part's solves may have grown the cache */
			if (sampling)
				c = cache_find(g, key, *h);
			for (int i = 0; i < c->ne; i++)
				counts_push(g, c->etag[i], c->ev[i]);
			*out = val;
			th_free(t);
			*state = 1;
			return rc;
		}
		if (over)
			cache_mark_over(g, key, *h);
		if (g->mode.trying) {
			th_free(t);
			*state = 1;
			return ENG_OVER_BUDGET;
		}
		*state = 2;
	}
	return 0;
}

/* log Z of simplified theory t (not counting atoms outside its
 * clauses).  Takes t.  While sampling (g->smp, not trying) the sampler's
 * hooks (sample/node.c) may answer first: enumeration of a small ground
 * part, an exact try of the part within the budget, and the sampled
 * rules. */
int
search_solve(struct eng *g, struct th *t, double *out)
{
	struct index ix;
	struct ibuf key = { 0 };
	uint64_t h = 0;
	int rc, cls, state = 0, done = 0, batch = 0, first = -1;
	int sampling = g->smp && !g->mode.trying;
	size_t mark0 = g->ga.n;       /* this theory's expected counts */
	int64_t key_held = 0;         /* what key adds to eng_held */
	int top = g->cg_top;          /* t is the top or a component of it */

	g->cg_top = 0;
	if ((rc = limits(g, t))) {
		th_free(t);
		return rc;
	}
	g->est_nodes += g->mult;
	if (t->c.n == 0) {
		th_free(t);
		*out = 0;
		return 0;
	}
	if (index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	if (decompose(g, t, &ix, top, out, &rc)) {
		index_free(&ix);
		return rc;
	}
	if (sampling) {
		batch = smp_batch_first(g, &ix, &first);
		if ((rc = smp_enumerate(g, t, &ix, &done, out)) || done)
			goto done;
	}
	/* a plan's engine is fresh and stores nothing: no key */
	if ((!g->o.no_cache || sampling) && !g->plan &&
	    !(batch && smp_keyless(g, &ix))) {
		rc = cache_lookup(g, t, &ix, sampling, &key, &h, &state, out);
		if (rc || state == 1)
			goto done;
		key_held = (int64_t)(key.cap * sizeof *key.v) + HELD_EXTRA;
		eng_held += key_held;
	}
	if (sampling && state != 2 &&
	    ((rc = smp_try(g, t, &ix, &key, h, mark0, &done, out)) || done))
		goto done;
	if (power(g, t, &ix, out, &rc))
		goto store;
	/* in the max semiring only: a sum counts every copy's worlds */
	if (!g->smp && g->sr == &sr_max && single_occ(g, t, &ix, out, &rc))
		goto store;
	/* order_pick's rules see at most 64 classes */
	if (!batch && ix.ncls > 64 && g->o.order != ENG_POPULATION)
		g->st.order_fallbacks++;
	cls = batch ? first : order_pick(g, t, &ix);
	if (cls < 0) {
		rc = err_oom(g->e);
		th_free(t);
		goto done;
	}
	if (sampling) {
		/* one branch: nothing of this node is needed below it */
		eng_held -= key_held;
		key_held = 0;
		free(key.v);
		key.v = NULL;
	}
	/* the multi-block binomial in exact sums only, the cell graph in
	 * exact sums and maxima (it applies the semiring): the sampler's
	 * nodes keep the rules below */
	if (!g->smp && !g->ntag && g->sr == &sr_sum && ix.slots[cls] <= 1 &&
	    arity(g, ix.occ[ix.first[cls]].key[0]) == 1 &&
	    multibin(g, t, &ix, cls, out, &rc))
		th_free(t);
	else if (!g->smp && !g->ntag && cellgraph(g, t, &ix, top, out, &rc))
		th_free(t);
	else if (ix.slots[cls] > 1)
		rc = ground_one(g, t, &ix, cls, out);
	else if (batch)
		rc = smp_batch(g, t, &ix, out);
	else if (sampling)
		rc = smp_binomial(g, t, &ix, cls, h, out);
	else {
		rc = search_binomial(g, t, &ix, cls, out);
		th_free(t);
	}
store:
	if (!rc && !g->o.no_cache && !g->plan && !sampling)
		cache_put(g, &key, h, *out, mark0);
done:
	eng_held -= key_held;
	free(key.v);
	index_free(&ix);
	return rc;
}
