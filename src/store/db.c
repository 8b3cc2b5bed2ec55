/* db.c: the connection: open and check the file, WAL and the busy
 * timeout, migrate the schema, transactions and the SQL helpers the other
 * store files use.  Statements come from sql/db.sql, the schema from
 * schemas/ (compiled in). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

#define APP_ID 1397836870
#define BUSY_DEFAULT_MS 60000  /* cron runs that overlap wait their turn */

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

/* The busy timeout: SQLIFT_BUSY_TIMEOUT seconds, else 60 s. */
static int
busy_ms(int *ms, struct err *e)
{
	const char *v = getenv("SQLIFT_BUSY_TIMEOUT");
	char *end;
	double sec;

	*ms = BUSY_DEFAULT_MS;
	if (!v)
		return 0;
	errno = 0;
	sec = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(sec) || sec < 0 ||
	    sec > 86400)
		return err_set(e, SQLIFT_EUSAGE, "SQLIFT_BUSY_TIMEOUT is '%s', "
		    "expected seconds from 0 to 86400", v);
	*ms = (int)(sec * 1000 + 0.5);
	return 0;
}

/* Can file f and its folder (where the journal or the WAL goes) be
 * written? */
static int
path_writable(const char *f)
{
	char dir[4096];
	const char *slash;
	size_t n;

	if (!(slash = strrchr(f, '/')))
		return access(f, W_OK) == 0 && access(".", W_OK) == 0;
	n = slash == f ? 1 : (size_t)(slash - f);
	if (n >= sizeof dir)
		return 0;
	memcpy(dir, f, n);
	dir[n] = 0;
	return access(f, W_OK) == 0 && access(dir, W_OK) == 0;
}

/* A WAL database that cannot be written and has no -wal file beside it:
 * SQLite would need to create its -wal and -shm files to read it, which
 * it cannot (read-only folder) or leaves behind (read-only file).  With
 * no -wal file the main file holds every commit, so it is read as
 * immutable. */
static int
wal_readonly(const char *path)
{
	unsigned char h[20];
	char wal[4096];
	FILE *f;
	int wal_mode;

	if (path_writable(path) || !(f = fopen(path, "rb")))
		return 0;
	wal_mode = fread(h, 1, sizeof h, f) == sizeof h &&
	    !memcmp(h, "SQLite format 3", 16) && h[18] == 2 && h[19] == 2;
	fclose(f);
	if (!wal_mode || snprintf(wal, sizeof wal, "%s-wal", path) >=
	    (int)sizeof wal)
		return 0;
	return access(wal, F_OK) != 0;
}

