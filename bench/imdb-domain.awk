# imdb-domain.awk: the domain of every type of an Alchemy model, from an
# evidence file, as declarations (type = {c1, c2, ...}) for fig2.sh and
# tests/sh/imdb.test, so that evidence can be left out without the
# constants going with it.  awk -f imdb-domain.awk MODEL.mln EVIDENCE.db:
# the model's predicate declarations type each argument position.
NR == FNR {
	if (match($0, /^[a-zA-Z]+\([a-zA-Z, ]+\)$/)) {
		p = substr($0, 1, index($0, "(") - 1)
		n = split(substr($0, index($0, "(") + 1), t, /[,)] */)
		for (i = 1; i < n; i++)
			type[p, i] = t[i]
	}
	next
}
{
	p = substr($0, 1, index($0, "(") - 1)
	sub(/^!/, "", p)
	n = split(substr($0, index($0, "(") + 1), a, /[,)] */)
	for (i = 1; i < n; i++)
		if (!((type[p, i], a[i]) in seen)) {
			seen[type[p, i], a[i]] = 1
			ty = type[p, i]
			dom[ty] = dom[ty] (dom[ty] == "" ? "" : ", ") a[i]
		}
}
END {
	for (ty in dom)
		print ty " = {" dom[ty] "}"
}
