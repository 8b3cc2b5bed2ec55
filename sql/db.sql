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

-- name: journal_mode
PRAGMA journal_mode;

-- name: journal_wal
-- kept by the file: readers and the one writer do not wait for each other
PRAGMA journal_mode = WAL;

-- name: sync_normal
-- in WAL mode only: a commit appends to the WAL unsynced; a checkpoint
-- syncs the WAL before it writes the database and the database after,
-- so no crash or power loss can corrupt the file, and the checkpoint of
-- the last connection's close makes the commit durable
PRAGMA synchronous = NORMAL;

-- name: begin_write
-- takes the write lock at once (waiting up to the busy timeout), so that
-- a transaction that reads first cannot find its snapshot stale
BEGIN IMMEDIATE;

-- name: begin_read
BEGIN;

-- name: cubes_shadow
-- temp tables of the same name as main's, which SQLite looks up first:
-- the cubes of a database that must not or cannot be written go there
-- and vanish with the transaction
CREATE TEMP TABLE blocks (
  type_id  INTEGER NOT NULL,
  const_id INTEGER NOT NULL,
  block    INTEGER NOT NULL,
  PRIMARY KEY (type_id, const_id)
) WITHOUT ROWID;
CREATE TEMP TABLE cubes (
  cube_id INTEGER PRIMARY KEY,
  pred_id INTEGER NOT NULL,
  truth   INTEGER,
  atoms   INTEGER NOT NULL,
  negated INTEGER NOT NULL DEFAULT 0,
  sides   TEXT NOT NULL,
  eq      TEXT,
  ne      TEXT
);

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- name: now
SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
