/*
 * check_expandable.c - the expandable pool (core/pool/expandable.c) on the
 * simulator's virtual memory (2 MiB granules, built-in profile): data that
 * survives growth across granules, frees that keep their granules mapped
 * until a cleanup unmaps exactly the untouched ones, a refused map that
 * loses nothing, the capture rule, memory one stream unmapped mapped by
 * another, the pool's validator over a manager with counting storage, and
 * the address-ordered list of mappings under random use.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pool/manager.h"
#include "hipcore/hipcore.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define MIB HC_MIB

/* The fixture's device and stream, the stream on the Expandable layout. */
static void open_sim(uint64_t capacity, bool data)
{
	hc_pool_layout l = { .preset = HC_LAYOUT_EXPANDABLE };

	sim_device_open(capacity, data);
	ck_assert_int_eq(hc_install_memory_pools(s, &l), HC_OK);
}

static hc_device_stats stats(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st;
}

static uint64_t reserved(hc_stream on)
{
	hc_memory_usage u;

	ck_assert_int_eq(hc_memory_usage_get(on, HC_MEMORY_DEVICE, &u), HC_OK);
	return u.bytes_reserved;
}

static void fill(hc_buffer b, uint64_t size, unsigned char seed)
{
	unsigned char *h = malloc(size);

	for (uint64_t i = 0; i < size; i++)
		h[i] = (unsigned char)(seed + i * 7);
	ck_assert_int_eq(hc_write(s, b, 0, h, size, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	free(h);
}

static void check_fill(hc_buffer b, uint64_t size, unsigned char seed)
{
	unsigned char *h = malloc(size), *want = malloc(size);

	for (uint64_t i = 0; i < size; i++)
		want[i] = (unsigned char)(seed + i * 7);
	ck_assert_int_eq(hc_read(s, b, 0, h, size, NULL), HC_OK);
	ck_assert_int_eq(memcmp(h, want, size), 0);
	free(h);
	free(want);
}

static void report_kind(const hc_pool_report *r, void *arg)
{
	if (r->index == 2)
		*(hc_pool_kind *)arg = r->kind;
}

START_TEST(data_survives_growth)
{
	hc_buffer a, b, c;
	hc_pool_kind k = HC_POOL_EXCLUSIVE;

	open_sim(512 * MIB, true);
	ck_assert_int_eq(hc_alloc(s, 3 * MIB, &a), HC_OK);
	fill(a, 3 * MIB, 1);
	ck_assert_int_eq(hc_alloc(s, 5 * MIB + 123, &b), HC_OK); /* straddles granules */
	fill(b, 5 * MIB + 123, 2);
	ck_assert_int_eq(hc_alloc(s, 20 * MIB, &c), HC_OK);
	fill(c, 20 * MIB, 3);
	check_fill(a, 3 * MIB, 1);
	check_fill(b, 5 * MIB + 123, 2);
	check_fill(c, 20 * MIB, 3);
	/* one range, three growths at the top: three mappings, no allocation */
	ck_assert_uint_eq(stats().device_maps, 3);
	ck_assert_uint_eq(stats().device_allocs, 0);
	ck_assert_uint_eq(reserved(s), 4 * MIB + 6 * MIB + 20 * MIB);
	hc_memory_report(s, HC_MEMORY_DEVICE, report_kind, &k);
	ck_assert_int_eq(k, HC_POOL_EXPANDABLE);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_free(c), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}
END_TEST

START_TEST(cleanup_unmaps_untouched)
{
	hc_buffer a, b, c;

	open_sim(512 * MIB, false);
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &c), HC_OK);
	ck_assert_uint_eq(stats().device_maps, 3);
	ck_assert_int_eq(hc_free(b), HC_OK);
	/* a free keeps its granules mapped */
	ck_assert_uint_eq(reserved(s), 12 * MIB);
	ck_assert_uint_eq(stats().device_unmaps, 0);
	/* a request that fits them maps nothing */
	ck_assert_int_eq(hc_alloc(s, 2 * MIB, &b), HC_OK);
	ck_assert_uint_eq(stats().device_maps, 3);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	/* b's mapping went, a's and c's stay */
	ck_assert_uint_eq(stats().device_unmaps, 1);
	ck_assert_uint_eq(reserved(s), 8 * MIB);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	/* a's mapping goes: one more unmap */
	ck_assert_uint_eq(stats().device_unmaps, 2);
	ck_assert_uint_eq(reserved(s), 4 * MIB);
	ck_assert_int_eq(hc_free(c), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_uint_eq(stats().device_unmaps, 3);
	ck_assert_uint_eq(reserved(s), 0);
	/* the hole below is mapped again by the next request */
	ck_assert_int_eq(hc_alloc(s, 6 * MIB, &a), HC_OK);
	ck_assert_uint_eq(reserved(s), 6 * MIB);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}
END_TEST

START_TEST(oom_loses_nothing)
{
	hc_buffer a, b, c;
	uint64_t maps;

	open_sim(64 * MIB, true);
	ck_assert_int_eq(hc_alloc(s, 16 * MIB, &a), HC_OK);
	fill(a, 16 * MIB, 9);
	ck_assert_int_eq(hc_alloc(s, 16 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK); /* cached, mapped */
	maps = stats().device_maps;
	ck_assert_int_eq(hc_alloc(s, 100 * MIB, &c), HC_ERR_OOM);
	/* the cleanup before the retry unmapped b's granules, a is intact */
	ck_assert_uint_ge(stats().alloc_retries, 1);
	ck_assert_uint_eq(reserved(s), 16 * MIB);
	check_fill(a, 16 * MIB, 9);
	/* the range is usable: memory that fits is mapped */
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &c), HC_OK);
	ck_assert_uint_gt(stats().device_maps, maps);
	fill(c, 40 * MIB, 4);
	check_fill(c, 40 * MIB, 4);
	check_fill(a, 16 * MIB, 9);
	ck_assert_int_eq(hc_free(c), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}
END_TEST

START_TEST(capture_maps_nothing)
{
	hc_stream s2;
	hc_buffer a, b;
	hc_graph g;
	hc_pool_layout l = { .preset = HC_LAYOUT_EXPANDABLE };
	uint64_t maps;

	open_sim(512 * MIB, false);
	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s2, &l), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 8 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK);
	maps = stats().device_maps;
	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	/* s records: s2 may use what it has mapped, and nothing more */
	ck_assert_int_eq(hc_alloc(s2, 4 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 64 * MIB, &b), HC_ERR_STATE);
	ck_assert_uint_eq(stats().device_maps, maps);
	ck_assert_uint_eq(reserved(s2), 8 * MIB);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 64 * MIB, &b), HC_OK);
	ck_assert_uint_eq(stats().device_maps, maps + 1);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}
