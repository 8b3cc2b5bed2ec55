/* map.c: the ground MAP solver: a local search (MaxWalkSAT) for a first
 * world, then integer programs over the groundings it violates, solved
 * exactly by COIN-OR CBC, adding the groundings each solution violates
 * (cutting planes, as RockIt does) until none is left.  The groundings
 * not in a program are counted as satisfied where that is best, so each
 * program's optimum bounds every world; the last one's is attained. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "sqlift.h"
#include "infer/cbc.h"
#include "infer/map.h"

/* What the local search adds for a false hard grounding, in units of
 * the largest soft weight: enough that no soft gain pays for one. */
#define HARD_UNITS 1e3
/* The local search's steps, and its seconds without --max-seconds. */
#define WALK_FLIPS 1000000
#define WALK_SECONDS 1.0
/* The local search's noise: where no flip or pair of flips from the
 * grounding drawn lowers the cost, the probability of a random flip
 * (else none); doubled after each search that found no better world,
 * up to 0.3.  0.5, the classic value, left Cora's search above the
 * all-false world's cost; 0.02 gave the best worlds on Cora and UW-CSE
 * (0.05 and 0.1 close on Cora, 35 to 130 lower on UW-CSE). */
#define WALK_NOISE 0.02
/* A local search stops after this many steps (or the number of atoms,
 * when more) without a better world, and as many as it took to find
 * the last one. */
#define WALK_STALL 10000
/* Groundings a first flip made bad that a pair move tries to repair, at
 * most (WebKB: an atom in 2,000 groundings). */
#define WALK_PAIRS 32
/* A chain move's flips at most, and the groundings it made bad that its
 * next flips are drawn from (ws_chain). */
#define WALK_CHAIN 6
#define WALK_FRESH 64
/* The atoms of the drawn grounding a chain may start from, at most. */
#define WALK_CHAIN_STARTS 2
/* Searches from the best world with another seed after one that found
 * no better world, at most. */
#define WALK_RESTARTS 3
/* Local searches at most, each on the groundings the last one's world
 * violated, when grounding lazily. */
#define WALK_ROUNDS 8
/* Under --max-seconds: the local search until this share of the time,
 * the integer programs until CBC_SHARE (CBC is stopped there), the
 * local search again from the best world for the rest.  On Cora and
 * UW-CSE the local search finds the better world, CBC the bound; on
 * IMDB and WebKB CBC proves the optimum in its first seconds.  The
 * local search finds Cora's world and UW-CSE's within 0.1 of it in the
 * first 1.5 s of 10; UW-CSE's second program needs about 6.5 s of CBC
 * (on a loaded machine) for its bound, within 0.1% of the world. */
#define WALK_SHARE 0.15
/* A local search stalls after this share of the time without a gain
 * (and as long as its last gain took): WebKB's world is the all-false
 * one, and its steps cost milliseconds. */
#define WALK_PATIENCE 0.05
#define CBC_SHARE 0.9

/* Truth of grounding k in world truth; stack holds its program. */
static int
eval_one(const struct ground *g, size_t k, const signed char *truth,
    int *stack)
{
	return ground_eval(g, k, (const unsigned char *)truth, stack);
}

static int
max_len(const struct ground *g)
{
	int n = 1;

	for (size_t k = 0; k < g->gf.n; k++)
		if (g->gf.v[k].len > n)
			n = g->gf.v[k].len;
	return n;
}

double
map_score(const struct ground *g, const signed char *truth)
{
	int *stack = xmalloc((size_t)max_len(g) * sizeof *stack);
	double lw = 0;

	if (!stack)
		return NAN;
	/* the groundings' weights apart from the constant, which may be
	 * 10^12 where they are 1 */
	for (size_t k = 0; k < g->gf.n && lw > -INFINITY; k++) {
		int v = eval_one(g, k, truth, stack);
		if (g->gf.v[k].hard && !v)
			lw = -INFINITY;
		else if (v && !g->gf.v[k].hard)
			lw += g->gf.v[k].weight;
	}
	free(stack);
	return g->log_const + (g->log_const_c + lw);
}

/* A grounding is "bad" where it costs: a soft one of positive weight or
 * a hard one false, a soft one of negative weight true. */
static int
is_bad(const struct ground_formula *f, int v)
{
	return f->hard || f->weight > 0 ? !v : v;
}

/* ---- the local search ---- */

struct ws {
	const struct ground *g;
	signed char *x;
	int *stack;
	char *val;             /* per grounding: its truth now */
	int64_t *ofirst;       /* per atom: its groundings in occ[] */
	int *occ;
	/* A grounding that is one clause, each atom once (lazy.c's, most
	 * of them): its true literals counted, no program run per flip */
	char *clause;          /* per grounding */
	char *oneg;            /* per occurrence: the literal is negated */
	int *ntrue;            /* per clause grounding: its true literals */
	double *cost;          /* per grounding, when bad */
	int *bad, *pos;        /* the bad groundings; pos[k]: in bad, or -1 */
	int nbad;
	int64_t *icost;        /* per grounding: cost in units of 2^-60 of
	                          all costs: sums without rounding drift */
	double big;            /* the largest cost of a soft grounding */
	/* Components: atoms joined by a grounding (each grounding's atoms
	 * are in one).  Their costs add up, so the best world takes each
	 * component's best state on its own, as Tuffy's per-component
	 * search does. */
	int nc;
	int *comp;             /* per atom */
	int *gcomp;            /* per grounding, -1 without atoms */
	int64_t *ctotal, *cbest; /* per component: cost now (icost), and
	                          least seen */
	int *cstart, *dn;      /* per component: its segment of diff, and
	                          how much of it is in use */
	int *diff, *dpos;      /* per component, the atoms where x differs
	                          from the best world; dpos[u]: in the
	                          segment, or -1 */
	int track, nnew;       /* while track: groundings made bad, in */
	int fresh[WALK_FRESH];
	uint64_t rs;
};

