/* engine.c: the exact lifted search (Gogate & Domingos's LSD/PTP, with
 * the rules of Mittal et al. 2015 and the orderings of Kazemi & Poole).
 *
 * A theory here is a list of clauses whose variables each range over one
 * block (a set of interchangeable constants of known size).  Variables of
 * one block that meet in a literal are kept distinct by inequalities, so
 * a literal denotes a whole atom class: its predicate, the block of each
 * argument, and which arguments are the same variable.  Two classes are
 * the same set of ground atoms or disjoint, which makes the bookkeeping
 * exact: every step knows how many unknown atoms it had, how many its
 * result still mentions and how many it assigned, and the difference are
 * free atoms (a factor 2 each).
 *
 * solve() takes a simplified theory and returns its log Z:
 *   components (AND) -> cache -> power rule -> binomial or grounding. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifted/engine.h"
#include "sqlift.h"

#define LOG2 0.69314718055994530942

/* What an unknown atom in no clause contributes: both of its values
 * (sum) or either (max). */
#define FREE(g) ((g)->o.semiring == ENG_MAX ? 0.0 : LOG2)

struct lit {
	int pred, neg, off;    /* arguments: arg[off .. off + arity) */
};

/* One allocation: the header, then lit, blk, neq and arg. */
struct cl {
	double w;
	int hard, nvars, nneq, nlits, nargs;
	int tag;               /* a counted unit clause (eng_track_count):
	                          its tag + 1; 0: none */
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
	int track_over;        /* track_part was over the budget here */
	int ne;                /* the expected counts of the tags */
	int *etag;             /* (eng_track_count) under this theory */
	double *ev;
};

/* Many classes of one ground atom each assigned at once (batch_sample):
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

struct eng {
	const struct ct_theory *ct;
	struct eng_opts o;
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
	char step[200];        /* the largest grounding, for limit messages */
	struct err *e;
	/* a schematic run (eng_plan): one branch of each binomial followed,
	 * every step written to plan with how often a full run would take it */
	struct buf *plan;
	int depth, plan_lines;
	double mult, est_nodes;
	/* sampling (eng_sample): rng set while a sample is drawn; trying
	 * while a subtheory is tried exactly within the budget */
	struct eng_rng *rng;
	int trying, try_failed;
	double mem_cap;        /* max_memory, resolved; 0: no limit */
	int piloting;          /* a count pilot's solves: no tracking, no
	                          pilots or adapting below */
	int policy;            /* there, the nodes below: 0 draw, 1 take
	                          k = 0, 2 take k = n */
	int sampled;           /* drawn binomial nodes above this one */
	int negl;              /* below a count its node's pilot found
	                          negligible (mode_split): no pilots, and
	                          the pilots' exact budget */
	int64_t try_limit, try_work;
	double try_cap;        /* atoms of the smallest part that failed */
	double pilot_cap;      /* the same in the pilots' solves */
	double negl_cap;       /* and below negligible counts (negl) */
	int64_t pilot_nodes;   /* nodes visited in pilots' solves */
	uint64_t cur_h;        /* key hash of the node being expanded */
	const struct amap *amap;   /* extra assignment of the simplification */
	/* ground atoms whose expectation each sample records (eng_track) */
	struct amap trk;       /* key -> slot (in truth) */
	int *trk_keys;         /* the keys, 2 * 64 + 1 ints per slot */
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
		double sum;        /* scratch (ga_compact, count_slots) */
	} *tags;
	int ntag;
	size_t captags;
	struct gacc {
		int *tag;
		double *v;
		size_t n, cap;
		int oom;
	} ga;
	struct prop *props;
	size_t nprops, capprops, prop_cells;
};

/* The proposal of one sampled binomial node (key hash and n): what each
 * k gave so far, and the cumulative proposal built from it. */
struct prop {
	uint64_t h;
	int64_t n;             /* -1: empty slot */
	int64_t visits, built;
	double lw, lwk, lw2;   /* log sums of local weights, of w * k/n, and
	                          of w^2 */
	double *lsum;          /* per k: log sum of C(n,k) Z(k) drawn */
	double *cnt;           /* per k: draws */
	double *cdf;           /* per k: cumulative, unnormalised */
	double *pil;           /* per k: the pilot's proposal (count_pilot;
	                          sums to 1), or NULL */
	int64_t kmode;         /* the proposal's likeliest k, and its */
	double qmode;          /* probability (as built) */
};

static void
plan_line(struct eng *g, const char *fmt, ...) PRINTF(2, 3);

static void
plan_line(struct eng *g, const char *fmt, ...)
{
	va_list ap;
	char line[400];

	if (!g->plan)
		return;
	if (++g->plan_lines > 200) {
		if (g->plan_lines == 201)
			buf_puts(g->plan, "  ...\n");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	buf_printf(g->plan, "%*s%s  [x%.3g]\n", 2 + 2 * g->depth, "", line,
	    g->mult);
}

/* "Smokes(person:480)": the class of key, with its blocks' sizes. */
static void
class_text(const struct eng *g, const int64_t *size, const int *key,
    char *out, size_t n)
{
	const struct mln_pred *p = &g->ct->m->preds.v[key[0]];
	size_t k = (size_t)snprintf(out, n, "%s(", p->name);

	for (int i = 0; i < p->arity && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, "%s%s:%lld", i ? "," : "",
		    g->ct->m->types.v[p->types[i]].name,
		    key[2 + 2 * i] == i ? (long long)size[key[1 + 2 * i]] :
		    (long long)-1);
	if (k < n)
		snprintf(out + k, n - k, ")");
}

/* Assigned atom classes: their keys and truth values. */
struct asg {
	int n;
	const int *key[2];
	size_t len[2];
	int truth[2];
};

static int
arity(const struct eng *g, int pred)
{
	return g->ct->m->preds.v[pred].arity;
}

/* --- clauses ---------------------------------------------------------- */

static struct cl *
cl_new(int nvars, int nneq, int nlits, int nargs)
{
	size_t sz = sizeof(struct cl) + (size_t)nlits * sizeof(struct lit) +
	    ((size_t)nvars + 2 * (size_t)nneq + (size_t)nargs) * sizeof(int);
	struct cl *c = xmalloc(sz);

	if (!c)
		return NULL;
	c->w = 0;
	c->hard = 0;
	c->tag = 0;
	c->nvars = nvars;
	c->nneq = nneq;
	c->nlits = nlits;
	c->nargs = nargs;
	c->lit = (struct lit *)(c + 1);
	c->blk = (int *)(c->lit + nlits);
	c->neq = (int (*)[2])(c->blk + nvars);
	c->arg = (int *)(c->neq + nneq);
	return c;
}

/* A copy of c with room for extra more inequalities (left unset). */
static struct cl *
cl_copy_room(const struct cl *c, int extra)
{
	struct cl *d = cl_new(c->nvars, c->nneq + extra, c->nlits, c->nargs);

	if (!d)
		return NULL;
	d->w = c->w;
	d->hard = c->hard;
	d->tag = c->tag;
	memcpy(d->lit, c->lit, (size_t)c->nlits * sizeof *d->lit);
	memcpy(d->blk, c->blk, (size_t)c->nvars * sizeof *d->blk);
	memcpy(d->neq, c->neq, (size_t)c->nneq * sizeof *d->neq);
	memcpy(d->arg, c->arg, (size_t)c->nargs * sizeof *d->arg);
	return d;
}

static struct cl *
cl_copy(const struct cl *c)
{
	return cl_copy_room(c, 0);
}

static int
cl_has_neq(const struct cl *c, int a, int b)
{
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	for (int i = 0; i < c->nneq; i++)
		if (c->neq[i][0] == a && c->neq[i][1] == b)
			return 1;
	return 0;
}

/* c without variable v: replaced by u (u < v) where it occurs, or, with
 * u < 0, a variable in no literal whose inequalities go with it. */
static struct cl *
cl_without(const struct cl *c, int v, int u)
{
	struct cl *d = cl_new(c->nvars - 1, c->nneq, c->nlits, c->nargs);
	int n = 0;

	if (!d)
		return NULL;
	d->w = c->w;
	d->hard = c->hard;
	d->tag = c->tag;
	memcpy(d->lit, c->lit, (size_t)c->nlits * sizeof *d->lit);
	for (int x = 0, y = 0; x < c->nvars; x++)
		if (x != v)
			d->blk[y++] = c->blk[x];
	for (int i = 0; i < c->nargs; i++) {
		int x = c->arg[i];
		d->arg[i] = x == v ? u : x > v ? x - 1 : x;
	}
	for (int i = 0; i < c->nneq; i++) {
		int a = c->neq[i][0], b = c->neq[i][1];
		if (u < 0 && (a == v || b == v))
			continue;
		a = a == v ? u : a > v ? a - 1 : a;
		b = b == v ? u : b > v ? b - 1 : b;
		if (a > b) {
			int t = a;
			a = b;
			b = t;
		}
		d->nneq = n;
		if (!cl_has_neq(d, a, b)) {
			d->neq[n][0] = a;
			d->neq[n][1] = b;
			n++;
		}
	}
	d->nneq = n;
	return d;
}

/* c with the inequality a != b added. */
static struct cl *
cl_add_neq(const struct cl *c, int a, int b)
{
	struct cl *d = cl_copy_room(c, 1);

	if (!d)
		return NULL;
	d->neq[c->nneq][0] = a < b ? a : b;
	d->neq[c->nneq][1] = a < b ? b : a;
	return d;
}

/* --- theories --------------------------------------------------------- */

static void
th_free(struct th *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->c.n; i++)
		free(t->c.v[i]);
	free(t->c.v);
	free(t->size);
	free(t->type);
	free(t->gid);
	free(t);
}

static int
th_add_block(struct th *t, int64_t size, int type)
{
	if (t->nb == t->capb) {
		int cap = t->capb ? 2 * t->capb : 8;
		int64_t *s = xrealloc(t->size, (size_t)cap * sizeof *s);
		int *ty;
		if (!s)
			return -1;
		t->size = s;
		if (!(ty = xrealloc(t->type, (size_t)cap * sizeof *ty)))
			return -1;
		t->type = ty;
		if (t->gid) {
			if (!(ty = xrealloc(t->gid, (size_t)cap * sizeof *ty)))
				return -1;
			t->gid = ty;
		}
		t->capb = cap;
	}
	t->size[t->nb] = size;
	t->type[t->nb] = type;
	if (t->gid)
		t->gid[t->nb] = t->gnb++;
	return t->nb++;
}

/* A theory with t's blocks and no clauses. */
static struct th *
th_empty_like(const struct th *t)
{
	struct th *d = xcalloc(1, sizeof *d);

	if (!d)
		return NULL;
	d->capb = t->nb > 0 ? t->nb : 1;
	d->size = xmalloc((size_t)d->capb * sizeof *d->size);
	d->type = xmalloc((size_t)d->capb * sizeof *d->type);
	if (t->gid)
		d->gid = xmalloc((size_t)d->capb * sizeof *d->gid);
	if (!d->size || !d->type || (t->gid && !d->gid)) {
		th_free(d);
		return NULL;
	}
	d->nb = t->nb;
	d->gnb = t->gnb;
	memcpy(d->size, t->size, (size_t)t->nb * sizeof *d->size);
	memcpy(d->type, t->type, (size_t)t->nb * sizeof *d->type);
	if (t->gid)
		memcpy(d->gid, t->gid, (size_t)t->nb * sizeof *d->gid);
	return d;
}

/* Takes c: frees it when it cannot be added. */
static int
th_push(struct th *t, struct cl *c)
{
	if (!c)
		return -1;
	if (VEC_PUSH(t->c, c) < 0) {
		free(c);
		return -1;
	}
	return 0;
}

static struct th *
th_copy(const struct th *t)
{
	struct th *d = th_empty_like(t);

	for (size_t i = 0; d && i < t->c.n; i++)
		if (th_push(d, cl_copy(t->c.v[i])) < 0) {
			th_free(d);
			return NULL;
		}
	return d;
}

/* --- counting --------------------------------------------------------- */

static double
falling(int64_t n, int k)
{
	double r = 1;

	for (int i = 0; i < k; i++)
		r *= (double)(n - i);
	return n < k ? 0 : r;
}

static void
part_rec(const struct cl *c, const int *vs, int m, int i, int *cls, int k,
    int64_t n, double *sum)
{
	if (i == m) {
		*sum += falling(n, k);
		return;
	}
	for (int j = 0; j <= k; j++) {
		int ok = 1;
		for (int u = 0; u < i && ok; u++)
			if (cls[u] == j && cl_has_neq(c, vs[u], vs[i]))
				ok = 0;
		if (!ok)
			continue;
		cls[i] = j;
		part_rec(c, vs, m, i + 1, cls, j == k ? k + 1 : k, n, sum);
	}
}

/* Groundings of c: per block, the proper colourings of its inequality
 * graph with the block's constants (a sum over partitions of the
 * variables into independent sets). */
static double
cl_count(const struct cl *c, const int64_t *size)
{
	double r = 1;
	int vs[64], cls[64];

	for (int v = 0; v < c->nvars && r > 0; v++) {
		int b = c->blk[v], m = 0, first = 1;
		for (int u = 0; u < v && first; u++)
			first = c->blk[u] != b;
		if (!first)
			continue;
		for (int u = v; u < c->nvars; u++) {
			int has = 0;
			if (c->blk[u] != b)
				continue;
			for (int i = 0; i < c->nneq && !has; i++)
				has = c->neq[i][0] == u || c->neq[i][1] == u;
			if (has && m < 64)
				vs[m++] = u;
			else
				r *= (double)size[b];
		}
		if (m) {
			double s = 0;
			part_rec(c, vs, m, 0, cls, 0, size[b], &s);
			r *= s;
		}
	}
	return r;
}

/* The class key of literal l: pred, then per argument its block and the
 * first argument with the same variable.  Returns its length. */
static size_t
lit_key(const struct eng *g, const struct cl *c, const struct lit *l,
    int *key)
{
	int a = arity(g, l->pred);
	const int *x = c->arg + l->off;

	key[0] = l->pred;
	for (int i = 0; i < a; i++) {
		int f = 0;
		while (x[f] != x[i])
			f++;
		key[1 + 2 * i] = c->blk[x[i]];
		key[2 + 2 * i] = f;
	}
	return 1 + 2 * (size_t)a;
}

/* A class key of t in the numbering of the theory the search started
 * from (see struct th): key itself, or its copy in buf. */
static const int *
gkey(const struct th *t, const int *key, size_t len, int *buf)
{
	if (!t || !t->gid)
		return key;
	buf[0] = key[0];
	for (size_t i = 1; i + 1 < len; i += 2) {
		buf[i] = t->gid[key[i]];
		buf[i + 1] = key[i + 1];
	}
	return buf;
}

/* Ground atoms of the class of literal l. */
static double
lit_atoms(const struct eng *g, const struct cl *c, const struct lit *l,
    const int64_t *size)
{
	int a = arity(g, l->pred), per[64], nper = 0, cnt[64];
	const int *x = c->arg + l->off;
	double r = 1;

	for (int i = 0; i < a; i++) {
		int dup = 0, b = c->blk[x[i]], k;
		for (int j = 0; j < i && !dup; j++)
			dup = x[j] == x[i];
		if (dup)
			continue;
		for (k = 0; k < nper && per[k] != b; k++)
			;
		if (k == nper) {
			per[nper] = b;
			cnt[nper++] = 0;
		}
		cnt[k]++;
	}
	for (int k = 0; k < nper; k++)
		r *= falling(size[per[k]], cnt[k]);
	return r;
}

/* --- the class index of a theory ------------------------------------- */

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
};

static int
occ_cmp(const void *a, const void *b)
{
	const struct occ *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->key, y->key, x->len * sizeof *x->key);
}

/* fnv1a byte by byte over the cache keys was a tenth of the sampler's
 * time on IMDB with workedUnder queried. */
static uint64_t
key_hash(const int *v, size_t n)
{
	uint64_t h = FNV_INIT;

	for (size_t i = 0; i < n; i++)
		h = hash_mix(h, (uint64_t)(uint32_t)v[i]);
	return h;
}

static int
occ_same(const struct occ *x, const struct occ *y)
{
	if (x->len != y->len)
		return 0;
	for (size_t i = 0; i < x->len; i++)
		if (x->key[i] != y->key[i])
			return 0;
	return 1;
}

/* Sorts ix->occ by key as a stable sort would (qsort was most of the
 * sampler's time on IMDB with workedUnder queried: thousands of
 * occurrences of a few dozen classes): the classes found by hashing,
 * their keys sorted, the occurrences placed by class in their order. */
static int
occ_sort(struct index *ix)
{
	size_t n = (size_t)ix->nocc, cap = 16, nc = 0;
	int *slot, *cls = xmalloc((n + 1) * sizeof *cls);
	int *rep = xmalloc((n + 1) * sizeof *rep), *pos;
	struct occ *sorted, *reps;
	int rc = -1;

	while (cap < 2 * n)
		cap *= 2;
	slot = xmalloc(cap * sizeof *slot);
	if (!cls || !rep || !slot)
		goto done;
	for (size_t i = 0; i < cap; i++)
		slot[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct occ *o = &ix->occ[i];
		uint64_t h = key_hash(o->key, o->len);
		size_t j;
		for (j = h & (cap - 1); slot[j] >= 0 &&
		    !occ_same(&ix->occ[rep[slot[j]]], o); j = (j + 1) & (cap - 1))
			;
		if (slot[j] < 0) {
			rep[nc] = (int)i;
			slot[j] = (int)nc++;
		}
		cls[i] = slot[j];
	}
	/* the classes in key order: slot[] now holds each class's rank */
	reps = xmalloc((nc + 1) * sizeof *reps);
	sorted = xmalloc((n + 1) * sizeof *sorted);
	pos = xcalloc(nc + 1, sizeof *pos);
	if (!reps || !sorted || !pos) {
		free(reps);
		free(sorted);
		free(pos);
		goto done;
	}
	for (size_t c = 0; c < nc; c++) {
		reps[c] = ix->occ[rep[c]];
		reps[c].cl = (int)c;
	}
	qsort(reps, nc, sizeof *reps, occ_cmp);
	for (size_t r = 0; r < nc; r++)
		slot[reps[r].cl] = (int)r;
	for (size_t i = 0; i < n; i++)
		pos[slot[cls[i]] + 1]++;
	for (size_t r = 1; r < nc; r++)
		pos[r] += pos[r - 1];
	for (size_t i = 0; i < n; i++)
		sorted[pos[slot[cls[i]]]++] = ix->occ[i];
	free(ix->occ);
	ix->occ = sorted;
	free(reps);
	free(pos);
	rc = 0;
done:
	free(cls);
	free(rep);
	free(slot);
	return rc;
}

static void
index_free(struct index *ix)
{
	free(ix->occ);
	free(ix->keybuf);
	free(ix->lpos);
	free(ix->cls_of);
	free(ix->first);
	free(ix->atoms);
	free(ix->slots);
	free(ix->big);
	memset(ix, 0, sizeof *ix);
}

static int
index_build(const struct eng *g, const struct th *t, struct index *ix)
{
	size_t nl = 0, kmax = 1;
	int *kp;

	memset(ix, 0, sizeof *ix);
	for (size_t i = 0; i < t->c.n; i++) {
		nl += (size_t)t->c.v[i]->nlits;
		for (int k = 0; k < t->c.v[i]->nlits; k++) {
			size_t a = 1 + 2 * (size_t)arity(g, t->c.v[i]->lit[k].pred);
			if (a > kmax)
				kmax = a;
		}
	}
	ix->occ = xmalloc((nl + 1) * sizeof *ix->occ);
	ix->keybuf = xmalloc((nl * kmax + 1) * sizeof *ix->keybuf);
	ix->lpos = xmalloc((t->c.n + 1) * sizeof *ix->lpos);
	ix->cls_of = xmalloc((nl + 1) * sizeof *ix->cls_of);
	ix->first = xmalloc((nl + 1) * sizeof *ix->first);
	ix->atoms = xmalloc((nl + 1) * sizeof *ix->atoms);
	ix->slots = xmalloc((nl + 1) * sizeof *ix->slots);
	ix->big = xmalloc((nl + 1) * sizeof *ix->big);
	if (!ix->occ || !ix->keybuf || !ix->lpos || !ix->cls_of || !ix->first ||
	    !ix->atoms || !ix->slots || !ix->big) {
		index_free(ix);
		return -1;
	}
	kp = ix->keybuf;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		ix->lpos[i] = ix->nocc;
		for (int k = 0; k < c->nlits; k++) {
			struct occ *o = &ix->occ[ix->nocc++];
			o->len = lit_key(g, c, &c->lit[k], kp);
			o->key = kp;
			o->cl = (int)i;
			o->li = k;
			kp += o->len;
		}
	}
	if (occ_sort(ix) < 0) {
		index_free(ix);
		return -1;
	}
	for (int i = 0; i < ix->nocc; i++) {
		const struct occ *o = &ix->occ[i];
		if (i == 0 || !occ_same(o, o - 1)) {
			const struct cl *c = t->c.v[o->cl];
			const struct lit *l = &c->lit[o->li];
			int s = 0, big = -1;
			ix->first[ix->ncls] = i;
			ix->atoms[ix->ncls] = lit_atoms(g, c, l, t->size);
			ix->total += ix->atoms[ix->ncls];
			for (int a = 0; a < arity(g, l->pred); a++)
				if ((int)o->key[2 + 2 * a] == a &&
				    t->size[o->key[1 + 2 * a]] > 1) {
					s++;
					if (big < 0 || t->size[o->key[1 + 2 * a]] <
					    t->size[big])
						big = o->key[1 + 2 * a];
				}
			ix->slots[ix->ncls] = s;
			ix->big[ix->ncls] = big;
			ix->ncls++;
		}
		ix->cls_of[ix->lpos[o->cl] + o->li] = ix->ncls - 1;
	}
	return 0;
}

/* --- simplification --------------------------------------------------- */

/* Splits clauses until every literal keeps its distinct variables of one
 * block apart, and drops clauses without groundings. */
