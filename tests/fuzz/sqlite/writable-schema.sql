PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, 'a0 INTEGER', 'a0 TEXT') WHERE name = 'ev_1';
