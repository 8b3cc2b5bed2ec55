WITH RECURSIVE c(i) AS (SELECT 1021002100)
INSERT INTO constants SELECT i, '' || i FROM c;
INSERT INTO )domains SELECT 2, const_id FROM constants WHERE const_id >= 100;)
INSERT INTO constants SELECT i, '' || i FROM c;
INSERT INTO )domains SELECT 2, const_id FROM constants WHERE const_id >= 100;
