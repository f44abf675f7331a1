/*
 * direct.c - one storage allocation per slice, exact-size reuse.
 *
 * Every slice owns an allocation of exactly its effective size (size plus
 * alignment padding), so the only waste is padding.  A free slice is reused
 * only by a request of the same effective size: the free slices sit in a
 * tree keyed by (effective size, slot index), and the lowest slot of that
 * size wins.  Slots are indices into a table; a released slot becomes a
 * vacancy that the next new slice takes (last vacated first), as upstream.
 *
 * reclaim_at is a watermark, not a budget: before a new allocation that
 * would take the reserved bytes above it, free slices are released in slot
 * order until the new allocation fits under it or nothing free is left, and
 * the allocation goes ahead either way.  That walk only runs on the path
 * that calls storage anyway.  An explicit cleanup releases every free slice.
 *
 * reclaim_at = HC_RECLAIM_AT_PEAK makes the watermark the pool's own peak of
 * in-use bytes (effective sizes) so far, this request included: the pool
 * keeps every cached allocation while its reserved bytes stay under the
 * highest demand it has seen, and on a miss that would pass it, releases
 * just enough.  Its reserved bytes therefore never exceed its peak in-use
 * bytes (when a request finds nothing to release it is itself the new
 * peak), with no figure to tune: upstream's measured plan (dry run, read
 * the peak, cap there) done online.  The Workload layout uses it.
 *
 * When the manager was made with shared figures (hc_mm_props.shared: the
 * streams of a device share one set), such a pool also counts its in-use
 * and reserved bytes there, and its watermark is the device's: on a miss
 * it gives back its own cached allocations while the device's reserved
 * bytes would pass the device's peak in-use.  Live memory stays with its
 * stream; only a stream's own free allocations are ever released, by that
 * stream, so no cross-stream fence is needed.
 *
 * "pages" in reports counts live slots (allocations held from storage).
 */
#include <stdlib.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

static void direct_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align)
{
	p->align = align;
	p->spec = *spec;
	p->accept_max = UINT64_MAX;
}

static struct hc_slice *direct_try_reserve(struct hc_pool *p, uint64_t size)
{
	struct hc_slice *s = hc_pool_take_exact(p, size);

	if (!s)
		return NULL;
	if (p->use.bytes_in_use + p->use.bytes_padding > p->used_peak)
		p->used_peak = p->use.bytes_in_use + p->use.bytes_padding;
	if (hc_pool_at_peak_shared(p))
		hc_shared_used_add(p->shared, s->span);
	return s;
}

static void slot_release(struct hc_pool *p, uint64_t i)
{
	struct hc_slice *s = p->slots[i];

	if (s->in_tree)
		hc_tree_remove(&p->by_size, &s->node);
	hc_pool_storage_free(p, s->addr, s->span);
	hc_pool_reserved_sub(p, s->span);
	if (hc_pool_at_peak_shared(p))
		hc_shared_sub(&p->shared->reserved, s->span);
	p->npages--;
	p->slots[i] = NULL;
	p->vacant[p->nvacant++] = i;
	hc_pool_slice_put(p, s);
}

/* Makes room for one more slot index and one more vacancy. */
static hc_status slots_grow(struct hc_pool *p)
{
	if (p->nslots == p->cap_slots) {
		uint64_t cap = p->cap_slots ? p->cap_slots * 2 : 16;
		struct hc_slice **ns = realloc(p->slots, cap * sizeof(*ns));
		uint64_t *nv;

		if (!ns)
			return hc_fail(HC_ERR_OOM, "no host memory for the slot table");
		p->slots = ns;
		nv = realloc(p->vacant, cap * sizeof(*nv));
		if (!nv)
			return hc_fail(HC_ERR_OOM, "no host memory for the slot table");
		p->vacant = nv;
		p->cap_slots = cap;
	}
	return HC_OK;
}

