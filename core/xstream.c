/*
 * xstream.c - lock sets and cross-stream use of buffers (DESIGN §4.7).
 *
 * A call that queues work on stream C naming a buffer of stream O (a write
 * target, a read source, a launch binding) must order that work after O's
 * writes to the buffer, and must keep O from reusing the buffer's memory
 * until C's work is done.
 *
 * Ordering uses cursors: O stamps a buffer with hc_cursor_advance() when it
 * allocates it and each time it writes it; C remembers O's cursor at its last
 * wait.  When the stamp is newer (hc_cursor_needs_wait), C records a fresh
 * event on O, makes its own stream wait on it, and notes O's cursor.  A
 * second use without a new write on O waits for nothing.
 *
 * Lifetime uses pins: remote_pins++ on O's entry, and an entry on C's drop
 * queue whose release (after C's fence) posts the buffer index to O's inbox;
 * O drains the inbox under its own lock and frees an entry its user already
 * freed once the last pin goes.
 *
 * Locks: deciding for C needs O's cursor and O's entry, so a call holds both.
 * Every involved stream is locked in ascending slot order through
 * hc_lockset_acquire, which makes the order total and deadlock-free; the
 * common case (every buffer is C's own) takes C's lock once.
 */
#include <stdlib.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"

static bool slot_locked(const struct hc_lockset *ls, uint32_t slot)
{
	for (size_t i = 0; i < ls->nlocked; i++)
		if (ls->locked[i]->slot == slot)
			return true;
	return false;
}

static struct hc_strm *locked_slot(const struct hc_lockset *ls, uint32_t slot)
{
	for (size_t i = 0; i < ls->nlocked; i++)
		if (ls->locked[i]->slot == slot)
			return ls->locked[i];
	return NULL;
}

void hc_lockset_release(struct hc_lockset *ls)
{
	while (ls->nlocked > 0)
		hc_strm_unlock(ls->locked[--ls->nlocked]);
	ls->st = NULL;
	ls->nuse = 0;
}

/* Resolves each buffer in its (locked) origin stream. */
static hc_status lockset_resolve(struct hc_lockset *ls, const hc_buffer *bufs, size_t n)
{
	hc_status rc;

	for (size_t i = 0; i < n; i++) {
		struct hc_handle_parts p = hc_handle_unpack(bufs[i].id);
		struct hc_strm *o = locked_slot(ls, p.stream);

		if (!o)
			return hc_fail(HC_ERR_STALE, "buffer %#llx: its stream is closed",
				       (unsigned long long)bufs[i].id);
		rc = hc_buf_find(o, bufs[i], &ls->use[i].buf);
		if (rc != HC_OK)
			return rc;
		ls->use[i].origin = o;
		ls->use[i].idx = (uint32_t)(ls->use[i].buf - o->bufs);
	}
	ls->nuse = n;
	return HC_OK;
}

hc_status hc_lockset_acquire(hc_stream s, const hc_buffer *bufs, size_t n, const char *fn,
			     struct hc_lockset *ls)
{
	uint64_t mask[HC_MAX_STREAMS / 64] = { 0 };
	struct hc_strm *st;
	struct hc_dev *dev;
	bool own = true;
	hc_status rc;

	ls->nlocked = ls->nuse = 0;
	ls->st = NULL;
	if (n > HC_LOCKSET_MAX_BUFS)
		return hc_fail(HC_ERR_INVALID, "%s: %zu buffers, at most %u", fn, n,
			       HC_LOCKSET_MAX_BUFS);
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	for (size_t i = 0; i < n; i++) {
		struct hc_handle_parts p = hc_handle_unpack(bufs[i].id);

		if (bufs[i].id == 0 || p.kind != HC_KIND_BUFFER) {
			hc_strm_unlock(st);
			return hc_fail(HC_ERR_STALE, "%s: handle %#llx is not a buffer", fn,
				       (unsigned long long)bufs[i].id);
		}
		if (p.dev != dev->slot) {
			hc_strm_unlock(st);
			return hc_fail(HC_ERR_INVALID, "%s: buffer %#llx belongs to another device",
				       fn, (unsigned long long)bufs[i].id);
		}
		if (p.stream != st->slot)
			own = false;
		mask[p.stream / 64] |= (uint64_t)1 << (p.stream % 64);
	}
	ls->st = st;
	ls->locked[ls->nlocked++] = st;
	if (own)
		goto resolve; /* the fast path: one lock */

