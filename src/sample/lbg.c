/* lbg.c: lifted blocked Gibbs (Venugopal and Gogate, NIPS 2012): the
 * clusters of predicates (their Algorithm 2), the blocks of a sweep made
 * from them, and the draw of a block of independent atoms by counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/gibbs-int.h"

typedef VEC(int) ivec;
typedef VEC(unsigned char) cvec;
typedef VEC(struct lbg_binom *) bvec;
typedef VEC(struct lbg_tree *) tvec;

/* What clustering needs: each atom's predicate and cluster, union-find
 * over the atoms, and per root its size and formula incidences. */
struct lbg_work {
	struct gb_model *m;
	int *fat;
	int *pred;             /* per atom: its predicate */
	int *cl;               /* per predicate: its cluster, -1: no atom */
	int *parent, *size;
	double *inc;
	int *pos;              /* per atom -1 (lbg_tree_make's scratch) */
	struct lbg_gscratch gs; /* lbg_binom_group's scratch */
};

/* The formula evaluations of a group of size atoms with inc formula
 * incidences drawn by enumeration: a Gray code, 2^size values, each
 * step one atom's formulas. */
static double
enum_cost(double inc, int size)
{
	return ldexp(inc, size) / size;
}

/* Groups of the atoms whose predicates are in cluster a or b (b may be
 * a): atoms of the cluster that share a formula are joined.  Out: their
 * statistics in *c, and the union-find in w. */
static void
groups(struct lbg_work *w, int a, int b, struct lbg_cluster *c)
{
	const struct gb_model *m = w->m;
	const struct ground *g = m->g;
	double cost = 0, single = 0;

	memset(c, 0, sizeof *c);
	for (int u = 0; u < m->n; u++) {
		w->parent[u] = u;
		w->size[u] = 1;
		w->inc[u] = m->afirst[u + 1] - m->afirst[u];
	}
	for (size_t f = 0; f < g->gf.n; f++) {
		int k = gb_form_atoms(g, (int)f, w->fat), r = -1;
		for (int i = 0; i < k; i++) {
			int u = w->fat[i], cu = w->cl[w->pred[u]], q;
			if (cu != a && cu != b)
				continue;
			q = gb_find(w->parent, u);
			if (r < 0)
				r = q;
			else if (q != r) {
				w->parent[q] = r;
				w->size[r] += w->size[q];
				w->inc[r] += w->inc[q];
			}
		}
	}
	for (int u = 0; u < m->n; u++) {
		int cu = w->cl[w->pred[u]];
		if (cu != a && cu != b)
			continue;
		c->atoms++;
		single += 2 * (m->afirst[u + 1] - m->afirst[u]);
		if (gb_find(w->parent, u) != u)
			continue;
		c->groups++;
		if (w->size[u] > c->largest)
			c->largest = w->size[u];
		if (w->size[u] <= LBG_GROUP_MAX)
			cost += enum_cost(w->inc[u], w->size[u]);
	}
	c->lifted = c->largest <= LBG_GROUP_MAX;
	c->cost = c->lifted ? cost : single;
}

/* Whether every group of clusters a and b above LBG_GROUP_MAX atoms is a
 * binomial block by counts on one pivot predicate (lbg_binom_group), the
 * others drawn as a lifted cluster's: then c->lifted 3, with the
 * cheapest such pivot; -1: out of memory.  w's union-find is groups'. */
static int
group_eval(struct lbg_work *w, int a, int b, struct lbg_cluster *c)
{
	const struct gb_model *m = w->m;
	size_t n = (size_t)m->n + 1;
	int *head = xcalloc(n, sizeof *head), *nxt = xcalloc(n, sizeof *nxt);
	int *buf = xcalloc(n, sizeof *buf), rc = -1;
	double small = 0;

	if (!head || !nxt || !buf)
		goto done;
	for (int u = 0; u < m->n; u++)
		head[u] = -1;
	/* members by root, ascending; the small groups' cost as groups() */
	for (int u = m->n - 1; u >= 0; u--) {
		int cu = w->cl[w->pred[u]], r;
		if (cu != a && cu != b)
			continue;
		r = gb_find(w->parent, u);
		nxt[u] = head[r];
		head[r] = u;
		if (r == u && w->size[u] <= LBG_GROUP_MAX)
			small += enum_cost(w->inc[u], w->size[u]);
	}
	rc = 0;
	for (int p = 0; p < m->g->npreds; p++) {
		double cost = small;
		int ok = 1;
		if (w->cl[p] != a && w->cl[p] != b)
			continue;
		for (int r = 0; ok == 1 && r < m->n; r++) {
			int k = 0, cu = w->cl[w->pred[r]];
			double gc = 0;
			if ((cu != a && cu != b) || head[r] < 0 ||
			    w->size[r] <= LBG_GROUP_MAX)
				continue;
			for (int v = head[r]; v >= 0; v = nxt[v])
				buf[k++] = v;
			ok = lbg_binom_group(m, w->pred, buf, k, p, &w->gs, &gc,
			    NULL);
			cost += gc;
		}
		if (ok < 0) {
			rc = -1;
			break;
		}
		if (ok == 1 && (c->lifted != 3 || cost < c->cost)) {
			c->lifted = 3;
			c->pivot = p;
			c->cost = cost;
		}
	}
done:
	free(head);
	free(nxt);
	free(buf);
	return rc;
}

