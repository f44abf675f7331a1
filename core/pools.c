/*
 * pools.c - the public calls on a stream's pools: usage, reports, cleanup,
 * persistent windows, the device's idle memory and limit, and
 * hc_install_memory_pools.
 *
 * The pools themselves are core/pool/ behind core/pool/pool.h; this file only
 * resolves handles, takes the right locks and keeps the device's layout for
 * streams opened later.
 */
#include <stdlib.h>
#include <string.h>

#include "core/object.h"
#include "core/trace_order.h"
#include "trace/hipcore_trace.h"

static struct hc_mm *mm_of(struct hc_strm *st, hc_memory_kind kind)
{
	return kind == HC_MEMORY_PINNED ? st->pmm : st->dmm;
}

static hc_status check_kind(const char *fn, hc_memory_kind kind)
{
	if (kind != HC_MEMORY_DEVICE && kind != HC_MEMORY_PINNED)
		return hc_fail(HC_ERR_INVALID, "%s: unknown memory kind %d", fn, (int)kind);
	return HC_OK;
}

hc_status hc_memory_usage_get(hc_stream s, hc_memory_kind kind, hc_memory_usage *out)
{
	struct hc_strm *st;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_memory_usage_get: out is NULL");
	rc = check_kind("hc_memory_usage_get", kind);
	if (rc != HC_OK)
		return rc;
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	hc_mm_usage(mm_of(st, kind), out);
	hc_strm_unlock(st);
	return HC_OK;
}

hc_status hc_device_memory_usage(hc_device d, hc_memory_kind kind, hc_memory_usage *out)
{
	struct hc_dev *dev;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_device_memory_usage: out is NULL");
	rc = check_kind("hc_device_memory_usage", kind);
	if (rc != HC_OK)
		return rc;
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < dev->nstreams; i++) {
		struct hc_strm *st = dev->streams[i];
		hc_memory_usage u;

		hc_lock_acquire(&st->lock);
		if (st->open) {
			hc_mm_usage(mm_of(st, kind), &u);
			out->number_allocs += u.number_allocs;
			out->bytes_in_use += u.bytes_in_use;
			out->bytes_padding += u.bytes_padding;
			out->bytes_reserved += u.bytes_reserved;
		}
		hc_lock_release(&st->lock);
	}
	if (kind == HC_MEMORY_DEVICE)
		out->bytes_reserved += hc_idle_bytes(&dev->idle);
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

hc_status hc_device_idle_bytes(hc_device d, uint64_t *out)
{
	struct hc_dev *dev;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_device_idle_bytes: out is NULL");
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	*out = hc_idle_bytes(&dev->idle);
	return HC_OK;
}

hc_status hc_device_idle_release(hc_device d)
{
	uint64_t t0 = HC_TRACE_T0(call);
	struct hc_dev *dev;
	hc_status rc;

	rc = hc_dev_get(d, &dev);
	/* A free while a stream records would invalidate its capture (and
	 * be refused: the entry would stay idle all the same). */
	if (rc == HC_OK && atomic_load_explicit(&dev->recording, memory_order_acquire))
		rc = hc_fail(HC_ERR_STATE,
			     "hc_device_idle_release: a stream of the device records a capture");
	else if (rc == HC_OK)
		hc_idle_trim(&dev->idle, &(struct hc_idle_hal){ dev->ops, dev->hal }, 0);
	HC_TRACE_CALL(device_idle_release, 0, d.id, 0, 0, rc, t0);
	return rc;
}

hc_status hc_device_set_memory_limit(hc_device d, uint64_t bytes)
{
	uint64_t t0 = HC_TRACE_T0(call);
	struct hc_dev *dev;
	hc_status rc;

	rc = hc_dev_get(d, &dev);
	if (rc == HC_OK)
		atomic_store(&dev->memory_limit, bytes);
	HC_TRACE_CALL(device_set_memory_limit, 0, d.id, 0, bytes, rc, t0);
	return rc;
}

