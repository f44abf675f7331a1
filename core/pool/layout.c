/*
 * layout.c - pool layouts: presets, explicit lists, validation.
 *
 * A layout is resolved once against the device figures (max_page_size,
 * alignment) into a plain list of pool specs in routing order; managers are
 * built from that list, each pool of the kind hc_layout_ops names.  The
 * presets are upstream's, number for number:
 *
 *  SubSlices: an exclusive pool of max size 0 (it serves only size 0), then
 *    a ladder of uncapped sliced pools: starting from max_page, while the
 *    value is at least 32 MiB, divide it by 4 and round it up to the
 *    alignment; that is a page size, and its max slice is the page divided by
 *    2^k for k = 1, 2, 3...; the lists are then reversed, so the smallest
 *    page (with the largest divisor) routes first.  Last, an exclusive tail
 *    of max_page rounded down to the alignment, with dealloc period
 *    5000 * round(1 + max_alloc / 1 GiB).
 *  Workload (the default, HC_LAYOUT_DEFAULT and HC_LAYOUT_WORKLOAD): built
 *    for training and serving histories, where peak reserved memory should
 *    sit close to peak live memory.  An exclusive pool of max size 0 (size 0
 *    as upstream), a sliced pool of 2 MiB pages for requests up to 1 MiB (the
 *    many small tensors share pages, as in PyTorch's small pool), and a
 *    direct pool for everything larger whose reclaim watermark is its own
 *    peak in-use (HC_RECLAIM_AT_PEAK) and which splits its storage
 *    allocations best-fit (core/pool/split.c, turned on here only: an
 *    explicit direct pool stays exact-size): a request takes the smallest
 *    cached free block that fits, frees coalesce, and a miss that would take
 *    the pool above the highest demand it has seen first releases wholly
 *    free storage allocations.  Exact-size reuse alone kept reserved at peak
 *    in-use but made a storage call per size change (bert_train: 1515 device
 *    allocations); splitting makes 308 there, at 1.033 x peak live.
 *    (Ratios against PyTorch's caching allocator on the synthetic corpus are
 *    in BENCHMARKS.md, "Memory efficiency".)
 *  Expandable (HC_LAYOUT_EXPANDABLE): the Workload layout with an
 *    expandable pool (core/pool/expandable.c) for everything above 1 MiB:
 *    one range of device addresses per stream, first fit by address,
 *    granules mapped as the pool grows and unmapped by cleanup (not by a
 *    watermark: reclaim_at 0, expandable.c says why).  Where the
 *    device has no virtual memory the manager builds the Workload
 *    layout's split pool in its place (manager.c, pools_build), so the
 *    layout is then exactly Workload, and reports say direct.
 *  Expandable shared (HC_LAYOUT_EXPANDABLE_SHARED): the same with
 *    reclaim_at HC_RECLAIM_AT_SHARED: with several streams open, a
 *    stream about to map first unmaps the idle mappings other streams
 *    lent once their work up to the free passed (expandable.c, lend.c).
 *  ExclusivePages: 24 sizes spaced evenly in log between 32 KiB and
 *    max_page, each rounded up to the alignment, consecutive duplicates
 *    dropped; each an exclusive pool with the same period formula.
 *
 * An explicit list is validated as upstream validates it (each failure is
 * HC_ERR_INVALID with a message saying which rule and which values): the
 * list must not be empty and must hold fewer than 255 pools; a sliced pool
 * needs a page size, its max slice may not exceed its page, its cap may not
 * be below its page nor span more than 65535 pages.  Sizes are rounded up to
 * the alignment first (exclusive 0 stays 0, the direct watermark is kept as
 * given); page_size is not checked against max_page_size, which only sizes
 * the presets.  In the public spec 0 means "none" for max_slice_size and
 * max_pool_size, so upstream's zero-size errors for those two fields cannot
 * arise, and its two build-specific errors (preset or sliced pools
 * unavailable in exclusive-only builds) have no counterpart here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)
#define BASE_DEALLOC_PERIOD 5000.0
#define MIN_BUCKET_SIZE (32ull * 1024ull)
#define NUM_BUCKETS 24

struct hc_layout {
	size_t n;
	size_t split;         /* index + 1 of the splitting direct pool, 0: none */
	hc_pool_spec pools[];
};

static struct hc_layout *layout_new(size_t n)
{
	struct hc_layout *l = calloc(1, sizeof(*l) + n * sizeof(l->pools[0]));

	if (l)
		l->n = 0;
	return l;
}

static uint64_t period_for(uint64_t size)
{
	return (uint64_t)(BASE_DEALLOC_PERIOD * round(1.0 + (double)size / (double)GIB));
}

