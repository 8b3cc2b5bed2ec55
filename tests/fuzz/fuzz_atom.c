/* fuzz_atom.c: libFuzzer target for the evidence and query line scanners
 * (atom_scan, line_content, query lists). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	if (!(s = malloc(size + 1)))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (query_parse_list(s, &q, &e) == 0 || 1)
		query_list_free(&q);
	free(s);
	return 0;
}
