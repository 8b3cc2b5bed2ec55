/* gibbs-int.h: the Gibbs samplers' shared structure: the ground model's
 * incidence, the blocks of a sweep, one block's update (gibbs.c), and the
 * chains that run them (chains.c). */
#ifndef SQLIFT_GIBBS_INT_H
#define SQLIFT_GIBBS_INT_H

#include "sample/gibbs.h"
#include "sample/sample.h"

/* The sampler's view of a ground model, shared read-only by the chains. */
struct gb_model {
	const struct ground *g;
	int n;                 /* unknown atoms */
	int *afirst, *aform;   /* atom u's formulas: aform[afirst[u] ..
	                          afirst[u + 1]), each once */
	int *bfirst, *batom;   /* block b's atoms: batom[bfirst[b] ..
	                          bfirst[b + 1]) */
	int *ffirst, *bform;   /* block b's formulas, each once */
	int nblocks;
	int largest;
	int maxbform;          /* formulas of the block with the most */
	int maxlen;            /* longest formula program */
	int nhard;             /* hard formulas */
	/* lbg (lbg.c) only, else NULL / 0: per block how it is drawn:
	 * 0 by enumeration (gb_update), 1 its atoms independent given the
	 * rest (by counts: lbg_update), 2 by the binomial rule (bin[b],
	 * lbg_binom_update), 3 a tree group (tree[b], lbg_tree_update), 4 a
	 * clique (cJ[b], lbg_clique_update), 5 label swaps of a group of
	 * cliques (swk[b], lbg_swap_update) */
	unsigned char *indep;
	struct lbg_binom **bin;
	struct lbg_tree **tree; /* per block of kind 3 (a tree group drawn
	                          by sum-product: lbg_tree_update), else NULL */
	double *cJ;            /* per block: of kind 4 (a clique:
	                          lbg_clique_update) its interaction J */
	int *swk;              /* per block: of kind 5 (a swap group:
	                          lbg_swap_update) its cliques' size */
	struct lbg_bundles *bun; /* the atoms of kind 1 blocks: their shared
	                          formula bundles (lbg-bundle.c) */
	int largest_indep;     /* atoms of the largest block of kind 1 to 5 */
	int largest_piv;       /* pivots of the largest block of kind 2 */
	struct lbg_state *ls;  /* lbg: the log-odds kept as the chain moves
	                          (lbg-state.c); NULL: none kept */
	struct lbg_cluster *cl;  /* the clusters, in predicate order */
	int ncl;
	int *cl_of_pred;       /* per predicate: its cluster, -1: none */
};

/* One cluster of lbg: predicates sampled as a unit.  Its atoms fall into
 * groups, connected by the formulas they share; given the rest the
 * groups are independent. */
struct lbg_cluster {
	int lifted;            /* 1: every group has at most LBG_GROUP_MAX
	                          atoms: one draw per group; 2: the binomial
	                          rule on pivot (lbg_binom); 3: as 1, but
	                          each larger group a binomial block on
	                          pivot (lbg_binom_group); 0: single-site */
	int pivot;             /* lifted 2 and 3: the pivot predicate */
	double J;              /* lifted 2: the weight of a pair of pivots */
	int64_t atoms, groups;
	int64_t trees;         /* groups drawn by sum-product (lbg-tree.c) */
	int64_t bundles;       /* distinct formula bundles of its independent
	                          atoms (lbg-bundle.c) */
	int largest;           /* atoms of the largest group */
	int64_t pairs;         /* lifted 0: blocks of two atoms drawn by
	                          enumeration (lbg-coupled.c) */
	int64_t cliques;       /* lifted 0: clique blocks (lbg-coupled.c) */
	int largest_clique;
	int64_t swaps;         /* lifted 0: swap groups (lbg-swap.c) */
	int largest_swap;      /* cliques of the largest */
	double cost;           /* formula evaluations per sweep */
};

/* Builds m's incidence and blocks.  lbg 1: lbg's (lbg_blocks; block_max
 * unused).  Else block_max 1 gives a block per atom outside hard
 * formulas and one per hard formula of at most GB_HARD_MAX atoms; more
 * grows blocks greedily along the formulas (hard ones first) up to
 * block_max atoms, from lbg's blocks when lbg is 2 (lbg_ground_plan),
 * and adds a block for each hard formula of at most GB_HARD_MAX atoms
 * that spans two. */
