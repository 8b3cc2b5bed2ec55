/* multibin.c: the multi-block binomial rule: a unary class split over
 * several blocks that the theory treats alike once each block's private
 * unary clauses are summed out is branched on its total count, one
 * branch per count instead of one per count vector
 * (docs/internals/lifted.md, "The multi-block binomial"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* At most this many candidate blocks, and |B|^v clauses per merged
 * clause (v: its variables in the merged blocks). */
#define MB_MAX_BLOCKS 64
#define MB_MAX_GROUP (1 << 20)
#define MB_MAX_VECTORS 4096

/* a clause over merged blocks, sorted by merged form, then vector */
struct form {
	uint64_t h;
	int64_t sig;
	int i;
};

struct mb {
	const struct th *t;
	const struct index *ix;
	int pred;
	int nc, c[MB_MAX_BLOCKS];      /* candidate blocks: P(b) a class */
	int *priv;             /* per clause: its block if private, else -1 */
	int nb, b[MB_MAX_BLOCKS];      /* the blocks merged, b[0] first */
	int *bpos;             /* per block of t: its place in b[], or -1 */
	/* per clause: hash of its merged form, and its block vector */
	uint64_t *h;
	int64_t *sig;
	int *nv;
	struct form *fm;       /* scratch of alike's sort */
	int *ord;              /* the clauses over merged blocks, by form */
	int ngrp;              /* their merged forms: first in ord, and how */
	int *gfirst;           /* often each vector of blocks comes */
	int64_t *grep;
};

static int
in_b(const struct mb *m, int blk)
{
	return blk < m->t->nb && m->bpos[blk] >= 0;
}

static uint64_t
mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* Clause c's merged form: its hash, its vector of blocks over the
 * merged blocks (as a number base nb) and how many variables are in
 * them; -1 when two of those variables of one block may be equal. */
static int
merged_form(const struct mb *m, const struct cl *c, uint64_t *h, int64_t *sig,
    int *nv)
{
	uint64_t x;
	int64_t s = 0, mul = 1;
	int v = 0;

	memcpy(&x, &c->w, sizeof x);
	x = mix(mix(mix(x, (uint64_t)c->hard), (uint64_t)c->nvars),
	    (uint64_t)c->nlits);
	x = mix(x, (uint64_t)c->tag);
	for (int k = 0; k < c->nlits; k++)
		x = mix(mix(mix(x, (uint64_t)c->lit[k].pred),
		    (uint64_t)c->lit[k].neg), (uint64_t)c->lit[k].off);
	for (int k = 0; k < c->nargs; k++)
		x = mix(x, (uint64_t)c->arg[k]);
	for (int u = 0; u < c->nvars; u++) {
		int bu = c->blk[u];
		if (!in_b(m, bu)) {
			x = mix(x, (uint64_t)bu);
			continue;
		}
		x = mix(x, (uint64_t)m->b[0]);
		for (int w = 0; w < u; w++)
			if (c->blk[w] == bu && !cl_has_neq(c, w, u))
				return -1;
		s += mul * m->bpos[bu];
		if ((mul *= m->nb) > MB_MAX_GROUP)
			return -1;
		v++;
	}
	/* inequalities but those between two merged variables (implied) */
	for (int u = 0; u < c->nvars; u++)
		for (int w = u + 1; w < c->nvars; w++)
			if (!(in_b(m, c->blk[u]) && in_b(m, c->blk[w])) &&
			    cl_has_neq(c, u, w))
				x = mix(mix(x, (uint64_t)u), (uint64_t)w);
	*h = x;
	*sig = s;
	*nv = v;
	return 0;
}

/* c and d have the same merged form */
static int
same_merged(const struct mb *m, const struct cl *c, const struct cl *d)
{
	if (c->w != d->w || c->hard != d->hard || c->nvars != d->nvars ||
	    c->nlits != d->nlits || c->nargs != d->nargs || c->tag != d->tag ||
	    memcmp(c->lit, d->lit, (size_t)c->nlits * sizeof *c->lit) ||
	    memcmp(c->arg, d->arg, (size_t)c->nargs * sizeof *c->arg))
		return 0;
	for (int u = 0; u < c->nvars; u++) {
		if (in_b(m, c->blk[u]) != in_b(m, d->blk[u]) ||
		    (!in_b(m, c->blk[u]) && c->blk[u] != d->blk[u]))
			return 0;
		for (int w = u + 1; w < c->nvars; w++)
			if (!(in_b(m, c->blk[u]) && in_b(m, c->blk[w])) &&
			    cl_has_neq(c, u, w) != cl_has_neq(d, u, w))
				return 0;
	}
	return 1;
}

