/* target.c: what is sampled (targets: the theory, or it with one atom
 * fixed, kept as independent parts), tracked and counted atoms, and
 * eng_sample. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-int.h"

/* A target is kept as its independent parts: a part that drew nothing
 * in a sample is exact, and later samples reuse its value (and the
 * expectations it gave tracked atoms) without searching it again. */
struct tpart {
	struct th *t;
	int exact;
	double val;
	int *slots;            /* tracked atoms it set, and to what */
	double *vals;
	size_t nslots;
	struct gpart *gp;      /* all ground: drawn from this flat copy */
	int gp_tried;          /* 0: not yet; 1: search drew all (try flat);
	                          2: done; 3: the search solved parts exactly */
	int *tags;             /* the counted classes it holds */
	size_t ntags, captags;
};

struct eng_target {
	struct th *t;          /* NULL once split into parts */
	double konst;
	struct tpart *part;
	size_t nparts, size;
	double *lw;            /* per part: its log weight in the last sample */
	int *slot_part;        /* per tracked slot: the part holding it, or -1 */
	int nslots;
};

/* Splits tg->t into its components (clauses linked by shared classes). */
static int
target_split(struct eng *g, struct eng_target *tg)
{
	struct th *t = tg->t, **parts = NULL;
	struct index ix;
	int *comp = NULL, nc, rc = -1;

	tg->size = t->c.n;
	if (index_build(g, t, &ix) < 0)
		return -1;
	nc = th_components(t, &ix, &comp);
	index_free(&ix);
	if (nc < 0 || !(tg->part = xcalloc((size_t)nc + 1, sizeof *tg->part)) ||
	    !(parts = xcalloc((size_t)nc + 1, sizeof *parts)))
		goto done;
	tg->t = NULL;
	rc = th_distribute(t, comp, nc, parts);
	tg->nparts = (size_t)nc;
	for (int k = 0; k < nc; k++)
		tg->part[k].t = parts[k];
done:
	free(parts);
	free(comp);
	return rc;
}

/* Room in the slot tables for one more slot. */
static int
slot_room(struct eng *g)
{
	size_t cap;
	struct aent *v;
	int *keys;
	double *tv;

	if (g->trk.cap >= 2 * ((size_t)g->ntrk + 1))
		return 0;
	/* grow: rehash from the key list */
	cap = g->trk.cap ? 2 * g->trk.cap : 64;
	v = xcalloc(cap, sizeof *v);
	keys = xrealloc(g->trk_keys, cap / 2 * KEY_LEN * sizeof *keys);
	tv = xrealloc(g->trk_v, cap / 2 * sizeof *tv);
	if (keys)
		g->trk_keys = keys;
	if (tv)
		g->trk_v = tv;
	if (!v || !keys || !tv) {
		free(v);
		return -1;
	}
	free(g->trk.v);
	g->trk.v = v;
	g->trk.cap = cap;
	for (int k = 0; k < g->ntrk; k++) {
		const int *kk = g->trk_keys + (size_t)k * KEY_LEN;
		size_t kl;
		if (kk[0] < 0)
			continue;          /* a count's */
		kl = 1 + 2 * (size_t)g->ct->m->preds.v[kk[0]].arity;
		amap_put(&g->trk, fnv1a(FNV_INIT, kk, kl * sizeof *kk), kk, kl, k);
	}
	return 0;
}

/* Which part of tg holds each tracked atom (as a class of its own), and
 * each counted class (its unit clause). */
