/*
 * manager.c - routing between pools, modes, capture, usage, reports.
 *
 * A manager holds the dynamic pools of its layout, in routing order, and one
 * persistent pool.  A reservation first counts itself and runs the periodic
 * cleanup (only exclusive pools act on it; skipped while a capture is
 * active).  In persistent mode (a window is open, or a capture is active) it
 * goes to the persistent pool: exact-size reuse, else a new allocation.
 * Otherwise the first pool that accepts the size is tried for reuse and
 * then for a new page; only a capped pool that is full (HC_ERR_CAPACITY)
 * lets the request go on to the next accepting pool, and the capacity error
 * is what the caller sees if no pool behind takes it.  Any other failure
 * (storage refused: HC_ERR_OOM) returns at once, unless a capacity error was
 * already seen, which is then preferred.  No accepting pool: HC_ERR_TOO_BIG.
 *
 * Slices come from a slab of fixed chunks that is returned only by
 * hc_mm_destroy, so a struct hc_slice pointer is always readable memory for
 * the manager's life; a slice's id is set when it is handed out and cleared
 * when it becomes free, so a reference to a freed, reused, merged or
 * cleaned-up slice fails its identity check.  A slice is free when its
 * owner released it and no pin holds it; pins model extra holders
 * (cross-stream use in flight, a graph's retention) and count as use.
 *
 * Division: slab and helpers for the pools; create/destroy; parked frees;
 * reserve and routing; release, pins, lookups; cleanup and install; modes
 * and capture; usage and report.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

#define SLAB_CHUNK 1024

struct slab_chunk {
	struct slab_chunk *next;
	struct hc_slice slices[SLAB_CHUNK];
};

struct hc_mm {
	struct hc_storage st;
	uint64_t align, max_page_size;
	struct hc_mm_shared *shared;  /* props' shared figures (direct pools at peak) */
	struct hc_pool *pools;        /* dynamic pools, routing order */
	size_t npools;
	struct hc_pool persistent;
	uint64_t next_id;             /* last identity handed out */
	uint64_t alloc_nr;            /* reservations so far (periodic cleanup clock) */
	uint64_t next_due;            /* first alloc_nr at which an exclusive check is due */
	struct hc_mm_decision last;   /* what the last reservation did */
	uint32_t windows;             /* open persistent windows */
	uint32_t saved_windows;       /* while capturing: windows to restore */
	bool capture, priming;
	struct hc_slice **touched;    /* capture: persistent slices handed out */
	size_t ntouched, cap_touched;
	struct slab_chunk *chunks;
	struct hc_slice *spare;       /* free slice records */
	hc_memory_usage total;        /* the sum of every pool's use (hc_pool.total) */
	/* Parked frees (section below): the slice the latest reservation
	 * handed out while nothing else has happened since, if a release of
	 * it could be parked; the parked slice of a sliced pool (taken back
	 * by hc_mm_reserve's inline path), of a split pool (by reserve_split);
	 * whether parking is on. */
	struct hc_slice *last_res;
	struct hc_slice *parked;
	struct hc_slice *parked_split;
	bool last_shaped;             /* last_res came back from parked_split */
	bool park_on;
	/* This manager's slot of the shared figures' parked bytes (NULL: none
	 * was free; its split parks move shared->used), and the slot's bit. */
	_Atomic uint64_t *park_bytes;
	uint64_t park_bit;
};

/* ---- slab and helpers for the pools ---------------------------------- */

struct hc_slice *hc_mm_slice_new(struct hc_mm *mm)
{
	struct hc_slice *s = mm->spare;

	if (!s) {
		struct slab_chunk *c = malloc(sizeof(*c));
		size_t i;

		if (!c)
			return NULL;
		c->next = mm->chunks;
		mm->chunks = c;
		for (i = SLAB_CHUNK; i-- > 0;) {
			c->slices[i].slab_next = mm->spare;
			c->slices[i].dead = true;
			c->slices[i].id = 0;
			mm->spare = &c->slices[i];
		}
		s = mm->spare;
	}
	mm->spare = s->slab_next;
	/* Field by field rather than memset: a pool-hit split takes one record
	 * per reservation, and for these 168 bytes GCC's memset is a rep stos,
	 * whose start-up costs more than the stores. */
	s->node = (struct hc_tnode){ 0 };
	s->id = s->addr = s->offset = s->size = s->padding = 0;
	s->prev = s->next = NULL;
	s->page = NULL;
	s->pool = NULL;
	s->seq = s->span = 0;
	s->pins = 0;
	s->owned = s->in_tree = s->sfree = s->touched = s->primed = s->dead = false;
	s->slab_next = NULL;
	return s;
}

void hc_mm_slice_put(struct hc_mm *mm, struct hc_slice *s)
{
	s->id = 0;
	s->dead = true;
	s->owned = false;
	s->pins = 0;
	s->pool = NULL;
	s->slab_next = mm->spare;
	mm->spare = s;
}

hc_status hc_mm_storage_alloc(struct hc_mm *mm, uint64_t size, uint64_t *addr)
{
	hc_status st = mm->st.alloc(mm->st.ctx, size, addr);

	if (st != HC_OK && st != HC_ERR_OOM)
		return st;
	if (st == HC_ERR_OOM)
		return hc_fail_over(HC_ERR_OOM, "storage refused %llu B", (unsigned long long)size);
	return HC_OK;
}

hc_status hc_mm_storage_alloc_fit(struct hc_mm *mm, uint64_t size, uint64_t max, uint64_t *addr,
				  uint64_t *got)
{
	hc_status st;

	if (!mm->st.alloc_fit || max <= size) {
		*got = size;
		return hc_mm_storage_alloc(mm, size, addr);
	}
	st = mm->st.alloc_fit(mm->st.ctx, size, max, addr, got);
	if (st == HC_ERR_OOM)
		return hc_fail_over(HC_ERR_OOM, "storage refused %llu B", (unsigned long long)size);
	if (st == HC_OK && (*got < size || *got > max)) {
		/* a storage that broke its promise: give it back, report it */
		(void)mm->st.free(mm->st.ctx, *addr, *got);
		return hc_fail(HC_ERR_INVALID, "storage handed %llu B for %llu..%llu B",
			       (unsigned long long)*got, (unsigned long long)size,
			       (unsigned long long)max);
	}
	return st;
}

