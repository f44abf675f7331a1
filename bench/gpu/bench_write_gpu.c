/*
 * bench_write_gpu.c - pageable host-to-device bandwidth on a real GPU
 * (bench "write_gpu"), 64 KiB .. 1 GiB:
 *   - pipelined_gbps_<size>: hc_write(HC_ALLOC_NATIVE) through the public
 *     API on backend "hip", with the device's stage_max_bytes policy raised
 *     to 2 GiB so every size is staged (below 8 MiB that is one pinned
 *     bounce, from 8 MiB on the chunk pipeline of core/pipeline.c);
 *   - driver_pageable_gbps_<size>: the HIP backend's raw copy_h2d from
 *     malloc'd memory with src_pinned=false (cudaMemcpyAsync/hipMemcpyAsync
 *     from pageable memory: the driver's own staging);
 *   - pinned_gbps_<size>: the raw copy_h2d from host_alloc'd memory;
 *   - pipelined_over_pinned_<size>: the ratio of the first to the last.
 * Method: one warm-up, then the mean over a loop of write + stream sync
 * (hc_sync for the API), wall clock.  The peer is the H200 probe's figure
 * for the same method where it measured that size.  Without a GPU it prints
 * one SKIP line on stderr and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "hipcore/hipcore.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void emit(const char *metric, const char *label, double value, const char *unit,
		 double peer)
{
	printf("{\"bench\":\"write_gpu\",\"metric\":\"%s_%s\",\"value\":%.3f,\"unit\":\"%s\","
	       "\"peer\":\"h200-probe\",\"peer_value\":",
	       metric, label, value, unit);
	if (peer >= 0)
		printf("%.3f}\n", peer);
	else
		printf("null}\n");
	fflush(stdout);
}

/* h200-probe.md, H2D GB/s: pageable and pinned by size (-1: not measured). */
static void probe(uint64_t n, double *pageable, double *pinned)
{
	*pageable = *pinned = -1;
	if (n == 64 * 1024)
		*pageable = 3.27, *pinned = 6.20;
	else if (n == HC_MIB)
		*pageable = 8.07, *pinned = 37.66;
	else if (n == 1024 * HC_MIB)
		*pageable = 7.80, *pinned = 55.27;
}

static int iters_for(uint64_t n)
{
	uint64_t it = (2048 * HC_MIB) / n;

	return it < 3 ? 3 : it > 50 ? 50 : (int)it;
}

int main(void)
{
	const struct hc_hal_ops *H = hc_hip_ops();
	struct hc_hal_open_args args = { .ordinal = 0 };
	const uint64_t max = 1024 * HC_MIB;
	hc_policy pol = { 0, 0, 2 * max };
	hc_hal_dev *hd;
	hc_hal_stream *hs;
	hc_hal_dptr raw_dst;
	hc_device dev;
	hc_stream s;
	hc_buffer b;
	hc_error_info e;
	unsigned char *src;
	void *pin;

	if (H->device_open(&args, &hd) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "bench_write_gpu: SKIP: no GPU runtime/device: %s\n", e.message);
		return 0;
	}
	if (hc_device_open("hip", NULL, &dev) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "bench_write_gpu: SKIP: backend hip: %s\n", e.message);
		H->device_close(hd);
		return 0;
	}
	src = malloc(max);
	if (!src || H->stream_create(hd, &hs) != HC_OK || H->mem_alloc(hd, max, &raw_dst) != HC_OK ||
	    H->host_alloc(hd, max, &pin) != HC_OK || hc_device_set_policy(dev, &pol) != HC_OK ||
	    hc_stream_open(dev, &s) != HC_OK || hc_alloc(s, max, &b) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "bench_write_gpu: setup failed: %s\n", e.message);
		return 1;
	}
	memset(src, 0x5a, max); /* touch every page: pageable, but resident */
	memset(pin, 0x5a, max);
	for (uint64_t n = 64 * 1024; n <= max; n *= 4) {
		int it = iters_for(n);
		double t0, pipe, drv, pinned, peer_pageable, peer_pinned;
		char label[32];

		if (n >= HC_MIB)
			snprintf(label, sizeof(label), "%lluMiB", (unsigned long long)(n / HC_MIB));
		else
			snprintf(label, sizeof(label), "%lluKiB", (unsigned long long)(n / 1024));
		probe(n, &peer_pageable, &peer_pinned);

		hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL);
		hc_sync(s);
		t0 = now_s();
		for (int i = 0; i < it; i++)
			if (hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL) != HC_OK ||
			    hc_sync(s) != HC_OK) {
				hc_last_error(&e);
				fprintf(stderr, "bench_write_gpu: hc_write: %s\n", e.message);
				return 1;
			}
		pipe = (double)n * it / (now_s() - t0) / 1e9;

		H->copy_h2d(hd, hs, raw_dst, src, n, false);
		H->stream_sync(hd, hs);
		t0 = now_s();
		for (int i = 0; i < it; i++) {
			H->copy_h2d(hd, hs, raw_dst, src, n, false);
			H->stream_sync(hd, hs);
		}
		drv = (double)n * it / (now_s() - t0) / 1e9;

		H->copy_h2d(hd, hs, raw_dst, pin, n, true);
		H->stream_sync(hd, hs);
		t0 = now_s();
		for (int i = 0; i < it; i++) {
			H->copy_h2d(hd, hs, raw_dst, pin, n, true);
			H->stream_sync(hd, hs);
		}
		pinned = (double)n * it / (now_s() - t0) / 1e9;

		emit("pipelined_gbps", label, pipe, "GB/s", -1);
		emit("driver_pageable_gbps", label, drv, "GB/s", peer_pageable);
		emit("pinned_gbps", label, pinned, "GB/s", peer_pinned);
		emit("pipelined_over_pinned", label, pinned > 0 ? pipe / pinned : 0, "ratio", -1);
	}
	hc_free(b);
	hc_stream_close(s);
	hc_device_close(dev);
	H->host_free(hd, pin);
	H->mem_free(hd, raw_dst);
	H->stream_destroy(hd, hs);
	H->device_close(hd);
	free(src);
	return 0;
}
