/* brute.c: exact log Z and marginals by enumerating every world of the
 * unknown atoms.  It is the test oracle for everything lifted, so it is
 * kept plain: evaluate each ground formula on each world, two passes in
 * log space (the maximum first, then sums of exp(weight - max)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "infer/ground.h"

/* Log weight of world w (bit u = unknown atom u), or -inf if a hard
 * formula is false in it. */
static double
world_weight(const struct ground *g, uint64_t w, int *stack)
{
	double lw = g->log_const;

	for (size_t k = 0; k < g->gf.n; k++) {
		const struct ground_formula *f = &g->gf.v[k];
		const int *code = g->code.v + f->start;
		int sp = 0;
		for (int i = 0; i < f->len; i++) {
			switch (code[i]) {
			case OP_ATOM:
				stack[sp++] = (int)((w >> code[++i]) & 1);
				break;
			case OP_NOT:
				stack[sp - 1] = !stack[sp - 1];
				break;
			case OP_AND:
				sp--;
				stack[sp - 1] = stack[sp - 1] && stack[sp];
				break;
			case OP_OR:
				sp--;
				stack[sp - 1] = stack[sp - 1] || stack[sp];
				break;
			case OP_IFF:
				sp--;
				stack[sp - 1] = stack[sp - 1] == stack[sp];
				break;
			}
		}
		if (stack[0])
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
	if (!(stack = xmalloc((size_t)maxlen * sizeof *stack)))
		return err_oom(e);
	if (marg && !(acc = xcalloc((size_t)n + 1, sizeof *acc))) {
		free(stack);
		return err_oom(e);
	}
	for (uint64_t w = 0; w < worlds; w++) {
		double lw = world_weight(g, w, stack);
		if (lw > max)
			max = lw;
	}
	if (max == -INFINITY) {
		free(stack);
		free(acc);
		return err_set(e, SQLIFT_EZERO, "Z = 0: no world satisfies the hard "
		    "formulas together with the evidence");
	}
	for (uint64_t w = 0; w < worlds; w++) {
		double lw = world_weight(g, w, stack);
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
	free(acc);
	return 0;
}
