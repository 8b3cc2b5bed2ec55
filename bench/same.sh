#!/bin/sh
# same.sh: two sqlift binaries side by side on the same inputs and seeds.
# Each step (a load, cubes, explain or infer command) runs through both
# binaries on a fresh database of its own; after each step the script
# compares, between the two, the command's exit status, stdout and stderr
# and what users read in the database: the runs rows (log Z, status,
# parameters, atom counts, errors...), the marginals (run_marginals, the
# marginals view, run_groups, run_trace) and the evidence (the
# evidence_atoms view, evidence_files), reals printed with %.17g.  Left
# out: times (*_at, seconds), ids (run_id, file_id), the version
# (sqlift_version), runs.stats (the search's own counts) and every column
# that one of the two schemas lacks (new in the newer one), so that two
# builds of different schema versions that give the same answers read
# "same".  WHOLE=1 compares the whole database instead, for two builds
# that must be bit-identical (a refactoring): the schema and every row of
# every table (cubes, blocks, the catalogue...) without the times and
# the "*seconds" keys of runs.stats.  It prints one markdown
# row per workload (STEPS=1: and one per step): same or DIFFERENT (with
# the first step that differs), the wall and CPU (user + system) times
# of each binary (the sum over the steps of the median of REPEAT runs,
# interleaved: old then new, then new then old, ...), and new/old.
#
#   OLD=path/to/old/sqlift NEW=path/to/new/sqlift sh bench/same.sh [quick|all|WORKLOAD...]
#
# Give the real binaries (BUILD/.libs/sqlift); the libraries are then
# taken from the binary's own folder (LD_LIBRARY_PATH), so no wrapper
# is needed.  A libtool wrapper script (BUILD/sqlift) is replaced by its
# .libs/sqlift.  Every sample count is fixed (--samples) and no run has
# --max-seconds, so the results do not depend on speed.  explain runs
# only where it finishes well within the exact search's built-in 10 s
# (explain has no --max-seconds; on Cora and UW-CSE its plan stops at
# 10 s and so depends on speed).
#
# A step is DIFFERENT when its exit status, output or changes to the
# database differ; the steps of a workload share one database, so a
# later step that does the same on both sides says "after an earlier
# difference" (a row of STEPS=1).  Exits 1 if a step differs; else 3
# if new/old is above MAXRATIO on a workload whose old time is at least
# NOISE seconds, or on the total of those workloads (a shorter
# workload's ratio is printed with "noise" and never fails); else 0.
# CLOCK says which time is checked: cpu (the default) or wall.  CPU
# time is the default because on a shared machine the wall time of a
# step depends on what else runs (identical binaries differ by 1.3-1.9x
# in wall time on a 2-core machine running other builds); use
# CLOCK=wall on an idle machine, where it is the user's measure.
# quick (a few small workloads) takes about 2 minutes on an idle 2-core
# machine; all (every workload of bench/: load, cubes, exact, kazemi,
# lis, fig2 and blocks inputs) about 20.  `sh bench/same.sh list`
# names the workloads; they can be given one by one instead of a mode.
#
# Knobs (environment): REPEAT (3), CLOCK (cpu), MAXRATIO (1.05), NOISE (0.1 s), STEPS, WHOLE,
# TOL (a relative tolerance, such as 1e-9: a step whose results differ
# only in numbers within it reads "same to TOL"; for builds whose search
# differs, which reorders sums; default: bit for bit), DATA (the shared data folder, default ../shared/data next to the
# repository, else /work/shared/data), KEEP (a folder: the results of
# each DIFFERENT step are kept there for diff; default: the diff's first
# lines go to stderr).
set -eu

REPEAT=${REPEAT:-3}
MAXRATIO=${MAXRATIO:-1.05}
NOISE=${NOISE:-0.1}
bench=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DATA:-}" ]; then
	DATA=$bench/../../shared/data
	[ -d "$DATA" ] || DATA=/work/shared/data
fi
me=same.sh

die() {
	echo "$me: $*" >&2
	exit 2
}

QUICK='fs-tiny fs-50 imdb1 webkb-10 kazemi-5 kazemi-12 kazemi-17'
ALL="$QUICK load-250k imdb2 imdb3 imdb4 imdb1-shares webkb-40 webkb-272
cora uwcse cubes-webkb cubes-fs exact-sizes exact-evidence exact-large
kazemi-all fs-400"