void hc_mm_storage_free(struct hc_mm *mm, uint64_t addr, uint64_t size)
{
	(void)mm->st.free(mm->st.ctx, addr, size);
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

/* A page of @size to @max bytes (hc_storage.alloc_fit decides; pg->size). */
struct hc_page *hc_pool_page_new_fit(struct hc_pool *p, uint64_t size, uint64_t max,
				     hc_status *st)
{
	struct hc_page *pg = calloc(1, sizeof(*pg));

	if (!pg) {
		*st = hc_fail(HC_ERR_OOM, "no host memory for a page record");
		return NULL;
	}
	*st = hc_mm_storage_alloc_fit(p->mm, size, max, &pg->addr, &size);
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
	if (pg->prev)
		pg->prev->next = pg->next;
	else
		p->head = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	else
		p->tail = pg->prev;
	hc_mm_storage_free(p->mm, pg->addr, pg->size);
	hc_pool_reserved_sub(p, pg->size);
	p->npages--;
	free(pg);
}

/* ---- parked frees --------------------------------------------------------
 *
 * Most pool hits in a service are temporaries: a slice released before the
 * next reservation on its manager, and the next reservation is often of the
 * same size.  Such a release and reservation undo each other, so the
 * release's structural work (coalescing, the free tree, the slice record
 * going back to the slab) and the reservation's (first-fit descent, carving,
 * a record from the slab) can both be skipped.  A release that may be
 * deferred is *parked*: everything counted is counted at once (usage, the
 * page's live count, the slice's id cleared, so its reference is stale
 * exactly as after a free), but the slice stays where it is in its page.
 * A reservation of the same size then takes it back; anything else first
 * completes the free (park_flush: the pool's on_free, as become_free would
 * have run it) and then goes its normal way.  A sliced pool's parked free
 * is mm->parked, which hc_mm_reserve's inline path takes back; a split
 * pool's is mm->parked_split, which reserve_split takes back and
 * release_last parks, out of both fast paths, which stay as they were.
 *
 * When a release parks.  The slice is the one the latest reservation
 * handed out and no other entry point that changes or reads pool structure
 * ran since (mm->last_res: route sets it on a hit of the first accepting
 * pool, with no capacity spill before it, so never for a new page,
 * persistent mode or a capture, and a parked reuse sets it again; every
 * other entry point clears it, but
 * hc_mm_address and the const queries keep it, as they read no structure
 * a park leaves pending); parking is on; the slice has no pins; and its
 * pool is either sliced, the slice's size not 0 and either its padding 0
 * or the slice after it free (park_ok), or a split direct pool whose
 * conditions (hc_split_park) are set out below.
 *
 * The const queries see a parked free as done: usage and the report read
 * only counters, which the park has updated; hc_mm_valid walks the parked
 * slice as one whose free is pending and checks the conditions above (a
 * split pool's all but the other managers, which may come and go).
 *
 * Why the reuse is exact, for the sliced pool.  Call X the state right
 * after the reservation of s (effective size E = size + padding) from the
 * free run R at offset o, W the state before it.  The sliced pool always
 * carves from the front of the run its first fit picks, and free neighbours
 * are always merged, so the slice before s is not free.
 *  - R was longer than E (split): X holds s at o and the remainder at o + E,
 *    free.  Freeing s merges it with the remainder (on_free's "next free"
 *    case), giving back one run at o of R's bytes with padding 0, and puts
 *    s's record on the slab's free list.  Every run before o is as in W, where
 *    none fitted E, so the next first fit of E picks o again, splits it
 *    again, and takes the record just put back (the slab is LIFO): s at o,
 *    the remainder at o + E with the same size, padding 0 as in X.
 *  - R was exactly E (no remainder): the slice after s is not free, so
 *    freeing s leaves it a lone free run that keeps its recorded size, which
 *    is the requested size, not E.  With padding 0 that is E, the first fit
 *    picks it again and takes it whole: X again.  With padding above 0 the
 *    run offers fewer bytes than E and the next reservation goes elsewhere,
 *    so such a release is not parked.
 * Either way the reservation is a hit of the same pool: the decision
 * (pool, no new page), the counters and largest_alloc are what the normal
 * path gives; the next id is taken as it takes it; the periodic cleanup
 * runs first on the normal path only when due, so a reuse happens only
 * when it is not.  The one thing not reproduced is the treap's
 * pseudo-random priority sequence (an insert draws one), which shapes the
 * tree but not what any search finds.
 *
 * Why the reuse is exact, for the split pool (split.c).  X as above,
 * E = size + padding, s at offset o.  hc_split_park parks only when, in X:
 *  (a) E is the request's effective size (no remainder was kept as
 *      padding for want of a record);
 *  (b) the block before s is not free, and a free block after s has the
 *      newest stamp (p->next_seq): it is the remainder s's reservation
 *      left.  After a best fit both always hold (a hit carves the front of
 *      a free block, whose neighbours are used, and the remainder takes the
 *      next stamp); they are checked so that the argument does not rest on
 *      that;
 *  (c) with M the block the free would make (s and that remainder, or s
 *      alone: |M| = E), no other free block has E to |M| bytes;
 *  (d) if s is the only block in use in its segment (M is then the whole
 *      segment), |M| <= 2 E and no other manager shares the device.
 * The free merges s with the remainder (on_free's "next free" case keeps
 * s's record and puts the remainder's back on the slab) into M at o, padding
 * 0, which joins the size tree with the newest stamp; by (d) its segment
 * does not go to the idle cache, and a free takes no other storage action.
 * The next best fit of E is the smallest free block of at least E, the
 * lowest stamp among equal sizes: M, by (c) (another block of |M| bytes
 * would have the older stamp, so (c) excludes that size too), and by (d)
 * the exception for a wholly free segment of more than 2 E cannot refuse
 * it.  take hands out M's front E bytes at o as s, size and padding as in
 * X by (a), and puts the rest, |M| - E, behind it as a free block in the
 * record the free just put back (the slab is LIFO): X again, but for one
 * stamp.  The free and the take move next_seq by 2 and give the remainder
 * the newest stamp; the park leaves next_seq and the remainder's stamp,
 * which was the newest already (b).  Stamps are only ever compared with
 * each other (best fit among equal sizes), every later stamp is above all
 * of them either way, and the relative order is the same, so no later
 * choice differs; nothing reports them, and hc_mm_valid asks only that
 * none passes next_seq.  The treap's priorities: as for the sliced pool.
 * The free's effects outside the pool happen at the release, as the free
 * would make them: hc_split_park takes E off the shared in-use bytes and
 * the reuse adds it back (shared peak, the pool's in-use peak), so other
 * managers' watermarks read what they would.  Both go through the
 * manager's slot of the shared figures (struct hc_mm_shared: a plain store
 * of E, then of 0, to a line no other manager writes), which the in-use
 * figure subtracts; only a manager that found no free slot moves
 * shared->used itself, with two locked read-modify-writes per pair.
 * (d) is decided at the release, as the free decides it: a parked free
 * completed later (hc_split_park_flush) merges and inserts but never hands
 * its segment to the idle cache, even if a second manager came since.  The
 * exception's watermark reads figures other managers move, so (d) excludes
 * its case instead of predicting it.  A block taken back from a park is in
 * X again with nothing else changed, so its next release skips (a) to (c)
 * (mm->last_shaped) and checks only (d)'s managers, which can change.  The
 * rest (the decision, counters, ids, the periodic cleanup) is as for the
 * sliced pool: the same size goes to the same first accepting pool.
 *
 * Other kinds are never parked.  The exact-size direct pool gives storage
 * back or keeps it by a watermark, so a free changes storage traffic and
 * shared figures.  The exclusive pool's reservation moves its running size
 * average and a reused page's free count, so free-then-reserve is not the
 * identity there either.  The persistent pool only serves persistent mode
 * and captures, which the park excludes.
 *
 * HIPCORE_MM_PARK=0 (read when a manager is made) or hc_mm_set_park turns
 * parking off, for A/B comparisons.
 */

/* Completes a parked free, as become_free would have. */
static void park_flush(struct hc_mm *mm)
{
	struct hc_slice *s = mm->parked, *t = mm->parked_split;

	mm->parked = mm->parked_split = NULL;
	if (s)
		hc_sliced_on_free(s->pool, s);
	if (t)
		hc_split_park_flush(t->pool, t, mm->park_bytes);
}

/* Every entry point other than a reservation, a release or a pure lookup
 * calls this first: nothing stays parked and the next release is not
 * parked. */
static inline void park_settle(struct hc_mm *mm)
{
	if (mm->parked || mm->parked_split)
		park_flush(mm);
	mm->last_res = NULL;
}

/* Whether releasing @s, the latest reservation's slice (a hit of the first
 * accepting pool), may be parked in a sliced pool: the rest of the
 * section's conditions. */
static inline bool park_ok(const struct hc_mm *mm, const struct hc_slice *s)
{
	return s->pool->kind == HC_POOL_SLICED && mm->park_on && !s->pins && s->size > 0 &&
	       (s->padding == 0 || (s->next && s->next->sfree));
}

/* What every free counts at once, parked or not: usage, ownership, and
 * the id, so that the slice's references are stale. */
static inline void free_count(struct hc_slice *s)
{
	hc_pool_mark_unused(s->pool, s);
	s->owned = false;
	s->id = 0;
}

/* The release of @s, parked: become_free's counting without its on_free. */
static inline void park(struct hc_mm *mm, struct hc_slice *s)
{
	free_count(s);
	mm->parked = s;
}

/* The release of @s, the latest reservation's slice, parked if its pool is
 * a split one and hc_split_park's conditions hold (that function then
 * moves the shared figures as the free would). */
static bool park_split(struct hc_mm *mm, struct hc_slice *s)
{
	struct hc_pool *p = s->pool;

	if (p->kind != HC_POOL_DIRECT || !p->split || !mm->park_on || s->pins ||
	    !hc_split_park(p, s, mm->last_shaped, mm->park_bytes))
		return false;
	mm->last_res = NULL;
	free_count(s);
	mm->parked_split = s;
	return true;
}

/* Whether a reservation of @size takes the parked free back: the same size,
 * and the periodic cleanup (which the normal path runs first) not due.  Not
 * capturing nor in persistent mode: entering either completes a parked
 * free.  Otherwise the free is completed and the normal path runs. */
static inline bool park_fits(const struct hc_mm *mm, const struct hc_slice *s, uint64_t size)
{
	return s->size == size && mm->alloc_nr < mm->next_due;
}

/* The parked slice @s taken back (the caller has cleared its park and
 * checked park_fits): a hit of its pool, as the normal path would make it,
 * handed out.  The pool's hc_pool_mark_used without its tests: a sliced or
 * split slice always has a page, and largest_alloc, a high-water mark, is
 * at least s->size, the size park_fits asks for and s was reserved with. */
static inline void park_take(struct hc_mm *mm, struct hc_slice *s, struct hc_slice_ref *out,
			     uint64_t *addr)
{
	hc_pool_count_used(s->pool, s);
	s->page->live++;
	mm->last_res = s;
	mm->last.new_page = false; /* last.pool is still s's pool */
	s->id = ++mm->next_id;
	out->slice = s;
	out->id = s->id;
	*addr = s->addr;
}

/**
 * hc_mm_set_park - turn parked frees on or off for @mm (a pending one is
 * completed first).  NULL is ignored.
 */
void hc_mm_set_park(struct hc_mm *mm, bool on)
{
	if (!mm)
		return;
	park_settle(mm);
	mm->park_on = on;
}

bool hc_mm_parked(const struct hc_mm *mm)
{
	return mm && (mm->parked || mm->parked_split);
}

/* ---- create / destroy ------------------------------------------------- */

/* The lowest free slot of the shared figures' parked bytes, if any. */
static void park_slot_claim(struct hc_mm *mm)
{
	struct hc_mm_shared *sh = mm->shared;
	uint64_t held = atomic_load_explicit(&sh->slots_held, memory_order_relaxed), bit;

	while (~held) {
		bit = ~held & (held + 1);
		if (atomic_compare_exchange_weak_explicit(&sh->slots_held, &held, held | bit,
							  memory_order_acq_rel,
							  memory_order_relaxed)) {
			mm->park_bit = bit;
			mm->park_bytes = &sh->park[__builtin_ctzll(bit)].bytes;
			return;
		}
	}
}

/* Gives the slot back, empty (the caller has settled any park). */
static void park_slot_release(struct hc_mm *mm)
{
	if (!mm->park_bytes)
		return;
	atomic_fetch_and_explicit(&mm->shared->slots_held, ~mm->park_bit, memory_order_acq_rel);
	mm->park_bytes = NULL;
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

static void due_update(struct hc_mm *mm);

static void pool_destroy(struct hc_pool *p)
{
	switch (p->kind) {
	case HC_POOL_SLICED:
		hc_sliced_destroy(p);
		break;
	case HC_POOL_EXCLUSIVE:
		hc_exclusive_destroy(p);
		break;
	case HC_POOL_DIRECT:
		if (p->split)
			hc_split_destroy(p);
		else
			hc_direct_destroy(p);
		break;
	case HC_POOL_PERSISTENT:
		hc_persistent_destroy(p);
		break;
	}
}

static void pools_destroy(struct hc_pool *pools, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pool_destroy(&pools[i]);
	free(pools);
}

static hc_status pools_build(struct hc_mm *mm, const struct hc_layout *layout,
			     struct hc_pool **out, size_t *n_out)
{
	size_t i, n = hc_layout_count(layout);
	struct hc_pool *pools;

	if (n == 0 || n > HC_MM_MAX_POOLS)
		return hc_fail(HC_ERR_INVALID, "a layout needs 1 to %u pools", HC_MM_MAX_POOLS);
	pools = calloc(n, sizeof(*pools));
	if (!pools)
		return hc_fail(HC_ERR_OOM, "no host memory for %zu pools", n);
	for (i = 0; i < n; i++) {
		const hc_pool_spec *s = hc_layout_pool(layout, i);

		pools[i].mm = mm;
		pools[i].total = &mm->total;
		pools[i].shared = mm->shared;
		switch (s->kind) {
		case HC_POOL_SLICED:
			hc_sliced_init(&pools[i], s, mm->align);
			break;
		case HC_POOL_EXCLUSIVE:
			hc_exclusive_init(&pools[i], s, mm->align);
			break;
		case HC_POOL_DIRECT:
			if (hc_layout_split(layout, i))
				hc_split_init(&pools[i], s, mm->align);
			else
				hc_direct_init(&pools[i], s, mm->align);
			break;
		default:
			free(pools);
			return hc_fail(HC_ERR_INVALID, "pool %zu: kind %d cannot appear in a layout",
				       i, (int)s->kind);
		}
	}
	*out = pools;
	*n_out = n;
	return HC_OK;
}

/**
 * hc_mm_create - build a manager over @st with the pools of @layout.
 * @layout: resolved layout; the manager copies what it needs.
 * @p: alignment of every slice (0 means 1) and max_page_size (reports).
 * @st: where pages come from; copied.
 * Context: allocates host memory only; pages come on first use.
 * Return: HC_OK and *@out; HC_ERR_INVALID for missing arguments;
 * HC_ERR_OOM when host memory runs out.
 */
hc_status hc_mm_create(const struct hc_layout *layout, const struct hc_mm_props *p,
		       const struct hc_storage *st, struct hc_mm **out)
{
	struct hc_mm *mm;
	const char *env;
	hc_status s;

	if (!layout || !p || !st || !st->alloc || !st->free || !out)
		return hc_fail(HC_ERR_INVALID, "layout, properties, storage callbacks and "
					       "result must be non-NULL");
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return hc_fail(HC_ERR_OOM, "no host memory for a memory manager");
	mm->st = *st;
	mm->align = p->alignment ? p->alignment : 1;
	mm->max_page_size = p->max_page_size;
	mm->shared = p->shared;
	env = secure_getenv("HIPCORE_MM_PARK");
	mm->park_on = !(env && strcmp(env, "0") == 0);
	if (mm->shared) {
		atomic_fetch_add_explicit(&mm->shared->managers, 1, memory_order_relaxed);
		park_slot_claim(mm);
	}
	s = pools_build(mm, layout, &mm->pools, &mm->npools);
	if (s != HC_OK)
		goto err_free_mm;
	due_update(mm);
	mm->persistent.mm = mm;
	mm->persistent.total = &mm->total;
	hc_persistent_init(&mm->persistent, p->max_page_size, mm->align);
	*out = mm;
	return HC_OK;

err_free_mm:
	if (mm->shared) {
		park_slot_release(mm);
		atomic_fetch_sub_explicit(&mm->shared->managers, 1, memory_order_relaxed);
	}
	free(mm);
	return s;
}

/**
 * hc_mm_destroy - return every page to storage and free the manager.
 * Every reference into it becomes meaningless (its memory is gone).
 * Context: calls storage free once per page.  NULL is accepted.
 */
void hc_mm_destroy(struct hc_mm *mm)
{
	struct slab_chunk *c, *nx;

	if (!mm)
		return;
	park_settle(mm);
	pools_destroy(mm->pools, mm->npools);
	pool_destroy(&mm->persistent);
	for (c = mm->chunks; c; c = nx) {
		nx = c->next;
		free(c);
	}
	free(mm->touched);
	if (mm->shared) {
		park_slot_release(mm);
		atomic_fetch_sub_explicit(&mm->shared->managers, 1, memory_order_relaxed);
	}
	free(mm);
}

/* ---- reserve and routing ---------------------------------------------- */

static bool pool_accepts(const struct hc_pool *p, uint64_t size)
{
	switch (p->kind) {
	case HC_POOL_SLICED:
		return hc_sliced_accept(p, size);
	case HC_POOL_EXCLUSIVE:
		return hc_exclusive_accept(p, size);
	case HC_POOL_DIRECT:
		return true;
	default:
		return false;
	}
}

static struct hc_slice *pool_try_reserve(struct hc_pool *p, uint64_t size)
{
	switch (p->kind) {
	case HC_POOL_SLICED:
		return hc_sliced_try_reserve(p, size);
	case HC_POOL_EXCLUSIVE:
		return hc_exclusive_try_reserve(p, size);
	case HC_POOL_DIRECT:
		return p->split ? hc_split_try_reserve(p, size) : hc_direct_try_reserve(p, size);
	default:
		return hc_persistent_try_reserve(p, size);
	}
}

static hc_status pool_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **s)
{
	switch (p->kind) {
	case HC_POOL_SLICED:
		return hc_sliced_alloc(p, size, s);
	case HC_POOL_EXCLUSIVE:
		return hc_exclusive_alloc(p, size, s);
	case HC_POOL_DIRECT:
		return p->split ? hc_split_alloc(p, size, s) : hc_direct_alloc(p, size, s);
	default:
		return hc_persistent_alloc(p, size, s);
	}
}

static hc_status touch(struct hc_mm *mm, struct hc_slice *s)
{
	if (!s->touched) {
		if (mm->ntouched == mm->cap_touched) {
			size_t cap = mm->cap_touched ? mm->cap_touched * 2 : 16;
			struct hc_slice **t = realloc(mm->touched, cap * sizeof(*t));

			if (!t)
				return hc_fail(HC_ERR_OOM, "no host memory for the capture set");
			mm->touched = t;
			mm->cap_touched = cap;
		}
		mm->touched[mm->ntouched++] = s;
		s->touched = true;
	}
	if (mm->priming && !s->primed) {
		s->primed = true;
		s->pins++;
	}
	return HC_OK;
}

static void become_free(struct hc_slice *s)
{
	struct hc_pool *p = s->pool;

	free_count(s);
	switch (p->kind) {
	case HC_POOL_SLICED:
		hc_sliced_on_free(p, s);
		break;
	case HC_POOL_EXCLUSIVE:
		hc_exclusive_on_free(p, s);
		break;
	case HC_POOL_DIRECT:
		if (p->split)
			hc_split_on_free(p, s);
		else
			hc_direct_on_free(p, s);
		break;
	case HC_POOL_PERSISTENT:
		hc_persistent_on_free(p, s);
		break;
	}
}

static hc_status route(struct hc_mm *mm, uint64_t size, struct hc_slice **out)
{
	hc_status seen = HC_OK, st;
	bool accepted = false;
	size_t i;

	for (i = 0; i < mm->npools; i++) {
		struct hc_pool *p = &mm->pools[i];

		if (!pool_accepts(p, size))
			continue;
		accepted = true;
		mm->last.pool = (uint32_t)i;
		mm->last.new_page = false;
		*out = pool_try_reserve(p, size);
		if (*out) {
			/* a hit of the first accepting pool: a park candidate */
			mm->last_res = seen == HC_OK ? *out : NULL;
			mm->last_shaped = false;
			return HC_OK;
		}
		mm->last_res = NULL;
		mm->last.new_page = true;
		st = pool_alloc(p, size, out);
		if (st == HC_OK)
			return HC_OK;
		if (st == HC_ERR_CAPACITY) {
			p->capacity_warned = true; /* spill: the next accepting pool */
			seen = st;
			continue;
		}
		return seen != HC_OK ? seen : st;
	}
	mm->last_res = NULL;
	if (seen != HC_OK)
		return seen;
	if (!accepted)
		return hc_fail(HC_ERR_TOO_BIG, "no pool accepts %llu B", (unsigned long long)size);
	return hc_fail(HC_ERR_TOO_BIG, "no pool could serve %llu B", (unsigned long long)size);
}

/* Recomputes when the next exclusive pool's check falls due, so that the
 * reservation path looks at one number instead of every pool. */
static void due_update(struct hc_mm *mm)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < mm->npools; i++) {
		const struct hc_pool *p = &mm->pools[i];
		uint64_t cp, due;

		if (p->kind != HC_POOL_EXCLUSIVE)
			continue;
		cp = p->period / 5;
		due = p->last_check > UINT64_MAX - cp ? UINT64_MAX : p->last_check + cp;
		if (due < next)
			next = due;
	}
	mm->next_due = next;
}

