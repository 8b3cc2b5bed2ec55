-- 004-lis.sql: schema version 4: lifted importance sampling (issue 5).
-- Applied on top of version 3 by the first command that writes.

-- Sampling methods (lis, ground-lis) estimate log Z: the standard error
-- of the estimate, the number of samples drawn, their effective sample
-- size and the proposal they were drawn from.  All four are NULL for
-- methods that do not sample.
ALTER TABLE runs ADD COLUMN log_z_stderr REAL;
ALTER TABLE runs ADD COLUMN samples INTEGER;
ALTER TABLE runs ADD COLUMN ess REAL;
ALTER TABLE runs ADD COLUMN proposal TEXT;

-- The standard error of a group's estimated marginal; NULL for exact
-- methods.
ALTER TABLE run_groups ADD COLUMN stderr REAL;

-- The convergence of a sampling run: one row per point at which the
-- estimate was recorded, for plots (`sqlift plot`).
CREATE TABLE run_trace (
  run_id       INTEGER NOT NULL REFERENCES runs,
  samples      INTEGER NOT NULL,  -- the estimate uses the first samples
  log_z        REAL,              -- estimate of log Z from them
  log_z_stderr REAL,              -- its standard error
  ess          REAL,              -- their effective sample size
  PRIMARY KEY (run_id, samples)
) WITHOUT ROWID;

-- The view gains the standard error of the atom's group, NULL without
-- a group or for exact methods.
DROP VIEW marginals;
CREATE VIEW marginals (run_id, predicate, atom, probability, group_id,
    stderr) AS
  SELECT m.run_id, m.predicate, m.atom, m.probability, m.group_id, g.stderr
  FROM run_marginals m LEFT JOIN run_groups g
    ON g.run_id = m.run_id AND g.group_id = m.group_id;

PRAGMA user_version = 4;
