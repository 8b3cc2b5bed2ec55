/* check_cube.c: the hypercube builder on random evidence over small
 * domains: the cubes cover exactly the true and the false atoms (checked
 * in SQL both ways) and are disjoint; the blocks are exactly the classes
 * of constants whose swap maps the evidence onto itself, checked pair by
 * pair by brute force; the cover is canonical (shuffled evidence, other
 * ids: the same cubes) and uses = and != (exact equals brute force).
 * Also the migration of a version 1 database. */
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
		 * cubes without constraints list their constants) */
		{
			sqlite3_stmt *st;
			int64_t cube = -1, atoms = 0, prod = 1;
			ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT c.cube_id, "
			    "c.atoms, json_array_length(j.value) FROM cubes c, "
			    "json_each(c.sides) j WHERE c.truth IS NOT NULL AND c.eq "
			    "IS NULL AND c.ne IS NULL ORDER BY 1",
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
		sqlite3_close(db);
	}
	cube_set_memory_limit(200000);
}
END_TEST

/* Generated evidence for the blocks test: predicates R(p,p), S(p),
 * T(p,q,p), M(p,q); constants p0.. and q0.. numbered within their type. */
#define BT_MAX 256
struct bt_atom {
	int pred, arg[3], truth;
};
static const int bt_arity[4] = { 2, 1, 3, 2 };
static const int bt_type[4][3] = { { 0, 0 }, { 0 }, { 0, 1, 0 }, { 0, 1 } };
static const char *const bt_name[4] = { "R", "S", "T", "M" };

struct bt_ev {
	struct bt_atom v[BT_MAX];
	int n;
};

/* The truth of the atom (-1: not in the evidence). */
static int
bt_truth(const struct bt_ev *ev, const struct bt_atom *x)
{
	for (int i = 0; i < ev->n; i++)
		if (ev->v[i].pred == x->pred && !memcmp(ev->v[i].arg, x->arg,
		    (size_t)bt_arity[x->pred] * sizeof *x->arg))
			return ev->v[i].truth;
	return -1;
}

static void
bt_add(struct bt_ev *ev, int pred, int a, int b, int c, int truth)
{
	struct bt_atom x = { pred, { a, b, c }, truth };

	for (int i = bt_arity[pred]; i < 3; i++)
		x.arg[i] = 0;
	if (ev->n < BT_MAX && bt_truth(ev, &x) < 0)
		ev->v[ev->n++] = x;
}

/* Does swapping constants a and b of type ty map the evidence onto
 * itself?  Every atom's image must be there with its truth; the swap is
 * a bijection, so that is enough. */
static int
bt_swap_keeps(const struct bt_ev *ev, int ty, int a, int b)
{
	for (int i = 0; i < ev->n; i++) {
		struct bt_atom y = ev->v[i];
		for (int k = 0; k < bt_arity[y.pred]; k++)
			if (bt_type[y.pred][k] == ty)
				y.arg[k] = y.arg[k] == a ? b : y.arg[k] == b ? a : y.arg[k];
		if (bt_truth(ev, &y) != ev->v[i].truth)
			return 0;
	}
	return 1;
}

static unsigned
bt_rand(unsigned *rs, unsigned n)
{
	*rs = *rs * 1103515245u + 12345u;
	return (*rs >> 16) % n;
}

/* A domain row whose id names no constant, used by the evidence (a
 * crafted database): cubes stops with "corrupt database", through the
 * in-memory cover and through the SQL splitter alike (whose unknown
 * cubes index their marks by the constants' ranks). */
START_TEST(test_orphan_constant)
{
	const char *dbp = tu_file("o.db", NULL);
	const char *evs[1] = { tu_file("o.txt", "R(A,B)\n!R(B,A)\nR(A,A)\n") };

	for (int round = 0; round < 2; round++) {
		FILE *out = fopen("/dev/null", "w");
		int64_t n;
		sqlite3 *db;
		sqlift *h;
		unlink(dbp);
		cube_set_memory_limit(round ? 0 : 200000);
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_int_eq(sqlift_load(h, tu_file("o.mln", "R(p,p)\n"
		    "1 R(x,y) => R(y,x)\n"), evs, 1, 0, &n), 0);
		sqlift_close(h);
		ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
		ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO domains SELECT "
		    "type_id, 999 FROM types; INSERT INTO ev_1 VALUES (999, "
		    "(SELECT min(const_id) FROM constants), 1)", NULL, NULL, NULL),
		    SQLITE_OK);
		sqlite3_close(db);
		ck_assert_int_eq(sqlift_open(dbp, 0, &h), 0);
		ck_assert_int_ne(sqlift_cubes(h, out), 0);
		ck_assert_msg(strstr(sqlift_errmsg(h), "corrupt database") != NULL,
		    "round %d: %s", round, sqlift_errmsg(h));
		sqlift_close(h);
		fclose(out);
	}
	cube_set_memory_limit(200000);
}
END_TEST