static uint64_t
ws_rand(struct ws *w)
{
	w->rs ^= w->rs << 13;
	w->rs ^= w->rs >> 7;
	w->rs ^= w->rs << 17;
	return w->rs;
}

static void
ws_set(struct ws *w, int k, int v)
{
	/* weight 0 (--grounding full) costs nothing: never bad */
	int was = w->pos[k] >= 0, now = is_bad(&w->g->gf.v[k], v) &&
	    w->cost[k] > 0;

	w->val[k] = (char)v;
	if (was && !now) {
		int last = w->bad[--w->nbad];
		w->bad[w->pos[k]] = last;
		w->pos[last] = w->pos[k];
		w->pos[k] = -1;
		if (w->gcomp[k] >= 0)
			w->ctotal[w->gcomp[k]] -= w->icost[k];
	} else if (!was && now) {
		if (w->track && w->nnew < WALK_FRESH)
			w->fresh[w->nnew++] = k;
		w->pos[k] = w->nbad;
		w->bad[w->nbad++] = k;
		if (w->gcomp[k] >= 0)
			w->ctotal[w->gcomp[k]] += w->icost[k];
	}
}

/* The change of the cost if atom u flipped. */
static double
ws_delta(struct ws *w, int u)
{
	double d = 0;

	w->x[u] = !w->x[u];
	for (int64_t i = w->ofirst[u]; i < w->ofirst[u + 1]; i++) {
		int k = w->occ[i], v;
		if (w->clause[k])
			/* the literal true after the flip: one more true */
			v = w->ntrue[k] + ((w->x[u] != w->oneg[i]) ? 1 : -1) > 0;
		else
			v = eval_one(w->g, (size_t)k, w->x, w->stack);
		d += (is_bad(&w->g->gf.v[k], v) - (w->pos[k] >= 0)) * w->cost[k];
	}
	w->x[u] = !w->x[u];
	return d;
}

/* A uniform draw in [0, 1). */
static double
ws_unit(struct ws *w)
{
	return (double)(ws_rand(w) >> 11) / 9007199254740992.0;
}

static void
ws_flip(struct ws *w, int u)
{
	int c = w->comp[u], *seg = w->diff + w->cstart[c];

	if (w->dpos[u] < 0) {
		w->dpos[u] = w->dn[c];
		seg[w->dn[c]++] = u;
	} else {
		int last = seg[--w->dn[c]];
		seg[w->dpos[u]] = last;
		w->dpos[last] = w->dpos[u];
		w->dpos[u] = -1;
	}
	w->x[u] = !w->x[u];
	for (int64_t i = w->ofirst[u]; i < w->ofirst[u + 1]; i++) {
		int k = w->occ[i];
		if (w->clause[k]) {
			w->ntrue[k] += (w->x[u] != w->oneg[i]) ? 1 : -1;
			ws_set(w, k, w->ntrue[k] > 0);
		} else
			ws_set(w, k, eval_one(w->g, (size_t)k, w->x, w->stack));
	}
}

static void
ws_free(struct ws *w)
{
	free(w->x);
	free(w->stack);
	free(w->val);
	free(w->ofirst);
	free(w->occ);
	free(w->clause);
	free(w->oneg);
	free(w->ntrue);
	free(w->cost);
	free(w->bad);
	free(w->pos);
	free(w->diff);
	free(w->dpos);
	free(w->comp);
	free(w->gcomp);
	free(w->ctotal);
	free(w->icost);
	free(w->cbest);
	free(w->cstart);
	free(w->dn);
}

static int
uf_find(int *up, int u)
{
	while (up[u] != u)
		u = up[u] = up[up[u]];
	return u;
}

/* Whether a grounding's program is one clause, each atom once: a
 * literal (ATOM u, NOT after it when negated), then literals each
 * followed by OR, as lazy.c writes them. */
static int
is_clause(const int *code, int len)
{
	int nlit = 0;

	for (int i = 0; i < len; nlit++) {
		if (code[i] != OP_ATOM)
			return 0;
		for (int j = 0; j < i; j++)
			if (code[j] == OP_ATOM && code[j + 1] == code[i + 1])
				return 0;
		i += 2;
		if (i < len && code[i] == OP_NOT)
			i++;
		if (nlit > 0 && (i >= len || code[i++] != OP_OR))
			return 0;
	}
	return nlit > 0;
}

/* The components of the atoms (w->comp, w->gcomp, segments); -1 when
 * out of memory. */
static int
ws_components(struct ws *w)
{
	const struct ground *g = w->g;
	size_t n = g->unk_atom.n, m = g->gf.n;
	int *up = xmalloc((n + 1) * sizeof *up), nc = 0;

	if (!up)
		return -1;
	for (size_t u = 0; u < n; u++)
		up[u] = (int)u;
	for (size_t k = 0; k < m; k++) {
		const int *code = g->code.v + g->gf.v[k].start;
		int first = -1;
		for (int i = 0; i < g->gf.v[k].len; i++)
			if (code[i] == OP_ATOM) {
				int a = uf_find(up, code[++i]);
				if (first < 0)
					first = a;
				else if (a != first)
					up[a] = first;
			}
	}
	/* roots numbered in order; dpos holds the numbers for now */
	for (size_t u = 0; u < n; u++)
		w->dpos[u] = up[u] == (int)u ? nc++ : -1;
	for (size_t u = 0; u < n; u++)
		w->comp[u] = w->dpos[uf_find(up, (int)u)];
	free(up);
	w->nc = nc;
	if (!(w->ctotal = xcalloc((size_t)nc + 1, sizeof *w->ctotal)) ||
	    !(w->cbest = xcalloc((size_t)nc + 1, sizeof *w->cbest)) ||
	    !(w->cstart = xcalloc((size_t)nc + 2, sizeof *w->cstart)) ||
	    !(w->dn = xcalloc((size_t)nc + 1, sizeof *w->dn)))
		return -1;
	for (size_t u = 0; u < n; u++)
		w->cstart[w->comp[u] + 1]++;
	for (int c = 0; c < nc; c++)
		w->cstart[c + 1] += w->cstart[c];
	for (size_t u = 0; u < n; u++)
		w->dpos[u] = -1;
	for (size_t k = 0; k < m; k++) {
		const int *code = g->code.v + g->gf.v[k].start;
		w->gcomp[k] = -1;
		for (int i = 0; i < g->gf.v[k].len && w->gcomp[k] < 0; i++)
			if (code[i] == OP_ATOM)
				w->gcomp[k] = w->comp[code[i + 1]];
	}
	return 0;
}

