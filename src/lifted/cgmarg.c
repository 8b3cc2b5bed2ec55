/* cgmarg.c: marginals of the classes of a top component that the cell
 * graph summed for log Z, from the same sum's expected counts, refined
 * by a conditioned sum where they are small (docs/internals/lifted.md,
 * "Marginals from the cell graph"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* A group's probability below which it is refined: the expected counts
 * are exact to e^-40 (4.2e-18) of a block's size, relative 4.2e-10
 * here. */
#define CGM_FINE 1e-8
/* Work of a refining sum (a pruned sum's units, cgsum.c). */
#define CGM_BUDGET 3e8

/* One sum: its groups (owned copies), its log, and per group the
 * probability that a constant of its block is in it. */
struct cgrec {
	int ng, nb;
	int *gb;
	double *lw, *lr, *pg;
	int64_t *n;
	double lz, terms;
	char *fine;            /* pg relatively exact */
	double *m2;            /* the expected pairs of constants per pair of
	                          groups (cgsum's epair); NULL until needed */
	int gaveup;            /* a sum for m2 or pg gave up: its classes go
	                          by conditioning */
};

/* One class: its key in the top's blocks (-1 past its length), its
 * sum, and v: a cell-bit class's share of each group's weight in its
 * cells with the bit (ng), or an off-diagonal one's expected true atoms
 * per pair of constants in two groups (ng x ng, bin). */
struct cgcls {
	int key[KEY_LEN];
	int rec, bin;
	double atoms, *v;
};

struct cgmarg {
	struct cgrec *r;
	size_t nr, capr;
	struct cgcls *c;
	size_t nc, capc;
};

_Thread_local int cg_marg_off;
_Thread_local int64_t cg_marg_hits, cg_marg_refined;

static void
rec_free(struct cgrec *r)
{
	free(r->gb);
	free(r->lw);
	free(r->lr);
	free(r->pg);
	free(r->n);
	free(r->fine);
	free(r->m2);
}

void
cgm_free(struct eng *g)
{
	struct cgmarg *m = g->cgm;

	if (!m)
		return;
	for (size_t i = 0; i < m->nr; i++)
		rec_free(&m->r[i]);
	for (size_t i = 0; i < m->nc; i++)
		free(m->c[i].v);
	free(m->r);
	free(m->c);
	free(m);
	g->cgm = NULL;
}

int
cgm_add_rec(struct eng *g, const struct cgsum *p, double lz, double terms,
    const double *ecnt)
{
	struct cgmarg *m = g->cgm;
	struct cgrec *r;
	size_t ng = (size_t)p->ng, nb = (size_t)p->nb;

	if (!m && !(m = g->cgm = xcalloc(1, sizeof *m)))
		return -1;
	if (vec_grow_((void **)&m->r, &m->capr, m->nr + 1, sizeof *m->r))
		return -1;
	r = &m->r[m->nr];
	memset(r, 0, sizeof *r);
	r->ng = p->ng;
	r->nb = p->nb;
	r->lz = lz;
	r->terms = terms;
	if (!(r->gb = xmalloc((ng + 1) * sizeof *r->gb)) ||
	    !(r->lw = xmalloc((ng + 1) * sizeof *r->lw)) ||
	    !(r->lr = xmalloc((ng * ng + 1) * sizeof *r->lr)) ||
	    !(r->pg = xmalloc((ng + 1) * sizeof *r->pg)) ||
	    !(r->n = xmalloc((nb + 1) * sizeof *r->n)) ||
	    !(r->fine = xmalloc(ng + 1))) {
		rec_free(r);
		return -1;
	}
	memcpy(r->gb, p->gb, ng * sizeof *r->gb);
	memcpy(r->lw, p->lw, ng * sizeof *r->lw);
	memcpy(r->lr, p->lr, ng * ng * sizeof *r->lr);
	memcpy(r->n, p->n, nb * sizeof *r->n);
	for (size_t i = 0; i < ng; i++) {
		double b = (double)p->n[p->gb[i]];
		r->pg[i] = b > 0 ? ecnt[i] / b : 0;
		if (r->pg[i] > 1)
			r->pg[i] = 1;
		r->fine[i] = r->pg[i] >= CGM_FINE;
	}
	return (int)m->nr++;
}

int
cgm_add_class(struct eng *g, int rec, const int *key, size_t len, int bin,
    double atoms, const double *v)
{
	struct cgmarg *m = g->cgm;
	struct cgcls *c;
	size_t ng = (size_t)m->r[rec].ng, nv = bin ? ng * ng : ng;

	if (len > KEY_LEN)
		return 0;
	if (vec_grow_((void **)&m->c, &m->capc, m->nc + 1, sizeof *m->c))
		return -1;
	c = &m->c[m->nc];
	for (size_t i = 0; i < KEY_LEN; i++)
		c->key[i] = i < len ? key[i] : -1;
	c->rec = rec;
	c->bin = bin;
	c->atoms = atoms;
	if (!(c->v = xmalloc((nv + 1) * sizeof *c->v)))
		return -1;
	memcpy(c->v, v, nv * sizeof *c->v);
	m->nc++;
	return 0;
}

