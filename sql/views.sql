-- views.sql: the statements of store/views.c: the per-predicate views
-- of the marginals and of the MAP worlds.  Each "-- name: X" section becomes the C string sql_X.

-- name: views_named
-- every object whose name a predicate's view could take (LIKE ignores
-- ASCII case, as SQL names do)
SELECT name, type, sql FROM sqlite_schema
WHERE name LIKE 'marginals!_%' ESCAPE '!' OR name LIKE 'map!_%' ESCAPE '!';
