/*
 * fake_storage.c - the storage the pool suites run on: it hands out fake,
 * non-overlapping addresses, counts allocations, frees and live bytes, can
 * refuse on demand, and records the first frees in order, so every test
 * asserts exact placement, exact usage figures and exact storage traffic.
 * A second instance (fk2) backs the non-parking twin of the park suites.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/pools/pools_suites.h"

hc_status fake_alloc(void *ctx, uint64_t size, uint64_t *addr)
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

	if (f->refuse_free)
		return HC_ERR_STATE;
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


struct fake fk, fk2;
struct hc_storage fake_storage = { .alloc = fake_alloc, .free = fake_free, .ctx = &fk };
struct hc_storage fake_fit_storage = { .alloc = fake_alloc, .free = fake_free, .ctx = &fk,
				       .alloc_fit = fake_alloc_fit };
struct hc_storage fake_storage2 = { .alloc = fake_alloc, .free = fake_free, .ctx = &fk2 };
struct hc_storage fake_fit_storage2 = { .alloc = fake_alloc, .free = fake_free, .ctx = &fk2,
					.alloc_fit = fake_alloc_fit };

void fake_reset(void)
{
	free(fk.a);
	memset(&fk, 0, sizeof(fk));
	fk.next = 0x10000000;
}

void fake_done(void)
{
	ck_assert_int_eq(fk.bad_frees, 0);
	ck_assert_uint_eq(fk.live, 0);
	ck_assert_uint_eq(fk.live_bytes, 0);
	ck_assert_uint_eq(fk.allocs, fk.frees);
	free(fk.a);
	memset(&fk, 0, sizeof(fk));
}