/* pg[h] of r by conditioning: a constant A of h's block in h is w_h
 * times the sum over the other constants (its block one smaller) with
 * every group's linear weight plus its pair weight to h.  1: the sum
 * gave up past its budget; -1: out of memory. */
static int
refine(struct cgrec *r, int h)
{
	int ng = r->ng, b = r->gb[h], rc;
	double *lw = xmalloc(((size_t)ng + 1) * sizeof *lw), z, nodes;
	int64_t *n = xmalloc(((size_t)r->nb + 1) * sizeof *n);
	struct cgsum p = { ng, r->nb, r->gb, lw, r->lr, n, NULL, NULL };

	if (!lw || !n) {
		free(lw);
		free(n);
		return -1;
	}
	if (r->n[b] < 1) {
		/* (not reached: a group's block has constants) */
		r->pg[h] = 0;
		r->fine[h] = 1;
		free(lw);
		free(n);
		return 0;
	}
	memcpy(n, r->n, (size_t)r->nb * sizeof *n);
	n[b]--;
	for (int i = 0; i < ng; i++)
		lw[i] = r->lw[i] + r->lr[i * ng + h];
	rc = cgsum(&p, r->terms, r->terms < 1e5 ? INFINITY : CGM_BUDGET, &z,
	    &nodes);
	/* (a sum of up to 4e6 vectors in full, as cellgraph.c does) */
	if (rc == 1 && r->terms <= 4e6)
		rc = cgsum(&p, r->terms, INFINITY, &z, &nodes);
	cg_marg_refined++;
	if (rc == 0) {
		r->pg[h] = z == -INFINITY ? 0 : exp(r->lw[h] + z - r->lz);
		if (r->pg[h] > 1)
			r->pg[h] = 1;
		r->fine[h] = 1;
	}
	free(lw);
	free(n);
	return rc;
}

/* r->m2, by r's sum again with the pairs counted.  1: it gave up;
 * -1: out of memory. */
static int
pairs(struct cgrec *r)
{
	size_t ng = (size_t)r->ng;
	struct cgsum p = { r->ng, r->nb, r->gb, r->lw, r->lr, r->n, NULL, NULL };
	double z, nodes;
	int rc;

	if (!(p.epair = r->m2 = xmalloc((ng * ng + 1) * sizeof *r->m2)))
		return -1;
	rc = cgsum(&p, r->terms, r->terms < 1e5 ? INFINITY : CGM_BUDGET, &z,
	    &nodes);
	if (rc == 1 && r->terms <= 4e6)
		rc = cgsum(&p, r->terms, INFINITY, &z, &nodes);
	if (rc) {
		free(r->m2);
		r->m2 = NULL;
	}
	return rc;
}

/* The marginal of class c from its groups' probabilities, or its pairs
 * of groups' expected pairs of constants. */
static double
cls_p(const struct cgrec *r, const struct cgcls *c)
{
	double p = 0;

	for (int i = 0; i < r->ng && !c->bin; i++)
		p += c->v[i] * r->pg[i];
	for (int i = 0; i < r->ng * r->ng && c->bin; i++)
		p += c->v[i] * r->m2[i];
	if (c->bin)
		p /= c->atoms;
	return p > 1 ? 1 : p;
}

int
cgm_marginal(struct eng *g, const int *key, size_t len, double *prob)
{
	struct cgmarg *m = g->cgm;
	int k[KEY_LEN];

	if (!m || cg_marg_off || len > KEY_LEN)
		return 0;
	for (size_t i = 0; i < KEY_LEN; i++)
		k[i] = i < len ? key[i] : -1;
	for (size_t j = 0; j < m->nc; j++) {
		struct cgcls *c = &m->c[j];
		struct cgrec *r = &m->r[c->rec];
		double p;
		if (memcmp(c->key, k, sizeof k))
			continue;
		if (c->bin && !r->m2) {
			int rc = r->gaveup ? 1 : pairs(r);
			if (rc < 0)
				return -1;
			if (rc) {
				r->gaveup = 1;
				return 0;
			}
		}
		/* a small marginal of an off-diagonal class: by conditioning
		 * (exact to e^-40 absolutely here) */
		if ((p = cls_p(r, c)) < CGM_FINE && c->bin)
			return 0;
		/* of a cell-bit class: each of its groups relatively exact */
		if (p < CGM_FINE)
			for (int i = 0; i < r->ng; i++) {
				int rc;
				if (c->v[i] == 0 || r->fine[i])
					continue;
				if ((rc = r->gaveup ? 1 : refine(r, i)) < 0)
					return -1;
				if (rc) {
					r->gaveup = 1;
					return 0;
				}
			}
		*prob = cls_p(r, c);
		cg_marg_hits++;
		return 1;
	}
	return 0;
}