static int
slot_parts(struct eng *g, struct eng_target *tg)
{
	tg->nslots = g->ntrk;
	if (!(tg->slot_part = xmalloc(((size_t)g->ntrk + 1) *
	    sizeof *tg->slot_part)))
		return -1;
	for (int i = 0; i < g->ntrk; i++)
		tg->slot_part[i] = -1;
	for (size_t k = 0; k < tg->nparts; k++) {
		struct index ix;
		if (index_build(g, tg->part[k].t, &ix) < 0)
			return -1;
		for (int c = 0; c < ix.ncls; c++) {
			const struct occ *o = &ix.occ[ix.first[c]];
			int gk[KEY_BUF], slot = amap_eval(&g->trk, th_gkey(tg->part[k].t,
			    o->key, o->len, gk), o->len);
			if (slot >= 0)
				tg->slot_part[slot] = (int)k;
		}
		index_free(&ix);
		for (size_t i = 0; i < tg->part[k].t->c.n; i++) {
			struct tpart *p = &tg->part[k];
			int tag = p->t->c.v[i]->tag, *slot;
			if (!tag || *(slot = &tg->slot_part[g->tags[tag - 1].slot]) ==
			    (int)k)
				continue;
			*slot = (int)k;
			if (vec_grow_((void **)&p->tags, &p->captags, p->ntags + 1,
			    sizeof *p->tags))
				return -1;
			p->tags[p->ntags++] = tag - 1;
		}
	}
	return 0;
}

int
eng_target_new(struct eng *g, int pred, const int *block, const int *eq,
    int truth, struct eng_target **out, double *known, struct err *e)
{
	struct eng_target *tg = xcalloc(1, sizeof *tg);
	int rc;

	g->e = e;
	*out = NULL;
	*known = -1;
	if (!tg)
		return err_oom(e);
	if (pred < 0) {
		if (!(tg->t = th_copy(g->top))) {
			free(tg);
			return err_oom(e);
		}
		tg->konst = g->top_add;
	} else if ((rc = cond_theory(g, pred, block, eq, truth, &tg->t,
	    &tg->konst, known)) || !tg->t) {
		free(tg);
		return rc;
	}
	if (target_split(g, tg) < 0 ||
	    !(tg->lw = xcalloc(tg->nparts + 1, sizeof *tg->lw)) ||
	    (g->ntrk && slot_parts(g, tg) < 0)) {
		eng_target_free(tg);
		return err_oom(e);
	}
	*out = tg;
	return 0;
}

int
eng_track(struct eng *g, int pred, const int *block, const int *eq,
    int *slot, struct err *e)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	size_t len = 1 + 2 * (size_t)p->arity;
	int *key, nb[MAX_VARS], split = 0;

	*slot = -1;
	/* A class of several atoms: one atom stands for it, its constants
	 * split off in the theory as blocks of their own (which leaves Z as
	 * it is).  The j-th distinct argument in block b takes b's j-th
	 * representative, shared by all classes: a new one is split off when
	 * b has none left, b itself when it is down to one constant. */
	if (!g->reps) {
		g->nreps = g->top->nb;
		if (!(g->reps = xcalloc((size_t)g->nreps + 1, sizeof *g->reps)))
			return err_oom(e);
	}
	for (int a = 0; a < p->arity; a++) {
		int b = g->boff[p->types[a]] + block[a], j = 0;
		struct ibuf *r = &g->reps[b];
		if (eq[a] != a) {
			nb[a] = nb[eq[a]];
			continue;
		}
		for (int u = 0; u < a; u++)
			j += eq[u] == u && g->boff[p->types[u]] + block[u] == b;
		if ((size_t)j >= r->n) {
			int oom = 0, x = b;
			if (g->top->size[b] > 1) {
				if ((x = th_split_one(g->top, b)) < 0)
					return err_oom(e);
				split = 1;
			}
			ib_add(r, x, &oom);
			if (oom)
				return err_oom(e);
		}
		nb[a] = r->v[j];
	}
	if (split) {
		if (th_normalise(g, g->top) < 0)
			return err_oom(e);
		top_drop(g);
	}
	if (slot_room(g) < 0)
		return err_oom(e);
	key = g->trk_keys + (size_t)g->ntrk * KEY_LEN;
	key[0] = pred;
	for (int a = 0; a < p->arity; a++) {
		key[1 + 2 * a] = nb[a];
		key[2 + 2 * a] = eq[a];
	}
	if ((*slot = amap_eval(&g->trk, key, len)) >= 0)
		return 0;
	amap_put(&g->trk, fnv1a(FNV_INIT, key, len * sizeof *key), key, len,
	    g->ntrk);
	*slot = g->ntrk++;
	g->npath++;
	return 0;
}

