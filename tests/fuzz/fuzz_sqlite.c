/* fuzz_sqlite.c: libFuzzer harness for a crafted database opened as a
 * sqlift database.  An input that starts with SQLite's header is the file
 * itself; any other input is SQL run on a copy of a sqlift database that
 * holds fuzz_model, evidence and a run (the way to a hostile schema or
 * content: wrong types, missing rows, huge values, quoted names).  Then
 * sqlift opens it and reads it: info, and explain (model, domains,
 * evidence, cubes and blocks, the theory), which writes nothing.  An
 * infer would add the writing of results at twice the cost per input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sqlift.h"
#include "fuzz.h"

/* Smokes("Mr X") is hard: Smokes is open, as a query */
#define QUERIES "Smokes, Friends(Anna, y), Trip"

static char *tmpl;
static size_t tmpl_len;

/* The SQL of an input may do anything to its own file, nothing else:
 * no ATTACH (nor VACUUM INTO, which attaches), no page limit changes. */
static int
authorize(void *arg, int action, const char *a, const char *b,
    const char *c, const char *d)
{
	(void)arg, (void)b, (void)c, (void)d;
	if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
		return SQLITE_DENY;
	if (action == SQLITE_PRAGMA && a && (!sqlite3_stricmp(a, "max_page_count")
	    || !sqlite3_stricmp(a, "journal_mode")))
		return SQLITE_DENY;
	return SQLITE_OK;
}

static int
progress(void *arg)
{
	return ++*(int *)arg > 200;  /* about 200,000 VM steps */
}

static void
template_make(void)
{
	struct store *s = fuzz_store();  /* model and evidence, committed */
	const char *path = fuzz_path("template.sqlite");
	sqlift_infer_opts *o = sqlift_infer_opts_new();
	sqlift *db;
	int64_t run;
	FILE *f;
	long n;

	store_close(s);
	rename(fuzz_path("fuzz.sqlite"), path);
	if (!o || sqlift_infer_opts_set(o, "method", "exact") ||
	    sqlift_infer_opts_set(o, "queries", QUERIES) ||
	    sqlift_open(path, 0, &db) || sqlift_infer(db, o, &run)) {
		fprintf(stderr, "fuzz_sqlite: template: %s\n",
		    o ? sqlift_errmsg(db) : "out of memory");
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

/* Runs the input's SQL on a copy of the template at path. */
static void
craft(const char *path, const uint8_t *data, size_t size)
{
	sqlite3 *db;
	char *sql;
	int steps = 0;

	fuzz_file("db.sqlite", tmpl, tmpl_len);  /* path, again */
	if (!(sql = malloc(size + 1)))
		return;
	memcpy(sql, data, size);
	sql[size] = '\0';
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) ==
	    SQLITE_OK) {
		sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
		sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
		sqlite3_set_authorizer(db, authorize, NULL);
		sqlite3_progress_handler(db, 1000, progress, &steps);
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	sqlite3_close(db);
	free(sql);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sqlift_infer_opts *o;
	static FILE *null;
	const char *path;
	sqlift *db;

	if (!tmpl) {
		template_make();
		if (!(null = fopen("/dev/null", "w")) ||
		    !(o = sqlift_infer_opts_new()) ||
		    sqlift_infer_opts_set(o, "method", "exact") ||
		    sqlift_infer_opts_set(o, "queries", QUERIES))
			abort();
	}
	/* nothing of the last input's database: no hot journal, no WAL */
	unlink(fuzz_path("db.sqlite-journal"));
	unlink(fuzz_path("db.sqlite-wal"));
	unlink(fuzz_path("db.sqlite-shm"));
	if (size >= 16 && !memcmp(data, "SQLite format 3", 16))
		path = fuzz_file("db.sqlite", data, size);
	else {
		path = fuzz_path("db.sqlite");
		craft(path, data, size);
	}
	if (sqlift_open(path, 0, &db) == 0) {
		if (sqlift_info(db, null) && !*sqlift_errmsg(db))
			abort();  /* a failure says why */
		if (sqlift_explain(db, o, 0, null) && !*sqlift_errmsg(db))
			abort();
	}
	sqlift_close(db);
	return 0;
}
