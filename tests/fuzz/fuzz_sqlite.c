/* fuzz_sqlite.c: libFuzzer harness for a crafted database opened as a
 * sqlift database.  An input that starts with SQLite's header is the file
 * itself; any other input is SQL run on an in-memory copy of a sqlift
 * database that holds fuzz_model, evidence and a run (the way to a hostile
 * schema or content: wrong types, missing rows, huge values, quoted
 * names).  sqlift then opens the file and runs info, explain, an exact
 * infer and cubes on it, with node and memory limits.  An input that
 * leaves the template as it was is not read again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sqlift.h"
#include "fuzz.h"

/* Smokes("Mr X") is hard: Smokes is open, as a query.  Not Trip: infer
 * visits every ground atom of a queried predicate to find those the
 * query names, and a seed grows the cities to 2,002 (12 million atoms
 * of Trip, most of the harness's time). */
#define QUERIES "Smokes, Friends(Anna, y)"
/* The template's exact run takes 42 nodes: room for a damaged theory to
 * search some more, none for one that does not lift to search for long. */
#define MAX_NODES "2000"
#define MAX_MEMORY "64M"
/* What the SQL may grow the database to. */
#define MAX_BYTES (16 << 20)

static unsigned char *tmpl;  /* the template file, as sqlift left it */
static size_t tmpl_len;

/* The connection that runs each input's SQL on the template in memory.
 * It is kept while an input changes neither the database nor the
 * connection (a PRAGMA setting, a temporary table), as most do not. */
static sqlite3 *sdb;
static int sdb_dirty;
static int steps;

/* The SQL of an input may do anything to its own database, nothing else:
 * no ATTACH (nor VACUUM INTO, which attaches), no page limit changes. */
static int
authorize(void *arg, int action, const char *a, const char *b,
    const char *c, const char *d)
{
	(void)arg, (void)c, (void)d;
	if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
		return SQLITE_DENY;
	if (action == SQLITE_PRAGMA && a && (!sqlite3_stricmp(a, "max_page_count")
	    || !sqlite3_stricmp(a, "journal_mode")))
		return SQLITE_DENY;
	if ((action == SQLITE_PRAGMA && b) || action == SQLITE_CREATE_TEMP_INDEX ||
	    action == SQLITE_CREATE_TEMP_TABLE ||
	    action == SQLITE_CREATE_TEMP_TRIGGER ||
	    action == SQLITE_CREATE_TEMP_VIEW)
		sdb_dirty = 1;
	return SQLITE_OK;
}

static int
progress(void *arg)
{
	return ++*(int *)arg > 200;  /* about 200,000 VM steps */
}

static sqlift_infer_opts *
opts_make(int limits)
{
	sqlift_infer_opts *o = sqlift_infer_opts_new();

	if (!o || sqlift_infer_opts_set(o, "method", "exact") ||
	    sqlift_infer_opts_set(o, "queries", QUERIES) || (limits &&
	    (sqlift_infer_opts_set(o, "max_nodes", MAX_NODES) ||
	    sqlift_infer_opts_set(o, "max_memory", MAX_MEMORY))))
		abort();
	return o;
}

static void
template_make(void)
{
	struct store *s = fuzz_store();  /* model and evidence, committed */
	const char *path = fuzz_path("template.sqlite");
	sqlift_infer_opts *o = opts_make(0);
	sqlift *db;
	int64_t run;
	FILE *f;
	long n;

	store_close(s);
	rename(fuzz_path("fuzz.sqlite"), path);
	if (sqlift_open(path, 0, &db) || sqlift_infer(db, o, &run)) {
		fprintf(stderr, "fuzz_sqlite: template: %s\n", sqlift_errmsg(db));
		abort();
	}
	sqlift_close(db);
	sqlift_infer_opts_free(o);
	if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) ||
	    (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(tmpl = malloc((size_t)n)) ||
	    fread(tmpl, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		abort();
	}
	fclose(f);
	tmpl_len = (size_t)n;
}

