/*
 * manager.h - the router's state (struct hc_mm) and its inline fast paths,
 * shared by manager.c, park.c, mode.c and valid.c.  No pool kind includes
 * it: the kinds see only the struct hc_mm_core at its start.
 *
 * The pool-hit pair's whole path is here or in manager.c: a reservation
 * that takes a parked free back (park_fits, park_take) and a release that
 * parks (park_ok, park, park_split) are leaves that save no registers and
 * make no call, so they stay inline in hc_mm_reserve and hc_mm_release
 * (bench/callgrind-pair counts their instructions).
 */
#ifndef HIPCORE_CORE_POOL_MANAGER_H
#define HIPCORE_CORE_POOL_MANAGER_H

#include "core/debug.h"
#include "core/internal.h"
#include "core/pool/pool_internal.h"

struct hc_mm {
	struct hc_mm_core core;       /* first: what the pools see of the manager */
	uint64_t align, max_page_size;
	struct hc_pool *pools;        /* dynamic pools, routing order */
	size_t npools;
	struct hc_pool persistent;
	uint64_t next_id;             /* last identity handed out */
	uint64_t alloc_nr;            /* reservations so far (periodic cleanup clock) */
	uint64_t next_due;            /* first alloc_nr at which a periodic check is due */
	struct hc_mm_decision last;   /* what the last reservation did */
	uint32_t windows;             /* open persistent windows */
	uint32_t saved_windows;       /* while capturing: windows to restore */
	bool priming;                 /* capture (core.capture): warm-up pins */
	struct hc_slice **touched;    /* capture: persistent slices handed out */
	size_t ntouched, cap_touched;
	/* Parked frees (park.c): the slice the latest reservation handed out
	 * while nothing else has happened since, if a release of it could be
	 * parked; the parked slice of a sliced pool (taken back by
	 * hc_mm_reserve's inline path), of a split pool (by reserve_split);
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

/* manager.c */

/* Every pool's use added up, the persistent pool's included: what
 * core.total keeps as the pools change. */
void hc_mm_usage_sum(const struct hc_mm *mm, hc_memory_usage *out);

/* mode.c */

/* Records persistent slice @s as handed out during the capture (and pins
 * it while priming).  Return: HC_OK; HC_ERR_OOM for the touched set. */
hc_status hc_mm_touch(struct hc_mm *mm, struct hc_slice *s);

/* park.c */

/* Completes the pending parked free, as a release would have. */
void hc_mm_park_flush(struct hc_mm *mm);
/* Claims a free slot of the shared figures' parked bytes, if any; gives
 * it back (the caller has settled any park). */
void hc_mm_park_slot_claim(struct hc_mm *mm);
void hc_mm_park_slot_release(struct hc_mm *mm);

/* @st, once debug level 2 has checked the whole manager (debug.h): every
 * entry point that changes a manager returns through it. */
#define mm_checked(mm, st) (HC_VALIDATE(hc_mm_valid(mm)), (st))

/* What every free counts at once, parked or not: usage, ownership, and
 * the id, so that the slice's references are stale. */
static inline void free_count(struct hc_slice *s)
{
	hc_pool_mark_unused(s->pool, s);
	s->owned = false;
	s->id = 0;
}

/* A release (or the last unpin) makes @s free now: counted, then its
 * pool's on_free. */
static inline void become_free(struct hc_slice *s)
{
	HC_ASSERT(s->pins == 0);
	free_count(s);
	s->pool->ops->on_free(s->pool, s);
}

/* Drops a holder; the last one frees a released slice. */
static inline void unpin(struct hc_slice *s)
{
	if (--s->pins == 0 && !s->owned)
		become_free(s);
}

/* Whether @ref names a live slice of @mm.  A dead slice has id 0 and no
 * pool, and a slice with an id has its pool: matching a non-zero id is
 * enough before s->pool is read. */
static inline bool ref_live(const struct hc_mm *mm, struct hc_slice_ref ref)
{
	const struct hc_slice *s = ref.slice;

	return s && ref.id != 0 && s->id == ref.id && s->pool->core == &mm->core;
}

/* Every entry point other than a reservation, a release or a pure lookup
 * calls this first: nothing stays parked and the next release is not
 * parked. */
static inline void park_settle(struct hc_mm *mm)
{
	if (mm->parked || mm->parked_split)
		hc_mm_park_flush(mm);
	mm->last_res = NULL;
}

/* Whether releasing @s, the latest reservation's slice (a hit of the first
 * accepting pool), may be parked in a sliced pool: the rest of park.c's
 * conditions. */
static inline bool park_ok(const struct hc_mm *mm, const struct hc_slice *s)
{
	return s->pool->park == HC_PARK_SLICED && mm->park_on && !s->pins && s->size > 0 &&
	       (s->padding == 0 || (s->next && s->next->sfree));
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
static inline bool park_split(struct hc_mm *mm, struct hc_slice *s)
{
	struct hc_pool *p = s->pool;

	if (p->park != HC_PARK_SPLIT || !mm->park_on || s->pins ||
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
	HC_ASSERT(s->id == 0 && !s->owned && !s->pins && s->pool->park != HC_PARK_NONE);
	hc_pool_count_used(s->pool, s);
	s->page->live++;
	mm->last_res = s;
	mm->last.new_page = false; /* last.pool is still s's pool */
	s->id = ++mm->next_id;
	out->slice = s;
	out->id = s->id;
	*addr = s->addr;
}

#endif /* HIPCORE_CORE_POOL_MANAGER_H */
