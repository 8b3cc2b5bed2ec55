/* cmd-infer.c: sqlift infer DB --method M [-q ...] [-f ...] ...: the
 * options and their --help come from the library's option table
 * (sqlift_infer_option_next); progress and -v's summary are printed
 * here, on stderr.  The one-shot form, Alchemy's `infer -i MODEL -e
 * EVIDENCE,... -r OUT -q PREDS`, loads into a temporary database (or
 * --db FILE) first; its options are the command line's alone. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define MAX_OPTS 64
#define HELP_COL 22    /* where an option's help starts in --help */
#define OPT_DB 1       /* getopt's value for --db, which has no letter */

/* The long options of the one-shot form, after the table's (-i and -e
 * are Alchemy's, which has no long forms); not job keys, so listed in
 * the help's text rather than with the table's. */
static const struct option oneshot_opts[] = {
	{ "db", required_argument, NULL, OPT_DB },
};
#define NONESHOT (sizeof oneshot_opts / sizeof *oneshot_opts)

/* What the one-shot form was given: all NULL in the normal form. */
struct oneshot {
	const char *model;     /* -i */
	const char *db;        /* --db, or NULL: a temporary database */
	char *evidence;        /* the -e lists joined by ',', malloc'd */
};

/* arg: NULL for lis, else "gibbs" (whose samples are sweeps) */
static void
show_progress(void *arg, const struct sqlift_progress *p)
{
	const char *what = arg ? "gibbs" : "lis";
	const char *unit = arg ? "sweeps" : "samples";

	if (p->done)
		fprintf(stderr, "\r\033[K");
	else if (p->max_samples > 0)
		fprintf(stderr, "\r%s: %lld/%lld %s, %.1f s", what,
		    (long long)p->samples, (long long)p->max_samples, unit,
		    p->seconds);
	else
		fprintf(stderr, "\r%s: %lld %s, %.1f/%g s", what,
		    (long long)p->samples, unit, p->seconds, p->max_seconds);
	fflush(stderr);
}

/* getopt_long's table and short options from the option table; a long
 * option's val is 256 plus its index. */
static void
build_getopt(struct option *lo, char *shorts, const struct
    sqlift_infer_option **by_index)
{
	const struct sqlift_infer_option *d = NULL;
	int n = 0;
	char *sp = shorts;

	while ((d = sqlift_infer_option_next(d)) &&
	    n < MAX_OPTS - 1 - (int)NONESHOT) {
		lo[n].name = d->flag;
		lo[n].has_arg = d->arg ? required_argument : no_argument;
		lo[n].flag = NULL;
		lo[n].val = 256 + n;
		by_index[n] = d;
		if (d->letter) {
			*sp++ = (char)d->letter;
			if (d->arg)
				*sp++ = ':';
		}
		n++;
	}
	by_index[n] = NULL;
	for (size_t i = 0; i < NONESHOT; i++)
		lo[n++] = oneshot_opts[i];
	memcpy(sp, "i:e:", 5);
	memset(&lo[n], 0, sizeof lo[n]);
}

/* The entry of getopt's return value c; NULL if c is not an option. */
static const struct sqlift_infer_option *
lookup(int c, const struct sqlift_infer_option *const *by_index)
{
	if (c >= 256) {
		for (int i = 0; by_index[i]; i++)
			if (i == c - 256)
				return by_index[i];
		return NULL;
	}
	/* a short option; '?' (unknown) matches none */
	for (int i = 0; by_index[i]; i++)
		if (by_index[i]->letter == c)
			return by_index[i];
	return NULL;
}

/* Appends -e's list v to os->evidence.  -1 if out of memory. */
static int
evidence_add(struct oneshot *os, const char *v)
{
	size_t n = os->evidence ? strlen(os->evidence) : 0;
	char *p;

	if (!(p = realloc(os->evidence, n + strlen(v) + 2)))
		return -1;
	if (n)
		p[n++] = ',';
	memcpy(p + n, v, strlen(v) + 1);
	os->evidence = p;
	return 0;
}

