/* lazy.h: grounding on demand for --method map (lazy.c): the groundings
 * of a clause that a world violates, found by a join over the true atoms
 * (RockIt's and Tuffy's lazy grounding), never by listing them all. */
#ifndef SQLIFT_LAZY_H
#define SQLIFT_LAZY_H

#include <stdint.h>

#include "infer/ground.h"

struct lazy;

/* Starts the lazy grounding of g's formulas (after ground_atoms, g's
 * formulas not yet grounded).  Into g: the formulas that are not
 * clauses, every grounding (at most g->max_enumerated enumerated in all,
 * when set); the clauses of negative weight, and the
 * others while the store stays small (their core), every grounding
 * that the evidence does not decide; the rest, the groundings the
 * all-false world violates.  g->log_const counts every
 * grounding left out as satisfied.  Caller frees with lazy_free. */
int lazy_new(struct ground *g, struct lazy **out, struct err *e) WUR;
void lazy_free(struct lazy *lz);
/* Adds to g the groundings that world x (per unknown atom) violates and
 * g lacks; *added: how many. */
int lazy_more(void *lz, const signed char *x, int64_t *added,
    struct err *e) WUR;
/* Groundings found (in g or decided by the evidence), the clauses
 * grounded on demand, and those of positive weight or hard grounded
 * whole (their core). */
int64_t lazy_found(const struct lazy *lz);
int lazy_clauses(const struct lazy *lz);
int lazy_core_clauses(const struct lazy *lz);

#endif
