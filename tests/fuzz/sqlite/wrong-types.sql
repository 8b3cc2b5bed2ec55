UPDATE constants SET name = x'00414243' WHERE const_id = 1;
UPDATE domains SET const_id = 'abc' WHERE const_id = 2;
UPDATE predicate_args SET type_id = 2.5 WHERE pred_id = 3;
UPDATE formulas SET weight = 'heavy', hard = NULL;
