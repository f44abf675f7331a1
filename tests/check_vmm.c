/*
 * check_vmm.c - virtual memory on the simulator (sim/sim_vmm.c), through
 * hc_sim_ops() directly: reservations, mappings charged like allocations,
 * every rule of hal.h's contract refused with HC_ERR_INVALID and nothing
 * changed, accesses to unmapped granules failing like freed memory, data
 * mode's contiguous bytes, the cost model's exact figures, and the profile
 * keys' range checks.  The shims over these ops are tests/check_hal_shims.c's.
 *
 * The profile "costs" below gives every virtual-memory figure its own value
 * so that a host clock difference names the figure it came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fixtures/sim_hal.h"
#include "tests/runner.h"

#define MIB HC_MIB
#define G (2 * MIB) /* the built-in profile's granule */

/* A profile file of a 1 GiB device with @alignment and @extra; its path in
 * @path, for the caller to unlink. */
static void profile_file(const char *alignment, const char *extra, char path[64])
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/check_vmm_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "name = vmm test\ntotal_memory = 1 GiB\nalignment = %s\nintegrated = 0\n"
		   "h2d_pinned_bw = 50 GB/s\nh2d_pageable_bw = 10 GB/s\nd2h_pinned_bw = 50 GB/s\n"
		   "d2h_pageable_bw = 10 GB/s\nd2d_bw = 1000 GB/s\nh2d_pinned_latency = 1 us\n"
		   "h2d_pageable_latency = 1 us\nd2h_pinned_latency = 1 us\n"
		   "d2h_pageable_latency = 1 us\nd2d_latency = 1 us\n%s",
		alignment, extra);
	fclose(f);
}

static const char costs[] = "va_reserve = 11000\nva_release = 7000\npmem_map = 30000\n"
			    "pmem_map_per_mib = 500\npmem_unmap = 20000\npmem_unmap_per_mib = 300\n";