END_TEST

START_TEST(freed_memory_moves_between_streams)
{
	hc_stream s2;
	hc_buffer a, b;
	hc_pool_layout l = { .preset = HC_LAYOUT_EXPANDABLE };

	open_sim(64 * MIB, false);
	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s2, &l), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK);
	/* s keeps its granules: s2's cleanup and retry cannot take them */
	ck_assert_int_eq(hc_alloc(s2, 40 * MIB, &b), HC_ERR_OOM);
	ck_assert_uint_eq(reserved(s), 40 * MIB);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_uint_eq(reserved(s), 0);
	ck_assert_int_eq(hc_alloc(s2, 40 * MIB, &b), HC_OK);
	ck_assert_uint_eq(reserved(s2), 40 * MIB);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}
END_TEST

START_TEST(no_vmm_falls_back)
{
	struct hc_mm_props p = { .max_page_size = 1024 * MIB, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPANDABLE };
	struct hc_layout *l;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), 3);
	ck_assert_int_eq(hc_layout_pool(l, 2)->kind, HC_POOL_EXPANDABLE);
	hc_layout_free(l);
}
END_TEST

/* --- the manager with counting storage: the validator -------------------- */

#define G (64 * 1024ull)

struct vfake {
	uint64_t base, size, maps, unmaps, mapped, limit;
	unsigned char *gmap; /* 1 per mapped granule */
};

