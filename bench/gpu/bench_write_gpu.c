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
 *
 * BENCH_PIPE_SWEEP=1 instead sweeps the pipeline's knobs (hc_pipe_tuning:
 * copy workers, first chunk, largest chunk, smallest piece, lookahead,
 * workers' spin, chunk pieces per thread) over the
 * pipelined sizes, three rounds (BENCH_SWEEP_ROUNDS) with the settings interleaved, and prints
 * pipelined / pinned per setting and size (bench "write_gpu_sweep").
 * BENCH_HOST_COPY=1 measures what bounds the pipeline: the host's
 * aggregate copy rate from pageable into pinned memory (the library's
 * streaming-store copy) with 1..16 threads, alone and while the device
 * reads pinned memory at full speed (bench "host_copy").
 * BENCH_WRITE_PARTS=1 says where a pipelined write's time goes: per write
 * of 8, 16 and 64 MiB, the host time inside each backend op (a device
 * opened with op_times) against the wall clock; and the transfers alone,
 * pinned, in chunks as the pipeline issues them (four or eight back to
 * back on one stream, or alternating over two) against one copy of the
 * whole size (bench "write_parts").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "core/stage_copy.h"
#include "core/streamops.h"
#include "bench/timing.h"
#include "bench/probes/probe.h"
#include "hipcore/hipcore.h"

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
	uint64_t it = (4096 * HC_MIB) / n;

	return it < 3 ? 3 : it > 200 ? 200 : (int)it;
}

static void label_of(uint64_t n, char *label, size_t cap)
{
	if (n >= HC_MIB)
		snprintf(label, cap, "%lluMiB", (unsigned long long)(n / HC_MIB));
	else
		snprintf(label, cap, "%lluKiB", (unsigned long long)(n / 1024));
}

/* GB/s of hc_write + hc_sync of @n bytes from @src; < 0 on a failure. */
static double api_gbps(hc_stream s, hc_buffer b, const void *src, uint64_t n)
{
	int it = iters_for(n);
	hc_error_info e;
	double t0;

	hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL);
	hc_sync(s);
	t0 = bench_now_s();
	for (int i = 0; i < it; i++)
		if (hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL) != HC_OK ||
		    hc_sync(s) != HC_OK) {
			hc_last_error(&e);
			fprintf(stderr, "bench_write_gpu: hc_write: %s\n", e.message);
			return -1;
		}
	return (double)n * it / (bench_now_s() - t0) / 1e9;
}

/* GB/s of the backend's raw copy_h2d + stream_sync from @src. */
static double raw_gbps(const struct hc_hal_ops *H, hc_hal_dev *hd, hc_hal_stream *hs,
		       hc_hal_dptr dst, const void *src, uint64_t n, bool pinned)
{
	int it = iters_for(n);
	double t0;

	H->copy_h2d(hd, hs, dst, src, n, pinned);
	H->stream_sync(hd, hs);
	t0 = bench_now_s();
	for (int i = 0; i < it; i++) {
		H->copy_h2d(hd, hs, dst, src, n, pinned);
		H->stream_sync(hd, hs);
	}
	return (double)n * it / (bench_now_s() - t0) / 1e9;
}

#define HOST_SLICE (64 * HC_MIB)
#define HOST_REPS 4

struct copier {
	pthread_t thr;
	unsigned char *dst;
	const unsigned char *src;
};

static void *copier_main(void *p)
{
	struct copier *c = p;

	for (int r = 0; r < HOST_REPS; r++)
		hc_stage_copy_inline(c->dst, c->src, HOST_SLICE);
	return NULL;
}

/* Aggregate GB/s of @t threads each copying its own 64 MiB slice of @src
 * into @dst HOST_REPS times. */
static double host_copy_gbps(unsigned t, unsigned char *dst, const unsigned char *src)
{
	struct copier c[16];
	double t0 = bench_now_s();

	for (unsigned i = 0; i < t; i++) {
		c[i].dst = dst + i * HOST_SLICE;
		c[i].src = src + i * HOST_SLICE;
		pthread_create(&c[i].thr, NULL, copier_main, &c[i]);
	}
	for (unsigned i = 0; i < t; i++)
		pthread_join(c[i].thr, NULL);
	return (double)t * HOST_SLICE * HOST_REPS / (bench_now_s() - t0) / 1e9;
}

