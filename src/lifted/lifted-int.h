/* lifted-int.h: what the files of the exact lifted search share (src/lifted/):
 * the engine theory (clauses, theories, assignments), its class index,
 * the engine's state, and each file's functions.  Not installed.
 *
 * Return conventions, for every int function here unless it says
 * otherwise: 0 on success; a fallible allocation returns -1 (then the
 * caller reports err_oom); a search function (search_*, smp_*) returns
 * the status it set in g->e (SQLIFT_ENOMEM, SQLIFT_ELIMIT), with g->e
 * holding the message, or ENG_OVER_BUDGET (g->e untouched) while it
 * tries a part exactly.  "Takes t": the function frees theory t, on
 * every path. */
#ifndef SQLIFT_LIFTED_INT_H
#define SQLIFT_LIFTED_INT_H

#include <math.h>
#include <stdint.h>

#include "lifted/engine.h"
#include "sqlift.h"

/* Everything declared here is internal to the library: hidden, so that
 * calls need no PLT and the compiler may inline within a file as it
 * does for static functions. */
#pragma GCC visibility push(hidden)

/* A search function's return while g->mode.trying: the part went over
 * the exact budget.  Not a status: the try that set the budget
 * (smp_try, smp_track_part) takes it and draws the part instead. */
#define ENG_OVER_BUDGET 256

/* At most MAX_VARS variables in a clause (theory.c refuses more),
 * arguments of a predicate and literals of a clause: arrays per
 * variable, argument or literal have this size. */
#define MAX_VARS 64
_Static_assert(MLN_MAX_ARITY <= MAX_VARS && MLN_MAX_CLAUSE_LITS <= MAX_VARS &&
    MLN_MAX_CLAUSE_LITS <= 64, "the model's limits (mln.h) fit the engine's "
    "arrays and fold.c's 64-bit literal masks");
/* A class key (lit_key): the predicate, then per argument its block and
 * its first equal argument; KEY_BUF ints hold any key. */
#define KEY_LEN (1 + 2 * MAX_VARS)
#define KEY_BUF (KEY_LEN + 1)
/* The exact budget's unit: a node of n clauses costs 1 + n /
 * BUDGET_CLAUSES. */
#define BUDGET_CLAUSES 64
/* Ints the cache's keys and counts may take in all. */
#define CACHE_INTS ((size_t)64 << 20)
/* What eng_held counts for a block of n bytes beyond n: malloc's
 * header and rounding; a clause also counts its slot in a theory. */
#define HELD_EXTRA 16

#define LOG2 0.69314718055994530942
/* The deepest the search goes (search_child's levels), well inside an
 * 8 MB stack: friends and smokers with a transitive Friends overflowed
 * it at about 3,400 levels */
#define ENG_MAX_DEPTH 1000

/* What the search combines (enum eng_semiring), as a value the rules
 * apply: sum for log Z, max for the heaviest world (MAP).  A new
 * semiring is a new value, not a branch in each rule. */
struct semiring {
	double free_atom;      /* an unknown atom in no clause: log 2 (both
	                          of its values) or 0 (either) */
	/* a binomial branch of k true atoms of n, of log value z: what it
	 * adds to the node (z + log C(n, k), or z) */
	double (*branch)(double z, int64_t n, int64_t k);
	/* the node's value from its branches' terms[0 .. n) */
	double (*combine)(const double *terms, int64_t n);
	/* two alternatives, a and b, as one: log(e^a + e^b), or max */
	double (*add)(double a, double b);
	/* 1: alternatives that are alike count by their number (a
	 * multinomial's log in the cell graph); 0: one stands for all */
	int counts;
};
extern const struct semiring sr_sum, sr_max;

struct lit {
	int pred, neg, off;    /* arguments: arg[off .. off + arity) */
};

