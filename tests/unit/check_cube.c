/* check_cube.c: the hypercube builder on random evidence over small
 * domains: the cubes cover exactly the true and the false atoms (checked
 * in SQL both ways), are disjoint, and every cube side is a union of the
 * blocks of its type.  Also the migration of a version 1 database. */
#include "evidence/cube.h"
#include "testutil.h"

static int
exec_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

START_TEST(test_random_cubes)
{
	unsigned rs = 12345;

	for (int round = 0; round < 60; round += (int)tu_step()) {
		const char *dbp = tu_file("c.db", NULL);
		struct buf ev;
		const char *evs[1];
		int64_t n;
		sqlite3 *db;
		sqlift *h;
		int np = 2 + round % 7, nq = 1 + round % 4, dens = 1 + round % 9;
		FILE *out = fopen("/dev/null", "w");

		unlink(dbp);
		buf_init(&ev);
		for (int i = 0; i < np; i++) {
			for (int j = 0; j < np; j++) {
				rs = rs * 1103515245u + 12345u;
				if ((rs >> 16) % 10 < (unsigned)dens)
					buf_printf(&ev, "%sR(P%d,P%d)\n",
					    (rs >> 8) % 3 == 0 ? "!" : "", i, j);
			}
			for (int k = 0; k < nq; k++) {
				rs = rs * 1103515245u + 12345u;
				if ((rs >> 16) % 3)
					buf_printf(&ev, "%sT(P%d,Q%d,P%d)\n",
					    (rs >> 9) % 2 ? "!" : "", i, k, (i * 7 + k) % np);
			}
			if (i % 2)
				buf_printf(&ev, "S(P%d)\n", i);
		}
		evs[0] = tu_file("e.db", ev.s ? ev.s : "");
		/* every other round through the SQL splitter of large cubes */
		cube_set_memory_limit(round % 2 ? 0 : 200000);
		buf_free(&ev);
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_int_eq(sqlift_load(h, tu_file("m.mln", "R(p,p)\n"
		    "S(p)\nT(p,q,p)\n1 R(x,y) ^ S(y)\n"), evs, 1, 0, &n), 0);
		ck_assert_msg(sqlift_cubes(h, out) == 0, "%s", sqlift_errmsg(h));
		sqlift_close(h);
		fclose(out);
		ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
		/* every ground atom, from the domains of each argument type */
		ck_assert_int_eq(sqlite3_exec(db, "CREATE TEMP VIEW all_atoms (atom) "
		    "AS SELECT 'R(' || a.name || ',' || b.name || ')' FROM "
		    "constants a JOIN domains da ON da.const_id = a.const_id JOIN "
		    "types ta ON ta.type_id = da.type_id AND ta.name = 'p', constants b "
		    "JOIN domains db ON db.const_id = b.const_id JOIN types tb ON "
		    "tb.type_id = db.type_id AND tb.name = 'p' UNION ALL SELECT "
		    "'S(' || a.name || ')' FROM constants a JOIN domains da ON "
		    "da.const_id = a.const_id JOIN types ta ON ta.type_id = da.type_id "
		    "AND ta.name = 'p' UNION ALL SELECT 'T(' || a.name || ',' || "
		    "q.name || ',' || b.name || ')' FROM constants a JOIN domains da "
		    "ON da.const_id = a.const_id JOIN types ta ON ta.type_id = "
		    "da.type_id AND ta.name = 'p', constants q JOIN domains dq ON "
		    "dq.const_id = q.const_id JOIN types tq ON tq.type_id = dq.type_id "
		    "AND tq.name = 'q', constants b JOIN domains db ON db.const_id = "
		    "b.const_id JOIN types tb ON tb.type_id = db.type_id AND tb.name = "
		    "'p'", NULL, NULL, NULL), SQLITE_OK);
		ck_assert_int_eq(exec_count(db, "SELECT count(*) FROM (SELECT atom, "
		    "truth FROM evidence_atoms EXCEPT SELECT atom, truth FROM "
		    "cube_atoms WHERE truth IS NOT NULL)"), 0);
		ck_assert_int_eq(exec_count(db, "SELECT count(*) FROM (SELECT atom, "
		    "truth FROM cube_atoms WHERE truth IS NOT NULL EXCEPT SELECT atom, "
		    "truth FROM evidence_atoms)"), 0);
		ck_assert_int_eq(exec_count(db, "SELECT coalesce(sum(atoms), 0) FROM "
		    "cubes WHERE truth IS NOT NULL"),
		    exec_count(db, "SELECT count(*) FROM evidence_atoms"));
		/* the unknown cubes are exactly the other ground atoms, listed
		 * here by brute force over the domains */
		ck_assert_int_eq(exec_count(db, "SELECT count(*) FROM ("
		    "SELECT atom FROM cube_atoms WHERE truth IS NULL EXCEPT "
		    "SELECT atom FROM all_atoms EXCEPT SELECT atom FROM "
		    "evidence_atoms)"), 0);
		ck_assert_int_eq(exec_count(db, "SELECT count(*) FROM ("
		    "SELECT atom FROM all_atoms EXCEPT SELECT atom FROM evidence_atoms "
		    "EXCEPT SELECT atom FROM cube_atoms WHERE truth IS NULL)"), 0);
		ck_assert_int_eq(exec_count(db, "SELECT coalesce(sum(atoms), 0) FROM "
		    "cubes"), exec_count(db, "SELECT count(*) FROM all_atoms"));
		/* a cube's atoms are the product of its side lengths (known
		 * cubes list their constants) */
		{
			sqlite3_stmt *st;
			int64_t cube = -1, atoms = 0, prod = 1;
			ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT c.cube_id, "
			    "c.atoms, json_array_length(j.value) FROM cubes c, "
			    "json_each(c.sides) j WHERE c.truth IS NOT NULL ORDER BY 1",
			    -1, &st,
			    NULL), SQLITE_OK);
			while (sqlite3_step(st) == SQLITE_ROW) {
				if (sqlite3_column_int64(st, 0) != cube) {
					ck_assert_int_eq(atoms, cube < 0 ? 0 : prod);
					cube = sqlite3_column_int64(st, 0);
					atoms = sqlite3_column_int64(st, 1);
					prod = 1;
				}
				prod *= sqlite3_column_int64(st, 2);
			}
			ck_assert_int_eq(atoms, cube < 0 ? 0 : prod);
			sqlite3_finalize(st);
		}
		/* a side holding one constant of a block holds all of it */
		ck_assert_int_eq(exec_count(db, "WITH side (cube_id, pos, const_id) "
		    "AS (SELECT c.cube_id, CAST(j.key AS INTEGER), x.value FROM cubes c, "
		    "json_each(c.sides) j, json_each(j.value) x WHERE c.truth IS NOT "
		    "NULL) SELECT count(*) FROM side s JOIN cubes c USING (cube_id) "
		    "JOIN predicate_args a ON a.pred_id = c.pred_id AND a.pos = s.pos "
		    "JOIN blocks b ON b.type_id = a.type_id AND b.const_id = "
		    "s.const_id JOIN blocks o ON o.type_id = b.type_id AND o.block = "
		    "b.block WHERE NOT EXISTS (SELECT 1 FROM side t WHERE t.cube_id = "
		    "s.cube_id AND t.pos = s.pos AND t.const_id = o.const_id)"), 0);
		sqlite3_close(db);
	}
	cube_set_memory_limit(200000);
}
END_TEST

