/* infer-int.h: what the inference driver (infer.c) shares with its
 * per-method parts (infer-gibbs.c, infer-map.c): the state of one run
 * and its results before they are written. */
#ifndef SQLIFT_INFER_INT_H
#define SQLIFT_INFER_INT_H

#include "evidence/evidence.h"
#include "infer/ground.h"
#include "infer/infer.h"
#include "infer/map.h"
#include "infer/warn.h"
#include "sample/gibbs.h"
#include "lifted/theory.h"

struct run {
	struct store *s;
	struct mln_model *m;
	struct mln_domain *dom;
	struct ground g;
	int *store_pred;       /* model pred -> store index */
	int *closed;
	int *queried;          /* model pred is named by a query */
	int *forced_ow;
	struct query_list q;
	unsigned char *is_query;  /* per ground atom from is_query_lo */
	int64_t is_query_lo;
	double max_seconds;    /* for building the theory too */
	double t0;             /* when infer_run started: --max-seconds
	                          counts from it */
	int map;               /* --method map: clauses for the max semiring,
	                          the ground atoms read when few enough */
	struct warns w;        /* infer_run's, for runs.warnings */
	struct err *e;
	/* lbg: the limit that stopped the lifted build or the grounding
	 * (status 0: none), the run going the other way */
	struct err lifted_err, ground_err;
};

/* One query atom's marginal; group -1 when not from a lifted group. */
struct qrow {
	int pred;
	int64_t group;
	double p;
	char *atom;
};
struct qrows {
	struct qrow *v;
	size_t n, cap;
};

/* Groups of interchangeable query atoms, with their marginals. */
struct group {
	int pred;
	double atoms, p, se;
	double rhat;           /* NaN but for samplers of several chains */
	int *be;               /* block[arity], then eq[arity] (lis) */
};
struct groups {
	struct smap ids;       /* key text -> index */
	VEC(struct group) v;
};

/* The constrained theory of a run: cubes built, clauses of the model,
 * evidence folded in (normal: the Normal form).  Shared by exact
 * inference and explain. */
struct built {
	struct mln_model *c;       /* the clause model */
	struct ct_evidence *ev;
	struct ct_theory *t;
	int *closed;
	double k;                  /* the clause conversion's constant */
	double t0;                 /* when the build started */
	double seconds;            /* to build all this */
};

/* Marks the ground atoms that a query item names (r->is_query). */
int infer_mark_query(struct run *r, const struct query_atom *qa,
    const char *where) WUR;
/* The rest of the build, from memory: the constrained theory. */
int infer_build_finish(struct built *b, const struct mln_domain *dom,
    struct err *e) WUR;

/* Exact inference on b (read) within lim's limits (max_nodes, max_work,
 * max_seconds, max_memory; the order from o): log Z, and the marginals
 * per group of query atoms. */
int infer_exact_solve(struct run *r, const struct sqlift_infer_opts *o,
    const struct eng_opts *lim, struct built *b, double *log_z,
    struct groups *gr, struct qrows *rows, struct buf *stats) WUR;
/* lbg's budget for the whole model as one cluster: work of the lifted
 * search (--exact-budget, eng_opts.max_work; 0: none). */
int64_t infer_lbg_budget(const struct sqlift_infer_opts *o);
/* and the memory it may hold and the seconds it may take */
double infer_lbg_memory(const struct sqlift_infer_opts *o);
double infer_lbg_seconds(const struct sqlift_infer_opts *o);
/* --method lbg, first: the whole model one cluster, solved by the
 * lifted search within the exact budget (*solved 1), else nothing
 * (infer-gibbs.c). */
int infer_lbg_lifted(struct run *r, const struct sqlift_infer_opts *o,
    struct built *b, double *log_z, struct groups *gr, struct qrows *rows,
    struct buf *stats, int *solved) WUR;
/* --method gibbs and blocked-gibbs (infer-gibbs.c). */
int infer_gibbs_solve(struct run *r, const struct sqlift_infer_opts *o,
    struct groups *gr, struct qrows *rows, struct buf *stats,
    struct gibbs_result *res, int64_t *unknown) WUR;
/* explain's lines "predicate P: open|closed world", one per predicate. */
void infer_print_worlds(const struct run *r, FILE *out);
/* explain --method lbg: the ground model's clusters (after run_setup). */
int infer_lbg_explain(struct run *r, const char *path, FILE *out) WUR;
/* --method map (infer-map.c): the world into w, then as rows. */
int infer_map_solve(struct run *r, const struct sqlift_infer_opts *o,
    struct built *b, struct map_world *w, struct buf *stats) WUR;
int infer_map_rows(struct run *r, const struct map_world *w,
    struct qrows *rows) WUR;

#endif
