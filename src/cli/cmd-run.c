/* cmd-run.c: sqlift run JOB.ini, for cron. */
#include <stdio.h>

#include "cli/cli.h"

static int
run(int argc, char **argv)
{
	int64_t run_id = 0;
	int rc, code;
	sqlift *db = NULL;
	sqlift_infer_opts *out;

	if (argc != 2)
		return cli_usage(&cmd_run, "needs exactly one job file");
	if (!(out = sqlift_infer_opts_new()))
		return cli_fail(SQLIFT_ENOMEM, "out of memory");
	sqlift_infer_opts_set_log(out, cli_log, NULL);
	cli_signals();
	rc = sqlift_run_job_opts(argv[1], out, &db, &run_id);
	sqlift_infer_opts_free(out);
	if (rc == SQLIFT_EINTR && run_id)
		printf("run %lld\n", (long long)run_id);
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
	run,
	NULL
};