START_TEST(test_migration_from_v1)
{
	const char *dbp = tu_file("v1.db", NULL);
	const char *m = tu_file("m.mln", "S(p)\n");
	const char *evs[1] = { tu_file("e.db", "S(A)\n") };
	int64_t n;
	sqlite3 *db;
	sqlift *h;

	ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_int_eq(sqlift_load(h, m, evs, 1, 0, &n), 0);
	sqlift_close(h);
	/* make it a version 1 database, as an older sqlift left it */
	ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "DROP VIEW cube_atoms; "
	    "DROP TABLE cubes; DROP TABLE blocks; DROP VIEW marginals; "
	    "DROP TABLE run_groups; DROP TABLE run_trace; "
	    "ALTER TABLE runs DROP COLUMN log_z_stderr; ALTER TABLE runs DROP "
	    "COLUMN samples; ALTER TABLE runs DROP COLUMN ess; ALTER TABLE runs "
	    "DROP COLUMN proposal; ALTER TABLE runs DROP COLUMN stats; "
	    "ALTER TABLE runs DROP COLUMN error; "
	    "ALTER TABLE runs DROP COLUMN warnings; DROP VIEW marginals_S; "
	    "DROP VIEW map_S; "
	    "ALTER TABLE runs DROP COLUMN map_log_weight; "
	    "ALTER TABLE runs DROP COLUMN map_bound; "
	    "ALTER TABLE runs DROP COLUMN map_optimal; DROP TABLE map_atoms; "
	    "ALTER TABLE run_marginals DROP COLUMN args; "
	    "ALTER TABLE run_marginals DROP COLUMN group_id; CREATE VIEW "
	    "marginals (run_id, predicate, atom, probability) AS SELECT run_id, "
	    "predicate, atom, probability FROM run_marginals; PRAGMA "
	    "user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(sqlift_open(dbp, 0, &h), 0);
	ck_assert_msg(sqlift_cubes(h, NULL) == 0, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_close(tu_sql_double(dbp, "PRAGMA user_version"),
	    STORE_SCHEMA_VERSION, 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cube_atoms"),
	    1, 0);
	/* new evidence makes the cubes stale: the load drops them */
	evs[0] = tu_file("e2.db", "!S(B)\n");
	ck_assert_int_eq(sqlift_open(dbp, 0, &h), 0);
	ck_assert_int_eq(sqlift_load(h, m, evs, 1, 0, &n), 0);
	sqlift_close(h);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cubes"), 0, 0);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_random_cubes,
		test_migration_from_v1,
	};

	return tu_main("cube", 1, tests, sizeof tests / sizeof *tests);
}
