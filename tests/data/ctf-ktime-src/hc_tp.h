/*
 * Not libhipcore's provider (trace/hipcore_tp.h): a cut-down copy, fields
 * filled with constants, that the committed trace ../ctf-ktime was recorded
 * with, once, by lttng-sessiond (README), for the reader's attaching of
 * kernel_time to launches.  The trace cannot be made from the real header
 * at test time, so this stays as recorded; tests/check_trace_schema.c holds
 * the real provider to the reader and doc/trace-events.md.
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
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream, s)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, launch,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, dur, int32_t, st),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream, s)
		lttng_ust_field_integer(uint64_t, kernel, 1)
		lttng_ust_field_integer(uint32_t, info_words, 0)
		lttng_ust_field_integer(uint32_t, n_bindings, 0)
		lttng_ust_field_integer(uint64_t, duration_ns, dur)
		lttng_ust_field_integer(int32_t, status, st)
		lttng_ust_field_integer(uint64_t, host_ns, 0)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, sync,
	LTTNG_UST_TP_ARGS(uint64_t, s),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream, s)
		lttng_ust_field_integer(int32_t, status, 0)
		lttng_ust_field_integer(uint64_t, host_ns, 0)))
LTTNG_UST_TRACEPOINT_EVENT(hipcore, kernel_time,
	LTTNG_UST_TP_ARGS(uint64_t, s, uint64_t, k, uint64_t, ord, uint64_t, ns),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, stream, s)
		lttng_ust_field_integer(uint64_t, kernel, k)
		lttng_ust_field_integer(uint64_t, ordinal, ord)
		lttng_ust_field_integer(uint64_t, duration_ns, ns)))
#endif
#include <lttng/tracepoint-event.h>
