/* lib.c: the public sqlift_* functions: each command that writes is one
 * write transaction on the store, rolled back whole on any error.  A run
 * reads in a snapshot, computes with no lock held and writes its rows in
 * one short transaction at the end (a failed run leaves its runs row in a
 * transaction of its own). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/cube.h"
#include "evidence/evidence.h"
#include "infer/infer.h"
#include "infer/warn.h"
#include "job/job.h"
#include "mln/mln.h"
#include "sample/gibbs.h"
#include "sample/lis.h"
#include "store/store.h"

struct sqlift {
	struct store *s;
	struct err e;
	struct store_replaced replaced;  /* of the last load */
	int64_t limit[3];                /* SQLIFT_LIMIT_*; 0: the default */
	sqlift_log_fn *log;              /* notes of a load */
	void *log_arg;
};

/* Handed out when not even the handle can be allocated. */
static sqlift oom_handle = { NULL, { SQLIFT_ENOMEM, "out of memory" },
    { 0 }, { 0 }, NULL, NULL };

const char *
sqlift_version(void)
{
	return PACKAGE_VERSION;
}

int
sqlift_open(const char *path, int flags, sqlift **out)
{
	sqlift *db = xcalloc(1, sizeof *db);

	if (!db) {
		*out = &oom_handle;
		return SQLIFT_ENOMEM;
	}
	*out = db;
	return store_open(path, flags & SQLIFT_OPEN_CREATE, &db->s, &db->e);
}

void
sqlift_close(sqlift *db)
{
	if (!db || db == &oom_handle)
		return;
	store_close(db->s);
	free(db);
}

void
sqlift_set_log(sqlift *db, sqlift_log_fn *fn, void *arg)
{
	if (db == &oom_handle)
		return;
	db->log = fn;
	db->log_arg = arg;
}

const char *
sqlift_errmsg(const sqlift *db)
{
	return db->e.msg;
}

static char *
read_file(const char *path, size_t *len, struct err *e)
{
	FILE *f = fopen(path, "rb");
	struct buf b;
	char chunk[65536];
	size_t n;

	if (!f) {
		err_set(e, SQLIFT_EINPUT, "%s: cannot open model file", path);
		return NULL;
	}
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f)) {
		fclose(f);
		buf_free(&b);
		err_set(e, SQLIFT_EINPUT, "%s: read error", path);
		return NULL;
	}
	fclose(f);
	*len = b.len;
	if (b.oom) {
		buf_free(&b);
		err_oom(e);
		return NULL;
	}
	return buf_take(&b);
}

static const int64_t limit_default[3] = {
	MLN_MAX_CONSTANTS, MLN_MAX_DOMAIN, MLN_MAX_LINE
};

int64_t
sqlift_limit(sqlift *db, int which, int64_t value)
{
	int64_t old;

	if (which < 0 || which > SQLIFT_LIMIT_LINE || db == &oom_handle)
		return -1;
	old = db->limit[which] ? db->limit[which] : limit_default[which];
	if (value > 0)
		db->limit[which] = value;
	return old;
}

/* The evidence files into the store: appended, or replacing what is
 * stored (m: the model, whose constants keep their domains).  Sets
 * *stale when the cubes no longer match the evidence. */
static int
evidence_tx(sqlift *db, const struct mln_model *m, const char *const *ev,
    int nev, int flags, int64_t *n_atoms, int *stale)
{
	struct err *e = &db->e;
	struct evidence_opts o = { EVIDENCE_CSV_AUTO, 0, db->log, db->log_arg };
	int rc;

	if (flags & SQLIFT_LOAD_CSV_HEADER)
		o.csv_header = EVIDENCE_CSV_HEADER;
	else if (flags & SQLIFT_LOAD_CSV_NO_HEADER)
		o.csv_header = EVIDENCE_CSV_NO_HEADER;
	o.max_line = (size_t)sqlift_limit(db, SQLIFT_LIMIT_LINE, 0);
	if (!(flags & SQLIFT_LOAD_REPLACE_EVIDENCE)) {
		for (int i = 0; i < nev; i++)
			if ((rc = evidence_load(db->s, ev[i], &o, n_atoms, e)))
				return rc;
		*stale = nev > 0;
		return 0;
	}
	if (nev == 0)
		return err_set(e, SQLIFT_EUSAGE, "replacing the evidence needs at "
		    "least one evidence file or folder");
	if ((rc = store_replace_begin(db->s, e)))
		return rc;
	for (int i = 0; i < nev; i++)
		if ((rc = evidence_load(db->s, ev[i], &o, n_atoms, e)))
			return rc;
	if ((rc = store_replace_end(db->s, m, &db->replaced, e)))
		return rc;
	*stale = db->replaced.changed;
	return 0;
}

