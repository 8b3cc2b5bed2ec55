/* cubes.c: the SQL side of the hypercube builder (evidence/cube.c):
 * queries on one predicate's evidence inside the current cube, storing
 * cubes and blocks, the cube_atoms view, and reading cubes and blocks back
 * for inference.  Fixed statements come from sql/cubes.sql. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

void
store_cube_close(struct store *s)
{
	int ar = s->cube.pred >= 0 && s->cube.pred < (int)s->preds.n ?
	    s->preds.v[s->cube.pred].arity : 64;

	for (int i = 0; i < ar && i < 64; i++) {
		sqlite3_finalize(s->cube.root[i]);
		sqlite3_finalize(s->cube.distinct[i]);
		sqlite3_finalize(s->cube.group[i]);
	}
	sqlite3_finalize(s->cube.count);
	sqlite3_finalize(s->cube.side_put);
	sqlite3_finalize(s->cube.side_clear);
	sqlite3_finalize(s->cube.rows);
	sqlite3_finalize(s->cube.count_all);
	sqlite3_finalize(s->cube.rows_all);
	buf_free(&s->cube.json);
	sqlite3_finalize(s->cube.put);
	memset(&s->cube, 0, sizeof s->cube);
	s->cube.pred = -1;
}

/* " AND a0 IN (...) AND a1 IN (...)" over the temporary sides */
static void
cube_filter(struct buf *b, int arity)
{
	for (int i = 0; i < arity; i++)
		buf_printf(b, " AND a%d IN (SELECT const_id FROM temp.cube_side "
		    "WHERE dim = %d)", i, i);
}

int
store_cube_open(struct store *s, int pi, int truth, struct err *e)
{
	const struct store_pred *p = &s->preds.v[pi];
	struct buf b;
	int rc = 0;

	memset(&s->cube, 0, sizeof s->cube);
	s->cube.pred = pi;
	s->cube.truth = truth;
	if (p->arity > 64)
		return err_set(e, SQLIFT_ELIMIT, "%s: more than 64 arguments",
		    p->name);
	if ((rc = db_exec(s, sql_cube_side_table, e)) ||
	    (rc = db_prep(s, sql_cube_side_put, &s->cube.side_put, e)) ||
	    (rc = db_prep(s, sql_cube_side_clear, &s->cube.side_clear, e)))
		return rc;
	buf_init(&b);
	for (int i = 0; i < p->arity && !rc; i++) {
		buf_clear(&b);
		buf_printf(&b, "SELECT DISTINCT a%d FROM %s WHERE truth = %d "
		    "ORDER BY 1", i, p->table, truth);
		rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.root[i], e);
		buf_clear(&b);
		buf_printf(&b, "SELECT DISTINCT a%d FROM %s WHERE truth = %d", i,
		    p->table, truth);
		cube_filter(&b, p->arity);
		buf_puts(&b, " ORDER BY 1");
		if (!rc)
			rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.distinct[i], e);
		buf_clear(&b);
		buf_printf(&b, "SELECT a%d, count(*) FROM %s WHERE truth = %d", i,
		    p->table, truth);
		cube_filter(&b, p->arity);
		buf_printf(&b, " GROUP BY a%d", i);
		if (!rc)
			rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.group[i], e);
	}
	buf_clear(&b);
	buf_printf(&b, "SELECT count(*) FROM %s WHERE truth = %d", p->table,
	    truth);
	cube_filter(&b, p->arity);
	if (!rc)
		rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.count, e);
	buf_clear(&b);
	buf_puts(&b, "SELECT ");
	for (int i = 0; i < p->arity; i++)
		buf_printf(&b, "%sa%d", i ? ", " : "", i);
	buf_printf(&b, " FROM %s WHERE truth = %d", p->table, truth);
	if (!rc)
		rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.rows_all, e);
	cube_filter(&b, p->arity);
	if (!rc)
		rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.rows, e);
	buf_clear(&b);
	buf_printf(&b, "SELECT count(*) FROM %s WHERE truth = %d", p->table,
	    truth);
	if (!rc)
		rc = b.oom ? err_oom(e) : db_prep(s, b.s, &s->cube.count_all, e);
	if (!rc)
		rc = db_prep(s, sql_cube_put, &s->cube.put, e);
	buf_free(&b);
	return rc;
}

