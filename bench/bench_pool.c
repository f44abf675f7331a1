/*
 * bench_pool.c - pool-hit reserve+release pairs of the memory manager.
 *
 * Measures, on the host, what one hc_mm_reserve followed by hc_mm_release
 * costs when the pool already holds a fitting free run (no storage call):
 *  - mm_alloc_free_pair_ns: SubSlices layout of a 16 GiB device
 *    (alignment 256), 4 KiB requests, nothing else live;
 *  - mm_alloc_free_pair_ns_live_<N>: the same with N live slices and N/4
 *    free holes between them, so the free tree holds N/4 runs and the
 *    first fit has to descend it (cost must grow with log N, not N);
 *  - mm_pinned_alloc_free_pair_ns: a pinned-style manager (alignment 16,
 *    same pages), 64 KiB requests;
 *  - mm_workload_alloc_free_pair_ns: the Workload layout (the default), 4 KiB
 *    requests (its 2 MiB-page sliced pool);
 *  - mm_workload_large_pair_ns_live_<N>: the Workload layout's direct pool,
 *    16 MiB requests (an exact-size hit) with N other large slices of N
 *    distinct sizes live, so the size tree holds N + 1 keys (log N); the
 *    manager counts into device-wide figures (hc_mm_props.shared) as a
 *    stream's does, so the relaxed atomics are in the figure;
 *  - mm_workload_split_pair_ns_live_<N>: the same, but the cached free
 *    block is 24 MiB, so every 16 MiB pair splits it and the release merges
 *    the two halves again (core/pool/split.c).
 * The peer, measured in the same run, is a glibc malloc+free pair of the
 * same size.  Each figure is the median over 101 batches of 2000 pairs.
 * The storage is a bump allocator of fake addresses (no memory behind it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing.h"
#include "core/pool/pool.h"

#define KIB ((uint64_t)1024)
#define GIB ((uint64_t)1 << 30)
#define BATCHES 101
#define PAIRS 2000

static uint64_t next_addr = 1ull << 40;

static hc_status bump_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	*addr = next_addr;
	next_addr += size + 4096;
	return HC_OK;
}

static hc_status bump_free(void *ctx, uint64_t addr, uint64_t size)
{
	return HC_OK;
}

static const struct hc_storage storage = { .alloc = bump_alloc, .free = bump_free };

static double mm_pair_ns(struct hc_mm *mm, uint64_t size)
{
	double t[BATCHES];
	struct hc_slice_ref r;
	uint64_t addr;
	int b, i;

	for (b = 0; b < BATCHES; b++) {
		double t0 = (double)bench_now_ns();

		for (i = 0; i < PAIRS; i++) {
			if (hc_mm_reserve(mm, size, &r, &addr) != HC_OK ||
			    hc_mm_release(mm, r) != HC_OK) {
				fprintf(stderr, "bench_pool: reserve/release failed\n");
				exit(1);
			}
		}
		t[b] = ((double)bench_now_ns() - t0) / PAIRS;
	}
	return bench_median(t, BATCHES);
}

static void *volatile sink;

static double malloc_pair_ns(size_t size)
{
	double t[BATCHES];
	int b, i;

	for (b = 0; b < BATCHES; b++) {
		double t0 = (double)bench_now_ns();

		for (i = 0; i < PAIRS; i++) {
			sink = malloc(size);
			free(sink);
		}
		t[b] = ((double)bench_now_ns() - t0) / PAIRS;
	}
	return bench_median(t, BATCHES);
}

static void emit(const char *metric, double v, double peer);

static struct hc_mm_shared shared; /* device-wide figures, as a stream's manager has */

static struct hc_mm *make_mm_of(hc_layout_preset preset, uint64_t alignment)
{
	struct hc_mm_props p = { .max_page_size = 16 * GIB / 4, .alignment = alignment,
				 .shared = preset == HC_LAYOUT_WORKLOAD ? &shared : NULL };
	hc_pool_layout in = { .preset = preset };
	struct hc_layout *l;
	struct hc_mm *mm;

	if (hc_layout_resolve(&in, &p, &l) != HC_OK ||
	    hc_mm_create(l, &p, &storage, &mm) != HC_OK) {
		fprintf(stderr, "bench_pool: cannot build a manager\n");
		exit(1);
	}
	hc_layout_free(l);
	return mm;
}

