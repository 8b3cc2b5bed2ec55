# fooling.awk: a lower bound on the cubes of a binary relation, the size
# of a fooling set found greedily: true atoms (a,b) such that for any two
# of them (a,b), (c,d), one of (a,d), (c,b) is not true, so that no cube
# (a product of sets, inside the true atoms) holds two of them.  Input:
# one true atom "a b" a line.  Sparse rows and columns go first.
# tmp names a scratch file for the sort:
#
#   sqlite3 -separator ' ' DB 'SELECT a0, a1 FROM ev_N WHERE truth = 1' |
#       awk -v tmp=FILE -f bench/fooling.awk
{
	a[NR] = $1
	b[NR] = $2
	t[$1 " " $2] = 1
	ra[$1]++
	cb[$2]++
}
END {
	for (i = 1; i <= NR; i++)
		print ra[a[i]] + cb[b[i]], i | "sort -n -k1,1 -k2,2 > " tmp
	close("sort -n -k1,1 -k2,2 > " tmp)
	k = 0
	while ((getline line < tmp) > 0) {
		split(line, f, " ")
		i = f[2]
		ok = 1
		for (j = 1; j <= k && ok; j++)
			if (((a[i] " " fb[j]) in t) && ((fa[j] " " b[i]) in t))
				ok = 0
		if (ok) {
			k++
			fa[k] = a[i]
			fb[k] = b[i]
		}
	}
	print k
}
