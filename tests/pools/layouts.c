/*
 * layouts.c - pool layouts: configuration errors and limits, resolving
 * (rounding, defaults, the subslice ladder), the Workload default at any
 * device size, explicit pools, and the exclusive-pages buckets.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- layouts ------------------------------------------------------------------- */

struct config_case {
	const char *name;
	hc_pool_spec pools[2];
	size_t n;
	const char *msg;
};

static const struct config_case config_cases[] = {
	{ "empty", { { 0 } }, 0, "pool list is empty" },
	{ "zero page", { { .kind = HC_POOL_SLICED, .page_size = 0 } }, 1,
	  "page_size must be non-zero" },
	{ "slice larger than page",
	  { { .kind = HC_POOL_SLICED, .page_size = 1000, .max_slice_size = 2000 } }, 1,
	  "max_slice_size (2016) is larger than page_size (1024)" },
	{ "cap smaller than page",
	  { { .kind = HC_POOL_SLICED, .page_size = 4096, .max_pool_size = 4000 } }, 1,
	  "max_pool_size (4000) is smaller than page_size (4096)" },
	{ "too many pages",
	  { { .kind = HC_POOL_SLICED, .page_size = 32, .max_pool_size = 32 * 65536 } }, 1,
	  "spans 65536 pages" },
	{ "persistent in a list", { { .kind = HC_POOL_DIRECT }, { .kind = HC_POOL_PERSISTENT } },
	  2, "pool 1: kind 3" },
};

START_TEST(pool_config_errors)
{
	const struct config_case *c = &config_cases[_i];
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 32 };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = c->pools, .n_pools = c->n };
	struct hc_layout *l = NULL;

	ck_assert_msg(hc_layout_resolve(&in, &p, &l) == HC_ERR_INVALID, "%s", c->name);
	ck_assert_ptr_null(l);
	expect_msg(c->msg);
}
END_TEST

START_TEST(pool_config_limits)
{
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 32 };
	static hc_pool_spec many[255];
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = many, .n_pools = 255 };
	struct hc_layout *l;
	size_t i;

	for (i = 0; i < 255; i++)
		many[i] = direct(0);
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	expect_msg("255 pools");
	in.n_pools = 254;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), 254);
	hc_layout_free(l);
	in.pools = NULL;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	in.preset = (hc_layout_preset)42;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	expect_msg("unknown layout preset 42");
	in.preset = HC_LAYOUT_SUBSLICES;
	p.max_page_size = 0;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	ck_assert_int_eq(hc_layout_resolve(NULL, &p, &l), HC_ERR_INVALID);
}
END_TEST

START_TEST(resolve_rounds_and_defaults)
{
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 256 };
	hc_pool_spec in_pools[4] = {
		{ .kind = HC_POOL_SLICED, .page_size = 1000, .max_pool_size = 4096 },
		{ .kind = HC_POOL_SLICED, .page_size = 1000, .max_slice_size = 100 },
		{ .kind = HC_POOL_EXCLUSIVE, .max_alloc_size = 0, .dealloc_period = 7 },
		{ .kind = HC_POOL_DIRECT, .reclaim_at = 1001, .dealloc_period = 9 },
	};
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = in_pools, .n_pools = 4 };
	struct hc_layout *l;
	const hc_pool_spec *s;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	s = hc_layout_pool(l, 0);
	ck_assert_uint_eq(s->page_size, 1024);
	ck_assert_uint_eq(s->max_slice_size, 1024);
	ck_assert_uint_eq(s->max_pool_size, 4096);
	s = hc_layout_pool(l, 1);
	ck_assert_uint_eq(s->max_slice_size, 256);
	s = hc_layout_pool(l, 2);
	ck_assert_uint_eq(s->max_alloc_size, 0);
	ck_assert_uint_eq(s->dealloc_period, 7);
	s = hc_layout_pool(l, 3);
	ck_assert_uint_eq(s->reclaim_at, 1001);
	ck_assert_uint_eq(s->dealloc_period, 0);
	ck_assert_ptr_null(hc_layout_pool(l, 4));
	hc_layout_free(l);
}
END_TEST

struct ladder_case {
	uint64_t device;
	size_t n;
	uint64_t page[6], max_slice[6];
	uint64_t tail, period;
};

static const struct ladder_case ladders[] = {
	{ 16 * GIB, 4, { 16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB },
	  { 1 * MIB, 8 * MIB, 64 * MIB, 512 * MIB }, 4 * GIB, 25000 },
	{ 24 * GIB, 4, { 24 * MIB, 96 * MIB, 384 * MIB, 1536 * MIB },
	  { 3 * MIB / 2, 12 * MIB, 96 * MIB, 768 * MIB }, 6 * GIB, 35000 },
	{ 192 * GIB, 6, { 12 * MIB, 48 * MIB, 192 * MIB, 768 * MIB, 3 * GIB, 12 * GIB },
	  { 192 * KIB, 3 * MIB / 2, 12 * MIB, 96 * MIB, 768 * MIB, 6 * GIB }, 48 * GIB, 245000 },
};