/* One allocation: the header, then lit, blk, neq and arg. */
struct cl {
	double w;
	int hard, nvars, nneq, nlits, nargs;
	int tag;               /* a counted unit clause (eng_track_count):
	                          its tag + 1; 0: none */
	int held;              /* what it adds to eng_held (cl_new) */
	struct lit *lit;
	int *blk;              /* per variable: its block */
	int (*neq)[2];         /* variables of one block, a < b */
	int *arg;
};

struct clv {
	struct cl **v;
	size_t n, cap;
};

struct th {
	int nb, capb;
	int64_t *size;         /* per block */
	int *type;             /* per block: type of the clause model */
	/* A part split off by th_distribute numbers only its own blocks:
	 * gid maps them (in increasing order) to the numbers they have in
	 * the theory the search started from, and blocks added below take
	 * gnb, gnb + 1, ... as they would have there.  gid NULL: that
	 * theory itself. */
	int *gid;
	int gnb;
	struct clv c;
};

/* Classes fixed by hard unit clauses. */
struct units {
	int *v;                /* entries: length, truth, key */
	size_t n, cap;
};

struct centry {
	uint64_t h;
	int *key;              /* NULL: empty slot */
	size_t len;
	double val;
	int track_over;        /* smp_track_part was over the budget here */
	int ne;                /* the expected counts of the tags */
	int *etag;             /* (eng_track_count) under this theory */
	double *ev;
};

/* Many classes of one ground atom each assigned at once (smp_batch):
 * key -> truth, by open addressing. */
struct aent {
	uint64_t h;
	const int *key;        /* NULL: empty */
	size_t len;
	int truth;
};

struct amap {
	struct aent *v;
	size_t cap;
};

/* How the search samples below the current node, as one value: a
 * pilot, a try or a drawn node saves it, sets what it changes, and
 * restores it on every path out.  All zero outside them. */
struct smp_mode {
	int trying;            /* a subtheory tried exactly within the
	                          budget: nothing drawn */
	int piloting;          /* a count pilot's solves: no tracking, no
	                          pilots or adapting below */
	int policy;            /* there, the nodes below: 0 draw, 1 take
	                          k = 0, 2 take k = n */
	int sampled;           /* below a drawn binomial node */
	int negl;              /* below a count its node's pilot found
	                          negligible (mode_split): no pilots, and
	                          the pilots' exact budget */
};

struct sampler;                /* sample/sample-int.h */

/* The engine: a theory, its cache, and the state of the search (one
 * search at a time; each sampling thread has its own engine). */