/* Evidence with symmetry to find: diagonals, symmetric pairs, matchings,
 * copies of one constant's evidence, and some noise. */
static void
bt_generate(struct bt_ev *ev, unsigned *rs, int kind, int np, int nq)
{

	ev->n = 0;
	for (int i = 0; i < np; i++) {
		if (kind == 0 || bt_rand(rs, 3) == 0)
			bt_add(ev, 0, i, i, 0, 1);                 /* diagonal */
		if (kind == 1 && i + 1 < np && i % 2 == 0) {
			int t = (int)bt_rand(rs, 2);               /* symmetric */
			bt_add(ev, 0, i, i + 1, 0, t);
			bt_add(ev, 0, i + 1, i, 0, t);
		}
		if (kind == 2) {
			bt_add(ev, 3, i, i % nq, 0, 1);            /* matching */
			bt_add(ev, 2, i, i % nq, i, 1);    /* its diagonal in T */
		}
		if (kind == 3)                             /* a clique, no loops */
			for (int j = 0; j < np / 2; j++)
				if (j != i && i < np / 2)
					bt_add(ev, 0, i, j, 0, 1);
		if (i % 3 == 1)
			bt_add(ev, 1, i, 0, 0, (int)bt_rand(rs, 2));
	}
	for (int r = (int)bt_rand(rs, 4); r > 0; r--) {
		int a = (int)bt_rand(rs, (unsigned)np);
		bt_add(ev, 2, a, (int)bt_rand(rs, (unsigned)nq),
		    (int)bt_rand(rs, (unsigned)np), (int)bt_rand(rs, 2));
		if (bt_rand(rs, 2))
			bt_add(ev, 0, a, (int)bt_rand(rs, (unsigned)np), 0, 0);
	}
}

START_TEST(test_blocks_coarsest)
{
	unsigned rs = 777;

	/* every kind of evidence on every domain size, even when fast */
	for (int round = 0; round < (tu_slow() ? 168 : 16); round++) {
		const char *dbp = tu_file("b.db", NULL);
		int np = 2 + round / 4 * 2 % 7, nq = 1 + round % 3, blk[2][16];
		struct bt_ev ev;
		struct buf txt;
		const char *evs[1];
		sqlite3_stmt *st;
		sqlite3 *db;
		sqlift *h;
		int64_t n;

		bt_generate(&ev, &rs, round % 4, np, nq);
		buf_init(&txt);
		/* every constant in the domains, some without evidence */
		buf_printf(&txt, "p = {");
		for (int i = 0; i < np; i++)
			buf_printf(&txt, "%sp%d", i ? ", " : "", i);
		buf_printf(&txt, "}\nq = {");
		for (int i = 0; i < nq; i++)
			buf_printf(&txt, "%sq%d", i ? ", " : "", i);
		buf_puts(&txt, "}\nR(p,p)\nS(p)\nT(p,q,p)\nM(p,q)\n1 R(x,y) ^ S(y)\n");
		tu_file("m.mln", txt.s);
		buf_clear(&txt);
		for (int i = 0; i < ev.n; i++) {
			const struct bt_atom *x = &ev.v[i];
			buf_printf(&txt, "%s%s(", x->truth ? "" : "!", bt_name[x->pred]);
			for (int k = 0; k < bt_arity[x->pred]; k++)
				buf_printf(&txt, "%s%c%d", k ? "," : "",
				    bt_type[x->pred][k] ? 'q' : 'p', x->arg[k]);
			buf_puts(&txt, ")\n");
		}
		evs[0] = tu_file("e.db", txt.s ? txt.s : "");
		buf_free(&txt);
		unlink(dbp);
		ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
		ck_assert_msg(sqlift_load(h, tu_file("m.mln", NULL), evs, 1, 0,
		    &n) == 0, "%s", sqlift_errmsg(h));
		ck_assert_msg(sqlift_cubes(h, NULL) == 0, "%s", sqlift_errmsg(h));
		sqlift_close(h);
		memset(blk, -1, sizeof blk);
		ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
		ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT t.name, c.name, "
		    "b.block FROM blocks b JOIN constants c USING (const_id) JOIN "
		    "types t USING (type_id)", -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int ty = sqlite3_column_text(st, 0)[0] == 'q';
			int k = atoi((const char *)sqlite3_column_text(st, 1) + 1);
			ck_assert_int_eq(blk[ty][k], -1);
			blk[ty][k] = sqlite3_column_int(st, 2);
		}
		sqlite3_finalize(st);
		sqlite3_close(db);
		for (int ty = 0; ty < 2; ty++) {
			int nc = ty ? nq : np;
			for (int a = 0; a < nc; a++) {
				ck_assert_int_ge(blk[ty][a], 0);
				/* sound and coarsest: one block iff the swap keeps */
				for (int b = a + 1; b < nc; b++)
					ck_assert_msg((blk[ty][a] == blk[ty][b]) ==
					    bt_swap_keeps(&ev, ty, a, b), "round %d type %c: "
					    "%c%d and %c%d in blocks %d and %d", round,
					    "pq"[ty], "pq"[ty], a, "pq"[ty], b, blk[ty][a],
					    blk[ty][b]);
			}
		}
	}
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

