-- store.sql: the statements the store module prepares.  Each section
-- starts with "-- name: X" and becomes the C string sql_X.

-- name: model_get
SELECT text, path, fingerprint FROM model WHERE model_id = 1;

-- name: model_put
INSERT OR REPLACE INTO model (model_id, path, text, fingerprint, loaded_at)
VALUES (1, ?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

-- name: types_all
SELECT type_id, name FROM types ORDER BY type_id;

-- name: type_put
INSERT INTO types (type_id, name) VALUES (?1, ?2);

-- name: preds_all
SELECT pred_id, name, arity, closed_world, ev_table FROM predicates
ORDER BY pred_id;

-- name: pred_args
SELECT a.pos, a.type_id, t.name FROM predicate_args a
JOIN types t USING (type_id) WHERE a.pred_id = ?1 ORDER BY a.pos;

-- name: pred_put
INSERT INTO predicates (pred_id, name, arity, closed_world, ev_table)
VALUES (?1, ?2, ?3, ?4, ?5);

-- name: pred_arg_put
INSERT INTO predicate_args (pred_id, pos, type_id) VALUES (?1, ?2, ?3);

-- name: formula_put
INSERT INTO formulas (line, weight, hard, text) VALUES (?1, ?2, ?3, ?4);

-- name: model_clear
DELETE FROM predicate_args;
DELETE FROM predicates;
DELETE FROM formulas;
DELETE FROM types;

-- name: consts_all
SELECT const_id, name FROM constants;

-- name: const_put
INSERT INTO constants (name) VALUES (?1);

-- name: domains_all
SELECT type_id, const_id FROM domains;

-- name: domain_put
INSERT OR IGNORE INTO domains (type_id, const_id) VALUES (?1, ?2);

-- name: domain_of
SELECT c.const_id, c.name FROM domains d JOIN constants c USING (const_id)
WHERE d.type_id = ?1 ORDER BY c.name;

-- name: domains_orphans
DELETE FROM domains WHERE type_id NOT IN (SELECT type_id FROM types);

-- name: evfile_put
INSERT INTO evidence_files (path, atoms, loaded_at)
VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

-- name: run_put
INSERT INTO runs (method, status, log_z, seed, parameters, queries, job_file,
  model_fingerprint, evidence_fingerprint, unknown_atoms, query_atoms,
  started_at, finished_at, seconds, sqlift_version, stats,
  log_z_stderr, samples, ess, proposal)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,
  strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?13, ?14, ?15, ?16, ?17, ?18, ?19);

-- name: marginal_put
INSERT INTO run_marginals (run_id, predicate, atom, probability, group_id)
VALUES (?1, ?2, ?3, ?4, ?5);

-- name: group_put
INSERT INTO run_groups (run_id, group_id, predicate, atoms, probability,
  stderr)
VALUES (?1, ?2, ?3, ?4, ?5, ?6);

-- name: trace_put
INSERT INTO run_trace (run_id, samples, log_z, log_z_stderr, ess)
VALUES (?1, ?2, ?3, ?4, ?5);

-- name: run_method
SELECT method FROM runs WHERE run_id = ?1;

-- name: trace_all
SELECT samples, log_z, log_z_stderr, ess FROM run_trace WHERE run_id = ?1
ORDER BY samples;

-- name: info_counts
SELECT (SELECT count(*) FROM types), (SELECT count(*) FROM predicates),
  (SELECT count(*) FROM formulas), (SELECT count(*) FROM constants),
  (SELECT count(*) FROM evidence_files), (SELECT count(*) FROM runs);

-- name: info_runs
SELECT run_id, method, status, log_z, finished_at FROM runs
ORDER BY run_id DESC LIMIT 5;

-- name: now
SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
