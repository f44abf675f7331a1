/*
 * sim_stream.c - streams, events, host waits and late failures.
 *
 * A stream is an in-order queue reduced to one number: ready_ns, the time
 * its last queued operation completes.  An operation queued at host time h
 * starts at max(ready_ns, h, engine free) and pushes ready_ns to its end
 * (sim_schedule).  An event copies the recording stream's ready_ns;
 * event_wait raises the waiting stream's ready_ns to it; event_sync and
 * stream_sync raise the host clock to it and count the wait.
 *
 * Late failures: work that fails (an injected launch or copy fault) is
 * entered in dev->fails and the stream carries its id until a fence reports
 * it.  An event recorded after the failure carries the id too, and a stream
 * that waits on that event inherits it.  The first event_sync/stream_sync
 * that covers the failure returns HC_ERR_DEVICE with its message and marks
 * it reported; later fences do not report it again.
 *
 * Attribution (hal.h): each launch, copy and graph launch queued on a
 * stream outside a capture takes the stream's next op id (op_seq); a
 * failure remembers the op id of the work that failed, and
 * ctl(TAKE_FAILED) hands a stream's failures out once each.
 *
 * Events recorded on a capturing stream belong to the capture and have no
 * completion time: syncing, querying or waiting on one from outside the
 * capture is HC_ERR_STATE.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/sim_internal.h"

hc_status sim_check_stream(hc_hal_dev *dev, hc_hal_stream *s, const char *fn)
{
	if (!s)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim %s: stream is NULL", fn);
	if (s->dev != dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim %s: stream belongs to another device", fn);
	return HC_OK;
}

static hc_status sim_check_event(hc_hal_dev *dev, hc_hal_event *e, const char *fn)
{
	if (!e)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim %s: event is NULL", fn);
	if (e->dev != dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim %s: event belongs to another device", fn);
	if (e->captured)
		return hc_hal_error(HC_ERR_STATE, 0, NULL,
				    "sim %s: event was recorded during a capture and has no "
				    "completion outside the graph", fn);
	return HC_OK;
}

uint64_t sim_schedule(hc_hal_dev *dev, hc_hal_stream *s, uint64_t *engine, uint64_t dur)
{
	return sim_schedule_after(dev, s, engine, 0, dur);
}

uint64_t sim_schedule_after(hc_hal_dev *dev, hc_hal_stream *s, uint64_t *engine, uint64_t lat,
			    uint64_t dur)
{
	uint64_t start = s->ready_ns, end;
	uint64_t soonest = dev->host_ns > UINT64_MAX - lat ? UINT64_MAX : dev->host_ns + lat;

	if (soonest > start)
		start = soonest;
	if (engine && *engine > start)
		start = *engine;
	dur = sim_jitter(dev, dur);
	end = start > UINT64_MAX - dur ? UINT64_MAX : start + dur;
	s->ready_ns = end;
	if (engine)
		*engine = end;
	return end;
}

static bool sim_fail_pending(hc_hal_dev *dev, uint32_t id)
{
	return id != 0 && !dev->fails[id - 1].reported;
}

void sim_stream_fail(hc_hal_dev *dev, hc_hal_stream *s, const char *fmt, ...)
{
	va_list ap;
	struct sim_failure *f;

	if (dev->nfails == dev->capfails) {
		size_t ncap = dev->capfails ? dev->capfails * 2 : 8;
		struct sim_failure *nf = realloc(dev->fails, ncap * sizeof(*nf));
		if (!nf)
			return; /* no room to remember it: the work still had no effect */
		dev->fails = nf;
		dev->capfails = ncap;
	}
	f = &dev->fails[dev->nfails++];
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	f->stream_id = s->id;
	f->op = s->op_seq;
	f->reported = false;
	f->taken = false;
	if (!sim_fail_pending(dev, s->fail))
		s->fail = (uint32_t)dev->nfails;
}

/* Makes @s carry failure @id unless it already carries an unreported one. */
static void sim_stream_taint(hc_hal_dev *dev, hc_hal_stream *s, uint32_t id)
{
	if (id && !sim_fail_pending(dev, s->fail))
		s->fail = id;
}

void sim_wait_op(hc_hal_dev *dev, hc_hal_stream *s, uint64_t done_ns, uint32_t fail)
{
	if (done_ns > s->ready_ns)
		s->ready_ns = done_ns;
	if (fail && sim_fail_pending(dev, fail))
		sim_stream_taint(dev, s, fail);
}

