/*
 * hip_ktime.c - pending kernel timings of the HIP backend, read back at
 * fences and emitted as hipcore:kernel_time (hip_ktime.h).
 *
 * Pairs are kept in launch order; a drain walks all of them, so a pair
 * still running on one stream does not hold back completed pairs of
 * another.  Durations are the runtime's float milliseconds (about 0.5 us
 * resolution on CUDA) converted to ns.
 */
#include <stdlib.h>

#include "hal/hip/hip_ktime.h"
#include "trace/hipcore_trace.h"

bool hip_kt_add(struct hip_ktimes *kt, const struct hip_kt_pending *p)
{
	if (kt->n == HIP_KT_MAX) {
		kt->dropped++;
		return false;
	}
	if (kt->n == kt->cap) {
		size_t cap = kt->cap ? kt->cap * 2 : 64;
		struct hip_kt_pending *v = realloc(kt->v, cap * sizeof(*v));
		if (!v) {
			kt->dropped++;
			return false;
		}
		kt->v = v;
		kt->cap = cap;
	}
	kt->v[kt->n++] = *p;
	return true;
}

void hip_kt_drain(struct hip_ktimes *kt, int (*query)(void *e),
		  int (*elapsed)(float *ms, void *start, void *end), int (*destroy)(void *e),
		  bool all)
{
	size_t keep = 0;

	for (size_t i = 0; i < kt->n; i++) {
		struct hip_kt_pending *p = &kt->v[i];
		float ms = 0.0f;

		if (query(p->end) != 0) {
			if (!all) {
				kt->v[keep++] = *p;
				continue;
			}
		} else if (elapsed(&ms, p->start, p->end) == 0) {
			uint64_t ns = ms > 0.0f ? (uint64_t)((double)ms * 1e6 + 0.5) : 0;
			HC_TRACE(kernel_time, p->stream, p->kernel, p->ordinal, ns);
			kt->emitted++;
		}
		destroy(p->start);
		destroy(p->end);
	}
	kt->n = keep;
	if (all) {
		free(kt->v);
		kt->v = NULL;
		kt->n = kt->cap = 0;
	}
}
