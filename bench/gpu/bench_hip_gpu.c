/*
 * bench_hip_gpu.c - what the runtime itself costs (bench "gpu"), measured
 * through the HIP backend's symbol table, to set beside libhipcore's pools:
 *   - device malloc+free pairs (cudaMalloc/hipMalloc),
 *   - stream-ordered malloc+free pairs on a warm pool whose release
 *     threshold is the maximum (cudaMallocAsync; NVIDIA only),
 *   - pinned host alloc+free pairs, and the backend's own pinned blocks
 *     (mapped and registered, hip_pinned.c) beside them,
 *   - host-to-device bandwidth, pinned and pageable, 64 KiB .. 1 GiB.
 * Method: each figure is the mean over a loop.  Stream-ordered pairs are
 * queued back to back with one synchronisation at the end (the host-side
 * cost of a pair); copies likewise, so small copies overlap their launch
 * latency - the probe synchronised each, so its small-size figures are
 * lower.  One JSON line per figure; peer_value is the H200 probe's figure
 * (the measurements on the H200 machine that the built-in simulator profile
 * was taken from) where it has one.  Without a GPU it prints one skip line
 * on stderr and exits 0.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing.h"
#include "core/internal.h"
#include "hal/hip/hip_rt.h"

static void emit(const char *metric, double value, const char *unit, double peer)
{
	printf("{\"bench\":\"gpu\",\"metric\":\"%s\",\"value\":%.3f,\"unit\":\"%s\","
	       "\"peer\":\"h200-probe\",\"peer_value\":",
	       metric, value, unit);
	if (peer >= 0)
		printf("%.3f}\n", peer);
	else
		printf("null}\n");
	fflush(stdout);
}

struct size_row {
	size_t size;
	const char *label;
	double peer_malloc, peer_async, peer_host;
	int iters;
};

static const struct size_row rows[] = {
	{ 256, "256B", 77.0, 2.83, 655, 200 },
	{ 4096, "4KiB", 77.3, 2.70, 652, 200 },
	{ 1 << 20, "1MiB", 75.7, 2.78, 648, 100 },
	{ 32 << 20, "32MiB", 169, 8.0, 13690, 20 },
	{ 512 << 20, "512MiB", 540, 10.8, 217699, 5 },
};

int main(void)
{
	const struct hc_hal_ops *H = hc_hip_ops();
	struct hc_hal_open_args args = { .ordinal = 0 };
	const struct hip_runtime *rt;
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_error_info e;
	char metric[96];
	void *p;

	if (H->device_open(&args, &dev) != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "bench_hip_gpu: SKIP: no GPU runtime/device: %s\n", e.message);
		return 0;
	}
	hip_runtime_get(&rt);
	H->stream_create(dev, &s);

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct size_row *w = &rows[r];
		double t0 = bench_now_s();
		int n = 0;

		for (int i = 0; i < w->iters; i++) {
			if (HIP_CALL(Malloc)(&p, w->size))
				break;
			HIP_CALL(Free)(p);
			n++;
		}
		snprintf(metric, sizeof(metric), "malloc_free_pair_%s", w->label);
		if (n)
			emit(metric, (bench_now_s() - t0) / n * 1e6, "us", w->peer_malloc);
	}

	if (rt->flavor == HIP_FLAVOR_NVIDIA && HIP_HAVE(MallocAsync)) {
		int (*get_pool)(void **, int) =
			(int (*)(void **, int))dlsym(rt->lib_rt, "cudaDeviceGetDefaultMemPool");
		int (*set_attr)(void *, int, void *) =
			(int (*)(void *, int, void *))dlsym(rt->lib_rt, "cudaMemPoolSetAttribute");
		void *pool = NULL;
		uint64_t thr = UINT64_MAX;
		void *raw = hc_hip_stream_raw(s);

		if (get_pool && set_attr && get_pool(&pool, 0) == 0)
			set_attr(pool, 4 /* cudaMemPoolAttrReleaseThreshold */, &thr);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			const struct size_row *w = &rows[r];
			int iters = w->iters * 10;
			double t0;

			/* warm the pool */
			HIP_CALL(MallocAsync)(&p, w->size, raw);
			HIP_CALL(FreeAsync)(p, raw);
			HIP_CALL(StreamSynchronize)(raw);
			t0 = bench_now_s();
			for (int i = 0; i < iters; i++) {
				HIP_CALL(MallocAsync)(&p, w->size, raw);
				HIP_CALL(FreeAsync)(p, raw);
			}
			HIP_CALL(StreamSynchronize)(raw);
			snprintf(metric, sizeof(metric), "malloc_async_free_pair_%s", w->label);
			emit(metric, (bench_now_s() - t0) / iters * 1e6, "us", w->peer_async);
		}
	}

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct size_row *w = &rows[r];
		int iters = w->size >= (32u << 20) ? 2 : 20;
		double t0 = bench_now_s();
		int n = 0;

		for (int i = 0; i < iters; i++) {
			if (HIP_CALL(HostMalloc)(&p, w->size, 2 /* mapped */))
				break;
			HIP_CALL(HostFree)(p);
			n++;
		}
		snprintf(metric, sizeof(metric), "host_alloc_free_pair_%s", w->label);
		if (n)
			emit(metric, (bench_now_s() - t0) / n * 1e6, "us", w->peer_host);
	}

	/* The backend's pinned blocks (hip_pinned.c: mapped, faulted in from
	 * several threads, registered) against the runtime's HostMalloc, one
	 * of each in turn so both see the same state of the host. */
	{
		static const size_t bsz[] = { 2u << 20, 16u << 20, 64u << 20, 256u << 20 };
		enum { ROUNDS = 5 };

		for (size_t k = 0; k < sizeof(bsz) / sizeof(bsz[0]); k++) {
			double raw[ROUNDS], ours[ROUNDS];
			int ok = 1;

			for (int i = 0; i < ROUNDS && ok; i++) {
				double t0 = bench_now_s();

				ok = HIP_CALL(HostMalloc)(&p, bsz[k], 2 /* mapped */) == 0;
				if (ok)
					HIP_CALL(HostFree)(p);
				raw[i] = bench_now_s() - t0;
				t0 = bench_now_s();
				ok = ok && H->host_alloc(dev, bsz[k], &p) == HC_OK;
				if (ok)
					H->host_free(dev, p);
				ours[i] = bench_now_s() - t0;
			}
			if (!ok)
				continue;
			qsort(raw, ROUNDS, sizeof(double), bench_cmp_double);
			qsort(ours, ROUNDS, sizeof(double), bench_cmp_double);
			snprintf(metric, sizeof(metric), "host_malloc_pair_median_%zuMiB", bsz[k] >> 20);
			emit(metric, raw[ROUNDS / 2] * 1e6, "us", -1);
			snprintf(metric, sizeof(metric), "pinned_block_pair_median_%zuMiB", bsz[k] >> 20);
			emit(metric, ours[ROUNDS / 2] * 1e6, "us", -1);
			snprintf(metric, sizeof(metric), "pinned_block_speedup_%zuMiB", bsz[k] >> 20);
			emit(metric, raw[ROUNDS / 2] / ours[ROUNDS / 2], "ratio", -1);
		}
	}

	{
		static const struct {
			size_t size;
			const char *label;
			double pinned, pageable;
		} bw[] = {
			{ 64 << 10, "64KiB", 6.20, 3.27 },   { 256 << 10, "256KiB", -1, -1 },
			{ 1 << 20, "1MiB", 37.66, 8.07 },    { 4 << 20, "4MiB", -1, -1 },
			{ 16 << 20, "16MiB", -1, -1 },       { 64 << 20, "64MiB", -1, -1 },
			{ 256 << 20, "256MiB", -1, -1 },     { 1 << 30, "1GiB", 55.27, 7.80 },
		};
		size_t max = (size_t)1 << 30;
		void *pin = NULL;
		char *page = malloc(max);
		hc_hal_dptr d = 0;

		if (page && H->host_alloc(dev, max, &pin) == HC_OK &&
		    H->mem_alloc(dev, max, &d) == HC_OK) {
			memset(page, 1, max);
			memset(pin, 1, max);
			for (size_t i = 0; i < sizeof(bw) / sizeof(bw[0]); i++) {
				for (int pinned = 1; pinned >= 0; pinned--) {
					int reps = (int)(((size_t)4 << 30) / bw[i].size);
					double t0;

					if (reps > 2000)
						reps = 2000;
					if (reps < 3)
						reps = 3;
					H->copy_h2d(dev, s, d, pinned ? pin : page, bw[i].size, pinned);
					H->stream_sync(dev, s);
					t0 = bench_now_s();
					for (int k = 0; k < reps; k++)
						H->copy_h2d(dev, s, d, pinned ? pin : page, bw[i].size,
							    pinned);
					H->stream_sync(dev, s);
					snprintf(metric, sizeof(metric), "h2d_%s_%s",
						 pinned ? "pinned" : "pageable", bw[i].label);
					emit(metric, (double)bw[i].size * reps / (bench_now_s() - t0) / 1e9,
					     "GB/s", pinned ? bw[i].pinned : bw[i].pageable);
				}
			}
		}
		if (d)
			H->mem_free(dev, d);
		if (pin)
			H->host_free(dev, pin);
		free(page);
	}
	H->stream_destroy(dev, s);
	H->device_close(dev);
	return 0;
}
