#!/bin/sh
# scaling.sh: exact log Z as the domain grows (issue 22 item 5), three
# programs side by side on the same inputs, at the same time:
#   sqlift   `sqlift infer --method exact`, whole process (the load and
#            cubes before it excluded);
#   countsum bench/fs-countsum.c, a direct count-sum of friends-and-smokers
#            with unary evidence (the limit; friends-and-smokers only);
#   Forclift exact weighted first-order model counting (Van den Broeck et
#            al.), whole process with the JVM's start, and its own parse +
#            compile + count seconds as its driver prints them.
# Every run has a time limit (LIMIT s; "stop" past it, "fail" on an error;
# a program stopped at one size is not run at the larger ones: "-").  The
# log Z of every program that answers must agree to a relative 1e-9 with
# sqlift's (or with the first that answers); a disagreement is printed as
# DISAGREE in the row and on stderr, and the exit status is 1.
#
#   SQLIFT=path/to/sqlift [FORCLIFT=path/to/forclift] sh bench/scaling.sh [fs|fs0|fo2|all]
#
# Rows "MODEL+ev" have 40% evidence drawn per atom (fs.awk atom=1: each
# Smokes and each Cancer atom observed with probability 0.4, random truth
# value); rows "MODEL" none.  Smokes, Cancer and Friends are open-world.
# fs:  friends-and-smokers (fs.awk) with evidence, n = FS_SIZES
#      (10 20 50 200 800 5000 100000);
# fs0: the same without evidence, n = FS0_SIZES (100 500 2000);
# fo2: two-variable models and a hard clause, without evidence at
#      n = FO2_SIZES (100 500 2000), with at n = FO2EV_SIZES (10 100 500
#      2000):
#        sym      friends-and-smokers + 2.0 Friends(x, y) => Friends(y, x)
#        symhard  friends-and-smokers + Friends(x, y) => Friends(y, x).
#        fo2      0.7 Smokes(x) v Smokes(y); -0.4 Smokes(x) ^ Friends(x, y)
#                 => Cancer(x); 0.9 Smokes(x) ^ Smokes(y) => Friends(x, y);
#                 -1.3 Friends(x, x) v Cancer(x)
#        hard     1.5 Smokes(x) => Cancer(x); Smokes(x) ^ Friends(x, y)
#                 => Smokes(y).
#      (FO2_MODELS picks some.)
#
# FORCLIFT: a command taking one MLN file (evidence in it as hard unit
# formulas) that prints "log_z Z" and "seconds S" (bench/forclift-logz.scala;
# bench/README says how to build Forclift); unset or not executable: its
# columns say "-".  Times are medians of 3 runs for runs under SLOW (5) s.
# Use the real binary (SQLIFT=BUILD/.libs/sqlift, LD_LIBRARY_PATH=BUILD/.libs).
# Each program's wall seconds (*_s) and CPU seconds (*_cpu: user + system
# of the process, every thread; wall time on a busy machine is mostly
# waiting for a core, so compare the CPU columns there).  Ratios, by wall
# and by CPU: sqlift / countsum (goal: at most 10 on fs) and Forclift /
# sqlift (goal: at least 100 wherever Forclift answers).  BENCH_MD=1:
# markdown.
set -eu

SQLIFT=${SQLIFT:-./sqlift}
FORCLIFT=${FORCLIFT:-}
LIMIT=${LIMIT:-60}
SLOW=${SLOW:-5}
what=${1:-all}
bench=$(cd "$(dirname "$0")" && pwd)
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-scaling.XXXXXX")
trap 'rm -rf "$dir"' EXIT
bad=0
[ -n "$FORCLIFT" ] && ! command -v "$FORCLIFT" >/dev/null 2>&1 && FORCLIFT=
${CC:-cc} -O2 -o "$dir/fs-countsum" "$bench/fs-countsum.c" -lm

body() {  # model: its formulas (over person, Smokes, Cancer, Friends)
	case $1 in
	fs) printf '1.5 Smokes(x) => Cancer(x)\n1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n' ;;
	sym) body fs; printf '2.0 Friends(x, y) => Friends(y, x)\n' ;;
	symhard) body fs; printf 'Friends(x, y) => Friends(y, x).\n' ;;
	fo2) printf '0.7 Smokes(x) v Smokes(y)\n-0.4 Smokes(x) ^ Friends(x, y) => Cancer(x)\n'
	    printf '0.9 Smokes(x) ^ Smokes(y) => Friends(x, y)\n-1.3 Friends(x, x) v Cancer(x)\n' ;;
	hard) printf '1.5 Smokes(x) => Cancer(x)\nSmokes(x) ^ Friends(x, y) => Smokes(y).\n' ;;
	esac
}

