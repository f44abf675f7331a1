/*
 * check_pools.c - the memory manager (core/pool/pool.h) over a fake storage.
 *
 * The storage hands out fake, non-overlapping addresses and counts
 * allocations, frees and live bytes, and can refuse on demand, so every
 * test asserts exact placement (addresses are page base + offset), exact
 * usage figures and exact storage traffic.  The scenarios and their numbers
 * are those of upstream CubeCL's memory management tests; the property test
 * drives random reserve/release/pin/cleanup/install sequences with
 * fixed seeds and checks the invariants after every step.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pool/pool.h"
#include "tests/runner.h"

#define KIB ((uint64_t)1024)
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

/* ---- fake storage ------------------------------------------------------ */

struct fake_alloc {
	uint64_t addr, size;
};

struct fake {
	uint64_t next;
	uint64_t allocs, frees, live, live_bytes;
	long fail_in;          /* refuse the fail_in-th next alloc (1 = next); 0 = never */
	uint64_t fit_extra;    /* alloc_fit hands out this much more when allowed */
	uint64_t fit_lie;      /* alloc_fit hands out this much more than allowed */
	uint64_t limit;        /* refuse when live_bytes + size > limit; 0 = none */
	struct fake_alloc *a;
	size_t n, cap;
	int bad_frees;
	uint64_t freed[16];    /* the addresses of the first frees, in order */
	size_t nfreed;
};

static hc_status fake_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	struct fake *f = ctx;

	if (f->fail_in > 0 && --f->fail_in == 0)
		return HC_ERR_OOM;
	if (f->limit && f->live_bytes + size > f->limit)
		return HC_ERR_OOM;
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->a = realloc(f->a, f->cap * sizeof(*f->a));
		ck_assert_ptr_nonnull(f->a);
	}
	*addr = f->next;
	f->a[f->n].addr = f->next;
	f->a[f->n].size = size;
	f->n++;
	f->next += (size + 0xfff) / 0x1000 * 0x1000 + 0x1000;
	f->allocs++;
	f->live++;
	f->live_bytes += size;
	return HC_OK;
}

static hc_status fake_free(void *ctx, uint64_t addr, uint64_t size)
{
	struct fake *f = ctx;
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (f->a[i].addr == addr) {
			if (f->a[i].size != size)
				break; /* the pool named the wrong size */
			f->live_bytes -= f->a[i].size;
			f->a[i] = f->a[--f->n];
			if (f->nfreed < sizeof(f->freed) / sizeof(f->freed[0]))
				f->freed[f->nfreed] = addr;
			f->nfreed++;
			f->frees++;
			f->live--;
			return HC_OK;
		}
	}
	f->bad_frees++;
	return HC_ERR_INVALID;
}

/* alloc_fit: @fit_extra more than asked when @max allows (a reused larger
 * block), else exactly @size; @fit_lie breaks the bound on purpose. */
static hc_status fake_alloc_fit(void *ctx, uint64_t size, uint64_t max, uint64_t *addr,
				uint64_t *got)
{
	struct fake *f = ctx;

	*got = f->fit_lie ? max + f->fit_lie : size + f->fit_extra <= max ? size + f->fit_extra : size;
	return fake_alloc(ctx, *got, addr);
}

static struct fake fk;
static struct hc_storage fake_storage = { fake_alloc, fake_free, &fk, NULL };
static struct hc_storage fake_fit_storage = { fake_alloc, fake_free, &fk, fake_alloc_fit };

static void fake_reset(void)
{
	free(fk.a);
	memset(&fk, 0, sizeof(fk));
	fk.next = 0x10000000;
}

static void fake_done(void)
{
	ck_assert_int_eq(fk.bad_frees, 0);
	ck_assert_uint_eq(fk.live, 0);
	ck_assert_uint_eq(fk.live_bytes, 0);
	ck_assert_uint_eq(fk.allocs, fk.frees);
	free(fk.a);
	memset(&fk, 0, sizeof(fk));
}

/* ---- helpers ------------------------------------------------------------ */

static hc_pool_spec sliced(uint64_t page, uint64_t max_slice, uint64_t cap)
{
	hc_pool_spec s = { .kind = HC_POOL_SLICED, .page_size = page,
			   .max_slice_size = max_slice, .max_pool_size = cap };
	return s;
}

static hc_pool_spec exclusive(uint64_t max, uint64_t period)
{
	hc_pool_spec s = { .kind = HC_POOL_EXCLUSIVE, .max_alloc_size = max,
			   .dealloc_period = period };
	return s;
}

static hc_pool_spec direct(uint64_t reclaim)
{
	hc_pool_spec s = { .kind = HC_POOL_DIRECT, .reclaim_at = reclaim };
	return s;
}