static int
ws_init(struct ws *w, const struct ground *g, uint64_t seed,
    const signed char *start)
{
	size_t n = g->unk_atom.n, m = g->gf.n;
	double big = 0;

	memset(w, 0, sizeof *w);
	w->g = g;
	w->rs = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!(w->x = xcalloc(n + 1, 1)) ||
	    !(w->stack = xmalloc((size_t)max_len(g) * sizeof *w->stack)) ||
	    !(w->val = xcalloc(m + 1, 1)) ||
	    !(w->ofirst = xcalloc(n + 2, sizeof *w->ofirst)) ||
	    !(w->cost = xcalloc(m + 1, sizeof *w->cost)) ||
	    !(w->bad = xcalloc(m + 1, sizeof *w->bad)) ||
	    !(w->pos = xmalloc((m + 1) * sizeof *w->pos)) ||
	    !(w->diff = xmalloc((n + 1) * sizeof *w->diff)) ||
	    !(w->dpos = xmalloc((n + 1) * sizeof *w->dpos)) ||
	    !(w->comp = xmalloc((n + 1) * sizeof *w->comp)) ||
	    !(w->gcomp = xmalloc((m + 1) * sizeof *w->gcomp)) ||
	    ws_components(w) < 0)
		return -1;
	/* occurrences, atom by atom, an atom once per grounding (twice, a
	 * flip's change of it counted twice); w->diff marks the last */
	for (size_t u = 0; u < n; u++)
		w->diff[u] = -1;
	for (size_t k = 0; k < m; k++) {
		const struct ground_formula *f = &g->gf.v[k];
		const int *code = g->code.v + f->start;
		for (int i = 0; i < f->len; i++)
			if (code[i] == OP_ATOM && w->diff[code[++i]] != (int)k) {
				w->diff[code[i]] = (int)k;
				w->ofirst[code[i] + 1]++;
			}
		if (!f->hard && fabs(f->weight) > big)
			big = fabs(f->weight);
	}
	for (size_t u = 0; u < n; u++)
		w->ofirst[u + 1] += w->ofirst[u];
	if (!(w->occ = xmalloc(((size_t)w->ofirst[n] + 1) * sizeof *w->occ)) ||
	    !(w->oneg = xcalloc((size_t)w->ofirst[n] + 1, 1)) ||
	    !(w->clause = xcalloc(m + 1, 1)) ||
	    !(w->ntrue = xcalloc(m + 1, sizeof *w->ntrue)))
		return -1;
	memcpy(w->x, start, n);
	{
		int64_t *fill = xmalloc((n + 1) * sizeof *fill);
		if (!fill)
			return -1;
		memcpy(fill, w->ofirst, n * sizeof *fill);
		for (size_t u = 0; u < n; u++)
			w->diff[u] = -1;
		for (size_t k = 0; k < m; k++) {
			const struct ground_formula *f = &g->gf.v[k];
			const int *code = g->code.v + f->start;
			w->clause[k] = (char)is_clause(code, f->len);
			for (int i = 0; i < f->len; i++)
				if (code[i] == OP_ATOM && w->diff[code[++i]] != (int)k) {
					int u = code[i];
					int neg = i + 1 < f->len && code[i + 1] == OP_NOT;
					w->diff[u] = (int)k;
					w->oneg[fill[u]] = (char)neg;
					w->occ[fill[u]++] = (int)k;
					w->ntrue[k] += w->clause[k] && w->x[u] != neg;
				}
		}
		free(fill);
	}
	w->big = big > 0 ? big : 1;
	if (!(w->icost = xmalloc((m + 1) * sizeof *w->icost)))
		return -1;
	big = 0;
	for (size_t k = 0; k < m; k++) {
		const struct ground_formula *f = &g->gf.v[k];
		w->cost[k] = f->hard ? HARD_UNITS * w->big : fabs(f->weight);
		big += w->cost[k];
	}
	/* every total at most 2^60 */
	big = big > 0 ? ldexp(1, 60) / big : 1;
	for (size_t k = 0; k < m; k++) {
		w->icost[k] = (int64_t)(w->cost[k] * big);
		w->pos[k] = -1;
		ws_set(w, (int)k, eval_one(g, k, w->x, w->stack));
	}
	for (int c = 0; c < w->nc; c++)
		w->cbest[c] = w->ctotal[c];
	return 0;
}

/* The best pair of flips that starts with an atom of atoms (ds: their
 * single changes) and repairs a grounding that flip made bad (the first
 * WALK_PAIRS of them); its
 * change of the cost, *a and *b the atoms.  (Cora: a paper's category
 * moves from one value to another in two flips, each alone dearer.) */
static double
ws_pair(struct ws *w, const int *atoms, const double *ds, int na, int *a,
    int *b)
{
	double bd = INFINITY;

	for (int j = 0; j < na && j < 8; j++) {
		int u = atoms[j];
		w->track = 1;
		w->nnew = 0;
		ws_flip(w, u);
		w->track = 0;
		for (int i = 0; i < w->nnew && i < WALK_PAIRS; i++) {
			int k = w->fresh[i];
			const struct ground_formula *f = &w->g->gf.v[k];
			const int *code = w->g->code.v + f->start;
			for (int q = 0; q < f->len; q++)
				if (code[q] == OP_ATOM && code[++q] != u) {
					double d = ds[j] + ws_delta(w, code[q]);
					if (d < bd)
						bd = d, *a = u, *b = code[q];
				}
		}
		ws_flip(w, u);
	}
	return bd;
}

