/* store.c: all SQL of sqlift.  Statements come from sql/store.sql and the
 * schema from schemas/ (compiled in); identifiers from user files appear
 * only as generated table names ev_<id> and as quoted string literals. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sqlift.h"
#include "store/store.h"
#include "store/sql.inc"

#define APP_ID 1397836870

struct store {
	sqlite3 *db;
	char *path;
	int created;           /* we created the file */
	int committed;         /* something was committed to it */
	int in_tx;
	int cache_ok;          /* caches below are loaded */
	VEC(struct store_pred) preds;
	struct smap predmap;
	VEC(int64_t) type_ids;
	VEC(char *) type_names;
	struct smap consts;    /* name -> const_id */
	VEC(unsigned char *) dom_bits; /* per type index: bitset over const_id */
	VEC(size_t) dom_cap;
	sqlite3_stmt *const_put, *domain_put, *marginal_put, *trace_put;
	/* evidence atoms waiting to be inserted in key order */
	unsigned char *pend;   /* records of pend_size bytes */
	size_t npend, pend_size;
	int max_arity;
	/* hypercube queries on one predicate and truth */
	struct {
		int pred, truth;
		sqlite3_stmt *root[64], *distinct[64], *group[64];
		sqlite3_stmt *count, *side_put, *side_clear, *rows;
		sqlite3_stmt *count_all, *rows_all, *put;
		struct buf json;       /* the sides of the cube being put */
	} cube;
};

/* A buffered atom; its arguments (const ids) follow the header. */
struct pend_atom {
	int pred, truth, line;
	const char *file;
	int64_t args[];
};

#define PEND_CHUNK 65536  /* atoms sorted and inserted at once */

static int
dberr(struct store *s, struct err *e, const char *what)
{
	int code = sqlite3_extended_errcode(s->db) & 0xff;

	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return err_set(e, SQLIFT_EDB, "%s: database is locked by another "
		    "process", s->path);
	if (code == SQLITE_NOTADB)
		return err_set(e, SQLIFT_EDB, "%s: not a database file", s->path);
	if (code == SQLITE_NOMEM)
		return err_oom(e);
	return err_set(e, SQLIFT_EDB, "%s: %s: %s", s->path, what,
	    sqlite3_errmsg(s->db));
}

static int
prep(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return dberr(s, e, "prepare");
	return 0;
}

static int
exec(struct store *s, const char *sql, struct err *e)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dberr(s, e, "exec");
	return 0;
}

/* Runs a query returning one integer. */
static int
query_int(struct store *s, const char *sql, int64_t *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, sql, &st, e)))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dberr(s, e, "query");
	return 0;
}

const char *
store_path(const struct store *s)
{
	return s->path;
}

int
store_open(const char *path, int create, struct store **out, struct err *e)
{
	struct store *s;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	int64_t app = 0, ver = 0, tables = 0;
	int rc;

	*out = NULL;
	if (!(s = xcalloc(1, sizeof *s)) || !(s->path = xstrdup(path))) {
		free(s);
		return err_oom(e);
	}
	smap_init(&s->predmap);
	smap_init(&s->consts);
	if (create && access(path, F_OK) != 0) {
		flags |= SQLITE_OPEN_CREATE;
		s->created = 1;
	}
	*out = s;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		s->created = 0;
		return err_set(e, SQLIFT_EDB, "%s: cannot open database: %s", path,
		    s->db ? sqlite3_errmsg(s->db) : "out of memory");
	}
	sqlite3_busy_timeout(s->db, 1000);
	/* a bounded page cache; bulk loads insert in sorted chunks */
	sqlite3_exec(s->db, "PRAGMA cache_size = -8192", NULL, NULL, NULL);
	sqlite3_extended_result_codes(s->db, 1);
	if ((rc = query_int(s, "PRAGMA application_id", &app, e)) ||
	    (rc = query_int(s, "PRAGMA user_version", &ver, e)) ||
	    (rc = query_int(s, "SELECT count(*) FROM sqlite_schema", &tables, e)))
		return rc;
	if (tables > 0 && app != APP_ID)
		return err_set(e, SQLIFT_EDB, "%s: not a sqlift database", path);
	if (ver > STORE_SCHEMA_VERSION)
		return err_set(e, SQLIFT_EDB, "%s: schema version %lld is newer "
		    "than this sqlift supports (%d); upgrade sqlift", path,
		    (long long)ver, STORE_SCHEMA_VERSION);
	return 0;
}

static void
preds_free(struct store *s)
{
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		free(p->name);
		free(p->types);
		free(p->table);
		sqlite3_finalize(p->ins);
		sqlite3_finalize(p->get);
	}
	s->preds.n = 0;
	smap_free(&s->predmap);
}

static void
cache_free(struct store *s)
{
	preds_free(s);
	for (size_t i = 0; i < s->type_names.n; i++)
		free(s->type_names.v[i]);
	s->type_names.n = s->type_ids.n = 0;
	for (size_t i = 0; i < s->dom_bits.n; i++)
		free(s->dom_bits.v[i]);
	s->dom_bits.n = s->dom_cap.n = 0;
	smap_free(&s->consts);
	sqlite3_finalize(s->const_put);
	sqlite3_finalize(s->domain_put);
	sqlite3_finalize(s->marginal_put);
	sqlite3_finalize(s->trace_put);
	s->const_put = s->domain_put = s->marginal_put = s->trace_put = NULL;
	free(s->pend);
	s->pend = NULL;
	s->npend = 0;
	s->cache_ok = 0;
}

void
store_close(struct store *s)
{
	if (!s)
		return;
	if (s->in_tx)
		store_rollback(s);
	cache_free(s);
	free(s->preds.v);
	free(s->type_ids.v);
	free(s->type_names.v);
	free(s->dom_bits.v);
	free(s->dom_cap.v);
	sqlite3_close(s->db);
	if (s->created && !s->committed) {
		/* a failed first load leaves no database behind */
		char j[4096];
		unlink(s->path);
		snprintf(j, sizeof j, "%s-journal", s->path);
		unlink(j);
	}
	free(s->path);
	free(s);
}

