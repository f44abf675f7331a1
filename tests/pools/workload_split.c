/*
 * workload_split.c - the Workload layout's large split pool on the fake
 * storage: best fit and coalescing, segments larger than asked, the
 * watermark, several managers on the shared figures, and random sequences
 * checked after every step.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* A segment may come larger than asked (the device's idle cache, best
 * fit) only with several managers, at most twice the request; the rest is
 * a free block.  A storage that breaks the bound is refused. */
START_TEST(workload_split_fit_storage)
{
	struct hc_mm_shared sh;
	struct hc_mm *mm, *other;
	struct hc_slice_ref a, b, c;
	uint64_t a_addr, x;

	memset(&sh, 0, sizeof(sh));
	fk.fit_extra = 3 * MIB;
	mm = mm_workload_on(&sh, &fake_fit_storage);
	a = res(mm, 5 * MIB, &a_addr);             /* one manager: exact */
	ck_assert_uint_eq(fk.live_bytes, 5 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	other = mm_workload_on(&sh, &fake_fit_storage);
	a = res(mm, 5 * MIB, &a_addr);             /* two: 8 MiB, 3 MiB free */
	ck_assert_uint_eq(fk.live_bytes, 8 * MIB);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 8 * MIB);
	ck_assert_uint_eq(atomic_load(&sh.reserved), 8 * MIB);
	ck_assert(hc_mm_valid(mm));
	b = res(mm, 3 * MIB, &x);                  /* the rest, no storage call */
	ck_assert_uint_eq(x, a_addr + 5 * MIB);
	ck_assert_uint_eq(fk.allocs, 2);
	fk.fit_extra = 10 * MIB;                   /* more than 2 x 2 MiB: exact */
	c = res(mm, 2 * MIB + 1, NULL);
	ck_assert_uint_eq(fk.live_bytes, 10 * MIB + 256);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	fk.fit_lie = 1;                            /* above the bound: refused */
	ck_assert_int_eq(hc_mm_reserve(mm, 4 * MIB, &c, &x), HC_ERR_INVALID);
	ck_assert_uint_eq(fk.live_bytes, 8 * MIB);
	fk.fit_lie = 0;
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_uint_eq(fk.live, 0);             /* wholly free: given back */
	ck_assert_uint_eq(atomic_load(&sh.reserved), 0);
	hc_mm_destroy(other);
	hc_mm_destroy(mm);
}
END_TEST

/* The Workload layout's large pool: a miss takes the smallest free block
 * that fits and splits it; frees merge with free neighbours; references to
 * merged blocks are stale. */
