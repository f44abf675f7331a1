/*
 * park_split.c - parked frees of the Workload layout's split pool: when a
 * release parks, the bytes it notes in the manager's slot of the shared
 * figures, and a parking twin agreeing with a non-parking one.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"
#include "tests/runner.h"

/* ---- parked frees of the split pool --------------------------------------------- */

/* The Workload layout's split pool parks a release exactly when the free
 * and a reservation of the same size give the same block back: a lone
 * segment of E, and a block whose free merges it with the remainder its
 * reservation left.  Not when another free block of the merged size would
 * be the next best fit (it has the older stamp), when the merged block is a
 * wholly free segment of more than 2 E (the best fit's exception), or when
 * the free hands a wholly free segment to the idle cache (several
 * managers).  The shared in-use bytes move at the release and the reuse. */
START_TEST(park_split_when_exact)
{
	struct hc_mm_shared sh;
	struct hc_mm *mm, *other;
	struct hc_slice_ref a, b, c, d, e, k;
	uint64_t a_addr, k_addr, d_addr, x;

	memset(&sh, 0, sizeof(sh));
	mm = mm_workload(&sh);
	/* a lone segment of exactly E */
	a = res(mm, 64 * MIB, &a_addr);             /* a new segment: not parked */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	a = res(mm, 64 * MIB, &x);                  /* a hit */
	ck_assert_uint_eq(x, a_addr);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 64 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(hc_mm_parked(mm));
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 0); /* at the release, as the free */
	ck_assert_uint_eq(atomic_load(&sh.used), 64 * MIB); /* through the slot */
	ck_assert_uint_eq(usage(mm).number_allocs, 0);
	ck_assert_int_eq(hc_mm_address(mm, a, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_ERR_STALE);
	ck_assert(hc_mm_parked(mm));
	b = res(mm, 64 * MIB, &x);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(x, a_addr);
	ck_assert_ptr_eq(b.slice, a.slice);
	ck_assert_uint_gt(b.id, a.id);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 64 * MIB);
	ck_assert_uint_eq(atomic_load(&sh.peak), 64 * MIB);
	ck_assert(hc_mm_valid(mm));                 /* taken back: the shape holds */
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(hc_mm_parked(mm));                /* taken back, parked again */
	/* a remainder: 40 MiB leave 24 free behind, which the free merges back */
	c = res(mm, 40 * MIB, &x);                  /* completes b's free first */
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(x, a_addr);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert(hc_mm_parked(mm));                /* 64 <= 2 x 40 */
	ck_assert(hc_mm_valid(mm));
	ck_assert_uint_eq(usage(mm).bytes_in_use, 0);
	c = res(mm, 40 * MIB, &x);
	ck_assert_uint_eq(x, a_addr);
	ck_assert(hc_mm_valid(mm));
	/* another free block of the merged size: the next best fit is that one */
	k = res(mm, 64 * MIB, &k_addr);             /* a new segment */
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_int_eq(hc_mm_release(mm, k), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK); /* not the latest: not parked */
	ck_assert(!hc_mm_parked(mm));
	k = res(mm, 64 * MIB, &x);                  /* k's segment, freed first */
	ck_assert_uint_eq(x, k_addr);
	ck_assert_int_eq(hc_mm_release(mm, k), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	k = res(mm, 64 * MIB, &x);                  /* now a's, the older stamp */
	ck_assert_uint_eq(x, a_addr);
	ck_assert_int_eq(hc_mm_release(mm, k), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	ck_assert(hc_mm_valid(mm));
	/* a wholly free segment of more than 2 E: the exception decides anew
	 * at each reservation (here it lets the request split the segment:
	 * reserved 64 + 20 stays under the 128 MiB peak) */
	ck_assert_int_eq(hc_mm_cleanup(mm, true), HC_OK);
	ck_assert_uint_eq(atomic_load(&sh.reserved), 0);
	d = res(mm, 64 * MIB, &d_addr);
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	d = res(mm, 20 * MIB, &x);
	ck_assert_uint_eq(x, d_addr);
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	d = res(mm, 20 * MIB, &x);
	ck_assert_uint_eq(x, d_addr);
	/* with d in the segment, the next 20 MiB from the 44 MiB rest parks */
	e = res(mm, 20 * MIB, &x);
	ck_assert_uint_eq(x, d_addr + 20 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, e), HC_OK);
	ck_assert(hc_mm_parked(mm));
	ck_assert(hc_mm_valid(mm));
	/* several managers: a block not alone in its segment still parks */
	other = mm_workload(&sh);
	e = res(mm, 20 * MIB, &x);
	ck_assert_uint_eq(x, d_addr + 20 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, e), HC_OK);
	ck_assert(hc_mm_parked(mm));
	ck_assert_uint_eq(fk.frees, 2);             /* the cleanup's two */
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK); /* completes e's free */
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(fk.frees, 3);             /* d left it wholly free: idle */
	/* a lone block: its free gives the segment to the idle cache at once */
	a = res(mm, 64 * MIB, &a_addr);             /* a new segment */
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_uint_eq(fk.frees, 4);
	a = res(mm, 64 * MIB, &a_addr);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(!hc_mm_parked(mm));
	ck_assert_uint_eq(fk.frees, 5);
	ck_assert_uint_eq(atomic_load(&sh.reserved), 0);
	/* parked with one manager, completed after a second came: kept, as
	 * the free at the release would have kept it */
	hc_mm_destroy(other);
	a = res(mm, 64 * MIB, &a_addr);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	a = res(mm, 64 * MIB, &x);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert(hc_mm_parked(mm));
	other = mm_workload(&sh);
	ck_assert(hc_mm_valid(mm));
	b = res(mm, 4 * MIB, &x);                   /* completes the free: kept */
	ck_assert_uint_eq(x, a_addr);
	ck_assert_uint_eq(fk.frees, 5);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert(hc_mm_valid(mm));
	hc_mm_destroy(other);
	hc_mm_destroy(mm);
	ck_assert_uint_eq(atomic_load(&sh.managers), 0);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 0);
}
END_TEST

