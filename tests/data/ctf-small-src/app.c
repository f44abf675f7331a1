#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "hc_tp.h"
int main(void)
{
	uint64_t bb[2] = { 100, 101 }, bo[2] = { 0, 64 }, bs[2] = { 4096, 128 };
	uint32_t ba[2] = { 1, 2 };

	lttng_ust_tracepoint(hipcore, stream_open, 7);
	lttng_ust_tracepoint(hipcore, alloc, 7, 100, 4096, 0);
	lttng_ust_tracepoint(hipcore, pool_reserve, 1);           /* not replayed */
	lttng_ust_tracepoint(hipcore, alloc, 9, 101, 8192, 0);    /* stream 9: no stream_open */
	lttng_ust_tracepoint(hipcore, write, 7, 100, 0, 4096, 2);
	lttng_ust_tracepoint(hipcore, launch, 7, 25000, 3, bb, bo, bs, ba, 2);
	lttng_ust_tracepoint(hipcore, read, 9, 101, 64, 128);
	lttng_ust_tracepoint(hipcore, sync, 7);
	lttng_ust_tracepoint(hipcore, graph_prepare, 7);
	lttng_ust_tracepoint(hipcore, graph_begin, 7);
	lttng_ust_tracepoint(hipcore, graph_end, 7, 55);
	lttng_ust_tracepoint(hipcore, graph_replay, 7, 55);
	lttng_ust_tracepoint(hipcore, graph_destroy, 55);
	lttng_ust_tracepoint(hipcore, alloc, 7, 102, 1ull << 40, 2); /* failed */
	lttng_ust_tracepoint(hipcore, free, 100);
	lttng_ust_tracepoint(hipcore, free, 101);
	return 0;
}
