/*
 * expandable.c - a pool in one range of device addresses, with physical
 * memory mapped into it granule by granule as it grows (PyTorch's
 * expandable_segments, on the HAL's va_reserve / pmem_map).
 *
 * Why: a pool of storage allocations can only give memory back by whole
 * allocations, so a free block inside an allocation that still holds a
 * used one is stuck there (split.c's segments reserve up to 1.17 x peak
 * live on multi-stream histories), and a new allocation cannot extend an
 * old one.  Here there is one buffer per pool: blocks are placed in one
 * address space, and only the granules (props.vmm_granularity, 2 MiB on
 * the GPUs we know) that live blocks touch need memory behind them.
 *
 * The range is reserved on the first request that needs it, spec
 * max_pool_size bytes or else the device's total memory, rounded up to
 * the granule; the "page" of every block is one record for the whole
 * range.  Blocks tile it in address order (prev/next); a free block sits
 * in p->free_runs keyed by address with its size as the searched value,
 * so a reservation takes the lowest-addressed free run that holds its
 * effective size (size rounded up to the alignment, never 0): address-
 * ordered first fit, which packs live blocks towards the bottom and so
 * keeps the mapped top low.  The front of the run is handed out and the
 * rest stays free; a free merges with free neighbours.
 *
 * Granules: @touch counts the live blocks touching each one; a
 * reservation whose block lies on unmapped granules maps each run of them
 * with one pmem_map (growing at the top, that is exactly the block's new
 * granules: one call for the request rounded up).  A free maps nothing
 * and unmaps nothing: its granules stay mapped, a cache for the next
 * request.  A runtime unmaps only whole mappings, so every mapping is
 * recorded (@map_start, @map_len) and linked in address order
 * (@map_next, @map_prev); the explicit cleanup (hc_memory_cleanup, the
 * cleanup-and-retry before an HC_ERR_OOM is returned, install) walks that
 * list and unmaps every mapping no live block touches, adjacent ones in
 * one call, and destroy unmaps everything and releases the range.  Neither
 * they nor the watermark visit granules nothing maps: they used to walk
 * the whole range, a cost in reserved addresses (by default the device's
 * memory: 32768 granules on 64 GiB) rather than in mappings
 * (bench/callgrind-xp-cleanup).  Reserved bytes
 * are the mapped bytes; "pages" in reports counts mappings.
 *
 * reclaim_at = HC_RECLAIM_AT_PEAK adds the split pool's watermark: before
 * a map that would take the mapped bytes above the peak in use, idle
 * mappings are unmapped first (reclaim()).  The preset leaves it off
 * (reclaim_at 0), as PyTorch's expandable segments do: an unmap waits for
 * the stream, and on an H100 the watermark's unmaps made ResNet-50
 * training 1.22 x slower than PyTorch's allocator, while the corpus
 * reserves at most 2 % more without it (doc/memory-efficiency.md, 5).
 *
 * reclaim_at = HC_RECLAIM_AT_SHARED lets the streams of a device share
 * its physical memory (issue 30; doc/memory-efficiency.md, 5.2).  Each
 * stream keeps its own range, and a free still maps and unmaps nothing;
 * but while several streams of the device are open, a free that leaves a
 * granule untouched while the device maps more than it uses makes the
 * pool record a fence on its stream (@fence: after every free so far) and
 * lend every mapping no live block touches behind it (core/pool/lend.c).
 * A pool of another stream about to map first unmaps lent mappings whose
 * fence has passed (an event query, and pmem_unmap without a stream
 * synchronisation: nothing waits) and maps on the memory that freed.  The
 * owner reuses its freed block at once, as before (first fit finds it
 * mapped): before it places a block on a lent mapping, or unmaps anything
 * itself, it takes its entries back; at its frees and maps it forgets
 * those another stream took (@lent, @nlent).  One fence at a time per
 * pool, and none with one stream open: single-stream figures are the
 * preset's.
 *
 * Failure leaves the pool as it was: a map the device refuses (HC_ERR_OOM)
 * or the HAL refuses because a stream of the device is capturing
 * (HC_ERR_STATE) undoes the maps this request made and returns the
 * status; a request that fits mapped granules needs no storage call and
 * works then.  A pool whose manager has no virtual memory is never one of
 * these: the router builds the Workload layout's split pool instead
 * (manager.c, pools_build), which reports call direct.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

#define SLICE_OF(n) ((struct hc_slice *)(n))
#define UNMAPPED UINT32_MAX
#define NEW_MAP (1u << 31) /* map_span: a mapping this call made */

