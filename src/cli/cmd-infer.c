/* cmd-infer.c: sqlift infer DB --method M [-q ...] [-f ...] ...: the
 * options and their --help come from the library's option table
 * (sqlift_infer_option_next); progress and -v's summary are printed
 * here, on stderr. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define MAX_OPTS 64
#define HELP_COL 22    /* where an option's help starts in --help */

static void
show_progress(void *arg, const struct sqlift_progress *p)
{
	(void)arg;
	if (p->done)
		fprintf(stderr, "\r\033[K");
	else if (p->max_samples > 0)
		fprintf(stderr, "\rlis: %lld/%lld samples, %.1f s",
		    (long long)p->samples, (long long)p->max_samples, p->seconds);
	else
		fprintf(stderr, "\rlis: %lld samples, %.1f/%g s",
		    (long long)p->samples, p->seconds, p->max_seconds);
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

	while ((d = sqlift_infer_option_next(d)) && n < MAX_OPTS - 1) {
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
	*sp = '\0';
	memset(&lo[n], 0, sizeof lo[n]);
	by_index[n] = NULL;
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

static int
run(int argc, char **argv)
{
	struct option lo[MAX_OPTS];
	const struct sqlift_infer_option *by_index[MAX_OPTS], *d;
	char shorts[2 * MAX_OPTS + 1], name[64];
	sqlift_infer_opts *o;
	int64_t run_id = 0;
	int c, rc, code, method = 0;
	sqlift *db;

	if (!(o = sqlift_infer_opts_new()))
		return cli_fail(SQLIFT_ENOMEM, "out of memory");
	build_getopt(lo, shorts, by_index);
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (!(d = lookup(c, by_index))) {
			sqlift_infer_opts_free(o);
			return cli_usage(&cmd_infer, "unknown option");
		}
		snprintf(name, sizeof name, "--%s", d->flag);
		if (sqlift_infer_opts_set(o, name, d->arg ? optarg : "true")) {
			code = cli_usage(&cmd_infer, "%s",
			    sqlift_infer_opts_errmsg(o));
			sqlift_infer_opts_free(o);
			return code;
		}
		method |= !strcmp(d->name, "method");
	}
	if (argc - optind != 1 || !method) {
		sqlift_infer_opts_free(o);
		if (!method && argc - optind == 1)
			return cli_usage(&cmd_infer, "needs --method (exact, lis, "
			    "ground-lis or brute)");
		return cli_usage(&cmd_infer, "needs exactly one database");
	}
	if (isatty(STDERR_FILENO))
		sqlift_infer_opts_set_progress(o, show_progress, NULL);
	sqlift_infer_opts_set_log(o, cli_log, NULL);
	rc = sqlift_open(argv[optind], 0, &db);
	cli_signals();
	if (!rc)
		rc = sqlift_infer(db, o, &run_id);
	sqlift_infer_opts_free(o);
	if (rc == SQLIFT_EINTR && run_id)
		printf("run %lld\n", (long long)run_id);
	if (rc) {
		code = cli_fail(rc, sqlift_errmsg(db));
		sqlift_close(db);
		return code;
	}
	printf("run %lld\n", (long long)run_id);
	sqlift_close(db);
	return EXIT_OK;
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
	"       [--particles K]\n"
	"       [--exact-budget N] [--marginals M] [--seed N] [-r FILE] [-v]",
	"Runs inference on the model and evidence in DB and records a run: a\n"
	"row in the runs table and the marginals of the query atoms in the\n"
	"marginals view.  Prints the run's id.\n\n",
	run,
	help_options
};
