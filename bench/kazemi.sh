#!/bin/sh
# kazemi.sh: the 18 parfactor graphs of Table 1 of Kazemi & Poole
# ("Elimination ordering in lifted first-order probabilistic inference"),
# encoded as MLNs, solved by `sqlift infer --method exact` with each of
# the four ordering heuristics.  Prints milliseconds of the whole process
# (or "stop" past LIMIT seconds) / nodes expanded, and log Z (which the
# four must agree on).
#
#   SQLIFT=path/to/sqlift sh bench/kazemi.sh
#
# Encoding: a logical variable v of population n is a type tv of n
# constants; a PRV without logical variables, such as A, is the atom
# A(O) of a one-constant type.  Each parfactor becomes one weighted
# clause over its PRVs (random signs, random weight in [-2, 2], fixed
# seed): the same interaction graph, with a potential of that form.
# Graph 14 uses E both as E(x) and as E(y) with different populations;
# here the second is a predicate of its own, E2(y).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
LIMIT=${LIMIT:-60}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-kazemi.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# the graphs: bench/kazemi-graphs.txt; each becomes an MLN by kazemi.awk
bench=$(cd "$(dirname "$0")" && pwd)

. "$bench/md.sh"
head_ '%-3s %-12s %-12s %-12s %-12s %s\n' graph min-fill rel-min-fill \
	population min-table 'log Z'
while IFS='|' read -r id pfs pops; do
	awk -v id="$id" -f "$bench/kazemi.awk" "$bench/kazemi-graphs.txt" \
	    >"$dir/g$id.mln"
	rm -f "$dir/g$id.db"
	"$SQLIFT" load "$dir/g$id.db" "$dir/g$id.mln" >/dev/null
	cells=
	for order in min-fill rel-min-fill population min-table; do
		t0=$(date +%s%N)
		if "$SQLIFT" infer "$dir/g$id.db" --method exact --order $order \
		    --max-seconds "$LIMIT" >/dev/null 2>"$dir/err"; then
			t1=$(date +%s%N)
			cell=$(sqlite3 "$dir/g$id.db" "SELECT printf('%.1f/%d',
			    ($t1 - $t0) / 1e6, json_extract(stats, '$.nodes')) FROM runs
			    ORDER BY run_id DESC LIMIT 1")
		else
			cell="stop"
		fi
		cells="$cells $cell"
	done
	# the four orders must agree on log Z
	n=$(sqlite3 "$dir/g$id.db" "SELECT count(DISTINCT printf('%.9e', log_z))
		FROM runs")
	[ "$n" -eq 1 ] || { echo "graph $id: the orders disagree on log Z" >&2; exit 1; }
	# shellcheck disable=SC2086 # one word per cell
	printf "$(fmt '%-3s %-12s %-12s %-12s %-12s %s\n')" "$id" $cells \
	    "$(sqlite3 "$dir/g$id.db" "SELECT printf('%.6f', log_z) FROM runs LIMIT 1")"
done <"$bench/kazemi-graphs.txt"
