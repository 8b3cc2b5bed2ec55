/* load.c: appends evidence to the store from Alchemy .db files (one atom
 * per line, '!' for false, // comments outside quotes), CSV files named
 * after their predicate (parsed with libcsv: one column per argument and
 * an optional truth column, after an optional header row), and folders
 * holding such files. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <csv.h>

#include "sqlift.h"
#include "evidence/evidence.h"

static int
atom_store(struct store *s, const char *path, int line,
    const struct atom_span *a, int truth, struct err *e)
{
	int pi = store_pred_find(s, a->name, a->name_len);
	const struct store_pred *p;

	if (pi < 0)
		return err_set(e, SQLIFT_EINPUT, "%s:%d: unknown predicate %.*s",
		    path, line, (int)a->name_len, a->name);
	p = store_pred_at(s, pi);
	if (a->nargs != p->arity)
		return err_set(e, SQLIFT_EINPUT, "%s:%d: %s takes %d argument%s, "
		    "found %d", path, line, p->name, p->arity,
		    p->arity == 1 ? "" : "s", a->nargs);
	return store_atom_add(s, pi, a->arg, a->arg_len, truth, path, line, e);
}

static int
load_db(struct store *s, const char *path, const struct evidence_opts *o,
    int64_t *n, struct err *e)
{
	struct line_reader r = { fopen(path, "r"), path, 0, NULL, 0, 0,
	    o->max_line };
	char *line;
	int ln, rc;
	int64_t count = 0;

	if (!r.f)
		return err_set(e, SQLIFT_EINPUT, "%s: cannot open evidence file",
		    path);
	while ((rc = line_read(&r, e)) == 1) {
		struct atom_span a;
		const char *why;
		size_t k;
		int col;

		line = r.s;
		ln = r.line;
		k = line_content(line, r.len);
		while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
			k--;
		if (k == 0 || strspn(line, " \t") >= k)
			continue;
		if (atom_scan(line, k, &a, &why, &col) < 0) {
			rc = err_set(e, SQLIFT_EINPUT, "%s:%d:%d: %s", path, ln, col,
			    why);
			break;
		}
		if ((rc = atom_store(s, path, ln, &a, !a.neg, e)))
			break;
		count++;
	}
	if (rc < 0)
		rc = e->status;
	free(r.s);
	fclose(r.f);
	if (!rc) {
		*n += count;
		rc = store_evfile_add(s, path, count, e);
	}
	return rc;
}

/* CSV: libcsv calls field() per field and row() per record. */
struct csv_ctx {
	struct store *s;
	const struct evidence_opts *o;
	const char *path;
	int pred;
	int line;
	int rows;              /* rows seen, blank ones left out */
	struct buf fields;     /* field texts, each NUL-terminated */
	struct buf quoted[MLN_MAX_ARITY]; /* fields as "quoted" constants */
	VEC(size_t) off;
	int64_t count;
	struct err *e;
	int rc;
};

static void
csv_field(void *data, size_t len, void *ctx_)
{
	struct csv_ctx *c = ctx_;

	if (c->rc)
		return;
	if (VEC_PUSH(c->off, c->fields.len) < 0) {
		c->rc = err_oom(c->e);
		return;
	}
	buf_add(&c->fields, data ? data : "", len);
	buf_add(&c->fields, "", 1);
	if (c->fields.oom)
		c->rc = err_oom(c->e);
}

/* Can the text stand in an Alchemy file without quotes? */
static int
bare_constant(const char *s)
{
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' ||
		    *s == '\''))
			return 0;
	return 1;
}

static int
parse_truth(const char *t, int *truth)
{
	if (!strcmp(t, "1") || !strcasecmp(t, "true") || !strcasecmp(t, "t")) {
		*truth = 1;
		return 0;
	}
	if (!strcmp(t, "0") || !strcasecmp(t, "false") || !strcasecmp(t, "f")) {
		*truth = 0;
		return 0;
	}
	return -1;
}

/* Does field f name argument type t: "person", or "person1", "Person_2"
 * for a second argument of the same type? */
static int
names_type(const char *f, const char *t)
{
	size_t n = strlen(t);

	if (strncasecmp(f, t, n))
		return 0;
	f += n;
	f += *f == '_';
	return strspn(f, "0123456789") == strlen(f);
}

