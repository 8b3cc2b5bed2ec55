UPDATE predicates SET arity = 1000000 WHERE pred_id = 2;
