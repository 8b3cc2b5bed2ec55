#!/bin/sh
# fuzz.sh: runs libFuzzer harnesses of an --enable-fuzzing build to a
# number of executions each, one at a time, niced, and prints one
# markdown row per harness: executions, seconds, exec/s, coverage (cov:
# edges, ft: features), the corpus kept, and crashes (the inputs kept).
#
#   BUILD=path/to/fuzz-build sh bench/fuzz.sh [NAME...]
#
# NAME: mln query db csv job sqlite (default all six).  Each harness
# runs `tests/fuzz/fuzz_NAME -runs=$RUNS -timeout=20 -rss_limit_mb=2048`
# with the options of tests/fuzz/NAME.fuzz, from the corpus kept in
# $CORPUS/NAME (made if missing, so a run continues the last one's)
# plus the seeds tests/fuzz/NAME/, its per-input files in memory
# (/dev/shm) where there is some.  A crash, leak, timeout or sanitizer
# report stops that harness (exit 1 at the end); its input and log are
# kept in $CORPUS.  Knobs: RUNS (1000000), CORPUS (fuzz-corpus in the
# current folder), NICE (19).  On 2 cores shared with other work, give
# it hours: fuzz_sqlite does about 200-400 executions a second, fuzz_db
# and fuzz_csv 600-900, the others 9,000-15,000 (docs/internals/fuzz.md).
set -u

RUNS=${RUNS:-1000000}
NICE=${NICE:-19}
bench=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$bench/.." && pwd)
[ -n "${BUILD:-}" ] || { echo "fuzz.sh: set BUILD to an --enable-fuzzing build folder" >&2; exit 2; }
CORPUS=$(mkdir -p "${CORPUS:-fuzz-corpus}" && cd "${CORPUS:-fuzz-corpus}" && pwd)
set -- "${@:-mln query db csv job sqlite}"
set -- $*
tmp=$(mktemp -d /dev/shm/sqlift-fuzz.XXXXXX 2>/dev/null ||
    mktemp -d "${TMPDIR:-/tmp}/sqlift-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

echo "fuzz.sh $*: RUNS=$RUNS, nice $NICE; $(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
echo "| harness | executions | seconds | exec/s | cov | ft | corpus | result |"
echo "|---|--:|--:|--:|--:|--:|--:|---|"
fail=0
for n; do
	bin=$BUILD/tests/fuzz/fuzz_$n
	if [ ! -x "$bin" ]; then
		echo "| fuzz_$n | | | | | | | not built (make -C BUILD tests/fuzz/fuzz_$n) |"
		fail=1
		continue
	fi
	mkdir -p "$CORPUS/$n" "$tmp/$n"
	log=$CORPUS/$n.log
	opts=$(sed 's/#.*//' "$src/tests/fuzz/$n.fuzz")
	t0=$(date +%s)
	TMPDIR=$tmp/$n nice -n "$NICE" "$bin" -runs="$RUNS" -timeout=20 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$CORPUS/$n-" $opts "$CORPUS/$n" \
	    "$src/tests/fuzz/$n" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	last=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
	cov=$(echo "$last" | awk '{ print $2 }')
	ft=$(echo "$last" | awk '{ print $4 }')
	res=ok
	if [ "$rc" != 0 ]; then
		res="exit $rc: $(ls "$CORPUS" | grep "^$n-" | tr '\n' ' ')"
		fail=1
	fi
	printf '| fuzz_%s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
	    "${runs:-?}" "$secs" "$(awk -v r="${runs:-0}" -v s="$secs" \
	    'BEGIN { printf "%.0f", (s > 0 ? r / s : 0) }')" "${cov:--}" \
	    "${ft:--}" "$(ls "$CORPUS/$n" | wc -l)" "$res"
done
exit $fail
