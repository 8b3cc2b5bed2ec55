-- evidence.sql: the statements of store/evidence.c (constants, domains
-- and evidence files) and store/replace.c.  Each "-- name: X" section
-- becomes the C string sql_X.

-- name: domain_of
-- store_domains sorts them by name
SELECT c.const_id, c.name FROM domains d JOIN constants c USING (const_id)
WHERE d.type_id = ?1;

-- name: evfile_put
INSERT INTO evidence_files (path, atoms, loaded_at)
VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

-- name: const_name
SELECT name FROM constants WHERE const_id = ?1;

-- name: evidence_all
SELECT atom, truth FROM evidence_atoms;

-- The statements of store/replace.c (load --replace-evidence).

-- name: evfiles_all
SELECT path, atoms FROM evidence_files ORDER BY file_id;

-- name: evfiles_clear
DELETE FROM evidence_files;

-- name: replace_used_create
CREATE TEMP TABLE sqlift_used (
  type_id  INTEGER NOT NULL,
  const_id INTEGER NOT NULL,
  PRIMARY KEY (type_id, const_id)
) WITHOUT ROWID;

-- name: replace_used_put
INSERT OR IGNORE INTO temp.sqlift_used (type_id, const_id) VALUES (?1, ?2);

-- name: replace_domains_prune
DELETE FROM domains WHERE NOT EXISTS (SELECT 1 FROM temp.sqlift_used u
  WHERE u.type_id = domains.type_id AND u.const_id = domains.const_id);

-- name: replace_consts_prune
DELETE FROM constants WHERE const_id NOT IN (SELECT const_id FROM domains);

-- name: replace_used_drop
DROP TABLE temp.sqlift_used;