/* A fresh connection to a copy of the template in memory. */
static void
sdb_open(void)
{
	sqlite3_int64 max = MAX_BYTES;
	unsigned char *p;

	sqlite3_close(sdb);
	if (!(p = sqlite3_malloc64(tmpl_len)))
		abort();
	/* an in-memory database cannot be in WAL mode: rollback until
	 * written back (the SQL cannot change the journal mode) */
	memcpy(p, tmpl, tmpl_len);
	p[18] = p[19] = 1;
	if (sqlite3_open_v2(":memory:", &sdb, SQLITE_OPEN_READWRITE, NULL) ||
	    sqlite3_deserialize(sdb, "main", p, (sqlite3_int64)tmpl_len,
	    (sqlite3_int64)tmpl_len, SQLITE_DESERIALIZE_FREEONCLOSE |
	    SQLITE_DESERIALIZE_RESIZEABLE))
		abort();
	sqlite3_file_control(sdb, "main", SQLITE_FCNTL_SIZE_LIMIT, &max);
	sqlite3_limit(sdb, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(sdb, SQLITE_LIMIT_LENGTH, 100000);
	sqlite3_set_authorizer(sdb, authorize, NULL);
	sqlite3_progress_handler(sdb, 1000, progress, &steps);
	sdb_dirty = 0;
}

/* Runs the input's SQL on the template in memory; writes the result to
 * the file db.sqlite and returns 1, or returns 0 if the database is byte
 * for byte the template (the SQL failed or changed nothing), whose
 * reading the first input covered. */
static int
craft(const uint8_t *data, size_t size)
{
	unsigned char *p, *sql;
	sqlite3_int64 n = 0;
	int changed = 1;

	if (!(sql = malloc(size + 1)))
		abort();
	memcpy(sql, data, size);
	sql[size] = '\0';
	steps = 0;
	sqlite3_exec(sdb, (const char *)sql, NULL, NULL, NULL);
	free(sql);
	if (!sqlite3_get_autocommit(sdb))  /* a BEGIN left open */
		sqlite3_exec(sdb, "ROLLBACK", NULL, NULL, NULL);
	p = sqlite3_serialize(sdb, "main", &n, SQLITE_SERIALIZE_NOCOPY);
	if (p && n > 24) {
		changed = (size_t)n != tmpl_len || memcmp(p, tmpl, 18) ||
		    memcmp(p + 20, tmpl + 20, tmpl_len - 20);
		if (changed) {
			p[18] = tmpl[18], p[19] = tmpl[19];
			fuzz_file("db.sqlite", p, (size_t)n);
		}
	}
	if (changed || sdb_dirty || !p)
		sdb_open();
	return changed && p;
}

/* What sqlift does with a database: each failure must say why.  Infer
 * and cubes read what explain reads (model, domains, evidence; infer the
 * cubes and blocks too) and then compute and write: they run where explain
 * succeeded, and on one input in eight (by its bytes) where it failed, for
 * the failing path (a failed runs row).  Most crafted databases fail
 * explain (94% of those changed); the two writers cost twice what open,
 * info and explain do. */
static void
use(const char *path, const sqlift_infer_opts *o, FILE *null, int all)
{
	sqlift *db;
	int64_t run;

	if (sqlift_open(path, 0, &db) == 0) {
		if (sqlift_info(db, null) && !*sqlift_errmsg(db))
			abort();
		if (sqlift_explain(db, o, 0, null)) {
			if (!*sqlift_errmsg(db))
				abort();
		} else
			all = 1;
		if (all && sqlift_infer(db, o, &run) && !*sqlift_errmsg(db))
			abort();
		if (all && sqlift_cubes(db, null) && !*sqlift_errmsg(db))
			abort();
	}
	sqlift_close(db);
}

/* FNV-1a of the input: which inputs run the writers whatever happens. */
static uint32_t
hash(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;

	while (size--)
		h = (h ^ *data++) * 16777619u;
	return h;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sqlift_infer_opts *o;
	static FILE *null;
	const char *path = fuzz_path("db.sqlite");

	if (!tmpl) {
		template_make();
		if (!(null = fopen("/dev/null", "w")))
			abort();
		o = opts_make(1);
		/* the template itself, once: what an unchanged input reads */
		fuzz_file("db.sqlite", tmpl, tmpl_len);
		use(path, o, null, 1);
		sdb_open();
	}
	if (size >= 16 && !memcmp(data, "SQLite format 3", 16))
		fuzz_file("db.sqlite", data, size);
	else if (!craft(data, size))
		return 0;
	/* nothing of the last input's database: no hot journal, no WAL */
	unlink(fuzz_path("db.sqlite-journal"));
	unlink(fuzz_path("db.sqlite-wal"));
	unlink(fuzz_path("db.sqlite-shm"));
	path = fuzz_path("db.sqlite");
	use(path, o, null, hash(data, size) % 8 == 0);
	return 0;
}