static int const_in_domain(struct store *s, int t, const char *name,
    size_t len, int64_t *id, struct err *e);

static int
type_index(const struct store *s, int64_t id)
{
	for (size_t i = 0; i < s->type_ids.n; i++)
		if (s->type_ids.v[i] == id)
			return (int)i;
	return -1;
}

const char *
store_type_name(const struct store *s, int64_t id)
{
	int i = type_index(s, id);
	return i < 0 ? "?" : s->type_names.v[i];
}

static int
pred_prepare(struct store *s, struct store_pred *p, struct err *e)
{
	struct buf b;
	int rc;

	buf_init(&b);
	buf_printf(&b, "INSERT OR IGNORE INTO %s (", p->table);
	for (int i = 0; i < p->arity; i++)
		buf_printf(&b, "a%d, ", i);
	buf_puts(&b, "truth) VALUES (");
	for (int i = 0; i <= p->arity; i++)
		buf_printf(&b, "%s?%d", i ? ", " : "", i + 1);
	buf_puts(&b, ")");
	if (b.oom)
		return err_oom(e);
	rc = prep(s, b.s, (sqlite3_stmt **)&p->ins, e);
	buf_clear(&b);
	buf_printf(&b, "SELECT truth FROM %s WHERE ", p->table);
	for (int i = 0; i < p->arity; i++)
		buf_printf(&b, "%sa%d = ?%d", i ? " AND " : "", i, i + 1);
	if (b.oom)
		rc = err_oom(e);
	if (!rc)
		rc = prep(s, b.s, (sqlite3_stmt **)&p->get, e);
	buf_free(&b);
	return rc;
}

static int
dom_mark(struct store *s, int t, int64_t cid)
{
	size_t need = (size_t)cid / 8 + 1;

	if (need > s->dom_cap.v[t]) {
		size_t cap = need * 2;
		unsigned char *b = xrealloc(s->dom_bits.v[t], cap);
		if (!b)
			return -1;
		memset(b + s->dom_cap.v[t], 0, cap - s->dom_cap.v[t]);
		s->dom_bits.v[t] = b;
		s->dom_cap.v[t] = cap;
	}
	if (s->dom_bits.v[t][cid / 8] & (1u << (cid % 8)))
		return 0;
	s->dom_bits.v[t][cid / 8] |= (unsigned char)(1u << (cid % 8));
	return 1;
}

/* Loads predicates, types, constants and domain membership. */
static int
cache_load(struct store *s, struct err *e)
{
	sqlite3_stmt *st = NULL, *args = NULL;
	int rc;

	cache_free(s);
	if ((rc = prep(s, sql_types_all, &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *n = xstrdup((const char *)sqlite3_column_text(st, 1));
		if (n && VEC_PUSH(s->type_names, n) < 0) {
			free(n);
			n = NULL;
		}
		if (!n || VEC_PUSH(s->type_ids, sqlite3_column_int64(st, 0)) < 0 ||
		    VEC_PUSH(s->dom_bits, NULL) < 0 || VEC_PUSH(s->dom_cap, 0) < 0) {
			sqlite3_finalize(st);
			return err_oom(e);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dberr(s, e, "types");
	if ((rc = prep(s, sql_preds_all, &st, e)) ||
	    (rc = prep(s, sql_pred_args, &args, e)))
		goto done;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_pred p = { 0 };
		p.id = sqlite3_column_int64(st, 0);
		p.name = xstrdup((const char *)sqlite3_column_text(st, 1));
		p.arity = sqlite3_column_int(st, 2);
		p.closed = sqlite3_column_int(st, 3);
		p.table = xstrdup((const char *)sqlite3_column_text(st, 4));
		p.types = xcalloc((size_t)p.arity, sizeof *p.types);
		if (!p.name || !p.table || !p.types || VEC_PUSH(s->preds, p) < 0) {
			free(p.name), free(p.table), free(p.types);
			rc = err_oom(e);
			goto done;
		}
		if (smap_put(&s->predmap, p.name, (int)s->preds.n - 1) < 0) {
			rc = err_oom(e);  /* s->preds owns p now */
			goto done;
		}
		sqlite3_bind_int64(args, 1, p.id);
		while (sqlite3_step(args) == SQLITE_ROW)
			p.types[sqlite3_column_int(args, 0)] =
			    sqlite3_column_int64(args, 1);
		sqlite3_reset(args);
		if ((rc = pred_prepare(s, &s->preds.v[s->preds.n - 1], e)))
			goto done;
	}
	if (rc != SQLITE_DONE) {
		rc = dberr(s, e, "predicates");
		goto done;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = prep(s, sql_consts_all, &st, e)))
		goto done;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (smap_put(&s->consts, (const char *)sqlite3_column_text(st, 1),
		    sqlite3_column_int(st, 0)) < 0) {
			rc = err_oom(e);
			goto done;
		}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = prep(s, sql_domains_all, &st, e)))
		goto done;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int t = type_index(s, sqlite3_column_int64(st, 0));
		if (t >= 0 && dom_mark(s, t, sqlite3_column_int64(st, 1)) < 0) {
			rc = err_oom(e);
			goto done;
		}
	}
	if ((rc = prep(s, sql_const_put, &s->const_put, e)) ||
	    (rc = prep(s, sql_domain_put, &s->domain_put, e)))
		goto done;
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
store_begin(struct store *s, struct err *e)
{
	int64_t ver = 0;
	int rc;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return dberr(s, e, "begin");
	s->in_tx = 1;
	if ((rc = query_int(s, "PRAGMA user_version", &ver, e)))
		return rc;
	/* the schema, then each migration after the version found */
	if (ver < 1 && (rc = exec(s, sql_schema, e)))
		return rc;
	if (ver < 2 && (rc = exec(s, sql_migrate2, e)))
		return rc;
	if (ver < 3 && (rc = exec(s, sql_migrate3, e)))
		return rc;
	if (ver < 4 && (rc = exec(s, sql_migrate4, e)))
		return rc;
	return cache_load(s, e);
}