static void periodic_cleanup(struct hc_mm *mm)
{
	size_t i;

	if (mm->alloc_nr < mm->next_due)
		return;
	for (i = 0; i < mm->npools; i++)
		if (mm->pools[i].kind == HC_POOL_EXCLUSIVE)
			hc_exclusive_cleanup(&mm->pools[i], mm->alloc_nr, false);
	due_update(mm);
}

/* hc_mm_reserve's path other than a parked reuse, out of line so that the
 * reuse is a leaf that saves no registers.  alloc_nr is already counted. */
static __attribute__((noinline)) hc_status reserve_slow(struct hc_mm *mm, uint64_t size,
							struct hc_slice_ref *out,
							uint64_t *addr)
{
	struct hc_slice *s = NULL;
	hc_status st;

	if (mm->parked || mm->parked_split)
		park_flush(mm);
	/* mm->last_res: set by route, cleared here otherwise */
	if (!mm->capture)
		periodic_cleanup(mm);
	if (hc_mm_persistent(mm)) {
		mm->last_res = NULL;
		mm->last.pool = (uint32_t)mm->npools;
		mm->last.new_page = false;
		s = hc_persistent_try_reserve(&mm->persistent, size);
		if (!s) {
			mm->last.new_page = true;
			st = hc_persistent_alloc(&mm->persistent, size, &s);
			if (st != HC_OK)
				return st;
		}
		if (mm->capture && touch(mm, s) != HC_OK) {
			hc_pool_mark_unused(s->pool, s);
			s->owned = false;
			hc_persistent_on_free(s->pool, s);
			return HC_ERR_OOM;
		}
	} else {
		st = route(mm, size, &s);
		if (st != HC_OK)
			return st;
	}
	s->id = ++mm->next_id;
	out->slice = s;
	out->id = s->id;
	*addr = s->addr;
	return HC_OK;
}

