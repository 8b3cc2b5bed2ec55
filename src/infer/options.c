/* options.c: the one table of inference options (as tmux's
 * options-table.c): name, type, range, default and help of each.  The
 * setter, the checks of sqlift_infer(), the job keys, `sqlift infer`'s
 * options and --help, and the text of runs.parameters all read it. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "infer/options.h"

enum opt_type {
	OPT_STRING,    /* any text */
	OPT_PATH,      /* a file: relative to the job file in a job */
	OPT_CHOICE,    /* one of choices[] */
	OPT_INT64,     /* int64_t in [min, max] */
	OPT_INT,       /* int in [min, max] */
	OPT_SEED,      /* uint64_t */
	OPT_SECONDS,   /* double, more than 0 */
	OPT_BYTES,     /* int64_t: a number and K, M, G or T (powers of
	                  1024), at least min */
	OPT_FLAG       /* int, 0 or 1 */
};

struct opt {
	struct sqlift_infer_option pub;    /* first: next() steps by opt */
	enum opt_type type;
	size_t off;                        /* the field in sqlift_infer_opts */
	int64_t min, max;
	const char *const *choices;        /* NULL-terminated */
	int zero_none;                     /* "0" is stored as -1 (none), as
	                                      0 is "not given" */
	const char *param;                 /* its name in runs.parameters */
};

#define OFF(f) offsetof(struct sqlift_infer_opts, f)

static const char *const methods[] = { "exact", "lis", "ground-lis",
    "brute", "gibbs", "blocked-gibbs", "lbg", "map", NULL };
static const char *const orders[] = { "min-table", "population",
    "rel-min-fill", "min-fill", NULL };
static const char *const constraints[] = { "setineq", "normal", NULL };
static const char *const proposals[] = { "adaptive", "binomial", "uniform",
    NULL };
static const char *const groundings[] = { "lazy", "full", NULL };
static const char *const marginals[] = { "auto", "path", "pairs", "counts",
    NULL };

