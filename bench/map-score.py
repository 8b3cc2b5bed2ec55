#!/usr/bin/env python3
# map-score.py: the log weight of a MAP world, counted apart from sqlift:
# the model's clauses read here, the domains taken from the evidence file
# and the model's constants, and for each clause its false groundings
# counted by one SQL query (a join over the true atoms of its negative
# literals, NOT EXISTS for its positive ones) in an in-memory SQLite;
# log weight = sum of weight * (groundings - false ones), in exact
# rationals.  The world: the evidence's true atoms and map_atoms' true
# ones of the run (the last, or RUN).
#
#   map-score.py MODEL.mln EVIDENCE.db RESULT.sqlite [RUN]
import re
import sqlite3
import sys
from fractions import Fraction

ATOM = re.compile(r'\s*(!?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*$')


def literals(text):
    """A formula in clause form (l1 v l2 ..., or a ^ b => c v d, maybe
    under EXIST y,z) as the existential variables and a list of
    (negated, pred, args)."""
    text = text.strip()
    m = re.match(r'^EXIST\s+([a-z][A-Za-z0-9_]*(\s*,\s*[a-z][A-Za-z0-9_]*)*)'
                 r'\s+(.*)$', text)
    if m:
        return (set(v.strip() for v in m.group(1).split(',')),
                literals(m.group(3))[1])
    if '=>' in text:
        body, head = text.split('=>')
        lits = [(not n, p, a) for n, p, a in
                (literal(x) for x in body.split('^'))]
        return set(), lits + [literal(x) for x in head.split(' v ')]
    return set(), [literal(x) for x in re.split(r'\s+v\s+', text)]


def literal(text):
    m = ATOM.match(text)
    if not m:
        raise SystemExit('map-score: not a literal: %r' % text)
    return (m.group(1) == '!', m.group(2),
            [a.strip() for a in m.group(3).split(',')])


def is_var(a):
    return a[0].islower()


def main():
    model, evfile, result = sys.argv[1:4]
    run = sys.argv[4] if len(sys.argv) > 4 else None
    types, clauses = {}, []
    for line in open(model):
        line = line.split('//')[0].strip()
        if not line:
            continue
        m = re.match(r'^\*?([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)\)$', line)
        if m and not re.match(r'^-?[0-9.]', line):
            types[m.group(1)] = [t.strip() for t in m.group(2).split(',')]
            continue
        m = re.match(r'^(-?[0-9.eE+-]+)\s+(.*)$', line)
        if m:
            clauses.append((Fraction(m.group(1)), False,
                            literals(m.group(2))))
        elif line.endswith('.'):
            clauses.append((Fraction(0), True, literals(line[:-1])))
        else:
            raise SystemExit('map-score: cannot read %r' % line)
    dom = {t: set() for ts in types.values() for t in ts}
    true = {p: set() for p in types}
    for line in open(evfile):
        line = line.strip()
        if not line:
            continue
        neg, p, args = literal(line)
        for t, a in zip(types[p], args):
            dom[t].add(a)
        if not neg:
            true[p].add(tuple(args))
    for _, _, (_, lits) in clauses:
        for _, p, args in lits:
            for t, a in zip(types[p], args):
                if not is_var(a):
                    dom[t].add(a)
    res = sqlite3.connect(result)
    if run is None:
        run = res.execute("SELECT max(run_id) FROM runs").fetchone()[0]
    for atom, truth in res.execute(
            "SELECT atom, truth FROM map_atoms WHERE run_id = ?", (run,)):
        _, p, args = literal(atom)
        if truth:
            true[p].add(tuple(args))
    db = sqlite3.connect(':memory:')
    for t, cs in dom.items():
        db.execute('CREATE TABLE "d_%s" (c TEXT PRIMARY KEY)' % t)
        db.executemany('INSERT INTO "d_%s" VALUES (?)' % t,
                       [(c,) for c in cs])
    for p, rows in true.items():
        k = len(types[p])
        cols = ', '.join('a%d' % i for i in range(k))
        db.execute('CREATE TABLE "t_%s" (%s)' % (p, cols))
        db.executemany('INSERT INTO "t_%s" VALUES (%s)' % (p, ', '.join(
            '?' * k)), rows)
        for i in range(k):
            db.execute('CREATE INDEX "i_%s_%d" ON "t_%s" (a%d)' %
                       (p, i, p, i))
    total = Fraction(0)
    for w, hard, (ex, lits) in clauses:
        if w == 0 and not hard:
            continue
        frm, where, bind, vtype, params = [], [], {}, {}, []
        for neg, p, args in lits:
            if neg and ex.intersection(args):
                raise SystemExit('map-score: EXIST over a negative literal')
            for t, a in zip(types[p], args):
                if is_var(a) and a not in ex:
                    vtype[a] = t
        for j, (neg, p, args) in enumerate(lits):
            if not neg:
                continue
            frm.append('"t_%s" AS n%d' % (p, j))
            for i, a in enumerate(args):
                col = 'n%d.a%d' % (j, i)
                if not is_var(a):
                    where.append('%s = ?' % col)
                    params.append(a)
                elif a in bind:
                    where.append('%s = %s' % (col, bind[a]))
                else:
                    bind[a] = col
        for v, t in vtype.items():
            if v not in bind:
                frm.append('"d_%s" AS v_%s' % (t, v))
                bind[v] = 'v_%s.c' % v
        for neg, p, args in lits:
            if neg:
                continue
            conds = []
            for i, a in enumerate(args):
                if a in ex:
                    continue  # some value: any row of t_P
                if is_var(a):
                    conds.append('x.a%d = %s' % (i, bind[a]))
                else:
                    conds.append('x.a%d = ?' % i)
                    params.append(a)
            where.append('NOT EXISTS (SELECT 1 FROM "t_%s" AS x WHERE %s)'
                         % (p, ' AND '.join(conds) or '1'))
        sql = 'SELECT count(*) FROM %s%s' % (
            ', '.join(frm) or '(SELECT 1)',
            ' WHERE ' + ' AND '.join(where) if where else '')
        false = db.execute(sql, params).fetchone()[0]
        n = 1
        for t in vtype.values():
            n *= len(dom[t])
        if hard and false:
            print('-inf')
            return
        if not hard:
            total += w * (n - false)
    print('%.6f' % total)


main()
