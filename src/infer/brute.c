/* brute.c: exact log Z and marginals by enumerating every world of the
 * unknown atoms.  It is the test oracle for everything lifted, so it is
 * kept plain: evaluate each ground formula on each world (ground_eval,
 * the evaluator map and the Gibbs samplers use too), two passes in
 * log space (the maximum first, then sums of exp(weight - max)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "infer/ground.h"

/* Log weight of world w (bit u = unknown atom u, unpacked into x for
 * ground_eval), or -inf if a hard formula is false in it. */
static double
world_weight(const struct ground *g, uint64_t w, unsigned char *x,
    int *stack)
{
	double lw = g->log_const;

	for (size_t u = 0; u < g->unk_atom.n; u++)
		x[u] = (unsigned char)((w >> u) & 1);
	for (size_t k = 0; k < g->gf.n; k++) {
		const struct ground_formula *f = &g->gf.v[k];
		if (ground_eval(g, k, x, stack))
			lw += f->hard ? 0 : f->weight;
		else if (f->hard)
			return -INFINITY;
	}
	return lw;
}

int
brute_solve(const struct ground *g, double *log_z, double *marg,
    double *log_max, struct err *e)
{
	int n = (int)g->unk_atom.n, maxlen = 1;
	uint64_t worlds = (uint64_t)1 << (n < 63 ? n : 63);
	double max = -INFINITY;
	long double sum = 0, *acc = NULL;
	unsigned char *x;
	int *stack;

	if (g->zero)
		return err_set(e, SQLIFT_EZERO, "Z = 0: the evidence violates the "
		    "hard formula %s", g->zero_why);
	if (n > BRUTE_MAX_UNKNOWN)
		return err_set(e, SQLIFT_ELIMIT, "brute force: %d unknown atoms, "
		    "more than the limit of %d", n, BRUTE_MAX_UNKNOWN);
	for (size_t k = 0; k < g->gf.n; k++)
		if (g->gf.v[k].len > maxlen)
			maxlen = g->gf.v[k].len;
	if (!(x = xcalloc((size_t)n + 1, 1)))
		return err_oom(e);
	if (!(stack = xmalloc((size_t)maxlen * sizeof *stack))) {
		free(x);
		return err_oom(e);
	}
	if (marg && !(acc = xcalloc((size_t)n + 1, sizeof *acc))) {
		free(stack);
		free(x);
		return err_oom(e);
	}
	for (uint64_t w = 0; w < worlds; w++) {
		double lw = world_weight(g, w, x, stack);
		if (lw > max)
			max = lw;
	}
	if (max == -INFINITY) {
		free(stack);
		free(x);
		free(acc);
		return err_set(e, SQLIFT_EZERO, "Z = 0: no world satisfies the hard "
		    "formulas together with the evidence");
	}
	for (uint64_t w = 0; w < worlds; w++) {
		double lw = world_weight(g, w, x, stack);
		long double p;
		if (lw == -INFINITY)
			continue;
		p = expl((long double)lw - max);
		sum += p;
		if (acc)
			for (int u = 0; u < n; u++)
				if ((w >> u) & 1)
					acc[u] += p;
	}
	*log_z = max + (double)logl(sum);
	if (log_max)
		*log_max = max;
	if (marg)
		for (int u = 0; u < n; u++)
			marg[u] = (double)(acc[u] / sum);
	free(stack);
	free(x);
	free(acc);
	return 0;
}