hc_status sim_not_while_capturing(hc_hal_dev *dev, const char *fn, bool memory_op)
{
	hc_hal_stream *s;

	if (dev->ncapturing == 0)
		return HC_OK;
	LIST_FOREACH(s, &dev->streams, link) {
		if (!s->capturing)
			continue;
		if (memory_op)
			s->cap.mem_ops++;
		else
			s->cap.sync_ops++;
	}
	return hc_hal_error(HC_ERR_STATE, 0, "cudaErrorStreamCaptureUnsupported",
			    "sim %s: not permitted while capturing (the capture is invalidated)",
			    fn);
}

/* The host waits until @done_ns; counts the wait. */
static void sim_host_wait(hc_hal_dev *dev, uint64_t done_ns)
{
	dev->stats.host_waits++;
	if (done_ns > dev->host_ns) {
		dev->stats.host_blocked_ns += done_ns - dev->host_ns;
		dev->host_ns = done_ns;
	}
}

/*
 * The fence fault and the failure report shared by both syncs: reports
 * failure @fail and, for a stream sync (@s non-NULL), every other unreported
 * failure of work queued on @s; marks them reported.
 */
static hc_status sim_fence_result(hc_hal_dev *dev, uint32_t fail, hc_hal_stream *s,
				  const char *fn)
{
	uint64_t ordinal = ++dev->nfence;
	size_t more = 0;

	if (sim_fault_step(dev, HC_FAULT_FENCE, ordinal))
		return hc_hal_error(HC_ERR_DEVICE, 0, "injected",
				    "sim %s: injected fence fault on fence #%llu", fn,
				    (unsigned long long)ordinal);
	if (!sim_fail_pending(dev, fail))
		fail = 0;
	for (size_t i = 0; s && i < dev->nfails; i++) {
		if (dev->fails[i].reported || dev->fails[i].stream_id != s->id)
			continue;
		if (fail == 0)
			fail = (uint32_t)(i + 1);
		else if (i + 1 != fail)
			more++;
		dev->fails[i].reported = true;
	}
	if (fail == 0)
		return HC_OK;
	dev->fails[fail - 1].reported = true;
	if (s)
		s->fail = 0;
	return hc_hal_error(HC_ERR_DEVICE, 0, "injected", "sim %s: earlier work failed: %s%s", fn,
			    dev->fails[fail - 1].msg,
			    more ? " (and later failures of the same stream)" : "");
}

hc_status sim_stream_sync(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_status st = sim_check_stream(dev, s, "stream_sync");

	if (st)
		return st;
	st = sim_not_while_capturing(dev, "stream_sync", false);
	if (st)
		return st;
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_STREAM_SYNC, dev->prof.stream_sync_ns));
	sim_host_wait(dev, s->ready_ns);
	return sim_fence_result(dev, s->fail, s, "stream_sync");
}

static hc_status sim_stream_new(hc_hal_dev *dev, bool adopted, hc_hal_stream **out)
{
	hc_hal_stream *s;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim stream_%s: out is NULL",
				    adopted ? "adopt" : "create");
	s = calloc(1, sizeof(*s));
	if (!s)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim stream_%s: no host memory",
				    adopted ? "adopt" : "create");
	/* Wrapping a caller's stream is bookkeeping: no runtime call to model. */
	if (!adopted)
		sim_host_cost(dev, dev->prof.stream_create_ns);
	s->dev = dev;
	s->adopted = adopted;
	s->id = ++dev->nstreams;
	LIST_INSERT_HEAD(&dev->streams, s, link);
	*out = s;
	return HC_OK;
}

hc_status sim_stream_create(hc_hal_dev *dev, hc_hal_stream **out)
{
	return sim_stream_new(dev, false, out);
}

/* A synthetic handle names a new simulated queue; its value is not used:
 * core keeps one stream per handle (hc_stream_adopt). */
hc_status sim_stream_adopt(hc_hal_dev *dev, void *native, hc_hal_stream **out)
{
	return sim_stream_new(dev, true, out);
}

static void sim_stream_free(hc_hal_stream *s)
{
	sim_capture_clear(&s->cap);
	LIST_REMOVE(s, link);
	free(s);
}