/* The reports of one manager, copied under the stream's lock. */
struct report_copy {
	hc_pool_report *r;
	size_t n;
};

static void report_collect(const hc_pool_report *r, void *arg)
{
	struct report_copy *c = arg;

	if (c->n < HC_MM_MAX_POOLS + 1) /* the dynamic pools and the persistent one */
		c->r[c->n++] = *r;
}

/*
 * The reports are copied under the stream's lock and @fn runs after it is
 * released, so @fn may call libhipcore on @stream too (it used to run under
 * the lock, which is not recursive: such a call hung).  A manager has at
 * most HC_MM_MAX_POOLS dynamic pools and the persistent one; their reports
 * (about 30 KiB) are on the heap.
 */
hc_status hc_memory_report(hc_stream s, hc_memory_kind kind, hc_pool_report_fn fn, void *arg)
{
	struct report_copy c = { NULL, 0 };
	struct hc_strm *st;
	hc_status rc;

	if (!fn)
		return hc_fail(HC_ERR_INVALID, "hc_memory_report: fn is NULL");
	rc = check_kind("hc_memory_report", kind);
	if (rc != HC_OK)
		return rc;
	c.r = malloc((HC_MM_MAX_POOLS + 1) * sizeof(*c.r));
	if (!c.r)
		return hc_fail(HC_ERR_OOM, "hc_memory_report: out of host memory");
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		goto out_free;
	hc_mm_report(mm_of(st, kind), report_collect, &c);
	hc_strm_unlock(st);
	for (size_t i = 0; i < c.n; i++)
		fn(&c.r[i], arg);
out_free:
	free(c.r);
	return rc;
}

/*
 * While another stream of the device records, the flushes are put off
 * (flush.c) and what would be given back to the backend stays: pinned
 * pages (host_free) and the idle cache (mem_free), whose frees the backend
 * refuses then and which would invalidate that capture.  The device pools'
 * empty pages still go to the idle cache, which takes no backend call.
 */
void hc_strm_cleanup_locked(struct hc_strm *st)
{
	bool others;

	if (hc_capture_is_recording(&st->capture))
		return;
	others = atomic_load_explicit(&st->dev->recording, memory_order_acquire) != 0;
	hc_strm_dq_flush_all(st);
	hc_strm_cache_clear_unpinned(st);
	hc_mm_cleanup(st->dmm, true);
	if (others)
		return;
	hc_mm_cleanup(st->pmm, true);
	hc_idle_trim(&st->dev->idle, &(struct hc_idle_hal){ st->dev->ops, st->dev->hal }, 0);
}

hc_status hc_memory_cleanup(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(call);
	struct hc_strm *st;
	hc_status rc;

	rc = hc_strm_lock(s, &st);
	if (rc == HC_OK) {
		hc_strm_cleanup_locked(st);
		hc_strm_unlock(st);
	}
	HC_TRACE_CALL(memory_cleanup, s.id, 0, 0, 0, rc, t0);
	return rc;
}

hc_status hc_memory_persistent_begin(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(call);
	struct hc_strm *st;
	hc_status rc = hc_strm_lock(s, &st);

	if (rc == HC_OK) {
		hc_mm_mode_push_persistent(st->dmm);
		hc_strm_unlock(st);
	}
	HC_TRACE_CALL(memory_persistent_begin, s.id, 0, 0, 0, rc, t0);
	return rc;
}

hc_status hc_memory_persistent_end(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(call);
	struct hc_strm *st;
	hc_status rc = hc_strm_lock(s, &st);

	if (rc == HC_OK) {
		hc_mm_mode_pop(st->dmm);
		hc_strm_unlock(st);
	}
	HC_TRACE_CALL(memory_persistent_end, s.id, 0, 0, 0, rc, t0);
	return rc;
}

/* An owned copy of @layout's pool list (NULL when it has none), made
 * before any lock so that storing it cannot fail. */
