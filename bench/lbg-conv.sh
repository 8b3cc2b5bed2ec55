#!/bin/sh
# lbg-conv.sh: issue 24 item 7, convergence against time on Venugopal and
# Gogate's models (bench/lbg.sh's M1 to M4, 10% of the ground atoms
# observed), the samplers run one after another in one script:
#
# - KL on M1 and M2 at KL_N (50) objects: the mean over the unknown
#   atoms of KL(reference || estimate) of their Bernoulli marginals
#   (estimates clipped to [1e-6, 1 - 1e-6]).  The exact search does not
#   answer these models with per-atom evidence on their binary
#   predicates, so the reference is lbg with 8 chains for REF_SECONDS
#   (120) on 2 threads, whose largest R-hat the table shows: with it
#   near 1, KL below about 1e-5 is the reference's own error.  (Before
#   lbg drew M1's S(., y) and T(y, .) as one block, the reference's
#   R-hat stayed near 1.04 and M1's first time at 1e-3 was chance.)
# - R-hat on M3 and M4 at RHAT_N (25) objects: the largest over the
#   unknown atoms.
#
# Every point is a run of 4 chains from dispersed starts on 2 threads,
# --seed 1, stopped by --max-seconds T for T in TIMES (0.01 0.02 0.05
# 0.1 0.2 0.5 1 2 4 8 16); its x is the run's wall seconds (runs.seconds,
# grounding included).  Per model and method the table has "FIRST /
# LAST": the x of the first point at which KL is at most 1e-3 (R-hat at
# most 1.1; -: none) and the value at the last T; with gnuplot the
# series are drawn to OUT.png (default lbg-conv.png beside this script).
#
# Methods: sqlift's lbg, blocked-gibbs, gibbs and lis (lis: KL only, it
# has no chains) and Alchemy's lifted blocked Gibbs (alchemy-lvg:
# `liftedinfer -cls` makes its clustering, within CLS_LIMIT (120) s, then
# `-lvg -maxSeconds T`) and MC-SAT (alchemy-mcsat: `infer -ms`), KL only
# (they report no R-hat), at the whole seconds of TIMES (-maxSeconds
# takes an integer), x their whole process (alchemy-lvg's clustering
# included, cut at CLS_LIMIT; without a cluster file -lvg samples
# Alchemy's level-0 clustering, a block per first-order atom); without
# ALCHEMY (a folder with infer and liftedinfer,
# default PEERS/alchemy2/bin) they are left out.
#
#   SQLIFT=path/to/sqlift [PEERS=/work/peers] sh bench/lbg-conv.sh [OUT.png]
# Knobs: METHODS (lbg blocked-gibbs gibbs lis alchemy-lvg alchemy-mcsat),
# TIMES, REF_SECONDS, KL_N, RHAT_N, CLS_LIMIT, ALC_SLACK (an Alchemy run
# with no answer within T + ALC_SLACK (60) s is not run at larger T).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
ALCHEMY=${ALCHEMY:-${PEERS:-/work/peers}/alchemy2/bin}
METHODS=${METHODS:-lbg blocked-gibbs gibbs lis alchemy-lvg alchemy-mcsat}
TIMES=${TIMES:-0.01 0.02 0.05 0.1 0.2 0.5 1 2 4 8 16}
CLS_LIMIT=${CLS_LIMIT:-120}
ALC_SLACK=${ALC_SLACK:-60}
bench=$(cd "$(dirname "$0")" && pwd)
out=${1:-$bench/lbg-conv.png}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-lbgconv.XXXXXX")
trap 'rm -rf "$dir"' EXIT

setup() {  # M n: $dir/M.sqlite loaded; prints the query predicates
	sh "$bench/lbg.sh" GEN "$1" "$2" "$dir/$1"
	rm -f "$dir/$1.sqlite"
	"$SQLIFT" load "$dir/$1.sqlite" "$dir/$1.mln" "$dir/$1.db" >/dev/null
	sed -n 's/^\([A-Z][A-Za-z]*\)(.*)$/\1/p' "$dir/$1.mln" | paste -sd, -
}

