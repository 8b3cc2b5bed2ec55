/* sample-int.h: what the files of the sampler share (src/sample/): its
 * proposals, flat ground parts, and the functions the search calls
 * while sampling.  Not installed; conventions as in lifted-int.h. */
#ifndef SQLIFT_SAMPLE_INT_H
#define SQLIFT_SAMPLE_INT_H

#include "lifted/lifted-int.h"
#include "sample/sample.h"
#include "sample/tunables.h"

#pragma GCC visibility push(hidden)  /* as in lifted-int.h */

/* The sampler's state: made by the first eng_sample, kept by the engine
 * (g->smp_state) for the later ones; g->smp points to it while a sample
 * is drawn. */
struct sampler {
	struct eng_rng *rng;   /* of the sample being drawn */
	struct prop *props;    /* the proposals, by key hash and n */
	size_t nprops, capprops, prop_cells;
	double try_cap;        /* atoms of the smallest part that failed */
	double pilot_cap;      /* the same in the pilots' solves */
	double negl_cap;       /* and below negligible counts (negl) */
};

/* The proposal of one sampled binomial node (key hash and n): what each
 * k gave so far, and the cumulative proposal built from it. */
struct prop {
	uint64_t h;
	int64_t n;             /* -1: empty slot */
	int64_t visits, built;
	double lw, lwk, lw2;   /* log sums of local weights, of w * k/n, and
	                          of w^2 */
	double *lsum;          /* per k: log sum of C(n,k) Z(k) drawn */
	double *cnt;           /* per k: draws */
	double *cdf;           /* per k: cumulative, unnormalised */
	double *pil;           /* per k: the pilot's proposal (count_pilot;
	                          sums to 1), or NULL */
	int64_t kmode;         /* the proposal's likeliest k, and its */
	double qmode;          /* probability (as built) */
};

/* A part of a target whose atoms are all ground, drawn from a flat copy
 * made once: each clause as class numbers, so that a sample is a few
 * passes over the clauses instead of a simplification, an index and a
 * search per node.  Every non-auxiliary atom is drawn, in class order;
 * the auxiliary atoms left (at most one per clause, from the clause
 * conversion) are summed out exactly: with the others drawn, each is
 * alone in what is left of its clauses.
 *
 * With the adaptive proposal an atom is drawn from the look-ahead
 * target (gpart_look): the part's weight given the atoms drawn before
 * it, the atoms not yet drawn taken as independent with the marginals
 * of a pilot Gibbs run (gpart_pilot), the summed-out atoms summed out
 * of that.  On a chain that is nearly the model's own conditional,
 * where independent draws give an ESS near 1.  The proposal depends
 * only on earlier draws and the pilot, so the weight stays unbiased; a
 * uniform share (PROP_EPS over the atoms drawn) keeps every value
 * possible. */
struct gpart {
	int ncls, nclauses, naux, ndraw;
	uint64_t *h;           /* per class: its proposal key (smp_batch's) */
	int *aux;              /* per class: its number among the atoms
	                          summed out, or -1: drawn */
	int *auxcls;           /* per number: its class */
	char *real;            /* per class: not an auxiliary atom */
	int nreal;             /* classes not auxiliary */
	const int **key;       /* per class: its key in the top theory's
	                          numbering (gkey; into keybuf), */
	size_t *klen;          /* and length */
	int *keybuf;
	double *w;             /* per clause: weight, */
	char *hard;            /* hard, */
	int *first;            /* literals first[i] .. first[i + 1] */
	int *lit;              /* class * 2 + negated */
	int *ofirst, *olist;   /* per class: its clauses */
	char *x;               /* per class: the value drawn */
	double *m;             /* per class: its adapted marginal (aux: 1/2) */
	double *pm;            /* per class: its marginal from a pilot Gibbs
	                          run (gpart_pilot), or NULL before it */
	double *lw;            /* per auxiliary and value: log weight, */
	char *ok;              /* and whether the hard clauses allow it */
	int *csum;             /* per clause: its summed-out atom, or -1 */
	double *ew;            /* per clause: e^w */
	/* the look-ahead target (gpart_look): E before any draw, its log
	 * g0; one sequence's E; scratch of gpart_look */
	double *E0, g0, *E, *tde;
	int *tlist, *tmark, nt;
	/* per entry of olist (class c, clause i): i's log count before c
	 * is drawn and after, c's literal false (i not yet satisfied);
	 * c's sign in i (2: both); per clause: its summed-out atom's sign */
	double *ob, *oa;
	signed char *osg, *csn;
	/* particles (gpart_smc): values, E and log weights */
	char *px, *px2;
	double *pE, *pE2, *plw;
	int *pidx;
	int *ctag;             /* per class: the tag + 1 of its counted unit
	                          clause (eng_track_count), 0: none; NULL if
	                          no class has one */
};

/* proposal.c: the sampler's state, adaptive proposals */
struct sampler *smp_new(void);
struct prop *prop_get(struct eng *g, uint64_t h, int64_t n);
int64_t prop_draw(struct eng *g, uint64_t h, int64_t n, struct prop **pp,
    double *lq);
double prop_p1(struct eng *g, uint64_t h);
void prop_update(struct prop *p, int64_t k, double val, double lq);

/* node.c: sampled nodes of the search (and the hooks in lifted-int.h) */
uint64_t prop_atom_key(uint64_t h);
double enum_units(size_t clauses, int atoms);

/* flat.c: flat ground parts */
void gpart_free(struct gpart *gp);
int gpart_build(struct eng *g, const struct th *t, struct gpart **out);
int gpart_new(struct eng *g, const struct th *t, struct gpart **out);
int gpart_nearly(struct eng *g, const struct th *t, struct gpart **out);
double gpart_q1(const struct gpart *gp, int c);
double gpart_logw(struct gpart *gp);
double gpart_sum_p1(const struct gpart *gp, int a);
void gpart_track(struct eng *g, const struct gpart *gp, int c, double v);
double gpart_enum(struct eng *g, struct gpart *gp);
double gpart_logodds(struct gpart *gp, int c, int *auxs);

/* flat-draw.c: drawing a flat part */
int gpart_draw(struct eng *g, struct gpart *gp, double *out);

#pragma GCC visibility pop

#endif
