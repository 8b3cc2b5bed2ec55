/* cube.h: evidence as unions of disjoint hypercubes, built top-down by a
 * greedy splitter in the manner of Singla, Nath & Domingos (AAAI 2014):
 * every step is SQL against the evidence tables (bounding box by SELECT
 * DISTINCT, split choices by GROUP BY counts). */
#ifndef SQLIFT_CUBE_H
#define SQLIFT_CUBE_H

#include <stdio.h>

#include "store/store.h"

/* Rebuilds the cubes of every predicate's true and false evidence, the
 * domain blocks and the cube_atoms view; prints per predicate the atoms,
 * cubes and compression to report (may be NULL). */
int cube_build_all(struct store *s, FILE *report, struct err *e) WUR;

/* Cubes of at most this many atoms are split in memory (default
 * 200,000); tests set 0 to run the SQL splitter everywhere. */
void cube_set_memory_limit(long atoms);

#endif
