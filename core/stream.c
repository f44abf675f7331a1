/*
 * stream.c - opening, syncing and closing streams.
 *
 * A stream is the unit of ordering and of memory ownership: it owns a
 * backend stream, a device memory manager and a pinned host memory manager
 * (alignment 16, the device's page sizes), the table of buffers allocated
 * from it, its drop queue, cursor, capture state and metadata cache.
 *
 * Stream slots are allocated once per device and reused: a closed slot keeps
 * its memory (so a stale handle can be checked) and its generation grows.
 */
#include <stdlib.h>
#include <string.h>

#include "core/object.h"
#include "core/trace_order.h"
#include "trace/hipcore_trace.h"

/* --- fences for the drop queue ------------------------------------------ */

static hc_status fence_record(void *ctx, void **fence)
{
	return hc_strm_fence_record(ctx, fence);
}

static hc_status fence_sync(void *ctx, void *fence)
{
	struct hc_strm *st = ctx;

	return hc_strm_fence_wait(st, fence);
}

static void fence_destroy(void *ctx, void *fence)
{
	hc_strm_fence_destroy(ctx, fence);
}

/* --- open / close -------------------------------------------------------- */

static hc_status strm_init_memory(struct hc_strm *st, const hc_pool_layout *layout)
{
	struct hc_dev *dev = st->dev;
	struct hc_mm_props dprops = { dev->props.total_memory / 4, dev->props.alignment,
				      &dev->dshared, false, dev->props.vmm_granularity,
				      dev->props.total_memory };
	struct hc_mm_props pprops = { dev->props.total_memory / 4, 16, NULL, .host = true };
	hc_pool_layout pinned_layout = { HC_LAYOUT_SUBSLICES, NULL, 0 };
	struct hc_layout *dl = NULL, *pl = NULL;
	hc_status rc;

	hc_strm_storage_init(st);
	rc = hc_layout_resolve(layout, &dprops, &dl);
	if (rc != HC_OK)
		return rc;
	rc = hc_layout_resolve(&pinned_layout, &pprops, &pl);
	if (rc != HC_OK)
		goto out_free_layouts;
	rc = hc_mm_create(dl, &dprops, &st->dstore, &st->dmm);
	if (rc != HC_OK)
		goto out_free_layouts;
	rc = hc_mm_create(pl, &pprops, &st->pstore, &st->pmm);
	if (rc != HC_OK) {
		hc_mm_destroy(st->dmm);
		st->dmm = NULL;
	}
out_free_layouts:
	hc_layout_free(dl);
	hc_layout_free(pl);
	return rc;
}

hc_status hc_strm_create(struct hc_dev *dev, bool adopt, void *native, struct hc_strm **out)
{
	const char *fn = adopt ? "hc_stream_adopt" : "hc_stream_open";
	struct hc_strm *st = NULL;
	uint32_t slot;
	hc_status rc;

	/* Reuse a closed slot, else take a new one.  Caller holds dev->lock. */
	for (slot = 0; slot < dev->nstreams; slot++)
		if (!dev->streams[slot]->open)
			break;
	if (slot == HC_MAX_STREAMS)
		return hc_fail(HC_ERR_INVALID, "%s: %u streams are already open", fn,
			       HC_MAX_STREAMS);
	if (slot == dev->nstreams) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return hc_fail(HC_ERR_OOM, "%s: out of host memory", fn);
		hc_lock_init(&st->lock);
		pthread_mutex_init(&st->inbox.lock, NULL);
		st->dev = dev;
		st->slot = slot;
	} else {
		st = dev->streams[slot];
	}
	st->gen = hc_gen_next(st->gen);
	st->handle.id = hc_handle_pack(HC_KIND_STREAM, dev->slot, slot, st->gen, 0);
	st->buf_base = hc_handle_pack(HC_KIND_BUFFER, dev->slot, slot, 0, 0);
	st->free_head = UINT32_MAX;

	st->adopted = adopt;
	st->native = native;
	if (adopt && !dev->ops->stream_adopt)
		rc = hc_fail(HC_ERR_UNSUPPORTED, "%s: backend %s cannot adopt streams", fn,
			     dev->ops->name);
	else
		rc = adopt ? dev->ops->stream_adopt(dev->hal, native, &st->hal)
			   : dev->ops->stream_create(dev->hal, &st->hal);
	if (rc != HC_OK)
		goto err_release_slot;
	rc = strm_init_memory(st, &dev->layout);
	if (rc != HC_OK)
		goto err_destroy_hal;
	rc = hc_strm_queues_init(st);
	if (rc != HC_OK)
		goto err_destroy_memory;
	if (slot == dev->nstreams) {
		__atomic_store_n(&dev->streams[slot], st, __ATOMIC_RELEASE);
		dev->nstreams++;
	}
	pthread_mutex_lock(&st->inbox.lock);
	st->inbox.closed = false;
	pthread_mutex_unlock(&st->inbox.lock);
	hc_lock_acquire(&st->lock);
	st->open = true;
	hc_lock_release(&st->lock);
	/* The stream's first user, not its opener, gets the bias (lock.h). */
	hc_lock_disown(&st->lock);
	*out = st;
	return HC_OK;