START_TEST(props_give_the_granule_and_zero_turns_it_off)
{
	struct hc_hal_props p;
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a = 0;
	char path[64];

	ck_assert_int_eq(ops->device_props(dev, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, G);
	ck_assert_ptr_nonnull(ops->va_reserve);
	ops->device_close(dev);

	profile_file("256", "vmm_granularity = 0\n", path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	ck_assert_int_eq(ops->device_props(dev, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	ck_assert_int_eq(ops->va_reserve(dev, G, &a), HC_ERR_UNSUPPORTED);
	ck_assert(last_error_has("vmm_granularity = 0"));
	ck_assert_int_eq(ops->pmem_map(dev, 0x1000000, G), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(ops->pmem_unmap(dev, 0x1000000, G), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(ops->va_release(dev, 0x1000000, G), HC_ERR_UNSUPPORTED);
	ops->device_close(dev);
}
END_TEST

START_TEST(reservations_are_aligned_apart_and_charge_nothing)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b, m, c;
	struct hc_hal_stats s;

	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &m), HC_OK); /* the top is not G-aligned now */
	ck_assert_int_eq(ops->va_reserve(dev, 64 * G, &a), HC_OK);
	ck_assert_int_eq(ops->va_reserve(dev, 8 * G, &b), HC_OK);
	ck_assert_uint_eq(a % G, 0);
	ck_assert_uint_eq(b % G, 0);
	ck_assert(b >= a + 64 * G || a >= b + 8 * G);
	ck_assert(m + 4096 <= a && m + 4096 <= b);
	/* the gap below the first reservation is a hole an allocation fills */
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &c), HC_OK);
	ck_assert_uint_eq(c, m + 4096);
	s = stats(dev);
	ck_assert_uint_eq(s.va_bytes_reserved, 72 * G);
	ck_assert_uint_eq(s.device_bytes_live, 2 * 4096);
	ck_assert_int_eq(ops->va_reserve(dev, 0, &a), HC_ERR_INVALID);
	ck_assert_int_eq(ops->va_reserve(dev, G + 4096, &a), HC_ERR_INVALID);
	ck_assert(last_error_has("multiple of the granularity (2097152)"));
	ck_assert_int_eq(ops->va_reserve(dev, G, NULL), HC_ERR_INVALID);
	/* release: exactly a reservation, then its addresses are reused */
	ck_assert_int_eq(ops->va_release(dev, b, 4 * G), HC_ERR_INVALID);
	ck_assert_int_eq(ops->va_release(dev, b + G, 7 * G), HC_ERR_INVALID);
	ck_assert_int_eq(ops->va_release(dev, b, 8 * G), HC_OK);
	ck_assert_int_eq(ops->va_release(dev, b, 8 * G), HC_ERR_INVALID);
	ck_assert_int_eq(ops->va_reserve(dev, 8 * G, &c), HC_OK);
	ck_assert_uint_eq(c, b);
	ck_assert_uint_eq(stats(dev).va_bytes_reserved, 72 * G);
	ops->device_close(dev); /* frees the rest */
}
END_TEST

START_TEST(address_space_is_bounded)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a;

	/* each device has 64 TiB of addresses (SIM_DEV_SPACING) */
	ck_assert_int_eq(ops->va_reserve(dev, 65ull << 40, &a), HC_ERR_OOM);
	ck_assert(last_error_has("address space is exhausted"));
	ck_assert_int_eq(ops->va_reserve(dev, 40ull << 40, &a), HC_OK);
	ck_assert_int_eq(ops->va_reserve(dev, 40ull << 40, &a), HC_ERR_OOM);
	ck_assert_int_eq(ops->va_reserve(dev, 8ull << 40, &a), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* Every broken rule of pmem_map and pmem_unmap: HC_ERR_INVALID, nothing
 * changed (no bytes charged, no clock moved, no mapping made or lost). */
START_TEST(map_and_unmap_refuse_what_the_contract_forbids)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr r, m;
	struct hc_hal_stats s;
	uint64_t t;

	ck_assert_int_eq(ops->va_reserve(dev, 16 * G, &r), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &m), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 2 * G, 2 * G), HC_OK);
	t = now(dev);
	s = stats(dev);
	ck_assert_int_eq(ops->pmem_map(dev, r + 4096, G), HC_ERR_INVALID);        /* misaligned */
	ck_assert_int_eq(ops->pmem_map(dev, r, G + 4096), HC_ERR_INVALID);        /* size */
	ck_assert_int_eq(ops->pmem_map(dev, r, 0), HC_ERR_INVALID);
	ck_assert_int_eq(ops->pmem_map(dev, r + 16 * G, G), HC_ERR_INVALID);      /* outside */
	ck_assert(last_error_has("not inside a reservation"));
	ck_assert_int_eq(ops->pmem_map(dev, r + 15 * G, 2 * G), HC_ERR_INVALID);  /* runs past */
	ck_assert(last_error_has("runs past its reservation"));
	ck_assert_int_eq(ops->pmem_map(dev, r + 3 * G, G), HC_ERR_INVALID);       /* mapped */
	ck_assert(last_error_has("overlaps the mapping at"));
	ck_assert_int_eq(ops->pmem_map(dev, r + G, 2 * G), HC_ERR_INVALID);       /* its head */
	ck_assert_int_eq(ops->pmem_map(dev, r, 8 * G), HC_ERR_INVALID);           /* around it */
	ck_assert_int_eq(ops->pmem_map(dev, m & ~(G - 1), G), HC_ERR_INVALID);    /* not reserved */
	ck_assert_int_eq(ops->pmem_unmap(dev, r + 3 * G, G), HC_ERR_INVALID);     /* its tail */
	ck_assert(last_error_has("no mapping starts at"));
	ck_assert_int_eq(ops->pmem_unmap(dev, r + 2 * G, G), HC_ERR_INVALID);     /* its head */
	ck_assert(last_error_has("not a run of whole mappings"));
	ck_assert_int_eq(ops->pmem_unmap(dev, r + 2 * G, 4 * G), HC_ERR_INVALID); /* and more */
	ck_assert_int_eq(ops->pmem_unmap(dev, r, 4 * G), HC_ERR_INVALID);         /* from before */
	ck_assert_int_eq(ops->va_release(dev, r, 16 * G), HC_ERR_INVALID);        /* still mapped */
	ck_assert(last_error_has("still has 4194304 bytes mapped in 1 mapping(s)"));
	ck_assert_uint_eq(now(dev), t);
	{
		struct hc_hal_stats s2 = stats(dev);

		ck_assert_int_eq(memcmp(&s, &s2, sizeof(s)), 0);
	}
	ck_assert_int_eq(ops->pmem_unmap(dev, r + 2 * G, 2 * G), HC_OK);
	ck_assert_int_eq(ops->va_release(dev, r, 16 * G), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, m), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* Mapped bytes are device memory: the capacity, HC_ERR_OOM, live and peak
 * as mem_alloc's, and the reservation stays usable after a refusal. */