int
store_cube_distinct(struct store *s, int dim, int root, struct store_ids *out,
    struct err *e)
{
	sqlite3_stmt *st = root ? s->cube.root[dim] : s->cube.distinct[dim];
	int r;

	out->n = 0;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (VEC_PUSH(*out, sqlite3_column_int64(st, 0)) < 0) {
			sqlite3_reset(st);
			return err_oom(e);
		}
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : db_err(s, e, "cubes");
}

int
store_cube_sides(struct store *s, const struct store_ids *sides,
    struct err *e)
{
	int ar = s->preds.v[s->cube.pred].arity;

	if (sqlite3_step(s->cube.side_clear) != SQLITE_DONE) {
		sqlite3_reset(s->cube.side_clear);
		return db_err(s, e, "cube sides");
	}
	sqlite3_reset(s->cube.side_clear);
	for (int i = 0; i < ar; i++)
		for (size_t k = 0; k < sides[i].n; k++) {
			int r;
			sqlite3_bind_int(s->cube.side_put, 1, i);
			sqlite3_bind_int64(s->cube.side_put, 2, sides[i].v[k]);
			r = sqlite3_step(s->cube.side_put);
			sqlite3_reset(s->cube.side_put);
			if (r != SQLITE_DONE)
				return db_err(s, e, "cube sides");
		}
	return 0;
}

int
store_cube_count(struct store *s, int64_t *n, struct err *e)
{
	int r = sqlite3_step(s->cube.count);

	*n = r == SQLITE_ROW ? sqlite3_column_int64(s->cube.count, 0) : 0;
	sqlite3_reset(s->cube.count);
	return r == SQLITE_ROW ? 0 : db_err(s, e, "cubes");
}

int
store_cube_count_all(struct store *s, int64_t *n, struct err *e)
{
	int r = sqlite3_step(s->cube.count_all);

	*n = r == SQLITE_ROW ? sqlite3_column_int64(s->cube.count_all, 0) : 0;
	sqlite3_reset(s->cube.count_all);
	return r == SQLITE_ROW ? 0 : db_err(s, e, "cubes");
}

int
store_cube_groups(struct store *s, int dim, struct store_ids *vals,
    struct store_ids *counts, struct err *e)
{
	sqlite3_stmt *st = s->cube.group[dim];
	int r;

	vals->n = counts->n = 0;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (VEC_PUSH(*vals, sqlite3_column_int64(st, 0)) < 0 ||
		    VEC_PUSH(*counts, sqlite3_column_int64(st, 1)) < 0) {
			sqlite3_reset(st);
			return err_oom(e);
		}
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : db_err(s, e, "cubes");
}

static int
cube_rows(struct store *s, sqlite3_stmt *st, struct store_ids *rows,
    struct err *e)
{
	int ar = s->preds.v[s->cube.pred].arity, r;

	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		for (int i = 0; i < ar; i++)
			if (VEC_PUSH(*rows, sqlite3_column_int64(st, i)) < 0) {
				sqlite3_reset(st);
				return err_oom(e);
			}
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : db_err(s, e, "cubes");
}

int
store_cube_rows(struct store *s, struct store_ids *rows, struct err *e)
{
	return cube_rows(s, s->cube.rows, rows, e);
}

int
store_cube_rows_all(struct store *s, struct store_ids *rows, struct err *e)
{
	return cube_rows(s, s->cube.rows_all, rows, e);
}