int gb_model_build(struct gb_model *m, const struct ground *g,
    int block_max, int lbg, struct err *e) WUR;
void gb_model_free(struct gb_model *m);
/* Frees m's lbg parts (blocks, kinds, clusters, bundles), leaving its
 * incidence. */
void gb_lbg_free(struct gb_model *m);

/* blocked-gibbs's start from lbg's blocks: per atom pre[u], the first
 * atom of its block when lbg's block has 2 to block_max atoms and is
 * drawn whole (a group, tree or clique), else u; label[u], lbg's block
 * when that block is larger or binomial (grown into pieces of at most
 * block_max along its formulas), else -2.  Atoms drawn independently
 * and swap groups (Metropolis, no Gibbs block) stay single. */
struct gb_plan {
	int *pre, *label;
};
/* lbg.c: the plan of m's atoms (m's incidence built); m's lbg parts are
 * freed after; -1: out of memory. */
int lbg_ground_plan(struct gb_model *m, int block_max, int *fat,
    struct gb_plan *pl);

/* Blocks of hard formulas across blocks: the hard formulas of 2 to
 * GB_HARD_MAX atoms, the tightest first (the smallest share of their
 * atoms' values satisfying them), joined into sets while they share an
 * atom and the set has at most GB_HARD_SET atoms; a set one of whose
 * formulas spans two blocks (by gb_find on parent) is a block (a chain
 * A <=> B, B <=> C moves only when A, B and C are drawn together, though
 * B <=> C lies in one block), and so is a spanning formula past the
 * limit alone.  Block j's atoms:
 * atom[first[j] .. first[j + 1]), j < n.  fat: room for the longest
 * program; -1: out of memory. */
struct gb_hard {
	int n;
	int *first, *atom;
};
int gb_hard_sets(const struct ground *g, int n, int *parent, int *fat,
    struct gb_hard *out);
void gb_hard_free(struct gb_hard *h);

/* Union-find: u's root in parent[], halving the path on the way. */
int gb_find(int *parent, int u);

/* The distinct atoms of formula f into out (room for its program's
 * length); their number. */
int gb_form_atoms(const struct ground *g, int f, int *out);

/* lbg.c: the clusters (Algorithm 2 of Venugopal and Gogate 2012) and
 * the blocks of a sweep out of them into m (bfirst, batom, nblocks,
 * indep, cl...), after make_incidence; -1: out of memory. */
int lbg_blocks(struct gb_model *m, int *fat);

/* lbg-coupled.c: the coupled blocks of the atoms u with in[u] > 0 (two
 * atoms join only when their in[] are equal), grown along the pairs of
 * atoms by the summed |weight| of the soft formulas of at most 4 atoms
 * of theirs that hold both, heaviest first.  Cliques: root[u] the
 * clique's first atom (u itself when single), size[root] its atoms,
 * J[root] its pair interaction, next[] its atoms listed from the root;
 * every two of its atoms meet only in soft formulas of those two unknown
 * atoms, whose interactions w(1,1) - w(1,0) - w(0,1) + w(0,0) add up to
 * J (at most LBG_CLIQUE_MAX atoms).  Pairs whose formulas do not allow
 * that: mate[u] (-1: none).  fat: room for the longest program; -1: out
 * of memory. */
#define LBG_CLIQUE_MAX 16
struct gb_scratch;
struct lbg_coupled {
	int *root, *size, *mate;
	int *next;             /* a clique's atoms listed from its root */
	double *J;
};
int lbg_coupled(const struct gb_model *m, const int *in, int *fat,
    struct lbg_coupled *out);
void lbg_coupled_free(struct lbg_coupled *c);
/* The interaction of formula f of exactly the two unknown atoms u, v:
 * w(1,1) - w(1,0) - w(0,1) + w(0,0); x all 0 (left so). */
double lbg_interaction(const struct gb_model *m, int f, int u, int v,
    unsigned char *x, int *stack);

/* lbg-swap.c: swap groups of aligned cliques.  Two cliques of k atoms
 * are aligned when their pure formulas of one atom of each with a
 * positive interaction pair their atoms one to one; aligned cliques
 * (two or more, at most LBG_SWAP_MAX) make a group, breadth first from
 * its first clique in atom order, each clique's atoms listed in the
 * order of the positions they are aligned with in the first: group g's
 * atoms atom[first[g] .. first[g + 1]), its cliques' size k[g].  in[]:
 * as for lbg_coupled; -1: out of memory. */
