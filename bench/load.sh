#!/bin/sh
# load.sh: evidence loading benchmark (issue 2).  For each size N it
# generates a friends-and-smokers model and N distinct evidence atoms
# (bench/gen-evidence.awk), then times on a fresh database each
#   sqlite3 .import   the same rows as integer triples into a WITHOUT ROWID
#                     table keyed like sqlift's (the baseline)
#   sqlift .db        sqlift load DB model.mln evidence.db
#   sqlift csv        sqlift load DB model.mln csv/  (Friends.csv, ...)
# and prints wall seconds, atoms per second, peak RSS and the ratio to the
# baseline's time, after checking that evidence_atoms holds exactly N
# atoms with the expected number of false ones.  `make benchmark` in the
# build folder runs it; README tells more, RESULTS.md the figures so far.
#
# Environment:
#   SQLIFT        the sqlift binary (default ./sqlift)
#   SQLITE3       the sqlite3 shell (default sqlite3)
#   BENCH_DIR     work folder (default: a temporary one, removed at exit)
#   BENCH_SIZES   atom counts (default "250000 500000 1000000")
#   BENCH_ORDERS  atom orders: "scrambled" (pairs in a pseudo-random order,
#                 the default case) and/or "sorted" (pairs enumerated in
#                 key order, the best case) (default "scrambled sorted")
#   BENCH_REPEAT  runs of each measurement; the median times and the
#                 largest RSS are reported (default 3)
#   BENCH_TARGET  atoms per second to meet (default 500000)
set -eu

SQLIFT=${SQLIFT:-./sqlift}
SQLITE3=${SQLITE3:-sqlite3}
SIZES=${BENCH_SIZES:-250000 500000 1000000}
ORDERS=${BENCH_ORDERS:-scrambled sorted}
REPEAT=${BENCH_REPEAT:-3}
TARGET=${BENCH_TARGET:-500000}
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/gen-evidence.awk
. "$here/md.sh"
me=load.sh

