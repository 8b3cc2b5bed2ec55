UPDATE predicates SET arity = -1 WHERE pred_id = 1; UPDATE predicates SET arity = 0 WHERE pred_id = 4;
