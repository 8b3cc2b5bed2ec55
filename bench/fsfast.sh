#!/bin/sh
# fsfast.sh: a run's whole-process CPU time at the counting limit (issue
# 22 items 1 and 5, issue 25 item 5), an old and a new sqlift side by
# side with bench/fs-countsum.c, interleaved (countsum, old, new, then
# again ROUNDS times), `perf stat -e task-clock` (else user + system of
# /usr/bin/time), medians; then the identity of the two builds' answers.
#
#   OLD=REF/.libs/sqlift NEW=BUILD/.libs/sqlift sh bench/fsfast.sh
#
# Workloads (the database of each build loaded and `sqlift cubes` by
# that build, neither timed):
#   fs N       friends-and-smokers, 40% evidence drawn per atom (fs.awk
#              atom=1), `infer --method exact --ow Smokes,Cancer,Friends`
#              (log Z), N = FS_SIZES (800 100000); beside fs-countsum;
#   fs+q N     the same with all marginals, -q Smokes,Cancer;
#   map N      friends-and-smokers without evidence, `--method map`,
#              N = MAP_SIZES (1000000).
# Identity: log Z printed with %.17g, the runs row but times (stats
# without its *seconds keys), every marginal and group, and the -r
# result file, on fs at n = 50, 5000 and 100000 (-q Smokes,Cancer), the
# bundled example (data/example) and the IMDB fold 1 (-q workedUnder):
# "same" or DIFFERENT (exit 1).  BENCH_MD=1: markdown.
set -eu

OLD=${OLD:?set OLD to the reference sqlift}
NEW=${NEW:?set NEW to the sqlift measured}
ROUNDS=${ROUNDS:-5}
bench=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$bench")
DATA=${DATA:-$top/../shared/data}
[ -d "$DATA" ] || DATA=/work/shared/data
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-fsfast.XXXXXX")
trap 'rm -rf "$dir"' EXIT
${CC:-cc} -O2 -o "$dir/fs-countsum" "$bench/fs-countsum.c" -lm
bad=0

run_() {  # old|new ARGS...: the build's binary with its own libraries
	if [ "$1" = old ]; then b=$OLD; else b=$NEW; fi
	shift
	LD_LIBRARY_PATH=$(dirname "$b") "$b" "$@"
}

# model N EV: $dir/m-N.mln (and $dir/e-N.db, 40% per atom when EV is 1)
model() {
	f=$dir/m-$1.mln
	if [ "$2" = 1 ]; then
		awk -v n="$1" -v r=40 -v evidence=1 -v atom=1 -f "$bench/fs.awk" \
		    >"$dir/e-$1.db"
	else
		f=$dir/m0-$1.mln
		: >"$dir/e0-$1.db"
	fi
	{
		printf 'person = {'
		awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%sP%d", i ? ", " : "", i }'
		printf '}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n'
		printf '1.5 Smokes(x) => Cancer(x)\n1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n'
	} >"$f"
}

# prep SIDE DB MODEL EVIDENCE: load and cubes, untimed
prep() {
	rm -f "$2"
	run_ "$1" load "$2" "$3" "$4" >/dev/null
	run_ "$1" cubes "$2" >/dev/null
}

# cpu CMD...: its CPU milliseconds
cpu() {
	if perf stat -x, -e task-clock true >/dev/null 2>&1; then
		perf stat -x, -e task-clock -o "$dir/stat" "$@" >/dev/null 2>&1
		awk -F, '$3 == "task-clock" { printf "%.1f", $1; exit }' "$dir/stat"
	else
		/usr/bin/time -f '%U %S' -o "$dir/stat" "$@" >/dev/null 2>&1
		awk '{ printf "%.1f", ($1 + $2) * 1000 }' "$dir/stat"
	fi
}

median() {
	tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 }
	    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	    printf "%.1f", m }'
}
range() {
	tr ' ' '\n' | grep . | sort -g | awk 'NR == 1 { a = $1 } { b = $1 }
	    END { printf "%s-%s", a, b }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.1f", a / b }'
}