/* Host copy rates alone and under a device reading pinned memory (@pin,
 * 1 GiB) into @raw_dst; @src is 1 GiB of pageable memory. */
static int host_copy_probe(const struct hc_hal_ops *H, hc_hal_dev *hd, hc_hal_stream *hs,
			   hc_hal_dptr raw_dst, const unsigned char *src, const void *pin)
{
	static const unsigned threads[] = { 1, 2, 4, 8, 12, 16 };
	unsigned char *dst;
	void *p;

	if (H->host_alloc(hd, 1024 * HC_MIB, &p) != HC_OK)
		return 1;
	dst = p;
	memset(dst, 0, 1024 * HC_MIB);
	for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		unsigned t = threads[k];
		double alone = host_copy_gbps(t, dst, src), busy, t0, dma;

		/* ~10 GiB of pinned reads queued: ~0.2 s at 55 GB/s, longer
		 * than the copies below. */
		t0 = bench_now_s();
		for (int i = 0; i < 10; i++)
			H->copy_h2d(hd, hs, raw_dst, pin, 1024 * HC_MIB, true);
		busy = host_copy_gbps(t, dst, src);
		H->stream_sync(hd, hs);
		dma = 10.0 * 1024 * HC_MIB / (bench_now_s() - t0) / 1e9;
		printf("{\"bench\":\"host_copy\",\"metric\":\"threads_%u\",\"value\":%.2f,"
		       "\"unit\":\"GB/s\",\"under_dma_gbps\":%.2f,\"dma_gbps\":%.2f}\n",
		       t, alone, busy, dma);
		fflush(stdout);
	}
	H->host_free(hd, dst);
	return 0;
}

static void parts_emit(const char *metric, const char *label, double us)
{
	printf("{\"bench\":\"write_parts\",\"metric\":\"%s_%s\",\"value\":%.1f,"
	       "\"unit\":\"us\"}\n",
	       metric, label, us);
	fflush(stdout);
}

#define PARTS_REPS 41

/* Microseconds (median) of @n bytes of pinned @pin copied to @dst in
 * @parts copies issued back to back, over @nstreams streams in turn, then
 * every stream synced. */
static double transfer_us(const struct hc_hal_ops *H, hc_hal_dev *hd, hc_hal_stream **hs,
			  unsigned nstreams, hc_hal_dptr dst, const unsigned char *pin, uint64_t n,
			  unsigned parts)
{
	uint64_t t[PARTS_REPS];
	uint64_t part = n / parts;

	for (int r = 0; r < PARTS_REPS + 1; r++) {
		uint64_t t0 = bench_now_ns();

		for (unsigned k = 0; k < parts; k++)
			H->copy_h2d(hd, hs[k % nstreams], dst + k * part, pin + k * part, part, true);
		for (unsigned k = 0; k < nstreams; k++)
			H->stream_sync(hd, hs[k]);
		if (r > 0) /* one warm-up */
			t[r - 1] = bench_now_ns() - t0;
	}
	return probe_median(t, PARTS_REPS) / 1e3;
}

