/* atom.c: scanning of one ground (or query) atom as Alchemy writes it in
 * .db and query files, and of comma-separated query lists. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "evidence/evidence.h"

int
line_read(struct line_reader *r, struct err *e)
{
	size_t max = r->max ? r->max : EVIDENCE_MAX_LINE;
	int c;

	r->len = 0;
	r->line++;
	while ((c = getc(r->f)) != EOF) {
		if (c == '\0') {
			err_set(e, SQLIFT_EINPUT, "%s:%d:%zu: NUL byte (not a "
			    "text file?)", r->path, r->line, r->len + 1);
			return -1;
		}
		if (r->len == max) {
			err_set(e, SQLIFT_EINPUT, "%s:%d: line longer than %zu "
			    "bytes (raise the limit with --max-line)", r->path,
			    r->line, max);
			return -1;
		}
		if (r->len + 2 > r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 256;
			char *t = xrealloc(r->s, cap);
			if (!t) {
				err_oom(e);
				return -1;
			}
			r->s = t;
			r->cap = cap;
		}
		r->s[r->len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (ferror(r->f)) {
		err_set(e, SQLIFT_EINPUT, "%s: read error", r->path);
		return -1;
	}
	if (r->len == 0)
		return 0;
	r->s[r->len] = '\0';
	if (r->line == 1 && r->len >= 3 && !memcmp(r->s, "\xef\xbb\xbf", 3)) {
		r->len -= 3;
		memmove(r->s, r->s + 3, r->len + 1);
	}
	return 1;
}

size_t
line_content(const char *s, size_t n)
{
	int q = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			q = !q;
		else if (!q && s[i] == '/' && i + 1 < n && s[i + 1] == '/')
			return i;
		else if (s[i] == '\n' || s[i] == '\r')
			return i;
	}
	return n;
}

static size_t
skip_space(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

_Static_assert(MLN_MAX_ARITY == 64, "atom_scan's message names the limit");

int
atom_scan(const char *s, size_t n, struct atom_span *a, const char **why,
    int *col)
{
	size_t i = skip_space(s, 0, n), st;

	memset(a, 0, sizeof *a);
	if (i < n && s[i] == '!') {
		a->neg = 1;
		i = skip_space(s, i + 1, n);
	}
	st = i;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
	    s[i] == '-' || s[i] == '\''))
		i++;
	if (i == st) {
		*why = "expected a predicate name";
		*col = (int)i + 1;
		return -1;
	}
	a->name = s + st;
	a->name_len = i - st;
	i = skip_space(s, i, n);
	if (i >= n || s[i] != '(') {
		*why = i < n && isdigit((unsigned char)s[st]) ?
		    "soft evidence (a number before the atom) is not supported" :
		    "expected '(' after the predicate name";
		*col = (int)i + 1;
		return -1;
	}
	i++;
	for (;;) {
		size_t e;
		i = skip_space(s, i, n);
		st = i;
		if (i < n && s[i] == '"') {
			i++;
			while (i < n && s[i] != '"')
				i++;
			if (i >= n) {
				*why = "unterminated quoted constant";
				*col = (int)st + 1;
				return -1;
			}
			i++;
		} else {
			while (i < n && s[i] != ',' && s[i] != ')' && s[i] != '(')
				i++;
		}
		e = i;
		while (e > st && (s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		if (e == st) {
			*why = "expected a constant";
			*col = (int)st + 1;
			return -1;
		}
		if (a->nargs == MLN_MAX_ARITY) {
			*why = "more than 64 arguments";
			*col = (int)st + 1;
			return -1;
		}
		a->arg[a->nargs] = s + st;
		a->arg_len[a->nargs] = e - st;
		a->arg_col[a->nargs] = (int)st + 1;
		a->nargs++;
		i = skip_space(s, i, n);
		if (i < n && s[i] == ',') {
			i++;
			continue;
		}
		if (i < n && s[i] == ')')
			break;
		*why = i >= n ? "unclosed atom: expected ')'" :
		    "expected ',' or ')'";
		*col = (int)i + 1;
		return -1;
	}
	i = skip_space(s, i + 1, n);
	if (i < n) {
		*why = "unexpected text after the atom";
		*col = (int)i + 1;
		return -1;
	}
	return 0;
}

void
query_list_free(struct query_list *q)
{
	for (size_t i = 0; i < q->v.n; i++) {
		struct query_atom *a = &q->v.v[i];
		for (int j = 0; j < a->nargs; j++)
			free(a->args[j]);
		free(a->args);
		free(a->var);
		free(a->pred);
	}
	free(q->v.v);
	memset(q, 0, sizeof *q);
}

/* Adds one query item: a bare predicate name or an atom. */
static int
query_add(struct query_list *q, const char *s, size_t n, const char *where,
    int line, struct err *e)
{
	struct query_atom qa = { 0 };
	struct atom_span a;
	const char *why;
	int col;
	size_t i = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	s += i, n -= i;
	if (n == 0)
		return 0;
	if (!memchr(s, '(', n)) {
		for (i = 0; i < n; i++)
			if (!(isalnum((unsigned char)s[i]) || s[i] == '_' ||
			    s[i] == '-' || s[i] == '\''))
				return err_set(e, SQLIFT_EINPUT, "%s:%d: '%.*s' is not "
				    "a predicate name", where, line, (int)n, s);
		qa.nargs = -1;  /* every atom of the predicate */
		if (!(qa.pred = xstrndup(s, n)) || VEC_PUSH(q->v, qa) < 0) {
			free(qa.pred);
			return err_oom(e);
		}
		return 0;
	}
	if (atom_scan(s, n, &a, &why, &col) < 0)
		return err_set(e, SQLIFT_EINPUT, "%s:%d:%d: %s", where, line, col,
		    why);
	if (a.neg)
		return err_set(e, SQLIFT_EINPUT, "%s:%d: a query atom cannot be "
		    "negated", where, line);
	qa.nargs = a.nargs;
	qa.pred = xstrndup(a.name, a.name_len);
	qa.args = xcalloc((size_t)a.nargs, sizeof *qa.args);
	qa.var = xcalloc((size_t)a.nargs, sizeof *qa.var);
	if (!qa.pred || !qa.args || !qa.var)
		goto oom;
	for (int j = 0; j < a.nargs; j++) {
		qa.var[j] = -1;
		if (islower((unsigned char)a.arg[j][0])) {
			/* a variable: equal names share a number */
			qa.var[j] = j;
			for (int k = 0; k < j; k++)
				if (!qa.args[k] && a.arg_len[k] == a.arg_len[j] &&
				    !memcmp(a.arg[k], a.arg[j], a.arg_len[j]))
					qa.var[j] = qa.var[k];
		} else if (!(qa.args[j] = xstrndup(a.arg[j], a.arg_len[j]))) {
			goto oom;
		}
	}
	if (VEC_PUSH(q->v, qa) < 0)
		goto oom;
	return 0;
oom:
	for (int j = 0; j < qa.nargs && qa.args; j++)
		free(qa.args[j]);
	free(qa.args);
	free(qa.var);
	free(qa.pred);
	return err_oom(e);
}

int
query_parse_list(const char *list, struct query_list *q, struct err *e)
{
	const char *st = list;
	int depth = 0, rc;

	for (const char *p = list;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if ((*p == ',' && depth == 0) || *p == '\0') {
			if ((rc = query_add(q, st, (size_t)(p - st), "-q", 1, e)))
				return rc;
			st = p + 1;
		}
		if (!*p)
			break;
	}
	return 0;
}

int
query_parse_file(const char *path, struct query_list *q, struct err *e)
{
	struct line_reader r = { fopen(path, "r"), path, 0, NULL, 0, 0, 0 };
	int rc;

	if (!r.f)
		return err_set(e, SQLIFT_EINPUT, "%s: cannot open query file",
		    path);
	while ((rc = line_read(&r, e)) == 1) {
		size_t len = line_content(r.s, r.len);
		if ((rc = query_add(q, r.s, len, path, r.line, e)))
			break;
	}
	if (rc < 0)
		rc = e->status;
	free(r.s);
	fclose(r.f);
	return rc;
}
