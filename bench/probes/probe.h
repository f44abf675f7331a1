/*
 * probe.h - what the single-file probes share: the clocks of
 * bench/timing.h and the median of a sample array (sorted in place).
 * Header-only, so each probe still builds with one cc command.
 */
#ifndef HIPCORE_BENCH_PROBES_PROBE_H
#define HIPCORE_BENCH_PROBES_PROBE_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "bench/timing.h"

static inline double probe_median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_u64);
	return (double)v[n / 2];
}

#endif /* HIPCORE_BENCH_PROBES_PROBE_H */
