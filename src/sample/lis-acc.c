/* lis-acc.c: the sampler's running sums: of one independent part's
 * weights (struct acc), of a target's parts (struct tacc), their merge
 * over the streams and the estimates they give (the delta method). */
#include <math.h>
#include <stdlib.h>

#include "sample/lis-acc.h"


void
acc_add(struct acc *a, double lw)
{
	a->n++;
	if (lw == -INFINITY)
		return;
	if (a->n == 1 || lw > a->m) {
		double f = a->s1 > 0 ? exp(a->m - lw) : 0;
		a->s1 = a->s1 * f + 1;
		a->s2 = a->s2 * f * f + 1;
		a->m = lw;
	} else {
		double w = exp(lw - a->m);
		a->s1 += w;
		a->s2 += w * w;
	}
}

void
acc_merge(struct acc *a, const struct acc *b)
{
	struct acc x = *b;

	if (a->s1 == 0) {
		x.n += a->n;
		*a = x;
		return;
	}
	a->n += b->n;
	if (b->s1 == 0)
		return;
	if (b->m > a->m) {
		double f = exp(a->m - b->m);
		a->s1 = a->s1 * f + b->s1;
		a->s2 = a->s2 * f * f + b->s2;
		a->m = b->m;
	} else {
		double f = exp(b->m - a->m);
		a->s1 += b->s1 * f;
		a->s2 += b->s2 * f * f;
	}
}

void
acc_result(const struct acc *a, double *log_z, double *stderr_lz,
    double *ess)
{
	double n = (double)a->n, mean, var;

	if (a->n == 0 || a->s1 == 0) {
		*log_z = -INFINITY;
		*stderr_lz = NAN;
		*ess = 0;
		return;
	}
	mean = a->s1 / n;
	*log_z = a->m + log(mean);
	*ess = a->s1 * a->s1 / a->s2;
	if (a->n < 2) {
		*stderr_lz = NAN;
		return;
	}
	var = (a->s2 / n - mean * mean) * n / (n - 1);
	*stderr_lz = sqrt((var > 0 ? var : 0) / n) / mean;
}


int
tacc_init(struct tacc *t, size_t np, double konst)
{
	t->np = np;
	t->konst = konst;
	t->n = 0;
	t->last = xcalloc(np + 1, sizeof *t->last);
	t->a = xcalloc(np + 1, sizeof *t->a);
	return t->last && t->a ? 0 : -1;
}

void
tacc_free(struct tacc *t)
{
	free(t->last);
	free(t->a);
}

/* Counts the last sample (each part's weight in t->last). */
void
tacc_add(struct tacc *t)
{
	t->n++;
	for (size_t k = 0; k < t->np; k++)
		acc_add(&t->a[k], t->last[k]);
}

/* The estimate from parts a[0 .. np) of n samples each. */
void
acc_parts(const struct acc *a, size_t np, double konst, int64_t n,
    double *log_z, double *stderr_lz, double *ess)
{
	double var = 0;

	*log_z = konst;
	*ess = (double)n;
	*stderr_lz = n < 2 ? NAN : 0;
	if (n == 0 || konst == -INFINITY) {
		*log_z = -INFINITY;
		*stderr_lz = NAN;
		*ess = 0;
		return;
	}
	for (size_t k = 0; k < np; k++) {
		double l, se, e;
		acc_result(&a[k], &l, &se, &e);
		if (l == -INFINITY) {
			*log_z = -INFINITY;
			*stderr_lz = NAN;
			*ess = 0;
			return;
		}
		*log_z += l;
		if (e < *ess)
			*ess = e;
		if (!isnan(se))
			var += se * se;
	}
	if (n >= 2)
		*stderr_lz = sqrt(var);
}

/* Target i's parts merged over the streams' accumulators (src per
 * stream, NULL: that stream's own). */
int
tacc_merge(const struct tacc *const *src, int nt, struct acc **out,
    size_t *np, double *konst, int64_t *n)
{
	const struct tacc *t0 = NULL;

	*out = NULL;
	*np = 0;
	*n = 0;
	*konst = -INFINITY;
	for (int i = 0; i < nt && !t0; i++)
		if (src[i] && src[i]->a)
			t0 = src[i];
	if (!t0)
		return 0;
	*np = t0->np;
	*konst = t0->konst;
	if (!(*out = xcalloc(t0->np + 1, sizeof **out)))
		return -1;
	for (int i = 0; i < nt; i++) {
		if (!src[i] || !src[i]->a)
			continue;
		*n += src[i]->n;
		for (size_t k = 0; k < t0->np; k++)
			acc_merge(&(*out)[k], &src[i]->a[k]);
	}
	return 0;
}
