/*
 * plot.c - the decimated series behind --svg (plot.h).
 *
 * A bucket's four figures are what a pixel column can show of many
 * samples: the value it enters with, how low and how high it went (in the
 * order it went there) and the value it leaves with.  Merging two
 * neighbours keeps exactly that of the pair, so doubling the width loses
 * nothing a coarser column could have drawn.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/plot.h"

struct hs_plot *hs_plot_new(void)
{
	struct hs_plot *p = calloc(1, sizeof(*p));

	if (p)
		p->width_ns = 1;
	return p;
}

void hs_plot_free(struct hs_plot *p)
{
	if (!p)
		return;
	for (int k = 0; k < 2; k++) {
		free(p->device[k].b);
		for (uint32_t s = 0; s < HS_PLOT_STREAMS; s++)
			free(p->stream[s][k].b);
	}
	free(p);
}

/* @a followed by @b, in one bucket (ties count as @a's). */
static struct hs_plot_bucket merge(const struct hs_plot_bucket *a, const struct hs_plot_bucket *b)
{
	struct hs_plot_bucket m;
	bool min_a, max_a;

	if (!a->used)
		return *b;
	if (!b->used)
		return *a;
	min_a = a->min <= b->min;
	max_a = a->max >= b->max;
	m = *a;
	m.last = b->last;
	m.min = min_a ? a->min : b->min;
	m.max = max_a ? a->max : b->max;
	if (min_a && max_a)
		m.max_last = a->max_last;
	else if (min_a || max_a)
		m.max_last = min_a; /* one from each: b's came later */
	else
		m.max_last = b->max_last;
	return m;
}

static void series_halve(struct hs_plot_series *s)
{
	if (!s->b)
		return;
	for (uint32_t i = 0; i < HS_PLOT_BUCKETS / 2; i++)
		s->b[i] = merge(&s->b[2 * i], &s->b[2 * i + 1]);
	memset(&s->b[HS_PLOT_BUCKETS / 2], 0, HS_PLOT_BUCKETS / 2 * sizeof(s->b[0]));
}

/* Doubles the bucket width until @t falls inside the buckets. */
static void widen(struct hs_plot *p, uint64_t t)
{
	while (t / p->width_ns >= HS_PLOT_BUCKETS) {
		for (int k = 0; k < 2; k++) {
			series_halve(&p->device[k]);
			for (uint32_t s = 0; s < HS_PLOT_STREAMS; s++)
				series_halve(&p->stream[s][k]);
		}
		p->width_ns *= 2;
	}
}

static void series_add(struct hs_plot *p, struct hs_plot_series *s, uint64_t t, uint64_t v)
{
	struct hs_plot_bucket *b;

	if (!s->b) {
		s->b = calloc(HS_PLOT_BUCKETS, sizeof(*s->b));
		if (!s->b) {
			p->oom = true;
			return;
		}
	}
	if (v > s->peak)
		s->peak = v;
	b = &s->b[t / p->width_ns];
	if (!b->used) {
		*b = (struct hs_plot_bucket){ t, v, v, v, v, true, false };
		return;
	}
	b->last = v;
	if (v < b->min) {
		b->min = v;
		b->max_last = false;
	}
	if (v > b->max) {
		b->max = v;
		b->max_last = true;
	}
}

void hs_plot_add(struct hs_plot *p, uint64_t t, uint32_t stream, uint64_t in_use,
		 uint64_t reserved, uint64_t dev_in_use, uint64_t dev_reserved)
{
	if (t < p->t_max)
		t = p->t_max;
	widen(p, t);
	p->t_max = t;
	p->samples++;
	series_add(p, &p->device[HS_PLOT_IN_USE], t, dev_in_use);
	series_add(p, &p->device[HS_PLOT_RESERVED], t, dev_reserved);
	if (stream < HS_PLOT_STREAMS) {
		series_add(p, &p->stream[stream][HS_PLOT_IN_USE], t, in_use);
		series_add(p, &p->stream[stream][HS_PLOT_RESERVED], t, reserved);
	}
}
