/* cbc.c: loads COIN-OR CBC's C API (CBC_SONAME, found by configure)
 * the first time --method map solves an integer program, and solves one
 * within a deadline (in a child process killed at it). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

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
		SYM(isSecondsLimitReached),
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

/* Solves m and reads the answer into a and x (n columns). */
static void
solve_here(const struct cbc_api *cbc, Cbc_Model *m, size_t n, signed char *x,
    struct cbc_answer *a)
{
	const double *sol;

	cbc->solve(m);
	sol = cbc->bestSolution(m);
	/* stopped by its time limit, CBC 2.10.8 may say infeasible of a
	 * program that is not (Cora, a limit of a few ms) */
	a->infeasible = cbc->isProvenInfeasible(m) &&
	    !cbc->isSecondsLimitReached(m);
	a->proven = cbc->isProvenOptimal(m);
	a->have = sol != NULL;
	for (size_t u = 0; sol && u < n; u++)
		x[u] = sol[u] > 0.5;
	a->obj = a->have ? cbc->getObjValue(m) : -INFINITY;
	a->best = cbc->getBestPossibleObjValue(m);
	a->finished = 1;
}

/* Waits for the child on fd until deadline; kills it past that. */
static void
wait_child(pid_t pid, int fd, double deadline)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int st;

	for (;;) {
		double left = deadline - now_seconds();
		int r;
		if (left <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		r = poll(&p, 1, (int)ceil(left * 1000));
		if (r > 0 || (r < 0 && errno != EINTR))
			break;   /* the child closed the pipe: it is done */
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

void
cbc_solve(const struct cbc_api *cbc, Cbc_Model *m, double deadline,
    size_t n, signed char *x, struct cbc_answer *a)
{
	size_t size = sizeof *a + n + 1;
	struct cbc_answer *sh;
	int fd[2] = { -1, -1 };
	pid_t pid;

	memset(a, 0, sizeof *a);
	if (deadline > 0) {
		/* wall time, as --max-seconds; a little before the kill */
		double left = deadline - now_seconds();
		cbc->setParameter(m, "timeMode", "elapsed");
		cbc->setMaximumSeconds(m, fmax(0.01, 0.9 * left));
	}
	if (deadline <= 0 || (sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED) {
		solve_here(cbc, m, n, x, a);
		return;
	}
	memset(sh, 0, sizeof *sh);
	pid = pipe(fd) < 0 ? -1 : fork();
	if (pid < 0) {
		/* no child: here, CBC's own limit alone */
		if (fd[0] >= 0) {
			close(fd[0]);
			close(fd[1]);
		}
		solve_here(cbc, m, n, x, a);
		munmap(sh, size);
		return;
	}
	if (pid == 0) {
		close(fd[0]);
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);  /* no orphan solving on */
#endif
		solve_here(cbc, m, n, (signed char *)(sh + 1), sh);
		_exit(0);
	}
	close(fd[1]);
	wait_child(pid, fd[0], deadline);
	close(fd[0]);
	if (sh->finished) {
		*a = *sh;
		memcpy(x, sh + 1, n);
	}
	munmap(sh, size);
}
