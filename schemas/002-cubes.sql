-- 002-cubes.sql: schema version 2: evidence as hypercubes (issue 3).
-- Applied on top of version 1 by the first command that writes.
-- `sqlift cubes DB` fills these tables; the view cube_atoms is rebuilt
-- then, as a UNION over the predicates like evidence_atoms.

-- The partition of each type's domain into blocks: constants that every
-- cube side treats alike.
CREATE TABLE blocks (
  type_id  INTEGER NOT NULL,
  block    INTEGER NOT NULL,
  const_id INTEGER NOT NULL,
  PRIMARY KEY (type_id, const_id)
) WITHOUT ROWID;

-- Disjoint hypercubes per predicate and truth (1 true, 0 false, NULL
-- unknown): each is the product of its sides, stored in sides as a JSON
-- array with one array of constant ids per argument ([[3,7],[12]]), one
-- row per cube; json_each expands them.  Bit j of negated set: the side
-- of argument j is every constant of its type's domain except those
-- listed (unknown atoms are the complement of the known ones, so their
-- sides are mostly of that kind).
CREATE TABLE cubes (
  cube_id INTEGER PRIMARY KEY,
  pred_id INTEGER NOT NULL,
  truth   INTEGER,
  atoms   INTEGER NOT NULL,
  negated INTEGER NOT NULL DEFAULT 0,
  sides   TEXT NOT NULL
);

CREATE VIEW cube_atoms (predicate, truth, atom) AS
  SELECT NULL, NULL, NULL WHERE 0;

PRAGMA user_version = 2;
