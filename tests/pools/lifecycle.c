/*
 * lifecycle.c - a manager's life on the fake storage: cleanup and a split
 * pool's reclaim (wholly free pages only, oldest first), measured plans and
 * installing them, the usage total the pools keep, and persistent windows.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- cleanup, install, measured plans ---------------------------------------- */

/* Cleanup and a split pool's reclaim give back only wholly free pages,
 * oldest first, whatever order they became free in; a page taken again
 * is no longer one (pool_internal.h: each pool's tree of them). */
START_TEST(cleanup_frees_empty_pages_oldest_first)
{
	hc_pool_spec s = sliced(1 * MIB, 0, 0);
	struct hc_slice_ref r[6];
	uint64_t addr[6], x;
	struct hc_mm *mm;
	int i;

	mm = mm_custom(&s, 1, 256);
	for (i = 0; i < 6; i++)
		r[i] = res(mm, 1 * MIB, &addr[i]); /* a page each */
	ck_assert_uint_eq(fk.allocs, 6);
	ck_assert_int_eq(hc_mm_release(mm, r[4]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[1]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[3]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[2]), HC_OK);
	r[2] = res(mm, 512 * KIB, &x); /* first fit: page 1, no longer empty */
	ck_assert_uint_eq(x, addr[1]);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(fk.nfreed, 3);
	ck_assert_uint_eq(fk.freed[0], addr[2]);
	ck_assert_uint_eq(fk.freed[1], addr[3]);
	ck_assert_uint_eq(fk.freed[2], addr[4]);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK); /* nothing more */
	ck_assert_uint_eq(fk.nfreed, 3);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 3 * MIB);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(split_reclaims_free_segments_oldest_first)
{
	hc_pool_layout wl = { .preset = HC_LAYOUT_WORKLOAD };
	struct hc_mm_props p = { .max_page_size = 0, .alignment = 256 };
	static const uint64_t sizes[5] = { 3 * MIB, 4 * MIB, 2 * MIB, 5 * MIB, 7 * MIB };
	struct hc_slice_ref r[5], n;
	uint64_t addr[5], naddr, x;
	struct hc_layout *l;
	struct hc_mm *mm;
	int i;

	ck_assert_int_eq(hc_layout_resolve(&wl, &p, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	hc_layout_free(l);
	for (i = 0; i < 5; i++)
		r[i] = res(mm, sizes[i], &addr[i]); /* a segment each, 21 MiB at peak */
	ck_assert_int_eq(hc_mm_release(mm, r[2]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[1]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[0]), HC_OK);
	ck_assert(hc_mm_valid(mm));
	/* no free block holds 6 MiB: the miss gives back wholly free segments,
	 * oldest first, until 21 + 6 - freed <= 21: the 3 then the 4 MiB one */
	n = res(mm, 6 * MIB, &naddr);
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(fk.nfreed, 2);
	ck_assert_uint_eq(fk.freed[0], addr[0]);
	ck_assert_uint_eq(fk.freed[1], addr[1]);
	/* the 2 MiB segment taken again whole: nothing left for cleanup */
	r[2] = res(mm, 2 * MIB, &x);
	ck_assert_uint_eq(x, addr[2]);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(fk.nfreed, 2);
	ck_assert_int_eq(hc_mm_release(mm, n), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(fk.nfreed, 3);
	ck_assert_uint_eq(fk.freed[2], naddr);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 14 * MIB); /* the 2, 5 and 7 MiB */
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(cleanup_releases_everything_free)
{
	hc_pool_spec s[3] = { sliced(4096, 1024, 0), exclusive(64 * KIB, 0), direct(0) };
	struct hc_slice_ref r[12];
	struct hc_mm *mm;
	int i;

	mm = mm_custom(s, 3, 32);
	for (i = 0; i < 12; i++)
		r[i] = res(mm, (uint64_t)(i + 1) * 777, NULL);
	hc_mm_mode_push_persistent(mm);
	res(mm, 5000, NULL);
	hc_mm_mode_pop(mm);
	for (i = 0; i < 12; i++)
		ck_assert_int_eq(hc_mm_release(mm, r[i]), HC_OK);
	ck_assert_uint_gt(fk.live, 1);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	/* only the live persistent slice remains */
	ck_assert_uint_eq(fk.live, 1);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 5024);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(held_binding_survives_explicit_cleanup_renumber)
{
	hc_pool_spec s = sliced(1024, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c;
	uint64_t xb, x;

	mm = mm_custom(&s, 1, 32);
	a = res(mm, 1024, NULL);
	b = res(mm, 1024, &xb);
	c = res(mm, 1024, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 1024);
	ck_assert_int_eq(hc_mm_address(mm, b, &x, NULL), HC_OK);
	ck_assert_uint_eq(x, xb);
	ck_assert_int_eq(hc_mm_address(mm, a, &x, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	hc_mm_destroy(mm);
}
END_TEST

/* A fixed workload: 40 reservations of mixed sizes, releasing every third. */
static hc_status workload(struct hc_mm *mm, struct hc_slice_ref *live, size_t *nlive)
{
	static const uint64_t sizes[] = { 300 * KIB, 700 * KIB, 64 * KIB, 1000 * KIB, 128 * KIB };
	struct hc_slice_ref held[40];
	uint64_t addr;
	size_t i, n = 0;
	hc_status st;

	for (i = 0; i < 40; i++) {
		st = hc_mm_reserve(mm, sizes[i % 5], &held[n], &addr);
		if (st != HC_OK)
			return st;
		n++;
		if (i % 3 == 2) {
			ck_assert_int_eq(hc_mm_release(mm, held[n - 2]), HC_OK);
			held[n - 2] = held[n - 1];
			n--;
		}
	}
	memcpy(live, held, n * sizeof(*held));
	*nlive = n;
	return HC_OK;
}

START_TEST(measured_plan_cycle)
{
	hc_pool_spec grow = sliced(1 * MIB, 0, 0);
	struct hc_slice_ref live[40];
	struct hc_layout *capped;
	hc_pool_spec cap;
	uint64_t peak;
	struct hc_mm *mm;
	size_t n, i;

	mm = mm_custom(&grow, 1, 256);
	ck_assert_int_eq(workload(mm, live, &n), HC_OK);
	peak = report(mm).r[0].pages_peak;
	ck_assert_uint_gt(peak, 1);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hc_mm_release(mm, live[i]), HC_OK);
	cap = sliced(1 * MIB, 0, peak * MIB);
	ck_assert_int_eq(hc_layout_custom(&cap, 1, &capped), HC_OK);
	ck_assert_int_eq(hc_mm_install(mm, capped), HC_OK);
	hc_layout_free(capped);
	ck_assert_uint_eq(report(mm).r[0].pages_peak, 0);
	ck_assert_int_eq(workload(mm, live, &n), HC_OK);
	ck_assert_uint_eq(report(mm).r[0].pages_peak, peak);
	/* one page less and the same workload no longer fits */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hc_mm_release(mm, live[i]), HC_OK);
	cap = sliced(1 * MIB, 0, (peak - 1) * MIB);
	ck_assert_int_eq(hc_layout_custom(&cap, 1, &capped), HC_OK);
	ck_assert_int_eq(hc_mm_install(mm, capped), HC_OK);
	hc_layout_free(capped);
	ck_assert_int_eq(workload(mm, live, &n), HC_ERR_CAPACITY);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(install_refuses_while_in_use)
{
	hc_pool_spec s = sliced(4096, 0, 0), t = sliced(8192, 0, 0);
	struct hc_layout *l;
	struct hc_slice_ref r, p;
	struct hc_mm *mm;

	mm = mm_custom(&s, 1, 32);
	ck_assert_int_eq(hc_layout_custom(&t, 1, &l), HC_OK);
	r = res(mm, 100, NULL);
	hc_mm_mode_push_persistent(mm);
	p = res(mm, 100, NULL);
	hc_mm_mode_pop(mm);
	ck_assert_int_eq(hc_mm_install(mm, l), HC_ERR_IN_USE);
	expect_msg("100 B in 1 live");
	ck_assert_uint_eq(report(mm).r[0].spec.page_size, 4096);
	ck_assert_int_eq(hc_mm_release(mm, r), HC_OK);
	ck_assert_int_eq(hc_mm_install(mm, l), HC_OK); /* persistent live slice is fine */
	ck_assert_uint_eq(report(mm).r[0].spec.page_size, 8192);
	ck_assert_int_eq(hc_mm_address(mm, p, NULL, NULL), HC_OK);
	ck_assert_uint_eq(fk.live, 1);
	hc_layout_free(l);
	hc_mm_destroy(mm);
}
END_TEST

/* hc_mm_usage is a running total the pools keep (hc_pool.total): it equals
 * the sum of the pools' own figures (hc_mm_report) through reservations and
 * releases in every pool kind, persistent mode, cleanup and a rebuild. */
static void expect_total(struct hc_mm *mm)
{
	struct reports rs = report(mm);
	hc_memory_usage u = usage(mm), sum = { 0, 0, 0, 0 };

	for (size_t i = 0; i < rs.n; i++) {
		sum.number_allocs += rs.r[i].usage.number_allocs;
		sum.bytes_in_use += rs.r[i].usage.bytes_in_use;
		sum.bytes_padding += rs.r[i].usage.bytes_padding;
		sum.bytes_reserved += rs.r[i].usage.bytes_reserved;
	}
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(u.number_allocs, sum.number_allocs);
	ck_assert_uint_eq(u.bytes_in_use, sum.bytes_in_use);
	ck_assert_uint_eq(u.bytes_padding, sum.bytes_padding);
	ck_assert_uint_eq(u.bytes_reserved, sum.bytes_reserved);
}

START_TEST(usage_total_follows_pools)
{
	hc_pool_spec specs[3] = { sliced(64 * KIB, 16 * KIB, 0), exclusive(256 * KIB, 4), direct(0) };
	hc_pool_spec t = sliced(128 * KIB, 0, 0);
	static const uint64_t sizes[] = { 100, 5000, 20000, 70000, 300000, 3 * MIB };
	struct hc_slice_ref r[48], p;
	struct hc_layout *l;
	struct hc_mm *mm;
	size_t i;

	mm = mm_custom(specs, 3, 256);
	expect_total(mm);
	for (i = 0; i < 48; i++) {
		r[i] = res(mm, sizes[i % 6] + i, NULL);
		if (i % 7 == 3)
			expect_total(mm);
	}
	hc_mm_mode_push_persistent(mm);
	p = res(mm, 12345, NULL);
	hc_mm_mode_pop(mm);
	expect_total(mm);
	for (i = 0; i < 48; i += 2)
		ck_assert_int_eq(hc_mm_release(mm, r[i]), HC_OK);
	expect_total(mm);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	expect_total(mm);
	for (i = 1; i < 48; i += 2)
		ck_assert_int_eq(hc_mm_release(mm, r[i]), HC_OK);
	expect_total(mm);
	ck_assert_int_eq(hc_layout_custom(&t, 1, &l), HC_OK);
	ck_assert_int_eq(hc_mm_install(mm, l), HC_OK); /* the persistent slice stays */
	hc_layout_free(l);
	expect_total(mm);
	ck_assert_uint_eq(usage(mm).number_allocs, 1);
	r[0] = res(mm, 1000, NULL);
	expect_total(mm);
	ck_assert_int_eq(hc_mm_release(mm, r[0]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, p), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	expect_total(mm);
	hc_mm_destroy(mm);
}
END_TEST


/* ---- modes ------------------------------------------------------------------- */

START_TEST(persistent_windows_nest)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_mm *mm;
	struct reports rs;

	mm = mm_custom(&s, 1, 32);
	hc_mm_mode_push_persistent(mm);
	hc_mm_mode_push_persistent(mm);
	hc_mm_mode_pop(mm);
	ck_assert(hc_mm_persistent(mm));
	res(mm, 100, NULL);
	{
		struct hc_mm_decision d;

		hc_mm_last_decision(mm, &d);
		ck_assert_uint_eq(d.pool, 1);
		ck_assert(d.new_page);
	}
	hc_mm_mode_pop(mm);
	ck_assert(!hc_mm_persistent(mm));
	hc_mm_mode_pop(mm); /* saturates */
	res(mm, 100, NULL);
	hc_mm_mode_push_persistent(mm);
	ck_assert(hc_mm_persistent(mm));
	hc_mm_mode_pop(mm);
	rs = report(mm);
	ck_assert_uint_eq(rs.n, 2);
	ck_assert_int_eq(rs.r[1].kind, HC_POOL_PERSISTENT);
	ck_assert_uint_eq(rs.r[1].index, 1);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 1);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(persistent_exact_size_reuse_and_no_limit)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b;
	uint64_t xa, x;

	mm = mm_custom(&s, 1, 32);
	hc_mm_mode_push_persistent(mm);
	a = res(mm, 100, &xa);
	b = res(mm, 2 * GIB, NULL); /* above max_page_size: allowed in persistent mode */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	res(mm, 200, &x);            /* effective 224 != 128: new slice */
	ck_assert_uint_ne(x, xa);
	res(mm, 97, &x);             /* effective 128: reuse */
	ck_assert_uint_eq(x, xa);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	hc_mm_mode_pop(mm);
	hc_mm_destroy(mm);
}
END_TEST

Suite *pools_lifecycle_suite(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *tc;

	tc = tcase_create("lifecycle");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_add_test(tc, cleanup_releases_everything_free);
	tcase_add_test(tc, cleanup_frees_empty_pages_oldest_first);
	tcase_add_test(tc, split_reclaims_free_segments_oldest_first);
	tcase_add_test(tc, held_binding_survives_explicit_cleanup_renumber);
	tcase_add_test(tc, measured_plan_cycle);
	tcase_add_test(tc, install_refuses_while_in_use);
	tcase_add_test(tc, usage_total_follows_pools);
	tcase_add_test(tc, persistent_windows_nest);
	tcase_add_test(tc, persistent_exact_size_reuse_and_no_limit);
	suite_add_tcase(s, tc);
	return s;
}
