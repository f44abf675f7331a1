/*
 * driver.h - drives libhipcore's public API for hipsim and keeps the score.
 *
 * Built-in workloads and trace replay both call the public API through
 * these wrappers, so both report the same figures the same way: every call
 * is an event; the first failing event is remembered with its message;
 * memory in use and reserved is sampled after every call that can change it.
 */
#ifndef HIPSIM_DRIVER_H
#define HIPSIM_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hipcore/hipcore.h"
#include "tools/hipsim/plot.h"

/* As many as libhipcore opens on one device (HC_MAX_STREAMS), which a
 * replay needs (replay_event.h's HS_REV_MAX_STREAMS). */
#define HS_MAX_STREAMS 256

struct hs_options {
	const char *backend; /* "sim" (default), "hip", "auto" */
	const char *profile; /* sim device profile file */
	uint64_t seed;
	uint64_t capacity;
	bool data_mode;
	/* The device's pool layout: installed on stream 0, which
	 * hs_driver_open opens for it, and so every stream's. */
	hc_pool_layout layout;
	bool json;
	const char *svg;
	/* What the report records of how it was made (hs_report.opt): the
	 * --pools value (NULL: default), the trace replayed (NULL: a built-in
	 * workload, whose --steps and --streams follow), the device policy
	 * (0 fields: the library's defaults). */
	const char *pools;
	const char *trace;
	uint64_t steps;
	uint32_t streams;
	hc_policy policy;
	/* Workload kernels: loaded from this image when set (NULL: the
	 * built-in kernels, which every backend has), and launched without a
	 * duration hint when model_kernels is set, so that the simulator
	 * times them with its profile's kernel model (kernel_default,
	 * kernel_per_mib) instead of the workload's made-up durations:
	 * hipsim validate, which runs the real kernels on the GPU. */
	const void *kernel_image;
	size_t kernel_image_size;
	bool model_kernels;
	bool op_times; /* open the device with hc_device_options.op_times */
	uint64_t min_alignment; /* hc_device_options.min_alignment */
	/* Time every public call of the built-in workloads and the driver's
	 * memory sampling on the device clock (hs_call_begin/end): hipsim
	 * validate --call-times.  Two clock reads per call, so off for the
	 * figures the targets are judged on. */
	bool call_times;
};

/* The public calls the built-in workloads make, and the driver's memory
 * sampling after them, as --call-times counts them. */
enum hs_call {
	HS_CALL_ALLOC,
	HS_CALL_FREE,
	HS_CALL_WRITE,
	HS_CALL_READ,
	HS_CALL_LAUNCH,
	HS_CALL_SYNC,
	HS_CALL_SAMPLE,
	HS_CALL_KINDS
};
extern const char *const hs_call_names[HS_CALL_KINDS];

struct hs_call_time {
	uint64_t calls, ns;
};

/* --data: every byte the built-in workloads read back, in order, folded
 * into one 64-bit hash (hs_read_fold), so that two runs' results compare
 * in one figure: a GPU's against the simulator's in data mode. */
struct hs_read_check {
	uint64_t hash, reads, bytes;
};

/* What the driver last saw of one stream's device memory. */
struct hs_stream_use {
	uint64_t in_use, reserved, padding;
};

struct hs_driver {
	struct hs_options opt;
	hc_device dev;
	hc_stream streams[HS_MAX_STREAMS];
	uint32_t nstreams;

	uint64_t events;
	uint64_t failures;
	int64_t first_failing_event; /* -1: none */
	hc_status first_status;
	char first_message[1024];

	/* Device totals kept incrementally: the sum of use[] over the streams,
	 * updated by hs_sample() from the one stream that changed. */
	struct hs_stream_use use[HS_MAX_STREAMS];
	uint64_t in_use, reserved, padding;
	uint64_t peak_in_use, peak_reserved, padding_peak;
	/* hs_sample read the idle bytes and no library call came since (the
	 * replay engine clears it before each event): hs_sample_free's test. */
	bool idle_seen;
	uint64_t wall_start_ns;
	uint64_t clock_start_ns; /* the device clock just after it opened */

	struct hs_plot *plot; /* for --svg: memory over time, decimated */
	struct hs_call_time call[HS_CALL_KINDS]; /* opt.call_times */
	struct hs_read_check reads; /* opt.data_mode: hs_read_fold */
};

