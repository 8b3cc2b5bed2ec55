#!/bin/sh
# run.sh NAME.fuzz: the test driver of make check-slow for one libFuzzer
# harness: runs tests/fuzz/fuzz_NAME for $FUZZ_SECONDS (60) seconds from
# the seed corpus $SRCDIR/tests/fuzz/NAME/, with the libFuzzer options
# NAME.fuzz holds.  SKIP (77) when the build has no harnesses (configure
# --enable-fuzzing); FAIL on a crash, leak, timeout or sanitizer report,
# whose input is kept in tests/fuzz/NAME.out/.
set -u
name=$(basename "$1" .fuzz)
bin=tests/fuzz/fuzz_$name
seeds=${SRCDIR:-.}/tests/fuzz/$name
if [ ! -x "$bin" ]; then
	echo "SKIP: $bin not built (./configure --enable-fuzzing)"
	exit 77
fi
out=tests/fuzz/$name.out
rm -rf "$out"
mkdir -p "$out/corpus" || exit 99
# the files the harness writes per input go to memory where there is some
tmp=$(mktemp -d /dev/shm/sqlift-fuzz.XXXXXX 2>/dev/null ||
    mktemp -d "${TMPDIR:-/tmp}/sqlift-fuzz.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
opts=$(sed 's/#.*//' "$1")
TMPDIR=$tmp "./$bin" -max_total_time="${FUZZ_SECONDS:-60}" \
    -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/" $opts "$out/corpus" "$seeds" >"$out/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$out/log")
n=$(ls "$out/corpus" | wc -l)
echo "fuzz_$name: ${runs:-?} executions in ${secs:-?} s, corpus $n inputs" \
    "(seeds $(ls "$seeds" | wc -l)), exit $rc"
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$out/log"
	ls "$out" | grep -e '^crash-' -e '^leak-' -e '^timeout-' -e '^oom-'
	exit 1
fi
rm -rf "$out"
