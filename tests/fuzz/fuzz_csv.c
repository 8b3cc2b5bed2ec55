/* fuzz_csv.c: libFuzzer harness for CSV evidence: the first byte picks
 * the predicate the file is named after ('0' Smokes ... '4' none), the rest is the file, loaded
 * into a database holding fuzz_model in a transaction rolled back after
 * each input. */
#include <stdio.h>
#include <stdlib.h>

#include "evidence/evidence.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"Smokes.csv", "Friends.csv", "Lives.csv", "Trip.csv", "Nobody.csv"
	};
	struct store *s = fuzz_store();
	struct err e = { 0 };
	const char *path;
	int64_t n = 0;
	int rc;

	if (size == 0)
		return 0;
	path = fuzz_file(names[(uint8_t)(data[0] - '0') % 5], data + 1, size - 1);
	if (store_begin(s, &e)) {
		fprintf(stderr, "store_begin: %s\n", e.msg);
		abort();
	}
	rc = evidence_load(s, path, NULL, &n, &e);
	if (rc && e.msg[0] == '\0')
		abort();  /* a failure says why */
	store_rollback(s);
	return 0;
}