int
store_commit(struct store *s, struct err *e)
{
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return dberr(s, e, "commit");
	s->in_tx = 0;
	s->committed = 1;
	return 0;
}

void
store_rollback(struct store *s)
{
	if (s->in_tx)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_tx = 0;
	cache_free(s);
}

static char *
col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

int
store_model_get(struct store *s, char **text, char **path, char **fp,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	*text = *path = *fp = NULL;
	if ((rc = prep(s, sql_model_get, &st, e)))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*text = col_dup(st, 0);
		*path = col_dup(st, 1);
		*fp = col_dup(st, 2);
		if (!*text || !*path || !*fp) {
			free(*text), free(*path), free(*fp);
			*text = *path = *fp = NULL;
			sqlite3_finalize(st);
			return err_oom(e);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dberr(s, e, "model");
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

static void
sql_literal(struct buf *b, const char *v)
{
	buf_puts(b, "'");
	for (; *v; v++) {
		if (*v == '\'')
			buf_puts(b, "'");
		buf_add(b, v, 1);
	}
	buf_puts(b, "'");
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
		sql_literal(&b, p->name);
		buf_puts(&b, ", ");
		sql_literal(&b, p->name);
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
	rc = b.oom ? err_oom(e) : exec(s, b.s, e);
	buf_free(&b);
	return rc;
}

int
store_model_put(struct store *s, const struct mln_model *m, const char *text,
    const char *path, const char *fp, struct err *e)
{
	sqlite3_stmt *st = NULL;
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
	if ((b.len && (rc = exec(s, b.s, e))) ||
	    (rc = exec(s, sql_model_clear, e)))
		goto done;
	/* types keep their ids by name so that domains survive */
	if ((rc = prep(s, sql_type_put, &st, e)))
		goto done;
	{
		int64_t tnext = 1;
		for (size_t i = 0; i < s->type_ids.n; i++)
			if (s->type_ids.v[i] >= tnext)
				tnext = s->type_ids.v[i] + 1;
		for (size_t t = 0; t < m->types.n; t++) {
			int64_t id = -1;
			for (size_t i = 0; i < s->type_names.n; i++)
				if (!strcmp(s->type_names.v[i], m->types.v[t].name))
					id = s->type_ids.v[i];
			if (id < 0)
				id = tnext++;
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_text(st, 2, m->types.v[t].name, -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE) {
				rc = dberr(s, e, "types");
				goto done;
			}
			sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = exec(s, sql_domains_orphans, e)) || (rc = cache_load(s, e)))
		goto done;
	buf_clear(&b);
	for (size_t q = 0; q < m->preds.n; q++) {
		const struct mln_pred *mp = &m->preds.v[q];
		int64_t id = keep[q] ? keep[q] : next_id++;
		sqlite3_stmt *pa = NULL;
		char table[32];
		snprintf(table, sizeof table, "ev_%lld", (long long)id);
		if ((rc = prep(s, sql_pred_put, &st, e)))
			goto done;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, mp->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, mp->arity);
		sqlite3_bind_int(st, 4, mp->closed);
		sqlite3_bind_text(st, 5, table, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = dberr(s, e, "predicates");
			goto done;
		}
		sqlite3_finalize(st);
		st = NULL;
		if ((rc = prep(s, sql_pred_arg_put, &pa, e)))
			goto done;
		for (int i = 0; i < mp->arity; i++) {
			int ti = smap_get(&m->typemap, m->types.v[mp->types[i]].name);
			int64_t tid = -1;
			for (size_t k = 0; k < s->type_names.n; k++)
				if (!strcmp(s->type_names.v[k], m->types.v[ti].name))
					tid = s->type_ids.v[k];
			sqlite3_bind_int64(pa, 1, id);
			sqlite3_bind_int(pa, 2, i);
			sqlite3_bind_int64(pa, 3, tid);
			if (sqlite3_step(pa) != SQLITE_DONE) {
				sqlite3_finalize(pa);
				rc = dberr(s, e, "predicate_args");
				goto done;
			}
			sqlite3_reset(pa);
		}
		sqlite3_finalize(pa);
		if (!keep[q]) {
			buf_printf(&b, "CREATE TABLE %s (", table);
			for (int i = 0; i < mp->arity; i++)
				buf_printf(&b, "a%d INTEGER NOT NULL, ", i);
			buf_puts(&b, "truth INTEGER NOT NULL CHECK (truth IN (0, 1)), "
			    "PRIMARY KEY (");
			for (int i = 0; i < mp->arity; i++)
				buf_printf(&b, "%sa%d", i ? ", " : "", i);
			buf_puts(&b, ")) WITHOUT ROWID;\n");
		}
	}
	if (b.oom) {
		rc = err_oom(e);
		goto done;
	}
	if ((b.len && (rc = exec(s, b.s, e))) ||
	    (rc = prep(s, sql_formula_put, &st, e)))
		goto done;
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
			rc = dberr(s, e, "formulas");
			goto done;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = prep(s, sql_model_put, &st, e)))
		goto done;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, fp, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		rc = dberr(s, e, "model");
		goto done;
	}
	if ((rc = cache_load(s, e)) || (rc = view_rebuild(s, e)))
		goto done;
	/* declared constants and constants in formulas join their domains */
	for (size_t t = 0; t < m->types.n; t++) {
		int ti = -1;
		for (size_t k = 0; k < s->type_names.n; k++)
			if (!strcmp(s->type_names.v[k], m->types.v[t].name))
				ti = (int)k;
		for (size_t k = 0; k < m->types.v[t].consts.n; k++) {
			const char *name = m->consts.v[m->types.v[t].consts.v[k]];
			int64_t cid;
			if ((rc = const_in_domain(s, ti, name, strlen(name), &cid, e)))
				goto done;
		}
	}
	rc = 0;
done:
	sqlite3_finalize(st);
	buf_free(&b);
	free(keep);
	return rc;
}

