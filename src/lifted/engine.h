/* engine.h: the exact lifted engine (src/lifted/); the importance
 * sampler on the same search is sample/sample.h.  A recursive search over a
 * constrained theory (theory.h) that never grounds what it can lift:
 * simplification, a cache keyed by the theory up to renaming, AND
 * decomposition, the power rule on a decomposer block, the generalized
 * binomial rule on a singleton atom class (over several blocks at once
 * where the theory treats them alike: multibin.c), and, where none applies,
 * grounding one constant of a block.  All in log space.
 *
 * Inside the engine a clause's variables each range over one block, and
 * variables of one block in one literal are kept apart by inequalities,
 * so that every literal names a whole class of interchangeable ground
 * atoms (predicate, block per argument, which arguments are equal). */
#ifndef SQLIFT_ENGINE_H
#define SQLIFT_ENGINE_H

#include "lifted/theory.h"

/* Which atom class to branch on (Kazemi & Poole): the last one in the
 * elimination order that the rule builds. */
enum eng_order {
	ENG_MIN_TABLE,         /* MinTableSize (default) */
	ENG_POPULATION,        /* population order */
	ENG_REL_MIN_FILL,      /* relational min-fill */
	ENG_MIN_FILL           /* min-fill */
};
/* "min-table", "population", "rel-min-fill", "min-fill"; -1 if unknown */
int eng_order_parse(const char *s);
const char *eng_order_name(int order);

/* What a node combines: the one engine computes both. */
enum eng_semiring {
	ENG_SUM,               /* log Z: sums over worlds */
	ENG_MAX                /* log of the weight of the heaviest world */
};


struct eng_opts {
	int order;             /* enum eng_order */
	int semiring;          /* enum eng_semiring */
	int64_t max_nodes;     /* 0: no limit */
	int64_t max_work;      /* 0: no limit; else nodes of n clauses
	                          counting 1 + n / 64 (exact_budget's unit) */
	double max_seconds;    /* 0: no limit */
	double max_memory;     /* bytes the search and its cache may hold
	                          (SQLIFT_ELIMIT beyond; the cache stops
	                          growing at half); 0: eng_default_memory(),
	                          < 0: no limit */
	int no_cache;
	/* sampling: */
	int proposal;          /* enum eng_proposal (sample/sample.h) */
	int64_t exact_budget;  /* work of exact search tried on a subtheory
	                          before sampling it, in nodes, a node of n
	                          clauses counting 1 + n / 64; 0: sample
	                          every branch */
	int particles;         /* per flat part; 0 or 1: one sequence */
};

struct eng_stats {
	int64_t nodes;             /* theories the search expanded */
	int64_t cache_hits;
	int64_t decompositions;    /* AND nodes with several components */
	int64_t powers;            /* power rule */
	int64_t single_occ;        /* single occurrence (max semiring) */
	int64_t binomials;         /* binomial nodes */
	int64_t multibinomials;    /* of them, multi-block (multibin.c) */
	int64_t groundings;        /* constants grounded */
	int64_t largest_grounding; /* size of the largest block grounded from */
	int64_t draws;             /* sampled binomial nodes */
	int64_t exact_tries, exact_fails;  /* subtheories tried exactly */
	int64_t enumerations;      /* small ground parts enumerated (tries too) */
	int64_t flat_parts;        /* target parts drawn from a flat copy */
	/* fallbacks, for the run's warnings (not in runs.stats): */
	int64_t order_fallbacks;   /* nodes of more than 64 atom classes,
	                              where the order is population's */
	int64_t props_full;        /* adaptive proposals refused: their
	                              tables are full (PROP_CELLS) */
};

struct eng;

/* The default of max_memory: the smaller of 2 GB and half of the
 * machine's physical memory. */
double eng_default_memory(void);
/* Bytes the engines of the calling thread hold now (what max_memory
 * caps): 0 once they are freed. */
int64_t eng_held_bytes(void);

/* The cell-graph rule's sum over count vectors (lifted/cgsum.c; here
 * for its tests): groups of a block contiguous, blocks of one group
 * first; lw per group, lr the ng x ng log pair weights, n per block its
 * constants.  cgsum: log of the sum into *out, 0; pruned with a finite
 * budget, 1 when it gave up past that work (*nodes: what it took); -1
 * out of memory. */
struct cgsum {
	int ng, nb;
	const int *gb;
	const double *lw, *lr;
	const int64_t *n;
	/* if not NULL, filled with *out: per group, its expected count
	 * (the counts weighted by the terms, over the sum); per pair of
	 * groups g, h (ng x ng), the expected m_g m_h, and m_g (m_g - 1)
	 * where g = h (ordered pairs of constants) */
	double *ecnt, *epair;
};
int cgsum(const struct cgsum *p, double vectors, double budget,
    double *out, double *nodes);
/* For tests: cg_test_mode 1 prunes every sum; 2 sums every subtree
 * in full, counted in cg_bound_checks, those above their bound in
 * cg_bound_violations and those below the threshold in cg_bound_drops. */
extern _Thread_local int cg_test_mode;
/* For tests: cg_marg_off 1 takes every marginal by conditioning, never
 * from the expected counts of log Z's cell graph (cgmarg.c); those it
 * takes there count in cg_marg_hits, its conditioned sums of a group
 * in cg_marg_refined. */
extern _Thread_local int cg_marg_off;
extern _Thread_local int64_t cg_marg_hits, cg_marg_refined;
extern _Thread_local int64_t cg_bound_violations, cg_bound_checks,
    cg_bound_drops;

/* An engine for theory t (borrowed: it must outlive the engine).
 * eng_log_z: log Z of t, constants and free atoms included (ENG_MAX: the
 * log weight of its heaviest world instead). */
int eng_new(const struct ct_theory *t, const struct eng_opts *o,
    struct eng **out, struct err *e) WUR;
void eng_free(struct eng *g);
int eng_log_z(struct eng *g, double *log_z, struct err *e) WUR;

/* The marginal of one ground atom of predicate pred (of the clause
 * model), given by the block of each argument (in the theory's blocks of
 * that argument's type) and which arguments are the same constant (eq[i]
 * is the first argument equal to argument i): Z(theory, atom true) / Z.
 * The atom must not be evidence.  Every atom of its class has it. */
int eng_marginal(struct eng *g, int pred, const int *block, const int *eq,
    double *prob, struct err *e) WUR;

/* A schematic run: the rules the search applies, one branch of each
 * binomial followed, each step with how many times a full run takes it
 * ([xN]), then the estimated number of nodes.  Computes nothing; use a
 * fresh engine. */
int eng_plan(struct eng *g, struct buf *out, struct err *e) WUR;

/* A MAP world (ENG_MAX), read back class by class: put(arg, pred,
 * block, eq, truth) for each class of unknown atoms it fixes, all of
 * its atoms true or all false; block[i] is an engine block, and
 * (*memb)[type][domain position] the engine block of each constant at
 * the end (blocks split where a MAP world splits a class; free with
 * eng_world_free); eq as for eng_marginal.  The atoms of no class put
 * may take either value.  *found 0 when no world was read back (then
 * what put got is none).  put's non-zero return stops it and is
 * returned. */
typedef int eng_world_fn(void *arg, int pred, const int *block,
    const int *eq, int truth);
int eng_map_world(struct eng *g, eng_world_fn *put, void *arg, int ***memb,
    int *found, struct err *e) WUR;
void eng_world_free(int **memb, int ntypes);

void eng_get_stats(const struct eng *g, struct eng_stats *st);

#endif
