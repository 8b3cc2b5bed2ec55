/* cmd-info.c: sqlift info DB */
#include <stdio.h>

#include "cli/cli.h"

static int
run(int argc, char **argv)
{
	int rc, code;
	sqlift *db;

	if (argc != 2)
		return cli_usage(&cmd_info, "needs exactly one database");
	rc = sqlift_open(argv[1], 0, &db);
	if (!rc)
		rc = sqlift_info(db, stdout);
	code = rc ? cli_fail(rc, sqlift_errmsg(db)) : EXIT_OK;
	sqlift_close(db);
	return code;
}

const struct cli_cmd cmd_info = {
	"info", "DB",
	"Prints what DB holds: the model, its predicates with their evidence\n"
	"counts, and the latest runs.\n",
	run,
	NULL
};