/* A split pool's park notes its bytes in the manager's slot of the shared
 * figures and leaves sh.used alone; the reuse empties the slot, a free
 * completed later moves sh.used.  A manager that finds every slot held
 * parks by moving sh.used.  Either way the in-use figure reads as if the
 * free had been made, and with a second manager the peak counts the parked
 * block as free until its reuse lifts it. */
START_TEST(park_split_slots)
{
	struct hc_mm_shared sh;
	struct hc_mm *mm, *other;
	struct hc_slice_ref a, d, e, o;
	uint64_t a_addr, d_addr, x;
	int slotted;

	for (slotted = 0; slotted < 2; slotted++) {
		memset(&sh, 0, sizeof(sh));
		/* 64 managers hold every slot, or all but slot 0 */
		atomic_store(&sh.slots_held, slotted ? ~UINT64_C(1) : UINT64_MAX);
		fake_reset();
		mm = mm_workload(&sh);
		ck_assert_uint_eq(atomic_load(&sh.slots_held), UINT64_MAX);
		a = res(mm, 64 * MIB, &a_addr);
		ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
		a = res(mm, 64 * MIB, &x);
		ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
		ck_assert(hc_mm_parked(mm));
		ck_assert(hc_mm_valid(mm));
		ck_assert_uint_eq(hc_mm_shared_used(&sh), 0);
		ck_assert_uint_eq(atomic_load(&sh.used), slotted ? 64 * MIB : 0);
		ck_assert_uint_eq(atomic_load(&sh.park[0].bytes), slotted ? 64 * MIB : 0);
		a = res(mm, 64 * MIB, &x);                  /* taken back */
		ck_assert_uint_eq(x, a_addr);
		ck_assert_uint_eq(atomic_load(&sh.park[0].bytes), 0);
		ck_assert_uint_eq(atomic_load(&sh.used), 64 * MIB);
		ck_assert_uint_eq(atomic_load(&sh.peak), 64 * MIB);
		ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
		ck_assert(hc_mm_parked(mm));
		a = res(mm, 40 * MIB, &x);                  /* completes the free */
		ck_assert_uint_eq(x, a_addr);
		ck_assert_uint_eq(atomic_load(&sh.park[0].bytes), 0);
		ck_assert_uint_eq(atomic_load(&sh.used), 40 * MIB);
		ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
		ck_assert(hc_mm_parked(mm));
		ck_assert_uint_eq(hc_mm_shared_used(&sh), 0);
		ck_assert(hc_mm_valid(mm));
		hc_mm_destroy(mm);                          /* completes it too */
		ck_assert_uint_eq(atomic_load(&sh.used), 0);
		ck_assert_uint_eq(atomic_load(&sh.park[0].bytes), 0);
		ck_assert_uint_eq(atomic_load(&sh.slots_held), slotted ? ~UINT64_C(1) : UINT64_MAX);
		ck_assert_uint_eq(atomic_load(&sh.reserved), 0);
		fake_done();
	}

	/* the peak while a block is parked, with a second manager */
	memset(&sh, 0, sizeof(sh));
	fake_reset();
	mm = mm_workload(&sh);
	d = res(mm, 40 * MIB, &d_addr);             /* a new segment of 40 MiB */
	ck_assert_int_eq(hc_mm_release(mm, d), HC_OK);
	d = res(mm, 20 * MIB, &x);                  /* splits it: 20 MiB free behind */
	ck_assert_uint_eq(x, d_addr);
	e = res(mm, 20 * MIB, &x);
	ck_assert_uint_eq(x, d_addr + 20 * MIB);
	other = mm_workload(&sh);
	ck_assert_uint_eq(atomic_load(&sh.slots_held), 3);
	ck_assert_int_eq(hc_mm_release(mm, e), HC_OK); /* d is live: parks */
	ck_assert(hc_mm_parked(mm));
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 20 * MIB);
	ck_assert_uint_eq(atomic_load(&sh.peak), 40 * MIB);
	o = res(other, 30 * MIB, NULL);             /* in use: 20 + 30, not 70 */
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 50 * MIB);
	ck_assert_uint_eq(atomic_load(&sh.peak), 50 * MIB);
	e = res(mm, 20 * MIB, &x);                  /* the reuse: 70 */
	ck_assert_uint_eq(x, d_addr + 20 * MIB);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 70 * MIB);
	ck_assert_uint_eq(atomic_load(&sh.peak), 70 * MIB);
	ck_assert(hc_mm_valid(mm));
	ck_assert(hc_mm_valid(other));
	ck_assert_int_eq(hc_mm_release(other, o), HC_OK);
	hc_mm_destroy(other);
	hc_mm_destroy(mm);
	ck_assert_uint_eq(hc_mm_shared_used(&sh), 0);
	ck_assert_uint_eq(atomic_load(&sh.slots_held), 0);
	fake_done();
}
END_TEST