err_destroy_memory:
	hc_mm_destroy(st->pmm);
	hc_mm_destroy(st->dmm);
	st->pmm = st->dmm = NULL;
err_destroy_hal:
	dev->ops->stream_destroy(dev->hal, st->hal);
	st->hal = NULL;
err_release_slot:
	if (slot == dev->nstreams) {
		hc_lock_destroy(&st->lock);
		pthread_mutex_destroy(&st->inbox.lock);
		free(st);
	}
	return rc;
}

/*
 * hc_strm_teardown_locked - wait for the stream's work, release everything
 * it holds.  Context: device lock held (or the device is closing) and the
 * stream's.  Buffers still live are freed: closing a stream ends its buffers.
 */
void hc_strm_teardown_locked(struct hc_strm *st)
{
	struct hc_dev *dev = st->dev;

	hc_strm_inbox_drain(st);
	dev->ops->stream_sync(dev->hal, st->hal);
	hc_strm_queues_fini(st); /* drop queue drained, cache values freed */
	hc_et_fini(&st->et);
	for (uint32_t i = 0; i < st->nbufs; i++) {
		struct hc_buf *b = &st->bufs[i];
		if (b->live || b->freed_pinned) {
			hc_et_forget(dev, hc_buf_handle(st, i).id);
			hc_mm_release(st->dmm, b->ref);
		}
	}
	free(st->bufs);
	st->bufs = NULL;
	st->nbufs = st->capbufs = 0;
	st->free_head = UINT32_MAX;
	hc_mm_destroy(st->dmm);
	hc_mm_destroy(st->pmm);
	st->dmm = st->pmm = NULL;
	dev->ops->stream_destroy(dev->hal, st->hal);
	st->hal = NULL;
	pthread_mutex_lock(&st->inbox.lock); /* consumers post unpins under it */
	st->inbox.closed = true;
	free(st->inbox.unpin);
	st->inbox.unpin = NULL;
	__atomic_store_n(&st->inbox.n, 0, __ATOMIC_RELAXED);
	st->inbox.cap = 0;
	pthread_mutex_unlock(&st->inbox.lock);
	st->open = false;
}

/* hc_strm_teardown - the same, taking the stream lock.  Context: device
 * lock held (or the device is closing). */
void hc_strm_teardown(struct hc_strm *st)
{
	hc_lock_acquire(&st->lock);
	hc_strm_teardown_locked(st);
	hc_lock_release(&st->lock);
}

/* Stream open, adoption and close are ordered while their events are
 * recorded, as hc_alloc and hc_free are (trace_order.h): a stream that one
 * thread opens between another's allocations lands in the trace where it
 * happened, so a replay meets the same pools in the same state.  Without
 * this a 4-thread PyTorch history replayed with a different peak reserved
 * now and then (tests/torch-trace.sh). */
static hc_status open_call(hc_device d, hc_stream *out)
{
	uint64_t t0 = HC_TRACE_T0(stream_open);
	struct hc_dev *dev;
	struct hc_strm *st;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_stream_open: out is NULL");
	out->id = 0;
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	rc = hc_strm_create(dev, false, NULL, &st);
	pthread_mutex_unlock(&dev->lock);
	if (rc == HC_OK)
		*out = st->handle;
	HC_TRACE(stream_open, d.id, out->id, (int32_t)rc, hc_trace_since_ns(t0));
	return rc;
}

