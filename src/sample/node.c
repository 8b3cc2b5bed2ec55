/* node.c: the search's nodes while sampling: the sampled power rule and
 * binomial, ground atoms drawn in a batch, count pilots and mode splits,
 * and the exact (Rao-Blackwellised) solve of a part's tracked atoms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-int.h"

/* The power rule while sampling: the product of n independent draws of
 * the part t (takes t).  One draw to the power n would not be unbiased:
 * E[X^n] > E[X]^n.  A part that drew nothing is exact: one solve. */
int
smp_power(struct eng *g, struct th *t, int64_t n, double expected,
    double *out)
{
	struct th *part = th_copy(t);
	int64_t d0 = g->st.draws;
	double z, sum;
	size_t m = g->ga.n;
	int rc;

	if (!part) {
		th_free(t);
		return err_oom(g->e);
	}
	if ((rc = search_child(g, t, NULL, expected, &z)))
		goto done;
	if (g->st.draws == d0) {
		*out = (double)n * z;
		counts_scale(g, m, g->ga.n, (double)n);
		goto done;
	}
	sum = z;
	for (int64_t i = 1; i < n && sum > -INFINITY; i++) {
		struct th *c = th_copy(part);
		if (!c) {
			rc = err_oom(g->e);
			goto done;
		}
		if ((rc = search_child(g, c, NULL, expected, &z)))
			goto done;
		sum += z;
	}
	*out = sum;
done:
	th_free(part);
	return rc;
}

/* The Bernoulli proposal key of a ground atom with class key hash h:
 * apart from the nodes keyed by theory. */
uint64_t
prop_atom_key(uint64_t h)
{
	return h ^ 0x9e3779b97f4a7c15ULL;
}

/* While sampling, when the class to branch on is one ground atom: every
 * class of one ground atom in t is drawn at once, each from its own
 * Bernoulli proposal (keyed by the atom), and t is simplified once for
 * all of them instead of once per atom.  The weight is Z(rest) over the
 * product of the proposals: unbiased, as every joint value can be drawn.
 * The proposals adapt towards each atom's marginal under the target
 * (importance-weighted fraction of samples where it was true).  Takes t
 * and frees ix. */
int
smp_batch(struct eng *g, struct th *t, struct index *ix, double *out)
{
	struct amap m = { 0 };
	struct pick {
		uint64_t h;
		int k;
	} *pk = NULL;
	struct index ix2;
	double lq = 0, expected = ix->total, konst, assigned, z;
	size_t na = 0;
	int gk[KEY_BUF], rc = 0;

	for (int c = 0; c < ix->ncls; c++)
		na += index_drawable(g, ix, c);
	for (m.cap = 16; m.cap < 2 * na; m.cap *= 2)
		;
	if (!(m.v = xcalloc(m.cap, sizeof *m.v)) ||
	    !(pk = xmalloc((na + 1) * sizeof *pk))) {
		rc = err_oom(g->e);
		goto fail;
	}
	na = 0;
	for (int c = 0; c < ix->ncls; c++) {
		const struct occ *o = &ix->occ[ix->first[c]];
		struct prop *p;
		uint64_t h;
		double q;
		if (!index_drawable(g, ix, c))
			continue;
		h = fnv1a(FNV_INIT, o->key, o->len * sizeof *o->key);
		pk[na].h = t->gid ? prop_atom_key(fnv1a(FNV_INIT, th_gkey(t, o->key,
		    o->len, gk), o->len * sizeof *o->key)) : prop_atom_key(h);
		pk[na].k = (int)prop_draw(g, pk[na].h, 1, &p, &q);
		lq += q;
		expected -= ix->atoms[c];
		amap_put(&m, h, o->key, o->len, pk[na].k);
		track_set(g, t, o->key, o->len, pk[na].k);
		na++;
	}
	g->st.binomials++;
	g->amap = &m;
	rc = simplify(g, t, NULL, &konst, &assigned);
	g->amap = NULL;
	if (rc < 0) {
		rc = err_oom(g->e);
		goto fail;
	}
	index_free(ix);
	free(m.v);
	m.v = NULL;
	if (konst == -INFINITY) {
		th_free(t);
		*out = -INFINITY;
		goto done;
	}
	if (index_build(g, t, &ix2) < 0) {
		th_free(t);
		rc = err_oom(g->e);
		goto done;
	}
	konst += (expected - assigned - ix2.total) * g->sr->free_atom;
	index_free(&ix2);
	if ((rc = search_solve(g, t, &z)))
		goto done;
	*out = konst + z - lq;
	for (size_t i = 0; i < na && *out > -INFINITY; i++) {
		struct prop *p = g->o.proposal == ENG_PROP_UNIFORM ? NULL :
		    prop_get(g, pk[i].h, 1);
		if (!p)
			continue;
		p->visits++;
		p->lw = log_add(p->lw, *out);
		p->lw2 = log_add(p->lw2, 2 * *out);
		if (pk[i].k)
			p->lwk = log_add(p->lwk, *out);
	}
done:
	free(pk);
	return rc;
fail:
	free(m.v);
	free(pk);
	th_free(t);
	return rc;
}

