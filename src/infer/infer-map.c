/* infer-map.c: --method map for the inference driver: the lifted search
 * in the max semiring for the MAP log weight and a world read back from
 * it, else the ground solver of map.c; the world as rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer-int.h"
#include "infer/lazy.h"
#include "lifted/engine.h"

/* A class's text, "pred:block/eq,...": the key of the classes that
 * eng_map_world fixes. */
static size_t
class_key(char *out, size_t n, int pred, int arity, const int *block,
    const int *eq)
{
	size_t k = (size_t)snprintf(out, n, "%d", pred);

	for (int i = 0; i < arity && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, ",%d/%d", block[i], eq[i]);
	return k;
}

struct classes {
	struct run *r;
	struct smap truth;     /* class_key -> truth */
	int **memb;            /* eng_map_world's blocks of the constants */
	int ntypes;
};

static int
class_put(void *arg, int pred, const int *block, const int *eq, int truth)
{
	struct classes *c = arg;
	char key[1024];

	class_key(key, sizeof key, pred, c->r->m->preds.v[pred].arity, block,
	    eq);
	return smap_put(&c->truth, key, truth) < 0 ? err_oom(c->r->e) : 0;
}

/* The world of the classes c fixed, on the ground atoms: each unknown
 * atom by its class (the engine's blocks of its constants, memb, and
 * which of them are equal), false where no class is fixed (any value
 * is). */
static int
classes_world(struct run *r, int **memb, const struct classes *c,
    signed char *truth)
{
	for (size_t u = 0; u < r->g.unk_atom.n; u++) {
		int idx[64], block[64], eq[64], p, v;
		const struct mln_pred *mp;
		char key[1024];
		p = ground_atom_decode(&r->g, r->g.unk_atom.v[u], idx);
		mp = &r->m->preds.v[p];
		for (int i = 0; i < mp->arity; i++) {
			block[i] = memb[mp->types[i]][idx[i]];
			eq[i] = i;
			for (int j = i - 1; j >= 0; j--)
				if (mp->types[j] == mp->types[i] && idx[j] == idx[i])
					eq[i] = j;
		}
		class_key(key, sizeof key, p, mp->arity, block, eq);
		v = smap_get(&c->truth, key);
		truth[u] = (signed char)(v > 0);
	}
	return 0;
}

/* The lifted search in the max semiring on the theory of b (read): the
 * log weight of a MAP world, in *lv; *lifted 0 when it stopped at a
 * limit (then the ground solver answers alone).  With the ground atoms
 * read, the world too, read back from the search class by class (*cls:
 * 1 when it was). */
static int
map_lifted(struct run *r, const struct sqlift_infer_opts *o, struct built *b,
    double *lv, int *lifted, struct classes *cl, int *cls, struct buf *stats)
{
	struct eng *g = NULL;
	struct eng_opts eo = { 0 };
	struct eng_stats st;
	int rc;

	*lifted = *cls = 0;
	eo.order = o->order ? eng_order_parse(o->order) : ENG_MIN_TABLE;
	eo.semiring = ENG_MAX;
	eo.max_nodes = o->max_nodes ? o->max_nodes : MAP_LIFTED_NODES;
	/* the ground solver gets the rest of the time: the lifted search
	 * answers in milliseconds where it answers at all on the real dumps
	 * (IMDB), and Cora's and UW-CSE's theories do not lift at any time */
	eo.max_seconds = o->max_seconds / MAP_LIFTED_SHARE / 2;
	eo.max_memory = (double)o->max_memory;
	b->ev->max_seconds = o->max_seconds / MAP_LIFTED_SHARE;
	if (!(rc = infer_build_finish(b, r->dom, r->e)) &&
	    !(rc = eng_new(b->t, &eo, &g, r->e)))
		rc = eng_log_z(g, lv, r->e);
	if (!rc && r->g.natoms > 0) {
		rc = eng_map_world(g, class_put, cl, &cl->memb, cls, r->e);
		cl->ntypes = (int)r->m->types.n;
		if (rc == SQLIFT_ELIMIT) {
			*cls = 0;
			rc = 0;
		}
	}
	memset(&st, 0, sizeof st);
	if (g)
		eng_get_stats(g, &st);
	buf_printf(stats, "\"nodes\":%lld,\"cache_hits\":%lld,"
	    "\"decompositions\":%lld,\"powers\":%lld,"
	    "\"single_occurrences\":%lld,\"binomials\":%lld,"
	    "\"groundings\":%lld,\"lifted\":%s,\"theory_seconds\":%.3f",
	    (long long)st.nodes, (long long)st.cache_hits,
	    (long long)st.decompositions, (long long)st.powers,
	    (long long)st.single_occ, (long long)st.binomials,
	    (long long)st.groundings, rc ? "false" : "true", b->seconds);
	if (rc == SQLIFT_ELIMIT && r->g.natoms > 0) {
		warn_add(&r->w, "the lifted search stopped (%s): the world and "
		    "its bound are the ground solver's", r->e->msg);
		rc = 0;
	} else if (rc == SQLIFT_ELIMIT) {
		char why[sizeof r->e->msg];
		snprintf(why, sizeof why, "%s", r->e->msg);
		rc = err_set(r->e, SQLIFT_ELIMIT, "map: the lifted search stopped "
		    "(%s) and the model has more than %d ground atoms for the "
		    "ground solver", why, MAP_GROUND_ATOMS);
	} else if (!rc) {
		*lv += b->k;
		*lifted = 1;
	}
	eng_free(g);
	return rc;
}