/* A cluster's statistics (groups), and when its groups are too large,
 * the cheapest pivot that makes it a binomial block, or failing that
 * each large group one; -1: out of memory. */
static int
evaluate(struct lbg_work *w, int a, int b, struct lbg_cluster *c)
{
	groups(w, a, b, c);
	if (c->lifted)
		return 0;
	for (int p = 0; p < w->m->g->npreds; p++) {
		double J, cost;
		int rc;
		if (w->cl[p] != a && w->cl[p] != b)
			continue;
		rc = lbg_binom_check(w->m, w->pred, w->cl, a, b, p, &J, &cost,
		    NULL);
		if (rc < 0)
			return -1;
		if (rc == 1 && (c->lifted != 2 || cost < c->cost)) {
			c->lifted = 2;
			c->pivot = p;
			c->J = J;
			c->cost = cost;
		}
	}
	return c->lifted ? 0 : group_eval(w, a, b, c);
}

/* Algorithm 2: a cluster per predicate with unknown atoms, then while
 * some pair can merge, the pair with the most coupling (groundings that
 * hold atoms of both) among those whose merged cluster is lifted and
 * whose sweep costs no more than before or at most LBG_ALPHA times the
 * first clustering's. */
static int
cluster(struct lbg_work *w, struct lbg_cluster *cl, int np)
{
	const struct ground *g = w->m->g;
	double *coup = xcalloc((size_t)np * np + 1, sizeof *coup), total = 0,
	    alpha;
	int *seen = xcalloc((size_t)np + 1, sizeof *seen), rc = -1;
	/* per pair of clusters its merged statistics, kept until a merge
	 * changes one of the two */
	struct lbg_cluster *pc = xcalloc((size_t)np * np + 1, sizeof *pc);
	unsigned char *pv = xcalloc((size_t)np * np + 1, 1);

	if (!coup || !seen || !pc || !pv)
		goto done;
	for (size_t f = 0; f < g->gf.n; f++) {
		int k = gb_form_atoms(g, (int)f, w->fat), ps[64], nps = 0;
		for (int i = 0; i < k && nps < 64; i++) {
			int p = w->pred[w->fat[i]];
			if (seen[p] == (int)f + 1)
				continue;
			seen[p] = (int)f + 1;
			ps[nps++] = p;
		}
		for (int i = 0; i < nps; i++)
			for (int j = 0; j < nps; j++)
				if (i != j)
					coup[ps[i] * np + ps[j]]++;
	}
	for (int p = 0; p < np; p++)
		if (w->cl[p] >= 0) {
			if (evaluate(w, p, p, &cl[p]) < 0)
				goto done;
			total += cl[p].cost;
		}
	alpha = LBG_ALPHA * total;
	for (;;) {
		double best = 0, bt = 0;
		int bi = -1, bj = -1;
		struct lbg_cluster bc = { 0 };
		/* clusters are named by their first predicate */
		for (int i = 0; i < np; i++)
			for (int j = i + 1; j < np; j++) {
				double c = 0, t;
				struct lbg_cluster mc;
				if (w->cl[i] != i || w->cl[j] != j)
					continue;
				for (int p = 0; p < np; p++)
					for (int q = 0; q < np; q++)
						if (w->cl[p] == i && w->cl[q] == j)
							c += coup[p * np + q];
				if (c <= best)
					continue;
				if (!pv[i * np + j]) {
					if (evaluate(w, i, j, &pc[i * np + j]) < 0)
						goto done;
					pv[i * np + j] = 1;
				}
				mc = pc[i * np + j];
				t = total - cl[i].cost - cl[j].cost + mc.cost;
				if (!mc.lifted || (t > total && t > alpha))
					continue;
				best = c;
				bi = i;
				bj = j;
				bc = mc;
				bt = t;
			}
		if (bi < 0)
			break;
		for (int p = 0; p < np; p++) {
			if (w->cl[p] == bj)
				w->cl[p] = bi;
			pv[p * np + bi] = pv[bi * np + p] = 0;
		}
		cl[bi] = bc;
		total = bt;
	}
	rc = 0;
done:
	free(coup);
	free(seen);
	free(pc);
	free(pv);
	return rc;
}

