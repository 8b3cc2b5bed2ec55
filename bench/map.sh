#!/bin/sh
# map.sh: --method map (issue 25) on the real dumps with all their
# evidence: IMDB (fold 1), UW-CSE, WebKB (fold 12, page classes) and
# Cora, as bench/blocks.sh loads them.  Per dump: whole-process seconds
# (wall and user CPU) under --max-seconds (MAP_SECONDS, 10), the world's
# log weight, the bound, whether it is proven optimal, the gap, where
# the world came from (lifted, ground) with the integer programs solved
# and the groundings they were drawn from (lazy grounding).
# Alchemy's MaxWalkSAT and Tuffy's WalkSAT on the same dumps, built by
# bench/peers-build.sh: bench/map-peers.sh.
#
# Re-scored: the world (map_atoms) with the evidence file is scored by
# bench/map-score.py, apart from sqlift: the clauses read by it, the
# domains from the evidence and the model's constants, each clause's
# false groundings counted by one SQL query in SQLite, the sum in exact
# rationals.  "rescored" is that value, "diff" its difference from the
# run's log weight; "abs gap" is bound minus log weight.
#
#   SQLIFT=.libs/sqlift LD_LIBRARY_PATH=.libs sh bench/map.sh
# MAP_DATA picks dumps (imdb1 webkb cora uwcse); MAP_HEAD=0 leaves the
# header out.
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

run() {  # name db model evidence [infer options]
	name=$1
	db=$2
	model=$3
	ev=$4
	shift 4
	if /usr/bin/time -f '%e %U' -o "$dir/time" "$SQLIFT" infer "$db" \
	    --method map --max-seconds "$SECONDS_" "$@" >/dev/null \
	    2>"$dir/err"; then
		t=$(tail -n 1 "$dir/time" | cut -d' ' -f1)
		u=$(tail -n 1 "$dir/time" | cut -d' ' -f2)
		rs=$(python3 "$bench/map-score.py" "$model" "$ev" "$db" ||
		    echo NULL)
		sqlite3 "$db" "SELECT printf('| %s | %s | %s | %.6f | %.6f | %d | %.3g | %.2g%% | %s | %s | %s | %s | %.2g |',
		    '$name', '$t', '$u', map_log_weight, map_bound,
		    map_optimal, map_bound - map_log_weight,
		    100 * (map_bound - map_log_weight) /
		    max(abs(map_bound), 1), json_extract(stats, '\$.world'),
		    coalesce(json_extract(stats, '\$.ip_rounds'), '-'),
		    coalesce(json_extract(stats, '\$.grounded'), '-'),
		    printf('%.6f', $rs), $rs - map_log_weight)
		    FROM runs WHERE method = 'map' ORDER BY run_id DESC LIMIT 1"
	else
		# time's last line is the seconds; the error is stderr's last line
		echo "| $name | $(tail -n 1 "$dir/time" | cut -d' ' -f1) | $(tail -n 1 "$dir/time" | cut -d' ' -f2) | failed: $(tail -n 1 "$dir/err" | cut -c1-90) |"
	fi
}

want() { case " ${MAP_DATA:-imdb1 webkb cora uwcse} " in *" $1 "*) ;; *) false ;; esac; }

if [ "${MAP_HEAD:-1}" != 0 ]; then
	echo "| data | seconds | cpu s | log weight | bound | optimal | abs gap | gap | world | IPs | grounded | rescored | diff |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
fi

if want imdb1; then
d=$DATA/imdb/lsm_kok
load "$dir/imdb1.sqlite" "$d/imdb-rules-out.mln" "$d/imdb1.db"
run imdb1 "$dir/imdb1.sqlite" "$d/imdb-rules-out.mln" "$d/imdb1.db" \
    -q workedUnder
fi

if want webkb; then
ev=$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db
cw=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
cw=$cw,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
grep -v '^PageClass\(Course\|Faculty\)(' "$ev" >"$dir/webkb.db"
load "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" "$dir/webkb.db"
run webkb "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" "$dir/webkb.db" \
    --cw "$cw" -q PageClassCourse,PageClassFaculty
fi

if want cora; then
d=$DATA/cora/tuffy_class
load "$dir/cora.sqlite" "$d/prog.mln" "$d/evidence.db"
run cora "$dir/cora.sqlite" "$d/prog.mln" "$d/evidence.db" -q category
fi

if want uwcse; then
d=$DATA/uwcse/tuffy_cse
load "$dir/uwcse.sqlite" "$d/prog.mln" "$d/evidence.db"
run uwcse "$dir/uwcse.sqlite" "$d/prog.mln" "$d/evidence.db" -q advisedBy
fi