#define LBG_SWAP_MAX 1024
struct lbg_swaps {
	int n;
	int *first, *atom, *k;
};
int lbg_swap_groups(const struct gb_model *m, const int *in,
    const struct lbg_coupled *cp, int *fat, struct lbg_swaps *out);
void lbg_swaps_free(struct lbg_swaps *sw);
/* Swap block b (kind 5): k - 1 proposals, each two positions i != j
 * uniformly (not the last proposal's pair again), the values at i and j
 * exchanged in every clique of the group, kept with probability
 * min(1, W(new) / W(old)) (Metropolis: the move is its own inverse,
 * chosen without regard to the state, so the model's distribution stays
 * invariant).  cur is left alone: the atoms' Rao-Blackwellised values
 * are their clique draws'. */
void lbg_swap_update(const struct gb_model *m, int b, unsigned char *x,
    struct gb_scratch *s, struct eng_rng *r);
/* Draws clique block b (kind 4, interaction m->cJ[b]) exactly by the sum
 * over its count of true atoms, with each atom's conditional marginal in
 * cur. */
void lbg_clique_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);

/* A block drawn by the binomial rule (lbg-binom.c).  Its atoms: the
 * pivots (atoms of one predicate), then the satellites: every other atom
 * of the cluster, each in formulas with no other satellite and at most
 * two pivots.  Summed over the satellites, the pivots' conditional is
 * exp(sum_i h_i p_i + J K(K-1)/2), K the number of true pivots: every
 * pair of pivots meets in factors that hold no atom outside the cluster
 * and add up to the same J.  A factor is a satellite (its formulas) or
 * a formula without one; those of two pivots are static (J and hstat),
 * those of one are evaluated each sweep (dfac). */
struct gb_scratch;
/* A binomial block: pivots (one predicate's atoms), then satellites,
 * independent given the pivots.  Summed out, P(pivots | rest) is
 * exp(sum_i h_i p_i + J K(K-1)/2 + G[K]) with K the true pivots: h_i
 * from hstat and the factors of pivot i alone, G from the satellites
 * that meet every pivot alike (lbg_binom_group), else none. */
struct lbg_binom {
	int npiv, nsat;
	double J;
	double *hstat;         /* per pivot: log-odds from the static factors */
	int *dfirst, *dfac;    /* per pivot: its factors of one pivot: a
	                          satellite u >= 0, or formula f as -f-1 */
	double *G;             /* per count K = 0..npiv: the full satellites'
	                          summed-out weight; NULL: none */
};

/* lbg-binom.c: whether the atoms of clusters a and b (the predicates'
 * clusters in cl, each atom's predicate in pred) with pivot predicate
 * piv make a binomial block; 1 if so, with its J and cost, and the
 * block's description in *out when out is not NULL (caller frees with
 * lbg_binom_free); 0 if not; -1: out of memory. */
int lbg_binom_check(const struct gb_model *m, const int *pred,
    const int *cl, int a, int b, int piv, double *J, double *cost,
    struct lbg_binom **out);
void lbg_binom_free(struct lbg_binom *bb);
/* Per-atom scratch of lbg_binom_group: role and x zero, pidx -1, and so
 * left; fat a formula's atoms. */
struct lbg_gscratch {
	unsigned char *role, *x;
	int *pidx, *fat;
};
/* Whether the k atoms a[] of one group (ascending) with pivot predicate
 * piv make a binomial block by counts: every formula of theirs soft,
 * with at most one pivot and one satellite; each satellite meets no
 * pivot, one, or every pivot alike in formulas of it and pivots only
 * (full: summed out, a fixed weight of the pivots' count).  1 if so,
 * with its cost, a[] reordered pivots first, and the block in *out when
 * out is not NULL; 0 if not; -1: out of memory. */
int lbg_binom_group(const struct gb_model *m, const int *pred, int *a,
    int k, int piv, struct lbg_gscratch *gs, double *cost,
    struct lbg_binom **out);
/* Draws binomial block b: the count of true pivots per class of equal
 * h, then which uniformly, then the satellites (as lbg_update). */