static struct hc_mm *make_mm(uint64_t alignment)
{
	return make_mm_of(HC_LAYOUT_SUBSLICES, alignment);
}

/* Workload direct pool: @n live slices of distinct sizes, then 16 MiB hits
 * on a cached free block of @cached MiB. */
static void workload_large_case(uint64_t n, uint64_t cached, const char *name, double peer)
{
	struct hc_slice_ref *r = malloc((n + 1) * sizeof(*r));
	struct hc_mm *mm = make_mm_of(HC_LAYOUT_WORKLOAD, 256);
	uint64_t i, addr;
	char metric[80];

	if (!r) {
		fprintf(stderr, "bench_pool: no memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		if (hc_mm_reserve(mm, 2 * 1024 * KIB + (i + 1) * 256, &r[i], &addr) != HC_OK) {
			fprintf(stderr, "bench_pool: reserve failed\n");
			exit(1);
		}
	/* one allocation made and freed, so every pair below is a hit */
	if (hc_mm_reserve(mm, cached * 1024 * KIB, &r[n], &addr) != HC_OK ||
	    hc_mm_release(mm, r[n]) != HC_OK) {
		fprintf(stderr, "bench_pool: reserve failed\n");
		exit(1);
	}
	snprintf(metric, sizeof(metric), "mm_workload_%s_pair_ns_live_%llu", name,
		 (unsigned long long)n);
	emit(metric, mm_pair_ns(mm, 16 * 1024 * KIB), peer);
	hc_mm_destroy(mm);
	free(r);
}

static void emit(const char *metric, double v, double peer)
{
	printf("{\"bench\":\"pool\",\"metric\":\"%s\",\"value\":%.1f,\"unit\":\"ns\","
	       "\"peer\":\"malloc\",\"peer_value\":%.1f}\n",
	       metric, v, peer);
}

/* N live slices with a free hole after every fourth one. */
static void live_case(uint64_t n, double peer)
{
	uint64_t total = n + n / 4, i, k = 0, addr;
	struct hc_slice_ref *r = malloc(total * sizeof(*r));
	struct hc_mm *mm = make_mm(256);
	char metric[64];

	if (!r) {
		fprintf(stderr, "bench_pool: no memory\n");
		exit(1);
	}
	for (i = 0; i < total; i++) {
		if (hc_mm_reserve(mm, 4 * KIB, &r[i], &addr) != HC_OK) {
			fprintf(stderr, "bench_pool: reserve failed\n");
			exit(1);
		}
	}
	for (i = 0; i < total; i++)
		if (i % 5 == 4 && k < n / 4) {
			hc_mm_release(mm, r[i]);
			k++;
		}
	snprintf(metric, sizeof(metric), "mm_alloc_free_pair_ns_live_%llu", (unsigned long long)n);
	emit(metric, mm_pair_ns(mm, 4 * KIB), peer);
	hc_mm_destroy(mm);
	free(r);
}

int main(void)
{
	struct hc_mm *mm = make_mm(256);
	double peer4k = malloc_pair_ns(4 * KIB), peer64k;
	static const uint64_t lives[] = { 100, 10000, 100000, 1000000 };
	size_t i;

	emit("mm_alloc_free_pair_ns", mm_pair_ns(mm, 4 * KIB), peer4k);
	hc_mm_destroy(mm);
	for (i = 0; i < sizeof(lives) / sizeof(lives[0]); i++)
		live_case(lives[i], peer4k);
	mm = make_mm(16);
	peer64k = malloc_pair_ns(64 * KIB);
	emit("mm_pinned_alloc_free_pair_ns", mm_pair_ns(mm, 64 * KIB), peer64k);
	hc_mm_destroy(mm);
	mm = make_mm_of(HC_LAYOUT_WORKLOAD, 256);
	emit("mm_workload_alloc_free_pair_ns", mm_pair_ns(mm, 4 * KIB), peer4k);
	hc_mm_destroy(mm);
	for (i = 0; i < sizeof(lives) / sizeof(lives[0]) - 1; i++)
		workload_large_case(lives[i], 16, "large", malloc_pair_ns(16 * 1024 * KIB));
	for (i = 0; i < sizeof(lives) / sizeof(lives[0]) - 1; i++)
		workload_large_case(lives[i], 24, "split", malloc_pair_ns(16 * 1024 * KIB));
	return 0;
}
