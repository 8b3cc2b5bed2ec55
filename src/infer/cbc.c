/* cbc.c: loads COIN-OR CBC's C API (CBC_SONAME, found by configure)
 * the first time --method map solves an integer program. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>

#include "infer/cbc.h"

static struct cbc_api api;
static const char *why;  /* dlerror's text when the load failed */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Each entry: where it goes in api, and its name in the library. */
#define SYM(f) { (void **)&api.f, "Cbc_" #f }

static void
load(void)
{
	const struct {
		void **at;
		const char *name;
	} sym[] = {
		SYM(newModel), SYM(deleteModel), SYM(loadProblem),
		SYM(setInteger), SYM(setLogLevel), SYM(setObjSense),
		SYM(setAllowableGap), SYM(setAllowableFractionGap),
		SYM(setParameter), SYM(setMaximumSeconds), SYM(solve),
		SYM(bestSolution), SYM(isProvenInfeasible), SYM(isProvenOptimal),
		SYM(getObjValue), SYM(getBestPossibleObjValue),
	};
	/* never closed: the process keeps it to the end */
	void *h = dlopen(CBC_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		why = dlerror();
		return;
	}
	for (size_t i = 0; i < sizeof sym / sizeof *sym; i++)
		if (!(*sym[i].at = dlsym(h, sym[i].name))) {
			why = dlerror();
			return;
		}
}

int
cbc_api(const struct cbc_api **out, struct err *e)
{
	pthread_once(&once, load);
	if (why)
		return err_set(e, SQLIFT_EINTERNAL, "map: cannot load COIN-OR CBC "
		    "(%s): %s; install coinor-libcbc3", CBC_SONAME, why);
	*out = &api;
	return 0;
}