/* In the order of --help. */
static const struct opt table[] = {
	{ { "method", "method", 'm', "M",
	    "exact, lis, ground-lis, brute, gibbs, blocked-gibbs, lbg, map",
	    "required",
	    "exact: lifted, exact (log Z and marginals)\n"
	    "lis: lifted importance sampling (estimates\n"
	    "with standard errors, and a trace)\n"
	    "ground-lis: the same sampler on the ground\n"
	    "model (every constant its own block)\n"
	    "brute: exact, by enumerating every world\n"
	    "gibbs: Gibbs sampling on the ground model,\n"
	    "one atom at a time (a hard formula's atoms\n"
	    "together)\n"
	    "blocked-gibbs: the same with lbg's blocks,\n"
	    "each drawn by ground enumeration\n"
	    "lbg: lifted blocked Gibbs: blocks from\n"
	    "clusters of predicates (explain -m lbg)\n"
	    "map: the most probable world (lifted search in\n"
	    "the max semiring, CBC on the ground model)\n" },
	    OPT_CHOICE, OFF(method), 0, 0, methods, 0, "method" },
	{ { "order", "order", 0, "O",
	    "min-table, population, rel-min-fill, min-fill", "min-table",
	    "exact, lis: branching order: min-table (default),\n"
	    "population, rel-min-fill, min-fill\n" },
	    OPT_CHOICE, OFF(order), 0, 0, orders, 0, "order" },
	{ { "constraints", "constraints", 0, "C", "setineq, normal", "setineq",
	    "exact: setineq (default) or normal (every\n"
	    "constant of the evidence its own block: the\n"
	    "paper's baseline)\n" },
	    OPT_CHOICE, OFF(constraints), 0, 0, constraints, 0,
	    "constraints" },
	{ { "max_nodes", "max-nodes", 0, "N", "1 or more", "none",
	    "exact: stop after N search nodes\n" },
	    OPT_INT64, OFF(max_nodes), 1, INT64_MAX, NULL, 0, "max_nodes" },
	{ { "max_seconds", "max-seconds", 0, "S", "more than 0", "none",
	    "exact: stop after S seconds; lis, gibbs:\n"
	    "sample for S seconds (unless --samples is\n"
	    "reached)\n" },
	    OPT_SECONDS, OFF(max_seconds), 0, 0, NULL, 0, "max_seconds" },
	{ { "max_memory", "max-memory", 0, "SIZE", "a size: 512M, 2G; 0: none",
	    "2G or half the memory",
	    "exact: stop when the search and its cache\n"
	    "hold SIZE bytes (K, M, G, T: powers of 1024;\n"
	    "default the smaller of 2G and half the\n"
	    "machine's memory; 0: no limit)\n" },
	    OPT_BYTES, OFF(max_memory), 1, INT64_MAX / 2, NULL, 1,
	    "max_memory" },
	{ { "samples", "samples", 0, "N", "1 or more", "1000",
	    "lis: draw N samples (default 1000); gibbs:\n"
	    "N sweeps per chain after burn-in\n" },
	    OPT_INT64, OFF(samples), 1, INT64_MAX, NULL, 0, "samples" },
	{ { "threads", "threads", 0, "T", "1 to 256", "1",
	    "lis: T independent streams (default 1); the\n"
	    "same seed and T give the same numbers;\n"
	    "gibbs: T threads run the chains\n" },
	    OPT_INT, OFF(threads), 1, 256, NULL, 0, "threads" },
	{ { "chains", "chains", 0, "K", "1 to 256", "4",
	    "gibbs: K chains from random starts (default\n"
	    "4), on the threads\n" },
	    OPT_INT, OFF(chains), 1, 256, NULL, 0, "chains" },
	{ { "burn_in", "burn-in", 0, "N", "0 or more", "a tenth of samples",
	    "gibbs: sweeps each chain discards first\n"
	    "(default: a tenth of --samples; under\n"
	    "--max-seconds alone, 100 or half the time)\n" },
	    OPT_INT64, OFF(burn_in), 0, INT64_MAX, NULL, 1, "burn_in" },
	{ { "block_size", "block-size", 0, "N", "1 to 16", "8",
	    "blocked-gibbs: atoms per block at most\n"
	    "(default 8; lbg's larger blocks split)\n" },
	    OPT_INT, OFF(block_size), 1, 16, NULL, 0, "block_size" },
	{ { "grounding", "grounding", 0, "G", "lazy, full", "lazy",
	    "map: lazy (default: the groundings each world\n"
	    "violates, found by joins, as they appear) or\n"
	    "full (every grounding first)\n" },
	    OPT_CHOICE, OFF(grounding), 0, 0, groundings, 0, "grounding" },
	{ { "proposal", "proposal", 0, "P", "adaptive, binomial, uniform",
	    "adaptive",
	    "lis: adaptive (default), binomial, uniform\n" },
	    OPT_CHOICE, OFF(proposal), 0, 0, proposals, 0, "proposal" },
	{ { "particles", "particles", 0, "K", "1 to 4096", "none",
	    "lis: K particles per flat part (sequential\n"
	    "Monte Carlo; default: none)\n" },
	    OPT_INT, OFF(particles), 1, 4096, NULL, 0, "particles" },
	{ { "exact_budget", "exact-budget", 0, "N", "0 or more", "10000",
	    "lis: solve a part exactly when the exact\n"
	    "search needs at most N nodes (default 10000;\n"
	    "0: sample every branch); lbg: the work of the\n"
	    "try of the whole model as one cluster (default\n"
	    "100000; 0: always sample)\n" },
	    OPT_INT64, OFF(exact_budget), 0, INT64_MAX, NULL, 1,
	    "exact_budget" },
	{ { "marginals", "marginals", 0, "M", "auto, path, pairs, counts",
	    "auto",
	    "lis: counts (a group's expected count of\n"
	    "true atoms, from Z's samples), pairs (sample\n"
	    "Z with the atom true and false), path (ground\n"
	    "atoms: from Z's samples) or auto (default:\n"
	    "counts when a group has 8 atoms or more,\n"
	    "else pairs for up to 32 groups in small\n"
	    "parts, else path)\n" },
	    OPT_CHOICE, OFF(marginals), 0, 0, marginals, 0, "marginals" },
	{ { "queries", "query", 'q', "LIST", "predicates or atoms", "none",
	    "query predicates or atoms, comma-separated\n" },
	    OPT_STRING, OFF(queries), 0, 0, NULL, 0, NULL },
	{ { "query_file", "query-file", 'f', "F", "a file", "none",
	    "Alchemy query file, one atom per line\n" },
	    OPT_PATH, OFF(query_file), 0, 0, NULL, 0, "query_file" },
	{ { "open_world", "ow", 0, "LIST", "predicates", "none",
	    "predicates to treat as open-world\n" },
	    OPT_STRING, OFF(open_world), 0, 0, NULL, 0, "ow" },
	{ { "closed_world", "cw", 0, "LIST", "predicates", "none",
	    "predicates to treat as closed-world\n" },
	    OPT_STRING, OFF(closed_world), 0, 0, NULL, 0, "cw" },
	{ { "seed", "seed", 's', "N", "0 or more", "0",
	    "seed of the run's random numbers (recorded)\n" },
	    OPT_SEED, OFF(seed), 0, 0, NULL, 0, NULL },
	{ { "result", "result", 'r', "FILE", "a file", "none",
	    "also write Alchemy-style results to FILE\n" },
	    OPT_PATH, OFF(result_path), 0, 0, NULL, 0, NULL },
	{ { "allow_zero_weights", "allow-zero-weights", 0, NULL, "true, false",
	    "false",
	    "run a model whose formulas all weigh 0\n"
	    "(refused otherwise: a formula without a\n"
	    "weight weighs 0, as in Alchemy)\n" },
	    OPT_FLAG, OFF(allow_zero_weights), 0, 1, NULL, 0, NULL },
	{ { "verbose", "verbose", 'v', NULL, "true, false", "false",
	    "print a summary of the run on stderr\n" },
	    OPT_FLAG, OFF(verbose), 0, 1, NULL, 0, NULL },
};
#define NOPT (sizeof table / sizeof *table)

