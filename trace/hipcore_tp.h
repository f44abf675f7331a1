/*
 * hipcore_tp.h - the LTTng-UST provider "hipcore" (trace format version 1).
 *
 * Read without LTTng too: a --without-lttng build defines
 * HIPCORE_TP_NO_LTTNG and its own LTTNG_UST_* macros (hipcore_trace.h) to
 * turn each event into a prototype that only type-checks call sites.
 *
 * Private: never installed, included only by hipcore_tp.c (which creates
 * the probes of libhipcore-lttng.so), by hipcore_tp_define.c (the
 * tracepoint definitions inside libhipcore) and, through hipcore_trace.h,
 * by call sites.  Every event and field here is listed in
 * doc/trace-events.md; hipsim matches them by name, so renaming or retyping
 * one is a format change (bump HC_TRACE_FORMAT_VERSION there and here).
 *
 * Field conventions: object ids (device, stream, buffer, kernel, graph,
 * failure) are uint64 and stable for the life of the process, 0 meaning
 * "none"; sizes and offsets are uint64 bytes; status is the hc_status
 * value (0 = HC_OK); host_ns is host CLOCK_MONOTONIC ns the public call
 * took (0 when the event was enabled during the call); addresses use the
 * hex integer type.  No event carries user data bytes.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER hipcore

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "trace/hipcore_tp.h"

/* Keep the tracepoint symbols out of libhipcore's ABI. */
#ifndef LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#endif
#ifndef LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#endif

#if !defined(HIPCORE_TRACE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define HIPCORE_TRACE_TP_H

#include <stdint.h>
#ifndef HIPCORE_TP_NO_LTTNG
#include <lttng/tracepoint.h>
#endif

#ifndef HC_TP_BINDINGS_DEFINED
#define HC_TP_BINDINGS_DEFINED
/* The launch event's bindings; at most HC_TP_MAX_BINDINGS are recorded. */
#define HC_TP_MAX_BINDINGS 64
struct hc_tp_bindings {
	uint32_t n;
	uint64_t buffer[HC_TP_MAX_BINDINGS];
	uint64_t offset[HC_TP_MAX_BINDINGS];
	uint64_t size[HC_TP_MAX_BINDINGS];
	uint8_t access[HC_TP_MAX_BINDINGS];
};
#endif

#define HC_TP_U64(name) lttng_ust_field_integer(uint64_t, name, name)
#define HC_TP_U32(name) lttng_ust_field_integer(uint32_t, name, name)
#define HC_TP_U16(name) lttng_ust_field_integer(uint16_t, name, name)
#define HC_TP_U8(name) lttng_ust_field_integer(uint8_t, name, name)
#define HC_TP_BOOL(name) lttng_ust_field_integer(uint8_t, name, (name) ? 1 : 0)
#define HC_TP_STATUS lttng_ust_field_integer(int32_t, status, status)
#define HC_TP_HEX(name) lttng_ust_field_integer_hex(uint64_t, name, name)

/* ---- public calls ------------------------------------------------------ */

/* Any public call without an event of its own; fn is enum hc_trace_fn. */
LTTNG_UST_TRACEPOINT_EVENT(hipcore, call,
	LTTNG_UST_TP_ARGS(uint16_t, fn, uint64_t, stream, uint64_t, obj, uint64_t, obj2,
		uint64_t, size, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U16(fn) HC_TP_U64(stream) HC_TP_U64(obj) HC_TP_U64(obj2)
		HC_TP_U64(size) HC_TP_STATUS HC_TP_U64(host_ns)))

/* total_memory and alignment (appended within format 1): the device's
 * geometry, which replay gives the simulated device so that pages and
 * placement come out as recorded. */