double
eng_class_atoms(const struct eng *g, int pred, const int *block,
    const int *eq)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	double r = 1;

	for (int a = 0; a < p->arity; a++) {
		int m = 0;     /* distinct arguments before it in its block */
		if (eq[a] != a)
			continue;
		for (int u = 0; u < a; u++)
			m += eq[u] == u && p->types[u] == p->types[a] &&
			    block[u] == block[a];
		r *= fmax(0, (double)(g->ct->sp->size[p->types[a]][block[a]] - m));
	}
	return r;
}

int
eng_track_count(struct eng *g, int pred, const int *block, const int *eq,
    double min_atoms, int *slot, int *counted, struct err *e)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	size_t len = 1 + 2 * (size_t)p->arity;
	int key[KEY_BUF], var[MAX_VARS], blk[MAX_VARS], nv = 0, nneq = 0, cls = -1;
	struct cl *c;
	double atoms = 0;

	*slot = -1;
	*counted = 0;
	key[0] = pred;
	for (int a = 0; a < p->arity; a++) {
		key[1 + 2 * a] = g->boff[p->types[a]] + block[a];
		key[2 + 2 * a] = eq[a];
	}
	if (p->arity == 0 || eng_class_atoms(g, pred, block, eq) <
	    fmax(min_atoms, 2))
		return eng_track(g, pred, block, eq, slot, e);
	/* a new slot, unless the class has one */
	for (int k = 0; k < g->ntrk; k++)
		if (g->trk_keys[(size_t)k * KEY_LEN] == -1 - pred &&
		    !memcmp(g->trk_keys + (size_t)k * KEY_LEN + 1, key + 1,
		    (len - 1) * sizeof *key)) {
			*slot = k;
			*counted = 1;
			return 0;
		}
	if (slot_room(g) < 0)
		return err_oom(e);
	/* the class in some clause, and its atoms: a scan, not index_build,
	 * which sorts every literal and would make this quadratic in the
	 * groups (coarse blocks give thousands) */
	for (size_t i = 0; i < g->top->c.n && cls < 0; i++) {
		const struct cl *x = g->top->c.v[i];
		for (int k = 0; k < x->nlits && cls < 0; k++) {
			int lk[KEY_BUF];
			if (x->lit[k].pred != pred ||
			    lit_key(g, x, &x->lit[k], lk) != len ||
			    memcmp(lk, key, len * sizeof *key))
				continue;
			cls = 0;
			atoms = lit_atoms(g, x, &x->lit[k], g->top->size);
		}
	}
	*counted = 1;
	/* the slot; trk_keys has -1 - pred, so that it is no path's key */
	memcpy(g->trk_keys + (size_t)g->ntrk * KEY_LEN, key, len * sizeof *key);
	g->trk_keys[(size_t)g->ntrk * KEY_LEN] = -1 - pred;
	*slot = g->ntrk++;
	if (cls < 0)
		return 0;      /* in no clause: 1/2, as eng_sample leaves it */
	/* its unit clause of weight 0: one variable per distinct argument,
	 * those of one block apart */
	for (int a = 0; a < p->arity; a++)
		if (eq[a] == a) {
			var[a] = nv;
			blk[nv++] = key[1 + 2 * a];
		} else
			var[a] = var[eq[a]];
	for (int u = 0; u < nv; u++)
		for (int v = u + 1; v < nv; v++)
			nneq += blk[u] == blk[v];
	if (!(c = cl_new(nv, nneq, 1, p->arity)))
		return err_oom(e);
	memcpy(c->blk, blk, (size_t)nv * sizeof *blk);
	nneq = 0;
	for (int u = 0; u < nv; u++)
		for (int v = u + 1; v < nv; v++)
			if (blk[u] == blk[v]) {
				c->neq[nneq][0] = u;
				c->neq[nneq++][1] = v;
			}
	c->lit[0].pred = pred;
	c->lit[0].neg = 0;
	c->lit[0].off = 0;
	for (int a = 0; a < p->arity; a++)
		c->arg[a] = var[a];
	if (vec_grow_((void **)&g->tags, &g->captags, (size_t)g->ntag + 1,
	    sizeof *g->tags)) {
		cl_free(c);
		return err_oom(e);
	}
	g->tags[g->ntag].slot = *slot;
	g->tags[g->ntag].atoms = atoms;
	g->tags[g->ntag].sum = 0;
	c->tag = ++g->ntag;
	if (th_push(g->top, c) < 0)
		return err_oom(e);
	top_drop(g);
	return 0;
}