static int
cmp_form(const void *a, const void *b)
{
	const struct form *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	if (x->sig != y->sig)
		return x->sig < y->sig ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Vector sig (base nb, one digit per merged variable of a clause of nv
 * of them, pairwise distinct) has groundings: no block gets more of the
 * variables than it has constants. */
static int
feasible(const struct mb *m, int64_t sig, int nv)
{
	int64_t cnt[MB_MAX_BLOCKS] = { 0 };

	for (int v = 0; v < nv; v++, sig /= m->nb)
		if (++cnt[sig % m->nb] > m->t->size[m->b[sig % m->nb]])
			return 0;
	return 1;
}

/* The clauses of t but the merged blocks' private ones are, ground, the
 * clauses of a theory over the union of the blocks in m->b: each merged
 * form comes with every vector of blocks that has groundings, each as
 * often (m->grep[g] times for group g; the others, without groundings,
 * any number of times: normalisation drops them). */
static int
alike(struct mb *m)
{
	const struct th *t = m->t;
	int n = 0;

	for (int i = 0; i < t->nb; i++)
		m->bpos[i] = -1;
	for (int k = 0; k < m->nb; k++)
		m->bpos[m->b[k]] = k;
	for (size_t i = 0; i < t->c.n; i++) {
		if (m->priv[i] >= 0 && in_b(m, m->priv[i]))
			continue;
		if (merged_form(m, t->c.v[i], &m->h[i], &m->sig[i], &m->nv[i]) < 0)
			return 0;
		if (m->nv[i] > 0) {
			m->fm[n].h = m->h[i];
			m->fm[n].sig = m->sig[i];
			m->fm[n++].i = (int)i;
		}
	}
	qsort(m->fm, (size_t)n, sizeof *m->fm, cmp_form);
	for (int k = 0; k < n; k++)
		m->ord[k] = m->fm[k].i;
	m->ngrp = 0;
	for (int s = 0, e; s < n; s = e) {
		int64_t all = 1, rep = -1;
		int k = s, nv = m->nv[m->ord[s]];
		const struct cl *c = t->c.v[m->ord[s]];
		for (e = s; e < n && m->h[m->ord[e]] == m->h[m->ord[s]]; e++)
			if (!same_merged(m, c, t->c.v[m->ord[e]]))
				return 0;
		for (int v = 0; v < nv; v++)
			if ((all *= m->nb) > MB_MAX_VECTORS)
				return 0;
		for (int64_t sig = 0; sig < all; sig++) {
			int64_t cnt = 0;
			for (; k < e && m->sig[m->ord[k]] == sig; k++)
				cnt++;
			if (!feasible(m, sig, nv))
				continue;
			if (rep < 0)
				rep = cnt;
			else if (cnt != rep)
				return 0;
		}
		m->gfirst[m->ngrp] = s;
		m->grep[m->ngrp++] = rep < 0 ? 0 : rep;
	}
	return 1;
}

/* Marks in m->priv the clauses private to a candidate block b: one
 * variable, in b, and every class but P(b) in such clauses of b only. */
static void
find_private(struct mb *m)
{
	const struct th *t = m->t;
	const struct index *ix = m->ix;
	int changed = 1;

	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		m->priv[i] = -1;
		for (int k = 0; c->nvars == 1 && k < m->nc; k++)
			if (c->blk[0] == m->c[k])
				m->priv[i] = c->blk[0];
	}
	while (changed) {
		changed = 0;
		for (int k = 0; k < ix->ncls; k++) {
			const struct occ *o = &ix->occ[ix->first[k]];
			int end = ix->first[k] + index_occurrences(ix, k), mixed = 0;
			int p = m->priv[o->cl];
			if (o->key[0] == m->pred)
				continue;
			for (int j = ix->first[k]; j < end && !mixed; j++)
				mixed = m->priv[ix->occ[j].cl] != p;
			if (!mixed)
				continue;
			for (int j = ix->first[k]; j < end; j++)
				if (m->priv[ix->occ[j].cl] >= 0) {
					m->priv[ix->occ[j].cl] = -1;
					changed = 1;
				}
		}
	}
}