/* A chain of flips (Kernighan and Lin's variable depth) from atom u (du:
 * its change of the cost): each next flip the cheapest of an atom not
 * yet in the chain, in a grounding the chain made bad that is still bad,
 * up to WALK_CHAIN flips.  The prefix of least total is kept where it
 * lowers the cost, the rest undone; returns its flips (0: none kept).
 * (Cora: two linked papers change category together, four flips of
 * which no pair alone pays.) */
static int
ws_chain(struct ws *w, int u, double du)
{
	int fl[WALK_CHAIN], nf = 0, keep = 0;
	double tot = du, best = -1e-9 * w->big;

	w->track = 1;
	w->nnew = 0;
	ws_flip(w, u);
	fl[nf++] = u;
	if (tot < best)
		best = tot, keep = 1;
	while (nf < WALK_CHAIN) {
		double bd = INFINITY;
		int b = -1;
		for (int i = 0; i < w->nnew; i++) {
			int k = w->fresh[i];
			const struct ground_formula *f = &w->g->gf.v[k];
			const int *code = w->g->code.v + f->start;
			for (int q = 0; w->pos[k] >= 0 && q < f->len; q++) {
				int a, seen = 0;
				double d;
				if (code[q] != OP_ATOM)
					continue;
				a = code[++q];
				for (int j = 0; j < nf && !seen; j++)
					seen = fl[j] == a;
				if (!seen && (d = ws_delta(w, a)) < bd)
					bd = d, b = a;
			}
		}
		if (b < 0)
			break;
		ws_flip(w, b);
		fl[nf++] = b;
		if ((tot += bd) < best)
			best = tot, keep = nf;
	}
	w->track = 0;
	while (nf > keep)
		ws_flip(w, fl[--nf]);
	return keep;
}

/* Into best, the state of u's component when it is the best seen; 1
 * then.  In integers: a running total in doubles drifts by its rounding
 * (x + c - c != x), which took for gains (55 million steps on a model
 * of 13 atoms). */
static int
ws_keep(struct ws *w, int u, signed char *best)
{
	int c = w->comp[u], *seg = w->diff + w->cstart[c];

	if (w->ctotal[c] >= w->cbest[c])
		return 0;
	/* best takes the atoms of the component that differ */
	w->cbest[c] = w->ctotal[c];
	for (int i = 0; i < w->dn[c]; i++) {
		best[seg[i]] = w->x[seg[i]];
		w->dpos[seg[i]] = -1;
	}
	w->dn[c] = 0;
	return 1;
}

/* MaxWalkSAT (Kautz, Selman and Jiang 1997) from the world in best,
 * changed where the real dumps want it (Cora: thousands of cheap unit
 * groundings that no one flip repairs without breaking a dearer one):
 * a step draws a bad grounding with probability in proportion to its
 * cost (by rejection, at most 64 draws: hard ones always pass), and
 * flips the atom of it that lowers the cost most when one does; else
 * the best pair (ws_pair) when it lowers the cost; else, with
 * probability noise, a random atom of it, else none.  best gets the
 * best state seen of each component, the start included.  Stops after
 * `steps` steps, at deadline, or stalled (no gain for WALK_STALL steps
 * or patience seconds, and as long as the last gain took); *flips: the
 * flips made, *better: whether best changed. */
static int
walksat(const struct ground *g, uint64_t seed, int64_t steps,
    double deadline, double patience, double noise, signed char *best,
    int64_t *flips, int *better)
{
	struct ws w;
	int atoms[256];
	double ds[256];
	int64_t last = 0;      /* the step of the last better world */
	int64_t stall = (int64_t)g->unk_atom.n > WALK_STALL ?
	    (int64_t)g->unk_atom.n : WALK_STALL;
	double t0 = now_seconds(), tlast = t0, now;

	*flips = 0;
	*better = 0;
	if (ws_init(&w, g, seed, best) < 0) {
		ws_free(&w);
		return -1;
	}
	for (int64_t t = 0; t < steps && w.nbad > 0; t++) {
		int k = w.bad[ws_rand(&w) % (uint64_t)w.nbad], na = 0, u;
		int chained = 0;       /* flips a chain made */
		const struct ground_formula *f;
		const int *code;
		double bd = INFINITY;
		/* a step may cost milliseconds (WebKB: atoms in 2,000
		 * groundings): the clock every 16, and stalled in time too */
		if ((t & 15) == 15 && ((t - last > stall && t - last > last) ||
		    (now = now_seconds(), (deadline > 0 && now > deadline) ||
		    (now - tlast > patience && now - tlast > tlast - t0))))
			break;
		for (int r = 0; r < 64 && w.cost[k] < w.big * ws_unit(&w); r++)
			k = w.bad[ws_rand(&w) % (uint64_t)w.nbad];
		f = &g->gf.v[k];
		code = g->code.v + f->start;
		for (int i = 0; i < f->len && na < 256; i++)
			if (code[i] == OP_ATOM)
				atoms[na++] = code[++i];
		u = atoms[0];
		for (int j = 0; j < na; j++) {
			double d = ds[j] = ws_delta(&w, atoms[j]);
			if (d < bd)
				bd = d, u = atoms[j];
		}
		if (bd >= 0) {
			int a = -1, b = -1;
			if (ws_pair(&w, atoms, ds, na, &a, &b) < -1e-9 * w.big) {
				ws_flip(&w, a);
				(*flips)++;
				u = b;
				bd = -1;
			}
		}
		/* else a chain, whose flips ws_chain makes */
		for (int j = 0; bd >= 0 && j < na && j < WALK_CHAIN_STARTS; j++)
			if ((chained = ws_chain(&w, atoms[j], ds[j])) > 0) {
				*flips += chained;
				u = atoms[j];
				bd = -1;
			}
		if (bd >= 0 && ws_unit(&w) >= noise)
			continue;
		if (bd >= 0)
			u = atoms[ws_rand(&w) % (uint64_t)na];
		if (!chained) {
			ws_flip(&w, u);
			(*flips)++;
		}
		if (ws_keep(&w, u, best)) {
			last = t;
			tlast = now_seconds();
			*better = 1;
		}
	}
	ws_free(&w);
	return 0;
}