# kl M [DB]: "seconds KL" of DB's (M.sqlite's) last run against M's
# reference
kl() {
	sqlite3 "${2:-$dir/$1.sqlite}" "ATTACH '$dir/$1.ref.sqlite' AS r;
	    SELECT printf('%.3f %s', (SELECT seconds FROM runs WHERE run_id =
	    (SELECT max(run_id) FROM runs)), CASE count(*) WHEN 0 THEN '-' ELSE
	    printf('%.4g', avg(p * ln(p / q) + (1 - p) * ln((1 - p) /
	    (1 - q)))) END) FROM (SELECT min(max(x.probability, 1e-9),
	    1 - 1e-9) AS p, min(max(m.probability, 1e-6), 1 - 1e-6) AS q FROM
	    marginals m JOIN r.marginals x USING (atom) WHERE m.run_id =
	    (SELECT max(run_id) FROM runs) AND m.group_id IS NOT NULL)"
}

# alchemy M method T q: Alchemy's marginals at -maxSeconds T (an
# integer; "- -" under 1 s or without Alchemy), kept as a run of
# M-method.sqlite (runs.seconds its process's wall seconds, plus the
# clustering's), then kl.  Its atoms are written "S(O0,O1)".
alchemy() {
	t=${3%%.*}
	case $t in '' | 0) echo "- -"; return ;; esac
	[ -x "$ALCHEMY/infer" ] || { echo "- -"; return; }
	a=$dir/$1-$2
	if [ "$2" = alchemy-lvg ] && [ ! -e "$a.cls.done" ]; then
		mkdir -p "$a"
		s0=$(date +%s.%N)
		(cd "$a" && timeout "$CLS_LIMIT" "$ALCHEMY/liftedinfer" -cls \
		    -maxSeconds "$CLS_LIMIT" -i "$dir/$1.mln" -e "$dir/$1.db" \
		    -q "$4" -oc "$a.cls" >"$a.cls.log" 2>&1) || rm -f "$a.cls"
		echo "$s0 $(date +%s.%N)" | awk '{ print $2 - $1 }' >"$a.cls.done"
	fi
	c=0
	[ "$2" = alchemy-mcsat ] || c=$(cat "$a.cls.done")
	[ ! -e "$a.stop" ] || { echo "- -"; return; }
	rm -rf "$a" && mkdir -p "$a"
	s0=$(date +%s.%N)
	case $2 in
	alchemy-lvg) (cd "$a" && timeout $((t + ALC_SLACK)) "$ALCHEMY/liftedinfer" \
	    -lvg -ic "$a.cls" -i "$dir/$1.mln" -e "$dir/$1.db" -q "$4" \
	    -r "$a/out" -maxSeconds "$t" >"$a/log" 2>&1) || : ;;
	*) (cd "$a" && timeout $((t + ALC_SLACK)) "$ALCHEMY/infer" -ms -seed 1 \
	    -i "$dir/$1.mln" -e "$dir/$1.db" -q "$4" -r "$a/out" \
	    -maxSeconds "$t" >"$a/log" 2>&1) || : ;;
	esac
	x=$(echo "$s0 $(date +%s.%N) $c" | awk '{ print $2 - $1 + $3 }')
	# no answer within T + ALC_SLACK s: none at the larger T either
	[ -s "$a/out" ] || { touch "$a.stop"; echo "$x -"; return; }
	{
		echo "CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY, seconds REAL);"
		echo "CREATE TABLE IF NOT EXISTS marginals (run_id INTEGER, atom TEXT, probability REAL, group_id INTEGER);"
		echo "BEGIN; INSERT INTO runs (seconds) VALUES ($x);"
		awk 'NF == 2 && $2 ~ /^[0-9.e+-]+$/ { a = $1; gsub(/,/, ", ", a)
		    gsub(/\047/, "", a); printf "INSERT INTO marginals SELECT " \
		    "max(run_id), \047%s\047, %s, 0 FROM runs;\n", a, $2 }' "$a/out"
		echo "COMMIT;"
	} | sqlite3 "$a.sqlite" || { echo "- -"; return; }
	kl "$1" "$a.sqlite"
}