/* The largest set of candidate blocks found alike, greedily; -1 past
 * the search's --max-seconds (up to nc^2 checks of every clause: this
 * node alone can take seconds). */
static int
pick_blocks(const struct eng *g, struct mb *m)
{
	int best[MB_MAX_BLOCKS], nbest = 0, used[MB_MAX_BLOCKS] = { 0 };

	for (int s = 0; s < m->nc; s++) {
		if (g->o.max_seconds > 0 && now_seconds() - g->t0 > g->o.max_seconds)
			return -1;
		if (used[s])
			continue;
		m->nb = 1;
		m->b[0] = m->c[s];
		for (int k = s + 1; k < m->nc; k++) {
			if (used[k])
				continue;
			m->b[m->nb++] = m->c[k];
			if (alike(m))
				used[k] = 1;
			else
				m->nb--;
		}
		if (m->nb > nbest) {
			nbest = m->nb;
			memcpy(best, m->b, (size_t)m->nb * sizeof *best);
		}
	}
	m->nb = nbest;
	memcpy(m->b, best, (size_t)nbest * sizeof *best);
	return 0;
}

/* log Z of one constant of block b's private clauses with P true and
 * false (0 when it has none) */
static int
private_z(struct eng *g, const struct mb *m, int b, const int *key,
    size_t len, double *zt, double *zf)
{
	const struct th *t = m->t;
	struct th *p = th_empty_like(t), *c;
	struct index ix;
	struct buf *plan = g->plan;
	double expected;
	int rc = 0, has = 0;

	if (!p)
		return err_oom(g->e);
	for (size_t i = 0; i < t->c.n; i++)
		if (m->priv[i] == b && th_push(p, cl_copy(t->c.v[i])) < 0) {
			th_free(p);
			return err_oom(g->e);
		}
	p->size[b] = 1;
	if (index_build(g, p, &ix) < 0) {
		th_free(p);
		return err_oom(g->e);
	}
	for (int k = 0; k < ix.ncls && !has; k++)
		has = ix.occ[ix.first[k]].len == len &&
		    !memcmp(ix.occ[ix.first[k]].key, key, len * sizeof *key);
	expected = ix.total - has;
	index_free(&ix);
	g->plan = NULL;
	for (int v = 0; v < 2 && !rc; v++) {
		struct asg as = { 1, { key }, { len }, { !v } };
		if (!(c = th_copy(p)))
			rc = err_oom(g->e);
		else
			rc = search_child(g, c, &as, expected, v ? zf : zt);
	}
	g->plan = plan;
	th_free(p);
	return rc;
}

/* The theory over the merged blocks: the clauses of t but the private
 * ones of the merged blocks and those over them, and each merged form
 * (alike) as often as it came with each vector of blocks, over b[0],
 * which takes all the merged blocks' constants. */
static struct th *
merged_theory(const struct mb *m, int64_t total)
{
	const struct th *t = m->t;
	struct th *d = th_empty_like(t);

	for (size_t i = 0; d && i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		int keep = !(m->priv[i] >= 0 && in_b(m, m->priv[i]));
		for (int u = 0; u < c->nvars && keep; u++)
			keep = !in_b(m, c->blk[u]);
		if (keep && th_push(d, cl_copy(c)) < 0) {
			th_free(d);
			d = NULL;
		}
	}
	for (int g = 0; d && g < m->ngrp; g++) {
		struct cl *c = cl_copy(t->c.v[m->ord[m->gfirst[g]]]), *x;
		for (int u = 0; c && u < c->nvars; u++)
			for (int w = 0; c && w < u; w++)
				if (in_b(m, c->blk[u]) && in_b(m, c->blk[w]) &&
				    !cl_has_neq(c, w, u)) {
					x = cl_add_neq(c, w, u);
					cl_free(c);
					c = x;
				}
		for (int u = 0; c && u < c->nvars; u++)
			if (in_b(m, c->blk[u]))
				c->blk[u] = m->b[0];
		for (int64_t r = 0; c && r < m->grep[g]; r++) {
			x = r + 1 < m->grep[g] ? cl_copy(c) : c;
			if (th_push(d, x) < 0) {
				if (x != c)
					cl_free(c);
				c = NULL;
			}
		}
		if (c && !m->grep[g])
			cl_free(c);
		else if (!c) {
			th_free(d);
			d = NULL;
		}
	}
	for (int k = 0; d && k < m->nb; k++)
		d->size[m->b[k]] = k ? 0 : total;
	return d;
}