/* ---- the integer programs ---- */

/* A literal of the program: column col, negated or not.  While a
 * grounding's program is read, an operand may still be a list of
 * literals joined by one operator (a clause is one OR-list). */
struct ilit {
	int col, neg;
};

struct operand {
	int op;                /* OP_ATOM: the one literal l[0]; OP_AND, OP_OR:
	                          the list l[0 .. n) */
	int n;
	struct ilit *l;
};

struct ip {
	int ncols;
	double *obj;           /* per column */
	char *integer;         /* per column */
	size_t capcol;
	double konst;          /* of the objective */
	/* rows, in order: row r's terms are rcol/rval[rfirst[r] ..
	 * rfirst[r + 1]), its bounds rlo[r] .. rhi[r] */
	int nrows;
	size_t *rfirst;
	double *rlo, *rhi;
	size_t caprows;
	int *rcol;
	double *rval;
	size_t nterms, capterms;
	int oom;
};

static void
ip_free(struct ip *p)
{
	free(p->obj);
	free(p->integer);
	free(p->rfirst);
	free(p->rlo);
	free(p->rhi);
	free(p->rcol);
	free(p->rval);
}

/* Room for a row of n more terms. */
static int
ip_grow(struct ip *p, size_t n)
{
	if (p->nterms + n > p->capterms) {
		size_t c = 2 * p->capterms + n + 1024;
		int *col = realloc(p->rcol, c * sizeof *col);
		double *val;
		if (col)
			p->rcol = col;
		if (!col || !(val = realloc(p->rval, c * sizeof *val)))
			return -1;
		p->rval = val;
		p->capterms = c;
	}
	if ((size_t)p->nrows + 2 > p->caprows) {
		size_t c = 2 * p->caprows + 1024;
		size_t *first = realloc(p->rfirst, c * sizeof *first);
		double *lo, *hi;
		if (first)
			p->rfirst = first;
		if (!first || !(lo = realloc(p->rlo, c * sizeof *lo)))
			return -1;
		p->rlo = lo;
		if (!(hi = realloc(p->rhi, c * sizeof *hi)))
			return -1;
		p->rhi = hi;
		p->caprows = c;
	}
	return 0;
}

/* sum coef[i] * l[i] (sense: 'L' <=, 'G' >=) rhs, with a literal's
 * 1 - x moved over; a column twice (P(x) v !P(y) at x = y) is one
 * term, as CBC takes no repeated index in a row */
static void
ip_row(struct ip *p, const struct ilit *l, const double *coef, int n,
    char sense, double rhs)
{
	size_t first = p->nterms, m = 0;

	if (p->oom || ip_grow(p, (size_t)n) < 0) {
		p->oom = 1;
		return;
	}
	for (int i = 0; i < n; i++) {
		double v = l[i].neg ? -coef[i] : coef[i];
		size_t j = 0;
		if (l[i].neg)
			rhs -= coef[i];
		while (j < m && p->rcol[first + j] != l[i].col)
			j++;
		if (j == m) {
			p->rcol[first + m] = l[i].col;
			p->rval[first + m++] = v;
		} else
			p->rval[first + j] += v;
	}
	p->rfirst[p->nrows] = first;
	p->rlo[p->nrows] = sense == 'G' ? rhs : -INFINITY;
	p->rhi[p->nrows] = sense == 'L' ? rhs : INFINITY;
	p->nrows++;
	p->nterms = first + m;
	p->rfirst[p->nrows] = p->nterms;
}

static int
ip_col(struct ip *p, int integer)
{
	if ((size_t)p->ncols + 1 > p->capcol) {
		size_t c = 2 * p->capcol + 1024;
		double *obj = realloc(p->obj, c * sizeof *obj);
		char *in;
		if (obj)
			p->obj = obj;
		if (!obj || !(in = realloc(p->integer, c))) {
			p->oom = 1;
			return 0;
		}
		p->integer = in;
		p->capcol = c;
	}
	p->obj[p->ncols] = 0;
	p->integer[p->ncols] = (char)integer;
	return p->ncols++;
}

/* The program into CBC, columns first (Cbc_loadProblem takes the
 * matrix by columns): one load, where adding rows one by one costs a
 * copy of the matrix each. */
static Cbc_Model *
ip_load(const struct cbc_api *cbc, struct ip *p)
{
	CoinBigIndex *start = xcalloc((size_t)p->ncols + 2, sizeof *start);
	int *idx = xmalloc((p->nterms + 1) * sizeof *idx);
	double *val = xmalloc((p->nterms + 1) * sizeof *val);
	double *lo = xcalloc((size_t)p->ncols + 1, sizeof *lo);
	double *hi = xmalloc(((size_t)p->ncols + 1) * sizeof *hi);
	CoinBigIndex *fill = xmalloc(((size_t)p->ncols + 1) * sizeof *fill);
	Cbc_Model *m = NULL;

	if (!start || !idx || !val || !lo || !hi || !fill)
		goto done;
	for (size_t t = 0; t < p->nterms; t++)
		start[p->rcol[t] + 1]++;
	for (int c = 0; c < p->ncols; c++) {
		start[c + 1] += start[c];
		fill[c] = start[c];
		hi[c] = 1;
	}
	for (int r = 0; r < p->nrows; r++)
		for (size_t t = p->rfirst[r]; t < p->rfirst[r + 1]; t++) {
			CoinBigIndex k = fill[p->rcol[t]]++;
			idx[k] = r;
			val[k] = p->rval[t];
		}
	m = cbc->newModel();
	cbc->loadProblem(m, p->ncols, p->nrows, start, idx, val, lo, hi, p->obj,
	    p->rlo, p->rhi);
	for (int c = 0; c < p->ncols; c++)
		if (p->integer[c])
			cbc->setInteger(m, c);
done:
	free(start);
	free(idx);
	free(val);
	free(lo);
	free(hi);
	free(fill);
	return m;
}

