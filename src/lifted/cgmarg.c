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
};

/* One class: its key in the top's blocks (-1 past its length), its
 * sum, and per group of the sum the log weight of the group's cells
 * where the class is true (-inf: none). */
struct cgcls {
	int key[KEY_LEN];
	int rec;
	double *lwk;
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
		free(m->c[i].lwk);
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
	if (m->nr == m->capr) {
		size_t cap = m->capr ? 2 * m->capr : 4;
		struct cgrec *v = xrealloc(m->r, cap * sizeof *v);
		if (!v)
			return -1;
		m->r = v;
		m->capr = cap;
	}
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
cgm_add_class(struct eng *g, int rec, const int *key, size_t len,
    const double *lwk)
{
	struct cgmarg *m = g->cgm;
	struct cgcls *c;
	size_t ng = (size_t)m->r[rec].ng;

	if (len > KEY_LEN)
		return 0;
	if (m->nc == m->capc) {
		size_t cap = m->capc ? 2 * m->capc : 16;
		struct cgcls *v = xrealloc(m->c, cap * sizeof *v);
		if (!v)
			return -1;
		m->c = v;
		m->capc = cap;
	}
	c = &m->c[m->nc];
	for (size_t i = 0; i < KEY_LEN; i++)
		c->key[i] = i < len ? key[i] : -1;
	c->rec = rec;
	if (!(c->lwk = xmalloc((ng + 1) * sizeof *c->lwk)))
		return -1;
	memcpy(c->lwk, lwk, ng * sizeof *c->lwk);
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
	struct cgsum p = { ng, r->nb, r->gb, lw, r->lr, n, NULL };

	if (!lw || !n) {
		free(lw);
		free(n);
		return -1;
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

/* The marginal of class c from its groups' probabilities. */
static double
cls_p(const struct cgrec *r, const struct cgcls *c)
{
	double p = 0;

	for (int i = 0; i < r->ng; i++)
		if (c->lwk[i] > -INFINITY)
			p += exp(c->lwk[i] - r->lw[i]) * r->pg[i];
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
		/* a small marginal: each of its groups relatively exact */
		if ((p = cls_p(r, c)) < CGM_FINE)
			for (int i = 0; i < r->ng; i++) {
				int rc;
				if (c->lwk[i] == -INFINITY || r->fine[i])
					continue;
				if ((rc = refine(r, i)) < 0)
					return -1;
				if (rc)
					return 0;
			}
		*prob = cls_p(r, c);
		cg_marg_hits++;
		return 1;
	}
	return 0;
}
