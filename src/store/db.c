/* db.c: the connection: open and check the file, migrate the schema,
 * transactions and the SQL helpers the other store files use.  Statements
 * come from sql/db.sql, the schema from schemas/ (compiled in). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

#define APP_ID 1397836870

int
db_err(struct store *s, struct err *e, const char *what)
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

int
db_prep(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_err(s, e, "prepare");
	return 0;
}

int
db_exec(struct store *s, const char *sql, struct err *e)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(s, e, "exec");
	return 0;
}

int
db_int(struct store *s, const char *sql, int64_t *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prep(s, sql, &st, e)))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, e, "query");
	return 0;
}

char *
db_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

void
db_literal(struct buf *b, const char *v)
{
	buf_puts(b, "'");
	for (; *v; v++) {
		if (*v == '\'')
			buf_puts(b, "'");
		buf_add(b, v, 1);
	}
	buf_puts(b, "'");
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
	if (views_register(s) < 0)
		return err_set(e, SQLIFT_EDB, "%s: %s", path, sqlite3_errmsg(s->db));
	sqlite3_busy_timeout(s->db, 1000);
	sqlite3_exec(s->db, sql_cache_size, NULL, NULL, NULL);
	sqlite3_extended_result_codes(s->db, 1);
	if ((rc = db_int(s, sql_application_id, &app, e)) ||
	    (rc = db_int(s, sql_user_version, &ver, e)) ||
	    (rc = db_int(s, sql_table_count, &tables, e)))
		return rc;
	if (tables > 0 && app != APP_ID)
		return err_set(e, SQLIFT_EDB, "%s: not a sqlift database", path);
	if (ver > STORE_SCHEMA_VERSION)
		return err_set(e, SQLIFT_EDB, "%s: schema version %lld is newer "
		    "than this sqlift supports (%d); upgrade sqlift", path,
		    (long long)ver, STORE_SCHEMA_VERSION);
	return 0;
}

void
store_close(struct store *s)
{
	if (!s)
		return;
	if (s->in_tx)
		store_rollback(s);
	model_cache_free(s);
	free(s->preds.v);
	free(s->pstmt.v);
	free(s->type_ids.v);
	free(s->type_names.v);
	free(s->dom_bits.v);
	free(s->dom_cap.v);
	free(s->dom_n.v);
	sqlite3_close(s->db);
	if (s->created && !s->committed && *s->path) {
		/* a failed first load leaves no database behind ("": SQLite's
		 * private temporary database, which has no name to remove) */
		char j[4096];
		unlink(s->path);
		snprintf(j, sizeof j, "%s-journal", s->path);
		unlink(j);
	}
	free(s->path);
	free(s);
}

/* Starts a transaction with sql (BEGIN or BEGIN IMMEDIATE) and reads the
 * schema version. */
static int
tx_begin(struct store *s, const char *sql, int64_t *ver, struct err *e)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(s, e, "begin");
	s->in_tx = 1;
	return db_int(s, sql_user_version, ver, e);
}

int
store_begin(struct store *s, struct err *e)
{
	/* migrations[v] takes a database from version v to v + 1 */
	static const char *const migrations[] = {
		sql_schema, sql_migrate2, sql_migrate3, sql_migrate4,
		sql_migrate5, sql_migrate6, sql_migrate7
	};
	_Static_assert(sizeof migrations / sizeof *migrations ==
	    STORE_SCHEMA_VERSION, "one migration per schema version");
	int64_t ver = 0;
	int rc;

	if ((rc = tx_begin(s, sql_begin_write, &ver, e)))
		return rc;
	for (int64_t v = ver < 0 ? 0 : ver; v < STORE_SCHEMA_VERSION; v++)
		if ((rc = db_exec(s, migrations[v], e)))
			return rc;
	if ((rc = model_cache_load(s, e)))
		return rc;
	/* a database from before version 7, or with a view dropped or made
	 * by another sqlift, gets the views of this one; usually a no-op */
	return views_sync(s, e);
}

/* A read transaction on a database that holds a model; *ver its schema. */
static int
begin_read_loaded(struct store *s, int64_t *ver, struct err *e)
{
	int rc;

	if ((rc = tx_begin(s, sql_begin_read, ver, e)))
		return rc;
	if (*ver == 0)
		return err_set(e, SQLIFT_EDB, "%s: empty database: nothing loaded "
		    "yet", s->path);
	return 0;
}

int
store_begin_read(struct store *s, struct err *e)
{
	int64_t ver = 0;
	int rc;

	if ((rc = begin_read_loaded(s, &ver, e)))
		return rc;
	return model_cache_load(s, e);
}

int
store_writable(struct store *s)
{
	const char *f = sqlite3_db_filename(s->db, "main");
	char dir[4096];
	const char *slash;
	size_t n;

	if (sqlite3_db_readonly(s->db, "main") != 0)
		return 0;
	if (!f || !*f)
		return 1;  /* in memory */
	/* the journal is created beside the file */
	if (!(slash = strrchr(f, '/')))
		return access(f, W_OK) == 0 && access(".", W_OK) == 0;
	n = slash == f ? 1 : (size_t)(slash - f);
	if (n >= sizeof dir)
		return 0;
	memcpy(dir, f, n);
	dir[n] = 0;
	return access(f, W_OK) == 0 && access(dir, W_OK) == 0;
}

int
store_begin_shadow(struct store *s, struct err *e)
{
	int64_t ver = 0;
	int rc;

	if ((rc = begin_read_loaded(s, &ver, e)))
		return rc;
	if (ver < STORE_SCHEMA_VERSION && store_writable(s)) {
		/* an older schema, migrated in a transaction rolled back */
		store_rollback(s);
		rc = store_begin(s, e);
	} else
		rc = model_cache_load(s, e);
	if (rc || (rc = db_exec(s, sql_cubes_shadow, e)))
		return rc;
	s->shadow = 1;
	return 0;
}

int
store_commit(struct store *s, struct err *e)
{
	if (sqlite3_exec(s->db, sql_commit, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(s, e, "commit");
	s->in_tx = 0;
	s->committed = 1;
	return 0;
}

void
store_rollback(struct store *s)
{
	if (s->in_tx)
		sqlite3_exec(s->db, sql_rollback, NULL, NULL, NULL);
	s->in_tx = 0;
	s->shadow = 0;
	model_cache_free(s);
}

int
store_is_new(const struct store *s)
{
	return s->created && !s->committed;
}

char *
store_now(struct store *s)
{
	sqlite3_stmt *st;
	char *r = NULL;

	if (sqlite3_prepare_v2(s->db, sql_now, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		r = db_text(st, 0);
	sqlite3_finalize(st);
	return r;
}
