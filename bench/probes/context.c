/*
 * context.c - probe: what small backend calls cost among other host work,
 * against the same calls timed alone after a sync, as calibrate times them.
 *
 * The fidelity runs (BENCHMARKS.md, "Simulator fidelity") find nearly every
 * call kind 15-35 % dearer inside a workload than calibrate's loops say.
 * Two suspects are measured here, through the HIP backend's HAL ops:
 *  1. device allocation with many live allocations (the workloads keep
 *     hundreds; calibrate keeps none);
 *  2. calls issued between host copies of 1 MiB (the staging memcpy of a
 *     write), round-robin over four streams, as the workloads issue them.
 * Not built by make; from the build directory:
 *   cc -O2 -std=gnu11 -I../.. -I../../include -I. -o context \
 *     ../../bench/probes/context.c .libs/libhipcore.so -Wl,-rpath,$PWD/.libs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/hal.h"
#include "bench/probes/probe.h"

#define N 400
#define MIB (1ull << 20)


static const struct hc_hal_ops *o;
static hc_hal_dev *d;
static hc_hal_stream *s[4];

/* alloc+free pairs of @size with @live allocations of 2 MiB held. */
static void alloc_with_live(int live, uint64_t size)
{
	static hc_hal_dptr held[2048];
	uint64_t ta[N], tf[N];

	for (int i = 0; i < live; i++)
		if (o->mem_alloc(d, 2 * MIB, &held[i]) != HC_OK) {
			printf("live %d: allocation %d refused\n", live, i);
			live = i;
			break;
		}
	for (int i = 0; i < N; i++) {
		hc_hal_dptr p;
		uint64_t t0 = bench_now_ns();

		o->mem_alloc(d, size, &p);
		ta[i] = bench_now_ns() - t0;
		t0 = bench_now_ns();
		o->mem_free(d, p);
		tf[i] = bench_now_ns() - t0;
	}
	printf("live %4d, %5llu KiB: mem_alloc %.1f us, mem_free %.1f us\n", live,
	       (unsigned long long)(size >> 10), probe_median(ta, N) / 1e3, probe_median(tf, N) / 1e3);
	for (int i = 0; i < live; i++)
		o->mem_free(d, held[i]);
}

/* The call kinds timed in both settings. */
enum { K_COPY, K_RECORD, K_QUERY, K_DESTROY, K_ALLOC, K_FREE, K_N };
static const char *kind_name[K_N] = { "copy_h2d 64K", "event_record", "event_query",
				      "event_destroy", "mem_alloc 2M", "mem_free 2M" };

/* One of each call; @t gets their times.  @sweep: a 1 MiB host copy first. */
static void one_round(int i, char *src, char *dst, void *pinned, hc_hal_dptr dp, bool sweep,
		      uint64_t t[K_N])
{
	hc_hal_event *e;
	hc_hal_dptr p;
	bool done;
	uint64_t t0;

	if (sweep)
		memcpy(dst, src + (size_t)(i % 32) * MIB, MIB);
	else
		for (int k = 0; k < 4; k++)
			o->stream_sync(d, s[k]);
	t0 = bench_now_ns();
	o->copy_h2d(d, s[i % 4], dp, pinned, 65536, true);
	t[K_COPY] = bench_now_ns() - t0;
	t0 = bench_now_ns();
	o->event_record(d, s[i % 4], &e);
	t[K_RECORD] = bench_now_ns() - t0;
	t0 = bench_now_ns();
	o->event_query(d, e, &done);
	t[K_QUERY] = bench_now_ns() - t0;
	t0 = bench_now_ns();
	o->event_destroy(d, e);
	t[K_DESTROY] = bench_now_ns() - t0;
	if (!sweep)
		for (int k = 0; k < 4; k++)
			o->stream_sync(d, s[k]);
	t0 = bench_now_ns();
	o->mem_alloc(d, 2 * MIB, &p);
	t[K_ALLOC] = bench_now_ns() - t0;
	t0 = bench_now_ns();
	o->mem_free(d, p);
	t[K_FREE] = bench_now_ns() - t0;
}

static void calls_in_context(void)
{
	static uint64_t t[2][K_N][N];
	char *src = malloc(32 * MIB), *dst = malloc(MIB);
	void *pinned;
	hc_hal_dptr dp;

	if (!src || !dst || o->host_alloc(d, MIB, &pinned) != HC_OK ||
	    o->mem_alloc(d, MIB, &dp) != HC_OK) {
		puts("context: no memory");
		return;
	}
	memset(src, 1, 32 * MIB);
	memset(dst, 2, MIB);
	memset(pinned, 3, MIB);
	for (int i = 0; i < N; i++) {
		uint64_t one[K_N];

		one_round(i, src, dst, pinned, dp, false, one);
		for (int k = 0; k < K_N; k++)
			t[0][k][i] = one[k];
		one_round(i, src, dst, pinned, dp, true, one);
		for (int k = 0; k < K_N; k++)
			t[1][k][i] = one[k];
	}
	for (int k = 0; k < K_N; k++) {
		double alone = probe_median(t[0][k], N), mixed = probe_median(t[1][k], N);

		printf("%-14s alone %8.0f ns, after a 1 MiB host copy on 4 streams %8.0f ns, %.2f x\n",
		       kind_name[k], alone, mixed, mixed / alone);
	}
	o->mem_free(d, dp);
	o->host_free(d, pinned);
	free(src);
	free(dst);
}

int main(void)
{
	struct hc_hal_open_args a = { 0 };

	o = hc_hal_find("hip");
	if (!o || o->device_open(&a, &d) != HC_OK) {
		puts("context: no device");
		return 2;
	}
	for (int k = 0; k < 4; k++)
		o->stream_create(d, &s[k]);
	for (int round = 0; round < 2; round++) {
		printf("== round %d\n", round);
		alloc_with_live(0, 2 * MIB);
		alloc_with_live(128, 2 * MIB);
		alloc_with_live(512, 2 * MIB);
		alloc_with_live(0, 64 * MIB);
		alloc_with_live(512, 64 * MIB);
		calls_in_context();
	}
	return 0;
}
