#!/bin/sh
# lbg.sh: the models of Venugopal and Gogate (NIPS 2012, section 5) for
# issue 24 item 7: M1 [R(x) v S(x,y)], [S(x,y) v T(y,z)]; M2 smokers,
# asthma and cancer; M3 [R(x,y) v S(y,z)], [S(y,z) v T(z,u)]; M4 the
# WebKB MLN (bench/webkb-pageclass.mln's formulas); weights picked by
# hand (the paper gives none); 10% of the ground atoms observed, each
# true or false at random (fixed seed).  For each size: seconds per 100
# sweeps of gibbs and blocked-gibbs (one chain, no burn-in, SWEEPS
# sweeps) from the run's trace: the seconds between its first and last
# recorded sweep, scaled (no grounding, blocks' building or output,
# whose fixed cost spread over 10 sweeps hid a sweep of 5 ms), and per
# 100 samples of lis, from runs.seconds less the grounding
# (stats.ground_seconds) or the theory's building (stats.theory_seconds),
# side by side, and lbg's the same way as gibbs, with gibbs / lbg and
# lbg's clustering seconds (stats.blocks_seconds: its clusters, trees,
# bundles and kept log-odds) apart; "stop" past LIMIT seconds (the
# whole run).
#
# lbg is run with --exact-budget 0 (the sampler, every model clustered
# on the ground model) but in BIG.  Models FS and FSB (not in the default list): friends and smokers
# (bench/fs.awk), FS with 10% of its Smokes and Cancer atoms observed
# (fs.awk's atom=1), FSB without evidence and with 0.49 Smokes(x), which
# leaves its two modes (all smoke, none) near balance.  For gibbs,
# blocked-gibbs and lbg: CPU seconds per 100 sweeps (one chain, SWEEPS
# sweeps, user + system less the grounding), then 4 chains of FS_SWEEPS
# sweeps (seed 1, one thread): the largest and the mean absolute error
# of every marginal against --method exact, the largest R-hat, and the
# run's CPU seconds.
#
#   SQLIFT=path/to/sqlift sh bench/lbg.sh [model ...] >>bench/results-lbg.md
# Knobs: LBG_SIZES (5 25 50 100), SWEEPS (10), FS_SWEEPS (1000), LIMIT
# (60 s), MEM (ulimit -v, 4000000 KB).
set -u

SQLIFT=${SQLIFT:-./sqlift}
SIZES=${LBG_SIZES:-5 25 50 100}
SWEEPS=${SWEEPS:-10}
FS_SWEEPS=${FS_SWEEPS:-1000}
LIMIT=${LIMIT:-60}
MEM=${MEM:-4000000}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-lbg.XXXXXX")
trap 'rm -rf "$dir"' EXIT

model() {  # M n: the model file
	case $1 in
	M1) printf 'obj = {%s}\nR(obj)\nS(obj, obj)\nT(obj, obj)\n' "$(objs "$2")"
	    printf '0.9 R(x) v S(x, y)\n1.1 S(x, y) v T(y, z)\n' ;;
	M2) printf 'obj = {%s}\nAsthma(obj)\nSmokes(obj)\nCancer(obj)\n' "$(objs "$2")"
	    printf 'Friends(obj, obj)\n1.4 Asthma(x) => !Smokes(x)\n'
	    printf '1.1 Asthma(x) ^ Friends(x, y) => !Smokes(y)\n'
	    printf '1.5 Smokes(x) => Cancer(x)\n' ;;
	M3) printf 'obj = {%s}\nR(obj, obj)\nS(obj, obj)\nT(obj, obj)\n' "$(objs "$2")"
	    printf '0.9 R(x, y) v S(y, z)\n1.1 S(y, z) v T(z, u)\n' ;;
	M4) printf 'page = {%s}\n' "$(objs "$2")"
	    sed -n '/^[A-Z]/p; /^[-0-9]/p' "$here/webkb-pageclass.mln" ;;
	FS) awk -v n="$2" -f "$here/fs.awk" ;;
	FSB) awk -v n="$2" -f "$here/fs.awk"
	    printf '0.49 Smokes(x)\n' ;;
	esac
}

objs() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%sO%d", i ? ", " : "", i }'
}