START_TEST(mapped_bytes_count_against_the_capacity)
{
	hc_hal_dev *dev = open_dev(false, 8 * MIB, 0, NULL);
	hc_hal_dptr r, m;
	struct hc_hal_stats s;

	ck_assert_int_eq(ops->va_reserve(dev, 64 * G, &r), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r, 3 * G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 3 * G, 2 * G), HC_ERR_OOM);
	ck_assert(last_error_has("pmem_map: 4194304 bytes requested (4194304 rounded), "
				 "6291456 in use, capacity 8388608"));
	ck_assert_int_eq(ops->mem_alloc(dev, 4 * MIB, &m), HC_ERR_OOM); /* one capacity */
	s = stats(dev);
	ck_assert_uint_eq(s.device_bytes_live, 6 * MIB);
	ck_assert_uint_eq(s.device_bytes_peak, 6 * MIB);
	ck_assert_uint_eq(s.pmem_maps, 1);
	ck_assert_uint_eq(s.device_allocs, 0);
	ck_assert_int_eq(ops->mem_alloc(dev, 2 * MIB, &m), HC_OK);
	ck_assert_uint_eq(stats(dev).device_bytes_peak, 8 * MIB);
	ck_assert_int_eq(ops->pmem_unmap(dev, r, 3 * G), HC_OK);
	ck_assert_uint_eq(stats(dev).device_bytes_live, 2 * MIB);
	/* the refused range maps once there is room */
	ck_assert_int_eq(ops->pmem_map(dev, r + 3 * G, 2 * G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 5 * G, G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 6 * G, G), HC_ERR_OOM);
	s = stats(dev);
	ck_assert_uint_eq(s.device_bytes_live, 8 * MIB);
	ck_assert_uint_eq(s.device_bytes_peak, 8 * MIB);
	ck_assert_uint_eq(s.pmem_maps, 3);
	ck_assert_uint_eq(s.pmem_unmaps, 1);
	ops->device_close(dev); /* mapped and reserved at close: freed */
}
END_TEST

/* An unmap may cover several adjacent mappings; each is released. */
START_TEST(unmap_covers_runs_of_whole_mappings)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr r;
	struct hc_hal_stats s;

	ck_assert_int_eq(ops->va_reserve(dev, 32 * G, &r), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r, G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + G, 4 * G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 5 * G, G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 7 * G, G), HC_OK); /* a gap at 6 */
	ck_assert_int_eq(ops->pmem_unmap(dev, r + 5 * G, 3 * G), HC_ERR_INVALID);
	ck_assert_int_eq(ops->pmem_unmap(dev, r, 6 * G), HC_OK);
	s = stats(dev);
	ck_assert_uint_eq(s.pmem_maps, 4);
	ck_assert_uint_eq(s.pmem_unmaps, 3);
	ck_assert_uint_eq(s.device_bytes_live, G);
	ck_assert_int_eq(ops->pmem_map(dev, r, 6 * G), HC_OK); /* the granules are free again */
	ops->device_close(dev);
}
END_TEST

