/*
 * pages.c - what every pool kind takes from below: slice records, storage
 * calls, pages, the exact-size take, and the device-wide in-use figure.
 *
 * The spare records are chained through their @next, which a dead record
 * does not use: a record goes back when a free merges it into a neighbour,
 * and the free has just read and written that second cache line of it
 * (flags, identity, neighbours), so putting it back touches no other line
 * (issue 28: with the link in the third line, callgrind's 1 MiB cache
 * counted a fifth of the mixed replay's write misses there).
 *
 * Slices come from a slab of fixed chunks that is returned only when the
 * manager is destroyed (hc_mm_core_fini), so a struct hc_slice pointer is
 * always readable memory for the manager's life: a reference to a freed,
 * reused, merged or cleaned-up slice fails its identity check instead of
 * reading freed memory.  Everything here sees only the manager's struct
 * hc_mm_core, never the router's state.
 */
#include <stdlib.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

#define SLAB_CHUNK 1024

struct slab_chunk {
	struct slab_chunk *next;
	struct hc_slice slices[SLAB_CHUNK];
};

struct hc_slice *hc_pool_slice_new(struct hc_pool *p)
{
	struct hc_mm_core *c = p->core;
	struct hc_slice *s = c->spare;

	if (!s) {
		struct slab_chunk *k = aligned_alloc(64, sizeof(*k));
		size_t i;

		if (!k)
			return NULL;
		k->next = c->chunks;
		c->chunks = k;
		for (i = SLAB_CHUNK; i-- > 0;) {
			k->slices[i].next = c->spare;
			k->slices[i].dead = true;
			k->slices[i].id = 0;
			c->spare = &k->slices[i];
		}
		s = c->spare;
	}
	c->spare = s->next;
	/* Field by field rather than memset: a pool-hit split takes one record
	 * per reservation, and for these 160 bytes GCC's memset is a rep stos,
	 * whose start-up costs more than the stores. */
	s->node = (struct hc_tnode){ 0 };
	s->id = s->addr = s->offset = s->size = s->padding = 0;
	s->prev = s->next = NULL;
	s->page = NULL;
	s->pool = NULL;
	s->seq = s->span = 0;
	s->pins = 0;
	s->owned = s->in_tree = s->sfree = s->touched = s->primed = s->dead = false;
	return s;
}

void hc_pool_slice_put(struct hc_pool *p, struct hc_slice *s)
{
	struct hc_mm_core *c = p->core;

	s->id = 0;
	s->dead = true;
	s->owned = false;
	s->pins = 0;
	s->pool = NULL;
	s->next = c->spare;
	c->spare = s;
}

void hc_mm_core_fini(struct hc_mm_core *c)
{
	struct slab_chunk *k, *nx;

	for (k = c->chunks; k; k = nx) {
		nx = k->next;
		free(k);
	}
	c->chunks = NULL;
	c->spare = NULL;
	free(c->orphans.v);
	c->orphans = (struct hc_orphans){ 0 };
}

hc_status hc_pool_storage_alloc(struct hc_pool *p, uint64_t size, uint64_t *addr)
{
	const struct hc_storage *st = &p->core->st;
	hc_status rc = st->alloc(st->ctx, size, addr);

	if (rc != HC_OK && rc != HC_ERR_OOM)
		return rc;
	if (rc == HC_ERR_OOM)
		return hc_fail_over(HC_ERR_OOM, "storage refused %llu B", (unsigned long long)size);
	return HC_OK;
}

hc_status hc_pool_storage_alloc_fit(struct hc_pool *p, uint64_t size, uint64_t max,
				    uint64_t *addr, uint64_t *got)
{
	const struct hc_storage *st = &p->core->st;
	hc_status rc;

	if (!st->alloc_fit || max <= size) {
		*got = size;
		return hc_pool_storage_alloc(p, size, addr);
	}
	rc = st->alloc_fit(st->ctx, size, max, addr, got);
	if (rc == HC_ERR_OOM)
		return hc_fail_over(HC_ERR_OOM, "storage refused %llu B", (unsigned long long)size);
	if (rc == HC_OK && (*got < size || *got > max)) {
		/* a storage that broke its promise: give it back, report it */
		(void)st->free(st->ctx, *addr, *got);
		return hc_fail(HC_ERR_INVALID, "storage handed %llu B for %llu..%llu B",
			       (unsigned long long)*got, (unsigned long long)size,
			       (unsigned long long)max);
	}
	return rc;
}

/*
 * A refused free leaves the block with the storage: the caller drops its
 * page record and subtracts its bytes from the pool, so the block becomes an
 * orphan of the manager, counted in total.bytes_reserved until a later free
 * of it is taken.  Only when no host memory is left to remember it is it
 * lost, as the storage's own failure would have lost it.
 */
