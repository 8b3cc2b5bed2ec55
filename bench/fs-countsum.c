/* fs-countsum.c: log Z and the Smokes and Cancer marginals of bench/fs.awk's
 * friends-and-smokers model given unary evidence, by a direct sum over how
 * many persons of each evidence class smoke; independent of sqlift, for the
 * benchmark (the limit a lifted engine can reach) and as a test oracle.
 *
 *   cc -O2 -o fs-countsum bench/fs-countsum.c -lm
 *   fs-countsum N EVIDENCE [W1 W2]
 *
 * The model: W1 Smokes(x) => Cancer(x); W2 Smokes(x) ^ Friends(x,y) =>
 * Smokes(y), over every pair (x, y) including x = y (default weights 1.5,
 * 1.1), persons P0..P(N-1), Smokes and Cancer open-world, Friends unknown.
 * EVIDENCE: Alchemy lines "Smokes(Pi)", "!Cancer(Pi)", ...  Prints log Z,
 * then per class of persons the marginal of its unknown atoms:
 *   log_z Z
 *   smokes CANCER P       (Smokes unknown; CANCER: t, f or u)
 *   cancer SMOKES P       (Cancer unknown; SMOKES: t, f or u)
 *
 * With S the set of smokers (K of them), Friends sums out pair by pair:
 * (x, y) with x in S and y not in S gives 1 + e^W2, any other pair 2 e^W2;
 * Cancer sums out person by person.  So Z is a sum over the counts k_c of
 * smokers among the persons of each Cancer class c whose Smokes is
 * unknown, each weighed by C(u_c, k_c), in long double.  Counts whose term is below the
 * largest by more than 60 nats, by a bound that holds for every count
 * vector of the same total, are skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long double
lch(long double n, long double k)
{
	return lgammal(n + 1) - lgammal(k + 1) - lgammal(n - k + 1);
}

/* log(e^a + e^b) */
static long double
lse(long double a, long double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	return a > b ? a + log1pl(expl(b - a)) : b + log1pl(expl(a - b));
}

int
main(int argc, char **argv)
{
	long n, u[3] = { 0, 0, 0 }, s1 = 0, nk[2][3] = { { 0 } };
	long double w1 = 1.5, w2 = 1.1, t[3], f[3], konst = 0, lr1, lr0, wtot = 0;
	long double best, z = -INFINITY;
	long double ek[3] = { -INFINITY, -INFINITY, -INFINITY };
	signed char *sm, *ca;
	char line[256];
	FILE *fp;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: fs-countsum N EVIDENCE [W1 W2]\n");
		return 2;
	}
	n = atol(argv[1]);
	if (argc == 5) {
		w1 = strtold(argv[3], NULL);
		w2 = strtold(argv[4], NULL);
	}
	sm = malloc((size_t)n + 1);
	ca = malloc((size_t)n + 1);
	if (n < 1 || !sm || !ca || !(fp = fopen(argv[2], "r"))) {
		fprintf(stderr, "fs-countsum: bad N or cannot read %s\n", argv[2]);
		return 2;
	}
	memset(sm, -1, (size_t)n + 1);
	memset(ca, -1, (size_t)n + 1);
	while (fgets(line, sizeof line, fp)) {
		char *p = line, pred[32];
		int neg = 0;
		long i;
		if (*p == '!') {
			neg = 1;
			p++;
		}
		if (sscanf(p, "%31[A-Za-z](P%ld)", pred, &i) != 2 || i < 0 || i >= n)
			continue;
		if (!strcmp(pred, "Smokes"))
			sm[i] = (signed char)!neg;
		else if (!strcmp(pred, "Cancer"))
			ca[i] = (signed char)!neg;
	}
	fclose(fp);
	/* W1's factor per person: smoker or not, by Cancer (0 f, 1 t, 2 u) */
	t[0] = 0;
	t[1] = w1;
	t[2] = log1pl(expl(w1));
	f[0] = f[1] = w1;
	f[2] = w1 + logl(2);
	for (long i = 0; i < n; i++) {
		int c = ca[i] < 0 ? 2 : ca[i];
		if (sm[i] < 0)
			u[c]++;
		else {
			konst += sm[i] ? t[c] : f[c];
			s1 += sm[i];
			nk[sm[i]][c]++;
		}
	}
	lr1 = log1pl(expl(w2));  /* a pair from a smoker to a non-smoker */
	lr0 = logl(2) + w2;     /* any other pair */
#define LR(K) ((long double)n * n * lr0 + (long double)(K) * (n - (K)) * \
	(lr1 - lr0))
#define TERM(a, b, c) (lch(u[0], a) + (a) * t[0] + (u[0] - (a)) * f[0] + \
	lch(u[1], b) + (b) * t[1] + (u[1] - (b)) * f[1] + \
	lch(u[2], c) + (c) * t[2] + (u[2] - (c)) * f[2] + LR(s1 + (a) + (b) + (c)))
	for (int c = 0; c < 3; c++)
		wtot += u[c] * lse(t[c], f[c]);
	best = TERM(0, 0, 0) > TERM(u[0], u[1], u[2]) ? TERM(0, 0, 0) :
	    TERM(u[0], u[1], u[2]);
	for (long j = 0; j <= u[0] + u[1] + u[2]; j++) {
		/* every count vector of total j is at most LR + wtot */
		if (LR(s1 + j) + wtot < best - 60)
			continue;
		for (long a = j - u[1] - u[2] > 0 ? j - u[1] - u[2] : 0;
		    a <= u[0] && a <= j; a++)
			for (long b = j - a - u[2] > 0 ? j - a - u[2] : 0;
			    b <= u[1] && a + b <= j; b++) {
				long c = j - a - b;
				long double x;
				x = TERM((long double)a, (long double)b, (long double)c);
				z = lse(z, x);
				if (a)
					ek[0] = lse(ek[0], x + logl(a));
				if (b)
					ek[1] = lse(ek[1], x + logl(b));
				if (c)
					ek[2] = lse(ek[2], x + logl(c));
			}
	}
	printf("log_z %.17Lg\n", konst + z);
	for (int c = 0; c < 3; c++) {
		long double p = expl(ek[c] - z) / u[c];
		if (u[c])
			printf("smokes %c %.17Lg\n", "ftu"[c], p);
		if (c == 2 && u[2])
			printf("cancer u %.17Lg\n", p / (1 + expl(-w1)) + (1 - p) / 2);
	}
	if (nk[1][2])
		printf("cancer t %.17Lg\n", 1 / (1 + expl(-w1)));
	if (nk[0][2])
		printf("cancer f %.17g\n", 0.5);
	free(sm);
	free(ca);
	return 0;
}
