/*
 * bench_api_gpu.c - libhipcore's pools on a real GPU beside the runtime's
 * allocators, in one run (bench "gpu_pool"):
 *   - alloc_free_pair_ns_<size>: a pool hit, hc_alloc + hc_free through the
 *     public API on backend "hip", median of batches;
 *   - malloc_async_pair_ns_<size>: cudaMallocAsync + cudaFreeAsync (hip*
 *     on AMD) on a raw stream, the default pool's release threshold raised
 *     so that it too is a pool hit; the stream is synced after each batch;
 *   - malloc_pair_ns_<size>: cudaMalloc + cudaFree;
 *   - speedup_vs_async_<size> / speedup_vs_malloc_<size>: the ratios
 *     (the project's target is >= 25x against the stream-ordered pair);
 *   - pinned_pair_ns: a pinned pool hit, hc_mm_reserve + hc_mm_release of
 *     64 KiB on a stream's pinned manager (what a staged write does inside);
 *   - host_alloc_pair_ns_<size>: cudaHostAlloc + cudaFreeHost, and the ratio.
 * The runtime calls go through the HIP backend's symbol table (hip_rt.h),
 * filled by a second open of hc_hip_ops() in this process.  Without a GPU
 * it prints one SKIP line on stderr and exits 0, as make bench expects.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing.h"
#include "core/internal.h"
#include "core/object.h"
#include "hal/hip/hip_rt.h"
#include "hipcore/hipcore.h"

#define BATCHES 21

/* The H200 machine's figures of the peers, ns; -1: none. */
static void emit(const char *metric, const char *label, double v, const char *unit,
		 const char *peer, double pv)
{
	printf("{\"bench\":\"gpu_pool\",\"metric\":\"%s%s%s\",\"value\":%.1f,\"unit\":\"%s\","
	       "\"peer\":\"%s\",\"peer_value\":",
	       metric, label[0] ? "_" : "", label, v, unit, peer);
	if (pv >= 0)
		printf("%.1f}\n", pv);
	else
		printf("null}\n");
	fflush(stdout);
}

static int fail(const char *what)
{
	hc_error_info e;

	hc_last_error(&e);
	fprintf(stderr, "bench_api_gpu: %s: %s\n", what, e.message);
	return 1;
}

static double api_pair(hc_stream s, uint64_t size)
{
	enum { PAIRS = 100000 };
	double per[BATCHES];
	hc_buffer b;

	if (hc_alloc(s, size, &b) != HC_OK || hc_free(b) != HC_OK) /* the page */
		return -1;
	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_now_ns();

		for (int i = 0; i < PAIRS; i++)
			if (hc_alloc(s, size, &b) != HC_OK || hc_free(b) != HC_OK)
				return -1;
		per[k] = (double)(bench_now_ns() - t0) / PAIRS;
	}
	return bench_median(per, BATCHES);
}

static double async_pair(void *raw, uint64_t size)
{
	enum { PAIRS = 10000 };
	double per[BATCHES];
	void *p;

	if (!HIP_HAVE(MallocAsync) || !HIP_HAVE(FreeAsync))
		return -1;
	if (HIP_CALL(MallocAsync)(&p, size, raw) || HIP_CALL(FreeAsync)(p, raw) ||
	    HIP_CALL(StreamSynchronize)(raw))
		return -1;
	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_now_ns();

		for (int i = 0; i < PAIRS; i++)
			if (HIP_CALL(MallocAsync)(&p, size, raw) || HIP_CALL(FreeAsync)(p, raw))
				return -1;
		HIP_CALL(StreamSynchronize)(raw);
		per[k] = (double)(bench_now_ns() - t0) / PAIRS;
	}
	return bench_median(per, BATCHES);
}

static double malloc_pair(uint64_t size)
{
	enum { PAIRS = 200 };
	double per[BATCHES];
	void *p;

	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_now_ns();

		for (int i = 0; i < PAIRS; i++)
			if (HIP_CALL(Malloc)(&p, size) || HIP_CALL(Free)(p))
				return -1;
		per[k] = (double)(bench_now_ns() - t0) / PAIRS;
	}
	return bench_median(per, BATCHES);
}

