/* fuzz_mln.c: libFuzzer harness for the .mln parser and, on small
 * inputs, the conversion to clauses over domains of two constants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mln/mln.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mln_model *m = NULL, *c = NULL;
	struct err e = { 0 };
	double k;

	if (mln_parse((const char *)data, size, "fuzz.mln", &m, &e) == 0 &&
	    size < 300) {
		struct mln_domain *d = calloc(m->types.n + 1, sizeof *d);
		static char a[] = "A", b[] = "B";
		char *names[] = { a, b };
		for (size_t t = 0; t < m->types.n; t++) {
			d[t].n = 2;
			d[t].names = names;
		}
		if (mln_to_clauses(m, d, 0, &c, &k, &e) == 0)
			mln_free(c);
		free(d);
	}
	mln_free(m);
	return 0;
}
