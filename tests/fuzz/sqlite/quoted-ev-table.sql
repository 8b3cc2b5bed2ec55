UPDATE predicates SET ev_table = 'ev_1"; DROP TABLE runs; --' WHERE pred_id = 1;
UPDATE predicates SET name = 'Fr"ie''nds]' WHERE pred_id = 2;