/* Whether the k atoms a[] of a group of cluster c make a tree (then *t,
 * a[] reordered, and the cluster's cost its draw's instead of the
 * enumeration's that groups() counted); -1: out of memory. */
static int
group_tree(struct lbg_work *w, int c, int *a, int k, struct lbg_tree **t)
{
	struct gb_model *m = w->m;
	double inc = 0, cost;
	int rc = lbg_tree_make(m, a, k, w->pos, w->fat, t, &cost);

	if (rc != 1)
		return rc;
	for (int i = 0; i < k; i++)
		inc += m->afirst[a[i] + 1] - m->afirst[a[i]];
	m->cl[c].cost += cost - enum_cost(inc, k);
	m->cl[c].trees++;
	return 1;
}

/* The swap groups as blocks of kind 5, after their cliques' draws. */
static int
push_swaps(struct lbg_work *w, ivec *bf, ivec *ba, cvec *ind, bvec *bin,
    tvec *tree, const struct lbg_swaps *sw)
{
	struct gb_model *m = w->m;

	for (int j = 0; j < sw->n; j++) {
		struct lbg_cluster *c =
		    &m->cl[w->cl[w->pred[sw->atom[sw->first[j]]]]];
		int nc = (sw->first[j + 1] - sw->first[j]) / sw->k[j];
		if (VEC_PUSH(*bf, (int)ba->n) < 0 || VEC_PUSH(*ind, 5) < 0 ||
		    VEC_PUSH(*bin, NULL) < 0 || VEC_PUSH(*tree, NULL) < 0)
			return -1;
		for (int i = sw->first[j]; i < sw->first[j + 1]; i++)
			if (VEC_PUSH(*ba, sw->atom[i]) < 0)
				return -1;
		c->swaps++;
		if (nc > c->largest_swap)
			c->largest_swap = nc;
	}
	return 0;
}

/* The group of root u (members from u by next) as a binomial block by
 * counts on pivot (kind 2, lbg_binom_group); -1: out of memory. */
static int
push_group(struct lbg_work *w, int u, const int *next, int pivot, ivec *bf,
    ivec *ba, cvec *ind, bvec *bin, tvec *tree)
{
	struct lbg_binom *bb = NULL;
	size_t start = ba->n;
	double cost;

	if (VEC_PUSH(*bf, (int)start) < 0)
		return -1;
	for (int v = u; v >= 0; v = next[v])
		if (VEC_PUSH(*ba, v) < 0)
			return -1;
	if (lbg_binom_group(w->m, w->pred, ba->v + start, (int)(ba->n - start),
	    pivot, &w->gs, &cost, &bb) != 1 || VEC_PUSH(*bin, bb) < 0) {
		lbg_binom_free(bb);
		return -1;
	}
	return VEC_PUSH(*ind, 2) < 0 || VEC_PUSH(*tree, NULL) < 0 ? -1 : 0;
}

/* The blocks of a sweep, cluster by cluster in predicate order: of a
 * lifted cluster one block of its single-atom groups (independent given
 * the rest: indep) and one per larger group; of another cluster a block
 * per clique and per pair of cp (lbg_coupled) and per atom left single.
 * Then the swap groups of sw, and, as in make_blocks, a block per hard
 * formula of 2 to GB_HARD_MAX atoms that spans two groups. */
