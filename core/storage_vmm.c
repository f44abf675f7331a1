/*
 * storage_vmm.c - virtual memory for a stream's expandable pools: the
 * four struct hc_storage callbacks over the HAL's va_reserve, va_release,
 * pmem_map and pmem_unmap (hal/hal.h has their rules).
 *
 * A map is a device allocation in every way the device sees: it counts
 * against the memory limit (hc_device_set_memory_limit) and towards the
 * idle cache's held bytes, the idle cache gives memory back before it
 * (hc_idle_make_room, as a new device allocation does) and again after a
 * refusal (the retry mem_alloc gets too), and the fault shim counts it.
 * While this stream records a capture the pool never maps (reservations
 * go to the persistent pool then); while another stream of the device
 * records, the HAL would refuse and invalidate that capture, so the call
 * is refused here first (HC_ERR_STATE) and the pool returns that.
 *
 * Ordering: the runtimes do not wait for queued work before an unmap, so
 * the stream is synchronised first (as PyTorch's expandable segments do);
 * a released block was last used by this stream's queued work, and work
 * another stream still has in flight holds a pin, so the block is not
 * free yet.  A host synchronisation would break a capture recording
 * anywhere on the device, and the HAL would refuse the unmap then anyway:
 * nothing is synchronised or unmapped while one records.
 */
#include "core/object.h"

static hc_status vmm_va_reserve(void *ctx, uint64_t size, uint64_t *addr)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;

	if (!dev->ops->va_reserve)
		return hc_fail(HC_ERR_UNSUPPORTED, "backend %s has no virtual memory",
			       dev->ops->name);
	if (atomic_load_explicit(&dev->recording, memory_order_acquire))
		return hc_fail(HC_ERR_STATE, "no reservation while a stream of the device records");
	return dev->ops->va_reserve(dev->hal, size, addr);
}

static hc_status vmm_va_release(void *ctx, uint64_t addr, uint64_t size)
{
	struct hc_strm *st = ctx;

	return st->dev->ops->va_release(st->dev->hal, addr, size);
}

static hc_status vmm_map(void *ctx, uint64_t addr, uint64_t size)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;
	struct hc_idle_hal h = { dev->ops, dev->hal };
	uint64_t limit = atomic_load_explicit(&dev->memory_limit, memory_order_relaxed);
	hc_status rc;

	if (hc_capture_is_recording(&st->capture)) {
		st->capture_memops++;
		return hc_fail(HC_ERR_STATE, "no mapping while the stream records a capture");
	}
	/* another stream records: the runtime would refuse and invalidate
	 * its capture; refused here, the capture goes on */
	if (atomic_load_explicit(&dev->recording, memory_order_acquire))
		return hc_fail(HC_ERR_STATE, "no mapping while a stream of the device records");
	if (limit && !hc_idle_fit_limit(&dev->idle, &h, size, limit))
		return hc_fail(HC_ERR_OOM,
			       "device memory limit of %llu bytes reached (%llu more asked)",
			       (unsigned long long)limit, (unsigned long long)size);
	hc_idle_make_room(&dev->idle, &h, size);
	rc = dev->ops->pmem_map(dev->hal, addr, size);
	if (rc == HC_ERR_OOM && hc_idle_bytes(&dev->idle)) {
		atomic_fetch_add(&dev->stats.alloc_retries, 1);
		hc_idle_trim(&dev->idle, &h, 0);
		rc = dev->ops->pmem_map(dev->hal, addr, size);
	}
	if (rc == HC_OK)
		hc_idle_note_alloc(&dev->idle, size);
	return rc;
}

static hc_status vmm_unmap(void *ctx, uint64_t addr, uint64_t size)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;
	hc_status rc;

	if (atomic_load_explicit(&dev->recording, memory_order_acquire))
		return hc_fail(HC_ERR_STATE, "no unmapping while a stream of the device records");
	rc = dev->ops->stream_sync(dev->hal, st->hal);
	if (rc != HC_OK)
		return rc;
	rc = dev->ops->pmem_unmap(dev->hal, addr, size);
	if (rc == HC_OK)
		hc_idle_note_free(&dev->idle, size);
	return rc;
}

/*
 * Fences for an expandable pool that shares the device's memory
 * (HC_RECLAIM_AT_SHARED): an event recorded on this stream after the frees
 * that left mappings idle, which any stream of the device queries (never
 * waits on) before it unmaps those mappings; once it passed they are
 * unmapped without the stream synchronisation vmm_unmap does, so no
 * host's run-ahead stalls.
 * Nothing is recorded, queried or unmapped while a stream of the device
 * records a capture (a query or unmap would be an illegal call there).
 */
static hc_status vmm_fence(void *ctx, void **out)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;
	hc_hal_event *ev = NULL;
	hc_status rc;

	if (hc_capture_is_recording(&st->capture) ||
	    atomic_load_explicit(&dev->recording, memory_order_acquire))
		return HC_ERR_STATE;
	rc = dev->ops->event_record(dev->hal, st->hal, &ev);
	*out = rc == HC_OK ? ev : NULL;
	return rc;
}

static hc_status vmm_fence_passed(void *ctx, void *fence, bool *done)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;

	*done = false;
	if (atomic_load_explicit(&dev->recording, memory_order_acquire))
		return HC_ERR_STATE;
	return dev->ops->event_query(dev->hal, fence, done);
}

static void vmm_fence_drop(void *ctx, void *fence)
{
	struct hc_strm *st = ctx;

	st->dev->ops->event_destroy(st->dev->hal, fence);
}

static hc_status vmm_unmap_passed(void *ctx, uint64_t addr, uint64_t size)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;
	hc_status rc;

	if (atomic_load_explicit(&dev->recording, memory_order_acquire))
		return HC_ERR_STATE;
	rc = dev->ops->pmem_unmap(dev->hal, addr, size);
	if (rc == HC_OK)
		hc_idle_note_free(&dev->idle, size);
	return rc;
}

/**
 * hc_strm_storage_vmm_init - give @st's device storage the virtual-memory
 * callbacks when its backend has them (props.vmm_granularity nonzero and
 * the four ops present); otherwise leave them NULL, and a layout's
 * expandable pool becomes a split direct pool.
 */
void hc_strm_storage_vmm_init(struct hc_strm *st)
{
	const struct hc_hal_ops *ops = st->dev->ops;

	if (!st->dev->props.vmm_granularity || !ops->va_reserve || !ops->va_release ||
	    !ops->pmem_map || !ops->pmem_unmap)
		return;
	st->dstore.va_reserve = vmm_va_reserve;
	st->dstore.va_release = vmm_va_release;
	st->dstore.map = vmm_map;
	st->dstore.unmap = vmm_unmap;
	if (!ops->event_record || !ops->event_query || !ops->event_destroy)
		return;
	st->dstore.fence = vmm_fence;
	st->dstore.fence_passed = vmm_fence_passed;
	st->dstore.fence_drop = vmm_fence_drop;
	st->dstore.unmap_passed = vmm_unmap_passed;
}
