/*
 * lend.c - idle mappings an expandable pool lends to the other streams of
 * its device (HC_RECLAIM_AT_SHARED; expandable.c says when it lends).
 *
 * Why: a pool gives its idle mappings back itself only at its own calls
 * (a stream that allocates every fourth step sheds after the others have
 * already mapped on top), so the stream that needs memory takes it: when
 * a pool lends, it records a fence on its stream after every free so far
 * and puts each mapping no live block touches on the device's list with
 * that fence.  A pool of another stream about to map (hc_lend_take)
 * unmaps entries whose fence has passed (an event query: nothing waits)
 * and marks them taken; the memory went back to the device and its map
 * takes it.  The owner's records still say mapped until it withdraws its
 * entries (hc_lend_withdraw): before it places a block on a lent mapping,
 * before it unmaps anything itself, and at its fence's end.  The list is
 * the only state two streams touch: it and the taken flags are under
 * sh->lend_lock, a leaf taken under one stream lock.  The lock is held
 * across the taker's event_query and pmem_unmap (neither waits for the
 * device) so that an owner never withdraws an entry half unmapped.
 *
 * Fences are shared by the entries of one lending and the owner's
 * pending record, and counted under the lock; only owners drop references,
 * so only they destroy events (outside the lock).
 */
#include <stdlib.h>

#include "core/pool/pool_internal.h"

struct hc_lend {
	struct hc_lend *next;
	struct hc_pool *owner;
	uint32_t m, len;       /* the owner's mapping: first granule, granules */
	uint64_t addr, bytes;
	struct hc_lend_fence *fence;
	bool taken;            /* unmapped by another stream's pool */
};

struct hc_lend_fence *hc_lend_fence_new(void *ev)
{
	struct hc_lend_fence *f = malloc(sizeof(*f));

	if (f) {
		f->ev = ev;
		f->refs = 1;
	}
	return f;
}

/* Drops a reference under the lock held; returns the event to destroy
 * once the lock is dropped, or NULL. */
static void *fence_unref(struct hc_lend_fence *f)
{
	void *ev = NULL;

	if (--f->refs == 0) {
		ev = f->ev;
		free(f);
	}
	return ev;
}

void hc_lend_fence_put(struct hc_mm_shared *sh, struct hc_lend_fence *f,
		       const struct hc_storage *st)
{
	void *ev;

	pthread_mutex_lock(&sh->lend_lock);
	ev = fence_unref(f);
	pthread_mutex_unlock(&sh->lend_lock);
	if (ev)
		st->fence_drop(st->ctx, ev);
}

bool hc_lend_put(struct hc_mm_shared *sh, struct hc_pool *owner, uint32_t m, uint32_t len,
		 uint64_t addr, uint64_t bytes, struct hc_lend_fence *f)
{
	struct hc_lend *e = malloc(sizeof(*e));

	if (!e)
		return false;
	*e = (struct hc_lend){ .owner = owner, .m = m, .len = len, .addr = addr, .bytes = bytes,
			       .fence = f };
	pthread_mutex_lock(&sh->lend_lock);
	f->refs++;
	e->next = sh->lend;
	sh->lend = e;
	pthread_mutex_unlock(&sh->lend_lock);
	return true;
}

uint32_t hc_lend_withdraw(struct hc_mm_shared *sh, struct hc_pool *owner, bool taken_only,
			  const struct hc_storage *st,
			  void (*back)(struct hc_pool *, uint32_t m, uint32_t len, bool taken))
{
	struct hc_lend *mine = NULL, **pp, *e;
	void *evs[16];
	unsigned nev = 0;
	uint32_t n = 0;

	pthread_mutex_lock(&sh->lend_lock);
	for (pp = &sh->lend; (e = *pp);) {
		if (e->owner != owner || (taken_only && !e->taken)) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		e->next = mine;
		mine = e;
	}
	for (e = mine; e; e = e->next) {
		void *ev = fence_unref(e->fence);

		e->fence = NULL;
		if (ev && nev < sizeof(evs) / sizeof(evs[0]))
			evs[nev++] = ev;
		else if (ev) /* rare: more than 16 lendings' last entries at once */
			st->fence_drop(st->ctx, ev);
	}
	pthread_mutex_unlock(&sh->lend_lock);
	while (nev)
		st->fence_drop(st->ctx, evs[--nev]);
	while ((e = mine)) {
		mine = e->next;
		back(owner, e->m, e->len, e->taken);
		free(e);
		n++;
	}
	return n;
}

uint64_t hc_lend_take(struct hc_mm_shared *sh, struct hc_pool *who, const struct hc_storage *st,
		      uint64_t want)
{
	struct hc_lend *e;
	uint64_t got = 0;

	pthread_mutex_lock(&sh->lend_lock);
	for (e = sh->lend; e && got < want; e = e->next) {
		bool done = false;

		if (e->taken || e->owner == who)
			continue;
		if (st->fence_passed(st->ctx, e->fence->ev, &done) != HC_OK || !done)
			continue;
		if (st->unmap_passed(st->ctx, e->addr, e->bytes) != HC_OK)
			break;
		e->taken = true;
		hc_shared_sub(&sh->reserved, e->bytes);
		got += e->bytes;
	}
	pthread_mutex_unlock(&sh->lend_lock);
	return got;
}
