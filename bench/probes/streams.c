/*
 * streams.c - probe: the host cost of small backend calls (4 KiB copy_h2d,
 * event_record) issued round-robin over 1, 2 and 4 streams, back to back
 * while the device works, as the workloads issue them, against each call
 * timed alone after a sync, as calibrate times it (BENCHMARKS.md,
 * "Simulator fidelity", seventh session).  Through the HIP backend's HAL
 * ops.  Not built by make; from the build directory:
 *   cc -O2 -std=gnu11 -I../.. -I../../include -I. -o streams \
 *     ../../bench/probes/streams.c .libs/libhipcore.so -Wl,-rpath,$PWD/.libs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/hal.h"
#include "bench/probes/probe.h"

#define N 4000

static const struct hc_hal_ops *o;
static hc_hal_dev *d;
static hc_hal_stream *s[4];
static uint64_t smp[N];


/* Syncs the first @n streams every @every calls, so the queues stay short. */
static void sync_every(int i, int every, int n)
{
	if (i % every == every - 1)
		for (int k = 0; k < n; k++)
			o->stream_sync(d, s[k]);
}

static void round_robin(int round, int nstreams, hc_hal_dptr dp, char *pinned)
{
	double copy, record, mixed;

	for (int i = 0; i < N; i++) { /* 4 KiB copies back to back */
		uint64_t t0 = bench_now_ns();

		o->copy_h2d(d, s[i % nstreams], dp + (uint64_t)(i % 64) * 4096,
			    pinned + (i % 64) * 4096, 4096, true);
		smp[i] = bench_now_ns() - t0;
		sync_every(i, 64, nstreams);
	}
	copy = probe_median(smp, N);
	for (int i = 0; i < N; i++) {
		hc_hal_event *e;
		uint64_t t0 = bench_now_ns();

		o->event_record(d, s[i % nstreams], &e);
		smp[i] = bench_now_ns() - t0;
		o->event_destroy(d, e);
		sync_every(i, 64, nstreams);
	}
	record = probe_median(smp, N);
	for (int i = 0; i < N; i++) { /* copy + event record + query */
		hc_hal_event *e;
		bool done;
		uint64_t t0 = bench_now_ns();

		o->copy_h2d(d, s[i % nstreams], dp, pinned, 65536, true);
		o->event_record(d, s[i % nstreams], &e);
		o->event_query(d, e, &done);
		smp[i] = bench_now_ns() - t0;
		o->event_destroy(d, e);
		sync_every(i, 16, nstreams);
	}
	mixed = probe_median(smp, N);
	printf("round %d streams %d: copy_h2d %.0f ns, event_record %.0f ns, "
	       "copy+record+query %.0f ns\n",
	       round, nstreams, copy, record, mixed);
}

/* Each call after a sync of its stream: calibrate's way. */
static void alone(int round, hc_hal_dptr dp, char *pinned)
{
	double copy;

	for (int i = 0; i < 400; i++) {
		uint64_t t0;

		o->stream_sync(d, s[0]);
		t0 = bench_now_ns();
		o->copy_h2d(d, s[0], dp, pinned, 4096, true);
		smp[i] = bench_now_ns() - t0;
	}
	copy = probe_median(smp, 400);
	for (int i = 0; i < 400; i++) {
		hc_hal_event *e;
		uint64_t t0;

		o->stream_sync(d, s[0]);
		t0 = bench_now_ns();
		o->event_record(d, s[0], &e);
		smp[i] = bench_now_ns() - t0;
		o->event_destroy(d, e);
	}
	printf("round %d alone (synced before each): copy_h2d %.0f ns, event_record %.0f ns\n",
	       round, copy, probe_median(smp, 400));
}

int main(void)
{
	struct hc_hal_open_args a = { 0 };
	hc_hal_dptr dp;
	void *pinned;

	o = hc_hal_find("hip");
	if (!o || o->device_open(&a, &d) != HC_OK) {
		puts("streams: no device");
		return 2;
	}
	for (int k = 0; k < 4; k++)
		o->stream_create(d, &s[k]);
	if (o->mem_alloc(d, 1 << 20, &dp) != HC_OK || o->host_alloc(d, 1 << 20, &pinned) != HC_OK) {
		puts("streams: no memory");
		return 2;
	}
	memset(pinned, 1, 1 << 20);
	for (int round = 0; round < 3; round++) {
		for (int n = 1; n <= 4; n *= 2)
			round_robin(round, n, dp, pinned);
		alone(round, dp, pinned);
	}
	return 0;
}
