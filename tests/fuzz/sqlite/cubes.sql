UPDATE cubes SET sides = '[[';
INSERT INTO cubes VALUES (99, 2, 1, 1, 0, '[[99999999999],[-1]]');
UPDATE blocks SET block = 1 << 40;