/* Node t's child with k of class cls's n atoms true, solved (takes t):
 * key (len ints) is the class's key, b its block (< 0: one ground atom). */
static int
count_child(struct eng *g, struct th *t, const int *key, size_t len, int b,
    int64_t k, double expected, double *z)
{
	int kt[KEY_BUF], kf[KEY_BUF], nb;
	struct asg as = { 2, { kt, kf }, { len, len }, { 1, 0 } };

	if (b < 0) {
		memcpy(kt, key, len * sizeof *kt);
		as.n = 1;
		as.truth[0] = (int)k;
		track_set(g, t, key, len, (double)k);
	} else {
		int64_t n = t->size[b];
		if ((nb = th_add_block(t, 0, t->type[b])) < 0 ||
		    th_split(t, b, nb) < 0) {
			th_free(t);
			return err_oom(g->e);
		}
		key_with(key, len, b, b, kt);
		key_with(key, len, b, nb, kf);
		t->size[b] = k;
		t->size[nb] = n - k;
	}
	return search_child(g, t, &as, expected, z);
}

/* A binomial node's pilot, before its first draw: its child is solved
 * (one sample each, below it nothing piloted or tracked) at a grid of
 * counts and then at the midpoints of the intervals that may hold the
 * most of C(n,k) Z(k), and log C(n,k) Z(k) is interpolated linearly
 * between the counts solved: the adaptive proposal alone moves to the
 * first mode it finds, and C(n,k) Z(k) can have several.  Each count's
 * child is solved with the nodes below drawn and, if they drew anything,
 * with all of them at k = 0 and at k = n (g->mode.policy), keeping the
 * largest: a mode where all or none of several classes' atoms are true
 * together is out of the draws' reach (docs/internals/lis.md, "Count
 * pilots").  The solves have a smaller exact budget, their own try_cap,
 * and teach no proposal.  *pil gets the normalised proposal (NULL if
 * every count had weight 0). */
static int
count_pilot(struct eng *g, const struct th *t, const int *key, size_t len,
    int b, double expected, double **pil)
{
	int64_t n = t->size[b], nsolved = 0;
	int grid = g->mode.sampled ? CPILOT_GRID_BELOW : CPILOT_GRID;
	int solves = g->mode.sampled ? CPILOT_SOLVES_BELOW : CPILOT_SOLVES;
	double *v = xmalloc(((size_t)n + 1) * sizeof *v), best = -INFINITY, sum;
	size_t m0 = g->ga.n;   /* the pilot's counts shape nothing */
	struct smp_mode saved;
	int rc = 0;

	*pil = NULL;
	if (!v)
		return err_oom(g->e);
	for (int64_t k = 0; k <= n; k++)
		v[k] = NAN;
	saved = g->mode;
	g->mode.piloting = 1;
	for (;;) {
		int64_t k = -1;
		if (nsolved <= grid) {
			k = (int64_t)((double)n * (double)nsolved / grid + 0.5);
			if (!isnan(v[k]))
				k = -1;
		} else if (nsolved < solves) {
			/* the unsolved interval whose ends give the largest mass
			 * bound: max end + log(length) */
			double bp = -INFINITY;
			for (int64_t a = 0, c; a < n; a = c) {
				double pr;
				for (c = a + 1; isnan(v[c]); c++)
					;
				pr = fmax(v[a], v[c]) + log((double)(c - a));
				if (c - a > 1 && pr > bp && pr > best - CPILOT_NATS) {
					bp = pr;
					k = a + (c - a) / 2;
				}
			}
			if (k < 0)
				break;
		} else
			break;
		nsolved++;
		/* the child once with every node below drawn and, if it
		 * drew anything, with every node below at k = 0 and at k = n
		 * (see above) */
		for (int pol = 0; k >= 0 && pol < 3 && !rc; pol++) {
			struct th *c = th_copy(t);
			int64_t d0 = g->st.draws;
			double z;
			if (!c) {
				rc = err_oom(g->e);
				break;
			}
			g->mode.policy = pol;
			rc = count_child(g, c, key, len, b, k, expected, &z);
			if (!rc) {
				z += lchoose(n, k);
				v[k] = pol ? fmax(v[k], z) : z;
				best = fmax(best, v[k]);
			}
			if (!pol && g->st.draws == d0)
				break;
		}
		if (rc)
			break;
	}
	g->mode = saved;
	g->ga.n = m0;
	if (rc || best == -INFINITY) {
		free(v);
		return rc;
	}
	/* interpolate, exponentiate, normalise */
	sum = 0;
	for (int64_t a = 0, c; a < n; a = c) {
		for (c = a + 1; isnan(v[c]); c++)
			;
		for (int64_t k = a + 1; k < c; k++)
			v[k] = v[a] == -INFINITY || v[c] == -INFINITY ? -INFINITY :
			    v[a] + (v[c] - v[a]) * (double)(k - a) / (double)(c - a);
	}
	for (int64_t k = 0; k <= n; k++)
		sum += v[k] = exp(v[k] - best);
	for (int64_t k = 0; k <= n; k++)
		v[k] /= sum;
	*pil = v;
	return 0;
}

