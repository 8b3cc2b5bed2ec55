/* replace.c: replacing the stored evidence with what a set of files says
 * (load --replace-evidence), by difference: atoms are inserted or flipped
 * as they come, those the files no longer name are deleted at the end,
 * and domains, constants and the list of files follow.  Identical files
 * write nothing, so ids, times and cubes stay as they were. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

/* Per predicate: the atoms the new files named, in a temp table. */
struct rep_pred {
	sqlite3_stmt *keep_put;   /* INSERT OR IGNORE of a key and truth */
	sqlite3_stmt *keep_get;   /* truth of a key named before */
	sqlite3_stmt *flip;       /* UPDATE of a stored atom's truth */
};

struct rep_file {
	char *path;
	int64_t atoms;
};

struct replace {
	VEC(struct rep_pred) p;
	VEC(struct rep_file) files;
	int64_t added, flipped, removed, other;
};

void
replace_free(struct store *s)
{
	struct replace *r = s->rep;

	if (!r)
		return;
	for (size_t i = 0; i < r->p.n; i++) {
		sqlite3_finalize(r->p.v[i].keep_put);
		sqlite3_finalize(r->p.v[i].keep_get);
		sqlite3_finalize(r->p.v[i].flip);
	}
	for (size_t i = 0; i < r->files.n; i++)
		free(r->files.v[i].path);
	free(r->p.v);
	free(r->files.v);
	free(r);
	s->rep = NULL;
}

/* "a0 = ?1 AND a1 = ?2 ...", or with prefixes "k.a0 = t.a0 ...". */
static void
key_match(struct buf *b, int arity, const char *l, const char *r)
{
	for (int k = 0; k < arity; k++) {
		if (r)
			buf_printf(b, "%s%s.a%d = %s.a%d", k ? " AND " : "", l, k,
			    r, k);
		else
			buf_printf(b, "%sa%d = ?%d", k ? " AND " : "", k, k + 1);
	}
}

/* The temp table of predicate i and its statements. */
static int
pred_begin(struct store *s, size_t i, struct rep_pred *rp, struct err *e)
{
	const struct store_pred *p = &s->preds.v[i];
	struct buf b;
	int rc = 0;

	buf_init(&b);
	buf_printf(&b, "CREATE TEMP TABLE sqlift_keep_%lld (", (long long)p->id);
	for (int k = 0; k < p->arity; k++)
		buf_printf(&b, "a%d INTEGER NOT NULL, ", k);
	buf_puts(&b, "truth INTEGER NOT NULL, PRIMARY KEY (");
	for (int k = 0; k < p->arity; k++)
		buf_printf(&b, "%sa%d", k ? ", " : "", k);
	buf_puts(&b, ")) WITHOUT ROWID");
	if (b.oom || (rc = db_exec(s, b.s, e)))
		goto done;
	buf_clear(&b);
	buf_printf(&b, "INSERT OR IGNORE INTO temp.sqlift_keep_%lld VALUES (",
	    (long long)p->id);
	for (int k = 0; k <= p->arity; k++)
		buf_printf(&b, "%s?%d", k ? ", " : "", k + 1);
	buf_puts(&b, ")");
	if (b.oom || (rc = db_prep(s, b.s, &rp->keep_put, e)))
		goto done;
	buf_clear(&b);
	buf_printf(&b, "SELECT truth FROM temp.sqlift_keep_%lld WHERE ",
	    (long long)p->id);
	key_match(&b, p->arity, NULL, NULL);
	if (b.oom || (rc = db_prep(s, b.s, &rp->keep_get, e)))
		goto done;
	buf_clear(&b);
	buf_printf(&b, "UPDATE %s SET truth = ?%d WHERE truth <> ?%d AND ",
	    p->table, p->arity + 1, p->arity + 1);
	key_match(&b, p->arity, NULL, NULL);
	if (!b.oom)
		rc = db_prep(s, b.s, &rp->flip, e);
done:
	if (b.oom)
		rc = err_oom(e);
	buf_free(&b);
	return rc;
}

