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

-- name: domain_ids
SELECT const_id FROM domains WHERE type_id = ?1 ORDER BY const_id;

-- name: block_put
INSERT INTO blocks (type_id, block, const_id) VALUES (?1, ?2, ?3);

-- name: blocks_put_many
-- followed by BLOCK_ROWS "(?,?,?)" tuples
INSERT INTO blocks (type_id, block, const_id) VALUES

-- name: cubes_of_pred
-- one row per constant of a side, in cube, side and position order
SELECT c.cube_id, c.truth, CAST(j.key AS INTEGER), x.value, c.eq, c.ne
FROM cubes c, json_each(c.sides) j, json_each(j.value) x
WHERE c.pred_id = ?1 AND c.truth IS NOT NULL
ORDER BY c.cube_id, CAST(j.key AS INTEGER), x.key;

-- name: const_by_name
SELECT const_id FROM constants ORDER BY name;

-- name: const_max
SELECT coalesce(max(const_id), 0) FROM constants;

-- name: blocks_of_type
SELECT d.const_id, coalesce(b.block, -1) FROM domains d
JOIN types t USING (type_id)
LEFT JOIN blocks b ON b.type_id = d.type_id AND b.const_id = d.const_id
WHERE t.name = ?1;

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