struct eng {
	const struct ct_theory *ct;
	struct eng_opts o;
	const struct semiring *sr;  /* of o.semiring */
	struct eng_stats st;
	double t0;
	int *boff;             /* per type: first global block */
	struct th *top;        /* simplified */
	double top_add;        /* constants and free atoms of the top */
	double top_atoms;
	struct units top_units;  /* classes fixed by hard unit clauses */
	int top_done;
	double top_z;
	struct index *top_ix;  /* of top, for marginals: its classes, */
	int *top_root;         /* and per clause its component (components), */
	int *top_first;        /* component r's clauses: top_cls[top_first[r] */
	int *top_cls;          /* .. top_first[r + 1]) */
	char *top_ground;      /* component r: every class one atom */
	struct centry *cache;
	size_t ncache, capcache, cache_ints;
	int64_t cache_held;    /* what the cache adds to eng_held */
	char step[200];        /* the largest grounding, for limit messages */
	struct err *e;
	/* a schematic run (eng_plan): one branch of each binomial followed,
	 * every step written to plan with how often a full run would take it */
	struct buf *plan;
	int depth, plan_lines;
	double mult, est_nodes;
	double cg_wasted;      /* work of large pruned cell-graph sums given
	                          up (cellgraph.c) */
	int cg_top;            /* the theory search_solve is handed is the
	                          top theory or a component of it */
	struct cgmarg *cgm;    /* the top components' cell-graph sums, for
	                          marginals (cgmarg.c) */
	/* sampling (eng_sample): smp is the sampler while a sample is
	 * drawn, NULL while the search is exact; smp_state owns it */
	struct sampler *smp, *smp_state;
	struct smp_mode mode;
	int64_t mem_cap;       /* max_memory, resolved: the most eng_held
	                          may reach; 0: no limit */
	double rss_cap;        /* resident memory at which the search stops
	                          whatever it counts: 3/4 of the machine */
	int64_t try_limit, try_work;
	int64_t pilot_nodes;   /* nodes visited in pilots' solves */
	const struct amap *amap;   /* extra assignment of the simplification */
	struct sftrace *trace; /* simplify() records its sums here (multibin) */
	struct mbpoly *mbp;    /* multibin's last count polynomial */
	double uz[8][2];       /* multibin's units_z: weights w, log Z per atom */
	int nuz;
	/* ground atoms whose expectation each sample records (eng_track) */
	struct amap trk;       /* key -> slot (in truth) */
	int *trk_keys;         /* the keys, KEY_LEN ints per slot */
	struct ibuf *reps;     /* per block of the theory: the blocks of its
	                          constants that stand for classes */
	int nreps;
	double *trk_v;
	int ntrk;
	int *trk_log;          /* slots set since the log was emptied */
	size_t ntrk_log, captrk_log;
	int trk_log_oom;
	int npath;             /* slots of eng_track (the others: counts) */
	/* counted classes (eng_track_count): per tag its slot and atoms;
	 * the search appends (tag, expected count) to ga as it goes, and a
	 * sum node weighs its children's stretches of ga by their shares */
	struct ctag {
		int slot;
		double atoms;      /* of its class */
		double sum;        /* scratch (counts_compact, count_slots) */
	} *tags;
	int ntag;
	size_t captags;
	struct gacc {
		int *tag;
		double *v;
		size_t n, cap;
		int oom;
	} ga;
};

/* What simplify() adds up, to be redone with other block sizes
 * (multibin.c's replay): per pass the satisfied soft clauses (konst +=
 * w * groundings), then the atoms fixed by hard unit clauses.  bad: a
 * step whose outcome may depend on the sizes of blocks b0 and b1 (a
 * weight scaled by one of them, a counted clause, a falsified hard
 * clause), so the record cannot stand for other sizes. */
struct sftrace {
	int b0, b1, bad;
	size_t n, cap;
	struct sfev {
		int kind;          /* SF_SAT, SF_PASS or SF_ASSIGN */
		int lit;           /* SF_ASSIGN: the literal of c */
		struct cl *c;      /* a copy */
	} *v;
};
enum { SF_SAT, SF_PASS, SF_ASSIGN };

/* Assigned atom classes: their keys and truth values. */
struct asg {
	int n;
	const int *key[2];
	size_t len[2];
	int truth[2];
};

struct occ {
	const int *key;
	size_t len;
	int cl, li;
};

struct index {
	int nocc, ncls;
	struct occ *occ;       /* sorted by key */
	int *keybuf;
	int *lpos;             /* per clause: its first literal in cls_of */
	int *cls_of;           /* per literal (clause order): class */
	int *first;            /* per class: its first occurrence in occ */
	double *atoms;         /* per class */
	int *slots;            /* per class: variables in blocks of size > 1 */
	int *big;              /* per class: one block of size > 1, or -1 */
	double total;          /* atoms of all classes */
	int64_t held;          /* what it adds to eng_held */
};

struct ibuf {
	int *v;
	size_t n, cap;
};

static inline int
arity(const struct eng *g, int pred)
{
	return g->ct->m->preds.v[pred].arity;
}

/* log C(n, k) */
static inline double
lchoose(int64_t n, int64_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	    lgamma((double)(n - k) + 1);
}

/* Bytes that the engines of this thread hold in clauses, class indexes
 * and caches: added where they are allocated (cl_new, index_build,
 * cache_put, search_solve's cache key), subtracted where they are freed.
 * --max-memory caps it (limits() in search.c); an engine lives in the
 * thread that made it, so a thread's count is its engine's. */
