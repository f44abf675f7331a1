/*
 * capture.c - the manager during a graph capture: slices touched while
 * capturing are retained, windows are restored, installs are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- capture ---------------------------------------------------------------------- */

START_TEST(capture_retains_touched_slices)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_slice_ref pre, a, b, c, *kept;
	struct hc_mm *mm;
	uint64_t xa, x, frees;
	size_t n, i;

	mm = mm_custom(&s, 1, 32);
	hc_mm_mode_push_persistent(mm);
	pre = res(mm, 64, NULL);                   /* pre-existing, untouched */
	hc_mm_mode_pop(mm);

	hc_mm_capture_begin(mm);
	hc_mm_capture_begin(mm);                   /* re-entrant */
	ck_assert(hc_mm_capture_active(mm));
	ck_assert(hc_mm_persistent(mm));
	hc_mm_mode_pop(mm);                        /* recorded, no effect now */
	ck_assert(hc_mm_persistent(mm));
	a = res(mm, 100, &xa);                     /* warm-up */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_uint_eq(usage(mm).number_allocs, 2); /* primed: still held */
	b = res(mm, 100, &x);
	ck_assert_uint_ne(x, xa);                  /* priming keeps a out of reuse */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	frees = fk.frees;
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK); /* no-op while capturing */
	ck_assert_uint_eq(fk.frees, frees);
	hc_mm_capture_priming_end(mm);
	ck_assert_uint_eq(usage(mm).number_allocs, 1);
	a = res(mm, 100, &x);                      /* recording: reuses a's slice */
	ck_assert_uint_eq(x, xa);
	c = res(mm, 300, NULL);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert_int_eq(hc_mm_capture_end(mm, &kept, &n), HC_OK);
	ck_assert(hc_mm_valid(mm));
	ck_assert(!hc_mm_capture_active(mm));
	ck_assert(!hc_mm_persistent(mm));
	ck_assert_int_eq(hc_mm_capture_end(mm, &kept, &n), HC_ERR_STATE);
	/* touched: a's slice, b's slice, c's slice; not pre */
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(usage(mm).number_allocs, 1 + 3);
	for (i = 0; i < n; i++)
		ck_assert_ptr_ne(kept[i].slice, pre.slice);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK); /* retained survive */
	ck_assert_uint_eq(fk.live, 4);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hc_mm_unpin(mm, kept[i]), HC_OK);
	free(kept);
	ck_assert_uint_eq(usage(mm).number_allocs, 1);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(fk.live, 1);
	ck_assert_int_eq(hc_mm_release(mm, pre), HC_OK);
	hc_mm_destroy(mm);
}
END_TEST

START_TEST(capture_restores_windows_and_refuses_install)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_slice_ref *kept;
	struct hc_layout *l;
	struct hc_mm *mm;
	size_t n;

	mm = mm_custom(&s, 1, 32);
	ck_assert_int_eq(hc_layout_custom(&s, 1, &l), HC_OK);
	hc_mm_capture_begin(mm);
	hc_mm_mode_push_persistent(mm);
	ck_assert_int_eq(hc_mm_install(mm, l), HC_ERR_STATE);
	ck_assert_int_eq(hc_mm_capture_end(mm, &kept, &n), HC_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(kept);
	ck_assert(hc_mm_persistent(mm)); /* the window opened during capture */
	hc_mm_mode_pop(mm);
	ck_assert(!hc_mm_persistent(mm));
	ck_assert_int_eq(hc_mm_install(mm, l), HC_OK);
	hc_layout_free(l);
	hc_mm_destroy(mm);
}
END_TEST

Suite *pools_capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc;

	tc = tcase_create("capture");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_add_test(tc, capture_retains_touched_slices);
	tcase_add_test(tc, capture_restores_windows_and_refuses_install);
	suite_add_tcase(s, tc);
	return s;
}