# gen model n ev: $f.db (evidence), $f.sqlite (loaded, cubes built) and
# $f.fc.mln (Forclift's input: the domain's size with the constants of the
# evidence named, the evidence as hard unit formulas)
gen() {
	f=$dir/$1-$2
	if [ "$3" = 1 ]; then
		awk -v n="$2" -v r=40 -v evidence=1 -v atom=1 -f "$bench/fs.awk" >"$f.db"
	else
		: >"$f.db"
	fi
	decl='Smokes(person)\nCancer(person)\nFriends(person, person)\n'
	{
		printf 'person = {'
		awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%sP%d", i ? ", " : "", i }'
		printf "}\n$decl"
		body "$1"
	} >"$f.mln"
	{
		printf 'person = %d {%s}\n' "$2" "$(sed 's/^!*[A-Za-z]*(\(.*\))$/\1/' "$f.db" |
		    sort -u | paste -sd, - | sed 's/,/, /g')"
		printf "$decl"
		body "$1"
		sed 's/$/./' "$f.db"
	} >"$f.fc.mln"
	rm -f "$f.sqlite"
	"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null
	"$SQLIFT" cubes "$f.sqlite" >/dev/null
}

# timed CMD...: "WALL CPU" seconds (each the median of 3 runs, of 9 when
# the first takes under 50 ms, of 1 past SLOW s of wall), "stop" or "fail"; the last run's stdout in $dir/out.
# CPU is user + system of the process and its threads (a JVM's too):
# on a shared machine wall time is mostly waiting for a core, CPU time
# is not.  The time limit is kept by a timer thread (RUN) that kills the
# process, not a timeout process, whose own CPU would count, nor
# subprocess's wait(timeout), which polls with sleeps of 0.5, 1, 2, 4 ...
# 50 ms and so rounded a 6 ms run up to 7.8 or 15.9 ms.
RUN='
import resource, subprocess, sys, threading, time
def cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime
with open(sys.argv[2], "w") as out, open(sys.argv[3], "w") as err:
    c0, t0 = cpu(), time.perf_counter()
    p = subprocess.Popen(sys.argv[4:], stdout=out, stderr=err)
    killed = []
    timer = threading.Timer(float(sys.argv[1]),
                            lambda: (killed.append(1), p.kill()))
    timer.start()
    st = p.wait()  # blocks in waitpid: no polling
    t1, c1 = time.perf_counter(), cpu()
    timer.cancel()
    if killed:
        st = 124
print("%.4f %.4f" % (t1 - t0, c1 - c0))
sys.exit(st)
'
timed() {
	: >"$dir/times"
	i=0 runs=3
	while [ "$i" -lt "$runs" ]; do
		i=$((i + 1))
		st=0
		python3 -c "$RUN" "$LIMIT" "$dir/out" "$dir/err" "$@" \
		    >>"$dir/times" || st=$?
		[ "$st" = 124 ] && { echo stop; return; }
		[ "$st" = 0 ] || { echo fail; return; }
		# under 50 ms one disk sync's hiccup doubles a run: 9 runs
		[ "$i" = 1 ] && tail -n 1 "$dir/times" |
		    awk '{ exit !($1 < 0.05) }' && runs=9
		tail -n 1 "$dir/times" | awk -v s="$SLOW" '{ exit !($1 >= s) }' &&
		    break
	done
	echo "$(sort -g -k1 "$dir/times" | awk '{ v[NR] = $1 } END {
	    print v[int((NR + 1) / 2)] }') $(sort -g -k2 "$dir/times" |
	    awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }')"
}

# split "WALL CPU" (or stop, fail, -) into $w and $c
split_() {
	w=${1% *} c=-
	case $1 in *" "*) c=${1#* } ;; esac
}