/* Events of a trace that begins mid-run (replay.c): how many, and the first
 * one's position (its event index; its line in a text trace, else 0). */
struct hs_midrun {
	uint64_t count;
	uint64_t first_event, first_line;
};

struct hs_report {
	const char *workload;
	uint64_t events, streams;
	uint64_t peak_in_use_bytes, peak_reserved_bytes, padding_bytes_peak;
	hc_device_stats stats;
	uint64_t failures;
	int64_t first_failing_event;
	char first_failure[1024];
	/* The run's time on the device clock, from just after the device
	 * opened to the report: the simulator's virtual clock, a prediction;
	 * a GPU backend's clock (hip: CLOCK_MONOTONIC), a measurement
	 * (measured is true).  replay_wall_ns is the host's wall clock over
	 * the same work, on either backend. */
	uint64_t device_ns;
	bool measured;
	uint64_t replay_wall_ns;
	double replay_events_per_s;
	char backend[16];
	char device[256];
	struct hs_call_time call[HS_CALL_KINDS]; /* opt.call_times, else zeros */
	/* Replay only.  Events of the trace are known to be missing (a read
	 * error, discarded or lost events): why, from the reader. */
	bool partial;
	char partial_reason[700];
	/* Frees of buffers the trace never allocated (or freed already) and
	 * allocations of buffers it holds: counted, not failures (--strict
	 * makes them failures). */
	struct hs_midrun unknown_frees, live_allocs;
	struct hs_read_check reads; /* opt.data_mode, else zeros */
	struct hs_options opt;   /* the options that produced the report */
	uint64_t capacity_bytes; /* the device's memory */
};

int hs_driver_open(struct hs_driver *d, const struct hs_options *opt);
/* Closes the streams and the device (unless hs_driver_finish did), frees the plot. */
void hs_driver_close(struct hs_driver *d);
/* Stream @i, opened on first use. */
hc_status hs_stream(struct hs_driver *d, uint32_t i, hc_stream *out);
/* The failure half of hs_event (out of line: the first failure's message). */
hc_status hs_event_failed(struct hs_driver *d, hc_status rc, const char *what);
/* Records the outcome of one event; returns @rc. */
static inline hc_status hs_event(struct hs_driver *d, hc_status rc, const char *what)
{
	if (__builtin_expect(rc != HC_OK, 0))
		return hs_event_failed(d, rc, what);
	d->events++;
	return rc;
}
/* hs_sample's --svg half: adds the sample to the plot (out of line). */
void hs_sample_record(struct hs_driver *d, uint32_t stream, const hc_memory_usage *u);
/*
 * Takes @u, stream @stream's (dense index) device memory usage after an
 * event that may change it, and @idle, the device's idle bytes then (NULL:
 * not read, the reserved peak not compared): updates the device totals by
 * the difference and the peaks.  An event changes only the memory of the
 * stream it ran on (a free: the buffer's origin stream), so the totals
 * equal hc_device_memory_usage() without locking every stream each time.
 */
static inline __attribute__((always_inline)) void hs_sample_use(struct hs_driver *d, uint32_t stream,
								  const hc_memory_usage *u,
								  const uint64_t *idle)
{
	struct hs_stream_use *su = &d->use[stream];

	d->in_use += u->bytes_in_use - su->in_use;
	d->reserved += u->bytes_reserved - su->reserved;
	d->padding += u->bytes_padding - su->padding;
	su->in_use = u->bytes_in_use;
	su->reserved = u->bytes_reserved;
	su->padding = u->bytes_padding;
	if (d->in_use > d->peak_in_use)
		d->peak_in_use = d->in_use;
	/* memory the device keeps idle between streams is reserved too */
	if (idle && d->reserved + *idle > d->peak_reserved)
		d->peak_reserved = d->reserved + *idle;
	d->idle_seen = true;
	if (d->padding > d->padding_peak)
		d->padding_peak = d->padding;
	if (d->opt.svg)
		hs_sample_record(d, stream, u);
}

/*
 * Samples memory after an event on stream @stream (dense index) that may
 * change it: reads that stream's usage (hc_memory_usage_get, one stream
 * lock) and, when @read_idle, the device's idle bytes, for hs_sample_use.
 * Inline: replay samples after nearly every event (its allocations and
 * frees read the same figures through hc_alloc_sampled and
 * hc_free_sampled, under the call's own lock).
 */