/* Data mode: mappings side by side are one buffer for copies and kernels;
 * an access reaching an unmapped granule is refused when queued, and a
 * graph replaying one after the unmap fails at its fence. */
START_TEST(data_mode_contiguous_bytes_and_unmapped_granules)
{
	hc_hal_dev *dev = open_dev(true, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_dptr r, info;
	hc_hal_module *mod;
	hc_hal_function *fill;
	hc_hal_graph *g = NULL;
	unsigned char *src = malloc(G), *out = malloc(2 * G);
	uint32_t word[2] = { 0xa5, 1 };

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(out);
	for (uint64_t i = 0; i < G; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->va_reserve(dev, 8 * G, &r), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r, 2 * G), HC_OK);
	/* written across the first granule boundary */
	ck_assert_int_eq(ops->copy_h2d(dev, s, r + G / 2, src, G, false), HC_OK);
	/* grown by a second mapping, then copied across the mappings' seam */
	ck_assert_int_eq(ops->pmem_map(dev, r + 2 * G, G), HC_OK);
	ck_assert_int_eq(ops->copy_d2d(dev, s, r + 3 * G / 2, r + G / 2, G), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(dev, s, out, r + 3 * G / 2, G, false), HC_OK);
	ck_assert_int_eq(memcmp(out, src, G), 0);
	/* a built-in kernel over both mappings */
	ck_assert_int_eq(ops->mem_alloc(dev, sizeof(word), &info), HC_OK);
	ck_assert_int_eq(ops->copy_h2d(dev, s, info, word, sizeof(word), false), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "fill", &fill), HC_OK);
	{
		hc_hal_dptr args[2] = { r + G, info };
		uint64_t bytes[2] = { 2 * G, sizeof(word) };
		struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .n_args = 2,
					   .arg_dptr = args, .arg_bytes = bytes };

		ck_assert_int_eq(ops->launch(dev, s, fill, &l), HC_OK);
		ck_assert_int_eq(ops->copy_d2h(dev, s, out, r + G, 2 * G, false), HC_OK);
		for (uint64_t i = 0; i < 2 * G; i += 4099)
			ck_assert_uint_eq(out[i], 0xa5);
		/* the granule after the last mapping is not there */
		bytes[0] = 2 * G + 1;
		ck_assert_int_eq(ops->launch(dev, s, fill, &l), HC_ERR_INVALID);
		ck_assert(last_error_has("reaches an unmapped granule at"));
	}
	ck_assert_int_eq(ops->copy_h2d(dev, s, r + 3 * G - 8, src, 16, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2h(dev, s, out, r + 4 * G, 16, false), HC_ERR_INVALID);
	/* a graph that writes the third granule, replayed after it is gone */
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_OK);
	ck_assert_int_eq(ops->copy_d2d(dev, s, r + 2 * G, r, 4096), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 4 * G, G), HC_ERR_STATE); /* not while capturing */
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_ERR_STATE);      /* so it is invalid */
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_OK);
	ck_assert_int_eq(ops->copy_d2d(dev, s, r + 2 * G, r, 4096), HC_OK);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_OK);
	ck_assert_int_eq(ops->graph_launch(dev, s, g), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_int_eq(ops->pmem_unmap(dev, r + 2 * G, G), HC_OK);
	ck_assert_int_eq(ops->graph_launch(dev, s, g), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_ERR_DEVICE);
	ck_assert(last_error_has("freed before it ran"));
	/* mapped again, the granule reads as zero */
	ck_assert_int_eq(ops->pmem_map(dev, r + 2 * G, G), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(dev, s, out, r + 2 * G, G, false), HC_OK);
	for (uint64_t i = 0; i < G; i += 511)
		ck_assert_uint_eq(out[i], 0);
	ops->graph_destroy(dev, g);
	ops->module_unload(dev, mod);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);
	free(src);
	free(out);
}
END_TEST

/* The host clock: each op its own figure, exactly; none waits for the
 * device (a mem_free does). */
