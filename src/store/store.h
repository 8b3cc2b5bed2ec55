/* store.h: the one module that talks SQL.  It opens and migrates the
 * database, stores the model, appends evidence through prepared statements
 * with in-memory caches of predicates and constants, reads domains and
 * evidence back for inference, and records runs and their results. */
#ifndef SQLIFT_STORE_H
#define SQLIFT_STORE_H

#include <stdint.h>
#include <stdio.h>

#include "mln/mln.h"
#include "util/util.h"

#define STORE_SCHEMA_VERSION 10

struct store;

/* Opens path (creating it when create is set).  Caller frees with
 * store_close(), which also removes a file it created if nothing was
 * committed.  Fails with SQLIFT_EDB for a locked database, a file that is
 * not a sqlift database, or a schema newer than this program. */
int store_open(const char *path, int create, struct store **out,
    struct err *e) WUR;
void store_close(struct store *s);
const char *store_path(const struct store *s);

/* A write transaction: BEGIN IMMEDIATE takes the write lock at once,
 * waiting for another writer up to the busy timeout (60 s, or
 * SQLIFT_BUSY_TIMEOUT seconds), then fails with "database is locked".
 * The first one on a writable database puts it in WAL mode. */
int store_begin(struct store *s, struct err *e) WUR;
int store_commit(struct store *s, struct err *e) WUR;
void store_rollback(struct store *s);

/* The stored model text, path and fingerprint; NULLs when there is none.
 * Caller frees the strings. */
int store_model_get(struct store *s, char **text, char **path, char **fp,
    struct err *e) WUR;
/* Stores model m (parsed from text) replacing any stored one.  Evidence of
 * predicates kept with the same name and argument types stays; the rest
 * is dropped. */
int store_model_put(struct store *s, const struct mln_model *m,
    const char *text, const char *path, const char *fp, struct err *e) WUR;

/* Predicates as stored. */
struct store_pred {
	int64_t id;
	char *name;
	int arity;
	int closed;
	int64_t *types;        /* arity type ids */
	char *table;           /* its evidence table, ev_<id>, quoted if need be */
};
int store_npreds(const struct store *s);
const struct store_pred *store_pred_at(const struct store *s, int i);
/* Index of a predicate by name, -1 if unknown. */
int store_pred_find(const struct store *s, const char *name, size_t len);
const char *store_type_name(const struct store *s, int64_t type_id);

/* Appends one evidence atom read at file:line (file borrowed until the
 * next store_evfile_add()): pred is an index from store_pred_find(), args
 * the constant names.  Atoms are buffered and inserted in sorted chunks,
 * so a contradiction (the same atom true and false, here or with stored
 * evidence) may be reported by a later call: SQLIFT_EINPUT, with the
 * file and line of the second of the two. */
int store_atom_add(struct store *s, int pred, const char *const *args,
    const size_t *lens, int truth, const char *file, int line,
    struct err *e) WUR;
/* Limits for what follows (0: none): constants in the database, members
 * of one type's domain; passing one is SQLIFT_ELIMIT at the atom's
 * file:line. */
void store_set_limits(struct store *s, int64_t max_constants,
    int64_t max_domain);
/* Inserts what is buffered and records the file as loaded. */
int store_evfile_add(struct store *s, const char *path, int64_t atoms,
    struct err *e) WUR;

/* Replacing the evidence: between store_replace_begin() and
 * store_replace_end(), store_atom_add() and store_evfile_add() collect
 * the new evidence (a contradiction is checked among the new atoms only);
 * the end deletes the stored atoms the new files did not name, drops
 * from the domains the constants that neither the evidence nor model m
 * names, and rewrites evidence_files if its list changed.  Identical
 * files write nothing. */
struct store_replaced {
	int64_t added, flipped, removed;
	int changed;           /* evidence, domains or constants changed */
	int files_changed;     /* evidence_files was rewritten */
};
int store_replace_begin(struct store *s, struct err *e) WUR;
int store_replace_end(struct store *s, const struct mln_model *m,
    struct store_replaced *out, struct err *e) WUR;

/* Domains for inference: for each type of model m, its constants. */
/* Fills dom[t] for every type t of m, and adds the model's declared and
 * formula constants.  Caller frees with store_domains_free(). */
int store_domains(struct store *s, const struct mln_model *m,
    struct mln_domain **dom, struct err *e) WUR;
void store_domains_free(struct mln_domain *dom, int n);

/* Calls fn for every evidence atom of predicate pred (store index), with
 * constant ids; stops at the first non-zero return and returns it. */
typedef int (*store_atom_fn)(void *ctx, const int64_t *args, int truth);
int store_atoms_each(struct store *s, int pred, store_atom_fn fn, void *ctx,
    struct err *e) WUR;
/* A fingerprint of all evidence (order-independent), by the constants'
 * names; and, unless key is NULL, the cubes key: a hash of everything
 * cube_build_all reads (the catalogue, the domains and the evidence, by
 * ids), which tells whether stored cubes are current. */
