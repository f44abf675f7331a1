/*
 * bench_vmm_gpu.c - growing and shrinking device memory by virtual memory
 * against the runtime's allocator, in one run on one device (bench
 * "gpu_vmm").  The virtual-memory side goes through the HIP backend's ops
 * (hal.h's pmem_map and pmem_unmap: cuMemCreate + cuMemMap + cuMemSetAccess,
 * cuMemUnmap + cuMemRelease on NVIDIA), what a pool built on them pays; the
 * allocator side is cudaMalloc / cudaFree (hipMalloc / hipFree) through the
 * backend's symbol table.  Sizes 2 MiB ×2 ... 1 GiB, every one a multiple
 * of the granule on H100 and H200; one JSON line per figure:
 *
 *   va_reserve_us, va_release_us       a reservation of 1.125 x the device's
 *                                      memory (as PyTorch's expandable
 *                                      segments make), median of ROUNDS
 *   map_us_<size>, unmap_us_<size>     one mapping of <size> and its unmap
 *   malloc_us_<size>, free_us_<size>   cudaMalloc and cudaFree of <size>,
 *                                      rounds taken in turn with the maps'
 *   speedup_vs_malloc_free_<size>      (malloc + free) / (map + unmap): above
 *                                      1, growing by a mapping is the cheaper
 *   grow_by_granules_us_<size>,        the buffer grown to <size> one granule
 *   shrink_by_granules_us_<size>       at a time and shrunk likewise (size/G
 *                                      mappings: PyTorch's 2 MiB pages)
 *   granules_speedup_vs_malloc_free_<size>
 *                                      one malloc + free over those two
 *   unmap_while_busy_us, free_while_busy_us, map_while_busy_us
 *                                      the host time of one call (a granule) made
 *                                      while a copy of about 50 ms runs on a
 *                                      stream, and busy_copy_ms the copy: a
 *                                      call that waits for the device takes
 *                                      about the copy's time (hal.h says the
 *                                      virtual-memory calls do not wait;
 *                                      cudaFree may)
 *
 * Figures are medians of ROUNDS (7; the growth a granule at a time of 3; a
 * call while busy is one sample); the two sides are measured in turn, round
 * by round, so both see the same state of the machine.  Without a GPU
 * or without virtual memory it prints one SKIP line on stderr and exits 0,
 * as make bench expects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing.h"
#include "core/internal.h"
#include "hal/hip/hip_rt.h"

#define ROUNDS 7
#define MIB (1ull << 20)

static const struct hc_hal_ops *H;
static hc_hal_dev *D;

static void emit(const char *metric, const char *label, double v, const char *unit)
{
	printf("{\"bench\":\"gpu_vmm\",\"metric\":\"%s%s%s\",\"value\":%.3f,\"unit\":\"%s\","
	       "\"peer\":null,\"peer_value\":null}\n",
	       metric, label[0] ? "_" : "", label, v, unit);
	fflush(stdout);
}

static void size_label(uint64_t size, char *out, size_t n)
{
	if (size >= (1ull << 30))
		snprintf(out, n, "%lluGiB", (unsigned long long)(size >> 30));
	else
		snprintf(out, n, "%lluMiB", (unsigned long long)(size >> 20));
}

static int fail(const char *what)
{
	hc_error_info e;

	hc_last_error(&e);
	fprintf(stderr, "bench_vmm_gpu: %s: %s\n", what, e.message);
	return 1;
}

/* One mapping of @size against one cudaMalloc of it, ROUNDS in turn. */
static int one_mapping(hc_hal_dptr r, uint64_t size)
{
	double map[ROUNDS], unmap[ROUNDS], ma[ROUNDS], fr[ROUNDS];
	char label[32];

	for (int i = 0; i < ROUNDS; i++) {
		void *p = NULL;
		double t0 = bench_now_us(), t1, t2;

		if (H->pmem_map(D, r, size) != HC_OK)
			return fail("pmem_map");
		t1 = bench_now_us();
		if (H->pmem_unmap(D, r, size) != HC_OK)
			return fail("pmem_unmap");
		t2 = bench_now_us();
		map[i] = t1 - t0;
		unmap[i] = t2 - t1;
		t0 = bench_now_us();
		if (HIP_CALL(Malloc)(&p, (size_t)size) != 0)
			return fail("cudaMalloc");
		t1 = bench_now_us();
		HIP_CALL(Free)(p);
		t2 = bench_now_us();
		ma[i] = t1 - t0;
		fr[i] = t2 - t1;
	}
	size_label(size, label, sizeof(label));
	{
		double m = bench_median(map, ROUNDS), u = bench_median(unmap, ROUNDS);
		double a = bench_median(ma, ROUNDS), f = bench_median(fr, ROUNDS);

		emit("map_us", label, m, "us");
		emit("unmap_us", label, u, "us");
		emit("malloc_us", label, a, "us");
		emit("free_us", label, f, "us");
		emit("speedup_vs_malloc_free", label, (a + f) / (m + u), "ratio");
	}
	return 0;
}

/* The buffer grown to @size a granule at a time and shrunk likewise,
 * against one cudaMalloc + cudaFree of @size. */
