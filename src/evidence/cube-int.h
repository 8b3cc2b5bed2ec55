/* cube-int.h: what the three files of the hypercube builder share:
 * cube.c (the SQL splitter and the driver), cube-mem.c (the in-memory
 * splitter) and cube-unknown.c (the cubes of the unknown atoms). */
#ifndef SQLIFT_CUBE_INT_H
#define SQLIFT_CUBE_INT_H

#include <stdlib.h>
#include <stdint.h>

#include "evidence/coarse.h"
#include "evidence/cube.h"

/* The known cubes of the current predicate, kept for the complement: all
 * their sides in one array; side d of cube k, j = k * arity + d, is
 * ids[at[j]] up to at[j + 1] (ids.n for the last side); its constraints
 * from cons[cat[k]]: neq, nne, then the eq pairs and the ne pairs. */
struct known {
	VEC(int64_t) ids;
	VEC(size_t) at;
	VEC(int) cons;
	VEC(size_t) cat;
	size_t n;              /* cubes */
};

static inline void
known_free(struct known *k)
{
	free(k->ids.v);
	free(k->at.v);
	free(k->cons.v);
	free(k->cat.v);
}

/* The constants of each block of a type, by name: block b's are
 * ids[at[b]] up to ids[at[b + 1]]. */
struct bmem {
	int64_t *ids;
	size_t *at;
};

/* The state of one build over all predicates. */
struct sigs {
	int ntypes;
	struct type_blocks *tb;  /* per type: its blocks (coarse.c) */
	struct bmem *bm;       /* per type: filled when first needed */
	struct idmap rank;     /* const id -> rank of its name */
	size_t nconst;         /* ranks 0 .. nconst - 1 */
	struct known known;    /* of the current predicate */
	int arity;
	int64_t *dom_n;        /* [type index] domain size, -1 until read */
	int open;              /* the store's cube statements are open */
	long in_memory;        /* atoms up to this are split in memory,
	                          read once per build */
};

struct byc {
	int64_t val, count;
};

static inline size_t
hash_id(int64_t v, size_t mask)
{
	return ((uint64_t)v * 0x9e3779b97f4a7c15ULL >> 20) & mask;
}

/* cube.c */
/* Stores a known cube with its constraints (cons may be NULL) and
 * appends it to the known cubes, for the complement. */
int cube_emit(struct store *s, struct sigs *g, int pi, int truth,
    int64_t atoms, const struct store_ids *side,
    const struct store_cons *cons, struct err *e) WUR;
/* Most atoms first, then by value. */
int cube_byc_desc(const void *x, const void *y);
/* Heapsort: n log n at worst and no allocation (qsort may malloc). */
void cube_byc_sort(struct byc *v, size_t n,
    int (*cmp)(const void *, const void *));
/* The split rule of both splitters (see cube.c). */
int cube_pick_dim(int arity, const struct store_ids *cnt, double full,
    int *complete);
void cube_pick_left(struct byc *bv, size_t nv, int complete, double slice,
    unsigned char *left);

/* cover.c: the canonical cover of the n atoms in rows (arity ids each,
 * borrowed) by cubes with constraints, stored in the order of the names
 * of their constants. */
int cover_run(struct store *s, struct sigs *g, int pi, int truth,
    const int64_t *rows, size_t n, int64_t *ncubes, struct err *e) WUR;

/* cube-mem.c */
/* The limit cube_set_memory_limit() set: atoms up to this many are split
 * in memory. */
long cube_mem_limit(void);
/* Reads the atoms inside the current cube and splits them in memory. */
int cube_mem_build(struct store *s, struct sigs *g, int pi, int truth,
    int64_t *ncubes, struct err *e) WUR;

/* cube-unknown.c */
/* Appends a cube of arity sides with its constraints (cons may be NULL)
 * to k; -1 out of memory. */
int cube_known_add(struct known *k, int arity, const struct store_ids *side,
    const struct store_cons *cons) WUR;
/* The complement of the known cubes of predicate pi, with = and != where
 * they make it fewer cubes; the store's cube statements must be open (for
 * the inserts). */
int cube_complement(struct store *s, struct sigs *g, int pi,
    int64_t *ncubes, struct err *e) WUR;

#endif