/* runs.parameters lists the options in this order, fixed so that the
 * text of a run stays comparable with older runs. */
static const char *const param_order[] = { "method", "open_world",
    "closed_world", "query_file", "order", "constraints", "max_nodes",
    "max_seconds", "samples", "threads", "proposal", "marginals",
    "particles", "exact_budget", "max_memory", "chains", "burn_in",
    "block_size", "grounding" };

const struct sqlift_infer_option *
sqlift_infer_option_next(const struct sqlift_infer_option *prev)
{
	const struct opt *p = (const struct opt *)prev;

	if (!p)
		return &table[0].pub;
	return p + 1 < table + NOPT ? &p[1].pub : NULL;
}

/* The entry of a job key or of "--" and a long option; NULL if none. */
static const struct opt *
opt_find(const char *name)
{
	int dashes = !strncmp(name, "--", 2);

	for (size_t i = 0; i < NOPT; i++)
		if (!strcmp(dashes ? table[i].pub.flag : table[i].pub.name,
		    name + (dashes ? 2 : 0)))
			return &table[i];
	return NULL;
}

int
opts_known(const char *name)
{
	return opt_find(name) != NULL;
}

int
opts_is_path(const char *name)
{
	const struct opt *d = opt_find(name);

	return d && d->type == OPT_PATH;
}

