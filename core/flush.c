/*
 * flush.c - a stream's drop queue seen from the operations: what they
 * defer behind the stream's next fence, and when the queue is flushed.
 *
 * Memory the device may still read (a staging slice, a caller's pinned
 * source, another stream's pinned buffer) is released through the drop
 * queue (core/queue/drop_queue.h): hc_strm_defer queues the release, and
 * a flush records a fence over what is queued and releases what an
 * earlier fence covered.  A flush waits on a fence on the host, so it is
 * put off while this stream records a capture, and deferred while another
 * stream of the device records one (a host sync would invalidate it).
 * hc_strm_maybe_flush is the trigger every stream operation ends with: a
 * flush when the operation asks for one (a large or file-backed write) or
 * the queue's own limits say so.
 */
#include <stdlib.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"

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

/* Whether a stream of @st's device other than @st records a capture. */
static bool others_recording(const struct hc_strm *st)
{
	uint32_t n = atomic_load(&st->dev->recording);

	return n > (hc_capture_is_recording(&st->capture) ? 1u : 0u);
}

hc_status hc_strm_dq_flush(struct hc_strm *st)
{
	uint64_t t0 = hc_trace_now_ns();
	struct hc_dq_stats before, after;
	bool deferred = hc_dq_is_deferred(&st->dq);
	hc_status rc;

	hc_dq_stats(&st->dq, &before);
	/* A flush waits on a fence on the host: while another stream of the
	 * device records a capture that would invalidate it, so the flush is
	 * deferred as during this stream's own capture (entries stay queued,
	 * memory is only held longer). */
	if (!deferred && others_recording(st))
		hc_dq_set_deferred(&st->dq, true);
	rc = hc_dq_flush(&st->dq);
	hc_dq_set_deferred(&st->dq, deferred);
	hc_dq_stats(&st->dq, &after);
	if (after.flushes != before.flushes) {
		atomic_fetch_add(&st->dev->stats.dq_flushes, 1);
		HC_TRACE(dq_flush, st->handle.id, (uint32_t)before.staged_count, before.staged_bytes,
			 hc_trace_now_ns() - t0);
	}
	return rc;
}

hc_status hc_strm_dq_flush_all(struct hc_strm *st)
{
	hc_status rc = hc_strm_dq_flush(st);
	hc_status rc2 = hc_strm_dq_flush(st);

	return rc != HC_OK ? rc : rc2;
}

hc_status hc_strm_maybe_flush(struct hc_strm *st, bool want)
{
	if (hc_capture_is_recording(&st->capture))
		return HC_OK;
	if (want || hc_dq_should_flush(&st->dq))
		return hc_strm_dq_flush(st);
	return HC_OK;
}