/* Load inside an open transaction. */
static int
load_tx(sqlift *db, const char *model_path, const char *const *ev, int nev,
    int flags, int64_t *n_atoms)
{
	struct err *e = &db->e;
	char *text = NULL, *old = NULL, *oldpath = NULL, *oldfp = NULL;
	struct mln_model *m = NULL;
	char fp[17];
	size_t len = 0;
	int rc = 0, newmodel = 0, stale = 0;

	*n_atoms = 0;
	memset(&db->replaced, 0, sizeof db->replaced);
	store_set_limits(db->s, sqlift_limit(db, SQLIFT_LIMIT_CONSTANTS, 0),
	    sqlift_limit(db, SQLIFT_LIMIT_DOMAIN, 0));
	if ((rc = store_model_get(db->s, &old, &oldpath, &oldfp, e)))
		goto done;
	if (model_path) {
		if (!(text = read_file(model_path, &len, e))) {
			rc = e->status;
			goto done;
		}
		if (strlen(text) != len) {
			rc = err_set(e, SQLIFT_EINPUT, "%s: not a text file (NUL byte)",
			    model_path);
			goto done;
		}
		snprintf(fp, sizeof fp, "%016llx",
		    (unsigned long long)fnv1a(FNV_INIT, text, len));
		if ((rc = mln_parse_limited(text, len, model_path,
		    (long)sqlift_limit(db, SQLIFT_LIMIT_DOMAIN, 0), &m, e)))
			goto done;
		warn_load(m, db->log, db->log_arg);
		if (old && strcmp(oldfp, fp) != 0 && !(flags & SQLIFT_LOAD_REPLACE)) {
			rc = err_set(e, SQLIFT_EUSAGE, "%s: the database holds another "
			    "model (%s); use --replace to replace it", model_path,
			    oldpath);
			goto done;
		}
		newmodel = !old || strcmp(oldfp, fp) != 0;
		if (newmodel &&
		    (rc = store_model_put(db->s, m, text, model_path, fp, e))) {
			if (rc == SQLIFT_EINPUT) {  /* a limit: name the file */
				char msg[ERR_MAX];
				snprintf(msg, sizeof msg, "%s", e->msg);
				err_set(e, rc, "%s: %s", model_path, msg);
			}
			goto done;
		}
	} else if (!old) {
		rc = err_set(e, SQLIFT_EUSAGE, "%s: no model loaded: give a model "
		    "file first", store_path(db->s));
		goto done;
	} else if ((flags & SQLIFT_LOAD_REPLACE_EVIDENCE) &&
	    (rc = mln_parse(old, strlen(old), oldpath, &m, e))) {
		goto done;
	}
	if ((rc = evidence_tx(db, m, ev, nev, flags, n_atoms, &stale)))
		goto done;
	/* new evidence or a new model leaves old cubes stale: drop them */
	if ((stale || newmodel) &&
	    ((rc = store_cubes_clear(db->s, e)) ||
	    (rc = store_cube_view(db->s, e))))
		goto done;
done:
	store_set_limits(db->s, 0, 0);
	mln_free(m);
	free(text);
	free(old);
	free(oldpath);
	free(oldfp);
	return rc;
}

int
sqlift_load(sqlift *db, const char *model_path, const char *const *ev,
    int nev, int flags, int64_t *n_atoms)
{
	int rc;

	if ((rc = store_begin(db->s, &db->e)) ||
	    (rc = load_tx(db, model_path, ev, nev, flags, n_atoms)) ||
	    (rc = store_commit(db->s, &db->e))) {
		store_rollback(db->s);
		return rc;
	}
	return 0;
}

/* Runs infer_run, which ends in the write transaction of its results,
 * and commits it.  A failed run is rolled back whole, then its runs row
 * is written in a short transaction of its own.  An interrupted one with
 * samples is committed like a complete one, and its status returned. */
static int
infer_commit(sqlift *db, const struct sqlift_infer_opts *o, int64_t *run_id)
{
	struct infer_failure *failed = NULL;
	char *tmp = NULL;
	int rc, crc = 0, kept;

	rc = infer_run(db->s, o, run_id, &tmp, &failed, &db->e);
	kept = !rc || (rc == SQLIFT_EINTR && !failed);
	if (!kept || (crc = store_commit(db->s, &db->e))) {
		if (tmp)
			remove(tmp);
		free(tmp);
		store_rollback(db->s);
		infer_failure_record(db->s, failed);
		return kept ? crc : rc;
	}
	if (tmp && rename(tmp, o->result_path) != 0) {
		rc = err_set(&db->e, SQLIFT_EINPUT, "%s: cannot write result file",
		    o->result_path);
		remove(tmp);
	}
	free(tmp);
	return rc;
}

int
sqlift_infer(sqlift *db, const struct sqlift_infer_opts *o, int64_t *run_id)
{
	return infer_commit(db, o, run_id);
}

void
sqlift_load_changes(const sqlift *db, int64_t *added, int64_t *flipped,
    int64_t *removed)
{
	*added = db->replaced.added;
	*flipped = db->replaced.flipped;
	*removed = db->replaced.removed;
}

int
sqlift_cancel(void)
{
	int a = lis_cancel(), b = gibbs_cancel();

	return a || b;
}

int
sqlift_run_job(const char *ini_path, sqlift **db_out, int64_t *run_id)
{
	return sqlift_run_job_opts(ini_path, NULL, db_out, run_id);
}