const double *
eng_tracked(const struct eng *g)
{
	return g->trk_v;
}

int
eng_known(struct eng *g, int pred, const int *block, const int *eq,
    size_t *size, int *comp, int *ground, double *prob)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	int key[KEY_BUF], rc;
	size_t len = top_key(g, pred, block, eq, key);

	*size = 0;
	*comp = -1;
	if (ground)
		*ground = 0;
	if ((rc = units_eval(&g->top_units, key, len)) >= 0) {
		*prob = rc;
		return 1;
	}
	if (top_component(g, key, len, NULL, size, comp) < 0)
		return -1;
	/* a ground atom in no clause is free; a class of several atoms
	 * may have one split off by cond_theory: not known here.  The
	 * theory's own block sizes: eng_track may have split the top's. */
	for (int a = 0; a < p->arity && *size == 0; a++)
		if (g->ct->sp->size[p->types[a]][block[a]] != 1)
			return 0;
	if (*size == 0) {
		*prob = 0.5;
		return 1;
	}
	if (ground)
		*ground = *comp >= 0 && g->top_ground && g->top_ground[*comp];
	return 0;
}

int
eng_target_exact(const struct eng_target *tg)
{
	if (tg->konst == -INFINITY)
		return 1;
	for (size_t k = 0; k < tg->nparts; k++)
		if (!tg->part[k].exact)
			return 0;
	return 1;
}

size_t
eng_target_size(const struct eng_target *tg)
{
	return tg ? tg->size : 0;
}

size_t
eng_target_parts(const struct eng_target *tg)
{
	return tg->nparts;
}

double
eng_target_konst(const struct eng_target *tg)
{
	return tg->konst;
}

const double *
eng_part_weights(const struct eng_target *tg)
{
	return tg->lw;
}

int
eng_slot_part(const struct eng_target *tg, int slot)
{
	return slot >= 0 && slot < tg->nslots ? tg->slot_part[slot] : -1;
}

void
eng_target_free(struct eng_target *tg)
{
	if (!tg)
		return;
	th_free(tg->t);
	for (size_t i = 0; i < tg->nparts; i++) {
		th_free(tg->part[i].t);
		gpart_free(tg->part[i].gp);
		free(tg->part[i].slots);
		free(tg->part[i].vals);
		free(tg->part[i].tags);
	}
	free(tg->part);
	free(tg->lw);
	free(tg->slot_part);
	free(tg);
}

/* After part p was drawn: its counted classes' expectations (the counts
 * ga holds over their atoms) into their slots. */
static void
count_slots(struct eng *g, const struct tpart *p)
{
	for (size_t i = 0; i < g->ga.n; i++)
		g->tags[g->ga.tag[i]].sum += g->ga.v[i];
	for (size_t i = 0; i < p->ntags; i++) {
		struct ctag *c = &g->tags[p->tags[i]];
		trk_put(g, c->slot, c->atoms > 0 ? c->sum / c->atoms : 0.5);
	}
	for (size_t i = 0; i < g->ga.n; i++)
		g->tags[g->ga.tag[i]].sum = 0;
	g->ga.n = 0;
}

