UPDATE model SET text = 't = {A}' || char(10) || 'Smokes(t, t, t)' || char(10) || 'Nope(t)' || char(10) || '1 Smokes(x, y, A) v Nope(x)' || char(10);