# 10% of the ground atoms of every predicate, true or false at random
evidence() {  # model-file
	awk 'BEGIN { srand(7) }
	/=/ { sub(/.*\{/, ""); sub(/\}.*/, ""); n = split($0, c, /, */); next }
	/^[A-Z][A-Za-z]*\([a-z, ]*\)$/ {
		p = $0; sub(/\(.*/, "", p); k = gsub(/,/, ",") + 1
		if (k == 1) {
			for (i = 1; i <= n; i++) if (rand() < 0.1)
				printf "%s%s(%s)\n", rand() < 0.5 ? "!" : "", p, c[i]
		} else {
			for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
				if (rand() < 0.1)
					printf "%s%s(%s, %s)\n", rand() < 0.5 ? "!" : "", p, c[i], c[j]
		}
	}' "$1"
}

preds() {  # model-file: its predicates, comma-separated
	sed -n 's/^\([A-Z][A-Za-z]*\)(.*)$/\1/p' "$1" | paste -sd, -
}

run() {  # db method args...: seconds of the run, or stop
	db=$1
	shift
	if (ulimit -v "$MEM"; timeout "$LIMIT" "$SQLIFT" infer "$db" "$@" \
	    >/dev/null 2>"$dir/err"); then
		# a sampler's sweeps: its trace's slope; lis: the run less setup
		t=$(sqlite3 "$db" "SELECT printf('%.2f', (max(seconds) -
		    min(seconds)) * 100.0 / (max(samples) - min(samples))) FROM
		    run_trace WHERE run_id = (SELECT max(run_id) FROM runs) AND
		    chain = 0 AND seconds IS NOT NULL AND (SELECT method FROM runs
		    ORDER BY run_id DESC LIMIT 1) <> 'lis' HAVING max(samples) >
		    min(samples)")
		[ -n "$t" ] && { echo "$t"; return; }
		sqlite3 "$db" "SELECT printf('%.2f', (seconds -
		    coalesce(json_extract(stats, '$.ground_seconds'),
		    json_extract(stats, '$.theory_seconds'), 0) -
		    coalesce(json_extract(stats, '$.blocks_seconds'), 0)) *
		    100.0 / $SWEEPS) FROM runs ORDER BY run_id DESC LIMIT 1"
	else
		echo stop
	fi
}

# cpu DB ARGS...: CPU seconds of infer less its grounding, or stop
cpu() {
	db=$1
	shift
	if (ulimit -v "$MEM"; timeout "$LIMIT" /usr/bin/time -f '%U %S' \
	    -o "$dir/time" "$SQLIFT" infer "$db" "$@" >/dev/null 2>"$dir/err"); then
		g=$(sqlite3 "$db" "SELECT coalesce(json_extract(stats,
		    '$.ground_seconds'), 0) FROM runs ORDER BY run_id DESC LIMIT 1")
		awk -v g="$g" '{ printf "%.2f", $1 + $2 - g }' "$dir/time"
	else
		echo stop
	fi
}

# fs_row M n: the row of FS or FSB
fs_row() {
	f=$dir/$1-$2
	model "$1" "$2" >"$f.mln"
	if [ "$1" = FS ]; then
		awk -v n="$2" -v r=10 -v evidence=1 -v atom=1 -f "$here/fs.awk" \
		    >"$f.db"
	else
		: >"$f.db"
	fi
	rm -f "$f.sqlite"
	"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null 2>&1 ||
		{ echo "| $1 | $2 | load failed |"; return; }
	q=Smokes,Cancer,Friends
	"$SQLIFT" infer "$f.sqlite" --method exact -q $q >/dev/null ||
		{ echo "| $1 | $2 | exact failed |"; return; }
	row="| $1 | $2 |"
	for meth in gibbs blocked-gibbs lbg; do
		nolift=
		[ $meth = lbg ] && nolift="--exact-budget 0"
		t=$(cpu "$f.sqlite" --method $meth $nolift -q $q --samples "$SWEEPS" \
		    --burn-in 0 --chains 1)
		[ "$t" = stop ] || t=$(awk -v t="$t" -v s="$SWEEPS" \
		    'BEGIN { printf "%.3f", t * 100 / s }')
		c=$(cpu "$f.sqlite" --method $meth $nolift -q $q --samples "$FS_SWEEPS" \
		    --chains 4 --threads 1 --seed 1)
		e=$(sqlite3 "$f.sqlite" "SELECT printf('%.4f | %.5f',
		    max(abs(m.probability - x.probability)),
		    avg(abs(m.probability - x.probability))) FROM marginals m
		    JOIN marginals x ON x.atom = m.atom AND x.run_id = 1
		    WHERE m.run_id = (SELECT max(run_id) FROM runs)")
		h=$(sqlite3 "$f.sqlite" "SELECT printf('%.3g', max(rhat)) FROM
		    run_groups WHERE run_id = (SELECT max(run_id) FROM runs)")
		[ "$c" = stop ] && { e="stop | "; h=; }
		row="$row $t | $e | $h | $c |"
	done
	echo "$row"
}

# GEN M n FILE: model M at n objects to FILE.mln, its evidence to FILE.db
# (bench/lbg-conv.sh's models)
if [ "${1:-}" = GEN ]; then
	model "$2" "$3" >"$4.mln"
	evidence "$4.mln" >"$4.db"
	exit 0
fi

# BIG: friends and smokers at n = BIG_SIZES (10000), 10% of Smokes and
# Cancer observed, all three predicates open: lbg as a user runs it
# (the whole model one cluster when the lifted search solves it within
# the exact budget, issue 24 item 7's memory goal) beside exact, whole
# process: seconds, peak RSS, the largest difference of the Smokes and
# Cancer marginals, and lbg's clusters from runs.stats
case " $* " in *" BIG "*)
	echo "| model | persons | ground atoms | method | wall s | peak RSS MiB | max diff from exact | clusters |"
	echo "|---|---|---|---|---|---|---|---|"
	for n in ${BIG_SIZES:-10000}; do
		f=$dir/big-$n
		model FS "$n" >"$f.mln"
		awk -v n="$n" -v r=10 -v evidence=1 -v atom=1 -f "$here/fs.awk" >"$f.db"
		rm -f "$f.sqlite"
		"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null 2>&1 ||
			{ echo "| FS | $n | load failed |"; continue; }
		for meth in exact lbg; do
			if (ulimit -v "$MEM"; timeout "$LIMIT" /usr/bin/time -f '%e %M' \
			    -o "$dir/time" "$SQLIFT" infer "$f.sqlite" --method $meth \
			    --ow Smokes,Cancer,Friends -q Smokes,Cancer >/dev/null \
			    2>"$dir/err"); then
				d=$(sqlite3 "$f.sqlite" "SELECT printf('%.2g', max(abs(m.probability
				    - x.probability))) FROM marginals m JOIN marginals x ON
				    x.atom = m.atom AND x.run_id = (SELECT min(run_id) FROM runs)
				    WHERE m.run_id = (SELECT max(run_id) FROM runs)")
				c=$(sqlite3 "$f.sqlite" "SELECT coalesce(json_extract(stats,
				    '$.clusters'), '-') FROM runs ORDER BY run_id DESC LIMIT 1")
				[ $meth = exact ] && { d=-; c=-; }
				awk -v n="$n" -v m=$meth -v d="$d" -v c="$c" '{ printf "| FS | %d | %.0f | %s | %.2f | %.0f | %s | %s |\n", n, n * n + 2 * n, m, $1, $2 / 1024, d, c }' "$dir/time"
			else
				echo "| FS | $n | $((n * n + 2 * n)) | $meth | stop | | $(head -c 80 "$dir/err") | |"
			fi
		done
	done
	exit 0 ;;