START_TEST(costs_are_the_profile_figures_and_nothing_waits)
{
	char path[64];
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_hal_module *mod;
	hc_hal_function *fn;
	hc_hal_dptr r, m;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
				   .duration_hint_ns = 1000000000 };
	uint64_t t;

	profile_file("256", costs, path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	t = now(dev);
	ck_assert_int_eq(ops->va_reserve(dev, 64 * G, &r), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 11000);
	t = now(dev);
	ck_assert_int_eq(ops->pmem_map(dev, r, G), HC_OK); /* 1 MiB beyond the first */
	ck_assert_uint_eq(now(dev) - t, 30000 + 500);
	t = now(dev);
	ck_assert_int_eq(ops->pmem_map(dev, r + G, 8 * G), HC_OK); /* 16 MiB: 15 beyond */
	ck_assert_uint_eq(now(dev) - t, 30000 + 15 * 500);
	/* a second of kernel queued: the unmap does not wait for it */
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->launch(dev, s, fn, &l), HC_OK);
	t = now(dev);
	ck_assert_int_eq(ops->pmem_unmap(dev, r, 9 * G), HC_OK); /* two mappings, each paid */
	ck_assert_uint_eq(now(dev) - t, (20000 + 300) + (20000 + 15 * 300));
	t = now(dev);
	ck_assert_int_eq(ops->va_release(dev, r, 64 * G), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 7000);
	/* a refused map still costs the call (the device was asked) */
	ck_assert_int_eq(ops->va_reserve(dev, 1024 * G, &r), HC_OK);
	t = now(dev);
	ck_assert_int_eq(ops->pmem_map(dev, r, 600 * G), HC_ERR_OOM); /* 1 GiB device */
	ck_assert_uint_eq(now(dev) - t, 30000 + (1200 - 1) * 500);
	/* mem_free waits for the kernel */
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &m), HC_OK);
	t = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, m), HC_OK);
	ck_assert_uint_gt(now(dev) - t, 900000000);
	ops->module_unload(dev, mod);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* The simulator's own injector: a pmem_map is a device allocation. */