static hc_status layout_copy(const hc_pool_layout *layout, hc_pool_spec **out)
{
	hc_pool_spec *copy = NULL;

	if (layout->preset == HC_LAYOUT_EXPLICIT && layout->n_pools) {
		copy = malloc(layout->n_pools * sizeof(*copy));
		if (!copy)
			return hc_fail(HC_ERR_OOM, "hc_install_memory_pools: out of host memory");
		memcpy(copy, layout->pools, layout->n_pools * sizeof(*copy));
	}
	*out = copy;
	return HC_OK;
}

/* Makes @layout, whose pool list @copy owns, the device's layout for new
 * streams; the old list is freed.  Takes the device lock: no stream lock
 * may be held (the device lock comes first). */
static void dev_set_layout(struct hc_dev *dev, const hc_pool_layout *layout, hc_pool_spec *copy)
{
	hc_pool_spec *old;

	pthread_mutex_lock(&dev->lock);
	old = dev->layout_pools;
	dev->layout_pools = copy;
	dev->layout.preset = layout->preset;
	dev->layout.pools = copy;
	dev->layout.n_pools = copy ? layout->n_pools : 0;
	pthread_mutex_unlock(&dev->lock);
	free(old);
}

/*
 * Validates and resolves @layout, rebuilds @s's pools, and only then, when
 * the stream took it or refused it only for its live memory (HC_ERR_IN_USE,
 * documented as installing for later streams), stores it as the device's.
 * Any other refusal (a capture on @s, a closed stream, no host memory)
 * changes nothing.  The copy is made before the stream is locked and
 * stored after it is released: the device lock is never taken under a
 * stream lock.
 */
static hc_status install_memory_pools(hc_stream s, const hc_pool_layout *layout)
{
	struct hc_mm_props props;
	struct hc_layout *resolved = NULL;
	hc_pool_spec *copy = NULL;
	struct hc_strm *st;
	struct hc_dev *dev;
	hc_status rc;

	if (!layout)
		return hc_fail(HC_ERR_INVALID, "hc_install_memory_pools: layout is NULL");
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	props.max_page_size = dev->props.total_memory / 4;
	props.alignment = dev->props.alignment;
	props.shared = NULL; /* only resolved here; the manager keeps its own */
	props.host = false;
	props.vmm_granularity = dev->props.vmm_granularity;
	props.va_size = dev->props.total_memory;
	hc_strm_unlock(st);

	rc = hc_layout_resolve(layout, &props, &resolved);
	if (rc != HC_OK)
		return rc; /* message from the validator */
	rc = layout_copy(layout, &copy);
	if (rc != HC_OK)
		goto out_free;
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		goto out_free;
	if (hc_capture_is_active(&st->capture)) {
		rc = hc_fail(HC_ERR_STATE, "hc_install_memory_pools: a graph capture is active");
	} else {
		hc_strm_cleanup_locked(st);
		rc = hc_mm_install(st->dmm, resolved);
	}
	hc_strm_unlock(st);
	if (rc == HC_OK || rc == HC_ERR_IN_USE) {
		dev_set_layout(dev, layout, copy);
		copy = NULL;
	}
out_free:
	free(copy);
	hc_layout_free(resolved);
	return rc;
}

static hc_status install_traced(hc_stream s, const hc_pool_layout *layout)
{
	uint64_t t0 = HC_TRACE_T0(call);
	hc_status rc = install_memory_pools(s, layout);

	HC_TRACE_CALL(install_memory_pools, s.id, layout ? (uint64_t)layout->preset : 0,
		      layout ? layout->n_pools : 0, 0, rc, t0);
	return rc;
}

/* Ordered while recorded (trace_order.h): an install between another
 * thread's allocations is replayed between them. */
hc_status hc_install_memory_pools(hc_stream s, const hc_pool_layout *layout)
{
	hc_status rc;

	HC_TRACE_ORDERED(call, rc = install_traced(s, layout));
	return rc;
}
