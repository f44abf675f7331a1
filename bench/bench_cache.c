/*
 * bench_cache.c - metadata cache hit cost.
 *
 * Fills a cache with 4096 entries of 8 info words (the default capacity),
 * then times lookups that all hit, cycling over the keys in a scrambled
 * order so the walk is not a linear scan of memory.  Prints one JSON line:
 * bench "cache", metric "hit_ns" (target <= 100 ns).  There is no peer
 * figure: upstream's cache is a Rust HashMap inside the server.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/timing.h"
#include "core/queue/metacache.h"

#define NKEYS 4096
#define WORDS 8
#define ROUNDS 2000

int main(void)
{
	static uint64_t keys[NKEYS][WORDS];
	static uint32_t order[NKEYS];
	struct hc_metacache *mc;
	uint64_t sink = 0, rng = 0x2545F4914F6CDD1Dull;
	double t0, t1, best = 1e30;
	int i, j, r, rep;

	if (hc_mc_create(NULL, NULL, NULL, &mc) != HC_OK)
		return 1;
	for (i = 0; i < NKEYS; i++) {
		struct hc_mc_value v = { (uint64_t)i, 0 };
		bool stored;

		/* Shapes and strides: small, similar numbers, as real info is. */
		for (j = 0; j < WORDS; j++)
			keys[i][j] = (uint64_t)((i >> (j % 4)) + j * 3 + (j == 7 ? i : 0));
		if (hc_mc_insert(mc, keys[i], WORDS, v, &stored) != HC_OK || !stored)
			return 1;
		order[i] = (uint32_t)i;
	}
	for (i = NKEYS - 1; i > 0; i--) {
		uint32_t t;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = (int)(rng % (uint64_t)(i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (rep = 0; rep < 5; rep++) {
		t0 = (double)bench_now_ns();
		for (r = 0; r < ROUNDS / 5; r++)
			for (i = 0; i < NKEYS; i++) {
				struct hc_mc_value v;

				if (!hc_mc_get(mc, keys[order[i]], WORDS, &v))
					return 1;
				sink += v.a;
			}
		t1 = (double)bench_now_ns();
		if ((t1 - t0) / ((double)NKEYS * (ROUNDS / 5)) < best)
			best = (t1 - t0) / ((double)NKEYS * (ROUNDS / 5));
	}
	hc_mc_destroy(mc);
	printf("{\"bench\":\"cache\",\"metric\":\"hit_ns\",\"value\":%.1f,\"unit\":\"ns\","
	       "\"peer\":\"none\",\"peer_value\":null}\n",
	       best);
	return sink == 0 ? 1 : 0;
}
