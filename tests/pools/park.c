/*
 * park.c - parked frees: a temporary released and reserved again takes the
 * same slice back, only exact fits park, parking can be turned off, and a
 * parking manager agrees with a non-parking twin step for step.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- parked frees --------------------------------------------------------------- */

/* A temporary: released before anything else, then the same size again.
 * The release is parked (usage drops at once, the reference is stale) and
 * the reservation takes the same slice back under a new id. */
START_TEST(park_same_size_reuses)
{
	hc_pool_spec s = sliced(64 * KIB, 0, 0);
	struct hc_slice_ref keep, a, b;
	struct hc_mm *mm;
	struct hc_mm_decision d;
	uint64_t xa, x;

	mm = mm_custom(&s, 1, 256);
	keep = res(mm, 1000, NULL);
	a = res(mm, 1000, &xa);                    /* split from the page's run */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(hc_mm_parked(mm));
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(usage(mm).number_allocs, 1);
	ck_assert_uint_eq(usage(mm).bytes_in_use, 1000);
	ck_assert_int_eq(hc_mm_address(mm, a, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_ERR_STALE);
	ck_assert(hc_mm_parked(mm));               /* a failed release changes nothing */
	b = res(mm, 1000, &x);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(x, xa);
	ck_assert_ptr_eq(b.slice, a.slice);
	ck_assert_uint_gt(b.id, a.id);
	ck_assert_int_eq(hc_mm_address(mm, a, NULL, NULL), HC_ERR_STALE);
	hc_mm_last_decision(mm, &d);
	ck_assert_uint_eq(d.pool, 0);
	ck_assert(!d.new_page);
	ck_assert_uint_eq(usage(mm).number_allocs, 2);
	ck_assert_uint_eq(usage(mm).bytes_padding, 2 * 24);
	/* a different size completes the parked free first: 2000 fits where b was */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(hc_mm_parked(mm));
	b = res(mm, 2000, &x);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(x, xa);
	ck_assert(hc_mm_valid(mm));
	/* a release of another slice is not parked */
	a = res(mm, 100, NULL);
	ck_assert_int_eq(hc_mm_release(mm, keep), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	b = res(mm, 3000, NULL);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(hc_mm_parked(mm));
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK); /* flushes: the page is empty */
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(fk.live, 0);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 0);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(mm);
}
END_TEST

/* Not parked: an exact fit that keeps padding (its lone free run would offer
 * only the requested bytes), a pinned slice, size 0, a new page, a spill
 * past a full capped pool, persistent mode, exclusive and direct pools. */
