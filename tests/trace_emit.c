/*
 * trace_emit.c - fires every hipcore event a known number of times.
 *
 * Used by trace-roundtrip.sh: `trace_emit ROUNDS` emits each of the 31
 * events of trace format 1 once per round through HC_TRACE, with field
 * values derived from the round number r (0-based) so the script can
 * check them: alloc has buffer = 100 + r, size = 4096 * (r + 1); write has
 * property 2, offset 8 * r; launch has bindings (100 + r, 0, 512, read) and
 * (200, 64, 128, read-write); call has fn = HC_TRACE_FN_memory_report;
 * failure has kind 3, n_causes r.  `trace_emit ROUNDS DELAY_MS` first sleeps
 * DELAY_MS (to overlap with another recording in the isolation check).
 * Prints its pid and the event count on stdout.  Exits 3 when the probe module did not
 * load (so nothing can be recorded), 77 when built --without-lttng.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "trace/hipcore_trace.h"
#ifdef HIPCORE_WITH_LTTNG
#include "trace/hipcore_trace_load.h"
#endif

#define N_EVENTS 33

static void emit_round(uint64_t r)
{
	uint64_t t0 = HC_TRACE_T0(alloc);
	struct hc_tp_bindings bind = { .n = 2, .buffer = { 100 + r, 200 }, .offset = { 0, 64 },
				       .size = { 512, 128 }, .access = { 1, 3 } };

	HC_TRACE(call, HC_TRACE_FN_memory_report, 7, r, 0, 64, 0, 0);
	HC_TRACE(device_open, 1, HC_TRACE_BACKEND_SIM, 0, 0, 1ull << 34, 512);
	HC_TRACE(stream_adopt, 1, 8, 0x7f00 + r, 0, 0);
	HC_TRACE(buffer_hold, 8, 100 + r, 0, 0);
	HC_TRACE(device_close, 1, 0, 0);
	HC_TRACE(stream_open, 1, 7, 0, 0);
	HC_TRACE(stream_close, 7, 0, 0);
	HC_TRACE(alloc, 7, 100 + r, 4096 * (r + 1), 0, hc_trace_since_ns(t0));
	HC_TRACE(free, 100 + r, 0, 0);
	HC_TRACE(write, 7, 100 + r, 8 * r, 512, 2, 0, 0);
	HC_TRACE(read, 7, 100 + r, 8 * r, 256, 1, 0, 0);
	HC_TRACE(kernel_load, 1, 5, 0, 0);
	HC_TRACE(launch, 7, 5, 16, 2, 1000 + r, 0, 0, &bind);
	HC_TRACE(sync, 7, 0, 0);
	HC_TRACE(graph_prepare, 7, 0, 0, 0);
	HC_TRACE(graph_begin, 7, 0, 0, 0);
	HC_TRACE(graph_end, 7, 9, 0, 0);
	HC_TRACE(graph_replay, 7, 9, 0, 0);
	HC_TRACE(graph_destroy, 0, 9, 0, 0);
	HC_TRACE(pool_reserve, 7, 2, r, r == 0, 4096, 64);
	HC_TRACE(device_alloc, 7, 0x7f0000000000ull + r * 0x1000, 1 << 20);
	HC_TRACE(device_free, 7, 0x7f0000000000ull + r * 0x1000, 1 << 20);
	HC_TRACE(pinned_alloc, 7, 0x7e0000000000ull, 1 << 16);
	HC_TRACE(pinned_free, 7, 0x7e0000000000ull, 1 << 16);
	HC_TRACE(staging, 7, 100 + r, 8 << 20, 2, 1, 0, 1);
	HC_TRACE(dq_push, 7, 1, 4096);
	HC_TRACE(dq_flush, 7, 4, 16384, 0);
	HC_TRACE(dq_host_wait, 7, 12);
	HC_TRACE(xstream_wait, 8, 7, 100 + r, r);
	HC_TRACE(capture, 7, 0, 1, 9);
	HC_TRACE(cache, 7, HC_TRACE_CACHE_MISS, 0xabcdef, 128);
	HC_TRACE(failure, 1, 11, 3, (uint32_t)r, 7);
	HC_TRACE(taint, 11, 100 + r, 0, 512);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2;
	unsigned long delay_ms = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	struct timespec delay = { (time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000L };
	unsigned long r;

#ifndef HIPCORE_WITH_LTTNG
	(void)delay;
	fprintf(stderr, "trace_emit: built --without-lttng\n");
	for (r = 0; r < rounds; r++)
		emit_round(r);
	return 77;
#else
	if (!hc_trace_provider_loaded()) {
		fprintf(stderr, "trace_emit: the probe module did not load (HIPCORE_LTTNG=%s)\n",
			getenv("HIPCORE_LTTNG") ? getenv("HIPCORE_LTTNG") : "(unset)");
		return 3;
	}
	if (delay_ms)
		nanosleep(&delay, NULL);
	for (r = 0; r < rounds; r++)
		emit_round(r);
	printf("trace_emit: pid %ld\ntrace_emit: %lu events\n", (long)getpid(), rounds * N_EVENTS);
	return 0;
#endif
}