static int
blocks(struct lbg_work *w, int np, ivec *bf, ivec *ba, cvec *ind,
    bvec *bin, tvec *tree, int *next, const struct lbg_coupled *cp,
    const struct lbg_swaps *sw)
{
	const int *mate = cp->mate;
	struct gb_model *m = w->m;
	const struct ground *g = m->g;

	/* the groups of every cluster at once */
	for (int u = 0; u < m->n; u++)
		w->parent[u] = u;
	for (size_t f = 0; f < g->gf.n; f++) {
		int k = gb_form_atoms(g, (int)f, w->fat);
		for (int i = 1; i < k; i++)
			for (int j = 0; j < i; j++) {
				int a = w->fat[i], b = w->fat[j], ra, rb, l;
				if (w->cl[w->pred[a]] != w->cl[w->pred[b]])
					continue;
				l = m->cl[w->cl[w->pred[a]]].lifted;
				if (l != 1 && l != 3)
					continue;
				ra = gb_find(w->parent, a);
				rb = gb_find(w->parent, b);
				if (ra != rb)
					w->parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
			}
	}
	/* size per root; members linked from the root in atom order */
	for (int u = 0; u < m->n; u++) {
		w->size[u] = 0;
		next[u] = -1;
	}
	for (int u = m->n - 1; u >= 0; u--) {
		int r = gb_find(w->parent, u);
		w->size[r]++;
		if (r != u) {
			next[u] = next[r];
			next[r] = u;
		}
	}
	for (int c = 0; c < np; c++) {
		int lifted;
		if (w->cl[c] != c)
			continue;
		lifted = m->cl[c].lifted;
		if (lifted == 2) {
			struct lbg_binom *bb = NULL;
			if (lbg_binom_check(m, w->pred, w->cl, c, c, m->cl[c].pivot,
			    &m->cl[c].J, &m->cl[c].cost, &bb) != 1 ||
			    VEC_PUSH(*bin, bb) < 0) {
				lbg_binom_free(bb);
				return -1;
			}
			if (VEC_PUSH(*bf, (int)ba->n) < 0 || VEC_PUSH(*ind, 2) < 0 ||
			    VEC_PUSH(*tree, NULL) < 0)
				return -1;
			for (int pass = 0; pass < 2; pass++)
				for (int u = 0; u < m->n; u++)
					if (w->cl[w->pred[u]] == c && (w->pred[u] ==
					    m->cl[c].pivot) == (pass == 0) &&
					    VEC_PUSH(*ba, u) < 0)
						return -1;
			continue;
		}
		if (lifted) {
			size_t start = ba->n;
			for (int u = 0; u < m->n; u++)
				if (w->cl[w->pred[u]] == c && w->size[u] == 1 &&
				    gb_find(w->parent, u) == u && VEC_PUSH(*ba, u) < 0)
					return -1;
			if (ba->n > start && (VEC_PUSH(*bf, (int)start) < 0 ||
			    VEC_PUSH(*ind, 1) < 0 || VEC_PUSH(*bin, NULL) < 0 ||
			    VEC_PUSH(*tree, NULL) < 0))
				return -1;
		}
		for (int u = 0; u < m->n; u++) {
			size_t start = ba->n;
			struct lbg_tree *t = NULL;
			if (w->cl[w->pred[u]] != c || gb_find(w->parent, u) != u ||
			    (lifted && w->size[u] == 1) ||
			    (!lifted && ((mate[u] >= 0 && mate[u] < u) ||
			    cp->root[u] != u)))
				continue;
			if (lifted == 3 && w->size[u] > LBG_GROUP_MAX) {
				if (push_group(w, u, next, m->cl[c].pivot, bf, ba, ind,
				    bin, tree) < 0)
					return -1;
				continue;
			}
			if (!lifted && cp->size[u] > 1) {
				/* a clique: its atoms listed from u */
				if (VEC_PUSH(*bf, (int)ba->n) < 0 ||
				    VEC_PUSH(*ind, 4) < 0 || VEC_PUSH(*bin, NULL) < 0 ||
				    VEC_PUSH(*tree, NULL) < 0)
					return -1;
				for (int v = u; v >= 0; v = cp->next[v])
					if (VEC_PUSH(*ba, v) < 0)
						return -1;
				m->cl[c].cliques++;
				if (cp->size[u] > m->cl[c].largest_clique)
					m->cl[c].largest_clique = cp->size[u];
				continue;
			}
			if (VEC_PUSH(*bf, (int)ba->n) < 0)
				return -1;
			for (int v = u; v >= 0; v = next[v])
				if (VEC_PUSH(*ba, v) < 0)
					return -1;
			if (!lifted && mate[u] >= 0) {
				if (VEC_PUSH(*ba, mate[u]) < 0)
					return -1;
				m->cl[c].pairs++;
			}
			if (lifted && w->size[u] >= 3 &&
			    group_tree(w, c, ba->v + start, w->size[u], &t) < 0)
				return -1;
			if (VEC_PUSH(*ind, t ? 3 : 0) < 0 || VEC_PUSH(*bin, NULL) < 0 ||
			    VEC_PUSH(*tree, t) < 0) {
				lbg_tree_free(t);
				return -1;
			}
		}
	}
	if (push_swaps(w, bf, ba, ind, bin, tree, sw) < 0)
		return -1;
	{
		struct gb_hard hs = { 0 };
		int ok = gb_hard_sets(g, m->n, w->parent, w->fat, &hs) == 0;
		for (int j = 0; ok && j < hs.n; j++) {
			ok = VEC_PUSH(*bf, (int)ba->n) == 0 && VEC_PUSH(*ind, 0) == 0 &&
			    VEC_PUSH(*bin, NULL) == 0 && VEC_PUSH(*tree, NULL) == 0;
			for (int i = hs.first[j]; ok && i < hs.first[j + 1]; i++)
				ok = VEC_PUSH(*ba, hs.atom[i]) == 0;
		}
		gb_hard_free(&hs);
		if (!ok)
			return -1;
	}
	return VEC_PUSH(*bf, (int)ba->n) < 0 || VEC_PUSH(*ba, 0) < 0 ? -1 : 0;
}

