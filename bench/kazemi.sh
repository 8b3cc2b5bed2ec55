#!/bin/sh
# kazemi.sh: the 18 parfactor graphs of Table 1 of Kazemi & Poole
# ("Elimination ordering in lifted first-order probabilistic inference"),
# encoded as MLNs, solved by `sqlift infer --method exact` with each of
# the four ordering heuristics.  Prints milliseconds of the whole process
# (or "stop" past LIMIT seconds) / nodes expanded, and log Z (which the
# four must agree on).
#
#   SQLIFT=path/to/sqlift sh bench/kazemi.sh
#
# Encoding: a logical variable v of population n is a type tv of n
# constants; a PRV without logical variables, such as A, is the atom
# A(O) of a one-constant type.  Each parfactor becomes one weighted
# clause over its PRVs (random signs, random weight in [-2, 2], fixed
# seed): the same interaction graph, with a potential of that form.
# Graph 14 uses E both as E(x) and as E(y) with different populations;
# here the second is a predicate of its own, E2(y).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
LIMIT=${LIMIT:-60}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-kazemi.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# id | parfactors (PRVs separated by spaces, parfactors by ';') | pops
cat >"$dir/graphs" <<'X'
1|A B;B C(x);C(x) A|x=30
2|A B(x);A C(x);B(x) C(x);B(x) D(x);C(x) E(x);D(x) E(x)|x=5
3|A(x) B;A(x) C;A(x) D;B C;B D|x=25
4|A B(x,y);B(x,y) C(x,z);C(x,z) D|x=3 y=5 z=5
5|A B(x);B(x) C(x)|x=10
6|A(x);A(x) B(x) C(y);A(x) D(y);D(y) E F G;D(y) H(z)|x=5 y=10 z=3
7|A;A B;B C;C D;C G;D E G;A E F;E H|
8|A(x);A(x) B(x) C(y);A(x) D(y);D(y) E F G;D(y) H(z)|x=5 y=50 z=3
9|A B(x);B(x) C(x);D(x) E(x);E(x) F(x);G(x)|x=10
10|A(x) B(y);A(x) C(z);B(y) D(x);C(z) D(x)|x=5 y=10 z=15
11|A(x) B(y);A(x) E;D(x,y) E;C D(x,y);C B(y)|x=7 y=18
12|A B(x) E(x);C(x) D(y) B(x);E(x) C(x);C(x) B(x);A D(y)|x=2 y=5
13|A(x) B(y);A(x) C(y);A(x) D(y);E(y) B(y);E(y) C(y);E(y) D(y)|x=20 y=2
14|A(x) B(y) C(y);A(x) D(y);E(x) B(y) C(y);E2(y) D(y)|x=15 y=3
15|A(x) B(y) C(x);B(y) C(x) F(z);A(x) F(z) D(w);B(y) E(w);C(x) D(w)|x=2 y=5 z=10 w=30
16|A(x) B(x,y);B(x,y) C(y);A(x) D E;C(y) F|x=6 y=16
17|A(x) B(y);B(y) E F;A(x) C D|x=5 y=10
18|A(x) B(x,y);B(x,y) C(x,y) D(y);A(x) D(y)|x=4 y=7
X

printf '%-3s %-12s %-12s %-12s %-12s %s\n' graph min-fill rel-min-fill \
	population min-table 'log Z'
while IFS='|' read -r id pfs pops; do
	awk -v pfs="$pfs" -v pops="$pops" -v seed="$id" 'BEGIN {
		srand(seed)
		print "one = {O}"
		n = split(pops, ps, " ")
		for (i = 1; i <= n; i++) {
			split(ps[i], kv, "=")
			printf "t%s = {", kv[1]
			for (j = 0; j < kv[2]; j++)
				printf "%s%s%d", j ? ", " : "", toupper(kv[1]), j
			print "}"
		}
		nf = split(pfs, f, ";")
		for (i = 1; i <= nf; i++) {
			np = split(f[i], prv, " ")
			line = sprintf("%.3f ", rand() * 4 - 2)
			for (j = 1; j <= np; j++) {
				p = prv[j]
				name = p; args = ""
				if (index(p, "(")) {
					name = substr(p, 1, index(p, "(") - 1)
					args = substr(p, index(p, "(") + 1)
					sub(/\)/, "", args)
				}
				if (!(name in decl)) {
					if (args == "") decl[name] = name "(one)"
					else {
						na = split(args, a, ",")
						d = name "("
						for (k = 1; k <= na; k++)
							d = d (k > 1 ? ", " : "") "t" a[k]
						decl[name] = d ")"
					}
					order[++nd] = name
				}
				atom = args == "" ? name "(O)" : name "(" args ")"
				line = line (j > 1 ? " v " : "") (rand() < 0.5 ? "!" : "") atom
			}
			body[i] = line
		}
		for (i = 1; i <= nd; i++) print decl[order[i]]
		for (i = 1; i <= nf; i++) print body[i]
	}' >"$dir/g$id.mln"
	rm -f "$dir/g$id.db"
	"$SQLIFT" load "$dir/g$id.db" "$dir/g$id.mln" >/dev/null
	line=$(printf '%-3s' "$id")
	for order in min-fill rel-min-fill population min-table; do
		t0=$(date +%s%N)
		if "$SQLIFT" infer "$dir/g$id.db" --method exact --order $order \
		    --max-seconds "$LIMIT" >/dev/null 2>"$dir/err"; then
			t1=$(date +%s%N)
			cell=$(sqlite3 "$dir/g$id.db" "SELECT printf('%.1f/%d',
			    ($t1 - $t0) / 1e6, json_extract(stats, '$.nodes')) FROM runs
			    ORDER BY run_id DESC LIMIT 1")
		else
			cell="stop"
		fi
		line="$line $(printf '%-12s' "$cell")"
	done
	# the four orders must agree on log Z
	n=$(sqlite3 "$dir/g$id.db" "SELECT count(DISTINCT printf('%.9e', log_z))
		FROM runs")
	[ "$n" -eq 1 ] || { echo "graph $id: the orders disagree on log Z" >&2; exit 1; }
	echo "$line $(sqlite3 "$dir/g$id.db" "SELECT printf('%.6f', log_z) FROM runs LIMIT 1")"
done <"$dir/graphs"
