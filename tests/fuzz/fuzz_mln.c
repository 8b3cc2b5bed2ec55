/* fuzz_mln.c: libFuzzer harness for the .mln parser and, on small
 * inputs, the conversion to clauses over domains of two constants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mln/mln.h"
#include "fuzz.h"

/* A range {0,...,N} with N of 5 digits or more: the parser accepts up
 * to 10^7 constants, seconds each under the sanitizers, and the fuzzer
 * would spend its time there (issue 21 item 5: a domain size limit).
 * Under 10^4, all ranges together name fewer than 10^4 constants: with
 * 91,215 twice per input ASan's allocator grew past 2 GB of RSS in
 * 234,000 runs, though every input freed what it took. */
static int
big_range(const uint8_t *d, size_t n)
{
	for (size_t i = 0; i + 3 < n; i++)
		if (d[i] == '.' && d[i + 1] == '.' && d[i + 2] == '.') {
			size_t k = i + 3, digits = 0;
			while (k < n && (d[k] == ',' || d[k] == ' ' || d[k] == '\t'))
				k++;
			while (k < n && d[k] >= '0' && d[k] <= '9')
				k++, digits++;
			if (digits >= 5)
				return 1;
		}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mln_model *m = NULL, *c = NULL;
	struct err e = { 0 };
	double k;

	if (big_range(data, size))
		return 0;
	/* under ASan each budget unit costs about 500 bytes, and the
	 * allocator keeps each size class's peak over the inputs: 2^18 per
	 * input grew past 2 GB in 30,000 runs */
	mln_clause_budget((size_t)1 << 13);
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
