/* cli.h: the sqlift command line: one file per subcommand, each a table
 * entry; exit codes are documented in sqlift(1). */
#ifndef SQLIFT_CLI_H
#define SQLIFT_CLI_H

#include "sqlift.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_INFER = 1,    /* inference impossible: Z = 0 or over a limit */
	EXIT_USAGE = 2,    /* bad command line or option value */
	EXIT_INPUT = 3,    /* malformed or missing input file */
	EXIT_DB = 4,       /* database locked, newer or not sqlift's */
	EXIT_INTERNAL = 5  /* out of memory or a bug */
};

struct cli_cmd {
	const char *name;
	const char *usage;     /* one line */
	const char *help;      /* the rest of --help */
	int (*run)(int argc, char **argv);
	void (*help_more)(void); /* prints the rest of --help, or NULL */
};

extern const struct cli_cmd cmd_load, cmd_infer, cmd_run, cmd_info,
    cmd_cubes, cmd_explain, cmd_plot;

/* SIGINT and SIGTERM stop a sampling run (sqlift_cancel), which keeps
 * its samples; outside sampling, or at a second signal, they kill as by
 * default.  For the commands that infer. */
void cli_signals(void);
/* Prints "sqlift: msg" and returns the exit code for status
 * (SQLIFT_EINTR: 128 + the signal). */
int cli_fail(int status, const char *msg);
int cli_usage(const struct cli_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A log function (sqlift_log_fn): "sqlift: line" on stderr. */
void cli_log(void *arg, const char *line);
/* Handles --help for c: prints and returns 1 when argv asks for it. */
int cli_help(const struct cli_cmd *c, int argc, char **argv);

#endif
