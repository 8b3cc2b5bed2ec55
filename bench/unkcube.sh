#!/bin/sh
# unkcube.sh: the unknown atoms' cubes before and after the complement
# by parts (issue 23 item 2: = and != on the cubes of the unknown atoms),
# the two binaries side by side on the shared dumps: unknown cubes per
# dump and per changed predicate, the new ones checked against every
# ground atom through cube_atoms; the CPU time of `sqlift cubes` on Cora
# (median of REPEAT, interleaved); and inference on the same database
# with each binary's cubes (exact on the IMDB folds with one and four
# query predicates, lis, the Gibbs samplers and MAP with fixed seeds and
# sample counts): log Z, marginals, search nodes and CPU seconds.
#
#   OLD=path/to/old/sqlift NEW=path/to/new/sqlift sh bench/unkcube.sh
#
# Knobs: DATA (the shared data folder), REPEAT (5), CHECK (1: the
# cube_atoms check on the dumps whose ground atoms number under a
# million, bench/cubecheck.py's atom by atom on the others; all: the
# view on every dump; 0: none), BENCH_MD=1 (markdown).  The
# dumps are loaded once, by OLD; each binary builds its own cubes.
set -eu

OLD=${OLD:?set OLD to the sqlift before}
NEW=${NEW:-./sqlift}
REPEAT=${REPEAT:-5}
CHECK=${CHECK:-1}
bench=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DATA:-}" ]; then
	DATA=$bench/../../shared/data
	[ -d "$DATA" ] || DATA=/work/shared/data
fi
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-unkcube.XXXXXX")
trap 'rm -rf "$dir"' EXIT
. "$bench/dumps.sh"
wrap_bins

q() { sqlite3 -separator ' ' "$@"; }

# every ground atom's count, from the domains
ALL="(SELECT sum(x) FROM (SELECT (SELECT round(exp(sum(ln((SELECT count(*)
    FROM domains d WHERE d.type_id = a.type_id))))) FROM predicate_args a
    WHERE a.pred_id = p.pred_id) x FROM predicates p))"

dumps >"$dir/list"
while read -r name args; do
	# shellcheck disable=SC2086 # the load arguments
	"$OLD" load "$dir/$name" $args >/dev/null
	for b in old new; do
		cp "$dir/$name" "$dir/$name.$b"
		if [ $b = old ]; then "$OLD" cubes "$dir/$name.$b"; else
			"$NEW" cubes "$dir/$name.$b"; fi >/dev/null
	done
done <"$dir/list"

sec "Unknown cubes per dump"
head_ '%-16s %12s %8s %8s %8s %8s %-6s\n' dump ground_atoms unk_old unk_new \
    new_eq new_ne exact