/* The text of a query's first column, rows joined by newlines; caller
 * frees. */
static char *
sql_text(const char *dbp, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct buf b;

	buf_init(&b);
	ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK,
	    "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *x = sqlite3_column_text(st, 0);
		buf_printf(&b, "%s\n", x ? (const char *)x : "NULL");
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return b.s ? b.s : strdup("");
}

/* Every cube, constants by name, in cube_id order. */
#define CUBES_BY_NAME "SELECT p.name || ' ' || coalesce(c.truth, 'u') || ' ' " \
	"|| c.atoms || ' ' || c.negated || ' ' || coalesce(c.eq, '-') || ' ' " \
	"|| coalesce(c.ne, '-') || ' ' || (SELECT group_concat((SELECT " \
	"group_concat(k.name, ',') FROM json_each(j.value) x JOIN constants k " \
	"ON k.const_id = x.value), ';') FROM json_each(c.sides) j) FROM cubes " \
	"c JOIN predicates p USING (pred_id) ORDER BY c.cube_id"

/* cube_atoms is exactly the evidence (the ev_ tables, through
 * evidence_atoms): both differences empty, and as many atoms. */
static void
check_exact(const char *dbp)
{
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM (SELECT "
	    "atom, truth FROM evidence_atoms EXCEPT SELECT atom, truth FROM "
	    "cube_atoms WHERE truth IS NOT NULL)"), 0, 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM (SELECT "
	    "atom, truth FROM cube_atoms WHERE truth IS NOT NULL EXCEPT SELECT "
	    "atom, truth FROM evidence_atoms)"), 0, 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cube_atoms "
	    "WHERE truth IS NOT NULL"), tu_sql_double(dbp, "SELECT count(*) "
	    "FROM evidence_atoms"), 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT coalesce(sum(atoms), 0) "
	    "FROM cubes WHERE truth IS NOT NULL"), tu_sql_double(dbp,
	    "SELECT count(*) FROM evidence_atoms"), 0);
}

/* Every ground atom of R(p,p), S(p), T(p,q,p), M(p,q), from the domains. */
#define BT_ALL "WITH p AS (SELECT k.name n FROM constants k JOIN domains " \
	"d USING (const_id) JOIN types t USING (type_id) WHERE t.name = 'p'), " \
	"q AS (SELECT k.name n FROM constants k JOIN domains d USING " \
	"(const_id) JOIN types t USING (type_id) WHERE t.name = 'q'), " \
	"g (atom) AS (SELECT 'R(' || a.n || ',' || b.n || ')' FROM p a, p b " \
	"UNION ALL SELECT 'S(' || a.n || ')' FROM p a UNION ALL SELECT 'T(' " \
	"|| a.n || ',' || b.n || ',' || c.n || ')' FROM p a, q b, p c UNION " \
	"ALL SELECT 'M(' || a.n || ',' || b.n || ')' FROM p a, q b) "

/* The unknown cubes (with their = and !=, sides listed or negated) are
 * exactly the ground atoms without evidence: listed by brute force over
 * the domains, both differences empty, no atom twice, and each cube's
 * atoms column sums to as many. */
