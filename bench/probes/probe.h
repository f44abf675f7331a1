/*
 * probe.h - what the single-file probes share: a monotonic clock in ns and
 * the median of a sample array (sorted in place).  Header-only, so each
 * probe still builds with one cc command.
 */
#ifndef HIPCORE_BENCH_PROBES_PROBE_H
#define HIPCORE_BENCH_PROBES_PROBE_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t probe_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int probe_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline double probe_median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), probe_cmp_u64);
	return (double)v[n / 2];
}

#endif /* HIPCORE_BENCH_PROBES_PROBE_H */