static void shared_same(struct hc_mm_shared *a, struct hc_mm_shared *b)
{
	ck_assert_uint_eq(hc_mm_shared_used(a), hc_mm_shared_used(b));
	ck_assert_uint_eq(atomic_load(&a->peak), atomic_load(&b->peak));
	ck_assert_uint_eq(atomic_load(&a->reserved), atomic_load(&b->reserved));
	ck_assert_uint_eq(atomic_load(&a->managers), atomic_load(&b->managers));
}


/* park_matches_unparked on the Workload layout: twins over two fake
 * storages and two sets of shared figures, one parking and one not, each
 * with a second manager that comes and goes (several streams: the idle
 * cache rule) and reserves too; every status, address, id, decision,
 * usage figure, report, the storage traffic and the shared figures must
 * agree after every step. */
START_TEST(park_split_matches_unparked)
{
	static const uint64_t sizes[] = { 4 * MIB, 8 * MIB, 8 * MIB + 100, 20 * MIB, 40 * MIB,
					  64 * MIB, 64 * MIB, 100 * MIB, 3 * MIB + 256 };
	struct hc_mm_shared sha, shb;
	struct hc_mm_shared *pa = _i ? &sha : NULL, *pb = _i ? &shb : NULL;
	struct twin *v = calloc(400, sizeof(*v)), *w = calloc(400, sizeof(*w));
	struct hc_mm *ma, *mb, *oa = NULL, *ob = NULL;
	uint64_t last_size = 64 * MIB, reuses = 0;
	unsigned seed = 5 + (unsigned)_i * 7919;
	size_t n = 0, nw = 0, i;
	int op;

	memset(&sha, 0, sizeof(sha));
	memset(&shb, 0, sizeof(shb));
	free(fk2.a);
	memset(&fk2, 0, sizeof(fk2));
	fk2.next = 0x10000000;
	fk.fit_extra = fk2.fit_extra = (_i & 1) ? 2 * MIB : 0;
	ma = mm_workload_on(pa, &fake_fit_storage);
	mb = mm_workload_on(pb, &fake_fit_storage2);
	hc_mm_set_park(ma, true);
	hc_mm_set_park(mb, false);
	for (op = 0; op < 6000; op++) {
		int r = rand_r(&seed) % 1000;
		uint64_t size = rand_r(&seed) % 3 ? last_size :
				rand_r(&seed) % 4 ? sizes[rand_r(&seed) % 9] :
						    (uint64_t)(rand_r(&seed) % (128 * MIB)) + 1;

		if (r < 350) {
			/* temporaries: reserve, release at once, maybe again */
			int reps = 1 + rand_r(&seed) % 4;

			while (reps--) {
				struct hc_slice_ref ta, tb;
				uint64_t xa = 0, xb = 0;
				bool was_parked = hc_mm_parked(ma);
				hc_status sa = hc_mm_reserve(ma, size, &ta, &xa);

				ck_assert_int_eq(sa, hc_mm_reserve(mb, size, &tb, &xb));
				if (sa != HC_OK)
					break;
				ck_assert_uint_eq(xa, xb);
				ck_assert_uint_eq(ta.id, tb.id);
				reuses += was_parked && size == last_size;
				twins_same(ma, mb);
				shared_same(&sha, &shb);
				ck_assert_int_eq(hc_mm_release(ma, ta), HC_OK);
				ck_assert_int_eq(hc_mm_release(mb, tb), HC_OK);
				shared_same(&sha, &shb);
				last_size = size;
			}
		} else if (r < 550 && n < 400) {
			bool was_parked = hc_mm_parked(ma);

			if (twin_reserve(ma, mb, &v[n], size, rand_r(&seed) % 200 == 0)) {
				reuses += was_parked && size == last_size;
				n++;
			}
		} else if (r < 800 && n) {
			size_t k = rand_r(&seed) % 3 ? n - 1 : (size_t)rand_r(&seed) % n;

			if (twin_touch(ma, mb, &v[k], &seed, 10))
				last_size = v[k].size;
			if (v[k].released && v[k].pins == 0)
				v[k] = v[--n];
		} else if (r < 880 && _i >= 2) {
			/* the second manager: comes, reserves, releases, goes */
			if (!oa) {
				oa = mm_workload_on(pa, &fake_fit_storage);
				ob = mm_workload_on(pb, &fake_fit_storage2);
			} else if (r < 840 && nw < 400) {
				uint64_t xa = 0, xb = 0;
				hc_status sa = hc_mm_reserve(oa, size, &w[nw].a, &xa);

				ck_assert_int_eq(sa, hc_mm_reserve(ob, size, &w[nw].b, &xb));
				if (sa == HC_OK) {
					ck_assert_uint_eq(xa, xb);
					nw++;
				}
			} else if (r < 870 && nw) {
				size_t k = (size_t)rand_r(&seed) % nw;

				ck_assert_int_eq(hc_mm_release(oa, w[k].a), HC_OK);
				ck_assert_int_eq(hc_mm_release(ob, w[k].b), HC_OK);
				w[k] = w[--nw];
			} else {
				for (; nw; nw--) {
					ck_assert_int_eq(hc_mm_release(oa, w[nw - 1].a), HC_OK);
					ck_assert_int_eq(hc_mm_release(ob, w[nw - 1].b), HC_OK);
				}
				hc_mm_destroy(oa);
				hc_mm_destroy(ob);
				oa = ob = NULL;
			}
			if (oa)
				twins_same(oa, ob);
		} else if (r < 920) {
			ck_assert_int_eq(hc_mm_cleanup(ma, r < 910), HC_OK);
			ck_assert_int_eq(hc_mm_cleanup(mb, r < 910), HC_OK);
		} else if (r < 940) {
			if (r < 930) {
				hc_mm_mode_push_persistent(ma);
				hc_mm_mode_push_persistent(mb);
			} else {
				hc_mm_mode_pop(ma);
				hc_mm_mode_pop(mb);
			}
		} else if (r < 960) {
			if (!hc_mm_capture_active(ma)) {
				hc_mm_capture_begin(ma);
				hc_mm_capture_begin(mb);
			} else {
				twins_capture_end(ma, mb);
			}
		}
		twins_same(ma, mb);
		shared_same(&sha, &shb);
		if (op % 32 == 0) {
			ck_assert(hc_mm_valid(ma));
			ck_assert(hc_mm_valid(mb));
			for (i = 0; i < n; i++) {
				uint64_t xa, xb;

				if (v[i].released)
					continue;
				ck_assert_int_eq(hc_mm_address(ma, v[i].a, &xa, NULL), HC_OK);
				ck_assert_int_eq(hc_mm_address(mb, v[i].b, &xb, NULL), HC_OK);
				ck_assert_uint_eq(xa, xb);
			}
		}
	}
	/* the park path was taken, often (less with a second manager: a lone
	 * block's free then goes to the idle cache) */
	ck_assert_uint_gt(reuses, _i < 2 ? 300 : 20);
	if (hc_mm_capture_active(ma)) {
		struct hc_slice_ref *ka, *kb;
		size_t na, nb;

		ck_assert_int_eq(hc_mm_capture_end(ma, &ka, &na), HC_OK);
		ck_assert_int_eq(hc_mm_capture_end(mb, &kb, &nb), HC_OK);
		free(ka);
		free(kb);
	}
	hc_mm_destroy(oa);
	hc_mm_destroy(ob);
	hc_mm_destroy(ma);
	hc_mm_destroy(mb);
	shared_same(&sha, &shb);
	free(v);
	free(w);
	free(fk2.a);
	memset(&fk2, 0, sizeof(fk2));
}
END_TEST

Suite *pools_park_split_suite(void)
{
	Suite *s = suite_create("park_split");
	TCase *tc;

	tc = tcase_create("park");
	tcase_add_checked_fixture(tc, fake_reset, fake_done);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, park_split_when_exact);
	tcase_add_loop_test(tc, park_split_matches_unparked, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("park");
	/* two resets in the case: no fixture */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, park_split_slots);
	suite_add_tcase(s, tc);
	return s;
}