/* The formula bundles of the atoms drawn independently (kind 1 blocks,
 * a binomial block's satellites), and each cluster's cost with them: per
 * distinct bundle its formulas twice, per atom one addition per bundle,
 * instead of its formulas twice; -1: out of memory. */
static int
bundle(struct gb_model *m, const int *pred)
{
	unsigned char *want = xcalloc((size_t)m->n + 1, 1), *read = NULL;
	const struct lbg_bundles *b;
	int rc = -1;

	if (!want)
		return -1;
	/* the atoms drawn by lbg_draw_indep: of kind 1, and the satellites
	 * of kind 2 (after the pivots) */
	for (int k = 0; k < m->nblocks; k++)
		if (m->indep[k] == 1 || m->indep[k] == 2)
			for (int i = m->bfirst[k] + (m->indep[k] == 2 ?
			    m->bin[k]->npiv : 0); i < m->bfirst[k + 1]; i++)
				want[m->batom[i]] = 1;
	if (lbg_bundles_make(m, pred, want, &m->bun) < 0 ||
	    !(read = xcalloc((size_t)m->bun->nb + 1, 1)))
		goto done;
	b = m->bun;
	for (int u = 0; u < m->n; u++) {
		if (!b->on[u])
			continue;
		m->cl[m->cl_of_pred[pred[u]]].cost += (b->afirst[u + 1] -
		    b->afirst[u]) - 2.0 * (m->afirst[u + 1] - m->afirst[u]);
		for (int q = b->afirst[u]; q < b->afirst[u + 1]; q++)
			read[b->abun[q]] = 1;
	}
	for (int j = 0; j < b->nb; j++) {
		struct lbg_cluster *c = &m->cl[m->cl_of_pred[pred[b->rep[j]]]];
		if (!read[j])
			continue;
		c->cost += 2.0 * (b->ffirst[j + 1] - b->ffirst[j]);
		c->bundles++;
	}
	rc = 0;
done:
	free(want);
	free(read);
	return rc;
}

