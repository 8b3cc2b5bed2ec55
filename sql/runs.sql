-- runs.sql: the statements of store/runs.c: runs, their marginals,
-- groups and traces, and the summary of `sqlift info`.  Each
-- "-- name: X" section becomes the C string sql_X.

-- name: run_put
-- run_id: one past every id in runs and in the tables that hang off it,
-- so the id of a run deleted by hand is never given again (its rows left
-- in run_marginals, run_groups or run_trace would otherwise clash).
INSERT INTO runs (run_id, method, status, log_z, seed, parameters, queries,
  job_file, model_fingerprint, evidence_fingerprint, unknown_atoms,
  query_atoms, started_at, finished_at, seconds, sqlift_version, stats,
  log_z_stderr, samples, ess, proposal, error, warnings, map_log_weight,
  map_bound, map_optimal)
VALUES (coalesce((SELECT max(m) FROM (
    SELECT max(run_id) AS m FROM runs
    UNION ALL SELECT max(run_id) FROM run_marginals
    UNION ALL SELECT max(run_id) FROM run_groups
    UNION ALL SELECT max(run_id) FROM run_trace
    UNION ALL SELECT max(run_id) FROM map_atoms)), 0) + 1,
  ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,
  strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?13, ?14, ?15, ?16, ?17, ?18, ?19,
  ?20, ?21, ?22, ?23, ?24);

-- name: marginal_put
-- args: the atom's constants, for the views marginals_<predicate>
INSERT INTO run_marginals (run_id, predicate, atom, probability, group_id,
  args)
VALUES (?1, ?2, ?3, ?4, ?5, sqlift_args(?2, ?3));

-- name: map_atom_put
INSERT INTO map_atoms (run_id, predicate, atom, truth, args)
VALUES (?1, ?2, ?3, ?4, sqlift_args(?2, ?3));

-- name: group_put
INSERT INTO run_groups (run_id, group_id, predicate, atoms, probability,
  stderr, rhat)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- name: trace_put
INSERT INTO run_trace (run_id, samples, log_z, log_z_stderr, ess)
VALUES (?1, ?2, ?3, ?4, ?5);

-- name: trace_chain_put
INSERT INTO run_trace (run_id, chain, samples, seconds, estimate)
VALUES (?1, ?2, ?3, ?4, ?5);

-- name: run_method
SELECT method FROM runs WHERE run_id = ?1;

-- name: trace_all
-- (lis's: one point per samples; a gibbs run's have no log Z)
SELECT samples, log_z, log_z_stderr, ess FROM run_trace WHERE run_id = ?1
ORDER BY samples;

-- name: info_counts
SELECT (SELECT count(*) FROM types), (SELECT count(*) FROM predicates),
  (SELECT count(*) FROM formulas), (SELECT count(*) FROM constants),
  (SELECT count(*) FROM evidence_files), (SELECT count(*) FROM runs);

-- name: info_runs
SELECT run_id, method, status, log_z, finished_at FROM runs
ORDER BY run_id DESC LIMIT 5;

-- name: info_runs_warned
-- info_runs with the number of warnings of each run (version 6 on).
SELECT run_id, method, status, log_z, finished_at,
  CASE WHEN warnings IS NULL THEN 0
  ELSE length(warnings) - length(replace(warnings, char(10), '')) + 1 END
FROM runs ORDER BY run_id DESC LIMIT 5;