int
store_cubes_clear(struct store *s, struct err *e)
{
	int rc;

	if (s->shadow && !s->shadow_made) {
		if ((rc = db_exec(s, sql_cubes_shadow, e)))
			return rc;
		s->shadow_made = 1;
	}
	/* main's cubes go: so does the key that vouched for them */
	if (!s->shadow && (rc = db_exec(s, sql_cubes_key_clear, e)))
		return rc;
	return db_exec(s, sql_cubes_clear, e);
}

/* Appends pairs as a JSON array of arrays of two ints; the offset of
 * the text in b, or -1 for none. */
static long
pairs_json(struct buf *b, const int (*pairs)[2], int n)
{
	long at = (long)b->len;

	if (n == 0)
		return -1;
	for (int k = 0; k < n; k++)
		buf_printf(b, "%s[%d,%d]", k ? "," : "[", pairs[k][0], pairs[k][1]);
	buf_add(b, "]", 1);
	return at;
}

int
store_cubes_stamp(struct store *s, struct err *e)
{
	sqlite3_stmt *st;
	char fp[17], key[33];
	int rc, r;

	if (s->shadow)
		return 0;
	if ((rc = store_evidence_fingerprint(s, fp, key, e)) ||
	    (rc = db_prep(s, sql_cubes_key_put, &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? 0 : db_err(s, e, "meta");
}

int
store_cubes_current(struct store *s, const char *key, int *yes,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc, r;

	*yes = 0;
	if (s->shadow_made)
		return 0;  /* main's are hidden behind this transaction's */
	if ((rc = db_prep(s, sql_cubes_key_get, &st, e)))
		return rc;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		*yes = v && !strcmp(v, key);
	}
	sqlite3_finalize(st);
	return r == SQLITE_ROW || r == SQLITE_DONE ? 0 : db_err(s, e, "meta");
}

int
store_cube_put(struct store *s, int pi, int truth, int64_t atoms,
    const struct store_ids *sides, uint64_t negated,
    const struct store_cons *cons, struct err *e)
{
	sqlite3_stmt *st = s->cube.put;
	struct buf *j = &s->cube.json;
	long eq, ne, sl;
	int r;

	/* the sides as a JSON array of arrays of constant ids (no printf:
	 * this is most of the time of a build with many small cubes) */
	buf_clear(j);
	buf_add(j, "[", 1);
	for (int i = 0; i < s->preds.v[pi].arity; i++) {
		buf_add(j, i ? ",[" : "[", i ? 2 : 1);
		for (size_t k = 0; k < sides[i].n; k++) {
			char d[24], *p = d + sizeof d;
			uint64_t v = (uint64_t)sides[i].v[k];
			int neg = sides[i].v[k] < 0;
			if (neg)
				v = -v;
			do
				*--p = (char)('0' + v % 10);
			while ((v /= 10));
			if (neg)
				*--p = '-';
			if (k)
				*--p = ',';
			buf_add(j, p, (size_t)(d + sizeof d - p));
		}
		buf_add(j, "]", 1);
	}
	buf_add(j, "]", 1);
	sl = (long)j->len;
	eq = cons ? pairs_json(j, (const int (*)[2])cons->eq, cons->neq) : -1;
	ne = cons ? pairs_json(j, (const int (*)[2])cons->ne, cons->nne) : -1;
	if (j->oom)
		return err_oom(e);
	sqlite3_bind_int64(st, 1, s->preds.v[pi].id);
	if (truth < 0)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int(st, 2, truth);
	sqlite3_bind_int64(st, 3, atoms);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)negated);
	sqlite3_bind_text(st, 5, j->s, (int)sl, SQLITE_STATIC);
	if (eq < 0)
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_text(st, 6, j->s + eq, (int)((ne < 0 ? (long)j->len :
		    ne) - eq), SQLITE_STATIC);
	if (ne < 0)
		sqlite3_bind_null(st, 7);
	else
		sqlite3_bind_text(st, 7, j->s + ne, (int)((long)j->len - ne),
		    SQLITE_STATIC);
	r = sqlite3_step(st);
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : db_err(s, e, "cubes");
}