/* log Z of one atom of a unit clause of weight w: e^w when the literal
 * holds, 1 when not; kept for the last 8 weights (the replays of a
 * template ask for the same few again and again). */
static double
unit_z(struct eng *g, double w)
{
	double z;
	int slot;

	for (int k = 0; k < g->nuz; k++)
		if (g->uz[k][0] == w)
			return g->uz[k][1];
	slot = g->nuz < 8 ? g->nuz++ : 0;
	z = w > 0 ? w + log1p(exp(-w)) : log1p(exp(w));
	g->uz[slot][0] = w;
	g->uz[slot][1] = z;
	return z;
}

/* log Z of t when each of its clauses is soft, has one literal over all
 * its variables and a class of its own (each of its groundings is a
 * ground atom of no other clause), else NaN. */
static double
units_z(struct eng *g, const struct th *t, const struct index *ix)
{
	double z = 0;

	if (ix->ncls != (int)t->c.n)
		return NAN;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		double n;
		if (c->hard || c->nlits != 1)
			return NAN;
		for (int u = 0; u < c->nvars; u++) {
			int in = 0;
			for (int a = 0; a < c->nargs && !in; a++)
				in = c->arg[a] == u;
			if (!in)
				return NAN;
		}
		n = cl_count(c, t->size);
		if (n != ix->atoms[ix->cls_of[ix->lpos[i]]])
			return NAN;
		z += n * unit_z(g, c->w);
	}
	return z;
}

/* A branch child of unit clauses alone kept to stand for the children
 * of other counts (replay): the child simplified, its index, and what
 * its simplification added up. */
struct tmpl {
	struct sftrace tr;
	struct th *t;
	struct index ix;
};

static void
tmpl_free(struct tmpl *tp)
{
	sftrace_free(&tp->tr);
	if (tp->t)
		index_free(&tp->ix);
	th_free(tp->t);
	tp->t = NULL;
}

/* search_child, but a child of unit clauses alone (units_z) is summed up
 * here instead of searched; with tp, such a child is kept in tp (its
 * simplification recorded) instead of freed.  Takes c. */
static int
child_z(struct eng *g, struct th *c, const struct asg *as, double expected,
    double *out, struct tmpl *tp)
{
	struct index ix;
	double konst, assigned, z;
	int rc;

	g->trace = tp ? &tp->tr : NULL;
	rc = simplify(g, c, as, &konst, &assigned);
	g->trace = NULL;
	if (rc < 0) {
		th_free(c);
		return err_oom(g->e);
	}
	if (konst == -INFINITY) {
		th_free(c);
		*out = -INFINITY;
		return 0;
	}
	if (index_build(g, c, &ix) < 0) {
		th_free(c);
		return err_oom(g->e);
	}
	z = units_z(g, c, &ix);
	konst += (expected - assigned - ix.total) * g->sr->free_atom;
	if (isnan(z)) {
		index_free(&ix);
		g->depth++;
		rc = search_solve(g, c, &z);
		g->depth--;
		if (rc)
			return rc;
	} else {
		g->st.nodes++;
		g->depth++;
		plan_line(g, "unit clauses alone: summed per atom");
		g->depth--;
		if (tp && !tp->tr.bad) {
			tp->t = c;
			tp->ix = ix;
		} else {
			index_free(&ix);
			th_free(c);
		}
	}
	*out = konst + z;
	return 0;
}

/* child_z's value for the child of count k from template tp: the same
 * additions in the same order with blocks b0 and b1 of sizes k and
 * n - k; NaN when tp cannot give it. */
static double
replay(struct eng *g, struct tmpl *tp, int64_t k, int64_t n,
    double expected)
{
	double konst, assigned, z;

	tp->t->size[tp->tr.b0] = k;
	tp->t->size[tp->tr.b1] = n - k;
	if (sftrace_replay(g, &tp->tr, tp->t->size, &konst, &assigned) < 0)
		return NAN;
	index_resize(g, tp->t, &tp->ix);
	z = units_z(g, tp->t, &tp->ix);
	konst += (expected - assigned - tp->ix.total) * g->sr->free_atom;
	return konst + z;
}

/* The counts lo..hi over which d's children keep one structure: every
 * variable of a clause can take a constant of its own in b0 and in b1
 * (so normalisation drops the same clauses), within the counts wlo..whi
 * that have a weight. */
