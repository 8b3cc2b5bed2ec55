/* evidence.h: reading evidence (Alchemy .db files, CSV files named after
 * their predicate, folders of those) into the store, and reading query
 * atoms (Alchemy query files and -q lists). */
#ifndef SQLIFT_EVIDENCE_H
#define SQLIFT_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sqlift.h"
#include "mln/mln.h"
#include "store/store.h"
#include "util/util.h"

/* How a load reads its files. */
enum { EVIDENCE_CSV_AUTO, EVIDENCE_CSV_HEADER, EVIDENCE_CSV_NO_HEADER };
struct evidence_opts {
	/* a CSV file's first row: a header when it names the predicate's
	 * argument types (AUTO), always (HEADER), never (NO_HEADER) */
	int csv_header;
	size_t max_line;       /* bytes of one line; 0: EVIDENCE_MAX_LINE */
	sqlift_log_fn *log;    /* notes (a header row skipped), or NULL */
	void *log_arg;
};
/* Loads a .db file, a .csv file or a folder of them; adds the number of
 * atoms read to *n.  Messages name file:line.  o may be NULL (the
 * defaults). */
int evidence_load(struct store *s, const char *path,
    const struct evidence_opts *o, int64_t *n, struct err *e) WUR;

/* One atom of a query: args are constant names, or NULL for a variable. */
struct query_atom {
	char *pred;
	int nargs;
	char **args;           /* NULL entry: variable (any constant) */
	int *var;              /* variable number within the atom, -1 constant */
};
struct query_list {
	VEC(struct query_atom) v;
};
/* Parses a comma-separated list of predicate names or atoms (-q). */
int query_parse_list(const char *list, struct query_list *q,
    struct err *e) WUR;
/* Parses an Alchemy/Tuffy query file: one atom per line. */
int query_parse_file(const char *path, struct query_list *q,
    struct err *e) WUR;
void query_list_free(struct query_list *q);

/* Parses one atom "Pred(a, b)" (with optional leading '!') from s[0..n).
 * Arguments are trimmed; quoted constants keep their quotes.  On success
 * fills the spans and returns 0; otherwise returns -1 and sets *why and
 * *col (1-based). */
struct atom_span {
	const char *name;
	size_t name_len;
	int neg;
	int nargs;
	const char *arg[MLN_MAX_ARITY];
	size_t arg_len[MLN_MAX_ARITY];
	int arg_col[MLN_MAX_ARITY];
};
int atom_scan(const char *s, size_t n, struct atom_span *a, const char **why,
    int *col);

/* The lines of an evidence or query file, read one at a time. */
#define EVIDENCE_MAX_LINE ((size_t)MLN_MAX_LINE)  /* the default */
struct line_reader {
	FILE *f;               /* borrowed */
	const char *path;      /* for messages */
	int line;              /* number of the line in s */
	char *s;               /* the line with its '\n', no NUL inside */
	size_t len, cap;
	size_t max;            /* longest line; 0: EVIDENCE_MAX_LINE */
};
/* Reads the next line into r->s: 1 if read, 0 at the end of the file,
 * -1 with the status and file:line:column in e on a NUL byte, a line
 * longer than r->max, a read error.  A UTF-8 byte-order mark
 * at the start of the file is dropped.  The caller frees r->s. */
int line_read(struct line_reader *r, struct err *e) WUR;

/* Length of the content of a line: up to a // comment outside quotes or
 * the line end. */
size_t line_content(const char *s, size_t n);

#endif
