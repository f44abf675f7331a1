/*
 * kinds.c - each pool kind's own rules on the fake storage: a capped sliced
 * pool errors or spills instead of growing, the direct pool pads only to the
 * alignment and reclaims at its ceiling, the exclusive pool sizes by running
 * average and deallocates periodically.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- caps ----------------------------------------------------------------- */

START_TEST(capped_pool_errors_instead_of_growing)
{
	hc_pool_spec s = sliced(1024, 0, 2048);
	struct hc_mm *mm;
	struct hc_slice_ref r, a;
	uint64_t addr, x;

	mm = mm_custom(&s, 1, 32);
	a = res(mm, 1024, &x);
	res(mm, 1024, NULL);
	ck_assert_int_eq(hc_mm_reserve(mm, 1024, &r, &addr), HC_ERR_CAPACITY);
	expect_msg("capacity 2048");
	ck_assert_uint_eq(fk.allocs, 2);
	/* ... and reuses freed memory */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	res(mm, 1024, &addr);
	ck_assert_uint_eq(addr, x);
	ck_assert_uint_eq(fk.allocs, 2);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(capacity_spills_to_later_accepting_pool)
{
	hc_pool_spec s[3] = { sliced(1024, 0, 2048), exclusive(512, 0), sliced(4096, 0, 0) };
	struct hc_mm *mm;
	struct reports rs;

	mm = mm_custom(s, 3, 32);
	res(mm, 1000, NULL);
	res(mm, 1000, NULL);
	res(mm, 1000, NULL); /* pool 0 full; pool 1 does not accept; pool 2 does */
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 2);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 0);
	ck_assert_uint_eq(rs.r[2].usage.number_allocs, 1);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(capped_pool_never_takes_strays)
{
	hc_pool_spec s[2] = { sliced(1024, 256, 4096), sliced(1024, 0, 0) };
	struct hc_mm *mm;
	struct reports rs;

	mm = mm_custom(s, 2, 32);
	res(mm, 900, NULL);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 0);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 1);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(cap_below_page_shrinks_page)
{
	hc_pool_spec s = sliced(4096, 0, 1000);
	struct hc_mm *mm;
	struct hc_slice_ref r;
	struct reports rs;
	uint64_t addr;

	mm = mm_custom(&s, 1, 256);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].spec.page_size, 768);
	ck_assert_uint_eq(rs.r[0].spec.max_slice_size, 768);
	res(mm, 512, NULL);
	ck_assert_uint_eq(fk.live_bytes, 768);
	ck_assert_int_eq(hc_mm_reserve(mm, 512, &r, &addr), HC_ERR_CAPACITY);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 768);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(cap_below_alignment_never_overshoots)
{
	hc_pool_spec s = sliced(4096, 0, 100);
	struct hc_mm *mm;
	struct hc_slice_ref r;
	uint64_t addr;

	mm = mm_custom(&s, 1, 256);
	ck_assert_int_eq(hc_mm_reserve(mm, 1, &r, &addr), HC_ERR_CAPACITY);
	ck_assert_int_eq(hc_mm_reserve(mm, 64, &r, &addr), HC_ERR_CAPACITY);
	ck_assert_uint_eq(fk.allocs, 0);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 0);
	hc_mm_destroy(mm);
}
END_TEST

/* ---- direct pool ------------------------------------------------------------ */

