/* views.c: the views marginals_<predicate> and map_<predicate>, one
 * column per argument, over run_marginals and map_atoms, kept in step
 * with the stored predicates; and
 * sqlift_args(), the SQL function that splits an atom's text into the
 * JSON array of run_marginals.args they read.  Statements come from
 * sql/views.sql. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqlift.h"
#include "store/store-int.h"
#include "store/sql.inc"

/* In the text of every view made here, and only there: what tells them
 * from a user's objects of a similar name. */
#define VIEW_MARK "/* sqlift: marginals of one predicate */"
#define MAP_MARK "/* sqlift: MAP worlds of one predicate */"

/* The two kinds of view: prefix, mark, table and value column. */
static const struct vkind {
	const char *prefix, *mark, *table, *value;
} kinds[2] = {
	{ "marginals_", VIEW_MARK, "run_marginals", "probability" },
	{ "map_", MAP_MARK, "map_atoms", "truth" },
};

/* Appends the constant s[0..n) to b as a JSON string. */
static void
json_string(struct buf *b, const char *s, size_t n)
{
	buf_puts(b, "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else
			buf_add(b, s + i, 1);
	}
	buf_puts(b, "\"");
}

/* The constants of atom, pred(c1,...,cn) as infer writes it, as a JSON
 * array of strings in b; a constant in double quotes (which hold no '"')
 * without them, any other up to the next ',' or ')'.  -1 if atom is not
 * of that form. */
static int
atom_args(struct buf *b, const char *pred, const char *atom)
{
	size_t n = strlen(pred), i;

	if (strncmp(atom, pred, n) != 0 || atom[n] != '(')
		return -1;
	buf_puts(b, "[");
	for (i = n + 1;; i++) {
		size_t st = i;
		if (i > n + 1)
			buf_puts(b, ",");
		if (atom[i] == '"') {
			const char *q = strchr(atom + i + 1, '"');
			if (!q)
				return -1;
			i = (size_t)(q - atom) + 1;
			json_string(b, atom + st + 1, i - st - 2);
		} else {
			i += strcspn(atom + i, ",()");
			if (i == st)
				return -1;
			json_string(b, atom + st, i - st);
		}
		if (atom[i] == ')' && atom[i + 1] == '\0')
			break;
		if (atom[i] != ',')
			return -1;
	}
	buf_puts(b, "]");
	return 0;
}

/* sqlift_args(predicate, atom): atom_args's array; NULL for NULL or an
 * atom not of that form. */
static void
args_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const char *pred = (const char *)sqlite3_value_text(argv[0]);
	const char *atom = (const char *)sqlite3_value_text(argv[1]);
	struct buf b;

	(void)argc;
	if (!pred || !atom)
		return;  /* NULL */
	buf_init(&b);
	if (atom_args(&b, pred, atom) == 0 && !b.oom)
		sqlite3_result_text(cx, b.s, (int)b.len, SQLITE_TRANSIENT);
	else if (b.oom)
		sqlite3_result_error_nomem(cx);
	buf_free(&b);
}

int
views_register(struct store *s)
{
	/* direct only: a view or trigger of a crafted file cannot call it */
	return sqlite3_create_function_v2(s->db, "sqlift_args", 2, SQLITE_UTF8 |
	    SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL, args_fn, NULL, NULL,
	    NULL) == SQLITE_OK ? 0 : -1;
}

/* Appends name as an SQL identifier in double quotes. */
static void
ident(struct buf *b, const char *name)
{
	buf_puts(b, "\"");
	for (; *name; name++) {
		if (*name == '"')
			buf_puts(b, "\"");
		buf_add(b, name, 1);
	}
	buf_puts(b, "\"");
}

/* Is name one of v[0..n), ignoring ASCII case as SQL names do? */
static int
taken(char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] && !sqlite3_stricmp(v[i], name))
			return 1;
	return 0;
}

/* The column of argument i of p: its type's name, numbered by occurrence
 * when the type comes more than once (person1, person2); while that
 * clashes with another column (an earlier one of cols, or run_id,
 * value (probability or truth), atom), "_<i + 1>" is appended.  NULL if out of
 * memory. */
static char *
column_name(const struct store *s, const struct store_pred *p, int i,
    char *const *cols, const char *value)
{
	const char *t = store_type_name(s, p->types[i]);
	int seen = 0, same = 0;
	struct buf b;

	for (int j = 0; j < p->arity; j++)
		if (p->types[j] == p->types[i]) {
			same++;
			seen += j <= i;
		}
	buf_init(&b);
	buf_puts(&b, t);
	if (same > 1)
		buf_printf(&b, "%d", seen);
	while (!b.oom && (taken(cols, (size_t)i, b.s) ||
	    !sqlite3_stricmp(b.s, "run_id") ||
	    !sqlite3_stricmp(b.s, value) ||
	    !sqlite3_stricmp(b.s, "atom")))
		buf_printf(&b, "_%d", i + 1);
	return buf_take(&b);
}