static void
check_unknown(const char *dbp)
{
	ck_assert_close(tu_sql_double(dbp, BT_ALL "SELECT count(*) FROM "
	    "(SELECT atom FROM g EXCEPT SELECT atom FROM evidence_atoms EXCEPT "
	    "SELECT atom FROM cube_atoms WHERE truth IS NULL)"), 0, 0);
	ck_assert_close(tu_sql_double(dbp, BT_ALL "SELECT count(*) FROM "
	    "(SELECT atom FROM cube_atoms WHERE truth IS NULL EXCEPT SELECT "
	    "atom FROM g EXCEPT SELECT atom FROM evidence_atoms)"), 0, 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cube_atoms "
	    "WHERE truth IS NULL"), tu_sql_double(dbp, "SELECT count(*) FROM "
	    "(SELECT DISTINCT atom FROM cube_atoms WHERE truth IS NULL)"), 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cube_atoms "
	    "WHERE truth IS NULL"), tu_sql_double(dbp, "SELECT coalesce(sum("
	    "atoms), 0) FROM cubes WHERE truth IS NULL"), 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cube_atoms "
	    "WHERE truth IS NULL"), tu_sql_double(dbp, BT_ALL "SELECT count(*) "
	    "FROM g") - tu_sql_double(dbp, "SELECT count(*) FROM "
	    "evidence_atoms"), 0);
}

/* The cover is canonical: the same evidence with its lines shuffled and
 * the domains declared in reverse (other constant ids) gives the same
 * cubes, constants by name, in the same order, the unknown ones too; and
 * cube_atoms is exactly the evidence and the unknown atoms, each time
 * (diagonals, symmetric pairs, matchings, cliques: unknown cubes with =
 * and != among them). */
START_TEST(test_cover_canonical)
{
	unsigned rs = 4242;
	int constrained = 0, unk_eq = 0, unk_ne = 0, unk_t = 0;

	for (int round = 0; round < (tu_slow() ? 96 : 8); round++) {
		int np = 2 + round % 5, nq = 1 + round % 3, perm[BT_MAX];
		struct bt_ev ev;
		char *dump[2];

		bt_generate(&ev, &rs, round % 4, np, nq);
		for (int i = 0; i < ev.n; i++)
			perm[i] = i;
		for (int i = ev.n - 1; i > 0; i--) {
			int j = (int)bt_rand(&rs, (unsigned)i + 1), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		for (int v = 0; v < 2; v++) {
			const char *dbp = tu_file("cc.db", NULL), *evs[1];
			struct buf txt;
			sqlift *h;
			int64_t n;
			buf_init(&txt);
			buf_puts(&txt, "p = {");
			for (int i = 0; i < np; i++)
				buf_printf(&txt, "%sp%d", i ? ", " : "", v ? np - 1 - i : i);
			buf_puts(&txt, "}\nq = {");
			for (int i = 0; i < nq; i++)
				buf_printf(&txt, "%sq%d", i ? ", " : "", v ? nq - 1 - i : i);
			buf_puts(&txt, "}\nR(p,p)\nS(p)\nT(p,q,p)\nM(p,q)\n"
			    "1 R(x,y) ^ S(y)\n");
			tu_file("cm.mln", txt.s);
			buf_clear(&txt);
			for (int i = 0; i < ev.n; i++) {
				const struct bt_atom *x = &ev.v[v ? perm[i] : i];
				buf_printf(&txt, "%s%s(", x->truth ? "" : "!",
				    bt_name[x->pred]);
				for (int k = 0; k < bt_arity[x->pred]; k++)
					buf_printf(&txt, "%s%c%d", k ? "," : "",
					    bt_type[x->pred][k] ? 'q' : 'p', x->arg[k]);
				buf_puts(&txt, ")\n");
			}
			evs[0] = tu_file("ce.db", txt.s ? txt.s : "");
			buf_free(&txt);
			unlink(dbp);
			ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
			ck_assert_msg(sqlift_load(h, tu_file("cm.mln", NULL), evs, 1, 0,
			    &n) == 0, "%s", sqlift_errmsg(h));
			ck_assert_msg(sqlift_cubes(h, NULL) == 0, "%s",
			    sqlift_errmsg(h));
			sqlift_close(h);
			check_exact(dbp);
			check_unknown(dbp);
			dump[v] = sql_text(dbp, CUBES_BY_NAME);
			constrained += tu_sql_double(dbp, "SELECT count(*) FROM cubes "
			    "WHERE eq IS NOT NULL OR ne IS NOT NULL") > 0;
			unk_eq += tu_sql_double(dbp, "SELECT count(*) FROM cubes WHERE "
			    "truth IS NULL AND eq IS NOT NULL") > 0;
			unk_ne += tu_sql_double(dbp, "SELECT count(*) FROM cubes WHERE "
			    "truth IS NULL AND ne IS NOT NULL") > 0;
			/* T(p,q,p): its diagonal apart (a part with q between) */
			unk_t += tu_sql_double(dbp, "SELECT count(*) FROM cubes c JOIN "
			    "predicates p USING (pred_id) WHERE p.name = 'T' AND "
			    "c.truth IS NULL AND c.eq = '[[0,2]]'") > 0;
		}
		ck_assert_msg(!strcmp(dump[0], dump[1]), "round %d: the cubes "
		    "differ:\n%s---\n%s", round, dump[0], dump[1]);
		free(dump[0]);
		free(dump[1]);
	}
	ck_assert_int_ge(constrained, 4);
	ck_assert_int_ge(unk_eq, 2);
	ck_assert_int_ge(unk_ne, 2);
	ck_assert_int_ge(unk_t, 1);
}
END_TEST

/* The unknown atoms of Same(p,p) and Knows(p,p) over p = A..E are the
 * 25 pairs of each less its evidence: by brute force, both ways. */
static void
check_unknown_same_knows(const char *dbp)
{
#define SK_ALL "WITH p AS (SELECT name n FROM constants), g (atom) AS " \
	"(SELECT x || '(' || a.n || ',' || b.n || ')' FROM p a, p b, " \
	"(SELECT 'Same' x UNION ALL SELECT 'Knows')) "
	ck_assert_close(tu_sql_double(dbp, SK_ALL "SELECT count(*) FROM (SELECT "
	    "atom FROM g EXCEPT SELECT atom FROM evidence_atoms EXCEPT SELECT "
	    "atom FROM cube_atoms WHERE truth IS NULL)"), 0, 0);
	ck_assert_close(tu_sql_double(dbp, SK_ALL "SELECT count(*) FROM (SELECT "
	    "atom FROM cube_atoms WHERE truth IS NULL AND predicate IN ('Same', "
	    "'Knows') EXCEPT SELECT atom FROM g EXCEPT SELECT atom FROM "
	    "evidence_atoms)"), 0, 0);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cube_atoms "
	    "WHERE truth IS NULL AND predicate IN ('Same', 'Knows')"), 50 - 11, 0);