/* hc_mm_reserve while a split pool's free is parked: its reuse (park_take,
 * and what the pool's take adds to its peak and the shared figures), else
 * reserve_slow. */
static __attribute__((noinline)) hc_status reserve_split(struct hc_mm *mm, uint64_t size,
							 struct hc_slice_ref *out,
							 uint64_t *addr)
{
	struct hc_slice *s = mm->parked_split;

	if (!park_fits(mm, s, size))
		return reserve_slow(mm, size, out, addr);
	mm->parked_split = NULL;
	park_take(mm, s, out, addr);
	mm->last_shaped = true;
	hc_split_park_take(s->pool, s, mm->park_bytes);
	return HC_OK;
}

static __attribute__((noinline, cold)) hc_status reserve_invalid(void)
{
	return hc_fail(HC_ERR_INVALID, "manager, reference and address must be non-NULL");
}

/**
 * hc_mm_reserve - reserve @size bytes.
 * @out: the slice's reference; @addr: its address (page base + offset).
 * Context: may call storage alloc (and free, for periodic or watermark
 * reclaim, never while a capture is active).
 * Return: HC_OK; HC_ERR_TOO_BIG when no pool accepts @size; HC_ERR_CAPACITY
 * when a capped pool is full and no pool behind it takes the request;
 * HC_ERR_OOM when storage refused (the caller may clean up and retry).
 */
