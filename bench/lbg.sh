#!/bin/sh
# lbg.sh: the models of Venugopal and Gogate (NIPS 2012, section 5) for
# issue 24 item 7: M1 [R(x) v S(x,y)], [S(x,y) v T(y,z)]; M2 smokers,
# asthma and cancer; M3 [R(x,y) v S(y,z)], [S(y,z) v T(z,u)]; M4 the
# WebKB MLN (bench/webkb-pageclass.mln's formulas); weights picked by
# hand (the paper gives none); 10% of the ground atoms observed, each
# true or false at random (fixed seed).  For each size: seconds per 100
# sweeps of gibbs and blocked-gibbs (one chain, no burn-in, SWEEPS sweeps
# scaled) and per 100 samples of lis, from runs.seconds less the
# grounding (stats.ground_seconds) or the theory's building
# (stats.theory_seconds), side by side; "stop" past LIMIT seconds (the
# whole run).  lbg itself is not built yet (see docs/internals/gibbs.md).
#
#   SQLIFT=path/to/sqlift sh bench/lbg.sh [model ...] >>bench/results-lbg.md
# Knobs: LBG_SIZES (5 25 50 100), SWEEPS (10), LIMIT (60 s), MEM (ulimit
# -v, 4000000 KB).
set -u

SQLIFT=${SQLIFT:-./sqlift}
SIZES=${LBG_SIZES:-5 25 50 100}
SWEEPS=${SWEEPS:-10}
LIMIT=${LIMIT:-60}
MEM=${MEM:-4000000}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-lbg.XXXXXX")
trap 'rm -rf "$dir"' EXIT

model() {  # M n: the model file
	case $1 in
	M1) printf 'obj = {%s}\nR(obj)\nS(obj, obj)\nT(obj, obj)\n' "$(objs "$2")"
	    printf '0.9 R(x) v S(x, y)\n1.1 S(x, y) v T(y, z)\n' ;;
	M2) printf 'obj = {%s}\nAsthma(obj)\nSmokes(obj)\nCancer(obj)\n' "$(objs "$2")"
	    printf 'Friends(obj, obj)\n1.4 Asthma(x) => !Smokes(x)\n'
	    printf '1.1 Asthma(x) ^ Friends(x, y) => !Smokes(y)\n'
	    printf '1.5 Smokes(x) => Cancer(x)\n' ;;
	M3) printf 'obj = {%s}\nR(obj, obj)\nS(obj, obj)\nT(obj, obj)\n' "$(objs "$2")"
	    printf '0.9 R(x, y) v S(y, z)\n1.1 S(y, z) v T(z, u)\n' ;;
	M4) printf 'page = {%s}\n' "$(objs "$2")"
	    sed -n '/^[A-Z]/p; /^[-0-9]/p' "$here/webkb-pageclass.mln" ;;
	esac
}

objs() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%sO%d", i ? ", " : "", i }'
}

# 10% of the ground atoms of every predicate, true or false at random
evidence() {  # model-file
	awk 'BEGIN { srand(7) }
	/=/ { sub(/.*\{/, ""); sub(/\}.*/, ""); n = split($0, c, /, */); next }
	/^[A-Z][A-Za-z]*\([a-z, ]*\)$/ {
		p = $0; sub(/\(.*/, "", p); k = gsub(/,/, ",") + 1
		if (k == 1) {
			for (i = 1; i <= n; i++) if (rand() < 0.1)
				printf "%s%s(%s)\n", rand() < 0.5 ? "!" : "", p, c[i]
		} else {
			for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
				if (rand() < 0.1)
					printf "%s%s(%s, %s)\n", rand() < 0.5 ? "!" : "", p, c[i], c[j]
		}
	}' "$1"
}

preds() {  # model-file: its predicates, comma-separated
	sed -n 's/^\([A-Z][A-Za-z]*\)(.*)$/\1/p' "$1" | paste -sd, -
}

run() {  # db method args...: seconds of the run, or stop
	db=$1
	shift
	if (ulimit -v "$MEM"; timeout "$LIMIT" "$SQLIFT" infer "$db" "$@" \
	    >/dev/null 2>"$dir/err"); then
		sqlite3 "$db" "SELECT printf('%.2f', (seconds -
		    coalesce(json_extract(stats, '$.ground_seconds'),
		    json_extract(stats, '$.theory_seconds'), 0)) * 100.0 / $SWEEPS)
		    FROM runs ORDER BY run_id DESC LIMIT 1"
	else
		echo stop
	fi
}

echo "| model | objects | ground atoms | gibbs s/100 sweeps | blocked-gibbs s/100 sweeps | lis s/100 samples |"
echo "|---|---|---|---|---|---|"
for m in ${@:-M1 M2 M3 M4}; do
	for n in $SIZES; do
		f=$dir/$m-$n
		model "$m" "$n" >"$f.mln"
		evidence "$f.mln" >"$f.db"
		rm -f "$f.sqlite"
		"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null 2>&1 ||
			{ echo "| $m | $n | load failed | | | |"; continue; }
		q=$(preds "$f.mln")
		ow=$q
		g=$(run "$f.sqlite" --method gibbs -q "$q" --ow "$ow" --samples "$SWEEPS" \
		    --burn-in 0 --chains 1)
		atoms=$(sqlite3 "$f.sqlite" "SELECT unknown_atoms FROM runs ORDER BY run_id DESC LIMIT 1")
		b=$(run "$f.sqlite" --method blocked-gibbs -q "$q" --ow "$ow" \
		    --samples "$SWEEPS" --burn-in 0 --chains 1)
		l=$(run "$f.sqlite" --method lis -q "$q" --ow "$ow" --samples "$SWEEPS")
		echo "| $m | $n | $atoms | $g | $b | $l |"
	done
done
