/*
 * hipcore_trace.h - the only tracing header core/ and hal/ include.
 *
 * Call sites write HC_TRACE(event, args...) with the arguments of the
 * event in trace/hipcore_tp.h (listed in doc/trace-events.md).  Built with
 * LTTng (HIPCORE_WITH_LTTNG), this is lttng_ust_tracepoint(): a load, a
 * test and a branch while no session records the event, and the arguments
 * are evaluated only when it does.  Built --without-lttng, it becomes a
 * dead `if (0)` call of an empty function with the event's prototype: the
 * arguments are still type-checked and count as used, and nothing is
 * emitted (verified with nm/objdump).
 *
 * Timing a public call: read the start clock only when the event is on,
 *
 *	uint64_t t0 = HC_TRACE_T0(alloc);
 *	...
 *	HC_TRACE(alloc, stream.id, buf.id, size, st, hc_trace_since_ns(t0));
 *
 * HC_TRACE_T0() costs one predicted branch when the event is off, and
 * hc_trace_since_ns() is evaluated only inside an enabled HC_TRACE.  If the
 * event was switched on during the call, t0 is 0 and host_ns records 0.
 *
 * Public calls without an event of their own use the generic `call` event
 * with an id from HC_TRACE_FN_LIST (trace/hipcore_trace_ids.h; ids are part of trace format 1: append
 * only, never renumber), through HC_TRACE_CALL():
 *
 *	uint64_t t0 = HC_TRACE_T0(call);
 *	...
 *	HC_TRACE_CALL(memory_cleanup, s.id, 0, 0, 0, rc, t0);
 *
 * Needs clock_gettime(): compile with _GNU_SOURCE (the build's AM_CPPFLAGS)
 * or _POSIX_C_SOURCE >= 199309L defined.
 */
#ifndef HIPCORE_TRACE_HIPCORE_TRACE_H
#define HIPCORE_TRACE_HIPCORE_TRACE_H

#ifdef HAVE_CONFIG_H
#include "config.h" /* HIPCORE_WITH_LTTNG */
#endif

#include <stdint.h>
#include <time.h>

#include "trace/hipcore_trace_ids.h"

/**
 * hc_trace_now_ns() - host monotonic clock in ns, for host_ns fields.
 *
 * Context: any thread; does not block (vDSO clock_gettime).
 * Return: CLOCK_MONOTONIC in ns; never 0 on a running system.
 */
static inline uint64_t hc_trace_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/**
 * hc_trace_since_ns() - ns elapsed since @t0 from HC_TRACE_T0().
 * @t0: start time, or 0 when the event was off at the start.
 *
 * Context: any thread; call only inside HC_TRACE() arguments.
 * Return: the elapsed ns, or 0 when @t0 is 0.
 */
static inline uint64_t hc_trace_since_ns(uint64_t t0)
{
	return t0 ? hc_trace_now_ns() - t0 : 0;
}

#ifdef HIPCORE_WITH_LTTNG

#include "trace/hipcore_tp.h"

#define HC_TRACE(event, ...) lttng_ust_tracepoint(hipcore, event, __VA_ARGS__)
#define HC_TRACE_ENABLED(event) \
	__builtin_expect(!!lttng_ust_tracepoint_enabled(hipcore, event), 0)
/* Emits an event already tested with HC_TRACE_ENABLED(). */
#define HC_TRACE_DO(event, ...) lttng_ust_do_tracepoint(hipcore, event, __VA_ARGS__)

#else /* !HIPCORE_WITH_LTTNG */

/*
 * Without LTTng the provider header is read with the LTTng
 * macros redefined, so that each event becomes an empty static inline
 * hc_trace_check_<event>() with the event's argument types.  HC_TRACE()
 * calls it under `if (0)`: wrong arity or incompatible types fail to
 * compile in this build too, and no code is emitted.
 */
#define HC_TP_NARGS_(...) \
	HC_TP_NARGS_I_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define HC_TP_NARGS_I_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, \
		       a16, n, ...) n
#define HC_TP_CAT_(a, b) HC_TP_CAT_I_(a, b)
#define HC_TP_CAT_I_(a, b) a##b
#define HC_TP_PARAMS_(...) HC_TP_CAT_(HC_TP_P, HC_TP_NARGS_(__VA_ARGS__))(__VA_ARGS__)
#define HC_TP_U_ __attribute__((unused))
#define HC_TP_P2(t, a) t a HC_TP_U_
#define HC_TP_P4(t, a, ...) t a HC_TP_U_, HC_TP_P2(__VA_ARGS__)
#define HC_TP_P6(t, a, ...) t a HC_TP_U_, HC_TP_P4(__VA_ARGS__)
#define HC_TP_P8(t, a, ...) t a HC_TP_U_, HC_TP_P6(__VA_ARGS__)
#define HC_TP_P10(t, a, ...) t a HC_TP_U_, HC_TP_P8(__VA_ARGS__)
#define HC_TP_P12(t, a, ...) t a HC_TP_U_, HC_TP_P10(__VA_ARGS__)
#define HC_TP_P14(t, a, ...) t a HC_TP_U_, HC_TP_P12(__VA_ARGS__)
#define HC_TP_P16(t, a, ...) t a HC_TP_U_, HC_TP_P14(__VA_ARGS__)

#define HIPCORE_TP_NO_LTTNG
#define LTTNG_UST_TP_ARGS(...) __VA_ARGS__
#define LTTNG_UST_TP_FIELDS(...)
#define LTTNG_UST_TRACEPOINT_EVENT(provider, name, args, fields) \
	static inline void hc_trace_check_##name(HC_TP_PARAMS_(args)) {}
#define LTTNG_UST_TRACEPOINT_EVENT_CLASS(provider, cls, args, fields)
#define LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(provider, cls, provider2, name, args) \
	static inline void hc_trace_check_##name(HC_TP_PARAMS_(args)) {}
#include "trace/hipcore_tp.h"
#undef LTTNG_UST_TP_ARGS
#undef LTTNG_UST_TP_FIELDS
#undef LTTNG_UST_TRACEPOINT_EVENT
#undef LTTNG_UST_TRACEPOINT_EVENT_CLASS
#undef LTTNG_UST_TRACEPOINT_EVENT_INSTANCE

#define HC_TRACE(event, ...) \
	do { \
		if (0) \
			hc_trace_check_##event(__VA_ARGS__); \
	} while (0)
#define HC_TRACE_ENABLED(event) 0
#define HC_TRACE_DO(event, ...) HC_TRACE(event, __VA_ARGS__)

#endif /* HIPCORE_WITH_LTTNG */

/* Start time for a call event: the clock is read only if @event is on. */
#define HC_TRACE_T0(event) (HC_TRACE_ENABLED(event) ? hc_trace_now_ns() : (uint64_t)0)

/* hipcore:call for hc_<fn>(), which started at @t0 (HC_TRACE_T0(call)) and
 * returns @status; the other fields as doc/trace-events.md gives them. */
#define HC_TRACE_CALL(fn, stream, obj, obj2, size, status, t0) \
	HC_TRACE(call, (uint16_t)HC_TRACE_FN_##fn, (uint64_t)(stream), (uint64_t)(obj), \
		 (uint64_t)(obj2), (uint64_t)(size), (int32_t)(status), hc_trace_since_ns(t0))

#endif /* HIPCORE_TRACE_HIPCORE_TRACE_H */
