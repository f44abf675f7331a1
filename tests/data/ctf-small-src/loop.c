#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include <stdlib.h>
#include "hc_tp.h"
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	uint64_t bb[2] = { 1, 2 }, bo[2] = { 0, 0 }, bs[2] = { 64, 64 };
	uint32_t ba[2] = { 1, 2 };
	lttng_ust_tracepoint(hipcore, stream_open, 1);
	for (long i = 0; i < n / 3; i++) {
		lttng_ust_tracepoint(hipcore, alloc, 1, 10 + i, 4096, 0);
		lttng_ust_tracepoint(hipcore, launch, 1, 1000, 2, bb, bo, bs, ba, 2);
		lttng_ust_tracepoint(hipcore, free, 10 + i);
	}
	return 0;
}
