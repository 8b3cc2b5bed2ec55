/* cmd-explain.c: sqlift explain DB [-q ...] [--constraints setineq|normal]
 * [--method exact|map|lbg] [--exact-budget N] */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int
run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "query", required_argument, NULL, 'q' },
		{ "query-file", required_argument, NULL, 'f' },
		{ "ow", required_argument, NULL, 'O' },
		{ "cw", required_argument, NULL, 'C' },
		{ "constraints", required_argument, NULL, 'c' },
		{ "method", required_argument, NULL, 'm' },
		{ "exact-budget", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 }
	};
	sqlift_infer_opts *o;
	const char *key;
	int c, rc, code, normal = 0;
	sqlift *db;

	if (!(o = sqlift_infer_opts_new()))
		return cli_fail(SQLIFT_ENOMEM, "out of memory");
	optind = 1;
	while ((c = getopt_long(argc, argv, "q:f:m:", opts, NULL)) != -1) {
		if (c == 'm' && strcmp(optarg, "exact") && strcmp(optarg, "map") &&
		    strcmp(optarg, "lbg")) {
			sqlift_infer_opts_free(o);
			return cli_usage(&cmd_explain, "--method is exact, map or "
			    "lbg, not '%s'", optarg);
		}
		key = c == 'q' ? "queries" : c == 'f' ? "query_file" :
		    c == 'm' ? "method" : c == 'B' ? "exact_budget" :
		    c == 'O' ? "open_world" : c == 'C' ? "closed_world" : NULL;
		if (c == 'c' && !strcmp(optarg, "normal"))
			normal = 1;
		else if (c == 'c' && strcmp(optarg, "setineq")) {
			sqlift_infer_opts_free(o);
			return cli_usage(&cmd_explain, "--constraints is "
			    "setineq or normal, not '%s'", optarg);
		} else if (c != 'c' && (!key ||
		    sqlift_infer_opts_set(o, key, optarg))) {
			sqlift_infer_opts_free(o);
			return cli_usage(&cmd_explain, "unknown option");
		}
	}
	if (argc - optind != 1) {
		sqlift_infer_opts_free(o);
		return cli_usage(&cmd_explain, "needs exactly one database");
	}
	rc = sqlift_open(argv[optind], 0, &db);
	if (!rc)
		rc = sqlift_explain(db, o, normal, stdout);
	code = rc ? cli_fail(rc, sqlift_errmsg(db)) : EXIT_OK;
	sqlift_close(db);
	sqlift_infer_opts_free(o);
	return code;
}

const struct cli_cmd cmd_explain = {
	"explain", "DB [-q PRED,...] [-f QUERYFILE] [--ow PRED,...] "
	"[--cw PRED,...] [--constraints setineq|normal] [-m exact|map|lbg] "
	"[--exact-budget N]",
	"Prints the constrained theory that lifted inference works on: the\n"
	"blocks of each domain, each clause with its constraints over those\n"
	"blocks once the evidence is folded in, and the log-weight constant of\n"
	"the groundings the evidence decides.  Changes nothing in DB.\n\n"
	"  -q, -f, --ow, --cw  as for infer: they decide open and closed world\n"
	"  --constraints C     setineq (default) or normal: every constant of\n"
	"                      the evidence its own block, the Normal form of\n"
	"                      Mittal et al.\n"
	"  -m, --method M      exact (default): the plan of log Z; map: the\n"
	"                      plan of the MAP search (the max semiring); lbg:\n"
	"                      the clusters of lbg, each with its cost\n"
	"  --exact-budget N    lbg: the lifted search's work on the whole model\n"
	"                      as one cluster (default 100000; 0: none)\n",
	run,
	NULL
};
