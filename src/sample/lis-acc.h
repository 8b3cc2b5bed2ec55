/* lis-acc.h: running sums of importance weights kept in log space, per
 * part and per target, and the estimates of log Z they give (lis.c). */
#ifndef SQLIFT_LIS_ACC_H
#define SQLIFT_LIS_ACC_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* A running sum of weights exp(lw), kept relative to the largest m. */
struct acc {
	double m, s1, s2;
	int64_t n;
};

void acc_add(struct acc *a, double lw);
/* Adds b's weights to a's. */
void acc_merge(struct acc *a, const struct acc *b);
/* log of the mean weight, its standard error and the effective sample
 * size; -inf when every weight was 0. */
void acc_result(const struct acc *a, double *log_z, double *stderr_lz,
    double *ess);

/* A target's running estimate: its constant, and per independent part
 * the sums of its weights (eng_part_weights).  Z^ is the constant times
 * the product of the parts' mean weights: unbiased, as each part's draws
 * are (AND/OR sampling); its log's standard error adds the parts'
 * squared relative errors (the delta method), and its effective sample
 * size is the smallest of the parts'. */
struct tacc {
	size_t np;
	double konst;          /* -inf: Z = 0 */
	double *last;          /* per part: the last sample's log weight */
	struct acc *a;         /* per part */
	int64_t n;
};

/* -1 when out of memory; free with tacc_free() either way. */
int tacc_init(struct tacc *t, size_t np, double konst) WUR;
void tacc_free(struct tacc *t);
/* Counts the last sample (each part's weight in t->last). */
void tacc_add(struct tacc *t);
/* The estimate from parts a[0 .. np) of n samples each. */
void acc_parts(const struct acc *a, size_t np, double konst, int64_t n,
    double *log_z, double *stderr_lz, double *ess);
/* A target's parts merged over nt streams' accumulators (src[i] NULL:
 * none); *out: caller frees.  -1 when out of memory. */
int tacc_merge(const struct tacc *const *src, int nt, struct acc **out,
    size_t *np, double *konst, int64_t *n) WUR;

#endif