struct hc_xrange {
	uint64_t base, size;   /* the reservation */
	uint64_t gran;         /* G */
	uint32_t ngran;        /* size / G */
	uint32_t *touch;       /* live blocks touching each granule */
	uint32_t *map_start;   /* per granule: first granule of its mapping, or UNMAPPED */
	uint32_t *map_len;     /* at a mapping's first granule: its granules */
	/* The mappings in address order, linked through their first granules
	 * (UNMAPPED ends the list): cleanup and the watermark visit mappings,
	 * not the range's granules, most of which nothing maps. */
	uint32_t *map_next, *map_prev;
	uint32_t map_first, map_last;
	/* HC_RECLAIM_AT_SHARED: the fence of the last lending while its
	 * owner has not seen it pass (at most one per pool). */
	struct hc_lend_fence *fence;
	bool dirty;            /* a granule went idle since the last fence */
	uint8_t *lent;         /* per mapping (first granule): on the device's list */
	uint32_t nlent;        /* mappings lent */
	struct hc_page page;   /* the blocks' page: the whole range */
};

static void xp_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align)
{
	p->align = align;
	p->spec = *spec;
	p->spec.kind = HC_POOL_EXPANDABLE;
	p->accept_max = UINT64_MAX;
	p->park = HC_PARK_NONE;
}

static void run_insert(struct hc_pool *p, struct hc_slice *s)
{
	s->node.k1 = s->addr;
	s->node.k2 = 0;
	s->node.val = s->size;
	hc_tree_insert(&p->free_runs, &s->node);
	s->in_tree = true;
}

static void run_remove(struct hc_pool *p, struct hc_slice *s)
{
	hc_tree_remove(&p->free_runs, &s->node);
	s->in_tree = false;
}

/* The granules [*g0, *g1] that [@addr, +@bytes) touches. */
static void span_of(const struct hc_xrange *xr, uint64_t addr, uint64_t bytes, uint32_t *g0,
		    uint32_t *g1)
{
	*g0 = (uint32_t)((addr - xr->base) / xr->gran);
	*g1 = (uint32_t)((addr - xr->base + bytes - 1) / xr->gran);
}

static void touch_add(struct hc_xrange *xr, const struct hc_slice *s, int d)
{
	uint32_t g0, g1, g;

	span_of(xr, s->addr, s->size + s->padding, &g0, &g1);
	for (g = g0; g <= g1; g++) {
		xr->touch[g] += (uint32_t)d;
		/* a free that leaves a granule idle: something to lend (HC_RECLAIM_AT_SHARED) */
		if (d < 0 && !xr->touch[g])
			xr->dirty = true;
	}
}

/* Frees the range's host records (not the addresses or the slices). */
static void xrange_free(struct hc_xrange *xr)
{
	free(xr->touch);
	free(xr->map_start);
	free(xr->map_len);
	free(xr->map_next);
	free(xr->map_prev);
	free(xr->lent);
	free(xr);
}

