# dumps.sh: what cover.sh and unkcube.sh share, sourced by them (with
# bench, DATA and dir set): wrap_bins makes OLD and NEW scripts that
# run each binary with its own folder's libraries, and dumps lists the
# shared dumps, a name and the load arguments a line.

# wrap_bins: a libtool wrapper is replaced by its .libs binary, and
# each binary gets the libraries of its own folder (as same.sh does)
wrap_bins() {
	for v in OLD NEW; do
		eval "b=\$$v"
		if [ -x "$(dirname "$b")/.libs/$(basename "$b")" ]; then
			b=$(dirname "$b")/.libs/$(basename "$b")
		fi
		printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' \
		    "$(cd "$(dirname "$b")" && pwd)" "$(cd "$(dirname "$b")" &&
		    pwd)/$(basename "$b")" >"$dir/$v"
		chmod +x "$dir/$v"
		eval "$v=\$dir/\$v"
	done
}

# dumps: the dumps, name then the load arguments
dumps() {
	d=$DATA/imdb/lsm_kok
	for f in 1 2 3 4; do
		echo "imdb$f $d/imdb-rules-out.mln $d/imdb$f.db"
	done
	d=$DATA/uwcse/tuffy_cse
	echo "uwcse $d/prog.mln $d/evidence.db"
	d=$DATA/webkb/alchemy_craven/background
	for u in cornell texas washington; do
		echo "webkb-$u $bench/webkb-craven.mln $(echo "$d"/[acn]*.$u.db)" \
		    "$d/page-classes.$u.db"
	done
	echo "webkb-pageclass $bench/webkb-pageclass.mln" \
	    "$DATA/webkb/forclift_pageclass/webkb-fold12-train1.db"
	d=$DATA/cora/tuffy_class
	echo "cora $d/prog.mln $d/evidence.db"
}
