/*
 * timing.h - the clocks and the comparators every benchmark and probe
 * of bench/ times with.  Header-only (static inline), so a single-file
 * probe still builds with one cc command.
 *
 * Wall time is CLOCK_MONOTONIC; a benchmark that wants the CPU time of its
 * own thread or process names CLOCK_THREAD_CPUTIME_ID or
 * CLOCK_PROCESS_CPUTIME_ID to bench_clock_ns.
 */
#ifndef HIPCORE_BENCH_TIMING_H
#define HIPCORE_BENCH_TIMING_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Nanoseconds on @clock. */
static inline uint64_t bench_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread, of the whole process. */
static inline uint64_t bench_thread_cpu_ns(void)
{
	return bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static inline uint64_t bench_process_cpu_ns(void)
{
	return bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* Wall time: nanoseconds, microseconds, milliseconds and seconds on
 * CLOCK_MONOTONIC. */
static inline uint64_t bench_now_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC);
}

static inline double bench_now_us(void)
{
	return (double)bench_now_ns() * 1e-3;
}

static inline double bench_now_ms(void)
{
	return (double)bench_now_ns() * 1e-6;
}

static inline double bench_now_s(void)
{
	return (double)bench_now_ns() * 1e-9;
}

/* qsort's comparators for samples, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n samples (sorted in place): the upper one of an even
 * count. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

#endif
