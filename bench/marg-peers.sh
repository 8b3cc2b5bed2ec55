#!/bin/sh
# marg-peers.sh: the peers' samplers on UW-CSE (tuffy_cse, all evidence,
# advisedBy queried) for issue 24 item 6: Alchemy 2's Gibbs (infer -p) and
# MC-SAT (infer -ms) with -maxSeconds B and -seed 1..3, Tuffy 0.3's MC-SAT
# (-marginal -activateAll, -mcsatSamples TUFFY_SAMPLES, default 100; it
# has no seed and no clock, so "seed" is a repeat).  Per program: mean and
# maximum over query atoms of the spread (max - min) of the marginal
# between the three runs, atoms spread by more than 0.1, the mean marginal,
# and the share of atoms exactly 0 or 1.  The query atoms are those any
# run of the program prints; an atom a run leaves out counts as 0.
# Alchemy's -maxSeconds counts user CPU time of the sampling (grounding and
# the MaxWalkSAT start of its chains not included, and it is checked every
# 100 samples); a run is stopped at 10 B + 300 s of CPU or MARG_WALL (7200)
# seconds of wall time, and a run that exits non-zero keeps the marginals
# it wrote.
# With REF=DB (a sqlite database whose first run is a sqlift reference
# on the same dump, bench/lbg-dumps.sh ref) two more columns: the mean
# over the runs and query atoms of |marginal - reference|, and its
# largest.
# MARG_PROGS picks the programs ("gibbs mcsat tuffy").  With MARG_KEEP=DIR
# each run's marginals are kept as DIR/PROG.SEED and runs already there
# are not repeated (so seeds can run in separate processes), and the row
# is made from every DIR/PROG.SEED of MARG_SEEDS.
#
#   PEERS=/work/peers sh bench/marg-peers.sh
set -eu

PEERS=${PEERS:-/work/peers}
ALCHEMY=${ALCHEMY:-$PEERS/alchemy2/bin/infer}
TUFFY=${TUFFY:-$PEERS/tuffy/tuffy}
B=${MARG_SECONDS:-60}
SEEDS=${MARG_SEEDS:-1 2 3}
TS=${TUFFY_SAMPLES:-100}
WALL=${MARG_WALL:-7200}
bench=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$bench/../../shared/data}
[ -d "$DATA" ] || DATA=/work/shared/data
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-margpeers.XXXXXX")
trap 'rm -rf "$dir"' EXIT

d=$DATA/uwcse/tuffy_cse
sed 's/^\*//' "$d/prog.mln" >"$dir/alchemy.mln"
# Alchemy closes predicates with evidence; close the '*' ones without too
cw=
for p in $(sed -n 's/^\*\([A-Za-z0-9_]*\)(.*/\1/p' "$d/prog.mln"); do
	grep -q "^$p(" "$d/evidence.db" || cw=$cw${cw:+,}$p
done

# marginals of one run as "atom prob" lines, atoms without spaces or quotes
alchemy() {  # flag seed out
	rm -f "$dir/res"
	(ulimit -t $((10 * B + 300)) && cd "$dir" &&
	    /usr/bin/time -f '%e %U %S' -o "$dir/time" \
	    timeout "$WALL" "$ALCHEMY" "$1" \
	    -i "$dir/alchemy.mln" -e "$d/evidence.db" -q advisedBy \
	    -r "$dir/res" -seed "$2" -maxSeconds "$B" -cw "$cw" \
	    >"$dir/log" 2>&1) || echo "alchemy $1 seed $2: exit $?" >&2
	touch "$dir/res"
	tr -d ' "' <"$dir/res" | sed 's/)/) /' >"$3"
}
tuffy() {  # out
	rm -f "$dir/res"
	/usr/bin/time -f '%e %U %S' -o "$dir/time" \
	    timeout "$WALL" "$TUFFY" -marginal -activateAll \
	    -mcsatSamples "$TS" -i "$d/prog.mln" -e "$d/evidence.db" \
	    -queryFile "$d/query.db" -r "$dir/res" >"$dir/log" 2>&1 ||
	    echo "tuffy: exit $?" >&2
	touch "$dir/res"
	# Tuffy writes "prob<TAB>atom"
	awk -F'\t' 'NF >= 2 { a = $2; gsub(/[ "]/, "", a); print a, $1 }' \
	    "$dir/res" >"$1"
}

