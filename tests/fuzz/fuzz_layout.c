/*
 * fuzz_layout.c - libFuzzer target for the pool-layout validator and the
 * memory manager built from what it accepts.
 *
 * The bytes are decoded into an hc_pool_layout as a binary record (a byte
 * reader below: device properties, the preset, then up to 300 pool specs
 * whose fields are small values, powers of two or raw 64-bit words), which
 * reaches more of the validator than text would, and given to
 * hc_layout_resolve().  hipsim's text format for layouts (--pools FILE) has
 * its own target, fuzz_layout_file.c, through its parser and the public
 * install.  Checked: HC_OK or
 * HC_ERR_INVALID only; an accepted layout holds 1..HC_MM_MAX_POOLS pools of
 * known kinds, sliced pages non-zero.  An accepted layout then builds a
 * memory manager over a fake storage (addresses handed out upward, 1 GiB in
 * all, with virtual memory of a drawn granule or none, for expandable
 * pools) and the rest of the bytes drive reserve/release/cleanup/persistent
 * windows; after each step hc_mm_valid() must hold, live slices never
 * overlap, bytes in use never exceed bytes reserved, and released references
 * report HC_ERR_STALE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/pool/pool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint64_t u64(struct rd *r)
{
	uint8_t tag = u8(r);
	uint64_t v = 0;

	switch (tag % 4) {
	case 0:
		return tag / 4; /* 0..63 */
	case 1:
		return (uint64_t)1 << ((tag / 4) % 64);
	case 2:
		return ((uint64_t)u8(r) << 8 | u8(r)) << ((tag / 4) % 48);
	default:
		for (int i = 0; i < 8; i++)
			v = v << 8 | u8(r);
		return v;
	}
}

#define STORE_LIMIT (1ull << 30)

struct store {
	uint64_t next, held;
};

static hc_status st_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	struct store *s = ctx;

	if (size > STORE_LIMIT || s->held + size > STORE_LIMIT)
		return HC_ERR_OOM;
	*addr = s->next;
	s->next += (size + 4095) & ~(uint64_t)4095;
	s->next += 4096;
	s->held += size;
	return HC_OK;
}

static hc_status st_free(void *ctx, uint64_t addr, uint64_t size)
{
	(void)ctx;
	(void)addr;
	(void)size;
	return HC_OK;
}

/* Virtual memory: ranges handed out upward from 2^44, each map counted
 * against the same limit as the pages. */
static hc_status st_va_reserve(void *ctx, uint64_t size, uint64_t *addr)
{
	static uint64_t next = 1ull << 44;

	(void)ctx;
	if (size > (1ull << 40))
		return HC_ERR_OOM;
	*addr = next;
	next += size + (1ull << 30);
	return HC_OK;
}

static hc_status st_va_release(void *ctx, uint64_t addr, uint64_t size)
{
	(void)ctx;
	(void)addr;
	(void)size;
	return HC_OK;
}

static hc_status st_map(void *ctx, uint64_t addr, uint64_t size)
{
	struct store *s = ctx;

	(void)addr;
	if (size > STORE_LIMIT || s->held + size > STORE_LIMIT)
		return HC_ERR_OOM;
	s->held += size;
	return HC_OK;
}

static hc_status st_unmap(void *ctx, uint64_t addr, uint64_t size)
{
	struct store *s = ctx;

	(void)addr;
	s->held -= size;
	return HC_OK;
}

#define LIVE 48

struct live {
	struct hc_slice_ref ref;
	uint64_t addr, size;
};

static void check_mm(struct hc_mm *mm, const struct live *l, size_t n)
{
	hc_memory_usage u;

	if (!hc_mm_valid(mm))
		__builtin_trap();
	hc_mm_usage(mm, &u);
	if (u.bytes_in_use + u.bytes_padding > u.bytes_reserved || u.number_allocs < n) {
		fprintf(stderr, "usage: in_use %llu padding %llu reserved %llu allocs %llu live %zu\n",
			(unsigned long long)u.bytes_in_use, (unsigned long long)u.bytes_padding,
			(unsigned long long)u.bytes_reserved, (unsigned long long)u.number_allocs, n);
		__builtin_trap();
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			uint64_t ai = l[i].addr, aj = l[j].addr;
			uint64_t ei = ai + l[i].size, ej = aj + l[j].size;

			if (!l[i].size || !l[j].size) /* zero bytes occupy nothing */
				continue;
			if (ai < ej && aj < ei) {
				fprintf(stderr, "overlap: [%#llx +%llu) and [%#llx +%llu)\n",
					(unsigned long long)ai, (unsigned long long)l[i].size,
					(unsigned long long)aj, (unsigned long long)l[j].size);
				__builtin_trap();
			}
		}
}

