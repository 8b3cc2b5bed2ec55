#!/bin/sh
# exact.sh: exact lifted inference (issue 4) on friends-and-smokers, as in
# the exact-inference experiments of Mittal et al. (2015):
#   Smokes(x) => Cancer(x);  Smokes(x) ^ Friends(x,y) => Smokes(y)
# r% of the persons get random true/false evidence on Smokes and Cancer,
# the rest are unknown, Friends is unknown (Smokes and Cancer open-world).
# Prints wall time of the whole `sqlift infer --method exact` process,
# nodes expanded and log Z, with setineq constraints and with the Normal
# form (every constant its own block, stopped after NORMAL_LIMIT s).
#
#   SQLIFT=path/to/sqlift sh bench/exact.sh [sizes|evidence|large|peratom|all]
#
# peratom: evidence drawn per atom (fs.awk atom=1: each Smokes and Cancer
# atom observed on its own with probability 0.4, nine classes of
# persons), log Z alone and with the Smokes and Cancer marginals, beside
# bench/fs-countsum.c (a direct count-sum, built here with ${CC:-cc}):
# its seconds and the difference of the two log Z relative to it.
#
# Use the real binary, not libtool's wrapper script (it adds 40 ms):
# from a build folder, SQLIFT=.libs/sqlift LD_LIBRARY_PATH=.libs.
# Knobs: NORMAL_LIMIT (60 s), EXACT_SIZES (n of "sizes"), EXACT_SHARES
# (r% of "evidence"), LARGE_SIZES (n of "large"), ATOM_SIZES (n of
# "peratom"), BENCH_MD=1 (markdown tables).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
NORMAL_LIMIT=${NORMAL_LIMIT:-60}
what=${1:-all}
bench=$(cd "$(dirname "$0")" && pwd)
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-exact.XXXXXX")
trap 'rm -rf "$dir"' EXIT

gen() {  # n r [atom]: model and evidence into $dir/fs-n-r.{mln,db,sqlite}
	f=$dir/fs-$1-$2
	awk -v n="$1" -f "$bench/fs.awk" >"$f.mln"
	awk -v n="$1" -v r="$2" -v evidence=1 -v atom="${3:-0}" \
	    -f "$bench/fs.awk" >"$f.db"
	rm -f "$f.sqlite"
	"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null
	"$SQLIFT" cubes "$f.sqlite" >/dev/null
}

run() {  # n r constraints [extra options]: prints seconds nodes log_z
	f=$dir/fs-$1-$2
	c=$3
	shift 3
	if /usr/bin/time -f '%e %M' -o "$dir/time" "$SQLIFT" infer "$f.sqlite" \
	    --method exact --ow Smokes,Cancer --constraints "$c" "$@" \
	    >/dev/null 2>"$dir/err"; then
		set -- $(cat "$dir/time")
		sqlite3 "$f.sqlite" "SELECT printf('%s %s %d %.6f', '$1', '$2',
			json_extract(stats, '$.nodes'), log_z) FROM runs
			ORDER BY run_id DESC LIMIT 1"
	else
		echo "stopped - - ($(cut -c1-60 "$dir/err"))"
	fi
}

header() {
	head_ '%-8s %-4s %10s %8s %9s %16s\n' n r% constraints seconds nodes "log Z"
}

row() {  # n r constraints [options]
	set -- "$1" "$2" "$3" $(run "$@")
	printf "$(fmt '%-8s %-4s %10s %8s %9s %16s\n')" "$1" "$2" "$3" "$4" "$6" "$7"
}

if [ "$what" = sizes ] || [ "$what" = all ]; then
	sec "time vs domain size, 40% evidence"
	header
	for n in ${EXACT_SIZES:-100 200 300 400 500 600 700 800}; do
		gen $n 40
		row $n 40 setineq
		row $n 40 normal --max-seconds "$NORMAL_LIMIT"
	done
fi
if [ "$what" = evidence ] || [ "$what" = all ]; then
	sec "time vs evidence, n = 500"
	header
	for r in ${EXACT_SHARES:-0 10 20 30 40 50 60 70 80 90 100}; do
		gen 500 $r
		row 500 $r setineq
		row 500 $r normal --max-seconds "$NORMAL_LIMIT"
	done
fi
if [ "$what" = large ] || [ "$what" = all ]; then
	sec "large domains, 40% evidence"
	header
	for n in ${LARGE_SIZES:-1000 10000 100000}; do
		gen $n 40
		row $n 40 setineq
	done
fi
if [ "$what" = peratom ] || [ "$what" = all ]; then
	sec "evidence drawn per atom, 40%: exact beside the count-sum"
	${CC:-cc} -O2 -o "$dir/fs-countsum" "$bench/fs-countsum.c" -lm
	head_ '%-8s %9s %8s %10s %9s %22s %10s %9s\n' n seconds nodes \
	    "+marginals" nodes "log Z" count-sum "rel. diff"
	for n in ${ATOM_SIZES:-10 20 50 200 800 5000 100000}; do
		gen $n 40 1
		set -- $(run $n 40 setineq)
		t1=$1 nodes1=$3 lz=$4
		set -- $(run $n 40 setineq -q Smokes,Cancer)
		t2=$1 nodes2=$3
		/usr/bin/time -f %e -o "$dir/time" "$dir/fs-countsum" $n \
		    "$dir/fs-$n-40.db" >"$dir/cs"
		set -- $(sqlite3 "$dir/fs-$n-40.sqlite" "SELECT printf('%.17g',
			log_z) FROM runs WHERE run_id = 1") $(head -1 "$dir/cs")
		d=$(awk -v a="$1" -v b="$3" 'BEGIN { d = (a - b) / b
			printf "%.1e", d < 0 ? -d : d }')
		printf "$(fmt '%-8s %9s %8s %10s %9s %22s %10s %9s\n')" $n "$t1" \
		    "$nodes1" "$t2" "$nodes2" "$1" "$(cat "$dir/time")" "$d"
	done
fi
