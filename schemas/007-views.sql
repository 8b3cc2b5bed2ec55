-- 007-views.sql: schema version 7: marginals to join on (issue 21).
-- Applied on top of version 6 by the first command that writes.

-- The constants of a marginal's atom as a JSON array of strings, in
-- argument order (["Anna","Bob"]; a constant written in double quotes
-- without them).  The views marginals_<predicate>, one column per
-- argument, read it; the store creates them with the predicates.
-- sqlift_args() is a function that sqlift registers on its connection:
-- it splits the atom's text, as infer writes it.
ALTER TABLE run_marginals ADD COLUMN args TEXT;
UPDATE run_marginals SET args = sqlift_args(predicate, atom);

PRAGMA user_version = 7;
