#!/bin/sh
# lbg-dumps.sh: issue 24 item 6, sqlift's samplers on the real dumps with
# all their evidence and query files: UW-CSE (tuffy_cse, advisedBy) and
# Cora (tuffy_class, category).  Per dump and method: SEEDS runs of
# DUMP_SECONDS each (4 chains on 2 threads, --seed 1..3); the spread of
# each unknown query atom's marginal between the runs (evidence atoms,
# fixed, left out) (max - min, as bench/marg-peers.sh
# measures the peers): its mean and largest, and the atoms spread by
# more than 0.1; the largest R-hat and the sweeps per chain of the runs;
# and, when REF_DIR holds DUMP.ref.sqlite, the mean and largest distance
# of the runs' marginals from the reference's.
#
#   SQLIFT=path/to/sqlift sh bench/lbg-dumps.sh
#   SQLIFT=path/to/sqlift REF_DIR=DIR sh bench/lbg-dumps.sh ref
#
# ref writes DIR/DUMP.ref.sqlite for each dump: REF_METHOD (lbg) with
# REF_CHAINS (8) chains from dispersed starts for REF_SECONDS (1800) on
# 2 threads, and prints its largest R-hat.  Knobs: DUMPS (uwcse cora),
# METHODS (lbg gibbs), SEEDS (1 2 3), DUMP_SECONDS (60), DATA.
set -eu

SQLIFT=${SQLIFT:-./sqlift}
SECONDS_=${DUMP_SECONDS:-60}
bench=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$bench/../../shared/data}
[ -d "$DATA" ] || DATA=/work/shared/data
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-lbgdumps.XXXXXX")
trap 'rm -rf "$dir"' EXIT

dump() {  # name: the folder and the query predicate
	case $1 in
	uwcse) echo "$DATA/uwcse/tuffy_cse advisedBy" ;;
	cora) echo "$DATA/cora/tuffy_class category" ;;
	esac
}

load() {  # name db
	set -- "$1" "$2" $(dump "$1")
	rm -f "$2"
	"$SQLIFT" load "$2" "$3/prog.mln" "$3/evidence.db" >/dev/null
}

if [ "${1:-}" = ref ]; then
	[ -n "${REF_DIR:-}" ] || { echo "lbg-dumps.sh ref: set REF_DIR" >&2; exit 2; }
	for d in ${DUMPS:-uwcse cora}; do
		set -- $(dump "$d")
		db=$REF_DIR/$d.ref.sqlite
		load "$d" "$db"
		"$SQLIFT" infer "$db" --method "${REF_METHOD:-lbg}" --exact-budget 0 \
		    -f "$1/query.db" --chains "${REF_CHAINS:-8}" --threads 2 \
		    --seed 101 --max-seconds "${REF_SECONDS:-1800}" >/dev/null 2>&1 || :
		sqlite3 "$db" "SELECT '$d: ' || method || ', ' || samples ||
		    ' sweeps per chain, max R-hat ' || (SELECT printf('%.4f',
		    max(rhat)) FROM run_groups) FROM runs"
	done
	exit 0
fi

echo "| dump | method | runs x s | sweeps per chain | mean spread | max spread | atoms spread > 0.1 | max R-hat | mean diff from ref | max diff from ref |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for d in ${DUMPS:-uwcse cora}; do
	set -- $(dump "$d")
	q=$1/query.db
	for m in ${METHODS:-lbg gibbs}; do
		runs=
		for s in ${SEEDS:-1 2 3}; do
			db=$dir/$d.$m.$s.sqlite
			load "$d" "$db"
			"$SQLIFT" infer "$db" --method "$m" --exact-budget 0 -f "$q" \
			    --seed "$s" --threads 2 --max-seconds "$SECONDS_" \
			    >/dev/null 2>"$dir/err" || :
			runs="$runs $db"
		done
		# per run: sweeps, largest R-hat, marginals as "atom p" lines
		sw= rh=
		for db in $runs; do
			sw=$sw${sw:+/}$(sqlite3 "$db" "SELECT coalesce(samples, 'failed') FROM runs")
			rh="$rh $(sqlite3 "$db" "SELECT coalesce(max(rhat), 0) FROM run_groups")"
			sqlite3 -separator ' ' "$db" "SELECT atom, probability FROM marginals WHERE group_id IS NOT NULL"
			echo "#END"
		done >"$dir/all"
		ref=${REF_DIR:-}/$d.ref.sqlite
		: >"$dir/ref"
		[ -z "${REF_DIR:-}" ] || [ ! -f "$ref" ] ||
			sqlite3 -separator ' ' "$ref" "SELECT atom, probability FROM marginals" >"$dir/ref"
		awk -v dump="$d" -v m="$m" -v n="$(echo $runs | wc -w)x$SECONDS_" \
		    -v sw="$sw" -v rh="$rh" -v reff="$dir/ref" '
		BEGIN { while ((getline l < reff) > 0) { split(l, f, " "); R[f[1]] = f[2]; nr++ } }
		$1 == "#END" { r++; next }
		{ p = $2 + 0; a = $1
		  if (!(a in lo) || p < lo[a]) lo[a] = p
		  if (!(a in hi) || p > hi[a]) hi[a] = p
		  if (nr && (a in R)) { x = p - R[a]; if (x < 0) x = -x
			dt += x; dn++; if (x > dm) dm = x } }
		END { nh = split(rh, h, " "); mh = 0
		      for (i = 1; i <= nh; i++) if (h[i] ~ /Inf/) mh = "Inf"
			  else if (mh != "Inf" && h[i] + 0 > mh) mh = h[i] + 0
		      for (a in lo) { s = hi[a] - lo[a]; t += s; k++
			if (s > mx) mx = s; if (s > 0.1) big++ }
		      if (!k) { printf "| %s | %s | %s | %s | failed | | | | | |\n", dump, m, n, sw; exit }
		      printf "| %s | %s | %s | %s | %.5f | %.4f | %d of %d | %s | %s | %s |\n",
			  dump, m, n, sw, t / k, mx, big, k,
			  mh == "Inf" ? mh : sprintf("%.4g", mh),
			  dn ? sprintf("%.5f", dt / dn) : "-", dn ? sprintf("%.4f", dm) : "-" }' "$dir/all"
	done
done