int
eng_sample(struct eng *g, struct eng_target *tg, struct eng_rng *r,
    double *log_w, struct err *e)
{
	double sum = tg->konst;
	int64_t solved;
	int rc = 0;

	g->e = e;
	if (!g->smp_state && !(g->smp_state = smp_new()))
		return err_oom(e);
	g->smp_state->rng = r;
	if (tg->konst == -INFINITY) {
		*log_w = -INFINITY;
		return 0;
	}
	for (int i = 0; i < g->ntrk; i++)
		g->trk_v[i] = 0.5;     /* left free unless the path says more */
	/* every part, also after one gave 0: each part's own mean is an
	 * estimate of its Z (see eng_part_weights) */
	for (size_t k = 0; k < tg->nparts; k++) {
		struct tpart *p = &tg->part[k];
		int64_t d0 = g->st.draws;
		struct th *t;
		double z;
		if (p->exact) {
			tg->lw[k] = p->val;
			sum += p->val;
			for (size_t j = 0; j < p->nslots; j++)
				g->trk_v[p->slots[j]] = p->vals[j];
			continue;
		}
		if (!p->gp && p->gp_tried == 0) {
			/* ground: flat at once, unless it is small enough to be
			 * enumerated (the search does that, exactly) */
			struct gpart *gp;
			if (gpart_build(g, p->t, &gp) < 0)
				return err_oom(e);
			if (gp && (g->o.exact_budget == 0 ||
			    enum_units((size_t)gp->nclauses, gp->nreal) >
			    (double)g->o.exact_budget)) {
				p->gp = gp;
				p->gp_tried = 2;
				g->st.flat_parts++;
			} else
				gpart_free(gp);
		}
		if (!p->gp && (p->gp_tried == 1 ||
		    (p->gp_tried == 0 && p->t->c.n > FLAT_CLAUSES))) {
			/* the first sample found it not exact, or it is too
			 * big for the search to be worth a try (every node
			 * copies it): flat, if ground or nearly */
			p->gp_tried = 2;
			if (gpart_new(g, p->t, &p->gp) < 0 ||
			    (!p->gp && gpart_nearly(g, p->t, &p->gp) < 0))
				return err_oom(e);
			g->st.flat_parts += p->gp != NULL;
		}
		if (p->gp) {
			g->ntrk_log = 0;
			g->ga.n = 0;
			g->smp = g->smp_state;
			rc = gpart_draw(g, p->gp, &z);
			g->smp = NULL;
			if (rc < 0 || g->ga.oom)
				return err_oom(e);
			tg->lw[k] = z;
			sum += z;
			count_slots(g, p);
			continue;
		}
		if (!(t = th_copy(p->t)))
			return err_oom(e);
		g->ntrk_log = 0;
		g->ga.n = 0;
		g->smp = g->smp_state;
		solved = g->st.exact_tries - g->st.exact_fails;
		rc = search_solve(g, t, &z);
		/* the first sample: flat from now on unless the search solved
		 * something in it exactly (Rao-Blackwellised parts beat flat
		 * draws of all their atoms) */
		if (!p->gp_tried)
			p->gp_tried = g->st.exact_tries - g->st.exact_fails > solved ?
			    3 : 1;
		g->smp = NULL;
		g->mode.trying = 0;
		if (rc)
			return rc;
		tg->lw[k] = z;
		sum += z;
		if (g->ga.oom)
			return err_oom(e);
		count_slots(g, p);
		if (g->st.draws == d0 && !g->trk_log_oom) {
			/* nothing drawn: the same in every sample */
			size_t m = g->ntrk_log;
			p->slots = xmalloc((m + 1) * sizeof *p->slots);
			p->vals = xmalloc((m + 1) * sizeof *p->vals);
			if (!p->slots || !p->vals)
				return err_oom(e);
			for (size_t j = 0; j < m; j++) {
				p->slots[j] = g->trk_log[j];
				p->vals[j] = g->trk_v[g->trk_log[j]];
			}
			p->nslots = m;
			p->val = z;
			p->exact = 1;
		}
	}
	*log_w = sum;
	return 0;
}