/* Finds or creates constant name and makes it a member of type index t. */
static int
const_in_domain(struct store *s, int t, const char *name, size_t len,
    int64_t *id, struct err *e)
{
	int cid = smap_getn(&s->consts, name, len);
	int r;

	if (cid < 0) {
		sqlite3_bind_text(s->const_put, 1, name, (int)len, SQLITE_STATIC);
		r = sqlite3_step(s->const_put);
		sqlite3_reset(s->const_put);
		if (r != SQLITE_DONE)
			return dberr(s, e, "constants");
		cid = (int)sqlite3_last_insert_rowid(s->db);
		if (smap_putn(&s->consts, name, len, cid) < 0)
			return err_oom(e);
	}
	*id = cid;
	if (t < 0)
		return 0;
	if ((r = dom_mark(s, t, cid)) < 0)
		return err_oom(e);
	if (r == 1) {
		sqlite3_bind_int64(s->domain_put, 1, s->type_ids.v[t]);
		sqlite3_bind_int64(s->domain_put, 2, cid);
		r = sqlite3_step(s->domain_put);
		sqlite3_reset(s->domain_put);
		if (r != SQLITE_DONE)
			return dberr(s, e, "domains");
	}
	return 0;
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

static struct pend_atom *
pend_at(const struct store *s, size_t i)
{
	return (struct pend_atom *)(void *)(s->pend + i * s->pend_size);
}

/* Orders by predicate, arguments, then line. */
static int
pend_cmp(const void *x, const void *y, void *arg)
{
	const struct pend_atom *a = x, *b = y;
	const struct store *s = arg;

	if (a->pred != b->pred)
		return a->pred < b->pred ? -1 : 1;
	for (int i = 0; i < s->preds.v[a->pred].arity; i++)
		if (a->args[i] != b->args[i])
			return a->args[i] < b->args[i] ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

static int
same_atom(const struct store *s, const struct pend_atom *a,
    const struct pend_atom *b)
{
	if (a->pred != b->pred)
		return 0;
	for (int i = 0; i < s->preds.v[a->pred].arity; i++)
		if (a->args[i] != b->args[i])
			return 0;
	return 1;
}

/* The message for atom a whose truth contradicts earlier evidence. */
static int
contradiction(struct store *s, const struct pend_atom *a, struct err *e)
{
	const struct store_pred *p = &s->preds.v[a->pred];
	sqlite3_stmt *st = NULL;
	struct buf b;
	int rc;

	buf_init(&b);
	if (sqlite3_prepare_v2(s->db, "SELECT name FROM constants WHERE "
	    "const_id = ?1", -1, &st, NULL) == SQLITE_OK)
		for (int i = 0; i < p->arity; i++) {
			sqlite3_bind_int64(st, 1, a->args[i]);
			buf_puts(&b, i ? "," : "");
			if (sqlite3_step(st) == SQLITE_ROW)
				buf_puts(&b, (const char *)sqlite3_column_text(st, 0));
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	rc = err_set(e, SQLIFT_EINPUT, "%s:%d: contradictory evidence: %s(%s) is "
	    "%s here and %s before", a->file, a->line, p->name, b.s ? b.s : "",
	    a->truth ? "true" : "false", a->truth ? "false" : "true");
	buf_free(&b);
	return rc;
}

/* Sorts the buffered atoms and inserts them: in key order the B-tree
 * stays warm in a small page cache, so memory does not grow with the
 * file.  Repeats are skipped; a contradiction is an error. */
static int
pend_flush(struct store *s, struct err *e)
{
	size_t n = s->npend;
	int rc = 0;

	s->npend = 0;
	if (n == 0)
		return 0;
	qsort_r(s->pend, n, s->pend_size, pend_cmp, s);
	for (size_t i = 0; i < n; i++) {
		struct pend_atom *a = pend_at(s, i);
		struct store_pred *p = &s->preds.v[a->pred];
		sqlite3_stmt *ins = p->ins, *get = p->get;
		int r, old;

		if (i > 0 && same_atom(s, pend_at(s, i - 1), a)) {
			if (pend_at(s, i - 1)->truth != a->truth)
				return contradiction(s, a, e);
			continue;
		}
		for (int k = 0; k < p->arity; k++)
			sqlite3_bind_int64(ins, k + 1, a->args[k]);
		sqlite3_bind_int(ins, p->arity + 1, a->truth);
		r = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (r != SQLITE_DONE)
			return dberr(s, e, p->table);
		if (sqlite3_changes(s->db) > 0)
			continue;
		/* stored before: the same truth is a harmless repeat */
		for (int k = 0; k < p->arity; k++)
			sqlite3_bind_int64(get, k + 1, a->args[k]);
		r = sqlite3_step(get);
		old = r == SQLITE_ROW ? sqlite3_column_int(get, 0) : a->truth;
		sqlite3_reset(get);
		if (r != SQLITE_ROW && r != SQLITE_DONE)
			return dberr(s, e, p->table);
		if (old != a->truth)
			return contradiction(s, a, e);
	}
	return rc;
}

int
store_atom_add(struct store *s, int pi, const char *const *args,
    const size_t *lens, int truth, const char *file, int line, struct err *e)
{
	struct store_pred *p = &s->preds.v[pi];
	struct pend_atom *a;
	int rc;

	if (!s->pend && !(s->pend = xmalloc(PEND_CHUNK * s->pend_size)))
		return err_oom(e);
	if (s->npend == PEND_CHUNK && (rc = pend_flush(s, e)))
		return rc;
	a = pend_at(s, s->npend);
	for (int i = 0; i < p->arity; i++)
		if ((rc = const_in_domain(s, type_index(s, p->types[i]), args[i],
		    lens[i], &a->args[i], e)))
			return rc;
	a->pred = pi;
	a->truth = truth;
	a->line = line;
	a->file = file;
	s->npend++;
	return 0;
}

int
store_evfile_add(struct store *s, const char *path, int64_t atoms,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = pend_flush(s, e)) || (rc = prep(s, sql_evfile_put, &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, atoms);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "evidence_files");
}

void
store_domains_free(struct store_domain *dom, int n)
{
	if (!dom)
		return;
	for (int t = 0; t < n; t++) {
		for (int i = 0; i < dom[t].n; i++)
			free(dom[t].names[i]);
		free(dom[t].names);
		free(dom[t].ids);
	}
	free(dom);
}

int
store_domains(struct store *s, const struct mln_model *m,
    struct store_domain **out, struct err *e)
{
	struct store_domain *dom;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	*out = NULL;
	if (!(dom = xcalloc(m->types.n, sizeof *dom)))
		return err_oom(e);
	if ((rc = prep(s, sql_domain_of, &st, e)))
		goto fail;
	for (size_t t = 0; t < m->types.n; t++) {
		int ti = -1;
		VEC(int64_t) ids = { 0 };
		VEC(char *) names = { 0 };
		for (size_t k = 0; k < s->type_names.n; k++)
			if (!strcmp(s->type_names.v[k], m->types.v[t].name))
				ti = (int)k;
		if (ti >= 0) {
			int step;
			sqlite3_bind_int64(st, 1, s->type_ids.v[ti]);
			while ((step = sqlite3_step(st)) == SQLITE_ROW) {
				char *n = col_dup(st, 1);
				if (n && VEC_PUSH(names, n) < 0) {
					free(n);
					n = NULL;
				}
				if (!n || VEC_PUSH(ids, sqlite3_column_int64(st, 0)) < 0) {
					rc = err_oom(e);
					break;
				}
			}
			sqlite3_reset(st);
			if (!rc && step != SQLITE_DONE)
				rc = dberr(s, e, "domains");
			if (names.n > ids.n)  /* keep the pair of arrays in step */
				free(names.v[--names.n]);
		}
		dom[t].n = (int)names.n;
		dom[t].names = names.v;
		dom[t].ids = ids.v;
		if (rc)
			goto fail;
	}
	sqlite3_finalize(st);
	*out = dom;
	return 0;
fail:
	sqlite3_finalize(st);
	store_domains_free(dom, (int)m->types.n);
	return rc;
}

int
store_atoms_each(struct store *s, int pi, store_atom_fn fn, void *ctx,
    struct err *e)
{
	struct store_pred *p = &s->preds.v[pi];
	sqlite3_stmt *st;
	int64_t args[64];
	struct buf b;
	int rc;

	if (p->arity > 64)
		return err_set(e, SQLIFT_ELIMIT, "%s: more than 64 arguments",
		    p->name);
	buf_init(&b);
	buf_puts(&b, "SELECT truth");
	for (int i = 0; i < p->arity; i++)
		buf_printf(&b, ", a%d", i);
	buf_printf(&b, " FROM %s", p->table);
	if (b.oom)
		return err_oom(e);
	rc = prep(s, b.s, &st, e);
	buf_free(&b);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r;
		for (int i = 0; i < p->arity; i++)
			args[i] = sqlite3_column_int64(st, i + 1);
		if ((r = fn(ctx, args, sqlite3_column_int(st, 0)))) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, p->table);
}

int
store_evidence_fingerprint(struct store *s, char out[17], struct err *e)
{
	sqlite3_stmt *st;
	uint64_t sum = 0;
	int rc;

	if ((rc = prep(s, "SELECT atom, truth FROM evidence_atoms", &st, e)))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *a = (const char *)sqlite3_column_text(st, 0);
		char t = (char)('0' + sqlite3_column_int(st, 1));
		sum += fnv1a(fnv1a(FNV_INIT, a, strlen(a)), &t, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dberr(s, e, "evidence");
	snprintf(out, 17, "%016llx", (unsigned long long)sum);
	return 0;
}

/* Binds a REAL that NaN leaves NULL. */
static void
bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

int
store_run_add(struct store *s, const struct store_run *r, int64_t *id,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, sql_run_put, &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, r->method, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->status, -1, SQLITE_STATIC);
	bind_real(st, 3, r->log_z);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)r->seed);
	sqlite3_bind_text(st, 5, r->parameters, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, r->queries, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->job_file, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, r->model_fp, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, r->evidence_fp, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, r->unknown_atoms);
	sqlite3_bind_int64(st, 11, r->query_atoms);
	sqlite3_bind_text(st, 12, r->started_at, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 13, r->seconds);
	sqlite3_bind_text(st, 14, PACKAGE_VERSION, -1, SQLITE_STATIC);
	if (r->stats)
		sqlite3_bind_text(st, 15, r->stats, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 15);
	/* 16-19 stay NULL (unbound) unless the method sampled */
	if (r->samples > 0) {
		bind_real(st, 16, r->log_z_stderr);
		sqlite3_bind_int64(st, 17, r->samples);
		bind_real(st, 18, r->ess);
		if (r->proposal)
			sqlite3_bind_text(st, 19, r->proposal, -1, SQLITE_STATIC);
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dberr(s, e, "runs");
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_marginal_add(struct store *s, int64_t run, const char *pred,
    const char *atom, double p, int64_t group, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	/* prepared once per transaction: runs add many marginals */
	if (!s->marginal_put &&
	    (rc = prep(s, sql_marginal_put, &s->marginal_put, e)))
		return rc;
	st = s->marginal_put;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, pred, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, atom, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, p);
	if (group >= 0)
		sqlite3_bind_int64(st, 5, group);
	else
		sqlite3_bind_null(st, 5);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "run_marginals");
}