/* The CREATE VIEW statement of p's view of kind k, named name, in b. */
static int
view_sql(const struct store *s, const struct store_pred *p,
    const struct vkind *k, const char *name, struct buf *b)
{
	char **cols;
	int rc = 0;

	if (!(cols = xcalloc((size_t)p->arity + 1, sizeof *cols)))
		return -1;
	buf_puts(b, "CREATE VIEW ");
	ident(b, name);
	buf_printf(b, " %s (run_id", k->mark);
	for (int i = 0; i < p->arity && !rc; i++) {
		if (!(cols[i] = column_name(s, p, i, cols, k->value)))
			rc = -1;
		else {
			buf_puts(b, ", ");
			ident(b, cols[i]);
		}
	}
	/* atom: a join on it (two runs) seeks run_marginals' key, where one
	 * on the arguments scans */
	buf_printf(b, ", %s, atom) AS SELECT run_id", k->value);
	for (int i = 0; i < p->arity; i++)
		buf_printf(b, ", json_extract(args, '$[%d]')", i);
	buf_printf(b, ", %s, atom FROM %s WHERE predicate = ", k->value,
	    k->table);
	db_literal(b, p->name);
	for (int i = 0; i < p->arity; i++)
		free(cols[i]);
	free(cols);
	return rc || b->oom ? -1 : 0;
}

/* What views_sync wants: a view name and its statement per predicate. */
struct want {
	char *name, *sql;
	int have;              /* already there, as is */
};

static void
wants_free(struct want *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++)
		free(w[i].name), free(w[i].sql);
	free(w);
}

/* Fills w[i] for predicate i: "marginals_<name>", and w[n + i]:
 * "map_<name>", with "_<pred_id>" appended while it clashes with an
 * earlier one. */
static int
wants_make(const struct store *s, struct want *w)
{
	for (size_t i = 0; i < 2 * s->preds.n; i++) {
		const struct vkind *k = &kinds[i >= s->preds.n];
		const struct store_pred *p = &s->preds.v[i % s->preds.n];
		struct buf b;
		int clash;

		buf_init(&b);
		buf_printf(&b, "%s%s", k->prefix, p->name);
		do {
			clash = 0;
			for (size_t j = 0; j < i && !b.oom && !clash; j++)
				clash = !sqlite3_stricmp(w[j].name, b.s);
			if (clash)
				buf_printf(&b, "_%lld", (long long)p->id);
		} while (clash && !b.oom);
		if (!(w[i].name = buf_take(&b)))
			return -1;
		buf_init(&b);
		if (view_sql(s, p, k, w[i].name, &b) < 0 ||
		    !(w[i].sql = buf_take(&b))) {
			buf_free(&b);
			return -1;
		}
	}
	return 0;
}

int
views_sync(struct store *s, struct err *e)
{
	struct want *w;
	sqlite3_stmt *st = NULL;
	VEC(char *) other = { 0 };  /* names not ours: never replaced */
	struct buf drop, make;
	int rc;

	buf_init(&drop);
	buf_init(&make);
	if (!(w = xcalloc(2 * s->preds.n + 1, sizeof *w)) ||
	    wants_make(s, w) < 0) {
		rc = err_oom(e);
		goto done;
	}
	if ((rc = db_prep(s, sql_views_named, &st, e)))
		goto done;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		size_t j;
		char *n;
		if (!name)
			continue;
		if (!type || strcmp(type, "view") || !sql ||
		    (!strstr(sql, VIEW_MARK) && !strstr(sql, MAP_MARK))) {
			if (!(n = xstrdup(name)) || VEC_PUSH(other, n) < 0) {
				free(n);
				rc = err_oom(e);
				goto done;
			}
			continue;
		}
		for (j = 0; j < 2 * s->preds.n; j++)
			if (!strcmp(w[j].name, name) && !strcmp(w[j].sql, sql))
				break;
		if (j < 2 * s->preds.n)
			w[j].have = 1;
		else {
			buf_puts(&drop, "DROP VIEW ");
			ident(&drop, name);
			buf_puts(&drop, ";\n");
		}
	}
	if (rc != SQLITE_DONE) {
		rc = db_err(s, e, "sqlite_schema");
		goto done;
	}
	/* a table or view of the user's with the name keeps it: no view */
	for (size_t j = 0; j < 2 * s->preds.n; j++)
		if (!w[j].have && !taken(other.v, other.n, w[j].name)) {
			buf_puts(&make, w[j].sql);
			buf_puts(&make, ";\n");
		}
	rc = 0;
	if (drop.oom || make.oom)
		rc = err_oom(e);
	if (!rc && drop.len)
		rc = db_exec(s, drop.s, e);
	if (!rc && make.len)
		rc = db_exec(s, make.s, e);
done:
	sqlite3_finalize(st);
	wants_free(w, 2 * s->preds.n);
	for (size_t i = 0; i < other.n; i++)
		free(other.v[i]);
	free(other.v);
	buf_free(&drop);
	buf_free(&make);
	return rc;
}
