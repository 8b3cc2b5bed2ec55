#!/bin/sh
# fo2marg.sh: exact marginals with evidence on the two-variable families
# of bench/fo2.sh (the same files: 40% of the persons observed on each
# of Smokes and Cancer), this build beside a reference build (REF, the
# build before marginals came from log Z's cell graph): CPU seconds
# (user + sys) of each whole `sqlift infer -m exact -q QUERY` process,
# load excluded, or "stop" past LIMIT seconds; and how far apart their
# marginals are: the largest difference, the largest relative to the
# reference's value (above 1e-300), "same" when both are within 1e-9.
#
#   REF=path/to/old/sqlift sh bench/fo2marg.sh [family ...]
# Knobs: SQLIFT (./sqlift), QUERY (Smokes), FO2_SIZES (100 500 1000
# 2000), LIMIT (30 s), MEM (ulimit -v, 6000000).
set -u

SQLIFT=${SQLIFT:-./sqlift}
QUERY=${QUERY:-Smokes}
LIMIT=${LIMIT:-30}
MEM=${MEM:-6000000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-fo2marg.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# the families and files of bench/fo2.sh (its body() and gen())
eval "$(sed -n '/^body()/,/^}/p;/^gen()/,/^}/p' "$(dirname "$0")/fo2.sh")"

run() {  # db sqlift: CPU seconds, or stop
	if (ulimit -v "$MEM"; exec timeout "$LIMIT" /usr/bin/time -f '%U %S' \
	    -o "$dir/cpu" nice "$2" infer "$1" -m exact \
	    --ow Smokes,Cancer,Friends -q "$QUERY" >/dev/null 2>"$dir/err"); then
		awk 'NF == 2 { printf "%.3f", $1 + $2 }' "$dir/cpu"
	else
		echo stop
	fi
}

printf '%-8s %-3s %6s %8s %9s %10s %10s %5s\n' family ev n cpu-s ref-cpu-s \
    max-diff max-rel same
for fam in ${*:-graph symcan fo2 sym symhard hard}; do
	for n in ${FO2_SIZES:-100 500 1000 2000}; do
		gen "$fam" "$n" 1
		f=$dir/$fam-$n-1
		cp "$f.sqlite" "$f.ref.sqlite"
		a=$(run "$f.sqlite" "$SQLIFT")
		b=-
		[ -n "${REF:-}" ] && b=$(run "$f.ref.sqlite" "$REF")
		if [ "$a" != stop ] && [ "$b" != stop ] && [ "$b" != - ]; then
			# (each file holds one run; joined by run_marginals' key)
			set -- $(sqlite3 -separator ' ' "$f.sqlite" "ATTACH
			    '$f.ref.sqlite' AS r; SELECT printf('%.2e %.2e',
			    max(abs(a.probability - b.probability)),
			    coalesce(max(CASE WHEN b.probability > 1e-300 THEN
			    abs(a.probability - b.probability) / b.probability
			    END), 0)) FROM run_marginals a JOIN r.run_marginals b
			    ON b.run_id = a.run_id AND b.atom = a.atom") - -
			s=$(awk -v a="$1" -v b="$2" 'BEGIN {
			    print a + 0 <= 1e-9 && b + 0 <= 1e-9 ? "yes" : "NO" }')
		else
			set -- - -
			s=-
		fi
		printf '%-8s %-3s %6s %8s %9s %10s %10s %5s\n' "$fam" 1 "$n" "$a" \
		    "$b" "$1" "$2" "$s"
	done
done