static int
normalise(const struct eng *g, struct th *t)
{
	size_t keep = 0;

	for (size_t i = 0; i < t->c.n; i++) {
		struct cl *c = t->c.v[i];
		int u = -1, v = -1;
		for (int k = 0; k < c->nlits && u < 0; k++) {
			const int *x = c->arg + c->lit[k].off;
			int n = arity(g, c->lit[k].pred);
			for (int a = 0; a < n && u < 0; a++)
				for (int b = 0; b < a && u < 0; b++)
					if (x[a] != x[b] && c->blk[x[a]] == c->blk[x[b]] &&
					    !cl_has_neq(c, x[a], x[b])) {
						u = x[a] < x[b] ? x[a] : x[b];
						v = x[a] < x[b] ? x[b] : x[a];
					}
		}
		if (u >= 0) {
			struct cl *m = cl_without(c, v, u), *n = cl_add_neq(c, u, v);
			if (!m || !n) {
				free(m);
				free(n);
				return -1;
			}
			free(c);
			t->c.v[i] = m;
			if (th_push(t, n) < 0)
				return -1;
			i--;
			continue;
		}
	}
	for (size_t i = 0; i < t->c.n; i++) {
		if (cl_count(t->c.v[i], t->size) > 0)
			t->c.v[keep++] = t->c.v[i];
		else
			free(t->c.v[i]);
	}
	t->c.n = keep;
	return 0;
}

static int
asg_eval(const struct asg *as, const int *key, size_t len)
{
	for (int i = 0; as && i < as->n; i++)
		if (as->len[i] == len && !memcmp(as->key[i], key, len * sizeof *key))
			return as->truth[i];
	return -1;
}

static int
lit_same_atom(const struct eng *g, const struct cl *c, const struct lit *a,
    const struct lit *b)
{
	return a->pred == b->pred && !memcmp(c->arg + a->off, c->arg + b->off,
	    (size_t)arity(g, a->pred) * sizeof *c->arg);
}

/* Simplifies t in place under assignment as: literals of assigned
 * classes are evaluated, satisfied groundings leave (their weight to
 * *konst), falsified literals go, duplicate literals merge, tautologies
 * leave, and variables in no literal are counted out.  A hard clause
 * falsified everywhere makes *konst -inf. */
static int
units_eval(const struct units *u, const int *key, size_t len)
{
	for (size_t i = 0; i < u->n; i += 2 + (size_t)u->v[i])
		if ((size_t)u->v[i] == len && !memcmp(u->v + i + 2, key, len *
		    sizeof *key))
			return u->v[i + 1];
	return -1;
}

/* Adds key (hash h) -> truth; m has room. */
static void
amap_put(struct amap *m, uint64_t h, const int *key, size_t len, int truth)
{
	size_t i;

	for (i = h & (m->cap - 1); m->v[i].key; i = (i + 1) & (m->cap - 1))
		;
	m->v[i].h = h;
	m->v[i].key = key;
	m->v[i].len = len;
	m->v[i].truth = truth;
}

static int
amap_eval(const struct amap *m, const int *key, size_t len)
{
	uint64_t h = fnv1a(FNV_INIT, key, len * sizeof *key);

	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct aent *a = &m->v[i];
		if (!a->key)
			return -1;
		if (a->h == h && a->len == len &&
		    !memcmp(a->key, key, len * sizeof *key))
			return a->truth;
	}
}

static void
trk_put(struct eng *g, int slot, double v)
{
	g->trk_v[slot] = v;
	if (vec_grow_((void **)&g->trk_log, &g->captrk_log, g->ntrk_log + 1,
	    sizeof *g->trk_log))
		g->trk_log_oom = 1;
	else
		g->trk_log[g->ntrk_log++] = slot;
}

/* --- expected counts (eng_track_count) ---------------------------------
 * A counted class has a unit clause of weight 0 with a tag: the clause
 * changes no weight, and every true grounding it loses to a
 * simplification is one true atom of the class.  solve() appends
 * (tag, count) to g->ga as it goes; under a product of parts the counts
 * add, a power rule's part counts n times, and a sum node (a binomial's
 * counts, mode_split's two terms) weighs its children's stretches of ga
 * by their shares of its value.  So after solve() the stretch it
 * appended holds its theory's expected count per tag (exactly, where it
 * solved exactly; given the draws, where it drew): the derivative of
 * log Z in the clause's weight. */
static void
ga_push(struct eng *g, int tag, double v)
{
	struct gacc *a = &g->ga;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		int *t = xrealloc(a->tag, cap * sizeof *t);
		double *x;
		if (t)
			a->tag = t;
		if (!t || !(x = xrealloc(a->v, cap * sizeof *x))) {
			a->oom = 1;
			return;
		}
		a->v = x;
		a->cap = cap;
	}
	a->tag[a->n] = tag;
	a->v[a->n++] = v;
}

/* Counts from..to of ga times f. */
static void
ga_scale(struct eng *g, size_t from, size_t to, double f)
{
	for (size_t i = from; i < to; i++)
		g->ga.v[i] *= f;
}

/* One entry per tag in ga from `from` on. */
static void
ga_compact(struct eng *g, size_t from)
{
	struct gacc *a = &g->ga;
	size_t n = from;

	if (a->n - from < 2)
		return;
	for (size_t i = from; i < a->n; i++)
		g->tags[a->tag[i]].sum += a->v[i];
	for (size_t i = from; i < a->n; i++) {
		int t = a->tag[i];
		if (g->tags[t].sum != 0) {
			a->tag[n] = t;
			a->v[n++] = g->tags[t].sum;
			g->tags[t].sum = 0;
		}
	}
	a->n = n;
}

/* A sum node's children appended their stretches at mark[0..nt) (the
 * last ends at ga's end), with log values lt; ltot is the node's: each
 * stretch is weighed by its share. */
static void
ga_shares(struct eng *g, const size_t *mark, const double *lt, size_t nt,
    double ltot)
{
	if (!g->ntag)
		return;
	for (size_t k = 0; k < nt; k++)
		ga_scale(g, mark[k], k + 1 < nt ? mark[k + 1] : g->ga.n,
		    lt[k] == -INFINITY || ltot == -INFINITY ? 0 :
		    exp(lt[k] - ltot));
	ga_compact(g, mark[0]);
}

/* While sampling: a tracked ground atom's expectation on this path; key
 * is a class key of t (NULL: of the top theory). */
static void
track_set(struct eng *g, const struct th *t, const int *key, size_t len,
    double v)
{
	int slot, buf[130];

	if (g->npath && g->rng && !g->trying && !g->piloting &&
	    (slot = amap_eval(&g->trk, gkey(t, key, len, buf), len)) >= 0)
		trk_put(g, slot, v);
}

static int
simplify_pass(struct eng *g, struct th *t, const struct asg *as,
    const struct units *u, double *konst)
{
	size_t keep = 0;
	int key[130];

	*konst = 0;
	if (normalise(g, t) < 0)
		return -1;
	for (size_t i = 0; i < t->c.n; i++) {
		struct cl *c = t->c.v[i], *d;
		double cnt = cl_count(c, t->size);
		int sat = 0, nk = 0, kept[64], nargs = 0, changed = 0;
		for (int k = 0; k < c->nlits && !sat; k++) {
			const struct lit *l = &c->lit[k];
			size_t kl = lit_key(g, c, l, key);
			int dup = 0, tv = as ? asg_eval(as, key, kl) : -1;
			if (tv < 0)
				tv = units_eval(u, key, kl);
			if (tv < 0 && g->amap)
				tv = amap_eval(g->amap, key, kl);
			if (tv >= 0) {
				if (tv != l->neg)
					sat = 1;
				changed = 1;
				continue;
			}
			for (int j = 0; j < nk && !sat && !dup; j++)
				if (lit_same_atom(g, c, &c->lit[kept[j]], l)) {
					if (c->lit[kept[j]].neg != l->neg)
						sat = 1;
					dup = 1;
				}
			if (dup) {
				changed = 1;
				continue;
			}
			if (nk == 64)
				goto fail;
			kept[nk++] = k;
			nargs += arity(g, l->pred);
		}
		if (sat) {
			if (!c->hard)
				*konst += c->w * cnt;
			if (c->tag)
				ga_push(g, c->tag - 1, cnt);
			free(c);
			continue;
		}
		if (nk == 0) {
			if (c->hard)
				*konst = -INFINITY;
			free(c);
			continue;
		}
		if (changed) {
			if (!(d = cl_new(c->nvars, c->nneq, nk, nargs)))
				goto fail;
			d->w = c->w;
			d->hard = c->hard;
			d->tag = c->tag;
			memcpy(d->blk, c->blk, (size_t)c->nvars * sizeof *d->blk);
			memcpy(d->neq, c->neq, (size_t)c->nneq * sizeof *d->neq);
			nargs = 0;
			for (int j = 0; j < nk; j++) {
				const struct lit *l = &c->lit[kept[j]];
				int a = arity(g, l->pred);
				d->lit[j] = *l;
				d->lit[j].off = nargs;
				memcpy(d->arg + nargs, c->arg + l->off, (size_t)a *
				    sizeof *d->arg);
				nargs += a;
			}
			free(c);
			c = d;
		}
		/* variables in no literal whose inequality partners are pairwise
		 * distinct have the same number of values in every grounding */
		for (int v = c->nvars - 1; v >= 0; v--) {
			int used = 0, nb[64], deg = 0, clique = 1;
			for (int a = 0; a < c->nargs && !used; a++)
				used = c->arg[a] == v;
			if (used)
				continue;
			for (int j = 0; j < c->nneq && deg < 64; j++)
				if (c->neq[j][0] == v || c->neq[j][1] == v)
					nb[deg++] = c->neq[j][0] ^ c->neq[j][1] ^ v;
			for (int a = 0; a < deg && clique; a++)
				for (int b = 0; b < a && clique; b++)
					clique = cl_has_neq(c, nb[a], nb[b]);
			if (!clique)
				continue;
			if (!(d = cl_without(c, v, -1)))
				goto fail;
			if (!c->hard)
				d->w *= (double)(t->size[c->blk[v]] - deg);
			free(c);
			c = d;
		}
		t->c.v[keep++] = c;
		continue;
fail:
		t->c.v[keep++] = c;
		while (++i < t->c.n)
			t->c.v[keep++] = t->c.v[i];
		t->c.n = keep;
		return -1;
	}
	t->c.n = keep;
	return 0;
}

/* simplify_pass() until no hard clause is a single literal: such a
 * clause fixes every atom of its class (lifted unit propagation).
 * *assigned gets the atoms so fixed. */
static int
simplify_keep(struct eng *g, struct th *t, const struct asg *as,
    double *konst, double *assigned, struct units *keep)
{
	struct units u = { 0 };
	int key[130];

	*konst = 0;
	*assigned = 0;
	for (;;) {
		double k;
		int added = 0;
		if (simplify_pass(g, t, as, &u, &k) < 0) {
			free(u.v);
			return -1;
		}
		*konst += k;
		if (*konst == -INFINITY)
			break;
		for (size_t i = 0; i < t->c.n; i++) {
			const struct cl *c = t->c.v[i];
			size_t kl;
			if (!c->hard || c->nlits != 1)
				continue;
			kl = lit_key(g, c, &c->lit[0], key);
			if ((as && asg_eval(as, key, kl) >= 0) ||
			    units_eval(&u, key, kl) >= 0 ||
			    (g->amap && amap_eval(g->amap, key, kl) >= 0))
				continue;
			if (vec_grow_((void **)&u.v, &u.cap, u.n + 2 + kl,
			    sizeof *u.v)) {
				free(u.v);
				return -1;
			}
			u.v[u.n] = (int)kl;
			u.v[u.n + 1] = !c->lit[0].neg;
			memcpy(u.v + u.n + 2, key, kl * sizeof *key);
			u.n += 2 + kl;
			track_set(g, t, key, kl, !c->lit[0].neg);
			*assigned += lit_atoms(g, c, &c->lit[0], t->size);
			added = 1;
		}
		if (!added)
			break;
	}
	if (keep)
		*keep = u;
	else
		free(u.v);
	return 0;
}

static int
simplify(struct eng *g, struct th *t, const struct asg *as, double *konst,
    double *assigned)
{
	return simplify_keep(g, t, as, konst, assigned, NULL);
}

/* Splits block b: variables of b in each clause take b or nb in every
 * combination (inequalities across the two are implied). */
static int
split_clauses(struct th *t, int b, int nb)
{
	size_t n0 = t->c.n;

	for (size_t i = 0; i < n0; i++) {
		struct cl *c = t->c.v[i];
		int vs[20], m = 0;
		for (int v = 0; v < c->nvars; v++)
			if (c->blk[v] == b) {
				if (m == 20)
					return -1;
				vs[m++] = v;
			}
		for (uint32_t mask = 1; m && mask < (1u << m); mask++) {
			struct cl *d = cl_copy(c);
			int n = 0;
			if (!d)
				return -1;
			for (int j = 0; j < m; j++)
				if (mask >> j & 1)
					d->blk[vs[j]] = nb;
			for (int j = 0; j < d->nneq; j++)
				if (d->blk[d->neq[j][0]] == d->blk[d->neq[j][1]])
					memcpy(d->neq[n++], d->neq[j], sizeof d->neq[j]);
			d->nneq = n;
			if (th_push(t, d) < 0)
				return -1;
		}
	}
	return 0;
}

/* Splits one constant of block b off into a new block of its own;
 * returns that block, -1 out of memory. */
static int
split_one(struct th *t, int b)
{
	int nb = th_add_block(t, 1, t->type[b]);

	if (nb < 0 || split_clauses(t, b, nb) < 0)
		return -1;
	t->size[b]--;
	return nb;
}

/* --- cache ------------------------------------------------------------ */

struct ibuf {
	int *v;
	size_t n, cap;
};

static void
ib_add(struct ibuf *b, int x, int *oom)
{
	if (b->n >= b->cap && (*oom || vec_grow_((void **)&b->v, &b->cap,
	    b->n + 1, sizeof *b->v))) {
		*oom = 1;
		return;
	}
	b->v[b->n++] = x;
}

static void
ib_add64(struct ibuf *b, uint64_t x, int *oom)
{
	ib_add(b, (int)(uint32_t)(x >> 32), oom);
	ib_add(b, (int)(uint32_t)x, oom);
}

static uint64_t
dbits(double w)
{
	uint64_t u;
	memcpy(&u, &w, sizeof u);
	return u;
}

/* A clause's place in the key: the hash of its renaming-free signature
 * (weight, shape, its variables' block sizes, its literals' signs and
 * arguments), then its place in t. */
struct sig {
	uint64_t h;
	size_t cl;
};

/* Sorts a[0 .. n) by h, stably (tmp: room for n more): a merge sort,
 * as qsort's calls through its comparison were a tenth of the time. */
