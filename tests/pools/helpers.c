/*
 * helpers.c - what the pool suites build managers with and check them by:
 * pool specs, a manager over the fake storage with given pools or the
 * Workload layout, reservations that must succeed, reports and usage, the
 * last error's message, the invariants of a live set, and the twins (a
 * parking manager and a non-parking one driven in lockstep).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"

hc_pool_spec sliced(uint64_t page, uint64_t max_slice, uint64_t cap)
{
	hc_pool_spec s = { .kind = HC_POOL_SLICED, .page_size = page,
			   .max_slice_size = max_slice, .max_pool_size = cap };
	return s;
}

hc_pool_spec exclusive(uint64_t max, uint64_t period)
{
	hc_pool_spec s = { .kind = HC_POOL_EXCLUSIVE, .max_alloc_size = max,
			   .dealloc_period = period };
	return s;
}

hc_pool_spec direct(uint64_t reclaim)
{
	hc_pool_spec s = { .kind = HC_POOL_DIRECT, .reclaim_at = reclaim };
	return s;
}

/* A manager over the fake storage with @n pools taken verbatim. */
struct hc_mm *mm_custom(const hc_pool_spec *specs, size_t n, uint64_t align)
{
	struct hc_mm_props p = { .max_page_size = 1 * GIB, .alignment = align };
	struct hc_layout *l;
	struct hc_mm *mm;

