/*
 * read.c - hc_read: device-to-host copies, complete when the call returns.
 *
 * The bytes travel through a pinned bounce slice from the stream's pinned
 * pool, HC_READ_CHUNK_BYTES at a time for large reads: D2H copy into the
 * slice, wait for the fence, memcpy out.  A read blocks the host, so it is
 * illegal while a capture records (HC_ERR_STATE).  Reading another stream's
 * buffer first waits for that stream when the cursors say so (xstream.c);
 * the read is over when the call returns, so no pin outlives it (the steps
 * of streamop.c that apply to a read).  Bytes
 * tainted by failed work (errtrack.h; checked after the wait, which may
 * find a late failure) give HC_ERR_TAINTED and the failure's id.
 */
#include <string.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"

#define HC_READ_CHUNK_BYTES (16 * HC_MIB)

static hc_status read_bounce(struct hc_strm *st, void *dst, uint64_t src, uint64_t n)
{
	const struct hc_hal_ops *ops = st->dev->ops;
	uint64_t chunk = n < HC_READ_CHUNK_BYTES ? n : HC_READ_CHUNK_BYTES;
	struct hc_slice_ref ref;
	uint64_t addr, done = 0;
	hc_status rc;

	rc = hc_strm_reserve(st, st->pmm, chunk, &ref, &addr);
	if (rc != HC_OK)
		return rc;
	while (done < n) {
		uint64_t len = n - done < chunk ? n - done : chunk;
		hc_hal_event *ev = NULL;
		uint64_t m0 = hc_et_mark(st), m1;

		rc = ops->copy_d2h(st->dev->hal, st->hal, (void *)(uintptr_t)addr, src + done, len,
				   true);
		m1 = hc_et_mark(st);
		if (rc == HC_OK)
			rc = hc_strm_fence_record(st, (void **)&ev);
		if (rc == HC_OK) {
			rc = hc_strm_fence_wait(st, ev);
			hc_strm_fence_destroy(st, ev);
			/* Other work's failure: this copy's bytes are good. */
			if (rc == HC_ERR_DEVICE && hc_et_ops_clean(st, m0, m1))
				rc = HC_OK;
		}
		if (rc != HC_OK) {
			/* The copy may still be queued: it must not land in a reused slice. */
			ops->stream_sync(st->dev->hal, st->hal);
			break;
		}
		hc_host_copy(st->dev, (unsigned char *)dst + done, (void *)(uintptr_t)addr, len, false);
		done += len;
	}
	hc_mm_release(st->pmm, ref);
	return rc;
}

/* One hc_read in progress, for the skeleton's hook. */
struct read_ctx {
	void *dst;
	uint64_t src, n;
};

static hc_status read_queue(struct hc_op *op, void *p)
{
	struct read_ctx *r = p;

	return read_bounce(op->st, r->dst, r->src, r->n);
}

/* A read waits for its own copies and is over when the call returns: no
 * item to remember, no pin to keep, nothing for the drop queue. */
static const struct hc_op_kind read_kind = {
	.fn = "hc_read",
	.eg = HC_EG_COPY,
	.lib_work = -1,
	.waits_inside = true,
	.queue = read_queue,
};

hc_status hc_read(hc_stream s, hc_buffer b, uint64_t off, void *dst, uint64_t n,
		  hc_failure_id *failure)
{
	uint64_t t0 = HC_TRACE_T0(read);
	struct hc_et_range rr = { b.id, off, n, false, true };
	struct read_ctx r = { .dst = dst, .n = n };
	struct hc_buf *buf;
	struct hc_op op;
	hc_status rc;

	if (failure)
		*failure = 0;
	if (!dst && n > 0)
		return hc_fail(HC_ERR_INVALID, "hc_read: dst is NULL");
	hc_op_enter(&op, &read_kind, HC_TRACE_ENABLED(read));
	rc = hc_op_lock(&op, s, &b, 1);
	if (rc != HC_OK)
		goto out_leave;
	buf = op.ls.use[0].buf;
	rc = hc_op_check_range(&op, 0, off, n, -1);
	if (rc != HC_OK)
		goto out_trace;
	if (op.recording) {
		rc = hc_fail(HC_ERR_STATE, "hc_read: a read blocks the host; not while a graph records");
		goto out_trace;
	}
	if (n == 0)
		goto out_trace;
	r.src = buf->addr + off;
	op.desc = (struct hc_et_desc){ .what = HC_ET_READ, .a = n, .b = off };
	op.r = &rr;
	op.nr = 1;
	rc = hc_op_run(&op, &r);
	if (rc == HC_OK || rc == HC_ERR_DEVICE) {
		/* After the wait: a late failure found by it has tainted already. */
		hc_failure_id f = hc_et_query(op.st->dev, b.id, off, n);

		if (f) {
			if (failure)
				*failure = f;
			rc = hc_fail(HC_ERR_TAINTED,
				     "hc_read: bytes %llu..%llu of buffer %#llx were produced by failed "
				     "work (failure #%llu; see hc_failure_explain)",
				     (unsigned long long)off, (unsigned long long)(off + n - 1),
				     (unsigned long long)b.id, (unsigned long long)f);
		}
	}
out_trace:
	HC_TRACE(read, s.id, b.id, off, n, (uint8_t)0, (int32_t)rc, hc_trace_since_ns(t0));
out_leave:
	hc_op_leave(&op);
	return rc;
}
