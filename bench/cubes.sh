#!/bin/sh
# cubes.sh: hypercube building (issue 3).  For real datasets and for
# friends-and-smokers with random evidence on 40% of the persons, it loads
# the evidence, builds the cubes, and prints atoms, cubes, atoms per cube,
# blocks, and the build time beside the load time.  Each build is checked:
# the cubes cover the evidence exactly (EXCEPT both ways).
#
#   SQLIFT=path/to/sqlift sh bench/cubes.sh
#
# Environment: SQLIFT (default ./sqlift), DATA (default ../shared/data
# beside the source folder), FS_SIZES (default "100 1000 10000 100000"),
# CUBES_CHECK=0 (skip the check, which takes minutes on Cora and on
# 100,000 persons), FOOLING=0 (skip the last column: the two binary
# relations with the most true atoms, each as its true cubes / a
# fooling set of them, bench/fooling.awk, a lower bound on any cover by
# product cubes; about a minute on Cora), BENCH_MD=1 (markdown).
set -eu

SQLIFT=${SQLIFT:-./sqlift}
here=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$here/../../shared/data}
FS_SIZES=${FS_SIZES:-100 1000 10000 100000}
. "$here/md.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-cubes.XXXXXX")
trap 'rm -rf "$dir"' EXIT

secs() {  # runs "$@", prints wall seconds
	/usr/bin/time -f '%e' "$@" 2>"$dir/time" >"$dir/out" ||
		{ cat "$dir/out" "$dir/time" >&2; exit 1; }
	tail -n 1 "$dir/time"
}

# the check that the cubes cover the evidence exactly (slow on Cora: minutes)
if [ "${CUBES_CHECK:-1}" = 1 ]; then
	check="(SELECT count(*) FROM (SELECT atom, truth FROM evidence_atoms EXCEPT
		SELECT atom, truth FROM cube_atoms WHERE truth IS NOT NULL)) +
		(SELECT count(*) FROM (SELECT atom, truth FROM cube_atoms WHERE truth
		IS NOT NULL EXCEPT SELECT atom, truth FROM evidence_atoms))"
else
	check="'-'"
fi

# largest DB: the two binary relations with the most true atoms, each as
# "name cubes/fooling set"; "-" when there is none
largest() {
	sqlite3 -separator ' ' "$1" "SELECT name, ev_table FROM predicates
	    WHERE arity = 2" | while read -r p t; do
		echo "$(sqlite3 "$1" "SELECT count(*) FROM $t WHERE truth = 1") $p $t"
	done | sort -k1,1nr -k2,2 | head -n 2 | while read -r n p t; do
		[ "$n" -gt 0 ] || continue
		c=$(sqlite3 "$1" "SELECT count(*) FROM cubes c JOIN predicates p
		    USING (pred_id) WHERE p.name = '$p' AND c.truth = 1")
		f=$(sqlite3 -separator ' ' "$1" "SELECT a0, a1 FROM $t WHERE
		    truth = 1" | awk -v tmp="$dir/fool" -f "$here/fooling.awk")
		printf '%s %s/%s\n' "$p" "$c" "$f"
	done | awk '{ s = s (NR > 1 ? ", " : "") $0 } END { print (s == "" ? "-" : s) }'
}

bench() {  # name model evidence...
	name=$1
	shift
	db=$dir/$name.db
	rm -f "$db"
	tl=$(secs "$SQLIFT" load "$db" "$@")
	tc=$(secs "$SQLIFT" cubes "$db")
	set -- $(sqlite3 "$db" "SELECT (SELECT count(*) FROM evidence_atoms),
		(SELECT count(*) FROM cubes WHERE truth IS NOT NULL), (SELECT count(*) FROM (SELECT DISTINCT
		type_id, block FROM blocks)), (SELECT count(*) FROM domains),
		$check,
		(SELECT count(*) FROM cubes WHERE truth IS NULL)" | tr '|' ' ')
	[ "$5" = - ] || [ "$5" -eq 0 ] ||
	    { echo "$name: cubes differ from the evidence" >&2; exit 1; }
	fool=-
	[ "${FOOLING:-1}" = 0 ] || fool=$(largest "$db")
	awk -v n="$name" -v a="$1" -v c="$2" -v b="$3" -v k="$4" -v tl="$tl" \
	    -v tc="$tc" -v u="$6" -v fo="$fool" \
	    -v f="$(fmt '%-22s %9d %8d %8.1f %8d %8d %8d %8.2f %8.2f %6.1f  %s\n')" 'BEGIN { printf f,
	    n, a, c, (c ? a / c : 0), u, k, b, tl, tc, (tl > 0 ? tc / tl : 0), fo }'
}

head_ '%-22s %9s %8s %8s %8s %8s %8s %8s %8s %6s  %s\n' dataset atoms cubes \
	atoms/cube unknown consts blocks load_s cubes_s ratio \
	"largest: cubes/fooling"
if [ -d "$DATA" ]; then
	for i in 1 2 3 4; do
		bench imdb$i "$DATA/imdb/lsm_kok/imdb-rules-out.mln" \
			"$DATA/imdb/lsm_kok/imdb$i.db"
	done
	bench uwcse "$DATA/uwcse/tuffy_cse/prog.mln" "$DATA/uwcse/tuffy_cse/evidence.db"
	for u in cornell texas washington; do
		bench webkb-$u "$here/webkb-craven.mln" \
			"$DATA"/webkb/alchemy_craven/background/[acn]*.$u.db \
			"$DATA"/webkb/alchemy_craven/background/page-classes.$u.db
	done
	bench cora "$DATA/cora/tuffy_class/prog.mln" "$DATA/cora/tuffy_class/evidence.db"
else
	echo "no $DATA: real datasets skipped"
fi

# friends and smokers: 40% of the persons get random evidence on Smokes
# and Cancer (true or false each); Friends unknown
cat >"$dir/fs.mln" <<'X'
Smokes(person)
Cancer(person)
Friends(person, person)
1.5 Smokes(x) => Cancer(x)
1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)
X
for n in $FS_SIZES; do
	awk -v n="$n" -v r=40 -v evidence=1 -f "$here/fs.awk" >"$dir/fs$n.db"
	bench "fs-$n" "$dir/fs.mln" "$dir/fs$n.db"
done