int store_evidence_fingerprint(struct store *s, char out[17], char key[33],
    struct err *e) WUR;

struct store_run {
	const char *method, *status, *parameters, *queries, *job_file;
	const char *model_fp, *evidence_fp, *started_at;
	const char *error;     /* a failed run's message, or NULL */
	const char *warnings;  /* one warning a line, or NULL for none */
	double log_z;          /* NaN stores NULL */
	uint64_t seed;
	int64_t unknown_atoms, query_atoms;  /* negative stores NULL */
	double seconds;
	const char *stats;     /* JSON object, or NULL */
	/* sampling methods (lis, ground-lis); samples == 0 stores NULL in
	 * all four columns */
	int64_t samples;
	double log_z_stderr, ess;
	const char *proposal;
	/* --method map: the world's log weight and the best upper bound
	 * (NaN stores NULL in the three), optimal 1 when proven */
	double map_log_weight, map_bound;
	int map_optimal;
};
int store_run_add(struct store *s, const struct store_run *r, int64_t *id,
    struct err *e) WUR;
/* group: the run's group of the atom, or -1 */
int store_marginal_add(struct store *s, int64_t run, const char *pred,
    const char *atom, double p, int64_t group, struct err *e) WUR;
/* One atom of a MAP run's world (map_atoms). */
int store_map_atom_add(struct store *s, int64_t run, const char *pred,
    const char *atom, int truth, struct err *e) WUR;
/* stderr, rhat: NaN stores NULL (exact methods; rhat: one chain) */
int store_group_add(struct store *s, int64_t run, int64_t group,
    const char *pred, double atoms, double p, double stderr_p, double rhat,
    struct err *e) WUR;
/* One point of a sampling run's convergence trace: the estimate after
 * the first `samples` samples. */
int store_trace_add(struct store *s, int64_t run, int64_t samples,
    double log_z, double log_z_stderr, double ess, struct err *e) WUR;
/* One point of chain `chain`'s trace: after `sweeps` sweeps, `seconds`
 * in, its running estimate of the first query group's marginal. */
int store_trace_chain_add(struct store *s, int64_t run, int chain,
    int64_t sweeps, double seconds, double estimate, struct err *e) WUR;
/* The method of run `run` in *method (caller frees), or NULL when there
 * is no such run. */
int store_run_method(struct store *s, int64_t run, char **method,
    struct err *e) WUR;
/* Calls fn for each point of the trace of run `run`, by samples, with NaN
 * for NULLs (none in a database older than version 4); stops at the first
 * non-zero return and returns it. */
typedef int (*store_trace_fn)(void *ctx, int64_t samples, double log_z,
    double log_z_stderr, double ess);
int store_trace_each(struct store *s, int64_t run, store_trace_fn fn,
    void *ctx, struct err *e) WUR;
/* 1 when this open created the file and nothing is committed yet. */
int store_is_new(const struct store *s);
/* Current UTC time as the database writes it; caller frees. */
char *store_now(struct store *s);

int store_info(struct store *s, FILE *out, struct err *e) WUR;

/* Hypercube queries (issue 3) on the evidence of one predicate with one
 * truth value, inside the current cube: its sides are set with
 * store_cube_side(); every query is restricted to them. */
struct store_ids {
	int64_t *v;
	size_t n, cap;
};
int store_cube_open(struct store *s, int pred, int truth, struct err *e) WUR;
void store_cube_close(struct store *s);
/* The distinct values of argument dim: over all the evidence of the
 * predicate and truth (root), or inside the current cube. */
int store_cube_distinct(struct store *s, int dim, int root,
    struct store_ids *out, struct err *e) WUR;
/* Replaces the current cube by sides[0..arity). */
int store_cube_sides(struct store *s, const struct store_ids *sides,
    struct err *e) WUR;
int store_cube_count(struct store *s, int64_t *n, struct err *e) WUR;
/* All atoms of the predicate and truth, ignoring the current cube. */
int store_cube_count_all(struct store *s, int64_t *n, struct err *e) WUR;
int store_cube_rows_all(struct store *s, struct store_ids *rows,
    struct err *e) WUR;
/* Values of argument dim inside the cube with their atom counts. */
int store_cube_groups(struct store *s, int dim, struct store_ids *vals,
    struct store_ids *counts, struct err *e) WUR;
/* The atoms inside the current cube, arity ids per atom, appended. */
int store_cube_rows(struct store *s, struct store_ids *rows,
    struct err *e) WUR;
/* Deletes all cubes and blocks (main's with their key; in a snapshot or
 * shadow transaction it first makes the temp tables that hide main's). */
int store_cubes_clear(struct store *s, struct err *e) WUR;
/* After a build into main: records the cubes key of what it was built
 * from (meta 'cubes_key'); nothing in a snapshot or shadow transaction. */
int store_cubes_stamp(struct store *s, struct err *e) WUR;
/* *yes = 1 when main's cubes and blocks are visible and were built from
 * exactly the inputs whose cubes key is key (store_evidence_fingerprint):
 * then they are what cube_build_all would build, and may be read as
 * they are. */