static double pinned_pool_pair(hc_stream s)
{
	enum { PAIRS = 100000 };
	double per[BATCHES];
	struct hc_strm *st;
	struct hc_slice_ref ref;
	uint64_t addr;
	double r = -1;

	if (hc_strm_lock(s, &st) != HC_OK)
		return -1;
	if (hc_mm_reserve(st->pmm, 64 * 1024, &ref, &addr) != HC_OK ||
	    hc_mm_release(st->pmm, ref) != HC_OK)
		goto out;
	for (int k = 0; k < BATCHES; k++) {
		uint64_t t0 = bench_now_ns();

		for (int i = 0; i < PAIRS; i++)
			if (hc_mm_reserve(st->pmm, 64 * 1024, &ref, &addr) != HC_OK ||
			    hc_mm_release(st->pmm, ref) != HC_OK)
				goto out;
		per[k] = (double)(bench_now_ns() - t0) / PAIRS;
	}
	r = bench_median(per, BATCHES);
out:
	hc_strm_unlock(st);
	return r;
}

static double host_alloc_pair(uint64_t size)
{
	enum { ROUNDS = 9, PAIRS = 10 };
	double per[ROUNDS];
	void *p;

	for (int k = 0; k < ROUNDS; k++) {
		uint64_t t0 = bench_now_ns();

		for (int i = 0; i < PAIRS; i++)
			if (HIP_CALL(HostMalloc)(&p, size, 2 /* mapped, as the backend */) ||
			    HIP_CALL(HostFree)(p))
				return -1;
		per[k] = (double)(bench_now_ns() - t0) / PAIRS;
	}
	return bench_median(per, ROUNDS);
}

int main(void)
{
	static const struct {
		uint64_t size;
		const char *label;
	} sizes[] = { { 4096, "4KiB" }, { HC_MIB, "1MiB" }, { 64 * HC_MIB, "64MiB" } };
	const struct hc_hal_ops *H = hc_hip_ops();
	struct hc_hal_open_args args = { .ordinal = 0 };
	const struct hip_runtime *rt;
	hc_hal_dev *hd;
	hc_hal_stream *hs;
	hc_device dev;
	hc_stream s;
	hc_error_info e;
	void *raw;
	double pin, host;

	if (hc_device_open("hip", NULL, &dev) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "bench_api_gpu: SKIP: no GPU runtime/device: %s\n", e.message);
		return 0;
	}
	if (H->device_open(&args, &hd) != HC_OK || H->stream_create(hd, &hs) != HC_OK)
		return fail("second open of the HIP backend");
	if (hc_stream_open(dev, &s) != HC_OK)
		return fail("hc_stream_open");
	raw = hc_hip_stream_raw(hs);
	hip_runtime_get(&rt);
	if (rt->flavor == HIP_FLAVOR_NVIDIA) {
		/* keep freed memory in the default pool: cudaMallocAsync's best case */
		int (*get_pool)(void **, int) =
			(int (*)(void **, int))dlsym(rt->lib_rt, "cudaDeviceGetDefaultMemPool");
		int (*set_attr)(void *, int, void *) =
			(int (*)(void *, int, void *))dlsym(rt->lib_rt, "cudaMemPoolSetAttribute");
		void *pool = NULL;
		uint64_t thr = UINT64_MAX;

		if (get_pool && set_attr && get_pool(&pool, 0) == 0)
			set_attr(pool, 4 /* cudaMemPoolAttrReleaseThreshold */, &thr);
	}

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double api = api_pair(s, sizes[i].size);
		double as = async_pair(raw, sizes[i].size);
		double ma = malloc_pair(sizes[i].size);

		if (api < 0)
			return fail("hc_alloc/hc_free");
		emit("alloc_free_pair_ns", sizes[i].label, api, "ns", "target", 100.0);
		emit("malloc_async_pair_ns", sizes[i].label, as, "ns", "h200_design", 2700.0);
		emit("malloc_pair_ns", sizes[i].label, ma, "ns", "h200_design", 77000.0);
		emit("speedup_vs_async", sizes[i].label, as > 0 ? as / api : 0, "ratio", "target",
		     25.0);
		emit("speedup_vs_malloc", sizes[i].label, ma > 0 ? ma / api : 0, "ratio", "none",
		     -1);
	}

	pin = pinned_pool_pair(s);
	if (pin < 0)
		return fail("pinned reserve/release");
	emit("pinned_pair_ns", "64KiB", pin, "ns", "target", 200.0);
	host = host_alloc_pair(64 * 1024);
	emit("host_alloc_pair_ns", "64KiB", host, "ns", "none", -1);
	emit("pinned_speedup_vs_host_alloc", "64KiB", host > 0 ? host / pin : 0, "ratio", "none",
	     -1);
	host = host_alloc_pair(HC_MIB);
	emit("host_alloc_pair_ns", "1MiB", host, "ns", "h200_design", 650000.0);

	hc_stream_close(s);
	hc_device_close(dev);
	H->stream_destroy(hd, hs);
	H->device_close(hd);
	return 0;
}