/* z = list o (dir > 0: only z <= o, dir < 0: only z >= o, 0: both) */
static struct ilit
ip_list(struct ip *p, const struct operand *o, int dir)
{
	struct ilit z = { ip_col(p, 0), 0 }, two[2];
	int n = o->n;
	double one[2] = { 1, -1 };
	struct ilit *l = NULL;
	double *c = NULL;

	if (p->oom || !(l = xmalloc(((size_t)n + 1) * sizeof *l)) ||
	    !(c = xmalloc(((size_t)n + 1) * sizeof *c))) {
		free(l);
		p->oom = 1;
		return z;
	}
	l[0] = z;
	c[0] = 1;
	for (int i = 0; i < n; i++) {
		l[i + 1] = o->l[i];
		c[i + 1] = -1;
	}
	two[0] = z;
	if (o->op == OP_OR) {
		/* z <= sum l, z >= each l */
		if (dir >= 0)
			ip_row(p, l, c, n + 1, 'L', 0);
		for (int i = 0; i < n && dir <= 0; i++) {
			two[1] = o->l[i];
			ip_row(p, two, one, 2, 'G', 0);
		}
	} else {
		/* z <= each l, z >= sum l - (n - 1) */
		for (int i = 0; i < n && dir >= 0; i++) {
			two[1] = o->l[i];
			ip_row(p, two, one, 2, 'L', 0);
		}
		if (dir <= 0)
			ip_row(p, l, c, n + 1, 'G', 1 - n);
	}
	free(l);
	free(c);
	return z;
}

/* The operand as one literal (inner nodes: both directions). */
static struct ilit
ip_lit(struct ip *p, const struct operand *o)
{
	return o->op == OP_ATOM ? o->l[0] : ip_list(p, o, 0);
}

static void
opnd_free(struct operand *o)
{
	free(o->l);
	o->l = NULL;
	o->n = 0;
}

/* a op b into a (b freed); a list absorbs an operand of its operator */
static void
ip_join(struct ip *p, struct operand *a, struct operand *b, int op)
{
	struct operand r = { op, 0, NULL };
	struct operand *in[2] = { a, b };

	for (int s = 0; s < 2 && !p->oom; s++) {
		struct operand *o = in[s];
		int take = o->op == op ? o->n : 1;
		struct ilit one = o->op == op ? (struct ilit){ 0, 0 } : ip_lit(p, o);
		struct ilit *v = realloc(r.l, ((size_t)r.n + (size_t)take) *
		    sizeof *v);
		if (!v) {
			p->oom = 1;
			break;
		}
		r.l = v;
		if (o->op == op)
			memcpy(r.l + r.n, o->l, (size_t)o->n * sizeof *r.l);
		else
			r.l[r.n] = one;
		r.n += take;
	}
	opnd_free(a);
	opnd_free(b);
	*a = r;
}

/* not o: a literal negated, a list by De Morgan */
static void
ip_not(struct operand *o)
{
	for (int i = 0; i < o->n; i++)
		o->l[i].neg = !o->l[i].neg;
	if (o->op != OP_ATOM)
		o->op = o->op == OP_AND ? OP_OR : OP_AND;
}

/* a <=> b into a, as a literal z of four rows */
static void
ip_iff(struct ip *p, struct operand *a, struct operand *b)
{
	struct ilit x = ip_lit(p, a), y = ip_lit(p, b);
	struct ilit z = { ip_col(p, 0), 0 }, l[3] = { z, x, y };
	/* z >= 1 - x - y, z >= x + y - 1, z <= 1 - x + y, z <= 1 + x - y */
	static const double c1[3] = { 1, 1, 1 }, c2[3] = { 1, -1, -1 },
	    c3[3] = { 1, 1, -1 }, c4[3] = { 1, -1, 1 };

	ip_row(p, l, c1, 3, 'G', 1);
	ip_row(p, l, c2, 3, 'G', -1);
	ip_row(p, l, c3, 3, 'L', 1);
	ip_row(p, l, c4, 3, 'L', 1);
	opnd_free(a);
	opnd_free(b);
	if (!(a->l = xmalloc(sizeof *a->l))) {
		p->oom = 1;
		return;
	}
	a->op = OP_ATOM;
	a->n = 1;
	a->l[0] = z;
}

/* Adds grounding k to the program: hard, its value must be 1; soft,
 * weight times its value joins the objective. */