/* Rounds @x up to a multiple of @a; false on overflow. */
static bool round_up(uint64_t x, uint64_t a, uint64_t *out)
{
	uint64_t r = x % a;

	if (r == 0) {
		*out = x;
		return true;
	}
	if (x > UINT64_MAX - (a - r))
		return false;
	*out = x + (a - r);
	return true;
}

static void push_exclusive(struct hc_layout *l, uint64_t max_alloc, uint64_t period)
{
	hc_pool_spec *s = &l->pools[l->n++];

	memset(s, 0, sizeof(*s));
	s->kind = HC_POOL_EXCLUSIVE;
	s->max_alloc_size = max_alloc;
	s->dealloc_period = period;
}

static hc_status sub_slices(uint64_t max_page, uint64_t align, struct hc_layout **out)
{
	uint64_t pages[64], maxes[64], cur = max_page;
	unsigned k = 0, base = 1, i;
	struct hc_layout *l;

	while (cur >= 32 * MIB && k < 64) {
		cur /= 4;
		if (!round_up(cur, align, &cur))
			return hc_fail(HC_ERR_INVALID, "alignment %llu overflows the ladder",
				       (unsigned long long)align);
		maxes[k] = base < 64 ? cur >> base : 0;
		pages[k] = cur;
		base++;
		k++;
	}
	l = layout_new(k + 2);
	if (!l)
		return hc_fail(HC_ERR_OOM, "no host memory for a layout");
	push_exclusive(l, 0, 0);
	for (i = k; i-- > 0;) {
		hc_pool_spec *s = &l->pools[l->n++];

		memset(s, 0, sizeof(*s));
		s->kind = HC_POOL_SLICED;
		s->page_size = pages[i];
		s->max_slice_size = maxes[i];
	}
	push_exclusive(l, max_page / align * align, period_for(max_page / align * align));
	*out = l;
	return HC_OK;
}

static hc_status exclusive_pages(uint64_t max_page, uint64_t align, struct hc_layout **out)
{
	double log_min = log((double)MIN_BUCKET_SIZE), log_max = log((double)max_page);
	double log_range = log_max - log_min;
	struct hc_layout *l = layout_new(NUM_BUCKETS);
	uint64_t last = 0;
	int i;

	if (!l)
		return hc_fail(HC_ERR_OOM, "no host memory for a layout");
	for (i = 0; i < NUM_BUCKETS; i++) {
		double p = (double)i / (double)(NUM_BUCKETS - 1);
		double sz = exp(log_min + log_range * p);
		uint64_t size = sz >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)sz;

		if (!round_up(size, align, &size)) {
			hc_layout_free(l);
			return hc_fail(HC_ERR_INVALID, "bucket size overflows at alignment %llu",
				       (unsigned long long)align);
		}
		if (l->n && size == last)
			continue;
		push_exclusive(l, size, period_for(size));
		last = size;
	}
	*out = l;
	return HC_OK;
}

#define WL_SMALL_PAGE (2ull * MIB)
#define WL_SMALL_MAX (1ull * MIB)

/* The Workload layout; @large: its large pool's kind (HC_POOL_DIRECT: the
 * split pool; HC_POOL_EXPANDABLE, with @xp_reclaim its reclaim_at). */
static hc_status workload(uint64_t align, hc_pool_kind large, uint64_t xp_reclaim,
			  struct hc_layout **out)
{
	struct hc_layout *l = layout_new(3);
	hc_pool_spec *s;
	uint64_t page, max_slice;

	if (!l)
		return hc_fail(HC_ERR_OOM, "no host memory for a layout");
	if (!round_up(WL_SMALL_PAGE, align, &page) || !round_up(WL_SMALL_MAX, align, &max_slice)) {
		hc_layout_free(l);
		return hc_fail(HC_ERR_INVALID, "alignment %llu overflows the workload layout",
			       (unsigned long long)align);
	}
	push_exclusive(l, 0, 0);
	s = &l->pools[l->n++];
	memset(s, 0, sizeof(*s));
	s->kind = HC_POOL_SLICED;
	s->page_size = page;
	s->max_slice_size = max_slice;
	s = &l->pools[l->n++];
	memset(s, 0, sizeof(*s));
	s->kind = large;
	if (large == HC_POOL_DIRECT) {
		s->reclaim_at = HC_RECLAIM_AT_PEAK;
		l->split = l->n; /* best fit with splitting: split.c */
	} else {
		s->reclaim_at = xp_reclaim;
	}
	*out = l;
	return HC_OK;
}

