/* blocks.c: the stage between the database and the lifted theory: the
 * evidence of a clause model read from the store as hypercubes over domain
 * positions, with the evidence blocks of every type (interchangeable
 * constants, evidence/coarse.c), in the plain structures ct_build()
 * takes.  Run `sqlift cubes` (cube_build_all) first. */
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/blocks.h"

struct rd {
	const struct idmap *pos_of; /* const id -> domain position, or -1 */
	int *block;            /* domain position -> block */
	struct ct_pred_ev *pe;
	const struct mln_pred *mp;
	int bad;
};

static int
on_block(void *ctx, int64_t id, int block)
{
	struct rd *r = ctx;
	int i = idmap_get(r->pos_of, id);

	if (i >= 0)
		r->block[i] = block;
	return 0;
}

struct rdc {
	struct idmap *pos_of;  /* per type */
	const struct mln_pred *mp;
	struct ct_pred_ev *pe;
	struct err *e;
};

static int
on_cube(void *ctx, int truth, int arity, const struct store_ids *sides,
    const struct store_cons *cons)
{
	struct rdc *r = ctx;
	struct ct_cube cu = { truth, arity, NULL, NULL, cons->neq, cons->nne,
	    NULL, NULL };
	int rc;

	if (!(cu.npos = xcalloc((size_t)arity + 1, sizeof *cu.npos)) ||
	    !(cu.pos = xcalloc((size_t)arity + 1, sizeof *cu.pos)) ||
	    !(cu.eq = xcalloc((size_t)cu.neq + 1, sizeof *cu.eq)) ||
	    !(cu.ne = xcalloc((size_t)cu.nne + 1, sizeof *cu.ne)))
		goto oom;
	if (cu.neq)
		memcpy(cu.eq, cons->eq, (size_t)cu.neq * sizeof *cu.eq);
	if (cu.nne)
		memcpy(cu.ne, cons->ne, (size_t)cu.nne * sizeof *cu.ne);
	for (int i = 0; i < arity; i++) {
		int t = r->mp->types[i];
		if (!(cu.pos[i] = xcalloc(sides[i].n + 1, sizeof **cu.pos)))
			goto oom;
		for (size_t k = 0; k < sides[i].n; k++) {
			int at = idmap_get(&r->pos_of[t], sides[i].v[k]);
			if (at < 0)
				goto internal;
			cu.pos[i][cu.npos[i]++] = at;
		}
	}
	if (VEC_PUSH(r->pe->cubes, cu) < 0)
		goto oom;
	return 0;
oom:
	rc = err_oom(r->e);
	goto fail;
internal:
	rc = err_set(r->e, SQLIFT_EINTERNAL, "a cube constant outside its "
	    "domain");
fail:
	for (int i = 0; cu.pos && i < arity; i++)
		free(cu.pos[i]);
	free(cu.pos);
	free(cu.npos);
	free(cu.eq);
	free(cu.ne);
	return rc;
}

int
blocks_read(struct store *s, const struct mln_model *m,
    const struct mln_domain *dom, const int *closed,
    struct ct_evidence **out, struct err *e)
{
	int nt = (int)m->types.n, np = (int)m->preds.n, rc = 0;
	struct ct_evidence *ev = xcalloc(1, sizeof *ev);
	struct rdc c = { 0 };

	c.e = e;
	*out = NULL;
	if (!ev || !(ev->block = xcalloc((size_t)nt + 1, sizeof *ev->block)) ||
	    !(ev->pred = xcalloc((size_t)np + 1, sizeof *ev->pred)) ||
	    !(c.pos_of = xcalloc((size_t)nt + 1, sizeof *c.pos_of))) {
		rc = err_oom(e);
		goto done;
	}
	for (int t = 0; t < nt && !rc; t++) {
		struct rd r = { 0 };
		if (idmap_init(&c.pos_of[t], dom[t].ids, NULL, (size_t)dom[t].n) < 0 ||
		    !(ev->block[t] = xmalloc(((size_t)dom[t].n + 1) * sizeof(int)))) {
			rc = err_oom(e);
			break;
		}
		/* a constant without a stored block has none */
		memset(ev->block[t], -1, ((size_t)dom[t].n + 1) * sizeof(int));
		r.pos_of = &c.pos_of[t];
		r.block = ev->block[t];
		rc = store_blocks_each(s, m->types.v[t].name, on_block, &r, e);
	}
	for (int p = 0; p < np && !rc; p++) {
		const struct mln_pred *mp = &m->preds.v[p];
		int sp = mp->aux ? -1 : store_pred_find(s, mp->name, strlen(mp->name));
		ev->pred[p].closed = closed[p];
		if (sp < 0)
			continue;
		c.mp = mp;
		c.pe = &ev->pred[p];
		rc = store_cubes_each(s, sp, on_cube, &c, e);
	}
done:
	for (int t = 0; c.pos_of && t < nt; t++)
		idmap_free(&c.pos_of[t]);
	free(c.pos_of);
	if (rc) {
		ct_evidence_free(ev, nt, np);
		return rc;
	}
	*out = ev;
	return 0;
}