/* A binomial node whose proposal puts most of its mass on one count m:
 * C(n,m) Z(m) is always estimated (a solve of the child at m), and the
 * rest of the sum by the drawn k when it is not m:
 * C(n,m) Z(m) + [k != m] C(n,k) Z(k) / Q(k), whose expectation over k ~ Q
 * is the whole sum.  Drawing k alone gives C(n,m) Z(m) / Q(m) at the
 * mode: a target all at m then looks exact, one sample as good as a
 * thousand, until a draw off the mode brings in the near-zero weight
 * that the Q(m) < 1 was paying for (docs/internals/lis.md, "Mode
 * splits").  Costs a second solve when
 * k is not m (at most 1 - MODE_SPLIT of the visits); where the pilot puts
 * k NEGL_NATS below m, that solve is light (g->mode.negl).  Not with atoms
 * tracked by path (eng_track): their expectations follow one path;
 * counts (eng_track_count) take the two terms' shares.  Takes t. */
static int
mode_split(struct eng *g, struct th *t, const int *key, size_t len, int b,
    double expected, int64_t k, double lq, uint64_t h, double *out)
{
	int64_t n = t->size[b], m;
	struct prop *p = prop_get(g, h, n);
	double zm, zk, lqm;
	size_t mk[2] = { g->ga.n, 0 };
	int rc;

	if (!p) {
		th_free(t);
		return err_oom(g->e);
	}
	m = p->kmode;
	lqm = log(p->qmode);
	if (k != m) {
		struct th *c = th_copy(t);
		int negl = p->pil && p->pil[k] < p->pil[m] * exp(-NEGL_NATS);
		if (!c) {
			th_free(t);
			return err_oom(g->e);
		}
		struct smp_mode saved = g->mode;
		if (negl)
			g->mode.negl = 1;
		rc = count_child(g, c, key, len, b, k, expected, &zk);
		g->mode = saved;
		if (rc) {
			th_free(t);
			return rc;
		}
		zk += lchoose(n, k);
	}
	mk[1] = g->ga.n;
	if ((rc = count_child(g, t, key, len, b, m, expected, &zm)))
		return rc;
	zm += lchoose(n, m);
	*out = k == m ? zm : log_add(zm, zk - lq);
	if (k != m) {
		double lt[2] = { zk - lq, zm };
		counts_shares(g, mk, lt, 2, *out);
	}
	/* the table may have moved */
	if ((p = prop_get(g, h, n))) {
		prop_update(p, m, zm, lqm);
		if (k != m)
			prop_update(p, k, zk, lq);
	}
	return 0;
}

/* The binomial node while sampling: one k drawn from the proposal, and
 * C(n,k) Z(k) / Q(k).  Takes t and frees ix before going down, so that a
 * path through many nodes holds one theory. */