static hc_status vf_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	(void)ctx;
	(void)size;
	*addr = 0;
	return HC_ERR_OOM;
}

static hc_status vf_free(void *ctx, uint64_t addr, uint64_t size)
{
	(void)ctx;
	(void)addr;
	(void)size;
	return HC_OK;
}

static hc_status vf_reserve(void *ctx, uint64_t size, uint64_t *addr)
{
	struct vfake *f = ctx;

	ck_assert_uint_eq(f->size, 0);
	ck_assert_uint_eq(size % G, 0);
	f->base = 1ull << 40;
	f->size = size;
	f->gmap = calloc(size / G, 1);
	*addr = f->base;
	return HC_OK;
}

static hc_status vf_release(void *ctx, uint64_t addr, uint64_t size)
{
	struct vfake *f = ctx;

	ck_assert_uint_eq(addr, f->base);
	ck_assert_uint_eq(size, f->size);
	ck_assert_uint_eq(f->mapped, 0);
	free(f->gmap);
	f->gmap = NULL;
	f->size = 0;
	return HC_OK;
}

static hc_status vf_map(void *ctx, uint64_t addr, uint64_t size)
{
	struct vfake *f = ctx;

	ck_assert(addr % G == 0 && size % G == 0 && size);
	if (f->limit && f->mapped + size > f->limit)
		return HC_ERR_OOM;
	for (uint64_t g = (addr - f->base) / G; g < (addr - f->base + size) / G; g++) {
		ck_assert(!f->gmap[g]);
		f->gmap[g] = 1;
	}
	f->maps++;
	f->mapped += size;
	return HC_OK;
}

static hc_status vf_unmap(void *ctx, uint64_t addr, uint64_t size)
{
	struct vfake *f = ctx;

	for (uint64_t g = (addr - f->base) / G; g < (addr - f->base + size) / G; g++) {
		ck_assert(f->gmap[g]);
		f->gmap[g] = 0;
	}
	f->unmaps++;
	f->mapped -= size;
	return HC_OK;
}

/* The fixture: a fresh fake storage with virtual memory for each case,
 * and the manager props it goes with (64 KiB granules, 64 MiB of
 * addresses). */
static struct vfake vf;
static struct hc_storage vf_storage = { .alloc = vf_alloc, .free = vf_free, .ctx = &vf,
					.va_reserve = vf_reserve, .va_release = vf_release,
					.map = vf_map, .unmap = vf_unmap };
static const struct hc_mm_props vf_props = { .max_page_size = 1 << 30, .alignment = 256,
					     .vmm_granularity = G, .va_size = 64 * MIB };

static void vf_setup(void)
{
	memset(&vf, 0, sizeof(vf));
}

/* A manager on the fake storage with the layout @in asks for. */
static struct hc_mm *vf_manager(const hc_pool_layout *in)
{
	struct hc_layout *l;
	struct hc_mm *mm;

	ck_assert_int_eq(hc_layout_resolve(in, &vf_props, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &vf_props, &vf_storage, &mm), HC_OK);
	hc_layout_free(l);
	return mm;
}

