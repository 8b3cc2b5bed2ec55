/* main.c: dispatches `sqlift COMMAND ...` to the command table, prints
 * errors once as "sqlift: message" and maps statuses to exit codes. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* The signal that stopped a sampling run, for the exit code. */
static volatile sig_atomic_t cli_signal;

static void
on_signal(int sig)
{
	if (sqlift_cancel()) {
		cli_signal = sig;
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void
cli_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static const struct cli_cmd *const commands[] = {
	&cmd_load, &cmd_infer, &cmd_run, &cmd_info, &cmd_cubes, &cmd_explain,
	&cmd_plot, NULL
};

int
cli_fail(int status, const char *msg)
{
	fprintf(stderr, "sqlift: %s\n", msg);
	switch (status) {
	case SQLIFT_OK:
		return EXIT_OK;
	case SQLIFT_EZERO:
	case SQLIFT_ELIMIT:
		return EXIT_INFER;
	case SQLIFT_EUSAGE:
		return EXIT_USAGE;
	case SQLIFT_EINPUT:
		return EXIT_INPUT;
	case SQLIFT_EDB:
		return EXIT_DB;
	case SQLIFT_EINTR:
		return 128 + (cli_signal ? cli_signal : SIGINT);
	default:
		return EXIT_INTERNAL;
	}
}

int
cli_usage(const struct cli_cmd *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sqlift: %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* one line: the synopsis's line breaks and indents become a space */
	fprintf(stderr, " (usage: sqlift %s ", c->name);
	for (const char *u = c->usage; *u; u++) {
		if (*u != '\n') {
			fputc(*u, stderr);
			continue;
		}
		while (u[1] == ' ')
			u++;
		fputc(' ', stderr);
	}
	fputs(")\n", stderr);
	return EXIT_USAGE;
}

void
cli_log(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "sqlift: %s\n", line);
}

int
cli_help(const struct cli_cmd *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: sqlift %s %s\n\n%s", c->name, c->usage, c->help);
			if (c->help_more)
				c->help_more();
			return 1;
		}
	}
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: sqlift [--version] [--help] COMMAND [ARGS]\n\n"
	    "Lifted inference in Markov logic networks, with evidence and "
	    "results in SQLite.\n\ncommands:\n");
	for (int i = 0; commands[i]; i++)
		fprintf(f, "  %-6s %s\n", commands[i]->name, commands[i]->usage);
	fprintf(f, "\n'sqlift COMMAND --help' tells more; see sqlift(1).\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "sqlift: no command given; 'sqlift --help' lists "
		    "them\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("sqlift %s\n", sqlift_version());
		return EXIT_OK;
	}
	for (int i = 0; commands[i]; i++)
		if (!strcmp(argv[1], commands[i]->name)) {
			if (cli_help(commands[i], argc - 1, argv + 1))
				return EXIT_OK;
			return commands[i]->run(argc - 1, argv + 1);
		}
	fprintf(stderr, "sqlift: unknown command '%s'; 'sqlift --help' lists "
	    "them\n", argv[1]);
	return EXIT_USAGE;
}
