/* sample.h: lifted importance sampling (src/sample/), the sampling
 * half of the lifted engine (lifted/engine.h): its proposals, its
 * random numbers, what is sampled (targets) and which atoms each sample
 * records (tracking). */
#ifndef SQLIFT_SAMPLE_H
#define SQLIFT_SAMPLE_H

#include "lifted/engine.h"

/* The proposal of a sampled binomial node, over k = 0..n true atoms.
 * Each is mixed with 5% uniform, so that every k can be drawn. */
enum eng_proposal {
	ENG_PROP_ADAPTIVE,     /* per node: the importance-weighted table of
	                          what each k gave so far, half and half with
	                          the adapted binomial (default) */
	ENG_PROP_BINOMIAL,     /* Binomial(n, p), p adapted per node */
	ENG_PROP_UNIFORM       /* 1 / (n + 1) */
};
/* "adaptive", "binomial", "uniform"; -1 if unknown */
int eng_proposal_parse(const char *s);
const char *eng_proposal_name(int proposal);

/* --- lifted importance sampling ---------------------------------------
 * The same search, where a binomial node draws one k from the proposal
 * and returns C(n,k) Z(k) / Q(k) with Z(k) itself an estimate; the power
 * rule multiplies n independent draws of its part (one draw raised to
 * the power n would be biased), decomposition multiplies its parts'
 * draws, and grounding a constant lets its atoms be drawn by binomial
 * nodes of one atom.  Each sample's weight is thus an unbiased estimate
 * of Z: the proposals adapt only from earlier samples.  A subtheory that
 * the exact search finishes within exact_budget nodes is solved exactly
 * (and cached) instead: Rao-Blackwellisation, which lowers the variance
 * and keeps the estimate unbiased. */
struct eng_rng {
	uint64_t s[4];
};
/* xoshiro256**, seeded by splitmix64 from seed and stream */
void eng_rng_seed(struct eng_rng *r, uint64_t seed, uint64_t stream);
double eng_rng_unit(struct eng_rng *r);    /* [0, 1) */

/* What is sampled: the theory, or the theory with one atom of a class
 * (as for eng_marginal) fixed to truth. */
struct eng_target;
/* pred < 0: the theory.  Otherwise, when the atom's marginal is known
 * without search (fixed by a hard unit, or in no clause), *known gets it
 * and *out is NULL; else *known is -1. */
int eng_target_new(struct eng *g, int pred, const int *block, const int *eq,
    int truth, struct eng_target **out, double *known, struct err *e) WUR;
void eng_target_free(struct eng_target *tg);
/* Marginals from the samples of Z itself: eng_track registers one atom of
 * the class and gives its slot (a class of several atoms has one
 * constant of each block split off in the theory first: call it before
 * making the targets); after each eng_sample,
 * eng_tracked()[slot] is its expectation given the sample's path: 0 or 1
 * where it was drawn or fixed by a hard unit, its exact conditional
 * marginal where a part holding it was solved exactly, 1/2 where it was
 * left in no clause.  The weighted mean over samples is a consistent
 * (self-normalised) estimate of its marginal. */
int eng_track(struct eng *g, int pred, const int *block, const int *eq,
    int *slot, struct err *e) WUR;
const double *eng_tracked(const struct eng *g);
/* The same slot for a class of several atoms by its expected count
 * instead, nothing split off (*counted = 1): the class gets a unit
 * clause of weight 0, and each sample gives its expected number of true
 * atoms over its atoms, the derivative of log Z in that clause's weight,
 * exact where the search solved a part and given the draws where it
 * drew.  A class of fewer than min_atoms atoms (at least 2) goes to
 * eng_track instead (*counted = 0).  Call before making the targets, and
 * never after an eng_track of a class of several atoms: that splits
 * blocks, and a counted class must stay in one part of the theory (so
 * with counted classes, min_atoms 2, which leaves eng_track only
 * ground atoms). */
int eng_track_count(struct eng *g, int pred, const int *block,
    const int *eq, double min_atoms, int *slot, int *counted,
    struct err *e) WUR;
/* The atoms of a class in the theory's blocks (before any split). */
double eng_class_atoms(const struct eng *g, int pred, const int *block,
    const int *eq);
/* 1 when the atom's marginal is known without search (*prob: fixed by a
 * hard unit, or a ground atom in no clause), 0 if not, -1 out of memory;
 * *size: clauses of the part of the theory that holds its class, *comp:
 * that part's number (-1: none), *ground (if not NULL): 1 when every
 * atom class of that part is one ground atom.  Ask before any
 * eng_track: tracking splits blocks, and parts are then those of the
 * split theory. */
int eng_known(struct eng *g, int pred, const int *block, const int *eq,
    size_t *size, int *comp, int *ground, double *prob);
/* 1 once every part of the target is known exact (it drew nothing when
 * first sampled): each later sample gives the same value. */
int eng_target_exact(const struct eng_target *tg);
/* The number of clauses a target holds (what it costs to keep). */
size_t eng_target_size(const struct eng_target *tg);
/* The target's independent parts: how many, the constant outside them
 * (-inf: Z = 0), and after each eng_sample each part's log weight, an
 * unbiased estimate of the part's Z given the draws before it (the
 * proposals adapt from earlier draws only).  The parts are drawn apart,
 * so the product of their mean weights estimates Z without bias, with
 * the variance of each part alone (AND/OR sampling, Gogate and Dechter
 * 2008), where the mean of the products has their product. */
size_t eng_target_parts(const struct eng_target *tg);
double eng_target_konst(const struct eng_target *tg);
const double *eng_part_weights(const struct eng_target *tg);
/* The part of tg that holds tracked slot (see eng_track; parts of the
 * target made after the tracking), or -1: in no clause. */
int eng_slot_part(const struct eng_target *tg, int slot);
/* One sample: *log_w = log of an unbiased estimate of the target's Z
 * (-inf: this sample found a contradiction): konst plus the parts' log
 * weights. */
int eng_sample(struct eng *g, struct eng_target *tg, struct eng_rng *r,
    double *log_w, struct err *e) WUR;

#endif