static void
ip_add(struct ip *p, const struct ground *g, size_t k, struct operand *st)
{
	const struct ground_formula *f = &g->gf.v[k];
	const int *code = g->code.v + f->start;
	int sp = 0;

	for (int i = 0; i < f->len && !p->oom; i++) {
		switch (code[i]) {
		case OP_ATOM:
			if (!(st[sp].l = xmalloc(sizeof *st[sp].l))) {
				p->oom = 1;
				break;
			}
			st[sp].op = OP_ATOM;
			st[sp].n = 1;
			st[sp].l[0] = (struct ilit){ code[++i], 0 };
			sp++;
			break;
		case OP_NOT:
			ip_not(&st[sp - 1]);
			break;
		case OP_AND:
		case OP_OR:
			sp--;
			ip_join(p, &st[sp - 1], &st[sp], code[i]);
			break;
		case OP_IFF:
			sp--;
			ip_iff(p, &st[sp - 1], &st[sp]);
			break;
		}
	}
	if (!p->oom && sp == 1) {
		struct operand *o = &st[0];
		double one[1] = { 1 };
		if (f->hard && o->op == OP_AND)
			for (int i = 0; i < o->n; i++)
				ip_row(p, &o->l[i], one, 1, 'G', 1);
		else if (f->hard && o->op == OP_OR) {
			double *c = xmalloc((size_t)o->n * sizeof *c);
			if (!c)
				p->oom = 1;
			for (int i = 0; c && i < o->n; i++)
				c[i] = 1;
			if (c)
				ip_row(p, o->l, c, o->n, 'G', 1);
			free(c);
		} else if (f->hard)
			ip_row(p, o->l, one, 1, 'G', 1);
		else {
			struct ilit z = o->op == OP_ATOM ? o->l[0] :
			    ip_list(p, o, f->weight > 0 ? 1 : -1);
			if (!p->oom) {
				if (z.neg)
					p->konst += f->weight;
				p->obj[z.col] += z.neg ? -f->weight : f->weight;
			}
		}
	}
	for (int i = 0; i < sp; i++)
		opnd_free(&st[i]);
}

/* One program: the groundings marked in active, the others counted at
 * their best, solved by deadline (0: none).  *x the solution's world
 * (when *have), *ub a bound on every world's log weight (+inf when CBC
 * was stopped before it had one). */
static int
ip_solve(const struct cbc_api *cbc, const struct ground *g,
    const char *active, double deadline, signed char *x, int *have,
    double *ub, int *proven, int *infeasible)
{
	struct ip p = { 0 };
	struct operand *st;
	size_t n = g->unk_atom.n;
	Cbc_Model *m = NULL;

	*have = *proven = *infeasible = 0;
	*ub = INFINITY;
	if (!(st = xcalloc((size_t)max_len(g) + 1, sizeof *st)))
		return -1;
	for (size_t u = 0; u < n; u++)
		(void)ip_col(&p, 1);
	for (size_t k = 0; k < g->gf.n && !p.oom; k++) {
		const struct ground_formula *f = &g->gf.v[k];
		if (active[k])
			ip_add(&p, g, k, st);
		else if (!f->hard && f->weight > 0)
			p.konst += f->weight;
	}
	if (!p.oom && !(m = ip_load(cbc, &p)))
		p.oom = 1;
	if (!p.oom) {
		struct cbc_answer a;
		cbc->setLogLevel(m, 0);
		cbc->setObjSense(m, -1);
		cbc->setAllowableGap(m, 1e-10);
		cbc->setAllowableFractionGap(m, 0);
		/* no start solution: given one (Cbc_setMIPStartI, every
		 * atom's value), CBC 2.10.8 proved a worse optimum than the
		 * true one (check_lazymap, seed 160) */
		cbc_solve(cbc, m, deadline, n, x, &a);
		*infeasible = a.infeasible;
		*proven = a.proven && a.have;
		*have = a.have;
		if (*proven)
			*ub = g->log_const + (g->log_const_c + p.konst + a.obj);
		else if (a.finished && !a.infeasible)
			*ub = g->log_const + (g->log_const_c + p.konst + a.best);
	}
	if (m)
		cbc->deleteModel(m);
	ip_free(&p);
	free(st);
	return p.oom ? -1 : 0;
}

/* Marks the groundings bad in x that are not in the program; how many. */
static int64_t
ip_cut(const struct ground *g, const signed char *x, char *active, int *stack)
{
	int64_t added = 0;

	for (size_t k = 0; k < g->gf.n; k++)
		if (!active[k] && is_bad(&g->gf.v[k], eval_one(g, k, x, stack))) {
			active[k] = 1;
			added++;
		}
	return added;
}

/* How far a bound may lie above a world's log weight x that it proves
 * optimal: 1e-9 of the weights the world can move (those of the
 * groundings in g), plus the rounding of x itself (not 1e-9 of x, which
 * holds a constant of 10^12 on Cora). */
static double
map_tolerance(const struct ground *g, double x)
{
	double s = 1;

	for (size_t k = 0; k < g->gf.n; k++)
		if (!g->gf.v[k].hard)
			s += fabs(g->gf.v[k].weight);
	return 1e-9 * s + 16 * DBL_EPSILON * fabs(x);
}

/* Whether the world of log weight x meets bound (proves it optimal). */
static int
met(const struct ground *g, double x, double bound)
{
	return x > -INFINITY && bound - x <= map_tolerance(g, x);
}

/* With lazy grounding, the groundings x violates into g, active grown
 * to g's groundings (the new ones off until ip_cut), stack to its
 * longest program. */
static int
map_more(struct ground *g, map_more_fn more, void *arg, const signed char *x,
    char **active, int **stack, int64_t *added, struct err *e)
{
	size_t had = g->gf.n;
	char *a;
	int *st;
	int rc;

	*added = 0;
	if (!more)
		return 0;
	if ((rc = more(arg, x, added, e)))
		return rc;
	if (!(a = realloc(*active, g->gf.n + 1)) ||
	    !(*active = a, st = realloc(*stack, (size_t)max_len(g) *
	    sizeof *st)))
		return err_oom(e);
	*stack = st;
	memset(a + had, 0, g->gf.n - had + 1);
	return 0;
}

/* The local search from the world w->truth until deadline: again from
 * its world while that was better or, grounding lazily, violated
 * groundings not yet in g (added then; at most WALK_ROUNDS times in a
 * row), or with another seed (at most WALK_RESTARTS times in a row).  Each world is scored exactly (every grounding it violates is
 * in g by then) and kept in w->truth where it beats *best.  x: room
 * for a world. */