/* What the option allows, after "expected". */
static void
opt_expected(const struct opt *d, char *s, size_t n)
{
	switch (d->type) {
	case OPT_CHOICE:
		snprintf(s, n, "one of %s", d->pub.range);
		break;
	case OPT_INT64:
	case OPT_INT:
		if (d->max == INT64_MAX)
			snprintf(s, n, "an integer of at least %lld",
			    (long long)d->min);
		else
			snprintf(s, n, "an integer from %lld to %lld",
			    (long long)d->min, (long long)d->max);
		break;
	case OPT_SEED:
		snprintf(s, n, "a non-negative integer");
		break;
	case OPT_SECONDS:
		snprintf(s, n, "a positive number");
		break;
	case OPT_BYTES:
		snprintf(s, n, "a size such as 512M or 2G, or 0 for no limit");
		break;
	case OPT_FLAG:
		snprintf(s, n, "true or false");
		break;
	default:
		snprintf(s, n, "a value");
	}
}

static int
opt_bad(const struct opt *d, const char *name, const char *value,
    struct err *e)
{
	char want[128];

	opt_expected(d, want, sizeof want);
	return err_set(e, SQLIFT_EUSAGE, "%s is '%s', expected %s", name, value,
	    want);
}

static int
choice_ok(const struct opt *d, const char *v)
{
	for (const char *const *c = d->choices; *c; c++)
		if (!strcmp(*c, v))
			return 1;
	return 0;
}

/* "512M" -> 536870912: a number, then K, M, G or T (powers of 1024);
 * -1 if it is none of these or not a whole number of bytes. */
static int
bytes_parse(const char *s, long long *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !(x >= 0) || !isdigit((unsigned char)*s))
		return -1;
	if (*end && (u = strchr(units, toupper((unsigned char)*end))) &&
	    !end[1]) {
		x *= ldexp(1, 10 * (int)(u - units + 1));
		end++;
	}
	if (*end || x > 0x1p62 || x != floor(x))
		return -1;
	*out = (long long)x;
	return 0;
}

int
opts_set(struct sqlift_infer_opts *o, const char *name, const char *value,
    struct err *e)
{
	const struct opt *d = opt_find(name);
	char *f = (char *)o + (d ? d->off : 0), *end, *copy;
	long long x;
	double t;

	if (!d)
		return err_set(e, SQLIFT_EUSAGE, "unknown option '%s'", name);
	if (!value)
		return err_set(e, SQLIFT_EUSAGE, "%s has no value", name);
	errno = 0;
	switch (d->type) {
	case OPT_CHOICE:
		if (!choice_ok(d, value))
			return opt_bad(d, name, value, e);
		/* FALLTHROUGH */
	case OPT_STRING:
	case OPT_PATH:
		if (!o->owned) {
			*(const char **)f = value;
			break;
		}
		if (!(copy = xstrdup(value)))
			return err_oom(e);
		free(*(char **)f);
		*(char **)f = copy;
		break;
	case OPT_INT64:
	case OPT_INT:
		x = strtoll(value, &end, 10);
		if (errno || *end || !*value || x < d->min || x > d->max)
			return opt_bad(d, name, value, e);
		if (x == 0 && d->zero_none)
			x = -1;
		if (d->type == OPT_INT)
			*(int *)f = (int)x;
		else
			*(int64_t *)f = x;
		break;
	case OPT_SEED:
		*(uint64_t *)f = strtoull(value, &end, 10);
		if (errno || *end || !*value || value[0] == '-')
			return opt_bad(d, name, value, e);
		break;
	case OPT_SECONDS:
		t = strtod(value, &end);
		if (errno || *end || !(t > 0))
			return opt_bad(d, name, value, e);
		*(double *)f = t;
		break;
	case OPT_BYTES:
		if (bytes_parse(value, &x) < 0 || (x != 0 && (x < d->min ||
		    x > d->max)))
			return opt_bad(d, name, value, e);
		*(int64_t *)f = x == 0 && d->zero_none ? -1 : x;
		break;
	case OPT_FLAG:
		if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
		    !strcmp(value, "1"))
			*(int *)f = 1;
		else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") ||
		    !strcmp(value, "0"))
			*(int *)f = 0;
		else
			return opt_bad(d, name, value, e);
		break;
	}
	return 0;
}

