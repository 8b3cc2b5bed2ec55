/* job.c: reads INI job files with inih.  Sections [database], [load] and
 * [infer]; unknown sections and keys and empty values are errors naming
 * the line, so that a typo in a cron job fails loudly. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "job/job.h"

struct jctx {
	struct job *j;
	const char *dir;       /* folder of the job file, with '/' */
	char msg[ERR_MAX];
	int oom;
};

static char *
resolve(struct jctx *c, const char *v)
{
	struct buf b;

	if (v[0] == '/' || !c->dir[0])
		return xstrdup(v);
	buf_init(&b);
	buf_printf(&b, "%s%s", c->dir, v);
	return buf_take(&b);
}

static int
set_str(struct jctx *c, char **dst, char *v)
{
	if (!v) {
		c->oom = 1;
		return 0;
	}
	free(*dst);
	*dst = v;
	return 1;
}

/* A key of [infer]: set through the option table, paths taken from the
 * job's folder; 0 with a message if the key or its value is bad. */
static int
infer_key(struct jctx *c, const char *name, const char *value)
{
	struct err e = { 0 };
	char *v;
	int rc;

	if (name[0] == '-' || !opts_known(name)) {
		snprintf(c->msg, sizeof c->msg, "unknown key '%s' in [infer]", name);
		return 0;
	}
	if (!c->j->infer && !(c->j->infer = sqlift_infer_opts_new())) {
		c->oom = 1;
		return 1;
	}
	if (!(v = opts_is_path(name) ? resolve(c, value) : xstrdup(value))) {
		c->oom = 1;
		return 1;
	}
	rc = opts_set(c->j->infer, name, v, &e);
	free(v);
	if (rc == SQLIFT_ENOMEM)
		c->oom = 1;
	else if (rc) {
		snprintf(c->msg, sizeof c->msg, "%s", e.msg);
		return 0;
	}
	return 1;
}

static int
parse_bool(const char *v, int *out)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* A [load] key other than model, evidence and the replace flags: 1 if
 * taken, 0 with a message if its value is bad, -1 if unknown. */
static int
load_key(struct jctx *c, const char *name, const char *value)
{
	static const char *const limits[] = { "max_constants", "max_domain",
	    "max_line" };
	char *end;

	if (!strcmp(name, "csv_header")) {
		if (!strcasecmp(value, "yes"))
			c->j->csv_header = SQLIFT_LOAD_CSV_HEADER;
		else if (!strcasecmp(value, "no"))
			c->j->csv_header = SQLIFT_LOAD_CSV_NO_HEADER;
		else if (!strcasecmp(value, "auto"))
			c->j->csv_header = 0;
		else {
			snprintf(c->msg, sizeof c->msg, "csv_header is '%s', "
			    "expected yes, no or auto", value);
			return 0;
		}
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		long long v;
		if (strcmp(name, limits[i]))
			continue;
		v = strtoll(value, &end, 10);
		if (*end || v < 1 || v > (i == 2 ? 1LL << 30 : 1LL << 40)) {
			snprintf(c->msg, sizeof c->msg, "%s is '%s', expected a "
			    "positive integer", name, value);
			return 0;
		}
		c->j->limit[i] = v;
		return 1;
	}
	return -1;
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct jctx *c = user;
	struct job *j = c->j;

	if (!name) {  /* a section header alone */
		if (strcmp(section, "database") && strcmp(section, "load") &&
		    strcmp(section, "infer")) {
			snprintf(c->msg, sizeof c->msg, "unknown section [%s] "
			    "(expected [database], [load] or [infer])", section);
			return 0;
		}
		if (!strcmp(section, "infer"))
			j->has_infer = 1;
		return 1;
	}
	if (!value || !*value) {
		snprintf(c->msg, sizeof c->msg, "%s has no value", name);
		return 0;
	}
	if (!strcmp(section, "database")) {
		if (!strcmp(name, "path"))
			return set_str(c, &j->database, resolve(c, value));
	} else if (!strcmp(section, "load")) {
		if (!strcmp(name, "model"))
			return set_str(c, &j->model, resolve(c, value));
		if (!strcmp(name, "evidence")) {
			char *p = resolve(c, value);
			if (!p || VEC_PUSH(j->evidence, p) < 0) {
				free(p);
				c->oom = 1;
			}
			return 1;
		}
		if (!strcmp(name, "replace") ||
		    !strcmp(name, "replace_evidence")) {
			if (parse_bool(value, name[7] ? &j->replace_evidence :
			    &j->replace) < 0) {
				snprintf(c->msg, sizeof c->msg, "%s is '%s', expected "
				    "true or false", name, value);
				return 0;
			}
			return 1;
		}
		{
			int r = load_key(c, name, value);
			if (r >= 0)
				return r;
		}
	} else if (!strcmp(section, "infer")) {
		j->has_infer = 1;
		return infer_key(c, name, value);
	} else {
		snprintf(c->msg, sizeof c->msg, "unknown section [%s] (expected "
		    "[database], [load] or [infer])", section);
		return 0;
	}
	snprintf(c->msg, sizeof c->msg, "unknown key '%s' in [%s]", name,
	    section);
	return 0;
}

void
job_free(struct job *j)
{
	free(j->database);
	free(j->model);
	for (size_t i = 0; i < j->evidence.n; i++)
		free(j->evidence.v[i]);
	free(j->evidence.v);
	sqlift_infer_opts_free(j->infer);
	memset(j, 0, sizeof *j);
}

int
job_read(const char *path, struct job *j, struct err *e)
{
	struct jctx c = { 0 };
	const char *slash = strrchr(path, '/');
	char *dir;
	FILE *f;
	int line;

	memset(j, 0, sizeof *j);
	if (!(dir = slash ? xstrndup(path, (size_t)(slash - path + 1)) :
	    xstrdup("")))
		return err_oom(e);
	c.j = j;
	c.dir = dir;
	if (!(f = fopen(path, "r"))) {
		free(dir);
		return err_set(e, SQLIFT_EINPUT, "%s: cannot open job file", path);
	}
	line = ini_parse_file(f, handler, &c);
	fclose(f);
	free(dir);
	if (c.oom) {
		job_free(j);
		return err_oom(e);
	}
	if (line != 0) {
		job_free(j);
		if (line < 0)
			return err_set(e, SQLIFT_EINPUT, "%s: cannot read job file",
			    path);
		return err_set(e, SQLIFT_EINPUT, "%s:%d: %s", path, line,
		    c.msg[0] ? c.msg : "syntax error (expected [section] or "
		    "key = value)");
	}
	if (!j->database) {
		job_free(j);
		return err_set(e, SQLIFT_EINPUT, "%s: [database] path is missing",
		    path);
	}
	if (j->has_infer && c.oom == 0 && !j->infer)
		j->infer = sqlift_infer_opts_new();
	if (j->has_infer && !j->infer) {
		job_free(j);
		return err_oom(e);
	}
	if (j->has_infer && !j->infer->method) {
		job_free(j);
		return err_set(e, SQLIFT_EINPUT, "%s: [infer] needs a method", path);
	}
	return 0;
}
