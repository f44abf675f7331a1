/*
 * placement.c - where the manager places slices on the fake storage: exact
 * addresses (page base + offset), alignment padding, coalescing, the near-
 * page rule, and fragmentation under churn.  The scenarios and their
 * numbers are upstream CubeCL's memory management tests.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- placement ---------------------------------------------------------- */

/* 4+15+8+4 MiB in a 32 MiB page; drop 15, 9 splits it into 9+6; another 9
 * fits only once the 8 MiB neighbour is free and merges with the 6. */
START_TEST(scenario_32mib_page)
{
	hc_pool_spec s = sliced(32 * MIB, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c, d, e, f;
	uint64_t base, x, sz;

	mm = mm_custom(&s, 1, 256);
	a = res(mm, 4 * MIB, &base);
	b = res(mm, 15 * MIB, &x);
	ck_assert_uint_eq(x, base + 4 * MIB);
	c = res(mm, 8 * MIB, &x);
	ck_assert_uint_eq(x, base + 19 * MIB);
	d = res(mm, 4 * MIB, &x);
	ck_assert_uint_eq(x, base + 27 * MIB);
	ck_assert_uint_eq(fk.allocs, 1);

	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	e = res(mm, 9 * MIB, &x);
	ck_assert_uint_eq(x, base + 4 * MIB); /* 15 -> 9 + 6 */
	/* 6 MiB and 1 MiB free: a second 9 MiB needs a new page */
	f = res(mm, 9 * MIB, &x);
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_uint_ne(x, base + 13 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, f), HC_OK);
	/* free the 8: 6 + 8 = 14 MiB at 13 MiB */
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	f = res(mm, 9 * MIB, &x);
	ck_assert_uint_eq(x, base + 13 * MIB);
	ck_assert_int_eq(hc_mm_address(mm, d, &x, &sz), HC_OK);
	ck_assert_uint_eq(x, base + 27 * MIB);
	ck_assert_uint_eq(sz, 4 * MIB);
	ck_assert_uint_eq(fk.allocs, 2);
	(void)a;
	(void)e;
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(two_chunks_on_one_page)
{
	hc_pool_spec s = sliced(2048, 0, 0);
	struct hc_mm *mm;
	uint64_t a0, a1;

	mm = mm_custom(&s, 1, 32);
	struct hc_mm_decision d;

	res(mm, 512, &a0);
	hc_mm_last_decision(mm, &d);
	ck_assert_uint_eq(d.pool, 0);
	ck_assert(d.new_page);
	res(mm, 512, &a1);
	hc_mm_last_decision(mm, &d);
	ck_assert(!d.new_page);
	ck_assert_uint_eq(a1, a0 + 512);
	ck_assert_uint_eq(fk.allocs, 1);
	ck_assert_uint_eq(report(mm).r[0].pages, 1);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(alloc_allocs_new_storage)
{
	hc_pool_spec s = sliced(1024, 0, 0);
	struct hc_mm *mm;

	mm = mm_custom(&s, 1, 32);
	res(mm, 768, NULL);
	res(mm, 768, NULL);
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 2048);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(alloc_reuses_storage)
{
	hc_pool_spec s = sliced(2048, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref r;
	uint64_t a0, a1;

	mm = mm_custom(&s, 1, 32);
	r = res(mm, 512, &a0);
	ck_assert_int_eq(hc_mm_release(mm, r), HC_OK);
	res(mm, 512, &a1);
	ck_assert_uint_eq(a0, a1);
	ck_assert_uint_eq(fk.allocs, 1);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(alignment_padding)
{
	hc_pool_spec s = sliced(1000, 0, 0);
	struct hc_mm *mm;
	hc_memory_usage u;
	uint64_t a0, a1;

	mm = mm_custom(&s, 1, 50);
	res(mm, 40, &a0);
	res(mm, 40, &a1);
	ck_assert_uint_eq(a1, a0 + 50);
	u = usage(mm);
	ck_assert_uint_eq(u.number_allocs, 2);
	ck_assert_uint_eq(u.bytes_in_use, 80);
	ck_assert_uint_eq(u.bytes_padding, 20);
	ck_assert_uint_eq(u.bytes_reserved, 1000);
	hc_mm_destroy(mm);
}
END_TEST

/* A lone freed slice offers its requested bytes, not its padding (upstream). */
START_TEST(lone_free_slice_offers_requested_size)
{
	hc_pool_spec s = sliced(1000, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a;
	uint64_t a0, x;

	mm = mm_custom(&s, 1, 50);
	a = res(mm, 40, &a0);
	res(mm, 40, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	res(mm, 40, &x);  /* effective 50 > 40 recorded: not the freed slice */
	ck_assert_uint_eq(x, a0 + 100);
	res(mm, 30, &x);  /* no: 30 + 20 padding = 50 */
	ck_assert_uint_eq(x, a0 + 150);
	hc_mm_destroy(mm);
}
END_TEST

/* Every merge shape: with the successor, with both neighbours, and a
 * padded lone slice contributing its padding once merged. */
START_TEST(coalescing_shapes)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_slice_ref r[4];
	struct hc_mm *mm;
	uint64_t base, x;
	int i;

	mm = mm_custom(&s, 1, 32);
	for (i = 0; i < 4; i++)
		r[i] = res(mm, 1024, i ? &x : &base);
	ck_assert_int_eq(hc_mm_release(mm, r[1]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[0]), HC_OK); /* merges with successor */
	ck_assert_int_eq(hc_mm_release(mm, r[3]), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, r[2]), HC_OK); /* merges with both */
	r[0] = res(mm, 4096, &x);
	ck_assert_uint_eq(x, base);
	ck_assert_uint_eq(fk.allocs, 1);
	ck_assert_int_eq(hc_mm_release(mm, r[0]), HC_OK);
	for (i = 0; i < 4; i++) {
		r[i] = res(mm, 1000, &x);   /* effective 1024 */
		ck_assert_uint_eq(x, base + (uint64_t)i * 1024);
	}
	ck_assert_int_eq(hc_mm_release(mm, r[1]), HC_OK); /* lone: offers 1000 */
	ck_assert_int_eq(hc_mm_release(mm, r[0]), HC_OK); /* 1024 + 1024 */
	r[0] = res(mm, 2048, &x);
	ck_assert_uint_eq(x, base);
	ck_assert_int_eq(hc_mm_release(mm, r[2]), HC_OK); /* lone again: r[0], r[3] live */
	r[1] = res(mm, 1024, &x);                          /* lone 1000 < 1024: new page */
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_int_eq(hc_mm_release(mm, r[3]), HC_OK); /* merges with predecessor */
	r[2] = res(mm, 2048, &x);
	ck_assert_uint_eq(x, base + 2048);
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(usage(mm).number_allocs, 3);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(near_page_rule)
{
	hc_pool_spec s[2] = { sliced(1024, 256, 0), direct(0) };
	struct hc_mm *mm;
	struct reports rs;

	mm = mm_custom(s, 2, 1);
	res(mm, 820, NULL);  /* 1024 - 820 = 204 < 204.8: a near-page stray */
	res(mm, 819, NULL);  /* 205: not near, goes to the direct pool */
	res(mm, 256, NULL);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 2);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[1].usage.bytes_in_use, 819);
	hc_mm_destroy(mm);
}
END_TEST


/* Churn with random sizes: the reservation stays within 10% of the most
 * bytes ever live (rounded up to whole pages). */
START_TEST(fragmentation_resistance)
{
	hc_pool_spec s = sliced(1 * MIB, 256 * KIB, 0);
	static const uint64_t sizes[] = { 4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB };
	static struct hc_slice_ref r[2000];
	static uint64_t sz[2000];
	uint64_t live = 0, peak, after;
	unsigned seed = 7 + (unsigned)_i;
	struct hc_mm *mm;
	int i;

	mm = mm_custom(&s, 1, 256);
	for (i = 0; i < 2000; i++) {
		sz[i] = sizes[rand_r(&seed) % 4];
		r[i] = res(mm, sz[i], NULL);
		live += sz[i];
	}
	peak = live;
	for (i = 0; i < 100000; i++) {
		int k = rand_r(&seed) % 2000;

		ck_assert_int_eq(hc_mm_release(mm, r[k]), HC_OK);
		live -= sz[k];
		sz[k] = sizes[rand_r(&seed) % 4];
		r[k] = res(mm, sz[k], NULL);
		live += sz[k];
		if (live > peak)
			peak = live;
	}
	after = usage(mm).bytes_reserved;
	ck_assert(hc_mm_valid(mm));
	peak = (peak + MIB - 1) / MIB * MIB;
	ck_assert_uint_le(after * 10, peak * 11);
	hc_mm_destroy(mm);
}
END_TEST

Suite *pools_placement_suite(void)
{
	Suite *s = suite_create("placement");
	TCase *tc;

	tc = tcase_create("placement");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	/* thousands of operations a case: seconds under ASan on a busy host */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, scenario_32mib_page);
	tcase_add_test(tc, two_chunks_on_one_page);
	tcase_add_test(tc, alloc_allocs_new_storage);
	tcase_add_test(tc, alloc_reuses_storage);
	tcase_add_test(tc, alignment_padding);
	tcase_add_test(tc, lone_free_slice_offers_requested_size);
	tcase_add_test(tc, coalescing_shapes);
	tcase_add_test(tc, near_page_rule);
	tcase_add_loop_test(tc, fragmentation_resistance, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}
