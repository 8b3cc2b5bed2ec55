/* rng.c: the sampler's random numbers: xoshiro256**, seeded by splitmix64. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-int.h"

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(struct eng_rng *r)
{
	uint64_t *s = r->s, x = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return x;
}

void
eng_rng_seed(struct eng_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

	for (int i = 0; i < 4; i++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

double
eng_rng_unit(struct eng_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}