#undef SK_ALL
}

/* setineq constraints in the cubes: a diagonal over two blocks is one
 * cube x = y, all pairs of a block but the diagonal one cube x != y; the
 * theory reads them: exact equals brute force, log Z and marginals. */
START_TEST(test_cover_constraints)
{
	const char *dbp = tu_file("k.db", NULL), *evs[1];
	struct sqlift_infer_opts o = { 0 };
	char *txt;
	int64_t n, run;
	sqlift *h;

	evs[0] = tu_file("k.txt", "Same(A,A)\nSame(B,B)\nSame(C,C)\n"
	    "Same(D,D)\nSame(E,E)\nKnows(A,B)\nKnows(A,C)\nKnows(B,A)\n"
	    "Knows(B,C)\nKnows(C,A)\nKnows(C,B)\nSmokes(D)\n");
	ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_msg(sqlift_load(h, tu_file("k.mln", "p = {A, B, C, D, E}\n"
	    "Same(p,p)\nKnows(p,p)\nSmokes(p)\n"
	    "1.5 Knows(x,y) ^ Smokes(x) => Smokes(y)\n"
	    "0.7 Same(x,y) ^ Smokes(x) => Smokes(y)\n-0.4 Smokes(x)\n"),
	    evs, 1, 0, &n) == 0, "%s", sqlift_errmsg(h));
	ck_assert_msg(sqlift_cubes(h, NULL) == 0, "%s", sqlift_errmsg(h));
	check_exact(dbp);
	txt = sql_text(dbp, "SELECT p.name || ' ' || c.atoms || ' ' || "
	    "coalesce(c.eq, '-') || ' ' || coalesce(c.ne, '-') FROM cubes c "
	    "JOIN predicates p USING (pred_id) WHERE c.truth = 1 AND p.name IN "
	    "('Same', 'Knows') ORDER BY p.name");
	ck_assert_str_eq(txt, "Knows 6 - [[0,1]]\nSame 5 [[0,1]] -\n");
	free(txt);
	/* the unknown atoms by parts: Same's all pairs but the diagonal, one
	 * cube x != y (as products it took 5); Knows's x = y, and x != y as
	 * A..C by D, E and D, E by all but the diagonal (4 as products) */
	check_unknown_same_knows(dbp);
	txt = sql_text(dbp, "SELECT p.name || ' ' || c.atoms || ' ' || "
	    "coalesce(c.eq, '-') || ' ' || coalesce(c.ne, '-') || ' ' || "
	    "c.negated FROM cubes c JOIN predicates p USING (pred_id) WHERE "
	    "c.truth IS NULL AND p.name IN ('Same', 'Knows') ORDER BY p.name, "
	    "c.cube_id");
	ck_assert_str_eq(txt, "Knows 6 - - 2\nKnows 8 - [[0,1]] 3\n"
	    "Knows 5 [[0,1]] - 3\nSame 20 - [[0,1]] 3\n");
	free(txt);
	o.method = "brute";
	o.queries = "Smokes";
	ck_assert_msg(sqlift_infer(h, &o, &run) == 0, "%s", sqlift_errmsg(h));
	o.method = "exact";
	ck_assert_msg(sqlift_infer(h, &o, &run) == 0, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	ck_assert_close(tu_sql_double(dbp, "SELECT log_z FROM runs WHERE "
	    "run_id = 1"), tu_sql_double(dbp, "SELECT log_z FROM runs WHERE "
	    "run_id = 2"), 1e-9);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM marginals a "
	    "JOIN marginals b USING (atom) WHERE a.run_id = 1 AND b.run_id = 2 "
	    "AND abs(a.probability - b.probability) < 1e-9"), 5, 0);
}
END_TEST

