/*
 * refusals.c - what the manager refuses and how it recovers: stale and
 * pinned references, sizes of 0 and too large, bad arguments, and the
 * storage refusing at each allocation in turn (HC_ERR_OOM, nothing leaked).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- identity ------------------------------------------------------------------ */

START_TEST(stale_lookups)
{
	hc_pool_spec s = sliced(128, 0, 0);
	struct hc_mm *mm, *other;
	struct hc_slice_ref a, b, z = { NULL, 0 };
	uint64_t x;

	mm = mm_custom(&s, 1, 32);
	other = mm_custom(&s, 1, 32);
	a = res(mm, 128, NULL);  /* the whole page, no remainder */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_address(mm, a, &x, NULL), HC_ERR_STALE);  /* freed */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_ERR_STALE);            /* double */
	ck_assert_int_eq(hc_mm_pin(mm, a), HC_ERR_STALE);
	b = res(mm, 128, NULL);                                          /* reuse */
	ck_assert_ptr_eq(b.slice, a.slice);
	ck_assert_int_eq(hc_mm_address(mm, a, &x, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_address(mm, b, &x, NULL), HC_OK);
	ck_assert_int_eq(hc_mm_address(other, b, &x, NULL), HC_ERR_STALE); /* foreign */
	ck_assert_int_eq(hc_mm_address(mm, z, &x, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);                 /* page gone */
	ck_assert_int_eq(hc_mm_address(mm, b, &x, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_unpin(mm, b), HC_ERR_STALE);
	hc_mm_destroy(other);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(pins_hold_released_slices)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a;
	uint64_t xa, x;

	mm = mm_custom(&s, 1, 32);
	a = res(mm, 100, &xa);
	ck_assert_int_eq(hc_mm_unpin(mm, a), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mm_pin(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_pin(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_uint_eq(usage(mm).number_allocs, 1);
	res(mm, 100, &x);
	ck_assert_uint_ne(x, xa);
	ck_assert_int_eq(hc_mm_unpin(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_address(mm, a, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_mm_unpin(mm, a), HC_OK);  /* last holder: free now */
	ck_assert_int_eq(hc_mm_address(mm, a, NULL, NULL), HC_ERR_STALE);
	ck_assert_uint_eq(usage(mm).number_allocs, 1);
	hc_mm_destroy(mm);
}
END_TEST

/* ---- bad input --------------------------------------------------------------- */

START_TEST(size_zero_and_too_big)
{
	struct hc_mm_props p = { .max_page_size = 4 * GIB, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_SUBSLICES };
	struct hc_layout *l;
	struct hc_slice_ref r;
	struct hc_mm *mm;
	struct reports rs;
	uint64_t addr;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	hc_layout_free(l);
	ck_assert_int_eq(hc_mm_reserve(mm, 0, &r, &addr), HC_OK);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[0].usage.bytes_reserved, 0);
	ck_assert_int_eq(hc_mm_reserve(mm, 4 * GIB + 1, &r, &addr), HC_ERR_TOO_BIG);
	ck_assert_int_eq(hc_mm_reserve(mm, UINT64_MAX, &r, &addr), HC_ERR_TOO_BIG);
	ck_assert_int_eq(hc_mm_reserve(mm, 4 * GIB, &r, &addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(NULL, 1, &r, &addr), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mm_reserve(mm, 1, NULL, &addr), HC_ERR_INVALID);
	hc_mm_destroy(mm);
	hc_mm_destroy(NULL);
}
END_TEST

START_TEST(storage_refusal_is_oom_and_retry_works)
{
	hc_pool_spec s[2] = { sliced(4096, 0, 0), exclusive(64 * KIB, 0) };
	struct hc_slice_ref r, a;
	struct hc_mm *mm;
	uint64_t addr;

	mm = mm_custom(s, 2, 32);
	a = res(mm, 3000, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	res(mm, 3000, NULL);
	fk.limit = fk.live_bytes + 100;
	ck_assert_int_eq(hc_mm_reserve(mm, 3000, &r, &addr), HC_ERR_OOM);
	fk.limit = 0;
	fk.fail_in = 1;
	ck_assert_int_eq(hc_mm_reserve(mm, 50 * KIB, &r, &addr), HC_ERR_OOM);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 50 * KIB, &r, &addr), HC_OK);
	ck_assert_uint_eq(usage(mm).number_allocs, 2);
	hc_mm_destroy(mm);
}
END_TEST

/* A free the storage refuses (a backend does while another stream records)
 * used to be forgotten with its page: the pool counted the bytes gone while
 * the storage still held them, and nothing freed them again.  The block
 * stays counted reserved, and the next explicit cleanup (or destroy) frees
 * it; every kind gives its storage back through the same call. */
START_TEST(refused_storage_free_is_kept_and_retried)
{
	hc_pool_spec s[3] = { sliced(4096, 0, 0), exclusive(64 * KIB, 0), direct(0) };
	struct hc_slice_ref a, b, c;
	struct hc_mm *mm;
	uint64_t held;

	mm = mm_custom(s, 3, 32);
	a = res(mm, 3000, NULL);
	b = res(mm, 40 * KIB, NULL);
	c = res(mm, 1 * MIB, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	held = fk.live_bytes;
	ck_assert_uint_eq(usage(mm).bytes_reserved, held);
	fk.refuse_free = true;
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(fk.frees, 0);
	ck_assert_uint_eq(fk.live_bytes, held);
	ck_assert_uint_eq(usage(mm).bytes_reserved, held); /* still held, still counted */
	ck_assert(hc_mm_valid(mm));
	fk.refuse_free = false;
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(fk.live_bytes, 0);
	ck_assert_uint_eq(fk.frees, fk.allocs);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 0);
	ck_assert(hc_mm_valid(mm));
	/* refused at destroy's first try: destroy tries again once */
	a = res(mm, 3000, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	fk.refuse_free = true;
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	fk.refuse_free = false;
	hc_mm_destroy(mm); /* fake_done: everything freed */
}
END_TEST

START_TEST(bad_arguments)
{
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 32 };
	struct hc_storage nofree = { .alloc = fake_alloc, .ctx = &fk };
	hc_pool_spec s = sliced(4096, 0, 0), bad = { .kind = HC_POOL_PERSISTENT };
	struct hc_layout *l;
	struct hc_mm *mm;

	ck_assert_int_eq(hc_layout_custom(&s, 1, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &nofree, &mm), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mm_create(NULL, &p, &fake_storage, &mm), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mm_create(l, NULL, &fake_storage, &mm), HC_ERR_INVALID);
	hc_layout_free(l);
	ck_assert_int_eq(hc_layout_custom(&bad, 1, &l), HC_ERR_INVALID);
	ck_assert_int_eq(hc_layout_custom(&s, 0, &l), HC_ERR_INVALID);
	ck_assert_int_eq(hc_layout_custom(NULL, 1, &l), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mm_cleanup(NULL, true), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mm_install(NULL, NULL), HC_ERR_INVALID);
	{
		hc_memory_usage u = { 1, 2, 3, 4 };
		struct reports rs = { .n = 0 };
		struct hc_slice_ref *kept;
		size_t n;

		hc_mm_usage(NULL, &u);
		ck_assert_uint_eq(u.number_allocs + u.bytes_in_use + u.bytes_padding +
					  u.bytes_reserved, 0);
		hc_mm_report(NULL, collect, &rs);
		ck_assert_uint_eq(rs.n, 0);
		hc_mm_mode_push_persistent(NULL);
		hc_mm_mode_pop(NULL);
		hc_mm_capture_begin(NULL);
		hc_mm_capture_priming_end(NULL);
		ck_assert(!hc_mm_persistent(NULL));
		ck_assert(!hc_mm_capture_active(NULL));
		ck_assert_int_eq(hc_mm_capture_end(NULL, &kept, &n), HC_ERR_INVALID);
		ck_assert(!hc_mm_valid(NULL));
	}
}
END_TEST


/* Walks the storage fault countdown from the first allocation upward: every
 * refusal is HC_ERR_OOM, leaves the counters consistent and leaks nothing. */
START_TEST(storage_fault_walk)
{
	hc_pool_spec s[4] = { sliced(4096, 1024, 8192), sliced(16384, 0, 0),
			      exclusive(64 * KIB, 10), direct(100 * KIB) };
	static const uint64_t sizes[] = { 100, 1000, 3000, 5000, 16000, 40000, 200000, 0, 700 };
	long n;

	for (n = 1; n < 40; n++) {
		struct hc_slice_ref r[32];
		struct hc_mm *mm;
		size_t i, k = 0;
		int fails = 0;

		fake_reset();
		mm = mm_custom(s, 4, 32);
		fk.fail_in = n;
		for (i = 0; i < 27; i++) {
			uint64_t addr;
			hc_status st;

			if (i == 20)
				hc_mm_mode_push_persistent(mm);
			st = hc_mm_reserve(mm, sizes[i % 9], &r[k], &addr);
			if (st == HC_OK)
				k++;
			else {
				ck_assert_int_eq(st, HC_ERR_OOM);
				fails++;
			}
			if (i % 4 == 3 && k) {
				ck_assert_int_eq(hc_mm_release(mm, r[--k]), HC_OK);
			}
			ck_assert_uint_eq(usage(mm).bytes_reserved, fk.live_bytes);
			ck_assert_uint_eq(usage(mm).number_allocs, k);
			ck_assert(hc_mm_valid(mm));
		}
		ck_assert_int_le(fails, 1);
		hc_mm_mode_pop(mm);
		ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
		ck_assert(hc_mm_valid(mm));
		hc_mm_destroy(mm);
		fake_done();
		if (fails == 0)
			break;
	}
	ck_assert_int_lt(n, 40); /* the walk got past every allocation */
}
END_TEST

Suite *pools_refusals_suite(void)
{
	Suite *s = suite_create("refusals");
	TCase *tc;

	tc = tcase_create("lifecycle");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_add_test(tc, stale_lookups);
	tcase_add_test(tc, pins_hold_released_slices);
	tcase_add_test(tc, size_zero_and_too_big);
	tcase_add_test(tc, storage_refusal_is_oom_and_retry_works);
	tcase_add_test(tc, refused_storage_free_is_kept_and_retried);
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifecycle");
	/* a fresh fake storage for each step of the walk: no fixture */
	tcase_add_test(tc, storage_fault_walk);
	suite_add_tcase(s, tc);
	return s;
}