hc_status hc_mm_reserve(struct hc_mm *mm, uint64_t size, struct hc_slice_ref *out,
			uint64_t *addr)
{
	struct hc_slice *s;

	if (!mm || !out || !addr)
		return reserve_invalid();
	mm->alloc_nr++;
	s = mm->parked;
	if (!s || !park_fits(mm, s, size)) {
		if (mm->parked_split)
			return reserve_split(mm, size, out, addr);
		return reserve_slow(mm, size, out, addr);
	}
	mm->parked = NULL;
	park_take(mm, s, out, addr);
	return HC_OK;
}

/* ---- release, pins, lookups ------------------------------------------- */

/* Whether @ref names a live slice of @mm.  A dead slice has id 0 and no
 * pool, and a slice with an id has its pool: matching a non-zero id is
 * enough before s->pool is read. */
static inline bool ref_live(const struct hc_mm *mm, struct hc_slice_ref ref)
{
	const struct hc_slice *s = ref.slice;

	return s && ref.id != 0 && s->id == ref.id && s->pool->mm == mm;
}

static hc_status lookup(struct hc_mm *mm, struct hc_slice_ref ref, struct hc_slice **out)
{
	if (!mm)
		return hc_fail(HC_ERR_INVALID, "manager must be non-NULL");
	if (!ref_live(mm, ref))
		return hc_fail(HC_ERR_STALE, "slice reference %llu is freed, reused or unknown",
			       (unsigned long long)ref.id);
	*out = ref.slice;
	return HC_OK;
}