START_TEST(subslices_ladder)
{
	const struct ladder_case *c = &ladders[_i];
	struct hc_mm_props p = { .max_page_size = c->device / 4, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_SUBSLICES };
	struct hc_layout *l;
	const hc_pool_spec *s;
	size_t i;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), c->n + 2);
	s = hc_layout_pool(l, 0);
	ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(s->max_alloc_size, 0);
	ck_assert_uint_eq(s->dealloc_period, 0);
	for (i = 0; i < c->n; i++) {
		s = hc_layout_pool(l, i + 1);
		ck_assert_int_eq(s->kind, HC_POOL_SLICED);
		ck_assert_uint_eq(s->page_size, c->page[i]);
		ck_assert_uint_eq(s->max_slice_size, c->max_slice[i]);
		ck_assert_uint_eq(s->max_pool_size, 0);
	}
	s = hc_layout_pool(l, c->n + 1);
	ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(s->max_alloc_size, c->tail);
	ck_assert_uint_eq(s->dealloc_period, c->period);
	hc_layout_free(l);
}
END_TEST

/* The default is the Workload layout, at any device size and alignment:
 * size 0 exclusive, 2 MiB pages for <= 1 MiB, exact-size direct at its peak. */
START_TEST(default_is_workload)
{
	static const uint64_t aligns[] = { 1, 256, 4096, 3 * MIB };
	hc_pool_layout def = { .preset = HC_LAYOUT_DEFAULT };
	hc_pool_layout wl = { .preset = HC_LAYOUT_WORKLOAD };
	struct hc_mm_props p = { .max_page_size = 0, .alignment = aligns[_i] };
	uint64_t a = aligns[_i];
	struct hc_layout *l, *d;
	const hc_pool_spec *s;
	size_t i;

	ck_assert_int_eq(hc_layout_resolve(&wl, &p, &l), HC_OK); /* no max_page needed */
	ck_assert_int_eq(hc_layout_resolve(&def, &p, &d), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), 3);
	ck_assert_uint_eq(hc_layout_count(d), 3);
	for (i = 0; i < 3; i++)
		ck_assert_mem_eq(hc_layout_pool(d, i), hc_layout_pool(l, i), sizeof(hc_pool_spec));
	s = hc_layout_pool(l, 0);
	ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(s->max_alloc_size, 0);
	s = hc_layout_pool(l, 1);
	ck_assert_int_eq(s->kind, HC_POOL_SLICED);
	ck_assert_uint_eq(s->page_size, (2 * MIB + a - 1) / a * a);
	ck_assert_uint_eq(s->max_slice_size, (MIB + a - 1) / a * a);
	ck_assert_uint_eq(s->max_pool_size, 0);
	s = hc_layout_pool(l, 2);
	ck_assert_int_eq(s->kind, HC_POOL_DIRECT);
	ck_assert_uint_eq(s->reclaim_at, HC_RECLAIM_AT_PEAK);
	hc_layout_free(d);
	hc_layout_free(l);
}
END_TEST

/* The Workload pools named explicitly: the direct pool stays exact-size
 * (only the preset turns splitting on); a miss releases cached allocations
 * only as far as the pool's peak in-use requires. */
START_TEST(explicit_direct_reclaims_on_miss)
{
	hc_pool_spec specs[3] = { exclusive(0, 0), sliced(2 * MIB, 1 * MIB, 0),
				  direct(HC_RECLAIM_AT_PEAK) };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = specs, .n_pools = 3 };
	hc_pool_layout wl = { .preset = HC_LAYOUT_WORKLOAD };
	struct hc_mm_props p = { .max_page_size = 0, .alignment = 256 };
	struct hc_layout *l;
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c;
	uint64_t addr, a_addr;
	hc_memory_usage u;

	fake_reset();
	ck_assert_int_eq(hc_layout_resolve(&wl, &p, &l), HC_OK);
	ck_assert(hc_layout_split(l, 2));
	ck_assert(!hc_layout_split(l, 1) && !hc_layout_split(l, 3) && !hc_layout_split(NULL, 2));
	hc_layout_free(l);
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert(!hc_layout_split(l, 2));
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 10 * MIB + 1, &a, &a_addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &b, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 10 * MIB + 256 + 3 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	/* same size: a hit on the cached allocation, nothing new reserved */
	ck_assert_int_eq(hc_mm_reserve(mm, 10 * MIB + 1, &a, &addr), HC_OK);
	ck_assert_uint_eq(addr, a_addr);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	/* other size: a miss that would pass the peak (13 MiB + 256): the free
	 * 10 MiB goes back first */
	ck_assert_int_eq(hc_mm_reserve(mm, 5 * MIB, &c, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 3 * MIB + 5 * MIB);
	ck_assert_uint_eq(u.bytes_in_use, 3 * MIB + 5 * MIB);
	ck_assert_uint_eq(fk.live_bytes, 3 * MIB + 5 * MIB);
	ck_assert_uint_eq(fk.frees, 1);
	ck_assert(hc_mm_valid(mm));
	/* a miss under the peak keeps the cache: 8 + 4 MiB <= 13 MiB + 256 */
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 4 * MIB, &c, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 3 * MIB + 5 * MIB + 4 * MIB);
	ck_assert_uint_eq(fk.frees, 1);
	/* and one that would pass it releases the free 5 MiB, not more */
	ck_assert_int_eq(hc_mm_reserve(mm, 6 * MIB, &a, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 3 * MIB + 4 * MIB + 6 * MIB);
	ck_assert_uint_eq(fk.frees, 2);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	hc_mm_destroy(mm);
	hc_layout_free(l);
}
END_TEST