/* The constant of argument (the SQL expression) q of a cube_atoms
 * branch with negated sides m. */
static void
arg_case(struct buf *b, const char *q, int arity, unsigned m)
{
	buf_printf(b, "CASE %s", q);
	for (int j = 0; j < arity; j++)
		buf_printf(b, " WHEN %d THEN s%d.%s", j, j,
		    (m >> j) & 1 ? "const_id" : "value");
	buf_puts(b, " END");
}

/* " AND" the cube's constraints: no eq pair differs, no ne pair is
 * equal. */
static void
cons_filter(struct buf *b, int arity, unsigned m)
{
	for (int k = 0; k < 2; k++) {
		buf_printf(b, " AND NOT EXISTS (SELECT 1 FROM json_each(c.%s) q "
		    "WHERE (", k ? "ne" : "eq");
		arg_case(b, "json_extract(q.value, '$[0]')", arity, m);
		buf_printf(b, ") %s (", k ? "=" : "<>");
		arg_case(b, "json_extract(q.value, '$[1]')", arity, m);
		buf_puts(b, "))");
	}
}

int
store_cube_view(struct store *s, struct err *e)
{
	struct buf b;
	int rc;

	if (s->shadow)
		return 0;  /* the view is main's, and main is not written */
	buf_init(&b);
	buf_puts(&b, "DROP VIEW IF EXISTS cube_atoms;\n"
	    "CREATE VIEW cube_atoms (predicate, truth, atom) AS\n");
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		/* a branch per pattern of negated sides: listed sides join their
		 * rows, negated ones the domain less the rows */
		for (unsigned m = 0; p->arity <= 8 && m < (1u << p->arity); m++) {
			buf_puts(&b, "SELECT ");
			db_literal(&b, p->name);
			buf_puts(&b, ", c.truth, ");
			db_literal(&b, p->name);
			buf_puts(&b, " || '('");
			for (int j = 0; j < p->arity; j++)
				buf_printf(&b, " || %sk%d.name", j ? "',' || " : "", j);
			buf_puts(&b, " || ')' FROM cubes c");
			for (int j = 0; j < p->arity; j++) {
				if ((m >> j) & 1)
					buf_printf(&b, " JOIN domains s%d ON s%d.type_id = %lld "
					    "AND s%d.const_id NOT IN (SELECT value FROM "
					    "json_each(c.sides, '$[%d]')) JOIN constants k%d ON "
					    "k%d.const_id = s%d.const_id", j, j,
					    (long long)p->types[j], j, j, j, j, j);
				else
					buf_printf(&b, " JOIN json_each(c.sides, '$[%d]') s%d "
					    "JOIN constants k%d ON k%d.const_id = s%d.value", j, j,
					    j, j, j);
			}
			buf_printf(&b, " WHERE c.pred_id = %lld AND c.negated = %u",
			    (long long)p->id, m);
			if (p->arity >= 2)
				cons_filter(&b, p->arity, m);
			buf_puts(&b, "\nUNION ALL\n");
		}
	}
	buf_puts(&b, "SELECT NULL, NULL, NULL WHERE 0;");
	rc = b.oom ? err_oom(e) : db_exec(s, b.s, e);
	buf_free(&b);
	return rc;
}

