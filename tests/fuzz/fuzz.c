/* fuzz.c: the helpers of the harnesses (see fuzz.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlift.h"
#include "fuzz.h"

const char fuzz_model[] =
    "person = {Anna, Bob, \"Mr X\"}\n"
    "city = {Rome, Oslo}\n"
    "Smokes(person)\n"
    "Friends(person, person)\n"
    "*Lives(person, city)\n"
    "Trip(person, city, city)\n"
    "1.5 Smokes(x) => Lives(x, Rome)\n"
    "1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"
    "0.5 Lives(x, c) ^ Trip(x, c, d) => !Lives(x, d)\n"
    "-2 EXIST y Friends(x, y) v Trip(x, Oslo, Oslo)\n"
    "Smokes(\"Mr X\").\n";

static const char fuzz_evidence[] =
    "Friends(Anna, Bob)\n!Smokes(Bob)\nLives(Anna, Rome)\n";

static char dir[4096];

static void
cleanup(void)
{
	DIR *d;
	struct dirent *de;

	if (!dir[0] || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(fuzz_path(de->d_name));
	closedir(d);
	rmdir(dir);
}

const char *
fuzz_path(const char *name)
{
	static char paths[4][4096 + 256];
	static int next;
	char *path = paths[next++ % 4];

	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/sqlift-fuzz.XXXXXX",
		    t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			perror(dir);
			abort();
		}
		atexit(cleanup);
	}
	snprintf(path, sizeof paths[0], "%s/%s", dir, name);
	return path;
}

const char *
fuzz_file(const char *name, const void *data, size_t size)
{
	const char *path = fuzz_path(name);
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		perror(path);
		abort();
	}
	return path;
}

struct store *
fuzz_store(void)
{
	static sqlift *db;
	static struct store *s;
	const char *model, *ev;
	int64_t n;

	if (s)
		return s;
	model = fuzz_file("model.mln", fuzz_model, sizeof fuzz_model - 1);
	ev = fuzz_file("seed.db", fuzz_evidence, sizeof fuzz_evidence - 1);
	if (sqlift_open(fuzz_path("fuzz.sqlite"), SQLIFT_OPEN_CREATE, &db) ||
	    sqlift_load(db, model, &ev, 1, 0, &n)) {
		fprintf(stderr, "fuzz_store: %s\n", sqlift_errmsg(db));
		abort();
	}
	sqlift_close(db);
	if (store_open(fuzz_path("fuzz.sqlite"), 0, &s, &(struct err){ 0 })) {
		fprintf(stderr, "fuzz_store: cannot open the store\n");
		abort();
	}
	return s;
}
