# fs.awk: the friends-and-smokers benchmark model and evidence, shared by
# exact.sh and lis.sh.  awk -v n=N -f fs.awk: the model over n persons;
# awk -v n=N -v r=R -v evidence=1 -f fs.awk: R% of the persons with
# evidence on Smokes and Cancer, each true or false (fixed seed);
# with -v atom=1 each Smokes and each Cancer atom is observed on its own
# with probability R% (nine classes of persons instead of five).
BEGIN {
	if (!evidence) {
		printf "person = {"
		for (i = 0; i < n; i++) printf "%sP%d", i ? ", " : "", i
		print "}\nSmokes(person)\nCancer(person)\nFriends(person, person)"
		print "1.5 Smokes(x) => Cancer(x)"
		print "1.1 Smokes(x) ^ Friends(x, y) => Smokes(y)"
		exit
	}
	srand(42)
	for (i = 0; atom && i < n; i++) {
		if (rand() < r / 100)
			printf "%sSmokes(P%d)\n", rand() < 0.5 ? "!" : "", i
		if (rand() < r / 100)
			printf "%sCancer(P%d)\n", rand() < 0.5 ? "!" : "", i
	}
	for (i = 0; !atom && i < n; i++) {
		if (rand() >= r / 100) continue
		printf "%sSmokes(P%d)\n", rand() < 0.5 ? "!" : "", i
		printf "%sCancer(P%d)\n", rand() < 0.5 ? "!" : "", i
	}
}