static int write_parts(const struct hc_hal_ops *H, hc_hal_dev *hd, hc_hal_stream *hs,
		       hc_hal_dptr raw_dst, const unsigned char *src, const unsigned char *pin)
{
	static const uint64_t sizes[] = { 8 * HC_MIB, 16 * HC_MIB, 64 * HC_MIB };
	hc_policy pol = { 0, 0, 2048 * HC_MIB };
	hc_device_options o;
	hc_hal_stream *two[2] = { hs, NULL };
	hc_device dev;
	hc_stream s;
	hc_buffer b;
	int rc = 1;

	if (H->stream_create(hd, &two[1]) != HC_OK)
		return 1;
	hc_device_options_init(&o);
	o.op_times = true;
	if (hc_device_open("hip", &o, &dev) != HC_OK)
		goto out_hal_stream;
	if (hc_device_set_policy(dev, &pol) != HC_OK || hc_stream_open(dev, &s) != HC_OK)
		goto out_device;
	if (hc_alloc(s, 64 * HC_MIB, &b) != HC_OK)
		goto out_stream;
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint64_t n = sizes[z], wall[PARTS_REPS];
		hc_op_time t0[64], t1[64];
		size_t k0 = 0, k1 = 0;
		double w0;
		char label[32], metric[64];

		label_of(n, label, sizeof(label));
		hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL);
		hc_sync(s);
		hc_device_op_times(dev, t0, 64, &k0);
		w0 = bench_now_s();
		for (int r = 0; r < PARTS_REPS; r++) {
			uint64_t a = bench_now_ns();

			if (hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL) != HC_OK ||
			    hc_sync(s) != HC_OK)
				goto out_buffer;
			wall[r] = bench_now_ns() - a;
		}
		w0 = (bench_now_s() - w0) * 1e6 / PARTS_REPS;
		hc_device_op_times(dev, t1, 64, &k1);
		parts_emit("write_mean", label, w0);
		parts_emit("write_median", label, probe_median(wall, PARTS_REPS) / 1e3);
		for (size_t i = 0; i < k1 && i < k0 && i < 64; i++) {
			double us = (double)(t1[i].host_ns - t0[i].host_ns) / 1e3 / PARTS_REPS;

			if (t1[i].calls == t0[i].calls)
				continue;
			snprintf(metric, sizeof(metric), "op_%s_x%.1f", t1[i].op,
				 (double)(t1[i].calls - t0[i].calls) / PARTS_REPS);
			parts_emit(metric, label, us);
		}
		parts_emit("pinned_one", label, transfer_us(H, hd, two, 1, raw_dst, pin, n, 1));
		parts_emit("pinned_4_chunks_one_stream", label, transfer_us(H, hd, two, 1, raw_dst, pin, n, 4));
		parts_emit("pinned_4_chunks_two_streams", label, transfer_us(H, hd, two, 2, raw_dst, pin, n, 4));
		parts_emit("pinned_8_chunks_one_stream", label, transfer_us(H, hd, two, 1, raw_dst, pin, n, 8));
		parts_emit("pinned_8_chunks_two_streams", label, transfer_us(H, hd, two, 2, raw_dst, pin, n, 8));
	}
	rc = 0;
out_buffer:
	hc_free(b);
out_stream:
	hc_stream_close(s);
out_device:
	hc_device_close(dev);
out_hal_stream:
	H->stream_destroy(hd, two[1]);
	return rc;
}

static const struct hc_pipe_tuning sweep_settings[] = {
	{ 8, 1 * HC_MIB, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 64 * 1024, 50000, 1 }, /* the defaults */
	{ 8, 1 * HC_MIB, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 64 * 1024, 250000, 1 },
	{ 8, 1 * HC_MIB, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 64 * 1024, 1000000, 1 },
	{ 8, 1 * HC_MIB, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 32 * 1024, 250000, 4 },
	{ 8, 512 * 1024, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 32 * 1024, 250000, 2 },
	{ 8, 256 * 1024, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 32 * 1024, 250000, 2 },
	{ 11, 1 * HC_MIB, 8 * HC_MIB, 256 * 1024, 2, 4, 2 * HC_MIB, 64 * 1024, 250000, 2 },
};
#define NSET (sizeof(sweep_settings) / sizeof(sweep_settings[0]))