esac

fs=
for m in "$@"; do
	case $m in FS|FSB) fs=1 ;; esac
done
if [ -n "$fs" ]; then
	echo "| model | objects | gibbs s/100 sweeps | gibbs max err | gibbs mean err | gibbs max R-hat | gibbs CPU s | blocked-gibbs s/100 sweeps | max err | mean err | max R-hat | CPU s | lbg s/100 sweeps | max err | mean err | max R-hat | CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for m in "$@"; do
		case $m in FS|FSB) ;; *) continue ;; esac
		for n in $SIZES; do
			fs_row "$m" "$n"
		done
	done
	exit 0
fi

echo "| model | objects | ground atoms | gibbs s/100 sweeps | blocked-gibbs s/100 sweeps | lbg s/100 sweeps | gibbs / lbg | lbg clusters s | lis s/100 samples |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in ${@:-M1 M2 M3 M4}; do
	for n in $SIZES; do
		f=$dir/$m-$n
		model "$m" "$n" >"$f.mln"
		evidence "$f.mln" >"$f.db"
		rm -f "$f.sqlite"
		"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null 2>&1 ||
			{ echo "| $m | $n | load failed | | | | | | |"; continue; }
		q=$(preds "$f.mln")
		ow=$q
		g=$(run "$f.sqlite" --method gibbs -q "$q" --ow "$ow" --samples "$SWEEPS" \
		    --burn-in 0 --chains 1)
		atoms=$(sqlite3 "$f.sqlite" "SELECT unknown_atoms FROM runs ORDER BY run_id DESC LIMIT 1")
		b=$(run "$f.sqlite" --method blocked-gibbs -q "$q" --ow "$ow" \
		    --samples "$SWEEPS" --burn-in 0 --chains 1)
		lb=$(run "$f.sqlite" --method lbg --exact-budget 0 -q "$q" --ow "$ow" \
		    --samples "$SWEEPS" --burn-in 0 --chains 1)
		cs=-
		[ "$lb" = stop ] || cs=$(sqlite3 "$f.sqlite" "SELECT printf('%.2f',
		    json_extract(stats, '$.blocks_seconds')) FROM runs ORDER BY
		    run_id DESC LIMIT 1")
		r=$(awk -v a="$g" -v b="$lb" 'BEGIN { if (a !~ /^[0-9.]+$/ ||
		    b !~ /^[0-9.]+$/ || b + 0 == 0) print "-"
		    else printf "%.2g", a / b }')
		l=$(run "$f.sqlite" --method lis -q "$q" --ow "$ow" --samples "$SWEEPS")
		echo "| $m | $n | $atoms | $g | $b | $lb | $r | $cs | $l |"
	done
done
