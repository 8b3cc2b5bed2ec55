-- db.sql: the statements of store/db.c: opening checks and transactions.
-- Each "-- name: X" section becomes the C string sql_X.

-- name: cache_size
-- a bounded page cache; bulk loads insert in sorted chunks
PRAGMA cache_size = -8192;

-- name: application_id
PRAGMA application_id;

-- name: user_version
PRAGMA user_version;

-- name: table_count
SELECT count(*) FROM sqlite_schema;

-- name: begin_write
-- takes the write lock at once, so a locked database fails before any work
BEGIN IMMEDIATE;

-- name: begin_read
BEGIN;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- name: now
SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