void hc_pool_storage_free(struct hc_pool *p, uint64_t addr, uint64_t size)
{
	struct hc_mm_core *c = p->core;
	struct hc_orphans *o = &c->orphans;

	if (c->st.free(c->st.ctx, addr, size) == HC_OK)
		return;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 8;
		struct hc_orphan *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = (struct hc_orphan){ addr, size };
	o->bytes += size;
	c->total.bytes_reserved += size;
}

void hc_mm_orphans_retry(struct hc_mm_core *c)
{
	struct hc_orphans *o = &c->orphans;
	size_t kept = 0;

	for (size_t i = 0; i < o->n; i++) {
		if (c->st.free(c->st.ctx, o->v[i].addr, o->v[i].size) != HC_OK) {
			o->v[kept++] = o->v[i];
			continue;
		}
		o->bytes -= o->v[i].size;
		c->total.bytes_reserved -= o->v[i].size;
	}
	o->n = kept;
}

/* Exact-size reuse (direct and persistent pools): the free slice of
 * effective size size + padding, marked used, or NULL when none. */
struct hc_slice *hc_pool_take_exact(struct hc_pool *p, uint64_t size)
{
	uint64_t eff = size + hc_pad(size, p->align);
	struct hc_tnode *n = hc_tree_lower_bound(&p->by_size, eff, 0);
	struct hc_slice *s;

	if (!n || n->k1 != eff)
		return NULL;
	s = (struct hc_slice *)n;
	hc_tree_remove(&p->by_size, n);
	s->in_tree = false;
	s->size = size;
	s->padding = eff - size;
	hc_pool_mark_used(p, s, size);
	return s;
}

struct hc_page *hc_pool_page_new(struct hc_pool *p, uint64_t size, hc_status *st)
{
	return hc_pool_page_new_fit(p, size, size, st);
}

struct hc_page *hc_pool_page_new_fit(struct hc_pool *p, uint64_t size, uint64_t max,
				     hc_status *st)
{
	struct hc_page *pg = calloc(1, sizeof(*pg));

	if (!pg) {
		*st = hc_fail(HC_ERR_OOM, "no host memory for a page record");
		return NULL;
	}
	*st = hc_pool_storage_alloc_fit(p, size, max, &pg->addr, &size);
	if (*st != HC_OK) {
		free(pg);
		return NULL;
	}
	pg->size = size;
	pg->seq = p->page_seq++;
	pg->prev = p->tail;
	if (p->tail)
		p->tail->next = pg;
	else
		p->head = pg;
	p->tail = pg;
	hc_pool_reserved_add(p, size);
	if (++p->npages > p->pages_peak)
		p->pages_peak = p->npages;
	return pg;
}

void hc_pool_page_drop(struct hc_pool *p, struct hc_page *pg)
{
	hc_pool_empty_remove(p, pg);
	if (pg->prev)
		pg->prev->next = pg->next;
	else
		p->head = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	else
		p->tail = pg->prev;
	hc_pool_storage_free(p, pg->addr, pg->size);
	hc_pool_reserved_sub(p, pg->size);
	p->npages--;
	free(pg);
}

/*
 * Wholly free pages.  A sliced pool's page with no live slice, a split
 * pool's segment that is one free block: what an explicit cleanup gives
 * back, and what a split pool's miss releases while over its watermark,
 * oldest first in both cases (the order of the page list).  Keeping them
 * in a tree costs one insert when a free empties a page and one removal
 * when a reservation takes from an empty page; walking the page list
 * instead cost every failed allocation a pass over every page of every
 * pool (issue 28: 100 000 live segments, 3.8 ms a refused hc_alloc).
 */
void hc_pool_empty_add(struct hc_pool *p, struct hc_page *pg)
{
	if (pg->in_empty)
		return;
	pg->empty_node = (struct hc_tnode){ .k1 = pg->seq };
	hc_tree_insert(&p->empty, &pg->empty_node);
	pg->in_empty = true;
}

void hc_pool_empty_unlink(struct hc_pool *p, struct hc_page *pg)
{
	hc_tree_remove(&p->empty, &pg->empty_node);
	pg->in_empty = false;
}

struct hc_page *hc_pool_empty_first(const struct hc_pool *p)
{
	return (struct hc_page *)hc_tree_first(&p->empty);
}

uint64_t hc_mm_shared_used(struct hc_mm_shared *sh)
{
	uint64_t used, parked;

	if (!sh)
		return 0;
	used = atomic_load_explicit(&sh->used, memory_order_acquire);
	parked = hc_shared_parked(sh);
	/* a reader racing a park's reuse and a new park may count one twice */
	return used > parked ? used - parked : 0;
}
