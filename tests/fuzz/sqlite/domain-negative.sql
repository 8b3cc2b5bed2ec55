WITH RECURSIVE c(i) AS (SELECT 050 UNION ALL SELECT i + 1 FROM c WHERE i < 2100)
INSERT INTO constants SELECT i, 'k' || i FROM c;
INSERT INTO domains SELECT 1, -const_id FROM constants WHERE const_id >= 100;