if [ "${1:-}" = list ]; then
	echo "quick: $QUICK"
	echo "all:   $(echo $ALL)"
	exit 0
fi
[ -n "${OLD:-}" ] && [ -n "${NEW:-}" ] || die "set OLD and NEW to the two sqlift binaries"

# resolve PATH: prints "BINARY LIBDIR" (LIBDIR "-" if the binary needs none)
resolve() {
	b=$1
	[ -f "$b" ] || die "no file $b"
	if [ "$(head -c 2 "$b")" = '#!' ] &&
	    [ -x "$(dirname "$b")/.libs/$(basename "$b")" ]; then
		echo "$me: $b is libtool's wrapper; using its .libs binary" >&2
		b=$(dirname "$b")/.libs/$(basename "$b")
	fi
	[ -x "$b" ] || die "$b is not executable"
	d=$(cd "$(dirname "$b")" && pwd)
	b=$d/$(basename "$b")
	if ls "$d"/libsqlift.so* >/dev/null 2>&1; then
		echo "$b $d"
	else
		echo "$b -"
	fi
}
set -- "${@:-quick}"
r=$(resolve "$OLD") && old_bin=${r% *} old_lib=${r#* }
r=$(resolve "$NEW") && new_bin=${r% *} new_lib=${r#* }
[ "$old_lib" = - ] && old_lib=${LD_LIBRARY_PATH:-}
[ "$new_lib" = - ] && new_lib=${LD_LIBRARY_PATH:-}
[ -d "$DATA/imdb" ] || die "no data folder $DATA (set DATA)"
command -v sqlite3 >/dev/null || die "needs the sqlite3 shell"

case $1 in
quick) set -- $QUICK ;;
all) set -- $ALL ;;
esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-same.XXXXXX")
trap 'rm -rf "$dir"' EXIT
inp=$dir/in
mkdir "$inp"
db=$dir/db.sqlite

# The dump: SQL (gen.sql) that writes SQL selecting the tables compared,
# one text line a row, sorted; a value quote()d, a real printed with %.17g.
cell() {
	echo "CASE typeof(\"$1\") WHEN 'real' THEN printf('%.17g', \"$1\") ELSE quote(\"$1\") END"
}
if [ "${WHOLE:-0}" = 1 ]; then
	# the schema, then every column of every table but times
	cat >"$dir/gen.sql" <<'X'
