/* setineq.h: the setineq constraint language of Mittal et al. (2015):
 * subset (x in S, x not in S), equality and inequality constraints over
 * the variables of a clause, conjunctions of them (tuples) and
 * disjunctions of tuples (sets).  Domains are partitions into blocks of
 * interchangeable constants, so a subset constraint is a set of blocks
 * and every cost depends on the number of blocks, not of constants.
 * No SQL here: the theory builder maps blocks to constants. */
#ifndef SQLIFT_SETINEQ_H
#define SQLIFT_SETINEQ_H

#include <stdint.h>

#include "util/util.h"

/* The blocks of every type: block b of type t has size[t][b] constants. */
struct si_space {
	int ntypes;
	int *nblocks;          /* per type */
	int64_t **size;        /* per type, per block */
};

/* A conjunction of atomic constraints over variables 0..nvars-1.
 * Equality is kept as classes (rep[v] is the smallest variable equal to
 * v); a class's support is stored on its representative; inequalities
 * are pairs of representatives. */
struct si_tuple {
	int nvars;
	int *type;             /* per variable */
	int *rep;              /* per variable: representative of its class */
	int nwords;            /* words of each support bitset */
	uint64_t *support;     /* nvars * nwords: blocks allowed per variable */
	int nneq;
	int (*neq)[2];         /* pairs of representatives, a < b */
};

/* Extension counts of projected tuples. */
struct si_ext {
	double *v;
	size_t n, cap;
};

/* A disjunction of tuples over the same variables. */
struct si_set {
	VEC(struct si_tuple *) v;
};

struct si_space *si_space_new(int ntypes);
/* Adds a block of the given size to type t; returns its number or -1. */
int si_space_add_block(struct si_space *sp, int t, int64_t size);
void si_space_free(struct si_space *sp);

/* A tuple allowing everything: each variable of type types[v] ranges over
 * all blocks.  NULL on out of memory. */
struct si_tuple *si_tuple_new(const struct si_space *sp, int nvars,
    const int *types);
struct si_tuple *si_tuple_copy(const struct si_tuple *t);
void si_tuple_free(struct si_tuple *t);

/* Atomic constraints; each returns 0 or -1 on out of memory. */
void si_in(struct si_tuple *t, int v, const uint64_t *blocks);
void si_in_block(struct si_tuple *t, int v, int block);
void si_not_in(struct si_tuple *t, int v, const uint64_t *blocks);
void si_eq(struct si_tuple *t, int a, int b);
int si_neq(struct si_tuple *t, int a, int b) WUR;

static inline int
si_has(const struct si_tuple *t, int v, int b)
{
	const uint64_t *s = t->support + (size_t)t->rep[v] * t->nwords;
	return (int)((s[b / 64] >> (b % 64)) & 1);
}

/* Is the tuple in canonical form (Definition 3.1)? */
int si_is_canonical(const struct si_tuple *t, const struct si_space *sp);
/* Appends to out the canonical tuples whose solutions are exactly those
 * of t, pairwise disjoint; none when t has no solution. */
int si_canon(const struct si_tuple *t, const struct si_space *sp,
    struct si_set *out) WUR;
/* The conjunction of a and b (same variables); caller canonicalises. */
struct si_tuple *si_join(const struct si_tuple *a, const struct si_tuple *b);

/* Appends to out canonical tuples, pairwise disjoint, whose solutions
 * are those of p and not of r. */
int si_subtract(const struct si_tuple *p, const struct si_tuple *r,
    const struct si_space *sp, struct si_set *out) WUR;

/* Number of solutions: exact while below 2^53. */
double si_count(const struct si_tuple *t, const struct si_space *sp);
/* Of a set whose tuples may overlap: the size of the union. */
double si_set_count(const struct si_set *s, const struct si_space *sp);

/* Projects variable v out of canonical tuple t (Lemma 3.1): appends
 * tuples over the other variables (renumbered down past v) to out and
 * their extension counts to ext, so that each solution of out->v[i] has
 * exactly ext[i] extensions in t.  Splits by the equivalence classes of
 * v's inequality partners where needed. */
int si_project(const struct si_tuple *t, const struct si_space *sp, int v,
    struct si_set *out, struct si_ext *ext) WUR;

/* Numbers of tuples of a set. */
struct si_ids {
	int *v;
	size_t n, cap;
};

/* An index of a set's tuples by the blocks each variable allows, so
 * that the few tuples that can meet a given one are found without trying
 * every tuple: folding evidence meets a clause piece with the evidence
 * cubes of one atom, of which there are thousands, and counting a union
 * subtracts only the tuples that overlap. */
struct si_index;

/* Indexes the tuples of s, which must all have the same variables and
 * types; s is borrowed and must not change while the index lives.  NULL
 * on out of memory.  Free with si_index_free(). */
struct si_index *si_index_new(const struct si_set *s,
    const struct si_space *sp);
void si_index_free(struct si_index *ix);
/* Sets out (cleared first) to the numbers, ascending, of the indexed
 * tuples whose every variable i allows some block that q's variable
 * map[i] allows (map NULL: variable i).  The tuples left out share no
 * solution with q; those listed may still share none.  Returns 0 or -1
 * (out of memory). */
int si_index_meets(struct si_index *ix, const struct si_tuple *q,
    const int *map, struct si_ids *out) WUR;

/* Splits block b of type t into b (first k constants) and a new block
 * (the other size - k); returns the new block or -1.  Tuples made before
 * must be passed to si_tuple_split() to follow. */
int si_space_split(struct si_space *sp, int t, int b, int64_t k);
/* Makes t's supports follow a split: wherever block b of type ty is
 * allowed, the new block nb is too.  Returns 0 or -1 (out of memory, when
 * the bitsets must grow). */
int si_tuple_split(struct si_tuple *t, int ty, int b, int nb) WUR;

void si_set_clear(struct si_set *s);
void si_set_free(struct si_set *s);

/* Debug text, e.g. "[x0 in {0,2} ^ x0 != x1 ^ x1 in {0,2}]"; caller frees. */
char *si_tuple_text(const struct si_tuple *t, const struct si_space *sp);

#endif