# prog model n: sets s_PROG (seconds, stop, fail or -) and z_PROG (log Z or -)
sqlift_() {
	s_sq=- c_sq=- z_sq=-
	[ "$skip_sq" = 1 ] && return
	split_ "$(timed "$SQLIFT" infer "$dir/$1-$2.sqlite" --method exact \
	    --ow Smokes,Cancer,Friends)"
	s_sq=$w c_sq=$c
	case $s_sq in
	stop | fail) skip_sq=1 ;;
	*) z_sq=$(sqlite3 "$dir/$1-$2.sqlite" "SELECT printf('%.17g', log_z)
		FROM runs ORDER BY run_id DESC LIMIT 1") ;;
	esac
}
countsum_() {
	s_cs=- c_cs=- z_cs=-
	[ "$1" = fs ] || return 0
	split_ "$(timed "$dir/fs-countsum" "$2" "$dir/$1-$2.db")"
	s_cs=$w c_cs=$c
	case $s_cs in stop | fail) ;; *) z_cs=$(awk '{ print $2; exit }' "$dir/out") ;; esac
}
forclift_() {
	s_fc=- c_fc=- z_fc=- o_fc=-
	{ [ -z "$FORCLIFT" ] || [ "$skip_fc" = 1 ]; } && return
	split_ "$(timed "$FORCLIFT" "$dir/$1-$2.fc.mln")"
	s_fc=$w c_fc=$c
	case $s_fc in
	stop | fail) skip_fc=1 ;;
	*) z_fc=$(awk '$1 == "log_z" { print $2 }' "$dir/out")
	   o_fc=$(awk '$1 == "seconds" { print $2 }' "$dir/out") ;;
	esac
}

ratio() {  # a b: a / b, or - when either is not a time
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) { print "-"; exit }
		r = a / b; f = r >= 100 ? "%.0f" : r >= 10 ? "%.1f" : "%.2f"
		printf f, r }'
}

agree() {  # model n log-Z values...: "ok", "-" (one answer) or DISAGREE
	m=$1 n=$2
	shift 2
	echo "$@" | awk -v what="$m n=$n" '{
		for (i = 1; i <= NF; i++) if ($i != "-") { if (ref == "") ref = $i; else {
			k++; d = ($i - ref) / (ref == 0 ? 1 : ref); if (d < 0) d = -d
			if (d > 1e-9) { bad = 1; printf "scaling.sh: DISAGREE on %s: log Z %s against %s (relative %.1e)\n", what, $i, ref, d > "/dev/stderr" } } }
		print bad ? "**DISAGREE**" : k ? "ok" : "-"; exit bad }'
}

row() {  # model n ev
	gen "$@"
	skip_sq=${skip_sq:-0} skip_fc=${skip_fc:-0}
	sqlift_ "$1" "$2"
	countsum_ "$1" "$2"
	forclift_ "$1" "$2"
	label=$1
	[ "$3" = 1 ] && label=$1+ev
	a=$(agree "$label" "$2" "$z_sq" "$z_cs" "$z_fc") || bad=1
	z=$z_sq
	[ "$z" = - ] && z=$z_cs
	[ "$z" = - ] && z=$z_fc
	printf "$(fmt '%-10s %7s %9s %9s %9s %9s %9s %9s %9s %7s %7s %7s %7s %24s %6s\n')" \
	    "$label" "$2" "$s_sq" "$c_sq" "$s_cs" "$c_cs" "$s_fc" "$c_fc" "$o_fc" \
	    "$(ratio "$s_sq" "$s_cs")" "$(ratio "$c_sq" "$c_cs")" \
	    "$(ratio "$s_fc" "$s_sq")" "$(ratio "$c_fc" "$c_sq")" "$z" "$a"
}

header() {
	head_ '%-10s %7s %9s %9s %9s %9s %9s %9s %9s %7s %7s %7s %7s %24s %6s\n' \
	    model n sqlift_s sqlift_cpu countsum_s countsum_cpu forclift_s \
	    forclift_cpu fc_own_s sq/cs sq/cs_cpu fc/sq fc/sq_cpu "log Z" agree
}

echo "forclift: ${FORCLIFT:-not given}; time limit ${LIMIT} s per run"
if [ "$what" = fs ] || [ "$what" = all ]; then
	sec "friends-and-smokers, 40% evidence drawn per atom"
	header
	skip_sq=0 skip_fc=0
	for n in ${FS_SIZES:-10 20 50 200 800 5000 100000}; do
		row fs "$n" 1
	done
fi
if [ "$what" = fs0 ] || [ "$what" = all ]; then
	sec "friends-and-smokers without evidence"
	header
	skip_sq=0 skip_fc=0
	for n in ${FS0_SIZES:-100 500 2000}; do
		row fs "$n" 0
	done
fi
if [ "$what" = fo2 ] || [ "$what" = all ]; then
	sec "two-variable models and a hard clause"
	header
	for m in ${FO2_MODELS:-sym symhard fo2 hard}; do
		skip_sq=0 skip_fc=0
		for n in ${FO2_SIZES:-100 500 2000}; do
			row "$m" "$n" 0
		done
		skip_sq=0 skip_fc=0
		for n in ${FO2EV_SIZES:-10 100 500 2000}; do
			row "$m" "$n" 1
		done
	done
fi
exit $bad
