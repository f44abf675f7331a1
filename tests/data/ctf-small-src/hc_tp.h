/*
 * Not libhipcore's provider (trace/hipcore_tp.h) and not meant to follow it:
 * the hand-made provider that the committed trace ../ctf-small (and
 * ../ctf-discarded) was recorded with, once, by lttng-sessiond (README).
 * Its names and types are other producers' on purpose (stream_id,
 * buffer_id, graph_id, a string field, a uint32 property and access, fields
 * missing): the CTF reader's fallbacks (tools/hipsim/ctf_names.h) are tested
 * on it.  The trace cannot be made from the real header at test time, so
 * this stays as recorded; tests/check_trace_schema.c holds the real one to
 * the reader and doc/trace-events.md.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER hipcore
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./hc_tp.h"
#if !defined(HC_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define HC_TP_H
#include <stdint.h>
#include <lttng/tracepoint.h>
LTTNG_UST_TRACEPOINT_EVENT(hipcore, stream_open,
	LTTNG_UST_TP_ARGS(uint64_t, s),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, alloc,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, b, uint64_t, size, int32_t, status),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s)
		lttng_ust_field_integer(uint64_t, buffer_id, b)
		lttng_ust_field_integer(uint64_t, size, size)
		lttng_ust_field_string(note, "extra field, ignored")
		lttng_ust_field_integer(int32_t, status, status)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, free,
	LTTNG_UST_TP_ARGS(uint64_t, b),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, buffer_id, b)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, write,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, b, uint64_t, off, uint64_t, size, uint32_t, prop),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s)
		lttng_ust_field_integer(uint64_t, buffer_id, b)
		lttng_ust_field_integer(uint64_t, offset, off)
		lttng_ust_field_integer(uint64_t, size, size)
		lttng_ust_field_integer(uint32_t, property, prop)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, read,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, b, uint64_t, off, uint64_t, size),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s)
		lttng_ust_field_integer(uint64_t, buffer_id, b)
		lttng_ust_field_integer(uint64_t, offset, off)
		lttng_ust_field_integer(uint64_t, size, size)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, launch,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, dur, uint32_t, info, const uint64_t *, bb, const uint64_t *, bo, const uint64_t *, bs, const uint32_t *, ba, uint32_t, n),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s)
		lttng_ust_field_integer(uint64_t, duration_ns, dur)
		lttng_ust_field_integer(uint32_t, info_words, info)
		lttng_ust_field_sequence(uint64_t, binding_buffer, bb, uint32_t, n)
		lttng_ust_field_sequence(uint64_t, binding_offset, bo, uint32_t, n)
		lttng_ust_field_sequence(uint64_t, binding_size, bs, uint32_t, n)
		lttng_ust_field_sequence(uint32_t, binding_access, ba, uint32_t, n)))
LTTNG_UST_TRACEPOINT_EVENT_CLASS(hipcore, stream_op,
	LTTNG_UST_TP_ARGS(uint64_t, s),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s)))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, stream_op, hipcore, sync, LTTNG_UST_TP_ARGS(uint64_t, s))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, stream_op, hipcore, graph_prepare, LTTNG_UST_TP_ARGS(uint64_t, s))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, stream_op, hipcore, graph_begin, LTTNG_UST_TP_ARGS(uint64_t, s))
LTTNG_UST_TRACEPOINT_EVENT_CLASS(hipcore, graph_op,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, g),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream_id, s) lttng_ust_field_integer(uint64_t, graph_id, g)))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_op, hipcore, graph_end, LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, g))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(hipcore, graph_op, hipcore, graph_replay, LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, g))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, graph_destroy,
	LTTNG_UST_TP_ARGS(uint64_t, g),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, graph_id, g)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, pool_reserve,
	LTTNG_UST_TP_ARGS(uint64_t, p),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, pool, p)))
#endif
#include <lttng/tracepoint-event.h>
