# md.sh: table output of the bench scripts, sourced by them.  With
# BENCH_MD=1 a row format becomes a markdown row (widths dropped,
# precisions kept) and a header gets its |---| line; otherwise both are
# the aligned text of old.

# fmt FORMAT: the row format to hand to printf (or to awk's printf)
fmt() {
	if [ "${BENCH_MD:-0}" = 1 ]; then
		printf '%s' "$1" | sed -e 's/%-*[0-9]*\(\.[0-9]*\)*\([sdf]\)/%\1\2/g' \
		    -e 's/  */ | /g' -e 's/^/| /' -e 's/\\n$/ |\\n/'
	else
		printf '%s' "$1"
	fi
}

# head FORMAT NAME...: the header row
head_() {
	f=$(fmt "$1")
	shift
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$f" "$@"
	if [ "${BENCH_MD:-0}" = 1 ]; then
		printf '|'
		for _ in "$@"; do printf -- '---|'; done
		echo
	fi
}

# sec TEXT: a section's title
sec() {
	if [ "${BENCH_MD:-0}" = 1 ]; then
		printf '\n%s\n\n' "$*"
	else
		echo "# $*"
	fi
}