/* A predicate of 36 arguments: its unknown cubes negate sides past the
 * 32nd (a 64-bit negated set); each cube without constraints holds the
 * product of its sides' sizes (a negated side: the domain's other
 * constants), and all of them the 2^36 ground atoms. */
START_TEST(test_wide_negated)
{
	const char *dbp = tu_file("w.db", NULL), *evs[1];
	struct buf m, ev;
	int64_t n;
	sqlift *h;

	buf_init(&m);
	buf_init(&ev);
	buf_puts(&m, "p = {A, B}\nW(p");
	buf_puts(&ev, "W(A");
	for (int i = 1; i < 36; i++) {
		buf_puts(&m, ",p");
		buf_puts(&ev, i == 35 ? ",B" : ",A");
	}
	buf_puts(&m, ")\n");
	buf_puts(&ev, ")\n");
	evs[0] = tu_file("w.txt", ev.s);
	ck_assert_int_eq(sqlift_open(dbp, SQLIFT_OPEN_CREATE, &h), 0);
	ck_assert_msg(sqlift_load(h, tu_file("w.mln", m.s), evs, 1, 0, &n) == 0,
	    "%s", sqlift_errmsg(h));
	ck_assert_msg(sqlift_cubes(h, NULL) == 0, "%s", sqlift_errmsg(h));
	sqlift_close(h);
	buf_free(&m);
	buf_free(&ev);
	ck_assert_close(tu_sql_double(dbp, "SELECT sum(atoms) FROM cubes"),
	    68719476736.0, 0);
	ck_assert(tu_sql_double(dbp, "SELECT count(*) FROM cubes WHERE "
	    "negated >> 32 <> 0") >= 1);
	ck_assert_close(tu_sql_double(dbp, "SELECT count(*) FROM cubes c WHERE "
	    "c.eq IS NULL AND c.ne IS NULL AND c.atoms <> (SELECT round(exp(sum("
	    "ln(CASE WHEN (c.negated >> j.key) & 1 THEN 2 - json_array_length("
	    "j.value) ELSE json_array_length(j.value) END)))) FROM json_each("
	    "c.sides) j)"), 0, 0);
}
END_TEST

int
main(void)
{
	const TTest *const tests[] = {
		test_random_cubes,
		test_orphan_constant,
		test_blocks_coarsest,
		test_migration_from_v1,
		test_cover_canonical,
		test_cover_constraints,
		test_wide_negated,
	};

	return tu_main("cube", 1, tests, sizeof tests / sizeof *tests);
}
