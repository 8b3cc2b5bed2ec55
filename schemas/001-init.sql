-- 001-init.sql: the sqlift database, schema version 1.
-- Applied by `sqlift load` to a new database; PRAGMA user_version tells
-- the version and PRAGMA application_id (0x53514C46, "SQLF") marks the file.
-- Evidence for each predicate lives in its own table ev_<pred_id>
-- (a0, a1, ..., truth) created when the model is stored; the view
-- evidence_atoms is rebuilt then too.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- The model: exactly one row once a model is loaded.
CREATE TABLE model (
  model_id    INTEGER PRIMARY KEY CHECK (model_id = 1),
  path        TEXT NOT NULL,
  text        TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  loaded_at   TEXT NOT NULL
);

CREATE TABLE types (
  type_id INTEGER PRIMARY KEY,
  name    TEXT NOT NULL UNIQUE
);

CREATE TABLE predicates (
  pred_id      INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  arity        INTEGER NOT NULL,
  closed_world INTEGER NOT NULL DEFAULT 0,  -- declared with Tuffy's '*'
  ev_table     TEXT NOT NULL                -- ev_<pred_id>
);

CREATE TABLE predicate_args (
  pred_id INTEGER NOT NULL REFERENCES predicates,
  pos     INTEGER NOT NULL,
  type_id INTEGER NOT NULL REFERENCES types,
  PRIMARY KEY (pred_id, pos)
) WITHOUT ROWID;

-- Formulas as parsed, in canonical text.
CREATE TABLE formulas (
  formula_id INTEGER PRIMARY KEY,
  line       INTEGER NOT NULL,
  weight     REAL,                          -- NULL for hard formulas
  hard       INTEGER NOT NULL,
  text       TEXT NOT NULL
);

CREATE TABLE constants (
  const_id INTEGER PRIMARY KEY,
  name     TEXT NOT NULL UNIQUE
);

-- A type's domain: its declared constants plus those seen in the
-- evidence and in formulas.
CREATE TABLE domains (
  type_id  INTEGER NOT NULL,
  const_id INTEGER NOT NULL,
  PRIMARY KEY (type_id, const_id)
) WITHOUT ROWID;

CREATE TABLE evidence_files (
  file_id   INTEGER PRIMARY KEY,
  path      TEXT NOT NULL,
  atoms     INTEGER NOT NULL,
  loaded_at TEXT NOT NULL
);

-- One row per inference run, to audit and repeat it.
CREATE TABLE runs (
  run_id               INTEGER PRIMARY KEY,
  method               TEXT NOT NULL,
  status               TEXT NOT NULL,
  log_z                REAL,
  seed                 INTEGER NOT NULL,
  parameters           TEXT NOT NULL,
  queries              TEXT NOT NULL,
  job_file             TEXT,
  model_fingerprint    TEXT NOT NULL,
  evidence_fingerprint TEXT NOT NULL,
  unknown_atoms        INTEGER,
  query_atoms          INTEGER,
  started_at           TEXT NOT NULL,
  finished_at          TEXT NOT NULL,
  seconds              REAL NOT NULL,
  sqlift_version       TEXT NOT NULL
);

CREATE TABLE run_marginals (
  run_id      INTEGER NOT NULL REFERENCES runs,
  predicate   TEXT NOT NULL,
  atom        TEXT NOT NULL,
  probability REAL NOT NULL,
  PRIMARY KEY (run_id, atom)
) WITHOUT ROWID;

CREATE VIEW marginals (run_id, predicate, atom, probability) AS
  SELECT run_id, predicate, atom, probability FROM run_marginals;

CREATE VIEW evidence_atoms (predicate, atom, truth) AS
  SELECT NULL, NULL, NULL WHERE 0;

PRAGMA application_id = 1397836870;
PRAGMA user_version = 1;
