/* proposal.c: the adaptive proposals of sampled binomial nodes: per node
 * (key hash, n) a table of what each count gave, built into a cumulative
 * proposal, drawn from and updated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-int.h"

int
eng_proposal_parse(const char *s)
{
	static const char *names[] = { "adaptive", "binomial", "uniform" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *
eng_proposal_name(int proposal)
{
	static const char *names[] = { "adaptive", "binomial", "uniform" };

	return proposal >= 0 && proposal < 3 ? names[proposal] : "?";
}

static void
prop_free(struct prop *p)
{
	free(p->lsum);
	free(p->cnt);
	free(p->cdf);
	free(p->pil);
}

struct sampler *
smp_new(void)
{
	struct sampler *s = xcalloc(1, sizeof *s);

	if (s)
		s->try_cap = s->pilot_cap = s->negl_cap = INFINITY;
	return s;
}

void
smp_free(struct sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->capprops; i++)
		if (s->props[i].n >= 0)
			prop_free(&s->props[i]);
	free(s->props);
	free(s);
}

/* The proposal state of node (h, n); NULL when the table is full (the
 * node then draws uniformly). */
struct prop *
prop_get(struct eng *g, uint64_t h, int64_t n)
{
	size_t mask, i;
	struct prop *p;

	if (2 * (g->smp->nprops + 1) > g->smp->capprops) {
		size_t cap = g->smp->capprops ? 2 * g->smp->capprops : 256;
		struct prop *np = xmalloc(cap * sizeof *np), *old = g->smp->props;
		if (!np)
			return NULL;
		for (size_t j = 0; j < cap; j++)
			np[j].n = -1;
		for (size_t j = 0; j < g->smp->capprops; j++)
			if (old[j].n >= 0) {
				size_t k = (old[j].h ^ (uint64_t)old[j].n) & (cap - 1);
				while (np[k].n >= 0)
					k = (k + 1) & (cap - 1);
				np[k] = old[j];
			}
		free(old);
		g->smp->props = np;
		g->smp->capprops = cap;
	}
	mask = g->smp->capprops - 1;
	for (i = (h ^ (uint64_t)n) & mask; g->smp->props[i].n >= 0; i = (i + 1) & mask)
		if (g->smp->props[i].h == h && g->smp->props[i].n == n)
			return &g->smp->props[i];
	if (g->smp->prop_cells + (size_t)n + 1 > PROP_CELLS) {
		g->st.props_full++;  /* the caller draws from a fixed proposal */
		return NULL;
	}
	p = &g->smp->props[i];
	memset(p, 0, sizeof *p);
	p->lsum = xmalloc(((size_t)n + 1) * sizeof *p->lsum);
	p->cnt = xcalloc((size_t)n + 1, sizeof *p->cnt);
	p->cdf = xmalloc(((size_t)n + 1) * sizeof *p->cdf);
	if (!p->lsum || !p->cnt || !p->cdf) {
		prop_free(p);
		p->n = -1;
		return NULL;
	}
	for (int64_t k = 0; k <= n; k++)
		p->lsum[k] = -INFINITY;
	p->h = h;
	p->n = n;
	p->lw = p->lwk = p->lw2 = -INFINITY;
	p->built = -1;
	g->smp->nprops++;
	g->smp->prop_cells += (size_t)n + 1;
	return p;
}

/* Builds p's cumulative proposal from what its draws gave so far:
 * (1 - eps - gs) M(k) + eps / (n + 1) + [k != m] gs M(k) / (1 - M(m)),
 * with M = lam T + (1 - lam) B, m its likeliest count and gs the guided
 * share (PROP_GUIDED with a pilot, else 0), where T is
 * proportional to the mean C(n,k) Z(k) drawn at each k seen (adaptive
 * only; lam = 1/2 once something was seen), and B is the node's pilot
 * (count_pilot) if it has one, else Binomial(n, ph), where ph estimates
 * the mean fraction of true atoms under the target, weighting each draw
 * by C(n,k) Z(k) / Q(k). */