START_TEST(direct_pads_only_to_alignment)
{
	hc_pool_spec s = direct(0);
	struct hc_mm *mm;

	mm = mm_custom(&s, 1, 256);
	res(mm, 1000, NULL);
	ck_assert_uint_eq(fk.live_bytes, 1024);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 1024);
	ck_assert_uint_eq(usage(mm).bytes_padding, 24);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(direct_reuses_below_ceiling)
{
	hc_pool_spec s = direct(7 * MIB);
	struct hc_mm *mm;
	int i;

	mm = mm_custom(&s, 1, 256);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(hc_mm_release(mm, res(mm, 1 * MIB, NULL)), HC_OK);
	ck_assert_uint_eq(report(mm).r[0].pages_peak, 1);
	ck_assert_uint_eq(fk.allocs, 1);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(direct_reclaims_at_ceiling)
{
	hc_pool_spec s = direct(7 * MIB);
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c, d;

	mm = mm_custom(&s, 1, 256);
	a = res(mm, 1 * MIB, NULL);
	b = res(mm, 2 * MIB, NULL);
	c = res(mm, 3 * MIB, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	d = res(mm, 4 * MIB, NULL);
	ck_assert_uint_eq(fk.frees, 2); /* the 1 and 2 MiB slices only */
	ck_assert_uint_eq(usage(mm).bytes_reserved, 7 * MIB);
	ck_assert_uint_eq(fk.live_bytes, 7 * MIB);
	/* cleanup releases everything free */
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, false), HC_OK);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 7 * MIB);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 0);
	ck_assert_uint_eq(fk.live, 0);
	hc_mm_destroy(mm);
}
END_TEST

/* ---- exclusive pool --------------------------------------------------------- */

START_TEST(exclusive_running_average_sizing)
{
	hc_pool_spec s = exclusive(512, 0);
	struct hc_mm *mm;
	hc_memory_usage u;

	mm = mm_custom(&s, 1, 32);
	res(mm, 100, NULL); /* average 256*0.99 + 1 = 254.44: page 256 */
	u = usage(mm);
	ck_assert_uint_eq(u.bytes_reserved, 256);
	ck_assert_uint_eq(u.bytes_in_use, 100);
	ck_assert_uint_eq(u.bytes_padding, 28);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(exclusive_periodic_dealloc)
{
	/* period 10: a check every 2 reservations; new pages start at count 4 */
	hc_pool_spec s = exclusive(4096, 10);
	struct hc_mm *mm;
	struct hc_slice_ref a;

	mm = mm_custom(&s, 1, 32);
	a = res(mm, 4096, NULL);            /* reservation 1: page P */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	a = res(mm, 4096, NULL);            /* 2: check frees P (4 -> 5), new page */
	ck_assert_uint_eq(fk.frees, 1);
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	a = res(mm, 4096, NULL);            /* 3: no check, reuse: count 3 */
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	res(mm, 8, NULL) ;                  /* 4: check: count 4, kept; reuse again */
	ck_assert_uint_eq(fk.frees, 1);
	ck_assert_uint_eq(fk.allocs, 2);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(exclusive_prefers_lowest_free_count)
{
	hc_pool_spec s = exclusive(4096, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b;
	uint64_t pa, pb, x;

	mm = mm_custom(&s, 1, 32);
	a = res(mm, 4096, &pa);
	b = res(mm, 4096, &pb);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	b = res(mm, 4096, &x); /* only b free: reused, count 3 */
	ck_assert_uint_eq(x, pb);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	res(mm, 4096, &x);     /* a has 4, b has 3: b wins although a is first */
	ck_assert_uint_eq(x, pb);
	res(mm, 4096, &x);
	ck_assert_uint_eq(x, pa);
	hc_mm_destroy(mm);
}
END_TEST

Suite *pools_kinds_suite(void)
{
	Suite *s = suite_create("kinds");
	TCase *tc;

	tc = tcase_create("caps");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_add_test(tc, capped_pool_errors_instead_of_growing);
	tcase_add_test(tc, capacity_spills_to_later_accepting_pool);
	tcase_add_test(tc, capped_pool_never_takes_strays);
	tcase_add_test(tc, cap_below_page_shrinks_page);
	tcase_add_test(tc, cap_below_alignment_never_overshoots);
	suite_add_tcase(s, tc);

	tc = tcase_create("direct_exclusive");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_add_test(tc, direct_pads_only_to_alignment);
	tcase_add_test(tc, direct_reuses_below_ceiling);
	tcase_add_test(tc, direct_reclaims_at_ceiling);
	tcase_add_test(tc, exclusive_running_average_sizing);
	tcase_add_test(tc, exclusive_periodic_dealloc);
	tcase_add_test(tc, exclusive_prefers_lowest_free_count);
	suite_add_tcase(s, tc);
	return s;
}
