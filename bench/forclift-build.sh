#!/bin/sh
# forclift-build.sh: builds Forclift (exact weighted first-order model
# counting, github.com/UCLA-StarAI/Forclift, tried at 2a89b2a) and
# forclift-logz.scala with Debian's scala 2.11 (apt-get install scala,
# which brings the parser combinators) for bench/scaling.sh:
#
#   sh bench/forclift-build.sh FORCLIFT-CHECKOUT DEST
#
# writes DEST/forclift, the command to pass as FORCLIFT.  Compiles
# src/main/scala without cli/ and learning/ (they need breeze and argot,
# which Debian lacks), with a stub for breeze's Complex.nan (used in
# debug printing only) and String.lines renamed for JDK 11 and later.
set -eu

src=$1
dest=$2
bench=$(cd "$(dirname "$0")" && pwd)
L=${SCALA_LIB:-/usr/share/scala/lib}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
rm -rf "$dest/src" "$dest/classes"
mkdir -p "$dest/src" "$dest/classes"
cp -R "$src/src/main/scala/." "$dest/src/"
f=$dest/src/edu/ucla/cs/starai/forclift
rm -rf "$f/cli" "$f/learning" "$f/examples/MljSmokersExperiment.scala"
sed -i 's/theoryStr\.lines\./theoryStr.linesIterator./' \
    "$f/languages/focnf/FOCNFParser.scala"
printf 'package breeze.math\nobject Complex { val nan: Any = Double.NaN }\n' \
    >"$dest/src/complex-stub.scala"
cp "$bench/forclift-logz.scala" "$dest/src/"
scalac -J-Xmx1500m -nowarn -d "$dest/classes" \
    -cp "$L/scala-parser-combinators.jar:$L/scala-xml.jar" \
    $(find "$dest/src" -name '*.scala')
cat >"$dest/forclift" <<X
#!/bin/sh
# forclift MLN: log Z by Forclift (bench/forclift-logz.scala)
exec java -Xss64m -Xmx\${FORCLIFT_HEAP:-2g} -cp $dest/classes:$L/scala-library.jar:$L/scala-parser-combinators.jar:$L/scala-xml.jar LogZ "\$@"
X
chmod +x "$dest/forclift"
echo "forclift-build.sh: wrote $dest/forclift"
