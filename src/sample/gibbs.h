/* gibbs.h: Gibbs sampling on the ground model (infer/ground.h): single-
 * site or blocked, several chains on threads, Rao-Blackwellised marginals
 * with batch-means standard errors and Gelman-Rubin R-hat. */
#ifndef SQLIFT_GIBBS_H
#define SQLIFT_GIBBS_H

#include "sqlift.h"
#include "infer/ground.h"

/* A block of atoms is sampled jointly by enumerating its 2^k values:
 * blocked-gibbs grows blocks up to block_max atoms (default
 * GB_BLOCK_DEFAULT); a hard formula's atoms form one block when they are
 * at most GB_HARD_MAX, in both samplers. */
#define GB_BLOCK_DEFAULT 8
#define GB_BLOCK_MAX 16
#define GB_HARD_MAX 12
/* a set of hard formulas drawn as one block (gb_hard_sets) grows to at
 * most this many atoms: 2^6 values a draw (12 made a ring of 600 hard
 * implications 58 times slower for gibbs) */
#define GB_HARD_SET 6
#define GB_BATCHES 32
/* formula groundings the ground model enumerates at most (those that the
 * evidence leaves open are at most GROUND_MAX_GROUNDINGS) */
/* lbg: a cluster is lifted while each of its groups (atoms joined by
 * the formulas they share) has at most LBG_GROUP_MAX atoms; merges are
 * taken while the sweep's cost stays at most LBG_ALPHA times that of a
 * cluster per predicate (or falls); at most LBG_CLASSES classes of
 * atoms per block are drawn by counts, the rest one by one. */
#define LBG_GROUP_MAX 12
/* the lifted search's work (eng_opts.max_work) and memory lbg spends on
 * the whole model as one cluster (infer_lbg_lifted) before it clusters
 * the ground model: friends and smokers with 10% evidence at n = 10,000
 * fits in 90,000 (81,288 nodes, 10 MB); UW-CSE stops at the memory, Cora
 * at the work, 0.9 and 1.3 s after their theories are built */
#define LBG_EXACT_BUDGET 100000
#define LBG_EXACT_MEMORY (256.0 * 1024 * 1024)
/* and its seconds: a guard, as the work of a node that does not lift can
 * grow faster than its count (friends and smokers at n = 500 with sparse
 * Friends evidence: 50,000 units took 7 s) */
#define LBG_EXACT_SECONDS 2.0
#define LBG_ALPHA 4.0
#define LBG_CLASSES 256
/* a binomial block has at most LBG_PIVOT_MAX pivots (its tables are
 * (pivots + 1)^2 doubles per chain) */
#define LBG_PIVOT_MAX 1000
/* in a binomial block by counts (lbg_binom_group) a pivot has at most
 * LBG_PIVOT_FORMS formulas of no satellite: they are read one by one
 * each sweep, where single atoms would share them (formula bundles) */
#define LBG_PIVOT_FORMS 4
/* with at most LBG_RB_CLASSES classes of pivots a pivot's value is its
 * full conditional (O(classes pivots^2)), else its class's drawn share */
#define LBG_RB_CLASSES 8
#define GIBBS_MAX_ENUMERATED 4e9          /* batch means kept per atom and chain */

struct gibbs_opts {
	int block_max;         /* 1: single-site; more: blocked */
	int lbg;               /* 1: lbg's clusters (block_max unused); 2:
	                          blocked-gibbs from lbg's blocks */
	int64_t sweeps;        /* per chain, after burn-in; 0: until
	                          max_seconds */
	int64_t burn_in;       /* sweeps discarded first */
	double max_seconds;    /* 0: no limit */
	uint64_t seed;
	int chains, threads;   /* the same seed gives the same numbers for
	                          any threads (with sweeps, not time) */
	sqlift_progress_fn *progress;  /* NULL: none; samples: chain 0's
	                                  sweeps after burn-in */
	void *progress_arg;
};

/* One point of a chain's trace. */
struct gibbs_point {
	int chain;
	int64_t sweeps;
	double seconds, estimate;  /* the first tracked atom's running mean */
};

struct gibbs_result {
	double *p, *se, *rhat; /* per tracked atom */
	int64_t sweeps;        /* per chain, after burn-in: the fewest */
	int64_t blocks, block_atoms;  /* blocks per sweep, and their atoms */
	int largest;           /* atoms of the largest block drawn by
	                          enumeration */
	int clusters, binomial;  /* lbg: clusters, binomial blocks */
	double blocks_seconds; /* building the blocks (lbg: the clusters) */
	struct gibbs_point *trace;
	size_t ntrace;
	int interrupted;       /* gibbs_cancel stopped the chains */
};

/* Samples the unknown atoms of g (grounded: ground_formulas) and
 * estimates P(u true) for each of the ntrack unknown atoms track[].
 * Every chain starts from a random world, repaired by WalkSAT until it
 * satisfies the hard formulas, and never leaves them: each update draws
 * a block from its exact conditional.  A marginal is the mean over the
 * chains' sweeps after burn-in of the atom's conditional probability at
 * its last update in the sweep; its error comes from batch means, and
 * R-hat from the chains' means and variances of that series (NaN with
 * one chain).  Fails with SQLIFT_EZERO when no world satisfies the hard
 * formulas was found. */
int gibbs_run(const struct ground *g, const struct gibbs_opts *o,
    const int *track, size_t ntrack, struct gibbs_result *res,
    struct err *e) WUR;
void gibbs_result_free(struct gibbs_result *r);

/* explain --method lbg: the clusters of g's ground model, one a line
 * with its predicates, groups and cost, into out. */
int lbg_explain(const struct ground *g, struct buf *out, struct err *e)
    WUR;

/* Async-signal-safe: the runs sampling in this process stop at their
 * next sweep and keep the sweeps so far (res->interrupted), as
 * lis_cancel.  1 if that was asked of a run. */
int gibbs_cancel(void);

#endif
