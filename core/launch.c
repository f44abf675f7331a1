/*
 * launch.c - hc_launch: validate a launch, bind its buffers and info words.
 *
 * The kernel receives one device pointer per binding (buffer address +
 * offset), then, when info_words > 0, a pointer to a device copy of the info
 * words.  Info buffers come from the stream's metadata cache keyed by the
 * exact words: a hit reuses the device slice; a miss reserves a slice in the
 * stream's device pool, writes the words with a staged copy and inserts it
 * (the cache owns it from then on).  Info the cache should not hold
 * (hc_mc_should_cache false) gets a slice of its own that goes back through
 * the drop queue after the launch's fence.  The cache's mode follows the
 * capture state before every lookup.
 *
 * Bindings of other streams' buffers wait for their origin when the cursors
 * say so and stay pinned until the launch's fence (xstream.c); a WRITE
 * binding of the stream's own buffer restamps it.  After the launch the drop
 * queue is flushed when its triggers fire (never while a capture records):
 * the steps every stream operation runs (streamop.c).
 *
 * Failures (errtrack.h): outside a capture, a launch whose READ bindings
 * overlap bytes tainted by failed work is not run; it becomes a derived
 * failure that taints its write bindings, and hc_launch returns
 * HC_ERR_TAINTED naming it.  A queued launch is remembered until its fence
 * (with the op ids of its info upload and the kernel) so that a late
 * failure taints exactly its write bindings.  A launch recorded into a
 * capture is not checked: it runs at replay, on whatever the bytes are then.
 */
#include <stdio.h>
#include <string.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"

hc_status hc_kern_get(struct hc_dev *dev, hc_kernel k, struct hc_kern **out);

/* Writes the info words into a fresh slice of the device pool. */
static hc_status info_upload(struct hc_strm *st, const uint64_t *w, size_t nw,
			     struct hc_slice_ref *ref, uint64_t *addr)
{
	bool pipelined;
	hc_status rc;

	rc = hc_strm_reserve(st, st->dmm, nw * 8, ref, addr);
	if (rc != HC_OK)
		return rc;
	rc = hc_write_staged(st, *addr, w, nw * 8, &pipelined);
	if (rc != HC_OK)
		hc_mm_release(st->dmm, *ref);
	return rc;
}

/* The device address of the info words, cached or not. */
static hc_status info_bind(struct hc_strm *st, const uint64_t *w, size_t nw, uint64_t *addr)
{
	struct hc_dev *dev = st->dev;
	struct hc_mc_value v;
	struct hc_slice_ref ref;
	hc_status rc;
	uint64_t key = nw ? w[0] : 0;
	size_t before;
	bool stored = false;

	hc_mc_set_mode(st->cache, hc_capture_cache_mode(&st->capture));
	if (!hc_mc_should_cache(st->cache, nw * 8)) {
		rc = info_upload(st, w, nw, &ref, addr);
		if (rc != HC_OK)
			return rc;
		hc_strm_defer_slice(st, st->dmm, ref, nw * 8);
		HC_TRACE(cache, st->handle.id, (uint8_t)HC_TRACE_CACHE_UNCACHED, key, nw * 8);
		return HC_OK;
	}
	if (hc_mc_get(st->cache, w, nw, &v)) {
		struct hc_slice_ref r = { (struct hc_slice *)(uintptr_t)v.a, v.b };

		uint64_t sz;

		rc = hc_mm_address(st->dmm, r, addr, &sz);
		if (rc != HC_OK)
			return rc;
		atomic_fetch_add(&dev->stats.cache_hits, 1);
		HC_TRACE(cache, st->handle.id, (uint8_t)HC_TRACE_CACHE_HIT, key, nw * 8);
		return HC_OK;
	}
	atomic_fetch_add(&dev->stats.cache_misses, 1);
	HC_TRACE(cache, st->handle.id, (uint8_t)HC_TRACE_CACHE_MISS, key, nw * 8);
	rc = info_upload(st, w, nw, &ref, addr);
	if (rc != HC_OK)
		return rc;
	v.a = (uintptr_t)ref.slice;
	v.b = ref.id;
	before = hc_mc_len(st->cache);
	rc = hc_mc_insert(st->cache, w, nw, v, &stored);
	if (rc == HC_OK && stored && hc_mc_len(st->cache) <= before) /* LRU made room */
		HC_TRACE(cache, st->handle.id, (uint8_t)HC_TRACE_CACHE_EVICT, (uint64_t)0, (uint64_t)0);
	if (rc != HC_OK || !stored) /* not kept: release after the launch's fence */
		hc_strm_defer_slice(st, st->dmm, ref, nw * 8);
	return HC_OK;
}

