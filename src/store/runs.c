/* runs.c: inference runs and their results: the runs row, marginals,
 * groups, the convergence trace, and the summary of `sqlift info`.
 * Statements come from sql/runs.sql. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

void
runs_free(struct store *s)
{
	sqlite3_finalize(s->marginal_put);
	sqlite3_finalize(s->map_atom_put);
	sqlite3_finalize(s->trace_put);
	s->marginal_put = s->trace_put = s->map_atom_put = NULL;
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

/* A REAL column that NULL leaves NaN. */
static double
col_real(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, i);
}

int
store_run_add(struct store *s, const struct store_run *r, int64_t *id,
    struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prep(s, sql_run_put, &st, e)))
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
	if (r->unknown_atoms >= 0)
		sqlite3_bind_int64(st, 10, r->unknown_atoms);
	if (r->query_atoms >= 0)
		sqlite3_bind_int64(st, 11, r->query_atoms);
	sqlite3_bind_text(st, 12, r->started_at, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 13, r->seconds);
	sqlite3_bind_text(st, 14, PACKAGE_VERSION, -1, SQLITE_STATIC);
	if (r->stats)
		sqlite3_bind_text(st, 15, r->stats, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 15);
	/* 10, 11 and 16-21 stay NULL (unbound) unless set; 16-19 are set
	 * when the method sampled */
	if (r->samples > 0) {
		bind_real(st, 16, r->log_z_stderr);
		sqlite3_bind_int64(st, 17, r->samples);
		bind_real(st, 18, r->ess);
		if (r->proposal)
			sqlite3_bind_text(st, 19, r->proposal, -1, SQLITE_STATIC);
	}
	if (r->error)
		sqlite3_bind_text(st, 20, r->error, -1, SQLITE_STATIC);
	if (r->warnings && *r->warnings)
		sqlite3_bind_text(st, 21, r->warnings, -1, SQLITE_STATIC);
	if (r->method && !strcmp(r->method, "map") && !isnan(r->map_log_weight)) {
		bind_real(st, 22, r->map_log_weight);
		bind_real(st, 23, r->map_bound);
		sqlite3_bind_int(st, 24, r->map_optimal);
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, e, "runs");
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
	    (rc = db_prep(s, sql_marginal_put, &s->marginal_put, e)))
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
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "run_marginals");
}

int
store_map_atom_add(struct store *s, int64_t run, const char *pred,
    const char *atom, int truth, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	/* prepared once per transaction, as marginals: a world has many */
	if (!s->map_atom_put &&
	    (rc = db_prep(s, sql_map_atom_put, &s->map_atom_put, e)))
		return rc;
	st = s->map_atom_put;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, pred, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, atom, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, truth != 0);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "map_atoms");
}

int
store_group_add(struct store *s, int64_t run, int64_t group, const char *pred,
    double atoms, double p, double stderr_p, double rhat, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prep(s, sql_group_put, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, group);
	sqlite3_bind_text(st, 3, pred, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, atoms);
	sqlite3_bind_double(st, 5, p);
	bind_real(st, 6, stderr_p);
	bind_real(st, 7, rhat);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "run_groups");
}

int
store_trace_add(struct store *s, int64_t run, int64_t samples, double log_z,
    double log_z_stderr, double ess, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	/* prepared once per transaction, as marginal_put */
	if (!s->trace_put && (rc = db_prep(s, sql_trace_put, &s->trace_put, e)))
		return rc;
	st = s->trace_put;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, samples);
	bind_real(st, 3, log_z);
	bind_real(st, 4, log_z_stderr);
	bind_real(st, 5, ess);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "run_trace");
}

int
store_trace_chain_add(struct store *s, int64_t run, int chain, int64_t sweeps,
    double seconds, double estimate, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prep(s, sql_trace_chain_put, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, chain);
	sqlite3_bind_int64(st, 3, sweeps);
	bind_real(st, 4, seconds);
	bind_real(st, 5, estimate);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "run_trace");
}

int
store_run_method(struct store *s, int64_t run, char **method, struct err *e)
{
	sqlite3_stmt *st;
	int rc;

	*method = NULL;
	if ((rc = db_prep(s, sql_run_method, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !(*method = db_text(st, 0))) {
		sqlite3_finalize(st);
		return err_oom(e);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, e, "runs");
	return 0;
}

int
store_trace_each(struct store *s, int64_t run, store_trace_fn fn, void *ctx,
    struct err *e)
{
	sqlite3_stmt *st;
	int64_t ver = 0;
	int rc;

	if ((rc = db_int(s, sql_user_version, &ver, e)))
		return rc;
	if (ver < 4)
		return 0;  /* no run_trace before version 4 */
	if ((rc = db_prep(s, sql_trace_all, &st, e)))
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
	return rc == SQLITE_DONE ? 0 : db_err(s, e, "run_trace");
}

int
store_info(struct store *s, FILE *out, struct err *e)
{
	sqlite3_stmt *st;
	char *text, *path, *fp;
	int64_t ver = 0;
	int rc;

	if ((rc = store_model_get(s, &text, &path, &fp, e)))
		return rc;
	if ((rc = db_int(s, sql_user_version, &ver, e)))
		return rc;
	fprintf(out, "database: %s (schema %lld)\n", s->path, (long long)ver);
	if (text)
		fprintf(out, "model: %s (fingerprint %s)\n", path, fp);
	else
		fprintf(out, "model: none\n");
	free(text), free(path), free(fp);
	if ((rc = db_prep(s, sql_info_counts, &st, e)))
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
		if (b.oom || (rc = db_prep(s, b.s, &st, e))) {
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
	/* runs.warnings from version 6 on */
	if ((rc = db_prep(s, ver >= 6 ? sql_info_runs_warned : sql_info_runs,
	    &st, e)))
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int nw = ver >= 6 ? sqlite3_column_int(st, 5) : 0;
		fprintf(out, "run %lld: %s %s", (long long)sqlite3_column_int64(st, 0),
		    sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			fprintf(out, " log Z = %.10g", sqlite3_column_double(st, 3));
		fprintf(out, " at %s", sqlite3_column_text(st, 4));
		if (nw > 0)
			fprintf(out, ", %d warning%s (runs.warnings)", nw,
			    nw == 1 ? "" : "s");
		fputc('\n', out);
	}
	sqlite3_finalize(st);
	return 0;
}
