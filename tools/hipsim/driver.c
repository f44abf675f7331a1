/*
 * driver.c - the scorekeeping half of hipsim: opening the device, counting
 * events, remembering the first failure, sampling memory.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/hipsim/driver.h"

uint64_t hs_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Installs @d's layout on stream 0, opened here, before it holds anything;
 * hc_install_memory_pools also makes it the device's, so the streams opened
 * after it take it too.  Installing it on each stream instead would also
 * clean up each time (an install is an explicit cleanup, which trims the
 * device's idle cache that the earlier streams' frees filled): the layout
 * would not give the figures a service that sets it once gets.  The
 * Workload preset is what a new device has (HC_LAYOUT_DEFAULT), so it is
 * not installed at all: its cleanup (a drop-queue flush, a host wait)
 * would be the only difference.  A layout the library refuses (its sizes
 * rounded to the device's alignment, which a layout file cannot know)
 * fails here, before the work.  The stream's open is the event it would
 * be at its first use; the install is set-up, not an event.
 * Return: 0, or -1 with a message.
 */
static int driver_set_layout(struct hs_driver *d)
{
	hc_error_info e;
	hc_status rc;

	if (d->opt.layout.preset == HC_LAYOUT_DEFAULT || d->opt.layout.preset == HC_LAYOUT_WORKLOAD)
		return 0;
	rc = hs_event(d, hc_stream_open(d->dev, &d->streams[0]), "stream_open");
	if (rc == HC_OK) {
		d->nstreams = 1;
		rc = hc_install_memory_pools(d->streams[0], &d->opt.layout);
	}
	if (rc == HC_OK)
		return 0;
	hc_last_error(&e);
	fprintf(stderr, "hipsim: the pool layout%s%s cannot be installed: %s: %s\n",
		d->opt.pools ? " " : "", d->opt.pools ? d->opt.pools : "", hc_status_str(rc), e.message);
	return -1;
}

int hs_driver_open(struct hs_driver *d, const struct hs_options *opt)
{
	hc_device_options o;
	hc_error_info e;
	hc_status rc;

	memset(d, 0, sizeof(*d));
	d->opt = *opt;
	d->first_failing_event = -1;
	hc_device_options_init(&o);
	o.profile = opt->profile;
	o.seed = opt->seed;
	o.capacity = opt->capacity;
	o.data_mode = opt->data_mode;
	o.op_times = opt->op_times;
	o.min_alignment = opt->min_alignment;
	rc = hc_device_open(opt->backend ? opt->backend : "sim", &o, &d->dev);
	if (rc != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "hipsim: cannot open device: %s: %s\n", hc_status_str(rc), e.message);
		return -1;
	}
	/* the run's time counts from here: 0 on the simulator's virtual clock,
	 * a reading of a GPU backend's clock, which started long before */
	hc_device_now(d->dev, &d->clock_start_ns);
	if (driver_set_layout(d) != 0) {
		hc_device_close(d->dev);
		return -1;
	}
	if (opt->svg && !(d->plot = hs_plot_new())) {
		fprintf(stderr, "hipsim: no host memory for the --svg plot\n");
		hc_device_close(d->dev);
		return -1;
	}
	d->wall_start_ns = hs_wall_ns();
	return 0;
}

/* Closes the streams and the device once (their handles then read 0). */
static void close_device(struct hs_driver *d)
{
	for (uint32_t i = 0; i < d->nstreams; i++)
		if (d->streams[i].id)
			hc_stream_close(d->streams[i]);
	memset(d->streams, 0, sizeof(d->streams));
	if (d->dev.id)
		hc_device_close(d->dev);
	d->dev.id = 0;
}

void hs_driver_finish(struct hs_driver *d, struct hs_report *r)
{
	uint64_t wall;

	close_device(d);
	wall = hs_wall_ns() - d->wall_start_ns;
	r->replay_wall_ns = wall;
	r->replay_events_per_s = wall ? (double)d->events * 1e9 / (double)wall : 0.0;
}

void hs_driver_close(struct hs_driver *d)
{
	close_device(d);
	hs_plot_free(d->plot);
	d->plot = NULL;
}