int
opts_check(const struct sqlift_infer_opts *o, struct err *e)
{
	char v[32];

	for (size_t i = 0; i < NOPT; i++) {
		const struct opt *d = &table[i];
		const char *f = (const char *)o + d->off;
		int64_t x;

		switch (d->type) {
		case OPT_CHOICE:
			if (*(const char *const *)f && !choice_ok(d,
			    *(const char *const *)f))
				return opt_bad(d, d->pub.name, *(const char *const *)f,
				    e);
			break;
		case OPT_INT64:
		case OPT_INT:
		case OPT_BYTES:
			x = d->type == OPT_INT ? *(const int *)f :
			    *(const int64_t *)f;
			if (x != 0 && !(x == -1 && d->zero_none) &&
			    (x < d->min || x > d->max)) {
				snprintf(v, sizeof v, "%lld", (long long)x);
				return opt_bad(d, d->pub.name, v, e);
			}
			break;
		case OPT_SECONDS:
			if (!(*(const double *)f >= 0)) {
				snprintf(v, sizeof v, "%g", *(const double *)f);
				return opt_bad(d, d->pub.name, v, e);
			}
			break;
		default:
			break;
		}
	}
	return 0;
}

void
opts_params(struct buf *b, const struct sqlift_infer_opts *o)
{
	for (size_t k = 0; k < sizeof param_order / sizeof *param_order; k++) {
		const struct opt *d = opt_find(param_order[k]);
		const char *f = (const char *)o + d->off, *s;
		const char *sep = k ? " " : "";
		int64_t x;

		switch (d->type) {
		case OPT_CHOICE:
		case OPT_STRING:
		case OPT_PATH:
			/* method is always written, even when missing */
			s = *(const char *const *)f;
			if (k == 0 || (s && *s))
				buf_printf(b, "%s%s=%s", sep, d->param, s ? s : "(null)");
			break;
		case OPT_INT64:
		case OPT_INT:
		case OPT_BYTES:
			x = d->type == OPT_INT ? *(const int *)f :
			    *(const int64_t *)f;
			if (x)
				buf_printf(b, "%s%s=%lld", sep, d->param,
				    (long long)(x < 0 && d->zero_none ? 0 : x));
			break;
		case OPT_SECONDS:
			if (*(const double *)f)
				buf_printf(b, "%s%s=%g", sep, d->param, *(const double *)f);
			break;
		default:
			break;
		}
	}
}

sqlift_infer_opts *
sqlift_infer_opts_new(void)
{
	sqlift_infer_opts *o = xcalloc(1, sizeof *o);

	if (o)
		o->owned = 1;
	return o;
}

void
sqlift_infer_opts_free(sqlift_infer_opts *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < NOPT; i++)
		if (table[i].type == OPT_STRING || table[i].type == OPT_PATH ||
		    table[i].type == OPT_CHOICE)
			free(*(char **)((char *)o + table[i].off));
	free(o);
}

int
sqlift_infer_opts_set(sqlift_infer_opts *o, const char *name,
    const char *value)
{
	struct err e = { 0 };
	int rc;

	if ((rc = opts_set(o, name, value, &e)))
		snprintf(o->msg, sizeof o->msg, "%s", e.msg);
	return rc;
}

const char *
sqlift_infer_opts_errmsg(const sqlift_infer_opts *o)
{
	return o->msg;
}

void
sqlift_infer_opts_set_progress(sqlift_infer_opts *o, sqlift_progress_fn *fn,
    void *arg)
{
	o->progress = fn;
	o->progress_arg = arg;
}

void
sqlift_infer_opts_set_log(sqlift_infer_opts *o, sqlift_log_fn *fn, void *arg)
{
	o->log = fn;
	o->log_arg = arg;
}