static hc_status direct_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out)
{
	uint64_t pad = hc_pad(size, p->align), eff = size + pad, reclaim = p->spec.reclaim_at;
	uint64_t i, addr;
	struct hc_slice *s;
	hc_status st;

	if (eff < size)
		return hc_fail(HC_ERR_TOO_BIG, "%llu B overflow when aligned",
			       (unsigned long long)size);
	if (hc_pool_at_peak_shared(p)) {
		struct hc_mm_shared *sh = p->shared;
		uint64_t used = hc_mm_shared_used(sh);
		uint64_t peak = atomic_load_explicit(&sh->peak, memory_order_relaxed);

		reclaim = used > UINT64_MAX - eff ? UINT64_MAX : used + eff;
		if (peak > reclaim)
			reclaim = peak;
		for (i = 0; i < p->nslots && p->by_size.n &&
			    atomic_load_explicit(&sh->reserved, memory_order_relaxed) + eff > reclaim;
		     i++) {
			if (p->slots[i] && p->slots[i]->in_tree)
				slot_release(p, i);
		}
		reclaim = 0; /* done: skip the per-pool walk below */
	} else if (reclaim == HC_RECLAIM_AT_PEAK) {
		uint64_t used = p->use.bytes_in_use + p->use.bytes_padding;

		reclaim = used > UINT64_MAX - eff ? UINT64_MAX : used + eff;
		if (p->used_peak > reclaim)
			reclaim = p->used_peak;
	}
	for (i = 0; reclaim && i < p->nslots && p->by_size.n && p->use.bytes_reserved + eff > reclaim;
	     i++) {
		if (p->slots[i] && p->slots[i]->in_tree)
			slot_release(p, i);
	}
	st = slots_grow(p);
	if (st != HC_OK)
		return st;
	s = hc_pool_slice_new(p);
	if (!s)
		return hc_fail(HC_ERR_OOM, "no host memory for a slice record");
	st = hc_pool_storage_alloc(p, eff, &addr);
	if (st != HC_OK) {
		hc_pool_slice_put(p, s);
		return st;
	}
	i = p->nvacant ? p->vacant[--p->nvacant] : p->nslots++;
	p->slots[i] = s;
	s->pool = p;
	s->seq = i;
	s->span = eff;
	s->addr = addr;
	s->size = size;
	s->padding = pad;
	hc_pool_reserved_add(p, eff);
	if (hc_pool_at_peak_shared(p))
		atomic_fetch_add_explicit(&p->shared->reserved, eff, memory_order_relaxed);
	if (++p->npages > p->pages_peak)
		p->pages_peak = p->npages;
	hc_pool_mark_used(p, s, size);
	if (p->use.bytes_in_use + p->use.bytes_padding > p->used_peak)
		p->used_peak = p->use.bytes_in_use + p->use.bytes_padding;
	if (hc_pool_at_peak_shared(p))
		hc_shared_used_add(p->shared, eff);
	*out = s;
	return HC_OK;
}

static void direct_on_free(struct hc_pool *p, struct hc_slice *s)
{
	if (hc_pool_at_peak_shared(p))
		hc_shared_sub(&p->shared->used, s->span);
	if (hc_pool_several(p) && !p->core->capture) {
		/* several streams: the free allocation goes to the device's
		 * idle cache at once, for any of them to adopt */
		slot_release(p, s->seq);
		return;
	}
	s->node.k1 = s->span;
	s->node.k2 = s->seq;
	s->node.val = 0;
	hc_tree_insert(&p->by_size, &s->node);
	s->in_tree = true;
}

static void direct_cleanup(struct hc_pool *p, uint64_t alloc_nr, bool explicit_)
{
	uint64_t i;

	if (!explicit_)
		return;
	/* by_size holds the free slices: the walk ends past the last one */
	for (i = 0; i < p->nslots && p->by_size.n; i++)
		if (p->slots[i] && p->slots[i]->in_tree)
			slot_release(p, i);
}

static void direct_destroy(struct hc_pool *p)
{
	uint64_t i;

	for (i = 0; i < p->nslots; i++)
		if (p->slots[i]) {
			/* still held (live or pinned): its in-use bytes leave too */
			if (!p->slots[i]->in_tree && hc_pool_at_peak_shared(p))
				hc_shared_sub(&p->shared->used, p->slots[i]->span);
			slot_release(p, i);
		}
	free(p->slots);
	free(p->vacant);
	p->slots = NULL;
	p->vacant = NULL;
	p->nslots = p->cap_slots = p->nvacant = 0;
}

const struct hc_pool_ops hc_direct_ops = {
	.name = "direct",
	.report_kind = HC_POOL_DIRECT,
	.init = direct_init,
	.try_reserve = direct_try_reserve,
	.alloc = direct_alloc,
	.on_free = direct_on_free,
	.cleanup = direct_cleanup,
	.destroy = direct_destroy,
	.valid = hc_direct_valid,
};