/* Reserves the range (first use).  The whole range is one free run. */
static hc_status range_open(struct hc_pool *p)
{
	const struct hc_storage *st = &p->core->st;
	uint64_t g = p->core->vmm_granularity, want = p->spec.max_pool_size;
	struct hc_xrange *xr;
	struct hc_slice *s;
	hc_status rc;

	if (!want)
		want = p->core->va_size;
	if (!g || !st->va_reserve || want == 0 || want > UINT64_MAX - g)
		return hc_fail(HC_ERR_UNSUPPORTED, "expandable pool: no virtual memory range");
	want = (want + g - 1) / g * g;
	if (want / g >= NEW_MAP)
		return hc_fail(HC_ERR_TOO_BIG, "expandable pool: %llu B is too many granules",
			       (unsigned long long)want);
	xr = calloc(1, sizeof(*xr));
	s = hc_pool_slice_new(p);
	if (!xr || !s)
		goto err_host;
	xr->gran = g;
	xr->size = want;
	xr->ngran = (uint32_t)(want / g);
	xr->touch = calloc(xr->ngran, sizeof(*xr->touch));
	xr->map_start = malloc((size_t)xr->ngran * sizeof(*xr->map_start));
	xr->map_len = calloc(xr->ngran, sizeof(*xr->map_len));
	xr->map_next = malloc((size_t)xr->ngran * sizeof(*xr->map_next));
	xr->map_prev = malloc((size_t)xr->ngran * sizeof(*xr->map_prev));
	xr->lent = calloc(xr->ngran, sizeof(*xr->lent));
	if (!xr->touch || !xr->map_start || !xr->map_len || !xr->map_next || !xr->map_prev ||
	    !xr->lent)
		goto err_host;
	xr->map_first = xr->map_last = UNMAPPED;
	memset(xr->map_start, 0xff, (size_t)xr->ngran * sizeof(*xr->map_start));
	rc = st->va_reserve(st->ctx, want, &xr->base);
	if (rc != HC_OK) {
		rc = hc_fail_over(rc, "expandable pool: reserving %llu B of addresses",
				  (unsigned long long)want);
		goto err_free;
	}
	xr->page.addr = xr->base;
	xr->page.size = want;
	xr->page.first = s;
	s->pool = p;
	s->page = &xr->page;
	s->addr = xr->base;
	s->size = want;
	s->sfree = true;
	run_insert(p, s);
	p->xr = xr;
	return HC_OK;

err_host:
	rc = hc_fail(HC_ERR_OOM, "expandable pool: no host memory for the range's records");
err_free:
	if (s)
		hc_pool_slice_put(p, s);
	if (xr)
		xrange_free(xr);
	return rc;
}

/* Whether any granule @s's first @eff bytes touch is unmapped. */
static bool needs_map(const struct hc_xrange *xr, const struct hc_slice *s, uint64_t eff)
{
	uint32_t g0, g1, g;

	span_of(xr, s->addr, eff, &g0, &g1);
	for (g = g0; g <= g1; g++)
		if (xr->map_start[g] == UNMAPPED)
			return true;
	return false;
}

/*
 * Links the new mapping at granule @g (@n granules, not yet recorded) into
 * the address-ordered list.  Its neighbours are found from the granules
 * beside it when they are mapped (growth at the top: the one below), else
 * by walking down from the highest mapping: the cost is in mappings.
 */
static void map_link(struct hc_xrange *xr, uint32_t g, uint32_t n)
{
	uint32_t prev, next;

	if (g > 0 && xr->map_start[g - 1] != UNMAPPED) {
		prev = xr->map_start[g - 1];
		next = xr->map_next[prev];
	} else if (g + n < xr->ngran && xr->map_start[g + n] != UNMAPPED) {
		next = xr->map_start[g + n];
		prev = xr->map_prev[next];
	} else {
		for (prev = xr->map_last; prev != UNMAPPED && prev > g; prev = xr->map_prev[prev])
			;
		next = prev != UNMAPPED ? xr->map_next[prev] : xr->map_first;
	}
	xr->map_prev[g] = prev;
	xr->map_next[g] = next;
	*(prev != UNMAPPED ? &xr->map_next[prev] : &xr->map_first) = g;
	*(next != UNMAPPED ? &xr->map_prev[next] : &xr->map_last) = g;
}

static void map_unlink(struct hc_xrange *xr, uint32_t g)
{
	uint32_t prev = xr->map_prev[g], next = xr->map_next[g];

	*(prev != UNMAPPED ? &xr->map_next[prev] : &xr->map_first) = next;
	*(next != UNMAPPED ? &xr->map_prev[next] : &xr->map_last) = prev;
}

/* Records the mapping of granules [@g, @g + @n); or forgets it (@on
 * false); @device: the device's figure moves too (not when another pool
 * unmapped a lent mapping: it moved it then). */
