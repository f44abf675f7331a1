/*
 * xp_cleanup_loop.c - an expandable pool's explicit cleanup, repeated, for
 * counting instructions against the size of its reserved range (bench/
 * callgrind-xp-cleanup runs it under callgrind with collection on in
 * cleanup_loop() only).  Not a timing benchmark.
 *
 * One manager whose only pool is expandable, over a storage that only
 * counts (no device): one 2 MiB block stays live, and each round maps a
 * second 2 MiB block, frees it and runs the explicit cleanup, which
 * unmaps that block's mapping.  The work a round needs is the same
 * whatever the range: a cleanup whose cost grows with the range walks
 * granules nothing maps.
 *
 * Usage: xp_cleanup_loop [RANGE_GIB [ROUNDS]]   (default 64 GiB, 1000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/pool/manager.h"
#include "hipcore/hipcore.h"

#define GRAN (2ull << 20)

struct counting {
	uint64_t maps, unmaps;
};

static hc_status no_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	(void)ctx;
	(void)size;
	*addr = 0;
	return HC_ERR_OOM;
}

static hc_status no_free(void *ctx, uint64_t addr, uint64_t size)
{
	(void)ctx;
	(void)addr;
	(void)size;
	return HC_OK;
}

static hc_status reserve(void *ctx, uint64_t size, uint64_t *addr)
{
	(void)ctx;
	(void)size;
	*addr = 1ull << 44;
	return HC_OK;
}

static hc_status release(void *ctx, uint64_t addr, uint64_t size)
{
	(void)ctx;
	(void)addr;
	(void)size;
	return HC_OK;
}

static hc_status map(void *ctx, uint64_t addr, uint64_t size)
{
	(void)addr;
	(void)size;
	((struct counting *)ctx)->maps++;
	return HC_OK;
}

static hc_status unmap(void *ctx, uint64_t addr, uint64_t size)
{
	(void)addr;
	(void)size;
	((struct counting *)ctx)->unmaps++;
	return HC_OK;
}

/* noinline: callgrind's --toggle-collect needs the function to exist. */
__attribute__((noinline)) static int cleanup_loop(struct hc_mm *mm, long rounds)
{
	struct hc_slice_ref b;
	uint64_t addr;

	for (long i = 0; i < rounds; i++)
		if (hc_mm_reserve(mm, GRAN, &b, &addr) != HC_OK || hc_mm_release(mm, b) != HC_OK ||
		    hc_mm_cleanup(mm, true) != HC_OK)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t range = (argc > 1 ? strtoull(argv[1], NULL, 0) : 64) << 30;
	long rounds = argc > 2 ? atol(argv[2]) : 1000;
	struct counting c = { 0, 0 };
	struct hc_storage st = { .alloc = no_alloc, .free = no_free, .ctx = &c,
				 .va_reserve = reserve, .va_release = release,
				 .map = map, .unmap = unmap };
	struct hc_mm_props p = { .max_page_size = 1 << 30, .alignment = 512,
				 .vmm_granularity = GRAN, .va_size = range };
	hc_pool_spec spec = { .kind = HC_POOL_EXPANDABLE, .max_pool_size = range };
	struct hc_slice_ref live;
	struct hc_layout *l;
	struct hc_mm *mm;
	uint64_t addr;

	if (hc_layout_custom(&spec, 1, &l) != HC_OK || hc_mm_create(l, &p, &st, &mm) != HC_OK) {
		fprintf(stderr, "xp_cleanup_loop: cannot make the manager\n");
		return 1;
	}
	hc_layout_free(l);
	if (hc_mm_reserve(mm, GRAN, &live, &addr) != HC_OK || cleanup_loop(mm, rounds) != 0) {
		fprintf(stderr, "xp_cleanup_loop: reserve, release or cleanup failed\n");
		return 1;
	}
	printf("range %llu GiB, %ld rounds: %llu maps, %llu unmaps\n",
	       (unsigned long long)(range >> 30), rounds, (unsigned long long)c.maps,
	       (unsigned long long)c.unmaps);
	hc_mm_release(mm, live);
	hc_mm_destroy(mm);
	return 0;
}
