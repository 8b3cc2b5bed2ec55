UPDATE model SET text = 'Smokes(person' || char(10) || '1 Smokes(x(';
