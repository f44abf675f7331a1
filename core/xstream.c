/*
 * xstream.c - cross-stream use of buffers (DESIGN §4.7).
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
 * Locks: deciding for C needs O's cursor and O's entry, so a call holds both
 * (lockset.c).
 */
#include <stdlib.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"

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
