/*
 * storage.c - where a stream's pools take their pages from.
 *
 * Each stream's two memory managers (core/pool/pool.h) get pages through a
 * struct hc_storage: device memory through the device's idle cache
 * (core/pool/idle.h) and the backend, pinned host memory straight from the
 * backend.  These callbacks are the one place where the pools, which know
 * nothing of streams, meet a stream's state: its capture (an allocation or
 * free while recording breaks the capture), the device's memory limit, its
 * counters and the trace.
 */
#include "core/object.h"
#include "trace/hipcore_trace.h"

/*
 * A zero-size page (the presets' pool 0 serves zero-size buffers, as
 * upstream) takes nothing from the backend: it gets an address that no
 * backend hands out and that is never dereferenced.
 */
#define ZERO_PAGE_ADDR (~(uint64_t)0xfff)

/*
 * A device or pinned allocation or free attempted while the stream records
 * makes the capture invalid, whatever the backend did with it: on a real
 * runtime it would be a memory node (the first launch works, every relaunch
 * fails) or a call that breaks the capture.  hc_graph_end rejects it.
 */
static void capture_note_memop(struct hc_strm *st)
{
	if (hc_capture_is_recording(&st->capture))
		st->capture_memops++;
}

/*
 * Device storage goes through the device's idle cache (core/pool/idle.h): a
 * page first comes from memory another pool of the device released (any
 * stream; a device-side wait on that stream's fence when needed), and a
 * released page waits there, behind a fence of this stream, for the next
 * request of its size (of a size up to the bound the caller allows, for
 * alloc_fit: the splitting direct pool with several streams open).  While
 * the stream records a capture nothing is cached or adopted: the calls go
 * to the backend and break the capture.  While another stream records, an
 * idle entry may still be adopted (a device-side wait), but a request the
 * cache cannot serve is refused (HC_ERR_STATE) before it frees idle memory
 * or asks the backend, either of which would invalidate that capture, as
 * storage_vmm.c refuses a map.
 */
static hc_status device_storage_alloc_fit(void *ctx, uint64_t size, uint64_t max,
					  uint64_t *addr, uint64_t *got)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;
	struct hc_idle_hal h = { dev->ops, dev->hal };
	hc_status rc;

	*got = size;
	if (size == 0) {
		*addr = ZERO_PAGE_ADDR;
		return HC_OK;
	}
	if (hc_capture_is_recording(&st->capture)) {
		st->capture_memops++;
	} else {
		uint64_t limit = atomic_load_explicit(&dev->memory_limit, memory_order_relaxed);

		if (hc_idle_take_fit(&dev->idle, &h, st->handle.id, st->hal, size, max, addr, got))
			return HC_OK;
		/* Another stream records: the backend would refuse the
		 * allocation and the frees that make room for it, and
		 * invalidate that capture; refused here, it goes on. */
		if (atomic_load_explicit(&dev->recording, memory_order_acquire))
			return hc_fail(HC_ERR_STATE,
				       "no device allocation while a stream of the device records");
		/* Over the cap is a refusal like the device's own: cleanup and
		 * retry follow in the caller. */
		if (limit && !hc_idle_fit_limit(&dev->idle, &h, size, limit))
			return hc_fail(HC_ERR_OOM,
				       "device memory limit of %llu bytes reached (%llu more asked)",
				       (unsigned long long)limit, (unsigned long long)size);
		hc_idle_make_room(&dev->idle, &h, size);
	}
	rc = dev->ops->mem_alloc(dev->hal, size, addr);
	if (rc == HC_ERR_OOM && hc_idle_bytes(&dev->idle)) {
		/* Idle memory goes before a refusal: a cleanup-and-retry of its own. */
		atomic_fetch_add(&dev->stats.alloc_retries, 1);
		hc_idle_trim(&dev->idle, &h, 0);
		rc = dev->ops->mem_alloc(dev->hal, size, addr);
	}
	if (rc == HC_OK) {
		hc_idle_note_alloc(&dev->idle, size);
		HC_TRACE(device_alloc, st->handle.id, *addr, size);
	}
	return rc;
}

static hc_status device_storage_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	uint64_t got;

	return device_storage_alloc_fit(ctx, size, size, addr, &got);
}

static hc_status device_storage_free(void *ctx, uint64_t addr, uint64_t size)
{
	struct hc_strm *st = ctx;
	struct hc_dev *dev = st->dev;
	struct hc_idle_hal h = { dev->ops, dev->hal };

	if (addr == ZERO_PAGE_ADDR)
		return HC_OK;
	if (!hc_capture_is_recording(&st->capture))
		return hc_idle_put(&dev->idle, &h, st->handle.id, st->hal, addr, size);
	st->capture_memops++;
	hc_idle_note_free(&dev->idle, size);
	HC_TRACE(device_free, st->handle.id, addr, size);
	return dev->ops->mem_free(dev->hal, addr);
}

static hc_status pinned_storage_alloc(void *ctx, uint64_t size, uint64_t *addr)
{
	struct hc_strm *st = ctx;
	void *p = NULL;
	hc_status rc;

	if (size == 0) {
		*addr = ZERO_PAGE_ADDR;
		return HC_OK;
	}
	capture_note_memop(st);
	rc = st->dev->ops->host_alloc(st->dev->hal, size, &p);

	*addr = (uint64_t)(uintptr_t)p;
	if (rc == HC_OK)
		HC_TRACE(pinned_alloc, st->handle.id, *addr, size);
	return rc;
}

static hc_status pinned_storage_free(void *ctx, uint64_t addr, uint64_t size)
{
	struct hc_strm *st = ctx;

	if (addr == ZERO_PAGE_ADDR)
		return HC_OK;
	capture_note_memop(st);
	HC_TRACE(pinned_free, st->handle.id, addr, size);
	return st->dev->ops->host_free(st->dev->hal, (void *)(uintptr_t)addr);
}

void hc_strm_storage_init(struct hc_strm *st)
{
	st->dstore = (struct hc_storage){ .alloc = device_storage_alloc,
					  .free = device_storage_free,
					  .ctx = st,
					  .alloc_fit = device_storage_alloc_fit };
	st->pstore = (struct hc_storage){ .alloc = pinned_storage_alloc,
					  .free = pinned_storage_free,
					  .ctx = st };
	hc_strm_storage_vmm_init(st);
}