die() {
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

if [ ! -x /usr/bin/time ]; then
	die "/usr/bin/time is missing: install Debian's 'time' package" \
	    "(apt-get install time) and run again"
fi
case $SQLIFT in
*/*) [ -x "$SQLIFT" ] || die "no sqlift binary at $SQLIFT (set SQLIFT)" ;;
*) command -v "$SQLIFT" >/dev/null 2>&1 ||
	die "no sqlift binary '$SQLIFT' (set SQLIFT)" ;;
esac
command -v "$SQLITE3" >/dev/null 2>&1 ||
	die "no sqlite3 shell '$SQLITE3': apt-get install sqlite3, or set SQLITE3"
[ -r "$gen" ] || die "cannot read $gen"
case $REPEAT in
'' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;;
esac

if [ -n "${BENCH_DIR:-}" ]; then
	dir=$BENCH_DIR
	mkdir -p "$dir"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-bench.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi
results=$dir/results.tsv
: >"$results"

# timed LOG CMD...: runs CMD under /usr/bin/time; sets secs (wall), cpu
# (user + system seconds) and kib (peak RSS).
timed() {
	log=$1
	shift
	if ! /usr/bin/time -f '%e %M %U %S' -o "$dir/time.out" "$@" >"$log" 2>&1; then
		cat "$log" >&2
		die "failed: $*"
	fi
	read -r secs kib usr sys <"$dir/time.out" ||
		die "cannot read /usr/bin/time output: $(cat "$dir/time.out")"
	cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}

# check DB EXPECTED SQL WHAT: fails loudly unless SQL on DB prints EXPECTED.
check() {
	got=$("$SQLITE3" "$1" "$3") || die "$4: sqlite3 failed on $1"
	[ "$got" = "$2" ] ||
		die "WRONG RESULT: $4: expected '$2' from \"$3\", got '$got'"
}

# measure KIND N DIR: REPEAT loads, each into a fresh database; sets med
# and medcpu (the median wall and CPU seconds) and rss (the largest peak
# RSS, KiB).
measure() {
	m_kind=$1 m_n=$2 m_d=$3
	m_db=$m_d/bench.sqlite
	read -r want_n want_false <"$m_d/counts"
	[ "$want_n" = "$m_n" ] || die "generator wrote $want_n atoms, not $m_n"
	m_times=
	m_cpus=
	rss=0
	m_r=0
	while [ "$m_r" -lt "$REPEAT" ]; do
		m_r=$((m_r + 1))
		rm -f "$m_db" "$m_db-journal" "$m_db-wal" "$m_db-shm"
		case $m_kind in
		sqlite3)
			timed "$m_d/log" "$SQLITE3" "$m_db" ".read $m_d/import.sql"
			check "$m_db" "$m_n $want_false" \
			    "SELECT count(*) || ' ' || sum(truth = 0) FROM ev" \
			    "sqlite3 .import of $m_n rows"
			;;
		db | csv)
			if [ "$m_kind" = db ]; then
				m_ev=$m_d/evidence.db
			else
				m_ev=$m_d/csv
			fi
			timed "$m_d/log" "$SQLIFT" load "$m_db" "$m_d/model.mln" "$m_ev"
			grep -q "^loaded $m_n evidence atoms" "$m_d/log" ||
				die "WRONG RESULT: sqlift load $m_kind, n=$m_n said:" \
				    "$(cat "$m_d/log")"
			check "$m_db" "$m_n" "SELECT count(*) FROM evidence_atoms" \
			    "sqlift load $m_kind, n=$m_n"
			check "$m_db" "$want_false" \
			    "SELECT count(*) FROM evidence_atoms WHERE truth = 0" \
			    "sqlift load $m_kind, n=$m_n (false atoms)"
			;;
		esac
		m_times="$m_times $secs"
		m_cpus="$m_cpus $cpu"
		if [ "$kib" -gt "$rss" ]; then
			rss=$kib
		fi
	done
	rm -f "$m_db" "$m_db-journal"
	# shellcheck disable=SC2086 # the lists split into one time each
	med=$(median $m_times) medcpu=$(median $m_cpus)
}

# prepare N ORDER DIR: generates the inputs and the baseline's script.
prepare() {
	rm -rf "$3"
	mkdir -p "$3/csv"
	awk -v n="$1" -v order="$2" -v dir="$3" -f "$gen" ||
		die "gen-evidence.awk failed for n=$1"
	{
		echo "CREATE TABLE ev (a0 INTEGER NOT NULL, a1 INTEGER NOT NULL,"
		echo "  truth INTEGER NOT NULL, PRIMARY KEY (a0, a1)) WITHOUT ROWID;"
		echo ".mode csv"
		echo ".import $3/pairs.csv ev"
	} >"$3/import.sql"
}

median() {
	printf '%s\n' "$@" | sort -n |
	    awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

row() { # ORDER KIND N SECS CPU KIB BASE
	awk -v o="$1" -v k="$2" -v n="$3" -v s="$4" -v c="$5" -v m="$6" \
	    -v b="$7" -v f="$(fmt '%-10s %-8s %8d %8.2f %7.2f %10s %8.1f %6s\n')" 'BEGIN {
		rate = s > 0 ? sprintf("%.0f", n / s) : "-"
		ratio = b > 0 ? sprintf("%.2f", s / b) : "-"
		printf f, o, k, n, s, c,
		    rate, m / 1024, ratio
	}'
}

uname_m=$(uname -m)
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null |
    head -n 1)
echo "sqlift evidence loading benchmark"
echo "sqlift:  $SQLIFT ($("$SQLIFT" --version 2>/dev/null | head -n 1))"
echo "sqlite3: $("$SQLITE3" -version | cut -d' ' -f1)"
echo "machine: $(nproc) cores, ${cpu_model:-unknown CPU} ($uname_m); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "runs:    median of $REPEAT (wall and CPU = user + system seconds);" \
    "peak RSS: the largest"
echo "ratio:   wall time / the sqlite3 .import's wall time for the same rows"
echo "atoms/s: atoms / wall time"

# a small warm-up, which also checks the whole path once
prepare 1000 scrambled "$dir/warm"
saved=$REPEAT
REPEAT=1
for k in sqlite3 db csv; do
	measure "$k" 1000 "$dir/warm"
done
REPEAT=$saved
rm -rf "$dir/warm"

echo
head_ '%-10s %-8s %8s %8s %7s %10s %8s %6s\n' order input atoms wall_s \
    cpu_s atoms/s RSS_MiB ratio
for order in $ORDERS; do
	case $order in
	scrambled | sorted) ;;
	*) die "unknown order '$order' in BENCH_ORDERS" ;;
	esac
	for n in $SIZES; do
		d=$dir/$order-$n
		prepare "$n" "$order" "$d"
		measure sqlite3 "$n" "$d"
		base=$med
		row "$order" sqlite3 "$n" "$med" "$medcpu" "$rss" "$base"
		printf '%s\tsqlite3\t%s\t%s\t%s\t%s\t%s\n' "$order" "$n" "$med" \
		    "$rss" "$base" "$medcpu" >>"$results"
		for kind in db csv; do
			measure "$kind" "$n" "$d"
			row "$order" "$kind" "$n" "$med" "$medcpu" "$rss" "$base"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$order" "$kind" "$n" \
			    "$med" "$rss" "$base" "$medcpu" >>"$results"
		done
		[ -n "${BENCH_DIR:-}" ] || rm -rf "$d"
	done
done

# verdicts: speed at the largest N; peak RSS between the two largest N
echo
awk -F '\t' -v target="$TARGET" '
$2 != "sqlite3" {
	key = $1 " " $2
	if (!(key in nmax) || $3 + 0 > nmax[key]) {
		nmax[key] = $3 + 0; smax[key] = $4; rmax[key] = $5; bmax[key] = $6
	}
	if (!(key in nmin) || $3 + 0 < nmin[key]) {
		nmin[key] = $3 + 0; rmin[key] = $5
	}
	# memory is judged between the two largest loads: the page cache and
	# the chunk buffer of sqlift are fixed sizes that small loads do not fill
	sizes[key, $3 + 0] = $5
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
}
function second(k,    s, best, rest) {
	best = -1
	for (s in sizes) {
		split(s, rest, SUBSEP)
		if (rest[1] == k && rest[2] + 0 < nmax[k] && rest[2] + 0 > best)
			best = rest[2] + 0
	}
	return best
}
END {
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		if (smax[k] <= 0) {
			printf "speed  %-14s %8d atoms: too fast to time\n", k, nmax[k]
			continue
		}
		rate = nmax[k] / smax[k]
		if (rate >= target)
			v = "target met"
		else
			v = sprintf("target MISSED by %.0f%% (%.2fx too slow)",
			    100 * (1 - rate / target), target / rate)
		ratio = bmax[k] > 0 ? smax[k] / bmax[k] : 0
		printf "speed  %-14s %8d atoms: %7.0f atoms/s vs %d: %s;" \
		    " %.2fx the sqlite3 .import time\n", k, nmax[k], rate, target,
		    v, ratio
	}
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		n2 = second(k)
		if (n2 < 0) { n2 = nmin[k] }
		r2 = sizes[k, n2]
		g = r2 > 0 ? 100 * (rmax[k] - r2) / r2 : 0
		# flat: at most 10% or 1 MiB more between the two largest loads
		# (past 1,000,000 atoms, where the SQLite 8 MiB page cache, a
		# bound, is full: 500,000 -> 1,000,000 grows while it fills)
		v = (g <= 10 || rmax[k] - r2 <= 1024) ? "flat" : "GROWS"
		printf "memory %-14s %8d -> %d atoms: %.1f -> %.1f MiB (%+.1f%%): %s" \
		    " (smallest load: %.1f MiB)\n", k, n2, nmax[k], r2 / 1024,
		    rmax[k] / 1024, g, v, rmin[k] / 1024
	}
}' "$results"
