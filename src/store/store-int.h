/* store-int.h: what the files of the store module share and nothing
 * outside it sees: the connection with its caches and prepared statements,
 * and the helpers every file uses to run SQL.  The SQL text lives in
 * sql/ *.sql and is compiled in as sql_<name> (store/sql.inc). */
#ifndef SQLIFT_STORE_INT_H
#define SQLIFT_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"

/* The two statements on a predicate's ev_ table. */
struct pred_stmt {
	sqlite3_stmt *ins;     /* INSERT OR IGNORE of one atom */
	sqlite3_stmt *get;     /* truth of one atom */
};

struct store {
	sqlite3 *db;
	char *path;
	int created;           /* we created the file */
	int committed;         /* something was committed to it */
	int in_tx;
	int shadow;            /* cubes and blocks go to temp tables */
	int shadow_made;       /* those temp tables exist (hiding main's) */
	int busy_ms;           /* how long to wait for another's lock */
	/* The catalogue, loaded at the start of each transaction by
	 * model_cache_load() and freed by model_cache_free(): valid while
	 * cache_ok; its constants and domains (consts, dom_set) only once
	 * store_consts_load() has set consts_ok.  pstmt.v[i] belongs to preds.v[i]. */
	int cache_ok;
	VEC(struct store_pred) preds;
	VEC(struct pred_stmt) pstmt;
	struct smap predmap;
	VEC(int64_t) type_ids;
	VEC(char *) type_names;
	int consts_ok;         /* consts, dom_set loaded */
	/* evidence.c: constants' names by id (one block, names_by_id), kept
	 * for the rest of a snapshot or shadow transaction, which adds none */
	char **names;
	int64_t nnames;
	int names_ok;
	/* evidence.c: the cubes key's share of the domains rows, summed by
	 * store_domains's scan in a snapshot or shadow transaction (which
	 * writes no domains row), for the fingerprint's key_catalogue */
	uint64_t dom_key[2];
	int dom_key_ok;
	struct smap consts;    /* name -> const_id */
	VEC(struct idset) dom_set; /* per type index: its constants' ids */
	int64_t max_constants, max_domain;  /* limits of a load */
	sqlite3_stmt *const_put, *domain_put;
	/* runs.c: prepared once per transaction, as runs add many rows */
	sqlite3_stmt *marginal_put, *trace_put, *map_atom_put;
	/* evidence.c: atoms waiting to be inserted in key order; records of
	 * pend_size bytes, which depends on the catalogue's largest arity */
	unsigned char *pend;
	size_t npend, pend_size;
	int max_arity;
	/* replace.c: set between store_replace_begin and _end */
	struct replace *rep;
	/* cubes.c: hypercube queries on one predicate and truth */
	struct {
		int pred, truth;
		sqlite3_stmt *root[64], *distinct[64], *group[64];
		sqlite3_stmt *count, *side_put, *side_clear, *rows;
		sqlite3_stmt *count_all, *rows_all, *put;
		struct buf json;       /* the sides of the cube being put */
	} cube;
};

/* db.c.  Each returns 0 or a status set in e. */
/* The status for the last SQLite error, "what" naming the operation. */
int db_err(struct store *s, struct err *e, const char *what) WUR;
int db_prep(struct store *s, const char *sql, sqlite3_stmt **st,
    struct err *e) WUR;
int db_exec(struct store *s, const char *sql, struct err *e) WUR;
/* Runs a query returning one integer. */
int db_int(struct store *s, const char *sql, int64_t *out, struct err *e) WUR;
/* Column i as a new string, NULL for NULL or out of memory. */
char *db_text(sqlite3_stmt *st, int i);
/* Appends v as a quoted SQL string literal. */
void db_literal(struct buf *b, const char *v);

/* model.c: the catalogue (predicates, types, constants, domains). */
int model_cache_load(struct store *s, struct err *e) WUR;
/* Prepares the insert and lookup of preds.v[i]'s ev_ table (pstmt.v[i])
 * if not yet done in this transaction. */
int model_pred_stmts(struct store *s, size_t i, struct err *e) WUR;
/* Frees the catalogue and everything prepared in the transaction. */
void model_cache_free(struct store *s);
/* Index of type id in type_ids, -1 if unknown. */
int model_type_index(const struct store *s, int64_t id);

/* evidence.c */
/* A buffered atom; its arguments (const ids) follow the header. */
struct pend_atom {
	int pred, truth, line;
	const char *file;
	int64_t args[];
};
/* Marks constant cid in type t's domain: 1 when new, 0 when it was,
 * -1 out of memory, -2 for an id no constant has (outside 0..INT32_MAX). */
int evidence_dom_mark(struct store *s, int t, int64_t cid);
/* Finds or creates constant name and, for t >= 0, makes it a member of
 * type index t. */
int evidence_const_add(struct store *s, int t, const char *name, size_t len,
    int64_t *id, struct err *e) WUR;
/* Inserts the buffered atoms (in key order); a contradiction among them
 * or with the stored evidence is an error. */
int evidence_flush(struct store *s, struct err *e) WUR;
/* Drops the buffered atoms (and a replacement under way). */
void evidence_free(struct store *s);

/* replace.c, while s->rep is set: an atom of the new evidence (after
 * repeats within a chunk are dropped): 0, -1 when the new files gave it
 * the other truth before, or an error status; a file read. */
int replace_atom(struct store *s, const struct pend_atom *a,
    struct err *e) WUR;
int replace_file(struct store *s, const char *path, int64_t atoms,
    struct err *e) WUR;
void replace_free(struct store *s);
/* views.c */
/* Registers sqlift_args(predicate, atom) on the connection (the JSON
 * array of the atom's constants that fills run_marginals.args); -1 on
 * failure. */
int views_register(struct store *s) WUR;
/* Makes the views marginals_<predicate> of the catalogue's predicates
 * what they should be (creates, replaces, drops the stale ones); leaves
 * alone what is as it should be and objects it did not make. */
int views_sync(struct store *s, struct err *e) WUR;

/* runs.c: finalizes the statements prepared once per transaction. */
void runs_free(struct store *s);

#endif
