#!/usr/bin/env python3
"""cubecheck.py: checks the stored cubes of a database atom by atom, apart
from the cube_atoms view (too slow on Cora and WebKB): every evidence
atom, N random ground atoms and N random atoms on each diagonal (two
arguments of one type equal) must lie in exactly one cube of their
predicate, of their evidence truth (NULL: none).  Cubes are read from
their sides (listed or negated), eq and ne, as sqlift-schema(7) says.

    python3 bench/cubecheck.py DB [N] [PRED...]

Prints "PRED atoms_checked" per predicate and "ok", or the first atom
that fails and exits 1.  Default N 20000; default: every predicate.
"""
import json
import random
import sqlite3
import sys


def main():
    db = sqlite3.connect(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    only = set(sys.argv[3:])
    rng = random.Random(1)
    dom = {}
    for t, c in db.execute("SELECT type_id, const_id FROM domains"):
        dom.setdefault(t, []).append(c)
    preds = db.execute("SELECT pred_id, name, arity, ev_table FROM predicates"
                       " ORDER BY name").fetchall()
    for pid, name, ar, tab in preds:
        if only and name not in only or ar == 0:
            continue
        types = [t for (t,) in db.execute(
            "SELECT type_id FROM predicate_args WHERE pred_id = ? ORDER BY pos",
            (pid,))]
        doms = [dom.get(t, []) for t in types]
        if any(not d for d in doms):
            continue
        cubes = []
        for truth, neg, sides, eq, ne in db.execute(
                "SELECT truth, negated, sides, eq, ne FROM cubes "
                "WHERE pred_id = ?", (pid,)):
            s = [set(x) for x in json.loads(sides)]
            cubes.append((truth, [(neg >> d) & 1 for d in range(ar)], s,
                          json.loads(eq) if eq else [],
                          json.loads(ne) if ne else []))
        # index: a cube under its first listed side's constants
        idx = [dict() for _ in range(ar)]
        rest = []
        for k, (_, negs, s, _, _) in enumerate(cubes):
            d = next((d for d in range(ar) if not negs[d]), None)
            if d is None:
                rest.append(k)
            else:
                for v in s[d]:
                    idx[d].setdefault(v, []).append(k)

        def holds(k, a):
            _, negs, s, eq, ne = cubes[k]
            for d in range(ar):
                if (a[d] in s[d]) == bool(negs[d]):
                    return False
            return all(a[i] == a[j] for i, j in eq) and \
                all(a[i] != a[j] for i, j in ne)

        ev = {}
        cols = ", ".join("a%d" % d for d in range(ar))
        for row in db.execute("SELECT %s, truth FROM %s" % (cols, tab)):
            ev[tuple(row[:ar])] = row[ar]
        atoms = list(ev)
        for _ in range(n):
            atoms.append(tuple(rng.choice(d) for d in doms))
        for i in range(ar):
            for j in range(i + 1, ar):
                if types[i] != types[j]:
                    continue
                for _ in range(n):
                    a = [rng.choice(d) for d in doms]
                    a[j] = a[i]
                    atoms.append(tuple(a))
        for a in atoms:
            cand = set(rest)
            for d in range(ar):
                cand.update(idx[d].get(a[d], ()))
            hit = [k for k in cand if holds(k, a)]
            want = ev.get(a)
            if len(hit) != 1 or cubes[hit[0]][0] != want:
                print("%s%s: in %d cubes %s, evidence %s" % (
                    name, a, len(hit), [cubes[k][0] for k in hit], want))
                sys.exit(1)
        print(name, len(atoms))
    print("ok")


main()
