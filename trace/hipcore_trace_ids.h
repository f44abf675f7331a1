/*
 * hipcore_trace_ids.h - the numbers of trace format 1 that are not in the
 * provider: the format version, the `fn` ids of hipcore:call and the values
 * of enumerated fields.
 *
 * Apart from hipcore_trace.h so that code which reads traces or checks the
 * schema (tests/check_trace_schema.c) can use them without LTTng.  Every
 * value here is named in doc/trace-events.md.
 */
#ifndef HIPCORE_TRACE_HIPCORE_TRACE_IDS_H
#define HIPCORE_TRACE_HIPCORE_TRACE_IDS_H

/* The version of the event set in doc/trace-events.md. */
#define HC_TRACE_FORMAT_VERSION 1

/* X(name, id): the `fn` field of hipcore:call, one per public call that has
 * no event of its own.  Append only.  Not every id is emitted: which are,
 * and why the others are not, is doc/trace-events.md's table (checked by
 * tests/check_trace_schema.c against the HC_TRACE_CALL sites). */
#define HC_TRACE_FN_LIST(X) \
	X(device_options_init, 1) \
	X(device_info_get, 2) \
	X(device_now, 3) \
	X(fault_inject, 4) \
	X(buffer_info_get, 5) \
	X(install_memory_pools, 6) \
	X(memory_usage_get, 7) \
	X(device_memory_usage, 8) \
	X(memory_report, 9) \
	X(memory_cleanup, 10) \
	X(memory_persistent_begin, 11) \
	X(memory_persistent_end, 12) \
	X(failure_explain, 13) \
	X(last_error, 14) \
	X(device_set_policy, 15) \
	X(device_idle_release, 16) \
	X(device_set_memory_limit, 17)

enum hc_trace_fn {
	HC_TRACE_FN_NONE = 0,
#define HC_TRACE_FN_ENUM_(name, id) HC_TRACE_FN_##name = id,
	HC_TRACE_FN_LIST(HC_TRACE_FN_ENUM_)
#undef HC_TRACE_FN_ENUM_
};

/* Values of hipcore:cache `kind`. */
enum hc_trace_cache_kind {
	HC_TRACE_CACHE_HIT = 0,
	HC_TRACE_CACHE_MISS = 1,
	HC_TRACE_CACHE_EVICT = 2,
	HC_TRACE_CACHE_UNCACHED = 3, /* too large for the cache */
};

/* Values of hipcore:device_open `backend`. */
enum hc_trace_backend {
	HC_TRACE_BACKEND_OTHER = 0,
	HC_TRACE_BACKEND_SIM = 1,
	HC_TRACE_BACKEND_HIP = 2,
};

#endif /* HIPCORE_TRACE_HIPCORE_TRACE_IDS_H */
