-- 003-exact.sql: schema version 3: exact lifted inference (issue 4).
-- Applied on top of version 2 by the first command that writes.

-- What the engine did in a run, as a JSON object (nodes, cache_hits,
-- decompositions, powers, binomials, groundings, largest_grounding,
-- order, constraints); NULL for methods without such counts.
ALTER TABLE runs ADD COLUMN stats TEXT;

-- Lifted runs compute one marginal per group of interchangeable query
-- atoms; run_marginals names the group of each ground atom.
CREATE TABLE run_groups (
  run_id      INTEGER NOT NULL REFERENCES runs,
  group_id    INTEGER NOT NULL,
  predicate   TEXT NOT NULL,
  atoms       INTEGER NOT NULL,
  probability REAL NOT NULL,
  PRIMARY KEY (run_id, group_id)
) WITHOUT ROWID;

ALTER TABLE run_marginals ADD COLUMN group_id INTEGER;

DROP VIEW marginals;
CREATE VIEW marginals (run_id, predicate, atom, probability, group_id) AS
  SELECT run_id, predicate, atom, probability, group_id FROM run_marginals;

PRAGMA user_version = 3;
