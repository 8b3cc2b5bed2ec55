/* model.c: the stored model (its text, types, predicates with their ev_
 * tables, formulas, the evidence_atoms view) and the catalogue that each
 * transaction loads from it.  Statements come from sql/model.sql. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

static void
preds_free(struct store *s)
{
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		free(p->name);
		free(p->types);
		free(p->table);
	}
	for (size_t i = 0; i < s->pstmt.n; i++) {
		sqlite3_finalize(s->pstmt.v[i].ins);
		sqlite3_finalize(s->pstmt.v[i].get);
	}
	s->preds.n = s->pstmt.n = 0;
	smap_free(&s->predmap);
}

void
model_cache_free(struct store *s)
{
	preds_free(s);
	for (size_t i = 0; i < s->type_names.n; i++)
		free(s->type_names.v[i]);
	s->type_names.n = s->type_ids.n = 0;
	for (size_t i = 0; i < s->dom_set.n; i++)
		idset_free(&s->dom_set.v[i]);
	s->dom_set.n = 0;
	smap_free(&s->consts);
	s->consts_ok = 0;
	free(s->names);
	s->names = NULL;
	s->nnames = 0;
	s->names_ok = 0;
	s->dom_key_ok = 0;
	sqlite3_finalize(s->const_put);
	sqlite3_finalize(s->domain_put);
	s->const_put = s->domain_put = NULL;
	runs_free(s);
	evidence_free(s);  /* its record size follows the predicates */
	s->cache_ok = 0;
}

int
model_type_index(const struct store *s, int64_t id)
{
	for (size_t i = 0; i < s->type_ids.n; i++)
		if (s->type_ids.v[i] == id)
			return (int)i;
	return -1;
}

const char *
store_type_name(const struct store *s, int64_t id)
{
	int i = model_type_index(s, id);
	return i < 0 ? "?" : s->type_names.v[i];
}

int
store_ntypes(const struct store *s)
{
	return (int)s->type_ids.n;
}

int
store_type_at(const struct store *s, int64_t type_id)
{
	return model_type_index(s, type_id);
}

/* Prepares the statements pstmt.v[i] on the ev_ table of preds.v[i],
 * on first use: only a load or a replace writes evidence, and a run
 * that reads would prepare them twice for nothing. */
int
model_pred_stmts(struct store *s, size_t i, struct err *e)
{
	const struct store_pred *p = &s->preds.v[i];
	struct pred_stmt *ps = &s->pstmt.v[i];
	struct buf b;
	int rc;

	if (ps->ins && ps->get)
		return 0;
	sqlite3_finalize(ps->ins);
	sqlite3_finalize(ps->get);
	ps->ins = ps->get = NULL;
	buf_init(&b);
	buf_printf(&b, "INSERT OR IGNORE INTO %s (", p->table);
	for (int k = 0; k < p->arity; k++)
		buf_printf(&b, "a%d, ", k);
	buf_puts(&b, "truth) VALUES (");
	for (int k = 0; k <= p->arity; k++)
		buf_printf(&b, "%s?%d", k ? ", " : "", k + 1);
	buf_puts(&b, ")");
	if (b.oom)
		return err_oom(e);
	rc = db_prep(s, b.s, &ps->ins, e);
	buf_clear(&b);
	buf_printf(&b, "SELECT truth FROM %s WHERE ", p->table);
	for (int k = 0; k < p->arity; k++)
		buf_printf(&b, "%sa%d = ?%d", k ? " AND " : "", k, k + 1);
	if (b.oom)
		rc = err_oom(e);
	if (!rc)
		rc = db_prep(s, b.s, &ps->get, e);
	buf_free(&b);
	return rc;
}

/* The stored evidence table name t as an SQL identifier: the names come
 * from the file, which anyone may have crafted, and go into SQL text, so
 * any but a plain word (ev_<id>, as sqlift names them, which keeps the
 * schema's text as it was) goes in double quotes, its quotes doubled.
 * NULL if out of memory. */
