-- 010-cube-constraints.sql: schema version 10: cubes with setineq
-- equality and inequality constraints (issue 23).  Applied on top of
-- version 9 by the first command that writes.

-- A cube holds the atoms of the product of its sides whose arguments
-- satisfy its constraints: eq, a JSON array of pairs of argument indices
-- that are equal ([[0,1]]: a diagonal R(x,x)), ne, pairs that differ
-- (all pairs of a block but the diagonal); NULL: none.  Cubes stored
-- before have neither.
ALTER TABLE cubes ADD COLUMN eq TEXT;
ALTER TABLE cubes ADD COLUMN ne TEXT;

PRAGMA user_version = 10;