START_TEST(workload_split_best_fit_and_coalesce)
{
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c, d, e, old;
	uint64_t a_addr, b_addr, x;
	hc_memory_usage u;

	mm = mm_workload(NULL);
	a = res(mm, 10 * MIB + 1, &a_addr);     /* segment of 10 MiB + 256 */
	b = res(mm, 3 * MIB, &b_addr);          /* segment of 3 MiB */
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	/* 6 MiB: no exact size cached; the front of the free 10 MiB + 256 */
	c = res(mm, 6 * MIB, &x);
	ck_assert_uint_eq(x, a_addr);
	/* 4 MiB: the 4 MiB + 256 remainder fits, right behind c */
	d = res(mm, 4 * MIB, &x);
	ck_assert_uint_eq(x, a_addr + 6 * MIB);
	ck_assert_uint_eq(fk.allocs, 2);
	u = usage(mm);
	ck_assert_uint_eq(u.bytes_reserved, 13 * MIB + 256);
	ck_assert_uint_eq(u.bytes_in_use, 13 * MIB);
	ck_assert_uint_eq(u.bytes_padding, 0);
	ck_assert(hc_mm_valid(mm));
	/* best fit: free blocks of 256 B (a's tail) and 3 MiB (b's segment);
	 * 2 MiB + 1 takes b's, the smaller of those that fit */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	e = res(mm, 2 * MIB + 1, &x);
	ck_assert_uint_eq(x, b_addr);
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_int_eq(hc_mm_release(mm, e), HC_OK);
	/* c and d free: they merge with the tail into one 10 MiB + 256 block,
	 * which an exact request takes whole, with no new storage */
	old = d;
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_address(mm, old, &x, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_release(mm, old), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_pin(mm, c), HC_ERR_STALE);
	a = res(mm, 10 * MIB + 1, &x);
	ck_assert_uint_eq(x, a_addr);
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_uint_eq(fk.frees, 0);
	ck_assert_int_eq(hc_mm_address(mm, old, &x, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_address(mm, c, &x, NULL), HC_ERR_STALE);
	/* a pinned block stays out of the free structure until unpinned */
	ck_assert_int_eq(hc_mm_pin(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	b = res(mm, 10 * MIB + 1, &x);            /* cannot be a's: a new segment */
	ck_assert_uint_ne(x, a_addr);
	ck_assert_uint_eq(fk.allocs, 3);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_unpin(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	/* sizes that overflow when aligned are refused, nothing changes */
	ck_assert_int_eq(hc_mm_reserve(mm, UINT64_MAX, &c, &x), HC_ERR_TOO_BIG);
	ck_assert_int_eq(hc_mm_reserve(mm, UINT64_MAX - 100, &c, &x), HC_ERR_TOO_BIG);
	ck_assert_uint_eq(fk.allocs, 3);
	ck_assert(hc_mm_valid(mm));
	/* explicit cleanup gives back every wholly free segment */
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 0);
	ck_assert_uint_eq(fk.live, 0);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(mm);
}
END_TEST

/* The watermark with splitting: a miss releases only wholly free segments
 * (a free block next to a used one stays); a free segment more than twice
 * the request is not split when a new segment would pass the watermark,
 * it is given back and an exact segment taken. */
START_TEST(workload_split_watermark)
{
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c, d;
	uint64_t a_addr, c_addr, d_addr, x;
	hc_memory_usage u;

	mm = mm_workload(NULL);
	a = res(mm, 12 * MIB, &a_addr);             /* peak 12 MiB */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	b = res(mm, 7 * MIB, &x);                   /* 12 < 2 x 7: split */
	ck_assert_uint_eq(x, a_addr);
	/* 6 MiB misses (5 MiB free) and would pass the peak (7 + 6 = 13
	 * against 12 + 6 reserved), but the free 5 MiB shares its segment
	 * with b: nothing is released, and reserved passes peak in-use */
	c = res(mm, 6 * MIB, &c_addr);
	ck_assert_uint_eq(fk.frees, 0);
	ck_assert_uint_eq(fk.allocs, 2);
	u = usage(mm);
	ck_assert_uint_eq(u.bytes_reserved, 18 * MIB);
	ck_assert_uint_eq(u.bytes_in_use, 13 * MIB);
	ck_assert(hc_mm_valid(mm));
	/* b free: its segment is whole and free (12 MiB).  3 MiB would fit,
	 * but 12 > 2 x 3 and a new segment would pass the peak (18 + 3 > 13):
	 * the 12 MiB goes back and 3 MiB is taken exactly */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	d = res(mm, 3 * MIB, &d_addr);
	ck_assert_uint_ne(d_addr, a_addr);
	ck_assert_uint_eq(fk.frees, 1);
	ck_assert_uint_eq(fk.allocs, 3);
	u = usage(mm);
	ck_assert_uint_eq(u.bytes_reserved, 9 * MIB);
	ck_assert(hc_mm_valid(mm));
	/* at most twice the request, a free segment is split even then */
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	c = res(mm, 4 * MIB, &x);
	ck_assert_uint_eq(x, c_addr);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	/* and under the peak (9 + 1.25 <= 13) a larger one is split too:
	 * the smaller fit, d's 3 MiB, for 1.25 MiB */
	d = res(mm, 5 * MIB / 4, &x);
	ck_assert_uint_eq(x, d_addr);
	ck_assert_uint_eq(fk.allocs, 3);
	ck_assert_uint_eq(fk.frees, 1);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	hc_mm_destroy(mm);
}
END_TEST

/* With several managers on the shared figures, a segment that becomes
 * wholly free goes back to storage at once (the device's idle cache), a
 * partly used one stays; while a capture is active nothing is released. */
START_TEST(workload_split_shared_and_capture)
{
	struct hc_mm_shared sh;
	struct hc_mm *mm, *other;
	struct hc_slice_ref a, b, c;
	uint64_t a_addr, x;

	memset(&sh, 0, sizeof(sh));
	mm = mm_workload(&sh);
	a = res(mm, 8 * MIB, &a_addr);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_uint_eq(fk.frees, 0);             /* one manager: cached */
	b = res(mm, 5 * MIB, &x);                   /* split: 3 MiB stay free */
	ck_assert_uint_eq(x, a_addr);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 5 * MIB);
	ck_assert_uint_eq(atomic_load(&sh.reserved), 8 * MIB);
	other = mm_workload(&sh);
	c = res(mm, 3 * MIB, &x);                   /* the remainder */
	ck_assert_uint_eq(x, a_addr + 5 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_uint_eq(fk.frees, 0);             /* c still uses the segment */
	ck_assert(hc_mm_valid(mm));
	hc_mm_capture_begin(mm);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert_uint_eq(fk.frees, 0);             /* capture: kept */
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_capture_end(mm, &(struct hc_slice_ref *){ NULL }, &(size_t){ 0 }),
			 HC_OK);
	a = res(mm, 8 * MIB, &x);                   /* the merged segment, whole */
	ck_assert_uint_eq(x, a_addr);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_uint_eq(fk.frees, 1);             /* wholly free, two managers */
	ck_assert_uint_eq(atomic_load(&sh.reserved), 0);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 0);
	ck_assert_uint_eq(atomic_load(&sh.peak), 8 * MIB);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(other);
	hc_mm_destroy(mm);
	ck_assert_uint_eq(atomic_load(&sh.managers), 0);
}
END_TEST

/* Random large and small reservations, releases, pins and cleanups on the
 * Workload layout; the whole-manager check and the live ranges after
 * every step. */
START_TEST(workload_split_random)
{
	struct live_ent *v = calloc(2000, sizeof(*v));
	unsigned seed = 99 + (unsigned)_i * 104729;
	struct hc_mm *mm;
	size_t n = 0;
	int op;

	mm = mm_workload(NULL);
	for (op = 0; op < 4000; op++) {
		int r = rand_r(&seed) % 100;

		if (r < 50 && n < 2000) {
			int k = rand_r(&seed) % 10;
			uint64_t size = k < 2 ? (uint64_t)(rand_r(&seed) % (1 * MIB)) :
					k < 9 ? 1 * MIB + (uint64_t)(rand_r(&seed) % (8 * MIB)) :
						(uint64_t)(rand_r(&seed) % 8 + 1) * 4 * MIB;

			if (rand_r(&seed) % 100 == 0)
				fk.fail_in = 1;
			memset(&v[n], 0, sizeof(v[n]));
			if (hc_mm_reserve(mm, size, &v[n].r, &v[n].addr) == HC_OK) {
				v[n].size = size;
				n++;
			}
			fk.fail_in = 0;
		} else if (r < 95 && n) {
			size_t k = (size_t)rand_r(&seed) % n;

			if (!v[k].released && v[k].pins == 0 && rand_r(&seed) % 8 == 0) {
				ck_assert_int_eq(hc_mm_pin(mm, v[k].r), HC_OK);
				v[k].pins++;
			} else if (!v[k].released) {
				ck_assert_int_eq(hc_mm_release(mm, v[k].r), HC_OK);
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
		} else if (r >= 95) {
			ck_assert_int_eq(hc_mm_cleanup(mm, r < 97), HC_OK);
		}
		if (op % 20 == 0)
			check_invariants(mm, v, n);
	}
	check_invariants(mm, v, n);
	ck_assert_uint_gt(fk.frees, 0);
	hc_mm_destroy(mm);
	free(v);
}
END_TEST

Suite *pools_workload_split_suite(void)
{
	Suite *s = suite_create("workload_split");
	TCase *tc;

	tc = tcase_create("layouts");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	/* workload_split_random checks the invariants through 4000 random
	 * calls: over Check's 4 s default under ASan with full malloc stacks */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, workload_split_best_fit_and_coalesce);
	tcase_add_test(tc, workload_split_watermark);
	tcase_add_test(tc, workload_split_shared_and_capture);
	tcase_add_test(tc, workload_split_fit_storage);
	tcase_add_loop_test(tc, workload_split_random, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
