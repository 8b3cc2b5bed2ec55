/* cmd-load.c: sqlift load DB MODEL.mln [EVIDENCE ...], and with
 * --replace-evidence DB [MODEL.mln] EVIDENCE ... */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"

/* With --replace-evidence the model is optional: it is the first file
 * after DB when that file's name ends in .mln. */
static int
is_model_name(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && !strcasecmp(path + n - 4, ".mln");
}

static void
report(sqlift *db, const char *path, int flags, int64_t n)
{
	int64_t added, flipped, removed;

	if (!(flags & SQLIFT_LOAD_REPLACE_EVIDENCE)) {
		printf("loaded %lld evidence atoms into %s\n", (long long)n, path);
		return;
	}
	sqlift_load_changes(db, &added, &flipped, &removed);
	printf("replaced the evidence of %s with %lld atoms: %lld added, "
	    "%lld flipped, %lld removed\n", path, (long long)n,
	    (long long)added, (long long)flipped, (long long)removed);
}

/* --csv-header's value as load flags; -1 if bad. */
static int
csv_header_flags(const char *v)
{
	if (!strcasecmp(v, "yes"))
		return SQLIFT_LOAD_CSV_HEADER;
	if (!strcasecmp(v, "no"))
		return SQLIFT_LOAD_CSV_NO_HEADER;
	return strcasecmp(v, "auto") ? -1 : 0;
}

static int
run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "replace", no_argument, NULL, 'R' },
		{ "replace-evidence", no_argument, NULL, 'E' },
		{ "csv-header", required_argument, NULL, 'H' },
		{ "max-constants", required_argument, NULL, SQLIFT_LIMIT_CONSTANTS },
		{ "max-domain", required_argument, NULL, SQLIFT_LIMIT_DOMAIN },
		{ "max-line", required_argument, NULL, SQLIFT_LIMIT_LINE },
		{ NULL, 0, NULL, 0 }
	};
	int64_t limit[3] = { 0 };
	int flags = 0, c, rc, code, nfiles, hf;
	const char *model;
	char **ev, *end;
	int64_t n = 0;
	sqlift *db;

	optind = 1;
	while ((c = getopt_long(argc, argv, "R", opts, NULL)) != -1) {
		if (c == 'R')
			flags |= SQLIFT_LOAD_REPLACE;
		else if (c == 'E')
			flags |= SQLIFT_LOAD_REPLACE_EVIDENCE;
		else if (c == 'H' && (hf = csv_header_flags(optarg)) >= 0)
			flags |= hf;
		else if (c == 'H')
			return cli_usage(&cmd_load, "--csv-header is '%s', expected "
			    "yes, no or auto", optarg);
		else if (c >= 0 && c < 3) {
			long long v = strtoll(optarg, &end, 10);
			if (*end || v < 1 || v > (c == 2 ? 1LL << 30 : 1LL << 40))
				return cli_usage(&cmd_load, "--%s is '%s', expected a "
				    "positive integer", opts[c + 3].name, optarg);
			limit[c] = v;
		} else
			return cli_usage(&cmd_load, "unknown option");
	}
	nfiles = argc - optind - 1;
	if (!(flags & SQLIFT_LOAD_REPLACE_EVIDENCE) && nfiles < 1)
		return cli_usage(&cmd_load, "needs a database and a model");
	if (nfiles < 1)
		return cli_usage(&cmd_load, "needs a database and evidence");
	model = argv[optind + 1];
	ev = argv + optind + 2;
	if ((flags & SQLIFT_LOAD_REPLACE_EVIDENCE) && !is_model_name(model)) {
		model = NULL;
		ev--;
	}
	nfiles = (int)(argv + argc - ev);
	if ((flags & SQLIFT_LOAD_REPLACE_EVIDENCE) && nfiles < 1)
		return cli_usage(&cmd_load, "--replace-evidence needs at least one "
		    "evidence file or folder");
	rc = sqlift_open(argv[optind], SQLIFT_OPEN_CREATE, &db);
	for (int i = 0; !rc && i < 3; i++)
		sqlift_limit(db, i, limit[i]);
	if (!rc)
		sqlift_set_log(db, cli_log, NULL);
	if (!rc)
		rc = sqlift_load(db, model, (const char *const *)ev, nfiles, flags,
		    &n);
	if (rc) {
		code = cli_fail(rc, sqlift_errmsg(db));
		sqlift_close(db);
		return code;
	}
	report(db, argv[optind], flags, n);
	sqlift_close(db);
	return EXIT_OK;
}

const struct cli_cmd cmd_load = {
	"load", "[-R] [--replace-evidence] [OPTIONS] DB MODEL.mln [EVIDENCE ...]",
	"Creates DB if needed, stores the model and appends evidence, in one\n"
	"transaction.  EVIDENCE is an Alchemy .db file, a CSV file named after\n"
	"its predicate (one column per argument, optional truth column), or a\n"
	"folder of those.  Loading the same model again changes nothing.\n\n"
	"  -R, --replace       replace a different model already in DB\n"
	"  --replace-evidence  replace the stored evidence with exactly what\n"
	"                      the files say (a model is optional: a first\n"
	"                      file named *.mln); the same files change nothing\n"
	"  --csv-header yes|no|auto  a CSV file's first row is a header (auto:\n"
	"                      when it names the argument types; skipped with\n"
	"                      a note)\n"
	"  --max-constants N   refuse more than N constants (10000000)\n"
	"  --max-domain N      refuse a type of more than N constants (1000000)\n"
	"  --max-line N        refuse an evidence line over N bytes (1048576)\n",
	run,
	NULL
};
