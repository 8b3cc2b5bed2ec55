#!/bin/sh
# fig2.sh: the paper's Figure 2 (Gogate, Jha & Venugopal, AAAI 2012):
# the time lifted importance sampling needs against the number of WebKB
# pages and against the share of IMDB evidence, and against the persons
# of friends-and-smokers, beside ground-lis (the same sampler on the
# ground model) and lis on the Normal form (--constraints normal: every
# constant of the evidence its own block).  Methods: lis, ground-lis and
# normal with the default --exact-budget, and lis-b0 and ground-b0 with
# --exact-budget 0 (every branch sampled, nothing solved exactly: the
# paper's comparison of samplers).
#
#   SQLIFT=path/to/sqlift sh bench/fig2.sh [OUT.png]
#
# Use the real binary, not libtool's wrapper script: from a build
# folder, SQLIFT=.libs/sqlift LD_LIBRARY_PATH=.libs.
#
# Every run is `sqlift infer DB --method M --seed 1 --samples 1000
# --max-seconds LIMIT` under /usr/bin/time.  A row gives the wall
# seconds of the whole process (setup included), the samples drawn,
# log Z, its standard error, and T01: the seconds to a standard error
# of 0.01 in log Z, wall * (stderr / 0.01)^2 (the samples needed grow
# as the square of the error asked for; the setup is scaled with them,
# which overstates T01 a little), or the wall seconds when the run was
# exact (stderr 0); at least 0.01 s, the resolution of the timer.  Equal
# error, so T01 compares methods directly.
#
# WebKB: bench/webkb-pageclass.mln on the first k pages of
# webkb-fold12-train1.db (Cornell), query PageClassCourse and
# PageClassFaculty, the other predicates closed-world (as lis.sh).
# IMDB: fold 1 of lsm_kok with its learned weights, r% of the evidence
# atoms kept (a fixed random choice, each share within the next) over
# the fold's whole domain (declared in the model), query actor,
# director, gender, workedUnder.  Friends and smokers: bench/fs.awk, n
# persons, 40% of them with evidence on Smokes and Cancer, query Smokes
# (as lis.sh).
#
# With gnuplot, both series are drawn to OUT.png (default fig2.png in
# the current folder), T01 on a log scale.  Knobs: DATA (the shared data
# folder), LIMIT (30), WEBKB_PAGES (10 20 40 80 160 272), IMDB_SHARES
# (0 20 40 60 80 100), IMDB_Z (1: log Z alone, no marginals: the four
# predicates open-world, not queried), FS_SIZES (50 100 200 400),
# METHODS (lis lis-b0 ground-lis ground-b0 normal).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
LIMIT=${LIMIT:-30}
out=${1:-fig2.png}
bench=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DATA:-}" ]; then
	DATA=$bench/../../shared/data
	[ -d "$DATA" ] || DATA=/work/shared/data
fi
methods=${METHODS:-lis lis-b0 ground-lis ground-b0 normal}
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-fig2.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# run series x db method [infer options]: one row, also appended to
# $dir/series.dat as "x T01"
run() {
	series=$1 x=$2 db=$3 m=$4
	shift 4
	case $m in
	normal) set -- --method lis --constraints normal "$@" ;;
	lis-b0) set -- --method lis --exact-budget 0 "$@" ;;
	lis-pairs) set -- --method lis --marginals pairs "$@" ;;
	lis-counts) set -- --method lis --marginals counts "$@" ;;
	ground-b0) set -- --method ground-lis --exact-budget 0 "$@" ;;
	*) set -- --method "$m" "$@" ;;
	esac
	if /usr/bin/time -f '%e' -o "$dir/time" "$SQLIFT" infer "$db" \
	    --seed 1 --samples 1000 --max-seconds "$LIMIT" "$@" \
	    >/dev/null 2>"$dir/err"; then
		wall=$(tail -n 1 "$dir/time")
		sqlite3 -separator ' ' "$db" "SELECT samples, printf('%.4f',
		    log_z), printf('%.3g', log_z_stderr), printf('%.4g',
		    max(0.01, CASE WHEN log_z_stderr > 0 THEN $wall *
		    (log_z_stderr / 0.01) * (log_z_stderr / 0.01) ELSE $wall
		    END)) FROM runs WHERE
		    run_id = (SELECT max(run_id) FROM runs)" >"$dir/row"
		read -r s z se t <"$dir/row"
		printf "$(fmt '%-6s %5s %-10s %8s %7s %15s %8s %10s\n')" "$series" "$x" \
		    "$m" "$wall" "$s" "$z" "$se" "$t"
		echo "$x $t" >>"$dir/$series-$m.dat"
	else
		printf "$(fmt '%-6s %5s %-10s %s\n')" "$series" "$x" "$m" \
		    "failed: $(tail -n 1 "$dir/err")"
	fi
}