static void
prop_build(const struct eng *g, struct prop *p)
{
	int64_t n = p->n;
	double ph = 0.5, lam = 0, mx = -INFINITY, tsum = 0, acc = 0, lp, lq;
	double ess = 0, eps = PROP_EPS, guided = 0, gs = 0;
	double lo = 0.5 / ((double)n + 1);
	int64_t m = 0;

	/* the table of counts counts as much as its effective number of
	 * samples against PROP_PRIOR samples of the binomial, so that a few
	 * samples, one carrying all the weight, cannot make a count far too
	 * unlikely; the binomial's p is not shrunk toward 1/2, which costs
	 * far more for large n (docs/internals/lis.md, "Proposals") */
	if (p->lw > -INFINITY)
		ess = exp(2 * p->lw - p->lw2);
	if (p->lw > -INFINITY)
		ph = exp(p->lwk - p->lw);
	ph = ph < lo ? lo : ph > 1 - lo ? 1 - lo : ph;
	if (g->o.proposal == ENG_PROP_ADAPTIVE) {
		for (int64_t k = 0; k <= n; k++)
			if (p->cnt[k] > 0 && p->lsum[k] - log(p->cnt[k]) > mx)
				mx = p->lsum[k] - log(p->cnt[k]);
		for (int64_t k = 0; k <= n && mx > -INFINITY; k++)
			if (p->cnt[k] > 0)
				tsum += exp(p->lsum[k] - log(p->cnt[k]) - mx);
		if (mx > -INFINITY)
			lam = 0.5 * ess / (ess + PROP_PRIOR);
	}
	lp = log(ph);
	lq = log1p(-ph);
	/* cdf[] holds the mixture lam T + (1 - lam) B first */
	for (int64_t k = 0; k <= n; k++) {
		double b = p->pil ? p->pil[k] :
		    exp(lchoose(n, k) + (double)k * lp + (double)(n - k) * lq);
		double tk = lam > 0 && p->cnt[k] > 0 ?
		    exp(p->lsum[k] - log(p->cnt[k]) - mx) / tsum : 0;
		p->cdf[k] = lam * tk + (1 - lam) * b;
		if (k == 0 || p->cdf[k] > p->cdf[m])
			m = k;
	}
	/* a node with a pilot puts a further PROP_GUIDED on the counts
	 * other than the mixture's mode m, in proportion to the mixture.
	 * When m has nearly all the weight, mode_split solves it every time
	 * and the rest of the sum comes in only when another count is
	 * drawn, which the uniform share alone does too rarely; more than
	 * PROP_GUIDED costs pilots below every count off the mode
	 * (docs/internals/lis.md, "Proposals") */
	if (p->pil && p->cdf[m] < 1) {
		guided = PROP_GUIDED;
		gs = guided / (1 - p->cdf[m]);
	}
	for (int64_t k = 0; k <= n; k++) {
		double q = (1 - eps - guided) * p->cdf[k] +
		    eps / ((double)n + 1) + (k != m ? gs * p->cdf[k] : 0);
		if (k == 0 || q > p->qmode) {
			p->kmode = k;
			p->qmode = q;
		}
		acc += q;
		p->cdf[k] = acc;
	}
	p->qmode /= acc;
	p->built = p->visits;
}

/* Draws k in 0..n from node (h, n); *lq gets log Q(k). */
int64_t
prop_draw(struct eng *g, uint64_t h, int64_t n, struct prop **pp, double *lq)
{
	struct prop *p = NULL;
	double u = eng_rng_unit(g->smp->rng);
	int64_t lo = 0, hi = n, v;

	g->st.draws++;
	if (g->o.proposal != ENG_PROP_UNIFORM)
		p = prop_get(g, h, n);
	*pp = p;
	if (!p) {
		int64_t k = (int64_t)(u * ((double)n + 1));
		*lq = -log((double)n + 1);
		return k > n ? n : k;
	}
	v = p->visits;
	if (p->built != v && (n <= 64 || v <= 16 || (v & (v - 1)) == 0 ||
	    v % 64 == 0))
		prop_build(g, p);
	u *= p->cdf[n];
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (p->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	*lq = log((p->cdf[lo] - (lo ? p->cdf[lo - 1] : 0)) / p->cdf[n]);
	return lo;
}

/* The probability of 1 of the Bernoulli proposal of node (h, 1). */
double
prop_p1(struct eng *g, uint64_t h)
{
	struct prop *p = NULL;

	if (g->o.proposal != ENG_PROP_UNIFORM)
		p = prop_get(g, h, 1);
	if (!p)
		return 0.5;
	if (p->built != p->visits)
		prop_build(g, p);
	return (p->cdf[1] - p->cdf[0]) / p->cdf[1];
}

/* What a draw of k gave: val = log C(n,k) Z(k) (estimated). */
void
prop_update(struct prop *p, int64_t k, double val, double lq)
{
	double w = val - lq;

	if (!p)
		return;
	p->visits++;
	p->cnt[k]++;
	p->lsum[k] = log_add(p->lsum[k], val);
	p->lw = log_add(p->lw, w);
	p->lw2 = log_add(p->lw2, 2 * w);
	if (k > 0)
		p->lwk = log_add(p->lwk, w + log((double)k / (double)p->n));
}
