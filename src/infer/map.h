/* map.h: the ground MAP solver of --method map (map.c): a world of the
 * ground model (ground.h) of largest log weight, by integer programming
 * with COIN-OR CBC, grounding formulas lazily by cutting planes, after a
 * MaxWalkSAT-style local search for a first world. */
#ifndef SQLIFT_MAP_H
#define SQLIFT_MAP_H

#include <stdint.h>

#include "infer/ground.h"

/* --method map grounds a model of at most this many ground atoms to
 * find and write its world; above, the lifted search gives the log
 * weight alone. */
#define MAP_GROUND_ATOMS (1 << 22)

/* The lifted search's default --max-nodes under map: past it, the
 * ground solver alone. */
#define MAP_LIFTED_NODES 200000

/* Under --max-seconds, the lifted theory build gets this fraction of
 * it, the lifted search half that; the ground solver the rest, less
 * what the world's rows take to write (MAP_WRITE_SECONDS at most, a
 * twentieth of --max-seconds below 6 s). */
#define MAP_LIFTED_SHARE 10
#define MAP_WRITE_SECONDS 0.3

struct map_world {
	signed char *truth;    /* per unknown atom: 1 or 0 (caller frees) */
	double log_weight;     /* of truth: g->log_const plus the weights of
	                          its true soft groundings */
	double bound;          /* no world weighs more */
	int proven;            /* log_weight == bound: a MAP world */
	int64_t rounds;        /* integer programs solved */
	int64_t cuts;          /* groundings added to them */
	int64_t flips;         /* of the local search */
};

/* The log weight of the world truth (per unknown atom), -inf if a hard
 * grounding is false in it.  Evaluates every grounding. */
double map_score(const struct ground *g, const signed char *truth);

/* Adds to g the groundings that world x violates and g lacks (counted
 * satisfied in g->log_const until then); *added: how many. */
typedef int (*map_more_fn)(void *arg, const signed char *x, int64_t *added,
    struct err *e);

/* Solves g (formulas grounded) for a MAP world.  max_seconds > 0 stops
 * the search (then the best world found, with the bound proven so far);
 * bound: an upper bound known beforehand (the lifted search's), or
 * +inf.  more (NULL: g holds every grounding) grounds lazily: each
 * world is scored after the groundings it violates are added.
 * SQLIFT_EZERO when no world satisfies the hard formulas. */
int map_ground(struct ground *g, double max_seconds, double bound,
    uint64_t seed, map_more_fn more, void *arg, struct map_world *w,
    struct err *e) WUR;

#endif