static hc_status check_sliced(size_t i, const hc_pool_spec *in, uint64_t align,
			      hc_pool_spec *o)
{
	uint64_t page, max_slice, cap = in->max_pool_size;

	if (in->page_size == 0)
		return hc_fail(HC_ERR_INVALID, "pool %zu: page_size must be non-zero", i);
	if (!round_up(in->page_size, align, &page))
		return hc_fail(HC_ERR_INVALID, "pool %zu: page_size overflows when aligned", i);
	max_slice = page;
	if (in->max_slice_size && !round_up(in->max_slice_size, align, &max_slice))
		return hc_fail(HC_ERR_INVALID, "pool %zu: max_slice_size overflows when aligned",
			       i);
	if (max_slice > page)
		return hc_fail(HC_ERR_INVALID,
			       "pool %zu: max_slice_size (%llu) is larger than page_size (%llu); "
			       "a slice cannot span pages",
			       i, (unsigned long long)max_slice, (unsigned long long)page);
	if (cap) {
		if (cap < page)
			return hc_fail(HC_ERR_INVALID,
				       "pool %zu: max_pool_size (%llu) is smaller than page_size "
				       "(%llu); not even one page fits under the cap",
				       i, (unsigned long long)cap, (unsigned long long)page);
		if (cap / page > HC_MM_MAX_PAGES)
			return hc_fail(HC_ERR_INVALID,
				       "pool %zu: max_pool_size spans %llu pages, more than the "
				       "%u a pool can hold; raise page_size or lower the cap",
				       i, (unsigned long long)(cap / page), HC_MM_MAX_PAGES);
	}
	memset(o, 0, sizeof(*o));
	o->kind = HC_POOL_SLICED;
	o->page_size = page;
	o->max_slice_size = max_slice;
	o->max_pool_size = cap;
	o->dealloc_period = in->dealloc_period; /* accepted, and ignored as upstream */
	return HC_OK;
}

static hc_status explicit_list(const hc_pool_layout *in, uint64_t align, struct hc_layout **out)
{
	struct hc_layout *l;
	hc_status st = HC_OK;
	size_t i;

	if (in->n_pools == 0)
		return hc_fail(HC_ERR_INVALID, "the pool list is empty");
	if (!in->pools)
		return hc_fail(HC_ERR_INVALID, "pool list is NULL but n_pools is %zu", in->n_pools);
	if (in->n_pools > HC_MM_MAX_POOLS)
		return hc_fail(HC_ERR_INVALID,
			       "the pool list has %zu pools; at most %u dynamic pools are routable",
			       in->n_pools, HC_MM_MAX_POOLS);
	l = layout_new(in->n_pools);
	if (!l)
		return hc_fail(HC_ERR_OOM, "no host memory for a layout");
	for (i = 0; i < in->n_pools && st == HC_OK; i++) {
		const hc_pool_spec *s = &in->pools[i];
		hc_pool_spec *o = &l->pools[i];

		switch (s->kind) {
		case HC_POOL_SLICED:
			st = check_sliced(i, s, align, o);
			break;
		case HC_POOL_EXCLUSIVE:
			memset(o, 0, sizeof(*o));
			o->kind = HC_POOL_EXCLUSIVE;
			o->dealloc_period = s->dealloc_period;
			if (!round_up(s->max_alloc_size, align, &o->max_alloc_size))
				st = hc_fail(HC_ERR_INVALID,
					     "pool %zu: max_alloc_size overflows when aligned", i);
			break;
		case HC_POOL_DIRECT:
			memset(o, 0, sizeof(*o));
			o->kind = HC_POOL_DIRECT;
			o->reclaim_at = s->reclaim_at;
			break;
		case HC_POOL_EXPANDABLE:
			memset(o, 0, sizeof(*o));
			o->kind = HC_POOL_EXPANDABLE;
			o->max_pool_size = s->max_pool_size; /* rounded to the granule at use */
			o->reclaim_at = s->reclaim_at; /* 0, HC_RECLAIM_AT_PEAK or _SHARED */
			if (s->reclaim_at && s->reclaim_at != HC_RECLAIM_AT_PEAK &&
			    s->reclaim_at != HC_RECLAIM_AT_SHARED)
				st = hc_fail(HC_ERR_INVALID,
					     "pool %zu: an expandable pool's reclaim_at is 0 (unmap "
					     "on cleanup only), HC_RECLAIM_AT_PEAK or "
					     "HC_RECLAIM_AT_SHARED, not %llu",
					     i, (unsigned long long)s->reclaim_at);
			break;
		default:
			st = hc_fail(HC_ERR_INVALID,
				     "pool %zu: kind %d cannot appear in a layout (sliced, "
				     "exclusive, direct or expandable)",
				     i, (int)s->kind);
			break;
		}
		l->n = i + 1;
	}
	if (st != HC_OK) {
		hc_layout_free(l);
		return st;
	}
	*out = l;
	return HC_OK;
}

