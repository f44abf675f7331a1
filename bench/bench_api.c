/*
 * bench_api.c - pool hits through the public API on the simulator.
 *
 * bench "pool": large_pair_ns_one_stream / _two_streams (16 MiB: own-cache
 * hit, or through the device's idle cache when several streams are open),
 * alloc_free_pair_ns (hc_alloc + hc_free of 4 KiB, pool hit),
 * the same with N other buffers live (alloc_free_pair_ns_live_<N>: the cost
 * must not grow with N), and pinned_alloc_free_pair_ns (a pinned staging
 * buffer from a stream's pinned pool, reserve + release).  The peers are
 * the figures measured on the H200 machine (cudaMallocAsync pair 2.7 us,
 * cudaMalloc pair 77 us, cudaHostAlloc pair 650 us) and glibc's malloc+free
 * measured in the same run.
 *
 * alloc_fail_ns_live_<N>: one hc_alloc the device refuses, its cleanup and
 * retry included, on a device full of N/2 live buffers of 1 to 7 MiB
 * (every other of N freed, then 9 MiB requests until one fails).  What the
 * cleanup can free is the same at every N (nothing), so the cost must not
 * grow with N; the peer is the figure at the smallest N.  Each is the
 * median of 21 batches of FAILS failures.
 *
 * Each figure is the median of 21 batches of 100000 pairs, timed on the
 * thread's CPU clock: none of these calls blocks, and on a shared machine
 * the CPU clock leaves out time the thread spent waiting for a core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing.h"
#include "core/object.h"

#define BATCHES 21
#define PAIRS 100000

static double bench_api_pair(hc_stream s, uint64_t size)
{
	double per[BATCHES];
	hc_buffer b;

	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_thread_cpu_ns();
		for (int i = 0; i < PAIRS; i++) {
			if (hc_alloc(s, size, &b) != HC_OK || hc_free(b) != HC_OK) {
				fprintf(stderr, "bench_api: alloc/free failed\n");
				exit(1);
			}
		}
		per[k] = (double)(bench_thread_cpu_ns() - t0) / PAIRS;
	}
	return bench_median(per, BATCHES);
}

static double bench_pinned_pair(hc_stream s)
{
	double per[BATCHES];
	struct hc_strm *st;
	struct hc_slice_ref ref;
	uint64_t addr;

	if (hc_strm_lock(s, &st) != HC_OK)
		exit(1);
	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_thread_cpu_ns();
		for (int i = 0; i < PAIRS; i++) {
			if (hc_mm_reserve(st->pmm, 64 * 1024, &ref, &addr) != HC_OK ||
			    hc_mm_release(st->pmm, ref) != HC_OK) {
				fprintf(stderr, "bench_api: pinned reserve failed\n");
				exit(1);
			}
		}
		per[k] = (double)(bench_thread_cpu_ns() - t0) / PAIRS;
	}
	hc_strm_unlock(st);
	return bench_median(per, BATCHES);
}

static double bench_malloc_pair(size_t size)
{
	double per[BATCHES];
	volatile void *sink;

	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_thread_cpu_ns();
		for (int i = 0; i < PAIRS; i++) {
			char *p = malloc(size);
			if (p)
				*(volatile char *)p = (char)i; /* keeps the pair from being elided */
			sink = p;
			free(p);
		}
		per[k] = (double)(bench_thread_cpu_ns() - t0) / PAIRS;
	}
	(void)sink;
	return bench_median(per, BATCHES);
}

static void emit(const char *metric, double v, const char *peer, double pv)
{
	printf("{\"bench\":\"pool\",\"metric\":\"%s\",\"value\":%.1f,\"unit\":\"ns\","
	       "\"peer\":\"%s\",\"peer_value\":%.1f}\n", metric, v, peer, pv);
}

#define FAILS 20