void lbg_binom_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);
/* lbg_update's draw of the k atoms a[] (independent given the rest). */
void lbg_draw_indep(const struct gb_model *m, const int *a, int k,
    unsigned char *x, double *cur, struct gb_scratch *s,
    struct eng_rng *r);

/* A group of a lifted cluster whose formulas hold at most two of its
 * atoms each and join them as a tree (lbg-tree.c).  The block's atoms
 * are in breadth-first order from the root (par[0] = -1, par[i] < i);
 * atom i's formulas: form[nfirst[2i] .. nfirst[2i + 1]) those of it
 * alone in the group, form[nfirst[2i + 1] .. nfirst[2i + 2]) those of it
 * and its parent. */
struct lbg_tree {
	int k;
	int *par;
	int *nfirst, *form;
};
/* Whether the k atoms a[] (a group of 2 to LBG_GROUP_MAX) make a tree;
 * if so, reorders a[] breadth first, sets *out and *cost (formula
 * evaluations per draw) and returns 1; 0 if not; -1: out of memory.
 * pos: per unknown atom -1 (left so); fat: room for the longest
 * program. */
int lbg_tree_make(const struct gb_model *m, int *a, int k, int *pos,
    int *fat, struct lbg_tree **out, double *cost);
void lbg_tree_free(struct lbg_tree *t);
/* Draws tree block b from its conditional given the rest of x (upward
 * messages, then the root and each child given its parent), with each
 * atom's conditional marginal (downward messages) in cur. */
void lbg_tree_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);

/* Formula bundles (lbg-bundle.c): bundle j's formulas, those of its
 * representative atom rep[j], are form[ffirst[j] .. ffirst[j + 1]);
 * atom u's bundles abun[afirst[u] .. afirst[u + 1]), read when on[u]. */
struct lbg_bundles {
	int nb;
	int *ffirst, *form, *rep;
	int *afirst, *abun;
	unsigned char *on;
};
/* Bundles of the atoms u with want[u] (pred: each atom's predicate);
 * -1: out of memory. */
int lbg_bundles_make(struct gb_model *m, const int *pred,
    const unsigned char *want, struct lbg_bundles **out);
void lbg_bundles_free(struct lbg_bundles *b);
/* The log-odds of u true against false in x from formulas F[0..n),
 * each holding u (u's value restored); bits 1 and 2 of *bad: a hard
 * one false with u false, with u true. */
double lbg_logodds(const struct gb_model *m, int u, const int *F, int n,
    unsigned char *x, int *stack, unsigned char *bad);
/* P(u true | the rest of x) from u's bundles, each evaluated once per
 * s->stamp (an atom with on[u] only). */
double lbg_bundle_p(const struct gb_model *m, int u, unsigned char *x,
    struct gb_scratch *s);

/* lbg-state.c: per atom u it keeps (track[u]), L[u] = the log-odds of
 * u from its formulas that hold no other atom of its block, moved by
 * table reads as atoms change.  Kept: the atoms of exactly one block of
 * kind 0, 1 or 3 whose formulas are all soft with at most LS_K atoms.
 * Per formula: its shape's table of 2^k log weights (W + LS_W shape;
 * -1: no kept atom), its atoms in slot order (LS_K each), their number
 * (0xff: not tabulated) and the slots whose atom's L holds it (fext).
 * Per block of kind 0 whose atoms are all kept (full), its formulas of
 * two or more of them: iform[ifirst[b] .. ifirst[b + 1]). */
#define LS_K 4
#define LS_W 16
#define LS_REFRESH 64          /* sweeps between recomputations of L (its
                                  rounding drift) */
#define LS_WEIGHT_MAX 1e6      /* heavier formulas are not kept: adding and
                                  taking away 1e16 loses a weight of 6 */
/* A formula as a change of its atom at slot sv reads it: its shape, its
 * atoms in slot order, their number, and the slots other than sv whose
 * atom's L holds it (ext). */
struct ls_edge {
	int shape;
	int atom[LS_K];
	unsigned char k, sv, ext;
};
struct lbg_state {
	int nshape, ntrack;
	double *W;
	int *fshape, *fatom;
	unsigned char *fk, *fext;
	unsigned char *track;
	int *blk;              /* per atom its first block; -1 none */
	unsigned char *full;
	int *ifirst, *iform;
	/* per atom v the formulas whose other kept slots v's changes move:
	 * edge[pfirst[v] .. pfirst[v + 1]) */
	int *pfirst;
	struct ls_edge *edge;
};
/* Builds m->ls after m's blocks and their formulas (NULL when no atom is
 * kept); -1: out of memory. */
