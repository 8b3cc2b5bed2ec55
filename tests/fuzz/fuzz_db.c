/* fuzz_db.c: libFuzzer harness for Alchemy .db evidence: the input loaded
 * as an evidence file into a database holding fuzz_model, in a
 * transaction rolled back after each input. */
#include <stdio.h>
#include <stdlib.h>

#include "evidence/evidence.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store *s = fuzz_store();
	struct err e = { 0 };
	int64_t n = 0;
	int rc;

	if (store_begin(s, &e)) {
		fprintf(stderr, "store_begin: %s\n", e.msg);
		abort();
	}
	rc = evidence_load(s, fuzz_file("evidence.db", data, size), NULL,
	    &n, &e);
	if (rc && e.msg[0] == '\0')
		abort();  /* a failure says why */
	store_rollback(s);
	return 0;
}