hc_status hc_layout_resolve(const hc_pool_layout *in, const struct hc_mm_props *p,
			    struct hc_layout **out)
{
	uint64_t align;

	if (!in || !p || !out)
		return hc_fail(HC_ERR_INVALID, "layout, properties and result must be non-NULL");
	align = p->alignment ? p->alignment : 1;
	switch (in->preset) {
	case HC_LAYOUT_DEFAULT:
	case HC_LAYOUT_WORKLOAD:
		return workload(align, HC_POOL_DIRECT, 0, out);
	case HC_LAYOUT_EXPANDABLE:
		return workload(align, HC_POOL_EXPANDABLE, 0, out);
	case HC_LAYOUT_EXPANDABLE_SHARED:
		return workload(align, HC_POOL_EXPANDABLE, HC_RECLAIM_AT_SHARED, out);
	case HC_LAYOUT_SUBSLICES:
	case HC_LAYOUT_EXCLUSIVE_PAGES:
		if (p->max_page_size == 0)
			return hc_fail(HC_ERR_INVALID, "presets need a non-zero max_page_size");
		if (in->preset == HC_LAYOUT_EXCLUSIVE_PAGES)
			return exclusive_pages(p->max_page_size, align, out);
		return sub_slices(p->max_page_size, align, out);
	case HC_LAYOUT_EXPLICIT:
		return explicit_list(in, align, out);
	}
	return hc_fail(HC_ERR_INVALID, "unknown layout preset %d", (int)in->preset);
}

hc_status hc_layout_custom(const hc_pool_spec *specs, size_t n, struct hc_layout **out)
{
	struct hc_layout *l;
	size_t i;

	if (!specs || !out || n == 0)
		return hc_fail(HC_ERR_INVALID, "a custom layout needs at least one pool");
	if (n > HC_MM_MAX_POOLS)
		return hc_fail(HC_ERR_INVALID, "%zu pools; at most %u", n, HC_MM_MAX_POOLS);
	for (i = 0; i < n; i++) {
		hc_pool_kind k = specs[i].kind;

		if (k != HC_POOL_SLICED && k != HC_POOL_EXCLUSIVE && k != HC_POOL_DIRECT &&
		    k != HC_POOL_EXPANDABLE)
			return hc_fail(HC_ERR_INVALID, "pool %zu: kind %d cannot appear in a layout",
				       i, (int)k);
		if (k == HC_POOL_SLICED && specs[i].page_size == 0)
			return hc_fail(HC_ERR_INVALID, "pool %zu: page_size must be non-zero", i);
	}
	l = layout_new(n);
	if (!l)
		return hc_fail(HC_ERR_OOM, "no host memory for a layout");
	memcpy(l->pools, specs, n * sizeof(*specs));
	l->n = n;
	*out = l;
	return HC_OK;
}

void hc_layout_free(struct hc_layout *layout)
{
	free(layout);
}

size_t hc_layout_count(const struct hc_layout *layout)
{
	return layout ? layout->n : 0;
}

const hc_pool_spec *hc_layout_pool(const struct hc_layout *layout, size_t i)
{
	return layout && i < layout->n ? &layout->pools[i] : NULL;
}

bool hc_layout_split(const struct hc_layout *layout, size_t i)
{
	return layout && i < layout->n && layout->split == i + 1;
}

/* The kind of pool @i: its spec's kind, but the Workload layout's large
 * pool is a split pool (split.c) that reports call direct.  NULL for a
 * kind no layout may hold (hc_layout_custom and the validators let only
 * sliced, exclusive and direct through). */
const struct hc_pool_ops *hc_layout_ops(const struct hc_layout *layout, size_t i)
{
	const hc_pool_spec *s = hc_layout_pool(layout, i);

	if (!s)
		return NULL;
	if (hc_layout_split(layout, i))
		return &hc_split_ops;
	switch (s->kind) {
	case HC_POOL_SLICED:
		return &hc_sliced_ops;
	case HC_POOL_EXCLUSIVE:
		return &hc_exclusive_ops;
	case HC_POOL_DIRECT:
		return &hc_direct_ops;
	case HC_POOL_EXPANDABLE:
		return &hc_expandable_ops;
	default:
		return NULL;
	}
}
