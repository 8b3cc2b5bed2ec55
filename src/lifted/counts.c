/* counts.c: what the search records for the sampler as it goes: tracked
 * ground atoms (eng_track) and expected counts of counted classes
 * (eng_track_count). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

void
trk_put(struct eng *g, int slot, double v)
{
	g->trk_v[slot] = v;
	if (vec_grow_((void **)&g->trk_log, &g->captrk_log, g->ntrk_log + 1,
	    sizeof *g->trk_log))
		g->trk_log_oom = 1;
	else
		g->trk_log[g->ntrk_log++] = slot;
}

/* --- expected counts (eng_track_count) ---------------------------------
 * A counted class has a unit clause of weight 0 with a tag: the clause
 * changes no weight, and every true grounding it loses to a
 * simplification is one true atom of the class.  search_solve() appends
 * (tag, count) to g->ga as it goes; under a product of parts the counts
 * add, a power rule's part counts n times, and a sum node (a binomial's
 * counts, mode_split's two terms) weighs its children's stretches of ga
 * by their shares of its value.  So after search_solve() the stretch it
 * appended holds its theory's expected count per tag (exactly, where it
 * solved exactly; given the draws, where it drew): the derivative of
 * log Z in the clause's weight. */
void
counts_push(struct eng *g, int tag, double v)
{
	struct gacc *a = &g->ga;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		int *t = xrealloc(a->tag, cap * sizeof *t);
		double *x;
		if (t)
			a->tag = t;
		if (!t || !(x = xrealloc(a->v, cap * sizeof *x))) {
			a->oom = 1;
			return;
		}
		a->v = x;
		a->cap = cap;
	}
	a->tag[a->n] = tag;
	a->v[a->n++] = v;
}

/* Counts from..to of ga times f. */
void
counts_scale(struct eng *g, size_t from, size_t to, double f)
{
	for (size_t i = from; i < to; i++)
		g->ga.v[i] *= f;
}

/* One entry per tag in ga from `from` on. */
void
counts_compact(struct eng *g, size_t from)
{
	struct gacc *a = &g->ga;
	size_t n = from;

	if (a->n - from < 2)
		return;
	for (size_t i = from; i < a->n; i++)
		g->tags[a->tag[i]].sum += a->v[i];
	for (size_t i = from; i < a->n; i++) {
		int t = a->tag[i];
		if (g->tags[t].sum != 0) {
			a->tag[n] = t;
			a->v[n++] = g->tags[t].sum;
			g->tags[t].sum = 0;
		}
	}
	a->n = n;
}

/* A sum node's children appended their stretches at mark[0..nt) (the
 * last ends at ga's end), with log values lt; ltot is the node's: each
 * stretch is weighed by its share. */
void
counts_shares(struct eng *g, const size_t *mark, const double *lt,
    size_t nt, double ltot)
{
	if (!g->ntag)
		return;
	for (size_t k = 0; k < nt; k++)
		counts_scale(g, mark[k], k + 1 < nt ? mark[k + 1] : g->ga.n,
		    lt[k] == -INFINITY || ltot == -INFINITY ? 0 :
		    exp(lt[k] - ltot));
	counts_compact(g, mark[0]);
}

/* While sampling: a tracked ground atom's expectation on this path; key
 * is a class key of t (NULL: of the top theory). */
void
track_set(struct eng *g, const struct th *t, const int *key, size_t len,
    double v)
{
	int slot, buf[KEY_BUF];

	if (g->npath && g->smp && !g->mode.trying && !g->mode.piloting &&
	    (slot = amap_eval(&g->trk, th_gkey(t, key, len, buf), len)) >= 0)
		trk_put(g, slot, v);
}