static void
sig_sort(struct sig *a, struct sig *tmp, size_t n)
{
	struct sig *src = a, *dst = tmp;

	for (size_t i = 1; i < n; i++) {
		/* runs of 8 by insertion */
		struct sig x = a[i];
		size_t j = i;
		if (i % 8 == 0)
			continue;
		while (j % 8 && a[j - 1].h > x.h) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
	for (size_t w = 8; w < n; w *= 2) {
		struct sig *t;
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = src[j].h < src[i].h ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

static uint64_t
cl_sig(const struct eng *g, const struct th *t, const struct cl *c)
{
	uint64_t h = hash_mix(FNV_INIT, (uint64_t)c->hard << 48 |
	    (uint64_t)c->nvars << 32 | (uint64_t)c->nneq << 16 |
	    (uint64_t)c->nlits);

	h = hash_mix(h, dbits(c->w));
	h = hash_mix(h, (uint64_t)c->tag);
	for (int v = 0; v < c->nvars; v++)
		h = hash_mix(h, (uint64_t)t->size[c->blk[v]]);
	for (int k = 0; k < c->nlits; k++) {
		int ar = arity(g, c->lit[k].pred);
		h = hash_mix(h, (uint64_t)c->lit[k].neg << 8 | (uint64_t)ar);
		for (int a = 0; a < ar; a++)
			h = hash_mix(h, (uint64_t)c->arg[c->lit[k].off + a]);
	}
	for (int j = 0; j < c->nneq; j++)
		h = hash_mix(h, (uint64_t)c->neq[j][0] << 32 |
		    (uint64_t)c->neq[j][1]);
	return h;
}

/* A key of t up to renaming of blocks and predicates: clauses sorted by
 * the hash of a renaming-free signature, then written with blocks and
 * predicates numbered in order of appearance, then the blocks' sizes.
 * Equal keys mean isomorphic theories whatever the order (the converse
 * may miss: clauses of equal signatures keep t's order, and so may a
 * hash collision). */
static int
cache_key(const struct eng *g, const struct th *t, struct ibuf *key)
{
	struct sig *sg = xmalloc((2 * t->c.n + 1) * sizeof *sg);
	int *bmap = xmalloc(((size_t)t->nb + 1) * sizeof *bmap);
	int *pmap = xmalloc((g->ct->m->preds.n + 1) * sizeof *pmap);
	int *border = xmalloc(((size_t)t->nb + 1) * sizeof *border);
	int oom = !sg || !bmap || !pmap || !border, nbm = 0, npm = 0;

	for (size_t i = 0; i < t->c.n && !oom; i++) {
		sg[i].h = cl_sig(g, t, t->c.v[i]);
		sg[i].cl = i;
	}
	if (!oom) {
		sig_sort(sg, sg + t->c.n, t->c.n);
		for (int b = 0; b < t->nb; b++)
			bmap[b] = -1;
		for (size_t p = 0; p < g->ct->m->preds.n; p++)
			pmap[p] = -1;
	}
	key->n = 0;
	for (size_t i = 0; i < t->c.n && !oom; i++) {
		const struct cl *c = t->c.v[sg[i].cl];
		ib_add(key, c->hard, &oom);
		ib_add64(key, dbits(c->w), &oom);
		ib_add(key, c->tag, &oom);
		ib_add(key, c->nvars, &oom);
		ib_add(key, c->nneq, &oom);
		ib_add(key, c->nlits, &oom);
		for (int v = 0; v < c->nvars; v++) {
			if (bmap[c->blk[v]] < 0) {
				border[nbm] = c->blk[v];
				bmap[c->blk[v]] = nbm++;
			}
			ib_add(key, bmap[c->blk[v]], &oom);
		}
		for (int j = 0; j < c->nneq; j++) {
			ib_add(key, c->neq[j][0], &oom);
			ib_add(key, c->neq[j][1], &oom);
		}
		for (int k = 0; k < c->nlits; k++) {
			const struct lit *l = &c->lit[k];
			if (pmap[l->pred] < 0)
				pmap[l->pred] = npm++;
			ib_add(key, pmap[l->pred], &oom);
			ib_add(key, l->neg, &oom);
			for (int a = 0; a < arity(g, l->pred); a++)
				ib_add(key, c->arg[l->off + a], &oom);
		}
	}
	for (int b = 0; b < nbm && !oom; b++)
		ib_add64(key, (uint64_t)t->size[border[b]], &oom);
	free(sg);
	free(bmap);
	free(pmap);
	free(border);
	return oom ? -1 : 0;
}

static struct centry *
cache_find(struct eng *g, const struct ibuf *key, uint64_t h)
{
	size_t mask = g->capcache - 1;

	if (!g->capcache)
		return NULL;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct centry *c = &g->cache[i];
		if (!c->key)
			return c;
		if (c->h == h && c->len == key->n &&
		    !memcmp(c->key, key->v, key->n * sizeof *key->v))
			return c;
	}
}

/* Stores a result, and the expected counts that ga holds from `from`
 * on; a full cache (or no memory) just stops caching. */
static void
cache_put(struct eng *g, const struct ibuf *key, uint64_t h, double val,
    size_t from)
{
	struct centry *c;
	size_t ne = from < g->ga.n ? g->ga.n - from : 0;

	if (g->cache_ints + key->n + 3 * ne > ((size_t)64 << 20))
		return;
	if (2 * (g->ncache + 1) > g->capcache) {
		size_t cap = g->capcache ? 2 * g->capcache : 1024;
		struct centry *n = xcalloc(cap, sizeof *n), *old = g->cache;
		size_t oc = g->capcache;
		if (!n)
			return;
		g->cache = n;
		g->capcache = cap;
		for (size_t i = 0; i < oc; i++)
			if (old[i].key) {
				size_t j = old[i].h & (cap - 1);
				while (n[j].key)
					j = (j + 1) & (cap - 1);
				n[j] = old[i];
			}
		free(old);
	}
	c = cache_find(g, key, h);
	if (c->key)
		return;
	if (!(c->key = xmalloc(key->n * sizeof *key->v + 1)))
		return;
	memcpy(c->key, key->v, key->n * sizeof *key->v);
	c->len = key->n;
	c->h = h;
	c->val = val;
	c->track_over = 0;
	c->ne = 0;
	c->etag = NULL;
	c->ev = NULL;
	if (ne) {
		ga_compact(g, from);
		ne = g->ga.n - from;
		c->etag = xmalloc(ne * sizeof *c->etag);
		c->ev = xmalloc(ne * sizeof *c->ev);
		if (!c->etag || !c->ev) {
			/* without its counts the entry would be wrong */
			free(c->etag);
			free(c->ev);
			free(c->key);
			c->etag = NULL;
			c->ev = NULL;
			c->key = NULL;
			return;
		}
		memcpy(c->etag, g->ga.tag + from, ne * sizeof *c->etag);
		memcpy(c->ev, g->ga.v + from, ne * sizeof *c->ev);
		c->ne = (int)ne;
		g->cache_ints += 3 * ne;
	}
	g->ncache++;
	g->cache_ints += key->n;
}

/* --- the rules -------------------------------------------------------- */

/* Marks the cached theory of key as one whose tracked atoms were over
 * the exact budget: later samples draw it without trying again. */
static void
track_over(struct eng *g, const struct ibuf *key, uint64_t h)
{
	struct centry *c = cache_find(g, key, h);

	if (c && c->key)
		c->track_over = 1;
}

static int solve(struct eng *g, struct th *t, double *out);
static int top_drop(struct eng *g);

/* Simplifies child (under as) whose unknown atoms were `expected`, and
 * solves it; *out gets its log Z with constants and free atoms.  Takes
 * child. */
static int
solve_child(struct eng *g, struct th *child, const struct asg *as,
    double expected, double *out)
{
	struct index ix;
	double konst, z, assigned;

	if (simplify(g, child, as, &konst, &assigned) < 0) {
		th_free(child);
		return err_oom(g->e);
	}
	if (konst == -INFINITY) {
		th_free(child);
		*out = -INFINITY;
		return 0;
	}
	if (index_build(g, child, &ix) < 0) {
		th_free(child);
		return err_oom(g->e);
	}
	konst += (expected - assigned - ix.total) * FREE(g);
	index_free(&ix);
	g->depth++;
	if (solve(g, child, &z)) {
		g->depth--;
		return g->e->status;
	}
	g->depth--;
	*out = konst + z;
	return 0;
}

static int
find_root(int *uf, int x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

/* Numbers the components of t (clauses linked by a shared class) in
 * order of their first clause: *comp[i] is clause i's.  Returns how many,
 * -1 out of memory. */
static int
components(const struct th *t, const struct index *ix, int **comp)
{
	int n = (int)t->c.n, nc = 0, *uf = xmalloc(((size_t)n + 1) * sizeof *uf);
	int *c = xmalloc(((size_t)n + 1) * sizeof *c);

	*comp = NULL;
	if (!uf || !c) {
		free(uf);
		free(c);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		uf[i] = i;
		c[i] = -1;
	}
	for (int i = 1; i < ix->nocc; i++)
		if (occ_same(&ix->occ[i], &ix->occ[i - 1])) {
			int a = find_root(uf, ix->occ[i].cl);
			int b = find_root(uf, ix->occ[i - 1].cl);
			if (a != b)
				uf[a] = b;
		}
	for (int i = 0; i < n; i++) {
		int r = find_root(uf, i);
		if (c[r] < 0)
			c[r] = nc++;
		uf[i] = r;
	}
	for (int i = 0; i < n; i++)
		c[i] = c[uf[i]];
	free(uf);
	*comp = c;
	return nc;
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Moves the clauses of t into parts[0 .. nc), clause i into comp[i]'s
 * (from components()), and frees t; -1 out of memory (parts then hold
 * what was moved).  Each part keeps only the blocks its clauses use,
 * renumbered in their order (see struct th), so that the search below
 * costs what the part has and not what the whole theory had: on Cora a
 * node that splits into thousands of parts would otherwise copy its
 * ~15k blocks for each. */
static int
th_distribute(struct th *t, const int *comp, int nc, struct th **parts)
{
	int *map = xmalloc(((size_t)t->nb + 1) * sizeof *map);
	int *bl = xmalloc(((size_t)t->nb + 1) * sizeof *bl);
	int *first = xcalloc((size_t)nc + 2, sizeof *first);
	int *order = xmalloc((t->c.n + 1) * sizeof *order);
	int rc = 0, n = (int)t->c.n;

	if (!map || !bl || !first || !order) {
		rc = -1;
		goto done;
	}
	for (int b = 0; b < t->nb; b++)
		map[b] = -1;
	/* clauses by part, in their order: a counting sort */
	for (int i = 0; i < n; i++)
		first[comp[i] + 2]++;
	for (int k = 2; k <= nc + 1; k++)
		first[k] += first[k - 1];
	for (int i = 0; i < n; i++)
		order[first[comp[i] + 1]++] = i;
	for (int k = 0; k < nc && !rc; k++) {
		struct th *d;
		int m = 0;
		for (int j = first[k]; j < first[k + 1]; j++) {
			const struct cl *c = t->c.v[order[j]];
			for (int v = 0; v < c->nvars; v++)
				if (map[c->blk[v]] < 0) {
					map[c->blk[v]] = 0;
					bl[m++] = c->blk[v];
				}
		}
		if (m > 1)
			qsort(bl, (size_t)m, sizeof *bl, int_cmp);
		if (!(d = parts[k] = xcalloc(1, sizeof *d)) ||
		    !(d->size = xmalloc(((size_t)m + 1) * sizeof *d->size)) ||
		    !(d->type = xmalloc(((size_t)m + 1) * sizeof *d->type)) ||
		    !(d->gid = xmalloc(((size_t)m + 1) * sizeof *d->gid))) {
			rc = -1;
			break;
		}
		d->capb = m + 1;
		d->nb = m;
		d->gnb = t->gid ? t->gnb : t->nb;
		for (int j = 0; j < m; j++) {
			map[bl[j]] = j;
			d->size[j] = t->size[bl[j]];
			d->type[j] = t->type[bl[j]];
			d->gid[j] = t->gid ? t->gid[bl[j]] : bl[j];
		}
		for (int j = first[k]; j < first[k + 1] && !rc; j++) {
			struct cl *c = t->c.v[order[j]];
			for (int v = 0; v < c->nvars; v++)
				c->blk[v] = map[c->blk[v]];
			rc = th_push(d, c);  /* takes the clause */
			t->c.v[order[j]] = NULL;
		}
		for (int j = 0; j < m; j++)
			map[bl[j]] = -1;
	}
done:
	free(map);
	free(bl);
	free(first);
	free(order);
	th_free(t);
	return rc < 0 ? -1 : 0;
}

/* AND decomposition: returns 1 and solves when t has several
 * components. Takes t in that case. */
static int
decompose(struct eng *g, struct th *t, const struct index *ix, double *out,
    int *rc)
{
	int *comp, ncomp = components(t, ix, &comp);
	struct th **parts = NULL;
	double sum = 0;

	*rc = 0;
	if (ncomp < 0) {
		*rc = err_oom(g->e);
		th_free(t);
		return 1;
	}
	if (ncomp < 2) {
		free(comp);
		return 0;
	}
	g->st.decompositions++;
	plan_line(g, "AND: %d independent parts", ncomp);
	if (!(parts = xcalloc((size_t)ncomp, sizeof *parts))) {
		th_free(t);
		goto oom;
	}
	if (th_distribute(t, comp, ncomp, parts) < 0)
		goto oom;
	for (int k = 0; k < ncomp; k++) {
		double z;
		struct th *p = parts[k];
		parts[k] = NULL;
		if (solve(g, p, &z)) {
			*rc = g->e->status;
			break;
		}
		sum += z;
	}
	*out = sum;
	goto done;
oom:
	*rc = err_oom(g->e);
done:
	for (int k = 0; parts && k < ncomp; k++)
		th_free(parts[k]);
	free(parts);
	free(comp);
	return 1;
}

/* Power rule: a block b and, in every clause, a variable of b in every
 * literal, at the same argument of each class, and distinct from the
 * clause's other variables of b.  Fills x[clause]. */
static int
power_rec(const struct eng *g, const struct th *t, const struct index *ix,
    int b, int i, int *x, int *cpos)
{
	const struct cl *c;

	if (i == (int)t->c.n)
		return 1;
	c = t->c.v[i];
	for (int v = 0; v < c->nvars; v++) {
		int ok = c->blk[v] == b, set[64], nset = 0;
		for (int u = 0; u < c->nvars && ok; u++)
			if (u != v && c->blk[u] == b && !cl_has_neq(c, u, v))
				ok = 0;
		for (int k = 0; k < c->nlits && ok; k++) {
			const struct lit *l = &c->lit[k];
			int cls = ix->cls_of[ix->lpos[i] + k], pos = -1;
			for (int a = 0; a < arity(g, l->pred) && pos < 0; a++)
				if (c->arg[l->off + a] == v)
					pos = a;
			if (pos < 0)
				ok = 0;
			else if (cpos[cls] < 0) {
				cpos[cls] = pos;
				if (nset < 64)
					set[nset++] = cls;
				else
					ok = 0;
			} else if (cpos[cls] != pos)
				ok = 0;
		}
		if (ok) {
			x[i] = v;
			if (power_rec(g, t, ix, b, i + 1, x, cpos))
				return 1;
		}
		for (int j = 0; j < nset; j++)
			cpos[set[j]] = -1;
	}
	return 0;
}

/* The power rule while sampling: the product of n independent draws of
 * the part t (takes t).  One draw to the power n would not be unbiased:
 * E[X^n] > E[X]^n.  A part that drew nothing is exact: one solve. */
static int
power_sample(struct eng *g, struct th *t, int64_t n, double expected,
    double *out)
{
	struct th *part = th_copy(t);
	int64_t d0 = g->st.draws;
	double z, sum;
	size_t m = g->ga.n;
	int rc;

	if (!part) {
		th_free(t);
		return err_oom(g->e);
	}
	if ((rc = solve_child(g, t, NULL, expected, &z)))
		goto done;
	if (g->st.draws == d0) {
		*out = (double)n * z;
		ga_scale(g, m, g->ga.n, (double)n);
		goto done;
	}
	sum = z;
	for (int64_t i = 1; i < n && sum > -INFINITY; i++) {
		struct th *c = th_copy(part);
		if (!c) {
			rc = err_oom(g->e);
			goto done;
		}
		if ((rc = solve_child(g, c, NULL, expected, &z)))
			goto done;
		sum += z;
	}
	*out = sum;
done:
	th_free(part);
	return rc;
}

static int
power(struct eng *g, struct th *t, const struct index *ix, double *out,
    int *rc)
{
	int *x = xmalloc((t->c.n + 1) * sizeof *x);
	int *cpos = xmalloc(((size_t)ix->ncls + 1) * sizeof *cpos), best = -1;

	*rc = 0;
	if (!x || !cpos) {
		free(x);
		free(cpos);
		*rc = err_oom(g->e);
		th_free(t);
		return 1;
	}
	for (int b = 0; b < t->nb; b++) {
		int ok;
		if (t->size[b] < 2 || (best >= 0 && t->size[b] <= t->size[best]))
			continue;
		for (int k = 0; k < ix->ncls; k++)
			cpos[k] = -1;
		ok = power_rec(g, t, ix, b, 0, x, cpos);
		if (ok)
			best = b;
	}
	if (best >= 0) {
		int64_t n = t->size[best];
		int nb;
		double z;
		for (int k = 0; k < ix->ncls; k++)
			cpos[k] = -1;
		(void)power_rec(g, t, ix, best, 0, x, cpos);
		g->st.powers++;
		plan_line(g, "power rule: %lld alike parts, one per %s constant",
		    (long long)n, g->ct->m->types.v[t->type[best]].name);
		if ((nb = th_add_block(t, 1, t->type[best])) < 0) {
			*rc = err_oom(g->e);
			th_free(t);
			goto done;
		}
		t->size[best] = n - 1;
		for (size_t i = 0; i < t->c.n; i++) {
			struct cl *c = t->c.v[i];
			int m = 0;
			c->blk[x[i]] = nb;
			for (int j = 0; j < c->nneq; j++)
				if (c->neq[j][0] != x[i] && c->neq[j][1] != x[i])
					memcpy(c->neq[m++], c->neq[j], sizeof c->neq[j]);
			c->nneq = m;
		}
		if (!g->rng || g->trying) {
			size_t m = g->ga.n;
			if ((*rc = solve_child(g, t, NULL, ix->total / (double)n,
			    &z)) == 0) {
				*out = (double)n * z;
				ga_scale(g, m, g->ga.n, (double)n);
			}
		} else
			*rc = power_sample(g, t, n, ix->total / (double)n, out);
	}
done:
	free(x);
	free(cpos);
	return best >= 0;
}

static int
occurrences(const struct index *ix, int k)
{
	return (k + 1 < ix->ncls ? ix->first[k + 1] : ix->nocc) - ix->first[k];
}

static int
is_aux(const struct eng *g, const struct index *ix, int k)
{
	return g->ct->m->preds.v[ix->occ[ix->first[k]].key[0]].aux;
}

/* Class k is one ground atom that the sampler draws itself (auxiliary
 * atoms are left to the others, which force them or leave them free). */
static int
drawable(const struct eng *g, const struct index *ix, int k)
{
	return ix->slots[k] == 0 && !is_aux(g, ix, k);
}

/* The drawable classes of ix, and in *first the first of them. */
static int
count_drawable(const struct eng *g, const struct index *ix, int *first)
{
	int n = 0;

	*first = -1;
	for (int c = 0; c < ix->ncls; c++)
		if (drawable(g, ix, c) && n++ == 0)
			*first = c;
	return n;
}

/* The Bernoulli proposal key of a ground atom with class key hash h:
 * apart from the nodes keyed by theory. */
static uint64_t
atom_prop_key(uint64_t h)
{
	return h ^ 0x9e3779b97f4a7c15ULL;
}

/* The class to branch on: the last one eliminated by the order's rule
 * (population order: the smallest), over the classes' interaction graph
 * (classes in one clause are neighbours); -1 when out of memory. */
static int
pick_class(const struct eng *g, const struct th *t, const struct index *ix)
{
	int n = ix->ncls, best = 0;
	uint64_t *pf = NULL, alive = 0;
	double *lp = NULL;     /* per class: log1p(atoms) */
	int npf = 0, last = 0;

	if (g->o.order == ENG_POPULATION || n > 64) {
		for (int k = 1; k < n; k++) {
			int ak = is_aux(g, ix, k), ab = is_aux(g, ix, best);
			if (ak != ab) {
				if (ab)
					best = k;
				continue;
			}
			if (ix->atoms[k] < ix->atoms[best] ||
			    (ix->atoms[k] == ix->atoms[best] &&
			    ix->slots[k] < ix->slots[best]))
				best = k;
		}
		return best;
	}
	if (!(pf = xmalloc((t->c.n + (size_t)n + 1) * sizeof *pf)) ||
	    !(lp = xmalloc(((size_t)n + 1) * sizeof *lp))) {
		free(pf);
		return -1;
	}
	for (int v = 0; v < n; v++)
		lp[v] = log1p(ix->atoms[v]);
	for (size_t i = 0; i < t->c.n; i++) {
		uint64_t s = 0;
		for (int k = 0; k < t->c.v[i]->nlits; k++)
			s |= (uint64_t)1 << ix->cls_of[ix->lpos[i] + k];
		pf[npf++] = s;
	}
	alive = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
	for (int step = 0; step < n; step++) {
		int pick = -1;
		double pv = 0, pcf = 0;
		for (int v = 0; v < n; v++) {
			uint64_t nbh = 0;
			double val = 0, cf = lp[v];
			if (!(alive >> v & 1))
				continue;
			for (int f = 0; f < npf; f++)
				if (pf[f] >> v & 1)
					nbh |= pf[f];
			nbh &= ~((uint64_t)1 << v);
			if (is_aux(g, ix, v))
				val = -1e12;  /* defined by the others: branch last */
			else if (g->o.order == ENG_MIN_TABLE) {
				/* more than one logical variable first (largest
				 * first), then the smallest table made */
				if (ix->slots[v] >= 2)
					val = -1e6 * ix->slots[v] - cf;
				else
					for (int u = 0; u < n; u++)
						if (nbh >> u & 1)
							val += lp[u];
			} else {
				for (int a = 0; a < n; a++)
					for (int b = 0; b < a; b++) {
						int adj = 0;
						if (!(nbh >> a & 1) || !(nbh >> b & 1))
							continue;
						for (int f = 0; f < npf && !adj; f++)
							adj = (pf[f] >> a & 1) && (pf[f] >> b & 1);
						if (adj)
							continue;
						val += g->o.order == ENG_MIN_FILL ? 1 :
						    (1 + ix->atoms[a]) * (1 + ix->atoms[b]);
					}
			}
			/* ties: the class in fewer clauses first, so that the most
			 * connected one is branched on first */
			if (pick < 0 || val < pv || (val == pv && (cf > pcf ||
			    (cf == pcf && occurrences(ix, v) < occurrences(ix,
			    pick))))) {
				pick = v;
				pv = val;
				pcf = cf;
			}
		}
		/* eliminate: merge its parfactors into one without it */
		{
			uint64_t m = 0;
			int k = 0;
			for (int f = 0; f < npf; f++) {
				if (pf[f] >> pick & 1)
					m |= pf[f];
				else
					pf[k++] = pf[f];
			}
			m &= ~((uint64_t)1 << pick);
			npf = k;
			if (m)
				pf[npf++] = m;
		}
		alive &= ~((uint64_t)1 << pick);
		last = pick;
	}
	free(pf);
	free(lp);
	return last;
}

static double
lchoose(int64_t n, int64_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	    lgamma((double)(n - k) + 1);
}

/* Class cls's key with its block b (at the class's slot) replaced. */
static void
key_with(const int *key, size_t len, int b, int nb, int *out)
{
	memcpy(out, key, len * sizeof *key);
	for (size_t i = 1; i < len; i += 2)
		if (out[i] == b)
			out[i] = nb;
}

/* --- sampling --------------------------------------------------------- */

#define PROP_EPS 0.05          /* uniform share of every proposal */
#define PROP_GUIDED 0.025      /* a piloted node's share off its mode */
#define MODE_SPLIT 0.5         /* a node whose likeliest count has this
                                  much of its proposal: mode + remainder */
#define NEGL_NATS 60.0         /* a count drawn off the mode whose pilot
                                  value is so far below the mode's: no
                                  pilots below it, the pilots' exact
                                  budget (IMDB without evidence,
                                  workedUnder queried: 4x faster) */
#define PROP_PRIOR 10.0        /* samples' worth of the uninformed one */
#define BATCH_MIN 32           /* ground atoms drawn at once from here */
#define PROP_CELLS ((size_t)1 << 24)

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(struct eng_rng *r)
{
	uint64_t *s = r->s, x = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return x;
}

void
eng_rng_seed(struct eng_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

	for (int i = 0; i < 4; i++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

double
eng_rng_unit(struct eng_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

int
eng_proposal_parse(const char *s)
{
	static const char *names[] = { "adaptive", "binomial", "uniform" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *
eng_proposal_name(int proposal)
{
	static const char *names[] = { "adaptive", "binomial", "uniform" };

	return proposal >= 0 && proposal < 3 ? names[proposal] : "?";
}

static void
prop_free(struct prop *p)
{
	free(p->lsum);
	free(p->cnt);
	free(p->cdf);
	free(p->pil);
}

/* The proposal state of node (h, n); NULL when the table is full (the
 * node then draws uniformly). */
static struct prop *
prop_get(struct eng *g, uint64_t h, int64_t n)
{
	size_t mask, i;
	struct prop *p;

	if (2 * (g->nprops + 1) > g->capprops) {
		size_t cap = g->capprops ? 2 * g->capprops : 256;
		struct prop *np = xmalloc(cap * sizeof *np), *old = g->props;
		if (!np)
			return NULL;
		for (size_t j = 0; j < cap; j++)
			np[j].n = -1;
		for (size_t j = 0; j < g->capprops; j++)
			if (old[j].n >= 0) {
				size_t k = (old[j].h ^ (uint64_t)old[j].n) & (cap - 1);
				while (np[k].n >= 0)
					k = (k + 1) & (cap - 1);
				np[k] = old[j];
			}
		free(old);
		g->props = np;
		g->capprops = cap;
	}
	mask = g->capprops - 1;
	for (i = (h ^ (uint64_t)n) & mask; g->props[i].n >= 0; i = (i + 1) & mask)
		if (g->props[i].h == h && g->props[i].n == n)
			return &g->props[i];
	if (g->prop_cells + (size_t)n + 1 > PROP_CELLS)
		return NULL;
	p = &g->props[i];
	memset(p, 0, sizeof *p);
	p->lsum = xmalloc(((size_t)n + 1) * sizeof *p->lsum);
	p->cnt = xcalloc((size_t)n + 1, sizeof *p->cnt);
	p->cdf = xmalloc(((size_t)n + 1) * sizeof *p->cdf);
	if (!p->lsum || !p->cnt || !p->cdf) {
		prop_free(p);
		p->n = -1;
		return NULL;
	}
	for (int64_t k = 0; k <= n; k++)
		p->lsum[k] = -INFINITY;
	p->h = h;
	p->n = n;
	p->lw = p->lwk = p->lw2 = -INFINITY;
	p->built = -1;
	g->nprops++;
	g->prop_cells += (size_t)n + 1;
	return p;
}

/* Builds p's cumulative proposal from what its draws gave so far:
 * (1 - eps - gs) M(k) + eps / (n + 1) + [k != m] gs M(k) / (1 - M(m)),
 * with M = lam T + (1 - lam) B, m its likeliest count and gs the guided
 * share (PROP_GUIDED with a pilot, else 0), where T is
 * proportional to the mean C(n,k) Z(k) drawn at each k seen (adaptive
 * only; lam = 1/2 once something was seen), and B is the node's pilot
 * (count_pilot) if it has one, else Binomial(n, ph), where ph estimates
 * the mean fraction of true atoms under the target, weighting each draw
 * by C(n,k) Z(k) / Q(k). */
static void
prop_build(const struct eng *g, struct prop *p)
{
	int64_t n = p->n;
	double ph = 0.5, lam = 0, mx = -INFINITY, tsum = 0, acc = 0, lp, lq;
	double ess = 0, eps = PROP_EPS, guided = 0, gs = 0;
	double lo = 0.5 / ((double)n + 1);
	int64_t m = 0;

	/* the table of counts counts as much as its effective number of
	 * samples against PROP_PRIOR samples of the binomial: a node adapted
	 * from a few samples, one of them carrying all the weight, once drew
	 * a count its table had made 40 times too unlikely (1 run in 300 of
	 * a 3-person model off by 1.7%).  The binomial's p is not shrunk
	 * toward 1/2: with n in the hundreds that costs far more (ESS 700
	 * to 3 on friends-and-smokers, n = 50) */
	if (p->lw > -INFINITY)
		ess = exp(2 * p->lw - p->lw2);
	if (p->lw > -INFINITY)
		ph = exp(p->lwk - p->lw);
	ph = ph < lo ? lo : ph > 1 - lo ? 1 - lo : ph;
	if (g->o.proposal == ENG_PROP_ADAPTIVE) {
		for (int64_t k = 0; k <= n; k++)
			if (p->cnt[k] > 0 && p->lsum[k] - log(p->cnt[k]) > mx)
				mx = p->lsum[k] - log(p->cnt[k]);
		for (int64_t k = 0; k <= n && mx > -INFINITY; k++)
			if (p->cnt[k] > 0)
				tsum += exp(p->lsum[k] - log(p->cnt[k]) - mx);
		if (mx > -INFINITY)
			lam = 0.5 * ess / (ess + PROP_PRIOR);
	}
	lp = log(ph);
	lq = log1p(-ph);
	/* cdf[] holds the mixture lam T + (1 - lam) B first */
	for (int64_t k = 0; k <= n; k++) {
		double b = p->pil ? p->pil[k] :
		    exp(lchoose(n, k) + (double)k * lp + (double)(n - k) * lq);
		double tk = lam > 0 && p->cnt[k] > 0 ?
		    exp(p->lsum[k] - log(p->cnt[k]) - mx) / tsum : 0;
		p->cdf[k] = lam * tk + (1 - lam) * b;
		if (k == 0 || p->cdf[k] > p->cdf[m])
			m = k;
	}
	/* a node with a pilot puts a further PROP_GUIDED on the counts
	 * other than the mixture's mode m, in proportion to the mixture.
	 * When m has nearly all the weight, mode_split solves it every time
	 * and the rest of the sum comes in only when another count is
	 * drawn: with the uniform share alone, IMDB's next count (one
	 * diagonal workedUnder atom false, 58 e^-10 of the weight) came 1
	 * sample in 300, and 100 samples said log Z 0.0026 low with a
	 * stderr of 0.  With 2.5% here a 12-person version was covered in
	 * 95 runs of 100 (84 when the 2.5% came out of the uniform share);
	 * 10% covered as many and took 4-30 times as long, as every count
	 * off the mode is a theory whose nodes need pilots of their own */
	if (p->pil && p->cdf[m] < 1) {
		guided = PROP_GUIDED;
		gs = guided / (1 - p->cdf[m]);
	}
	for (int64_t k = 0; k <= n; k++) {
		double q = (1 - eps - guided) * p->cdf[k] +
		    eps / ((double)n + 1) + (k != m ? gs * p->cdf[k] : 0);
		if (k == 0 || q > p->qmode) {
			p->kmode = k;
			p->qmode = q;
		}
		acc += q;
		p->cdf[k] = acc;
	}
	p->qmode /= acc;
	p->built = p->visits;
}

/* Draws k in 0..n from node (h, n); *lq gets log Q(k). */
static int64_t
prop_draw(struct eng *g, uint64_t h, int64_t n, struct prop **pp, double *lq)
{
	struct prop *p = NULL;
	double u = eng_rng_unit(g->rng);
	int64_t lo = 0, hi = n, v;

	g->st.draws++;
	if (g->o.proposal != ENG_PROP_UNIFORM)
		p = prop_get(g, h, n);
	*pp = p;
	if (!p) {
		int64_t k = (int64_t)(u * ((double)n + 1));
		*lq = -log((double)n + 1);
		return k > n ? n : k;
	}
	v = p->visits;
	if (p->built != v && (n <= 64 || v <= 16 || (v & (v - 1)) == 0 ||
	    v % 64 == 0))
		prop_build(g, p);
	u *= p->cdf[n];
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (p->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	*lq = log((p->cdf[lo] - (lo ? p->cdf[lo - 1] : 0)) / p->cdf[n]);
	return lo;
}

/* The probability of 1 of the Bernoulli proposal of node (h, 1). */
static double
prop_p1(struct eng *g, uint64_t h)
{
	struct prop *p = NULL;

	if (g->o.proposal != ENG_PROP_UNIFORM)
		p = prop_get(g, h, 1);
	if (!p)
		return 0.5;
	if (p->built != p->visits)
		prop_build(g, p);
	return (p->cdf[1] - p->cdf[0]) / p->cdf[1];
}

/* What a draw of k gave: val = log C(n,k) Z(k) (estimated). */
static void
prop_update(struct prop *p, int64_t k, double val, double lq)
{
	double w = val - lq;

	if (!p)
		return;
	p->visits++;
	p->cnt[k]++;
	p->lsum[k] = log_add(p->lsum[k], val);
	p->lw = log_add(p->lw, w);
	p->lw2 = log_add(p->lw2, 2 * w);
	if (k > 0)
		p->lwk = log_add(p->lwk, w + log((double)k / (double)p->n));
}

/* While sampling, when the class to branch on is one ground atom: every
 * class of one ground atom in t is drawn at once, each from its own
 * Bernoulli proposal (keyed by the atom), and t is simplified once for
 * all of them instead of once per atom.  The weight is Z(rest) over the
 * product of the proposals: unbiased, as every joint value can be drawn.
 * The proposals adapt towards each atom's marginal under the target
 * (importance-weighted fraction of samples where it was true).  Takes t
 * and frees ix. */
static int
batch_sample(struct eng *g, struct th *t, struct index *ix, double *out)
{
	struct amap m = { 0 };
	struct pick {
		uint64_t h;
		int k;
	} *pk = NULL;
	struct index ix2;
	double lq = 0, expected = ix->total, konst, assigned, z;
	size_t na = 0;
	int gk[130], rc = 0;

	for (int c = 0; c < ix->ncls; c++)
		na += drawable(g, ix, c);
	for (m.cap = 16; m.cap < 2 * na; m.cap *= 2)
		;
	if (!(m.v = xcalloc(m.cap, sizeof *m.v)) ||
	    !(pk = xmalloc((na + 1) * sizeof *pk))) {
		rc = err_oom(g->e);
		goto fail;
	}
	na = 0;
	for (int c = 0; c < ix->ncls; c++) {
		const struct occ *o = &ix->occ[ix->first[c]];
		struct prop *p;
		uint64_t h;
		double q;
		if (!drawable(g, ix, c))
			continue;
		h = fnv1a(FNV_INIT, o->key, o->len * sizeof *o->key);
		pk[na].h = t->gid ? atom_prop_key(fnv1a(FNV_INIT, gkey(t, o->key,
		    o->len, gk), o->len * sizeof *o->key)) : atom_prop_key(h);
		pk[na].k = (int)prop_draw(g, pk[na].h, 1, &p, &q);
		lq += q;
		expected -= ix->atoms[c];
		amap_put(&m, h, o->key, o->len, pk[na].k);
		track_set(g, t, o->key, o->len, pk[na].k);
		na++;
	}
	g->st.binomials++;
	g->amap = &m;
	rc = simplify(g, t, NULL, &konst, &assigned);
	g->amap = NULL;
	if (rc < 0) {
		rc = err_oom(g->e);
		goto fail;
	}
	index_free(ix);
	free(m.v);
	m.v = NULL;
	if (konst == -INFINITY) {
		th_free(t);
		*out = -INFINITY;
		goto done;
	}
	if (index_build(g, t, &ix2) < 0) {
		th_free(t);
		rc = err_oom(g->e);
		goto done;
	}
	konst += (expected - assigned - ix2.total) * FREE(g);
	index_free(&ix2);
	if ((rc = solve(g, t, &z)))
		goto done;
	*out = konst + z - lq;
	for (size_t i = 0; i < na && *out > -INFINITY; i++) {
		struct prop *p = g->o.proposal == ENG_PROP_UNIFORM ? NULL :
		    prop_get(g, pk[i].h, 1);
		if (!p)
			continue;
		p->visits++;
		p->lw = log_add(p->lw, *out);
		p->lw2 = log_add(p->lw2, 2 * *out);
		if (pk[i].k)
			p->lwk = log_add(p->lwk, *out);
	}
done:
	free(pk);
	return rc;
fail:
	free(m.v);
	free(pk);
	th_free(t);
	return rc;
}

/* Node t's child with k of class cls's n atoms true, solved (takes t):
 * key (len ints) is the class's key, b its block (< 0: one ground atom). */
static int
count_child(struct eng *g, struct th *t, const int *key, size_t len, int b,
    int64_t k, double expected, double *z)
{
	int kt[130], kf[130], nb;
	struct asg as = { 2, { kt, kf }, { len, len }, { 1, 0 } };

	if (b < 0) {
		memcpy(kt, key, len * sizeof *kt);
		as.n = 1;
		as.truth[0] = (int)k;
		track_set(g, t, key, len, (double)k);
	} else {
		int64_t n = t->size[b];
		if ((nb = th_add_block(t, 0, t->type[b])) < 0 ||
		    split_clauses(t, b, nb) < 0) {
			th_free(t);
			return err_oom(g->e);
		}
		key_with(key, len, b, b, kt);
		key_with(key, len, b, nb, kf);
		t->size[b] = k;
		t->size[nb] = n - k;
	}
	return solve_child(g, t, &as, expected, z);
}

#define CPILOT_MIN 2           /* nodes of this many atoms get a pilot:
                                  with 8, IMDB's model on 5 and 6 persons
                                  was 60 and 160 nats low */
#define CPILOT_FREE 8          /* from here always; a smaller node only
                                  while the pilots' solves have visited
                                  no more nodes than the rest: IMDB with
                                  workedUnder queried, whose pair groups
                                  meet new node shapes in every sample,
                                  took 55 s for 6 samples, 40 s so */
#define CPILOT_GRID 16         /* its first grid: so many intervals */
#define CPILOT_SOLVES 48       /* its children solved at most */
#define CPILOT_GRID_BELOW 4    /* the same below a node drawn in the */
#define CPILOT_SOLVES_BELOW 12 /* same sample */
#define CPILOT_NATS 30.0       /* intervals this far below the best: done */
#define CPILOT_BUDGET 100      /* the exact budget of its solves (at most) */

/* A binomial node's pilot, before its first draw: its child is solved
 * (one sample each, below it nothing piloted or tracked) at a grid of
 * counts and then at the midpoints of the intervals that may hold the
 * most of C(n,k) Z(k), and log C(n,k) Z(k) is interpolated linearly
 * between the counts solved.  The adaptive proposal alone starts from a
 * binomial and moves to the mode it finds: on friends-and-smokers, whose
 * C(n,k) Z(k) has its modes at both ends 200 nats above the middle, it
 * settled in the lower one (20 nats, with a stderr of 0.02).  Each
 * count's child is solved with the nodes below drawn and, if they drew
 * anything, with all of them at k = 0 and at k = n (g->policy), keeping
 * the largest: on IMDB without evidence the mode has every movie and
 * workedUnder atom true, which no node's draws find while the nodes
 * below it draw half their atoms true (the draws found one 20,000 nats
 * lower).  The solves have a smaller exact budget, their own try_cap,
 * and teach no proposal.  *pil gets the normalised proposal (NULL if
 * every count had weight 0). */
static int
count_pilot(struct eng *g, const struct th *t, const int *key, size_t len,
    int b, double expected, double **pil)
{
	int64_t n = t->size[b], nsolved = 0;
	int grid = g->sampled ? CPILOT_GRID_BELOW : CPILOT_GRID;
	int solves = g->sampled ? CPILOT_SOLVES_BELOW : CPILOT_SOLVES;
	double *v = xmalloc(((size_t)n + 1) * sizeof *v), best = -INFINITY, sum;
	size_t m0 = g->ga.n;   /* the pilot's counts shape nothing */
	int rc = 0;

	*pil = NULL;
	if (!v)
		return err_oom(g->e);
	for (int64_t k = 0; k <= n; k++)
		v[k] = NAN;
	g->piloting++;
	for (;;) {
		int64_t k = -1;
		if (nsolved <= grid) {
			k = (int64_t)((double)n * (double)nsolved / grid + 0.5);
			if (!isnan(v[k]))
				k = -1;
		} else if (nsolved < solves) {
			/* the unsolved interval whose ends give the largest mass
			 * bound: max end + log(length) */
			double bp = -INFINITY;
			for (int64_t a = 0, c; a < n; a = c) {
				double pr;
				for (c = a + 1; isnan(v[c]); c++)
					;
				pr = fmax(v[a], v[c]) + log((double)(c - a));
				if (c - a > 1 && pr > bp && pr > best - CPILOT_NATS) {
					bp = pr;
					k = a + (c - a) / 2;
				}
			}
			if (k < 0)
				break;
		} else
			break;
		nsolved++;
		/* the child once with every node below drawn and, if it
		 * drew anything, with every node below at k = 0 and at k = n:
		 * a mode where all or none of several classes' atoms are
		 * true together (IMDB without evidence: every movie atom and
		 * every workedUnder atom) is out of the draws' reach */
		for (int pol = 0; k >= 0 && pol < 3 && !rc; pol++) {
			struct th *c = th_copy(t);
			int64_t d0 = g->st.draws;
			double z;
			if (!c) {
				rc = err_oom(g->e);
				break;
			}
			g->policy = pol;
			rc = count_child(g, c, key, len, b, k, expected, &z);
			if (!rc) {
				z += lchoose(n, k);
				v[k] = pol ? fmax(v[k], z) : z;
				best = fmax(best, v[k]);
			}
			if (!pol && g->st.draws == d0)
				break;
		}
		g->policy = 0;
		if (rc)
			break;
	}
	g->piloting--;
	g->ga.n = m0;
	if (rc || best == -INFINITY) {
		free(v);
		return rc;
	}
	/* interpolate, exponentiate, normalise */
	sum = 0;
	for (int64_t a = 0, c; a < n; a = c) {
		for (c = a + 1; isnan(v[c]); c++)
			;
		for (int64_t k = a + 1; k < c; k++)
			v[k] = v[a] == -INFINITY || v[c] == -INFINITY ? -INFINITY :
			    v[a] + (v[c] - v[a]) * (double)(k - a) / (double)(c - a);
	}
	for (int64_t k = 0; k <= n; k++)
		sum += v[k] = exp(v[k] - best);
	for (int64_t k = 0; k <= n; k++)
		v[k] /= sum;
	*pil = v;
	return 0;
}

/* A binomial node whose proposal puts most of its mass on one count m:
 * C(n,m) Z(m) is always estimated (a solve of the child at m), and the
 * rest of the sum by the drawn k when it is not m:
 * C(n,m) Z(m) + [k != m] C(n,k) Z(k) / Q(k), whose expectation over k ~ Q
 * is the whole sum.  Drawing k alone gives C(n,m) Z(m) / Q(m) at the
 * mode: a target all at m then looks exact, one sample as good as a
 * thousand, until a draw off the mode brings in the near-zero weight
 * that the Q(m) < 1 was paying for (IMDB without evidence, with a
 * uniform share of 0.5%: 30 samples 0.019 nats high, stderr 0.00005; with
 * 0.5% it also covered the 12 smokers in 85 runs of 100, so the share
 * stays 5%).  Costs a second solve when
 * k is not m (at most 1 - MODE_SPLIT of the visits); where the pilot puts
 * k NEGL_NATS below m, that solve is light (g->negl).  Not with atoms
 * tracked by path (eng_track): their expectations follow one path;
 * counts (eng_track_count) take the two terms' shares.  Takes t. */
static int
mode_split(struct eng *g, struct th *t, const int *key, size_t len, int b,
    double expected, int64_t k, double lq, uint64_t h, double *out)
{
	int64_t n = t->size[b], m;
	struct prop *p = prop_get(g, h, n);
	double zm, zk, lqm;
	size_t mk[2] = { g->ga.n, 0 };
	int rc;

	if (!p) {
		th_free(t);
		return err_oom(g->e);
	}
	m = p->kmode;
	lqm = log(p->qmode);
	if (k != m) {
		struct th *c = th_copy(t);
		int negl = p->pil && p->pil[k] < p->pil[m] * exp(-NEGL_NATS);
		if (!c) {
			th_free(t);
			return err_oom(g->e);
		}
		g->negl += negl;
		rc = count_child(g, c, key, len, b, k, expected, &zk);
		g->negl -= negl;
		if (rc) {
			th_free(t);
			return rc;
		}
		zk += lchoose(n, k);
	}
	mk[1] = g->ga.n;
	if ((rc = count_child(g, t, key, len, b, m, expected, &zm)))
		return rc;
	zm += lchoose(n, m);
	*out = k == m ? zm : log_add(zm, zk - lq);
	if (k != m) {
		double lt[2] = { zk - lq, zm };
		ga_shares(g, mk, lt, 2, *out);
	}
	/* the table may have moved */
	if ((p = prop_get(g, h, n))) {
		prop_update(p, m, zm, lqm);
		if (k != m)
			prop_update(p, k, zk, lq);
	}
	return 0;
}

/* The binomial node while sampling: one k drawn from the proposal, and
 * C(n,k) Z(k) / Q(k).  Takes t and frees ix before going down, so that a
 * path through many nodes holds one theory. */
static int
binomial_sample(struct eng *g, struct th *t, struct index *ix, int cls,
    double *out)
{
	const struct occ *o = &ix->occ[ix->first[cls]];
	int b = ix->big[cls], key[130], rc;
	int64_t n = b >= 0 ? t->size[b] : 1, k;
	double expected = ix->total - ix->atoms[cls], lq, z, val;
	size_t len = o->len;
	uint64_t h = g->cur_h;
	struct prop *p;

	g->st.binomials++;
	memcpy(key, o->key, len * sizeof *key);
	index_free(ix);
	if (g->piloting && g->policy) {
		/* below a pilot: a fixed count, nothing learnt */
		k = g->policy == 1 ? 0 : n;
		g->st.draws++;
		if ((rc = count_child(g, t, key, len, b, k, expected, &z)))
			return rc;
		*out = z + lchoose(n, k);
		return 0;
	}
	if (n >= CPILOT_MIN && !g->piloting && !g->negl && (n >= CPILOT_FREE ||
	    2 * g->pilot_nodes <= g->st.nodes) &&
	    g->o.proposal == ENG_PROP_ADAPTIVE &&
	    (p = prop_get(g, h, n)) && !p->visits && !p->pil) {
		double *pil;
		if ((rc = count_pilot(g, t, key, len, b, expected, &pil))) {
			th_free(t);
			return rc;
		}
		/* the table may have moved */
		if ((p = prop_get(g, h, n)) && !p->pil) {
			p->pil = pil;
			p->built = -1;
		} else
			free(pil);
	}
	k = prop_draw(g, h, n, &p, &lq);
	g->sampled++;
	if (p && p->pil && p->qmode >= MODE_SPLIT && !g->npath && !g->piloting) {
		rc = mode_split(g, t, key, len, b, expected, k, lq, h, out);
		g->sampled--;
		return rc;
	}
	/* the proposal table may move while the child is solved */
	rc = count_child(g, t, key, len, b, k, expected, &z);
	g->sampled--;
	if (rc)
		return rc;
	val = z + lchoose(n, k);
	if (p && !g->piloting)
		p = prop_get(g, h, n);
	else
		p = NULL;
	prop_update(p, k, val, lq);
	*out = val - lq;
	return 0;
}

/* Generalized binomial on class cls, whose one slot is in block b (or a
 * single ground atom when b < 0): k of its atoms true, for every k. */
static int
binomial(struct eng *g, struct th *t, const struct index *ix, int cls,
    double *out)
{
	const struct occ *o = &ix->occ[ix->first[cls]];
	int b = ix->big[cls], nb = -1, kt[130], kf[130], rc = 0;
	int64_t n = b >= 0 ? t->size[b] : 1;
	double expected = ix->total - ix->atoms[cls], *terms, max = -INFINITY;
	long double sum = 0;
	struct asg as = { 2, { kt, kf }, { o->len, o->len }, { 1, 0 } };
	size_t *mk = NULL;     /* per k: where its counts begin in ga */

	g->st.binomials++;
	if (g->plan) {
		char ct[200];
		class_text(g, t->size, o->key, ct, sizeof ct);
		plan_line(g, "binomial on %s: %lld branches", ct, (long long)n + 1);
	}
	if (!(terms = xmalloc(((size_t)n + 2) * sizeof *terms)) ||
	    (g->ntag && !(mk = xmalloc(((size_t)n + 2) * sizeof *mk)))) {
		free(terms);
		return err_oom(g->e);
	}
	if (b < 0) {
		/* a single atom: true, then false */
		memcpy(kt, o->key, o->len * sizeof *kt);
		as.n = 1;
		for (int v = 0; v < 2 && !rc; v++) {
			struct th *c = th_copy(t);
			as.truth[0] = !v;
			if (mk)
				mk[v] = g->ga.n;
			if (!c)
				rc = err_oom(g->e);
			else
				rc = solve_child(g, c, &as, expected, &terms[v]);
		}
		n = 1;
	} else {
		if ((nb = th_add_block(t, 0, t->type[b])) < 0)
			rc = err_oom(g->e);
		if (!rc && split_clauses(t, b, nb) < 0)
			rc = err_oom(g->e);
		double mult = g->mult;
		key_with(o->key, o->len, b, b, kt);
		key_with(o->key, o->len, b, nb, kf);
		if (g->plan)
			g->mult *= (double)n + 1;
		for (int64_t k = 0; k <= n && !rc; k++) {
			struct th *c;
			if (mk)
				mk[k] = g->ga.n;
			if (g->plan && k != n / 2) {
				terms[k] = -INFINITY;
				continue;
			}
			t->size[b] = k;
			t->size[nb] = n - k;
			if (!(c = th_copy(t))) {
				rc = err_oom(g->e);
				break;
			}
			rc = solve_child(g, c, &as, expected, &terms[k]);
			if (!rc && g->o.semiring == ENG_SUM)
				terms[k] += lchoose(n, k);
		}
		g->mult = mult;
	}
	for (int64_t k = 0; k <= n && !rc; k++)
		if (terms[k] > max)
			max = terms[k];
	for (int64_t k = 0; k <= n && !rc && max > -INFINITY &&
	    g->o.semiring == ENG_SUM; k++)
		sum += expl((long double)(terms[k] - max));
	if (!rc)
		*out = max == -INFINITY || g->o.semiring == ENG_MAX ? max :
		    max + (double)logl(sum);
	if (!rc && mk)
		ga_shares(g, mk, terms, (size_t)n + 1, *out);
	free(terms);
	free(mk);
	return rc;
}

/* Grounds one constant of block b: b keeps the others. */
static int
ground_one(struct eng *g, struct th *t, struct index *ix, int cls,
    double *out)
{
	int b = ix->big[cls], nb;
	double expected;
	const struct occ *o = &ix->occ[ix->first[cls]];
	const struct mln_model *m = g->ct->m;
	char step[sizeof g->step];

	g->st.groundings++;
	snprintf(step, sizeof step, "grounding a block of %lld %s constants "
	    "for %s/%d", (long long)t->size[b], m->types.v[t->type[b]].name,
	    m->preds.v[o->key[0]].name, arity(g, o->key[0]));
	/* a limit's message names the largest grounding the search needed */
	if (t->size[b] > g->st.largest_grounding) {
		g->st.largest_grounding = t->size[b];
		memcpy(g->step, step, sizeof step);
	}
	plan_line(g, "%s", step);
	if ((nb = split_one(t, b)) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	expected = ix->total;
	index_free(ix);
	return solve_child(g, t, NULL, expected, out);
}

/* While sampling, part t (index ix) is solved exactly rather than drawn:
 * each tracked atom in it gets its exact marginal within t, Z_t(atom) /
 * (Z_t(atom) + Z_t(not atom)), by two exact (cached) searches.  All of
 * them together have the exact budget: fixing one atom breaks the
 * symmetry and the independence that made t cheap (on Cora a part of 20
 * atoms solved within the budget took 3 s for its 40 searches, and a
 * sample meets hundreds of such parts).  *over is set when they are over
 * it; t must then be drawn. */
static int
track_part(struct eng *g, const struct th *t, const struct index *ix,
    int *over)
{
	int rc = 0;

	int64_t limit = g->try_limit;
	int trying = g->trying;
	size_t m0 = g->ga.n;   /* the solves' counts are not t's */

	*over = 0;
	if (!g->npath || g->piloting)
		return 0;
	g->try_limit = g->o.exact_budget > 0 ? g->try_work + g->o.exact_budget :
	    INT64_MAX;
	for (int c = 0; c < ix->ncls && !rc && !*over; c++) {
		const struct occ *o = &ix->occ[ix->first[c]];
		int slot, kt[130], gk[130];
		struct asg as = { 1, { kt }, { o->len }, { 1 } };
		double z[2];
		if (ix->slots[c] != 0 ||
		    (slot = amap_eval(&g->trk, gkey(t, o->key, o->len, gk),
		    o->len)) < 0)
			continue;
		memcpy(kt, o->key, o->len * sizeof *kt);
		g->trying = 1;
		g->try_failed = 0;
		for (int v = 0; v < 2 && !rc; v++) {
			struct th *d = th_copy(t);
			as.truth[0] = !v;
			if (!d)
				rc = err_oom(g->e);
			else
				rc = solve_child(g, d, &as, ix->total - ix->atoms[c], &z[v]);
		}
		g->trying = trying;
		if (rc && g->try_failed) {
			g->try_failed = 0;
			g->e->status = 0;
			g->e->msg[0] = 0;
			rc = 0;
			*over = 1;
		} else if (!rc)
			trk_put(g, slot, z[0] == -INFINITY ? 0 :
			    1 / (1 + exp(z[1] - z[0])));
		g->ga.n = m0;
	}
	g->try_limit = limit;
	return rc;
}

static int
limits(struct eng *g, const struct th *t)
{
	g->st.nodes++;
	if (g->piloting)
		g->pilot_nodes++;
	/* an exact attempt pays for the size of the theories it visits: a
	 * node of n clauses costs 1 + n / 64 of the budget */
	g->try_work += 1 + (int64_t)t->c.n / 64;
	if (g->trying && g->try_work > g->try_limit) {
		g->try_failed = 1;
		return err_set(g->e, SQLIFT_ELIMIT, "over the exact budget");
	}
	if (g->o.max_nodes > 0 && g->st.nodes > g->o.max_nodes)
		return err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "--max-nodes %lld%s%s: the theory does not lift (try --method "
		    "lis)", (long long)g->o.max_nodes, g->step[0] ? " while " : "",
		    g->step);
	if (g->o.max_seconds > 0 && now_seconds() - g->t0 > g->o.max_seconds)
		return err_set(g->e, SQLIFT_ELIMIT, "exact inference stopped at "
		    "--max-seconds %g%s%s: the theory does not lift (try --method "
		    "lis)", g->o.max_seconds, g->step[0] ? " while " : "", g->step);
	/* Stop before the kernel kills the process: every level of the
	 * search holds its theory, and where a theory does not lift they
	 * are large (UW-CSE with its EXIST formulas: about 100 MB a node,
	 * and explain's plan reached 24 GB).  A large node is checked
	 * every time, small ones every 1024 nodes. */
	if (g->mem_cap > 0 && (t->c.n >= 4096 || (g->st.nodes & 1023) == 0)) {
		double m = mem_resident();
		if (m > g->mem_cap)
			return err_set(g->e, SQLIFT_ELIMIT, "%s stopped: it holds "
			    "%.1f GB, more than %.1f GB%s%s%s: the theory does not "
			    "lift%s", g->rng ? "sampling" : "exact inference", m / 1e9,
			    g->mem_cap / 1e9, g->o.max_memory > 0 ? "" :
			    " (3/4 of this machine's memory)", g->step[0] ?
			    " while " : "", g->step, g->rng ? "" :
			    " (try --method lis)");
	}
	return 0;
}

struct gpart;
static int gpart_build(struct eng *g, const struct th *t,
    struct gpart **out);
static double gpart_enum(struct eng *g, struct gpart *gp);
static void gpart_free(struct gpart *gp);

/* What enumerating the values of t's atoms would cost, in the exact
 * budget's units (a node of n clauses costs 1 + n / 64): 2^atoms such
 * evaluations of t.  Infinite beyond 30 atoms. */
static double
enum_units(size_t clauses, int atoms)
{
	return atoms > 30 ? INFINITY : ldexp(1 + (double)clauses / 64, atoms);
}

static double
enum_cost(const struct eng *g, const struct index *ix, const struct th *t)
{
	int first;

	return enum_units(t->c.n, count_drawable(g, ix, &first));
}

/* log Z of simplified theory t (not counting atoms outside its
 * clauses).  Takes t. */
static int
solve(struct eng *g, struct th *t, double *out)
{
	struct index ix;
	struct ibuf key = { 0 };
	uint64_t h = 0;
	int rc, cls, hard = 0, sampling = g->rng && !g->trying, batch;
	int light = g->piloting || g->negl;  /* the pilots' exact budget */
	double *cap = g->piloting ? &g->pilot_cap : g->negl ? &g->negl_cap :
	    &g->try_cap;              /* and their cap, or the others' */
	int skip_key, first = -1;
	size_t mark0 = g->ga.n;       /* this theory's expected counts */

	if ((rc = limits(g, t))) {
		th_free(t);
		return rc;
	}
	g->est_nodes += g->mult;
	if (t->c.n == 0) {
		th_free(t);
		*out = 0;
		return 0;
	}
	if (index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	if (decompose(g, t, &ix, out, &rc)) {
		index_free(&ix);
		return rc;
	}
	/* many ground atoms: all at once (batch_sample); a few: one by
	 * one, each proposal knowing the earlier draws */
	batch = sampling && count_drawable(g, &ix, &first) >= BATCH_MIN;
	if (sampling && g->o.exact_budget > 0 && ix.total == ix.ncls &&
	    enum_cost(g, &ix, t) <= (double)g->o.exact_budget) {
		/* small and ground: exact by enumeration, with the marginals
		 * of its tracked atoms (Rao-Blackwellisation) */
		struct gpart *gp;
		double z = NAN;
		if (gpart_build(g, t, &gp) < 0) {
			th_free(t);
			rc = err_oom(g->e);
			goto done;
		}
		if (gp) {
			g->st.exact_tries++;
			g->st.enumerations++;
			z = gpart_enum(g, gp);
			gpart_free(gp);
			if (isnan(z)) {
				th_free(t);
				rc = err_oom(g->e);
				goto done;
			}
			*out = z;
			th_free(t);
			goto done;
		}
	}
	/* too big to try exactly and drawn at once: such a node needs no
	 * key (a cache hit is unlikely, and only lowers the variance) */
	skip_key = batch && (g->o.exact_budget == 0 || ix.total >= g->try_cap);
	if ((!g->o.no_cache || sampling) && !skip_key) {
		struct centry *c;
		if (cache_key(g, t, &key) < 0) {
			rc = err_oom(g->e);
			th_free(t);
			goto done;
		}
		h = key_hash(key.v, key.n);
		if ((c = cache_find(g, &key, h)) && c->key) {
			int over = 0;
			double val = c->val;
			if (!isnan(val) && (!sampling || (!c->track_over &&
			    ((rc = track_part(g, t, &ix, &over)) || !over)))) {
				g->st.cache_hits++;
				plan_line(g, "cache hit");
				for (int i = 0; i < c->ne; i++)
					ga_push(g, c->etag[i], c->ev[i]);
				*out = val;
				th_free(t);
				goto done;
			}
			/* known to be over the exact budget (or its tracked
			 * atoms are): drawn */
			if (over)
				track_over(g, &key, h);
			if (g->trying) {
				th_free(t);
				g->try_failed = 1;
				rc = err_set(g->e, SQLIFT_ELIMIT, "over the exact budget");
				goto done;
			}
			hard = 1;
		}
	}
	if (sampling && !hard && g->o.exact_budget > 0 &&
	    ix.total < *cap) {
		/* Rao-Blackwellisation: solve it exactly if that is cheap */
		struct th *c = th_copy(t);
		double z;
		if (!c) {
			rc = err_oom(g->e);
			th_free(t);
			goto done;
		}
		g->st.exact_tries++;
		g->trying = 1;
		g->try_failed = 0;
		/* a pilot's solves try with a smaller budget: they are many,
		 * and their values only shape a proposal; so do the parts below
		 * a count the pilot found negligible (their values hardly
		 * count: on IMDB without evidence, with the full budget and
		 * without pilots they took 5x the time of the rest) */
		g->try_limit = g->try_work + (light &&
		    g->o.exact_budget > CPILOT_BUDGET ? CPILOT_BUDGET :
		    g->o.exact_budget);
		rc = solve(g, c, &z);
		g->trying = 0;
		if (rc || g->try_failed)
			g->ga.n = mark0;  /* drawn instead: its counts come then */
		if (!rc) {
			int over;
			if ((rc = track_part(g, t, &ix, &over)) || !over) {
				*out = z;
				th_free(t);
				goto done;
			}
			track_over(g, &key, h);
			g->try_failed = 1;
			g->ga.n = mark0;
		}
		if (!g->try_failed) {
			th_free(t);
			goto done;
		}
		g->st.exact_fails++;
		/* a part this big was too much: try only smaller ones from
		 * now on (a heuristic: it changes the variance, not the
		 * expectation) */
		*cap = fmin(*cap, ix.total);
		g->try_failed = 0;
		g->e->status = 0;
		g->e->msg[0] = 0;
		rc = 0;
		if (!light)
			cache_put(g, &key, h, NAN, SIZE_MAX);
	}
	g->cur_h = h;
	if (power(g, t, &ix, out, &rc))
		goto store;
	cls = batch ? first : pick_class(g, t, &ix);
	if (cls < 0) {
		rc = err_oom(g->e);
		th_free(t);
		goto done;
	}
	if (sampling) {
		/* one branch: nothing of this node is needed below it */
		free(key.v);
		key.v = NULL;
	}
	if (ix.slots[cls] > 1)
		rc = ground_one(g, t, &ix, cls, out);
	else if (batch)
		rc = batch_sample(g, t, &ix, out);
	else if (sampling)
		rc = binomial_sample(g, t, &ix, cls, out);
	else {
		rc = binomial(g, t, &ix, cls, out);
		th_free(t);
	}
store:
	if (!rc && !g->o.no_cache && !g->plan && !sampling)
		cache_put(g, &key, h, *out, mark0);
done:
	free(key.v);
	index_free(&ix);
	return rc;
}

/* --- building --------------------------------------------------------- */

struct conv {
	const struct ct_clause *c;
	const struct si_tuple *tu;
	int nreps, rep[64], ri[64], choice[64];
};

static int
conv_rec(struct eng *g, struct th *t, struct conv *cv, int r)
{
	const struct ct_clause *c = cv->c;
	const struct si_tuple *tu = cv->tu;

	if (r == cv->nreps) {
		int nneq = 0, nargs = 0;
		struct cl *d;
		for (int k = 0; k < c->nlits; k++)
			nargs += arity(g, c->lits[k].pred);
		for (int j = 0; j < tu->nneq; j++)
			nneq += cv->choice[cv->ri[tu->neq[j][0]]] ==
			    cv->choice[cv->ri[tu->neq[j][1]]];
		if (!(d = cl_new(cv->nreps, nneq, c->nlits, nargs)))
			return -1;
		d->w = c->weight;
		d->hard = c->hard;
		for (int v = 0; v < cv->nreps; v++)
			d->blk[v] = cv->choice[v];
		nneq = 0;
		for (int j = 0; j < tu->nneq; j++) {
			int a = cv->ri[tu->neq[j][0]], b = cv->ri[tu->neq[j][1]];
			if (cv->choice[a] != cv->choice[b])
				continue;
			d->neq[nneq][0] = a < b ? a : b;
			d->neq[nneq][1] = a < b ? b : a;
			nneq++;
		}
		nargs = 0;
		for (int k = 0; k < c->nlits; k++) {
			const struct ct_lit *l = &c->lits[k];
			d->lit[k].pred = l->pred;
			d->lit[k].neg = l->neg;
			d->lit[k].off = nargs;
			for (int a = 0; a < arity(g, l->pred); a++)
				d->arg[nargs++] = cv->ri[tu->rep[l->var[a]]];
		}
		return th_push(t, d);
	}
	{
		int v = cv->rep[r], ty = tu->type[v];
		for (int b = 0; b < g->ct->sp->nblocks[ty]; b++) {
			if (!si_has(tu, v, b))
				continue;
			cv->choice[r] = g->boff[ty] + b;
			if (conv_rec(g, t, cv, r + 1) < 0)
				return -1;
		}
	}
	return 0;
}

int
eng_order_parse(const char *s)
{
	static const char *names[] = { "min-table", "population",
	    "rel-min-fill", "min-fill" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *
eng_order_name(int order)
{
	static const char *names[] = { "min-table", "population",
	    "rel-min-fill", "min-fill" };

	return order >= 0 && order < 4 ? names[order] : "?";
}

int
eng_new(const struct ct_theory *ct, const struct eng_opts *o,
    struct eng **out, struct err *e)
{
	struct eng *g = xcalloc(1, sizeof *g);
	int nt = ct->sp->ntypes, nb = 0;
	struct index ix;
	double konst, expected, assigned;

	*out = NULL;
	if (!g)
		return err_oom(e);
	g->ct = ct;
	g->e = e;
	g->try_cap = g->pilot_cap = g->negl_cap = INFINITY;
	if (o)
		g->o = *o;
	g->t0 = now_seconds();
	g->mem_cap = g->o.max_memory > 0 ? g->o.max_memory :
	    g->o.max_memory < 0 ? 0 : 0.75 * mem_total();
	if (!(g->boff = xcalloc((size_t)nt + 1, sizeof *g->boff)) ||
	    !(g->top = xcalloc(1, sizeof *g->top)))
		goto oom;
	for (int ty = 0; ty < nt; ty++) {
		g->boff[ty] = nb;
		for (int b = 0; b < ct->sp->nblocks[ty]; b++, nb++)
			if (th_add_block(g->top, ct->sp->size[ty][b], ty) < 0)
				goto oom;
	}
	for (size_t i = 0; i < ct->clauses.n; i++) {
		const struct ct_clause *c = &ct->clauses.v[i];
		for (size_t k = 0; k < c->cons.v.n; k++) {
			struct conv cv = { c, c->cons.v.v[k], 0, { 0 }, { 0 }, { 0 } };
			if (c->nvars > 64) {
				eng_free(g);
				return err_set(e, SQLIFT_ELIMIT, "a clause with %d "
				    "variables", c->nvars);
			}
			for (int v = 0; v < c->nvars; v++)
				if (cv.tu->rep[v] == v) {
					cv.ri[v] = cv.nreps;
					cv.rep[cv.nreps++] = v;
				}
			if (conv_rec(g, g->top, &cv, 0) < 0)
				goto oom;
		}
	}
	if (normalise(g, g->top) < 0 || index_build(g, g->top, &ix) < 0)
		goto oom;
	expected = ix.total;
	index_free(&ix);
	if (simplify_keep(g, g->top, NULL, &konst, &assigned,
	    &g->top_units) < 0 ||
	    index_build(g, g->top, &ix) < 0)
		goto oom;
	g->top_atoms = ix.total;
	index_free(&ix);
	g->top_add = ct->log_const + ct->free_atoms * FREE(g) + konst +
	    (expected - assigned - g->top_atoms) * FREE(g);
	*out = g;
	return 0;
oom:
	eng_free(g);
	return err_oom(e);
}

void
eng_free(struct eng *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->capcache; i++) {
		free(g->cache[i].key);
		free(g->cache[i].etag);
		free(g->cache[i].ev);
	}
	free(g->cache);
	for (int i = 0; g->reps && i < g->nreps; i++)
		free(g->reps[i].v);
	free(g->reps);
	free(g->trk_log);
	free(g->trk.v);
	free(g->trk_keys);
	free(g->trk_v);
	free(g->tags);
	free(g->ga.tag);
	free(g->ga.v);
	top_drop(g);
	th_free(g->top);
	free(g->top_units.v);
	for (size_t i = 0; i < g->capprops; i++)
		if (g->props[i].n >= 0)
			prop_free(&g->props[i]);
	free(g->props);
	free(g->boff);
	free(g);
}

int
eng_log_z(struct eng *g, double *log_z, struct err *e)
{
	struct th *t;
	double z;

	g->e = e;
	g->ga.n = 0;           /* counts are eng_sample's */
	if (g->top_done) {
		*log_z = g->top_z;
		return 0;
	}
	if (g->top_add == -INFINITY)
		return err_set(e, SQLIFT_EZERO, "Z = 0: the hard formulas "
		    "contradict the evidence");
	if (!(t = th_copy(g->top)))
		return err_oom(e);
	if (solve(g, t, &z))
		return e->status;
	if (z == -INFINITY)
		return err_set(e, SQLIFT_EZERO, "Z = 0: the hard formulas "
		    "contradict each other or the evidence");
	g->top_z = g->top_add + z;
	g->top_done = 1;
	*log_z = g->top_z;
	return 0;
}

/* Keeps only the clauses of t in the component (clauses linked by
 * shared classes) of class qc. */
static int
keep_component(struct th *t, const struct index *ix, int qc)
{
	int n = (int)t->c.n, *comp, r;
	size_t keep = 0;

	if (components(t, ix, &comp) < 0)
		return -1;
	r = comp[ix->occ[ix->first[qc]].cl];
	for (int i = 0; i < n; i++) {
		if (comp[i] == r)
			t->c.v[keep++] = t->c.v[i];
		else
			free(t->c.v[i]);
	}
	t->c.n = keep;
	free(comp);
	return 0;
}

/* The key of the class of pred's atoms with arguments in the theory's
 * blocks block[] (of each argument's type), equal as eq[] says; returns
 * its length. */
static size_t
top_key(const struct eng *g, int pred, const int *block, const int *eq,
    int *key)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];

	key[0] = pred;
	for (int i = 0; i < p->arity; i++) {
		key[1 + 2 * i] = g->boff[p->types[i]] + block[i];
		key[2 + 2 * i] = eq[i];
	}
	return 1 + 2 * (size_t)p->arity;
}

/* Frees the index of the top theory and its components (it is rebuilt
 * when needed); returns -1. */
static int
top_drop(struct eng *g)
{
	if (g->top_ix)
		index_free(g->top_ix);
	free(g->top_ix);
	free(g->top_root);
	free(g->top_first);
	free(g->top_cls);
	free(g->top_ground);
	g->top_ix = NULL;
	g->top_root = g->top_first = g->top_cls = NULL;
	g->top_ground = NULL;
	return -1;
}

/* A copy of the component of the top theory that holds class key (NULL
 * when no clause has it); out NULL: only *n, its number of clauses
 * (n may be NULL when out is not); *comp (if not NULL): its number. */
static int
top_component(struct eng *g, const int *key, size_t len, struct th **out,
    size_t *n, int *comp)
{
	struct index *ix = g->top_ix;
	struct th *t;
	int r = -1;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!ix) {
		int nc = 0, nt = (int)g->top->c.n;
		if (!(ix = g->top_ix = xcalloc(1, sizeof *ix)))
			return -1;
		if (index_build(g, g->top, ix) < 0) {
			free(ix);
			g->top_ix = NULL;
			return -1;
		}
		if (components(g->top, ix, &g->top_root) < 0)
			return top_drop(g);
		for (int i = 0; i < nt; i++)
			if (g->top_root[i] >= nc)
				nc = g->top_root[i] + 1;
		/* clauses by component: a counting sort */
		g->top_first = xcalloc((size_t)nc + 2, sizeof *g->top_first);
		g->top_cls = xmalloc(((size_t)nt + 1) * sizeof *g->top_cls);
		g->top_ground = xmalloc((size_t)nc + 1);
		if (!g->top_first || !g->top_cls || !g->top_ground)
			return top_drop(g);
		memset(g->top_ground, 1, (size_t)nc + 1);
		for (int c = 0; c < ix->ncls; c++)
			if (ix->atoms[c] != 1)
				g->top_ground[g->top_root[ix->occ[ix->first[c]].cl]] = 0;
		for (int i = 0; i < nt; i++)
			g->top_first[g->top_root[i] + 2]++;
		for (int k = 2; k <= nc + 1; k++)
			g->top_first[k] += g->top_first[k - 1];
		for (int i = 0; i < nt; i++)
			g->top_cls[g->top_first[g->top_root[i] + 1]++] = i;
	}
	{
		/* classes are sorted by key: binary search */
		int lo = 0, hi = ix->ncls;
		struct occ q = { key, len, 0, 0 };
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2, c;
			c = occ_cmp(&ix->occ[ix->first[mid]], &q);
			if (c == 0) {
				r = g->top_root[ix->occ[ix->first[mid]].cl];
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (comp)
		*comp = r;
	if (r < 0)
		return 0;
	if (!out) {
		*n = (size_t)(g->top_first[r + 1] - g->top_first[r]);
		return 0;
	}
	if (!(t = th_empty_like(g->top)))
		return -1;
	for (int i = g->top_first[r]; i < g->top_first[r + 1]; i++) {
		struct cl *c;
		if (!(c = cl_copy(g->top->c.v[g->top_cls[i]])) || th_push(t, c) < 0) {
			th_free(t);
			return -1;
		}
	}
	*out = t;
	return 0;
}

/* One atom of class (pred, block, eq) fixed to truth, in the component
 * of the theory that holds its class: the other components are factors
 * of Z(atom) and Z(not atom) alike, so the marginal is
 * Z_c(atom) / (Z_c(atom) + Z_c(not atom)) on the component alone.  *out
 * and *konst (what it adds outside *out), or *known, the atom's marginal
 * when no search is needed (*out NULL). */
static int
cond_theory(struct eng *g, int pred, const int *block, const int *eq,
    int truth, struct th **out, double *konst, double *known)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	struct th *t;
	int key[130], nb[64], rc;
	size_t len = top_key(g, pred, block, eq, key);
	struct asg as = { 1, { key }, { len }, { 1 } };
	struct index ix;
	int found = 0;
	double k, assigned, atoms;

	as.truth[0] = truth;
	*out = NULL;
	*known = -1;
	/* fixed by a hard unit clause of the theory? */
	if ((rc = units_eval(&g->top_units, key, len)) >= 0) {
		*known = rc;
		return 0;
	}
	if ((rc = top_component(g, key, len, &t, NULL, NULL)) < 0)
		return err_oom(g->e);
	if (!t) {
		/* in no clause: a free atom */
		*known = 0.5;
		return 0;
	}
	for (int i = 0; i < p->arity; i++) {
		int b = g->boff[p->types[i]] + block[i];
		if (eq[i] != i) {
			key[1 + 2 * i] = nb[i] = nb[eq[i]];
			continue;
		}
		if (t->size[b] > 1) {
			if ((nb[i] = split_one(t, b)) < 0) {
				th_free(t);
				return err_oom(g->e);
			}
		} else
			nb[i] = b;
		key[1 + 2 * i] = nb[i];
	}
	if (normalise(g, t) < 0 || index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	for (int c = 0; c < ix.ncls && !found; c++) {
		const struct occ *o = &ix.occ[ix.first[c]];
		if (o->len == len && !memcmp(o->key, key, len * sizeof *key)) {
			found = 1;
			if (keep_component(t, &ix, c) < 0) {
				index_free(&ix);
				th_free(t);
				return err_oom(g->e);
			}
		}
	}
	index_free(&ix);
	if (!found) {
		/* in no clause: a free atom */
		th_free(t);
		*known = 0.5;
		return 0;
	}
	if (index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	atoms = ix.total;
	index_free(&ix);
	if (simplify(g, t, &as, &k, &assigned) < 0 ||
	    index_build(g, t, &ix) < 0) {
		th_free(t);
		return err_oom(g->e);
	}
	k += (atoms - 1 - assigned - ix.total) * LOG2;
	index_free(&ix);
	*konst = k;
	*out = t;
	return 0;
}

int
eng_marginal(struct eng *g, int pred, const int *block, const int *eq,
    double *prob, struct err *e)
{
	double z[2], lz, known;
	int rc;

	g->e = e;
	if (g->o.semiring != ENG_SUM)
		return err_set(e, SQLIFT_EINTERNAL, "marginals need the sum");
	if ((rc = eng_log_z(g, &lz, e)))
		return rc;
	/* Z_c(atom true), then Z_c(atom false) */
	for (int v = 0; v < 2; v++) {
		struct th *t;
		double konst, s;
		if ((rc = cond_theory(g, pred, block, eq, !v, &t, &konst, &known)))
			return rc;
		if (!t) {
			*prob = known;
			return 0;
		}
		if (konst == -INFINITY) {
			th_free(t);
			z[v] = -INFINITY;
			continue;
		}
		if (solve(g, t, &s))
			return e->status;
		z[v] = konst + s;
	}
	if (z[0] == -INFINITY)
		*prob = 0;
	else
		*prob = 1 / (1 + exp(z[1] - z[0]));
	return 0;
}

/* A target is kept as its independent parts: a part that drew nothing
 * in a sample is exact, and later samples reuse its value (and the
 * expectations it gave tracked atoms) without searching it again. */
/* --- ground parts ------------------------------------------------------ */

/* A part of a target whose atoms are all ground, drawn from a flat copy
 * made once: each clause as class numbers, so that a sample is a few
 * passes over the clauses instead of a simplification, an index and a
 * search per node.  Every non-auxiliary atom is drawn, in class order;
 * the auxiliary atoms left (at most one per clause, from the clause
 * conversion) are summed out exactly: with the others drawn, each is
 * alone in what is left of its clauses.
 *
 * With the adaptive proposal an atom is drawn from the look-ahead
 * target (gpart_look): the part's weight given the atoms drawn before
 * it, the atoms not yet drawn taken as independent with the marginals
 * of a pilot Gibbs run (gpart_pilot), the summed-out atoms summed out
 * of that.  On a chain that is nearly the model's own conditional,
 * where independent draws give an ESS near 1.  The proposal depends
 * only on earlier draws and the pilot, so the weight stays unbiased; a
 * uniform share (PROP_EPS over the atoms drawn) keeps every value
 * possible. */
struct gpart {
	int ncls, nclauses, naux, ndraw;
	uint64_t *h;           /* per class: its proposal key (batch_sample's) */
	int *aux;              /* per class: its number among the atoms
	                          summed out, or -1: drawn */
	int *auxcls;           /* per number: its class */
	char *real;            /* per class: not an auxiliary atom */
	int nreal;             /* classes not auxiliary */
	const int **key;       /* per class: its key in the top theory's
	                          numbering (gkey; into keybuf), */
	size_t *klen;          /* and length */
	int *keybuf;
	double *w;             /* per clause: weight, */
	char *hard;            /* hard, */
	int *first;            /* literals first[i] .. first[i + 1] */
	int *lit;              /* class * 2 + negated */
	int *ofirst, *olist;   /* per class: its clauses */
	char *x;               /* per class: the value drawn */
	double *m;             /* per class: its adapted marginal (aux: 1/2) */
	double *pm;            /* per class: its marginal from a pilot Gibbs
	                          run (gpart_pilot), or NULL before it */
	double *lw;            /* per auxiliary and value: log weight, */
	char *ok;              /* and whether the hard clauses allow it */
	int *csum;             /* per clause: its summed-out atom, or -1 */
	double *ew;            /* per clause: e^w */
	/* the look-ahead target (gpart_look): E before any draw, its log
	 * g0; one sequence's E; scratch of gpart_look */
	double *E0, g0, *E, *tde;
	int *tlist, *tmark, nt;
	/* per entry of olist (class c, clause i): i's log count before c
	 * is drawn and after, c's literal false (i not yet satisfied);
	 * c's sign in i (2: both); per clause: its summed-out atom's sign */
	double *ob, *oa;
	signed char *osg, *csn;
	/* particles (gpart_smc): values, E and log weights */
	char *px, *px2;
	double *pE, *pE2, *plw;
	int *pidx;
	int *ctag;             /* per class: the tag + 1 of its counted unit
	                          clause (eng_track_count), 0: none; NULL if
	                          no class has one */
};

static void
gpart_free(struct gpart *gp)
{
	if (!gp)
		return;
	free(gp->h);
	free(gp->ctag);
	free(gp->aux);
	free(gp->auxcls);
	free(gp->real);
	free(gp->key);
	free(gp->klen);
	free(gp->keybuf);
	free(gp->w);
	free(gp->hard);
	free(gp->first);
	free(gp->lit);
	free(gp->ofirst);
	free(gp->olist);
	free(gp->x);
	free(gp->m);
	free(gp->pm);
	free(gp->lw);
	free(gp->ok);
	free(gp->csum);
	free(gp->ew);
	free(gp->E0);
	free(gp->ob);
	free(gp->oa);
	free(gp->osg);
	free(gp->csn);
	free(gp->E);
	free(gp->tde);
	free(gp->tlist);
	free(gp->tmark);
	free(gp->pE);
	free(gp->pE2);
	free(gp->px);
	free(gp->px2);
	free(gp->plw);
	free(gp->pidx);
	free(gp);
}

/* Lists each class's clauses (a clause once per distinct class). */
static int
gpart_occ(struct gpart *gp)
{
	size_t nl = (size_t)gp->first[gp->nclauses];

	gp->ofirst = xcalloc((size_t)gp->ncls + 2, sizeof *gp->ofirst);
	gp->olist = xmalloc((nl + 1) * sizeof *gp->olist);
	if (!gp->ofirst || !gp->olist)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < gp->nclauses; i++)
			for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
				int c = gp->lit[k] >> 1, seen = 0;
				for (int j = gp->first[i]; j < k && !seen; j++)
					seen = gp->lit[j] >> 1 == c;
				if (seen)
					continue;
				if (pass == 0)
					gp->ofirst[c + 2]++;
				else
					gp->olist[gp->ofirst[c + 1]++] = i;
			}
		for (int c = 2; pass == 0 && c <= gp->ncls + 1; c++)
			gp->ofirst[c] += gp->ofirst[c - 1];
	}
	return 0;
}

/* Picks the atoms to sum out rather than draw: the auxiliary atoms, and
 * greedily (fewest clauses first) every other atom that shares no
 * clause with one already picked.  Given the drawn atoms, each of them
 * is then alone in what is left of its clauses, so summing it out is
 * exact (Rao-Blackwellisation): on WebKB's pages, where only Course
 * and Faculty atoms meet in a clause, all the Course atoms. */
static int
gpart_summed(struct gpart *gp)
{
	char *has = xcalloc((size_t)gp->nclauses + 1, 1);
	int *ord = xmalloc(((size_t)gp->ncls + 1) * sizeof *ord), n = 0;

	gp->real = xmalloc((size_t)gp->ncls + 1);
	if (!has || !ord || !gp->real)
		goto oom;
	for (int c = 0; c < gp->ncls; c++) {
		gp->real[c] = gp->aux[c] < 0;
		if (gp->aux[c] >= 0)
			for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++)
				has[gp->olist[j]] = 1;
		else
			ord[n++] = c;
	}
	gp->nreal = n;
	/* fewest clauses first: a counting sort by degree, stable */
	{
		int maxd = 0, *cnt, *tmp;
		for (int k = 0; k < n; k++) {
			int d = gp->ofirst[ord[k] + 1] - gp->ofirst[ord[k]];
			if (d > maxd)
				maxd = d;
		}
		cnt = xcalloc((size_t)maxd + 2, sizeof *cnt);
		tmp = xmalloc(((size_t)n + 1) * sizeof *tmp);
		if (!cnt || !tmp) {
			free(cnt);
			free(tmp);
			goto oom;
		}
		for (int k = 0; k < n; k++)
			cnt[gp->ofirst[ord[k] + 1] - gp->ofirst[ord[k]] + 1]++;
		for (int d = 1; d <= maxd + 1; d++)
			cnt[d] += cnt[d - 1];
		for (int k = 0; k < n; k++)
			tmp[cnt[gp->ofirst[ord[k] + 1] - gp->ofirst[ord[k]]]++] = ord[k];
		memcpy(ord, tmp, (size_t)n * sizeof *ord);
		free(cnt);
		free(tmp);
	}
	for (int k = 0; k < n; k++) {
		int c = ord[k], ok = 1;
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1] && ok; j++)
			ok = !has[gp->olist[j]];
		if (!ok)
			continue;
		gp->aux[c] = gp->naux++;
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++)
			has[gp->olist[j]] = 1;
	}
	gp->ndraw = 0;
	for (int c = 0; c < gp->ncls; c++)
		gp->ndraw += gp->aux[c] < 0;
	gp->auxcls = xmalloc(((size_t)gp->naux + 1) * sizeof *gp->auxcls);
	gp->lw = xmalloc(2 * ((size_t)gp->naux + 1) * sizeof *gp->lw);
	gp->ok = xmalloc(2 * ((size_t)gp->naux + 1));
	if (!gp->auxcls || !gp->lw || !gp->ok)
		goto oom;
	for (int c = 0; c < gp->ncls; c++)
		if (gp->aux[c] >= 0)
			gp->auxcls[gp->aux[c]] = c;
	gp->csum = xmalloc(((size_t)gp->nclauses + 1) * sizeof *gp->csum);
	gp->ew = xmalloc(((size_t)gp->nclauses + 1) * sizeof *gp->ew);
	gp->csn = xmalloc((size_t)gp->nclauses + 1);
	if (!gp->csum || !gp->ew || !gp->csn)
		goto oom;
	for (int i = 0; i < gp->nclauses; i++) {
		gp->csum[i] = -1;
		gp->csn[i] = -1;
		gp->ew[i] = exp(gp->w[i]);
		for (int k = gp->first[i]; k < gp->first[i + 1]; k++)
			if (gp->aux[gp->lit[k] >> 1] >= 0) {
				int neg = gp->lit[k] & 1;
				gp->csum[i] = gp->aux[gp->lit[k] >> 1];
				gp->csn[i] = gp->csn[i] < 0 || gp->csn[i] == neg ?
				    (signed char)neg : 2;
			}
	}
	free(has);
	free(ord);
	return 0;
oom:
	free(has);
	free(ord);
	return -1;
}

/* The flat copy of t, or *out NULL when t is not all ground or has a
 * clause with two auxiliary atoms. */
static int
gpart_build(struct eng *g, const struct th *t, struct gpart **out)
{
	struct gpart *gp = NULL;
	struct index ix;
	size_t nl = 0, kl = 0;
	int ok = 1;

	*out = NULL;
	if (index_build(g, t, &ix) < 0)
		return -1;
	for (int c = 0; c < ix.ncls && ok; c++)
		ok = ix.slots[c] == 0 && ix.atoms[c] == 1;
	for (size_t i = 0; i < t->c.n && ok; i++) {
		const struct cl *c = t->c.v[i];
		int a = -1;
		ok = cl_count(c, t->size) == 1;
		for (int k = 0; k < c->nlits && ok; k++) {
			int cls = ix.cls_of[ix.lpos[i] + k];
			if (is_aux(g, &ix, cls))
				ok = a < 0 || a == cls, a = cls;
		}
		nl += (size_t)c->nlits;
	}
	if (!ok)
		goto done;
	if (!(gp = xcalloc(1, sizeof *gp)))
		goto oom;
	gp->ncls = ix.ncls;
	gp->nclauses = (int)t->c.n;
	for (int c = 0; c < ix.ncls; c++)
		kl += ix.occ[ix.first[c]].len;
	gp->h = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->h);
	gp->aux = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->aux);
	gp->key = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->key);
	gp->klen = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->klen);
	gp->keybuf = xmalloc((kl + 1) * sizeof *gp->keybuf);
	gp->x = xcalloc((size_t)ix.ncls + 1, 1);
	gp->m = xmalloc(((size_t)ix.ncls + 1) * sizeof *gp->m);
	gp->w = xmalloc((t->c.n + 1) * sizeof *gp->w);
	gp->hard = xmalloc(t->c.n + 1);
	gp->first = xmalloc((t->c.n + 1) * sizeof *gp->first);
	gp->lit = xmalloc((nl + 1) * sizeof *gp->lit);
	if (!gp->h || !gp->aux || !gp->key || !gp->klen || !gp->keybuf ||
	    !gp->x || !gp->m || !gp->w || !gp->hard || !gp->first || !gp->lit)
		goto oom;
	kl = 0;
	for (int c = 0; c < ix.ncls; c++) {
		const struct occ *o = &ix.occ[ix.first[c]];
		int gk[130];
		/* in the top theory's numbering: tracking and proposals */
		memcpy(gp->keybuf + kl, gkey(t, o->key, o->len, gk),
		    o->len * sizeof *o->key);
		gp->key[c] = gp->keybuf + kl;
		gp->klen[c] = o->len;
		kl += o->len;
		gp->h[c] = atom_prop_key(fnv1a(FNV_INIT, gp->key[c],
		    o->len * sizeof *o->key));
		gp->aux[c] = is_aux(g, &ix, c) ? gp->naux++ : -1;
	}
	nl = 0;
	for (size_t i = 0; i < t->c.n; i++) {
		const struct cl *c = t->c.v[i];
		gp->w[i] = c->w;
		gp->hard[i] = (char)c->hard;
		gp->first[i] = (int)nl;
		for (int k = 0; k < c->nlits; k++)
			gp->lit[nl++] = 2 * ix.cls_of[ix.lpos[i] + k] + !!c->lit[k].neg;
		if (c->tag) {
			if (!gp->ctag && !(gp->ctag = xcalloc((size_t)ix.ncls + 1,
			    sizeof *gp->ctag)))
				goto oom;
			gp->ctag[ix.cls_of[ix.lpos[i]]] = c->tag;
		}
	}
	gp->first[t->c.n] = (int)nl;
	if (gpart_occ(gp) < 0 || gpart_summed(gp) < 0)
		goto oom;
done:
	index_free(&ix);
	*out = gp;
	return 0;
oom:
	index_free(&ix);
	gpart_free(gp);
	return -1;
}

/* gpart_build's copy for drawing: *out also NULL when t has fewer than
 * BATCH_MIN atoms to draw while the exact budget is not 0 (the search's
 * per-node adaptive tables learn their conditionals, and it may solve
 * parts exactly). */
static int
gpart_new(struct eng *g, const struct th *t, struct gpart **out)
{
	int rc = gpart_build(g, t, out);

	if (rc == 0 && *out && (*out)->nreal < BATCH_MIN &&
	    g->o.exact_budget > 0) {
		gpart_free(*out);
		*out = NULL;
	}
	return rc;
}

/* A part with more clauses is drawn flat from the first sample on, if
 * it is ground or nearly (without a search that would try it exactly
 * first). */
#define FLAT_CLAUSES 2000

/* A part that is nearly ground (its ground atoms at most twice its
 * classes) has little to lift: grounded whole (every block
 * split into constants of their own), it is drawn from a flat copy, as
 * a search through it would cost a copy of the part per atom.  *out
 * stays NULL when the part is not nearly ground, or its grounding would
 * have more than GROUND_MAX clauses or atoms. */
#define GROUND_MAX 2000000.0
static int
gpart_nearly(struct eng *g, const struct th *t, struct gpart **out)
{
	struct index ix;
	struct th *u;
	double clauses = 0;
	int nb, near, rc = 0;

	*out = NULL;
	if (index_build(g, t, &ix) < 0)
		return -1;
	near = ix.total <= 2.0 * ix.ncls && ix.total <= GROUND_MAX;
	index_free(&ix);
	for (size_t i = 0; i < t->c.n && near; i++)
		clauses += cl_count(t->c.v[i], t->size);
	if (!near || clauses > GROUND_MAX)
		return 0;
	if (!(u = th_copy(t)))
		return -1;
	nb = u->nb;
	for (int b = 0; b < nb && rc == 0; b++) {
		int split = u->size[b] > 1;
		while (u->size[b] > 1 && rc == 0)
			rc = split_one(u, b) < 0 ? -1 : 0;
		/* after a split (and once in any case): a pass over every
		 * clause per block cost WebKB's 272 pages 1.4 s */
		if (rc == 0 && (split || b == nb - 1) && normalise(g, u) < 0)
			rc = -1;
	}
	if (rc == 0)
		rc = gpart_new(g, u, out);
	th_free(u);
	return rc;
}

/* The chance that atom c is true given the atoms drawn before it
 * (classes below c), the others independent with their marginals m,
 * clause by clause: where the pilot Gibbs run starts. */
static double
gpart_q1(const struct gpart *gp, int c)
{
	double l[2] = { 0, 0 }, p;

	for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
		int i = gp->olist[j], sat = 0, sv[2] = { 0, 0 };
		double frac, pu = 1;
		for (int m = gp->first[i]; m < gp->first[i + 1] && !sat; m++) {
			int d = gp->lit[m] >> 1, neg = gp->lit[m] & 1;
			if (d == c)
				sv[!neg] = 1;  /* true when c is !neg */
			else if (d < c && gp->aux[d] < 0)
				sat = gp->x[d] != neg;
			else
				pu *= neg ? gp->m[d] : 1 - gp->m[d];
		}
		if (sat)
			continue;
		frac = 1 - pu;
		for (int v = 0; v < 2; v++)
			if (sv[v])
				l[v] += gp->hard[i] ? 0 : gp->w[i];
			else if (gp->hard[i])
				l[v] += log(frac);
			else
				l[v] += log(frac * exp(gp->w[i]) + 1 - frac);
	}
	if (l[0] == -INFINITY && l[1] == -INFINITY)
		p = 0.5;
	else
		p = 1 / (1 + exp(l[0] - l[1]));
	return (1 - PROP_EPS) * p + PROP_EPS / 2;
}