static void map_note_as(struct hc_pool *p, uint32_t g, uint32_t n, bool on, bool device)
{
	struct hc_xrange *xr = p->xr;
	uint32_t i;

	if (on)
		map_link(xr, g, n);
	else
		map_unlink(xr, g);
	for (i = 0; i < n; i++)
		xr->map_start[g + i] = on ? g : UNMAPPED;
	xr->map_len[g] = on ? n : 0;
	if (p->shared && on)
		atomic_fetch_add_explicit(&p->shared->reserved, (uint64_t)n * xr->gran,
					  memory_order_relaxed);
	else if (p->shared && device)
		hc_shared_sub(&p->shared->reserved, (uint64_t)n * xr->gran);
	if (on) {
		hc_pool_reserved_add(p, (uint64_t)n * xr->gran);
		if (++p->npages > p->pages_peak)
			p->pages_peak = p->npages;
	} else {
		hc_pool_reserved_sub(p, (uint64_t)n * xr->gran);
		p->npages--;
	}
}

static void map_note(struct hc_pool *p, uint32_t g, uint32_t n, bool on)
{
	map_note_as(p, g, n, on, true);
}

/* hc_lend_withdraw's call for each entry of @p: the mapping is @p's alone
 * again, or (@taken) gone. */
static void lend_back(struct hc_pool *p, uint32_t m, uint32_t len, bool taken)
{
	p->xr->lent[m] = 0;
	if (taken)
		map_note_as(p, m, len, false, false);
}

/* Takes every lent mapping of @p back (before @p places a block on one or
 * unmaps anything itself); @taken_only: only forgets those another
 * stream's pool unmapped (so that @p's figures stop counting them). */
static void withdraw_as(struct hc_pool *p, bool taken_only)
{
	if (!p->xr || !p->xr->nlent)
		return;
	p->xr->nlent -= hc_lend_withdraw(p->shared, p, taken_only, &p->core->st, lend_back);
}

static void withdraw(struct hc_pool *p)
{
	withdraw_as(p, false);
}

/* Whether [@addr, +@eff) lies on a lent mapping. */
static bool span_lent(const struct hc_xrange *xr, uint64_t addr, uint64_t eff)
{
	uint32_t g0, g1, g;

	if (!xr->nlent)
		return false;
	span_of(xr, addr, eff, &g0, &g1);
	for (g = g0; g <= g1; g++)
		if (xr->map_start[g] != UNMAPPED && xr->lent[xr->map_start[g]])
			return true;
	return false;
}

/* Unmaps the mappings recorded in [@g, @g + @n) (whole ones, adjacent) in
 * one call.  Return: the storage's status; on failure nothing is forgotten
 * (a runtime failure part way is the HAL's to count). */
static hc_status unmap_runs(struct hc_pool *p, uint32_t g, uint32_t n)
{
	struct hc_xrange *xr = p->xr;
	const struct hc_storage *st = &p->core->st;
	hc_status rc = st->unmap(st->ctx, xr->base + (uint64_t)g * xr->gran,
				 (uint64_t)n * xr->gran);
	uint32_t end = g + n;

	if (rc != HC_OK)
		return rc;
	while (g < end) {
		uint32_t len = xr->map_len[g];

		if (!len)
			break; /* not a mapping's start: the callers never pass one */
		map_note(p, g, len, false);
		g += len;
	}
	return HC_OK;
}

/* Maps every unmapped granule of [@addr, +@eff), a pmem_map per run of
 * them; on a refusal, unmaps what this call mapped (its mappings carry
 * NEW_MAP in their length meanwhile) and returns it. */