static int
map_walk(struct ground *g, uint64_t seed, int64_t steps, double deadline,
    double patience, map_more_fn more, void *arg, struct map_world *w, signed char *x,
    double *best, char **active, int **stack, struct err *e)
{
	size_t n = g->unk_atom.n;
	int64_t added;
	int rc, lazy = 0, idle = 0;

	memcpy(x, w->truth, n);
	for (uint64_t i = 0;; i++) {
		int64_t flips;
		int better;
		double s;
		if (walksat(g, seed + i, steps, deadline, patience, fmin(0.3,
		    WALK_NOISE * (double)(1 << idle)), x, &flips, &better) < 0)
			return err_oom(e);
		w->flips += flips;
		if ((rc = map_more(g, more, arg, x, active, stack, &added, e)))
			return rc;
		if ((s = map_score(g, x)) > *best) {
			*best = s;
			memcpy(w->truth, x, n);
		}
		lazy = added ? lazy + 1 : 0;
		idle = better || added ? 0 : idle + 1;
		if (idle > WALK_RESTARTS || lazy > WALK_ROUNDS ||
		    now_seconds() > deadline)
			break;
	}
	return 0;
}

int
map_ground(struct ground *g, double max_seconds, double bound,
    uint64_t seed, map_more_fn more, void *arg, struct map_world *w,
    struct err *e)
{
	size_t n = g->unk_atom.n;
	double t0 = now_seconds(), deadline = max_seconds > 0 ? t0 +
	    max_seconds : 0, best, walk_end, cbc_end, patience;
	const struct cbc_api *cbc = NULL;  /* loaded at the first program */
	signed char *x = NULL;
	char *active = NULL;
	int *stack = NULL, rc = 0;
	int64_t added;

	memset(w, 0, sizeof *w);
	/* every grounding at its best bounds every world, before any
	 * program (CBC may be stopped before its first) */
	w->bound = 0;
	for (size_t k = 0; k < g->gf.n; k++)
		if (!g->gf.v[k].hard && g->gf.v[k].weight > 0)
			w->bound += g->gf.v[k].weight;
	w->bound = fmin(bound, g->log_const + (g->log_const_c + w->bound));
	if (g->zero)
		return err_set(e, SQLIFT_EZERO,
		    "no world: the evidence violates the hard formula %s",
		    g->zero_why);
	if (!(w->truth = xcalloc(n + 1, 1)) || !(x = xcalloc(n + 1, 1)) ||
	    !(active = xcalloc(g->gf.n + 1, 1)) ||
	    !(stack = xmalloc((size_t)max_len(g) * sizeof *stack)))
		goto oom;
	/* the all-false world (lazy_new added the groundings it violates)
	 * is kept unless a better one is found; then the local search for a
	 * share of the time (WALK_SECONDS without --max-seconds: CBC does
	 * the rest) */
	best = map_score(g, w->truth);
	walk_end = t0 + (max_seconds > 0 ? max_seconds * WALK_SHARE :
	    WALK_SECONDS);
	cbc_end = max_seconds > 0 ? t0 + max_seconds * CBC_SHARE : 0;
	patience = max_seconds > 0 ? max_seconds * WALK_PATIENCE :
	    WALK_SECONDS / 4;
	if ((rc = map_walk(g, seed, max_seconds > 0 ? INT64_MAX : WALK_FLIPS,
	    walk_end, patience, more, arg, w, x, &best, &active, &stack, e)))
		goto done;
	w->cuts = ip_cut(g, w->truth, active, stack);
	/* the local search met the bound (or nothing is unknown): done */
	for (; !(best >= bound - 1e-9 * (1 + fabs(bound))) &&
	    !met(g, best, w->bound) && n > 0;) {
		int have, proven, infeasible;
		double ub;
		/* a program given a few ms is stopped before its LP */
		if (cbc_end > 0 && now_seconds() >= cbc_end - 0.02 * max_seconds)
			break;
		if (!cbc && (rc = cbc_api(&cbc, e)))
			goto done;
		if (ip_solve(cbc, g, active, cbc_end, x,
		    &have, &ub, &proven, &infeasible) < 0)
			goto oom;
		w->rounds++;
		if (infeasible && best > -INFINITY)
			break;  /* a world satisfies the hard formulas: CBC erred */
		if (infeasible) {
			rc = err_set(e, SQLIFT_EZERO, "no world satisfies the hard "
			    "formulas together with the evidence");
			goto done;
		}
		/* a bound: the groundings outside the program are counted at
		 * their best, so no world weighs more than its optimum; one
		 * below the best world is CBC's error, not a bound */
		if (ub < w->bound && ub >= best - map_tolerance(g, best))
			w->bound = ub;
		if (have) {
			double s;
			if ((rc = map_more(g, more, arg, x, &active, &stack, &added,
			    e)))
				goto done;
			/* exact: every grounding x violates is in g now */
			s = map_score(g, x);
			if (s > best) {
				best = s;
				memcpy(w->truth, x, n);
			}
		}
		if (!have || (added = ip_cut(g, x, active, stack)) == 0 || !proven)
			break;
		w->cuts += added;
	}
	/* the rest of the time: the local search again, from the best world */
	if (deadline > 0 && !met(g, best, w->bound) &&
	    (rc = map_walk(g, seed + 1000, INT64_MAX, deadline, patience, more,
	    arg, w, x, &best, &active, &stack, e)))
		goto done;
	w->log_weight = best;
	if (best > w->bound)   /* rounding: the world is the bound's witness */
		w->bound = best;
	w->proven = met(g, best, w->bound);
	if (best == -INFINITY)
		rc = err_set(e, SQLIFT_EZERO, "no world satisfying the hard "
		    "formulas together with the evidence was found%s",
		    deadline > 0 ? " within --max-seconds" : "");
	goto done;
oom:
	rc = err_oom(e);
done:
	free(x);
	free(active);
	free(stack);
	if (rc) {
		free(w->truth);
		w->truth = NULL;
	}
	return rc;
}