/* The log weight of gp's values x, its auxiliary atoms summed out. */
static double
gpart_logw(struct gpart *gp)
{
	double sum = 0;

	for (int a = 0; a < 2 * gp->naux; a++) {
		gp->lw[a] = 0;
		gp->ok[a] = 1;
	}
	for (int i = 0; i < gp->nclauses && sum > -INFINITY; i++) {
		int sat = 0, a = -1;
		for (int k = gp->first[i]; k < gp->first[i + 1] && !sat; k++) {
			int c = gp->lit[k] >> 1, neg = gp->lit[k] & 1;
			if (gp->aux[c] < 0)
				sat = gp->x[c] != neg;
			else if (a >= 0 && a != 2 * gp->aux[c] + !neg)
				sat = 1;  /* A v !A */
			else
				a = 2 * gp->aux[c] + !neg;  /* true when A is !neg */
		}
		if (sat)
			sum += gp->hard[i] ? 0 : gp->w[i];
		else if (a < 0)
			sum += gp->hard[i] ? -INFINITY : 0;
		else if (gp->hard[i])
			gp->ok[a ^ 1] = 0;
		else
			gp->lw[a] += gp->w[i];
	}
	for (int a = 0; a < gp->naux && sum > -INFINITY; a++) {
		double z0 = gp->ok[2 * a] ? gp->lw[2 * a] : -INFINITY;
		double z1 = gp->ok[2 * a + 1] ? gp->lw[2 * a + 1] : -INFINITY;
		sum += log_add(z0, z1);
	}
	return sum;
}

