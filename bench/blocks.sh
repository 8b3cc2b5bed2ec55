#!/bin/sh
# blocks.sh: how much symmetry the evidence of each real dataset leaves,
# as lifted inference sees it.  For every type of the loaded theory
# (`sqlift explain`, the setineq form), the constants, the blocks they
# fall into (constants in one block are interchangeable: the same
# evidence, up to renaming), and how many constants share a block with
# another.  Where nearly every constant is a block of its own, the
# lifted theory is the ground theory, and lifted and ground samplers do
# the same work: no lifted method can be much faster there.
#
#   SQLIFT=path/to/sqlift sh bench/blocks.sh
#
# Datasets and queries as in lis.sh: IMDB fold 1 (lsm_kok, query
# workedUnder), WebKB's Cornell (all 272 pages, query PageClassCourse
# and PageClassFaculty), Cora classification (query category), UW-CSE
# (tuffy_cse, query advisedBy); and IMDB fold 1's domain without
# evidence, for contrast.  Knob: DATA (the shared data folder).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
bench=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DATA:-}" ]; then
	DATA=$bench/../../shared/data
	[ -d "$DATA" ] || DATA=/work/shared/data
fi
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-blocks.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# show NAME DB [explain options]: a row per type
show() {
	name=$1 db=$2
	shift 2
	"$SQLIFT" explain "$db" "$@" | awk -v name="$name" \
	    -v f="$(fmt '%-12s %-10s %9d %9d %9d %7.1f%%\n')" '
	$1 == "type" {
		n = 0; c = 0; shared = 0
		for (i = 3; i <= NF; i++) {
			split($i, a, "=")
			n++
			c += a[2]
			if (a[2] > 1)
				shared += a[2]
		}
		sub(":", "", $2)
		printf f, name, $2, c, n,
		    shared, c ? 100 * shared / c : 0
	}'
}

load() {  # db model evidence
	rm -f "$1"
	"$SQLIFT" load "$@" >/dev/null
}

head_ '%-12s %-10s %9s %9s %9s %8s\n' data type constants blocks shared \
    shared%

d=$DATA/imdb/lsm_kok
awk -f "$bench/imdb-domain.awk" "$d/imdb-rules-out.mln" "$d/imdb1.db" \
    >"$dir/imdb.mln"
cat "$d/imdb-rules-out.mln" >>"$dir/imdb.mln"
: >"$dir/none.db"
load "$dir/imdb0.sqlite" "$dir/imdb.mln" "$dir/none.db"
show "imdb1 0%" "$dir/imdb0.sqlite" -q workedUnder
load "$dir/imdb1.sqlite" "$d/imdb-rules-out.mln" "$d/imdb1.db"
show imdb1 "$dir/imdb1.sqlite" -q workedUnder

ev=$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db
cw=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
cw=$cw,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
grep -v '^PageClass\(Course\|Faculty\)(' "$ev" >"$dir/webkb.db"
load "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" "$dir/webkb.db"
show webkb "$dir/webkb.sqlite" --cw "$cw" -q PageClassCourse,PageClassFaculty

d=$DATA/cora/tuffy_class
load "$dir/cora.sqlite" "$d/prog.mln" "$d/evidence.db"
show cora "$dir/cora.sqlite" -q category

d=$DATA/uwcse/tuffy_cse
load "$dir/uwcse.sqlite" "$d/prog.mln" "$d/evidence.db"
show uwcse "$dir/uwcse.sqlite" -q advisedBy
