/*
 * sync.c - hc_sync: wait for a stream's work and release what it held.
 *
 * The stream is synced, then the drop queue is flushed twice: the first
 * flush records a fence over the staged entries, the second waits on it
 * (already passed) and releases them, so everything queued before the call
 * is released when it returns.  A sync blocks the host: not while a graph
 * records (HC_ERR_STATE).  What it releases can reach the device's idle
 * cache, so a recorded sync runs ordered as the stream operations do
 * (core/trace_order.h).
 */
#include "core/streamops.h"
#include "core/trace_order.h"
#include "trace/hipcore_trace.h"

static hc_status sync_call(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(sync);
	struct hc_strm *st;
	hc_status rc, rc2;

	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	if (hc_capture_is_recording(&st->capture)) {
		rc = hc_fail(HC_ERR_STATE, "hc_sync: not while a graph records on this stream");
		goto out_unlock;
	}
	rc = hc_strm_sync_wait(st);
	rc2 = hc_strm_dq_flush_all(st);
	if (rc == HC_OK)
		rc = rc2;
out_unlock:
	HC_TRACE(sync, s.id, (int32_t)rc, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return rc;
}

hc_status hc_sync(hc_stream s)
{
	hc_status rc;

	HC_TRACE_ORDERED(sync, rc = sync_call(s));
	return rc;
}