/* After gpart_logw: the chance that summed-out atom number a is true
 * given the drawn atoms. */
static double
gpart_sum_p1(const struct gpart *gp, int a)
{
	double z0 = gp->ok[2 * a] ? gp->lw[2 * a] : -INFINITY;
	double z1 = gp->ok[2 * a + 1] ? gp->lw[2 * a + 1] : -INFINITY;

	if (z1 == -INFINITY)
		return z0 == -INFINITY ? 0.5 : 0;
	if (z0 == -INFINITY)
		return 1;
	return 1 / (1 + exp(z0 - z1));
}

/* Atom c of a ground part has expectation v in this draw (or exactly):
 * for its path slot, and for its counted class. */
static void
gp_track(struct eng *g, const struct gpart *gp, int c, double v)
{
	track_set(g, NULL, gp->key[c], gp->klen[c], v);
	if (gp->ctag && gp->ctag[c])
		ga_push(g, gp->ctag[c] - 1, v);
}

/* An exact alternative to drawing a small ground part: every value of
 * its atoms enumerated, which gives log Z and each atom's marginal in
 * one pass (the search would need two exact searches per tracked atom;
 * on Cora's parts of 8 atoms that took 50 ms against 1 ms). */
static double
gpart_enum(struct eng *g, struct gpart *gp)
{
	int n = 0, ns = 0, *idx = xmalloc(((size_t)gp->ncls + 1) * sizeof *idx);
	int *sidx = xmalloc(((size_t)gp->ncls + 1) * sizeof *sidx);
	double *l1 = xmalloc(((size_t)gp->ncls + 1) * sizeof *l1);
	double *s1 = xmalloc(((size_t)gp->ncls + 1) * sizeof *s1), z = -INFINITY;

	if (!idx || !sidx || !l1 || !s1) {
		z = NAN;
		goto done;
	}
	for (int c = 0; c < gp->ncls; c++)
		if (gp->aux[c] < 0) {
			l1[n] = -INFINITY;
			idx[n++] = c;
		} else if (gp->real[c]) {
			s1[ns] = -INFINITY;
			sidx[ns++] = c;
		}
	for (uint64_t m = 0; m < (uint64_t)1 << n; m++) {
		double lw;
		for (int j = 0; j < n; j++)
			gp->x[idx[j]] = (char)(m >> j & 1);
		lw = gpart_logw(gp);
		if (lw == -INFINITY)
			continue;
		z = log_add(z, lw);
		for (int j = 0; j < n; j++)
			if (gp->x[idx[j]])
				l1[j] = log_add(l1[j], lw);
		for (int j = 0; j < ns; j++)
			s1[j] = log_add(s1[j], lw + log(gpart_sum_p1(gp,
			    gp->aux[sidx[j]])));
	}
	for (int j = 0; j < n; j++)
		gp_track(g, gp, idx[j], z == -INFINITY ? 0 : exp(l1[j] - z));
	for (int j = 0; j < ns; j++)
		gp_track(g, gp, sidx[j], z == -INFINITY ? 0 : exp(s1[j] - z));
done:
	free(idx);
	free(sidx);
	free(l1);
	free(s1);
	return z;
}