# point M method T q: runs it; prints "seconds value" (KL or R-hat)
point() {
	case $2 in
	alchemy-*)
		case $1 in M1 | M2) alchemy "$@" ;; *) echo "- -" ;; esac
		return ;;
	lis) case $1 in M1 | M2) ;; *) echo "- -"; return ;; esac
	    "$SQLIFT" infer "$dir/$1.sqlite" --method lis --exact-budget 0 \
	    -q "$4" --ow "$4" --threads 2 --seed 1 --max-seconds "$3" \
	    --samples 1000000000 >/dev/null 2>&1 || : ;;
	*) "$SQLIFT" infer "$dir/$1.sqlite" --method "$2" --exact-budget 0 \
	    -q "$4" --ow "$4" --chains 4 --threads 2 --seed 1 --max-seconds \
	    "$3" >/dev/null 2>&1 || : ;;
	esac
	case $1 in
	M1 | M2) kl "$1" ;;
	*) sqlite3 "$dir/$1.sqlite" "SELECT printf('%.3f %s', seconds,
	    (SELECT CASE count(rhat) WHEN 0 THEN '-' ELSE printf('%.4g',
	    max(rhat)) END FROM run_groups WHERE run_id = r.run_id)) FROM
	    runs r ORDER BY run_id DESC LIMIT 1" ;;
	esac
}

hd= sep=
for m in $METHODS; do
	hd="$hd $m |"
	sep="$sep---|"
done
echo "| model | objects | measure | reference R-hat |$hd"
echo "|---|---|---|---|$sep"
for M in M1 M2 M3 M4; do
	case $M in
	M1 | M2) n=${KL_N:-50} what=KL goal=0.001 ;;
	*) n=${RHAT_N:-25} what=R-hat goal=1.1 ;;
	esac
	q=$(setup "$M" "$n")
	rh=-
	if [ $what = KL ]; then
		cp "$dir/$M.sqlite" "$dir/$M.ref.sqlite"
		"$SQLIFT" infer "$dir/$M.ref.sqlite" --method lbg --exact-budget 0 \
		    -q "$q" --ow "$q" --chains 8 --threads 2 --seed 99 \
		    --max-seconds "${REF_SECONDS:-120}" >/dev/null 2>&1 || :
		rh=$(sqlite3 "$dir/$M.ref.sqlite" "SELECT printf('%.4f', max(rhat))
		    FROM run_groups")
	fi
	row="| $M | $n | $what | $rh |"
	for m in $METHODS; do
		: >"$dir/$M-$m.dat"
		first=- last=-
		for t in $TIMES; do
			v=$(point "$M" "$m" "$t" "$q")
			case $v in -*) continue ;; esac  # not run at T
			last=${v#* }
			[ "$last" != - ] || continue  # no answer
			echo "$v" >>"$dir/$M-$m.dat"
			[ "$first" != - ] || ! awk -v v="$last" -v g=$goal \
			    'BEGIN { exit !(v ~ /^[0-9.e+-]+$/ && v + 0 <= g) }' ||
				first=${v%% *}
		done
		row="$row $first / $last |"
	done
	echo "$row"
done

command -v gnuplot >/dev/null || exit 0
{
	echo "set terminal png size 1600,400"
	echo "set output '$out'"
	echo "set multiplot layout 1,4"
	echo "set logscale xy"
	echo "set xlabel 'wall seconds'"
	echo "set key top right"
	for M in M1 M2 M3 M4; do
		case $M in
		M1 | M2) echo "set title '$M, ${KL_N:-50} objects'; set ylabel 'mean KL to reference'" ;;
		*) echo "set title '$M, ${RHAT_N:-25} objects'; set ylabel 'largest R-hat - 1'" ;;
		esac
		sep=plot
		for m in $METHODS; do
			[ -s "$dir/$M-$m.dat" ] || continue
			case $M in
			M1 | M2) u='1:2' ;;
			*) u='1:($2 - 1)' ;;
			esac
			printf "%s '%s' using %s with linespoints title '%s'" \
			    "$sep" "$dir/$M-$m.dat" "$u" "$m"
			sep=","
		done
		echo
	done
	echo "unset multiplot"
} >"$dir/plot.gp"
gnuplot "$dir/plot.gp" 2>/dev/null
echo "# drawn to $out"
