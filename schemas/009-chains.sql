-- 009-chains.sql: schema version 9: samplers of several chains (gibbs,
-- blocked-gibbs; issue 24).  Applied on top of version 8 by the first
-- command that writes.

-- The trace gains the chain of each point (0 for lis, which has one
-- trace), the seconds since sampling began, and the chain's running
-- estimate of the first query group's marginal (NULL for lis); the key
-- takes the chain.
CREATE TABLE run_trace_new (
  run_id       INTEGER NOT NULL REFERENCES runs,
  chain        INTEGER NOT NULL DEFAULT 0,
  samples      INTEGER NOT NULL,  -- lis: samples; gibbs: sweeps after
                                  -- the burn-in
  log_z        REAL,
  log_z_stderr REAL,
  ess          REAL,
  seconds      REAL,
  estimate     REAL,
  PRIMARY KEY (run_id, chain, samples)
) WITHOUT ROWID;
INSERT INTO run_trace_new (run_id, chain, samples, log_z, log_z_stderr, ess)
  SELECT run_id, 0, samples, log_z, log_z_stderr, ess FROM run_trace;
DROP TABLE run_trace;
ALTER TABLE run_trace_new RENAME TO run_trace;

-- The Gelman-Rubin R-hat of a group's marginal across the chains; NULL
-- for methods of one chain or stream.
ALTER TABLE run_groups ADD COLUMN rhat REAL;

PRAGMA user_version = 9;