/* What clause i adds to the log weight given x, its auxiliary atom
 * (if any) taken as false (v = 0) or true (v = 1); -1 in *a if none. */
static double
gpart_clause(const struct gpart *gp, int i, int v, int *a)
{
	int sat = 0;

	*a = -1;
	for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
		int c = gp->lit[k] >> 1, neg = gp->lit[k] & 1;
		if (gp->aux[c] < 0)
			sat |= gp->x[c] != neg;
		else {
			*a = gp->aux[c];
			sat |= v != neg;
		}
	}
	if (sat)
		return gp->hard[i] ? 0 : gp->w[i];
	return gp->hard[i] ? -INFINITY : 0;
}

/* The log factor of summed-out atom number a given the drawn atoms. */
static double
gpart_sumfactor(const struct gpart *gp, int a)
{
	int cls = gp->auxcls[a];
	double f[2] = { 0, 0 };

	for (int v = 0; v < 2; v++)
		for (int j = gp->ofirst[cls]; j < gp->ofirst[cls + 1]; j++) {
			int b;
			f[v] += gpart_clause(gp, gp->olist[j], v, &b);
		}
	return log_add(f[0], f[1]);
}

/* The log odds of atom c being true given every other atom's value in
 * x, the auxiliary atoms of its clauses summed out (over all of their
 * clauses). */
