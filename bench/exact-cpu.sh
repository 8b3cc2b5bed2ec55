#!/bin/sh
# exact-cpu.sh: the per-process cost of `sqlift infer --method exact` on
# bench/scaling.sh's inputs, two builds side by side (issue 22 item 5):
# CPU seconds (user + system, of the whole process), voluntary context
# switches (each a wait: an fsync, a lock) and wall seconds, the median
# of REPEAT runs interleaved (old, new, new, old, ...), each on a fresh
# copy of the same loaded database; then whether the two agree: the runs
# row (without times and runs.stats) and the marginals of a second run
# with -q Smokes,Cancer, reals as %.17g.  A difference is printed as
# DIFFERENT and the exit status is 1.
#
#   OLD=path/to/old/sqlift NEW=path/to/new/sqlift [REPEAT=9] sh bench/exact-cpu.sh
#
# Give the real binaries (BUILD/.libs/sqlift): the libraries are taken
# from the binary's folder.  CASES: "model:n:ev ..." (scaling.sh's
# models; ev 1: 40% evidence drawn per atom).  BENCH_MD=1: markdown.
set -eu

OLD=${OLD:?OLD=path/to/old/sqlift}
NEW=${NEW:?NEW=path/to/new/sqlift}
REPEAT=${REPEAT:-9}
CASES=${CASES:-"fs:10:1 fs:800:1 fs:5000:1 fs:100000:1 fs:2000:0 sym:2000:0 symhard:2000:0 fo2:2000:0 hard:2000:0"}
bench=$(cd "$(dirname "$0")" && pwd)
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-exactcpu.XXXXXX")
trap 'rm -rf "$dir"' EXIT
bad=0

# body MODEL: the model's formulas, scaling.sh's own function
eval "$(sed -n '/^body() {/,/^}/p' "$bench/scaling.sh")"

# sq SIDE ARGS...: the binary of SIDE (old or new) with its libraries
sq() {
	b=$OLD
	[ "$1" = new ] && b=$NEW
	shift
	LD_LIBRARY_PATH=$(dirname "$b") "$b" "$@"
}

# timed FILE SIDE ARGS...: appends "wall_us cpu_us voluntary_switches"
# (the children's rusage before the run is subtracted: a Python may
# start helpers of its own)
TIMER='
import resource, subprocess, sys, time
def kids():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime, ru.ru_nvcsw
c0, s0 = kids()
t0 = time.perf_counter()
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, check=True)
t1 = time.perf_counter()
c1, s1 = kids()
with open(sys.argv[1], "a") as f:
    print(int((t1 - t0) * 1e6), int((c1 - c0) * 1e6), s1 - s0, file=f)
'
timed() {
	tf=$1 b=$OLD
	[ "$2" = new ] && b=$NEW
	shift 2
	LD_LIBRARY_PATH=$(dirname "$b") python3 -c "$TIMER" "$tf" "$b" "$@"
}

median() {  # FILE COLUMN
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

# what users read of the last run: the runs row without times and stats,
# and its marginals
dump() {
	sqlite3 "$1" "SELECT method, status, printf('%.17g', log_z), seed,
	    parameters, queries, job_file, unknown_atoms, query_atoms,
	    model_fingerprint, printf('%.17g', log_z_stderr), samples, ess, proposal,
	    evidence_fingerprint, error, warnings FROM runs ORDER BY run_id;
	    SELECT run_id, atom, printf('%.17g', probability), group_id, printf('%.17g', stderr)
	    FROM marginals ORDER BY 1, 2;"
}

echo "old: $OLD"
echo "new: $NEW"
head_ '%-10s %7s %9s %9s %7s %6s %6s %8s %8s %10s\n' model n old_cpu_s new_cpu_s \
    new/old old_cs new_cs old_wall new_wall results
for c in $CASES; do
	IFS=: read -r m n ev <<EOF
$c
EOF
	f=$dir/$m-$n-$ev
	if [ "$ev" = 1 ]; then
		awk -v n="$n" -v r=40 -v evidence=1 -v atom=1 -f "$bench/fs.awk" >"$f.db"
	else
		: >"$f.db"
	fi
	{
		printf 'person = {'
		awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%sP%d", i ? ", " : "", i }'
		printf '}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n'
		body "$m"
	} >"$f.mln"
	sq old load "$f.base" "$f.mln" "$f.db" >/dev/null
	sq old cubes "$f.base" >/dev/null
	: >"$f.t.old"
	: >"$f.t.new"
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		order="old new"
		[ $((i % 2)) = 1 ] && order="new old"
		for side in $order; do
			cp "$f.base" "$f.$side.sqlite"
			timed "$f.t.$side" "$side" infer "$f.$side.sqlite" --method exact \
			    --ow Smokes,Cancer,Friends
		done
		i=$((i + 1))
	done
	for side in old new; do
		sq "$side" infer "$f.$side.sqlite" --method exact --ow Friends \
		    -q Smokes,Cancer >/dev/null
		dump "$f.$side.sqlite" >"$f.dump.$side"
	done
	same=same
	cmp -s "$f.dump.old" "$f.dump.new" || { same=DIFFERENT bad=1
		echo "exact-cpu.sh: $m n=$n ev=$ev: results differ" >&2
		diff "$f.dump.old" "$f.dump.new" | head -5 >&2; }
	co=$(median "$f.t.old" 2) cn=$(median "$f.t.new" 2)
	label=$m
	[ "$ev" = 1 ] && label=$m+ev
	printf "$(fmt '%-10s %7s %9.4f %9.4f %7.2f %6s %6s %8.4f %8.4f %10s\n')" \
	    "$label" "$n" "$(echo "$co" | awk '{ print $1 / 1e6 }')" \
	    "$(echo "$cn" | awk '{ print $1 / 1e6 }')" \
	    "$(awk -v a="$cn" -v b="$co" 'BEGIN { print a / b }')" \
	    "$(median "$f.t.old" 3)" "$(median "$f.t.new" 3)" \
	    "$(median "$f.t.old" 1 | awk '{ print $1 / 1e6 }')" \
	    "$(median "$f.t.new" 1 | awk '{ print $1 / 1e6 }')" "$same"
	rm -f "$f".*.sqlite* "$f.base"
done
exit $bad