static void drive(struct hc_mm *mm, struct rd *r)
{
	struct live l[LIVE];
	struct hc_slice_ref dead[8];
	size_t n = 0, ndead = 0, depth = 0;
	uint64_t a, sz;

	for (int step = 0; step < 256 && r->n; step++) {
		uint8_t op = u8(r);
		switch (op % 6) {
		case 0:
		case 1: /* reserve */
			sz = u64(r) % (STORE_LIMIT / 2);
			if (n == LIVE)
				break;
			if (hc_mm_reserve(mm, sz, &l[n].ref, &a) == HC_OK) {
				uint64_t a2 = 0, s2 = 0;
				if (hc_mm_address(mm, l[n].ref, &a2, &s2) != HC_OK || a2 != a || s2 != sz)
					__builtin_trap();
				l[n].addr = a;
				l[n].size = sz;
				n++;
			}
			break;
		case 2: /* release */
			if (n) {
				size_t i = u8(r) % n;
				if (hc_mm_release(mm, l[i].ref) != HC_OK)
					__builtin_trap();
				dead[ndead++ % 8] = l[i].ref;
				l[i] = l[--n];
			}
			break;
		case 3:
			hc_mm_cleanup(mm, u8(r) & 1);
			break;
		case 4:
			if (depth < 4) {
				hc_mm_mode_push_persistent(mm);
				depth++;
			}
			break;
		default:
			if (depth) {
				hc_mm_mode_pop(mm);
				depth--;
			}
			break;
		}
		check_mm(mm, l, n);
		for (size_t i = 0; i < ndead && i < 8; i++) {
			uint64_t a2, s2;
			bool reused = false;
			for (size_t j = 0; j < n; j++)
				if (l[j].ref.slice == dead[i].slice && l[j].ref.id == dead[i].id)
					reused = true;
			if (!reused && hc_mm_address(mm, dead[i], &a2, &s2) != HC_ERR_STALE)
				__builtin_trap();
		}
	}
	while (depth--)
		hc_mm_mode_pop(mm);
	while (n) {
		if (hc_mm_release(mm, l[--n].ref) != HC_OK)
			__builtin_trap();
	}
	hc_mm_cleanup(mm, true);
	check_mm(mm, l, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	struct hc_mm_props props = { 0 };
	hc_pool_layout in = { 0 };
	hc_pool_spec *specs = NULL;
	struct hc_layout *out = NULL;
	struct store s = { 1u << 20, 0 };
	struct hc_storage st = { .alloc = st_alloc, .free = st_free, .ctx = &s,
				 .va_reserve = st_va_reserve, .va_release = st_va_release,
				 .map = st_map, .unmap = st_unmap };
	struct hc_mm *mm = NULL;
	size_t n;
	hc_status rc;

	props.max_page_size = u64(&r);
	props.alignment = (uint64_t)1 << (u8(&r) % 13);
	in.preset = (hc_layout_preset)(u8(&r) % 6);
	/* a granule of 4 KiB to 2 MiB, or none (expandable pools become split) */
	props.vmm_granularity = u8(&r) % 11 ? (uint64_t)4096 << (u8(&r) % 10) : 0;
	props.va_size = 256ull << 20;
	n = u8(&r);
	if (n >= 200)
		n = 200 + (size_t)u8(&r); /* up to 455: past the 254 limit */
	if (n) {
		specs = calloc(n, sizeof(*specs));
		if (!specs)
			return 0;
		for (size_t i = 0; i < n; i++) {
			specs[i].kind = (hc_pool_kind)(u8(&r) % 6);
			specs[i].page_size = u64(&r);
			specs[i].max_slice_size = u64(&r);
			specs[i].max_pool_size = u64(&r);
			specs[i].max_alloc_size = u64(&r);
			specs[i].reclaim_at = u64(&r);
			specs[i].dealloc_period = u64(&r);
		}
	}
	in.pools = (u8(&r) == 255) ? NULL : specs;
	in.n_pools = n;
	rc = hc_layout_resolve(&in, &props, &out);
	if (rc != HC_OK) {
		if (rc != HC_ERR_INVALID || out != NULL)
			__builtin_trap();
		goto out_free;
	}
	n = hc_layout_count(out);
	if (n == 0 || n > HC_MM_MAX_POOLS)
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		const hc_pool_spec *p = hc_layout_pool(out, i);
		if (!p || (unsigned)p->kind > HC_POOL_EXPANDABLE || p->kind == HC_POOL_PERSISTENT)
			__builtin_trap();
		if (p->kind == HC_POOL_SLICED && p->page_size == 0)
			__builtin_trap();
	}
	if (hc_mm_create(out, &props, &st, &mm) == HC_OK) {
		drive(mm, &r);
		hc_mm_destroy(mm);
	}
	hc_layout_free(out);
out_free:
	free(specs);
	return 0;
}