/* Each setting on a freshly opened device, so its worker count holds. */
static int sweep(const struct hc_hal_ops *H, hc_hal_dev *hd, hc_hal_stream *hs,
		 hc_hal_dptr raw_dst, const unsigned char *src, const void *pin)
{
	static const uint64_t sizes[] = { 8 * HC_MIB, 16 * HC_MIB, 32 * HC_MIB, 64 * HC_MIB,
					  256 * HC_MIB };
	const uint64_t nsz = sizeof(sizes) / sizeof(sizes[0]);
	hc_policy pol = { 0, 0, 2048 * HC_MIB };
	double pinned[sizeof(sizes) / sizeof(sizes[0])];
	const struct hc_pipe_tuning saved = hc_pipe_tuning;

	const char *rounds_env = getenv("BENCH_SWEEP_ROUNDS");
	int rounds = rounds_env && atoi(rounds_env) > 0 ? atoi(rounds_env) : 3;

	for (int round = 0; round < rounds; round++) {
		/* per round: a host that warms up or slows down moves both sides */
		for (uint64_t z = 0; z < nsz; z++)
			pinned[z] = raw_gbps(H, hd, hs, raw_dst, pin, sizes[z], true);
		for (unsigned k = 0; k < NSET; k++) {
			const struct hc_pipe_tuning *t = &sweep_settings[k];
			hc_device dev;
			hc_stream s;
			hc_buffer b;

			hc_pipe_tuning = *t;
			if (hc_device_open("hip", NULL, &dev) != HC_OK ||
			    hc_device_set_policy(dev, &pol) != HC_OK ||
			    hc_stream_open(dev, &s) != HC_OK || hc_alloc(s, sizes[nsz - 1], &b) != HC_OK)
				return 1;
			for (uint64_t z = 0; z < nsz; z++) {
				double r = api_gbps(s, b, src, sizes[z]);
				char label[32], metric[192];

				if (r < 0)
					return 1;
				label_of(sizes[z], label, sizeof(label));
				snprintf(metric, sizeof(metric), "r%d_w%u_spin%lluus_ppt%u_ahead%u_parts%u_first%lluK_max%lluM_piece%lluK_cpiece%lluK_%s",
					 round, t->max_workers, (unsigned long long)(t->worker_spin_ns / 1000),
					 t->chunk_pieces_per_thread, t->lookahead, t->parts,
					 (unsigned long long)(t->first_chunk / 1024),
					 (unsigned long long)(t->chunk_max / HC_MIB),
					 (unsigned long long)(t->piece_min / 1024),
					 (unsigned long long)(t->chunk_piece_min / 1024), label);
				printf("{\"bench\":\"write_gpu_sweep\",\"metric\":\"%s\",\"value\":%.3f,"
				       "\"unit\":\"ratio\",\"gbps\":%.2f,\"pinned_gbps\":%.2f}\n",
				       metric, r / pinned[z], r, pinned[z]);
				fflush(stdout);
			}
			hc_free(b);
			hc_stream_close(s);
			hc_device_close(dev);
		}
	}
	hc_pipe_tuning = saved;
	return 0;
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
	const char *mode;
	int rc = 0;

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
	mode = getenv("BENCH_HOST_COPY")    ? "host copy probe"
	       : getenv("BENCH_PIPE_SWEEP")  ? "sweep"
	       : getenv("BENCH_WRITE_PARTS") ? "write parts"
					     : NULL;
	if (!mode) {
		/* Powers of four, plus 8 and 32 MiB: the pipeline starts at 8 MiB. */
		static const uint64_t sizes[] = { 64 * 1024, 256 * 1024, HC_MIB, 4 * HC_MIB, 8 * HC_MIB,
						  16 * HC_MIB, 32 * HC_MIB, 64 * HC_MIB, 256 * HC_MIB, max };
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			uint64_t n = sizes[z];
			double pipe, drv, pinned, peer_pageable, peer_pinned;
			char label[32];

			label_of(n, label, sizeof(label));
			probe(n, &peer_pageable, &peer_pinned);
			pipe = api_gbps(s, b, src, n);
			if (pipe < 0)
				return 1;
			drv = raw_gbps(H, hd, hs, raw_dst, src, n, false);
			pinned = raw_gbps(H, hd, hs, raw_dst, pin, n, true);
			emit("pipelined_gbps", label, pipe, "GB/s", -1);
			emit("driver_pageable_gbps", label, drv, "GB/s", peer_pageable);
			emit("pinned_gbps", label, pinned, "GB/s", peer_pinned);
			emit("pipelined_over_pinned", label, pinned > 0 ? pipe / pinned : 0, "ratio", -1);
		}
	}
	hc_free(b);
	hc_stream_close(s);
	hc_device_close(dev);
	if (mode) { /* the sweep opens a device per setting; the probe uses the raw backend */
		rc = getenv("BENCH_HOST_COPY")	  ? host_copy_probe(H, hd, hs, raw_dst, src, pin)
		     : getenv("BENCH_WRITE_PARTS") ? write_parts(H, hd, hs, raw_dst, src, pin)
						   : sweep(H, hd, hs, raw_dst, src, pin);
		if (rc)
			fprintf(stderr, "bench_write_gpu: %s failed\n", mode);
	}
	H->host_free(hd, pin);
	H->mem_free(hd, raw_dst);
	H->stream_destroy(hd, hs);
	H->device_close(hd);
	free(src);
	return rc;
}
