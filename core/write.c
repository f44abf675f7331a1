/*
 * write.c - hc_write: host-to-device copies and who owns the source.
 *
 * The way the bytes travel is the staging module's answer (staging.c,
 * hc_write_plan_of: hc_staging_of's decision with the device's policy
 * applied):
 *  - staged: one pinned bounce slice from the stream's pinned pool, which
 *    goes back to the pool through the drop queue after the copy's fence;
 *  - pipelined: the chunk pipeline's ring of pinned chunks (pipeline.c);
 *  - direct: the copy reads the caller's memory (PINNED: asynchronously).
 * Staged and pipelined, the source may be reused when the call returns and
 * the caller's release (if any) runs before it returns.  Direct, the
 * caller's release goes on the drop queue and runs after the copy's fence;
 * with release NULL the caller keeps responsibility (hc_sync).
 * Afterwards the drop queue is flushed when the decision asks for it or its
 * triggers fire, never while a capture records.  A write by the buffer's
 * origin stream restamps it (cross-stream cursors, xstream.c).  These
 * steps around the copy are every stream operation's (streamop.c).
 *
 * Failures (errtrack.h): outside a capture a queued write clears the taint
 * of its destination range at once and is remembered until its fence, so a
 * late failure of its copy taints exactly that range again.
 */
#include <stdio.h>
#include <string.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"

/* One pinned bounce: memcpy into a pool slice, queue the copy. */
static hc_status write_bounce(struct hc_strm *st, uint64_t dst, const void *src, uint64_t n)
{
	struct hc_dev *dev = st->dev;
	struct hc_slice_ref ref;
	uint64_t addr;
	hc_status rc;

	rc = hc_strm_reserve(st, st->pmm, n, &ref, &addr);
	if (rc != HC_OK)
		return rc;
	hc_host_copy(dev, (void *)(uintptr_t)addr, src, n, true);
	rc = dev->ops->copy_h2d(dev->hal, st->hal, dst, (const void *)(uintptr_t)addr, n, true);
	if (rc != HC_OK) {
		hc_mm_release(st->pmm, ref); /* nothing queued reads it */
		return rc;
	}
	hc_strm_defer_slice(st, st->pmm, ref, n);
	return HC_OK;
}

/* The bytes of a staged or pipelined write, or of a direct one
 * (@pinned: the source is pinned memory the backend may read later). */
static hc_status write_by(struct hc_strm *st, enum hc_write_way way, uint64_t dst,
			  const void *src, uint64_t n, bool pinned)
{
	struct hc_dev *dev = st->dev;

	switch (way) {
	case HC_WRITE_STAGED:
		return write_bounce(st, dst, src, n);
	case HC_WRITE_PIPELINED:
		return hc_pipeline_write(st, dst, src, n);
	default:
		return dev->ops->copy_h2d(dev->hal, st->hal, dst, src, n, pinned);
	}
}

hc_status hc_write_staged(struct hc_strm *st, uint64_t dst, const void *src, uint64_t n,
			  bool *pipelined)
{
	enum hc_write_way way = hc_staged_way(n, hc_capture_is_recording(&st->capture));

	*pipelined = way == HC_WRITE_PIPELINED;
	return write_by(st, way, dst, src, n, false);
}

/* One hc_write in progress, for the skeleton's hooks. */
struct write_ctx {
	uint64_t dst, n;
	const void *src;
	hc_alloc_property prop;
	struct hc_write_plan plan;
	hc_release_fn release;
	void *arg;
};

/* The copy itself, the way the plan says. */
static hc_status write_queue(struct hc_op *op, void *p)
{
	struct write_ctx *w = p;
	struct hc_strm *st = op->st;
	hc_status rc;

	rc = write_by(st, w->plan.way, w->dst, w->src, w->n, w->prop == HC_ALLOC_PINNED);
	HC_TRACE(staging, st->handle.id, op->r[0].buf, w->n, (uint8_t)w->prop,
		 w->plan.staging.through_pinned, w->plan.staging.flush_after,
		 w->plan.way == HC_WRITE_PIPELINED);
	return rc;
}

/* Queued: the source is the caller's again once its bytes are in pinned
 * memory; a direct copy reads it until its fence. */
static void write_queued(struct hc_op *op, void *p)
{
	struct write_ctx *w = p;
	struct hc_dev *dev = op->st->dev;

	if (w->plan.way != HC_WRITE_DIRECT) {
		atomic_fetch_add(w->plan.way == HC_WRITE_PIPELINED ? &dev->stats.writes_pipelined
								   : &dev->stats.writes_staged, 1);
		if (w->release)
			w->release(w->arg); /* the bytes are in pinned memory now */
	} else {
		atomic_fetch_add(&dev->stats.writes_direct, 1);
		if (w->release)
			hc_strm_defer(op->st, w->release, w->arg, 0);
	}
}

static const struct hc_op_kind write_kind = {
	.fn = "hc_write",
	.eg = HC_EG_COPY,
	.lib_work = HC_LIB_WORK_WRITE,
	.tracked = true,
	.waits_inside = true, /* a pipelined write waits for its chunks */
	.host_writes = true,
	.pins = true,
	.flushes = true,
	.queue = write_queue,
	.queued = write_queued,
};

hc_status hc_write(hc_stream s, hc_buffer b, uint64_t off, const void *src, uint64_t n,
		   hc_alloc_property prop, hc_release_fn release, void *arg)
{
	uint64_t t0 = HC_TRACE_T0(write);
	struct write_ctx w = { .n = n, .src = src, .prop = prop, .release = release, .arg = arg };
	struct hc_et_range rr;
	struct hc_buf *buf;
	struct hc_op op;
	hc_status rc;

	if ((unsigned)prop > HC_ALLOC_OTHER)
		return hc_fail(HC_ERR_INVALID, "hc_write: unknown property %d", (int)prop);
	if (!src && n > 0)
		return hc_fail(HC_ERR_INVALID, "hc_write: src is NULL");
	hc_op_enter(&op, &write_kind, HC_TRACE_ENABLED(write));
	rc = hc_op_lock(&op, s, &b, 1);
	if (rc != HC_OK)
		goto out_leave;
	buf = op.ls.use[0].buf;
	rc = hc_op_check_range(&op, 0, off, n, -1);
	if (rc != HC_OK)
		goto out_trace;
	if (n == 0) {
		if (release)
			release(arg);
		goto out_trace;
	}
	w.dst = buf->addr + off;
	/* set_policy stores the limit under the device lock; read it without */
	w.plan = hc_write_plan_of(n, prop,
				  __atomic_load_n(&op.st->dev->policy.stage_max_bytes, __ATOMIC_RELAXED),
				  op.recording);
	rr = (struct hc_et_range){ b.id, off, n, true, false };
	op.desc = (struct hc_et_desc){ .what = HC_ET_WRITE, .a = n, .b = off };
	op.r = &rr;
	op.nr = 1;
	op.flush = w.plan.staging.flush_after;
	rc = hc_op_run(&op, &w);
out_trace:
	HC_TRACE(write, s.id, b.id, off, n, (uint8_t)prop, (int32_t)rc, hc_trace_since_ns(t0));
out_leave:
	hc_op_leave(&op);
	return rc;
}