/* The refused hc_alloc of alloc_fail_ns_live_<n> (see the header). */
static double bench_alloc_fail(uint64_t n)
{
	uint64_t capacity = 0, i;
	double per[BATCHES];
	hc_device_options o;
	hc_buffer *live, b;
	hc_device dev;
	hc_stream s;

	for (i = 0; i < n; i++)
		capacity += (1 + i % 7) * HC_MIB;
	hc_device_options_init(&o);
	o.capacity = capacity + 64 * HC_MIB; /* 1 MiB requests share 2 MiB pages */
	live = malloc(n * sizeof(*live));
	if (!live || hc_device_open("sim", &o, &dev) != HC_OK || hc_stream_open(dev, &s) != HC_OK)
		exit(1);
	for (i = 0; i < n; i++)
		if (hc_alloc(s, (1 + i % 7) * HC_MIB, &live[i]) != HC_OK)
			exit(1);
	for (i = 0; i < n; i += 2)
		if (hc_free(live[i]) != HC_OK)
			exit(1);
	while (hc_alloc(s, 9 * HC_MIB, &b) == HC_OK)
		;
	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_thread_cpu_ns();

		for (int f = 0; f < FAILS; f++)
			if (hc_alloc(s, 9 * HC_MIB, &b) != HC_ERR_OOM) {
				fprintf(stderr, "bench_api: a 9 MiB allocation on a full device did not "
						"fail\n");
				exit(1);
			}
		per[k] = (double)(bench_thread_cpu_ns() - t0) / FAILS;
	}
	hc_device_close(dev);
	free(live);
	return bench_median(per, BATCHES);
}

int main(void)
{
	static const uint64_t lives[] = { 100, 10000, 100000, 1000000 };
	hc_device_options o;
	hc_device dev;
	hc_stream s;
	double m = bench_malloc_pair(4096);

	hc_device_options_init(&o);
	o.capacity = (uint64_t)1 << 40; /* room for 10^6 live buffers */
	if (hc_device_open("sim", &o, &dev) != HC_OK || hc_stream_open(dev, &s) != HC_OK) {
		fprintf(stderr, "bench_api: cannot open the simulator\n");
		return 1;
	}
	emit("alloc_free_pair_ns", bench_api_pair(s, 4096), "cudaMallocAsync_pair_h200", 2700.0);
	emit("alloc_free_pair_ns_vs_malloc", bench_api_pair(s, 4096), "glibc_malloc_free", m);
	emit("pinned_alloc_free_pair_ns", bench_pinned_pair(s), "cudaHostAlloc_pair_1MiB_h200",
	     650000.0);
	for (size_t k = 0; k < sizeof(lives) / sizeof(lives[0]); k++) {
		hc_stream t;
		hc_buffer *live;
		char metric[64];

		if (hc_stream_open(dev, &t) != HC_OK)
			return 1;
		live = malloc(lives[k] * sizeof(*live));
		for (uint64_t i = 0; i < lives[k]; i++)
			if (hc_alloc(t, 4096 + (i % 7) * 512, &live[i]) != HC_OK)
				return 1;
		snprintf(metric, sizeof(metric), "alloc_free_pair_ns_live_%llu",
			 (unsigned long long)lives[k]);
		emit(metric, bench_api_pair(t, 4096), "cudaMallocAsync_pair_h200", 2700.0);
		hc_stream_close(t); /* frees the live buffers */
		free(live);
	}
	/* A 16 MiB pair (direct pool): with one stream, an exact-size hit in
	 * the stream's own cache; with a second stream open, the freed
	 * allocation goes to the device's idle cache behind a fence and the
	 * next request adopts it (core/pool/idle.h). */
	emit("large_pair_ns_one_stream", bench_api_pair(s, 16 * HC_MIB), "cudaMalloc_pair_h200",
	     77000.0);
	{
		hc_stream t;

		if (hc_stream_open(dev, &t) != HC_OK)
			return 1;
		emit("large_pair_ns_two_streams", bench_api_pair(s, 16 * HC_MIB),
		     "cudaMalloc_pair_h200", 77000.0);
		hc_stream_close(t);
	}
	hc_device_close(dev);
	{
		static const uint64_t fails[] = { 1000, 10000, 100000 };
		double first = 0;

		for (size_t k = 0; k < sizeof(fails) / sizeof(fails[0]); k++) {
			char metric[64];
			double v = bench_alloc_fail(fails[k]);

			if (k == 0)
				first = v;
			snprintf(metric, sizeof(metric), "alloc_fail_ns_live_%llu",
				 (unsigned long long)fails[k]);
			emit(metric, v, "alloc_fail_ns_live_1000", first);
		}
	}
	return 0;
}