/* 24 GiB device: near-page windows (19.2, 24] MiB route to the 24 MiB pool. */
START_TEST(subslices_routing_24gib)
{
	struct hc_mm_props p = { .max_page_size = 6 * GIB, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_SUBSLICES };
	struct hc_layout *l;
	struct hc_mm *mm;
	struct reports rs;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	hc_layout_free(l);
	res(mm, 1 * MIB, NULL);        /* pool 1 (24 MiB pages, slices <= 1.5 MiB) */
	res(mm, 20 * MIB, NULL);       /* near-page stray: pool 1 */
	res(mm, 19 * MIB, NULL);       /* not near, above 12 MiB: pool 3 (384 MiB pages) */
	res(mm, 2 * GIB, NULL);        /* tail exclusive pool */
	rs = report(mm);
	ck_assert_uint_eq(rs.n, 7);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 2);
	ck_assert_uint_eq(rs.r[1].pages, 1);
	ck_assert_uint_eq(rs.r[2].usage.number_allocs, 0);
	ck_assert_uint_eq(rs.r[3].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[5].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[5].spec.dealloc_period, 35000);
	ck_assert_uint_eq(rs.r[6].kind, HC_POOL_PERSISTENT);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(exclusive_pages_buckets)
{
	struct hc_mm_props p = { .max_page_size = 6 * GIB, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXCLUSIVE_PAGES };
	struct hc_layout *l;
	const hc_pool_spec *s;
	struct hc_mm *mm;
	size_t i, n;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	n = hc_layout_count(l);
	ck_assert_uint_eq(n, 24);
	ck_assert_uint_eq(hc_layout_pool(l, 0)->max_alloc_size, 32 * KIB);
	ck_assert_uint_eq(hc_layout_pool(l, 0)->dealloc_period, 5000);
	ck_assert_uint_eq(hc_layout_pool(l, n - 1)->max_alloc_size, 6 * GIB);
	ck_assert_uint_eq(hc_layout_pool(l, n - 1)->dealloc_period, 35000);
	for (i = 0; i < n; i++) {
		s = hc_layout_pool(l, i);
		ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
		ck_assert_uint_eq(s->max_alloc_size % 256, 0);
		if (i)
			ck_assert_uint_gt(s->max_alloc_size, hc_layout_pool(l, i - 1)->max_alloc_size);
		if (s->max_alloc_size < GIB / 2)
			ck_assert_uint_eq(s->dealloc_period, 5000);
	}
	/* a large alignment merges the small buckets */
	hc_layout_free(l);
	p.alignment = 1 * MIB;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_lt(hc_layout_count(l), 24);
	ck_assert_uint_eq(hc_layout_pool(l, 0)->max_alloc_size, 1 * MIB);
	/* size 0 goes to the first bucket */
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	res(mm, 0, NULL);
	ck_assert_uint_eq(report(mm).r[0].usage.number_allocs, 1);
	hc_mm_destroy(mm);
	hc_layout_free(l);
}
END_TEST

Suite *pools_layouts_suite(void)
{
	Suite *s = suite_create("layouts");
	TCase *tc;

	tc = tcase_create("layouts");
	/* layouts alone, or a storage the case resets itself: no fixture */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, pool_config_errors, 0,
			    (int)(sizeof(config_cases) / sizeof(config_cases[0])));
	tcase_add_test(tc, pool_config_limits);
	tcase_add_test(tc, resolve_rounds_and_defaults);
	tcase_add_loop_test(tc, subslices_ladder, 0, (int)(sizeof(ladders) / sizeof(ladders[0])));
	tcase_add_loop_test(tc, default_is_workload, 0, 4);
	tcase_add_test(tc, explicit_direct_reclaims_on_miss);
	suite_add_tcase(s, tc);

	tc = tcase_create("layouts");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, subslices_routing_24gib);
	tcase_add_test(tc, exclusive_pages_buckets);
	suite_add_tcase(s, tc);
	return s;
}
