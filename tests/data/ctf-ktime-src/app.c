#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "hc_tp.h"
/* Launch ordinals 1, 2 and 3 (the failed launch has none); the backend
 * measured 1 and 2 (its kernel_time events come at the fence, before the
 * sync event); 3 has no measurement and keeps its hint. */
int main(void)
{
	lttng_ust_tracepoint(hipcore, stream_open, 7);
	lttng_ust_tracepoint(hipcore, launch, 7, 1000, 0);
	lttng_ust_tracepoint(hipcore, launch, 7, 2000, 0);
	lttng_ust_tracepoint(hipcore, launch, 7, 3000, 3);
	lttng_ust_tracepoint(hipcore, launch, 7, 4000, 0);
	lttng_ust_tracepoint(hipcore, kernel_time, 1, 1, 1, 41000);
	lttng_ust_tracepoint(hipcore, kernel_time, 1, 1, 2, 42000);
	lttng_ust_tracepoint(hipcore, sync, 7);
	return 0;
}