int
smp_binomial(struct eng *g, struct th *t, struct index *ix, int cls,
    uint64_t h, double *out)
{
	const struct occ *o = &ix->occ[ix->first[cls]];
	int b = ix->big[cls], key[KEY_BUF], rc;
	int64_t n = b >= 0 ? t->size[b] : 1, k;
	double expected = ix->total - ix->atoms[cls], lq, z, val;
	size_t len = o->len;
	struct prop *p;
	struct smp_mode saved;

	g->st.binomials++;
	memcpy(key, o->key, len * sizeof *key);
	index_free(ix);
	if (g->mode.piloting && g->mode.policy) {
		/* below a pilot: a fixed count, nothing learnt */
		k = g->mode.policy == 1 ? 0 : n;
		g->st.draws++;
		if ((rc = count_child(g, t, key, len, b, k, expected, &z)))
			return rc;
		*out = z + lchoose(n, k);
		return 0;
	}
	if (n >= CPILOT_MIN && !g->mode.piloting && !g->mode.negl &&
	    (n >= CPILOT_FREE || 2 * g->pilot_nodes <= g->st.nodes) &&
	    g->o.proposal == ENG_PROP_ADAPTIVE &&
	    (p = prop_get(g, h, n)) && !p->visits && !p->pil) {
		double *pil;
		if ((rc = count_pilot(g, t, key, len, b, expected, &pil))) {
			th_free(t);
			return rc;
		}
		/* the table may have moved */
		if ((p = prop_get(g, h, n)) && !p->pil) {
			p->pil = pil;
			p->built = -1;
		} else
			free(pil);
	}
	k = prop_draw(g, h, n, &p, &lq);
	saved = g->mode;
	g->mode.sampled = 1;
	if (p && p->pil && p->qmode >= MODE_SPLIT && !g->npath &&
	    !g->mode.piloting) {
		rc = mode_split(g, t, key, len, b, expected, k, lq, h, out);
		g->mode = saved;
		return rc;
	}
	/* the proposal table may move while the child is solved */
	rc = count_child(g, t, key, len, b, k, expected, &z);
	g->mode = saved;
	if (rc)
		return rc;
	val = z + lchoose(n, k);
	if (p && !g->mode.piloting)
		p = prop_get(g, h, n);
	else
		p = NULL;
	prop_update(p, k, val, lq);
	*out = val - lq;
	return 0;
}

/* While sampling, part t (index ix) is solved exactly rather than drawn:
 * each tracked atom in it gets its exact marginal within t, Z_t(atom) /
 * (Z_t(atom) + Z_t(not atom)), by two exact (cached) searches.  All of
 * them together have the exact budget: fixing one atom breaks the
 * symmetry and the independence that made t cheap (docs/internals/lis.md,
 * "Search costs").  *over is set when they are over it; t must then be
 * drawn. */
int
smp_track_part(struct eng *g, const struct th *t, const struct index *ix,
    int *over)
{
	int rc = 0;

	int64_t limit = g->try_limit;
	struct smp_mode saved = g->mode;
	size_t m0 = g->ga.n;   /* the solves' counts are not t's */

	*over = 0;
	if (!g->npath || g->mode.piloting)
		return 0;
	g->try_limit = g->o.exact_budget > 0 ? g->try_work + g->o.exact_budget :
	    INT64_MAX;
	for (int c = 0; c < ix->ncls && !rc && !*over; c++) {
		const struct occ *o = &ix->occ[ix->first[c]];
		int slot, kt[KEY_BUF], gk[KEY_BUF];
		struct asg as = { 1, { kt }, { o->len }, { 1 } };
		double z[2];
		if (ix->slots[c] != 0 ||
		    (slot = amap_eval(&g->trk, th_gkey(t, o->key, o->len, gk),
		    o->len)) < 0)
			continue;
		memcpy(kt, o->key, o->len * sizeof *kt);
		g->mode.trying = 1;
		for (int v = 0; v < 2 && !rc; v++) {
			struct th *d = th_copy(t);
			as.truth[0] = !v;
			if (!d)
				rc = err_oom(g->e);
			else
				rc = search_child(g, d, &as, ix->total - ix->atoms[c], &z[v]);
		}
		g->mode = saved;
		if (rc == ENG_OVER_BUDGET) {
			rc = 0;
			*over = 1;
		} else if (!rc)
			trk_put(g, slot, z[0] == -INFINITY ? 0 :
			    1 / (1 + exp(z[1] - z[0])));
		g->ga.n = m0;
	}
	g->try_limit = limit;
	return rc;
}