hc_status hc_stream_open(hc_device d, hc_stream *out)
{
	hc_status rc;

	HC_TRACE_ORDERED(stream_open, rc = open_call(d, out));
	return rc;
}

/* The open stream of @dev that adopted @native, or NULL.  Device lock held. */
static struct hc_strm *adopter_of(struct hc_dev *dev, void *native)
{
	for (uint32_t slot = 0; slot < dev->nstreams; slot++) {
		struct hc_strm *st = dev->streams[slot];

		if (st->open && st->adopted && st->native == native)
			return st;
	}
	return NULL;
}

static hc_status adopt_call(hc_device d, void *native, hc_stream *out)
{
	uint64_t t0 = HC_TRACE_T0(stream_adopt);
	struct hc_dev *dev;
	struct hc_strm *st;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_stream_adopt: out is NULL");
	out->id = 0;
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	/* Two streams on one native queue would each believe they order it
	 * alone: their drop queues and cursors would disagree. */
	st = adopter_of(dev, native);
	if (st)
		rc = hc_fail(HC_ERR_STATE, "hc_stream_adopt: native stream %p is already stream %#llx",
			     native, (unsigned long long)st->handle.id);
	else
		rc = hc_strm_create(dev, true, native, &st);
	pthread_mutex_unlock(&dev->lock);
	if (rc == HC_OK)
		*out = st->handle;
	HC_TRACE(stream_adopt, d.id, out->id, (uint64_t)(uintptr_t)native, (int32_t)rc,
		 hc_trace_since_ns(t0));
	return rc;
}

hc_status hc_stream_adopt(hc_device d, void *native, hc_stream *out)
{
	hc_status rc;

	HC_TRACE_ORDERED(stream_adopt, rc = adopt_call(d, native, out));
	return rc;
}

/*
 * Whether @st, found from @s with no lock held, may be closed: decided with
 * the device lock and the stream's held together, the lock order, and kept
 * until the teardown is over.  Deciding under the stream's lock alone and
 * then taking the device lock let another thread begin a capture on the
 * stream, or close it, in between: a recording stream was torn down (its
 * backend stream left capturing, which refused every later wait and
 * allocation of the device) or one stream torn down twice.
 * Another stream's capture refuses the close too: the teardown's waits
 * (the stream's work, its drop queue's fences) are host waits the backend
 * refuses then, and that invalidate that capture; the close used to go on
 * without them, releasing memory, and posting unpins, that work not known
 * to be done might still use.  hc_graph_begin counts its capture under
 * the device lock, so a capture begun on another stream during the
 * teardown starts after it (hc_graph_destroy is covered the same way).
 */
hc_status hc_strm_lock_under_dev(hc_stream s, struct hc_strm **out)
{
	struct hc_strm *st;
	struct hc_dev *dev;
	hc_status rc;

	rc = hc_strm_lock(s, &st); /* finds the device; slots live as long as it */
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	hc_strm_unlock(st);
	pthread_mutex_lock(&dev->lock);
	hc_lock_acquire(&st->lock);
	if (!st->open || st->handle.id != s.id) {
		hc_lock_release(&st->lock);
		pthread_mutex_unlock(&dev->lock);
		return hc_fail(HC_ERR_STALE, "stream %#llx was closed meanwhile", (unsigned long long)s.id);
	}
	*out = st;
	return HC_OK;
}

static hc_status close_check(struct hc_strm *st)
{
	if (hc_capture_is_active(&st->capture))
		return hc_fail(HC_ERR_STATE, "hc_stream_close: a graph capture is active on this stream");
	if (atomic_load_explicit(&st->dev->recording, memory_order_acquire))
		return hc_fail(HC_ERR_STATE,
			       "hc_stream_close: another stream of the device records a capture, which "
			       "the close's waits would invalidate; close it after that stream's "
			       "hc_graph_end");
	return HC_OK;
}

