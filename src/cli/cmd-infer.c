/* cmd-infer.c: sqlift infer DB --method M [-q ...] [-f ...] ... */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"

/* A non-negative integer option; -1 if it is not one. */
static long long
count_arg(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end || !*s || v < 0 ? -1 : v;
}

static int
run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "method", required_argument, NULL, 'm' },
		{ "query", required_argument, NULL, 'q' },
		{ "query-file", required_argument, NULL, 'f' },
		{ "ow", required_argument, NULL, 'O' },
		{ "cw", required_argument, NULL, 'C' },
		{ "seed", required_argument, NULL, 's' },
		{ "result", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "order", required_argument, NULL, 'o' },
		{ "constraints", required_argument, NULL, 'c' },
		{ "max-nodes", required_argument, NULL, 'N' },
		{ "max-seconds", required_argument, NULL, 'T' },
		{ "samples", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 'j' },
		{ "proposal", required_argument, NULL, 'p' },
		{ "particles", required_argument, NULL, 'P' },
		{ "exact-budget", required_argument, NULL, 'B' },
		{ "marginals", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 }
	};
	struct sqlift_infer_opts o = { 0 };
	int64_t run_id = 0;
	int c, rc, code;
	char *end;
	sqlift *db;

	optind = 1;
	while ((c = getopt_long(argc, argv, "m:q:f:s:r:v", opts, NULL)) != -1) {
		switch (c) {
		case 'm': o.method = optarg; break;
		case 'q': o.queries = optarg; break;
		case 'f': o.query_file = optarg; break;
		case 'O': o.open_world = optarg; break;
		case 'C': o.closed_world = optarg; break;
		case 'r': o.result_path = optarg; break;
		case 'v': o.verbose = 1; break;
		case 'o': o.order = optarg; break;
		case 'c': o.constraints = optarg; break;
		case 'N':
			errno = 0;
			o.max_nodes = strtoll(optarg, &end, 10);
			if (errno || *end || o.max_nodes <= 0)
				return cli_usage(&cmd_infer, "--max-nodes '%s' is not a "
				    "positive integer", optarg);
			break;
		case 'T':
			errno = 0;
			o.max_seconds = strtod(optarg, &end);
			if (errno || *end || !(o.max_seconds > 0))
				return cli_usage(&cmd_infer, "--max-seconds '%s' is not a "
				    "positive number", optarg);
			break;
		case 'n':
			if ((o.samples = count_arg(optarg)) <= 0)
				return cli_usage(&cmd_infer, "--samples '%s' is not a "
				    "positive integer", optarg);
			break;
		case 'j':
			if (count_arg(optarg) <= 0 || count_arg(optarg) > 256)
				return cli_usage(&cmd_infer, "--threads '%s' is not an "
				    "integer from 1 to 256", optarg);
			o.threads = (int)count_arg(optarg);
			break;
		case 'p': o.proposal = optarg; break;
		case 'P':
			if (count_arg(optarg) <= 0 || count_arg(optarg) > 4096)
				return cli_usage(&cmd_infer, "--particles '%s' is not an "
				    "integer from 1 to 4096", optarg);
			o.particles = (int)count_arg(optarg);
			break;
		case 'M': o.marginals = optarg; break;
		case 'B':
			if ((o.exact_budget = count_arg(optarg)) < 0)
				return cli_usage(&cmd_infer, "--exact-budget '%s' is not a "
				    "non-negative integer", optarg);
			if (o.exact_budget == 0)
				o.exact_budget = -1;
			break;
		case 's':
			errno = 0;
			o.seed = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-')
				return cli_usage(&cmd_infer, "--seed '%s' is not a "
				    "non-negative integer", optarg);
			break;
		default:
			return cli_usage(&cmd_infer, "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage(&cmd_infer, "needs exactly one database");
	if (!o.method)
		return cli_usage(&cmd_infer, "needs --method (exact, lis, "
		    "ground-lis or brute)");
	o.progress = isatty(STDERR_FILENO);
	rc = sqlift_open(argv[optind], 0, &db);
	if (!rc)
		rc = sqlift_infer(db, &o, &run_id);
	if (rc) {
		code = cli_fail(rc, sqlift_errmsg(db));
		sqlift_close(db);
		return code;
	}
	printf("run %lld\n", (long long)run_id);
	sqlift_close(db);
	return EXIT_OK;
}

const struct cli_cmd cmd_infer = {
	"infer", "DB --method M [-q PRED,...] [-f QUERYFILE] [--ow PRED,...] "
	"[--cw PRED,...] [--order O] [--constraints C] [--max-nodes N]\n"
	"       [--max-seconds S] [--samples N] [--threads T] [--proposal P]\n"
	"       [--particles K]\n"
	"       [--exact-budget N] [--marginals M] [--seed N] [-r FILE] [-v]",
	"Runs inference on the model and evidence in DB and records a run: a\n"
	"row in the runs table and the marginals of the query atoms in the\n"
	"marginals view.  Prints the run's id.\n\n"
	"  -m, --method M      exact: lifted, exact (log Z and marginals)\n"
	"                      lis: lifted importance sampling (estimates\n"
	"                      with standard errors, and a trace)\n"
	"                      ground-lis: the same sampler on the ground\n"
	"                      model (every constant its own block)\n"
	"                      brute: exact, by enumerating every world\n"
	"      --order O       exact, lis: branching order: min-table (default),\n"
	"                      population, rel-min-fill, min-fill\n"
	"      --constraints C exact: setineq (default) or normal (every\n"
	"                      constant of the evidence its own block: the\n"
	"                      paper's baseline)\n"
	"      --max-nodes N   exact: stop after N search nodes\n"
	"      --max-seconds S exact: stop after S seconds; lis: sample\n"
	"                      for S seconds (unless --samples is reached)\n"
	"      --samples N     lis: draw N samples (default 1000)\n"
	"      --threads T     lis: T independent streams (default 1); the\n"
	"                      same seed and T give the same numbers\n"
	"      --proposal P    lis: adaptive (default), binomial, uniform\n"
	"      --exact-budget N lis: solve a part exactly when the exact\n"
	"                      search needs at most N nodes (default 10000;\n"
	"                      0: sample every branch)\n"
	"      --marginals M   lis: counts (a group's expected count of\n"
	"                      true atoms, from Z's samples), pairs (sample\n"
	"                      Z with the atom true and false), path (ground\n"
	"                      atoms: from Z's samples) or auto (default:\n"
	"                      counts when a group has 8 atoms or more,\n"
	"                      else pairs for up to 32 groups in small\n"
	"                      parts, else path)\n"
	"  -q, --query LIST    query predicates or atoms, comma-separated\n"
	"  -f, --query-file F  Alchemy query file, one atom per line\n"
	"      --ow LIST       predicates to treat as open-world\n"
	"      --cw LIST       predicates to treat as closed-world\n"
	"  -s, --seed N        seed of the run's random numbers (recorded)\n"
	"  -r, --result FILE   also write Alchemy-style results to FILE\n"
	"  -v, --verbose       print a summary of the run on stderr\n",
	run
};