int
store_replace_begin(struct store *s, struct err *e)
{
	struct replace *r;
	int rc;

	replace_free(s);
	if (!(r = xcalloc(1, sizeof *r)))
		return err_oom(e);
	s->rep = r;
	for (size_t i = 0; i < s->preds.n; i++) {
		if (VEC_PUSH(r->p, (struct rep_pred){ 0 }) < 0)
			return err_oom(e);
		if ((rc = pred_begin(s, i, &r->p.v[i], e)))
			return rc;
	}
	return 0;
}

static void
bind_key(sqlite3_stmt *st, const struct pend_atom *a, int arity)
{
	for (int k = 0; k < arity; k++)
		sqlite3_bind_int64(st, k + 1, a->args[k]);
}

/* One run of this statement: SQLITE_DONE, or the error. */
static int
step_reset(sqlite3_stmt *st)
{
	int r = sqlite3_step(st);
	sqlite3_reset(st);
	return r;
}

int
replace_atom(struct store *s, const struct pend_atom *a, struct err *e)
{
	struct rep_pred *rp = &s->rep->p.v[a->pred];
	const struct store_pred *p = &s->preds.v[a->pred];
	sqlite3_stmt *ins;
	int r, old;

	if ((r = model_pred_stmts(s, (size_t)a->pred, e)))
		return r;
	ins = s->pstmt.v[a->pred].ins;

	bind_key(rp->keep_put, a, p->arity);
	sqlite3_bind_int(rp->keep_put, p->arity + 1, a->truth);
	if (step_reset(rp->keep_put) != SQLITE_DONE)
		return db_err(s, e, "evidence");
	if (sqlite3_changes(s->db) == 0) {
		/* named before by the new files: the same truth, or a clash */
		bind_key(rp->keep_get, a, p->arity);
		r = sqlite3_step(rp->keep_get);
		old = r == SQLITE_ROW ? sqlite3_column_int(rp->keep_get, 0) : -1;
		sqlite3_reset(rp->keep_get);
		if (r != SQLITE_ROW)
			return db_err(s, e, "evidence");
		return old == a->truth ? 0 : -1;
	}
	bind_key(ins, a, p->arity);
	sqlite3_bind_int(ins, p->arity + 1, a->truth);
	if (step_reset(ins) != SQLITE_DONE)
		return db_err(s, e, p->table);
	if (sqlite3_changes(s->db) > 0) {
		s->rep->added++;
		return 0;
	}
	bind_key(rp->flip, a, p->arity);
	sqlite3_bind_int(rp->flip, p->arity + 1, a->truth);
	if (step_reset(rp->flip) != SQLITE_DONE)
		return db_err(s, e, p->table);
	s->rep->flipped += sqlite3_changes(s->db);
	return 0;
}

int
replace_file(struct store *s, const char *path, int64_t atoms, struct err *e)
{
	struct rep_file f = { xstrdup(path), atoms };

	if (!f.path || VEC_PUSH(s->rep->files, f) < 0) {
		free(f.path);
		return err_oom(e);
	}
	return 0;
}

/* Deletes the atoms of predicate i that the files did not name, and
 * records the constants left in its arguments as used. */
static int
pred_end(struct store *s, size_t i, struct err *e)
{
	const struct store_pred *p = &s->preds.v[i];
	struct buf b;
	int rc = 0;

	buf_init(&b);
	buf_printf(&b, "DELETE FROM %s WHERE NOT EXISTS (SELECT 1 FROM "
	    "temp.sqlift_keep_%lld k WHERE ", p->table, (long long)p->id);
	key_match(&b, p->arity, "k", p->table);
	buf_puts(&b, ")");
	if (b.oom || (rc = db_exec(s, b.s, e)))
		goto done;
	s->rep->removed += sqlite3_changes(s->db);
	for (int k = 0; k < p->arity; k++) {
		buf_clear(&b);
		buf_printf(&b, "INSERT OR IGNORE INTO temp.sqlift_used SELECT "
		    "%lld, a%d FROM %s", (long long)p->types[k], k, p->table);
		if (b.oom || (rc = db_exec(s, b.s, e)))
			goto done;
	}
	buf_clear(&b);
	buf_printf(&b, "DROP TABLE temp.sqlift_keep_%lld", (long long)p->id);
	if (!b.oom)
		rc = db_exec(s, b.s, e);
done:
	if (b.oom)
		rc = err_oom(e);
	buf_free(&b);
	return rc;
}

