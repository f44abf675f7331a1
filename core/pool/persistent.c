/*
 * persistent.c - exact-fit slices for persistent windows and capture.
 *
 * Each slice owns one storage allocation of its effective size, and a free
 * slice is reused only by a request of the same effective size, the oldest
 * such slice first (tree keyed by (effective size, creation order)).  There
 * is no splitting and no size limit: the manager routes here in persistent
 * mode without asking the pool to accept, as upstream does, so persistent
 * allocations may exceed max_page_size.  Slices survive hc_mm_install.
 * An explicit cleanup frees every free slice; a periodic one does nothing.
 */
#include <stdlib.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

/* @spec: max_alloc_size is the device's max_page_size (reports). */
static void persistent_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align)
{
	p->align = align;
	p->spec.kind = HC_POOL_PERSISTENT;
	p->spec.max_alloc_size = spec->max_alloc_size;
	p->accept_max = UINT64_MAX; /* never asked: see above */
}

static struct hc_slice *persistent_try_reserve(struct hc_pool *p, uint64_t size)
{
	return hc_pool_take_exact(p, size);
}

static hc_status persistent_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out)
{
	uint64_t pad = hc_pad(size, p->align), eff = size + pad, addr;
	struct hc_slice *s;
	hc_status st;

	if (eff < size)
		return hc_fail(HC_ERR_TOO_BIG, "%llu B overflow when aligned",
			       (unsigned long long)size);
	if (p->nslots == p->cap_slots) {
		uint64_t cap = p->cap_slots ? p->cap_slots * 2 : 16;
		struct hc_slice **ns = realloc(p->slots, cap * sizeof(*ns));

		if (!ns)
			return hc_fail(HC_ERR_OOM, "no host memory for the slot table");
		p->slots = ns;
		p->cap_slots = cap;
	}
	s = hc_pool_slice_new(p);
	if (!s)
		return hc_fail(HC_ERR_OOM, "no host memory for a slice record");
	st = hc_pool_storage_alloc(p, eff, &addr);
	if (st != HC_OK) {
		hc_pool_slice_put(p, s);
		return st;
	}
	p->slots[p->nslots++] = s;
	s->pool = p;
	s->seq = p->next_seq++;
	s->span = eff;
	s->addr = addr;
	s->size = size;
	s->padding = pad;
	hc_pool_reserved_add(p, eff);
	if (++p->npages > p->pages_peak)
		p->pages_peak = p->npages;
	hc_pool_mark_used(p, s, size);
	*out = s;
	return HC_OK;
}

static void persistent_on_free(struct hc_pool *p, struct hc_slice *s)
{
	s->node.k1 = s->span;
	s->node.k2 = s->seq;
	s->node.val = 0;
	hc_tree_insert(&p->by_size, &s->node);
	s->in_tree = true;
}

/* Frees the free slices (all of them with @all), keeping the others in order. */
static void sweep(struct hc_pool *p, bool all)
{
	uint64_t i, kept = 0;

	for (i = 0; i < p->nslots; i++) {
		struct hc_slice *s = p->slots[i];

		if (!all && !s->in_tree) {
			p->slots[kept++] = s;
			continue;
		}
		if (s->in_tree)
			hc_tree_remove(&p->by_size, &s->node);
		hc_pool_storage_free(p, s->addr, s->span);
		hc_pool_reserved_sub(p, s->span);
		p->npages--;
		hc_pool_slice_put(p, s);
	}
	p->nslots = kept;
}

static void persistent_cleanup(struct hc_pool *p, uint64_t alloc_nr, bool explicit_)
{
	/* by_size holds the free slices: with none, nothing to sweep */
	if (explicit_ && p->by_size.n)
		sweep(p, false);
}

static void persistent_destroy(struct hc_pool *p)
{
	sweep(p, true);
	free(p->slots);
	p->slots = NULL;
	p->nslots = p->cap_slots = 0;
}

/* Capture end: a touched slice that is free now is taken back out of the
 * free tree so the graph can hold it.  Its recorded size is kept. */
void hc_persistent_take(struct hc_pool *p, struct hc_slice *s)
{
	hc_tree_remove(&p->by_size, &s->node);
	s->in_tree = false;
	hc_pool_mark_used(p, s, s->size);
}

const struct hc_pool_ops hc_persistent_ops = {
	.name = "persistent",
	.report_kind = HC_POOL_PERSISTENT,
	.init = persistent_init,
	.try_reserve = persistent_try_reserve,
	.alloc = persistent_alloc,
	.on_free = persistent_on_free,
	.cleanup = persistent_cleanup,
	.destroy = persistent_destroy,
	.valid = hc_persistent_valid,
};
