#!/bin/sh
# map-peers.sh: MAP worlds of Alchemy 2's MaxWalkSAT (infer -m) and Tuffy
# 0.3's WalkSAT beside sqlift's --method map, on the dumps of bench/map.sh
# (IMDB fold 1, WebKB fold 12, Cora, UW-CSE, all evidence), each program
# given the same budget in seconds (PEER_SECONDS, "10 60").
#
# One scorer for every world: its true atoms of the open predicates are
# loaded as evidence into a copy of sqlift's database, those predicates
# closed (--cw), and --method exact computes log Z with every atom fixed,
# which is the world's log weight (the approach of map.sh's rescore).
#
# Same problem for the three: the open predicates are the queried ones
# (sqlift closes a predicate with evidence or a '*' unless queried; Alchemy
# closes predicates with evidence, here also -cw the others; Tuffy opens
# all but '*', here also -cw the others), evidence on a queried predicate
# stays evidence, no model has hard clauses; for Tuffy the model's '^' is
# written ','.  Budgets: sqlift
# --max-seconds B; Tuffy -timeout B; Alchemy's MaxWalkSAT has no clock, it
# gets -mwsMaxSteps MWS_STEPS_PER_S * B (default 100000/s) and one try.
# Alchemy is stopped at 3 B + 30 s of CPU time (ulimit -t; wall time on
# a loaded machine says little), Tuffy at 3 B + 30 s of wall time (its
# grounding runs in the PostgreSQL server, whose CPU is not its own),
# grounding included: "killed"; Alchemy gets PEER_MEM_MB of address space
# (6000; on Cora it passed 18 GB grounding, before any search).  PROGRAMS picks the programs
# ("sqlift alchemy tuffy"; a row of sqlift is needed beside the others).
# Seconds are wall seconds of the process; Tuffy's PostgreSQL server is a
# separate process and its CPU is not in Tuffy's cpu column.
#
#   sh bench/peers-build.sh ALCHEMY-SRC TUFFY-SRC /work/peers
#   SQLIFT=/work/main/.libs/sqlift LD_LIBRARY_PATH=/work/main/.libs \
#   PEERS=/work/peers sh bench/map-peers.sh
set -eu

SQLIFT=${SQLIFT:-./sqlift}
PEERS=${PEERS:-/work/peers}
ALCHEMY=${ALCHEMY:-$PEERS/alchemy2/bin/infer}
TUFFY=${TUFFY:-$PEERS/tuffy/tuffy}
BUDGETS=${PEER_SECONDS:-10 60}
STEPS=${MWS_STEPS_PER_S:-100000}
DATASETS=${MAP_DATA:-imdb1 webkb cora uwcse}
bench=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$bench/../../shared/data}
[ -d "$DATA" ] || DATA=/work/shared/data
dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlift-mappeers.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# normal form of a ground atom: no spaces, no quotes
norm() { tr -d ' "' | grep -v '^$' | sort -u; }

rescore() {  # db model world-file: the world's log weight, $scw closed
	db=$1 model=$2 world=$3
	cp "$db" "$dir/rescore.sqlite"
	if "$SQLIFT" load "$dir/rescore.sqlite" "$model" "$world" \
	    >/dev/null 2>"$dir/rescore.err" && "$SQLIFT" infer \
	    "$dir/rescore.sqlite" --method exact --max-seconds 300 \
	    --cw "$scw" >/dev/null 2>>"$dir/rescore.err"; then
		sqlite3 "$dir/rescore.sqlite" "SELECT printf('%.6f', log_z)
		    FROM runs ORDER BY run_id DESC LIMIT 1"
	else
		echo "failed: $(tail -n 1 "$dir/rescore.err" | cut -c1-60)"
	fi
}

timed() {  # limit out cmd...: runs cmd, "wall cpu" to $dir/time
	lim=$1 out=$2
	shift 2
	/usr/bin/time -f '%e %U %S' -o "$dir/time" timeout -k 10 "$lim" \
	    "$@" >"$out" 2>&1
}

cputimed() {  # limit out cmd...: as timed with limit seconds of CPU
	lim=$1 out=$2
	shift 2
	(ulimit -t "$lim" && ulimit -v $((${PEER_MEM_MB:-6000} * 1024)) && timed $((20 * lim + 600)) "$out" "$@")
}

want() { case " ${PROGRAMS:-sqlift alchemy tuffy} " in *" $1 "*) ;; *) false ;; esac; }

# peer minus sqlift when both are numbers
diff_() { echo "$1 $2" | awk 'NF == 2 && $1 + 0 == $1 && $2 + 0 == $2 {
	printf "%.6g", $1 - $2; next } { printf "-" }'; }

# how a peer's run ended: ok, "failed: its last line", or killed
ended() {  # rc log
	if [ "$1" = 0 ]; then
		echo ok
	elif [ "$1" = 124 ] || [ "$1" = 137 ] || [ "$1" = 152 ]; then
		echo killed
	else
		echo "failed: $(grep -v '^ *$' "$2" | tail -n 1 | cut -c1-60)"
	fi
}

secs() { tail -n 1 "$dir/time" | awk '{ printf "%s | %.1f", $1, $2 + $3 }'; }

