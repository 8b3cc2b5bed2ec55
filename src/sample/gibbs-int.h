/* gibbs-int.h: the Gibbs samplers' shared structure: the ground model's
 * incidence, the blocks of a sweep, one block's update (gibbs.c), and the
 * chains that run them (chains.c). */
#ifndef SQLIFT_GIBBS_INT_H
#define SQLIFT_GIBBS_INT_H

#include "sample/gibbs.h"
#include "sample/sample.h"

/* The sampler's view of a ground model, shared read-only by the chains. */
struct gb_model {
	const struct ground *g;
	int n;                 /* unknown atoms */
	int *afirst, *aform;   /* atom u's formulas: aform[afirst[u] ..
	                          afirst[u + 1]), each once */
	int *bfirst, *batom;   /* block b's atoms: batom[bfirst[b] ..
	                          bfirst[b + 1]) */
	int *ffirst, *bform;   /* block b's formulas, each once */
	int nblocks;
	int largest;
	int maxbform;          /* formulas of the block with the most */
	int maxlen;            /* longest formula program */
	int nhard;             /* hard formulas */
	/* lbg (lbg.c) only, else NULL / 0: per block, 1 if its atoms are
	 * independent given the rest (drawn by counts: lbg_update) */
	unsigned char *indep;
	int largest_indep;     /* atoms of the largest such block */
	struct lbg_cluster *cl;  /* the clusters, in predicate order */
	int ncl;
	int *cl_of_pred;       /* per predicate: its cluster, -1: none */
};

/* One cluster of lbg: predicates sampled as a unit.  Its atoms fall into
 * groups, connected by the formulas they share; given the rest the
 * groups are independent. */
struct lbg_cluster {
	int lifted;            /* every group has at most LBG_GROUP_MAX atoms:
	                          one draw per group; 0: single-site */
	int64_t atoms, groups;
	int largest;           /* atoms of the largest group */
	double cost;           /* formula evaluations per sweep */
};

/* Builds m's incidence and blocks: block_max 1 gives a block per atom
 * outside hard formulas and one per hard formula of at most GB_HARD_MAX
 * atoms; more grows blocks greedily along the formulas (hard ones first)
 * up to block_max atoms, and adds a block for each hard formula of at
 * most GB_HARD_MAX atoms that spans two. */
int gb_model_build(struct gb_model *m, const struct ground *g,
    int block_max, int lbg, struct err *e) WUR;
void gb_model_free(struct gb_model *m);

/* The distinct atoms of formula f into out (room for its program's
 * length); their number. */
int gb_form_atoms(const struct ground *g, int f, int *out);

/* lbg.c: the clusters (Algorithm 2 of Venugopal and Gogate 2012) and
 * the blocks of a sweep out of them into m (bfirst, batom, nblocks,
 * indep, cl...), after make_incidence; -1: out of memory. */
int lbg_blocks(struct gb_model *m, int *fat);

/* Per chain scratch for the updates. */
struct gb_scratch {
	int *stack;
	double *lw;            /* 2^largest log weights */
	int *mark;             /* per formula, for WalkSAT */
	int *viol, *vpos;      /* violated hard formulas and their places */
	int nviol;
	int *fpos;             /* per formula: its place in the block's list */
	unsigned char *fval;   /* per block formula: its truth now */
	/* lbg_update: per atom of the block its class, the atoms by class;
	 * per class its probability (as bits: the key), size and start */
	int *cid, *memb, *ccount, *cstart, *cslot;
	double *cp;
	uint64_t *ckey;
};
int gb_scratch_new(struct gb_scratch *s, const struct gb_model *m);
void gb_scratch_free(struct gb_scratch *s);

/* Formula f's truth in world x (one byte per unknown atom). */
int gb_eval(const struct gb_model *m, int f, const unsigned char *x,
    int *stack);
/* Draws block b from its conditional given the rest of x, and writes
 * each of its atoms' conditional probability of being true to cur. */
void gb_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);
/* lbg: draws block b, whose atoms are independent given the rest, by
 * classes: the atoms whose conditional probability is the same double
 * are drawn as a binomial count, then which of them uniformly; each
 * atom's probability goes to cur. */
void lbg_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);
/* Changes x until every hard formula holds (WalkSAT); -1 if none was
 * found within the flips allowed. */
int gb_walksat(const struct gb_model *m, unsigned char *x,
    struct gb_scratch *s, struct eng_rng *r);

#endif
