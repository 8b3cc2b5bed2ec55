/* coarse.h: the domain blocks of the stored evidence: each type's
 * constants partitioned into the classes of interchangeable ones. */
#ifndef SQLIFT_COARSE_H
#define SQLIFT_COARSE_H

#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/* The blocks of one type: block[k] (0 up to nblocks - 1) of ids[k]. */
struct type_blocks {
	int64_t *ids;          /* the domain, ascending */
	int *block;
	size_t n;
	int nblocks;
};

/* Fills the blocks table with the coarsest partition of each type's
 * domain such that swapping two constants of a block maps the evidence
 * onto itself; prints a line per type to report (may be NULL).  out
 * (may be NULL): an array of a struct type_blocks per stored type, which
 * the caller frees with coarse_free. */
int coarse_blocks(struct store *s, FILE *report, struct type_blocks **out,
    struct err *e) WUR;
void coarse_free(struct type_blocks *tb, int ntypes);

#endif