static void
replay_range(const struct th *d, int64_t wlo, int64_t whi, int64_t n,
    int64_t *lo, int64_t *hi)
{
	int64_t m = 2;

	for (size_t i = 0; i < d->c.n; i++)
		if (d->c.v[i]->nvars > m)
			m = d->c.v[i]->nvars;
	*lo = wlo > m ? wlo : m;
	*hi = whi < n - m ? whi : n - m;
}

/* The child of count k: from the template when there is one (tp->t)
 * and lo < k < hi, else in full (at lo, kept as the template; at hi,
 * checked against the template: on a difference *redo is set). */
static int
branch_child(struct eng *g, const struct th *d, const struct asg *as,
    int64_t k, int64_t n, int64_t lo, int64_t hi, double expected,
    struct tmpl *tp, double *out, int *redo)
{
	struct th *c;
	int rc;

	if (tp->t && k > lo && k < hi) {
		*out = replay(g, tp, k, n, expected);
		g->st.nodes++;
		return 0;
	}
	if (!(c = th_copy(d)))
		return err_oom(g->e);
	rc = child_z(g, c, as, expected, out, k == lo && hi - lo > 1 ? tp : NULL);
	if (rc)
		return rc;
	if (tp->t && (k == lo || k == hi) && replay(g, tp, k, n, expected) != *out) {
		*redo = k == hi;
		tmpl_free(tp);
	}
	return 0;
}

/* Branches merged theory d on the count of P(b0): terms[K] the log Z
 * of branch K (unweighed) for wlo <= K <= whi, the counts with a
 * weight, -inf for the others; d is
 * freed by the caller.  Between the counts lo and hi the children
 * differ only in the sizes of b0 and its complement, so one is
 * simplified and the others are its sums redone with their sizes
 * (docs/internals/lifted.md, "Replayed branches"). */
static int
branch(struct eng *g, struct th *d, int b0, const int *key, size_t len,
    int64_t wlo, int64_t whi, int64_t n, double *terms)
{
	int kt[KEY_BUF], kf[KEY_BUF], nb, rc = 0, redo = 0;
	struct asg as = { 2, { kt, kf }, { len, len }, { 1, 0 } };
	struct index ix;
	struct tmpl tp = { { 0 }, NULL, { 0 } };
	double expected, mult = g->mult;
	int64_t lo, hi;

	if (index_build(g, d, &ix) < 0)
		return err_oom(g->e);
	expected = ix.total - (double)n;
	index_free(&ix);
	if ((nb = th_add_block(d, 0, d->type[b0])) < 0 || th_split(d, b0, nb) < 0)
		return err_oom(g->e);
	key_with(key, len, b0, b0, kt);
	key_with(key, len, b0, nb, kf);
	replay_range(d, wlo, whi, n, &lo, &hi);
	tp.tr.b0 = b0;
	tp.tr.b1 = nb;
	if (g->plan || g->ntag)
		lo = hi = -1;
	if (g->plan)
		g->mult *= (double)n + 1;
	for (int64_t k = 0; k <= n && !rc; k++) {
		if ((g->plan && k != n / 2) || k < wlo || k > whi) {
			terms[k] = -INFINITY;
			continue;
		}
		d->size[b0] = k;
		d->size[nb] = n - k;
		rc = branch_child(g, d, &as, k, n, lo, hi, expected, &tp,
		    &terms[k], &redo);
		/* the template differed at hi: the counts between in full */
		for (int64_t j = lo + 1; redo && j < hi && !rc; j++) {
			struct th *c;
			g->st.nodes--;
			d->size[b0] = j;
			d->size[nb] = n - j;
			if (!(c = th_copy(d)))
				rc = err_oom(g->e);
			else
				rc = child_z(g, c, &as, expected, &terms[j], NULL);
		}
		redo = 0;
	}
	tmpl_free(&tp);
	g->mult = mult;
	return rc;
}

/* A copy of t in which each clause where two variables of one candidate
 * block may be equal is split, as th_normalise does within a literal:
 * once with them apart and once as one variable (its groundings are
 * those of the two); *out NULL when no clause needs it. */