int store_cubes_current(struct store *s, const char *key, int *yes,
    struct err *e) WUR;
/* The setineq constraints of a cube: pairs of argument indices whose
 * constants are equal (eq) or differ (ne). */
struct store_cons {
	int neq, nne;
	int (*eq)[2], (*ne)[2];
};
/* Stores a cube (truth 1, 0, or -1 for unknown) with its sides and its
 * constraints (cons may be NULL: none); bit j of negated: side j lists
 * the constants left out. */
int store_cube_put(struct store *s, int pred, int truth, int64_t atoms,
    const struct store_ids *sides, uint64_t negated,
    const struct store_cons *cons, struct err *e) WUR;
/* The rank of every constant's name, 0 up to *n - 1: idmap_get(rank, id),
 * -1 for no constant; caller frees with idmap_free. */
int store_const_ranks(struct store *s, struct idmap *rank, size_t *n,
    struct err *e) WUR;
/* The constant ids of the domain of stored type index t, appended. */
int store_domain_ids(struct store *s, int t, struct store_ids *out,
    struct err *e) WUR;
/* Types as stored: their number, and the index of a type id. */
int store_ntypes(const struct store *s);
int store_type_at(const struct store *s, int64_t type_id);
/* Loads the constants and domain membership into the transaction's
 * catalogue, once (loads and the cube builder need them, a run that
 * reads stored cubes does not). */
int store_consts_load(struct store *s, struct err *e) WUR;
/* 1 if constant cid is in the domain of type index t (store_type_at);
 * after store_consts_load. */
int store_in_domain(const struct store *s, int t, int64_t cid);
/* The evidence signature entries of every constant (store_sig_each) and
 * the pairs of constants of one type that share an atom
 * (store_pairs_each), for the domain blocks (evidence/coarse.c).  An
 * entry is the text of one atom holding the constant: "pred_id truth"
 * then each argument, the constant itself as "*", another constant of
 * its type as "@id", a constant of another type as its id.  fn gets the
 * type index, the constant id and the entry, in order of type id,
 * constant id and entry; a non-zero return stops. */
typedef int (*store_sig_fn)(void *ctx, int t, int64_t const_id,
    const char *entry, size_t len);
int store_sig_each(struct store *s, store_sig_fn fn, void *ctx,
    struct err *e) WUR;
typedef int (*store_pair_fn)(void *ctx, int t, int64_t a, int64_t b);
int store_pairs_each(struct store *s, store_pair_fn fn, void *ctx,
    struct err *e) WUR;
/* Prints the line of type index t, n constants in nblocks blocks, to
 * report (may be NULL). */
void store_blocks_report(const struct store *s, int t, size_t n,
    int nblocks, FILE *report);
/* Stores the blocks of type index t: constant ids[i] in block[i], the
 * blocks numbered from 0 up; prints a line to report (may be NULL). */
int store_blocks_put(struct store *s, int t, const int64_t *ids,
    const int *block, size_t n, FILE *report, struct err *e) WUR;
/* Calls fn for each known cube of predicate pred (store index), in cube
 * order, with its truth (1, 0), its sides and its constraints (argument
 * indices below arity); stops at a non-zero return.  Sides that are not
 * arity JSON arrays of integers: a corrupt database. */
typedef int (*store_cube_fn)(void *ctx, int truth, int arity,
    const struct store_ids *sides, const struct store_cons *cons);
int store_cubes_each(struct store *s, int pred, store_cube_fn fn, void *ctx,
    struct err *e) WUR;
/* fn gets const id and block of every constant of the type named type
 * that has a block (in no particular order; a constant it is not called
 * for has none). */
typedef int (*store_block_fn)(void *ctx, int64_t const_id, int block);
int store_blocks_each(struct store *s, const char *type, store_block_fn fn,
    void *ctx, struct err *e) WUR;
/* Rebuilds the cube_atoms view over all predicates. */
int store_cube_view(struct store *s, struct err *e) WUR;
/* Number of evidence atoms of predicate pred (store index). */
int store_pred_count(struct store *s, int pred, int64_t *n, struct err *e) WUR;
/* Starts a read transaction and loads the caches (for info). */
int store_begin_read(struct store *s, struct err *e) WUR;
/* Whether the file and its folder (where the journal goes) can be
 * written. */
int store_writable(struct store *s);
/* A read transaction in which cubes and blocks are built into temp tables
 * that shadow main's and go with the rollback: main is never written
 * (an older schema is migrated only inside the transaction). */
int store_begin_shadow(struct store *s, struct err *e) WUR;
/* The read transaction in which a run reads its inputs: a consistent
 * snapshot, with cubes and blocks built into temp tables as by
 * store_begin_shadow.  The run ends it with store_rollback, computes with
 * no lock held, and writes its results in a store_begin transaction.
 * Fails at once on a database that cannot be written (the run could not
 * be recorded) or that holds no model; migrates an older schema in a
 * write transaction of its own first. */
int store_begin_snapshot(struct store *s, struct err *e) WUR;

#endif
