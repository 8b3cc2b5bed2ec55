#!/bin/sh
# peers-build.sh: builds the MAP/marginal peers of bench/map-peers.sh,
# Alchemy 2 (github.com/MaxwellRebo/alchemy-2 at b76fe48) and Tuffy 0.3
# (github.com/HazyResearch/tuffy at 4353759), outside the repository:
#
#   sh bench/peers-build.sh ALCHEMY-CHECKOUT TUFFY-CHECKOUT DEST
#
# writes DEST/alchemy2/bin/{infer,liftedinfer} and DEST/tuffy/classes and
# prints the command lines that run them.  Needs g++ flex bison (Alchemy),
# a JDK and postgresql (Tuffy): apt-get install -y g++ flex bison
# default-jdk-headless postgresql.  Patches, as /work/shared/peers/README.md
# lists them: Alchemy compiled as gnu++98 -fpermissive, the never-called
# shuffle() of util/array.h and util/hasharray.h given a local formula,
# the shipped parser/fol.cpp kept (its regeneration needs bison 2.x); Tuffy's
# random() aggregate retyped anycompatible for PostgreSQL >= 14.  Tuffy
# needs a PostgreSQL superuser with trust auth on 127.0.0.1 (its JDBC driver
# predates SCRAM): TUFFY_DB=1 makes the cluster's role and database
# (pg_ctlcluster, needs root) and DEST/tuffy/tuffy.conf.
set -eu

asrc=$1
tsrc=$2
dest=$3
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
J=${JOBS:-2}

# Alchemy 2
a=$dest/alchemy2
rm -rf "$a"
mkdir -p "$a/bin/obj"
cp -R "$asrc/src" "$a/src"
for f in util/array.h util/hasharray.h; do
    sed -i 's/int swapwith = Random::randomOneOf(numItems_);/int swapwith = (int)(rand() % numItems_);/' \
        "$a/src/$f"
done
# fol.o from the shipped fol.cpp (which includes the shipped follex.cpp)
sed -i '/^\t\$(REPLACEFOLY) /d; /^\t\$(FLEX) -o/d; /^\t\$(BISON) \$(PARSER)/d;
        /^\tmv -f fol.tab.c/d; /^\t\$(REPLACEFOLCPP) /d' "$a/src/makefile"
(cd "$a/src" && nice -n 10 make -j"$J" infer liftedinfer \
    CLFLAGS="-O2 -DNDEBUG -std=gnu++98 -fpermissive" >"$a/build.log" 2>&1) || {
    tail -20 "$a/build.log" >&2
    echo "peers-build.sh: Alchemy failed, see $a/build.log" >&2
    exit 1
}

# Tuffy 0.3
t=$dest/tuffy
rm -rf "$t"
mkdir -p "$t/classes"
cp -R "$tsrc/src" "$tsrc/lib" "$t/"
sed -i '/sqlRandomAgg =/,/INITCOND/{s/anyarray/anycompatiblearray/g;s/anyelement/anycompatible/g}' \
    "$t/src/tuffy/db/SQLMan.java"
cp=$(ls "$t"/lib/*.jar | tr '\n' :)
nice -n 10 javac -nowarn -encoding UTF-8 -source 8 -target 8 -d "$t/classes" \
    -cp "$cp" $(find "$t/src" -name '*.java') >"$t/build.log" 2>&1 || {
    tail -20 "$t/build.log" >&2
    echo "peers-build.sh: Tuffy failed, see $t/build.log" >&2
    exit 1
}
cat >"$t/tuffy.conf" <<X
db_url = jdbc:postgresql://127.0.0.1:5432/tuffydb
db_username = tuffy
db_password = tuffy
dir_working = $t/work
X
if [ "${TUFFY_DB:-0}" = 1 ]; then
    v=$(ls /etc/postgresql | sort -n | tail -1)
    h=/etc/postgresql/$v/main/pg_hba.conf
    grep -q '^host all tuffy 127.0.0.1/32 trust' "$h" ||
        sed -i '1i host all tuffy 127.0.0.1/32 trust' "$h"
    pg_ctlcluster "$v" main start 2>/dev/null || pg_ctlcluster "$v" main reload
    su postgres -c "psql -qc \"CREATE ROLE tuffy SUPERUSER LOGIN PASSWORD 'tuffy'\"" 2>/dev/null || true
    su postgres -c "createdb -O tuffy tuffydb" 2>/dev/null || true
fi
cat >"$t/tuffy" <<X
#!/bin/sh
# tuffy ARGS: Tuffy 0.3 (tuffy.main.Main) with $t/tuffy.conf
exec java -Xmx\${TUFFY_HEAP:-3g} -cp $t/classes:$cp tuffy.main.Main -conf $t/tuffy.conf "\$@"
X
chmod +x "$t/tuffy"

cat <<X
peers-build.sh: built
  $a/bin/infer -m|-ms|-p -i M.mln -e EV.db -q P,Q -r OUT [-seed N -maxSeconds S]
  $a/bin/liftedinfer -ptpe|-lis|-lvg -i M.mln -e EV.db -q P,Q -r OUT
  $t/tuffy -i M.mln -e EV.db -queryFile Q.db -r OUT [-marginal] [-activateAll]
X