static int
split_equal(const struct mb *m, const struct th *t, struct th **out)
{
	struct th *d = NULL;

	*out = NULL;
	for (size_t i = 0; i < (d ? d->c.n : t->c.n); i++) {
		const struct cl *c = (d ? d : t)->c.v[i];
		struct cl *x, *y;
		int u = -1, v = -1;
		for (int a = 0; a < c->nvars && u < 0; a++)
			for (int b = a + 1; b < c->nvars && u < 0; b++)
				if (c->blk[a] == c->blk[b] && !cl_has_neq(c, a, b))
					for (int k = 0; k < m->nc; k++)
						if (c->blk[a] == m->c[k]) {
							u = a;
							v = b;
						}
		if (u < 0)
			continue;
		if (!d && !(d = th_copy(t)))
			return -1;
		c = d->c.v[i];
		if (!(x = cl_without(c, v, u)) || !(y = cl_add_neq(c, u, v))) {
			cl_free(x);
			th_free(d);
			return -1;
		}
		cl_free(d->c.v[i]);
		d->c.v[i--] = x;
		if (th_push(d, y) < 0) {
			th_free(d);
			return -1;
		}
	}
	*out = d;
	return 0;
}

/* The count polynomial prod_b (e^f_b + e^t_b x)^n_b over the merged
 * blocks (f_b, t_b: their private parts' log Z per constant with P false
 * and true), the largest block's factor pl (degree nl) apart from the
 * product w0 of the others (degree d0): the product w (degree deg) is
 * computed only at the counts asked for (NaN: not yet).  top bounds
 * every coefficient (the log of their sum); lo .. hi: the finite ones.
 * Kept in g->mbp: each marginal's two searches (atom true, atom false)
 * merge the same blocks with the same private parts. */
struct mbpoly {
	int nb;
	int64_t n[MB_MAX_BLOCKS];
	double zt[MB_MAX_BLOCKS], zf[MB_MAX_BLOCKS];
	int64_t d0, nl, deg, lo, hi;
	double *w0, *pl, *w, top;
};

static void
mbpoly_free(struct mbpoly *c)
{
	if (c) {
		free(c->w0);
		free(c->pl);
		free(c->w);
	}
	free(c);
}

void
multibin_free(struct eng *g)
{
	mbpoly_free(g->mbp);
	g->mbp = NULL;
}

/* m's blocks and parts are those of g->mbp (bit for bit) */
static int
poly_same(const struct eng *g, const struct mb *m, const double *zt,
    const double *zf)
{
	const struct mbpoly *c = g->mbp;

	if (!c || c->nb != m->nb)
		return 0;
	for (int k = 0; k < m->nb; k++)
		if (c->n[k] != m->t->size[m->b[k]] ||
		    memcmp(&c->zt[k], &zt[k], sizeof *zt) ||
		    memcmp(&c->zf[k], &zf[k], sizeof *zf))
			return 0;
	return 1;
}

/* log of (n choose j) e^(j t + (n - j) f) into p[j], j = 0 .. n */
static void
factor(double *p, int64_t n, double t, double f)
{
	for (int64_t j = 0; j <= n; j++)
		p[j] = lchoose(n, j) + (j ? (double)j * t : 0) +
		    (n - j ? (double)(n - j) * f : 0);
}

/* g->mbp for m's blocks (n[], zt[], zf[] in m's order): w0 and pl
 * computed, w not yet; q: scratch of deg + 1 doubles, ra, rb: of twice
 * as many. */
static int
poly_new(struct eng *g, const struct mb *m, const double *zt,
    const double *zf, double *q, double *ra, double *rb)
{
	struct mbpoly *c;
	int last = 0, first = 1;

	multibin_free(g);
	if (!(c = g->mbp = xcalloc(1, sizeof *c)))
		return err_oom(g->e);
	c->nb = m->nb;
	for (int k = 0; k < m->nb; k++) {
		c->n[k] = m->t->size[m->b[k]];
		c->zt[k] = zt[k];
		c->zf[k] = zf[k];
		c->deg += c->n[k];
		c->top += (double)c->n[k] * sr_sum.add(zt[k], zf[k]);
		c->lo += zf[k] == -INFINITY ? c->n[k] : 0;
		c->hi += zt[k] == -INFINITY ? 0 : c->n[k];
		if (c->n[k] > c->n[last])
			last = k;
	}
	c->nl = c->n[last];
	c->d0 = c->deg - c->nl;
	c->w0 = xmalloc(((size_t)c->d0 + 1) * sizeof *c->w0);
	c->pl = xmalloc(((size_t)c->nl + 1) * sizeof *c->pl);
	c->w = xmalloc(((size_t)c->deg + 1) * sizeof *c->w);
	if (!c->w0 || !c->pl || !c->w) {
		multibin_free(g);
		return err_oom(g->e);
	}
	for (int64_t j = 0; j <= c->deg; j++)
		c->w[j] = NAN;
	for (int64_t k = 0, deg = 0; k < m->nb; k++) {
		if (k == last)
			continue;
		if (first) {
			factor(c->w0, c->n[k], zt[k], zf[k]);
			first = 0;
		} else {
			/* pl, as large as any factor, is the scratch */
			factor(c->pl, c->n[k], zt[k], zf[k]);
			poly_mul(c->w0, deg, c->pl, c->n[k], q, ra, rb, NULL, 0);
			memcpy(c->w0, q, ((size_t)(deg + c->n[k]) + 1) * sizeof *q);
		}
		deg += c->n[k];
	}
	factor(c->pl, c->nl, zt[last], zf[last]);
	return 0;
}

