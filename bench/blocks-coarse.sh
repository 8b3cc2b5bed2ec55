#!/bin/sh
# blocks-coarse.sh: the domain blocks before and after issue 23 (blocks
# as coarse as the evidence allows, evidence cubes that split a block
# folded as orbits with = and != constraints), the two binaries side by
# side on the same database: the blocks of the stored table, the blocks
# of the theory (`explain`), exact inference (status, search nodes,
# seconds, peak RSS) and lis with a fixed number of samples (ESS,
# seconds).  Only the blocks change: an exact run that ends gives the
# same log Z and marginals with both (checked: the log Z column).
#
#   OLD=path/to/old/sqlift NEW=path/to/new/sqlift sh bench/blocks-coarse.sh
#
# Datasets: the four IMDB folds (lsm_kok) with one query predicate
# (workedUnder) and with four (actor, director, gender, workedUnder),
# UW-CSE (tuffy_cse, advisedBy) and Cora (tuffy_class, category).
# Knobs: DATA (the shared data folder), LIMIT (--max-seconds of an exact
# run, 60), SAMPLES (lis samples, 200), ONLY (imdb, uwcse or cora).
set -eu

OLD=${OLD:?set OLD to the sqlift before}
NEW=${NEW:-./sqlift}
LIMIT=${LIMIT:-60}
SAMPLES=${SAMPLES:-200}
bench=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DATA:-}" ]; then
	DATA=$bench/../../shared/data
	[ -d "$DATA" ] || DATA=/work/shared/data
fi
. "$bench/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-coarse.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# stored BIN DB: blocks of the table after BIN's `cubes`
stored() {
	cp "$2" "$dir/s.sqlite"
	"$1" cubes "$dir/s.sqlite" >/dev/null
	sqlite3 "$dir/s.sqlite" "SELECT count(*) FROM (SELECT DISTINCT type_id, block FROM blocks)"
}

# theory BIN DB QUERIES: blocks of the theory
theory() {
	"$1" explain "$2" -q "$3" 2>/dev/null |
	    awk '$1 == "type" { n += NF - 2 } END { print n + 0 }'
}

# run BIN DB QUERIES METHOD [options]: "status nodes seconds rss_mb log_z ess"
run() {
	bin=$1 db=$2 q=$3 meth=$4
	shift 4
	cp "$db" "$dir/r.sqlite"
	# exact stops itself at LIMIT; lis draws all its samples
	/usr/bin/time -f '%e %M' -o "$dir/time" timeout $((LIMIT * 10)) \
	    "$bin" infer "$dir/r.sqlite" -m "$meth" -q "$q" "$@" \
	    >/dev/null 2>"$dir/err" || true
	# the last line: time writes "Command exited ..." before it
	wall=$(tail -n 1 "$dir/time" | cut -d ' ' -f 1)
	rss=$(tail -n 1 "$dir/time" | cut -d ' ' -f 2)
	sqlite3 -separator ' ' "$dir/r.sqlite" "SELECT status,
	    coalesce(json_extract(stats, '\$.nodes'), '-'), '$wall',
	    $rss / 1024, CASE WHEN log_z IS NULL THEN '-' ELSE
	    printf('%.9f', log_z) END,
	    coalesce(printf('%.1f', ess), '-') FROM runs" 2>/dev/null |
	    tail -n 1 | grep . || echo "none - $wall $((rss / 1024)) - -"
}

row() {  # name query-label db queries
	name=$1 ql=$2 db=$3 q=$4
	so=$(stored "$OLD" "$db") sn=$(stored "$NEW" "$db")
	to=$(theory "$OLD" "$db" "$q") tn=$(theory "$NEW" "$db" "$q")
	# shellcheck disable=SC2046 # fields
	set -- $(run "$OLD" "$db" "$q" exact --max-seconds "$LIMIT") \
	    $(run "$NEW" "$db" "$q" exact --max-seconds "$LIMIT") \
	    $(run "$OLD" "$db" "$q" lis --seed 1 --samples "$SAMPLES") \
	    $(run "$NEW" "$db" "$q" lis --seed 1 --samples "$SAMPLES")
	# shellcheck disable=SC2059 # the format is fmt's
	printf "$(fmt '%-6s %-3s %5s %5s %5s %5s %-8s %-8s %9s %9s %7s %7s %6s %6s %-16s %-16s %7s %7s %6s %6s\n')" \
	    "$name" "$ql" "$so" "$sn" "$to" "$tn" "$1" "$7" "$2" "$8" "$3" "$9" \
	    "$4" "${10}" "$5" "${11}" "${18}" "${24}" "${15}" "${21}"
}

sec "Blocks before (old) and after (new) issue 23; exact --max-seconds $LIMIT, lis --seed 1 --samples $SAMPLES"
head_ '%-6s %-3s %5s %5s %5s %5s %-8s %-8s %9s %9s %7s %7s %6s %6s %-16s %-16s %7s %7s %6s %6s\n' \
    data q stored stored theory theory exact exact nodes nodes sec sec MB MB \
    'log Z' 'log Z' ESS ESS 'lis s' 'lis s'
# shellcheck disable=SC2059 # the format is fmt's
printf "$(fmt '%-6s %-3s %5s %5s %5s %5s %-8s %-8s %9s %9s %7s %7s %6s %6s %-16s %-16s %7s %7s %6s %6s\n')" \
    '' '' old new old new old new old new old new old new old new old new old new

if [ -z "${ONLY:-}" ] || [ "$ONLY" = imdb ]; then
	d=$DATA/imdb/lsm_kok
	for f in 1 2 3 4; do
		rm -f "$dir/imdb.sqlite"
		"$NEW" load "$dir/imdb.sqlite" "$d/imdb-rules-out.mln" \
		    "$d/imdb$f.db" >/dev/null
		row "imdb$f" q1 "$dir/imdb.sqlite" workedUnder
		row "imdb$f" q4 "$dir/imdb.sqlite" actor,director,gender,workedUnder
	done
fi
if [ -z "${ONLY:-}" ] || [ "$ONLY" = uwcse ]; then
	d=$DATA/uwcse/tuffy_cse
	"$NEW" load "$dir/uwcse.sqlite" "$d/prog.mln" "$d/evidence.db" >/dev/null
	row uwcse q1 "$dir/uwcse.sqlite" advisedBy
fi
if [ -z "${ONLY:-}" ] || [ "$ONLY" = cora ]; then
	d=$DATA/cora/tuffy_class
	"$NEW" load "$dir/cora.sqlite" "$d/prog.mln" "$d/evidence.db" >/dev/null
	row cora q1 "$dir/cora.sqlite" category
fi