static char *
table_ident(const char *t)
{
	size_t n = strspn(t ? t : "", "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	char *q, *r;

	if (t && *t && !t[n] && !(*t >= '0' && *t <= '9') &&
	    !sqlite3_keyword_check(t, (int)n))
		return xstrdup(t);
	q = sqlite3_mprintf("\"%w\"", t ? t : "");
	r = q ? xstrdup(q) : NULL;
	sqlite3_free(q);
	return r;
}

/* Fills p->types from predicate_args (args: sql_pred_args), checking
 * what a hand-edited or damaged file may break: one row per position
 * 0..arity-1, each naming a known type. */
static int
pred_args_load(struct store *s, sqlite3_stmt *args, struct store_pred *p,
    struct err *e)
{
	int n = 0, rc;

	sqlite3_bind_int64(args, 1, p->id);
	while ((rc = sqlite3_step(args)) == SQLITE_ROW) {
		int64_t pos = sqlite3_column_int64(args, 0);
		int64_t t = sqlite3_column_int64(args, 1);
		if (pos < 0 || pos >= p->arity || p->types[pos] != 0 ||
		    model_type_index(s, t) < 0) {
			sqlite3_reset(args);
			return err_set(e, SQLIFT_EDB, "%s: corrupt database: "
			    "predicate %s: bad argument %lld in predicate_args",
			    s->path, p->name, (long long)pos);
		}
		p->types[pos] = t;
		n++;
	}
	sqlite3_reset(args);
	if (rc != SQLITE_DONE)
		return db_err(s, e, "predicate_args");
	if (n != p->arity)
		return err_set(e, SQLIFT_EDB, "%s: corrupt database: predicate "
		    "%s has %d argument%s in predicate_args, arity %d", s->path,
		    p->name, n, n == 1 ? "" : "s", p->arity);
	return 0;
}

/* Loads types and predicates; the constants and domain membership wait
 * for store_consts_load (a run does not need them). */
int
model_cache_load(struct store *s, struct err *e)
{
	sqlite3_stmt *st = NULL, *args = NULL;
	int rc;

	model_cache_free(s);
	if ((rc = db_prep(s, sql_types_all, &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *n;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
			sqlite3_finalize(st);
			return err_set(e, SQLIFT_EDB, "%s: corrupt database: a type "
			    "without a name", s->path);
		}
		n = xstrdup((const char *)sqlite3_column_text(st, 1));
		if (n && VEC_PUSH(s->type_names, n) < 0) {
			free(n);
			n = NULL;
		}
		if (!n || VEC_PUSH(s->type_ids, sqlite3_column_int64(st, 0)) < 0 ||
		    VEC_PUSH(s->dom_set, (struct idset){ 0 }) < 0) {
			sqlite3_finalize(st);
			return err_oom(e);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, e, "types");
	if ((rc = db_prep(s, sql_preds_all, &st, e)) ||
	    (rc = db_prep(s, sql_pred_args, &args, e)))
		goto done;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_pred p = { 0 };
		int64_t arity = sqlite3_column_int64(st, 2);
		if (sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    sqlite3_column_type(st, 4) == SQLITE_NULL ||
		    arity < 1 || arity > MLN_MAX_ARITY) {
			rc = err_set(e, SQLIFT_EDB, "%s: corrupt database: "
			    "predicate %lld: no name, no ev_table or arity %lld",
			    s->path, (long long)sqlite3_column_int64(st, 0),
			    (long long)arity);
			goto done;
		}
		p.id = sqlite3_column_int64(st, 0);
		p.name = xstrdup((const char *)sqlite3_column_text(st, 1));
		p.arity = (int)arity;
		p.closed = sqlite3_column_int(st, 3);
		p.table = table_ident((const char *)sqlite3_column_text(st, 4));
		p.types = xcalloc((size_t)p.arity, sizeof *p.types);
		if (!p.name || !p.table || !p.types || VEC_PUSH(s->preds, p) < 0) {
			free(p.name), free(p.table), free(p.types);
			rc = err_oom(e);
			goto done;
		}
		if (VEC_PUSH(s->pstmt, (struct pred_stmt){ 0 }) < 0 ||
		    smap_put(&s->predmap, p.name, (int)s->preds.n - 1) < 0) {
			rc = err_oom(e);  /* s->preds owns p now */
			goto done;
		}
		if ((rc = pred_args_load(s, args, &s->preds.v[s->preds.n - 1],
		    e)))
			goto done;
	}
	if (rc != SQLITE_DONE) {
		rc = db_err(s, e, "predicates");
		goto done;
	}
	sqlite3_finalize(st);
	st = NULL;
	s->max_arity = 0;
	for (size_t i = 0; i < s->preds.n; i++)
		if (s->preds.v[i].arity > s->max_arity)
			s->max_arity = s->preds.v[i].arity;
	s->pend_size = sizeof(struct pend_atom) +
	    (size_t)s->max_arity * sizeof(int64_t);
	s->cache_ok = 1;
	rc = 0;
done:
	sqlite3_finalize(st);
	sqlite3_finalize(args);
	return rc;
}

int
store_consts_load(struct store *s, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (s->consts_ok)
		return 0;
	if ((rc = db_prep(s, sql_consts_all, &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    sqlite3_column_int64(st, 0) < 0 ||
		    sqlite3_column_int64(st, 0) > INT32_MAX) {
			rc = err_set(e, SQLIFT_EDB, "%s: corrupt database: "
			    "constant %lld: %s", s->path,
			    (long long)sqlite3_column_int64(st, 0),
			    sqlite3_column_type(st, 1) == SQLITE_NULL ? "no name" :
			    "an id outside 0 to 2147483647");
			goto done;
		} else if (smap_put(&s->consts,
		    (const char *)sqlite3_column_text(st, 1),
		    sqlite3_column_int(st, 0)) < 0) {
			rc = err_oom(e);
			goto done;
		}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = db_prep(s, sql_domains_all, &st, e)))
		goto done;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int t = model_type_index(s, sqlite3_column_int64(st, 0));
		/* a row without its constant (negative, say) is in no domain,
		 * as store_domains's join has it */
		if (t >= 0 &&
		    evidence_dom_mark(s, t, sqlite3_column_int64(st, 1)) == -1) {
			rc = err_oom(e);
			goto done;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : db_err(s, e, "domains");
	s->consts_ok = !rc;
done:
	sqlite3_finalize(st);
	return rc;
}

int
store_npreds(const struct store *s)
{
	return (int)s->preds.n;
}

const struct store_pred *
store_pred_at(const struct store *s, int i)
{
	return &s->preds.v[i];
}

int
store_pred_find(const struct store *s, const char *name, size_t len)
{
	return smap_getn(&s->predmap, name, len);
}

int
store_model_get(struct store *s, char **text, char **path, char **fp,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	*text = *path = *fp = NULL;
	if ((rc = db_prep(s, sql_model_get, &st, e)))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*text = db_text(st, 0);
		*path = db_text(st, 1);
		*fp = db_text(st, 2);
		if (!*text || !*path || !*fp) {
			free(*text), free(*path), free(*fp);
			*text = *path = *fp = NULL;
			sqlite3_finalize(st);
			return err_oom(e);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, e, "model");
	return 0;
}

/* Does stored predicate p have the same signature as model pred q? */
static int
same_signature(const struct store *s, const struct store_pred *p,
    const struct mln_model *m, const struct mln_pred *q)
{
	if (strcmp(p->name, q->name) || p->arity != q->arity)
		return 0;
	for (int i = 0; i < p->arity; i++)
		if (strcmp(store_type_name(s, p->types[i]),
		    m->types.v[q->types[i]].name))
			return 0;
	return 1;
}

/* Rebuilds the evidence_atoms view over the ev_ tables. */
static int
view_rebuild(struct store *s, struct err *e)
{
	struct buf b;
	int rc;

	buf_init(&b);
	buf_puts(&b, "DROP VIEW IF EXISTS evidence_atoms;\n"
	    "CREATE VIEW evidence_atoms (predicate, atom, truth) AS\n");
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		buf_puts(&b, "SELECT ");
		db_literal(&b, p->name);
		buf_puts(&b, ", ");
		db_literal(&b, p->name);
		buf_puts(&b, " || '('");
		for (int j = 0; j < p->arity; j++)
			buf_printf(&b, " || %sc%d.name", j ? "',' || " : "", j);
		buf_printf(&b, " || ')', e.truth FROM %s e", p->table);
		for (int j = 0; j < p->arity; j++)
			buf_printf(&b, " JOIN constants c%d ON c%d.const_id = e.a%d",
			    j, j, j);
		buf_puts(&b, "\nUNION ALL\n");
	}
	buf_puts(&b, "SELECT NULL, NULL, NULL WHERE 0;");
	rc = b.oom ? err_oom(e) : db_exec(s, b.s, e);
	buf_free(&b);
	return rc;
}

/* The index in the catalogue of the type named name, -1 if none. */
static int
type_find(const struct store *s, const char *name)
{
	int ti = -1;

	for (size_t k = 0; k < s->type_names.n; k++)
		if (!strcmp(s->type_names.v[k], name))
			ti = (int)k;
	return ti;
}

/* Stores the types of m; types keep their ids by name so that domains
 * survive. */
static int
types_put(struct store *s, const struct mln_model *m, struct err *e)
{
	sqlite3_stmt *st;
	int64_t tnext = 1;
	int rc = 0;

	if ((rc = db_prep(s, sql_type_put, &st, e)))
		return rc;
	for (size_t i = 0; i < s->type_ids.n; i++)
		if (s->type_ids.v[i] >= tnext)
			tnext = s->type_ids.v[i] + 1;
	for (size_t t = 0; t < m->types.n; t++) {
		int ti = type_find(s, m->types.v[t].name);
		int64_t id = ti >= 0 ? s->type_ids.v[ti] : tnext++;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, m->types.v[t].name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_err(s, e, "types");
			break;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Stores model predicate mp with id as table ev_<id>; appends the DDL of
 * its table to ddl unless the table is kept. */
static int
pred_put(struct store *s, const struct mln_model *m,
    const struct mln_pred *mp, int64_t id, int kept, struct buf *ddl,
    struct err *e)
{
	sqlite3_stmt *st = NULL;
	char table[32];
	int rc;

	snprintf(table, sizeof table, "ev_%lld", (long long)id);
	if ((rc = db_prep(s, sql_pred_put, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, mp->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, mp->arity);
	sqlite3_bind_int(st, 4, mp->closed);
	sqlite3_bind_text(st, 5, table, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, e, "predicates");
	if ((rc = db_prep(s, sql_pred_arg_put, &st, e)))
		return rc;
	for (int i = 0; i < mp->arity; i++) {
		int ti = type_find(s, m->types.v[mp->types[i]].name);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int64(st, 3, ti >= 0 ? s->type_ids.v[ti] : -1);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_err(s, e, "predicate_args");
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (kept)
		return 0;
	buf_printf(ddl, "CREATE TABLE %s (", table);
	for (int i = 0; i < mp->arity; i++)
		buf_printf(ddl, "a%d INTEGER NOT NULL, ", i);
	buf_puts(ddl, "truth INTEGER NOT NULL CHECK (truth IN (0, 1)), "
	    "PRIMARY KEY (");
	for (int i = 0; i < mp->arity; i++)
		buf_printf(ddl, "%sa%d", i ? ", " : "", i);
	buf_puts(ddl, ")) WITHOUT ROWID;\n");
	return 0;
}

static int
formulas_put(struct store *s, const struct mln_model *m, struct err *e)
{
	sqlite3_stmt *st;
	int rc = 0;

	if ((rc = db_prep(s, sql_formula_put, &st, e)))
		return rc;
	for (size_t i = 0; i < m->formulas.n; i++) {
		const struct mln_formula *f = &m->formulas.v[i];
		sqlite3_bind_int(st, 1, f->line);
		if (f->hard)
			sqlite3_bind_null(st, 2);
		else
			sqlite3_bind_double(st, 2, f->weight);
		sqlite3_bind_int(st, 3, f->hard);
		sqlite3_bind_text(st, 4, f->text, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_err(s, e, "formulas");
			break;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int
text_put(struct store *s, const char *text, const char *path, const char *fp,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prep(s, sql_model_put, &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, fp, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "model");
}

int
store_model_put(struct store *s, const struct mln_model *m, const char *text,
    const char *path, const char *fp, struct err *e)
{
	int64_t next_id = 1;
	int64_t *keep = NULL;  /* keep[q]: stored id kept for model pred q */
	struct buf b;
	int rc;

	buf_init(&b);
	if (!(keep = xcalloc(m->preds.n, sizeof *keep)))
		return err_oom(e);
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		int q = smap_get(&m->predmap, p->name);
		if (p->id >= next_id)
			next_id = p->id + 1;
		if (q >= 0 && same_signature(s, p, m, &m->preds.v[q]))
			keep[q] = p->id;
		else
			buf_printf(&b, "DROP TABLE %s;\n", p->table);
	}
	if (b.oom) {
		rc = err_oom(e);
		goto done;
	}
	/* statements on the ev_ tables must be gone before DROP TABLE */
	preds_free(s);
	if ((b.len && (rc = db_exec(s, b.s, e))) ||
	    (rc = db_exec(s, sql_model_clear, e)) ||
	    (rc = types_put(s, m, e)) ||
	    (rc = db_exec(s, sql_domains_orphans, e)) ||
	    (rc = model_cache_load(s, e)))
		goto done;
	buf_clear(&b);
	for (size_t q = 0; q < m->preds.n; q++)
		if ((rc = pred_put(s, m, &m->preds.v[q],
		    keep[q] ? keep[q] : next_id++, keep[q] != 0, &b, e)))
			goto done;
	if (b.oom) {
		rc = err_oom(e);
		goto done;
	}
	if ((b.len && (rc = db_exec(s, b.s, e))) ||
	    (rc = formulas_put(s, m, e)) ||
	    (rc = text_put(s, text, path, fp, e)) ||
	    (rc = model_cache_load(s, e)) || (rc = view_rebuild(s, e)) ||
	    (rc = views_sync(s, e)))
		goto done;
	/* declared constants and constants in formulas join their domains */
	for (size_t t = 0; t < m->types.n; t++) {
		int ti = type_find(s, m->types.v[t].name);
		for (size_t k = 0; k < m->types.v[t].consts.n; k++) {
			const char *name = m->consts.v[m->types.v[t].consts.v[k]];
			int64_t cid;
			if ((rc = evidence_const_add(s, ti, name, strlen(name), &cid,
			    e)))
				goto done;
		}
	}
	rc = 0;
done:
	buf_free(&b);
	free(keep);
	return rc;
}