int
store_domain_ids(struct store *s, int t, struct store_ids *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc, r;

	if ((rc = db_prep(s, sql_domain_ids, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, s->type_ids.v[t]);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (VEC_PUSH(*out, sqlite3_column_int64(st, 0)) < 0) {
			sqlite3_finalize(st);
			return err_oom(e);
		}
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? 0 : db_err(s, e, "domains");
}

#define BLOCK_ROWS 64          /* rows per INSERT of the blocks */

void
store_blocks_report(const struct store *s, int t, size_t n, int nblocks,
    FILE *report)
{
	if (report)
		fprintf(report, "type %-19s %9zu constants in %6d blocks\n",
		    s->type_names.v[t], n, nblocks);
}

int
store_blocks_put(struct store *s, int t, const int64_t *ids,
    const int *block, size_t n, FILE *report, struct err *e)
{
	sqlite3_stmt *put = NULL, *put1 = NULL;
	struct buf q;
	size_t i = 0;
	int rc, r, nblocks = 0;

	buf_init(&q);
	buf_puts(&q, sql_blocks_put_many);
	for (int k = 0; k < BLOCK_ROWS; k++)
		buf_puts(&q, k ? ",(?,?,?)" : "(?,?,?)");
	if (q.oom) {
		rc = err_oom(e);
		goto done;
	}
	if ((rc = db_prep(s, q.s, &put, e)) ||
	    (rc = db_prep(s, sql_block_put, &put1, e)))
		goto done;
	for (; i + BLOCK_ROWS <= n; i += BLOCK_ROWS) {
		for (int k = 0; k < BLOCK_ROWS; k++) {
			sqlite3_bind_int64(put, 3 * k + 1, s->type_ids.v[t]);
			sqlite3_bind_int64(put, 3 * k + 2, block[i + k]);
			sqlite3_bind_int64(put, 3 * k + 3, ids[i + k]);
		}
		r = sqlite3_step(put);
		sqlite3_reset(put);
		if (r != SQLITE_DONE) {
			rc = db_err(s, e, "blocks");
			goto done;
		}
	}
	for (; i < n; i++) {
		sqlite3_bind_int64(put1, 1, s->type_ids.v[t]);
		sqlite3_bind_int64(put1, 2, block[i]);
		sqlite3_bind_int64(put1, 3, ids[i]);
		r = sqlite3_step(put1);
		sqlite3_reset(put1);
		if (r != SQLITE_DONE) {
			rc = db_err(s, e, "blocks");
			goto done;
		}
	}
	for (i = 0; i < n; i++)
		if (block[i] >= nblocks)
			nblocks = block[i] + 1;
	store_blocks_report(s, t, n, nblocks, report);
done:
	sqlite3_finalize(put);
	sqlite3_finalize(put1);
	buf_free(&q);
	return rc;
}

/* The INSERT of the entries of argument i of predicate p (see
 * store_sig_each): arguments of i's type are compared with it. */
static void
sig_insert(struct buf *b, const struct store_pred *p, int i)
{
	buf_printf(b, "INSERT OR IGNORE INTO temp.sig_entry SELECT %lld, a%d, "
	    "'%lld ' || truth", (long long)p->types[i], i, (long long)p->id);
	for (int j = 0; j < p->arity; j++)
		if (j == i)
			buf_puts(b, " || ' *'");
		else if (p->types[j] == p->types[i])
			buf_printf(b, " || CASE a%d WHEN a%d THEN ' *' ELSE ' @' || "
			    "a%d END", j, i, j);
		else
			buf_printf(b, " || ' ' || a%d", j);
	buf_printf(b, " FROM %s", p->table);
}

int
store_sig_each(struct store *s, store_sig_fn fn, void *ctx, struct err *e)
{
	sqlite3_stmt *st = NULL;
	struct buf b;
	int rc, r;

	if ((rc = db_exec(s, sql_sig_table, e)))
		return rc;
	buf_init(&b);
	for (size_t p = 0; p < s->preds.n && !rc; p++)
		for (int i = 0; i < s->preds.v[p].arity && !rc; i++) {
			buf_clear(&b);
			sig_insert(&b, &s->preds.v[p], i);
			rc = b.oom ? err_oom(e) : db_exec(s, b.s, e);
		}
	buf_free(&b);
	if (rc || (rc = db_prep(s, sql_sig_rows, &st, e)))
		goto done;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int t = store_type_at(s, sqlite3_column_int64(st, 0));
		const char *x = (const char *)sqlite3_column_text(st, 2);
		if (!x)
			break;  /* out of memory: sqlite3_step fails next */
		if ((rc = fn(ctx, t, sqlite3_column_int64(st, 1), x,
		    (size_t)sqlite3_column_bytes(st, 2))))
			goto done;
	}
	if (r != SQLITE_DONE)
		rc = db_err(s, e, "blocks");
done:
	sqlite3_finalize(st);
	if (!rc)
		rc = db_exec(s, sql_sig_clear, e);
	return rc;
}

int
store_pairs_each(struct store *s, store_pair_fn fn, void *ctx,
    struct err *e)
{
	struct buf b;
	int rc = 0;

	buf_init(&b);
	for (size_t p = 0; p < s->preds.n && !rc; p++) {
		const struct store_pred *sp = &s->preds.v[p];
		for (int i = 0; i < sp->arity && !rc; i++)
			for (int j = i + 1; j < sp->arity && !rc; j++) {
				sqlite3_stmt *st;
				int r, t = store_type_at(s, sp->types[i]);
				if (sp->types[j] != sp->types[i])
					continue;
				buf_clear(&b);
				buf_printf(&b, "SELECT DISTINCT a%d, a%d FROM %s WHERE "
				    "a%d <> a%d", i, j, sp->table, i, j);
				if (b.oom) {
					rc = err_oom(e);
					break;
				}
				if ((rc = db_prep(s, b.s, &st, e)))
					break;
				while ((r = sqlite3_step(st)) == SQLITE_ROW)
					if ((rc = fn(ctx, t, sqlite3_column_int64(st, 0),
					    sqlite3_column_int64(st, 1))))
						break;
				if (!rc && r != SQLITE_DONE)
					rc = db_err(s, e, "blocks");
				sqlite3_finalize(st);
			}
	}
	buf_free(&b);
	return rc;
}

/* Skips JSON white space. */
static const char *
ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Parses a cube's sides, a JSON array of ar arrays of integers (what
 * store_cube_put writes), into side[0..ar); 0, or -1 when the text is
 * anything else. */