hc_status hs_event_failed(struct hs_driver *d, hc_status rc, const char *what)
{
	hc_error_info e;

	d->events++;
	if (rc != HC_OK) {
		d->failures++;
		if (d->first_failing_event < 0) {
			hc_last_error(&e);
			d->first_failing_event = (int64_t)(d->events - 1);
			d->first_status = rc;
			snprintf(d->first_message, sizeof(d->first_message), "%s: %s: %s", what,
				 hc_status_str(rc), e.message);
		}
	}
	return rc;
}

hc_status hs_stream(struct hs_driver *d, uint32_t i, hc_stream *out)
{
	hc_status rc;

	if (i >= HS_MAX_STREAMS)
		return HC_ERR_INVALID;
	while (d->nstreams <= i) {
		rc = hs_event(d, hc_stream_open(d->dev, &d->streams[d->nstreams]), "stream_open");
		if (rc != HC_OK)
			return rc;
		d->nstreams++;
	}
	*out = d->streams[i];
	return HC_OK;
}

uint32_t hs_stream_index(const struct hs_driver *d, hc_stream s)
{
	for (uint32_t i = 0; i < d->nstreams; i++)
		if (d->streams[i].id == s.id)
			return i;
	return HS_MAX_STREAMS;
}

void hs_sample_record(struct hs_driver *d, uint32_t stream, const hc_memory_usage *u)
{
	uint64_t now = 0, idle = 0;

	hc_device_now(d->dev, &now);
	/* The device line is what the peak figure measures: the streams'
	 * reserved memory and the device's idle cache. */
	(void)hc_device_idle_bytes(d->dev, &idle);
	hs_plot_add(d->plot, now, stream, u->bytes_in_use, u->bytes_reserved, d->in_use,
		    d->reserved + idle);
}

static uint64_t fold_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

void hs_read_fold(struct hs_driver *d, const void *p, uint64_t n)
{
	const unsigned char *b = p;
	uint64_t h = d->reads.hash, w, i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = fold_mix(h, w);
	}
	if (i < n) {
		w = 0;
		memcpy(&w, b + i, n - i);
		h = fold_mix(h, w);
	}
	d->reads.hash = fold_mix(h, n);
	d->reads.reads++;
	d->reads.bytes += n;
}

const char *const hs_call_names[HS_CALL_KINDS] = {
	[HS_CALL_ALLOC] = "hc_alloc",	[HS_CALL_FREE] = "hc_free",   [HS_CALL_WRITE] = "hc_write",
	[HS_CALL_READ] = "hc_read",	[HS_CALL_LAUNCH] = "hc_launch", [HS_CALL_SYNC] = "hc_sync",
	[HS_CALL_SAMPLE] = "memory sampling",
};

void hs_driver_report(struct hs_driver *d, const char *workload, struct hs_report *r)
{
	hc_device_info info;
	uint64_t wall = hs_wall_ns() - d->wall_start_ns, now = 0;

	memset(r, 0, sizeof(*r));
	r->workload = workload;
	r->events = d->events;
	r->streams = d->nstreams;
	r->peak_in_use_bytes = d->peak_in_use;
	r->padding_bytes_peak = d->padding_peak;
	r->stats.struct_size = sizeof(r->stats);
	hc_device_stats_get(d->dev, &r->stats);
	/* Every byte a backend holds is in a pool or idle, so its own peak is
	 * the reserved peak, exactly: samples taken after events miss what an
	 * event on one stream changes on another it locks.  The samples stand
	 * in for a backend that keeps no peak. */
	r->peak_reserved_bytes = r->stats.device_bytes_peak ? r->stats.device_bytes_peak
							    : d->peak_reserved;
	r->failures = d->failures;
	r->first_failing_event = d->first_failing_event;
	snprintf(r->first_failure, sizeof(r->first_failure), "%s", d->first_message);
	hc_device_now(d->dev, &now);
	r->device_ns = now > d->clock_start_ns ? now - d->clock_start_ns : 0;
	memcpy(r->call, d->call, sizeof(r->call));
	r->reads = d->reads;
	r->replay_wall_ns = wall;
	r->replay_events_per_s = wall ? (double)d->events * 1e9 / (double)wall : 0.0;
	r->opt = d->opt;
	if (hc_device_info_get(d->dev, &info) == HC_OK) {
		snprintf(r->backend, sizeof(r->backend), "%s", info.backend);
		r->measured = strcmp(info.backend, "sim") != 0; /* a device, not a model */
		snprintf(r->device, sizeof(r->device), "%s", info.name);
		r->capacity_bytes = info.total_memory;
	}
}
