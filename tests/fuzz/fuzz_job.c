/* fuzz_job.c: libFuzzer harness for INI job files (job_read, with every
 * [infer] key through the option table). */
#include <stdlib.h>

#include "job/job.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job j;
	struct err e = { 0 };

	if (job_read(fuzz_file("job.ini", data, size), &j, &e) == 0)
		job_free(&j);
	else if (e.msg[0] == '\0')
		abort();  /* a failure says why */
	return 0;
}