static int
sides_parse(const char *p, int ar, struct store_ids *side, int *oom)
{
	int i = 0;

	if (*(p = ws(p)) != '[')
		return -1;
	for (p = ws(p + 1); *p == '['; i++) {
		if (i >= ar)
			return -1;
		for (p = ws(p + 1); *p != ']';) {
			uint64_t v = 0;
			int neg = *p == '-', digits = 0;
			for (p += neg; *p >= '0' && *p <= '9'; p++, digits++) {
				if (v > (INT64_MAX - (uint64_t)(*p - '0')) / 10)
					return -1;
				v = v * 10 + (uint64_t)(*p - '0');
			}
			if (!digits)
				return -1;
			if (VEC_PUSH(side[i], neg ? -(int64_t)v : (int64_t)v) < 0) {
				*oom = 1;
				return -1;
			}
			if (*(p = ws(p)) == ',')
				p = ws(p + 1);
			else if (*p != ']')
				return -1;
		}
		if (*(p = ws(p + 1)) == ',')
			p = ws(p + 1);
		else if (*p != ']')
			return -1;
	}
	return i == ar && *p == ']' && !*ws(p + 1) ? 0 : -1;
}

/* Reads the pairs of a JSON array of pairs of argument indices (NULL:
 * none) into *out; -1 when it is not such an array below arity. */