int
store_group_add(struct store *s, int64_t run, int64_t group, const char *pred,
    double atoms, double p, double stderr_p, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, sql_group_put, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, group);
	sqlite3_bind_text(st, 3, pred, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, atoms);
	sqlite3_bind_double(st, 5, p);
	bind_real(st, 6, stderr_p);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "run_groups");
}

int
store_trace_add(struct store *s, int64_t run, int64_t samples, double log_z,
    double log_z_stderr, double ess, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	/* prepared once per transaction, as marginal_put */
	if (!s->trace_put && (rc = prep(s, sql_trace_put, &s->trace_put, e)))
		return rc;
	st = s->trace_put;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, samples);
	bind_real(st, 3, log_z);
	bind_real(st, 4, log_z_stderr);
	bind_real(st, 5, ess);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "run_trace");
}

int
store_run_method(struct store *s, int64_t run, char **method, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	*method = NULL;
	if ((rc = prep(s, sql_run_method, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !(*method = col_dup(st, 0))) {
		sqlite3_finalize(st);
		return err_oom(e);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dberr(s, e, "runs");
	return 0;
}

/* A REAL column that NULL leaves NaN. */
static double
col_real(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, i);
}

int
store_trace_each(struct store *s, int64_t run, store_trace_fn fn, void *ctx,
    struct err *e)
{
	sqlite3_stmt *st;
	int64_t ver = 0;
	int rc;

	if ((rc = query_int(s, "PRAGMA user_version", &ver, e)))
		return rc;
	if (ver < 4)
		return 0;  /* no run_trace before version 4 */
	if ((rc = prep(s, sql_trace_all, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r = fn(ctx, sqlite3_column_int64(st, 0), col_real(st, 1),
		    col_real(st, 2), col_real(st, 3));
		if (r) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "run_trace");
}

char *
store_now(struct store *s)
{
	sqlite3_stmt *st;
	char *r = NULL;

	if (sqlite3_prepare_v2(s->db, sql_now, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		r = col_dup(st, 0);
	sqlite3_finalize(st);
	return r;
}

int
store_info(struct store *s, FILE *out, struct err *e)
{
	sqlite3_stmt *st;
	char *text, *path, *fp;
	int rc;

	if ((rc = store_model_get(s, &text, &path, &fp, e)))
		return rc;
	{
		int64_t ver = 0;
		if ((rc = query_int(s, "PRAGMA user_version", &ver, e)))
			return rc;
		fprintf(out, "database: %s (schema %lld)\n", s->path,
		    (long long)ver);
	}
	if (text)
		fprintf(out, "model: %s (fingerprint %s)\n", path, fp);
	else
		fprintf(out, "model: none\n");
	free(text), free(path), free(fp);
	if ((rc = prep(s, sql_info_counts, &st, e)))
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		fprintf(out, "types: %d  predicates: %d  formulas: %d  "
		    "constants: %d  evidence files: %d  runs: %d\n",
		    sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
		    sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
		    sqlite3_column_int(st, 4), sqlite3_column_int(st, 5));
	sqlite3_finalize(st);
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		int64_t n = 0, t = 0;
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "SELECT count(*), coalesce(sum(truth), 0) FROM %s",
		    p->table);
		if (b.oom || (rc = prep(s, b.s, &st, e))) {
			buf_free(&b);
			return rc ? rc : err_oom(e);
		}
		buf_free(&b);
		if (sqlite3_step(st) == SQLITE_ROW) {
			n = sqlite3_column_int64(st, 0);
			t = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
		fprintf(out, "  %s%s(", p->closed ? "*" : "", p->name);
		for (int j = 0; j < p->arity; j++)
			fprintf(out, "%s%s", j ? "," : "", store_type_name(s, p->types[j]));
		fprintf(out, "): %lld evidence atoms (%lld true, %lld false)\n",
		    (long long)n, (long long)t, (long long)(n - t));
	}
	if ((rc = prep(s, sql_info_runs, &st, e)))
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW) {
		fprintf(out, "run %lld: %s %s", (long long)sqlite3_column_int64(st, 0),
		    sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			fprintf(out, " log Z = %.10g", sqlite3_column_double(st, 3));
		fprintf(out, " at %s\n", sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return 0;
}

int
store_pred_count(struct store *s, int pi, int64_t *n, struct err *e)
{
	struct buf b;
	int rc;

	buf_init(&b);
	buf_printf(&b, "SELECT count(*) FROM %s", s->preds.v[pi].table);
	rc = b.oom ? err_oom(e) : query_int(s, b.s, n, e);
	buf_free(&b);
	return rc;
}

int
store_begin_read(struct store *s, struct err *e)
{
	int64_t ver = 0;
	int rc;

	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return dberr(s, e, "begin");
	s->in_tx = 1;
	if ((rc = query_int(s, "PRAGMA user_version", &ver, e)))
		return rc;
	if (ver == 0)
		return err_set(e, SQLIFT_EDB, "%s: empty database: nothing loaded "
		    "yet", s->path);
	return cache_load(s, e);
}

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
	if ((rc = exec(s, "CREATE TEMP TABLE IF NOT EXISTS cube_side (dim "
	    "INTEGER NOT NULL, const_id INTEGER NOT NULL, PRIMARY KEY (dim, "
	    "const_id)) WITHOUT ROWID", e)) ||
	    (rc = prep(s, "INSERT INTO temp.cube_side VALUES (?1, ?2)",
	    &s->cube.side_put, e)) ||
	    (rc = prep(s, "DELETE FROM temp.cube_side", &s->cube.side_clear, e)))
		return rc;
	buf_init(&b);
	for (int i = 0; i < p->arity && !rc; i++) {
		buf_clear(&b);
		buf_printf(&b, "SELECT DISTINCT a%d FROM %s WHERE truth = %d "
		    "ORDER BY 1", i, p->table, truth);
		rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.root[i], e);
		buf_clear(&b);
		buf_printf(&b, "SELECT DISTINCT a%d FROM %s WHERE truth = %d", i,
		    p->table, truth);
		cube_filter(&b, p->arity);
		buf_puts(&b, " ORDER BY 1");
		if (!rc)
			rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.distinct[i], e);
		buf_clear(&b);
		buf_printf(&b, "SELECT a%d, count(*) FROM %s WHERE truth = %d", i,
		    p->table, truth);
		cube_filter(&b, p->arity);
		buf_printf(&b, " GROUP BY a%d", i);
		if (!rc)
			rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.group[i], e);
	}
	buf_clear(&b);
	buf_printf(&b, "SELECT count(*) FROM %s WHERE truth = %d", p->table,
	    truth);
	cube_filter(&b, p->arity);
	if (!rc)
		rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.count, e);
	buf_clear(&b);
	buf_puts(&b, "SELECT ");
	for (int i = 0; i < p->arity; i++)
		buf_printf(&b, "%sa%d", i ? ", " : "", i);
	buf_printf(&b, " FROM %s WHERE truth = %d", p->table, truth);
	if (!rc)
		rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.rows_all, e);
	cube_filter(&b, p->arity);
	if (!rc)
		rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.rows, e);
	buf_clear(&b);
	buf_printf(&b, "SELECT count(*) FROM %s WHERE truth = %d", p->table,
	    truth);
	if (!rc)
		rc = b.oom ? err_oom(e) : prep(s, b.s, &s->cube.count_all, e);
	if (!rc)
		rc = prep(s, "INSERT INTO cubes (pred_id, truth, atoms, negated, "
		    "sides) VALUES (?1, ?2, ?3, ?4, ?5)", &s->cube.put, e);
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
	return r == SQLITE_DONE ? 0 : dberr(s, e, "cubes");
}

