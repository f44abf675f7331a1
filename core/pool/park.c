/*
 * park.c - parked frees: a release that the next reservation of the same
 * size would undo is deferred, and that reservation takes the slice back.
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
 * completes the free (hc_mm_park_flush: the pool's on_free, as become_free
 * would have run it) and then goes its normal way.  A sliced pool's parked
 * free is mm->parked, which hc_mm_reserve's inline path takes back; a split
 * pool's is mm->parked_split, which reserve_split takes back and
 * release_last parks (manager.c), out of both fast paths, which stay as
 * they were.  The inline parts are in manager.h.
 *
 * When a release parks.  The slice is the one the latest reservation
 * handed out and no other entry point that changes or reads pool structure
 * ran since (mm->last_res: route sets it on a hit of the first accepting
 * pool, with no capacity spill before it, so never for a new page,
 * persistent mode or a capture, and a parked reuse sets it again; every
 * other entry point clears it, but hc_mm_address and the const queries
 * keep it, as they read no structure a park leaves pending); parking is
 * on; the slice has no pins; and its pool (hc_pool.park) is either sliced,
 * the slice's size not 0 and either its padding 0 or the slice after it
 * free (park_ok), or split, whose conditions (hc_split_park) are set out
 * below.
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
#include "core/pool/manager.h"

/* Completes a parked free, as become_free would have. */
void hc_mm_park_flush(struct hc_mm *mm)
{
	struct hc_slice *s = mm->parked, *t = mm->parked_split;

	mm->parked = mm->parked_split = NULL;
	if (s)
		s->pool->ops->on_free(s->pool, s);
	if (t)
		hc_split_park_flush(t->pool, t, mm->park_bytes);
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
	HC_VALIDATE(hc_mm_valid(mm));
}

bool hc_mm_parked(const struct hc_mm *mm)
{
	return mm && (mm->parked || mm->parked_split);
}

/* The lowest free slot of the shared figures' parked bytes, if any. */
void hc_mm_park_slot_claim(struct hc_mm *mm)
{
	struct hc_mm_shared *sh = mm->core.shared;
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
void hc_mm_park_slot_release(struct hc_mm *mm)
{
	if (!mm->park_bytes)
		return;
	atomic_fetch_and_explicit(&mm->core.shared->slots_held, ~mm->park_bit, memory_order_acq_rel);
	mm->park_bytes = NULL;
}