int lbg_state_make(struct gb_model *m);
void lbg_state_free(struct lbg_state *st);
/* L of every kept atom from x. */
void lbg_state_refresh(const struct gb_model *m, const unsigned char *x,
    double *L);
/* v has just changed in x: the L of the other atoms of its formulas. */
void lbg_state_flip(const struct gb_model *m, int v, const unsigned char *x,
    double *L);
struct gb_scratch;
struct eng_rng;
/* Draws full block b (kind 0) by enumeration: its atoms' L and its inner
 * formulas' tables; each atom's conditional marginal in cur. */
void lbg_state_block(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);
/* After block b's draw (its old values in s->xold): L moved by each of
 * its atoms that changed, one at a time. */
void lbg_state_after(const struct gb_model *m, int b, unsigned char *x,
    struct gb_scratch *s);

/* Per chain scratch for the updates. */
struct gb_scratch {
	int *stack;
	double *lw;            /* 2^largest log weights */
	int *mark;             /* per formula, for WalkSAT */
	int *viol, *vpos;      /* violated hard formulas and their places */
	int nviol;
	int *fpos;             /* per formula: its place in the block's list */
	unsigned char *fval;   /* per block formula: its truth now */
	/* lbg_update: per atom of the block its class, the atoms by class;
	 * per class its probability (as bits: the key), size and start */
	int *cid, *memb, *ccount, *cstart, *cslot;
	double *cp;
	uint64_t *ckey;
	/* lbg_binom_update: per pivot h; the prefix tables; a row; for
	 * rb_pivots the suffix tables, a product, P(K) and a row */
	double *h, *dp, *dw, *dq, *dg, *pk, *dl;
	/* lbg_bundle_p: per bundle its value, hard bits and the stamp of the
	 * draw that computed them */
	double *bd;
	unsigned char *bok;
	unsigned *bstamp, stamp;
	/* lbg_clique_update: per atom h, its place; the suffix and prefix
	 * tables ((LBG_CLIQUE_MAX + 1)^2 each); per count log Z_K */
	double *qh, *qsuf, *qpre, *qz;
	int *qi;
	/* lbg_swap_update: the atoms a swap flips; per formula the stamp of
	 * the last swap that listed it, and the list */
	int *swc, *swf;
	unsigned *fstamp, fst;
	/* lbg-state.c: per atom its L; a block's old values and changes */
	double *L;
	unsigned char *xold;
	int *xchg;
};
int gb_scratch_new(struct gb_scratch *s, const struct gb_model *m);
void gb_scratch_free(struct gb_scratch *s);

/* Formula f's truth in world x (one byte per unknown atom). */
int gb_eval(const struct gb_model *m, int f, const unsigned char *x,
    int *stack);
/* Formula f's truth t[p] at each of the 2^k values p of its atoms a[]
 * (bit i atom a[i]); xs all 0, left so. */
void gb_truths(const struct ground *g, int f, const int *a, int k,
    unsigned char *xs, int *stack, unsigned char *t);
/* Draws the k atoms a[] from log weights lw[0 .. 2^k) of their values
 * (-inf: not allowed; the largest finite), into x, and each atom's
 * marginal into cur; lw is overwritten. */
void gb_draw_lw(const int *a, int k, double *lw, unsigned char *x,
    double *cur, struct eng_rng *r);
/* Draws block b from its conditional given the rest of x, and writes
 * each of its atoms' conditional probability of being true to cur. */
void gb_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);
/* lbg: draws block b, whose atoms are independent given the rest, by
 * classes: the atoms whose conditional probability is the same double
 * are drawn as a binomial count, then which of them uniformly; each
 * atom's probability goes to cur. */
void lbg_update(const struct gb_model *m, int b, unsigned char *x,
    double *cur, struct gb_scratch *s, struct eng_rng *r);
/* Changes x until every hard formula holds (WalkSAT); -1 if none was
 * found within the flips allowed. */
int gb_walksat(const struct gb_model *m, unsigned char *x,
    struct gb_scratch *s, struct eng_rng *r);

#endif