/* The model's own constants stay in their domains. */
static int
model_consts_used(struct store *s, const struct mln_model *m, struct err *e)
{
	sqlite3_stmt *st;
	int rc = 0;

	if ((rc = db_prep(s, sql_replace_used_put, &st, e)))
		return rc;
	for (size_t t = 0; !rc && t < m->types.n; t++) {
		int ti = -1;
		for (size_t k = 0; k < s->type_names.n; k++)
			if (!strcmp(s->type_names.v[k], m->types.v[t].name))
				ti = (int)k;
		for (size_t k = 0; !rc && ti >= 0 && k < m->types.v[t].consts.n;
		    k++) {
			const char *name = m->consts.v[m->types.v[t].consts.v[k]];
			int64_t cid;
			if ((rc = evidence_const_add(s, ti, name, strlen(name), &cid,
			    e)))
				break;
			sqlite3_bind_int64(st, 1, s->type_ids.v[ti]);
			sqlite3_bind_int64(st, 2, cid);
			if (step_reset(st) != SQLITE_DONE)
				rc = db_err(s, e, "domains");
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* Rewrites evidence_files unless it lists the same files with the same
 * counts and nothing else changed. */
static int
files_end(struct store *s, int changed, struct err *e)
{
	struct replace *r = s->rep;
	sqlite3_stmt *st;
	size_t i = 0;
	int rc, same = !changed;

	if ((rc = db_prep(s, sql_evfiles_all, &st, e)))
		return rc;
	while (same && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		same = i < r->files.n && path && !strcmp(path, r->files.v[i].path)
		    && sqlite3_column_int64(st, 1) == r->files.v[i].atoms;
		i++;
	}
	sqlite3_finalize(st);
	if (same && rc != SQLITE_DONE)
		return db_err(s, e, "evidence_files");
	if (same && i == r->files.n)
		return 0;
	r->other++;
	if ((rc = db_exec(s, sql_evfiles_clear, e)) ||
	    (rc = db_prep(s, sql_evfile_put, &st, e)))
		return rc;
	for (i = 0; !rc && i < r->files.n; i++) {
		sqlite3_bind_text(st, 1, r->files.v[i].path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, r->files.v[i].atoms);
		if (step_reset(st) != SQLITE_DONE)
			rc = db_err(s, e, "evidence_files");
	}
	sqlite3_finalize(st);
	return rc;
}

int
store_replace_end(struct store *s, const struct mln_model *m,
    struct store_replaced *out, struct err *e)
{
	struct replace *r = s->rep;
	int64_t dom = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (!r)
		return err_set(e, SQLIFT_EINTERNAL, "replace_end without begin");
	if ((rc = evidence_flush(s, e)) ||
	    (rc = db_exec(s, sql_replace_used_create, e)))
		return rc;
	for (size_t i = 0; i < r->p.n; i++) {
		sqlite3_finalize(r->p.v[i].keep_put);
		sqlite3_finalize(r->p.v[i].keep_get);
		sqlite3_finalize(r->p.v[i].flip);
		memset(&r->p.v[i], 0, sizeof r->p.v[i]);
		if ((rc = pred_end(s, i, e)))
			return rc;
	}
	/* domains: the model's constants and those the evidence names; then
	 * constants in no domain go */
	if ((rc = model_consts_used(s, m, e)) ||
	    (rc = db_exec(s, sql_replace_domains_prune, e)))
		return rc;
	dom = sqlite3_changes(s->db);
	if ((rc = db_exec(s, sql_replace_consts_prune, e)))
		return rc;
	dom += sqlite3_changes(s->db);
	if ((rc = db_exec(s, sql_replace_used_drop, e)))
		return rc;
	r->other += dom;
	out->added = r->added;
	out->flipped = r->flipped;
	out->removed = r->removed;
	out->changed = r->added || r->flipped || r->removed || dom;
	if ((rc = files_end(s, out->changed, e)))
		return rc;
	out->files_changed = r->other > dom;
	replace_free(s);
	/* domains and constants may have lost members: reload the catalogue */
	return out->changed ? model_cache_load(s, e) : 0;
}
