/* ground.h: the ground model for brute force: every ground atom with its
 * evidence truth, the unknown atoms numbered 0..n-1, and the groundings of
 * every formula simplified against the evidence into small postfix
 * programs over the unknown atoms. */
#ifndef SQLIFT_GROUND_H
#define SQLIFT_GROUND_H

#include <stdint.h>

#include "mln/mln.h"
#include "store/store.h"

#define GROUND_MAX_ATOMS (1L << 24)      /* ground atoms in all */
#define GROUND_MAX_GROUNDINGS 20000000L  /* formula groundings in all */

enum { OP_ATOM, OP_NOT, OP_AND, OP_OR, OP_IFF };

struct ground_formula {
	double weight;
	int hard;
	int start, len;        /* program in ground.code */
};

struct ground {
	const struct mln_model *m;
	const struct mln_domain *dom;
	int npreds;
	int64_t *offset;       /* first ground atom of each model predicate */
	int64_t natoms;
	/* truth and unk hold the atoms of the predicates with doff[p] >= 0
	 * (all of them unless sparse), atom a of p at doff[p] + a -
	 * offset[p]; read them with ground_truth and ground_unk */
	int64_t *doff;
	signed char *truth;    /* per held atom: 1, 0, or -1 unknown */
	int *unk;              /* per held atom: unknown number or -1 */
	VEC(int64_t) etrue;    /* sparse: the true atoms of the closed
	                          predicates, sorted (the others false) */
	VEC(int64_t) unk_atom; /* unknown number -> ground atom */
	VEC(struct ground_formula) gf;
	VEC(int) code;
	double log_const;      /* weights of groundings true by evidence */
	double log_const_c;    /* its rounding error, when summed by
	                          ground_const_add (else 0) */
	int zero;              /* a hard grounding is false by evidence */
	const char *zero_why;  /* text of that formula */
	/* set before ground_formulas, 0 for brute force's limits: the
	 * groundings to enumerate at most (those left after the evidence
	 * are at most GROUND_MAX_GROUNDINGS either way), and the method's
	 * name in messages */
	double max_enumerated;
	const char *who;
	/* lazy_new: the groundings a clause's core may bring the store to
	 * (0: lazy.c's LZ_CORE_MAX) */
	int64_t core_max;
	/* set before ground_atoms: hold the closed predicates' atoms as the
	 * sorted list etrue (the limit GROUND_MAX_ATOMS is then on the open
	 * predicates' atoms alone) */
	int sparse;
};

/* Builds the atoms of m over domains dom (g->who, the method's name in
 * messages, is kept: the caller sets it or zeroes g): closed[p] says whether
 * predicate p's unknown atoms are false; truths come from the store
 * (store_pred[p] is the store index of model predicate p, -1 if none).
 * Caller frees with ground_free(). */
int ground_atoms(struct ground *g, const struct mln_model *m,
    const struct mln_domain *dom, struct store *s, const int *store_pred,
    const int *closed, struct err *e) WUR;
/* The groundings of all of g's formulas, as enumerating lists them. */
double ground_enumerations(const struct ground *g);
/* Grounds every formula of m (after ground_atoms); fails with
 * SQLIFT_ELIMIT past the limits above. */
int ground_formulas(struct ground *g, struct err *e) WUR;
/* Grounds formula k alone, to GROUND_MAX_GROUNDINGS in all. */
int ground_formula(struct ground *g, size_t k, struct err *e) WUR;
/* log_const += x, compensated (Neumaier): a constant of 10^12 and
 * more (lazy grounding's counts) keeps the weights added to it. */
void ground_const_add(struct ground *g, double x);
/* Evidence truth of ground atom a of predicate p: 1, 0, -1 unknown;
 * its unknown number, or -1. */
int ground_truth(const struct ground *g, int p, int64_t a);
int ground_unk(const struct ground *g, int p, int64_t a);
void ground_free(struct ground *g);
/* Truth of grounding k in the world x (x[u]: unknown atom u, nonzero
 * for true); stack has room for the longest program. */
int ground_eval(const struct ground *g, size_t k, const unsigned char *x,
    int *stack);

/* Ground atom index of predicate p with argument domain positions idx. */
int64_t ground_atom_index(const struct ground *g, int p, const int *idx);
/* Decodes a ground atom into its predicate and positions. */
int ground_atom_decode(const struct ground *g, int64_t a, int *idx);
/* "Pred(A,B)"; caller frees. */
char *ground_atom_text(const struct ground *g, int64_t a);

/* Brute force: log Z and, for every unknown atom u, P(u true) in
 * marg[u] (marg may be NULL).  Fails with SQLIFT_ELIMIT above
 * BRUTE_MAX_UNKNOWN unknown atoms and SQLIFT_EZERO when no world has
 * non-zero weight. */
#define BRUTE_MAX_UNKNOWN 24
int brute_solve(const struct ground *g, double *log_z, double *marg,
    double *log_max, struct err *e) WUR;

#endif
