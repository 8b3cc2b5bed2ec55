/* tunables.h: the sampler's fixed constants, one per line.  None changes
 * what a sample estimates, only its variance and its cost; the evidence
 * behind each value is in docs/internals/lis.md, "Tunables". */
#ifndef SQLIFT_TUNABLES_H
#define SQLIFT_TUNABLES_H

/* proposals of sampled binomial nodes (proposal.c, node.c) */
#define PROP_EPS 0.05          /* uniform share of every proposal */
#define PROP_GUIDED 0.025      /* a piloted node's share off its mode */
#define PROP_PRIOR 10.0        /* samples' worth of the uninformed one */
#define PROP_CELLS ((size_t)1 << 24)  /* cells of all proposal tables */
#define MODE_SPLIT 0.5         /* mode's share of the proposal from which
                                  a node splits into mode + remainder */
#define NEGL_NATS 60.0         /* a count this far below the mode in its
                                  pilot is negligible: no pilots below it */
#define BATCH_MIN 32           /* ground atoms drawn at once from here */

/* count pilots (node.c) */
#define CPILOT_MIN 2           /* nodes of this many atoms get a pilot */
#define CPILOT_FREE 8          /* from here always; smaller ones while the
                                  pilots cost no more nodes than the rest */
#define CPILOT_GRID 16         /* its first grid: so many intervals */
#define CPILOT_SOLVES 48       /* its children solved at most */
#define CPILOT_GRID_BELOW 4    /* CPILOT_GRID below a node drawn in the */
#define CPILOT_SOLVES_BELOW 12 /* same sample, and CPILOT_SOLVES */
#define CPILOT_NATS 30.0       /* intervals this far below the best: done */
#define CPILOT_BUDGET 100      /* the exact budget of its solves (at most) */

/* ground parts (flat.c, target.c) */
#define FLAT_CLAUSES 2000      /* a ground part this big: flat at once */
#define GROUND_MAX 2000000.0   /* clauses or atoms of a nearly ground
                                  part grounded whole, at most */

/* the pilot Gibbs run of a flat part (flat-draw.c): the marginals the
 * sequential proposal assumes for atoms not yet drawn; it only sets the
 * proposal, which stays fixed afterwards, so weights stay unbiased */
#define PILOT_SWEEPS 40        /* sweeps of each chain */
#define PILOT_BURN 10          /* of them, not counted in the marginals */
#define PILOT_TRIALS 16        /* sequences that judge each chain */
#define PILOT_MARGIN 1.0       /* nats another chain's median must win by */
#define PILOT_STARTS_MIN 64    /* atoms drawn from which 3 chains start */

/* lbg (lbg-state.c): keep log-odds by formula tables (0: evaluate the
 * formulas at each draw) */
#ifndef LBG_STATE
#define LBG_STATE 1
#endif

#endif
