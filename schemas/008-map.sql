-- 008-map.sql: schema version 8: MAP runs (issue 25).
-- Applied on top of version 7 by the first command that writes.

-- A run of --method map: the log weight of the world it found (log_z
-- stays NULL), the best upper bound it proved on any world's log weight,
-- and 1 when the two are equal (the world is a MAP world), 0 when not.
-- NULL for the other methods.
ALTER TABLE runs ADD COLUMN map_log_weight REAL;
ALTER TABLE runs ADD COLUMN map_bound REAL;
ALTER TABLE runs ADD COLUMN map_optimal INTEGER;

-- The world of a MAP run: every unknown ground atom of the open
-- predicates (evidence atoms and closed predicates are not repeated),
-- with its truth (1 or 0).  args: the atom's constants as a JSON array,
-- as in run_marginals, for the views map_<predicate>.
CREATE TABLE map_atoms (
  run_id INTEGER NOT NULL,
  predicate TEXT NOT NULL,
  atom TEXT NOT NULL,
  truth INTEGER NOT NULL CHECK (truth IN (0, 1)),
  args TEXT,
  PRIMARY KEY (run_id, atom)
) WITHOUT ROWID;

PRAGMA user_version = 8;
