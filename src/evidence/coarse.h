/* coarse.h: the domain blocks of the stored evidence: each type's
 * constants partitioned into the classes of interchangeable ones. */
#ifndef SQLIFT_COARSE_H
#define SQLIFT_COARSE_H

#include <stdio.h>

#include "store/store.h"

/* Fills the blocks table with the coarsest partition of each type's
 * domain such that swapping two constants of a block maps the evidence
 * onto itself; prints a line per type to report (may be NULL). */
int coarse_blocks(struct store *s, FILE *report, struct err *e) WUR;

#endif