static hc_status map_span(struct hc_pool *p, uint64_t addr, uint64_t eff)
{
	struct hc_xrange *xr = p->xr;
	const struct hc_storage *st = &p->core->st;
	uint32_t g0, g1, g;
	hc_status rc = HC_OK;

	span_of(xr, addr, eff, &g0, &g1);
	for (g = g0; g <= g1 && rc == HC_OK;) {
		uint32_t n = 0;

		if (xr->map_start[g] != UNMAPPED) {
			g++;
			continue;
		}
		while (g + n <= g1 && xr->map_start[g + n] == UNMAPPED)
			n++;
		rc = st->map(st->ctx, xr->base + (uint64_t)g * xr->gran, (uint64_t)n * xr->gran);
		if (rc == HC_OK) {
			map_note(p, g, n, true);
			xr->map_len[g] |= NEW_MAP;
		}
		g += n;
	}
	for (g = g0; g <= g1; g++) {
		if (xr->map_start[g] != g || !(xr->map_len[g] & NEW_MAP))
			continue;
		xr->map_len[g] &= ~NEW_MAP;
		if (rc != HC_OK)
			(void)unmap_runs(p, g, xr->map_len[g]);
	}
	if (rc == HC_ERR_OOM)
		return hc_fail_over(HC_ERR_OOM, "expandable pool: the device refused %llu B",
				    (unsigned long long)eff);
	return rc;
}

/* Hands out the front @eff bytes of free run @s (out of the tree); the
 * rest, in record @r (or kept as padding when there is none), stays free. */
static void take(struct hc_pool *p, struct hc_slice *s, struct hc_slice *r, uint64_t size,
		 uint64_t eff)
{
	uint64_t bytes = s->size, rest = bytes - eff;

	if (rest && r) {
		hc_slice_split_tail(p, s, r, eff);
		run_insert(p, r);
		bytes = eff;
	} else if (r) {
		hc_pool_slice_put(p, r);
	}
	s->sfree = false;
	s->size = size;
	s->padding = bytes - size;
	touch_add(p->xr, s, 1);
	hc_pool_mark_used(p, s, size);
	if (p->use.bytes_in_use + p->use.bytes_padding > p->used_peak)
		p->used_peak = p->use.bytes_in_use + p->use.bytes_padding;
	if (p->shared)
		hc_shared_used_add(p->shared, bytes);
}

/* Whether no live block touches granules [@g, @g + @n). */
static bool untouched(const struct hc_xrange *xr, uint32_t g, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (xr->touch[g + i])
			return false;
	return true;
}

/* The bytes of unmapped granules [@addr, +@eff) touches. */
static uint64_t unmapped_in(const struct hc_xrange *xr, uint64_t addr, uint64_t eff)
{
	uint32_t g0, g1, g;
	uint64_t n = 0;

	span_of(xr, addr, eff, &g0, &g1);
	for (g = g0; g <= g1; g++)
		n += xr->map_start[g] == UNMAPPED;
	return n * xr->gran;
}

/* The mapped bytes: the device's (every pool with the shared figures),
 * else this pool's. */
static uint64_t mapped_bytes(const struct hc_pool *p)
{
	return p->shared ? atomic_load_explicit(&p->shared->reserved, memory_order_relaxed)
			 : p->use.bytes_reserved;
}

/*
 * Before mapping for a block at [@addr, +@eff): the direct pool's
 * watermark over mapped bytes.  While the mapped bytes (the device's,
 * with shared figures) plus the new ones would pass the highest in-use
 * bytes seen (or the in-use bytes plus this block), mappings no live
 * block touches are unmapped, highest first (first fit uses the low ones
 * again soonest), adjacent ones in one call, never one the block lies on.
 */
static void reclaim(struct hc_pool *p, uint64_t addr, uint64_t eff)
{
	struct hc_xrange *xr = p->xr;
	uint64_t need = unmapped_in(xr, addr, eff), used, peak, wm;
	uint32_t g0, g1, m, below, from = 0, n = 0;

	if (!need || !p->npages || p->spec.reclaim_at != HC_RECLAIM_AT_PEAK)
		return;
	if (p->shared) {
		used = hc_mm_shared_used(p->shared);
		peak = atomic_load_explicit(&p->shared->peak, memory_order_relaxed);
	} else {
		used = p->use.bytes_in_use + p->use.bytes_padding;
		peak = p->used_peak;
	}
	wm = used + eff > peak ? used + eff : peak;
	span_of(xr, addr, eff, &g0, &g1);
	for (m = xr->map_last; m != UNMAPPED && mapped_bytes(p) + need > wm; m = below) {
		uint32_t len = xr->map_len[m];

		below = xr->map_prev[m];
		/* a gap ends the stretch: one call covers adjacent mappings only */
		if (n && m + len != from) {
			if (unmap_runs(p, from, n) != HC_OK)
				return;
			n = 0;
		}
		if ((m <= g1 && m + len > g0) || !untouched(xr, m, len)) {
			if (n && unmap_runs(p, from, n) != HC_OK)
				return;
			n = 0;
			continue;
		}
		from = m; /* extends the stretch downwards */
		n += len;
		if (mapped_bytes(p) - (uint64_t)n * xr->gran + need <= wm)
			break;
	}
	if (n)
		(void)unmap_runs(p, from, n);
}

