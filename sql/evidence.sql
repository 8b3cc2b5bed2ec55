-- evidence.sql: the statements of store/evidence.c: constants, domains
-- and evidence files.  Each "-- name: X" section becomes the C string sql_X.

-- name: domain_of
SELECT c.const_id, c.name FROM domains d JOIN constants c USING (const_id)
WHERE d.type_id = ?1 ORDER BY c.name;

-- name: evfile_put
INSERT INTO evidence_files (path, atoms, loaded_at)
VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

-- name: const_name
SELECT name FROM constants WHERE const_id = ?1;

-- name: evidence_all
SELECT atom, truth FROM evidence_atoms;
