/* cmd-cubes.c: sqlift cubes DB */
#include <stdio.h>

#include "cli/cli.h"

static int
run(int argc, char **argv)
{
	int rc, code;
	sqlift *db;

	if (argc != 2)
		return cli_usage(&cmd_cubes, "needs exactly one database");
	rc = sqlift_open(argv[1], 0, &db);
	if (!rc && sqlift_readonly(db))
		fprintf(stderr, "sqlift: %s: read-only: the cubes are printed, not "
		    "stored\n", argv[1]);
	if (!rc)
		rc = sqlift_cubes(db, stdout);
	code = rc ? cli_fail(rc, sqlift_errmsg(db)) : EXIT_OK;
	sqlift_close(db);
	return code;
}

const struct cli_cmd cmd_cubes = {
	"cubes", "DB",
	"(Re)builds the hypercubes of the evidence in DB: each predicate's true\n"
	"and false atoms as unions of disjoint products of sets of constants,\n"
	"and the blocks of each type's domain.  Prints per predicate the atoms,\n"
"cubes and atoms per cube.  The view cube_atoms expands the cubes.\n"
	"A DB that cannot be written gets them printed, not stored.\n",
	run,
	NULL
};