static hc_status launch_check(const hc_launch_desc *l)
{
	if (!l)
		return hc_fail(HC_ERR_INVALID, "hc_launch: launch is NULL");
	for (int i = 0; i < 3; i++)
		if (l->grid[i] == 0 || l->block[i] == 0)
			return hc_fail(HC_ERR_INVALID, "hc_launch: grid and block dimensions must be > 0");
	if (l->info_words > 0 && !l->info)
		return hc_fail(HC_ERR_INVALID, "hc_launch: info is NULL with %zu info words",
			       l->info_words);
	if (l->info_words > (SIZE_MAX / 8))
		return hc_fail(HC_ERR_INVALID, "hc_launch: %zu info words", l->info_words);
	if (l->n_bindings > 0 && !l->bindings)
		return hc_fail(HC_ERR_INVALID, "hc_launch: bindings is NULL with %zu bindings",
			       l->n_bindings);
	if (l->n_bindings > HC_LOCKSET_MAX_BUFS)
		return hc_fail(HC_ERR_INVALID, "hc_launch: %zu bindings, at most %u", l->n_bindings,
			       HC_LOCKSET_MAX_BUFS);
	for (size_t i = 0; i < l->n_bindings; i++) {
		hc_access a = l->bindings[i].access;

		if (a != HC_ACCESS_READ && a != HC_ACCESS_WRITE && a != HC_ACCESS_READ_WRITE)
			return hc_fail(HC_ERR_INVALID, "hc_launch: binding %zu: unknown access %d", i,
				       (int)a);
	}
	return HC_OK;
}

/* The launch event with its bindings; built only when the event is on. */
static void trace_launch(hc_stream s, const hc_launch_desc *l, size_t nb, hc_status rc,
			 uint64_t t0)
{
	struct hc_tp_bindings tb;

	tb.n = (uint32_t)(nb < HC_TP_MAX_BINDINGS ? nb : HC_TP_MAX_BINDINGS);
	for (uint32_t i = 0; i < tb.n; i++) {
		tb.buffer[i] = l->bindings[i].buffer.id;
		tb.offset[i] = l->bindings[i].offset;
		tb.size[i] = l->bindings[i].size;
		tb.access[i] = (uint8_t)l->bindings[i].access;
	}
	HC_TRACE_DO(launch, s.id, l->kernel.id, (uint32_t)l->info_words, (uint32_t)nb,
		    l->duration_hint_ns, (int32_t)rc, hc_trace_since_ns(t0), &tb);
}

/* One hc_launch in progress, for the skeleton's hooks. */
struct launch_ctx {
	const hc_launch_desc *l;
	hc_hal_function *fn;
	size_t na; /* kernel arguments: the bindings, then the info words' */
	hc_hal_dptr dptr[HC_LOCKSET_MAX_BUFS + 1];
	uint64_t bytes[HC_LOCKSET_MAX_BUFS + 1];
	void *args[HC_LOCKSET_MAX_BUFS + 1];
};

/* The info words' device copy, its queued upload inside the launch's
 * tracked work. */
static hc_status launch_prepare(struct hc_op *op, void *p)
{
	struct launch_ctx *c = p;
	const hc_launch_desc *l = c->l;
	size_t na = c->na;
	hc_status rc;

	if (l->info_words == 0)
		return HC_OK;
	rc = info_bind(op->st, l->info, l->info_words, &c->dptr[na]);
	if (rc != HC_OK)
		return rc;
	c->bytes[na] = l->info_words * 8;
	c->args[na] = &c->dptr[na];
	c->na++;
	return HC_OK;
}

static hc_status launch_queue(struct hc_op *op, void *p)
{
	struct launch_ctx *c = p;
	const hc_launch_desc *l = c->l;
	struct hc_dev *dev = op->st->dev;
	struct hc_hal_launch hl;

	memset(&hl, 0, sizeof(hl));
	memcpy(hl.grid, l->grid, sizeof(hl.grid));
	memcpy(hl.block, l->block, sizeof(hl.block));
	hl.shared_bytes = l->shared_bytes;
	hl.args = c->args;
	hl.n_args = c->na;
	hl.arg_dptr = c->dptr;
	hl.arg_bytes = c->bytes;
	hl.duration_hint_ns = l->duration_hint_ns;
	return dev->ops->launch(dev->hal, op->st->hal, c->fn, &hl);
}

