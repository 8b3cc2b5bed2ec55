/* cbc.h: COIN-OR CBC's C API as a table of functions, loaded on first
 * use (dlopen), so that commands that solve no integer program start
 * without CBC's libraries. */
#ifndef SQLIFT_CBC_H
#define SQLIFT_CBC_H

#include <Cbc_C_Interface.h>

#include "sqlift.h"
#include "util/util.h"

struct cbc_api {
	Cbc_Model *(*newModel)(void);
	void (*deleteModel)(Cbc_Model *);
	void (*loadProblem)(Cbc_Model *, int, int, const CoinBigIndex *,
	    const int *, const double *, const double *, const double *,
	    const double *, const double *, const double *);
	void (*setInteger)(Cbc_Model *, int);
	void (*setLogLevel)(Cbc_Model *, int);
	void (*setObjSense)(Cbc_Model *, double);
	void (*setAllowableGap)(Cbc_Model *, double);
	void (*setAllowableFractionGap)(Cbc_Model *, double);
	void (*setParameter)(Cbc_Model *, const char *, const char *);
	void (*setMaximumSeconds)(Cbc_Model *, double);
	int (*solve)(Cbc_Model *);
	const double *(*bestSolution)(Cbc_Model *);
	int (*isProvenInfeasible)(Cbc_Model *);
	int (*isProvenOptimal)(Cbc_Model *);
	double (*getObjValue)(Cbc_Model *);
	double (*getBestPossibleObjValue)(Cbc_Model *);
	int (*isSecondsLimitReached)(Cbc_Model *);
};

/* The API, loaded once per process (thread-safe); an error naming the
 * library when it cannot be loaded. */
int cbc_api(const struct cbc_api **api, struct err *e) WUR;

/* What a solve gave: a solution of the first n columns (x, 0 or 1), its
 * objective, the best possible (a bound), whether proven. */
struct cbc_answer {
	int have, proven, infeasible;
	int finished;          /* 0: stopped at the deadline, nothing known */
	double obj, best;
};

/* Solves m (maximising) with CBC's time limit, wall seconds to
 * deadline.  With a deadline, in a child process that is killed at the
 * deadline: CBC checks its limit only between phases (its preprocessing
 * and root LP ran 18 s over a limit of 4 on UW-CSE).  deadline 0: no
 * limit, in this process. */
void cbc_solve(const struct cbc_api *cbc, Cbc_Model *m, double deadline,
    size_t n, signed char *x, struct cbc_answer *a);

#endif
