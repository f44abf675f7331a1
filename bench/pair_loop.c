/*
 * pair_loop.c - a fixed number of hc_alloc + hc_free pool hits, for
 * counting instructions (bench/callgrind-pair runs it under callgrind with
 * collection switched on in pair_loop() only).  Not a timing benchmark.
 *
 * Usage: pair_loop [PAIRS [SIZE]]   (default 100000 pairs of 4096 bytes)
 */
#include <stdio.h>
#include <stdlib.h>

#include "hipcore/hipcore.h"

/* noinline: callgrind's --toggle-collect needs the function to exist. */
__attribute__((noinline)) static int pair_loop(hc_stream s, uint64_t size, long n)
{
	hc_buffer b;

	for (long i = 0; i < n; i++)
		if (hc_alloc(s, size, &b) != HC_OK || hc_free(b) != HC_OK)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	uint64_t size = argc > 2 ? strtoull(argv[2], NULL, 0) : 4096;
	hc_device dev;
	hc_stream s;
	hc_buffer warm;

	if (hc_device_open("sim", NULL, &dev) != HC_OK || hc_stream_open(dev, &s) != HC_OK) {
		fprintf(stderr, "pair_loop: cannot open the simulator\n");
		return 1;
	}
	/* The first allocation creates the page: the loop measures hits only. */
	if (hc_alloc(s, size, &warm) != HC_OK || hc_free(warm) != HC_OK ||
	    pair_loop(s, size, n) != 0) {
		fprintf(stderr, "pair_loop: alloc/free failed\n");
		return 1;
	}
	hc_stream_close(s);
	hc_device_close(dev);
	return 0;
}