/* Is the first row a header: one column per argument naming its type
 * (case aside), and an optional last column "truth"? */
static int
csv_is_header(struct csv_ctx *c, const struct store_pred *p, int nf)
{
	if (nf == p->arity + 1 &&
	    strcasecmp(c->fields.s + c->off.v[nf - 1], "truth"))
		return 0;
	for (int i = 0; i < p->arity; i++)
		if (!names_type(c->fields.s + c->off.v[i],
		    store_type_name(c->s, p->types[i])))
			return 0;
	return 1;
}

static void
csv_header_note(struct csv_ctx *c, int nf)
{
	struct buf b;

	if (!c->o->log)
		return;
	buf_init(&b);
	buf_printf(&b, "%s:%d: header row skipped (", c->path, c->line);
	for (int i = 0; i < nf; i++)
		buf_printf(&b, "%s%s", i ? "," : "", c->fields.s + c->off.v[i]);
	buf_puts(&b, "); --csv-header no reads it as data");
	if (!b.oom)
		c->o->log(c->o->log_arg, b.s);
	buf_free(&b);
}

static void
csv_row(int term, void *ctx_)
{
	struct csv_ctx *c = ctx_;
	const struct store_pred *p = store_pred_at(c->s, c->pred);
	const char *args[MLN_MAX_ARITY];
	size_t lens[MLN_MAX_ARITY];
	int nf = (int)c->off.n, truth = 1;

	(void)term;
	if (c->rc)
		goto out;
	if (nf == 1 && c->fields.s[c->off.v[0]] == '\0')
		goto out;  /* a blank line */
	if (c->rows++ == 0 && c->o->csv_header != EVIDENCE_CSV_NO_HEADER &&
	    (c->o->csv_header == EVIDENCE_CSV_HEADER ||
	    ((nf == p->arity || nf == p->arity + 1) &&
	    csv_is_header(c, p, nf)))) {
		if (c->o->csv_header == EVIDENCE_CSV_AUTO)
			csv_header_note(c, nf);
		goto out;
	}
	if (nf != p->arity && nf != p->arity + 1) {
		c->rc = err_set(c->e, SQLIFT_EINPUT, "%s:%d: %s takes %d "
		    "argument%s: expected %d or %d columns, found %d", c->path,
		    c->line, p->name, p->arity, p->arity == 1 ? "" : "s",
		    p->arity, p->arity + 1, nf);
		goto out;
	}
	if (nf == p->arity + 1 &&
	    parse_truth(c->fields.s + c->off.v[nf - 1], &truth) < 0) {
		c->rc = err_set(c->e, SQLIFT_EINPUT, "%s:%d: truth column is "
		    "'%s', expected 1, 0, true or false", c->path, c->line,
		    c->fields.s + c->off.v[nf - 1]);
		goto out;
	}
	for (int i = 0; i < p->arity; i++) {
		args[i] = c->fields.s + c->off.v[i];
		lens[i] = strlen(args[i]);
		if (lens[i] == 0) {
			c->rc = err_set(c->e, SQLIFT_EINPUT, "%s:%d: column %d is "
			    "empty", c->path, c->line, i + 1);
			goto out;
		}
		if (!bare_constant(args[i])) {
			/* the constant Alchemy would write as "..." */
			if (strchr(args[i], '"')) {
				c->rc = err_set(c->e, SQLIFT_EINPUT, "%s:%d: column %d "
				    "holds a '\"' inside a constant", c->path, c->line,
				    i + 1);
				goto out;
			}
			buf_printf(&c->quoted[i], "\"%s\"", args[i]);
			if (c->quoted[i].oom) {
				c->rc = err_oom(c->e);
				goto out;
			}
			args[i] = c->quoted[i].s;
			lens[i] = c->quoted[i].len;
		}
	}
	c->rc = store_atom_add(c->s, c->pred, args, lens, truth, c->path,
	    c->line, c->e);
	c->count++;
out:
	c->off.n = 0;
	buf_clear(&c->fields);
	for (int i = 0; i < MLN_MAX_ARITY; i++)
		buf_clear(&c->quoted[i]);
}

