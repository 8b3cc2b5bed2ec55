-- 006-warnings.sql: schema version 6: warnings of a run (issue 21).
-- Applied on top of version 5 by the first command that writes.

-- What a run found suspect but did not stop for (a low effective sample
-- size, formulas of weight 0, a fallback taken): one warning a line,
-- each as printed on stderr without the "sqlift: warning: " prefix, in
-- the order found.  NULL when there is none (never '').
ALTER TABLE runs ADD COLUMN warnings TEXT;

PRAGMA user_version = 6;
