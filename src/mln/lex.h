/* lex.h: the tokens of an .mln file, private to src/mln/ (lex.c makes
 * them, parse.c reads them). */
#ifndef SQLIFT_LEX_H
#define SQLIFT_LEX_H

#include <stddef.h>

#include "util/util.h"

enum tok {
	T_EOF, T_NL, T_IDENT, T_NUM, T_STR, T_LP, T_RP, T_COMMA, T_NOT, T_AND,
	T_OR, T_IMP, T_IFF, T_EQ, T_LB, T_RB, T_DOT, T_PLUS, T_STAR, T_AT,
	T_ELLIPSIS, T_HASH, T_EXIST, T_FORALL, T_OTHER
};

struct token {
	const char *s;         /* start in the text */
	enum tok t;            /* after s: 24 bytes, not 32 (a domain of a */
	int len;               /* million constants is two million tokens) */
	int line, col;
};

struct tokens {
	struct token *v;
	size_t n, cap;
};

/* Splits s[0..n) into tokens appended to out, ending with T_EOF; comments
 * vanish, line ends stay (T_NL).  Tokens point into s.  Errors (an
 * unterminated comment or quote, a stray character) name file:line:col;
 * the caller frees out->v in any case. */
int lex_text(const char *file, const char *s, size_t n, struct tokens *out,
    struct err *e) WUR;
/* A token kind for messages: "end of line", "'('". */
const char *lex_tok_name(enum tok t);

#endif