int
store_cube_sides(struct store *s, const struct store_ids *sides,
    struct err *e)
{
	int ar = s->preds.v[s->cube.pred].arity;

	if (sqlite3_step(s->cube.side_clear) != SQLITE_DONE) {
		sqlite3_reset(s->cube.side_clear);
		return dberr(s, e, "cube sides");
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
				return dberr(s, e, "cube sides");
		}
	return 0;
}

int
store_cube_count(struct store *s, int64_t *n, struct err *e)
{
	int r = sqlite3_step(s->cube.count);

	*n = r == SQLITE_ROW ? sqlite3_column_int64(s->cube.count, 0) : 0;
	sqlite3_reset(s->cube.count);
	return r == SQLITE_ROW ? 0 : dberr(s, e, "cubes");
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
	return r == SQLITE_DONE ? 0 : dberr(s, e, "cubes");
}

int
store_cubes_clear(struct store *s, struct err *e)
{
	return exec(s, "DELETE FROM cubes; DELETE FROM blocks;", e);
}

int
store_cube_put(struct store *s, int pi, int truth, int64_t atoms,
    const struct store_ids *sides, unsigned negated, struct err *e)
{
	sqlite3_stmt *st = s->cube.put;
	struct buf *j = &s->cube.json;
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
	if (j->oom)
		return err_oom(e);
	sqlite3_bind_int64(st, 1, s->preds.v[pi].id);
	if (truth < 0)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int(st, 2, truth);
	sqlite3_bind_int64(st, 3, atoms);
	sqlite3_bind_int(st, 4, (int)negated);
	sqlite3_bind_text(st, 5, j->s, (int)j->len, SQLITE_STATIC);
	r = sqlite3_step(st);
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : dberr(s, e, "cubes");
}