extern _Thread_local int64_t eng_held;

/* clause.c: clauses and theories */
struct cl *cl_new(int nvars, int nneq, int nlits, int nargs);
void cl_free(struct cl *c);
struct cl *cl_copy(const struct cl *c);
int cl_has_neq(const struct cl *c, int a, int b);
struct cl *cl_without(const struct cl *c, int v, int u);
struct cl *cl_add_neq(const struct cl *c, int a, int b);
void th_free(struct th *t);
int th_add_block(struct th *t, int64_t size, int type);
struct th *th_empty_like(const struct th *t);
int th_push(struct th *t, struct cl *c);
struct th *th_copy(const struct th *t);
double cl_count(const struct cl *c, const int64_t *size);
size_t lit_key(const struct eng *g, const struct cl *c, const struct lit *l,
    int *key);
const int *th_gkey(const struct th *t, const int *key, size_t len, int *buf);
double lit_atoms(const struct eng *g, const struct cl *c, const struct lit *l,
    const int64_t *size);
int th_split(struct th *t, int b, int nb);
int th_split_one(struct th *t, int b);
int th_components(const struct th *t, const struct index *ix, int **comp);
int th_distribute(struct th *t, const int *comp, int nc, struct th **parts);
void key_with(const int *key, size_t len, int b, int nb, int *out);

/* index.c: the class index */
int occ_cmp(const void *a, const void *b);
uint64_t key_hash(const int *v, size_t n);
int occ_same(const struct occ *x, const struct occ *y);
void index_free(struct index *ix);
int index_build(const struct eng *g, const struct th *t, struct index *ix);
void index_resize(const struct eng *g, const struct th *t, struct index *ix);
int index_occurrences(const struct index *ix, int k);
int index_is_aux(const struct eng *g, const struct index *ix, int k);
int index_drawable(const struct eng *g, const struct index *ix, int k);
int index_count_drawable(const struct eng *g, const struct index *ix,
    int *first);

/* simplify.c: normalisation and simplification */
int th_normalise(const struct eng *g, struct th *t);
int units_eval(const struct units *u, const int *key, size_t len);
void amap_put(struct amap *m, uint64_t h, const int *key, size_t len,
    int truth);
int amap_eval(const struct amap *m, const int *key, size_t len);
int simplify_keep(struct eng *g, struct th *t, const struct asg *as,
    double *konst, double *assigned, struct units *keep);
int simplify(struct eng *g, struct th *t, const struct asg *as, double *konst,
    double *assigned);
void sftrace_free(struct sftrace *tr);
int sftrace_replay(const struct eng *g, const struct sftrace *tr,
    const int64_t *size, double *konst, double *assigned);

/* counts.c: tracked atoms and expected counts along the search */
void trk_put(struct eng *g, int slot, double v);
void counts_push(struct eng *g, int tag, double v);
void counts_scale(struct eng *g, size_t from, size_t to, double f);
void counts_compact(struct eng *g, size_t from);
void counts_shares(struct eng *g, const size_t *mark, const double *lt,
    size_t nt, double ltot);
void track_set(struct eng *g, const struct th *t, const int *key, size_t len,
    double v);

/* cache.c: the isomorphism cache */
void ib_add(struct ibuf *b, int x, int *oom);
int cache_key(const struct eng *g, const struct th *t, struct ibuf *key);
struct centry *cache_find(struct eng *g, const struct ibuf *key, uint64_t h);
void cache_put(struct eng *g, const struct ibuf *key, uint64_t h, double val,
    size_t from);
void cache_mark_over(struct eng *g, const struct ibuf *key, uint64_t h);

/* order.c: branching orders */
int order_pick(const struct eng *g, const struct th *t, const struct index *ix);

/* search.c: the recursion and its exact rules */
int search_child(struct eng *g, struct th *child, const struct asg *as,
    double expected, double *out);