/* Many ground atoms in t: drawn all at once (smp_batch), from *first;
 * a few: one by one, each proposal knowing the earlier draws. */
int
smp_batch_first(const struct eng *g, const struct index *ix, int *first)
{
	return index_count_drawable(g, ix, first) >= BATCH_MIN;
}

/* A node drawn at once that is too big to try exactly needs no cache
 * key: a hit is unlikely, and would only lower the variance. */
int
smp_keyless(const struct eng *g, const struct index *ix)
{
	return g->o.exact_budget == 0 || ix->total >= g->smp->try_cap;
}

/* What enumerating the values of t's atoms would cost, in the exact
 * budget's units (a node of n clauses costs 1 + n / BUDGET_CLAUSES):
 * 2^atoms such evaluations of t.  Infinite beyond 30 atoms. */
double
enum_units(size_t clauses, int atoms)
{
	return atoms > 30 ? INFINITY :
	    ldexp(1 + (double)clauses / BUDGET_CLAUSES, atoms);
}

static double
enum_cost(const struct eng *g, const struct index *ix, const struct th *t)
{
	int first;

	return enum_units(t->c.n, index_count_drawable(g, ix, &first));
}

/* t small and ground: exact by enumeration, with the marginals of its
 * tracked atoms (Rao-Blackwellisation).  *done: solved (t freed, as on
 * an error). */
int
smp_enumerate(struct eng *g, struct th *t, const struct index *ix,
    int *done, double *out)
{
	struct gpart *gp;
	double z;

	*done = 0;
	if (g->o.exact_budget <= 0 || ix->total != ix->ncls ||
	    enum_cost(g, ix, t) > (double)g->o.exact_budget)
		return 0;
	if (gpart_build(g, t, &gp) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	if (!gp)
		return 0;
	g->st.exact_tries++;
	g->st.enumerations++;
	z = gpart_enum(g, gp);
	gpart_free(gp);
	th_free(t);
	if (isnan(z))
		return err_oom(g->e);
	*out = z;
	*done = 1;
	return 0;
}

/* Rao-Blackwellisation: t (key, hash h; its counts from mark0 in ga)
 * solved exactly if that takes at most the exact budget, its tracked
 * atoms too.  *done: solved (t freed, as on an error).  A part over the
 * budget lowers the cap on the parts tried from then on (a heuristic:
 * it changes the variance, not the expectation) and is cached as such. */
int
smp_try(struct eng *g, struct th *t, const struct index *ix,
    const struct ibuf *key, uint64_t h, size_t mark0, int *done,
    double *out)
{
	struct sampler *s = g->smp;
	int light = g->mode.piloting || g->mode.negl;  /* the pilots' budget */
	double *cap = g->mode.piloting ? &s->pilot_cap : g->mode.negl ?
	    &s->negl_cap : &s->try_cap;  /* and their cap, or the others' */
	struct smp_mode saved = g->mode;
	struct th *c;
	double z;
	int rc, over;

	*done = 0;
	if (g->o.exact_budget <= 0 || ix->total >= *cap)
		return 0;
	if (!(c = th_copy(t))) {
		th_free(t);
		return err_oom(g->e);
	}
	g->st.exact_tries++;
	g->mode.trying = 1;
	/* a pilot's solves try with a smaller budget: they are many, and
	 * their values only shape a proposal; so do the parts below a count
	 * the pilot found negligible (their values hardly count;
	 * docs/internals/lis.md, "Count pilots") */
	g->try_limit = g->try_work + (light &&
	    g->o.exact_budget > CPILOT_BUDGET ? CPILOT_BUDGET :
	    g->o.exact_budget);
	rc = search_solve(g, c, &z);
	g->mode = saved;
	if (rc)
		g->ga.n = mark0;  /* drawn instead: its counts come then */
	else {
		if ((rc = smp_track_part(g, t, ix, &over)) || !over) {
			*out = z;
			th_free(t);
			*done = 1;
			return rc;
		}
		cache_mark_over(g, key, h);
		rc = ENG_OVER_BUDGET;
		g->ga.n = mark0;
	}
	if (rc != ENG_OVER_BUDGET) {
		th_free(t);
		return rc;
	}
	g->st.exact_fails++;
	*cap = fmin(*cap, ix->total);
	if (!light)
		cache_put(g, key, h, NAN, SIZE_MAX);
	return 0;
}
