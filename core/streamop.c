/*
 * streamop.c - the skeleton every stream operation (hc_write, hc_read,
 * hc_launch) runs, written once.
 *
 * An operation queues work on one stream, the consumer, that may name
 * buffers of other streams.  Around its backend call, every one of them
 * does the same steps in the same order:
 *   1. under the trace-order lock while its event is recorded
 *      (core/trace_order.h), lock the consumer and every origin stream
 *      (hc_op_lock: lockset.c);
 *   2. error tracking begins (errtrack.h): refuse work that reads tainted
 *      bytes, note the backend's last op id, open the call in progress when
 *      the operation waits for its own work;
 *   3. the operation's own preparation (a launch's info words);
 *   4. wait on the device for each origin whose writes the work must see
 *      (xstream.c);
 *   5. the backend call;
 *   6. error tracking ends: a failure the call met is recorded, queued
 *      work is remembered until its fence, a host write clears its range;
 *   7. the library's own work is noted to the backend (hal.h, LIB_WORK),
 *      and buffers of the consumer that the work writes are restamped
 *      (cursors, for other streams' waits);
 *   8. other streams' buffers stay pinned until the consumer's fence
 *      (xstream.c);
 *   9. the drop queue is flushed when the operation asks for it or its
 *      triggers fire (flush.c).
 * What differs between operations is data in a struct hc_op_kind (which
 * steps apply) and its hooks (preparation, the backend call, what a queued
 * operation does next).  Validation, which needs the resolved buffers,
 * happens between hc_op_lock and hc_op_run; the trace event is emitted
 * after hc_op_run, before hc_op_leave, so that it is recorded in order.
 */
#include <stdio.h>

#include "core/debug.h"
#include "core/streamops.h"
#include "core/trace_order.h"

void hc_op_enter(struct hc_op *op, const struct hc_op_kind *k, bool ordered)
{
	*op = (struct hc_op){ .k = k, .ordered = ordered };
	if (ordered)
		hc_trace_order_enter();
}

hc_status hc_op_check_range(const struct hc_op *op, size_t i, uint64_t off, uint64_t n,
			    long binding)
{
	uint64_t size = op->ls.use[i].buf->size;
	char which[32] = "";

	if (off <= size && n <= size - off)
		return HC_OK;
	if (binding >= 0)
		snprintf(which, sizeof(which), " binding %ld:", binding);
	return hc_fail(HC_ERR_INVALID, "%s:%s %llu bytes at offset %llu run past the buffer's %llu",
		       op->k->fn, which, (unsigned long long)n, (unsigned long long)off,
		       (unsigned long long)size);
}

hc_status hc_op_lock(struct hc_op *op, hc_stream s, const hc_buffer *bufs, size_t n)
{
	hc_status rc = hc_lockset_acquire(s, bufs, n, op->k->fn, &op->ls);

	if (rc != HC_OK)
		return rc;
	op->st = op->ls.st;
	op->locked = true;
	op->recording = hc_capture_is_recording(&op->st->capture);
	return HC_OK;
}

/* The first range the work writes (a call in progress names one). */
static const struct hc_et_range *first_write(const struct hc_op *op)
{
	for (size_t i = 0; i < op->nr; i++)
		if (op->r[i].write)
			return &op->r[i];
	return NULL;
}

/* Step 2.  Outside a capture only: errtrack records nothing while the
 * stream records. */
static hc_status track_begin(struct hc_op *op)
{
	struct hc_strm *st = op->st;
	hc_status rc;

	if (op->recording)
		return HC_OK;
	if (op->k->checks_reads) {
		rc = hc_et_check_reads(st, op->k->fn, &op->desc, op->r, op->nr, &op->derived);
		if (rc != HC_OK)
			return rc;
	}
	if (op->k->tracked)
		op->mark = hc_et_mark(st);
	if (op->k->waits_inside) {
		hc_et_call_open(st, op->k->eg, &op->desc, first_write(op));
		op->call_open = true;
	}
	return HC_OK;
}

/* Step 6: @rc is the backend call's, @ran whether it was made. */
static void track_end(struct hc_op *op, hc_status rc, bool ran)
{
	struct hc_strm *st = op->st;
	hc_failure_id in_call = 0;

	if (op->call_open) {
		/* A fence waited inside the call may have recorded its failure. */
		in_call = hc_et_call_close(st);
		op->call_open = false;
	}
	if (op->recording || !ran || !op->k->tracked)
		return;
	if (rc == HC_ERR_DEVICE && !in_call) {
		/* failed when queued: its failure, tainting what it writes */
		hc_et_fail_now(st, op->k->eg, &op->desc, op->r, op->nr);
		return;
	}
	if (rc != HC_OK)
		return;
	if (op->k->host_writes)
		for (size_t i = 0; i < op->nr; i++)
			if (op->r[i].write)
				hc_et_written(st->dev, op->r[i].buf, op->r[i].off, op->r[i].size);
	hc_et_add(st, op->k->eg, op->mark, &op->desc, op->r, op->nr);
}

/* Step 7, after a call that queued its work. */
static void note_queued(struct hc_op *op)
{
	struct hc_strm *st = op->st;
	struct hc_dev *dev = st->dev;

	if (op->k->lib_work >= 0) {
		enum hc_lib_work w = (enum hc_lib_work)op->k->lib_work;

		(void)dev->ops->ctl(dev->hal, HC_HAL_CTL_LIB_WORK, &w);
	}
	for (size_t i = 0; i < op->nr && i < op->ls.nuse; i++)
		if (op->r[i].write && op->ls.use[i].origin == st)
			op->ls.use[i].buf->stamp = hc_cursor_advance(&st->cursor);
}

/**
 * hc_op_run - steps 2 to 9 around the operation's backend call.
 * Return: the first failure of the steps, the call's or the flush's.
 * Context: after hc_op_lock succeeded; op->r describes each buffer of the
 * lock set, in its order.
 */
hc_status hc_op_run(struct hc_op *op, void *ctx)
{
	const struct hc_op_kind *k = op->k;
	struct hc_lockset *ls = &op->ls;
	size_t waited = 0;
	bool ran = false;
	hc_status rc;

	HC_ASSERT(op->locked && op->st == ls->st && op->nr == ls->nuse && k->queue);
	rc = track_begin(op);
	if (rc == HC_OK && k->prepare)
		rc = k->prepare(op, ctx);
	for (; rc == HC_OK && waited < ls->nuse; waited++) {
		rc = hc_xs_before(ls, &ls->use[waited]);
		if (rc != HC_OK)
			break;
	}
	if (rc == HC_OK) {
		rc = k->queue(op, ctx);
		ran = true;
	}
	track_end(op, rc, ran);
	if (rc == HC_OK) {
		note_queued(op);
		if (k->queued)
			k->queued(op, ctx);
	}
	if (k->pins)
		for (size_t i = 0; i < waited; i++)
			hc_xs_after(ls, &ls->use[i]);
	if (rc == HC_OK && k->flushes)
		rc = hc_strm_maybe_flush(op->st, op->flush);
	return rc;
}

void hc_op_leave(struct hc_op *op)
{
	if (op->locked)
		hc_lockset_release(&op->ls);
	op->locked = false;
	if (op->ordered)
		hc_trace_order_exit();
}