static inline __attribute__((always_inline)) void hs_sample_at(struct hs_driver *d, uint32_t stream,
								 bool read_idle)
{
	hc_memory_usage u;
	uint64_t idle = 0;

	if (stream >= d->nstreams ||
	    hc_memory_usage_get(d->streams[stream], HC_MEMORY_DEVICE, &u) != HC_OK) {
		d->idle_seen = false;
		return;
	}
	if (read_idle)
		(void)hc_device_idle_bytes(d->dev, &idle);
	hs_sample_use(d, stream, &u, read_idle ? &idle : NULL);
}

static inline void hs_sample(struct hs_driver *d, uint32_t stream)
{
	hs_sample_at(d, stream, true);
}

/*
 * hs_sample() after hc_free on @stream, where @seen is what idle_seen was
 * before the free (the free the only library call since the last sample).
 * Then the idle bytes need not be read: a free only gives memory back, so
 * the stream's reserved bytes fall or stay, and the device's idle storage
 * grows by at most what the stream released (hc_free allocates nothing,
 * and only the freeing stream's storage moves); reserved + idle cannot
 * pass the figure the last sample compared with the peak, and the peak
 * stays what hs_sample() would leave.  By induction this holds over a run
 * of frees.  One public call less per replayed free.
 */
static inline void hs_sample_free(struct hs_driver *d, uint32_t stream, bool seen)
{
	hs_sample_at(d, stream, !seen);
}
/* Device-clock time around one public call when opt.call_times is set:
 * t0 = hs_call_begin(d); call; hs_call_end(d, kind, t0). */
static inline uint64_t hs_call_begin(struct hs_driver *d)
{
	uint64_t t = 0;

	if (__builtin_expect(d->opt.call_times, 0))
		hc_device_now(d->dev, &t);
	return t;
}

static inline void hs_call_end(struct hs_driver *d, enum hs_call kind, uint64_t t0)
{
	uint64_t t = t0;

	if (__builtin_expect(!d->opt.call_times, 1))
		return;
	hc_device_now(d->dev, &t);
	d->call[kind].calls++;
	d->call[kind].ns += t > t0 ? t - t0 : 0;
}

/*
 * hs_read_fold - fold the @n bytes a read brought back at @p into
 * @d->reads: 64-bit words through a multiply-xorshift chain, then the
 * length, so that bytes, their order and where one read ends all count.
 * Not a cryptographic hash: it tells two runs' bytes apart, at several
 * GB/s, which --data runs pay inside their figures.
 */
void hs_read_fold(struct hs_driver *d, const void *p, uint64_t n);

/* The dense index of stream handle @s, or HS_MAX_STREAMS when not ours. */
uint32_t hs_stream_index(const struct hs_driver *d, hc_stream s);
void hs_driver_report(struct hs_driver *d, const char *workload, struct hs_report *r);
/*
 * After hs_driver_report(): closes the streams and the device, which frees
 * whatever the run left live, and counts that close in @r's wall time and
 * rate (closing 256k live allocations is work a replay does).  The plot
 * stays for --svg; hs_driver_close() frees it afterwards.
 */
void hs_driver_finish(struct hs_driver *d, struct hs_report *r);

void hs_report_text(FILE *out, const struct hs_report *r);
int hs_report_json(FILE *out, const struct hs_report *r);
/* The --svg plot of @d's samples to @f (svg.c draws it).  Return: 0, or -1
 * when a write failed or the samples were incomplete (out of memory), with
 * a message. */
int hs_report_svg(FILE *f, const struct hs_driver *d, const struct hs_report *r);
/* The options of @r in one line ("pools default, seed 1, ..."). */
void hs_report_options(const struct hs_report *r, char *buf, size_t len);

uint64_t hs_wall_ns(void);
/* A non-negative number, decimal or 0x hex, with an optional K/M/G suffix
 * (powers of 1024); 0 on success, -1 when malformed or out of range
 * (options.c; hs_opt_number() says which, for an option's value). */
int hs_parse_size(const char *s, uint64_t *out);

#endif /* HIPSIM_DRIVER_H */
