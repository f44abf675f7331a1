/*
 * write.c - hc_write: host-to-device copies and who owns the source.
 *
 * The decision is hc_staging_of()'s, exactly (the device's stage_max_bytes
 * policy may lower or raise its 100 MiB limit for this path only):
 *  - staged: the bytes go through pinned memory from the stream's pinned
 *    pool, so the source may be reused when the call returns; the caller's
 *    release (if any) runs before the call returns.  Pageable sources of at
 *    least HC_PIPE_MIN_BYTES move through the chunk pipeline (pipeline.c);
 *    smaller ones through one pinned bounce slice that goes back to the pool
 *    through the drop queue after the copy's fence.
 *  - direct from pageable memory (NATIVE/DEVICE/OTHER at or above the
 *    staging limit): the decision says no full-size pinned copy, and none
 *    is made, but the bytes still move through the chunk pipeline, which
 *    needs only its small ring of pinned chunks; the driver's own pageable
 *    path runs at a fraction of pinned bandwidth (reference/h200-probe.md).
 *    The source may be reused when the call returns.
 *  - direct: the copy reads the caller's memory (PINNED: asynchronously).
 *    The caller's release goes on the drop queue and runs after the copy's
 *    fence; with release NULL the caller keeps responsibility (hc_sync).
 * Afterwards the drop queue is flushed when the decision asks for it or its
 * triggers fire, never while a capture records.  A write by the buffer's
 * origin stream restamps it (cross-stream cursors, xstream.c).
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

hc_status hc_write_staged(struct hc_strm *st, uint64_t dst, const void *src, uint64_t n,
			  bool *pipelined)
{
	*pipelined = false;
	if (n >= HC_PIPE_MIN_BYTES && !hc_capture_is_recording(&st->capture)) {
		*pipelined = true;
		return hc_pipeline_write(st, dst, src, n);
	}
	return write_bounce(st, dst, src, n);
}

static hc_staging write_decision(struct hc_dev *dev, uint64_t n, hc_alloc_property p)
{
	hc_staging s = hc_staging_of(n, p);
	/* set_policy stores it under the device lock; read it without */
	uint64_t limit = __atomic_load_n(&dev->policy.stage_max_bytes, __ATOMIC_RELAXED);

	if (limit && p != HC_ALLOC_FILE)
		s.through_pinned = n < limit && p != HC_ALLOC_PINNED;
	return s;
}

hc_status hc_write(hc_stream s, hc_buffer b, uint64_t off, const void *src, uint64_t n,
		   hc_alloc_property prop, hc_release_fn release, void *arg)
{
	uint64_t t0 = HC_TRACE_T0(write);
	struct hc_lockset ls;
	struct hc_strm *st;
	struct hc_use *u;
	struct hc_dev *dev;
	hc_staging dec;
	struct hc_et_range rr;
	struct hc_et_desc desc = { .what = HC_ET_WRITE };
	uint64_t mark = 0;
	bool pipelined = false, recording;
	hc_status rc;

	if ((unsigned)prop > HC_ALLOC_OTHER)
		return hc_fail(HC_ERR_INVALID, "hc_write: unknown property %d", (int)prop);
	if (!src && n > 0)
		return hc_fail(HC_ERR_INVALID, "hc_write: src is NULL");
	rc = hc_lockset_acquire(s, &b, 1, "hc_write", &ls);
	if (rc != HC_OK)
		return rc;
	st = ls.st;
	dev = st->dev;
	u = &ls.use[0];
	if (off > u->buf->size || n > u->buf->size - off) {
		rc = hc_fail(HC_ERR_INVALID,
			     "hc_write: %llu bytes at offset %llu run past the buffer's %llu",
			     (unsigned long long)n, (unsigned long long)off,
			     (unsigned long long)u->buf->size);
		goto out_unlock;
	}
	if (n == 0) {
		if (release)
			release(arg);
		goto out_unlock;
	}
	dec = write_decision(dev, n, prop);
	rc = hc_xs_before(&ls, u);
	if (rc != HC_OK)
		goto out_unlock;
	recording = hc_capture_is_recording(&st->capture);
	bool pageable = prop != HC_ALLOC_PINNED && prop != HC_ALLOC_FILE;
	bool pipe_direct = !dec.through_pinned && pageable && n >= HC_PIPE_MIN_BYTES && !recording;

	rr = (struct hc_et_range){ b.id, off, n, true, false };
	desc.a = n;
	desc.b = off;
	if (!recording) {
		mark = hc_et_mark(st);
		hc_et_call_open(st, HC_EG_COPY, &desc, &rr);
	}
	if (dec.through_pinned) {
		rc = hc_write_staged(st, u->buf->addr + off, src, n, &pipelined);
	} else if (pipe_direct) {
		pipelined = true;
		rc = hc_pipeline_write(st, u->buf->addr + off, src, n);
	} else {
		rc = dev->ops->copy_h2d(dev->hal, st->hal, u->buf->addr + off, src, n,
					prop == HC_ALLOC_PINNED);
	}
	HC_TRACE(staging, st->handle.id, b.id, n, (uint8_t)prop, dec.through_pinned,
		 dec.flush_after, pipelined);
	/* A fence inside the write may have recorded its failure already. */
	if (!recording && hc_et_call_close(st) == 0 && rc == HC_ERR_DEVICE)
		hc_et_fail_now(st, HC_EG_COPY, &desc, &rr, 1);
	if (rc != HC_OK)
		goto out_unpin;
	if (!recording) {
		hc_et_written(dev, b.id, off, n);
		hc_et_add(st, HC_EG_COPY, mark, &desc, &rr, 1);
	}
	if (dec.through_pinned || pipe_direct) {
		atomic_fetch_add(pipelined ? &dev->stats.writes_pipelined : &dev->stats.writes_staged, 1);
		if (release)
			release(arg); /* the bytes are in pinned memory now */
	} else {
		atomic_fetch_add(&dev->stats.writes_direct, 1);
		if (release)
			hc_strm_defer(st, release, arg, 0);
	}
	if (u->origin == st)
		u->buf->stamp = hc_cursor_advance(&st->cursor);
	{
		enum hc_lib_work w = HC_LIB_WORK_WRITE;

		(void)dev->ops->ctl(dev->hal, HC_HAL_CTL_LIB_WORK, &w);
	}
out_unpin:
	hc_xs_after(&ls, u);
	if (rc == HC_OK)
		rc = hc_strm_maybe_flush(st, dec.flush_after);
out_unlock:
	HC_TRACE(write, s.id, b.id, off, n, (uint8_t)prop, (int32_t)rc, hc_trace_since_ns(t0));
	hc_lockset_release(&ls);
	return rc;
}