while read -r name args; do
	# shellcheck disable=SC2046 # fields
	set -- $(q "$dir/$name.new" "SELECT printf('%d', $ALL), (SELECT count(*)
	    FROM cubes WHERE truth IS NULL), (SELECT count(*) FROM cubes WHERE
	    truth IS NULL AND eq IS NOT NULL), (SELECT count(*) FROM cubes WHERE
	    truth IS NULL AND ne IS NOT NULL), (SELECT sum(atoms) FROM cubes)") \
	    $(q "$dir/$name.old" "SELECT count(*) FROM cubes WHERE truth IS NULL")
	# the atoms column sums to every ground atom
	[ "$5" = "$1" ] || { echo "$name: cubes hold $5 atoms of $1" >&2; exit 1; }
	ok=-
	if [ "$CHECK" = all ] || { [ "$CHECK" = 1 ] && [ "$1" -lt 1000000 ]; }; then
		# the unknown atoms of the view: none twice, none in the
		# evidence, as many as their cubes' atoms and as every ground
		# atom less the evidence; the known ones exactly the evidence
		ok=$(q "$dir/$name.new" "CREATE TEMP TABLE u AS SELECT atom FROM
		    cube_atoms WHERE truth IS NULL; SELECT CASE WHEN (SELECT count(*)
		    FROM u) = (SELECT count(DISTINCT atom) FROM u) AND NOT EXISTS
		    (SELECT 1 FROM u JOIN evidence_atoms USING (atom)) AND (SELECT
		    count(*) FROM u) = (SELECT sum(atoms) FROM cubes WHERE truth IS
		    NULL) AND (SELECT count(*) FROM u) + (SELECT count(*) FROM
		    evidence_atoms) = $1 AND NOT EXISTS (SELECT atom, truth FROM
		    evidence_atoms EXCEPT SELECT atom, truth FROM cube_atoms WHERE
		    truth IS NOT NULL) AND (SELECT count(*) FROM cube_atoms WHERE
		    truth IS NOT NULL) = (SELECT count(*) FROM evidence_atoms) THEN
		    'yes' ELSE 'NO' END")
	elif [ "$CHECK" != 0 ]; then
		# too many atoms for the view: bench/cubecheck.py, atom by atom
		# (the evidence, random atoms, random atoms on the diagonals)
		ok=sample
		python3 "$bench/cubecheck.py" "$dir/$name.new" 20000 >"$dir/cc" ||
		    { ok=NO; tail -n 1 "$dir/cc" >&2; }
	fi
	# shellcheck disable=SC2059 # the format is fmt's
	printf "$(fmt '%-16s %12s %8s %8s %8s %8s %-6s\n')" "$name" "$1" "$6" \
	    "$2" "$3" "$4" "$ok"
done <"$dir/list"

sec "Predicates whose unknown cubes change"
head_ '%-16s %-16s %5s %8s %8s %-30s\n' dump predicate arity unk_old \
    unk_new new_constraints
while read -r name args; do
	q "$dir/$name.new" "ATTACH '$dir/$name.old' AS o; SELECT p.name, p.arity,
	    (SELECT count(*) FROM o.cubes c WHERE c.pred_id = p.pred_id AND
	    c.truth IS NULL) x, (SELECT count(*) FROM cubes c WHERE c.pred_id =
	    p.pred_id AND c.truth IS NULL) y, (SELECT group_concat(k, ' ') FROM
	    (SELECT coalesce('=' || eq, '') || coalesce('!=' || ne, '') || ':' ||
	    count(*) k FROM cubes c WHERE c.pred_id = p.pred_id AND c.truth IS
	    NULL AND (eq IS NOT NULL OR ne IS NOT NULL) GROUP BY eq, ne)) FROM
	    predicates p WHERE x <> y ORDER BY p.name" |
	while read -r pred ar x y k; do
		# shellcheck disable=SC2059 # the format is fmt's
		printf "$(fmt '%-16s %-16s %5s %8s %8s %-30s\n')" "$name" "$pred" \
		    "$ar" "$x" "$y" "${k:--}"
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
		cpu "$OLD" "$dir/cora" >>"$dir/co"
		cpu "$NEW" "$dir/cora" >>"$dir/cn"
	else
		cpu "$NEW" "$dir/cora" >>"$dir/cn"
		cpu "$OLD" "$dir/cora" >>"$dir/co"
	fi
done
head_ '%-8s %8s %8s %8s %-30s\n' dump old_s new_s new/old runs
co=$(median <"$dir/co")
cn=$(median <"$dir/cn")
# shellcheck disable=SC2059 # the format is fmt's
printf "$(fmt '%-8s %8s %8s %8s %-30s\n')" cora "$co" "$cn" \
    "$(awk -v a="$co" -v b="$cn" 'BEGIN { printf "%.2f", b / a }')" \
    "$(tr '\n' ' ' <"$dir/co")/ $(tr '\n' ' ' <"$dir/cn")"

sec "Inference with each binary's cubes: log Z, marginals, nodes, CPU s"
head_ '%-6s %-22s %-20s %-20s %8s %6s %9s %6s %6s %6s %6s\n' dump run \
    log_z_old log_z_new rel_diff atoms max_diff n_old n_new s_old s_new
Q4=actor,director,gender,workedUnder
{
	for f in 1 2 3 4; do
		echo "imdb$f exact-q1 -m exact -q workedUnder"
		echo "imdb$f exact-q4 -m exact -q $Q4"
	done
	echo "imdb1 lis-q4 -m lis --seed 1 --samples 50 -q $Q4"
	echo "imdb1 gibbs-q4 -m gibbs --seed 1 --samples 200 -q $Q4"
	echo "imdb1 blocked-gibbs-q4 -m blocked-gibbs --seed 1 --samples 200 -q $Q4"
	echo "imdb1 lbg-q4 -m lbg --seed 1 --samples 200 -q $Q4"
	echo "imdb1 map-q4 -m map --seed 1 -q $Q4"
	echo "uwcse lis -m lis --seed 1 --samples 20 -q advisedBy"
	echo "uwcse gibbs -m gibbs --seed 1 --samples 10 --burn-in 5 -q advisedBy"
} >"$dir/runs"
while read -r name label opts; do
	for b in old new; do
		bin=$OLD
		[ $b = new ] && bin=$NEW
		cp "$dir/$name.$b" "$dir/r.$b"
		# shellcheck disable=SC2086 # the options
		/usr/bin/time -f '%U %S' -o "$dir/time.$b" "$bin" infer "$dir/r.$b" \
		    $opts >/dev/null 2>&1 || true
	done
	# log Z (MAP: the world's log weight), the marginals (MAP: the
	# world's atoms) compared, nodes of the lifted search
	v="coalesce(printf('%.15g', coalesce(log_z, map_log_weight)), '-')"
	lo=$(q "$dir/r.old" "SELECT $v FROM runs")
	ln=$(q "$dir/r.new" "SELECT $v FROM runs")
	# shellcheck disable=SC2046 # fields
	set -- $(q "$dir/r.new" "ATTACH '$dir/r.old' AS o; SELECT count(*),
	    printf('%.3g', coalesce(max(abs(a.probability - b.probability)), 0))
	    FROM run_marginals a JOIN o.run_marginals b USING (predicate, atom);
	    SELECT count(*) FROM (SELECT * FROM map_atoms EXCEPT SELECT * FROM
	    o.map_atoms) UNION ALL SELECT count(*) FROM (SELECT * FROM
	    o.map_atoms EXCEPT SELECT * FROM map_atoms);
	    SELECT coalesce(json_extract(stats, '\$.nodes'), '-') FROM o.runs;
	    SELECT coalesce(json_extract(stats, '\$.nodes'), '-') FROM runs") \
	    "$(awk '{ printf "%.2f", $1 + $2 }' "$dir/time.old")" \
	    "$(awk '{ printf "%.2f", $1 + $2 }' "$dir/time.new")"
	# MAP: atoms = differing world atoms (both ways)
	case $label in map*) set -- "$3+$4" "-" "$5" "$6" "$7" "$8" ;;
	*) set -- "$1" "$2" "$5" "$6" "$7" "$8" ;; esac
	# shellcheck disable=SC2059 # the format is fmt's
	printf "$(fmt '%-6s %-22s %-20s %-20s %8s %6s %9s %6s %6s %6s %6s\n')" \
	    "$name" "$label" "$lo" "$ln" "$(awk -v a="$lo" -v b="$ln" 'BEGIN {
	    if (a == b) { print "0"; exit } d = (a - b) / a; if (d < 0) d = -d;
	    printf "%.1e", d }')" "$1" "$2" "$3" "$4" "$5" "$6"
done <"$dir/runs"
