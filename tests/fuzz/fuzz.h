/* fuzz.h: what the libFuzzer harnesses of tests/fuzz share: a private
 * folder for the files a reader takes by path, and a small model stored
 * once for the evidence readers. */
#ifndef SQLIFT_FUZZ_H
#define SQLIFT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data to the file name inside the harness's own folder (made once
 * under $TMPDIR, removed at exit); returns its path, or aborts.  Paths
 * are static, valid for the next three calls of fuzz_file or fuzz_path. */
const char *fuzz_file(const char *name, const void *data, size_t size);
/* The path name has in that folder, as fuzz_file's. */
const char *fuzz_path(const char *name);

/* The model the evidence harnesses load into: arities 1 to 3,
 * two types, a closed-world predicate, a few stored atoms. */
extern const char fuzz_model[];
/* A database in the harness folder holding fuzz_model and its evidence,
 * opened once; aborts on failure. */
struct store *fuzz_store(void);

#endif