int
store_cube_view(struct store *s, struct err *e)
{
	struct buf b;
	int rc;

	buf_init(&b);
	buf_puts(&b, "DROP VIEW IF EXISTS cube_atoms;\n"
	    "CREATE VIEW cube_atoms (predicate, truth, atom) AS\n");
	for (size_t i = 0; i < s->preds.n; i++) {
		struct store_pred *p = &s->preds.v[i];
		/* a branch per pattern of negated sides: listed sides join their
		 * rows, negated ones the domain less the rows */
		for (unsigned m = 0; p->arity <= 8 && m < (1u << p->arity); m++) {
			buf_puts(&b, "SELECT ");
			sql_literal(&b, p->name);
			buf_puts(&b, ", c.truth, ");
			sql_literal(&b, p->name);
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
			buf_printf(&b, " WHERE c.pred_id = %lld AND c.negated = %u\n"
			    "UNION ALL\n", (long long)p->id, m);
		}
	}
	buf_puts(&b, "SELECT NULL, NULL, NULL WHERE 0;");
	rc = b.oom ? err_oom(e) : exec(s, b.s, e);
	buf_free(&b);
	return rc;
}

int
store_domain_ids(struct store *s, int t, struct store_ids *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc, r;

	if ((rc = prep(s, "SELECT const_id FROM domains WHERE type_id = ?1 "
	    "ORDER BY const_id", &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, s->type_ids.v[t]);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (VEC_PUSH(*out, sqlite3_column_int64(st, 0)) < 0) {
			sqlite3_finalize(st);
			return err_oom(e);
		}
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? 0 : dberr(s, e, "domains");
}

int
store_ntypes(const struct store *s)
{
	return (int)s->type_ids.n;
}

int
store_type_at(const struct store *s, int64_t type_id)
{
	return type_index(s, type_id);
}

/* Signature -> block number: open addressing on the 64-bit signature. */
struct sigmap {
	uint64_t *key;
	int *val;
	size_t n, cap;         /* cap a power of two */
};

static int
sigmap_get(struct sigmap *m, uint64_t h, int *next)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		uint64_t *k = xcalloc(cap, sizeof *k);
		int *v = xmalloc(cap * sizeof *v);
		if (!k || !v) {
			free(k);
			free(v);
			return -1;
		}
		for (size_t x = 0; x < cap; x++)
			v[x] = -1;
		for (size_t x = 0; x < m->cap; x++)
			if (m->val[x] >= 0) {
				size_t y = (size_t)(m->key[x] * 0x9E3779B97F4A7C15ULL) &
				    (cap - 1);
				while (v[y] >= 0)
					y = (y + 1) & (cap - 1);
				k[y] = m->key[x];
				v[y] = m->val[x];
			}
		free(m->key);
		free(m->val);
		m->key = k;
		m->val = v;
		m->cap = cap;
	}
	i = (size_t)(h * 0x9E3779B97F4A7C15ULL) & (m->cap - 1);
	while (m->val[i] >= 0 && m->key[i] != h)
		i = (i + 1) & (m->cap - 1);
	if (m->val[i] < 0) {
		m->key[i] = h;
		m->val[i] = (*next)++;
		m->n++;
	}
	return m->val[i];
}

#define BLOCK_ROWS 64          /* rows per INSERT of the blocks */