	/* Relock everything in ascending slot order. */
	hc_strm_unlock(st);
	ls->nlocked = 0;
	mask[st->slot / 64] |= (uint64_t)1 << (st->slot % 64);
	for (uint32_t slot = 0; slot < HC_MAX_STREAMS; slot++) {
		struct hc_strm *x;

		if (!(mask[slot / 64] & ((uint64_t)1 << (slot % 64))))
			continue;
		if (hc_strm_slot_lock(dev->slot, slot, &x) != HC_OK) {
			if (slot == st->slot) {
				hc_lockset_release(ls);
				return hc_fail(HC_ERR_STALE, "%s: stream %#llx is closed", fn,
					       (unsigned long long)s.id);
			}
			continue; /* resolve reports the buffer as stale */
		}
		ls->locked[ls->nlocked++] = x;
	}
	if (!slot_locked(ls, st->slot) || !st->open || st->handle.id != s.id) {
		hc_lockset_release(ls);
		return hc_fail(HC_ERR_STALE, "%s: stream %#llx was closed", fn,
			       (unsigned long long)s.id);
	}
	ls->st = st;
resolve:
	rc = lockset_resolve(ls, bufs, n);
	if (rc != HC_OK)
		hc_lockset_release(ls);
	return rc;
}

/* --- the unpin that travels back to the origin ---------------------------- */

struct unpin_arg {
	struct hc_strm *origin;
	uint32_t origin_gen; /* the origin slot's generation when pinned */
	uint32_t idx;
};

static void unpin_post(void *p)
{
	struct unpin_arg *a = p;
	struct hc_inbox *in = &a->origin->inbox;

	pthread_mutex_lock(&in->lock);
	/* A closed origin freed its table (and a reopened one is reached
	 * only through a new generation, which the pin never names). */
	if (!in->closed && a->origin->gen == a->origin_gen) {
		if (in->n == in->cap) {
			size_t cap = in->cap ? in->cap * 2 : 16;
			uint32_t *nu = realloc(in->unpin, cap * sizeof(*nu));

			if (nu) {
				in->unpin = nu;
				in->cap = cap;
			}
		}
		/* Without memory the pin stays: the buffer leaks until the
		 * origin closes, which is safe. */
		if (in->n < in->cap) {
			in->unpin[in->n] = a->idx;
			/* Atomic: the owner's fast path reads n without the lock. */
			__atomic_store_n(&in->n, in->n + 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&in->lock);
	free(a);
}

hc_status hc_xs_before(struct hc_lockset *ls, struct hc_use *u)
{
	struct hc_strm *st = ls->st, *o = u->origin;
	struct hc_dev *dev = st->dev;
	hc_hal_event *ev = NULL;
	hc_status rc;

	if (o == st)
		return HC_OK;
	if (hc_cursor_needs_wait(&st->cursor, o->slot, u->buf->stamp)) {
		uint64_t at = o->cursor.cursor;

		rc = dev->ops->event_record(dev->hal, o->hal, &ev);
		if (rc != HC_OK)
			return rc;
		rc = dev->ops->event_wait(dev->hal, st->hal, ev);
		dev->ops->event_destroy(dev->hal, ev);
		if (rc != HC_OK)
			return rc;
		hc_cursor_synced(&st->cursor, o->slot, at);
		atomic_fetch_add(&dev->stats.xstream_waits, 1);
		HC_TRACE(xstream_wait, st->handle.id, o->handle.id, hc_buf_handle(o, u->idx).id, at);
	}
	return HC_OK;
}

void hc_xs_after(struct hc_lockset *ls, struct hc_use *u)
{
	struct hc_strm *st = ls->st, *o = u->origin;
	struct unpin_arg *a;

	if (o == st)
		return;
	a = malloc(sizeof(*a));
	if (!a) {
		/* Cannot queue the unpin: wait for the work instead. */
		hc_strm_sync_wait(st);
		return;
	}
	*a = (struct unpin_arg){ o, o->gen, u->idx };
	u->buf->remote_pins++;
	hc_strm_defer(st, unpin_post, a, 0);
}

/* --- drop-queue helpers ---------------------------------------------------- */

void hc_strm_defer(struct hc_strm *st, void (*release)(void *), void *arg, uint64_t bytes)
{
	struct hc_dq_entry e = { release, arg, bytes };
	struct hc_dq_stats ds;

	if (hc_dq_push(&st->dq, &e) != HC_OK) {
		/* No room to queue it: make its fence pass now. */
		hc_strm_sync_wait(st);
		release(arg);
		return;
	}
	hc_dq_stats(&st->dq, &ds);
	HC_TRACE(dq_push, st->handle.id, (uint32_t)ds.staged_count, ds.staged_bytes);
}

struct slice_arg {
	struct hc_mm *mm;
	struct hc_slice_ref ref;
};

static void slice_release(void *p)
{
	struct slice_arg *a = p;

	hc_mm_release(a->mm, a->ref);
	free(a);
}

void hc_strm_defer_slice(struct hc_strm *st, struct hc_mm *mm, struct hc_slice_ref ref,
			 uint64_t bytes)
{
	struct slice_arg *a = malloc(sizeof(*a));

	if (!a) {
		hc_strm_sync_wait(st);
		hc_mm_release(mm, ref);
		return;
	}
	*a = (struct slice_arg){ mm, ref };
	hc_strm_defer(st, slice_release, a, bytes);
}

hc_status hc_strm_maybe_flush(struct hc_strm *st, bool want)
{
	if (hc_capture_is_recording(&st->capture))
		return HC_OK;
	if (want || hc_dq_should_flush(&st->dq))
		return hc_strm_dq_flush(st);
	return HC_OK;
}
