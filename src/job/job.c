/* job.c: reads INI job files with inih.  Sections [database], [load] and
 * [infer]; unknown sections and keys and empty values are errors naming
 * the line, so that a typo in a cron job fails loudly. */
#include <errno.h>
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

/* An integer key within [lo, hi]; 0 with a message if it is not. */
static int
int_key(struct jctx *c, const char *name, const char *v, int64_t lo,
    int64_t hi, int64_t *out)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end || !*v || x < lo || x > hi) {
		if (hi == INT64_MAX)
			snprintf(c->msg, sizeof c->msg, "%s is '%s', expected an "
			    "integer of at least %lld", name, v, (long long)lo);
		else
			snprintf(c->msg, sizeof c->msg, "%s is '%s', expected an "
			    "integer from %lld to %lld", name, v, (long long)lo,
			    (long long)hi);
		return 0;
	}
	*out = x;
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
		if (!strcmp(name, "replace")) {
			if (parse_bool(value, &j->replace) < 0) {
				snprintf(c->msg, sizeof c->msg, "replace is '%s', expected "
				    "true or false", value);
				return 0;
			}
			return 1;
		}
	} else if (!strcmp(section, "infer")) {
		j->has_infer = 1;
		if (!strcmp(name, "method"))
			return set_str(c, &j->method, xstrdup(value));
		if (!strcmp(name, "queries"))
			return set_str(c, &j->queries, xstrdup(value));
		if (!strcmp(name, "query_file"))
			return set_str(c, &j->query_file, resolve(c, value));
		if (!strcmp(name, "open_world"))
			return set_str(c, &j->open_world, xstrdup(value));
		if (!strcmp(name, "closed_world"))
			return set_str(c, &j->closed_world, xstrdup(value));
		if (!strcmp(name, "result"))
			return set_str(c, &j->result, resolve(c, value));
		if (!strcmp(name, "order"))
			return set_str(c, &j->order, xstrdup(value));
		if (!strcmp(name, "constraints"))
			return set_str(c, &j->constraints, xstrdup(value));
		if (!strcmp(name, "proposal"))
			return set_str(c, &j->proposal, xstrdup(value));
		if (!strcmp(name, "marginals"))
			return set_str(c, &j->marginals, xstrdup(value));
		if (!strcmp(name, "max_nodes"))
			return int_key(c, name, value, 1, INT64_MAX, &j->max_nodes);
		if (!strcmp(name, "samples"))
			return int_key(c, name, value, 1, INT64_MAX, &j->samples);
		if (!strcmp(name, "threads"))
			return int_key(c, name, value, 1, 256, &j->threads);
		if (!strcmp(name, "particles"))
			return int_key(c, name, value, 1, 4096, &j->particles);
		if (!strcmp(name, "exact_budget"))
			return int_key(c, name, value, 0, INT64_MAX, &j->exact_budget);
		if (!strcmp(name, "max_seconds")) {
			char *end;
			errno = 0;
			j->max_seconds = strtod(value, &end);
			if (errno || *end || !(j->max_seconds > 0)) {
				snprintf(c->msg, sizeof c->msg, "max_seconds is '%s', "
				    "expected a positive number", value);
				return 0;
			}
			return 1;
		}
		if (!strcmp(name, "verbose")) {
			if (parse_bool(value, &j->verbose) < 0) {
				snprintf(c->msg, sizeof c->msg, "verbose is '%s', expected "
				    "true or false", value);
				return 0;
			}
			return 1;
		}
		if (!strcmp(name, "seed")) {
			char *end;
			errno = 0;
			j->seed = strtoull(value, &end, 10);
			if (errno || *end || value[0] == '-') {
				snprintf(c->msg, sizeof c->msg, "seed is '%s', expected a "
				    "non-negative integer", value);
				return 0;
			}
			return 1;
		}
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
	free(j->method);
	free(j->queries);
	free(j->query_file);
	free(j->open_world);
	free(j->closed_world);
	free(j->order);
	free(j->constraints);
	free(j->proposal);
	free(j->marginals);
	free(j->result);
	memset(j, 0, sizeof *j);
	j->exact_budget = -1;
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
	j->exact_budget = -1;  /* unset: the command line's default */
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
	if (j->has_infer && !j->method) {
		job_free(j);
		return err_set(e, SQLIFT_EINPUT, "%s: [infer] needs a method", path);
	}
	return 0;
}