# dataset NAME: sets model, ev, q (open = queried predicates), tcw (their
# closed predicates without evidence or '*', for Tuffy and Alchemy), sopt
# (sqlift's options as map.sh gives them, without -q), scw (the rescorer's
# closed predicates: sopt's and the queried)
dataset() {
	sopt=
	tcw=
	case $1 in
	imdb1)
		model=$DATA/imdb/lsm_kok/imdb-rules-out.mln
		ev=$DATA/imdb/lsm_kok/imdb1.db
		q=workedUnder
		tcw=gender,movie,director,genre,actor ;;
	webkb)
		model=$bench/webkb-pageclass.mln
		grep -v '^PageClass\(Course\|Faculty\)(' \
		    "$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db" \
		    >"$dir/webkb.db"
		ev=$dir/webkb.db
		q=PageClassCourse,PageClassFaculty
		tcw=PageClassDepartment,PageClassResearchProject,PageClassStaff,PageClassStudent,Linked
		tcw=$tcw,HasAssign,HasHandout,HasHomework,HasHour,HasInstructor,HasMime,HasNcsa,HasNote,HasSyllabu,HasVersion
		sopt="--cw $tcw" ;;
	cora)
		model=$DATA/cora/tuffy_class/prog.mln
		ev=$DATA/cora/tuffy_class/evidence.db
		q=category ;;
	uwcse)
		model=$DATA/uwcse/tuffy_cse/prog.mln
		ev=$DATA/uwcse/tuffy_cse/evidence.db
		q=advisedBy ;;
	esac
	scw=${tcw:+$tcw,}$q
	[ -n "$sopt" ] || scw=$q
	# Alchemy: no '*'; its closed predicates without evidence go to -cw
	sed 's/^\*//' "$model" >"$dir/alchemy.mln"
	acw=
	for p in $(sed -n 's/^\*\([A-Za-z0-9_]*\)(.*/\1/p' "$model") \
	    $(echo "$tcw" | tr , ' '); do
		grep -q "^!\{0,1\}$p(" "$ev" || acw=$acw${acw:+,}$p
	done
	# Tuffy: conjunction is ',' not '^'; a query file with one atom of variables per queried predicate
	sed 's/ ^ /, /g' "$model" >"$dir/tuffy.mln"
	: >"$dir/query.db"
	for p in $(echo "$q" | tr , ' '); do
		sed -n "s/^\*\{0,1\}$p(\([^)]*\)).*/\1/p" "$model" | head -n 1 |
		    awk -v p="$p" -F, '{ s = p "("; for (i = 1; i <= NF; i++)
			s = s (i > 1 ? "," : "") "v" i; print s ")" }' \
		    >>"$dir/query.db"
	done
}

echo "| data | budget s | program | seconds | cpu s | log weight (rescored) | sqlift map s | sqlift map log weight | sqlift rescored | peer - sqlift |"
echo "|---|---|---|---|---|---|---|---|---|---|"

for name in $DATASETS; do
	dataset "$name"
	db=$dir/$name.sqlite
	rm -f "$db"
	"$SQLIFT" load "$db" "$model" "$ev" >/dev/null
	qre=$(echo "$q" | sed 's/,/\\|/g')
	for b in $BUDGETS; do
		# sqlift --method map
		if timed $((3 * b + 30)) "$dir/out" "$SQLIFT" infer "$db" \
		    --method map --max-seconds "$b" $sopt -q "$q"; then
			ss=$(tail -n 1 "$dir/time" | cut -d' ' -f1)
			slw=$(sqlite3 "$db" "SELECT printf('%.6f', map_log_weight)
			    FROM runs ORDER BY run_id DESC LIMIT 1")
			sqlite3 "$db" "SELECT atom FROM map_atoms WHERE truth = 1
			    AND run_id = (SELECT max(run_id) FROM runs)" |
			    norm >"$dir/world.db"
			srs=$(rescore "$db" "$model" "$dir/world.db")
		else
			ss=$(tail -n 1 "$dir/time" | cut -d' ' -f1)
			slw="failed: $(tail -n 1 "$dir/out" | cut -c1-60)"
			srs=-
		fi
		! want sqlift || echo "| $name | $b | sqlift map | $(secs) | $srs | $ss | $slw | $srs | 0 |"

		# Alchemy 2 MaxWalkSAT
		if want alchemy; then
			rm -f "$dir/alchemy.out"
			rc=0
			(cd "$dir" && cputimed $((3 * b + 30)) "$dir/alog" "$ALCHEMY" \
			    -m -i "$dir/alchemy.mln" -e "$ev" -q "$q" \
			    -r "$dir/alchemy.out" -seed 1 -tries 1 \
			    -mwsMaxSteps $((STEPS * b)) ${acw:+-cw "$acw"}) || rc=$?
			lw=$(ended $rc "$dir/alog")
			if [ "$lw" = ok ]; then
				grep "^\($qre\)(" "$dir/alchemy.out" | norm >"$dir/world.db"
				lw=$(rescore "$db" "$model" "$dir/world.db")
			fi
			echo "| $name | $b | Alchemy MaxWalkSAT | $(secs) | $lw | $ss | $slw | $srs | $(diff_ "$lw" "$srs") |"
		fi

		# Tuffy WalkSAT
		if want tuffy; then
			rm -f "$dir/tuffy.out"
			rc=0
			timed $((3 * b + 30)) "$dir/tlog" "$TUFFY" -i "$dir/tuffy.mln" \
			    -e "$ev" -queryFile "$dir/query.db" -r "$dir/tuffy.out" \
			    -timeout "$b" ${tcw:+-cw "$tcw"} || rc=$?
			lw=$(ended $rc "$dir/tlog")
			if [ "$lw" = ok ]; then
				grep "^\($qre\)(" "$dir/tuffy.out" | norm >"$dir/world.db"
				lw=$(rescore "$db" "$model" "$dir/world.db")
			fi
			echo "| $name | $b | Tuffy WalkSAT | $(secs) | $lw | $ss | $slw | $srs | $(diff_ "$lw" "$srs") |"
		fi
	done
done
