/* order.c: which atom class to branch on (Kazemi & Poole's orders). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/lifted-int.h"

/* The class to branch on: the last one eliminated by the order's rule
 * (population order: the smallest), over the classes' interaction graph
 * (classes in one clause are neighbours); -1 when out of memory. */
int
order_pick(const struct eng *g, const struct th *t, const struct index *ix)
{
	int n = ix->ncls, best = 0;
	uint64_t *pf = NULL, alive = 0;
	double *lp = NULL;     /* per class: log1p(atoms) */
	int npf = 0, last = 0;

	if (g->o.order == ENG_POPULATION || n > 64) {
		for (int k = 1; k < n; k++) {
			int ak = index_is_aux(g, ix, k), ab = index_is_aux(g, ix, best);
			if (ak != ab) {
				if (ab)
					best = k;
				continue;
			}
			if (ix->atoms[k] < ix->atoms[best] ||
			    (ix->atoms[k] == ix->atoms[best] &&
			    ix->slots[k] < ix->slots[best]))
				best = k;
		}
		return best;
	}
	if (!(pf = xmalloc((t->c.n + (size_t)n + 1) * sizeof *pf)) ||
	    !(lp = xmalloc(((size_t)n + 1) * sizeof *lp))) {
		free(pf);
		return -1;
	}
	for (int v = 0; v < n; v++)
		lp[v] = log1p(ix->atoms[v]);
	for (size_t i = 0; i < t->c.n; i++) {
		uint64_t s = 0;
		for (int k = 0; k < t->c.v[i]->nlits; k++)
			s |= (uint64_t)1 << ix->cls_of[ix->lpos[i] + k];
		pf[npf++] = s;
	}
	alive = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
	for (int step = 0; step < n; step++) {
		int pick = -1;
		double pv = 0, pcf = 0;
		for (int v = 0; v < n; v++) {
			uint64_t nbh = 0;
			double val = 0, cf = lp[v];
			if (!(alive >> v & 1))
				continue;
			for (int f = 0; f < npf; f++)
				if (pf[f] >> v & 1)
					nbh |= pf[f];
			nbh &= ~((uint64_t)1 << v);
			if (index_is_aux(g, ix, v))
				val = -1e12;  /* defined by the others: branch last */
			else if (g->o.order == ENG_MIN_TABLE) {
				/* more than one logical variable first (largest
				 * first), then the smallest table made */
				if (ix->slots[v] >= 2)
					val = -1e6 * ix->slots[v] - cf;
				else
					for (int u = 0; u < n; u++)
						if (nbh >> u & 1)
							val += lp[u];
			} else {
				for (int a = 0; a < n; a++)
					for (int b = 0; b < a; b++) {
						int adj = 0;
						if (!(nbh >> a & 1) || !(nbh >> b & 1))
							continue;
						for (int f = 0; f < npf && !adj; f++)
							adj = (pf[f] >> a & 1) && (pf[f] >> b & 1);
						if (adj)
							continue;
						val += g->o.order == ENG_MIN_FILL ? 1 :
						    (1 + ix->atoms[a]) * (1 + ix->atoms[b]);
					}
			}
			/* ties: the class in fewer clauses first, so that the most
			 * connected one is branched on first */
			if (pick < 0 || val < pv || (val == pv && (cf > pcf ||
			    (cf == pcf && index_occurrences(ix, v) < index_occurrences(ix,
			    pick))))) {
				pick = v;
				pv = val;
				pcf = cf;
			}
		}
		/* eliminate: merge its parfactors into one without it */
		{
			uint64_t m = 0;
			int k = 0;
			for (int f = 0; f < npf; f++) {
				if (pf[f] >> pick & 1)
					m |= pf[f];
				else
					pf[k++] = pf[f];
			}
			m &= ~((uint64_t)1 << pick);
			npf = k;
			if (m)
				pf[npf++] = m;
		}
		alive &= ~((uint64_t)1 << pick);
		last = pick;
	}
	free(pf);
	free(lp);
	return last;
}

int
eng_order_parse(const char *s)
{
	static const char *names[] = { "min-table", "population",
	    "rel-min-fill", "min-fill" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *
eng_order_name(int order)
{
	static const char *names[] = { "min-table", "population",
	    "rel-min-fill", "min-fill" };

	return order >= 0 && order < 4 ? names[order] : "?";
}
