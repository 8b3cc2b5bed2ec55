#!/usr/bin/env python3
"""log Z of bench/webkb-pageclass.mln on a WebKB evidence file whose
PageClassCourse and PageClassFaculty atoms are unknown (every other
predicate closed-world), computed apart from sqlift: the weight of the
world with every unknown atom false, plus the first-order correction
of the worlds with one unknown atom true.  Exact to the precision
printed when the largest single-flip log ratio is far below 0 (on all
272 Cornell pages it is -81.7: the neglected worlds weigh e^-160).

    python3 bench/webkb-z.py bench/webkb-pageclass.mln EVIDENCE.db

The formulas must be `w A(..) ^ B(..) => C(..)` or `w A(..) => B(..)`,
as in that file; variables range over every page of the evidence."""
import math
import re
import sys

ATOM = re.compile(r'\s*(\w+)\(([^)]*)\)\s*$')
UNKNOWN = ('PageClassCourse', 'PageClassFaculty')


def atom(text):
    m = ATOM.match(text)
    return m.group(1), tuple(a.strip() for a in m.group(2).split(','))


def main(mln, db):
    true, pages = set(), set()
    for line in open(db):
        line = line.split('//')[0].strip()
        if line:
            p, args = atom(line)
            true.add((p,) + args)
            pages.update(args)
    forms = []  # (weight, [(negated, pred, vars)], vars)
    for line in open(mln):
        m = re.match(r'([-0-9.]+)\s+(.*=>.*)', line.split('//')[0].strip())
        if not m:
            continue
        lhs, rhs = m.group(2).split('=>')
        lits = [(True,) + atom(a) for a in lhs.split('^')]
        lits.append((False,) + atom(rhs))
        vs = sorted({v for _, _, a in lits for v in a})
        forms.append((float(m.group(1)), lits, vs))
    pages = sorted(pages)
    flipped = set()

    def sat(lits, env):
        for neg, p, a in lits:
            key = (p,) + tuple(env[v] for v in a)
            t = key in flipped if p in UNKNOWN else key in true
            if t != neg:
                return True
        return False

    def weight(groundings):
        return sum(w for w, lits, env in groundings if sat(lits, env))

    def all_groundings():
        for w, lits, vs in forms:
            if len(vs) == 1:
                for p in pages:
                    yield w, lits, {vs[0]: p}
            else:
                for p in pages:
                    for q in pages:
                        yield w, lits, {vs[0]: p, vs[1]: q}

    def groundings_of(pred, page):
        for w, lits, vs in forms:
            seen = set()
            for _, p, a in lits:
                if p != pred:
                    continue
                if len(vs) == 1:
                    envs = [((vs[0], page),)]
                else:
                    o = vs[1] if a[0] == vs[0] else vs[0]
                    envs = [tuple(sorted(((a[0], page), (o, q))))
                            for q in pages]
                for e in envs:
                    if e not in seen:
                        seen.add(e)
                        yield w, lits, dict(e)

    w0 = weight(all_groundings())
    first, top = 0.0, -math.inf
    for pred in UNKNOWN:
        for page in pages:
            g = list(groundings_of(pred, page))
            before = weight(g)
            flipped.add((pred, page))
            d = weight(g) - before
            flipped.discard((pred, page))
            first += math.exp(d)
            top = max(top, d)
    print('%.6f' % (w0 + math.log1p(first)))
    print('pages %d, all-false %.6f, largest single flip %.2f'
          % (len(pages), w0, top), file=sys.stderr)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