int
lbg_blocks(struct gb_model *m, int *fat)
{
	const struct ground *g = m->g;
	struct lbg_work w = { 0 };
	ivec bf = { 0 }, ba = { 0 };
	cvec ind = { 0 };
	bvec bin = { 0 };
	tvec tree = { 0 };
	int *next = NULL;
	struct lbg_coupled cp = { 0 };
	struct lbg_swaps sw = { 0 };
	int np = g->npreds, rc = -1, idx[64];

	w.m = m;
	w.fat = fat;
	w.pred = xcalloc((size_t)m->n + 1, sizeof *w.pred);
	w.parent = xcalloc((size_t)m->n + 1, sizeof *w.parent);
	w.size = xcalloc((size_t)m->n + 1, sizeof *w.size);
	w.inc = xcalloc((size_t)m->n + 1, sizeof *w.inc);
	w.cl = xcalloc((size_t)np + 1, sizeof *w.cl);
	m->cl = xcalloc((size_t)np + 1, sizeof *m->cl);
	next = xcalloc((size_t)m->n + 1, sizeof *next);
	w.pos = xcalloc((size_t)m->n + 1, sizeof *w.pos);
	w.gs.role = xcalloc((size_t)m->n + 1, 1);
	w.gs.x = xcalloc((size_t)m->n + 1, 1);
	w.gs.pidx = xcalloc((size_t)m->n + 1, sizeof *w.gs.pidx);
	w.gs.fat = fat;
	if (!w.pred || !w.parent || !w.size || !w.inc || !w.cl || !m->cl ||
	    !next || !w.pos || !w.gs.role || !w.gs.x || !w.gs.pidx)
		goto done;
	for (int p = 0; p < np; p++)
		w.cl[p] = -1;
	for (int u = 0; u < m->n; u++) {
		w.pred[u] = ground_atom_decode(g, g->unk_atom.v[u], idx);
		w.cl[w.pred[u]] = w.pred[u];
		w.pos[u] = w.gs.pidx[u] = -1;
	}
	if (cluster(&w, m->cl, np) < 0)
		goto done;
	/* the atoms of the clusters drawn single-site, labelled by cluster
	 * (in w.size, which blocks() sets again) */
	for (int u = 0; u < m->n; u++) {
		int c = w.cl[w.pred[u]];
		w.size[u] = m->cl[c].lifted == 0 ? c + 1 : 0;
	}
	if (lbg_coupled(m, w.size, fat, &cp) < 0 ||
	    lbg_swap_groups(m, w.size, &cp, fat, &sw) < 0 ||
	    blocks(&w, np, &bf, &ba, &ind, &bin, &tree, next, &cp, &sw) < 0)
		goto done;
	m->bfirst = bf.v;
	m->batom = ba.v;
	m->indep = ind.v;
	m->bin = bin.v;
	bin.v = NULL;
	m->tree = tree.v;
	tree.v = NULL;
	tree.n = 0;
	bin.n = 0;
	m->nblocks = (int)bf.n - 1;
	bf.v = ba.v = NULL;
	ind.v = NULL;
	for (int b = 0; b < m->nblocks && !m->cJ; b++)
		if (m->indep[b] == 4 && !(m->cJ = xcalloc((size_t)m->nblocks,
		    sizeof *m->cJ)))
			goto done;
	for (int b = 0; m->cJ && b < m->nblocks; b++)
		if (m->indep[b] == 4)
			m->cJ[b] = cp.J[m->batom[m->bfirst[b]]];
	if (sw.n > 0 && !(m->swk = xcalloc((size_t)m->nblocks, sizeof *m->swk)))
		goto done;
	for (int b = 0; m->swk && b < m->nblocks; b++)
		if (m->indep[b] == 5)
			m->swk[b] = cp.size[cp.root[m->batom[m->bfirst[b]]]];
	m->cl_of_pred = w.cl;
	w.cl = NULL;
	m->ncl = np;
	if (bundle(m, w.pred) < 0)
		goto done;
	rc = 0;
done:
	free(next);
	lbg_coupled_free(&cp);
	lbg_swaps_free(&sw);
	free(w.pred);
	free(w.parent);
	free(w.size);
	free(w.inc);
	free(w.cl);
	free(bf.v);
	free(ba.v);
	free(ind.v);
	for (size_t i = 0; i < bin.n; i++)
		lbg_binom_free(bin.v[i]);
	free(bin.v);
	for (size_t i = 0; i < tree.n; i++)
		lbg_tree_free(tree.v[i]);
	free(tree.v);
	free(w.pos);
	free(w.gs.role);
	free(w.gs.x);
	free(w.gs.pidx);
	return rc;
}

int
lbg_ground_plan(struct gb_model *m, int block_max, int *fat,
    struct gb_plan *pl)
{
	if (lbg_blocks(m, fat) < 0) {
		gb_lbg_free(m);
		return -1;
	}
	for (int u = 0; u < m->n; u++) {
		pl->pre[u] = u;
		pl->label[u] = -1;
	}
	/* label -2: placed, whole or alone; -1: not yet */
	for (int b = 0; b < m->nblocks; b++) {
		const int *a = m->batom + m->bfirst[b];
		int k = m->bfirst[b + 1] - m->bfirst[b], t = m->indep[b], i;
		if (t == 5)
			continue;
		/* past an earlier block's atoms: a set of hard formulas across
		 * groups, which make_blocks makes again where it spans two */
		for (i = 0; i < k && pl->label[a[i]] == -1; i++)
			;
		if (i < k)
			continue;
		for (i = 0; i < k; i++)
			if (t == 1)
				pl->label[a[i]] = -2;
			else if (t != 2 && k <= block_max) {
				pl->pre[a[i]] = a[0];
				pl->label[a[i]] = -2;
			} else
				pl->label[a[i]] = b;
	}
	gb_lbg_free(m);
	return 0;
}