/* g->mbp for m's blocks: the private parts solved, the polynomial kept
 * from the last time or made (poly_new's scratch q, ra, rb). */
static int
count_poly(struct eng *g, const struct mb *m, size_t len, double *q,
    double *ra, double *rb)
{
	int key[KEY_BUF], rc;
	double zt[MB_MAX_BLOCKS], zf[MB_MAX_BLOCKS];

	for (int k = 0; k < m->nb; k++) {
		key[0] = m->pred;
		key[1] = m->b[k];
		key[2] = 0;
		if ((rc = private_z(g, m, m->b[k], key, len, &zt[k], &zf[k])))
			return rc;
	}
	return poly_same(g, m, zt, zf) ? 0 : poly_new(g, m, zt, zf, q, ra, rb);
}

/* log of the sum over counts k of e^terms[k] (the branch of count k)
 * times the coefficient w[k] of c: a term whose bound terms[k] + top
 * falls more than POLY_DROP + log(deg + 1) nats below a term found adds
 * nothing (all such add up to e^-POLY_DROP of the largest at most), so
 * its coefficient is not computed; the others are, once, in c.  need:
 * scratch of deg + 1 bytes, ra, rb: poly_mul's. */
static double
weigh(struct mbpoly *c, double *terms, unsigned char *need, double *ra,
    double *rb)
{
	int64_t best = -1, nneed = 0;
	double cut;

	for (int64_t k = c->lo; k <= c->hi; k++)
		if (terms[k] > -INFINITY && (best < 0 || terms[k] > terms[best]))
			best = k;
	if (best < 0)
		return -INFINITY;
	memset(need, 0, (size_t)c->deg + 1);
	if (isnan(c->w[best])) {
		need[best] = 1;
		poly_mul(c->w0, c->d0, c->pl, c->nl, c->w, ra, rb, need, 1);
		need[best] = 0;
	}
	cut = terms[best] + c->w[best] - POLY_DROP - log((double)c->deg + 1) -
	    c->top;
	for (int64_t k = c->lo; k <= c->hi; k++)
		if (terms[k] >= cut && isnan(c->w[k])) {
			need[k] = 1;
			nneed++;
		}
	if (nneed)
		poly_mul(c->w0, c->d0, c->pl, c->nl, c->w, ra, rb, need, nneed);
	for (int64_t k = 0; k <= c->deg; k++)
		terms[k] = k >= c->lo && k <= c->hi && terms[k] >= cut ?
		    terms[k] + c->w[k] : -INFINITY;
	return sr_sum.combine(terms, c->deg + 1);
}

static void
plan_rule(struct eng *g, const struct mb *m, int64_t total)
{
	char ct[200];
	int key[3] = { m->pred, m->b[0], 0 };
	int64_t *size = xmalloc(((size_t)m->t->nb + 1) * sizeof *size);

	if (!size)
		return;
	memcpy(size, m->t->size, (size_t)m->t->nb * sizeof *size);
	size[m->b[0]] = total;
	class_text(g, size, key, ct, sizeof ct);
	free(size);
	plan_line(g, "multi-block binomial on %s, %d blocks alike: %lld "
	    "branches", ct, m->nb, (long long)total + 1);
}

/* The rule on class cls (at most one slot, of a unary predicate P):
 * returns 1 and solves t when P's classes over two or more blocks are
 * alike (*rc: the status), else 0.  Does not take t. */