int
store_blocks_build(struct store *s, uint64_t *const *sig, const int64_t *cap,
    FILE *report, struct err *e)
{
	sqlite3_stmt *dom = NULL, *put = NULL, *put1 = NULL;
	struct buf q;
	int rc;

	buf_init(&q);
	buf_puts(&q, "INSERT INTO blocks (type_id, block, const_id) VALUES ");
	for (int i = 0; i < BLOCK_ROWS; i++)
		buf_puts(&q, i ? ",(?,?,?)" : "(?,?,?)");
	if (q.oom) {
		rc = err_oom(e);
		goto done;
	}
	if ((rc = prep(s, "SELECT const_id FROM domains WHERE type_id = ?1 "
	    "ORDER BY const_id", &dom, e)) ||
	    (rc = prep(s, q.s, &put, e)) ||
	    (rc = prep(s, "INSERT INTO blocks (type_id, block, const_id) VALUES "
	    "(?1, ?2, ?3)", &put1, e)))
		goto done;
	for (size_t t = 0; t < s->type_ids.n && !rc; t++) {
		struct sigmap by = { 0 };
		int64_t nconst = 0, row[BLOCK_ROWS][2];
		int nblocks = 0, nrow = 0, r;

		sqlite3_bind_int64(dom, 1, s->type_ids.v[t]);
		while (!rc && (r = sqlite3_step(dom)) == SQLITE_ROW) {
			int64_t c = sqlite3_column_int64(dom, 0);
			int b = sigmap_get(&by, c < cap[t] ? sig[t][c] : 0, &nblocks);
			if (b < 0) {
				rc = err_oom(e);
				break;
			}
			row[nrow][0] = b;
			row[nrow][1] = c;
			nconst++;
			if (++nrow < BLOCK_ROWS)
				continue;
			for (int i = 0; i < BLOCK_ROWS; i++) {
				sqlite3_bind_int64(put, 3 * i + 1, s->type_ids.v[t]);
				sqlite3_bind_int64(put, 3 * i + 2, row[i][0]);
				sqlite3_bind_int64(put, 3 * i + 3, row[i][1]);
			}
			r = sqlite3_step(put);
			sqlite3_reset(put);
			if (r != SQLITE_DONE)
				rc = dberr(s, e, "blocks");
			nrow = 0;
		}
		for (int i = 0; i < nrow && !rc; i++) {
			sqlite3_bind_int64(put1, 1, s->type_ids.v[t]);
			sqlite3_bind_int64(put1, 2, row[i][0]);
			sqlite3_bind_int64(put1, 3, row[i][1]);
			r = sqlite3_step(put1);
			sqlite3_reset(put1);
			if (r != SQLITE_DONE)
				rc = dberr(s, e, "blocks");
		}
		sqlite3_reset(dom);
		free(by.key);
		free(by.val);
		if (!rc && report)
			fprintf(report, "type %-19s %9lld constants in %6d blocks\n",
			    s->type_names.v[t], (long long)nconst, nblocks);
	}
done:
	sqlite3_finalize(dom);
	sqlite3_finalize(put);
	sqlite3_finalize(put1);
	buf_free(&q);
	return rc;
}

static int
cube_rows(struct store *s, sqlite3_stmt *st, struct store_ids *rows,
    struct err *e);

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
store_cube_count_all(struct store *s, int64_t *n, struct err *e)
{
	int r = sqlite3_step(s->cube.count_all);

	*n = r == SQLITE_ROW ? sqlite3_column_int64(s->cube.count_all, 0) : 0;
	sqlite3_reset(s->cube.count_all);
	return r == SQLITE_ROW ? 0 : dberr(s, e, "cubes");
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
	return r == SQLITE_DONE ? 0 : dberr(s, e, "cubes");
}

int
store_cubes_each(struct store *s, int pi, store_cube_fn fn, void *ctx,
    struct err *e)
{
	sqlite3_stmt *st;
	struct store_ids side[64];
	int ar = s->preds.v[pi].arity, rc, r, truth = 0;
	int64_t cube = -1;

	if (ar > 64)
		return err_set(e, SQLIFT_ELIMIT, "more than 64 arguments");
	if ((rc = prep(s, "SELECT c.cube_id, c.truth, CAST(j.key AS INTEGER), "
	    "x.value FROM cubes c, json_each(c.sides) j, json_each(j.value) x "
	    "WHERE c.pred_id = ?1 AND c.truth IS NOT NULL ORDER BY c.cube_id, "
	    "CAST(j.key AS INTEGER), x.key", &st, e)))
		return rc;
	memset(side, 0, sizeof side);
	sqlite3_bind_int64(st, 1, s->preds.v[pi].id);
	for (;;) {
		r = sqlite3_step(st);
		if (r != SQLITE_ROW || sqlite3_column_int64(st, 0) != cube) {
			if (cube >= 0 && (rc = fn(ctx, truth, ar, side)))
				break;
			for (int i = 0; i < ar; i++)
				side[i].n = 0;
			if (r != SQLITE_ROW)
				break;
			cube = sqlite3_column_int64(st, 0);
			truth = sqlite3_column_int(st, 1);
		}
		if (VEC_PUSH(side[sqlite3_column_int(st, 2)],
		    sqlite3_column_int64(st, 3)) < 0) {
			rc = err_oom(e);
			break;
		}
	}
	if (!rc && r != SQLITE_DONE)
		rc = dberr(s, e, "cubes");
	sqlite3_finalize(st);
	for (int i = 0; i < ar; i++)
		free(side[i].v);
	return rc;
}

int
store_blocks_each(struct store *s, const char *type, store_block_fn fn,
    void *ctx, struct err *e)
{
	sqlite3_stmt *st;
	int rc, r;

	if ((rc = prep(s, "SELECT d.const_id, coalesce(b.block, -1) FROM "
	    "domains d JOIN types t USING (type_id) LEFT JOIN blocks b ON "
	    "b.type_id = d.type_id AND b.const_id = d.const_id WHERE t.name = ?1",
	    &st, e)))
		return rc;
	sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = fn(ctx, sqlite3_column_int64(st, 0),
		    sqlite3_column_int(st, 1))))
			break;
	if (!rc && r != SQLITE_DONE)
		rc = dberr(s, e, "blocks");
	sqlite3_finalize(st);
	return rc;
}
