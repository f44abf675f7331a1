/*
 * svg.h - the --svg plot: memory in use and reserved over virtual time,
 * device-wide and per stream, from a decimated plot (plot.h).
 */
#ifndef HIPSIM_SVG_H
#define HIPSIM_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/hipsim/plot.h"

/* One axis: ticks at 0, step, 2 step ... top, in @unit_name. */
struct hs_axis {
	double unit;           /* base units (bytes or ns) per @unit_name */
	const char *unit_name; /* "B", "KiB", ... or "ns", "µs", ... */
	double step;           /* between ticks, in @unit: 1, 2 or 5 times a power of ten */
	unsigned nticks;       /* 0 included */
	double top;            /* the axis' end in base units: (nticks - 1) * step * unit */
	int decimals;          /* digits after the point in the labels */
};

/**
 * hs_axis_bytes() - an axis for byte counts up to @max: the largest of B,
 * KiB, MiB, GiB, TiB that @max reaches, ticks 1, 2 or 5 times a power of
 * ten of it, about five of them, the last at or above @max.
 * hs_axis_time() - the same for nanoseconds, in ns, µs, ms or s.
 */
void hs_axis_bytes(uint64_t max, struct hs_axis *a);
void hs_axis_time(uint64_t max_ns, struct hs_axis *a);
/* The label of tick @k ("2.5 MiB"). */
void hs_axis_label(const struct hs_axis *a, unsigned k, char *buf, size_t len);

/* Writes @s with XML's special characters escaped, bytes that are not
 * UTF-8 (or are control characters) as '?'. */
void hs_svg_escape(FILE *f, const char *s);

/**
 * hs_svg_write() - the plot as an SVG document.
 * @f: where to write it.
 * @p: the samples; every stream below @nstreams that was sampled gets a
 *     line, and a legend entry while the legend has room ("+N more"
 *     after that).
 * @t_end: the run's end in virtual time (the x axis spans it).
 * @title, @subtitle: text above the plot (escaped here).
 *
 * The output's size is bounded by the plot's buckets, not the samples:
 * at most 5 points per bucket and series.  Coordinates are printed with
 * one decimal, so the same samples give the same bytes.
 *
 * Context: any thread.
 * Return: 0, or -1 when a write failed (ferror; the caller's close says why).
 */
int hs_svg_write(FILE *f, const struct hs_plot *p, uint32_t nstreams, uint64_t t_end,
		 const char *title, const char *subtitle);

#endif /* HIPSIM_SVG_H */
