#!/bin/sh
# map3.sh: bench/map.sh's rows for two builds side by side, before
# (OLD, a build directory with .libs/sqlift) and after (NEW, default
# the current directory), dump by dump and round by round alternating,
# so that both meet the same load.  REPS rounds (2); MAP_DATA picks
# dumps; MAP_SECONDS as map.sh.
#
#   OLD=/work/ref7 NEW=. sh bench/map3.sh
set -eu

bench=$(cd "$(dirname "$0")" && pwd)
OLD=${OLD:?OLD: the build before}
NEW=${NEW:-.}
OLD=$(cd "$OLD" && pwd)
NEW=$(cd "$NEW" && pwd)

echo "| build | data | seconds | cpu s | log weight | bound | optimal | abs gap | gap | world | IPs | grounded | rescored | diff |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for d in ${MAP_DATA:-imdb1 webkb cora uwcse}; do
	r=0
	while [ "$r" -lt "${REPS:-2}" ]; do
		for b in old new; do
			if [ "$b" = old ]; then dir=$OLD; else dir=$NEW; fi
			SQLIFT=$dir/.libs/sqlift LD_LIBRARY_PATH=$dir/.libs \
			    MAP_DATA=$d MAP_HEAD=0 sh "$bench/map.sh" |
			    sed "s/^| /| $b | /"
		done
		r=$((r + 1))
	done
done
