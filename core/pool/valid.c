/*
 * valid.c - consistency checks of a manager and of each pool kind, for
 * tests and debug builds: O(slices), they walk every page and tree.
 *
 * Each kind's check (its hc_pool_ops.valid) walks the pool's pages or
 * slots, checks the structure the kind keeps (slice lists tiling pages,
 * free neighbours merged, the free trees' keys, order and maxima, page and
 * live counts) and adds up the usage it finds, which must equal the
 * counters the pool keeps.  hc_mm_valid checks the parked-free state
 * (park.c) and that the manager's sum equals its pools'.
 */
#include <string.h>

#include "core/pool/manager.h"

static void count_used(const struct hc_slice *s, hc_memory_usage *u)
{
	u->number_allocs++;
	u->bytes_in_use += s->size;
	u->bytes_padding += s->padding;
}

/* The pool's tree of wholly free pages holds exactly the pages counted
 * @empty, in a valid tree. */
static bool empty_valid(const struct hc_pool *p, uint64_t empty)
{
	return empty == p->empty.n && hc_tree_valid(&p->empty);
}

bool hc_sliced_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u)
{
	const struct hc_page *pg;
	uint64_t tracked = 0, pages = 0, empty = 0;

	for (pg = p->head; pg; pg = pg->next, pages++) {
		const struct hc_slice *s, *prev = NULL;
		uint64_t live = 0;

		u->bytes_reserved += pg->size;
		if (pg->size != p->spec.page_size || !pg->first || pg->first->node.k2 != 0)
			return false;
		for (s = pg->first; s; prev = s, s = s->next) {
			/* the offset is node.k2; the fields only while not free (sliced.c) */
			uint64_t off = s->node.k2;

			if (s->page != pg || s->pool != p || s->prev != prev || s->dead)
				return false;
			if (!s->sfree && (s->offset != off || s->addr != pg->addr + off))
				return false;
			if (s->next && s->next->node.k2 < off + s->size + s->padding)
				return false;
			if (!s->next && off + s->size + s->padding > pg->size)
				return false;
			if (s->sfree) {
				if (s->owned || s->pins || s->id || s->in_tree != (s->size > 0))
					return false;
				if (prev && prev->sfree)
					return false; /* free neighbours are always merged */
				if (s->in_tree && (s->node.k1 != pg->seq || s->node.val != s->size))
					return false;
				tracked += s->in_tree;
			} else if (s == parked) {
				/* counted as free, structure pending (park_ok held) */
				if (s->in_tree || s->id || s->owned || s->pins || s->size == 0 ||
				    (s->padding && !(s->next && s->next->sfree)))
					return false;
			} else {
				if (s->in_tree || s->id == 0 || (!s->owned && !s->pins))
					return false;
				count_used(s, u);
				live++;
			}
		}
		if (live != pg->live)
			return false;
		/* no live slice: one free run, in the empty tree (but for a
		 * parked free's page, whose run is not merged yet) */
		if (pg->in_empty != (live == 0 && !(parked && parked->page == pg)) ||
		    (pg->in_empty && pg->empty_node.k1 != pg->seq))
			return false;
		empty += pg->in_empty;
	}
	return pages == p->npages && tracked == p->free_runs.n && hc_tree_valid(&p->free_runs) &&
	       empty_valid(p, empty);
}

bool hc_exclusive_valid(const struct hc_pool *p, const struct hc_slice *parked,
			hc_memory_usage *u)
{
	const struct hc_page *pg;
	uint64_t free_pages = 0, in_ring = 0, pages = 0;
	unsigned i;

	for (i = 0; i < 5; i++) {
		if (!hc_tree_valid(&p->ring[i]))
			return false;
		in_ring += p->ring[i].n;
	}
	for (pg = p->head; pg; pg = pg->next, pages++) {
		const struct hc_slice *s = pg->first;

		u->bytes_reserved += pg->size;
		if (!s || s->page != pg || s->pool != p || pg->size != pg->alloc_size ||
		    pg->free_count > 4 || s->size > pg->alloc_size)
			return false;
		if (s->in_tree) {
			if (s->owned || s->pins || s->id)
				return false;
			free_pages++;
		} else {
			if (s->id == 0 || (!s->owned && !s->pins))
				return false;
			count_used(s, u);
		}
	}
	return pages == p->npages && free_pages == in_ring;
}

/* Direct and persistent pools: one allocation per slice, in a slot table
 * (@by_slot: a direct pool's slice records its slot index as its seq; a
 * persistent one's seq is its creation order). */
static bool slots_valid(const struct hc_pool *p, hc_memory_usage *u, bool by_slot)
{
	uint64_t i, live = 0, free_n = 0;

	for (i = 0; i < p->nslots; i++) {
		const struct hc_slice *s = p->slots[i];

		if (!s)
			continue;
		live++;
		u->bytes_reserved += s->span;
		if (s->pool != p || s->size + s->padding != s->span)
			return false;
		if (by_slot && s->seq != i)
			return false;
		if (s->in_tree) {
			if (s->owned || s->pins || s->id || s->node.k1 != s->span)
				return false;
			free_n++;
		} else {
			if (s->id == 0 || (!s->owned && !s->pins))
				return false;
			count_used(s, u);
		}
	}
	return live == p->npages && free_n == p->by_size.n && hc_tree_valid(&p->by_size);
}

