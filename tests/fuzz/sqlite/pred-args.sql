UPDATE predicate_args SET pos = 9223372036854775807 WHERE pred_id = 2 AND pos = 1;
INSERT INTO predicate_args VALUES (1, 5, 1);
UPDATE predicate_args SET type_id = 99 WHERE pred_id = 4 AND pos = 2;