START_TEST(validator_counts)
{
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPANDABLE };
	struct hc_slice_ref r[64];
	uint64_t addr, live = 0;
	struct hc_mm *mm;
	hc_memory_usage u;
	unsigned seed = 7;

	mm = vf_manager(&in);
	ck_assert_int_eq(mm->pools[2].kind, HC_POOL_EXPANDABLE);
	memset(r, 0, sizeof(r));
	for (int step = 0; step < 2000; step++) {
		unsigned i;

		seed = seed * 1103515245u + 12345u;
		i = (seed >> 8) % 64;
		if (r[i].id) {
			ck_assert_int_eq(hc_mm_release(mm, r[i]), HC_OK);
			r[i].id = 0;
		} else {
			uint64_t size = 1 * MIB + 1 + (seed >> 12) % (3 * MIB);

			if (hc_mm_reserve(mm, size, &r[i], &addr) != HC_OK)
				r[i].id = 0;
		}
		if (step % 97 == 0)
			ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
		ck_assert(hc_mm_valid(mm));
		hc_mm_usage(mm, &u);
		ck_assert_uint_eq(u.bytes_reserved, vf.mapped);
	}
	/* a wrong count is seen */
	mm->pools[2].npages++;
	ck_assert(!hc_mm_valid(mm));
	mm->pools[2].npages--;
	for (int i = 0; i < 64; i++)
		if (r[i].id) {
			ck_assert_int_eq(hc_mm_release(mm, r[i]), HC_OK);
			live++;
		}
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(vf.mapped, 0);
	ck_assert_uint_gt(vf.unmaps, 0);
	/* a refused map: nothing changes */
	vf.limit = 2 * MIB;
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &r[0], &addr), HC_ERR_OOM);
	ck_assert_uint_eq(vf.mapped, 0);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(mm);
	ck_assert_uint_eq(vf.size, 0); /* released, every granule unmapped first */
	(void)live;
}
END_TEST

/* The Expandable layout with its large pool's watermark on
 * (reclaim_at = HC_RECLAIM_AT_PEAK), as a layout file's
 * "expandable reclaim_at=peak" asks. */
static const hc_pool_spec watermark_pools[] = {
	{ .kind = HC_POOL_EXCLUSIVE, .max_alloc_size = 0 },
	{ .kind = HC_POOL_SLICED, .page_size = 2 * MIB, .max_slice_size = MIB },
	{ .kind = HC_POOL_EXPANDABLE, .reclaim_at = HC_RECLAIM_AT_PEAK },
};

/* The preset keeps idle mappings until cleanup, as PyTorch's expandable
 * segments do: growth past the peak maps more and unmaps nothing (each
 * unmap waits for the stream, which cost ResNet-50 training a fifth of
 * its step time on an H100), and a reclaim_at that is neither 0 nor peak
 * is refused. */
START_TEST(preset_keeps_mappings_until_cleanup)
{
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPANDABLE };
	hc_pool_spec bad[3];
	hc_pool_layout inbad = { .preset = HC_LAYOUT_EXPLICIT, .pools = bad, .n_pools = 3 };
	struct hc_slice_ref a, b, c;
	struct hc_layout *l;
	struct hc_mm *mm;
	uint64_t addr;

	mm = vf_manager(&in);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &a, &addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &b, &addr), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	/* 8 MiB mapped, 3 MiB in use, peak 6 MiB: 10 MiB more maps above b
	 * and leaves a's idle mappings alone */
	ck_assert_int_eq(hc_mm_reserve(mm, 10 * MIB, &c, &addr), HC_OK);
	ck_assert_uint_eq(vf.unmaps, 0);
	ck_assert_uint_eq(vf.mapped, 16 * MIB);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK); /* a's go now */
	ck_assert_uint_gt(vf.unmaps, 0);
	ck_assert_uint_lt(vf.mapped, 16 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	hc_mm_destroy(mm);
	ck_assert_uint_eq(vf.mapped, 0);

	memcpy(bad, watermark_pools, sizeof(bad));
	bad[2].reclaim_at = 64 * MIB;
	ck_assert_int_eq(hc_layout_resolve(&inbad, &vf_props, &l), HC_ERR_INVALID);
	{
		hc_error_info e;

		ck_assert_int_eq(hc_last_error(&e), HC_OK);
		ck_assert_ptr_nonnull(strstr(e.message, "reclaim_at is 0"));
	}
}
END_TEST

/* The watermark unmaps idle mappings from the top, one call per stretch
 * of adjacent ones: a hole that cleanup left ends a stretch. */