int
multibin(struct eng *g, const struct th *t, const struct index *ix, int cls,
    double *out, int *rc)
{
	struct mb m = { .t = t, .ix = ix, .pred = ix->occ[ix->first[cls]].key[0] };
	int key[KEY_BUF], ok = 0;
	size_t len = 0, nc;
	int64_t total = 0;
	double *terms = NULL, *q = NULL, *ra = NULL, *rb = NULL;
	unsigned char *need = NULL;
	struct mbpoly *poly = NULL;
	struct th *d = NULL, *split = NULL;
	struct index six = { 0 };

	*rc = 0;
	for (int k = 0; k < ix->ncls; k++) {
		const struct occ *o = &ix->occ[ix->first[k]];
		if (o->key[0] != m.pred || t->size[o->key[1]] < 1)
			continue;
		if (m.nc == MB_MAX_BLOCKS)
			return 0;
		m.c[m.nc++] = o->key[1];
		len = o->len;
	}
	if (m.nc < 2)
		return 0;
	if (split_equal(&m, t, &split) < 0 ||
	    (split && index_build(g, split, &six) < 0)) {
		*rc = err_oom(g->e);
		goto done;
	}
	if (split) {
		m.t = split;
		m.ix = &six;
	}
	nc = m.t->c.n + 1;
	m.priv = xmalloc(nc * sizeof *m.priv);
	m.bpos = xmalloc(((size_t)t->nb + 1) * sizeof *m.bpos);
	m.h = xmalloc(nc * sizeof *m.h);
	m.sig = xmalloc(nc * sizeof *m.sig);
	m.nv = xmalloc(nc * sizeof *m.nv);
	m.ord = xmalloc(nc * sizeof *m.ord);
	m.fm = xmalloc(nc * sizeof *m.fm);
	m.gfirst = xmalloc(nc * sizeof *m.gfirst);
	m.grep = xmalloc(nc * sizeof *m.grep);
	if (!m.priv || !m.bpos || !m.h || !m.sig || !m.nv || !m.ord ||
	    !m.fm || !m.gfirst || !m.grep) {
		*rc = err_oom(g->e);
		goto done;
	}
	find_private(&m);
	if (pick_blocks(g, &m) < 0) {
		*rc = err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "--max-seconds %g: the theory does not lift (try --method lis)",
		    g->o.max_seconds);
		goto done;
	}
	if (m.nb < 2)
		goto done;
	(void)alike(&m);       /* m.bpos for the blocks picked */
	for (int k = 0; k < m.nb; k++)
		total += t->size[m.b[k]];
	if (!(terms = xmalloc(((size_t)total + 1) * sizeof *terms)) ||
	    !(need = xmalloc((size_t)total + 1)) ||
	    !(q = xmalloc(((size_t)total + 1) * sizeof *q)) ||
	    !(ra = xmalloc(2 * ((size_t)total + 1) * sizeof *ra)) ||
	    !(rb = xmalloc(2 * ((size_t)total + 1) * sizeof *rb))) {
		*rc = err_oom(g->e);
		goto done;
	}
	ok = 1;
	g->st.binomials++;
	g->st.multibinomials++;
	if (g->plan)  /* a schematic run follows one branch: no weight */
		plan_rule(g, &m, total);
	else if ((*rc = count_poly(g, &m, len, q, ra, rb)))
		goto done;
	else {
		/* held here while the branches search: a rule below keeps
		 * its own in g->mbp */
		poly = g->mbp;
		g->mbp = NULL;
	}
	key[0] = m.pred;
	key[1] = m.b[0];
	key[2] = 0;
	if (!(d = merged_theory(&m, total)))
		*rc = err_oom(g->e);
	else if (!(*rc = branch(g, d, m.b[0], key, len, poly ? poly->lo : 0,
	    poly ? poly->hi : total, total, terms)))
		*out = g->plan ? sr_sum.combine(terms, total + 1) :
		    weigh(poly, terms, need, ra, rb);
done:
	if (poly) {  /* the cache again, for the next search of a marginal */
		multibin_free(g);
		g->mbp = poly;
	}
	th_free(d);
	th_free(split);
	if (split)
		index_free(&six);
	free(terms);
	free(need);
	free(q);
	free(ra);
	free(rb);
	free(m.priv);
	free(m.bpos);
	free(m.h);
	free(m.sig);
	free(m.nv);
	free(m.ord);
	free(m.fm);
	free(m.gfirst);
	free(m.grep);
	return ok || *rc;
}