int search_solve(struct eng *g, struct th *t, double *out);
void plan_line(struct eng *g, const char *fmt, ...) PRINTF(2, 3);
void class_text(const struct eng *g, const int64_t *size, const int *key,
    char *out, size_t n);

/* cellgraph.c: the cell-graph rule (does not take t) */
int cellgraph(struct eng *g, const struct th *t, const struct index *ix,
    int top, double *out, int *rc);

/* cgmarg.c: marginals from the top components' cell-graph sums.
 * cgm_add_rec: a sum (copied; ecnt its expected count per group), its
 * number; cgm_add_class: a class of that sum (its key in the top's
 * blocks, its atoms, v as struct cgcls in cgmarg.c has it);
 * cgm_marginal: 1 and *prob if the class was recorded, 0 if not (or a
 * refining sum gave up), -1 out of memory.  -1 of the others: out of
 * memory. */
void cgm_free(struct eng *g);
int cgm_add_rec(struct eng *g, const struct cgsum *p, double lz,
    double terms, const double *ecnt);
int cgm_add_class(struct eng *g, int rec, const int *key, size_t len,
    int bin, double atoms, const double *v);
int cgm_marginal(struct eng *g, const int *key, size_t len, double *prob);

/* poly.c: products of count polynomials.  Sums over counts drop terms
 * this many nats below their largest: e^-40 is 4e-18. */
#define POLY_DROP 40.0
/* log of the coefficients of the product of polynomials a (degree na)
 * and b (degree nb), given as logs, into c (degree na + nb); ra, rb:
 * scratch of 2 na and 2 nb doubles.  Both are log-concave (finite on an
 * interval), so the terms of each coefficient are unimodal: a large
 * product adds only those within POLY_DROP nats of the largest, each
 * from its neighbour by the ratios of a's and b's neighbouring
 * coefficients.  need (NULL: all): the coefficients j with need[j] set,
 * nneed of them; the others are left as they were. */
void poly_mul(const double *a, int64_t na, const double *b, int64_t nb,
    double *c, double *ra, double *rb, const unsigned char *need,
    int64_t nneed);

/* multibin.c: the multi-block binomial rule */
void multibin_free(struct eng *g);
int multibin(struct eng *g, const struct th *t, const struct index *ix,
    int cls, double *out, int *rc);

/* sample/node.c: the sampler's hooks, which the search calls while
 * g->smp is set and it is not trying a part exactly.  smp_enumerate and
 * smp_try take t when they set *done or fail; smp_power, smp_batch and
 * smp_binomial take it always; h is t's cache key hash (0: none). */
int smp_batch_first(const struct eng *g, const struct index *ix, int *first);
int smp_keyless(const struct eng *g, const struct index *ix);
int smp_enumerate(struct eng *g, struct th *t, const struct index *ix,
    int *done, double *out);
int smp_try(struct eng *g, struct th *t, const struct index *ix,
    const struct ibuf *key, uint64_t h, size_t mark0, int *done,
    double *out);
int smp_track_part(struct eng *g, const struct th *t, const struct index *ix,
    int *over);
int smp_power(struct eng *g, struct th *t, int64_t n, double expected,
    double *out);
int smp_batch(struct eng *g, struct th *t, struct index *ix, double *out);
int smp_binomial(struct eng *g, struct th *t, struct index *ix, int cls,
    uint64_t h, double *out);
/* sample/proposal.c: the sampler's state (g->smp_state) */
void smp_free(struct sampler *s);

/* engine.c: the top theory */
size_t top_key(const struct eng *g, int pred, const int *block, const int *eq,
    int *key);
int top_drop(struct eng *g);
int top_component(struct eng *g, const int *key, size_t len, struct th **out,
    size_t *n, int *comp);
int cond_theory(struct eng *g, int pred, const int *block, const int *eq,
    int truth, struct th **out, double *konst, double *known);

#pragma GCC visibility pop

#endif
