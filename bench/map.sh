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

run() {  # name db [infer options]
	name=$1
	db=$2
	shift 2
	if /usr/bin/time -f '%e' -o "$dir/time" "$SQLIFT" infer "$db" \
	    --method map --max-seconds "$SECONDS_" "$@" >/dev/null \
	    2>"$dir/err"; then
		sqlite3 "$db" "SELECT printf('| %s | %s | %.6f | %.6f | %d | %.2g%% | %s | %s |',
		    '$name', '$(cat "$dir/time")', map_log_weight, map_bound,
		    map_optimal, 100 * (map_bound - map_log_weight) /
		    max(abs(map_bound), 1), json_extract(stats, '\$.world'),
		    coalesce(json_extract(stats, '\$.ip_rounds'), '-'))
		    FROM runs ORDER BY run_id DESC LIMIT 1"
	else
		echo "| $name | $(cat "$dir/time") | failed: $(cut -c1-70 "$dir/err") |"
	fi
}

echo "| data | seconds | log weight | bound | optimal | gap | world | IPs |"
echo "|---|---|---|---|---|---|---|---|"

d=$DATA/imdb/lsm_kok
load "$dir/imdb1.sqlite" "$d/imdb-rules-out.mln" "$d/imdb1.db"
run imdb1 "$dir/imdb1.sqlite" -q workedUnder

ev=$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db
cw=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
cw=$cw,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
grep -v '^PageClass\(Course\|Faculty\)(' "$ev" >"$dir/webkb.db"
load "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" "$dir/webkb.db"
run webkb "$dir/webkb.sqlite" --cw "$cw" -q PageClassCourse,PageClassFaculty

d=$DATA/cora/tuffy_class
load "$dir/cora.sqlite" "$d/prog.mln" "$d/evidence.db"
run cora "$dir/cora.sqlite" -q category

d=$DATA/uwcse/tuffy_cse
load "$dir/uwcse.sqlite" "$d/prog.mln" "$d/evidence.db"
run uwcse "$dir/uwcse.sqlite" -q advisedBy
