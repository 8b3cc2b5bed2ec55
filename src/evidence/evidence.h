/* evidence.h: reading evidence (Alchemy .db files, CSV files named after
 * their predicate, folders of those) into the store, and reading query
 * atoms (Alchemy query files and -q lists). */
#ifndef SQLIFT_EVIDENCE_H
#define SQLIFT_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/util.h"

/* Loads a .db file, a .csv file or a folder of them; adds the number of
 * atoms read to *n.  Messages name file:line. */
int evidence_load(struct store *s, const char *path, int64_t *n,
    struct err *e) WUR;

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
	const char *arg[64];
	size_t arg_len[64];
	int arg_col[64];
};
int atom_scan(const char *s, size_t n, struct atom_span *a, const char **why,
    int *col);

/* Length of the content of a line: up to a // comment outside quotes or
 * the line end. */
size_t line_content(const char *s, size_t n);

#endif