bool hc_direct_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u)
{
	return slots_valid(p, u, true);
}

bool hc_persistent_valid(const struct hc_pool *p, const struct hc_slice *parked,
			 hc_memory_usage *u)
{
	return slots_valid(p, u, false);
}

/* Split pool: every segment tiled by its blocks in offset order, free
 * blocks merged with free neighbours and in the size tree. */
bool hc_split_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u)
{
	const struct hc_page *pg;
	uint64_t tracked = 0, pages = 0, empty = 0;

	for (pg = p->head; pg; pg = pg->next, pages++) {
		const struct hc_slice *s, *prev = NULL;
		uint64_t live = 0, end = 0;

		u->bytes_reserved += pg->size;
		if (!pg->first || pg->size == 0)
			return false;
		for (s = pg->first; s; prev = s, s = s->next) {
			uint64_t ext = s->size + s->padding;

			if (s->page != pg || s->pool != p || s->prev != prev || s->dead)
				return false;
			if (s->offset != end || s->addr != pg->addr + s->offset || ext == 0 ||
			    ext > pg->size - end)
				return false;
			end += ext;
			if (s->sfree) {
				if (s->owned || s->pins || s->id || s->padding || !s->in_tree ||
				    s->node.k1 != s->size || s->node.k2 > p->next_seq)
					return false;
				if (prev && prev->sfree)
					return false; /* free neighbours are always merged */
				tracked++;
			} else if (s == parked) {
				/* counted as free, structure pending (hc_split_park held) */
				if (s->in_tree || s->id || s->owned || s->pins ||
				    !hc_split_park_valid(p, s, false))
					return false;
			} else {
				if (s->in_tree || s->id == 0 || (!s->owned && !s->pins))
					return false;
				count_used(s, u);
				live++;
			}
		}
		if (end != pg->size || live != pg->live)
			return false;
		/* one free block: in the empty tree */
		if (pg->in_empty != (pg->first->sfree && !pg->first->next) ||
		    (pg->in_empty && pg->empty_node.k1 != pg->seq))
			return false;
		empty += pg->in_empty;
	}
	return pages == p->npages && tracked == p->by_size.n && hc_tree_valid(&p->by_size) &&
	       empty_valid(p, empty);
}

static bool pool_valid(const struct hc_pool *p, const struct hc_slice *parked)
{
	hc_memory_usage u = { 0, 0, 0, 0 };

	/* only sliced and split pools keep wholly free pages apart */
	if (p->empty.n && p->ops != &hc_sliced_ops && p->ops != &hc_split_ops)
		return false;
	return p->ops && p->kind == p->ops->report_kind && p->ops->valid(p, parked, &u) &&
	       p->pages_peak >= p->npages && !memcmp(&u, &p->use, sizeof(u));
}

bool hc_mm_valid(const struct hc_mm *mm)
{
	const struct hc_slice *pk;
	hc_memory_usage u;
	size_t i;

	if (!mm)
		return false;
	/* Parked frees: at most one of the three, a parked slice in a sliced
	 * (parked) or split (parked_split) dynamic pool of this manager, the
	 * last reservation's, never in persistent mode; it is found by its
	 * pool's walk (hc_sliced_valid, hc_split_valid), which the loop below
	 * must reach. */
	pk = mm->parked ? mm->parked : mm->parked_split;
	if (pk && ((mm->parked && mm->parked_split) || mm->last_res || hc_mm_persistent(mm) ||
		   pk->dead || !pk->pool || pk->pool < mm->pools ||
		   pk->pool >= mm->pools + mm->npools ||
		   mm->last.pool != (uint32_t)(pk->pool - mm->pools) ||
		   pk->pool->park != (mm->parked ? HC_PARK_SLICED : HC_PARK_SPLIT)))
		return false;
	if (mm->last_res && (!mm->last_res->id || mm->last_res->dead || !mm->last_res->pool ||
			     mm->last_res->pool->core != &mm->core))
		return false;
	/* the slot of shared parked bytes holds exactly a parked split block's
	 * bytes when its pool keeps shared figures, else nothing */
	if (mm->park_bytes) {
		const struct hc_slice *t = mm->parked_split;
		uint64_t want = t && hc_pool_at_peak_shared(t->pool) ? t->size + t->padding : 0;

		if (atomic_load_explicit(mm->park_bytes, memory_order_relaxed) != want)
			return false;
	}
	/* taken back from a split pool's park: the park's shape holds again */
	if (mm->last_res && mm->last_shaped && mm->last_res->pool->park == HC_PARK_SPLIT &&
	    !hc_split_park_valid(mm->last_res->pool, mm->last_res, true))
		return false;
	for (i = 0; i < mm->npools; i++)
		if (!pool_valid(&mm->pools[i], pk) || mm->pools[i].total != &mm->core.total ||
		    mm->pools[i].core != &mm->core)
			return false;
	if (!pool_valid(&mm->persistent, NULL) || mm->persistent.total != &mm->core.total ||
	    mm->persistent.core != &mm->core || mm->persistent.ops != &hc_persistent_ops)
		return false;
	hc_mm_usage_sum(mm, &u);
	return !memcmp(&u, &mm->core.total, sizeof(u));
}