START_TEST(park_only_when_exact)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	hc_pool_spec sp[2] = { sliced(4096, 4096, 4096), sliced(8192, 0, 0) };
	hc_pool_spec o[2] = { exclusive(1 * MIB, 0), direct(0) };
	struct hc_slice_ref a, b;
	struct hc_mm *mm;
	int i;

	mm = mm_custom(&s, 1, 256);
	b = res(mm, 1024, NULL);                    /* new page: not a hit */
	a = res(mm, 3072, NULL);                    /* the exact rest, padding 0 */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(hc_mm_parked(mm));
	a = res(mm, 3072, NULL);                    /* taken back */
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(report(mm).r[0].pages, 1);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	b = a;
	a = res(mm, 1000, NULL);                    /* the lone 1024 run, padding 24 */
	ck_assert_uint_eq(report(mm).r[0].pages, 1);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	a = res(mm, 1000, NULL);                    /* that run now offers only 1000 */
	ck_assert_uint_eq(report(mm).r[0].pages, 2);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));               /* a new page's slice */
	a = res(mm, 512, NULL);
	ck_assert_int_eq(hc_mm_pin(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_int_eq(hc_mm_unpin(mm, a), HC_OK);
	a = res(mm, 0, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	hc_mm_mode_push_persistent(mm);
	a = res(mm, 512, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	hc_mm_mode_pop(mm);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(mm);

	mm = mm_custom(sp, 2, 256);
	a = res(mm, 4096, NULL);                    /* fills the capped pool */
	b = res(mm, 100, NULL);                     /* spills: new page in pool 1 */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	b = res(mm, 100, NULL);                     /* a hit of pool 1, after a spill */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	hc_mm_destroy(mm);

	for (i = 0; i < 2; i++) {
		mm = mm_custom(&o[i], 1, 256);
		a = res(mm, 5000, NULL);
		ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
		a = res(mm, 5000, NULL);            /* a hit */
		ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
		ck_assert(!hc_mm_parked(mm));
		hc_mm_destroy(mm);
	}
}
END_TEST

/* HIPCORE_MM_PARK=0 at creation and hc_mm_set_park turn parking off. */
START_TEST(park_switch)
{
	hc_pool_spec s = sliced(64 * KIB, 0, 0);
	struct hc_slice_ref k, a;
	struct hc_mm *mm;

	ck_assert_int_eq(setenv("HIPCORE_MM_PARK", "0", 1), 0);
	mm = mm_custom(&s, 1, 256);
	ck_assert_int_eq(unsetenv("HIPCORE_MM_PARK"), 0);
	k = res(mm, 100, NULL);
	a = res(mm, 100, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	hc_mm_set_park(mm, true);
	a = res(mm, 100, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(hc_mm_parked(mm));
	hc_mm_set_park(mm, false);                  /* completes the parked free */
	ck_assert(!hc_mm_parked(mm));
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, k), HC_OK);
	hc_mm_destroy(mm);
}
END_TEST


START_TEST(park_matches_unparked)
{
	hc_pool_spec s[5] = { exclusive(0, 0), sliced(64 * KIB, 16 * KIB, 128 * KIB),
			      sliced(256 * KIB, 64 * KIB, 0), exclusive(1 * MIB, 50), direct(4 * MIB) };
	const hc_pool_spec *specs = (_i & 1) ? s + 1 : s;
	size_t nspecs = (_i & 1) ? 4 : 5, n = 0, i;
	struct twin *v = calloc(2000, sizeof(*v));
	struct hc_layout *l;
	struct hc_mm *ma, *mb;
	uint64_t last_size = 1000, reuses = 0;
	unsigned seed = 77 + (unsigned)_i * 104729;
	int op;

	fake_reset();
	free(fk2.a);
	memset(&fk2, 0, sizeof(fk2));
	fk2.next = 0x10000000;
	ck_assert_int_eq(hc_layout_custom(specs, nspecs, &l), HC_OK);
	{
		struct hc_mm_props p = { .max_page_size = 1 * GIB, .alignment = 256 };

		ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &ma), HC_OK);
		ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage2, &mb), HC_OK);
	}
	hc_mm_set_park(ma, true);
	hc_mm_set_park(mb, false);
	for (op = 0; op < 8000; op++) {
		int r = rand_r(&seed) % 1000;

		if (r < 300) {
			/* a temporary: reserve, then release at once */
			struct hc_slice_ref ta, tb;
			uint64_t size = rand_r(&seed) % 4 ? last_size : (uint64_t)(rand_r(&seed) % (64 * KIB));
			uint64_t xa = 0, xb = 0;
			bool was_parked = hc_mm_parked(ma);
			hc_status sa = hc_mm_reserve(ma, size, &ta, &xa);

			ck_assert_int_eq(sa, hc_mm_reserve(mb, size, &tb, &xb));
			if (sa == HC_OK) {
				ck_assert_uint_eq(xa, xb);
				ck_assert_uint_eq(ta.id, tb.id);
				reuses += was_parked && size == last_size;
				twins_same(ma, mb);
				ck_assert_int_eq(hc_mm_release(ma, ta), HC_OK);
				ck_assert_int_eq(hc_mm_release(mb, tb), HC_OK);
				last_size = size;
			}
		} else if (r < 600 && n < 2000) {
			uint64_t size;
			int k = rand_r(&seed) % 10;
			bool was_parked = hc_mm_parked(ma);

			size = k < 5 ? last_size :
			       k < 8 ? (uint64_t)(rand_r(&seed) % (16 * KIB)) :
			       k < 9 ? (uint64_t)(rand_r(&seed) % (300 * KIB)) :
				       (uint64_t)(rand_r(&seed) % (3 * MIB));
			if (twin_reserve(ma, mb, &v[n], size, rand_r(&seed) % 300 == 0)) {
				reuses += was_parked && size == last_size;
				n++;
			}
		} else if (r < 850 && n) {
			size_t k = rand_r(&seed) % 3 ? n - 1 : (size_t)rand_r(&seed) % n;

			if (twin_touch(ma, mb, &v[k], &seed, 12))
				last_size = v[k].size;
			if (v[k].released && v[k].pins == 0) {
				struct hc_slice_ref ga = v[k].a, gb = v[k].b;

				v[k] = v[--n];
				/* stale, unless a capture's priming still holds it */
				ck_assert_int_eq(hc_mm_address(ma, ga, NULL, NULL),
						 hc_mm_address(mb, gb, NULL, NULL));
				ck_assert_int_eq(hc_mm_release(ma, ga), HC_ERR_STALE);
				ck_assert_int_eq(hc_mm_release(mb, gb), HC_ERR_STALE);
			}
		} else if (r < 900) {
			ck_assert_int_eq(hc_mm_cleanup(ma, r < 880), HC_OK);
			ck_assert_int_eq(hc_mm_cleanup(mb, r < 880), HC_OK);
		} else if (r < 905) {
			ck_assert_int_eq(hc_mm_install(ma, l), hc_mm_install(mb, l));
		} else if (r < 935) {
			if (r < 912) {
				hc_mm_mode_push_persistent(ma);
				hc_mm_mode_push_persistent(mb);
			} else {
				hc_mm_mode_pop(ma);
				hc_mm_mode_pop(mb);
			}
		} else if (r < 965) {
			if (!hc_mm_capture_active(ma)) {
				if (r >= 940)
					continue;
				hc_mm_capture_begin(ma);
				hc_mm_capture_begin(mb);
			} else if (r < 950) {
				hc_mm_capture_priming_end(ma);
				hc_mm_capture_priming_end(mb);
			} else {
				twins_capture_end(ma, mb);
			}
		} else if (r < 985) {
			ck_assert(hc_mm_valid(ma));
			ck_assert(hc_mm_valid(mb));
		}
		twins_same(ma, mb);
		for (i = 0; i < n; i++) {
			uint64_t xa, xb, za, zb;

			if (op % 64 || v[i].released)
				continue;
			ck_assert_int_eq(hc_mm_address(ma, v[i].a, &xa, &za), HC_OK);
			ck_assert_int_eq(hc_mm_address(mb, v[i].b, &xb, &zb), HC_OK);
			ck_assert_uint_eq(xa, xb);
			ck_assert_uint_eq(za, zb);
		}
		if (op % 64 == 0) {
			ck_assert(hc_mm_valid(ma));
			ck_assert(hc_mm_valid(mb));
		}
	}
	ck_assert_uint_gt(reuses, 200); /* the park path was taken, often */
	if (hc_mm_capture_active(ma))
		twins_capture_end(ma, mb);
	hc_layout_free(l);
	hc_mm_destroy(ma);
	hc_mm_destroy(mb);
	free(v);
	free(fk2.a);
	memset(&fk2, 0, sizeof(fk2));
	free(fk.a);
	memset(&fk, 0, sizeof(fk));
}
END_TEST

Suite *pools_park_suite(void)
{
	Suite *s = suite_create("park");
	TCase *tc;

	tc = tcase_create("park");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, park_same_size_reuses);
	tcase_add_test(tc, park_only_when_exact);
	tcase_add_test(tc, park_switch);
	suite_add_tcase(s, tc);

	tc = tcase_create("park");
	/* two storages, the twin's reset in the case: no fixture */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, park_matches_unparked, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
