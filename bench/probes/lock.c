/*
 * lock.c - probe: the stream lock's uncontended round trip (core/lock.h),
 * the owner's biased hold against the futex lock's compare-and-swap and
 * exchange, on this host (BENCHMARKS.md, "Pool hits on the H200").  Each
 * round times N acquire/increment/release on a fresh lock, biased, then
 * with biasing off (as HIPCORE_LOCK_BIAS=0).  Not built by make:
 * bench/probes/run-cpu.sh lock builds and runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/timing.h"
#include "core/lock.h"

enum { N = 20000000 };
static long counter;

/* ns per round trip on a fresh lock, the first hold taken outside. */
__attribute__((noinline)) static double round_trips(void)
{
	hc_lock l;
	double t0;

	hc_lock_init(&l);
	hc_lock_acquire(&l);
	hc_lock_release(&l);
	t0 = (double)bench_now_ns();
	for (int i = 0; i < N; i++) {
		hc_lock_acquire(&l);
		counter++;
		hc_lock_release(&l);
	}
	return ((double)bench_now_ns() - t0) / N;
}

int main(void)
{
	for (int r = 0; r < 3; r++) {
		double biased, futex;
		int on;

		unsetenv("HIPCORE_LOCK_BIAS");
		hc_lock_bias_reset(NULL);
		on = hc_lock_bias_enabled();
		biased = round_trips();
		setenv("HIPCORE_LOCK_BIAS", "0", 1);
		hc_lock_bias_reset(NULL);
		futex = round_trips();
		printf("{\"probe\":\"lock\",\"bias_on\":%d,\"biased_round_trip_ns\":%.2f,"
		       "\"futex_round_trip_ns\":%.2f}\n",
		       on, biased, futex);
	}
	return counter == 6L * N ? 0 : 1; /* the holds kept every increment */
}
