/* cmd-plot.c: sqlift plot DB RUN [-o FILE]: the convergence of a sampling
 * run, its log Z estimate with a 95% band and its effective sample size
 * against the samples drawn, as a PNG drawn by gnuplot. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* Whether an executable gnuplot is on PATH, as the shell would find it. */
static int
gnuplot_found(void)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[4096];
	struct stat st;

	if (!path)
		return 0;
	for (p = path;; p = end + 1) {
		size_t len;
		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		/* an empty entry is the current folder */
		if (len == 0)
			snprintf(file, sizeof file, "./gnuplot");
		else
			snprintf(file, sizeof file, "%.*s/gnuplot", (int)len, p);
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(file, X_OK) == 0)
			return 1;
		if (!end)
			return 0;
	}
}

/* Writes v for gnuplot, which reads NaN as an undefined value. */
static void
put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.17g", v);
	else
		fputs(" NaN", f);
}

/* The gnuplot script, data inline; the output name is quoted as a
 * gnuplot single-quoted string, where '' stands for '. */
static void
write_script(FILE *f, const char *out, long long run,
    const struct sqlift_trace_point *pts, size_t n)
{
	int band = 0, ess = 0;

	for (size_t i = 0; i < n; i++) {
		if (pts[i].samples <= 0)
			continue;  /* off a log axis */
		band |= isfinite(pts[i].log_z) && isfinite(pts[i].log_z_stderr);
		ess |= isfinite(pts[i].ess);
	}
	fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
	    "  set terminal pngcairo size 960,600 noenhanced\n"
	    "} else {\n"
	    "  set terminal png size 960,600 noenhanced\n"
	    "}\nset output '", f);
	for (const char *c = out; *c; c++)
		if (*c == '\'')
			fputs("''", f);
		else
			fputc(*c, f);
	fprintf(f, "'\nset title 'sqlift run %lld: convergence of the log Z "
	    "estimate'\n", run);
	fputs("set logscale x\nset xlabel 'samples'\nset ylabel 'log Z'\n"
	    "set grid\nset key below\nset ytics nomirror\n", f);
	if (ess)
		fputs("set y2label 'effective sample size'\nset y2tics\n"
		    "set y2range [0:*]\n", f);
	/* samples, log Z, the band's low and high ends, ESS */
	fputs("$trace << EOD\n", f);
	for (size_t i = 0; i < n; i++) {
		double z = pts[i].log_z, h = 1.96 * pts[i].log_z_stderr;
		if (pts[i].samples <= 0)
			continue;
		fprintf(f, "%lld", (long long)pts[i].samples);
		put_num(f, z);
		put_num(f, z - h);
		put_num(f, z + h);
		put_num(f, pts[i].ess);
		fputc('\n', f);
	}
	fputs("EOD\nplot ", f);
	if (band)
		fputs("$trace using 1:3:4 with filledcurves "
		    "fillcolor rgb '#c6dbef' title 'log Z +/- 1.96 stderr', ", f);
	fputs("$trace using 1:2 with linespoints pointtype 7 pointsize 0.5 "
	    "linecolor rgb '#08519c' title 'log Z'", f);
	if (ess)
		fputs(", $trace using 1:5 axes x1y2 with linespoints dashtype 2 "
		    "pointtype 7 pointsize 0.3 linecolor rgb '#d94801' title 'ESS'",
		    f);
	fputs("\n", f);
}

/* Runs gnuplot on the script, drawing to tmp.  Its error output goes to
 * a pipe read once it has exited (in batch mode gnuplot stops at the
 * first error, so there is little), so that a failure is one line that
 * ends with gnuplot's own last line.  Returns 0 or an exit code. */