START_TEST(watermark_unmaps_around_holes)
{
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = watermark_pools, .n_pools = 3 };
	struct hc_slice_ref a, b, c, d, e;
	struct hc_mm *mm;
	uint64_t addr;

	mm = vf_manager(&in);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &a, &addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &b, &addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &c, &addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &d, &addr), HC_OK);
	ck_assert_uint_eq(vf.maps, 4);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK); /* the hole */
	ck_assert_uint_eq(vf.unmaps, 1);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	/* 9 MiB mapped, 3 MiB in use, peak 12 MiB: 10 MiB more (above d)
	 * passes 13 MiB, so c's and a's mappings go, in two calls (the hole
	 * between them) */
	ck_assert_int_eq(hc_mm_reserve(mm, 10 * MIB, &e, &addr), HC_OK);
	ck_assert_uint_eq(vf.unmaps, 3);
	ck_assert_uint_eq(vf.mapped, 13 * MIB);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, e), HC_OK);
	hc_mm_destroy(mm);
	ck_assert_uint_eq(vf.mapped, 0);
	ck_assert_uint_eq(vf.size, 0);
}
END_TEST

/* The mappings are linked in address order (cleanup and the watermark
 * walk that list, not the range): random reservations, releases and
 * cleanups, with and without the watermark, map below, between and above
 * the mappings there are and unmap any of them; the validator checks the
 * list against the granules after every step, and the fake storage that
 * every mapped granule is mapped once. */
START_TEST(mapping_list_follows_random_use)
{
	struct vfake f = { 0 };
	struct hc_storage st = { .alloc = vf_alloc, .free = vf_free, .ctx = &f,
				 .va_reserve = vf_reserve, .va_release = vf_release,
				 .map = vf_map, .unmap = vf_unmap };
	struct hc_mm_props p = { .max_page_size = 1 << 30, .alignment = 256,
				 .vmm_granularity = G, .va_size = 64 * MIB };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = watermark_pools, .n_pools = 3 };
	hc_pool_layout preset = { .preset = HC_LAYOUT_EXPANDABLE };
	struct hc_slice_ref live[16];
	uint64_t rng = 0x2545f4914f6cdd1dull + (uint64_t)_i, addr, maps_before;
	struct hc_layout *l;
	struct hc_mm *mm;
	int n = 0;

	ck_assert_int_eq(hc_layout_resolve(_i & 1 ? &in : &preset, &p, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &st, &mm), HC_OK);
	hc_layout_free(l);
	for (int step = 0; step < 2000; step++) {
		uint64_t r;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		r = rng % 10;
		if (r < 5 && n < 16) {
			uint64_t size = MIB + (rng >> 16) % (5 * MIB);

			if (hc_mm_reserve(mm, size, &live[n], &addr) == HC_OK)
				n++;
		} else if (r < 9 && n) {
			int k = (int)((rng >> 24) % (uint64_t)n);

			ck_assert_int_eq(hc_mm_release(mm, live[k]), HC_OK);
			live[k] = live[--n];
		} else {
			maps_before = f.maps;
			ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
			ck_assert_uint_eq(f.maps, maps_before);
		}
		ck_assert_msg(hc_mm_valid(mm), "step %d", step);
	}
	while (n)
		ck_assert_int_eq(hc_mm_release(mm, live[--n]), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(f.mapped, 0);
	ck_assert_uint_gt(f.unmaps, 10);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(mm);
	ck_assert_uint_eq(f.size, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("expandable");
	TCase *tc = tcase_create("pool");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, data_survives_growth);
	tcase_add_test(tc, cleanup_unmaps_untouched);
	tcase_add_test(tc, oom_loses_nothing);
	tcase_add_test(tc, capture_maps_nothing);
	tcase_add_test(tc, freed_memory_moves_between_streams);
	tcase_add_test(tc, no_vmm_falls_back);
	suite_add_tcase(su, tc);

	tc = tcase_create("pool");
	tcase_add_checked_fixture(tc, vf_setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, validator_counts);
	tcase_add_test(tc, preset_keeps_mappings_until_cleanup);
	tcase_add_test(tc, watermark_unmaps_around_holes);
	tcase_add_loop_test(tc, mapping_list_follows_random_use, 0, 4);
	suite_add_tcase(su, tc);
	return su;
}

HC_TEST_PROGRAM(suite);