static void share(struct hc_pool *p);
static bool sharing(const struct hc_pool *p);

static struct hc_slice *fit(const struct hc_pool *p, uint64_t eff)
{
	return SLICE_OF(hc_tree_first_fit(&p->free_runs, eff));
}

static struct hc_slice *xp_try_reserve(struct hc_pool *p, uint64_t size)
{
	uint64_t eff = hc_pool_block_bytes(p, size);
	struct hc_slice *s, *r = NULL;

	if (!p->xr || eff < size)
		return NULL;
	s = fit(p, eff);
	if (s && span_lent(p->xr, s->addr, eff))
		withdraw(p);
	if (!s || needs_map(p->xr, s, eff))
		return NULL;
	if (s->size > eff && !(r = hc_pool_slice_new(p)))
		return NULL; /* the alloc path reports it */
	run_remove(p, s);
	take(p, s, r, size, eff);
	return s;
}

static hc_status xp_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out)
{
	uint64_t eff = hc_pool_block_bytes(p, size);
	struct hc_slice *s, *r = NULL;
	hc_status rc;

	if (eff < size)
		return hc_fail(HC_ERR_TOO_BIG, "%llu B overflow when aligned",
			       (unsigned long long)size);
	if (!p->xr) {
		rc = range_open(p);
		if (rc != HC_OK)
			return rc;
	}
	s = fit(p, eff);
	if (!s)
		return hc_fail(HC_ERR_OOM, "expandable pool: no free run of %llu B in its %llu B range",
			       (unsigned long long)eff, (unsigned long long)p->xr->size);
	if (s->size > eff && !(r = hc_pool_slice_new(p)))
		return hc_fail(HC_ERR_OOM, "no host memory for a slice record");
	if (span_lent(p->xr, s->addr, eff))
		withdraw(p);
	reclaim(p, s->addr, eff);
	if (sharing(p)) {
		uint64_t need = unmapped_in(p->xr, s->addr, eff);

		/* take what the other streams lent before mapping more */
		if (need && mapped_bytes(p) > hc_mm_shared_used(p->shared))
			(void)hc_lend_take(p->shared, p, &p->core->st, need);
	}
	rc = map_span(p, s->addr, eff);
	if (rc != HC_OK) {
		if (r)
			hc_pool_slice_put(p, r);
		return rc;
	}
	run_remove(p, s);
	take(p, s, r, size, eff);
	*out = s;
	share(p); /* after the take: never unmaps what this block lies on */
	return HC_OK;
}

static void xp_on_free(struct hc_pool *p, struct hc_slice *s)
{
	struct hc_slice *prev = s->prev, *next = s->next;

	touch_add(p->xr, s, -1);
	if (p->shared)
		hc_shared_sub(&p->shared->used, s->size + s->padding);
	s->size += s->padding;
	s->padding = 0;
	s->sfree = true;
	if (next && next->sfree) {
		run_remove(p, next);
		s->size += next->size;
		hc_slice_unlink(next);
		hc_pool_slice_put(p, next);
	}
	if (prev && prev->sfree) {
		/* the run keeps its address: only its size grows */
		hc_slice_unlink(s);
		hc_pool_slice_put(p, s);
		hc_tree_raise(&p->free_runs, &prev->node, prev->size + s->size);
		prev->size += s->size;
	} else {
		run_insert(p, s);
	}
	share(p);
}

/* Unmaps every mapping no live block touches (@all: every mapping), each
 * stretch of adjacent ones in one call; stops at the first refusal.  Walks
 * the mappings, not the range: its cost is in mapped granules.  Lent
 * mappings are taken back first. */