static int
load_csv(struct store *s, const char *path, const struct evidence_opts *o,
    int64_t *n, struct err *e)
{
	const char *base = strrchr(path, '/');
	struct csv_ctx c = { 0 };
	struct csv_parser cp;
	struct line_reader r = { NULL, path, 0, NULL, 0, 0, o->max_line };
	size_t blen;
	int rc = 0;

	base = base ? base + 1 : path;
	blen = strlen(base) - 4;  /* without .csv */
	c.pred = store_pred_find(s, base, blen);
	if (c.pred < 0)
		return err_set(e, SQLIFT_EINPUT, "%s: no predicate %.*s in the "
		    "model (a CSV file is named after its predicate)", path,
		    (int)blen, base);
	if (!(r.f = fopen(path, "r")))
		return err_set(e, SQLIFT_EINPUT, "%s: cannot open evidence file",
		    path);
	if (csv_init(&cp, CSV_APPEND_NULL) != 0) {
		fclose(r.f);
		return err_oom(e);
	}
	c.s = s;
	c.o = o;
	c.path = path;
	c.e = e;
	buf_init(&c.fields);
	/* fed line by line so that a row's message names its last line */
	while (!c.rc && (rc = line_read(&r, e)) == 1) {
		size_t used;
		c.line = r.line;
		used = csv_parse(&cp, r.s, r.len, csv_field, csv_row, &c);
		if (used != r.len && !c.rc)
			c.rc = err_set(e, SQLIFT_EINPUT, "%s:%d: %s", path, c.line,
			    csv_strerror(csv_error(&cp)));
	}
	if (!c.rc && rc < 0)
		c.rc = e->status;
	if (!c.rc && csv_fini(&cp, csv_field, csv_row, &c) != 0 && !c.rc)
		c.rc = err_set(e, SQLIFT_EINPUT, "%s:%d: %s", path, c.line,
		    csv_strerror(csv_error(&cp)));
	csv_free(&cp);
	free(r.s);
	fclose(r.f);
	buf_free(&c.fields);
	for (int i = 0; i < MLN_MAX_ARITY; i++)
		buf_free(&c.quoted[i]);
	free(c.off.v);
	if (!c.rc) {
		*n += c.count;
		c.rc = store_evfile_add(s, path, c.count, e);
	}
	return c.rc;
}

static int
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n > k && !strcasecmp(s + n - k, suf);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
load_dir(struct store *s, const char *path, const struct evidence_opts *o,
    int64_t *n, struct err *e)
{
	DIR *d = opendir(path);
	VEC(char *) names = { 0 };
	struct dirent *de;
	int rc = 0;

	if (!d)
		return err_set(e, SQLIFT_EINPUT, "%s: cannot open folder", path);
	while ((de = readdir(d))) {
		char *full;
		struct buf b;
		if (!has_suffix(de->d_name, ".db") && !has_suffix(de->d_name, ".csv"))
			continue;
		buf_init(&b);
		buf_printf(&b, "%s/%s", path, de->d_name);
		if (!(full = buf_take(&b)) || VEC_PUSH(names, full) < 0) {
			free(full);
			rc = err_oom(e);
			break;
		}
	}
	closedir(d);
	if (!rc && names.n)
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
	for (size_t i = 0; !rc && i < names.n; i++)
		rc = evidence_load(s, names.v[i], o, n, e);
	for (size_t i = 0; i < names.n; i++)
		free(names.v[i]);
	free(names.v);
	if (!rc && names.n == 0)
		rc = err_set(e, SQLIFT_EINPUT, "%s: no .db or .csv files in folder",
		    path);
	return rc;
}

int
evidence_load(struct store *s, const char *path,
    const struct evidence_opts *o, int64_t *n, struct err *e)
{
	static const struct evidence_opts defaults = { 0 };
	struct stat st;

	if (!o)
		o = &defaults;
	if (stat(path, &st) != 0)
		return err_set(e, SQLIFT_EINPUT, "%s: no such file", path);
	if (S_ISDIR(st.st_mode))
		return load_dir(s, path, o, n, e);
	if (has_suffix(path, ".csv"))
		return load_csv(s, path, o, n, e);
	return load_db(s, path, o, n, e);
}