LTTNG_UST_TRACEPOINT_EVENT(hipcore, device_open,
	LTTNG_UST_TP_ARGS(uint64_t, device, uint8_t, backend, int32_t, status, uint64_t, host_ns,
		uint64_t, total_memory, uint64_t, alignment),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(device) HC_TP_U8(backend) HC_TP_STATUS HC_TP_U64(host_ns)
		HC_TP_U64(total_memory) HC_TP_U64(alignment)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, device_close,
	LTTNG_UST_TP_ARGS(uint64_t, device, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(device) HC_TP_STATUS HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, stream_open,
	LTTNG_UST_TP_ARGS(uint64_t, device, uint64_t, stream, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(device) HC_TP_U64(stream) HC_TP_STATUS HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, stream_close,
	LTTNG_UST_TP_ARGS(uint64_t, stream, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_STATUS HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, alloc,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, buffer, uint64_t, size, int32_t, status,
		uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(buffer) HC_TP_U64(size) HC_TP_STATUS
		HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, free,
	LTTNG_UST_TP_ARGS(uint64_t, buffer, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(buffer) HC_TP_STATUS HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, write,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, buffer, uint64_t, offset, uint64_t, size,
		uint8_t, property, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(buffer) HC_TP_U64(offset) HC_TP_U64(size)
		HC_TP_U8(property) HC_TP_STATUS HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, read,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, buffer, uint64_t, offset, uint64_t, size,
		uint8_t, property, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(buffer) HC_TP_U64(offset) HC_TP_U64(size)
		HC_TP_U8(property) HC_TP_STATUS HC_TP_U64(host_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, kernel_load,
	LTTNG_UST_TP_ARGS(uint64_t, device, uint64_t, kernel, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(device) HC_TP_U64(kernel) HC_TP_STATUS HC_TP_U64(host_ns)))

/*
 * Bindings ride as four parallel sequences of length n_bindings (an addition
 * within format 1: appended after host_ns).  The call site fills a struct
 * hc_tp_bindings on its stack only when the event is enabled.
 */
LTTNG_UST_TRACEPOINT_EVENT(hipcore, launch,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, kernel, uint32_t, info_words,
		uint32_t, n_bindings, uint64_t, duration_ns, int32_t, status, uint64_t, host_ns,
		const struct hc_tp_bindings *, bind),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(kernel) HC_TP_U32(info_words)
		HC_TP_U32(n_bindings) HC_TP_U64(duration_ns) HC_TP_STATUS HC_TP_U64(host_ns)
		lttng_ust_field_sequence(uint64_t, binding_buffer, bind->buffer, uint32_t, bind->n)
		lttng_ust_field_sequence(uint64_t, binding_offset, bind->offset, uint32_t, bind->n)
		lttng_ust_field_sequence(uint64_t, binding_size, bind->size, uint32_t, bind->n)
		lttng_ust_field_sequence(uint8_t, binding_access, bind->access, uint32_t, bind->n)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, sync,
	LTTNG_UST_TP_ARGS(uint64_t, stream, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_STATUS HC_TP_U64(host_ns)))

/* graph_prepare, graph_begin: graph is 0; graph_end: the new graph id. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(hipcore, graph_class,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, graph, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(graph) HC_TP_STATUS HC_TP_U64(host_ns)))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_class, hipcore, graph_prepare,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, graph, int32_t, status, uint64_t, host_ns))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_class, hipcore, graph_begin,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, graph, int32_t, status, uint64_t, host_ns))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_class, hipcore, graph_end,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, graph, int32_t, status, uint64_t, host_ns))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_class, hipcore, graph_replay,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, graph, int32_t, status, uint64_t, host_ns))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_class, hipcore, graph_destroy,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, graph, int32_t, status, uint64_t, host_ns))

/* ---- decisions ---------------------------------------------------------- */

LTTNG_UST_TRACEPOINT_EVENT(hipcore, pool_reserve,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint32_t, pool, uint64_t, page, uint8_t, new_page,
		uint64_t, size, uint64_t, padding),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U32(pool) HC_TP_U64(page) HC_TP_BOOL(new_page)
		HC_TP_U64(size) HC_TP_U64(padding)))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(hipcore, mem_class,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, addr, uint64_t, size),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_HEX(addr) HC_TP_U64(size)))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, mem_class, hipcore, device_alloc,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, addr, uint64_t, size))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, mem_class, hipcore, device_free,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, addr, uint64_t, size))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, mem_class, hipcore, pinned_alloc,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, addr, uint64_t, size))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, mem_class, hipcore, pinned_free,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, addr, uint64_t, size))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, staging,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, buffer, uint64_t, size, uint8_t, property,
		uint8_t, through_pinned, uint8_t, flush_after, uint8_t, pipelined),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(buffer) HC_TP_U64(size) HC_TP_U8(property)
		HC_TP_BOOL(through_pinned) HC_TP_BOOL(flush_after) HC_TP_BOOL(pipelined)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, dq_push,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint32_t, count, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U32(count) HC_TP_U64(bytes)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, dq_flush,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint32_t, count, uint64_t, bytes, uint64_t, host_wait_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U32(count) HC_TP_U64(bytes)
		HC_TP_U64(host_wait_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, dq_host_wait,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, host_wait_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(host_wait_ns)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, xstream_wait,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, origin_stream, uint64_t, buffer,
		uint64_t, cursor),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(origin_stream) HC_TP_U64(buffer)
		HC_TP_U64(cursor)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, capture,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint8_t, from_state, uint8_t, to_state, uint64_t, graph),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U8(from_state) HC_TP_U8(to_state)
		HC_TP_U64(graph)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, cache,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint8_t, kind, uint64_t, key, uint64_t, size),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U8(kind) HC_TP_HEX(key) HC_TP_U64(size)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, failure,
	LTTNG_UST_TP_ARGS(uint64_t, device, uint64_t, failure, int32_t, kind, uint32_t, n_causes,
		uint64_t, stream),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(device) HC_TP_U64(failure)
		lttng_ust_field_integer(int32_t, kind, kind) HC_TP_U32(n_causes) HC_TP_U64(stream)))