static hc_status unmap_idle(struct hc_pool *p, bool all)
{
	struct hc_xrange *xr = p->xr;
	uint32_t m, from = 0, n = 0;
	hc_status rc = HC_OK;

	withdraw(p);
	for (m = xr->map_first; m != UNMAPPED && rc == HC_OK; m = xr->map_next[m]) {
		uint32_t len = xr->map_len[m];

		if (n && (from + n != m || !(all || untouched(xr, m, len)))) {
			rc = unmap_runs(p, from, n); /* unlinks only mappings below m */
			n = 0;
		}
		if (rc == HC_OK && (all || untouched(xr, m, len))) {
			if (!n)
				from = m;
			n += len;
		}
	}
	if (n && rc == HC_OK)
		rc = unmap_runs(p, from, n);
	return rc;
}

/* Lends every mapping of @p no live block touches, not lent yet, behind
 * the fence just recorded (their frees all precede it). */
static void lend(struct hc_pool *p)
{
	struct hc_xrange *xr = p->xr;
	uint32_t m;

	for (m = xr->map_first; m != UNMAPPED; m = xr->map_next[m]) {
		uint32_t len = xr->map_len[m];

		if (xr->lent[m] || !untouched(xr, m, len))
			continue;
		if (!hc_lend_put(p->shared, p, m, len, xr->base + (uint64_t)m * xr->gran,
				 (uint64_t)len * xr->gran, xr->fence))
			return;
		xr->lent[m] = 1;
		xr->nlent++;
	}
}

/* Whether @p gives idle mappings back to the device (HC_RECLAIM_AT_SHARED
 * with several streams of the device open and fences in its storage). */
static bool sharing(const struct hc_pool *p)
{
	return p->spec.reclaim_at == HC_RECLAIM_AT_SHARED && p->xr && p->shared &&
	       p->core->st.fence &&
	       atomic_load_explicit(&p->shared->managers, memory_order_relaxed) > 1;
}

/*
 * HC_RECLAIM_AT_SHARED, at the pool's frees and maps: forgets the lent
 * mappings another stream took; drops the pending fence once it passed;
 * and with none pending, when a granule went idle while the device maps
 * more than it uses, records a fence and lends every idle mapping not
 * lent yet behind it.  A refused fence (a capture records) lends nothing.
 *
 * The pool does not unmap its own idle mappings when its fence passes:
 * that version (each stream shedding down to the device's bytes in use,
 * or to its peak in use) reached 1.16-1.54 x peak in use on
 * cnn_infer_streams for 2400-3000 device calls, 88-106 ms predicted, as
 * a stream mapped again what it had shed; lent mappings move only when
 * another stream needs them (doc/memory-efficiency.md, 5.2).
 */
static void share(struct hc_pool *p)
{
	struct hc_xrange *xr = p->xr;
	const struct hc_storage *st = &p->core->st;
	bool done = false;
	void *ev = NULL;

	if (!sharing(p))
		return;
	withdraw_as(p, true);
	if (xr->fence) {
		if (st->fence_passed(st->ctx, xr->fence->ev, &done) != HC_OK || !done)
			return;
		hc_lend_fence_put(p->shared, xr->fence, st);
		xr->fence = NULL;
	}
	if (!xr->dirty || mapped_bytes(p) <= hc_mm_shared_used(p->shared))
		return;
	if (st->fence(st->ctx, &ev) != HC_OK)
		return;
	xr->fence = hc_lend_fence_new(ev);
	if (!xr->fence) {
		st->fence_drop(st->ctx, ev);
		return;
	}
	xr->dirty = false;
	lend(p);
}

static void xp_cleanup(struct hc_pool *p, uint64_t alloc_nr, bool explicit_)
{
	(void)alloc_nr;
	if (explicit_ && p->xr && p->use.bytes_reserved)
		(void)unmap_idle(p, false);
}

