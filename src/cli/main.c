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

/* The commands, each with what `sqlift help` says of it; each has the
 * page sqlift-NAME(1). */
static const struct {
	const struct cli_cmd *cmd;
	const char *what;
} commands[] = {
	{ &cmd_load, "store a model and evidence in a database" },
	{ &cmd_infer, "run inference and record its marginals" },
	{ &cmd_run, "run a job file: load and infer in one transaction" },
	{ &cmd_info, "print what a database holds" },
	{ &cmd_cubes, "store the evidence as hypercubes" },
	{ &cmd_explain,
	    "print the constrained theory that lifted inference works on" },
	{ &cmd_plot, "draw how a sampling run converged, as a PNG" },
	{ NULL, NULL }
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

/* c's help: usage, text, the rest, and the page that says more. */
static void
help_print(const struct cli_cmd *c)
{
	printf("usage: sqlift %s %s\n\n%s", c->name, c->usage, c->help);
	if (c->help_more)
		c->help_more();
	printf("\nThe whole page: man sqlift-%s\n", c->name);
}

int
cli_help(const struct cli_cmd *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help_print(c);
			return 1;
		}
	}
	return 0;
}

static void
usage(void)
{
	printf("usage: sqlift [--version] [--help] COMMAND [ARGS]\n"
	    "       sqlift help [COMMAND]\n\n"
	    "Lifted inference in Markov logic networks, with evidence and "
	    "results in SQLite.\n\ncommands:\n");
	for (int i = 0; commands[i].cmd; i++)
		printf("  %-8s %s\n", commands[i].cmd->name, commands[i].what);
	printf("\n'sqlift help COMMAND' (or 'sqlift COMMAND --help') prints a "
	    "command's options;\n'man sqlift-COMMAND' has its whole page, "
	    "'man sqlift' the overview.\n");
}

/* sqlift help [COMMAND]: the list of commands, or one command's help. */
static int
help(int argc, char **argv)
{
	if (argc < 3) {
		usage();
		return EXIT_OK;
	}
	if (argc > 3) {
		fprintf(stderr, "sqlift: help: one command at most (usage: "
		    "sqlift help [COMMAND])\n");
		return EXIT_USAGE;
	}
	for (int i = 0; commands[i].cmd; i++)
		if (!strcmp(argv[2], commands[i].cmd->name)) {
			help_print(commands[i].cmd);
			return EXIT_OK;
		}
	fprintf(stderr, "sqlift: help: unknown command '%s'; 'sqlift help' "
	    "lists them\n", argv[2]);
	return EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "sqlift: no command given; 'sqlift --help' lists "
		    "them\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage();
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("sqlift %s\n", sqlift_version());
		return EXIT_OK;
	}
	for (int i = 0; commands[i].cmd; i++)
		if (!strcmp(argv[1], commands[i].cmd->name)) {
			if (cli_help(commands[i].cmd, argc - 1, argv + 1))
				return EXIT_OK;
			return commands[i].cmd->run(argc - 1, argv + 1);
		}
	fprintf(stderr, "sqlift: unknown command '%s'; 'sqlift --help' lists "
	    "them\n", argv[1]);
	return EXIT_USAGE;
}
