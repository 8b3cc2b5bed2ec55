-- 008-reserved.sql: schema version 8, reserved for helper "map"'s
-- migration (issue 20's session of 2026-11-26); this placeholder changes
-- nothing and is replaced by it at the merge.
PRAGMA user_version = 8;