/* Opens path read-only and immutable, through a URI. */
static int
open_immutable(struct store *s, const char *path)
{
	struct buf u;
	int rc;

	buf_init(&u);
	buf_puts(&u, path[0] == '/' ? "file://" : "file:");
	for (const char *p = path; *p; p++)
		if (*p == '%' || *p == '?' || *p == '#')
			buf_printf(&u, "%%%02X", (unsigned char)*p);
		else
			buf_add(&u, p, 1);
	buf_puts(&u, "?immutable=1");
	if (u.oom) {
		buf_free(&u);
		return SQLITE_NOMEM;
	}
	rc = sqlite3_open_v2(u.s, &s->db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	buf_free(&u);
	return rc;
}

int
store_open(const char *path, int create, struct store **out, struct err *e)
{
	struct store *s;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	int64_t app = 0, ver = 0, tables = 0;
	int rc, ms, orc;

	*out = NULL;
	if (!(s = xcalloc(1, sizeof *s)) || !(s->path = xstrdup(path))) {
		free(s);
		return err_oom(e);
	}
	smap_init(&s->predmap);
	smap_init(&s->consts);
	*out = s;
	if ((rc = busy_ms(&ms, e)))
		return rc;
	if (create && access(path, F_OK) != 0) {
		flags |= SQLITE_OPEN_CREATE;
		s->created = 1;
	}
	if (!s->created && wal_readonly(path))
		orc = open_immutable(s, path);
	else
		orc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (orc != SQLITE_OK) {
		s->created = 0;
		return err_set(e, SQLIFT_EDB, "%s: cannot open database: %s", path,
		    s->db ? sqlite3_errmsg(s->db) : "out of memory");
	}
	if (views_register(s) < 0)
		return err_set(e, SQLIFT_EDB, "%s: %s", path, sqlite3_errmsg(s->db));
	sqlite3_busy_timeout(s->db, ms);
	s->busy_ms = ms;
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
	free(s->dom_set.v);
	sqlite3_close(s->db);
	if (s->created && !s->committed && *s->path) {
		/* a failed first load leaves no database behind ("": SQLite's
		 * private temporary database, which has no name to remove) */
		static const char *const side[] = { "-journal", "-wal", "-shm" };
		char j[4096];
		unlink(s->path);
		for (size_t i = 0; i < sizeof side / sizeof *side; i++)
			if (snprintf(j, sizeof j, "%s%s", s->path, side[i]) <
			    (int)sizeof j)
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

/* The journal mode of s's main database, lower case ("wal", "delete",
 * ...) into m; "" if it cannot be read.  sql: PRAGMA journal_mode, or
 * its assignment, which answers with the mode it leaves. */
static void
journal_mode(struct store *s, const char *sql, char m[16])
{
	sqlite3_stmt *st;

	m[0] = '\0';
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(m, 16, "%s", t ? (const char *)t : "");
	}
	sqlite3_finalize(st);
}

/* Puts a writable database in WAL mode, which the file keeps: readers
 * then never wait for a writer, nor a writer for readers.  A database
 * that other connections hold open in rollback mode stays so until a
 * later command finds it free; waiting for that is not worth a delay.
 * In WAL mode commits are not synced (sql_sync_normal: the checkpoint
 * syncs, which keeps the file safe from any crash); a rollback journal
 * keeps SQLite's FULL, the one setting safe for it. */
static void
wal_switch(struct store *s)
{
	char m[16];

	if (s->in_tx || !store_writable(s))
		return;
	journal_mode(s, sql_journal_mode, m);
	if (strcmp(m, "wal") != 0) {
		sqlite3_busy_timeout(s->db, 0);
		journal_mode(s, sql_journal_wal, m);
		sqlite3_busy_timeout(s->db, s->busy_ms);
	}
	if (!strcmp(m, "wal"))
		sqlite3_exec(s->db, sql_sync_normal, NULL, NULL, NULL);
}

int
store_begin(struct store *s, struct err *e)
{
	/* migrations[v] takes a database from version v to v + 1 */
	static const char *const migrations[] = {
		sql_schema, sql_migrate2, sql_migrate3, sql_migrate4,
		sql_migrate5, sql_migrate6, sql_migrate7, sql_migrate8,
		sql_migrate9, sql_migrate10
	};
	_Static_assert(sizeof migrations / sizeof *migrations ==
	    STORE_SCHEMA_VERSION, "one migration per schema version");
	int64_t ver = 0;
	int rc;

	wal_switch(s);
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
store_begin_snapshot(struct store *s, struct err *e)
{
	int64_t ver = 0;
	int rc;

	if (!store_writable(s))
		return err_set(e, SQLIFT_EDB, "%s: read-only: a run cannot be "
		    "recorded", s->path);
	if ((rc = tx_begin(s, sql_begin_read, &ver, e)))
		return rc;
	if (ver == 0)
		return err_set(e, SQLIFT_EUSAGE, "%s: no model loaded: run 'sqlift "
		    "load' first", s->path);
	if (ver < STORE_SCHEMA_VERSION) {
		/* an older schema: migrated in a short write of its own */
		store_rollback(s);
		if ((rc = store_begin(s, e)) || (rc = store_commit(s, e)))
			return rc;
		model_cache_free(s);
		if ((rc = tx_begin(s, sql_begin_read, &ver, e)))
			return rc;
	}
	if ((rc = model_cache_load(s, e)))
		return rc;
	s->shadow = 1;
	return 0;
}

int
store_writable(struct store *s)
{
	const char *f = sqlite3_db_filename(s->db, "main");

	if (sqlite3_db_readonly(s->db, "main") != 0)
		return 0;
	if (!f || !*f)
		return 1;  /* in memory */
	return path_writable(f);
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
	if (rc)
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
	s->shadow = s->shadow_made = 0;
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