/* hc_mm_release's path other than a park (all of it, checks included),
 * out of line so that the park is a leaf that saves no registers. */
static __attribute__((noinline)) hc_status release_slow(struct hc_mm *mm,
							struct hc_slice_ref ref)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	if (!s->owned)
		return hc_fail(HC_ERR_STALE, "slice %llu was already released",
			       (unsigned long long)ref.id);
	/* Every release that may park took hc_mm_release's fast path, whose
	 * test is this function's checks and park_ok or park_split: what
	 * reaches here does not park, and completes any parked free first. */
	park_settle(mm);
	if (s->pins) {
		s->owned = false;
		return HC_OK;
	}
	become_free(s);
	return HC_OK;
}

/* The release of the latest reservation's slice, live and owned, when
 * park_ok does not hold: park_split's park, else release_slow. */
static __attribute__((noinline)) hc_status release_last(struct hc_mm *mm,
							struct hc_slice_ref ref)
{
	if (park_split(mm, ref.slice))
		return HC_OK;
	return release_slow(mm, ref);
}

/**
 * hc_mm_release - the owner gives the slice back.  It becomes reusable at
 * once unless pins hold it, in which case it does when the last pin goes.
 * Return: HC_OK; HC_ERR_STALE for a freed/reused ref or a second release.
 */
hc_status hc_mm_release(struct hc_mm *mm, struct hc_slice_ref ref)
{
	struct hc_slice *s = ref.slice;

	/* The park, checked with no side effect first: lookup's and the
	 * owner's checks and park_ok (last_res first: a release that does not
	 * park, the common case on replays, leaves after it); the latest
	 * reservation's slice that park_ok refuses is release_last's (a split
	 * pool's park).  Anything else, errors included, is release_slow's
	 * from the start. */
	if (mm && mm->last_res == s && ref_live(mm, ref) && s->owned) {
		if (park_ok(mm, s)) {
			mm->last_res = NULL;
			park(mm, s);
			return HC_OK;
		}
		return release_last(mm, ref);
	}
	return release_slow(mm, ref);
}

/**
 * hc_mm_address - identity-checked lookup of a slice's address and size.
 * @addr, @size: may be NULL.  The size is the requested size.
 * A slice released by its owner but still pinned still answers.
 * Context: O(1), no storage call.
 * Return: HC_OK; HC_ERR_STALE for a freed, reused, cleaned-up or foreign ref.
 */
hc_status hc_mm_address(struct hc_mm *mm, struct hc_slice_ref ref, uint64_t *addr,
			uint64_t *size)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	if (addr)
		*addr = s->addr;
	if (size)
		*size = s->size;
	return HC_OK;
}

/**
 * hc_mm_pin - add a holder (in-flight use on another stream, a graph): the
 * slice is not reusable while pinned, even after its owner released it.
 * Return: HC_OK; HC_ERR_STALE for a dead ref; HC_ERR_INVALID on pin overflow.
 */
hc_status hc_mm_pin(struct hc_mm *mm, struct hc_slice_ref ref)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	park_settle(mm);
	if (s->pins == UINT32_MAX)
		return hc_fail(HC_ERR_INVALID, "slice %llu has too many pins",
			       (unsigned long long)ref.id);
	s->pins++;
	return HC_OK;
}

static void unpin(struct hc_slice *s)
{
	if (--s->pins == 0 && !s->owned)
		become_free(s);
}

/**
 * hc_mm_unpin - drop a holder; the last one frees a released slice.
 * Return: HC_OK; HC_ERR_STALE for a dead ref; HC_ERR_INVALID when not pinned.
 */
hc_status hc_mm_unpin(struct hc_mm *mm, struct hc_slice_ref ref)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	park_settle(mm);
	if (s->pins == 0)
		return hc_fail(HC_ERR_INVALID, "slice %llu is not pinned",
			       (unsigned long long)ref.id);
	unpin(s);
	return HC_OK;
}

/* ---- cleanup and install ---------------------------------------------- */

static void pool_cleanup(struct hc_mm *mm, struct hc_pool *p, bool explicit_)
{
	switch (p->kind) {
	case HC_POOL_SLICED:
		hc_sliced_cleanup(p, explicit_);
		break;
	case HC_POOL_EXCLUSIVE:
		hc_exclusive_cleanup(p, mm->alloc_nr, explicit_);
		break;
	case HC_POOL_DIRECT:
		if (p->split)
			hc_split_cleanup(p, explicit_);
		else
			hc_direct_cleanup(p, explicit_);
		break;
	case HC_POOL_PERSISTENT:
		hc_persistent_cleanup(p, explicit_);
		break;
	}
}

/**
 * hc_mm_cleanup - periodic (@explicit_ false: exclusive pools' free-count
 * check when due) or explicit (every empty page and free slice of every pool
 * goes back to storage).  Does nothing while a capture is active.
 * Context: calls storage free.  Return: HC_OK; HC_ERR_INVALID for NULL.
 */