static int
gnuplot_run(const char *tmp, const char *out, long long run,
    const struct sqlift_trace_point *pts, size_t n)
{
	char cmd[64], buf[4096], msg[512], why[256] = "";
	void (*sigpipe)(int);
	int fd[2], status, sent;
	size_t got = 0;
	ssize_t k;
	FILE *f;

	if (pipe(fd) != 0)
		return cli_fail(SQLIFT_EINTERNAL, "cannot create a pipe to gnuplot");
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	/* stdout to /dev/null: gnuplot draws there when it cannot open the
	 * output file */
	snprintf(cmd, sizeof cmd, "exec gnuplot >/dev/null 2>&%d", fd[1]);
	/* gnuplot may stop reading early: that is its exit status, not ours */
	sigpipe = signal(SIGPIPE, SIG_IGN);
	f = popen(cmd, "w");
	close(fd[1]);
	if (!f) {
		signal(SIGPIPE, sigpipe);
		close(fd[0]);
		return cli_fail(SQLIFT_EINTERNAL, "cannot start gnuplot");
	}
	write_script(f, tmp, run, pts, n);
	sent = fflush(f) == 0 && !ferror(f);
	status = pclose(f);
	signal(SIGPIPE, sigpipe);
	while ((k = read(fd[0], buf + got, sizeof buf - 1 - got)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((got += (size_t)k) == sizeof buf - 1) {
			/* keep the end, where the error is */
			memmove(buf, buf + got / 2, got - got / 2);
			got -= got / 2;
		}
	}
	close(fd[0]);
	buf[got] = 0;
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (sent)
			return 0;
		snprintf(msg, sizeof msg, "gnuplot stopped reading its script "
		    "for %s", out);
		return cli_fail(SQLIFT_EINPUT, msg);
	}
	/* the last line with more than blanks and gnuplot's caret */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (strspn(line, " \t^") < strlen(line))
			snprintf(why, sizeof why, ": %s", line + strspn(line, " \t"));
	if (status != -1 && WIFEXITED(status))
		snprintf(msg, sizeof msg, "gnuplot failed (exit status %d) to draw "
		    "%s%s", WEXITSTATUS(status), out, why);
	else
		snprintf(msg, sizeof msg, "gnuplot failed to draw %s%s", out, why);
	return cli_fail(SQLIFT_EINPUT, msg);
}

/* Creates an empty file named after base for gnuplot to draw into, with
 * O_EXCL so that a link planted under that name is never followed; its
 * name goes to tmp.  Returns 0 or errno. */
static int
tmp_create(const char *base, char *tmp, size_t len)
{
	int fd = -1, err = EEXIST;

	for (int i = 0; fd < 0 && err == EEXIST && i < 100; i++) {
		if ((size_t)snprintf(tmp, len, "%s.%ld.%d.tmp", base,
		    (long)getpid(), i) >= len)
			return ENAMETOOLONG;
		if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
		    0666)) < 0)
			err = errno;
	}
	if (fd < 0)
		return err;
	close(fd);
	return 0;
}

/* Whether the file tmp holds a whole PNG: gnuplot exits 0 even when the
 * disk fills up under it, leaving the file empty or cut short, and a PNG
 * ends with its IEND chunk. */
static int
png_whole(const char *tmp)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D',
	    0xae, 0x42, 0x60, 0x82 };
	unsigned char end[12];
	FILE *f = fopen(tmp, "rb");
	int ok;

	if (!f)
		return 0;
	ok = fseek(f, -12, SEEK_END) == 0 && fread(end, 1, 12, f) == 12 &&
	    !memcmp(end, iend, 12);
	fclose(f);
	return ok;
}

/* Copies the file tmp to out, a device, a pipe or a link, checking every
 * write and the close.  Returns 0 or errno. */
static int
copy_to(const char *tmp, const char *out)
{
	char buf[8192];
	FILE *in = fopen(tmp, "rb"), *to;
	size_t k;
	int err = 0;

	if (!in)
		return errno;
	if (!(to = fopen(out, "wb"))) {
		err = errno;
		fclose(in);
		return err;
	}
	while (!err && (k = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, k, to) != k)
			err = errno ? errno : EIO;
	if (!err && ferror(in))
		err = EIO;
	if (fflush(to) != 0 && !err)
		err = errno;
	if (fclose(to) != 0 && !err)
		err = errno;
	fclose(in);
	return err;
}

/* Draws into a new temporary beside out and renames it over out, so that
 * a failure leaves no partial PNG behind, as infer does with its result
 * file.  A device, a pipe or a link as out gets the temporary's bytes
 * copied in instead, the temporary living in TMPDIR. */
