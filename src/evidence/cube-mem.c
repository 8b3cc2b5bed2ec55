/* cube-mem.c: the in-memory step of the SQL splitter (cube.c): up to a
 * limit of atoms, a cube's atoms are read once and covered in memory by
 * the canonical cover (cover.c). */
#include <stdint.h>
#include <stdlib.h>

#include "sqlift.h"
#include "evidence/cube-int.h"

/* Up to this many atoms a cube's atoms are read once and covered in
 * memory, instead of a few queries per step. */
static long mem_limit = 200000;

void
cube_set_memory_limit(long atoms)
{
	mem_limit = atoms;
}

long
cube_mem_limit(void)
{
	return mem_limit;
}

/* Reads the atoms inside the current cube and covers them in memory. */
int
cube_mem_build(struct store *s, struct sigs *g, int pi, int truth,
    int64_t *ncubes, struct err *e)
{
	struct store_ids rows = { 0 };
	int arity = store_pred_at(s, pi)->arity;
	int rc = store_cube_rows(s, &rows, e);

	if (!rc && arity > 0)
		rc = cover_run(s, g, pi, truth, rows.v, rows.n / (size_t)arity,
		    ncubes, e);
	free(rows.v);
	return rc;
}