/* A draw from Binomial(n, p): inversion, outwards from the mode. */
static int
binomial(struct eng_rng *r, int n, double p)
{
	int mode, lo, hi;
	double u, pm, plo, phi, q;

	if (p <= 0)
		return 0;
	if (p >= 1)
		return n;
	mode = (int)floor((n + 1) * p);
	if (mode > n)
		mode = n;
	pm = exp(lgamma(n + 1.0) - lgamma(mode + 1.0) - lgamma(n - mode + 1.0) +
	    mode * log(p) + (n - mode) * log1p(-p));
	q = p / (1 - p);
	u = eng_rng_unit(r);
	if (u < pm)
		return mode;
	u -= pm;
	lo = hi = mode;
	plo = phi = pm;
	while ((hi < n && phi > 0) || (lo > 0 && plo > 0)) {
		if (hi < n) {
			phi *= (double)(n - hi) / (hi + 1) * q;
			hi++;
			if (u < phi)
				return hi;
			u -= phi;
		}
		if (lo > 0) {
			plo *= (double)lo / (n - lo + 1) / q;
			lo--;
			if (u < plo)
				return lo;
			u -= plo;
		}
	}
	return mode;  /* u past the total by rounding */
}

/* P(u true | the rest of x): its formulas with u true and false. */
static double
cond_p(const struct gb_model *m, int u, unsigned char *x, int *stack)
{
	unsigned char bad;
	double d = lbg_logodds(m, u, m->aform + m->afirst[u],
	    m->afirst[u + 1] - m->afirst[u], x, stack, &bad);

	/* the current value is allowed (x satisfies the hard formulas) */
	return bad & 2 ? 0 : bad & 1 ? 1 : 1 / (1 + exp(-d));
}

void
lbg_update(const struct gb_model *m, int b, unsigned char *x, double *cur,
    struct gb_scratch *s, struct eng_rng *r)
{
	lbg_draw_indep(m, m->batom + m->bfirst[b], m->bfirst[b + 1] -
	    m->bfirst[b], x, cur, s, r);
}

void
lbg_draw_indep(const struct gb_model *m, const int *a, int k,
    unsigned char *x, double *cur, struct gb_scratch *s, struct eng_rng *r)
{
	int nc = 0, pos = 0;

	/* every conditional first: the atoms share no formula, so a draw
	 * does not change another's */
	for (int i = 0; i < 2 * LBG_CLASSES; i++)
		s->cslot[i] = -1;
	if (m->bun && ++s->stamp == 0) {  /* wrapped: every value stale */
		memset(s->bstamp, 0, (size_t)m->bun->nb * sizeof *s->bstamp);
		s->stamp = 1;
	}
	for (int i = 0; i < k; i++) {
		double p = s->L && m->ls->track[a[i]] ?
		    1 / (1 + exp(-s->L[a[i]])) : m->bun && m->bun->on[a[i]] ?
		    lbg_bundle_p(m, a[i], x, s) : cond_p(m, a[i], x, s->stack);
		uint64_t key;
		unsigned h;
		memcpy(&key, &p, sizeof key);
		h = (unsigned)((key * 0x9e3779b97f4a7c15ULL) >> 54) %
		    (2 * LBG_CLASSES);
		while (s->cslot[h] >= 0 && s->ckey[s->cslot[h]] != key)
			h = (h + 1) % (2 * LBG_CLASSES);
		if (s->cslot[h] < 0 && nc < LBG_CLASSES) {
			s->cslot[h] = nc;
			s->ckey[nc] = key;
			s->cp[nc] = p;
			s->ccount[nc++] = 0;
		}
		s->cid[i] = s->cslot[h];
		cur[a[i]] = p;
		if (s->cid[i] >= 0)
			s->ccount[s->cid[i]]++;
		else  /* past LBG_CLASSES classes: one by one */
			x[a[i]] = eng_rng_unit(r) < p;
	}
	for (int c = 0; c < nc; c++) {
		s->cstart[c] = pos;
		pos += s->ccount[c];
		s->ccount[c] = 0;
	}
	for (int i = 0; i < k; i++)
		if (s->cid[i] >= 0) {
			int c = s->cid[i];
			s->memb[s->cstart[c] + s->ccount[c]++] = a[i];
		}
	/* per class: how many are true, then which (a partial shuffle of
	 * the smaller side) */
	for (int c = 0; c < nc; c++) {
		int *v = s->memb + s->cstart[c], n = s->ccount[c];
		int t = binomial(r, n, s->cp[c]), few = t <= n - t ? t : n - t;
		for (int j = 0; j < few; j++) {
			int o = j + (int)(eng_rng_unit(r) * (n - j)), tmp = v[j];
			v[j] = v[o];
			v[o] = tmp;
		}
		for (int j = 0; j < n; j++)
			x[v[j]] = (unsigned char)((j < few) == (t <= n - t));
	}
}

