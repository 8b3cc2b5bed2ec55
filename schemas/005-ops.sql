-- 005-ops.sql: schema version 5: operations (issue 21).
-- Applied on top of version 4 by the first command that writes.

-- blocks is rebuilt with its key columns first.  SQLite 3.40's
-- integrity_check misreads a NOT NULL column of a WITHOUT ROWID table
-- that is declared between key columns ("NULL value in blocks.block");
-- the data and the key are unchanged.
CREATE TEMP TABLE blocks_old AS SELECT type_id, const_id, block FROM blocks;
DROP TABLE blocks;
CREATE TABLE blocks (
  type_id  INTEGER NOT NULL,
  const_id INTEGER NOT NULL,
  block    INTEGER NOT NULL,
  PRIMARY KEY (type_id, const_id)
) WITHOUT ROWID;
INSERT INTO blocks (type_id, const_id, block)
  SELECT type_id, const_id, block FROM blocks_old;
DROP TABLE temp.blocks_old;

-- A run that fails after it started leaves a row with status 'failed'
-- and its one-line message here (NULL for other runs).
ALTER TABLE runs ADD COLUMN error TEXT;

PRAGMA user_version = 5;