static const struct hc_op_kind launch_kind = {
	.fn = "hc_launch",
	.eg = HC_EG_KERNEL,
	.lib_work = HC_LIB_WORK_LAUNCH,
	.checks_reads = true,
	.tracked = true,
	.pins = true,
	.flushes = true,
	.prepare = launch_prepare,
	.queue = launch_queue,
};

/* The kernel's function and its failures' description, under the device
 * lock (which comes before stream locks); kernels live until the device
 * closes, so the function stays valid. */
static hc_status launch_kernel(hc_stream s, const hc_launch_desc *l, struct hc_dev **devp,
			       hc_hal_function **fn, struct hc_et_desc *desc)
{
	struct hc_handle_parts sp = hc_handle_unpack(s.id), kp = hc_handle_unpack(l->kernel.id);
	struct hc_kern *k;
	struct hc_dev *dev;
	hc_status rc;

	if (s.id == 0 || sp.kind != HC_KIND_STREAM)
		return hc_fail(HC_ERR_STALE, "hc_launch: handle %#llx is not a stream",
			       (unsigned long long)s.id);
	if (l->kernel.id != 0 && kp.kind == HC_KIND_KERNEL && kp.dev != sp.dev)
		return hc_fail(HC_ERR_INVALID, "hc_launch: kernel %#llx belongs to another device",
			       (unsigned long long)l->kernel.id);
	dev = hc_dev_by_slot(sp.dev);
	if (!dev)
		return hc_fail(HC_ERR_STALE, "hc_launch: stream %#llx: its device is closed",
			       (unsigned long long)s.id);
	pthread_mutex_lock(&dev->lock);
	rc = hc_kern_get(dev, l->kernel, &k);
	if (rc == HC_OK) { /* kept as data: formatted only if the launch fails */
		*fn = k->fn;
		memcpy(desc->name, k->name, sizeof(desc->name) - 1);
		desc->a = atomic_fetch_add(&dev->launch_seq, 1) + 1;
	}
	pthread_mutex_unlock(&dev->lock);
	*devp = dev;
	return rc;
}

hc_status hc_launch(hc_stream s, const hc_launch_desc *l)
{
	uint64_t t0 = HC_TRACE_T0(launch);
	hc_buffer bufs[HC_LOCKSET_MAX_BUFS];
	struct hc_et_range rr[HC_LOCKSET_MAX_BUFS];
	struct launch_ctx c = { .l = l };
	struct hc_et_desc desc = { .what = HC_ET_LAUNCH };
	struct hc_dev *dev = NULL;
	struct hc_op op;
	size_t nb, i;
	hc_status rc;

	rc = launch_check(l);
	if (rc != HC_OK)
		return rc;
	nb = l->n_bindings;
	for (i = 0; i < nb; i++)
		bufs[i] = l->bindings[i].buffer;
	hc_op_enter(&op, &launch_kind, HC_TRACE_ENABLED(launch));
	rc = launch_kernel(s, l, &dev, &c.fn, &desc);
	if (rc != HC_OK)
		goto out_leave;
	rc = hc_op_lock(&op, s, bufs, nb);
	if (rc != HC_OK)
		goto out_leave;
	if (op.st->dev != dev) {
		rc = hc_fail(HC_ERR_STALE, "hc_launch: the device was reopened");
		goto out_trace;
	}
	for (i = 0; i < nb; i++) {
		const hc_binding *bd = &l->bindings[i];

		rc = hc_op_check_range(&op, i, bd->offset, bd->size, (long)i);
		if (rc != HC_OK)
			goto out_trace;
		rr[i] = (struct hc_et_range){ bufs[i].id, bd->offset, bd->size,
					      (bd->access & HC_ACCESS_WRITE) != 0,
					      (bd->access & HC_ACCESS_READ) != 0 };
		c.dptr[i] = op.ls.use[i].buf->addr + bd->offset;
		c.bytes[i] = bd->size;
		c.args[i] = &c.dptr[i];
	}
	c.na = nb;
	op.desc = desc;
	op.r = rr;
	op.nr = nb;
	rc = hc_op_run(&op, &c);
out_trace:
	if (HC_TRACE_ENABLED(launch))
		trace_launch(s, l, nb, rc, t0);
out_leave:
	hc_op_leave(&op);
	return rc;
}
