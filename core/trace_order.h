/*
 * trace_order.h - a recorded trace in the order things happened.
 *
 * Streams run their calls in parallel, but some state belongs to the whole
 * device: the idle cache, the direct pools' device-wide peak, the inboxes
 * that carry unpins from one stream to another.  A call's event is emitted
 * as the call returns, so calls on two streams may reach the trace in the
 * order opposite to the one in which they touched that state, and a replay,
 * which runs the trace's order, would then decide otherwise (another page
 * adopted, another reclaim).  So while a session records a call's event,
 * that call runs under one process-wide lock, taken before any other:
 * recorded calls run one at a time and the trace's order is theirs.  The
 * calls under it are those replay follows whose effects can reach shared
 * state: hc_alloc, hc_free, hc_buffer_hold, hc_sync, and every stream
 * operation (hc_write, hc_read, hc_launch), whose skeleton takes it
 * (core/streamop.c, hc_op_enter).  Without a session nothing is
 * taken: the test is the event's enabled flag, one predicted branch.
 *
 * Context: the lock is recursive, so an ordered call may make another.
 */
#ifndef HIPCORE_CORE_TRACE_ORDER_H
#define HIPCORE_CORE_TRACE_ORDER_H

#include "trace/hipcore_trace.h"

void hc_trace_order_enter(void);
void hc_trace_order_exit(void);

/* Runs the statement @call (which sets a status) under the lock when
 * @event is being recorded, else as is. */
#define HC_TRACE_ORDERED(event, call)                                  \
	do {                                                           \
		if (__builtin_expect(HC_TRACE_ENABLED(event), 0)) {    \
			hc_trace_order_enter();                        \
			call;                                          \
			hc_trace_order_exit();                         \
		} else {                                               \
			call;                                          \
		}                                                      \
	} while (0)

#endif /* HIPCORE_CORE_TRACE_ORDER_H */