int
lbg_explain(const struct ground *g, struct buf *out, struct err *e)
{
	struct gb_model m;
	double total = 0;
	int rc, n = 0;

	if ((rc = gb_model_build(&m, g, 1, 1, e)))
		return rc;
	for (int c = 0; c < m.ncl; c++)
		if (m.cl_of_pred[c] == c)
			total += m.cl[c].cost;
	buf_printf(out, "lbg clusters (%d unknown atoms; cost: formula "
	    "evaluations per sweep, %.0f in all):\n", m.n, total);
	for (int c = 0; c < m.ncl; c++) {
		const struct lbg_cluster *k = &m.cl[c];
		if (m.cl_of_pred[c] != c)
			continue;
		buf_printf(out, "  cluster %d:", ++n);
		for (int p = 0, j = 0; p < m.ncl; p++)
			if (m.cl_of_pred[p] == c)
				buf_printf(out, "%s %s", j++ ? "," : "",
				    g->m->preds.v[p].name);
		if (k->lifted == 2)
			buf_printf(out, ": %lld atoms; lifted: binomial rule on "
			    "%s (its count, then which), the rest independent "
			    "given it; pair weight %.6g", (long long)k->atoms,
			    g->m->preds.v[k->pivot].name, k->J);
		else if (k->lifted == 3)
			buf_printf(out, ": %lld atoms in %lld groups, the largest "
			    "%d atoms; lifted: in each group above %d atoms the "
			    "binomial rule on %s (its count, then which; the rest "
			    "independent given it, summed out as weights of the "
			    "count), the others drawn jointly", (long long)k->atoms,
			    (long long)k->groups, k->largest, LBG_GROUP_MAX,
			    g->m->preds.v[k->pivot].name);
		else
			buf_printf(out, ": %lld atoms in %lld groups, the largest "
			    "%d atoms; %s", (long long)k->atoms,
			    (long long)k->groups, k->largest, !k->lifted ?
			    "ground (a group above the group limit): single-site "
			    "but for its coupled blocks" :
			    k->largest == 1 ?
			    "lifted: independent atoms, by counts" :
			    "lifted: independent groups, each drawn jointly");
		if (k->trees)
			buf_printf(out, " (%lld of them trees, by sum-product)",
			    (long long)k->trees);
		if (k->cliques)
			buf_printf(out, "; %lld cliques of up to %d atoms (by "
			    "their count of true atoms)", (long long)k->cliques,
			    k->largest_clique);
		if (k->swaps)
			buf_printf(out, "; %lld swap groups of up to %d aligned "
			    "cliques (two positions exchanged in all, Metropolis)",
			    (long long)k->swaps, k->largest_swap);
		if (k->pairs)
			buf_printf(out, "; %lld pairs (by enumeration)",
			    (long long)k->pairs);
		if (k->bundles)
			buf_printf(out, "; conditionals from %lld shared formula "
			    "bundle%s", (long long)k->bundles, k->bundles == 1 ?
			    "" : "s");
		buf_printf(out, "; cost %.0f\n", k->cost);
	}
	if (m.ls)
		buf_printf(out, "  log-odds kept for %d atoms (formulas as "
		    "tables of %d shapes, moved as atoms change)\n",
		    m.ls->ntrack, m.ls->nshape);
	buf_printf(out, "  blocks per sweep: %d\n", m.nblocks);
	gb_model_free(&m);
	return out->oom ? err_oom(e) : 0;
}