static double
gpart_logodds(struct gpart *gp, int c, int *auxs)
{
	double l[2];
	int na = 0;

	for (int v = 0; v < 2; v++) {
		double sum = 0;
		gp->x[c] = (char)v;
		na = 0;
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
			int a, i = gp->olist[j], dup = 0;
			double w = gpart_clause(gp, i, 0, &a);
			if (a < 0) {
				sum += w;
				continue;
			}
			for (int u = 0; u < na && !dup; u++)
				dup = auxs[u] == a;
			if (!dup)
				auxs[na++] = a;
		}
		for (int u = 0; u < na; u++)
			sum += gpart_sumfactor(gp, auxs[u]);
		l[v] = sum;
	}
	if (l[0] == -INFINITY && l[1] == -INFINITY)
		return 0;
	return l[1] - l[0];
}

/* Pilot sweeps of Gibbs sampling: what the sequential proposal takes
 * as the marginals of the atoms not yet drawn.  Learnt from the
 * importance weights instead, they come from the few samples that carry
 * all the weight when the part is large and coupled (an ESS near 1 on
 * Cora's and WebKB's parts).  The pilot draws only set the proposal,
 * which stays fixed afterwards, so the weights stay unbiased. */
#define PILOT_SWEEPS 40
#define PILOT_BURN 10
#define PILOT_TRIALS 16
#define PILOT_MARGIN 1.0
#define PILOT_STARTS_MIN 64
static double gpart_seq(struct eng *g, struct gpart *gp);
static int gpart_look_init(struct gpart *gp);

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One pilot chain from start 0 (each atom drawn from gpart_q1), 1 (all
 * false) or 2 (all true): its marginals into pm. */
static void
gpart_chain(struct eng *g, struct gpart *gp, int start, int *auxs,
    int *save, double *pm)
{
	for (int c = 0; c < gp->ncls; c++) {
		gp->m[c] = 0.5;
		pm[c] = 0;
	}
	for (int c = 0; c < gp->ncls; c++)
		if (gp->real[c])
			gp->x[c] = start == 0 ?
			    eng_rng_unit(g->rng) < gpart_q1(gp, c) : start == 2;
	/* every atom but the auxiliary ones is drawn in the pilot: summing
	 * out an atom of many clauses costs all of them per neighbour (on
	 * WebKB's pages, a sweep times the pages) */
	for (int c = 0; c < gp->ncls; c++)
		if (gp->real[c]) {
			save[c] = gp->aux[c];
			gp->aux[c] = -1;
		}
	for (int sw = 0; sw < PILOT_SWEEPS; sw++)
		for (int c = 0; c < gp->ncls; c++) {
			double p;
			if (gp->aux[c] >= 0)
				continue;
			p = 1 / (1 + exp(-gpart_logodds(gp, c, auxs)));
			gp->x[c] = eng_rng_unit(g->rng) < p;
			if (sw >= PILOT_BURN)
				pm[c] += p / (PILOT_SWEEPS - PILOT_BURN);
		}
	for (int c = 0; c < gp->ncls; c++) {
		if (gp->real[c])
			gp->aux[c] = save[c];
		pm[c] = !gp->real[c] ? 0.5 : pm[c] < 0.01 ? 0.01 :
		    pm[c] > 0.99 ? 0.99 : pm[c];
	}
}

/* The pilot: three chains, from gpart_q1's draws, all false and all
 * true, and of their marginals the ones whose look-ahead proposal gives
 * the largest median log weight over PILOT_TRIALS sequences, the first
 * chain's unless another's is larger by PILOT_MARGIN.  One chain stays
 * in the mode it starts near (friends-and-smokers, 100 people: log Z 20
 * nats low with a stderr of 0.005); the mode with the larger Z gives the
 * larger weights.  The median and the margin keep a proposal that drew
 * one lucky weight from winning: picked by the mean, the heavier-tailed
 * of equal proposals won, and two of check_lis's cases covered exact
 * log Z in 88 and 89 of 100 runs.  A part that draws fewer than
 * PILOT_STARTS_MIN atoms has one chain: there the other two and the
 * trials cost more than the samples.  The trials are dropped and the
 * proposal is fixed afterwards, so the weights stay unbiased.  Sets
 * gp->pm and the look-ahead state for it. */
static int
gpart_pilot(struct eng *g, struct gpart *gp)
{
	size_t n = (size_t)gp->ncls + 1;
	int *auxs = xmalloc(((size_t)gp->naux + 1) * sizeof *auxs);
	int *save = xmalloc(n * sizeof *save), best = -1, rc = -1;
	int starts = gp->ndraw >= PILOT_STARTS_MIN ? 3 : 1;
	double *cand = xmalloc((size_t)starts * n * sizeof *cand), bz = -INFINITY;

	if (!auxs || !save || !cand ||
	    !(gp->pm = xcalloc(n, sizeof *gp->pm)))
		goto done;
	for (int s = 0; s < starts; s++) {
		double lw[PILOT_TRIALS], z;
		gpart_chain(g, gp, s, auxs, save, cand + (size_t)s * n);
		if (starts == 1) {
			best = 0;
			break;
		}
		memcpy(gp->m, cand + (size_t)s * n, n * sizeof *gp->m);
		if (gpart_look_init(gp) < 0)
			goto done;
		for (int t = 0; t < PILOT_TRIALS; t++)
			lw[t] = gpart_seq(g, gp);
		qsort(lw, PILOT_TRIALS, sizeof *lw, dbl_cmp);
		z = (lw[PILOT_TRIALS / 2 - 1] + lw[PILOT_TRIALS / 2]) / 2;
		if (best < 0 || z > bz + PILOT_MARGIN) {
			best = s;
			bz = z;
		}
	}
	memcpy(gp->pm, cand + (size_t)best * n, n * sizeof *gp->pm);
	memcpy(gp->m, gp->pm, n * sizeof *gp->m);
	rc = gpart_look_init(gp);
done:
	free(auxs);
	free(save);
	free(cand);
	return rc;
}

/* --- the look-ahead target ---------------------------------------------
 *
 * With atoms 0 .. c-1 drawn (in class order), the look-ahead target is
 * the part's weight with the atoms not yet drawn taken as independent
 * with their marginals m: a clause of weight w counts e^w if its drawn
 * atoms satisfy it, else u + (1 - u) e^w, u the chance that its atoms
 * not yet drawn leave it false; a summed-out atom a counts
 * log(e^E[2a] + e^E[2a+1]), E[2a+v] the sum of its clauses' logs with
 * a = v.  Before any draw it is a guess at log Z; after the last it is
 * the part's weight.  Drawing atom c with chance proportional to the
 * target with c at each value is the sequential proposal, and the
 * target's ratio from one atom to the next is a particle's incremental
 * weight (gpart_smc).  Summed-out atoms count with what is drawn of
 * their clauses: on WebKB each Course page is summed out over every
 * Faculty page, and a target that took it in only at the last Faculty
 * page (its last clause) gave the particles nothing to go by. */

/* log(e^a + e^b), b's share dropped when it is below e^-40 of a's
 * (below a double's precision): most summed-out atoms are all but
 * certain, and this is the look-ahead's inner loop. */
static inline double
look_add(double a, double b)
{
	double d = b - a;

	if (d < -40 || b == -INFINITY)
		return a;
	if (d > 40 || a == -INFINITY)
		return b;
	return d < 0 ? a + log1p(exp(d)) : b + log1p(exp(-d));
}

/* The log count of clause i, not satisfied by its drawn atoms, when
 * pu is the chance that its atoms not yet drawn leave it false. */
static double
gpart_unsat(const struct gpart *gp, int i, double pu)
{
	return gp->hard[i] ? log1p(-pu) : log(pu + (1 - pu) * gp->ew[i]);
}

/* The log of clause i's count in the look-ahead target before (v < 0)
 * or after class c is drawn as v, its summed-out atom (if any) at sv. */
static double
gpart_phi(const struct gpart *gp, const char *x, int i, int c, int v,
    int sv)
{
	double pu = 1;

	for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
		int d = gp->lit[k] >> 1, neg = gp->lit[k] & 1, val;
		if (gp->aux[d] >= 0)
			val = sv;
		else if (d == c && v >= 0)
			val = v;
		else if (d < c)
			val = x[d];
		else {
			pu *= neg ? gp->m[d] : 1 - gp->m[d];
			continue;
		}
		if (val != neg)
			return gp->hard[i] ? 0 : gp->w[i];
	}
	return gpart_unsat(gp, i, pu);
}

/* The look-ahead state before any draw for the marginals m: E (2 per
 * summed-out atom) and the target's log, kept in gp->E0 and gp->g0. */
static int
gpart_look_init(struct gpart *gp)
{
	size_t na = 2 * ((size_t)gp->naux + 1);
	int nl = gp->ofirst[gp->ncls];

	if (!gp->E0 && (!(gp->E0 = xmalloc(na * sizeof *gp->E0)) ||
	    !(gp->E = xmalloc(na * sizeof *gp->E)) ||
	    !(gp->tde = xmalloc(2 * na * sizeof *gp->tde)) ||
	    !(gp->tlist = xmalloc(na * sizeof *gp->tlist)) ||
	    !(gp->tmark = xmalloc(na * sizeof *gp->tmark)) ||
	    !(gp->ob = xmalloc(((size_t)nl + 1) * sizeof *gp->ob)) ||
	    !(gp->oa = xmalloc(((size_t)nl + 1) * sizeof *gp->oa)) ||
	    !(gp->osg = xmalloc((size_t)nl + 1))))
		return -1;
	for (int c = 0; c < gp->ncls; c++)
		for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
			int i = gp->olist[j];
			double pb = 1, pa = 1;
			gp->osg[j] = -1;
			for (int k = gp->first[i]; k < gp->first[i + 1]; k++) {
				int d = gp->lit[k] >> 1, neg = gp->lit[k] & 1;
				double f = neg ? gp->m[d] : 1 - gp->m[d];
				if (gp->aux[d] >= 0 || d < c)
					continue;
				pb *= f;
				if (d > c)
					pa *= f;
				else
					gp->osg[j] = gp->osg[j] < 0 ||
					    gp->osg[j] == neg ? (signed char)neg : 2;
			}
			gp->ob[j] = gpart_unsat(gp, i, pb);
			gp->oa[j] = gpart_unsat(gp, i, pa);
		}
	gp->g0 = 0;
	for (int a = 0; a < gp->naux; a++) {
		gp->E0[2 * a] = gp->E0[2 * a + 1] = 0;
		gp->tmark[a] = -1;
	}
	for (int i = 0; i < gp->nclauses; i++) {
		int a = gp->csum[i];
		if (a < 0)
			gp->g0 += gpart_phi(gp, gp->x, i, -1, -1, 0);
		else
			for (int sv = 0; sv < 2; sv++)
				gp->E0[2 * a + sv] += gpart_phi(gp, gp->x, i,
				    -1, -1, sv);
	}
	for (int a = 0; a < gp->naux; a++)
		gp->g0 += look_add(gp->E0[2 * a], gp->E0[2 * a + 1]);
	return 0;
}

/* dl[v]: what drawing class c as v adds to the look-ahead target's log,
 * given x and E; what it would add to E is left in gp->tde for
 * gpart_look_set. */
static void
gpart_look(struct gpart *gp, const char *x, const double *E, int c,
    double dl[2])
{
	int nt = 0;

	dl[0] = dl[1] = 0;
	for (int j = gp->ofirst[c]; j < gp->ofirst[c + 1]; j++) {
		int i = gp->olist[j], a = gp->csum[i], t, sat = 0;
		double d[2];
		for (int k = gp->first[i]; k < gp->first[i + 1] && !sat; k++) {
			int e = gp->lit[k] >> 1;
			sat = e < c && gp->aux[e] < 0 && x[e] != (gp->lit[k] & 1);
		}
		if (sat)
			continue;  /* satisfied before and after */
		for (int v = 0; v < 2; v++)
			d[v] = (gp->osg[j] == 2 || v != gp->osg[j] ?
			    (gp->hard[i] ? 0 : gp->w[i]) : gp->oa[j]) - gp->ob[j];
		if (a < 0) {
			dl[0] += d[0];
			dl[1] += d[1];
			continue;
		}
		if ((t = gp->tmark[a]) < 0) {
			t = gp->tmark[a] = nt;
			gp->tlist[nt++] = a;
			for (int u = 0; u < 4; u++)
				gp->tde[4 * t + u] = 0;
		}
		for (int sv = 0; sv < 2; sv++)
			if (gp->csn[i] != 2 && sv == gp->csn[i])
				for (int v = 0; v < 2; v++)
					gp->tde[4 * t + 2 * v + sv] += d[v];
	}
	gp->nt = nt;
	for (int t = 0; t < nt; t++) {
		int a = gp->tlist[t];
		double s = look_add(E[2 * a], E[2 * a + 1]);
		gp->tmark[a] = -1;
		if (s == -INFINITY)
			continue;  /* the target is 0 already */
		for (int v = 0; v < 2; v++)
			dl[v] += look_add(E[2 * a] + gp->tde[4 * t + 2 * v],
			    E[2 * a + 1] + gp->tde[4 * t + 2 * v + 1]) - s;
	}
}

/* E after gpart_look's class is drawn as v. */
static void
gpart_look_set(const struct gpart *gp, double *E, int v)
{
	for (int t = 0; t < gp->nt; t++) {
		int a = gp->tlist[t];
		E[2 * a] += gp->tde[4 * t + 2 * v];
		E[2 * a + 1] += gp->tde[4 * t + 2 * v + 1];
	}
}

/* The sequential proposal's chance of true from gpart_look's dl, with a
 * uniform share of PROP_EPS over all the part's draws: PROP_EPS on each
 * of WebKB's 272 pages made a sequence draw about 7 pages against their
 * conditional (each e^-80 as likely), an ESS of 1 in 1000. */
static double
gpart_look_q1(const struct gpart *gp, const double dl[2])
{
	double p, eps = PROP_EPS / gp->ndraw;

	if (dl[0] == -INFINITY && dl[1] == -INFINITY)
		p = 0.5;
	else
		p = 1 / (1 + exp(dl[0] - dl[1]));
	return (1 - eps) * p + eps / 2;
}

/* Draws class c into x: from the look-ahead target (look: E kept up to
 * date, *inc its log change) with the adaptive proposal, else from c's
 * Bernoulli table.  Returns the log of the chance of the value drawn. */
static double
gpart_step(struct eng *g, struct gpart *gp, char *x, double *E, int c,
    int look, double *inc)
{
	double dl[2] = { 0, 0 }, q1;

	if (look)
		gpart_look(gp, x, E, c, dl);
	q1 = look && g->o.proposal == ENG_PROP_ADAPTIVE ?
	    gpart_look_q1(gp, dl) : prop_p1(g, gp->h[c]);
	x[c] = eng_rng_unit(g->rng) < q1;
	g->st.draws++;
	if (look)
		gpart_look_set(gp, E, x[c]);
	*inc = dl[(int)x[c]];
	return log(x[c] ? q1 : 1 - q1);
}

/* A particle system of k particles through the drawn atoms (sequential
 * Monte Carlo): the targets are the look-ahead targets, one per drawn
 * atom, the last the part's weight; the particles are resampled
 * (systematically) on a fixed schedule, every ndraw / 64 atoms.  The
 * product of the mean weights between resamplings is an unbiased
 * estimate of the part's Z (Del Moral 2004), and with the particles'
 * final weights their values estimate the marginals.  Where one
 * sequence of draws drifts off, resampling drops the particles that
 * did. */
static int
gpart_smc(struct eng *g, struct gpart *gp, int k, double *out)
{
	double lz;
	int step, since = 0, left;
	size_t n = (size_t)gp->ncls, na = 2 * (size_t)gp->naux;

	if (g->o.proposal == ENG_PROP_ADAPTIVE && !gp->pm &&
	    gpart_pilot(g, gp) < 0)
		return -1;
	for (int c = 0; c < gp->ncls; c++)
		gp->m[c] = gp->pm ? gp->pm[c] : 0.5;
	if (!gp->px && (!(gp->px = xmalloc((size_t)k * n + 1)) ||
	    !(gp->px2 = xmalloc((size_t)k * n + 1)) ||
	    !(gp->pE = xmalloc(((size_t)k * na + 1) * sizeof *gp->pE)) ||
	    !(gp->pE2 = xmalloc(((size_t)k * na + 1) * sizeof *gp->pE2)) ||
	    !(gp->plw = xmalloc(((size_t)k + 1) * sizeof *gp->plw)) ||
	    !(gp->pidx = xmalloc(((size_t)k + 1) * sizeof *gp->pidx))))
		return -1;
	if (!gp->E0 && gpart_look_init(gp) < 0)
		return -1;  /* without the pilot: m 1/2 */
	g->st.binomials++;
	lz = gp->g0;
	for (int j = 0; j < k; j++) {
		gp->plw[j] = 0;
		memcpy(gp->pE + (size_t)j * na, gp->E0, na * sizeof *gp->pE);
	}
	step = gp->ndraw / 64 > 1 ? gp->ndraw / 64 : 1;
	left = gp->ndraw;
	for (int c = 0; c < gp->ncls; c++) {
		if (gp->aux[c] >= 0)
			continue;
		left--;
		for (int j = 0; j < k; j++) {
			double inc, lq = gpart_step(g, gp, gp->px + (size_t)j * n,
			    gp->pE + (size_t)j * na, c, 1, &inc);
			gp->plw[j] += inc - lq;
		}
		if (++since < step && left > 0)
			continue;
		since = 0;
		{
			/* the mean weight, then systematic resampling */
			double mx = -INFINITY, sum = 0, u, acc = 0;
			for (int j = 0; j < k; j++)
				if (gp->plw[j] > mx)
					mx = gp->plw[j];
			if (mx == -INFINITY) {
				*out = -INFINITY;
				return 0;
			}
			for (int j = 0; j < k; j++)
				sum += exp(gp->plw[j] - mx);
			lz += mx + log(sum / k);
			if (left == 0)
				break;
			u = eng_rng_unit(g->rng) / k;
			for (int j = 0, i = 0; j < k; j++) {
				acc += exp(gp->plw[j] - mx) / sum;
				while (i < k && u + (double)i / k < acc)
					gp->pidx[i++] = j;
				if (j == k - 1)
					while (i < k)
						gp->pidx[i++] = j;
			}
			for (int i = 0; i < k; i++) {
				memcpy(gp->px2 + (size_t)i * n, gp->px +
				    (size_t)gp->pidx[i] * n, n);
				memcpy(gp->pE2 + (size_t)i * na, gp->pE +
				    (size_t)gp->pidx[i] * na, na * sizeof *gp->pE);
			}
			{
				char *t = gp->px;
				double *te = gp->pE;
				gp->px = gp->px2;
				gp->px2 = t;
				gp->pE = gp->pE2;
				gp->pE2 = te;
			}
			for (int j = 0; j < k; j++)
				gp->plw[j] = 0;
		}
	}
	*out = lz;
	if ((g->npath || gp->ctag) && lz > -INFINITY) {
		/* the particles' final weights: marginals of their atoms */
		double mx = -INFINITY, sum = 0;
		char *save = gp->x;
		for (int j = 0; j < k; j++)
			if (gp->plw[j] > mx)
				mx = gp->plw[j];
		for (int j = 0; j < k; j++)
			sum += exp(gp->plw[j] - mx);
		for (int c = 0; c < gp->ncls; c++)
			gp->m[c] = 0;  /* the estimates, gathered here */
		for (int j = 0; j < k; j++) {
			double w = exp(gp->plw[j] - mx) / sum;
			gp->x = gp->px + (size_t)j * n;
			(void)gpart_logw(gp);
			for (int c = 0; c < gp->ncls; c++)
				if (gp->aux[c] < 0)
					gp->m[c] += w * gp->x[c];
				else if (gp->real[c])
					gp->m[c] += w * gpart_sum_p1(gp, gp->aux[c]);
		}
		gp->x = save;
		for (int c = 0; c < gp->ncls; c++)
			if (gp->real[c])
				gp_track(g, gp, c, gp->m[c]);
	}
	return 0;
}