/* Splits os->evidence at its commas, as Alchemy's -e, into *files (in
 * place; caller frees *files).  SQLIFT_EUSAGE for an empty name. */
static int
evidence_split(struct oneshot *os, char ***files, int *n)
{
	char *p = os->evidence;
	int k = 1;

	*files = NULL;
	*n = 0;
	if (!p)
		return 0;
	for (const char *c = p; *c; c++)
		k += *c == ',';
	if (!(*files = calloc((size_t)k, sizeof **files)))
		return SQLIFT_ENOMEM;
	for (;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = '\0';
		if (!*p)
			return SQLIFT_EUSAGE;
		(*files)[(*n)++] = p;
		if (!c)
			return 0;
		p = c + 1;
	}
}

/* The one-shot form's checks; 0 or the exit code of a usage error. */
static int
oneshot_check(const struct oneshot *os, int nargs, int has_result)
{
	if (!os->model && (os->evidence || os->db))
		return cli_usage(&cmd_infer, "%s goes with -i MODEL.mln",
		    os->db ? "--db" : "-e");
	if (!os->model)
		return 0;
	if (nargs)
		return cli_usage(&cmd_infer, "-i loads into a temporary database, "
		    "or --db FILE: give no database argument");
	if (!has_result && !os->db)
		return cli_usage(&cmd_infer, "-i needs -r FILE or --db FILE: the "
		    "temporary database is deleted at exit");
	return 0;
}

/* Loads the model and evidence files of the one-shot form into os->db
 * or a private temporary database (SQLite's "": removed when closed,
 * even after a crash).  *db is set as by sqlift_open. */
static int
oneshot_load(const struct oneshot *os, char **files, int nfiles, sqlift **db)
{
	int64_t n = 0;
	int rc;

	rc = sqlift_open(os->db ? os->db : "", SQLIFT_OPEN_CREATE, db);
	if (!rc)
		rc = sqlift_load(*db, os->model, (const char *const *)files,
		    nfiles, 0, &n);
	return rc;
}

static int
run(int argc, char **argv)
{
	struct option lo[MAX_OPTS];
	const struct sqlift_infer_option *by_index[MAX_OPTS], *d;
	char shorts[2 * MAX_OPTS + 1], name[64];
	struct oneshot os = { NULL, NULL, NULL };
	sqlift_infer_opts *o;
	char **files = NULL;
	int64_t run_id = 0;
	int c, rc, code = 0, method = 0, result = 0, nfiles = 0;
	const char *gibbs = NULL;  /* for the progress line */
	sqlift *db = NULL;

	if (!(o = sqlift_infer_opts_new()))
		return cli_fail(SQLIFT_ENOMEM, "out of memory");
	build_getopt(lo, shorts, by_index);
	optind = 1;
	while (!code && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'i' || c == OPT_DB) {
			*(c == 'i' ? &os.model : &os.db) = optarg;
			continue;
		}
		if (c == 'e') {
			if (evidence_add(&os, optarg) < 0)
				code = cli_fail(SQLIFT_ENOMEM, "out of memory");
			continue;
		}
		if (!(d = lookup(c, by_index))) {
			code = cli_usage(&cmd_infer, "unknown option");
			break;
		}
		snprintf(name, sizeof name, "--%s", d->flag);
		if (sqlift_infer_opts_set(o, name, d->arg ? optarg : "true"))
			code = cli_usage(&cmd_infer, "%s",
			    sqlift_infer_opts_errmsg(o));
		method |= !strcmp(d->name, "method");
		if (!strcmp(d->name, "method"))
			gibbs = strstr(optarg, "gibbs") || !strcmp(optarg, "lbg") ?
			    "gibbs" : NULL;
		result |= !strcmp(d->name, "result");
	}
	if (!code)
		code = oneshot_check(&os, argc - optind, result);
	/* the one-shot form samples unless told, as Alchemy's infer does */
	if (!code && os.model && !method &&
	    sqlift_infer_opts_set(o, "method", "lis"))
		code = cli_fail(SQLIFT_ENOMEM, "out of memory");
	if (!code && !os.model && (argc - optind != 1 || !method)) {
		if (!method && argc - optind == 1)
			code = cli_usage(&cmd_infer, "needs --method (exact, lis, "
			    "ground-lis, brute, gibbs, blocked-gibbs or lbg)");
		else
			code = cli_usage(&cmd_infer, "needs exactly one database");
	}
	if (!code && (rc = evidence_split(&os, &files, &nfiles)))
		code = rc == SQLIFT_EUSAGE ? cli_usage(&cmd_infer, "-e has an "
		    "empty file name") : cli_fail(rc, "out of memory");
	if (code) {
		free(files);
		free(os.evidence);
		sqlift_infer_opts_free(o);
		return code;
	}
	if (isatty(STDERR_FILENO))
		sqlift_infer_opts_set_progress(o, show_progress, (void *)gibbs);
	sqlift_infer_opts_set_log(o, cli_log, NULL);
	if (os.model)
		rc = oneshot_load(&os, files, nfiles, &db);
	else
		rc = sqlift_open(argv[optind], 0, &db);
	free(files);
	free(os.evidence);
	cli_signals();
	if (!rc)
		rc = sqlift_infer(db, o, &run_id);
	sqlift_infer_opts_free(o);
	/* a temporary database's run ids mean nothing once it is gone */
	if (run_id && (rc == 0 || rc == SQLIFT_EINTR) && (!os.model || os.db))
		printf("run %lld\n", (long long)run_id);
	code = rc ? cli_fail(rc, sqlift_errmsg(db)) : EXIT_OK;
	sqlift_close(db);
	return code;
}

