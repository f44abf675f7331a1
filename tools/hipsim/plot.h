/*
 * plot.h - memory over virtual time for --svg, decimated as it is
 * sampled, so that its size does not grow with the trace.
 *
 * Each series (the device's memory in use and reserved, and each stream's)
 * keeps HS_PLOT_BUCKETS buckets of equal width in virtual time.  A bucket
 * holds the first and last values sampled in it, its minimum and maximum
 * and which of the two came first: enough to draw every rise and fall the
 * samples made, at the plot's resolution, with the extremes exact (a peak
 * is never averaged away).  When a sample falls past the last bucket, the
 * width doubles and neighbouring buckets merge pairwise, so the buckets
 * always span the run with at least half of them in use.  Memory is
 * HS_PLOT_BUCKETS buckets per series, whatever the length of the trace.
 */
#ifndef HIPSIM_PLOT_H
#define HIPSIM_PLOT_H

#include <stdbool.h>
#include <stdint.h>

/* Buckets per series: more than the plot's 780 pixel columns. */
#define HS_PLOT_BUCKETS 2048u
/* Streams plotted one by one (hs_driver's HS_MAX_STREAMS). */
#define HS_PLOT_STREAMS 64u

struct hs_plot_bucket {
	uint64_t t_first;     /* virtual time of the first sample */
	uint64_t first, last; /* values of the first and last samples */
	uint64_t min, max;
	bool used;
	bool max_last; /* the maximum came after the minimum */
};

/* One line of the plot; before its first sample its value is 0 (streams
 * and the device start with no memory). */
struct hs_plot_series {
	struct hs_plot_bucket *b; /* HS_PLOT_BUCKETS, NULL until sampled */
	uint64_t peak;
};

enum hs_plot_kind { HS_PLOT_IN_USE = 0, HS_PLOT_RESERVED = 1 };

struct hs_plot {
	uint64_t width_ns; /* of one bucket; a power of two */
	uint64_t t_max;    /* the latest sample's time */
	uint64_t samples;
	bool oom;          /* a series could not be allocated: left out */
	struct hs_plot_series device[2];                  /* [enum hs_plot_kind] */
	struct hs_plot_series stream[HS_PLOT_STREAMS][2]; /* [stream][enum hs_plot_kind] */
};

/* Allocates an empty plot.  Return: NULL when out of memory. */
struct hs_plot *hs_plot_new(void);
void hs_plot_free(struct hs_plot *p);

/**
 * hs_plot_add() - one sample: after an event on @stream at virtual time @t,
 * that stream's memory and the device's.
 * @t: not before the previous sample's time (a virtual clock only moves
 *     forward; an earlier time is taken as the previous one).
 *
 * Context: the thread that owns @p.  O(1) apart from a doubling, which
 * costs O(HS_PLOT_BUCKETS) per series and happens at most 64 times.
 */
void hs_plot_add(struct hs_plot *p, uint64_t t, uint32_t stream, uint64_t in_use,
		 uint64_t reserved, uint64_t dev_in_use, uint64_t dev_reserved);

#endif /* HIPSIM_PLOT_H */