static int
pairs_read(const unsigned char *x, int arity, int (**out)[2], int *n,
    int *cap)
{
	int num[2], k = 0;

	*n = 0;
	for (; x && *x; x++) {
		long v;
		if (*x < '0' || *x > '9')
			continue;
		for (v = 0; *x >= '0' && *x <= '9' && v < 64; x++)
			v = v * 10 + (*x - '0');
		if (v >= arity)
			return -1;
		num[k++] = (int)v;
		if (k == 2) {
			if (*n == *cap) {
				int c = *cap ? *cap * 2 : 8;
				int (*p)[2] = xrealloc(*out, (size_t)c * sizeof *p);
				if (!p)
					return -2;
				*out = p;
				*cap = c;
			}
			(*out)[(*n)++][0] = num[0];
			(*out)[*n - 1][1] = num[1];
			k = 0;
		}
		if (!*x)
			break;
	}
	return k ? -1 : 0;
}

int
store_cubes_each(struct store *s, int pi, store_cube_fn fn, void *ctx,
    struct err *e)
{
	const struct store_pred *p = &s->preds.v[pi];
	sqlite3_stmt *st;
	struct store_ids side[64];
	struct store_cons cons = { 0 };
	int ar = p->arity, rc = 0, r, cap[2] = { 0, 0 };

	if (ar > 64)
		return err_set(e, SQLIFT_ELIMIT, "more than 64 arguments");
	if ((rc = db_prep(s, sql_cubes_of_pred, &st, e)))
		return rc;
	memset(side, 0, sizeof side);
	sqlite3_bind_int64(st, 1, p->id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 2);
		long long id = (long long)sqlite3_column_int64(st, 0);
		int oom = 0;
		for (int i = 0; i < ar; i++)
			side[i].n = 0;
		if (!t || sides_parse(t, ar, side, &oom) < 0) {
			rc = oom ? err_oom(e) : err_set(e, SQLIFT_EDB, "%s: corrupt "
			    "database: cube %lld of %s: sides are not %d JSON arrays "
			    "of constant ids", s->path, id, p->name, ar);
			break;
		}
		if ((rc = pairs_read(sqlite3_column_text(st, 3), ar, &cons.eq,
		    &cons.neq, &cap[0])) == 0)
			rc = pairs_read(sqlite3_column_text(st, 4), ar, &cons.ne,
			    &cons.nne, &cap[1]);
		if (rc) {
			rc = rc == -2 ? err_oom(e) : err_set(e, SQLIFT_EDB,
			    "%s: corrupt database: cube %lld of %s has a constraint "
			    "outside its arguments", s->path, id, p->name);
			break;
		}
		if ((rc = fn(ctx, sqlite3_column_int(st, 1), ar, side, &cons)))
			break;
	}
	if (!rc && r != SQLITE_DONE)
		rc = db_err(s, e, "cubes");
	sqlite3_finalize(st);
	for (int i = 0; i < ar; i++)
		free(side[i].v);
	free(cons.eq);
	free(cons.ne);
	return rc;
}

int
store_const_ranks(struct store *s, struct idmap *rank, size_t *n,
    struct err *e)
{
	sqlite3_stmt *st;
	VEC(int64_t) ids = { 0 };
	int rc, r;

	*n = 0;
	memset(rank, 0, sizeof *rank);
	if ((rc = db_prep(s, sql_const_by_name, &st, e)))
		return rc;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (ids.n >= INT32_MAX ||
		    VEC_PUSH(ids, sqlite3_column_int64(st, 0)) < 0)
			break;
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		rc = r == SQLITE_ROW ? err_oom(e) : db_err(s, e, "constants");
	else if (idmap_init(rank, ids.v, NULL, ids.n) < 0)
		rc = err_oom(e);
	else
		*n = ids.n;
	free(ids.v);
	return rc;
}

int
store_blocks_each(struct store *s, const char *type, store_block_fn fn,
    void *ctx, struct err *e)
{
	sqlite3_stmt *st;
	int rc, r;

	if ((rc = db_prep(s, sql_blocks_of_type, &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = fn(ctx, sqlite3_column_int64(st, 0),
		    sqlite3_column_int(st, 1))))
			break;
	if (!rc && r != SQLITE_DONE)
		rc = db_err(s, e, "blocks");
	sqlite3_finalize(st);
	return rc;
}
