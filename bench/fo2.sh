#!/bin/sh
# fo2.sh: the model families of the test suite at n = 100, 500, 2000,
# without and with evidence (40% of persons observed on each unary
# predicate, random truth), exact, one process each under a time limit:
# CPU seconds (user + sys) of the whole `sqlift infer -m exact` process
# and log Z, or "stop" past LIMIT seconds (issue 22 item 2).
#
#   SQLIFT=path/to/sqlift sh bench/fo2.sh [family ...]
# Knobs: FO2_SIZES (100 500 2000), FO2_EV (0 1: without and with
# evidence), LIMIT (20 s), MEM (ulimit -v, 6000000), REF (a second
# sqlift, e.g. the build before a change, run beside on the same file:
# its CPU seconds and whether its log Z agrees to 1e-9), FORCLIFT (a
# command taking one MLN file, the evidence in it as hard unit formulas,
# that prints "log_z Z": bench/forclift-logz.scala, see bench/README;
# its CPU seconds and whether its log Z agrees, past its first stop in
# a family not run again).
set -u

SQLIFT=${SQLIFT:-./sqlift}
LIMIT=${LIMIT:-20}
MEM=${MEM:-6000000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-fo2.XXXXXX")
trap 'rm -rf "$dir"' EXIT

body() {  # family: its formulas (person, Smokes, Cancer, Friends)
	case $1 in
	fs) printf '1.5 Smokes(x) => Cancer(x)\n1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n' ;;
	sym) body fs; printf '2.0 Friends(x, y) => Friends(y, x)\n' ;;
	symhard) body fs; printf 'Friends(x, y) => Friends(y, x).\n' ;;
	hard) printf '1.5 Smokes(x) => Cancer(x)\nSmokes(x) ^ Friends(x, y) => Smokes(y).\n' ;;
	fo2) printf '0.7 Smokes(x) v Smokes(y)\n-0.4 Smokes(x) ^ Friends(x, y) => Cancer(x)\n0.9 Smokes(x) ^ Smokes(y) => Friends(x, y)\n-1.3 Friends(x, x) v Cancer(x)\n' ;;
	symcan) printf '1.0 Friends(x, y) => Friends(y, x)\n0.8 Friends(x, y) ^ Smokes(y) => Cancer(x)\n1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n' ;;
	iff) printf '1.0 Friends(x, y) <=> Friends(y, x)\n0.9 Smokes(x) ^ Smokes(y) => Friends(x, y)\n-0.5 Friends(x, x)\n' ;;
	graph) printf 'Friends(x, y) => Friends(y, x).\n!Friends(x, x).\n1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n0.4 Cancer(x) ^ Friends(x, y) => Cancer(y)\n' ;;
	exist) printf '1.5 Smokes(x) => Cancer(x)\n0.5 EXIST y Friends(x, y)\n' ;;
	conj) printf -- '-1.2 Smokes(x) ^ Cancer(x)\n' ;;
	trans) printf '1.2 Friends(x, y) ^ Friends(y, z) => Friends(x, z)\n' ;;
	transfs) body fs; body trans ;;
	esac
}

gen() {  # family n ev
	f=$dir/$1-$2-$3
	{
		printf 'person = {'
		awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%sP%d", i ? ", " : "", i }'
		printf '}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n'
		body "$1"
	} >"$f.mln"
	awk -v n="$2" -v ev="$3" 'BEGIN { srand(7); for (i = 0; i < n && ev; i++) {
		if (rand() < 0.4) print (rand() < 0.5 ? "!" : "") "Smokes(P" i ")"
		if (rand() < 0.4) print (rand() < 0.5 ? "!" : "") "Cancer(P" i ")" } }' >"$f.db"
	rm -f "$f.sqlite"
	"$SQLIFT" load "$f.sqlite" "$f.mln" "$f.db" >/dev/null
	[ -n "${FORCLIFT:-}" ] || return 0
	{	# Forclift's input: the domain's size with the constants of
		# the evidence named, the evidence as hard unit formulas
		printf 'person = %d {%s}\n' "$2" "$(sed 's/^!*[A-Za-z]*(\(.*\))$/\1/' \
		    "$f.db" | sort -u | paste -sd, - | sed 's/,/, /g')"
		sed -n '/^Smokes/,$p' "$f.mln"
		sed 's/$/./' "$f.db"
	} >"$f.fc.mln"
}

cpu() {  # the CPU seconds /usr/bin/time wrote to $dir/cpu
	awk 'NF == 2 { printf "%.3f", $1 + $2 }' "$dir/cpu"
}

run() {  # family n ev [sqlift]
	f=$dir/$1-$2-$3
	if (ulimit -v "$MEM"; exec timeout "$LIMIT" /usr/bin/time -f '%U %S' \
	    -o "$dir/cpu" nice "${4:-$SQLIFT}" infer "$f.sqlite" -m exact \
	    --ow Smokes,Cancer,Friends >/dev/null 2>"$dir/err"); then
		sqlite3 "$f.sqlite" "SELECT printf('%s %.9f', '$(cpu)', log_z)
		    FROM runs ORDER BY run_id DESC LIMIT 1"
	else
		echo "stop -"
	fi
}

forclift() {  # family n ev: CPU seconds and log Z, or "stop -"
	f=$dir/$1-$2-$3
	if timeout "$LIMIT" /usr/bin/time -f '%U %S' -o "$dir/cpu" nice \
	    $FORCLIFT "$f.fc.mln" >"$dir/fc" 2>"$dir/err"; then
		echo "$(cpu) $(awk '$1 == "log_z" { print $2 }' "$dir/fc")"
	else
		echo "stop -"
	fi
}

same() {  # a b: whether the log Z a and b agree to 1e-9 ("-": one is missing)
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; d = d < 0 ? -d : d
		tol = 1e-9 * (1 + (a < 0 ? -a : a))
		print a == "-" || b == "-" ? "-" : d <= tol ? "yes" : "NO" }'
}

printf '%-8s %-3s %6s %8s %20s%s%s\n' family ev n cpu-s 'log Z' \
    "${REF:+  ref-cpu-s same}" "${FORCLIFT:+  forclift-cpu-s same}"
for fam in ${*:-fs sym symhard symcan iff graph hard fo2 exist conj trans transfs}; do
	for ev in ${FO2_EV:-0 1}; do
		fcstop=
		for n in ${FO2_SIZES:-100 500 2000}; do
			gen "$fam" "$n" "$ev"
			set -- $(run "$fam" "$n" "$ev")
			r= c=
			if [ -n "${REF:-}" ]; then
				# the reference binary on the same file, beside
				set -- "$1" "$2" $(run "$fam" "$n" "$ev" "$REF")
				r=$(printf '  %11s %4s' "$3" "$(same "$2" "$4")")
			fi
			if [ -n "${FORCLIFT:-}" ] && [ -z "$fcstop" ]; then
				set -- "$1" "$2" $(forclift "$fam" "$n" "$ev")
				[ "$3" = stop ] && fcstop=1
				c=$(printf '  %14s %4s' "$3" "$(same "$2" "$4")")
			elif [ -n "${FORCLIFT:-}" ]; then
				c=$(printf '  %14s %4s' - -)
			fi
			printf '%-8s %-3s %6s %8s %20s%s%s\n' "$fam" "$ev" "$n" "$1" \
			    "$2" "$r" "$c"
			[ "$1" = stop ] && break
		done
	done
done