hc_status sim_stream_destroy(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_status st = sim_check_stream(dev, s, "stream_destroy");

	if (st)
		return st;
	if (s->capturing)
		return hc_hal_error(HC_ERR_STATE, 0, NULL,
				    "sim stream_destroy: the stream is capturing; end the capture first");
	if (s->ready_ns > dev->host_ns)
		dev->host_ns = s->ready_ns;
	if (!s->adopted)
		sim_host_cost(dev, dev->prof.stream_destroy_ns);
	sim_stream_free(s);
	return HC_OK;
}

hc_status sim_event_record(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event **out)
{
	hc_status st = sim_check_stream(dev, s, "event_record");
	hc_hal_event *e;

	if (st)
		return st;
	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim event_record: out is NULL");
	e = calloc(1, sizeof(*e));
	if (!e)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim event_record: no host memory");
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_EVENT_RECORD, dev->prof.event_record_ns));
	e->dev = dev;
	e->captured = s->capturing;
	e->done_ns = s->ready_ns;
	e->fail = sim_fail_pending(dev, s->fail) ? s->fail : 0;
	LIST_INSERT_HEAD(&dev->events, e, link);
	*out = e;
	return HC_OK;
}

hc_status sim_event_wait(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event *e)
{
	hc_status st = sim_check_stream(dev, s, "event_wait");

	if (st)
		return st;
	st = sim_check_event(dev, e, "event_wait");
	if (st)
		return st;
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_EVENT_WAIT, dev->prof.event_wait_ns));
	dev->stats.stream_waits++;
	if (s->capturing) {
		struct sim_op op = { .kind = SIM_OP_WAIT,
				     .wait_done_ns = e->done_ns,
				     .wait_fail = e->fail };
		return sim_capture_add(dev, s, &op);
	}
	sim_wait_op(dev, s, e->done_ns, e->fail);
	return HC_OK;
}

hc_status sim_event_sync(hc_hal_dev *dev, hc_hal_event *e)
{
	hc_status st;

	if (!e)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim event_sync: event is NULL");
	st = sim_not_while_capturing(dev, "event_sync", false);
	if (st)
		return st;
	st = sim_check_event(dev, e, "event_sync");
	if (st)
		return st;
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_EVENT_SYNC, dev->prof.event_sync_ns));
	sim_host_wait(dev, e->done_ns);
	return sim_fence_result(dev, e->fail, NULL, "event_sync");
}

hc_status sim_event_query(hc_hal_dev *dev, hc_hal_event *e, bool *done)
{
	hc_status st = sim_check_event(dev, e, "event_query");

	if (st)
		return st;
	if (!done)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim event_query: done is NULL");
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_EVENT_QUERY, dev->prof.event_query_ns));
	*done = dev->host_ns >= e->done_ns;
	return HC_OK;
}

static void event_free(hc_hal_dev *dev, hc_hal_event *e)
{
	if (!e || e->dev != dev)
		return;
	LIST_REMOVE(e, link);
	free(e);
}

void sim_event_destroy(hc_hal_dev *dev, hc_hal_event *e)
{
	if (!e || e->dev != dev)
		return;
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_EVENT_DESTROY, dev->prof.event_destroy_ns));
	event_free(dev, e);
}

void sim_streams_release(hc_hal_dev *dev)
{
	while (!LIST_EMPTY(&dev->events))
		event_free(dev, LIST_FIRST(&dev->events));
	while (!LIST_EMPTY(&dev->streams))
		sim_stream_free(LIST_FIRST(&dev->streams));
	free(dev->fails);
	dev->fails = NULL;
	dev->nfails = dev->capfails = 0;
	dev->ncapturing = 0;
}

hc_status sim_last_op(hc_hal_dev *dev, struct hc_hal_op_arg *a)
{
	hc_status st = sim_check_stream(dev, a->stream, "ctl LAST_OP");

	if (st)
		return st;
	a->op = a->stream->op_seq;
	return HC_OK;
}

hc_status sim_take_failed(hc_hal_dev *dev, struct hc_hal_failed_arg *a)
{
	hc_status st = sim_check_stream(dev, a->stream, "ctl TAKE_FAILED");

	if (st)
		return st;
	if (!a->ops && a->cap > 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim ctl TAKE_FAILED: ops is NULL");
	a->n = 0;
	for (size_t i = 0; i < dev->nfails; i++) {
		struct sim_failure *f = &dev->fails[i];

		if (f->taken || f->stream_id != a->stream->id)
			continue;
		if (a->n < a->cap) {
			a->ops[a->n] = f->op;
			f->taken = true;
		}
		a->n++;
	}
	return HC_OK;
}