/* A manager over the fake storage with @n pools taken verbatim. */
static struct hc_mm *mm_custom(const hc_pool_spec *specs, size_t n, uint64_t align)
{
	struct hc_mm_props p = { .max_page_size = 1 * GIB, .alignment = align };
	struct hc_layout *l;
	struct hc_mm *mm;

	ck_assert_int_eq(hc_layout_custom(specs, n, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	hc_layout_free(l);
	return mm;
}

static struct hc_slice_ref res(struct hc_mm *mm, uint64_t size, uint64_t *addr)
{
	struct hc_slice_ref r;
	uint64_t a;

	ck_assert_int_eq(hc_mm_reserve(mm, size, &r, &a), HC_OK);
	if (addr)
		*addr = a;
	return r;
}

struct reports {
	hc_pool_report r[300];
	size_t n;
};

static void collect(const hc_pool_report *r, void *arg)
{
	struct reports *rs = arg;

	rs->r[rs->n++] = *r;
}

static struct reports report(struct hc_mm *mm)
{
	struct reports rs;

	rs.n = 0;
	hc_mm_report(mm, collect, &rs);
	return rs;
}

static hc_memory_usage usage(struct hc_mm *mm)
{
	hc_memory_usage u;

	hc_mm_usage(mm, &u);
	return u;
}

static void expect_msg(const char *needle)
{
	hc_error_info e;

	hc_last_error(&e);
	ck_assert_msg(strstr(e.message, needle), "message '%s' lacks '%s'", e.message, needle);
}

/* ---- placement ---------------------------------------------------------- */

/* 4+15+8+4 MiB in a 32 MiB page; drop 15, 9 splits it into 9+6; another 9
 * fits only once the 8 MiB neighbour is free and merges with the 6. */
START_TEST(scenario_32mib_page)
{
	hc_pool_spec s = sliced(32 * MIB, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c, d, e, f;
	uint64_t base, x, sz;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(two_chunks_on_one_page)
{
	hc_pool_spec s = sliced(2048, 0, 0);
	struct hc_mm *mm;
	uint64_t a0, a1;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(alloc_allocs_new_storage)
{
	hc_pool_spec s = sliced(1024, 0, 0);
	struct hc_mm *mm;

	fake_reset();
	mm = mm_custom(&s, 1, 32);
	res(mm, 768, NULL);
	res(mm, 768, NULL);
	ck_assert_uint_eq(fk.allocs, 2);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 2048);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(alloc_reuses_storage)
{
	hc_pool_spec s = sliced(2048, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref r;
	uint64_t a0, a1;

	fake_reset();
	mm = mm_custom(&s, 1, 32);
	r = res(mm, 512, &a0);
	ck_assert_int_eq(hc_mm_release(mm, r), HC_OK);
	res(mm, 512, &a1);
	ck_assert_uint_eq(a0, a1);
	ck_assert_uint_eq(fk.allocs, 1);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(alignment_padding)
{
	hc_pool_spec s = sliced(1000, 0, 0);
	struct hc_mm *mm;
	hc_memory_usage u;
	uint64_t a0, a1;

	fake_reset();
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
	fake_done();
}
END_TEST

/* A lone freed slice offers its requested bytes, not its padding (upstream). */
START_TEST(lone_free_slice_offers_requested_size)
{
	hc_pool_spec s = sliced(1000, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a;
	uint64_t a0, x;

	fake_reset();
	mm = mm_custom(&s, 1, 50);
	a = res(mm, 40, &a0);
	res(mm, 40, NULL);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	res(mm, 40, &x);  /* effective 50 > 40 recorded: not the freed slice */
	ck_assert_uint_eq(x, a0 + 100);
	res(mm, 30, &x);  /* no: 30 + 20 padding = 50 */
	ck_assert_uint_eq(x, a0 + 150);
	hc_mm_destroy(mm);
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(near_page_rule)
{
	hc_pool_spec s[2] = { sliced(1024, 256, 0), direct(0) };
	struct hc_mm *mm;
	struct reports rs;

	fake_reset();
	mm = mm_custom(s, 2, 1);
	res(mm, 820, NULL);  /* 1024 - 820 = 204 < 204.8: a near-page stray */
	res(mm, 819, NULL);  /* 205: not near, goes to the direct pool */
	res(mm, 256, NULL);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 2);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[1].usage.bytes_in_use, 819);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

/* ---- caps ----------------------------------------------------------------- */

START_TEST(capped_pool_errors_instead_of_growing)
{
	hc_pool_spec s = sliced(1024, 0, 2048);
	struct hc_mm *mm;
	struct hc_slice_ref r, a;
	uint64_t addr, x;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(capacity_spills_to_later_accepting_pool)
{
	hc_pool_spec s[3] = { sliced(1024, 0, 2048), exclusive(512, 0), sliced(4096, 0, 0) };
	struct hc_mm *mm;
	struct reports rs;

	fake_reset();
	mm = mm_custom(s, 3, 32);
	res(mm, 1000, NULL);
	res(mm, 1000, NULL);
	res(mm, 1000, NULL); /* pool 0 full; pool 1 does not accept; pool 2 does */
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 2);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 0);
	ck_assert_uint_eq(rs.r[2].usage.number_allocs, 1);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(capped_pool_never_takes_strays)
{
	hc_pool_spec s[2] = { sliced(1024, 256, 4096), sliced(1024, 0, 0) };
	struct hc_mm *mm;
	struct reports rs;

	fake_reset();
	mm = mm_custom(s, 2, 32);
	res(mm, 900, NULL);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].usage.number_allocs, 0);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 1);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(cap_below_page_shrinks_page)
{
	hc_pool_spec s = sliced(4096, 0, 1000);
	struct hc_mm *mm;
	struct hc_slice_ref r;
	struct reports rs;
	uint64_t addr;

	fake_reset();
	mm = mm_custom(&s, 1, 256);
	rs = report(mm);
	ck_assert_uint_eq(rs.r[0].spec.page_size, 768);
	ck_assert_uint_eq(rs.r[0].spec.max_slice_size, 768);
	res(mm, 512, NULL);
	ck_assert_uint_eq(fk.live_bytes, 768);
	ck_assert_int_eq(hc_mm_reserve(mm, 512, &r, &addr), HC_ERR_CAPACITY);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 768);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(cap_below_alignment_never_overshoots)
{
	hc_pool_spec s = sliced(4096, 0, 100);
	struct hc_mm *mm;
	struct hc_slice_ref r;
	uint64_t addr;

	fake_reset();
	mm = mm_custom(&s, 1, 256);
	ck_assert_int_eq(hc_mm_reserve(mm, 1, &r, &addr), HC_ERR_CAPACITY);
	ck_assert_int_eq(hc_mm_reserve(mm, 64, &r, &addr), HC_ERR_CAPACITY);
	ck_assert_uint_eq(fk.allocs, 0);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 0);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

/* ---- direct pool ------------------------------------------------------------ */

START_TEST(direct_pads_only_to_alignment)
{
	hc_pool_spec s = direct(0);
	struct hc_mm *mm;

	fake_reset();
	mm = mm_custom(&s, 1, 256);
	res(mm, 1000, NULL);
	ck_assert_uint_eq(fk.live_bytes, 1024);
	ck_assert_uint_eq(usage(mm).bytes_reserved, 1024);
	ck_assert_uint_eq(usage(mm).bytes_padding, 24);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(direct_reuses_below_ceiling)
{
	hc_pool_spec s = direct(7 * MIB);
	struct hc_mm *mm;
	int i;

	fake_reset();
	mm = mm_custom(&s, 1, 256);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(hc_mm_release(mm, res(mm, 1 * MIB, NULL)), HC_OK);
	ck_assert_uint_eq(report(mm).r[0].pages_peak, 1);
	ck_assert_uint_eq(fk.allocs, 1);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(direct_reclaims_at_ceiling)
{
	hc_pool_spec s = direct(7 * MIB);
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c, d;

	fake_reset();
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
	fake_done();
}
END_TEST

/* ---- exclusive pool --------------------------------------------------------- */

START_TEST(exclusive_running_average_sizing)
{
	hc_pool_spec s = exclusive(512, 0);
	struct hc_mm *mm;
	hc_memory_usage u;

	fake_reset();
	mm = mm_custom(&s, 1, 32);
	res(mm, 100, NULL); /* average 256*0.99 + 1 = 254.44: page 256 */
	u = usage(mm);
	ck_assert_uint_eq(u.bytes_reserved, 256);
	ck_assert_uint_eq(u.bytes_in_use, 100);
	ck_assert_uint_eq(u.bytes_padding, 28);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(exclusive_periodic_dealloc)
{
	/* period 10: a check every 2 reservations; new pages start at count 4 */
	hc_pool_spec s = exclusive(4096, 10);
	struct hc_mm *mm;
	struct hc_slice_ref a;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(exclusive_prefers_lowest_free_count)
{
	hc_pool_spec s = exclusive(4096, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b;
	uint64_t pa, pb, x;

	fake_reset();
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
	fake_done();
}
END_TEST

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

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(cleanup_releases_everything_free)
{
	hc_pool_spec s[3] = { sliced(4096, 1024, 0), exclusive(64 * KIB, 0), direct(0) };
	struct hc_slice_ref r[12];
	struct hc_mm *mm;
	int i;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(held_binding_survives_explicit_cleanup_renumber)
{
	hc_pool_spec s = sliced(1024, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c;
	uint64_t xb, x;

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(install_refuses_while_in_use)
{
	hc_pool_spec s = sliced(4096, 0, 0), t = sliced(8192, 0, 0);
	struct hc_layout *l;
	struct hc_slice_ref r, p;
	struct hc_mm *mm;

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

/* ---- modes ------------------------------------------------------------------- */

START_TEST(persistent_windows_nest)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_mm *mm;
	struct reports rs;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(persistent_exact_size_reuse_and_no_limit)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a, b;
	uint64_t xa, x;

	fake_reset();
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
	fake_done();
}
END_TEST

/* ---- identity ------------------------------------------------------------------ */

START_TEST(stale_lookups)
{
	hc_pool_spec s = sliced(128, 0, 0);
	struct hc_mm *mm, *other;
	struct hc_slice_ref a, b, z = { NULL, 0 };
	uint64_t x;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(pins_hold_released_slices)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_mm *mm;
	struct hc_slice_ref a;
	uint64_t xa, x;

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(storage_refusal_is_oom_and_retry_works)
{
	hc_pool_spec s[2] = { sliced(4096, 0, 0), exclusive(64 * KIB, 0) };
	struct hc_slice_ref r, a;
	struct hc_mm *mm;
	uint64_t addr;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(bad_arguments)
{
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 32 };
	struct hc_storage nofree = { fake_alloc, NULL, &fk, NULL };
	hc_pool_spec s = sliced(4096, 0, 0), bad = { .kind = HC_POOL_PERSISTENT };
	struct hc_layout *l;
	struct hc_mm *mm;

	fake_reset();
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
	fake_done();
}
END_TEST

/* ---- layouts ------------------------------------------------------------------- */

struct config_case {
	const char *name;
	hc_pool_spec pools[2];
	size_t n;
	const char *msg;
};

static const struct config_case config_cases[] = {
	{ "empty", { { 0 } }, 0, "pool list is empty" },
	{ "zero page", { { .kind = HC_POOL_SLICED, .page_size = 0 } }, 1,
	  "page_size must be non-zero" },
	{ "slice larger than page",
	  { { .kind = HC_POOL_SLICED, .page_size = 1000, .max_slice_size = 2000 } }, 1,
	  "max_slice_size (2016) is larger than page_size (1024)" },
	{ "cap smaller than page",
	  { { .kind = HC_POOL_SLICED, .page_size = 4096, .max_pool_size = 4000 } }, 1,
	  "max_pool_size (4000) is smaller than page_size (4096)" },
	{ "too many pages",
	  { { .kind = HC_POOL_SLICED, .page_size = 32, .max_pool_size = 32 * 65536 } }, 1,
	  "spans 65536 pages" },
	{ "persistent in a list", { { .kind = HC_POOL_DIRECT }, { .kind = HC_POOL_PERSISTENT } },
	  2, "pool 1: kind 3" },
};

START_TEST(pool_config_errors)
{
	const struct config_case *c = &config_cases[_i];
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 32 };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = c->pools, .n_pools = c->n };
	struct hc_layout *l = NULL;

	ck_assert_msg(hc_layout_resolve(&in, &p, &l) == HC_ERR_INVALID, "%s", c->name);
	ck_assert_ptr_null(l);
	expect_msg(c->msg);
}
END_TEST

START_TEST(pool_config_limits)
{
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 32 };
	static hc_pool_spec many[255];
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = many, .n_pools = 255 };
	struct hc_layout *l;
	size_t i;

	for (i = 0; i < 255; i++)
		many[i] = direct(0);
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	expect_msg("255 pools");
	in.n_pools = 254;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), 254);
	hc_layout_free(l);
	in.pools = NULL;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	in.preset = (hc_layout_preset)42;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	expect_msg("unknown layout preset 42");
	in.preset = HC_LAYOUT_SUBSLICES;
	p.max_page_size = 0;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_ERR_INVALID);
	ck_assert_int_eq(hc_layout_resolve(NULL, &p, &l), HC_ERR_INVALID);
}
END_TEST

START_TEST(resolve_rounds_and_defaults)
{
	struct hc_mm_props p = { .max_page_size = GIB, .alignment = 256 };
	hc_pool_spec in_pools[4] = {
		{ .kind = HC_POOL_SLICED, .page_size = 1000, .max_pool_size = 4096 },
		{ .kind = HC_POOL_SLICED, .page_size = 1000, .max_slice_size = 100 },
		{ .kind = HC_POOL_EXCLUSIVE, .max_alloc_size = 0, .dealloc_period = 7 },
		{ .kind = HC_POOL_DIRECT, .reclaim_at = 1001, .dealloc_period = 9 },
	};
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = in_pools, .n_pools = 4 };
	struct hc_layout *l;
	const hc_pool_spec *s;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	s = hc_layout_pool(l, 0);
	ck_assert_uint_eq(s->page_size, 1024);
	ck_assert_uint_eq(s->max_slice_size, 1024);
	ck_assert_uint_eq(s->max_pool_size, 4096);
	s = hc_layout_pool(l, 1);
	ck_assert_uint_eq(s->max_slice_size, 256);
	s = hc_layout_pool(l, 2);
	ck_assert_uint_eq(s->max_alloc_size, 0);
	ck_assert_uint_eq(s->dealloc_period, 7);
	s = hc_layout_pool(l, 3);
	ck_assert_uint_eq(s->reclaim_at, 1001);
	ck_assert_uint_eq(s->dealloc_period, 0);
	ck_assert_ptr_null(hc_layout_pool(l, 4));
	hc_layout_free(l);
}
END_TEST

struct ladder_case {
	uint64_t device;
	size_t n;
	uint64_t page[6], max_slice[6];
	uint64_t tail, period;
};

static const struct ladder_case ladders[] = {
	{ 16 * GIB, 4, { 16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB },
	  { 1 * MIB, 8 * MIB, 64 * MIB, 512 * MIB }, 4 * GIB, 25000 },
	{ 24 * GIB, 4, { 24 * MIB, 96 * MIB, 384 * MIB, 1536 * MIB },
	  { 3 * MIB / 2, 12 * MIB, 96 * MIB, 768 * MIB }, 6 * GIB, 35000 },
	{ 192 * GIB, 6, { 12 * MIB, 48 * MIB, 192 * MIB, 768 * MIB, 3 * GIB, 12 * GIB },
	  { 192 * KIB, 3 * MIB / 2, 12 * MIB, 96 * MIB, 768 * MIB, 6 * GIB }, 48 * GIB, 245000 },
};

START_TEST(subslices_ladder)
{
	const struct ladder_case *c = &ladders[_i];
	struct hc_mm_props p = { .max_page_size = c->device / 4, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_SUBSLICES };
	struct hc_layout *l;
	const hc_pool_spec *s;
	size_t i;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), c->n + 2);
	s = hc_layout_pool(l, 0);
	ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(s->max_alloc_size, 0);
	ck_assert_uint_eq(s->dealloc_period, 0);
	for (i = 0; i < c->n; i++) {
		s = hc_layout_pool(l, i + 1);
		ck_assert_int_eq(s->kind, HC_POOL_SLICED);
		ck_assert_uint_eq(s->page_size, c->page[i]);
		ck_assert_uint_eq(s->max_slice_size, c->max_slice[i]);
		ck_assert_uint_eq(s->max_pool_size, 0);
	}
	s = hc_layout_pool(l, c->n + 1);
	ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(s->max_alloc_size, c->tail);
	ck_assert_uint_eq(s->dealloc_period, c->period);
	hc_layout_free(l);
}
END_TEST

/* The default is the Workload layout, at any device size and alignment:
 * size 0 exclusive, 2 MiB pages for <= 1 MiB, exact-size direct at its peak. */
START_TEST(default_is_workload)
{
	static const uint64_t aligns[] = { 1, 256, 4096, 3 * MIB };
	hc_pool_layout def = { .preset = HC_LAYOUT_DEFAULT };
	hc_pool_layout wl = { .preset = HC_LAYOUT_WORKLOAD };
	struct hc_mm_props p = { .max_page_size = 0, .alignment = aligns[_i] };
	uint64_t a = aligns[_i];
	struct hc_layout *l, *d;
	const hc_pool_spec *s;
	size_t i;

	ck_assert_int_eq(hc_layout_resolve(&wl, &p, &l), HC_OK); /* no max_page needed */
	ck_assert_int_eq(hc_layout_resolve(&def, &p, &d), HC_OK);
	ck_assert_uint_eq(hc_layout_count(l), 3);
	ck_assert_uint_eq(hc_layout_count(d), 3);
	for (i = 0; i < 3; i++)
		ck_assert_mem_eq(hc_layout_pool(d, i), hc_layout_pool(l, i), sizeof(hc_pool_spec));
	s = hc_layout_pool(l, 0);
	ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(s->max_alloc_size, 0);
	s = hc_layout_pool(l, 1);
	ck_assert_int_eq(s->kind, HC_POOL_SLICED);
	ck_assert_uint_eq(s->page_size, (2 * MIB + a - 1) / a * a);
	ck_assert_uint_eq(s->max_slice_size, (MIB + a - 1) / a * a);
	ck_assert_uint_eq(s->max_pool_size, 0);
	s = hc_layout_pool(l, 2);
	ck_assert_int_eq(s->kind, HC_POOL_DIRECT);
	ck_assert_uint_eq(s->reclaim_at, HC_RECLAIM_AT_PEAK);
	hc_layout_free(d);
	hc_layout_free(l);
}
END_TEST

/* The Workload pools named explicitly: the direct pool stays exact-size
 * (only the preset turns splitting on); a miss releases cached allocations
 * only as far as the pool's peak in-use requires. */
START_TEST(explicit_direct_reclaims_on_miss)
{
	hc_pool_spec specs[3] = { exclusive(0, 0), sliced(2 * MIB, 1 * MIB, 0),
				  direct(HC_RECLAIM_AT_PEAK) };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXPLICIT, .pools = specs, .n_pools = 3 };
	hc_pool_layout wl = { .preset = HC_LAYOUT_WORKLOAD };
	struct hc_mm_props p = { .max_page_size = 0, .alignment = 256 };
	struct hc_layout *l;
	struct hc_mm *mm;
	struct hc_slice_ref a, b, c;
	uint64_t addr, a_addr;
	hc_memory_usage u;

	fake_reset();
	ck_assert_int_eq(hc_layout_resolve(&wl, &p, &l), HC_OK);
	ck_assert(hc_layout_split(l, 2));
	ck_assert(!hc_layout_split(l, 1) && !hc_layout_split(l, 3) && !hc_layout_split(NULL, 2));
	hc_layout_free(l);
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert(!hc_layout_split(l, 2));
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 10 * MIB + 1, &a, &a_addr), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 3 * MIB, &b, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 10 * MIB + 256 + 3 * MIB);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	/* same size: a hit on the cached allocation, nothing new reserved */
	ck_assert_int_eq(hc_mm_reserve(mm, 10 * MIB + 1, &a, &addr), HC_OK);
	ck_assert_uint_eq(addr, a_addr);
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	/* other size: a miss that would pass the peak (13 MiB + 256): the free
	 * 10 MiB goes back first */
	ck_assert_int_eq(hc_mm_reserve(mm, 5 * MIB, &c, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 3 * MIB + 5 * MIB);
	ck_assert_uint_eq(u.bytes_in_use, 3 * MIB + 5 * MIB);
	ck_assert_uint_eq(fk.live_bytes, 3 * MIB + 5 * MIB);
	ck_assert_uint_eq(fk.frees, 1);
	ck_assert(hc_mm_valid(mm));
	/* a miss under the peak keeps the cache: 8 + 4 MiB <= 13 MiB + 256 */
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	ck_assert_int_eq(hc_mm_reserve(mm, 4 * MIB, &c, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 3 * MIB + 5 * MIB + 4 * MIB);
	ck_assert_uint_eq(fk.frees, 1);
	/* and one that would pass it releases the free 5 MiB, not more */
	ck_assert_int_eq(hc_mm_reserve(mm, 6 * MIB, &a, &addr), HC_OK);
	hc_mm_usage(mm, &u);
	ck_assert_uint_eq(u.bytes_reserved, 3 * MIB + 4 * MIB + 6 * MIB);
	ck_assert_uint_eq(fk.frees, 2);
	ck_assert(hc_mm_valid(mm));
	ck_assert_int_eq(hc_mm_release(mm, a), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, b), HC_OK);
	ck_assert_int_eq(hc_mm_release(mm, c), HC_OK);
	hc_mm_destroy(mm);
	hc_layout_free(l);
}
END_TEST

/* 24 GiB device: near-page windows (19.2, 24] MiB route to the 24 MiB pool. */
START_TEST(subslices_routing_24gib)
{
	struct hc_mm_props p = { .max_page_size = 6 * GIB, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_SUBSLICES };
	struct hc_layout *l;
	struct hc_mm *mm;
	struct reports rs;

	fake_reset();
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	hc_layout_free(l);
	res(mm, 1 * MIB, NULL);        /* pool 1 (24 MiB pages, slices <= 1.5 MiB) */
	res(mm, 20 * MIB, NULL);       /* near-page stray: pool 1 */
	res(mm, 19 * MIB, NULL);       /* not near, above 12 MiB: pool 3 (384 MiB pages) */
	res(mm, 2 * GIB, NULL);        /* tail exclusive pool */
	rs = report(mm);
	ck_assert_uint_eq(rs.n, 7);
	ck_assert_uint_eq(rs.r[1].usage.number_allocs, 2);
	ck_assert_uint_eq(rs.r[1].pages, 1);
	ck_assert_uint_eq(rs.r[2].usage.number_allocs, 0);
	ck_assert_uint_eq(rs.r[3].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[5].usage.number_allocs, 1);
	ck_assert_uint_eq(rs.r[5].spec.dealloc_period, 35000);
	ck_assert_uint_eq(rs.r[6].kind, HC_POOL_PERSISTENT);
	hc_mm_destroy(mm);
	fake_done();
}
END_TEST

START_TEST(exclusive_pages_buckets)
{
	struct hc_mm_props p = { .max_page_size = 6 * GIB, .alignment = 256 };
	hc_pool_layout in = { .preset = HC_LAYOUT_EXCLUSIVE_PAGES };
	struct hc_layout *l;
	const hc_pool_spec *s;
	struct hc_mm *mm;
	size_t i, n;

	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	n = hc_layout_count(l);
	ck_assert_uint_eq(n, 24);
	ck_assert_uint_eq(hc_layout_pool(l, 0)->max_alloc_size, 32 * KIB);
	ck_assert_uint_eq(hc_layout_pool(l, 0)->dealloc_period, 5000);
	ck_assert_uint_eq(hc_layout_pool(l, n - 1)->max_alloc_size, 6 * GIB);
	ck_assert_uint_eq(hc_layout_pool(l, n - 1)->dealloc_period, 35000);
	for (i = 0; i < n; i++) {
		s = hc_layout_pool(l, i);
		ck_assert_int_eq(s->kind, HC_POOL_EXCLUSIVE);
		ck_assert_uint_eq(s->max_alloc_size % 256, 0);
		if (i)
			ck_assert_uint_gt(s->max_alloc_size, hc_layout_pool(l, i - 1)->max_alloc_size);
		if (s->max_alloc_size < GIB / 2)
			ck_assert_uint_eq(s->dealloc_period, 5000);
	}
	/* a large alignment merges the small buckets */
	hc_layout_free(l);
	p.alignment = 1 * MIB;
	ck_assert_int_eq(hc_layout_resolve(&in, &p, &l), HC_OK);
	ck_assert_uint_lt(hc_layout_count(l), 24);
	ck_assert_uint_eq(hc_layout_pool(l, 0)->max_alloc_size, 1 * MIB);
	/* size 0 goes to the first bucket */
	fake_reset();
	ck_assert_int_eq(hc_mm_create(l, &p, &fake_storage, &mm), HC_OK);
	res(mm, 0, NULL);
	ck_assert_uint_eq(report(mm).r[0].usage.number_allocs, 1);
	hc_mm_destroy(mm);
	hc_layout_free(l);
	fake_done();
}
END_TEST

/* ---- capture ---------------------------------------------------------------------- */

START_TEST(capture_retains_touched_slices)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_slice_ref pre, a, b, c, *kept;
	struct hc_mm *mm;
	uint64_t xa, x, frees;
	size_t n, i;

	fake_reset();
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
	fake_done();
}
END_TEST

START_TEST(capture_restores_windows_and_refuses_install)
{
	hc_pool_spec s = sliced(4096, 0, 0);
	struct hc_slice_ref *kept;
	struct hc_layout *l;
	struct hc_mm *mm;
	size_t n;

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

/* HIPCORE_MM_PARK=0 at creation and hc_mm_set_park turn parking off. */
START_TEST(park_switch)
{
	hc_pool_spec s = sliced(64 * KIB, 0, 0);
	struct hc_slice_ref k, a;
	struct hc_mm *mm;

	fake_reset();
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
	fake_done();
}
END_TEST

/* Two managers over two identical fake storages, one parking and one not,
 * driven in lockstep by a sequence rich in temporaries (release the latest
 * reservation, reserve the size just released) mixed with every other entry
 * point: every status, address, id, decision, usage figure, report and the
 * storage traffic must agree after every step. */
static struct fake fk2;
static struct hc_storage fake_storage2 = { fake_alloc, fake_free, &fk2, NULL };

struct twin {
	struct hc_slice_ref a, b;
	uint64_t size;
	int pins;
	bool released;
};

static void twins_same(struct hc_mm *ma, struct hc_mm *mb)
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
static bool twin_reserve(struct hc_mm *ma, struct hc_mm *mb, struct twin *t, uint64_t size,
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
static void twins_capture_end(struct hc_mm *ma, struct hc_mm *mb)
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
static bool twin_touch(struct hc_mm *ma, struct hc_mm *mb, struct twin *t, unsigned *seed,
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

/* ---- property test ------------------------------------------------------------------- */

struct live_ent {
	struct hc_slice_ref r;
	uint64_t addr, size;
	int pins;
	bool released;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct live_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void check_invariants(struct hc_mm *mm, struct live_ent *v, size_t n)
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

	fake_reset();
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
	fake_done();
}
END_TEST

/* A Workload manager over the fake storage (alignment 256). */
static struct hc_mm *mm_workload_on(struct hc_mm_shared *sh, const struct hc_storage *st)
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

static struct hc_mm *mm_workload(struct hc_mm_shared *sh)
{
	return mm_workload_on(sh, &fake_storage);
}

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
	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
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
	fake_reset();
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
	fake_done();
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

	fake_reset();
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
	fake_done();
}
END_TEST

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
	fake_reset();
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
	fake_done();
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

/* park_matches_unparked on the Workload layout: twins over two fake
 * storages and two sets of shared figures, one parking and one not, each
 * with a second manager that comes and goes (several streams: the idle
 * cache rule) and reserves too; every status, address, id, decision,
 * usage figure, report, the storage traffic and the shared figures must
 * agree after every step. */
static struct hc_storage fake_fit_storage2 = { fake_alloc, fake_free, &fk2, fake_alloc_fit };

static void shared_same(struct hc_mm_shared *a, struct hc_mm_shared *b)
{
	ck_assert_uint_eq(hc_mm_shared_used(a), hc_mm_shared_used(b));
	ck_assert_uint_eq(atomic_load(&a->peak), atomic_load(&b->peak));
	ck_assert_uint_eq(atomic_load(&a->reserved), atomic_load(&b->reserved));
	ck_assert_uint_eq(atomic_load(&a->managers), atomic_load(&b->managers));
}

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
	fake_reset();
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
	fake_done();
}
END_TEST

static Suite *pools_suite(void)
{
	Suite *s = suite_create("pools");
	TCase *tc = tcase_create("placement");

	tcase_add_test(tc, scenario_32mib_page);
	tcase_add_test(tc, two_chunks_on_one_page);
	tcase_add_test(tc, alloc_allocs_new_storage);
	tcase_add_test(tc, alloc_reuses_storage);
	tcase_add_test(tc, alignment_padding);
	tcase_add_test(tc, lone_free_slice_offers_requested_size);
	tcase_add_test(tc, coalescing_shapes);
	tcase_add_test(tc, near_page_rule);
	tcase_add_loop_test(tc, fragmentation_resistance, 0, 8);
	/* thousands of operations a case: seconds under ASan on a busy host */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("caps");
	tcase_add_test(tc, capped_pool_errors_instead_of_growing);
	tcase_add_test(tc, capacity_spills_to_later_accepting_pool);
	tcase_add_test(tc, capped_pool_never_takes_strays);
	tcase_add_test(tc, cap_below_page_shrinks_page);
	tcase_add_test(tc, cap_below_alignment_never_overshoots);
	suite_add_tcase(s, tc);

	tc = tcase_create("direct_exclusive");
	tcase_add_test(tc, direct_pads_only_to_alignment);
	tcase_add_test(tc, direct_reuses_below_ceiling);
	tcase_add_test(tc, direct_reclaims_at_ceiling);
	tcase_add_test(tc, exclusive_running_average_sizing);
	tcase_add_test(tc, exclusive_periodic_dealloc);
	tcase_add_test(tc, exclusive_prefers_lowest_free_count);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifecycle");
	tcase_add_test(tc, cleanup_releases_everything_free);
	tcase_add_test(tc, cleanup_frees_empty_pages_oldest_first);
	tcase_add_test(tc, split_reclaims_free_segments_oldest_first);
	tcase_add_test(tc, held_binding_survives_explicit_cleanup_renumber);
	tcase_add_test(tc, measured_plan_cycle);
	tcase_add_test(tc, install_refuses_while_in_use);
	tcase_add_test(tc, usage_total_follows_pools);
	tcase_add_test(tc, persistent_windows_nest);
	tcase_add_test(tc, persistent_exact_size_reuse_and_no_limit);
	tcase_add_test(tc, stale_lookups);
	tcase_add_test(tc, pins_hold_released_slices);
	tcase_add_test(tc, size_zero_and_too_big);
	tcase_add_test(tc, storage_refusal_is_oom_and_retry_works);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, storage_fault_walk);
	suite_add_tcase(s, tc);

	tc = tcase_create("layouts");
	/* workload_split_random checks the invariants through 4000 random
	 * calls: over Check's 4 s default under ASan with full malloc stacks */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, pool_config_errors, 0,
			    (int)(sizeof(config_cases) / sizeof(config_cases[0])));
	tcase_add_test(tc, pool_config_limits);
	tcase_add_test(tc, resolve_rounds_and_defaults);
	tcase_add_loop_test(tc, subslices_ladder, 0, (int)(sizeof(ladders) / sizeof(ladders[0])));
	tcase_add_loop_test(tc, default_is_workload, 0, 4);
	tcase_add_test(tc, explicit_direct_reclaims_on_miss);
	tcase_add_test(tc, workload_split_best_fit_and_coalesce);
	tcase_add_test(tc, workload_split_watermark);
	tcase_add_test(tc, workload_split_shared_and_capture);
	tcase_add_test(tc, workload_split_fit_storage);
	tcase_add_loop_test(tc, workload_split_random, 0, 4);
	tcase_add_test(tc, subslices_routing_24gib);
	tcase_add_test(tc, exclusive_pages_buckets);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture");
	tcase_add_test(tc, capture_retains_touched_slices);
	tcase_add_test(tc, capture_restores_windows_and_refuses_install);
	suite_add_tcase(s, tc);

	tc = tcase_create("property");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, random_sequences, 0, 6);
	suite_add_tcase(s, tc);

	tc = tcase_create("park");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, park_same_size_reuses);
	tcase_add_test(tc, park_only_when_exact);
	tcase_add_test(tc, park_switch);
	tcase_add_loop_test(tc, park_matches_unparked, 0, 4);
	tcase_add_test(tc, park_split_when_exact);
	tcase_add_test(tc, park_split_slots);
	tcase_add_loop_test(tc, park_split_matches_unparked, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(pools_suite);
