/* cmd-load.c: sqlift load DB MODEL.mln [EVIDENCE ...] */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"

static int
run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "replace", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	int flags = 0, c, rc, code;
	int64_t n = 0;
	sqlift *db;

	optind = 1;
	while ((c = getopt_long(argc, argv, "R", opts, NULL)) != -1) {
		if (c == 'R')
			flags |= SQLIFT_LOAD_REPLACE;
		else
			return cli_usage(&cmd_load, "unknown option");
	}
	if (argc - optind < 2)
		return cli_usage(&cmd_load, "needs a database and a model");
	rc = sqlift_open(argv[optind], SQLIFT_OPEN_CREATE, &db);
	sqlift_set_log(db, cli_log, NULL);
	if (!rc)
		rc = sqlift_load(db, argv[optind + 1],
		    (const char *const *)argv + optind + 2, argc - optind - 2, flags,
		    &n);
	if (rc) {
		code = cli_fail(rc, sqlift_errmsg(db));
		sqlift_close(db);
		return code;
	}
	printf("loaded %lld evidence atoms into %s\n", (long long)n, argv[optind]);
	sqlift_close(db);
	return EXIT_OK;
}

const struct cli_cmd cmd_load = {
	"load", "[--replace] DB MODEL.mln [EVIDENCE ...]",
	"Creates DB if needed, stores the model and appends evidence, in one\n"
	"transaction.  EVIDENCE is an Alchemy .db file, a CSV file named after\n"
	"its predicate (one column per argument, optional truth column), or a\n"
	"folder of those.  Loading the same model again changes nothing.\n\n"
	"  -R, --replace   replace a different model already in DB\n",
	run,
	NULL
};
