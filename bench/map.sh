#!/bin/sh
# map.sh: --method map (issue 25) on the real dumps with all their
# evidence: IMDB (fold 1), UW-CSE, WebKB (fold 12, page classes) and
# Cora, as bench/blocks.sh loads them.  Per dump: whole-process seconds
# under --max-seconds (MAP_SECONDS, 10), the world's log weight, the
# bound, whether it is proven optimal, the relative gap, and where the
# world came from (lifted, ground) with the integer programs solved.
# Alchemy's MaxWalkSAT and Tuffy's WalkSAT are not built on this machine
# (../shared/peers/README.md): their columns are left out.
#
# Re-scored: the world (map_atoms) is loaded as evidence into a copy of
# the database, with the model, and --method exact computes log Z with
# every atom fixed, which is that world's log weight: the lifted engine
# on the theory with the evidence folded in, not the ground scorer that
# map used.  "rescored" is that value, "diff" its difference from the
# run's log weight.
#
#   SQLIFT=.libs/sqlift LD_LIBRARY_PATH=.libs sh bench/map.sh
set -eu

SQLIFT=${SQLIFT:-./sqlift}
SECONDS_=${MAP_SECONDS:-10}
bench=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$bench/../../shared/data}
[ -d "$DATA" ] || DATA=/work/shared/data
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-map.XXXXXX")
trap 'rm -rf "$dir"' EXIT

load() {  # db model evidence
	rm -f "$1"
	"$SQLIFT" load "$@" >/dev/null
}

rescore() {  # db model [options without -q]: the world's log weight
	sqlite3 "$1" "SELECT CASE truth WHEN 1 THEN atom ELSE '!' || atom END
	    FROM map_atoms WHERE run_id = (SELECT max(run_id) FROM runs)" \
	    >"$dir/world.db"
	cp "$1" "$dir/rescore.sqlite"
	db=$1
	model=$2
	shift 2
	if [ -s "$dir/world.db" ] && "$SQLIFT" load "$dir/rescore.sqlite" \
	    "$model" "$dir/world.db" >/dev/null 2>&1 && "$SQLIFT" infer \
	    "$dir/rescore.sqlite" --method exact --max-seconds 60 "$@" \
	    >/dev/null 2>&1; then
		sqlite3 "$dir/rescore.sqlite" "SELECT log_z FROM runs ORDER BY
		    run_id DESC LIMIT 1"
	else
		echo NULL
	fi
}

run() {  # name db model [infer options]: -q comes last
	name=$1
	db=$2
	model=$3
	shift 3
	if /usr/bin/time -f '%e' -o "$dir/time" "$SQLIFT" infer "$db" \
	    --method map --max-seconds "$SECONDS_" "$@" >/dev/null \
	    2>"$dir/err"; then
		t=$(tail -n 1 "$dir/time")
		# the options less the trailing "-q PREDS"
		set -- $(echo "$@" | sed 's/ -q [^ ]*$//')
		rs=$(rescore "$db" "$model" "$@")
		sqlite3 "$db" "SELECT printf('| %s | %s | %.6f | %.6f | %d | %.2g%% | %s | %s | %s | %.2g |',
		    '$name', '$t', map_log_weight, map_bound,
		    map_optimal, 100 * (map_bound - map_log_weight) /
		    max(abs(map_bound), 1), json_extract(stats, '\$.world'),
		    coalesce(json_extract(stats, '\$.ip_rounds'), '-'),
		    printf('%.6f', $rs), $rs - map_log_weight)
		    FROM runs WHERE method = 'map' ORDER BY run_id DESC LIMIT 1"
	else
		# time's last line is the seconds; the error is stderr's last line
		echo "| $name | $(tail -n 1 "$dir/time") | failed: $(tail -n 1 "$dir/err" | cut -c1-90) |"
	fi
}

echo "| data | seconds | log weight | bound | optimal | gap | world | IPs | rescored | diff |"
echo "|---|---|---|---|---|---|---|---|---|---|"

d=$DATA/imdb/lsm_kok
load "$dir/imdb1.sqlite" "$d/imdb-rules-out.mln" "$d/imdb1.db"
run imdb1 "$dir/imdb1.sqlite" "$d/imdb-rules-out.mln" -q workedUnder

ev=$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db
cw=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
cw=$cw,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
grep -v '^PageClass\(Course\|Faculty\)(' "$ev" >"$dir/webkb.db"
load "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" "$dir/webkb.db"
run webkb "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" --cw "$cw" \
    -q PageClassCourse,PageClassFaculty

d=$DATA/cora/tuffy_class
load "$dir/cora.sqlite" "$d/prog.mln" "$d/evidence.db"
run cora "$dir/cora.sqlite" "$d/prog.mln" -q category

d=$DATA/uwcse/tuffy_cse
load "$dir/uwcse.sqlite" "$d/prog.mln" "$d/evidence.db"
run uwcse "$dir/uwcse.sqlite" "$d/prog.mln" -q advisedBy