static int by_granules(hc_hal_dptr r, uint64_t g, uint64_t size)
{
	enum { GR = 3 };
	double grow[GR], shrink[GR], pair[GR];
	char label[32];

	for (int i = 0; i < GR; i++) {
		void *p = NULL;
		double t0 = bench_now_us();

		for (uint64_t at = 0; at < size; at += g)
			if (H->pmem_map(D, r + at, g) != HC_OK)
				return fail("pmem_map (granule)");
		grow[i] = bench_now_us() - t0;
		t0 = bench_now_us();
		for (uint64_t at = size; at > 0; at -= g)
			if (H->pmem_unmap(D, r + at - g, g) != HC_OK)
				return fail("pmem_unmap (granule)");
		shrink[i] = bench_now_us() - t0;
		t0 = bench_now_us();
		if (HIP_CALL(Malloc)(&p, (size_t)size) != 0)
			return fail("cudaMalloc");
		HIP_CALL(Free)(p);
		pair[i] = bench_now_us() - t0;
	}
	size_label(size, label, sizeof(label));
	{
		double gr = bench_median(grow, GR), sh = bench_median(shrink, GR), pa = bench_median(pair, GR);

		emit("grow_by_granules_us", label, gr, "us");
		emit("shrink_by_granules_us", label, sh, "us");
		emit("granules_speedup_vs_malloc_free", label, pa / (gr + sh), "ratio");
	}
	return 0;
}

/* Whether a call waits for the device: each made while ~50 ms of copying
 * runs on a stream (the copy's own buffers are cudaMalloc'd). */
static int while_busy(hc_hal_dptr r, uint64_t g)
{
	const uint64_t chunk = 256 * MIB;
	hc_hal_stream *s;
	void *a = NULL, *b = NULL, *small = NULL;
	double t0, t_copy = 0, busy[3] = { 0 };
	int copies = 1;

	if (H->stream_create(D, &s) != HC_OK)
		return fail("stream_create");
	if (HIP_CALL(Malloc)(&a, (size_t)chunk) || HIP_CALL(Malloc)(&b, (size_t)chunk))
		return fail("cudaMalloc (copy buffers)");
	/* how many copies make about 50 ms */
	t0 = bench_now_us();
	H->copy_d2d(D, s, (hc_hal_dptr)(uintptr_t)b, (hc_hal_dptr)(uintptr_t)a, chunk);
	H->stream_sync(D, s);
	t_copy = bench_now_us() - t0;
	copies = t_copy > 0 ? (int)(50000.0 / t_copy) + 1 : 100;
	if (copies > 2000)
		copies = 2000;
	for (int k = 0; k < 3; k++) {
		if (k == 0 && H->pmem_map(D, r, g) != HC_OK)
			return fail("pmem_map");
		if (k == 1 && HIP_CALL(Malloc)(&small, (size_t)g) != 0)
			return fail("cudaMalloc");
		for (int i = 0; i < copies; i++)
			H->copy_d2d(D, s, (hc_hal_dptr)(uintptr_t)b, (hc_hal_dptr)(uintptr_t)a, chunk);
		t0 = bench_now_us();
		if (k == 0)
			H->pmem_unmap(D, r, g);
		else if (k == 1)
			HIP_CALL(Free)(small);
		else
			H->pmem_map(D, r + g, g);
		busy[k] = bench_now_us() - t0;
		H->stream_sync(D, s);
	}
	H->pmem_unmap(D, r + g, g);
	t0 = bench_now_us();
	for (int i = 0; i < copies; i++)
		H->copy_d2d(D, s, (hc_hal_dptr)(uintptr_t)b, (hc_hal_dptr)(uintptr_t)a, chunk);
	H->stream_sync(D, s);
	emit("busy_copy_ms", "", (bench_now_us() - t0) / 1000.0, "ms");
	emit("unmap_while_busy_us", "", busy[0], "us");
	emit("free_while_busy_us", "", busy[1], "us");
	emit("map_while_busy_us", "", busy[2], "us");
	HIP_CALL(Free)(a);
	HIP_CALL(Free)(b);
	H->stream_destroy(D, s);
	return 0;
}

int main(void)
{
	struct hc_hal_open_args args = { .ordinal = 0 };
	struct hc_hal_props p;
	hc_error_info e;
	hc_hal_dptr r = 0;
	uint64_t g, span;
	double res[ROUNDS], rel[ROUNDS];
	int rc = 0;

	H = hc_hip_ops();
	if (H->device_open(&args, &D) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "bench_vmm_gpu: SKIP: no GPU runtime/device: %s\n", e.message);
		return 0;
	}
	if (H->device_props(D, &p) != HC_OK || !p.vmm_granularity) {
		fprintf(stderr, "bench_vmm_gpu: SKIP: the device has no virtual memory management\n");
		H->device_close(D);
		return 0;
	}
	g = p.vmm_granularity;
	printf("# %s, granularity %llu bytes\n", p.name, (unsigned long long)g);
	span = (p.total_memory + p.total_memory / 8 + g - 1) / g * g;
	for (int i = 0; i < ROUNDS; i++) {
		double t0 = bench_now_us();

		if (H->va_reserve(D, span, &r) != HC_OK) {
			rc = fail("va_reserve");
			goto out;
		}
		res[i] = bench_now_us() - t0;
		t0 = bench_now_us();
		H->va_release(D, r, span);
		rel[i] = bench_now_us() - t0;
	}
	emit("va_reserve_us", "", bench_median(res, ROUNDS), "us");
	emit("va_release_us", "", bench_median(rel, ROUNDS), "us");
	if (H->va_reserve(D, 2ull << 30, &r) != HC_OK) {
		rc = fail("va_reserve");
		goto out;
	}
	for (uint64_t size = 2 * MIB; size <= (1ull << 30) && rc == 0; size *= 2)
		if (size % g == 0)
			rc = one_mapping(r, size);
	for (uint64_t size = 2 * MIB; size <= (1ull << 30) && rc == 0; size *= 8)
		if (size % g == 0)
			rc = by_granules(r, g, size);
	if (rc == 0)
		rc = while_busy(r, g);
	H->va_release(D, r, 2ull << 30);
out:
	H->device_close(D);
	return rc;
}