hc_status hc_mm_cleanup(struct hc_mm *mm, bool explicit_)
{
	size_t i;

	if (!mm)
		return hc_fail(HC_ERR_INVALID, "manager must be non-NULL");
	park_settle(mm);
	if (mm->capture)
		return HC_OK;
	pool_cleanup(mm, &mm->persistent, explicit_);
	for (i = 0; i < mm->npools; i++)
		pool_cleanup(mm, &mm->pools[i], explicit_);
	due_update(mm);
	return HC_OK;
}

static void usage_add(hc_memory_usage *a, const hc_memory_usage *b);

/* Every pool's use added up, the persistent pool's included: what
 * mm->total keeps as the pools change. */
static void usage_sum(const struct hc_mm *mm, hc_memory_usage *out)
{
	hc_memory_usage u = mm->persistent.use;

	for (size_t i = 0; i < mm->npools; i++)
		usage_add(&u, &mm->pools[i].use);
	*out = u;
}

/**
 * hc_mm_install - explicit cleanup, then rebuild the dynamic pools from
 * @layout if they hold nothing live.  The persistent pool is kept.
 * Return: HC_OK; HC_ERR_IN_USE when dynamic pools still hold live slices
 * (nothing changes); HC_ERR_STATE during a capture; HC_ERR_INVALID, HC_ERR_OOM.
 */
hc_status hc_mm_install(struct hc_mm *mm, const struct hc_layout *layout)
{
	struct hc_pool *pools;
	uint64_t live = 0, bytes = 0;
	size_t i, n;
	hc_status st;

	if (!mm || !layout)
		return hc_fail(HC_ERR_INVALID, "manager and layout must be non-NULL");
	park_settle(mm);
	if (mm->capture)
		return hc_fail(HC_ERR_STATE, "pools cannot be rebuilt while a capture is active");
	hc_mm_cleanup(mm, true);
	for (i = 0; i < mm->npools; i++) {
		live += mm->pools[i].use.number_allocs;
		bytes += mm->pools[i].use.bytes_in_use;
	}
	if (live)
		return hc_fail(HC_ERR_IN_USE, "dynamic pools hold %llu B in %llu live slices",
			       (unsigned long long)bytes, (unsigned long long)live);
	st = pools_build(mm, layout, &pools, &n);
	if (st != HC_OK)
		return st;
	pools_destroy(mm->pools, mm->npools);
	mm->pools = pools;
	mm->npools = n;
	usage_sum(mm, &mm->total); /* whatever the old pools' teardown subtracted */
	due_update(mm);
	return HC_OK;
}

/* ---- modes and capture -------------------------------------------------- */

/**
 * hc_mm_mode_push_persistent - open a persistent window; windows nest, and
 * reservations go to the persistent pool while any is open.  During a
 * capture the change is recorded and takes effect when the capture ends.
 * hc_mm_mode_pop closes one (saturating at zero).  NULL is ignored.
 */
void hc_mm_mode_push_persistent(struct hc_mm *mm)
{
	uint32_t *w;

	if (!mm)
		return;
	park_settle(mm);
	w = mm->capture ? &mm->saved_windows : &mm->windows;
	if (*w < UINT32_MAX)
		(*w)++;
}

void hc_mm_mode_pop(struct hc_mm *mm)
{
	uint32_t *w;

	if (!mm)
		return;
	park_settle(mm);
	w = mm->capture ? &mm->saved_windows : &mm->windows;
	if (*w)
		(*w)--;
}

/* Whether reservations go to the persistent pool now. */
bool hc_mm_persistent(const struct hc_mm *mm)
{
	return mm && (mm->capture || mm->windows > 0);
}

/**
 * hc_mm_capture_begin - save the mode, force persistent mode, start the
 * touched set with priming on: every persistent slice handed out is recorded
 * and, while priming, pinned, so warm-up grows the pool to its whole working
 * set.  Re-entrant: a second call changes nothing.  While a capture is
 * active, cleanup does nothing and install is refused.
 */
void hc_mm_capture_begin(struct hc_mm *mm)
{
	if (!mm)
		return;
	park_settle(mm);
	if (mm->capture)
		return;
	mm->capture = true;
	mm->priming = true;
	mm->saved_windows = mm->windows;
	mm->ntouched = 0;
}

/**
 * hc_mm_capture_priming_end - the slices warm-up retained lose their priming
 * pin: those their owners released become free, and stay in the pool.
 */
void hc_mm_capture_priming_end(struct hc_mm *mm)
{
	size_t i;

	if (!mm)
		return;
	park_settle(mm);
	mm->priming = false;
	for (i = 0; i < mm->ntouched; i++) {
		struct hc_slice *s = mm->touched[i];

		if (s->primed) {
			s->primed = false;
			unpin(s);
		}
	}
}

/**
 * hc_mm_capture_end - restore the mode and pin exactly the persistent slices
 * the capture touched.  *@retained (free() it) holds one reference per such
 * slice; the caller unpins each when the graph is destroyed.
 * Return: HC_OK; HC_ERR_STATE when no capture is active; HC_ERR_OOM.
 */
hc_status hc_mm_capture_end(struct hc_mm *mm, struct hc_slice_ref **retained, size_t *n)
{
	struct hc_slice_ref *refs = NULL;
	size_t i;

	if (!mm || !retained || !n)
		return hc_fail(HC_ERR_INVALID, "manager and results must be non-NULL");
	park_settle(mm);
	if (!mm->capture)
		return hc_fail(HC_ERR_STATE, "no capture is active");
	if (mm->ntouched) {
		refs = malloc(mm->ntouched * sizeof(*refs));
		if (!refs)
			return hc_fail(HC_ERR_OOM, "no host memory for %zu retained slices",
				       mm->ntouched);
	}
	hc_mm_capture_priming_end(mm);
	for (i = 0; i < mm->ntouched; i++) {
		struct hc_slice *s = mm->touched[i];

		if (!s->owned && s->pins == 0) {
			hc_persistent_take(s->pool, s);
			s->owned = false;
			s->id = ++mm->next_id;
		}
		s->pins++;
		s->touched = false;
		refs[i].slice = s;
		refs[i].id = s->id;
	}
	*retained = refs;
	*n = mm->ntouched;
	mm->ntouched = 0;
	mm->capture = false;
	mm->windows = mm->saved_windows;
	return HC_OK;
}

bool hc_mm_capture_active(const struct hc_mm *mm)
{
	return mm && mm->capture;
}

/* ---- usage and report --------------------------------------------------- */