static void xp_destroy(struct hc_pool *p)
{
	struct hc_xrange *xr = p->xr;
	const struct hc_storage *st = &p->core->st;
	struct hc_slice *s, *nx;

	if (!xr)
		return;
	withdraw(p);
	if (xr->fence)
		hc_lend_fence_put(p->shared, xr->fence, st);
	if (unmap_idle(p, true) == HC_OK)
		(void)st->va_release(st->ctx, xr->base, xr->size);
	for (s = xr->page.first; s; s = nx) {
		nx = s->next;
		if (s->in_tree)
			run_remove(p, s);
		hc_pool_slice_put(p, s);
	}
	/* a refused unmap: the bytes leave the figures all the same */
	hc_pool_reserved_sub(p, p->use.bytes_reserved);
	p->npages = 0;
	xrange_free(xr);
	p->xr = NULL;
}

/*
 * The pool's structure: blocks tile the range in address order, free runs
 * merged and in the tree by address with their size, the touch counts
 * those of the live blocks, every touched granule mapped, the mapping
 * records whole, and reserved bytes and "pages" the mapped bytes and
 * mappings.  Adds up the usage it finds.
 */
static bool xp_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u)
{
	const struct hc_xrange *xr = p->xr;
	const struct hc_slice *s, *prev = NULL;
	uint64_t end = 0, runs = 0, maps = 0, mapped = 0;
	uint32_t *touch, g;
	bool ok = true;

	(void)parked; /* never parked: HC_PARK_NONE */
	if (!xr)
		return !p->free_runs.n && !p->npages && !p->use.bytes_reserved;
	touch = calloc(xr->ngran, sizeof(*touch));
	if (!touch)
		return true; /* cannot check without host memory */
	for (s = xr->page.first; s && ok; prev = s, s = s->next) {
		uint64_t ext = s->size + s->padding;

		ok = s->page == &xr->page && s->pool == p && s->prev == prev && !s->dead &&
		     s->addr == xr->base + end && ext && ext <= xr->size - end;
		if (!ok)
			break;
		end += ext;
		if (s->sfree) {
			ok = !s->owned && !s->pins && !s->id && !s->padding && s->in_tree &&
			     s->node.k1 == s->addr && s->node.val == s->size && !(prev && prev->sfree);
			runs++;
		} else {
			uint32_t g0, g1;

			ok = !s->in_tree && s->id && (s->owned || s->pins);
			span_of(xr, s->addr, ext, &g0, &g1);
			for (g = g0; g <= g1; g++)
				touch[g]++;
			u->number_allocs++;
			u->bytes_in_use += s->size;
			u->bytes_padding += s->padding;
		}
	}
	ok = ok && end == xr->size && runs == p->free_runs.n && hc_tree_valid(&p->free_runs);
	for (g = 0; g < xr->ngran && ok; g++) {
		uint32_t m = xr->map_start[g];

		ok = touch[g] == xr->touch[g] && (m != UNMAPPED || !touch[g]);
		if (!ok || m == UNMAPPED)
			continue;
		if (m == g) {
			ok = xr->map_len[g] && xr->map_len[g] <= xr->ngran - g;
			maps++;
		} else {
			ok = m < g && xr->map_start[m] == m && g - m < xr->map_len[m] && !xr->map_len[g];
		}
		mapped += xr->gran;
	}
	free(touch);
	/* the mapping list: each mapping once, in address order */
	{
		uint32_t m, before = UNMAPPED, listed = 0;

		for (m = xr->map_first; ok && m != UNMAPPED; before = m, m = xr->map_next[m])
			ok = m < xr->ngran && xr->map_start[m] == m && xr->map_prev[m] == before &&
			     (before == UNMAPPED || before < m) && ++listed <= maps;
		ok = ok && before == xr->map_last && listed == maps;
	}
	u->bytes_reserved += mapped;
	return ok && maps == p->npages;
}

const struct hc_pool_ops hc_expandable_ops = {
	.name = "expandable",
	.report_kind = HC_POOL_EXPANDABLE,
	.init = xp_init,
	.try_reserve = xp_try_reserve,
	.alloc = xp_alloc,
	.on_free = xp_on_free,
	.cleanup = xp_cleanup,
	.destroy = xp_destroy,
	.valid = xp_valid,
};
