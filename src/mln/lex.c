/* lex.c: the lexer of .mln files: splits the text into tokens (names,
 * numbers, quoted constants, operators, line ends) for parse.c; comments
 * vanish.  Errors name file:line:column. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sqlift.h"
#include "mln/lex.h"

static int
lex_err(const char *file, struct err *e, const struct token *t,
    const char *fmt, ...) PRINTF(4, 5);

static int
lex_err(const char *file, struct err *e, const struct token *t,
    const char *fmt, ...)
{
	char msg[ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(e, SQLIFT_EINPUT, "%s:%d:%d: %s", file, t->line, t->col,
	    msg);
}

static int
is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int
is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '\'';
}

const char *
lex_tok_name(enum tok t)
{
	static const char *names[] = {
		"end of file", "end of line", "name", "number", "string", "'('",
		"')'", "','", "'!'", "'^'", "'v'", "'=>'", "'<=>'", "'='", "'{'",
		"'}'", "'.'", "'+'", "'*'", "'@'", "'...'", "'#'", "EXIST",
		"FORALL", "character"
	};
	return names[t];
}

int
lex_text(const char *file, const char *s, size_t n, struct tokens *out,
    struct err *e)
{
	size_t i = 0;
	int line = 1, col = 1;

	if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		i = 3;  /* a UTF-8 byte-order mark */
	while (i < n) {
		struct token t;
		size_t st = i;
		int c = (unsigned char)s[i];

		if (c == '\n') {
			t = (struct token){ .t = T_NL, .s = s + i, .len = 1, .line = line,
			    .col = col };
			if (VEC_PUSH(*out, t) < 0)
				return err_oom(e);
			i++, line++, col = 1;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++, col++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			int l0 = line, c0 = col;
			i += 2, col += 2;
			while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
				if (s[i] == '\n')
					line++, col = 1;
				else
					col++;
				i++;
			}
			if (i + 1 >= n) {
				struct token bad = { .t = T_OTHER, .s = s, .line = l0,
				    .col = c0 };
				return lex_err(file, e, &bad, "unterminated /* comment");
			}
			i += 2, col += 2;
			continue;
		}
		t.s = s + i;
		t.line = line;
		t.col = col;
		if (c == '"') {
			i++;
			while (i < n && s[i] != '"' && s[i] != '\n')
				i++;
			if (i >= n || s[i] != '"') {
				t.len = 1;
				return lex_err(file, e, &t, "unterminated quoted constant");
			}
			i++;
			t.t = T_STR;
		} else if (isdigit(c) || ((c == '-' || c == '+') && i + 1 < n &&
		    (isdigit((unsigned char)s[i + 1]) || (s[i + 1] == '.' &&
		    i + 2 < n && isdigit((unsigned char)s[i + 2]))))) {
			i++;
			while (i < n && isdigit((unsigned char)s[i]))
				i++;
			if (i + 1 < n && s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
				i++;
				while (i < n && isdigit((unsigned char)s[i]))
					i++;
			}
			if (i < n && (s[i] == 'e' || s[i] == 'E') && i + 1 < n &&
			    (isdigit((unsigned char)s[i + 1]) || ((s[i + 1] == '-' ||
			    s[i + 1] == '+') && i + 2 < n &&
			    isdigit((unsigned char)s[i + 2])))) {
				i += 2;
				while (i < n && isdigit((unsigned char)s[i]))
					i++;
			}
			t.t = T_NUM;
			/* a constant such as 3abc or 1-2 continues as a name */
			if (i < n && is_ident_char((unsigned char)s[i]) &&
			    isdigit(c)) {
				while (i < n && is_ident_char((unsigned char)s[i]))
					i++;
				t.t = T_IDENT;
			}
		} else if (is_ident_start(c)) {
			while (i < n && is_ident_char((unsigned char)s[i]))
				i++;
			t.t = T_IDENT;
			/* the first letter before the words (a domain of
			 * P10000... is a million names of 5 letters) */
			if (i - st == 1 && c == 'v')
				t.t = T_OR;
			else if (i - st == 5 && (c == 'E' || c == 'e') &&
			    (!strncmp(s + st, "EXIST", 5) ||
			    !strncmp(s + st, "exist", 5)))
				t.t = T_EXIST;
			else if (i - st == 6 && (c == 'F' || c == 'f') &&
			    (!strncmp(s + st, "FORALL", 6) ||
			    !strncmp(s + st, "forall", 6)))
				t.t = T_FORALL;
		} else if (c == '<' && i + 3 <= n && !strncmp(s + i, "<=>", 3)) {
			i += 3, t.t = T_IFF;
		} else if (c == '=' && i + 2 <= n && !strncmp(s + i, "=>", 2)) {
			i += 2, t.t = T_IMP;
		} else if (c == '.' && i + 3 <= n && !strncmp(s + i, "...", 3)) {
			i += 3, t.t = T_ELLIPSIS;
		} else {
			static const char ch[] = "(),!^={}.+*@#";
			static const enum tok tt[] = { T_LP, T_RP, T_COMMA, T_NOT,
			    T_AND, T_EQ, T_LB, T_RB, T_DOT, T_PLUS, T_STAR, T_AT,
			    T_HASH };
			const char *q = strchr(ch, c);
			i++;
			t.t = (q && c) ? tt[q - ch] : T_OTHER;
			if (t.t == T_OTHER) {
				t.len = 1;
				if (c == '\0')
					return lex_err(file, e, &t, "NUL byte "
					    "(not a text file?)");
				return lex_err(file, e, &t, "unexpected character '%c'", c);
			}
		}
		t.len = (int)(i - st);
		col += t.len;
		if (VEC_PUSH(*out, t) < 0)
			return err_oom(e);
	}
	struct token eof = { .t = T_EOF, .s = s + n, .line = line,
	    .col = col };
	if (VEC_PUSH(*out, eof) < 0)
		return err_oom(e);
	return 0;
}
