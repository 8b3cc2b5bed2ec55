# kazemi.awk: one parfactor graph of bench/kazemi-graphs.txt as an MLN
# (the encoding is described at the top of kazemi.sh), shared by
# kazemi.sh and same.sh:
#   awk -v id=N -f kazemi.awk kazemi-graphs.txt >gN.mln
# A line of kazemi-graphs.txt is id | parfactors (PRVs separated by
# spaces, parfactors by ';') | populations.
BEGIN { FS = "|" }
$1 == id {
	pfs = $2
	pops = $3
	seed = $1
	srand(seed)
	print "one = {O}"
	n = split(pops, ps, " ")
	for (i = 1; i <= n; i++) {
		split(ps[i], kv, "=")
		printf "t%s = {", kv[1]
		for (j = 0; j < kv[2]; j++)
			printf "%s%s%d", j ? ", " : "", toupper(kv[1]), j
		print "}"
	}
	nf = split(pfs, f, ";")
	for (i = 1; i <= nf; i++) {
		np = split(f[i], prv, " ")
		line = sprintf("%.3f ", rand() * 4 - 2)
		for (j = 1; j <= np; j++) {
			p = prv[j]
			name = p; args = ""
			if (index(p, "(")) {
				name = substr(p, 1, index(p, "(") - 1)
				args = substr(p, index(p, "(") + 1)
				sub(/\)/, "", args)
			}
			if (!(name in decl)) {
				if (args == "") decl[name] = name "(one)"
				else {
					na = split(args, a, ",")
					d = name "("
					for (k = 1; k <= na; k++)
						d = d (k > 1 ? ", " : "") "t" a[k]
					decl[name] = d ")"
				}
				order[++nd] = name
			}
			atom = args == "" ? name "(O)" : name "(" args ")"
			line = line (j > 1 ? " v " : "") (rand() < 0.5 ? "!" : "") atom
		}
		body[i] = line
	}
	for (i = 1; i <= nd; i++) print decl[order[i]]
	for (i = 1; i <= nf; i++) print body[i]
	}
