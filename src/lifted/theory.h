/* theory.h: the constrained theory the lifted engine works on (Mittal et
 * al. 2015, section 4): clauses standardised apart and constant-free,
 * each with a setineq constraint set over its variables, on domains split
 * into blocks.  Constants named in formulas become variables restricted
 * to their own singleton block; equality literals become constraints.
 * Evidence, given as hypercubes, is folded in: groundings it satisfies
 * leave their clause (their weights go to a constant), literals it
 * falsifies leave the groundings concerned. */
#ifndef SQLIFT_THEORY_H
#define SQLIFT_THEORY_H

#include "constraint/setineq.h"
#include "mln/mln.h"

struct ct_lit {
	int pred;              /* predicate of the clause model */
	int neg;
	int *var;              /* clause variable of each argument */
};

struct ct_clause {
	double weight;
	int hard;
	int line;              /* of the source formula */
	int nvars;
	int *type;             /* per clause variable */
	int nlits;
	struct ct_lit *lits;
	struct si_set cons;    /* canonical tuples over the variables */
};

/* Evidence for ct_build: per predicate of the clause model, its cubes as
 * domain positions, and whether its unknown atoms are false. */
struct ct_cube {
	int truth;             /* 1 or 0 */
	int nargs;
	int *npos;             /* per argument */
	int **pos;             /* per argument: domain positions */
	int neq, nne;          /* constraints: the product's atoms whose */
	int (*eq)[2], (*ne)[2];  /* argument pairs eq are equal, ne differ */
};
#define CT_GROUND 2

struct ct_pred_ev {
	int closed;
	VEC(struct ct_cube) cubes;
};
struct ct_evidence {
	double max_seconds;    /* building stops after this; 0: no limit */
	int normal;            /* 1 (Normal form): every constant of the
	                          evidence its own block, the others of a
	                          type one; CT_GROUND: every constant alone */
	int **block;           /* [type][domain position]: evidence block */
	struct ct_pred_ev *pred;   /* per predicate of the clause model */
};
/* Frees what blocks_read() (evidence/blocks.c) made. */
void ct_evidence_free(struct ct_evidence *ev, int ntypes, int npreds);

/* Evidence of one predicate in block terms. */
struct ct_ev {
	int closed;
	struct si_set tru, fal;        /* tuples over the predicate's arguments */
};

struct ct_clauses {
	struct ct_clause *v;
	size_t n, cap;
};

struct ct_theory {
	const struct mln_model *m;    /* the clause model: borrowed */
	struct ct_ev *ev;             /* per predicate */
	struct si_space *sp;          /* the blocks of every type */
	struct ct_clauses clauses;
	double log_const;             /* added to log Z */
	double free_atoms;            /* unknown atoms in no clause: 2 each */
	int **block_of;               /* [type][domain position] -> block */
	const struct mln_domain *dom;
	double deadline;              /* CLOCK_MONOTONIC seconds; 0: none */
};

/* Builds the theory of clause model m (every formula a clause, as from
 * mln_to_clauses) over domains dom, with evidence ev (NULL: none; every
 * predicate open).  Caller frees with ct_free(). */
int ct_build(const struct mln_model *m, const struct mln_domain *dom,
    const struct ct_evidence *ev, struct ct_theory **out,
    struct err *e) WUR;
void ct_free(struct ct_theory *t);

/* log Z of the theory by enumerating the worlds of its unknown ground
 * atoms, grounding every clause from its constraints: the test oracle
 * that the theory means what the model meant (small domains only).
 * *free_atoms gets the unknown atoms in no ground clause (may be NULL). */
int ct_brute(const struct ct_theory *t, double *log_z, double *free_atoms,
    struct err *e) WUR;

/* Readable text of the theory (for sqlift explain); caller frees. */
char *ct_text(const struct ct_theory *t);

#endif