/* The option list of --help, from the table; then the job keys with
 * what they allow and their defaults (man.test compares these with
 * sqlift.ini(5)). */
static void
help_options(void)
{
	const struct sqlift_infer_option *d = NULL;
	char head[64];

	while ((d = sqlift_infer_option_next(d))) {
		const char *h = d->help, *nl;
		int n;

		if (d->letter)
			n = snprintf(head, sizeof head, "  -%c, --%s%s%s", d->letter,
			    d->flag, d->arg ? " " : "", d->arg ? d->arg : "");
		else
			n = snprintf(head, sizeof head, "      --%s%s%s", d->flag,
			    d->arg ? " " : "", d->arg ? d->arg : "");
		printf("%s%*s", head, n < HELP_COL ? HELP_COL - n : 1, "");
		for (int first = 1; *h; first = 0, h = nl + 1) {
			if (!(nl = strchr(h, '\n')))
				nl = h + strlen(h);
			printf("%*s%.*s\n", first ? 0 : HELP_COL, "", (int)(nl - h), h);
			if (!*nl)
				break;
		}
	}
	printf("\nKeys of a job file's [infer] section (sqlift.ini(5)): what "
	    "they allow,\nand their defaults:\n");
	while ((d = sqlift_infer_option_next(d)))
		printf("  %-13s %s (default: %s)\n", d->name, d->range, d->dflt);
}

const struct cli_cmd cmd_infer = {
	"infer", "DB --method M [-q PRED,...] [-f QUERYFILE] [--ow PRED,...] "
	"[--cw PRED,...] [--order O] [--constraints C] [--max-nodes N]\n"
	"       [--max-seconds S] [--samples N] [--threads T] [--proposal P]\n"
	"       [--particles K] [--chains K] [--burn-in N] [--block-size N]\n"
	"       [--exact-budget N] [--marginals M] [--seed N] [-r FILE] [-v]",
	"Runs inference on the model and evidence in DB and records a run: a\n"
	"row in the runs table and the marginals of the query atoms in the\n"
	"marginals view.  Prints the run's id.\n\n"
	"One-shot form, as Alchemy's infer:\n"
	"  sqlift infer -i MODEL.mln [-e EVIDENCE,...] -r FILE [-q PRED,...]\n"
	"               [--db DB] [options]\n"
	"loads MODEL.mln and the evidence (-e: files comma-separated, or -e\n"
	"repeated) into a temporary database, gone at exit, or into DB, kept\n"
	"(the run's id is printed); then runs inference (--method lis unless\n"
	"given) and writes the marginals to FILE.\n\n",
	run,
	help_options
};