	ck_assert_int_eq(hc_layout_custom(specs, n, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	hc_layout_free(l);
	return mm;
}

struct hc_slice_ref res(struct hc_mm *mm, uint64_t size, uint64_t *addr)
{
	struct hc_slice_ref r;
	uint64_t a;

	ck_assert_int_eq(hc_mm_reserve(mm, size, &r, &a), HC_OK);
	if (addr)
		*addr = a;
	return r;
}

void collect(const hc_pool_report *r, void *arg)
{
	struct reports *rs = arg;

	rs->r[rs->n++] = *r;
}

struct reports report(struct hc_mm *mm)
{
	struct reports rs;

	rs.n = 0;
	hc_mm_report(mm, collect, &rs);
	return rs;
}

hc_memory_usage usage(struct hc_mm *mm)
{
	hc_memory_usage u;

	hc_mm_usage(mm, &u);
	return u;
}

void expect_msg(const char *needle)
{
	hc_error_info e;

	hc_last_error(&e);
	ck_assert_msg(strstr(e.message, needle), "message '%s' lacks '%s'", e.message, needle);
}

/* A Workload manager over the fake storage (alignment 256). */
struct hc_mm *mm_workload_on(struct hc_mm_shared *sh, const struct hc_storage *st)
{
	hc_pool_layout wl = { .preset = HC_LAYOUT_WORKLOAD };
	struct hc_mm_props p = { .max_page_size = 0, .alignment = 256, .shared = sh };
	struct hc_layout *l;
	struct hc_mm *mm;

	ck_assert_int_eq(hc_layout_resolve(&wl, &p, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, st, &mm), HC_OK);
	hc_layout_free(l);
	return mm;
}

struct hc_mm *mm_workload(struct hc_mm_shared *sh)
{
	return mm_workload_on(sh, &fake_storage);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct live_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}


void check_invariants(struct hc_mm *mm, struct live_ent *v, size_t n)
{
	struct live_ent *sorted = malloc((n + 1) * sizeof(*sorted));
	hc_memory_usage u = usage(mm);
	uint64_t in_use = 0;
	size_t i;

	ck_assert(hc_mm_valid(mm));
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_addr);
	for (i = 0; i < n; i++) {
		uint64_t a, sz;

		ck_assert_int_eq(hc_mm_address(mm, sorted[i].r, &a, &sz), HC_OK);
		ck_assert_uint_eq(a, sorted[i].addr);
		ck_assert_uint_eq(sz, sorted[i].size);
		in_use += sz;
		if (i && sorted[i].size && sorted[i - 1].size)
			ck_assert_msg(sorted[i - 1].addr + sorted[i - 1].size <= sorted[i].addr,
				      "live ranges overlap");
	}
	ck_assert_uint_eq(u.number_allocs, n);
	ck_assert_uint_eq(u.bytes_in_use, in_use);
	ck_assert_uint_le(u.bytes_in_use, u.bytes_reserved);
	ck_assert_uint_eq(u.bytes_reserved, fk.live_bytes);
	free(sorted);
}

void twins_same(struct hc_mm *ma, struct hc_mm *mb)
{
	struct reports ra = report(ma), rb = report(mb);
	hc_memory_usage ua = usage(ma), ub = usage(mb);
	struct hc_mm_decision da, db;
	size_t i;

	ck_assert(!memcmp(&ua, &ub, sizeof(ua)));
	hc_mm_last_decision(ma, &da);
	hc_mm_last_decision(mb, &db);
	ck_assert_uint_eq(da.pool, db.pool);
	ck_assert_int_eq(da.new_page, db.new_page);
	ck_assert_uint_eq(ra.n, rb.n);
	for (i = 0; i < ra.n; i++) {
		ck_assert(!memcmp(&ra.r[i].usage, &rb.r[i].usage, sizeof(ra.r[i].usage)));
		ck_assert_uint_eq(ra.r[i].pages, rb.r[i].pages);
		ck_assert_uint_eq(ra.r[i].pages_peak, rb.r[i].pages_peak);
		ck_assert_uint_eq(ra.r[i].largest_alloc, rb.r[i].largest_alloc);
	}
	ck_assert_uint_eq(fk.allocs, fk2.allocs);
	ck_assert_uint_eq(fk.frees, fk2.frees);
	ck_assert_uint_eq(fk.live_bytes, fk2.live_bytes);
}

/* A reservation of @size on both twins, the storage failing at once on
 * both when @fail: the same status, and on success the same address and
 * id.  Returns whether it succeeded. */
bool twin_reserve(struct hc_mm *ma, struct hc_mm *mb, struct twin *t, uint64_t size,
			 bool fail)
{
	uint64_t xa = 0, xb = 0;
	hc_status sa;

	if (fail)
		fk.fail_in = fk2.fail_in = 1;
	memset(t, 0, sizeof(*t));
	sa = hc_mm_reserve(ma, size, &t->a, &xa);
	ck_assert_int_eq(sa, hc_mm_reserve(mb, size, &t->b, &xb));
	fk.fail_in = fk2.fail_in = 0;
	if (sa != HC_OK)
		return false;
	ck_assert_uint_eq(xa, xb);
	ck_assert_uint_eq(t->a.id, t->b.id);
	t->size = size;
	return true;
}

/* Ends the capture of both twins: they must keep the same references,
 * whose capture pins are then dropped on each. */
void twins_capture_end(struct hc_mm *ma, struct hc_mm *mb)
{
	struct hc_slice_ref *ka, *kb;
	size_t na, nb, i;

	ck_assert_int_eq(hc_mm_capture_end(ma, &ka, &na), HC_OK);
	ck_assert_int_eq(hc_mm_capture_end(mb, &kb, &nb), HC_OK);
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		ck_assert_uint_eq(ka[i].id, kb[i].id);
		ck_assert_int_eq(hc_mm_unpin(ma, ka[i]), HC_OK);
		ck_assert_int_eq(hc_mm_unpin(mb, kb[i]), HC_OK);
	}
	free(ka);
	free(kb);
}

/* One twin's next use on both managers, the same step on each: a pin
 * (one time in @pin_odds while neither released nor pinned), else its
 * release, else one unpin.  Returns whether it was released now. */
bool twin_touch(struct hc_mm *ma, struct hc_mm *mb, struct twin *t, unsigned *seed,
			   int pin_odds)
{
	if (!t->released && t->pins == 0 && rand_r(seed) % pin_odds == 0) {
		ck_assert_int_eq(hc_mm_pin(ma, t->a), HC_OK);
		ck_assert_int_eq(hc_mm_pin(mb, t->b), HC_OK);
		t->pins++;
	} else if (!t->released) {
		ck_assert_int_eq(hc_mm_release(ma, t->a), HC_OK);
		ck_assert_int_eq(hc_mm_release(mb, t->b), HC_OK);
		t->released = true;
		return true;
	} else {
		ck_assert_int_eq(hc_mm_unpin(ma, t->a), HC_OK);
		ck_assert_int_eq(hc_mm_unpin(mb, t->b), HC_OK);
		t->pins--;
	}
	return false;
}

