-- model.sql: the statements of store/model.c: the model, its types,
-- predicates and formulas, and the catalogue read at each transaction.
-- Each section starts with "-- name: X" and becomes the C string sql_X.

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

-- name: domains_orphans
DELETE FROM domains WHERE type_id NOT IN (SELECT type_id FROM types);