static void usage_add(hc_memory_usage *a, const hc_memory_usage *b)
{
	a->number_allocs += b->number_allocs;
	a->bytes_in_use += b->bytes_in_use;
	a->bytes_padding += b->bytes_padding;
	a->bytes_reserved += b->bytes_reserved;
}

void hc_mm_last_decision(const struct hc_mm *mm, struct hc_mm_decision *out)
{
	if (mm && out)
		*out = mm->last;
}

/**
 * hc_mm_usage - the sum over every pool, persistent included: number_allocs,
 * bytes_in_use and bytes_padding over non-free slices (pinned ones count),
 * bytes_reserved over what is held from storage.  O(1): the pools keep the
 * sum as they change (hc_pool.total; hc_mm_valid checks it).
 */
void hc_mm_usage(const struct hc_mm *mm, hc_memory_usage *out)
{
	if (!out)
		return;
	if (!mm) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = mm->total;
}

static void report_one(const struct hc_pool *p, uint32_t index, hc_pool_report_fn fn, void *arg)
{
	hc_pool_report r;

	memset(&r, 0, sizeof(r));
	r.index = index;
	r.kind = p->kind;
	r.spec = p->spec;
	r.spec.kind = p->kind;
	r.usage = p->use;
	r.pages = p->npages;
	r.pages_peak = p->pages_peak;
	r.largest_alloc = p->largest_alloc;
	fn(&r, arg);
}

/**
 * hc_mm_report - call @fn once per pool: the dynamic pools in routing order
 * (index 0..n-1, spec after rounding and shrinking), then the persistent
 * pool (index n).  pages counts storage allocations held; pages_peak and
 * largest_alloc are high-water marks since the pool was built.  Reads
 * only counters, which a parked free has already updated, so it leaves a
 * parked free pending.
 */
void hc_mm_report(const struct hc_mm *mm, hc_pool_report_fn fn, void *arg)
{
	size_t i;

	if (!mm || !fn)
		return;
	for (i = 0; i < mm->npools; i++)
		report_one(&mm->pools[i], (uint32_t)i, fn, arg);
	report_one(&mm->persistent, (uint32_t)mm->npools, fn, arg);
}

/* ---- consistency check ---------------------------------------------------- */

static void count_used(const struct hc_slice *s, hc_memory_usage *u)
{
	u->number_allocs++;
	u->bytes_in_use += s->size;
	u->bytes_padding += s->padding;
}

static bool sliced_valid(const struct hc_pool *p, const struct hc_slice *parked,
			 hc_memory_usage *u)
{
	const struct hc_page *pg;
	uint64_t tracked = 0, pages = 0;

	for (pg = p->head; pg; pg = pg->next, pages++) {
		const struct hc_slice *s, *prev = NULL;
		uint64_t live = 0;

		u->bytes_reserved += pg->size;
		if (pg->size != p->spec.page_size || !pg->first || pg->first->offset != 0)
			return false;
		for (s = pg->first; s; prev = s, s = s->next) {
			if (s->page != pg || s->pool != p || s->prev != prev || s->dead)
				return false;
			if (s->addr != pg->addr + s->offset)
				return false;
			if (s->next && s->next->offset < s->offset + s->size + s->padding)
				return false;
			if (!s->next && s->offset + s->size + s->padding > pg->size)
				return false;
			if (s->sfree) {
				if (s->owned || s->pins || s->id || s->in_tree != (s->size > 0))
					return false;
				if (prev && prev->sfree)
					return false; /* free neighbours are always merged */
				if (s->in_tree && (s->node.k1 != pg->seq || s->node.k2 != s->offset ||
						   s->node.val != s->size))
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
	}
	return pages == p->npages && tracked == p->free_runs.n && hc_tree_valid(&p->free_runs);
}

static bool exclusive_valid(const struct hc_pool *p, hc_memory_usage *u)
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

static bool slots_valid(const struct hc_pool *p, hc_memory_usage *u)
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
		if (p->kind == HC_POOL_DIRECT && s->seq != i)
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

/* Split direct pool: every segment tiled by its blocks in offset order,
 * free blocks merged with free neighbours and in the size tree. */
static bool split_valid(const struct hc_pool *p, const struct hc_slice *parked,
			hc_memory_usage *u)
{
	const struct hc_page *pg;
	uint64_t tracked = 0, pages = 0;

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
	}
	return pages == p->npages && tracked == p->by_size.n && hc_tree_valid(&p->by_size);
}

static bool pool_valid(const struct hc_pool *p, const struct hc_slice *parked)
{
	hc_memory_usage u = { 0, 0, 0, 0 };
	bool ok;

	switch (p->kind) {
	case HC_POOL_SLICED:
		ok = sliced_valid(p, parked, &u);
		break;
	case HC_POOL_EXCLUSIVE:
		ok = exclusive_valid(p, &u);
		break;
	default:
		ok = p->split ? split_valid(p, parked, &u) : slots_valid(p, &u);
		break;
	}
	return ok && p->pages_peak >= p->npages && !memcmp(&u, &p->use, sizeof(u));
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
	 * pool's walk (sliced_valid, split_valid), which the loop below must
	 * reach. */
	pk = mm->parked ? mm->parked : mm->parked_split;
	if (pk && ((mm->parked && mm->parked_split) || mm->last_res || hc_mm_persistent(mm) ||
		   pk->dead || !pk->pool || pk->pool < mm->pools ||
		   pk->pool >= mm->pools + mm->npools ||
		   mm->last.pool != (uint32_t)(pk->pool - mm->pools) ||
		   (mm->parked ? pk->pool->kind != HC_POOL_SLICED :
				 pk->pool->kind != HC_POOL_DIRECT || !pk->pool->split)))
		return false;
	if (mm->last_res && (!mm->last_res->id || mm->last_res->dead || !mm->last_res->pool ||
			     mm->last_res->pool->mm != mm))
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
	if (mm->last_res && mm->last_shaped && mm->last_res->pool->split &&
	    !hc_split_park_valid(mm->last_res->pool, mm->last_res, true))
		return false;
	for (i = 0; i < mm->npools; i++)
		if (!pool_valid(&mm->pools[i], pk) || mm->pools[i].total != &mm->total)
			return false;
	if (!pool_valid(&mm->persistent, NULL) || mm->persistent.total != &mm->total)
		return false;
	usage_sum(mm, &u);
	return !memcmp(&u, &mm->total, sizeof(u));
}