: >"$dir/ref"
[ -z "${REF:-}" ] || sqlite3 -separator ' ' "$REF" "SELECT atom, probability
    FROM marginals WHERE run_id = (SELECT min(run_id) FROM runs)" >"$dir/ref"
echo "| program | runs (wall/cpu s each) | mean spread | max spread | atoms spread > 0.1 | mean marginal | share exactly 0 or 1 | mean diff from ref | max diff from ref |"
echo "|---|---|---|---|---|---|---|---|---|"
for prog in ${MARG_PROGS:-gibbs mcsat tuffy}; do
	times=
	for s in $SEEDS; do
		if [ -n "${MARG_KEEP:-}" ] && [ -s "$MARG_KEEP/$prog.$s" ]; then
			cp "$MARG_KEEP/$prog.$s" "$dir/$prog.$s"
			[ ! -f "$MARG_KEEP/$prog.$s.time" ] ||
			    cp "$MARG_KEEP/$prog.$s.time" "$dir/time"
			times=$times${times:+, }$(awk '{ printf "%.0f/%.0f", $1, $2 + $3 }' "$dir/time")
			continue
		fi
		case $prog in
		gibbs) alchemy -p "$s" "$dir/$prog.$s" ;;
		mcsat) alchemy -ms "$s" "$dir/$prog.$s" ;;
		tuffy) tuffy "$dir/$prog.$s" ;;
		esac
		times=$times${times:+, }$(awk '{ printf "%.0f/%.0f", $1, $2 + $3 }' "$dir/time")
		if [ -n "${MARG_KEEP:-}" ]; then
			cp "$dir/$prog.$s" "$MARG_KEEP/$prog.$s"
			cp "$dir/time" "$MARG_KEEP/$prog.$s.time"
		fi
	done
	for s in $SEEDS; do cut -d' ' -f1 "$dir/$prog.$s"; done | sort -u \
	    >"$dir/universe"
	label=$(case $prog in gibbs) echo "Alchemy Gibbs (-p)" ;;
	    mcsat) echo "Alchemy MC-SAT (-ms)" ;; tuffy) echo "Tuffy MC-SAT" ;; esac)
	# per atom of the universe: min, max and sum over the runs
	for s in $SEEDS; do cat "$dir/$prog.$s"; echo "#END"; done |
	    awk -v label="$label" -v times="$times" -v u="$dir/universe" \
	    -v reff="$dir/ref" '
	    BEGIN { while ((getline a < u) > 0) U[a] = 1
		while ((getline l < reff) > 0) { split(l, f, " "); R[f[1]] = f[2] } }
	    $1 == "#END" { r++; for (a in U) { p = (a in P) ? P[a] : 0
		    if (r == 1 || p < lo[a]) lo[a] = p
		    if (r == 1 || p > hi[a]) hi[a] = p
		    sum += p; n++; if (p == 0 || p == 1) ext++ }
		for (a in R) { p = (a in P) ? P[a] : 0; x = p - R[a]
		    if (x < 0) x = -x; dt += x; dn++; if (x > dm) dm = x }
		delete P; next }
	    { P[$1] = $2 + 0 }
	    END { m = 0; for (a in U) { sp = hi[a] - lo[a]; tot += sp; k++
		    if (sp > m) m = sp; if (sp > 0.1) big++ }
		printf "| %s | %s | %.4f | %.3f | %d of %d | %.4f | %.0f%% | %s | %s |\n",
		    label, times, tot / k, m, big, k, sum / n, 100 * ext / n,
		    dn ? sprintf("%.4f", dt / dn) : "-",
		    dn ? sprintf("%.3f", dm) : "-" }'
done