int
sqlift_run_job_opts(const char *ini_path, const sqlift_infer_opts *base,
    sqlift **db_out, int64_t *run_id)
{
	struct job j;
	struct err e = { 0 };
	sqlift *db;
	int64_t n;
	int rc;

	*run_id = 0;
	if ((rc = job_read(ini_path, &j, &e))) {
		if (!(db = xcalloc(1, sizeof *db))) {
			*db_out = &oom_handle;
			return SQLIFT_ENOMEM;
		}
		db->e = e;
		*db_out = db;
		return rc;
	}
	if ((rc = sqlift_open(j.database, SQLIFT_OPEN_CREATE, db_out))) {
		job_free(&j);
		return rc;
	}
	db = *db_out;
	for (int i = 0; i < 3; i++)
		sqlift_limit(db, i, j.limit[i]);
	if (base && !db->log)
		sqlift_set_log(db, base->log, base->log_arg);
	/* the load is committed before the run, which locks only to write */
	if ((j.model || j.evidence.n || j.replace_evidence || !j.has_infer) &&
	    ((rc = store_begin(db->s, &db->e)) ||
	    ((j.model || j.evidence.n || j.replace_evidence) &&
	    (rc = load_tx(db, j.model, (const char *const *)j.evidence.v,
	    (int)j.evidence.n, (j.replace ? SQLIFT_LOAD_REPLACE : 0) |
	    (j.replace_evidence ? SQLIFT_LOAD_REPLACE_EVIDENCE : 0) |
	    j.csv_header, &n))) ||
	    (rc = store_commit(db->s, &db->e)))) {
		store_rollback(db->s);
		job_free(&j);
		return rc;
	}
	if (j.has_infer) {
		/* the job's options alone; base lends its output functions */
		struct sqlift_infer_opts o = *j.infer;
		o.job_path = ini_path;
		o.progress = base ? base->progress : NULL;
		o.progress_arg = base ? base->progress_arg : NULL;
		o.log = base ? base->log : NULL;
		o.log_arg = base ? base->log_arg : NULL;
		rc = infer_commit(db, &o, run_id);
	}
	job_free(&j);
	return rc;
}

int
sqlift_readonly(sqlift *db)
{
	return !store_writable(db->s);
}

int
sqlift_cubes(sqlift *db, FILE *out)
{
	int rc;

	if (!store_writable(db->s)) {
		/* computed into temp tables and printed, main untouched */
		rc = store_begin_shadow(db->s, &db->e);
		if (!rc)
			rc = cube_build_all(db->s, out, &db->e);
		store_rollback(db->s);
		return rc;
	}
	if ((rc = store_begin(db->s, &db->e)) ||
	    (rc = cube_build_all(db->s, out, &db->e)) ||
	    (rc = store_commit(db->s, &db->e))) {
		store_rollback(db->s);
		return rc;
	}
	return 0;
}

int
sqlift_explain(sqlift *db, const struct sqlift_infer_opts *o, int normal,
    FILE *out)
{
	/* cubes and blocks go to temp tables: main is never written, and
	 * may be read-only */
	int rc = store_begin_shadow(db->s, &db->e);

	if (!rc)
		rc = infer_explain(db->s, o, normal, out, &db->e);
	store_rollback(db->s);
	return rc;
}

int
sqlift_info(sqlift *db, FILE *out)
{
	int rc = store_begin_read(db->s, &db->e);

	if (!rc)
		rc = store_info(db->s, out, &db->e);
	store_rollback(db->s);
	return rc;
}

/* The points of a trace as store_trace_each() hands them over. */
struct trace_acc {
	VEC(struct sqlift_trace_point) v;
	int oom;
};

static int
trace_point(void *ctx, int64_t samples, double log_z, double log_z_stderr,
    double ess)
{
	struct trace_acc *a = ctx;
	struct sqlift_trace_point p = { samples, log_z, log_z_stderr, ess };

	if (VEC_PUSH(a->v, p)) {
		a->oom = 1;
		return -1;
	}
	return 0;
}

int
sqlift_trace(sqlift *db, int64_t run_id, struct sqlift_trace_point **points,
    size_t *n)
{
	struct trace_acc a = { { NULL, 0, 0 }, 0 };
	char *method = NULL;
	int rc;

	*points = NULL;
	*n = 0;
	if ((rc = store_begin_read(db->s, &db->e)) ||
	    (rc = store_run_method(db->s, run_id, &method, &db->e)))
		goto done;
	if (!method) {
		rc = err_set(&db->e, SQLIFT_EUSAGE, "%s: no run %lld",
		    store_path(db->s), (long long)run_id);
		goto done;
	}
	rc = store_trace_each(db->s, run_id, trace_point, &a, &db->e);
	if (a.oom)
		rc = err_oom(&db->e);
	else if (!rc && a.v.n == 0)
		rc = err_set(&db->e, SQLIFT_EUSAGE, "run %lld (%s) has no "
		    "convergence trace: only sampling runs have one",
		    (long long)run_id, method);
done:
	store_rollback(db->s);
	free(method);
	if (rc) {
		free(a.v.v);
		return rc;
	}
	*points = a.v.v;
	*n = a.v.n;
	return 0;
}