static hc_status close_call(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(stream_close);
	struct hc_strm *st;
	struct hc_dev *dev;
	hc_status rc;

	rc = hc_strm_lock_under_dev(s, &st);
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	rc = close_check(st);
	if (rc == HC_OK) {
		/* Graphs captured on this stream hold its slices: they end with it. */
		hc_graphs_destroy_stream(dev, st);
		hc_strm_teardown_locked(st);
	}
	hc_lock_release(&st->lock);
	pthread_mutex_unlock(&dev->lock);
	if (rc == HC_OK)
		HC_TRACE(stream_close, s.id, (int32_t)HC_OK, hc_trace_since_ns(t0));
	return rc;
}

hc_status hc_stream_close(hc_stream s)
{
	hc_status rc;

	HC_TRACE_ORDERED(stream_close, rc = close_call(s));
	return rc;
}

void hc_strm_inbox_drain(struct hc_strm *st)
{
	uint32_t *idx;
	size_t n;

	/* Every call drains: skip the lock when nothing was posted. */
	if (__atomic_load_n(&st->inbox.n, __ATOMIC_ACQUIRE) == 0)
		return;
	pthread_mutex_lock(&st->inbox.lock);
	idx = st->inbox.unpin;
	n = st->inbox.n;
	st->inbox.unpin = NULL;
	__atomic_store_n(&st->inbox.n, 0, __ATOMIC_RELAXED);
	st->inbox.cap = 0;
	pthread_mutex_unlock(&st->inbox.lock);
	for (size_t i = 0; i < n; i++)
		hc_buf_remote_unpin(st, idx[i]);
	free(idx);
}

/* --- the stream's queues: drop queue, cursor, capture state, cache ----- */

/* A cached info buffer leaves the cache: its slice goes back to the pool. */
static void cache_value_free(void *ctx, struct hc_mc_value v)
{
	struct hc_strm *st = ctx;
	struct hc_slice_ref ref = { (struct hc_slice *)(uintptr_t)v.a, v.b };

	hc_mm_release(st->dmm, ref);
}

hc_status hc_strm_queues_init(struct hc_strm *st)
{
	struct hc_fence_ops fops = { fence_record, fence_sync, fence_destroy, st };
	struct hc_dq_policy policy = hc_dq_policy_default(st->dev->props.integrated);
	hc_status rc;

	if (st->dev->policy.dq_max_count)
		policy.max_count = st->dev->policy.dq_max_count;
	if (st->dev->policy.dq_max_bytes)
		policy.max_bytes = st->dev->policy.dq_max_bytes;
	rc = hc_dq_init(&st->dq, &policy, &fops);
	if (rc != HC_OK)
		return rc;
	hc_cursor_init(&st->cursor);
	hc_capture_init(&st->capture);
	rc = hc_mc_create(NULL, cache_value_free, st, &st->cache);
	if (rc != HC_OK)
		hc_dq_fini(&st->dq);
	return rc;
}

void hc_strm_queues_fini(struct hc_strm *st)
{
	hc_dq_drain(&st->dq);
	hc_dq_fini(&st->dq);
	hc_mc_destroy(st->cache);
	st->cache = NULL;
}

void hc_strm_cache_clear_unpinned(struct hc_strm *st)
{
	hc_mc_clear_unpinned(st->cache);
}

hc_status hc_strm_fence_record(struct hc_strm *st, void **fence)
{
	hc_status rc = st->dev->ops->event_record(st->dev->hal, st->hal, (hc_hal_event **)fence);

	if (rc == HC_OK)
		hc_et_fence_recorded(st, *fence);
	return rc;
}

void hc_strm_fence_destroy(struct hc_strm *st, void *fence)
{
	hc_et_fence_forget(st, fence);
	st->dev->ops->event_destroy(st->dev->hal, fence);
}

hc_status hc_strm_fence_wait(struct hc_strm *st, void *fence)
{
	return hc_et_fence_result(st, fence, st->dev->ops->event_sync(st->dev->hal, fence));
}

hc_status hc_strm_sync_wait(struct hc_strm *st)
{
	return hc_et_fence_result(st, NULL, st->dev->ops->stream_sync(st->dev->hal, st->hal));
}