head_ '%-6s %5s %-10s %8s %7s %15s %8s %10s\n' data x method wall_s \
    samples "log Z" stderr T01_s

ev=$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db
cw=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
cw=$cw,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
grep -o 'Pid[0-9]*' "$ev" | sort -u | sed 's/Pid//' | sort -n >"$dir/pids"
for k in ${WEBKB_PAGES:-10 20 40 80 160 272}; do
	head -n "$k" "$dir/pids" >"$dir/keep"
	awk -f "$bench/webkb-pages.awk" "$dir/keep" "$ev" >"$dir/webkb.db"
	for m in $methods; do
		rm -f "$dir/webkb.sqlite"
		"$SQLIFT" load "$dir/webkb.sqlite" "$bench/webkb-pageclass.mln" \
		    "$dir/webkb.db" >/dev/null
		run webkb "$k" "$dir/webkb.sqlite" "$m" --cw "$cw" \
		    -q PageClassCourse,PageClassFaculty
	done
done

d=$DATA/imdb/lsm_kok
# the domain of every type, from the whole fold (bench/imdb-domain.awk)
awk -f "$bench/imdb-domain.awk" "$d/imdb-rules-out.mln" "$d/imdb1.db" \
    >"$dir/imdb.mln"
cat "$d/imdb-rules-out.mln" >>"$dir/imdb.mln"
# IMDB_Z=1: log Z alone, the four predicates open-world but not queried
imdbq=-q
[ "${IMDB_Z:-0}" = 1 ] && imdbq=--ow
for r in ${IMDB_SHARES:-0 20 40 60 80 100}; do
	awk -v r="$r" 'BEGIN { srand(7) } rand() * 100 < r' "$d/imdb1.db" \
	    >"$dir/imdb.db"
	for m in $methods; do
		rm -f "$dir/imdb.sqlite"
		"$SQLIFT" load "$dir/imdb.sqlite" "$dir/imdb.mln" "$dir/imdb.db" \
		    >/dev/null
		run imdb "$r" "$dir/imdb.sqlite" "$m" \
		    "$imdbq" actor,director,gender,workedUnder
	done
done

for n in ${FS_SIZES:-50 100 200 400}; do
	awk -v n="$n" -f "$bench/fs.awk" >"$dir/fs.mln"
	awk -v n="$n" -v r=40 -v evidence=1 -f "$bench/fs.awk" >"$dir/fs.db"
	for m in $methods; do
		rm -f "$dir/fs.sqlite"
		"$SQLIFT" load "$dir/fs.sqlite" "$dir/fs.mln" "$dir/fs.db" >/dev/null
		run fs "$n" "$dir/fs.sqlite" "$m" --ow Smokes,Cancer -q Smokes
	done
done

command -v gnuplot >/dev/null || exit 0
{
	echo "set terminal png size 1440,480"
	echo "set output '$out'"
	echo "set multiplot layout 1,3"
	echo "set logscale y"
	echo "set ylabel 'seconds to stderr 0.01 in log Z'"
	echo "set key below horizontal"
	for s in webkb imdb fs; do
		case $s in
		webkb) echo "set title 'WebKB (Cornell)'; set xlabel 'pages'" ;;
		imdb) echo "set title 'IMDB fold 1'; set xlabel 'evidence %'" ;;
		fs) echo "set title 'friends and smokers, 40% evidence'"
		    echo "set xlabel 'persons'" ;;
		esac
		sep="plot"
		for m in $methods; do
			[ -s "$dir/$s-$m.dat" ] || continue
			printf "%s '%s' using 1:2 with linespoints title '%s'" \
			    "$sep" "$dir/$s-$m.dat" "$m"
			sep=","
		done
		echo
	done
	echo "unset multiplot"
} >"$dir/plot.gp"
gnuplot "$dir/plot.gp"
echo "# drawn to $out"
