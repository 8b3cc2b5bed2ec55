/* cmd-run.c: sqlift run JOB.ini, for cron. */
#include <stdio.h>

#include "cli/cli.h"

static int
run(int argc, char **argv)
{
	int64_t run_id = 0;
	int rc, code;
	sqlift *db = NULL;

	if (argc != 2)
		return cli_usage(&cmd_run, "needs exactly one job file");
	rc = sqlift_run_job(argv[1], &db, &run_id);
	if (rc) {
		code = cli_fail(rc, sqlift_errmsg(db));
		sqlift_close(db);
		return code;
	}
	if (run_id)
		printf("run %lld\n", (long long)run_id);
	sqlift_close(db);
	return EXIT_OK;
}

const struct cli_cmd cmd_run = {
	"run", "JOB.ini",
	"Runs a job file (see sqlift.ini(5)): opens the database it names,\n"
	"loads its model and evidence, and runs inference, all in one\n"
	"transaction.  Paths in the file are relative to the file's folder.\n",
	run
};
