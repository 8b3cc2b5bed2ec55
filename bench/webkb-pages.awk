# webkb-pages.awk: the WebKB evidence of the first pages, for lis.sh and
# fig2.sh.  awk -f webkb-pages.awk KEEP EVIDENCE.db, where KEEP lists the
# page numbers to keep, one a line: prints the atoms of EVIDENCE.db whose
# pages (PidN) are all kept, without PageClassCourse and
# PageClassFaculty (the query).
NR == FNR {
	keep["Pid" $1] = 1
	next
}
/^PageClass(Course|Faculty)\(/ {
	next
}
{
	s = $0
	ok = 1
	while (match(s, /Pid[0-9]+/)) {
		if (!(substr(s, RSTART, RLENGTH) in keep))
			ok = 0
		s = substr(s, RSTART + RLENGTH)
	}
	if (ok)
		print
}