START_TEST(injected_faults_count_maps_as_allocations)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	struct hc_hal_fault_arg once = { HC_FAULT_DEVICE_ALLOC, 2, HC_FAULT_ONCE };
	struct hc_hal_fault_arg cap = { HC_FAULT_CAPACITY, 5 * MIB, HC_FAULT_PERSISTENT };
	hc_hal_dptr r, m;

	ck_assert_int_eq(ops->va_reserve(dev, 16 * G, &r), HC_OK);
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &once), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &m), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r, G), HC_ERR_OOM);
	ck_assert(last_error_has("pmem_map: injected device allocation fault"));
	ck_assert_int_eq(ops->pmem_map(dev, r, G), HC_OK);
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &cap), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + G, G), HC_OK);   /* 1 + 2 + 2 MiB */
	ck_assert_int_eq(ops->pmem_map(dev, r + 2 * G, G), HC_ERR_OOM);
	ck_assert(last_error_has("injected capacity fault"));
	ck_assert_int_eq(ops->pmem_unmap(dev, r + G, G), HC_OK);
	ck_assert_int_eq(ops->pmem_map(dev, r + 2 * G, G), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* An alignment coarser than the granule: allocations keep theirs, whatever
 * holes the reservations left. */
START_TEST(allocations_keep_their_alignment_beside_reservations)
{
	char path[64];
	hc_hal_dev *dev;
	hc_hal_dptr a, b, c, r;

	profile_file("4 MiB", "vmm_granularity = 64 KiB\n", path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	ck_assert_int_eq(ops->va_reserve(dev, 64 * 1024, &r), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 100, &a), HC_OK);
	ck_assert_int_eq(ops->va_reserve(dev, 3 * 64 * 1024, &c), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 100, &b), HC_OK);
	ck_assert_uint_eq(a % (4 * MIB), 0);
	ck_assert_uint_eq(b % (4 * MIB), 0);
	ck_assert_uint_eq(r % (64 * 1024), 0);
	ck_assert_uint_eq(c % (64 * 1024), 0);
	ck_assert_int_eq(ops->pmem_map(dev, c + 64 * 1024, 2 * 64 * 1024), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* The profile keys: units, the built-in values, the granule's range. */
START_TEST(profile_keys_parse_and_check_their_range)
{
	static const char *const bad[] = {
		"vmm_granularity = 3 MiB\n", "vmm_granularity = 2 KiB\n",
		"vmm_granularity = 2 GiB\n", "vmm_granularity = 1\n", "pmem_map = -1\n",
		"va_reserve = 3 MiB\n",
	};
	struct hc_sim_profile p, b;
	char text[2048], *tail;

	hc_sim_profile_builtin(&b);
	ck_assert_uint_eq(b.vmm_granularity, 2 * MIB);
	ck_assert_uint_eq(b.va_reserve_ns, 15000);
	ck_assert_uint_eq(b.va_release_ns, 10000);
	ck_assert_uint_eq(b.pmem_map_ns, 30000);
	ck_assert_uint_eq(b.pmem_map_ns_per_mib, 600);
	ck_assert_uint_eq(b.pmem_unmap_ns, 25000);
	ck_assert_uint_eq(b.pmem_unmap_ns_per_mib, 306);
	snprintf(text, sizeof(text),
		 "name = x\ntotal_memory = 1 GiB\nalignment = 256\nintegrated = 0\n"
		 "h2d_pinned_bw = 1 GB/s\nh2d_pageable_bw = 1 GB/s\nd2h_pinned_bw = 1 GB/s\n"
		 "d2h_pageable_bw = 1 GB/s\nd2d_bw = 1 GB/s\nh2d_pinned_latency = 1 us\n"
		 "h2d_pageable_latency = 1 us\nd2h_pinned_latency = 1 us\n"
		 "d2h_pageable_latency = 1 us\nd2d_latency = 1 us\n"
		 "vmm_granularity = 64 KiB\n%s", costs);
	ck_assert_int_eq(hc_sim_profile_parse(text, "t", &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 64 * 1024);
	ck_assert_uint_eq(p.va_reserve_ns, 11000);
	ck_assert_uint_eq(p.pmem_unmap_ns_per_mib, 300);
	tail = strstr(text, "vmm_granularity");
	strcpy(tail, "vmm_granularity = 0\n");
	ck_assert_int_eq(hc_sim_profile_parse(text, "t", &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(tail, bad[i]);
		ck_assert_msg(hc_sim_profile_parse(text, "t", &p) == HC_ERR_PARSE, "%s", bad[i]);
	}
	strcpy(tail, "vmm_granularity = 3 MiB\n");
	ck_assert_int_eq(hc_sim_profile_parse(text, "t", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("vmm_granularity must be 0 (none) or a power of two"));
}
END_TEST

static Suite *vmm_suite(void)
{
	Suite *s = suite_create("vmm");
	TCase *tc = tcase_create("sim");

	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, props_give_the_granule_and_zero_turns_it_off);
	tcase_add_test(tc, reservations_are_aligned_apart_and_charge_nothing);
	tcase_add_test(tc, address_space_is_bounded);
	tcase_add_test(tc, map_and_unmap_refuse_what_the_contract_forbids);
	tcase_add_test(tc, mapped_bytes_count_against_the_capacity);
	tcase_add_test(tc, unmap_covers_runs_of_whole_mappings);
	tcase_add_test(tc, data_mode_contiguous_bytes_and_unmapped_granules);
	tcase_add_test(tc, costs_are_the_profile_figures_and_nothing_waits);
	tcase_add_test(tc, injected_faults_count_maps_as_allocations);
	tcase_add_test(tc, allocations_keep_their_alignment_beside_reservations);
	tcase_add_test(tc, profile_keys_parse_and_check_their_range);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(vmm_suite);
