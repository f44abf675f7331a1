/*
 * atomics.c - probe: the cost of an uncontended lock round trip (one
 * compare-and-swap, one exchange: core/lock.h's fast path) on this host
 * (BENCHMARKS.md, "Pool hits on the H200").  Not built by make:
 * bench/probes/run-cpu.sh atomics builds and runs it.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "../timing.h"

int main(void){
	static _Atomic int lk; enum { N = 20000000 };
	for (int r = 0; r < 3; r++) {
		double t0 = (double)bench_now_ns();
		for (int i = 0; i < N; i++) {
			int z = 0;
			atomic_compare_exchange_strong_explicit(&lk, &z, 1, memory_order_acquire, memory_order_relaxed);
			atomic_exchange_explicit(&lk, 0, memory_order_release);
		}
		double t1 = (double)bench_now_ns();
		volatile int v = 0;
		for (int i = 0; i < N; i++) v = v + 1;
		double t2 = (double)bench_now_ns();
		printf("{\"probe\":\"atomics\",\"cas_xchg_pair_ns\":%.2f,\"plain_loop_ns\":%.2f}\n", (t1-t0)/N, (t2-t1)/N);
	}
	return 0;
}