LTTNG_UST_TRACEPOINT_EVENT(hipcore, taint,
	LTTNG_UST_TP_ARGS(uint64_t, failure, uint64_t, buffer, uint64_t, offset, uint64_t, size),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(failure) HC_TP_U64(buffer) HC_TP_U64(offset)
		HC_TP_U64(size)))

/* ---- backend measurements (appended) ----------------------------------- */

/* A kernel's device time, measured by the HIP backend with timing events
 * when the device was opened with time_kernels (hc_device_options) or
 * HIPCORE_TIME_KERNELS=1; emitted at the fence after it completed.
 * stream and kernel are the backend's serial numbers (not public ids);
 * ordinal is the device's count of successful backend launches, 1-based,
 * so it matches the ordinal-th hipcore:launch with status 0 of the device
 * (captured launches count but are not timed). */
LTTNG_UST_TRACEPOINT_EVENT(hipcore, kernel_time,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, kernel, uint64_t, ordinal,
		uint64_t, duration_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(kernel) HC_TP_U64(ordinal)
		HC_TP_U64(duration_ns)))

/* ---- caller-owned streams (appended) ----------------------------------- */

/* hc_stream_adopt: @native is the caller's stream handle (an address, for
 * correlation only; replay opens a stream of its own). */
LTTNG_UST_TRACEPOINT_EVENT(hipcore, stream_adopt,
	LTTNG_UST_TP_ARGS(uint64_t, device, uint64_t, stream, uint64_t, native, int32_t, status,
		uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(device) HC_TP_U64(stream) HC_TP_HEX(native) HC_TP_STATUS
		HC_TP_U64(host_ns)))

/* hc_buffer_hold: @buffer's memory waits for the work queued on @stream. */
LTTNG_UST_TRACEPOINT_EVENT(hipcore, buffer_hold,
	LTTNG_UST_TP_ARGS(uint64_t, stream, uint64_t, buffer, int32_t, status, uint64_t, host_ns),
	LTTNG_UST_TP_FIELDS(HC_TP_U64(stream) HC_TP_U64(buffer) HC_TP_STATUS HC_TP_U64(host_ns)))

#endif /* HIPCORE_TRACE_TP_H */

#ifndef HIPCORE_TP_NO_LTTNG
#include <lttng/tracepoint-event.h>
#endif
