#!/bin/sh
# cover.sh: the cube cover before and after issue 23 items 2 and 3 (a
# canonical cover by orbits of the blocks, grouped by equal slices, with
# setineq = and !=), the two binaries side by side on the shared dumps:
# known and unknown cubes per dump, with the new cubes checked against
# the evidence through cube_atoms; the cubes of the largest relations
# beside a lower bound (a fooling set, bench/fooling.awk, binary ones
# only); the CPU time of `sqlift cubes` on Cora (median of REPEAT runs,
# old and new interleaved); exact log Z and marginals on the IMDB folds
# with one and four query predicates (they must not change).
#
#   OLD=path/to/old/sqlift NEW=path/to/new/sqlift sh bench/cover.sh
#
# Knobs: DATA (the shared data folder), REPEAT (5), TOP (relations per
# dump in the second table, 3), CHECK=0 (skip the cube_atoms check; on
# Cora it takes minutes with either binary, so it runs there only with
# CHECK=all), BENCH_MD=1 (markdown).  Each binary loads its own
# database (the old one refuses the newer schema).
set -eu

OLD=${OLD:?set OLD to the sqlift before}
NEW=${NEW:-./sqlift}
REPEAT=${REPEAT:-5}
TOP=${TOP:-3}
CHECK=${CHECK:-1}
bench=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DATA:-}" ]; then
	DATA=$bench/../../shared/data
	[ -d "$DATA" ] || DATA=/work/shared/data
fi
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-cover.XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$bench/dumps.sh"
wrap_bins

q() { sqlite3 -separator ' ' "$@"; }

dumps >"$dir/list"
while read -r name args; do
	for b in old new; do
		bin=$OLD
		[ $b = new ] && bin=$NEW
		# shellcheck disable=SC2086 # the load arguments
		"$bin" load "$dir/$name.$b" $args >/dev/null
		"$bin" cubes "$dir/$name.$b" >/dev/null
	done
done <"$dir/list"

sec "Cubes per dump"
head_ '%-16s %8s %8s %8s %8s %8s %8s %8s %-6s\n' dump atoms known_old \
    known_new unknown_old unknown_new constrained blocks exact
while read -r name args; do
	# shellcheck disable=SC2046 # fields
	set -- $(q "$dir/$name.old" "SELECT (SELECT count(*) FROM
	    evidence_atoms), (SELECT count(*) FROM cubes WHERE truth IS NOT
	    NULL), (SELECT count(*) FROM cubes WHERE truth IS NULL)") \
	    $(q "$dir/$name.new" "SELECT (SELECT count(*) FROM cubes WHERE truth
	    IS NOT NULL), (SELECT count(*) FROM cubes WHERE truth IS NULL),
	    (SELECT count(*) FROM cubes WHERE eq IS NOT NULL OR ne IS NOT NULL),
	    (SELECT count(*) FROM (SELECT DISTINCT type_id, block FROM blocks))")
	ok=-
	if [ "$CHECK" = all ] || { [ "$CHECK" = 1 ] && [ "$name" != cora ]; }; then
		# the new cubes hold exactly the evidence: both differences
		# empty, as many atoms as the evidence
		ok=$(q "$dir/$name.new" "SELECT CASE WHEN (SELECT count(*) FROM
		    (SELECT atom, truth FROM evidence_atoms EXCEPT SELECT atom,
		    truth FROM cube_atoms WHERE truth IS NOT NULL)) + (SELECT
		    count(*) FROM (SELECT atom, truth FROM cube_atoms WHERE truth
		    IS NOT NULL EXCEPT SELECT atom, truth FROM evidence_atoms)) = 0
		    AND (SELECT count(*) FROM cube_atoms WHERE truth IS NOT NULL) =
		    (SELECT count(*) FROM evidence_atoms) THEN 'yes' ELSE 'NO' END")
	fi
	# shellcheck disable=SC2059 # the format is fmt's
	printf "$(fmt '%-16s %8s %8s %8s %8s %8s %8s %8s %-6s\n')" "$name" "$1" \
	    "$2" "$4" "$3" "$5" "$6" "$7" "$ok"
done <"$dir/list"

sec "Largest relations: true cubes and a fooling set"
head_ '%-16s %-20s %5s %8s %8s %8s %8s %-14s\n' dump predicate arity atoms \
    cubes_old cubes_new fooling new_eq_ne