# timing LABEL N CS INFER-ARGS...: ROUNDS interleaved rounds (countsum
# when CS is 1, old, new) on $dir/old.db and $dir/new.db
timing() {
	label=$1 n=$2 cs=$3
	shift 3
	tc= to= tn=
	for _ in $(seq "$ROUNDS"); do
		[ "$cs" = 1 ] && tc="$tc $(cpu "$dir/fs-countsum" "$n" "$dir/e-$n.db")"
		to="$to $(cpu env LD_LIBRARY_PATH="$(dirname "$OLD")" "$OLD" infer "$dir/old.db" "$@")"
		tn="$tn $(cpu env LD_LIBRARY_PATH="$(dirname "$NEW")" "$NEW" infer "$dir/new.db" "$@")"
	done
	mc=-
	[ "$cs" = 1 ] && mc=$(echo "$tc" | median)
	mo=$(echo "$to" | median) mn=$(echo "$tn" | median)
	printf "$(fmt '%-6s %8s %10s %10s %14s %10s %14s %8s %8s %8s\n')" "$label" "$n" \
	    "$mc" "$mo" "$(echo "$to" | range)" "$mn" "$(echo "$tn" | range)" \
	    "$(ratio "$mo" "$mn")" "$(ratio "$mo" "$mc")" "$(ratio "$mn" "$mc")"
}

echo "old: $OLD"
echo "new: $NEW"
echo "CPU ms, whole process, median of $ROUNDS interleaved rounds (load and cubes excluded)"
sec "CPU time"
head_ '%-6s %8s %10s %10s %14s %10s %14s %8s %8s %8s\n' what n countsum old \
    "old range" new "new range" old/new old/cs new/cs
for n in ${FS_SIZES:-800 100000}; do
	model "$n" 1
	prep old "$dir/old.db" "$dir/m-$n.mln" "$dir/e-$n.db"
	prep new "$dir/new.db" "$dir/m-$n.mln" "$dir/e-$n.db"
	timing fs "$n" 1 --method exact --ow Smokes,Cancer,Friends
	timing fs+q "$n" 1 --method exact --ow Smokes,Cancer,Friends -q Smokes,Cancer
done
for n in ${MAP_SIZES:-1000000}; do
	model "$n" 0
	prep old "$dir/old.db" "$dir/m0-$n.mln" "$dir/e0-$n.db"
	prep new "$dir/new.db" "$dir/m0-$n.mln" "$dir/e0-$n.db"
	timing map "$n" 0 --method map --ow Smokes,Cancer,Friends
done
rm -f "$dir"/*.db "$dir"/*.mln

# same WHAT MODEL EVIDENCE INFER-ARGS...: both builds' answers compared
same() {
	what=$1 m=$2 ev=$3
	shift 3
	for side in old new; do
		prep $side "$dir/$side.db" "$m" "$ev"
		run_ $side infer "$dir/$side.db" "$@" -r "$dir/$side.res" >/dev/null
		sqlite3 "$dir/$side.db" "SELECT method, status, parameters, queries,
		    printf('%.17g', log_z), model_fingerprint, evidence_fingerprint,
		    unknown_atoms, query_atoms, error, warnings, (SELECT
		    json_group_object(key, value) FROM json_each(stats) WHERE key
		    NOT LIKE '%seconds%') FROM runs;
		    SELECT predicate, atom, printf('%.17g', probability), group_id
		    FROM run_marginals ORDER BY atom;
		    SELECT group_id, predicate, atoms, printf('%.17g', probability)
		    FROM run_groups ORDER BY group_id" >"$dir/$side.rows"
		cat "$dir/$side.res" >>"$dir/$side.rows"
	done
	z=$(sqlite3 "$dir/new.db" "SELECT printf('%.17g', log_z) FROM runs")
	rows=$(wc -l <"$dir/new.rows")
	if cmp -s "$dir/old.rows" "$dir/new.rows"; then
		verdict=same
	else
		verdict=DIFFERENT
		bad=1
		diff "$dir/old.rows" "$dir/new.rows" | head -5 >&2
	fi
	printf "$(fmt '%-26s %24s %9s %10s\n')" "$what" "$z" "$rows" "$verdict"
}

sec "The same answers (log Z, runs row but times, marginals, groups, -r file)"
head_ '%-26s %24s %9s %10s\n' workload "log Z" lines verdict
for n in 50 5000 100000; do
	model "$n" 1
	same "fs n=$n -q Smokes,Cancer" "$dir/m-$n.mln" "$dir/e-$n.db" \
	    --method exact --ow Smokes,Cancer,Friends -q Smokes,Cancer
done
same "data/example" "$top/data/example/smokers.mln" \
    "$top/data/example/evidence.db" --method exact -q Smokes,Cancer
same "IMDB fold 1 -q workedUnder" "$DATA/imdb/lsm_kok/imdb-rules-out.mln" \
    "$DATA/imdb/lsm_kok/imdb1.db" --method exact -q workedUnder
exit $bad
