DELETE FROM predicate_args WHERE pred_id = 4 AND pos = 1;
DELETE FROM types WHERE type_id = 2;
DELETE FROM constants WHERE const_id = 3;