static int
plot(const char *out, long long run, const struct sqlift_trace_point *pts,
    size_t n)
{
	char tmp[4096], msg[512], base[4096];
	const char *dir;
	struct stat st;
	int code, err, special, cut;

	/* a device, a pipe or a link (/dev/stdout) is written through, not
	 * renamed over */
	special = (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) ||
	    (lstat(out, &st) == 0 && S_ISLNK(st.st_mode));
	if (special && stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(msg, sizeof msg, "%s: is a directory, not a PNG file", out);
		return cli_fail(SQLIFT_EINPUT, msg);
	}
	dir = getenv("TMPDIR");
	if ((size_t)snprintf(base, sizeof base, "%s", out) >= sizeof base ||
	    (special && (size_t)snprintf(base, sizeof base, "%s/sqlift-plot",
	    dir && *dir ? dir : "/tmp") >= sizeof base))
		return cli_usage(&cmd_plot, "-o: file name too long");
	if ((err = tmp_create(base, tmp, sizeof tmp))) {
		snprintf(msg, sizeof msg, "%s: cannot write plot: %s", out,
		    strerror(err));
		return cli_fail(SQLIFT_EINPUT, msg);
	}
	if ((code = gnuplot_run(tmp, out, run, pts, n))) {
		remove(tmp);
		return code;
	}
	if (!(cut = !png_whole(tmp)) && special)
		err = copy_to(tmp, out);
	else if (!cut && rename(tmp, out) != 0)
		err = errno;
	if (cut || err || special)
		remove(tmp);
	if (cut)
		snprintf(msg, sizeof msg, "%s: cannot write plot: gnuplot left an "
		    "empty or cut short PNG (disk full?)", out);
	else if (err)
		snprintf(msg, sizeof msg, "%s: cannot write plot: %s", out,
		    strerror(err));
	return cut || err ? cli_fail(SQLIFT_EINPUT, msg) : EXIT_OK;
}

static int
run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	struct sqlift_trace_point *pts = NULL;
	const char *out = NULL;
	char def[64], msg[128], *end;
	long long id;
	size_t n = 0, k;
	int c, rc, code;
	sqlift *db;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else
			return cli_usage(&cmd_plot, "unknown option");
	}
	if (argc - optind != 2)
		return cli_usage(&cmd_plot, "needs a database and a run");
	errno = 0;
	id = strtoll(argv[optind + 1], &end, 10);
	if (errno || end == argv[optind + 1] || *end || id <= 0)
		return cli_usage(&cmd_plot, "run '%s' is not a run number",
		    argv[optind + 1]);
	if (out && (!*out || strchr(out, '\n')))
		return cli_usage(&cmd_plot, "-o needs a file name on one line");
	if (!out) {
		snprintf(def, sizeof def, "run-%lld.png", id);
		out = def;
	}
	rc = sqlift_open(argv[optind], 0, &db);
	if (!rc)
		rc = sqlift_trace(db, id, &pts, &n);
	if (rc) {
		code = cli_fail(rc, sqlift_errmsg(db));
		sqlift_close(db);
		return code;
	}
	sqlift_close(db);
	for (k = 0; k < n; k++)
		if (pts[k].samples > 0 && isfinite(pts[k].log_z))
			break;
	if (k == n) {
		snprintf(msg, sizeof msg, "run %lld: its trace has no log Z "
		    "estimate to plot", id);
		code = cli_fail(SQLIFT_EUSAGE, msg);
	} else if (!gnuplot_found())
		code = cli_fail(SQLIFT_EINPUT, "gnuplot not found in PATH: install "
		    "gnuplot (Debian: apt-get install gnuplot-nox) to plot");
	else
		code = plot(out, id, pts, n);
	free(pts);
	return code;
}

const struct cli_cmd cmd_plot = {
	"plot", "DB RUN [-o FILE]",
	"Draws the convergence of sampling run RUN of DB as a PNG with gnuplot:\n"
	"the log Z estimate against the samples drawn (log scale), with a band\n"
	"of +/- 1.96 standard errors, and the effective sample size on the\n"
	"right axis, from the table run_trace.  Changes nothing in DB.\n\n"
	"  -o, --output FILE   the PNG to write (default: run-RUN.png)\n",
	run,
	NULL
};
