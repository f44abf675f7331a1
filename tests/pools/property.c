/*
 * property.c - random reserve/release/pin/cleanup/install sequences with
 * fixed seeds, the invariants checked after every step (pools_suites.h's
 * check_invariants).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- property test ------------------------------------------------------------------- */


START_TEST(random_sequences)
{
	hc_pool_spec s[5] = { exclusive(0, 0), sliced(64 * KIB, 16 * KIB, 128 * KIB),
			      sliced(256 * KIB, 64 * KIB, 0), exclusive(1 * MIB, 50), direct(4 * MIB) };
	struct live_ent *v = calloc(4000, sizeof(*v));
	struct reports rs;
	unsigned seed = 1234 + (unsigned)_i * 7919;
	struct hc_layout *l;
	struct hc_mm *mm;
	size_t n = 0;
	int op;

	/* odd runs drop the size-0 pool, so size 0 lands in a sliced pool */
	const hc_pool_spec *specs = (_i & 1) ? s + 1 : s;
	size_t nspecs = (_i & 1) ? 4 : 5, first_capped = (_i & 1) ? 0 : 1;

	mm = mm_custom(specs, nspecs, 256);
	ck_assert_int_eq(hc_layout_custom(specs, nspecs, &l), HC_OK);
	for (op = 0; op < 6000; op++) {
		int r = rand_r(&seed) % 100;

		if (r < 50 && n < 4000) {
			uint64_t size;
			int k = rand_r(&seed) % 10;

			size = k == 0 && rand_r(&seed) % 4 == 0 ? 0 :
			       k < 6 ? (uint64_t)(rand_r(&seed) % (16 * KIB)) :
			       k < 9 ? (uint64_t)(rand_r(&seed) % (300 * KIB)) :
				       (uint64_t)(rand_r(&seed) % (3 * MIB));
			if (rand_r(&seed) % 50 == 0)
				hc_mm_mode_push_persistent(mm);
			if (rand_r(&seed) % 200 == 0)
				fk.fail_in = 1;
			memset(&v[n], 0, sizeof(v[n]));
			if (hc_mm_reserve(mm, size, &v[n].r, &v[n].addr) == HC_OK) {
				v[n].size = size;
				n++;
			}
			fk.fail_in = 0;
			if (hc_mm_persistent(mm) && rand_r(&seed) % 3 == 0)
				hc_mm_mode_pop(mm);
		} else if (r < 85 && n) {
			size_t k = (size_t)rand_r(&seed) % n;

			if (!v[k].released && v[k].pins == 0 && rand_r(&seed) % 8 == 0) {
				ck_assert_int_eq(hc_mm_pin(mm, v[k].r), HC_OK);
				v[k].pins++;
			} else if (!v[k].released) {
				ck_assert_int_eq(hc_mm_release(mm, v[k].r), HC_OK);
				ck_assert_int_eq(hc_mm_release(mm, v[k].r),
						 v[k].pins ? HC_ERR_STALE : HC_ERR_STALE);
				v[k].released = true;
			} else {
				ck_assert_int_eq(hc_mm_unpin(mm, v[k].r), HC_OK);
				v[k].pins--;
			}
			if (v[k].released && v[k].pins == 0) {
				struct hc_slice_ref gone = v[k].r;

				v[k] = v[--n];
				ck_assert_int_eq(hc_mm_address(mm, gone, NULL, NULL), HC_ERR_STALE);
			}
		} else if (r < 95) {
			ck_assert_int_eq(hc_mm_cleanup(mm, r < 90), HC_OK);
		} else if (r < 97) {
			hc_status st = hc_mm_install(mm, l);

			ck_assert(st == HC_OK || st == HC_ERR_IN_USE);
		}
		if (op % 50 == 0)
			check_invariants(mm, v, n);
	}
	check_invariants(mm, v, n);
	/* the capped pool reached its cap (2 pages), so small requests spilled */
	rs = report(mm);
	ck_assert_uint_eq(rs.r[first_capped].pages_peak, 2);
	ck_assert_uint_gt(rs.r[first_capped + 1].usage.number_allocs, 0);
	ck_assert_uint_gt(fk.frees, 0);
	hc_layout_free(l);
	hc_mm_destroy(mm);
	free(v);
}
END_TEST

Suite *pools_property_suite(void)
{
	Suite *s = suite_create("property");
	TCase *tc;

	tc = tcase_create("property");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, random_sequences, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}