/* --method map: the lifted search for the MAP log weight and, when the
 * model was grounded, a world read back from it class by class; where
 * that world is not found (or does not score the optimum), the ground
 * solver (map.c), which the lifted value bounds and proves optimal.
 * Without the ground atoms, the log weight alone. */
int
infer_map_solve(struct run *r, const struct sqlift_infer_opts *o, struct built *b,
    struct map_world *w, struct buf *stats)
{
	struct classes cl = { r, { 0 }, NULL, 0 };
	struct lazy *lz = NULL;
	double lv = 0, left = 0;
	int lifted, cls, rc, full;

	memset(w, 0, sizeof *w);
	smap_init(&cl.truth);
	buf_puts(stats, "{");
	if ((rc = map_lifted(r, o, b, &lv, &lifted, &cl, &cls, stats)))
		goto done;
	if (r->g.natoms == 0 && r->m->preds.n > 0) {
		warn_add(&r->w, "the world is not written: the model has more "
		    "than %d ground atoms; its log weight is the lifted search's",
		    MAP_GROUND_ATOMS);
		w->log_weight = w->bound = lv;
		w->proven = 1;
		buf_puts(stats, ",\"world\":\"none\"}");
		goto done;
	}
	full = o->grounding && !strcmp(o->grounding, "full");
	rc = full ? ground_formulas(&r->g, r->e) : lazy_new(&r->g, &lz, r->e);
	if (rc == SQLIFT_ELIMIT && lifted) {
		warn_add(&r->w, "the world is not written: %s; its log weight is "
		    "the lifted search's", r->e->msg);
		w->log_weight = w->bound = lv;
		w->proven = 1;
		buf_puts(stats, ",\"world\":\"none\"}");
		rc = 0;
		goto done;
	}
	if (rc)
		goto done;
	if (lifted && cls) {
		/* the lifted world, checked by scoring it on the ground model
		 * (with the groundings it violates) */
		int64_t added;
		if (!(w->truth = xcalloc(r->g.unk_atom.n + 1, 1))) {
			rc = err_oom(r->e);
			goto done;
		}
		(void)classes_world(r, cl.memb, &cl, w->truth);
		if (lz && (rc = lazy_more(lz, w->truth, &added, r->e)))
			goto done;
		w->log_weight = map_score(&r->g, w->truth);
		if (fabs(w->log_weight - lv) <= 1e-9 * (1 + fabs(lv))) {
			w->bound = lv;
			w->proven = 1;
			buf_puts(stats, ",\"world\":\"lifted\"}");
			goto done;
		}
		free(w->truth);
		w->truth = NULL;
	}
	if (o->max_seconds > 0)
		/* from the start of the run, less the time to write it; a
		 * deadline already past still stops at the first world */
		left = fmax(1e-3, r->t0 + o->max_seconds - now_seconds() -
		    fmin(MAP_WRITE_SECONDS, o->max_seconds / 20));
	if ((rc = map_ground(&r->g, left, lifted ? lv : INFINITY, o->seed,
	    lz ? lazy_more : NULL, lz, w, r->e)))
		goto done;
	if (lifted) {
		/* exact: no world weighs more, and the world found may */
		w->bound = lv;
		w->proven = fabs(lv - w->log_weight) <= 1e-9 * (1 + fabs(lv));
		if (w->log_weight > lv + 1e-9 * (1 + fabs(lv))) {
			rc = err_set(r->e, SQLIFT_EINTERNAL, "map: the world weighs "
			    "%.17g, more than the lifted optimum %.17g",
			    w->log_weight, lv);
			goto done;
		}
	}
	buf_printf(stats, ",\"world\":\"ground\",\"ip_rounds\":%lld,"
	    "\"ip_cuts\":%lld,\"flips\":%lld,\"grounded\":%lld",
	    (long long)w->rounds, (long long)w->cuts, (long long)w->flips,
	    (long long)r->g.gf.n);
	if (lz)
		buf_printf(stats, ",\"lazy_clauses\":%d,\"core_clauses\":%d,"
		    "\"lazy_found\":%lld", lazy_clauses(lz), lazy_core_clauses(lz),
		    (long long)lazy_found(lz));
	buf_puts(stats, "}");
done:
	lazy_free(lz);
	smap_free(&cl.truth);
	eng_world_free(cl.memb, cl.ntypes);
	if (!rc && stats->oom)
		rc = err_oom(r->e);
	return rc;
}

/* The world of a MAP run as rows: every unknown atom (truth in p). */
int
infer_map_rows(struct run *r, const struct map_world *w, struct qrows *rows)
{
	for (size_t u = 0; w->truth && u < r->g.unk_atom.n; u++) {
		struct qrow q = { 0, -1, 0, NULL };
		int64_t a = r->g.unk_atom.v[u];
		int idx[64];
		q.p = w->truth[u];
		q.pred = ground_atom_decode(&r->g, a, idx);
		if (!(q.atom = ground_atom_text(&r->g, a)) ||
		    VEC_PUSH(*rows, q) < 0) {
			free(q.atom);
			return err_oom(r->e);
		}
	}
	return 0;
}