SELECT 'SELECT ''-- schema'';';
SELECT 'SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name;';
SELECT 'SELECT ''-- ' || m.name || ''';' || char(10) || 'SELECT ' ||
    (SELECT group_concat(CASE
        WHEN p.name = 'stats' THEN '(SELECT json_group_object(key, value)'
            || ' FROM json_each(stats) WHERE key NOT LIKE ''%seconds%'')'
        ELSE 'CASE typeof("' || p.name || '") WHEN ''real'' THEN printf(''%.17g'', "'
            || p.name || '") ELSE quote("' || p.name || '") END'
        END, ' || ''|'' || ')
     FROM pragma_table_info(m.name) p
     WHERE p.name NOT LIKE '%\_at' ESCAPE '\' AND p.name <> 'seconds')
    || ' FROM "' || m.name || '" ORDER BY 1;'
FROM sqlite_master m WHERE m.type = 'table' ORDER BY m.name;
X
else
	# what users read, in the columns both schemas have: each binary
	# loads a small model, and of the tables and views compared the
	# columns both databases hold are kept
	USER_TABLES="runs run_marginals marginals run_groups run_trace evidence_atoms evidence_files"
	mkdir "$dir/probe"
	printf '%s\n' 'p = {A, B}' 'R(p)' 'S(p, p)' '1 R(x) => S(x, y)' \
	    >"$dir/probe/m.mln"
	echo 'R(A)' >"$dir/probe/e.db"
	for side in old new; do
		if [ $side = old ]; then
			bin=$old_bin lib=$old_lib
		else
			bin=$new_bin lib=$new_lib
		fi
		LD_LIBRARY_PATH=$lib "$bin" load "$dir/probe/$side.sqlite" \
		    "$dir/probe/m.mln" "$dir/probe/e.db" >/dev/null ||
		    die "$bin cannot load a small model"
		for t in $USER_TABLES; do
			sqlite3 "$dir/probe/$side.sqlite" "SELECT '$t ' || name
			    FROM pragma_table_info('$t') WHERE name NOT IN ('run_id',
			    'file_id', 'seconds', 'sqlift_version', 'stats') AND
			    name NOT LIKE '%\\_at' ESCAPE '\\'"
		done | LC_ALL=C sort >"$dir/probe/$side.cols"
	done
	LC_ALL=C comm -12 "$dir/probe/old.cols" "$dir/probe/new.cols" \
	    >"$dir/probe/cols"
	[ -s "$dir/probe/cols" ] || die "the two schemas have no column in common"
	for t in $USER_TABLES; do
		cols=$(awk -v t="$t" '$1 == t { print $2 }' "$dir/probe/cols")
		[ -n "$cols" ] || continue
		sel=
		for c in $cols; do
			sel="${sel:+$sel || '|' || }$(cell "$c")"
		done
		# the SELECT runs only where the table or view exists
		q=$(printf '%s' "SELECT '-- $t'; SELECT $sel FROM \"$t\" ORDER BY 1;" |
		    sed "s/'/''/g")
		echo "SELECT '$q' FROM sqlite_master WHERE name = '$t';"
	done >"$dir/gen.sql"
fi

# awk -v old=OLD -f close.awk NEW: exit 0 if the two files differ only in numbers,
# each within TOL of the other (relative to the larger)
cat >"$dir/close.awk" <<'X'
function nums(s, v,   n) {
	n = 0
	while (match(s, /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
		v[++n] = substr(s, RSTART, RLENGTH) + 0
		s = substr(s, RSTART + RLENGTH)
	}
	return n
}
function abs(x) { return x < 0 ? -x : x }
{
	if ((getline o < old) <= 0)
		exit 1
	a = o; b = $0
	re = "-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?"
	gsub(re, "#", a); gsub(re, "#", b)
	if (a != b)
		exit 1
	n = nums(o, x); nums($0, y)
	for (i = 1; i <= n; i++) {
		m = abs(x[i]) > abs(y[i]) ? abs(x[i]) : abs(y[i])
		if (abs(x[i] - y[i]) > tol * m)
			exit 1
	}
}
END { if ((getline o < old) > 0) exit 1 }
X
# a table row; the ratio of CLOCK decides: "noise" under NOISE s
cat >"$dir/row.awk" <<'X'
function ratio(o, n) { return o > 0 ? sprintf("%.3f", n / o) : "-" }
BEGIN {
	o = col == 1 ? wo : co
	n = col == 1 ? wn : cn
	x = ""
	if (o < z * 1e6)
		x = "noise"
	else if (n > o * m)
		x = "SLOWER"
	printf "| %s | %s | %.3f | %.3f | %s | %.3f | %.3f | %s | %s |\n", l, r,
	    wo / 1e6, wn / 1e6, ratio(wo, wn), co / 1e6, cn / 1e6, ratio(co, cn), x
}
X

dump() {
	sqlite3 "$db" <"$dir/gen.sql" >"$dir/dump.sql"
	sqlite3 "$db" <"$dir/dump.sql"
}

# python3 -c "$TIMER" FILE COMMAND...: runs COMMAND, appends its wall
# and CPU (user + system) microseconds to FILE, exits with its status
TIMER='
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, st, ru = os.wait4(pid, 0)
t1 = time.perf_counter()
with open(sys.argv[1], "a") as f:
    print(int((t1 - t0) * 1e6), int((ru.ru_utime + ru.ru_stime) * 1e6), file=f)
sys.exit(os.waitstatus_to_exitcode(st))
'

# st LABEL COMMAND [ARGS]: runs `sqlift COMMAND DB ARGS` with the binary
# of $side; records its wall time, and on the first trial its results
st() {
	k=$((k + 1))
	echo "$1" >"$dir/label.$k"
	c=$2
	shift 2
	rc=0
	LD_LIBRARY_PATH=$lib python3 -c "$TIMER" "$dir/time.$side.$k" \
	    "$bin" "$c" "$db" "$@" >"$dir/out" 2>"$dir/err" || rc=$?
	if [ "$trial" = 1 ]; then
		# the step's own effect: its output and what it changed in
		# the database (lines gone and lines new in the sorted dump)
		dump | LC_ALL=C sort >"$dir/full.$side.$k"
		p=$dir/full.$side.$((k - 1))
		[ -f "$p" ] || p=/dev/null
		{
			echo "exit $rc"
			# explain's plan describes the search, as runs.stats
			if [ "$c" = explain ] && [ "${WHOLE:-0}" != 1 ]; then
				echo "(explain's plan not compared)"
			else
				cat "$dir/out"
			fi
			cat "$dir/err"
			LC_ALL=C comm -3 "$p" "$dir/full.$side.$k"
		} >"$dir/res.$side.$k"
		echo "$rc" >"$dir/rc.$k"
	fi
}

fresh() {
	rm -f "$db" "$db-journal" "$db-wal" "$db-shm"
}

# Inputs, made once (before any timed step).  fs N R: bench/fs.awk's
# model of N persons and R% evidence, as exact.sh, lis.sh and fig2.sh.
fs() {
	f=$inp/fs-$1-$2
	[ -f "$f.db" ] && return 0
	awk -v n="$1" -f "$bench/fs.awk" >"$f.mln"
	awk -v n="$1" -v r="$2" -v evidence=1 -f "$bench/fs.awk" >"$f.db"
}

# webkb K: lis.sh's first K pages of Cornell, without the query's
# evidence when K is 272 (as lis.sh)
CW=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
CW=$CW,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
webkb() {
	[ -f "$inp/webkb$1.db" ] && return 0
	ev=$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db
	if [ "$1" = 272 ]; then
		grep -v '^PageClass\(Course\|Faculty\)(' "$ev" >"$inp/webkb$1.db"
		return 0
	fi
	grep -o 'Pid[0-9]*' "$ev" | sort -u | sed 's/Pid//' | sort -n |
	    head -n "$1" >"$inp/keep"
	awk -f "$bench/webkb-pages.awk" "$inp/keep" "$ev" >"$inp/webkb$1.db"
}

IMDB=$DATA/imdb/lsm_kok
Q4=actor,director,gender,workedUnder

# imdb F: load and cubes of fold F, and lis.sh's rows, samples fixed
imdb() {
	fresh
	st "imdb$1 load" load "$IMDB/imdb-rules-out.mln" "$IMDB/imdb$1.db"
	st "imdb$1 cubes" cubes
	st "imdb$1 explain q1" explain -q workedUnder
	st "imdb$1 exact q1" infer --method exact -q workedUnder
	st "imdb$1 lis q4" infer --method lis --seed 1 --samples 1000 -q $Q4
	st "imdb$1 lis q4 budget=0" infer --method lis --seed 1 --samples 1000 \
	    --exact-budget 0 -q $Q4
	st "imdb$1 ground-lis q1 budget=10" infer --method ground-lis --seed 1 \
	    --samples 300 --exact-budget 10 -q workedUnder
	st "imdb$1 lis normal q1 budget=0" infer --method lis --seed 1 \
	    --samples 300 --constraints normal --exact-budget 0 -q workedUnder
}

# fsrows N: lis.sh's friends-and-smokers rows
fsrows() {
	fs "$1" 40
	f=$inp/fs-$1-40
	fresh
	st "fs n=$1 load" load "$f.mln" "$f.db"
	st "fs n=$1 cubes" cubes
	st "fs n=$1 exact" infer --method exact --ow Smokes,Cancer -q Smokes
	st "fs n=$1 exact normal, 20000 nodes" infer --method exact \
	    --constraints normal --max-nodes 20000 --ow Smokes,Cancer -q Smokes
	st "fs n=$1 lis budget=10" infer --method lis --seed 1 --samples 1000 \
	    --exact-budget 10 --ow Smokes,Cancer -q Smokes
	st "fs n=$1 lis budget=0" infer --method lis --seed 1 --samples "$2" \
	    --exact-budget 0 --ow Smokes,Cancer -q Smokes
	st "fs n=$1 lis budget=0 threads=2" infer --method lis --seed 1 \
	    --samples "$2" --threads 2 --exact-budget 0 --ow Smokes,Cancer -q Smokes
	st "fs n=$1 ground-lis budget=0" infer --method ground-lis --seed 1 \
	    --samples "$2" --exact-budget 0 --ow Smokes,Cancer -q Smokes
	st "fs n=$1 lis normal budget=0" infer --method lis --seed 1 \
	    --samples "$2" --constraints normal --exact-budget 0 \
	    --ow Smokes,Cancer -q Smokes
}

# kazemi ID...: kazemi.sh's graphs, the four orders
kazemi() {
	for g; do
		awk -v id="$g" -f "$bench/kazemi.awk" "$bench/kazemi-graphs.txt" \
		    >"$inp/g$g.mln"
		fresh
		st "kazemi $g load" load "$inp/g$g.mln"
		for o in min-fill rel-min-fill population min-table; do
			st "kazemi $g exact $o" infer --method exact --order $o \
			    --max-nodes 2000000
		done
	done
}

# wrun WORKLOAD: the steps of one workload
wrun() {
	case $1 in
	fs-tiny)
		fs 3 40
		fresh
		st "fs n=3 load" load "$inp/fs-3-40.mln" "$inp/fs-3-40.db"
		st "fs n=3 brute" infer --method brute --ow Smokes,Cancer -q Smokes
		st "fs n=3 exact" infer --method exact --ow Smokes,Cancer -q Smokes
		st "fs n=3 lis budget=0" infer --method lis --seed 1 --samples 300 \
		    --exact-budget 0 --ow Smokes,Cancer -q Smokes,Friends
		st "fs n=3 lis pairs" infer --method lis --seed 2 --samples 300 \
		    --exact-budget 0 --marginals pairs --ow Smokes,Cancer -q Smokes
		st "fs n=3 lis counts uniform" infer --method lis --seed 3 \
		    --samples 300 --exact-budget 0 --marginals counts \
		    --proposal uniform --ow Smokes,Cancer -q Smokes
		;;
	fs-50) fsrows 50 300 ;;
	fs-400) fsrows 400 20 ;;
	imdb[1-4]) imdb "${1#imdb}" ;;
	imdb1-shares)
		# fig2.sh's IMDB points: fold 1's domain, r% of its evidence
		awk -f "$bench/imdb-domain.awk" "$IMDB/imdb-rules-out.mln" \
		    "$IMDB/imdb1.db" >"$inp/imdbd.mln"
		cat "$IMDB/imdb-rules-out.mln" >>"$inp/imdbd.mln"
		for r in 0 40 100; do
			awk -v r="$r" 'BEGIN { srand(7) } rand() * 100 < r' \
			    "$IMDB/imdb1.db" >"$inp/imdb-$r.db"
			fresh
			st "imdb1 $r% load" load "$inp/imdbd.mln" "$inp/imdb-$r.db"
			st "imdb1 $r% lis q4" infer --method lis --seed 1 \
			    --samples 50 -q $Q4
			st "imdb1 $r% ground-lis q4" infer --method ground-lis \
			    --seed 1 --samples 100 -q $Q4
		done
		;;
	webkb-*)
		pg=${1#webkb-}
		webkb "$pg"
		n=1000
		[ "$pg" -gt 20 ] && n=100
		[ "$pg" -gt 100 ] && n=50
		fresh
		st "webkb k=$pg load" load "$bench/webkb-pageclass.mln" "$inp/webkb$pg.db"
		st "webkb k=$pg cubes" cubes
		if [ "$pg" -le 20 ]; then
			st "webkb k=$pg exact" infer --method exact --cw "$CW" \
			    -q PageClassCourse,PageClassFaculty
		fi
		st "webkb k=$pg lis" infer --method lis --seed 1 --samples $n \
		    --cw "$CW" -q PageClassCourse,PageClassFaculty
		st "webkb k=$pg lis budget=0" infer --method lis --seed 1 \
		    --samples $n --exact-budget 0 --cw "$CW" \
		    -q PageClassCourse,PageClassFaculty
		st "webkb k=$pg ground-lis" infer --method ground-lis --seed 1 \
		    --samples $n --cw "$CW" -q PageClassCourse,PageClassFaculty
		;;
	cora)
		d=$DATA/cora/tuffy_class
		fresh
		st "cora load" load "$d/prog.mln" "$d/evidence.db"
		st "cora cubes" cubes
		st "cora lis path" infer --method lis --seed 1 --samples 30 \
		    --marginals path -q category
		;;
	uwcse)
		d=$DATA/uwcse/tuffy_cse
		fresh
		st "uwcse load" load "$d/prog.mln" "$d/evidence.db"
		st "uwcse cubes" cubes
		st "uwcse lis" infer --method lis --seed 1 --samples 20 -q advisedBy
		st "uwcse ground-lis" infer --method ground-lis --seed 1 \
		    --samples 20 -q advisedBy
		;;
	cubes-webkb)
		# cubes.sh's WebKB (alchemy_craven) universities
		for u in cornell texas washington; do
			fresh
			st "webkb-$u load" load "$bench/webkb-craven.mln" \
			    "$DATA"/webkb/alchemy_craven/background/[acn]*.$u.db \
			    "$DATA"/webkb/alchemy_craven/background/page-classes.$u.db
			st "webkb-$u cubes" cubes
		done
		;;
	cubes-fs)
		# cubes.sh's friends-and-smokers: its own model and evidence
		printf '%s\n' 'Smokes(person)' 'Cancer(person)' \
		    'Friends(person, person)' '1.5 Smokes(x) => Cancer(x)' \
		    '1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)' >"$inp/fsc.mln"
		for n in 1000 100000; do
			awk -v n="$n" -v r=40 -v evidence=1 -f "$bench/fs.awk" >"$inp/fsc$n.db"
			fresh
			st "cubes fs-$n load" load "$inp/fsc.mln" "$inp/fsc$n.db"
			st "cubes fs-$n cubes" cubes
		done
		;;
	load-250k)
		# load.sh's 250,000 scrambled atoms, as a .db file and as CSV
		if [ ! -f "$inp/ld/evidence.db" ]; then
			mkdir -p "$inp/ld/csv"
			awk -v n=250000 -v order=scrambled -v dir="$inp/ld" \
			    -f "$bench/gen-evidence.awk"
		fi
		fresh
		st "load 250k .db" load "$inp/ld/model.mln" "$inp/ld/evidence.db"
		fresh
		st "load 250k csv" load "$inp/ld/model.mln" "$inp/ld/csv"
		;;
	exact-sizes)
		# exact.sh sizes: 40% evidence; the Normal form to a node limit
		for n in 200 400 800; do
			fs $n 40
			fresh
			st "exact n=$n load" load "$inp/fs-$n-40.mln" "$inp/fs-$n-40.db"
			st "exact n=$n cubes" cubes
			st "exact n=$n setineq" infer --method exact --ow Smokes,Cancer
			st "exact n=$n normal, 50000 nodes" infer --method exact \
			    --ow Smokes,Cancer --constraints normal --max-nodes 50000
		done
		;;
	exact-evidence)
		for r in 0 50 100; do
			fs 500 $r
			fresh
			st "exact n=500 r=$r load" load "$inp/fs-500-$r.mln" "$inp/fs-500-$r.db"
			st "exact n=500 r=$r setineq" infer --method exact \
			    --ow Smokes,Cancer
		done
		;;
	exact-large)
		for n in 10000 100000; do
			fs $n 40
			fresh
			st "exact n=$n load" load "$inp/fs-$n-40.mln" "$inp/fs-$n-40.db"
			st "exact n=$n cubes" cubes
			st "exact n=$n setineq" infer --method exact --ow Smokes,Cancer
		done
		;;
	kazemi-all) kazemi 1 2 3 4 6 7 8 9 10 11 13 14 15 16 18 ;;
	kazemi-*) kazemi "${1#kazemi-}" ;;
	*) die "no workload $1 (sh bench/same.sh list)" ;;
	esac
}

# median FILE COLUMN: the median of that column of FILE
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -n |
	    awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

case ${CLOCK:=cpu} in
wall) col=1 ;;
cpu) col=2 ;;
*) die "CLOCK is wall or cpu" ;;
esac
differ=0 slower=0
echo "same.sh $*: old $old_bin, new $new_bin; REPEAT=$REPEAT, CLOCK=$CLOCK, MAXRATIO=$MAXRATIO, NOISE=$NOISE s; $(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
echo "| workload | result | old wall s | new wall s | new/old | old CPU s | new CPU s | new/old | |"
echo "|---|---|--:|--:|--:|--:|--:|--:|---|"
: >"$dir/totals"
for w; do
	trial=0
	rm -f "$dir"/time.* "$dir"/res.* "$dir"/full.* "$dir"/label.* "$dir"/rc.*
	while [ "$trial" -lt "$REPEAT" ]; do
		trial=$((trial + 1))
		if [ $((trial % 2)) = 1 ]; then
			sides='old new'
		else
			sides='new old'
		fi
		for side in $sides; do
			if [ "$side" = old ]; then
				bin=$old_bin lib=$old_lib
			else
				bin=$new_bin lib=$new_lib
			fi
			k=0
			wrun "$w"
		done
	done
	i=0 wres=same nd=0 nt=0
	: >"$dir/wtimes"
	while [ "$i" -lt "$k" ]; do
		i=$((i + 1))
		label=$(cat "$dir/label.$i")
		res=
		if cmp -s "$dir/res.old.$i" "$dir/res.new.$i"; then
			res=same
		elif [ -n "${TOL:-}" ] && awk -v tol="$TOL" -v old="$dir/res.old.$i" \
		    -f "$dir/close.awk" "$dir/res.new.$i"; then
			res="same to $TOL"
			nt=$((nt + 1))
		fi
		if [ -n "$res" ]; then
			[ "$(cat "$dir/rc.$i")" = 0 ] || res="$res (exit $(cat "$dir/rc.$i"))"
			cmp -s "$dir/full.old.$i" "$dir/full.new.$i" || {
				[ -n "${TOL:-}" ] && awk -v tol="$TOL" \
				    -v old="$dir/full.old.$i" -f "$dir/close.awk" \
				    "$dir/full.new.$i"
			} || res="$res, after an earlier difference"
		else
			res=DIFFERENT
			differ=1
			nd=$((nd + 1))
			[ "$nd" = 1 ] && wres="DIFFERENT ($label"
			if [ -n "${KEEP:-}" ]; then
				mkdir -p "$KEEP"
				f=$(echo "$label" | tr -c 'A-Za-z0-9=.\n-' _)
				cp "$dir/res.old.$i" "$KEEP/$f.old"
				cp "$dir/res.new.$i" "$KEEP/$f.new"
			else
				echo "$me: $label differs:" >&2
				diff "$dir/res.old.$i" "$dir/res.new.$i" | head -n 20 >&2 || :
			fi
		fi
		wo=$(median "$dir/time.old.$i" 1) wn=$(median "$dir/time.new.$i" 1)
		co=$(median "$dir/time.old.$i" 2) cn=$(median "$dir/time.new.$i" 2)
		echo "$wo $wn $co $cn" >>"$dir/wtimes"
		if [ "${STEPS:-0}" = 1 ]; then
			awk -v l="  $label" -v r="$res" -v wo="$wo" -v wn="$wn" \
			    -v co="$co" -v cn="$cn" -v col="$col" -v m="$MAXRATIO" \
			    -v z="$NOISE" -f "$dir/row.awk"
		fi
	done
	[ "$nd" = 0 ] && [ "$nt" -gt 0 ] && wres="same to $TOL ($nt of $k steps)"
	[ "$nd" -gt 1 ] && wres="$wres and $((nd - 1)) more"
	[ "$nd" -gt 0 ] && wres="$wres)"
	set -- $(awk '{ wo += $1; wn += $2; co += $3; cn += $4 }
	    END { print wo + 0, wn + 0, co + 0, cn + 0 }' "$dir/wtimes")
	echo "$*" >>"$dir/totals"
	row=$(awk -v l="$w ($k steps)" -v r="$wres" -v wo="$1" -v wn="$2" \
	    -v co="$3" -v cn="$4" -v col="$col" -v m="$MAXRATIO" \
	    -v z="$NOISE" -f "$dir/row.awk")
	echo "$row"
	case $row in *SLOWER*) slower=1 ;; esac
done
# the total of the workloads whose old time (by CLOCK) is NOISE s or more
set -- $(awk -v z="$NOISE" -v col="$col" '
	$(col == 1 ? 1 : 3) >= z * 1e6 { wo += $1; wn += $2; co += $3; cn += $4; c++ }
	END { print c + 0, wo + 0, wn + 0, co + 0, cn + 0 }' "$dir/totals")
if [ "$1" -gt 0 ]; then
	row=$(awk -v l="total of the $1 workloads of $NOISE s or more" -v r= \
	    -v wo="$2" -v wn="$3" -v co="$4" -v cn="$5" -v col="$col" \
	    -v m="$MAXRATIO" -v z=0 -f "$dir/row.awk")
	echo "$row"
	case $row in *SLOWER*) slower=1 ;; esac
fi
echo
if [ "$differ" = 1 ]; then
	echo "same.sh: FAILED: results differ (DIFFERENT rows)"
	exit 1
elif [ "$slower" = 1 ]; then
	echo "same.sh: FAILED: the same results, but slower than $MAXRATIO x (SLOWER rows)"
	exit 3
fi
echo "same.sh: every step the same; no ratio above $MAXRATIO"
