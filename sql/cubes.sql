-- cubes.sql: the statements of store/cubes.c with a fixed text: the cube
-- sides of the current cube, storing cubes and blocks, and reading them
-- back.  The queries on one predicate's ev_ table are built in C, since
-- they name its table.  Each "-- name: X" section becomes the C string sql_X.

-- name: cube_side_table
CREATE TEMP TABLE IF NOT EXISTS cube_side (dim INTEGER NOT NULL,
  const_id INTEGER NOT NULL, PRIMARY KEY (dim, const_id)) WITHOUT ROWID;

-- name: cube_side_put
INSERT INTO temp.cube_side VALUES (?1, ?2);

-- name: cube_side_clear
DELETE FROM temp.cube_side;

-- name: cube_put
INSERT INTO cubes (pred_id, truth, atoms, negated, sides, eq, ne)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- name: cubes_clear
DELETE FROM cubes;
DELETE FROM blocks;

-- name: cubes_key_clear
DELETE FROM meta WHERE key = 'cubes_key';

-- name: cubes_key_put
-- the cubes key (store_evidence_fingerprint) of the evidence, domains
-- and catalogue the stored cubes and blocks were built from
INSERT OR REPLACE INTO meta (key, value) VALUES ('cubes_key', ?1);

-- name: cubes_key_get
SELECT value FROM meta WHERE key = 'cubes_key';

-- name: domain_ids
-- a row of an id no constant can have (negative, past the largest) is in
-- no domain, as a join with constants has it
SELECT const_id FROM domains WHERE type_id = ?1
AND const_id BETWEEN 0 AND (SELECT coalesce(max(const_id), -1) FROM constants)
ORDER BY const_id;

-- name: domains_by_type
-- every row, in the primary key's order (each type's ids ascending, as
-- domain_ids gives them)
SELECT type_id, const_id FROM domains ORDER BY type_id, const_id;

-- name: block_put
INSERT INTO blocks (type_id, block, const_id) VALUES (?1, ?2, ?3);

-- name: blocks_put_many
-- followed by BLOCK_ROWS "(?,?,?)" tuples
INSERT INTO blocks (type_id, block, const_id) VALUES

-- name: cubes_of_pred
-- the known cubes of a predicate in cube order, with their constraints;
-- store_cubes_each parses their sides
SELECT cube_id, truth, sides, eq, ne FROM cubes
WHERE pred_id = ?1 AND truth IS NOT NULL ORDER BY cube_id;

-- name: const_by_name
SELECT const_id FROM constants ORDER BY name;

-- name: blocks_of_type
-- the blocks of a type's constants (a constant of its domain without a
-- row here has none: store_blocks_each says -1)
SELECT const_id, block FROM blocks
WHERE type_id = (SELECT type_id FROM types WHERE name = ?1);

-- name: sig_table
-- one row per constant and evidence atom it occurs in: the atom with the
-- constant written *, the same type's other constants @id, others id
CREATE TEMP TABLE IF NOT EXISTS sig_entry (type_id INTEGER NOT NULL,
  const_id INTEGER NOT NULL, entry TEXT NOT NULL,
  PRIMARY KEY (type_id, const_id, entry)) WITHOUT ROWID;
DELETE FROM temp.sig_entry;

-- name: sig_rows
SELECT type_id, const_id, entry FROM temp.sig_entry
ORDER BY type_id, const_id, entry;

-- name: sig_clear
DELETE FROM temp.sig_entry;
