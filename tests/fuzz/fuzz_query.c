/* fuzz_query.c: libFuzzer harness for the query readers: the input as a
 * query file (query_parse_file, over line_read) and as a -q list, and
 * its first line through the atom scanner. */
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atom_span a;
	struct query_list q = { 0 };
	struct err e = { 0 };
	const char *why;
	char *s;
	int col;

	atom_scan((const char *)data, line_content((const char *)data, size), &a,
	    &why, &col);
	if (query_parse_file(fuzz_file("query.txt", data, size), &q, &e) != 0 &&
	    e.msg[0] == '\0')
		abort();  /* a failure says why */
	query_list_free(&q);
	if (!(s = malloc(size + 1)))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&q, 0, sizeof q);
	e.msg[0] = '\0';
	if (query_parse_list(s, &q, &e) != 0 && e.msg[0] == '\0')
		abort();
	query_list_free(&q);
	free(s);
	return 0;
}