/* One sequence of draws of a ground part into x: the log of (its
 * weight given the draws, the summed-out atoms summed out) over
 * Q(draws). */
static double
gpart_seq(struct eng *g, struct gpart *gp)
{
	int look = g->o.proposal == ENG_PROP_ADAPTIVE;
	double lq = 0;

	if (look)
		memcpy(gp->E, gp->E0, 2 * (size_t)gp->naux * sizeof *gp->E);
	for (int c = 0; c < gp->ncls; c++) {
		double inc;
		if (gp->aux[c] < 0)
			lq += gpart_step(g, gp, gp->x, gp->E, c, look, &inc);
	}
	return gpart_logw(gp) - lq;
}

/* One sample of a ground part: *out = gpart_seq's log weight. */
static int
gpart_sample(struct eng *g, struct gpart *gp, double *out)
{
	g->st.binomials++;
	if (g->o.proposal == ENG_PROP_ADAPTIVE && !gp->pm &&
	    gpart_pilot(g, gp) < 0)
		return -1;
	if (gp->pm)
		memcpy(gp->m, gp->pm, (size_t)gp->ncls * sizeof *gp->m);
	*out = gpart_seq(g, gp);
	for (int c = 0; c < gp->ncls && (g->npath || gp->ctag); c++)
		if (gp->aux[c] < 0)
			gp_track(g, gp, c, gp->x[c]);
		else if (gp->real[c] && *out > -INFINITY)
			gp_track(g, gp, c, gpart_sum_p1(gp, gp->aux[c]));
	/* the Bernoulli tables learn from the weights only where they are
	 * used: with the pilot's marginals they are not, and other targets'
	 * searches share them (a target conditioned on one atom taught Z's
	 * search a proposal that was 0.15 nats off at 1000 samples) */
	for (int c = 0; c < gp->ncls && *out > -INFINITY && !gp->pm; c++) {
		struct prop *p;
		if (gp->aux[c] >= 0 || g->o.proposal == ENG_PROP_UNIFORM ||
		    !(p = prop_get(g, gp->h[c], 1)))
			continue;
		p->visits++;
		p->lw = log_add(p->lw, *out);
		p->lw2 = log_add(p->lw2, 2 * *out);
		if (gp->x[c])
			p->lwk = log_add(p->lwk, *out);
	}
	return 0;
}

/* One draw of a flat part: particles (gpart_smc) where --particles asks
 * for them, else one sequence (gpart_sample).  With the look-ahead
 * proposal one sequence is the better buy on WebKB (272 pages: ESS 1171
 * of 1200 samples in 10 s, against 33 of 33 with 16 particles) and on
 * friends-and-smokers; particles still help Cora's parts. */
static int
gpart_draw(struct eng *g, struct gpart *gp, double *out)
{
	int k = g->o.particles > 1 ? g->o.particles : 1;

	return k > 1 ? gpart_smc(g, gp, k, out) : gpart_sample(g, gp, out);
}

struct tpart {
	struct th *t;
	int exact;
	double val;
	int *slots;            /* tracked atoms it set, and to what */
	double *vals;
	size_t nslots;
	struct gpart *gp;      /* all ground: drawn from this flat copy */
	int gp_tried;          /* 0: not yet; 1: search drew all (try flat);
	                          2: done; 3: the search solved parts exactly */
	int *tags;             /* the counted classes it holds */
	size_t ntags, captags;
};

struct eng_target {
	struct th *t;          /* NULL once split into parts */
	double konst;
	struct tpart *part;
	size_t nparts, size;
	double *lw;            /* per part: its log weight in the last sample */
	int *slot_part;        /* per tracked slot: the part holding it, or -1 */
	int nslots;
};

/* Splits tg->t into its components (clauses linked by shared classes). */
static int
target_split(struct eng *g, struct eng_target *tg)
{
	struct th *t = tg->t, **parts = NULL;
	struct index ix;
	int *comp = NULL, nc, rc = -1;

	tg->size = t->c.n;
	if (index_build(g, t, &ix) < 0)
		return -1;
	nc = components(t, &ix, &comp);
	index_free(&ix);
	if (nc < 0 || !(tg->part = xcalloc((size_t)nc + 1, sizeof *tg->part)) ||
	    !(parts = xcalloc((size_t)nc + 1, sizeof *parts)))
		goto done;
	tg->t = NULL;
	rc = th_distribute(t, comp, nc, parts);
	tg->nparts = (size_t)nc;
	for (int k = 0; k < nc; k++)
		tg->part[k].t = parts[k];
done:
	free(parts);
	free(comp);
	return rc;
}

/* Room in the slot tables for one more slot. */
static int
slot_room(struct eng *g)
{
	size_t cap;
	struct aent *v;
	int *keys;
	double *tv;

	if (g->trk.cap >= 2 * ((size_t)g->ntrk + 1))
		return 0;
	/* grow: rehash from the key list */
	cap = g->trk.cap ? 2 * g->trk.cap : 64;
	v = xcalloc(cap, sizeof *v);
	keys = xrealloc(g->trk_keys, cap / 2 * 129 * sizeof *keys);
	tv = xrealloc(g->trk_v, cap / 2 * sizeof *tv);
	if (keys)
		g->trk_keys = keys;
	if (tv)
		g->trk_v = tv;
	if (!v || !keys || !tv) {
		free(v);
		return -1;
	}
	free(g->trk.v);
	g->trk.v = v;
	g->trk.cap = cap;
	for (int k = 0; k < g->ntrk; k++) {
		const int *kk = g->trk_keys + (size_t)k * 129;
		size_t kl;
		if (kk[0] < 0)
			continue;          /* a count's */
		kl = 1 + 2 * (size_t)g->ct->m->preds.v[kk[0]].arity;
		amap_put(&g->trk, fnv1a(FNV_INIT, kk, kl * sizeof *kk), kk, kl, k);
	}
	return 0;
}

/* Which part of tg holds each tracked atom (as a class of its own), and
 * each counted class (its unit clause). */
static int
slot_parts(struct eng *g, struct eng_target *tg)
{
	tg->nslots = g->ntrk;
	if (!(tg->slot_part = xmalloc(((size_t)g->ntrk + 1) *
	    sizeof *tg->slot_part)))
		return -1;
	for (int i = 0; i < g->ntrk; i++)
		tg->slot_part[i] = -1;
	for (size_t k = 0; k < tg->nparts; k++) {
		struct index ix;
		if (index_build(g, tg->part[k].t, &ix) < 0)
			return -1;
		for (int c = 0; c < ix.ncls; c++) {
			const struct occ *o = &ix.occ[ix.first[c]];
			int gk[130], slot = amap_eval(&g->trk, gkey(tg->part[k].t,
			    o->key, o->len, gk), o->len);
			if (slot >= 0)
				tg->slot_part[slot] = (int)k;
		}
		index_free(&ix);
		for (size_t i = 0; i < tg->part[k].t->c.n; i++) {
			struct tpart *p = &tg->part[k];
			int tag = p->t->c.v[i]->tag, *slot;
			if (!tag || *(slot = &tg->slot_part[g->tags[tag - 1].slot]) ==
			    (int)k)
				continue;
			*slot = (int)k;
			if (vec_grow_((void **)&p->tags, &p->captags, p->ntags + 1,
			    sizeof *p->tags))
				return -1;
			p->tags[p->ntags++] = tag - 1;
		}
	}
	return 0;
}

int
eng_target_new(struct eng *g, int pred, const int *block, const int *eq,
    int truth, struct eng_target **out, double *known, struct err *e)
{
	struct eng_target *tg = xcalloc(1, sizeof *tg);
	int rc;

	g->e = e;
	*out = NULL;
	*known = -1;
	if (!tg)
		return err_oom(e);
	if (pred < 0) {
		if (!(tg->t = th_copy(g->top))) {
			free(tg);
			return err_oom(e);
		}
		tg->konst = g->top_add;
	} else if ((rc = cond_theory(g, pred, block, eq, truth, &tg->t,
	    &tg->konst, known)) || !tg->t) {
		free(tg);
		return rc;
	}
	if (target_split(g, tg) < 0 ||
	    !(tg->lw = xcalloc(tg->nparts + 1, sizeof *tg->lw)) ||
	    (g->ntrk && slot_parts(g, tg) < 0)) {
		eng_target_free(tg);
		return err_oom(e);
	}
	*out = tg;
	return 0;
}

int
eng_track(struct eng *g, int pred, const int *block, const int *eq,
    int *slot, struct err *e)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	size_t len = 1 + 2 * (size_t)p->arity;
	int *key, nb[64], split = 0;

	*slot = -1;
	/* A class of several atoms: one atom stands for it, its constants
	 * split off in the theory as blocks of their own (which leaves Z as
	 * it is).  The j-th distinct argument in block b takes b's j-th
	 * representative, shared by all classes: a new one is split off when
	 * b has none left, b itself when it is down to one constant. */
	if (!g->reps) {
		g->nreps = g->top->nb;
		if (!(g->reps = xcalloc((size_t)g->nreps + 1, sizeof *g->reps)))
			return err_oom(e);
	}
	for (int a = 0; a < p->arity; a++) {
		int b = g->boff[p->types[a]] + block[a], j = 0;
		struct ibuf *r = &g->reps[b];
		if (eq[a] != a) {
			nb[a] = nb[eq[a]];
			continue;
		}
		for (int u = 0; u < a; u++)
			j += eq[u] == u && g->boff[p->types[u]] + block[u] == b;
		if ((size_t)j >= r->n) {
			int oom = 0, x = b;
			if (g->top->size[b] > 1) {
				if ((x = split_one(g->top, b)) < 0)
					return err_oom(e);
				split = 1;
			}
			ib_add(r, x, &oom);
			if (oom)
				return err_oom(e);
		}
		nb[a] = r->v[j];
	}
	if (split) {
		if (normalise(g, g->top) < 0)
			return err_oom(e);
		top_drop(g);
	}
	if (slot_room(g) < 0)
		return err_oom(e);
	key = g->trk_keys + (size_t)g->ntrk * 129;
	key[0] = pred;
	for (int a = 0; a < p->arity; a++) {
		key[1 + 2 * a] = nb[a];
		key[2 + 2 * a] = eq[a];
	}
	if ((*slot = amap_eval(&g->trk, key, len)) >= 0)
		return 0;
	amap_put(&g->trk, fnv1a(FNV_INIT, key, len * sizeof *key), key, len,
	    g->ntrk);
	*slot = g->ntrk++;
	g->npath++;
	return 0;
}

double
eng_class_atoms(const struct eng *g, int pred, const int *block,
    const int *eq)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	double r = 1;

	for (int a = 0; a < p->arity; a++) {
		int m = 0;     /* distinct arguments before it in its block */
		if (eq[a] != a)
			continue;
		for (int u = 0; u < a; u++)
			m += eq[u] == u && p->types[u] == p->types[a] &&
			    block[u] == block[a];
		r *= fmax(0, (double)(g->ct->sp->size[p->types[a]][block[a]] - m));
	}
	return r;
}

int
eng_track_count(struct eng *g, int pred, const int *block, const int *eq,
    double min_atoms, int *slot, int *counted, struct err *e)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	size_t len = 1 + 2 * (size_t)p->arity;
	int key[130], var[64], blk[64], nv = 0, nneq = 0, cls = -1;
	struct index ix;
	struct cl *c;
	double atoms = 0;

	*slot = -1;
	*counted = 0;
	key[0] = pred;
	for (int a = 0; a < p->arity; a++) {
		key[1 + 2 * a] = g->boff[p->types[a]] + block[a];
		key[2 + 2 * a] = eq[a];
	}
	if (p->arity == 0 || eng_class_atoms(g, pred, block, eq) <
	    fmax(min_atoms, 2))
		return eng_track(g, pred, block, eq, slot, e);
	/* a new slot, unless the class has one */
	for (int k = 0; k < g->ntrk; k++)
		if (g->trk_keys[(size_t)k * 129] == -1 - pred &&
		    !memcmp(g->trk_keys + (size_t)k * 129 + 1, key + 1,
		    (len - 1) * sizeof *key)) {
			*slot = k;
			*counted = 1;
			return 0;
		}
	if (slot_room(g) < 0 || index_build(g, g->top, &ix) < 0)
		return err_oom(e);
	atoms = 0;
	for (int k = 0; k < ix.ncls && cls < 0; k++) {
		const struct occ *o = &ix.occ[ix.first[k]];
		if (o->len == len && !memcmp(o->key, key, len * sizeof *key))
			cls = k;
	}
	if (cls >= 0)
		atoms = ix.atoms[cls];
	index_free(&ix);
	*counted = 1;
	/* the slot; trk_keys has -1 - pred, so that it is no path's key */
	memcpy(g->trk_keys + (size_t)g->ntrk * 129, key, len * sizeof *key);
	g->trk_keys[(size_t)g->ntrk * 129] = -1 - pred;
	*slot = g->ntrk++;
	if (cls < 0)
		return 0;      /* in no clause: 1/2, as eng_sample leaves it */
	/* its unit clause of weight 0: one variable per distinct argument,
	 * those of one block apart */
	for (int a = 0; a < p->arity; a++)
		if (eq[a] == a) {
			var[a] = nv;
			blk[nv++] = key[1 + 2 * a];
		} else
			var[a] = var[eq[a]];
	for (int u = 0; u < nv; u++)
		for (int v = u + 1; v < nv; v++)
			nneq += blk[u] == blk[v];
	if (!(c = cl_new(nv, nneq, 1, p->arity)))
		return err_oom(e);
	memcpy(c->blk, blk, (size_t)nv * sizeof *blk);
	nneq = 0;
	for (int u = 0; u < nv; u++)
		for (int v = u + 1; v < nv; v++)
			if (blk[u] == blk[v]) {
				c->neq[nneq][0] = u;
				c->neq[nneq++][1] = v;
			}
	c->lit[0].pred = pred;
	c->lit[0].neg = 0;
	c->lit[0].off = 0;
	for (int a = 0; a < p->arity; a++)
		c->arg[a] = var[a];
	if (vec_grow_((void **)&g->tags, &g->captags, (size_t)g->ntag + 1,
	    sizeof *g->tags)) {
		free(c);
		return err_oom(e);
	}
	g->tags[g->ntag].slot = *slot;
	g->tags[g->ntag].atoms = atoms;
	g->tags[g->ntag].sum = 0;
	c->tag = ++g->ntag;
	if (th_push(g->top, c) < 0)
		return err_oom(e);
	top_drop(g);
	return 0;
}

const double *
eng_tracked(const struct eng *g)
{
	return g->trk_v;
}

int
eng_known(struct eng *g, int pred, const int *block, const int *eq,
    size_t *size, int *comp, int *ground, double *prob)
{
	const struct mln_pred *p = &g->ct->m->preds.v[pred];
	int key[130], rc;
	size_t len = top_key(g, pred, block, eq, key);

	*size = 0;
	*comp = -1;
	if (ground)
		*ground = 0;
	if ((rc = units_eval(&g->top_units, key, len)) >= 0) {
		*prob = rc;
		return 1;
	}
	if (top_component(g, key, len, NULL, size, comp) < 0)
		return -1;
	/* a ground atom in no clause is free; a class of several atoms
	 * may have one split off by cond_theory: not known here.  The
	 * theory's own block sizes: eng_track may have split the top's. */
	for (int a = 0; a < p->arity && *size == 0; a++)
		if (g->ct->sp->size[p->types[a]][block[a]] != 1)
			return 0;
	if (*size == 0) {
		*prob = 0.5;
		return 1;
	}
	if (ground)
		*ground = *comp >= 0 && g->top_ground && g->top_ground[*comp];
	return 0;
}

int
eng_target_exact(const struct eng_target *tg)
{
	if (tg->konst == -INFINITY)
		return 1;
	for (size_t k = 0; k < tg->nparts; k++)
		if (!tg->part[k].exact)
			return 0;
	return 1;
}

size_t
eng_target_size(const struct eng_target *tg)
{
	return tg ? tg->size : 0;
}

size_t
eng_target_parts(const struct eng_target *tg)
{
	return tg->nparts;
}

double
eng_target_konst(const struct eng_target *tg)
{
	return tg->konst;
}

const double *
eng_part_weights(const struct eng_target *tg)
{
	return tg->lw;
}

int
eng_slot_part(const struct eng_target *tg, int slot)
{
	return slot >= 0 && slot < tg->nslots ? tg->slot_part[slot] : -1;
}

void
eng_target_free(struct eng_target *tg)
{
	if (!tg)
		return;
	th_free(tg->t);
	for (size_t i = 0; i < tg->nparts; i++) {
		th_free(tg->part[i].t);
		gpart_free(tg->part[i].gp);
		free(tg->part[i].slots);
		free(tg->part[i].vals);
		free(tg->part[i].tags);
	}
	free(tg->part);
	free(tg->lw);
	free(tg->slot_part);
	free(tg);
}

/* After part p was drawn: its counted classes' expectations (the counts
 * ga holds over their atoms) into their slots. */
static void
count_slots(struct eng *g, const struct tpart *p)
{
	for (size_t i = 0; i < g->ga.n; i++)
		g->tags[g->ga.tag[i]].sum += g->ga.v[i];
	for (size_t i = 0; i < p->ntags; i++) {
		struct ctag *c = &g->tags[p->tags[i]];
		trk_put(g, c->slot, c->atoms > 0 ? c->sum / c->atoms : 0.5);
	}
	for (size_t i = 0; i < g->ga.n; i++)
		g->tags[g->ga.tag[i]].sum = 0;
	g->ga.n = 0;
}

int
eng_sample(struct eng *g, struct eng_target *tg, struct eng_rng *r,
    double *log_w, struct err *e)
{
	double sum = tg->konst;
	int64_t solved;
	int rc = 0;

	g->e = e;
	if (tg->konst == -INFINITY) {
		*log_w = -INFINITY;
		return 0;
	}
	for (int i = 0; i < g->ntrk; i++)
		g->trk_v[i] = 0.5;     /* left free unless the path says more */
	/* every part, also after one gave 0: each part's own mean is an
	 * estimate of its Z (see eng_part_weights) */
	for (size_t k = 0; k < tg->nparts; k++) {
		struct tpart *p = &tg->part[k];
		int64_t d0 = g->st.draws;
		struct th *t;
		double z;
		if (p->exact) {
			tg->lw[k] = p->val;
			sum += p->val;
			for (size_t j = 0; j < p->nslots; j++)
				g->trk_v[p->slots[j]] = p->vals[j];
			continue;
		}
		if (!p->gp && p->gp_tried == 0) {
			/* ground: flat at once, unless it is small enough to be
			 * enumerated (the search does that, exactly) */
			struct gpart *gp;
			if (gpart_build(g, p->t, &gp) < 0)
				return err_oom(e);
			if (gp && (g->o.exact_budget == 0 ||
			    enum_units((size_t)gp->nclauses, gp->nreal) >
			    (double)g->o.exact_budget)) {
				p->gp = gp;
				p->gp_tried = 2;
				g->st.flat_parts++;
			} else
				gpart_free(gp);
		}
		if (!p->gp && (p->gp_tried == 1 ||
		    (p->gp_tried == 0 && p->t->c.n > FLAT_CLAUSES))) {
			/* the first sample found it not exact, or it is too
			 * big for the search to be worth a try (every node
			 * copies it): flat, if ground or nearly */
			p->gp_tried = 2;
			if (gpart_new(g, p->t, &p->gp) < 0 ||
			    (!p->gp && gpart_nearly(g, p->t, &p->gp) < 0))
				return err_oom(e);
			g->st.flat_parts += p->gp != NULL;
		}
		if (p->gp) {
			g->ntrk_log = 0;
			g->ga.n = 0;
			g->rng = r;
			rc = gpart_draw(g, p->gp, &z);
			g->rng = NULL;
			if (rc < 0 || g->ga.oom)
				return err_oom(e);
			tg->lw[k] = z;
			sum += z;
			count_slots(g, p);
			continue;
		}
		if (!(t = th_copy(p->t)))
			return err_oom(e);
		g->ntrk_log = 0;
		g->ga.n = 0;
		g->rng = r;
		solved = g->st.exact_tries - g->st.exact_fails;
		rc = solve(g, t, &z);
		/* the first sample: flat from now on unless the search solved
		 * something in it exactly (Rao-Blackwellised parts beat flat
		 * draws of all their atoms) */
		if (!p->gp_tried)
			p->gp_tried = g->st.exact_tries - g->st.exact_fails > solved ?
			    3 : 1;
		g->rng = NULL;
		g->trying = 0;
		if (rc)
			return rc;
		tg->lw[k] = z;
		sum += z;
		if (g->ga.oom)
			return err_oom(e);
		count_slots(g, p);
		if (g->st.draws == d0 && !g->trk_log_oom) {
			/* nothing drawn: the same in every sample */
			size_t m = g->ntrk_log;
			p->slots = xmalloc((m + 1) * sizeof *p->slots);
			p->vals = xmalloc((m + 1) * sizeof *p->vals);
			if (!p->slots || !p->vals)
				return err_oom(e);
			for (size_t j = 0; j < m; j++) {
				p->slots[j] = g->trk_log[j];
				p->vals[j] = g->trk_v[g->trk_log[j]];
			}
			p->nslots = m;
			p->val = z;
			p->exact = 1;
		}
	}
	*log_w = sum;
	return 0;
}

int
eng_plan(struct eng *g, struct buf *out, struct err *e)
{
	struct th *t;
	double z;
	int rc;

	g->e = e;
	g->ga.n = 0;
	g->plan = out;
	g->mult = 1;
	g->est_nodes = 0;
	g->plan_lines = 0;
	if (!(t = th_copy(g->top)))
		return err_oom(e);
	rc = solve(g, t, &z);
	g->plan = NULL;
	if (rc)
		return rc;
	buf_printf(out, "  estimated nodes: %.3g\n", g->est_nodes);
	return out->oom ? err_oom(e) : 0;
}

void
eng_get_stats(const struct eng *g, struct eng_stats *st)
{
	*st = g->st;
}