while read -r name args; do
	q "$dir/$name.new" "SELECT p.name, p.arity, p.ev_table FROM predicates
	    p WHERE p.arity >= 2 ORDER BY (SELECT count(*) FROM cubes c WHERE
	    c.pred_id = p.pred_id AND c.truth = 1) > 0 DESC, p.name" |
	while read -r pred ar tab; do
		n=$(q "$dir/$name.new" "SELECT count(*) FROM $tab WHERE truth = 1")
		echo "$n $pred $ar $tab"
	done | sort -k1,1nr -k2,2 | head -n "$TOP" | while read -r n pred ar tab; do
		[ "$n" -gt 0 ] || continue
		co=$(q "$dir/$name.old" "SELECT count(*) FROM cubes c JOIN
		    predicates p USING (pred_id) WHERE p.name = '$pred' AND c.truth = 1")
		cn=$(q "$dir/$name.new" "SELECT count(*) FROM cubes c JOIN
		    predicates p USING (pred_id) WHERE p.name = '$pred' AND c.truth = 1")
		cc=$(q "$dir/$name.new" "SELECT count(*) FROM cubes c JOIN
		    predicates p USING (pred_id) WHERE p.name = '$pred' AND c.truth = 1
		    AND (c.eq IS NOT NULL OR c.ne IS NOT NULL)")
		fs=-
		if [ "$ar" = 2 ]; then
			fs=$(q "$dir/$name.new" "SELECT a0, a1 FROM $tab WHERE truth = 1" |
			    awk -v tmp="$dir/fs.tmp" -f "$bench/fooling.awk")
		fi
		# shellcheck disable=SC2059 # the format is fmt's
		printf "$(fmt '%-16s %-20s %5s %8s %8s %8s %8s %-14s\n')" "$name" \
		    "$pred" "$ar" "$n" "$co" "$cn" "$fs" "$cc"
	done
done <"$dir/list"

# cpu BIN DB: user + system seconds of one `cubes` on a copy of DB
cpu() {
	cp "$2" "$dir/t.sqlite"
	/usr/bin/time -f '%U %S' -o "$dir/time" "$1" cubes "$dir/t.sqlite" >/dev/null
	tail -n 1 "$dir/time" | awk '{ printf "%.3f\n", $1 + $2 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

sec "sqlift cubes on Cora, CPU seconds"
: >"$dir/co"
: >"$dir/cn"
for i in $(seq "$REPEAT"); do
	if [ $((i % 2)) = 1 ]; then
		cpu "$OLD" "$dir/cora.old" >>"$dir/co"
		cpu "$NEW" "$dir/cora.new" >>"$dir/cn"
	else
		cpu "$NEW" "$dir/cora.new" >>"$dir/cn"
		cpu "$OLD" "$dir/cora.old" >>"$dir/co"
	fi
done
head_ '%-8s %8s %8s %8s %-30s\n' dump old_s new_s new/old runs
co=$(median <"$dir/co")
cn=$(median <"$dir/cn")
# shellcheck disable=SC2059 # the format is fmt's
printf "$(fmt '%-8s %8s %8s %8s %-30s\n')" cora "$co" "$cn" \
    "$(awk -v a="$co" -v b="$cn" 'BEGIN { printf "%.2f", b / a }')" \
    "$(tr '\n' ' ' <"$dir/co")/ $(tr '\n' ' ' <"$dir/cn")"

sec "Exact on the IMDB folds: log Z and marginals, old and new"
head_ '%-6s %-3s %-22s %-22s %9s %6s %9s\n' fold q log_z_old log_z_new rel_diff \
    atoms max_diff
for f in 1 2 3 4; do
	for ql in q1 q4; do
		qs=workedUnder
		[ $ql = q4 ] && qs=actor,director,gender,workedUnder
		for b in old new; do
			bin=$OLD
			[ $b = new ] && bin=$NEW
			cp "$dir/imdb$f.$b" "$dir/r.$b"
			"$bin" infer "$dir/r.$b" -m exact -q "$qs" >/dev/null 2>&1 || true
		done
		lo=$(q "$dir/r.old" "SELECT printf('%.15g', log_z) FROM runs")
		ln=$(q "$dir/r.new" "SELECT printf('%.15g', log_z) FROM runs")
		# shellcheck disable=SC2046 # fields
		set -- $(q "$dir/r.new" "ATTACH '$dir/r.old' AS o; SELECT count(*),
		    printf('%.3g', coalesce(max(abs(a.probability - b.probability)), 0))
		    FROM marginals a JOIN o.marginals b USING (predicate, atom)")
		# shellcheck disable=SC2059 # the format is fmt's
		printf "$(fmt '%-6s %-3s %-22s %-22s %9s %6s %9s\n')" "imdb$f" "$ql" \
		    "$lo" "$ln" "$(awk -v a="$lo" -v b="$ln" 'BEGIN { d = (a - b) / a;
		    if (d < 0) d = -d; printf "%.1e", d + 0 }')" "$1" "$2"
	done
done
