/*
 * calibrate.c - `hipsim calibrate`: measure a backend, write a sim profile.
 *
 * Microbenchmarks run through one backend's HAL ops table directly
 * (hc_hal_find("hip") or ("sim"): libhipcore.so's private interface,
 * include/hipcore/private.h), timed with the backend's own clock (ops->ctl NOW_NS:
 * CLOCK_MONOTONIC on hip, virtual time on sim).  Every figure is the median
 * of --repeats samples.  Each measurement inverts the simulator's cost model
 * (sim/sim_copy.c, sim_memory.c, sim_stream.c, sim_kernels.c,
 * sim_graph.c), so calibrating the simulator gives back the profile it ran
 * with, within rounding (tests/check_calibrate.c):
 *
 *   copy_call, launch_call    host time of one queued call, idle stream
 *   stream_sync, event_*      host time of one call on idle work
 *   copies                    t(copy + stream_sync) over sizes, fitted as
 *                             icpt + size / bw by least squares weighted by
 *                             1/t^2 (relative error); latency = icpt -
 *                             copy_call (- stream_sync for pageable copies,
 *                             which block the host inside the call)
 *   allocations               t(alloc), t(free) over sizes, fitted as
 *                             base + per_mib * max(0, size - 1 MiB) / MiB
 *   virtual memory            va_reserve, va_release: host time of one call;
 *                             pmem_map, pmem_unmap over sizes fitted as the
 *                             allocations are; the granule from device_props
 *   launch_overhead           t(launch + stream_sync) - launch_call - hint
 *                             for an empty kernel (hint 1 ns: the simulator
 *                             uses it, a GPU ignores it)
 *   graphs                    capture_begin, per-op capture cost, capture_end
 *                             over node counts fitted as instantiate +
 *                             node * n, graph_launch of a one-node graph
 *
 *   kernel_default,           the built-in add's device occupancy over sizes,
 *   kernel_per_mib            fitted as launch_overhead + kernel_default +
 *                             per_mib * MiB read and written
 *
 * jitter_ppm is not measurable here: it comes from the base profile (the
 * built-in one).  The device's name, memory, alignment and
 * integrated flag come from device_props.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "hal/hal.h"
#include "sim/sim.h"
#include "tools/hipsim/calibrate.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/options.h"
#include "tools/hipsim/output.h"

/* Empty sm_90 kernels for the HIP backend on NVIDIA (PTX, JIT-compiled by
 * the driver at module_load): "empty" for calibration, and no-op stand-ins
 * for the simulator's built-in kernels (fill, copy, add) so that `hipsim
 * validate` can run the built-in workloads on a GPU.  They declare no
 * parameters: cuLaunchKernel reads none of the ones hc_launch passes. */
const char hs_noop_ptx[] = ".version 8.0\n"
			   ".target sm_90\n"
			   ".address_size 64\n"
			   "\n"
			   ".visible .entry empty()\n{\n\tret;\n}\n"
			   ".visible .entry fill()\n{\n\tret;\n}\n"
			   ".visible .entry copy()\n{\n\tret;\n}\n"
			   ".visible .entry add()\n{\n\tret;\n}\n";
const size_t hs_noop_ptx_size = sizeof(hs_noop_ptx);

#define MIB (1024ull * 1024ull)
#define MAX_SIZES 16

struct cal {
	const struct hc_hal_ops *ops;
	hc_hal_dev *dev;
	hc_hal_stream *s, *s2;
	unsigned reps;
	bool quick, tty;
	unsigned phase, nphases;
	uint64_t *samples;
	hc_hal_dptr d0, d1;
	void *pinned, *pageable;
	unsigned char *evict_dst; /* COLD_EVICT_BYTES, for evict() */
	bool cold;                /* time_call evicts the caches before the call */
	uint64_t max_copy;
	hc_hal_module *mod;
	hc_hal_function *fn;
	hc_status err;
	char errmsg[1024];
	char no_kernel[1024]; /* why launches were not measured, "" when they were */
	bool no_vmm;          /* the device has no virtual memory: its keys not measured */
	unsigned pass, passes; /* which of how many passes (progress only) */
};

static uint64_t cal_now(struct cal *c)
{
	uint64_t t = 0;

	c->ops->ctl(c->dev, HC_HAL_CTL_NOW_NS, &t);
	return t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

/* Remembers the first failure; returns true when @st is a failure. */
static bool cal_fail(struct cal *c, hc_status st, const char *what)
{
	hc_error_info e;

	if (st == HC_OK)
		return false;
	if (c->err == HC_OK) {
		hc_last_error(&e);
		c->err = st;
		snprintf(c->errmsg, sizeof(c->errmsg), "%s: %s: %s", what, hc_status_str(st),
			 e.message);
	}
	return true;
}

static void progress(struct cal *c, const char *what)
{
	char pass[32] = "";

	c->phase++;
	if (c->passes > 1)
		snprintf(pass, sizeof(pass), "pass %u/%u ", c->pass + 1, c->passes);
	if (c->tty)
		fprintf(stderr, "\r\033[K%s[%u/%u] %s", pass, c->phase, c->nphases, what);
	else
		fprintf(stderr, "hipsim calibrate: %s[%u/%u] %s\n", pass, c->phase, c->nphases, what);
	fflush(stderr);
}

/*
 * Least squares y = a + b x with weights w.  Return: 0, or -1 when the
 * points do not determine a line.
 */
static int fit_line(const double *x, const double *y, const double *w, unsigned n, double *a,
		    double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det;

	for (unsigned i = 0; i < n; i++) {
		sw += w[i];
		sx += w[i] * x[i];
		sy += w[i] * y[i];
		sxx += w[i] * x[i] * x[i];
		sxy += w[i] * x[i] * y[i];
	}
	det = sw * sxx - sx * sx;
	if (n < 2 || det == 0.0)
		return -1;
	*b = (sw * sxy - sx * sy) / det;
	*a = (sy - *b * sx) / sw;
	return 0;
}

static uint64_t ns_round(double v)
{
	return v <= 0.0 ? 0 : (uint64_t)llround(v);
}

/* --- single calls -------------------------------------------------------- */

enum call_kind {
	CALL_COPY,
	CALL_STREAM_SYNC,
	CALL_EVENT_RECORD,
	CALL_EVENT_DESTROY,
	CALL_EVENT_QUERY,
	CALL_EVENT_WAIT,
	CALL_EVENT_SYNC,
	CALL_STREAM_CREATE,
	CALL_STREAM_DESTROY,
	CALL_LAUNCH,
	CALL_LAUNCH_SYNC,
	CALL_CAPTURE_BEGIN,
	CALL_CAPTURE_NODE,
	CALL_GRAPH_LAUNCH,
};

static struct hc_hal_launch empty_launch(void)
{
	return (struct hc_hal_launch){ .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
				       .duration_hint_ns = 1 };
}

/*
 * Calls after host copies (sim/sim_cold.c has the model and the probe's
 * figures): evict() copies COLD_EVICT_BYTES through the backend's
 * HOST_COPY, as the library stages a write, which pushes the driver's code
 * and data out of the core's private caches (and on the simulator counts
 * as host-copied bytes).  A call timed right after it is cold; its cold_
 * figure is what it costs more than timed alone, and host_cold_bytes the
 * copy it was measured after (the simulator gives smaller copies a share
 * of it), written only when some call showed a cold cost.
 */
#define COLD_EVICT_BYTES (8 * MIB)

static void evict_run(void *p)
{
	struct cal *c = p;

	memcpy(c->evict_dst, c->pageable, COLD_EVICT_BYTES);
}

static void evict(struct cal *c)
{
	struct hc_hal_host_copy h = { COLD_EVICT_BYTES, false, evict_run, c, false };

	cal_fail(c, c->ops->ctl(c->dev, HC_HAL_CTL_HOST_COPY, &h), "host copy (evicting caches)");
}

/* The median host time of one call of @k on idle work. */
static double time_call(struct cal *c, enum call_kind k)
{
	const struct hc_hal_ops *o = c->ops;
	struct hc_hal_launch l = empty_launch();
	hc_hal_event *e = NULL;
	hc_hal_stream *ns = NULL;
	hc_hal_graph *g = NULL;
	uint64_t t0, t1;
	hc_status st = HC_OK;
	bool done;

	for (unsigned r = 0; r < c->reps && c->err == HC_OK; r++) {
		/* set-up, untimed */
		if (k == CALL_EVENT_QUERY || k == CALL_EVENT_WAIT || k == CALL_EVENT_SYNC ||
		    k == CALL_EVENT_DESTROY) {
			if (cal_fail(c, o->event_record(c->dev, c->s, &e), "event_record"))
				break;
			cal_fail(c, o->event_sync(c->dev, e), "event_sync");
		}
		if (k == CALL_STREAM_DESTROY)
			cal_fail(c, o->stream_create(c->dev, &ns), "stream_create");
		if (k == CALL_CAPTURE_NODE || k == CALL_GRAPH_LAUNCH)
			cal_fail(c, o->capture_begin(c->dev, c->s), "capture_begin");
		if (k == CALL_GRAPH_LAUNCH && c->err == HC_OK) {
			cal_fail(c, o->launch(c->dev, c->s, c->fn, &l), "launch (capturing)");
			cal_fail(c, o->capture_end(c->dev, c->s, &g), "capture_end");
		}
		if (c->err != HC_OK)
			break;
		if (c->cold)
			evict(c);
		t0 = cal_now(c);
		switch (k) {
		case CALL_COPY:
			st = o->copy_h2d(c->dev, c->s, c->d0, c->pinned, 4096, true);
			break;
		case CALL_STREAM_SYNC:
			st = o->stream_sync(c->dev, c->s);
			break;
		case CALL_EVENT_RECORD:
			st = o->event_record(c->dev, c->s, &e);
			break;
		case CALL_EVENT_DESTROY:
			o->event_destroy(c->dev, e);
			e = NULL;
			break;
		case CALL_EVENT_QUERY:
			st = o->event_query(c->dev, e, &done);
			break;
		case CALL_EVENT_WAIT:
			st = o->event_wait(c->dev, c->s2, e);
			break;
		case CALL_EVENT_SYNC:
			st = o->event_sync(c->dev, e);
			break;
		case CALL_STREAM_CREATE:
			st = o->stream_create(c->dev, &ns);
			break;
		case CALL_STREAM_DESTROY:
			st = o->stream_destroy(c->dev, ns);
			ns = NULL;
			break;
		case CALL_LAUNCH:
			st = o->launch(c->dev, c->s, c->fn, &l);
			break;
		case CALL_LAUNCH_SYNC:
			st = o->launch(c->dev, c->s, c->fn, &l);
			if (st == HC_OK)
				st = o->stream_sync(c->dev, c->s);
			break;
		case CALL_CAPTURE_BEGIN:
			st = o->capture_begin(c->dev, c->s);
			break;
		case CALL_CAPTURE_NODE:
			st = o->launch(c->dev, c->s, c->fn, &l);
			break;
		case CALL_GRAPH_LAUNCH:
			st = o->graph_launch(c->dev, c->s, g);
			break;
		}
		t1 = cal_now(c);
		c->samples[r] = t1 - t0;
		cal_fail(c, st, "timed call");
		/* tear-down, untimed */
		if (k == CALL_CAPTURE_BEGIN && st == HC_OK) /* no empty graphs */
			cal_fail(c, o->launch(c->dev, c->s, c->fn, &l), "launch (capturing)");
		if ((k == CALL_CAPTURE_BEGIN || k == CALL_CAPTURE_NODE) && st == HC_OK) {
			hc_hal_graph *tmp = NULL;
			if (!cal_fail(c, o->capture_end(c->dev, c->s, &tmp), "capture_end"))
				o->graph_destroy(c->dev, tmp);
		}
		if (e) {
			o->event_destroy(c->dev, e);
			e = NULL;
		}
		if (ns) {
			cal_fail(c, o->stream_destroy(c->dev, ns), "stream_destroy");
			ns = NULL;
		}
		cal_fail(c, o->stream_sync(c->dev, c->s), "stream_sync");
		cal_fail(c, o->stream_sync(c->dev, c->s2), "stream_sync");
		if (g) {
			o->graph_destroy(c->dev, g);
			g = NULL;
		}
	}
	return c->err == HC_OK ? median(c->samples, c->reps) : 0.0;
}

/* What call @k costs right after a host copy more than @hot (ns). */
static uint64_t cold_extra(struct cal *c, enum call_kind k, uint64_t hot)
{
	double t;

	c->cold = true;
	t = time_call(c, k);
	c->cold = false;
	return ns_round(t - (double)hot);
}

/* The same for mem_alloc and mem_free of 2 MiB, each freed right after;
 * the hot figures timed the same way in the same function. */
static void cold_alloc_extra(struct cal *c, uint64_t *alloc_extra, uint64_t *free_extra)
{
	uint64_t *fs = c->samples + c->reps;
	double hot_a = 0, hot_f = 0;

	for (int cold = 0; cold < 2 && c->err == HC_OK; cold++) {
		for (unsigned r = 0; r < c->reps && c->err == HC_OK; r++) {
			hc_hal_dptr d = 0;
			uint64_t t0;

			if (cold)
				evict(c);
			t0 = cal_now(c);
			if (cal_fail(c, c->ops->mem_alloc(c->dev, 2 * MIB, &d), "mem_alloc"))
				break;
			c->samples[r] = cal_now(c) - t0;
			if (cold)
				evict(c);
			t0 = cal_now(c);
			cal_fail(c, c->ops->mem_free(c->dev, d), "mem_free");
			fs[r] = cal_now(c) - t0;
		}
		if (c->err != HC_OK)
			return;
		if (!cold) {
			hot_a = median(c->samples, c->reps);
			hot_f = median(fs, c->reps);
		} else {
			*alloc_extra = ns_round(median(c->samples, c->reps) - hot_a);
			*free_extra = ns_round(median(fs, c->reps) - hot_f);
		}
	}
}

/* --- copies -------------------------------------------------------------- */

enum copy_kind { H2D_PINNED, H2D_PAGEABLE, D2H_PINNED, D2H_PAGEABLE, D2D, N_COPY };

static const char *const copy_name[N_COPY] = { "H2D pinned", "H2D pageable", "D2H pinned",
					       "D2H pageable", "D2D" };

static hc_status do_copy(struct cal *c, enum copy_kind k, uint64_t size)
{
	const struct hc_hal_ops *o = c->ops;

	switch (k) {
	case H2D_PINNED:
		return o->copy_h2d(c->dev, c->s, c->d0, c->pinned, size, true);
	case H2D_PAGEABLE:
		return o->copy_h2d(c->dev, c->s, c->d0, c->pageable, size, false);
	case D2H_PINNED:
		return o->copy_d2h(c->dev, c->s, c->pinned, c->d0, size, true);
	case D2H_PAGEABLE:
		return o->copy_d2h(c->dev, c->s, c->pageable, c->d0, size, false);
	default:
		return o->copy_d2d(c->dev, c->s, c->d1, c->d0, size);
	}
}

/* Fits @k's copies: *icpt ns + size / *bw. */
static void fit_copy(struct cal *c, enum copy_kind k, double *icpt, uint64_t *bw)
{
	double x[MAX_SIZES], y[MAX_SIZES], w[MAX_SIZES], a = 0, b = 0;
	unsigned n = 0;

	if (cal_fail(c, do_copy(c, k, 4096), "warm-up copy") ||
	    cal_fail(c, c->ops->stream_sync(c->dev, c->s), "stream_sync"))
		return;
	for (uint64_t size = 4096; size <= c->max_copy && n < MAX_SIZES; size *= 4, n++) {
		for (unsigned r = 0; r < c->reps && c->err == HC_OK; r++) {
			uint64_t t0 = cal_now(c);
			if (cal_fail(c, do_copy(c, k, size), copy_name[k]) ||
			    cal_fail(c, c->ops->stream_sync(c->dev, c->s), "stream_sync"))
				return;
			c->samples[r] = cal_now(c) - t0;
		}
		x[n] = (double)size;
		y[n] = median(c->samples, c->reps);
		w[n] = y[n] > 0 ? 1.0 / (y[n] * y[n]) : 1.0;
	}
	if (fit_line(x, y, w, n, &a, &b) != 0 || b <= 0.0) {
		cal_fail(c, HC_ERR_DEVICE, "fit");
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "%s copies: time does not grow with size; no bandwidth to fit", copy_name[k]);
		return;
	}
	*icpt = a;
	*bw = (uint64_t)llround(1e9 / b);
}

/* --- allocations --------------------------------------------------------- */

#define ALLOC_ROUNDS 3

/*
 * An allocation and its free (or a map and its unmap), timed over the
 * same @n sizes @x (MiB above the first): each fitted as base + per-MiB
 * cost by least squares weighted by 1/y^2 (relative error, so the small
 * sizes count as much as the large).  A fit that fails leaves its
 * figures as they were.
 */
static void fit_make_free(const double *x, const double *ya, const double *yf, unsigned n,
			  uint64_t *make_base, uint64_t *make_mib, uint64_t *free_base,
			  uint64_t *free_mib)
{
	double wa[MAX_SIZES], wf[MAX_SIZES], a, b;

	for (unsigned i = 0; i < n; i++) {
		wa[i] = ya[i] > 0 ? 1.0 / (ya[i] * ya[i]) : 1.0;
		wf[i] = yf[i] > 0 ? 1.0 / (yf[i] * yf[i]) : 1.0;
	}
	if (fit_line(x, ya, wa, n, &a, &b) == 0) {
		*make_base = ns_round(a);
		*make_mib = ns_round(b);
	}
	if (fit_line(x, yf, wf, n, &a, &b) == 0) {
		*free_base = ns_round(a);
		*free_mib = ns_round(b);
	}
}

/* Fits alloc and free of device (@host false) or pinned memory over sizes
 * 1 MiB to @max: base + per_mib * max(0, size - 1 MiB) / MiB.  The samples of
 * one size are all kept live before any is freed: a pool grows by fresh
 * allocations, and an alloc right after a free of the same size gets the
 * pages just given back (on the H200, cudaHostAlloc of 64 MiB took ~0.6 of
 * the time that way, and the workloads' allocations were ~1.7x the fit). */
static void fit_alloc(struct cal *c, bool host, uint64_t max, uint64_t *alloc_base,
		      uint64_t *alloc_mib, uint64_t *free_base, uint64_t *free_mib)
{
	double x[MAX_SIZES], ya[MAX_SIZES] = { 0 }, yf[MAX_SIZES] = { 0 };
	uint64_t *fs = c->samples + c->reps;
	unsigned n = 0;
	hc_hal_dptr *dp = calloc(c->reps, sizeof(*dp));
	void **hp = calloc(c->reps, sizeof(*hp));

	if (!dp || !hp) {
		cal_fail(c, HC_ERR_OOM, "calloc");
		goto out;
	}
	/* From 1 MiB: the library asks the device for pages and exact-size
	 * allocations of 1 MiB and more only, and the runtimes serve small
	 * requests from memory they already hold (cudaMalloc of 4 KiB kept
	 * live costs ~1.5 us on the H200, of 1 MiB ~50 us), which a line
	 * through both would misfit.  ALLOC_ROUNDS passes over the sizes, each
	 * size's figure the mean of the passes' medians: the H200 host's
	 * cudaHostAlloc switches between two speeds (64 MiB: ~22.5 and ~30.5
	 * ms, for a second or more at a time), and one pass lands in one.
	 * Pinned memory from 2 MiB: the HIP backend maps and registers blocks
	 * from there (hal/hip/hip_pinned.c), several times cheaper than the
	 * runtime's own pinned allocation below it, and the library's pinned
	 * pool pages are of that kind. */
	for (unsigned round = 0; round < ALLOC_ROUNDS; round++)
	for (uint64_t size = host ? 2 * MIB : MIB, i = 0; size <= max && i < MAX_SIZES;
	     size *= 4, i++) {
		unsigned live = 0;

		for (unsigned r = 0; r < c->reps; r++, live++) {
			uint64_t t0 = cal_now(c);
			hc_status st = host ? c->ops->host_alloc(c->dev, size, &hp[r])
					    : c->ops->mem_alloc(c->dev, size, &dp[r]);

			c->samples[r] = cal_now(c) - t0;
			if (cal_fail(c, st, host ? "host_alloc" : "mem_alloc"))
				break;
		}
		for (unsigned r = 0; r < live; r++) {
			uint64_t t0 = cal_now(c);
			hc_status st = host ? c->ops->host_free(c->dev, hp[r]) : c->ops->mem_free(c->dev, dp[r]);

			fs[r] = cal_now(c) - t0;
			cal_fail(c, st, host ? "host_free" : "mem_free");
		}
		if (c->err != HC_OK)
			goto out;
		x[i] = size > MIB ? (double)(size - MIB) / (double)MIB : 0.0;
		ya[i] += median(c->samples, c->reps) / ALLOC_ROUNDS;
		yf[i] += median(fs, c->reps) / ALLOC_ROUNDS;
		n = (unsigned)i + 1;
	}
	fit_make_free(x, ya, yf, n, alloc_base, alloc_mib, free_base, free_mib);
out:
	free(dp);
	free(hp);
}

/* Device allocations below 1 MiB (dev_alloc_small, dev_free_small): the
 * runtimes carve them from chunks they already hold and map a new chunk
 * now and then, so the figure is the mean over SMALL_COUNT allocations of
 * SMALL_SIZE kept live (2 MiB in all, a chunk's worth on NVIDIA: the
 * occasional new chunk counts at its share), then their frees, averaged
 * over ALLOC_ROUNDS.  The workloads' exclusive pages and exact-size
 * layouts ask for thousands of these; the 1 MiB line above put ~40 us on
 * each where an H100 took ~4. */
#define SMALL_SIZE (32 * 1024)
#define SMALL_COUNT 64

static void fit_alloc_small(struct cal *c, uint64_t *alloc_ns, uint64_t *free_ns)
{
	hc_hal_dptr dp[SMALL_COUNT];
	double ya = 0, yf = 0;

	/* one untimed pair first: the first call after other kinds may run cold */
	if (cal_fail(c, c->ops->mem_alloc(c->dev, SMALL_SIZE, &dp[0]), "mem_alloc") ||
	    cal_fail(c, c->ops->mem_free(c->dev, dp[0]), "mem_free"))
		return;

	for (unsigned round = 0; round < ALLOC_ROUNDS; round++) {
		unsigned live = 0;
		uint64_t t0 = cal_now(c);

		for (; live < SMALL_COUNT; live++)
			if (cal_fail(c, c->ops->mem_alloc(c->dev, SMALL_SIZE, &dp[live]), "mem_alloc"))
				break;
		ya += (double)(cal_now(c) - t0) / SMALL_COUNT / ALLOC_ROUNDS;
		t0 = cal_now(c);
		for (unsigned r = 0; r < live; r++)
			cal_fail(c, c->ops->mem_free(c->dev, dp[r]), "mem_free");
		yf += (double)(cal_now(c) - t0) / SMALL_COUNT / ALLOC_ROUNDS;
		if (c->err != HC_OK)
			return;
	}
	*alloc_ns = ns_round(ya);
	*free_ns = ns_round(yf);
}

/* --- virtual memory ------------------------------------------------------ */

/*
 * Reservations and mappings (sim/sim_vmm.c's model).  va_reserve and
 * va_release: one reservation of the size the maps below use, made and
 * given back --repeats times.  pmem_map and pmem_unmap: sizes of one granule
 * ×4 up to @max (at least two sizes), the --repeats mappings of a size made
 * at once, each in its own slot of one reservation (a pool grows by fresh
 * memory, as fit_alloc's comment says), then unmapped one by one; fitted as
 * fit_alloc fits allocations, base + per_mib * max(0, size - 1 MiB) / MiB,
 * over ALLOC_ROUNDS passes.
 */
static void fit_vmm(struct cal *c, uint64_t gran, uint64_t max, struct hc_sim_profile *p)
{
	const struct hc_hal_ops *o = c->ops;
	double x[MAX_SIZES], ya[MAX_SIZES] = { 0 }, yf[MAX_SIZES] = { 0 };
	uint64_t *fs = c->samples + c->reps, slot = gran, total, r = 0;
	unsigned n = 0;

	if (max < 4 * gran)
		max = 4 * gran;
	while (slot * 4 <= max && n + 1 < MAX_SIZES)
		slot *= 4, n++;
	n = 0;
	total = slot * c->reps;
	for (unsigned i = 0; i < c->reps && c->err == HC_OK; i++) {
		uint64_t t0 = cal_now(c);

		if (cal_fail(c, o->va_reserve(c->dev, total, &r), "va_reserve"))
			return;
		c->samples[i] = cal_now(c) - t0;
		t0 = cal_now(c);
		cal_fail(c, o->va_release(c->dev, r, total), "va_release");
		fs[i] = cal_now(c) - t0;
	}
	if (c->err != HC_OK)
		return;
	p->va_reserve_ns = ns_round(median(c->samples, c->reps));
	p->va_release_ns = ns_round(median(fs, c->reps));
	if (cal_fail(c, o->va_reserve(c->dev, total, &r), "va_reserve"))
		return;
	for (unsigned round = 0; round < ALLOC_ROUNDS; round++)
	for (uint64_t size = gran, i = 0; size <= slot && i < MAX_SIZES; size *= 4, i++) {
		unsigned live = 0;

		for (unsigned k = 0; k < c->reps; k++, live++) {
			uint64_t t0 = cal_now(c);
			hc_status st = o->pmem_map(c->dev, r + k * slot, size);

			c->samples[k] = cal_now(c) - t0;
			if (cal_fail(c, st, "pmem_map"))
				break;
		}
		for (unsigned k = 0; k < live; k++) {
			uint64_t t0 = cal_now(c);
			hc_status st = o->pmem_unmap(c->dev, r + k * slot, size);

			fs[k] = cal_now(c) - t0;
			cal_fail(c, st, "pmem_unmap");
		}
		if (c->err != HC_OK)
			goto out_release;
		x[i] = size > MIB ? (double)(size - MIB) / (double)MIB : 0.0;
		ya[i] += median(c->samples, c->reps) / ALLOC_ROUNDS;
		yf[i] += median(fs, c->reps) / ALLOC_ROUNDS;
		n = (unsigned)i + 1;
	}
	fit_make_free(x, ya, yf, n, &p->pmem_map_ns, &p->pmem_map_ns_per_mib, &p->pmem_unmap_ns,
		      &p->pmem_unmap_ns_per_mib);
out_release:
	cal_fail(c, o->va_release(c->dev, r, total), "va_release");
}

/* --- the library's host memcpy ------------------------------------------- */

/*
 * The library's own staging copies (pageable -> pinned for a write, pinned
 * -> the caller's memory for a read) are measured through the library: a
 * device opened with op_times on the same backend, hc_write + hc_sync +
 * hc_read of one size at a time, and the host time of the op host_copy per
 * call.  That is the copy as a service sees it: streaming stores, copy
 * workers found spinning or woken from sleep, the hand-off of every piece.
 * The previous measurement timed the copy routine on threads of its own and
 * missed the hand-offs: on the H200 machine, the inference workload's
 * copies (16 KiB - 2 MiB) took 84.5 ms where 31.0 ms were predicted.
 *
 * Four sizes per path, fitted as call + size / bw by least squares: one
 * thread below 512 KiB (64 - 448 KiB: host_copy_bw; host_copy_call from a
 * 256-byte copy, HOST_COPY_TINY), split
 * over the copy workers from 512 KiB (1 - 4 MiB; larger writes go through
 * the pipeline in chunks of that order: host_copy_split_call,
 * host_copy_max_bw).  Split copies are timed warm, back to back while the
 * workers spin, and cold, after an idle gap that put them to sleep; the
 * mean difference is host_copy_split_wake.  Timed as one mix, the split
 * path's fixed cost moved from 17 to 29 us between two calibrations on
 * the H200 machine, as the workers happened to be awake or not.
 */
#define HOST_COPY_SIZES 4
/* The one-thread path's fixed cost is the time of a copy this small less
 * its bytes at the fitted rate, not the fit's intercept: on an H100 machine
 * the intercept (665 ns) charged the training workload's 2472 copies of a
 * few hundred bytes 1.68 ms where they took 0.09 ms. */
#define HOST_COPY_TINY 256
static const uint64_t host_copy_len[2][HOST_COPY_SIZES] = {
	{ 64 * 1024, 192 * 1024, 320 * 1024, 448 * 1024 },
	{ 1 * MIB, 2 * MIB, 3 * MIB, 4 * MIB },
};

/* The ops that copy between host buffers, summed: their totals so far. */
static const char *const host_copy_ops[] = { "host_copy", "host_copy_split" };

static bool is_host_copy_op(const char *op)
{
	for (size_t k = 0; k < sizeof(host_copy_ops) / sizeof(host_copy_ops[0]); k++)
		if (strcmp(op, host_copy_ops[k]) == 0)
			return true;
	return false;
}

static hc_status lib_copy_totals(hc_device d, uint64_t *calls, uint64_t *ns)
{
	hc_op_time t[64];
	size_t n = 0;
	bool seen = false;
	hc_status st = hc_device_op_times(d, t, 64, &n);

	*calls = *ns = 0;
	for (size_t i = 0; st == HC_OK && i < n && i < 64; i++)
		if (is_host_copy_op(t[i].op)) {
			*calls += t[i].calls;
			*ns += t[i].host_ns;
			seen = true;
		}
	return st == HC_OK && !seen ? HC_ERR_UNSUPPORTED : st;
}

/* How copies follow each other while one is measured. */
enum copy_mode {
	COPY_ONE,  /* write + sync + read: one thread, no workers involved */
	COPY_WARM, /* writes back to back: the copy workers are still spinning */
	COPY_COLD, /* a write after an idle gap: the workers have gone to sleep */
};

/*
 * What the measurements through the library use: a device of the measured
 * backend opened with op_times, a stream, "add" over three 4 KiB buffers
 * (two read, one written: the built-in workloads' launch shape), and for
 * fit_host_copy a buffer of 4 MiB to copy into and out of.
 */
struct lib_rig {
	hc_device d;
	hc_stream s;
	hc_buffer b, kb[3];
	hc_binding bind[3];
	hc_kernel k;
	const unsigned char *src;
	unsigned char *dst;
};

/* Opens @g (@copy_bytes 0: no copy buffer); false with the error in @c,
 * whatever was opened closed again. */
static void rig_close(struct lib_rig *g);

static bool rig_open(struct cal *c, const struct hs_calibrate_args *args, bool sim,
		     uint64_t copy_bytes, struct lib_rig *g, const char *what)
{
	hc_device_options o;
	hc_status st;

	memset(g, 0, sizeof(*g));
	hc_device_options_init(&o);
	o.ordinal = args->ordinal;
	o.profile = args->sim_profile;
	o.seed = 1;
	o.op_times = true;
	st = hc_device_open(args->backend, &o, &g->d);
	if (cal_fail(c, st, what))
		return false;
	st = hc_stream_open(g->d, &g->s);
	if (st == HC_OK && copy_bytes)
		st = hc_alloc(g->s, copy_bytes, &g->b);
	for (int i = 0; i < 3 && st == HC_OK; i++) {
		st = hc_alloc(g->s, 4096, &g->kb[i]);
		g->bind[i] = (hc_binding){ g->kb[i], 0, 4096, i < 2 ? HC_ACCESS_READ : HC_ACCESS_WRITE };
	}
	if (st == HC_OK)
		st = hc_kernel_load(g->d, sim ? NULL : hs_noop_ptx, sim ? 0 : hs_noop_ptx_size, "add", &g->k);
	if (cal_fail(c, st, what)) {
		rig_close(g);
		return false;
	}
	return true;
}

static void rig_close(struct lib_rig *g)
{
	for (int i = 0; i < 3; i++)
		if (g->kb[i].id)
			hc_free(g->kb[i]);
	if (g->b.id)
		hc_free(g->b);
	if (g->s.id)
		hc_stream_close(g->s);
	if (g->d.id)
		hc_device_close(g->d);
}

/* One launch of "add" over the rig's three buffers. */
static hc_launch_desc rig_launch(const struct lib_rig *g)
{
	return (hc_launch_desc){ .kernel = g->k, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
				 .bindings = g->bind, .n_bindings = 3 };
}

/* An idle gap well past the workers' spin window (HC_PIPE_SPIN_NS, 50 us)
 * on either clock: a kernel the simulator runs for 300 us, its sync, then
 * 300 us of real sleep for a GPU, where the no-op kernel is short. */
static hc_status idle_gap(struct lib_rig *g)
{
	hc_launch_desc l = rig_launch(g);
	struct timespec ts = { 0, 300000 };
	hc_status st;

	l.duration_hint_ns = 300000;
	st = hc_launch(g->s, &l);
	if (st == HC_OK)
		st = hc_sync(g->s);
	nanosleep(&ts, NULL);
	return st;
}

/* Median host time of one library host copy of @len bytes (ns) in @mode,
 * or < 0 with the error in @c. */
static double lib_copy_ns(struct cal *c, struct lib_rig *g, uint64_t len, enum copy_mode mode)
{
	enum { WARM_RUN = 4 };

	for (unsigned r = 0; r < c->reps + 2; r++) { /* two warm-ups */
		uint64_t c0 = 0, n0 = 0, c1 = 0, n1 = 0;
		hc_status st = HC_OK;

		if (mode == COPY_WARM) /* the first of a run finds the workers asleep */
			st = hc_write(g->s, g->b, 0, g->src, len, HC_ALLOC_NATIVE, NULL, NULL);
		else if (mode == COPY_COLD)
			st = idle_gap(g);
		if (st == HC_OK)
			st = lib_copy_totals(g->d, &c0, &n0);
		for (int i = 0; st == HC_OK && i < (mode == COPY_WARM ? WARM_RUN : 1); i++)
			st = hc_write(g->s, g->b, 0, g->src, len, HC_ALLOC_NATIVE, NULL, NULL);
		if (st == HC_OK && mode == COPY_ONE && (st = hc_sync(g->s)) == HC_OK)
			st = hc_read(g->s, g->b, 0, g->dst, len, NULL);
		if (st == HC_OK)
			st = lib_copy_totals(g->d, &c1, &n1);
		if (st == HC_OK)
			st = hc_sync(g->s);
		if (cal_fail(c, st, "host copy through the library"))
			return -1;
		if (c1 <= c0) {
			cal_fail(c, HC_ERR_STATE, "host copy: the library staged no copy");
			return -1;
		}
		if (r >= 2)
			c->samples[r - 2] = (n1 - n0) / (c1 - c0);
	}
	return median(c->samples, c->reps);
}

/* call + len / bw over one path's sizes; a flat or falling fit (noise)
 * gives no fixed cost and the largest copy's rate. */
static void fit_copy_path(const uint64_t *len, const double *t, uint64_t *call, uint64_t *bw)
{
	double x[HOST_COPY_SIZES], w[HOST_COPY_SIZES], a, b;

	for (int i = 0; i < HOST_COPY_SIZES; i++) {
		x[i] = (double)len[i];
		w[i] = 1.0;
	}
	if (fit_line(x, t, w, HOST_COPY_SIZES, &a, &b) != 0 || b <= 0) {
		a = 0;
		b = t[HOST_COPY_SIZES - 1] / (double)len[HOST_COPY_SIZES - 1];
	}
	*bw = b > 0 ? (uint64_t)llround(1e9 / b) : 0;
	*call = a > 0 ? ns_round(a) : 0;
}

static void fit_host_copy(struct cal *c, const struct hs_calibrate_args *args, bool sim,
			  struct hc_sim_profile *p)
{
	struct lib_rig g;
	unsigned char *src = malloc(4 * MIB), *dst = malloc(4 * MIB);
	double one[HOST_COPY_SIZES], warm[HOST_COPY_SIZES], cold[HOST_COPY_SIZES], wake = 0;
	double tiny = 0;

	if (!src || !dst) {
		cal_fail(c, HC_ERR_OOM, "host copy: no host memory");
		goto out_mem;
	}
	memset(src, 0x5a, 4 * MIB);
	memset(dst, 0, 4 * MIB);
	if (!rig_open(c, args, sim, 4 * MIB, &g, "host copy: device, stream, buffers and kernel"))
		goto out_mem;
	g.src = src;
	g.dst = dst;
	for (int i = 0; i < HOST_COPY_SIZES && c->err == HC_OK; i++) {
		one[i] = lib_copy_ns(c, &g, host_copy_len[0][i], COPY_ONE);
		warm[i] = lib_copy_ns(c, &g, host_copy_len[1][i], COPY_WARM);
		cold[i] = lib_copy_ns(c, &g, host_copy_len[1][i], COPY_COLD);
		wake += (cold[i] > warm[i] ? cold[i] - warm[i] : 0) / HOST_COPY_SIZES;
	}
	if (c->err == HC_OK)
		tiny = lib_copy_ns(c, &g, HOST_COPY_TINY, COPY_ONE);
	if (c->err == HC_OK) {
		fit_copy_path(host_copy_len[0], one, &p->host_copy_call_ns, &p->host_copy_bw);
		if (p->host_copy_bw) {
			double call = tiny - (double)HOST_COPY_TINY * 1e9 / (double)p->host_copy_bw;

			p->host_copy_call_ns = call > 0 ? ns_round(call) : 0;
		}
		fit_copy_path(host_copy_len[1], warm, &p->host_copy_split_call_ns, &p->host_copy_max_bw);
		p->host_copy_split_wake_ns = ns_round(wake);
	}
	rig_close(&g);
out_mem:
	free(src);
	free(dst);
}

/*
 * The library's own host time per hc_launch and per hc_write, beyond its
 * backend calls, on a device opened with op_times, through the library:
 * (device clock - host time inside every backend call) per call.  Launches
 * are of "add" with three bindings and two info words (the built-in
 * workloads' shape); writes are of 64 KiB from pageable memory, staged
 * (their memcpy is the op host_copy, so it is not counted).  On the H200
 * machine the workloads leave 2-13 ms outside backend calls (the
 * workload's own code included); launch_lib measured 0.3-0.8 us of it per
 * launch; the writes' share was not modelled before write_lib.
 */
static uint64_t ops_total(hc_device d)
{
	hc_op_time t[64];
	size_t n = 0;
	uint64_t sum = 0;

	if (hc_device_op_times(d, t, 64, &n) != HC_OK)
		return 0;
	for (size_t i = 0; i < n && i < 64; i++)
		sum += t[i].host_ns;
	return sum;
}

#define LIB_WRITE_BYTES (64 * 1024)

static void fit_lib_work(struct cal *c, const struct hs_calibrate_args *args, bool sim,
			 enum hc_lib_work kind, uint64_t *out)
{
	enum { CALLS = 500 };
	uint64_t info[2] = { 4096, 0 };
	unsigned char *src = NULL;
	struct lib_rig g;
	hc_launch_desc l;
	hc_status st = HC_OK;
	const char *what = kind == HC_LIB_WORK_WRITE ? "write through the library" : "launch through the library";

	if (kind == HC_LIB_WORK_WRITE) {
		src = malloc(LIB_WRITE_BYTES);
		if (!src) {
			cal_fail(c, HC_ERR_OOM, "write through the library: no host memory");
			return;
		}
		memset(src, 0x3c, LIB_WRITE_BYTES);
	}
	if (!rig_open(c, args, sim, kind == HC_LIB_WORK_WRITE ? LIB_WRITE_BYTES : 0, &g,
		      "library work: device, stream, buffers and kernel")) {
		free(src);
		return;
	}
	l = rig_launch(&g);
	l.info = info;
	l.info_words = 2;
	for (unsigned r = 0; r < c->reps + 1 && st == HC_OK; r++) { /* one warm-up */
		uint64_t t0 = 0, t1 = 0, in0 = ops_total(g.d), in1;

		hc_device_now(g.d, &t0);
		for (int i = 0; i < CALLS && st == HC_OK; i++)
			st = kind == HC_LIB_WORK_WRITE
				     ? hc_write(g.s, g.b, 0, src, LIB_WRITE_BYTES, HC_ALLOC_NATIVE, NULL, NULL)
				     : hc_launch(g.s, &l);
		if (st == HC_OK)
			st = hc_sync(g.s);
		hc_device_now(g.d, &t1);
		in1 = ops_total(g.d);
		if (r > 0)
			c->samples[r - 1] = t1 - t0 > in1 - in0 ? (double)(t1 - t0 - (in1 - in0)) / CALLS : 0;
	}
	if (!cal_fail(c, st, what))
		*out = ns_round(median(c->samples, c->reps));
	rig_close(&g);
	free(src);
}

/*
 * A kernel's device occupancy: empty kernels queued while the stream is
 * still busy with device-to-device copies (about 2 ms of them), so none
 * waits for the host or pays the launch latency; the slope of t(copies +
 * N kernels + stream_sync) between N = 16 and N = 128.  Timing one launch
 * and its sync (launch_overhead before this split) holds the latency too,
 * and charged it to every kernel: back to back, 7200 empty kernels of the
 * training workload kept the simulated GPU busy 4.8 us each where the
 * H200 kept up with the host's 3.6 us launches.
 */
static double kernel_occupancy(struct cal *c, uint64_t d2d_bw)
{
	static const unsigned n[2] = { 16, 128 };
	struct hc_hal_launch l = empty_launch();
	double one = d2d_bw ? (double)c->max_copy * 1e9 / (double)d2d_bw : 1e5;
	unsigned copies = one > 0 ? (unsigned)(2e6 / one) + 1 : 1;
	double t[2];

	if (copies > 256)
		copies = 256;
	for (int i = 0; i < 2; i++) {
		for (unsigned r = 0; r < c->reps; r++) {
			uint64_t t0 = cal_now(c);

			for (unsigned k = 0; k < copies; k++)
				if (cal_fail(c, c->ops->copy_d2d(c->dev, c->s, c->d1, c->d0, c->max_copy),
					     "copy_d2d (holding the stream)"))
					return -1;
			for (unsigned k = 0; k < n[i]; k++)
				if (cal_fail(c, c->ops->launch(c->dev, c->s, c->fn, &l), "launch"))
					return -1;
			if (cal_fail(c, c->ops->stream_sync(c->dev, c->s), "stream_sync"))
				return -1;
			c->samples[r] = (double)(cal_now(c) - t0);
		}
		t[i] = median(c->samples, c->reps);
	}
	return (t[1] - t[0]) / (double)(n[1] - n[0]);
}

/*
 * The built-in kernels' device time (sim/sim_kernels.c's model without a
 * hint: kernel_default + kernel_per_mib per MiB read and written): add,
 * the workloads' kernel, launched as they launch it (64 blocks of 256
 * threads) on out ranges of 256 KiB to 64 MiB (4 MiB with --quick), a and
 * b two halves of one buffer, out another; each size's occupancy is the
 * slope of t(about 2 ms of copies + N kernels + stream_sync) between N = 2
 * and N = 10, as kernel_occupancy takes it; occupancy = launch_overhead +
 * kernel_default + per_mib * traffic, by least squares weighted by 1/t^2.
 * Return: 0, or -1 when the built-in kernels did not load (@why says so)
 * or a call failed (c->err).
 */
static int fit_builtin_kernels(struct cal *c, uint64_t launch_overhead, uint64_t d2d_bw,
			       uint64_t *kernel_default, uint64_t *per_mib, char *why, size_t len)
{
	static const uint64_t sizes[] = { 256 << 10, 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB };
	static const unsigned n[2] = { 2, 10 };
	double x[5], y[5], w[5], a, b, t[2];
	double one = d2d_bw ? (double)c->max_copy * 1e9 / (double)d2d_bw : 1e5;
	unsigned copies = one > 0 ? (unsigned)(2e6 / one) + 1 : 1, nsz = 0;
	hc_hal_module *m = NULL;
	hc_hal_function *fn = NULL;
	hc_hal_dptr dptr[3];
	uint64_t bytes[3];
	void *args[3] = { &dptr[0], &dptr[1], &dptr[2] };
	struct hc_hal_launch l = { .grid = { 64, 1, 1 }, .block = { 256, 1, 1 }, .args = args,
				   .n_args = 3, .arg_dptr = dptr, .arg_bytes = bytes };
	hc_status st;
	int rc = -1;

	if (copies > 256)
		copies = 256;
	st = c->ops->module_load(c->dev, NULL, 0, &m);
	if (st == HC_OK)
		st = c->ops->function_get(c->dev, m, "add", &fn);
	if (st != HC_OK) {
		hc_error_info e;

		hc_last_error(&e);
		snprintf(why, len, "kernel_default and kernel_per_mib not measured (the built-in "
				   "kernels did not load: %s: %s)", hc_status_str(st), e.message);
		goto out;
	}
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t sz = sizes[i];

		if (2 * sz > c->max_copy)
			break;
		dptr[0] = c->d0, dptr[1] = c->d0 + sz, dptr[2] = c->d1;
		bytes[0] = bytes[1] = bytes[2] = sz;
		for (int k = 0; k < 2; k++) {
			for (unsigned r = 0; r < c->reps; r++) {
				uint64_t t0 = cal_now(c);

				for (unsigned q = 0; q < copies; q++)
					if (cal_fail(c, c->ops->copy_d2d(c->dev, c->s, c->d1, c->d0,
									 c->max_copy),
						     "copy_d2d (holding the stream)"))
						goto out;
				for (unsigned q = 0; q < n[k]; q++)
					if (cal_fail(c, c->ops->launch(c->dev, c->s, fn, &l),
						     "launch (built-in add)"))
						goto out;
				if (cal_fail(c, c->ops->stream_sync(c->dev, c->s), "stream_sync"))
					goto out;
				c->samples[r] = (double)(cal_now(c) - t0);
			}
			t[k] = median(c->samples, c->reps);
		}
		x[nsz] = 3.0 * (double)sz; /* add reads a and b, writes out: hc_builtin_traffic */
		y[nsz] = (t[1] - t[0]) / (double)(n[1] - n[0]);
		w[nsz] = y[nsz] > 0 ? 1.0 / (y[nsz] * y[nsz]) : 1.0;
		nsz++;
	}
	if (nsz >= 2 && fit_line(x, y, w, nsz, &a, &b) == 0) {
		*kernel_default = ns_round(a - (double)launch_overhead);
		*per_mib = ns_round(b * (double)MIB);
		rc = 0;
	} else {
		snprintf(why, len, "kernel_default and kernel_per_mib not measured (fewer than two "
				   "sizes fit the %llu-byte buffers)", (unsigned long long)c->max_copy);
	}
out:
	if (m)
		c->ops->module_unload(c->dev, m);
	return rc;
}

/* capture_end over node counts: instantiate + node * n. */
static void fit_graph(struct cal *c, uint64_t *inst, uint64_t *inst_node)
{
	static const unsigned nodes[] = { 1, 8, 64 };
	double x[3], y[3], w[3], a, b;
	struct hc_hal_launch l = empty_launch();

	for (unsigned i = 0; i < 3; i++) {
		for (unsigned r = 0; r < c->reps; r++) {
			hc_hal_graph *g = NULL;
			uint64_t t0;
			if (cal_fail(c, c->ops->capture_begin(c->dev, c->s), "capture_begin"))
				return;
			for (unsigned k = 0; k < nodes[i]; k++)
				cal_fail(c, c->ops->launch(c->dev, c->s, c->fn, &l), "launch (capturing)");
			t0 = cal_now(c);
			if (cal_fail(c, c->ops->capture_end(c->dev, c->s, &g), "capture_end"))
				return;
			c->samples[r] = cal_now(c) - t0;
			c->ops->graph_destroy(c->dev, g);
			if (c->err != HC_OK)
				return;
		}
		x[i] = nodes[i];
		y[i] = median(c->samples, c->reps);
		w[i] = y[i] > 0 ? 1.0 / (y[i] * y[i]) : 1.0;
	}
	if (fit_line(x, y, w, 3, &a, &b) == 0) {
		*inst = ns_round(a);
		*inst_node = ns_round(b);
	}
}

/* --- the whole run ------------------------------------------------------- */

/* About a second of the work measured later (copies both ways, launches,
 * allocations), untimed, on a GPU only.  On the H200 the first of two
 * calibrations run back to back on a machine just started measured every
 * figure ~20 % slower than the second, host calls included (the GPU idles
 * at 360 MHz, and its link and the driver warm up too); after this both
 * start from a busy device, as the workloads they predict run on one. */
static void warm_up(struct cal *c)
{
	const struct hc_hal_ops *o = c->ops;
	uint64_t t0 = cal_now(c), size = c->max_copy < 64 * MIB ? c->max_copy : 64 * MIB;
	struct hc_hal_launch l = empty_launch();

	if (strcmp(o->name, "sim") == 0)
		return;
	while (c->err == HC_OK && cal_now(c) - t0 < 1000000000u) {
		hc_hal_dptr d = 0;
		void *h = NULL;

		cal_fail(c, do_copy(c, H2D_PINNED, size), "warm-up copy");
		cal_fail(c, do_copy(c, D2H_PINNED, size), "warm-up copy");
		for (int i = 0; c->fn && i < 32; i++)
			cal_fail(c, o->launch(c->dev, c->s, c->fn, &l), "warm-up launch");
		cal_fail(c, o->stream_sync(c->dev, c->s), "warm-up sync");
		if (!cal_fail(c, o->mem_alloc(c->dev, size, &d), "warm-up mem_alloc"))
			cal_fail(c, o->mem_free(c->dev, d), "warm-up mem_free");
		if (!cal_fail(c, o->host_alloc(c->dev, size, &h), "warm-up host_alloc"))
			cal_fail(c, o->host_free(c->dev, h), "warm-up host_free");
	}
}

static hc_status cal_setup(struct cal *c)
{
	const struct hc_hal_ops *o = c->ops;
	bool sim = strcmp(o->name, "sim") == 0;
	hc_status st;

	if (cal_fail(c, o->stream_create(c->dev, &c->s), "stream_create") ||
	    cal_fail(c, o->stream_create(c->dev, &c->s2), "stream_create") ||
	    cal_fail(c, o->mem_alloc(c->dev, c->max_copy, &c->d0), "mem_alloc") ||
	    cal_fail(c, o->mem_alloc(c->dev, c->max_copy, &c->d1), "mem_alloc") ||
	    cal_fail(c, o->host_alloc(c->dev, c->max_copy, &c->pinned), "host_alloc"))
		return c->err;
	c->pageable = malloc(c->max_copy);
	c->evict_dst = malloc(COLD_EVICT_BYTES);
	if (!c->pageable || !c->evict_dst)
		return cal_fail(c, HC_ERR_OOM, "malloc"), c->err;
	memset(c->evict_dst, 0, COLD_EVICT_BYTES);
	if (!sim) /* fault the pages in, as a real program's buffer would be */
		memset(c->pageable, 0x5a, c->max_copy);
	/* Without a kernel (an AMD runtime refuses PTX) the launch and graph
	 * figures stay the base profile's; the header says so. */
	st = o->module_load(c->dev, sim ? NULL : hs_noop_ptx, sim ? 0 : hs_noop_ptx_size, &c->mod);
	if (st == HC_OK)
		st = o->function_get(c->dev, c->mod, sim ? "fill" : "empty", &c->fn);
	if (st != HC_OK) {
		hc_error_info e;
		hc_last_error(&e);
		snprintf(c->no_kernel, sizeof(c->no_kernel),
			 "launch and graph figures not measured (the empty kernel did not load: %s: %s); "
			 "they are the built-in profile's", hc_status_str(st), e.message);
		c->fn = NULL;
	}
	return HC_OK;
}

static void cal_teardown(struct cal *c)
{
	const struct hc_hal_ops *o = c->ops;

	if (c->s)
		o->stream_sync(c->dev, c->s);
	if (c->mod)
		o->module_unload(c->dev, c->mod);
	if (c->pinned)
		o->host_free(c->dev, c->pinned);
	if (c->d0)
		o->mem_free(c->dev, c->d0);
	if (c->d1)
		o->mem_free(c->dev, c->d1);
	if (c->s2)
		o->stream_destroy(c->dev, c->s2);
	if (c->s)
		o->stream_destroy(c->dev, c->s);
	free(c->pageable);
	free(c->evict_dst);
}

/* One pass over every measurement: the profile in @out, as hs_calibrate. */
static hc_status calibrate_pass(const struct hs_calibrate_args *args, unsigned pass, unsigned passes,
				struct hc_sim_profile *out, char *msg, size_t msglen)
{
	struct cal c = { .reps = args->repeats ? args->repeats : (args->quick ? 5 : 11),
			 .quick = args->quick, .tty = args->progress_tty, .nphases = 12,
			 .pass = pass, .passes = passes };
	struct hc_hal_open_args oa = { .ordinal = args->ordinal, .profile = args->sim_profile,
				       .seed = 1 };
	struct hc_sim_profile p;
	struct hc_hal_props props;
	double icpt[N_COPY] = { 0 };
	uint64_t bw[N_COPY] = { 0 };
	double copy_call = 0, stream_sync = 0;
	char no_builtin[1100] = "";

	c.ops = hc_hal_find(args->backend);
	if (!c.ops) {
		snprintf(msg, msglen, "unknown backend '%s' (sim or hip)", args->backend);
		return HC_ERR_INVALID;
	}
	c.max_copy = args->quick ? 16 * MIB : 256 * MIB;
	c.samples = calloc(2 * (size_t)c.reps, sizeof(*c.samples));
	if (!c.samples) {
		snprintf(msg, msglen, "no host memory");
		return HC_ERR_OOM;
	}
	if (!args->progress)
		c.nphases = 0;
	if (cal_fail(&c, c.ops->device_open(&oa, &c.dev), "device_open")) {
		snprintf(msg, msglen, "%s", c.errmsg);
		free(c.samples);
		return c.err;
	}
	hc_sim_profile_builtin(&p);
	if (cal_fail(&c, c.ops->device_props(c.dev, &props), "device_props"))
		goto out;
	snprintf(p.name, sizeof(p.name), "%s", props.name);
	p.total_memory = props.total_memory;
	p.alignment = props.alignment;
	p.integrated = props.integrated;
	p.vmm_granularity = props.vmm_granularity;
	if (cal_setup(&c) != HC_OK)
		goto out;
	warm_up(&c);

#define PHASE(what) if (c.err == HC_OK && args->progress) progress(&c, what)
	PHASE("API calls: copy, sync, events, streams");
	copy_call = time_call(&c, CALL_COPY);
	stream_sync = time_call(&c, CALL_STREAM_SYNC);
	p.copy_call_ns = ns_round(copy_call);
	p.stream_sync_ns = ns_round(stream_sync);
	p.event_record_ns = ns_round(time_call(&c, CALL_EVENT_RECORD));
	p.event_destroy_ns = ns_round(time_call(&c, CALL_EVENT_DESTROY));
	p.event_query_ns = ns_round(time_call(&c, CALL_EVENT_QUERY));
	p.event_wait_ns = ns_round(time_call(&c, CALL_EVENT_WAIT));
	p.event_sync_ns = ns_round(time_call(&c, CALL_EVENT_SYNC));
	p.stream_create_ns = ns_round(time_call(&c, CALL_STREAM_CREATE));
	p.stream_destroy_ns = ns_round(time_call(&c, CALL_STREAM_DESTROY));
	for (int k = 0; k < N_COPY; k++) {
		PHASE(copy_name[k]);
		fit_copy(&c, (enum copy_kind)k, &icpt[k], &bw[k]);
	}
	if (c.err != HC_OK)
		goto out;
	p.h2d_pinned_bw = bw[H2D_PINNED];
	p.h2d_pageable_bw = bw[H2D_PAGEABLE];
	p.d2h_pinned_bw = bw[D2H_PINNED];
	p.d2h_pageable_bw = bw[D2H_PAGEABLE];
	p.d2d_bw = bw[D2D];
	p.h2d_pinned_lat_ns = ns_round(icpt[H2D_PINNED] - copy_call);
	p.d2h_pinned_lat_ns = ns_round(icpt[D2H_PINNED] - copy_call);
	p.d2d_lat_ns = ns_round(icpt[D2D] - copy_call);
	p.h2d_pageable_lat_ns = ns_round(icpt[H2D_PAGEABLE] - copy_call - stream_sync);
	p.d2h_pageable_lat_ns = ns_round(icpt[D2H_PAGEABLE] - copy_call - stream_sync);

	PHASE("host memcpy (staging)");
	fit_host_copy(&c, args, strcmp(c.ops->name, "sim") == 0, &p);

	PHASE("device and pinned allocation");
	fit_alloc(&c, false, args->quick ? 16 * MIB : 256 * MIB, &p.dev_alloc_ns,
		  &p.dev_alloc_ns_per_mib, &p.dev_free_ns, &p.dev_free_ns_per_mib);
	if (c.err == HC_OK)
		fit_alloc_small(&c, &p.dev_alloc_small_ns, &p.dev_free_small_ns);
	fit_alloc(&c, true, args->quick ? 16 * MIB : 64 * MIB, &p.host_alloc_ns,
		  &p.host_alloc_ns_per_mib, &p.host_free_ns, &p.host_free_ns_per_mib);

	PHASE("virtual memory (reserve, map, unmap)");
	if (props.vmm_granularity && c.ops->va_reserve)
		fit_vmm(&c, props.vmm_granularity, args->quick ? 16 * MIB : 256 * MIB, &p);
	else
		c.no_vmm = true;

	PHASE("calls after host copies (cold caches)");
	p.cold_copy_ns = cold_extra(&c, CALL_COPY, p.copy_call_ns);
	p.cold_stream_sync_ns = cold_extra(&c, CALL_STREAM_SYNC, p.stream_sync_ns);
	p.cold_event_record_ns = cold_extra(&c, CALL_EVENT_RECORD, p.event_record_ns);
	p.cold_event_destroy_ns = cold_extra(&c, CALL_EVENT_DESTROY, p.event_destroy_ns);
	p.cold_event_query_ns = cold_extra(&c, CALL_EVENT_QUERY, p.event_query_ns);
	p.cold_event_wait_ns = cold_extra(&c, CALL_EVENT_WAIT, p.event_wait_ns);
	p.cold_event_sync_ns = cold_extra(&c, CALL_EVENT_SYNC, p.event_sync_ns);
	cold_alloc_extra(&c, &p.cold_dev_alloc_ns, &p.cold_dev_free_ns);

	PHASE("kernel launch and graphs");
	if (!c.fn)
		goto builtin_kernels;
	p.launch_call_ns = ns_round(time_call(&c, CALL_LAUNCH));
	{
		/* alone: latency + occupancy; behind other work: occupancy */
		double alone = time_call(&c, CALL_LAUNCH_SYNC) - (double)p.launch_call_ns -
			       (strcmp(c.ops->name, "sim") == 0 ? 1.0 : 0.0);
		double occ = kernel_occupancy(&c, p.d2d_bw);

		if (occ <= 0 || occ > alone) /* noise: all of it as occupancy */
			occ = alone;
		p.launch_overhead_ns = ns_round(occ);
		p.launch_latency_ns = ns_round(alone - occ);
	}
	fit_lib_work(&c, args, strcmp(c.ops->name, "sim") == 0, HC_LIB_WORK_LAUNCH, &p.launch_lib_ns);
	fit_lib_work(&c, args, strcmp(c.ops->name, "sim") == 0, HC_LIB_WORK_WRITE, &p.write_lib_ns);
	p.capture_begin_ns = ns_round(time_call(&c, CALL_CAPTURE_BEGIN));
	p.capture_node_ns = ns_round(time_call(&c, CALL_CAPTURE_NODE));
	p.graph_launch_ns = ns_round(time_call(&c, CALL_GRAPH_LAUNCH));
	fit_graph(&c, &p.graph_instantiate_ns, &p.graph_instantiate_node_ns);
	p.cold_launch_ns = cold_extra(&c, CALL_LAUNCH, p.launch_call_ns);
builtin_kernels:
	PHASE("built-in kernels (device time by size)");
	if (c.err == HC_OK)
		fit_builtin_kernels(&c, p.launch_overhead_ns, p.d2d_bw, &p.kernel_default_ns,
				    &p.kernel_ns_per_mib, no_builtin, sizeof(no_builtin));
#undef PHASE
	p.host_cold_bytes = p.cold_copy_ns || p.cold_launch_ns || p.cold_event_record_ns ||
					    p.cold_event_query_ns || p.cold_event_wait_ns ||
					    p.cold_event_sync_ns || p.cold_event_destroy_ns ||
					    p.cold_stream_sync_ns || p.cold_dev_alloc_ns ||
					    p.cold_dev_free_ns
				    ? COLD_EVICT_BYTES
				    : 0;
out:
	if (c.tty && c.phase)
		fputc('\n', stderr);
	cal_teardown(&c);
	c.ops->device_close(c.dev);
	free(c.samples);
	if (c.err != HC_OK) {
		snprintf(msg, msglen, "%s", c.errmsg);
		return c.err;
	}
	*out = p;
	if (msglen)
		msg[0] = '\0';
	if (c.no_kernel[0] || no_builtin[0])
		snprintf(msg, msglen, "%s%s%s", c.no_kernel, c.no_kernel[0] && no_builtin[0] ? "; " : "",
			 no_builtin);
	if (c.no_vmm && msglen) {
		size_t used = strlen(msg);

		snprintf(msg + used, msglen - used, "%sthe device has no virtual memory management "
			 "(vmm_granularity 0): its figures are the built-in profile's",
			 used ? "; " : "");
	}
	return HC_OK;
}

/* --- passes and the profile file ----------------------------------------- */

/* The figure of numeric key @k (units BYTES, TIME, BW, COUNT: a uint64_t). */
static uint64_t field_get(const struct hc_sim_profile *p, const struct hc_sim_profile_key *k)
{
	return *(const uint64_t *)((const char *)p + k->off);
}

static void field_set(struct hc_sim_profile *p, const struct hc_sim_profile_key *k, uint64_t v)
{
	*(uint64_t *)((char *)p + k->off) = v;
}

static bool key_numeric(const struct hc_sim_profile_key *k)
{
	return k->unit != HC_SIM_KEY_NAME && k->unit != HC_SIM_KEY_FLAG;
}

/*
 * Passes.  The H200 machine's host runs slow and fast for seconds at a
 * time, and every figure of one pass is taken within a few milliseconds:
 * two calibrations ten seconds apart moved keys by 10-50 % (BENCHMARKS.md,
 * "Simulator fidelity").  Each key of the result is therefore the median
 * of its figures over several whole passes, which spreads every key's
 * samples over the whole calibration instead of one moment of it.
 */
int hs_profile_median(const struct hc_sim_profile *p, unsigned n, struct hc_sim_profile *out)
{
	uint64_t *v = n ? calloc(n, sizeof(*v)) : NULL;
	const struct hc_sim_profile_key *keys;
	struct hc_sim_profile m;
	size_t nkeys;

	if (!v)
		return -1;
	keys = hc_sim_profile_keys(&nkeys);
	m = p[0];
	for (size_t k = 0; k < nkeys; k++) {
		if (!key_numeric(&keys[k]))
			continue;
		for (unsigned i = 0; i < n; i++)
			v[i] = field_get(&p[i], &keys[k]);
		field_set(&m, &keys[k], (uint64_t)llround(median(v, n)));
	}
	free(v);
	*out = m;
	return 0;
}

hc_status hs_calibrate(const struct hs_calibrate_args *args, struct hc_sim_profile *out,
		       char *msg, size_t msglen)
{
	unsigned passes = args->passes ? args->passes : (args->quick ? 1 : HS_CALIBRATE_PASSES);
	struct hc_sim_profile *p = calloc(passes, sizeof(*p));
	hc_status st = HC_OK;

	if (!p) {
		snprintf(msg, msglen, "no host memory");
		return HC_ERR_OOM;
	}
	for (unsigned i = 0; i < passes && st == HC_OK; i++)
		st = calibrate_pass(args, i, passes, &p[i], msg, msglen);
	if (st == HC_OK && hs_profile_median(p, passes, out) != 0) {
		snprintf(msg, msglen, "no host memory");
		st = HC_ERR_OOM;
	}
	free(p);
	return st;
}

/* --- the profile file ---------------------------------------------------- */

int hs_profile_write(FILE *f, const struct hc_sim_profile *p, const char *header)
{
	static const char *const unit[] = { [HC_SIM_KEY_BYTES] = " B", [HC_SIM_KEY_TIME] = " ns",
					     [HC_SIM_KEY_BW] = " B/s", [HC_SIM_KEY_COUNT] = "" };
	const char *h = header ? header : "";
	const struct hc_sim_profile_key *keys;
	size_t nkeys;

	/* the header, each line a comment */
	while (*h) {
		const char *nl = strchr(h, '\n');
		int len = nl ? (int)(nl - h) : (int)strlen(h);
		fprintf(f, "# %.*s\n", len, h);
		h += len + (nl ? 1 : 0);
	}
	fprintf(f, "# Format and keys: doc/sim-profile.md.  Times in ns, bandwidths in B/s.\n");
	keys = hc_sim_profile_keys(&nkeys);
	for (size_t k = 0; k < nkeys; k++) {
		const struct hc_sim_profile_key *pk = &keys[k];

		fputs(pk->section ? pk->section : "", f);
		if (pk->unit == HC_SIM_KEY_NAME)
			fprintf(f, "%s = \"%s\"\n", pk->key, p->name);
		else if (pk->unit == HC_SIM_KEY_FLAG)
			fprintf(f, "%s = %d\n", pk->key, *(const bool *)((const char *)p + pk->off) ? 1 : 0);
		else
			fprintf(f, "%s = %llu%s\n", pk->key, (unsigned long long)field_get(p, pk), unit[pk->unit]);
	}
	return ferror(f) ? -1 : 0;
}

/* --- the subcommand ------------------------------------------------------ */

static void calibrate_usage(FILE *out)
{
	fprintf(out,
		"usage: hipsim calibrate [--backend hip|sim] -o PROFILE [OPTIONS]\n"
		"Measures a backend with microbenchmarks and writes a simulator device profile.\n\n"
		"  --backend NAME   hip (default) or sim (calibrates the simulator: a self-test)\n"
		"  -o, --output F   the profile to write ('-' for stdout)\n"
		"  --quick          fewer sizes (copies up to 16 MiB) and 5 repeats\n"
		"  --repeats N      samples per figure (median; default 11, --quick 5)\n"
		"  --passes N       whole passes, each key the median over them (default 5,\n"
		"                   --quick 1)\n"
		"  --ordinal N      which GPU (default 0)\n"
		"  --profile FILE   sim backend only: the profile the simulator runs with\n\n"
		"Exit status: 0 written, 1 a measurement failed, 2 usage, no device/runtime, or\n"
		"the profile could not be written.\n");
}

int hipsim_calibrate_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, 0, 'b' }, { "output", required_argument, 0, 'o' },
		{ "quick", no_argument, 0, 'q' },         { "repeats", required_argument, 0, 'r' },
		{ "passes", required_argument, 0, 'P' },  { "ordinal", required_argument, 0, 'O' },
		{ "profile", required_argument, 0, 'p' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct hs_calibrate_args a = { .backend = "hip", .progress = true };
	const char *output = NULL;
	struct hc_sim_profile p;
	char msg[1100], header[4096], date[64], cmd[512] = "hipsim calibrate", profile_path[4096];
	struct hs_output out;
	time_t now = time(NULL);
	struct tm tm;
	hc_status st;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 'b': a.backend = optarg; break;
		case 'o': output = optarg; break;
		case 'q': a.quick = true; break;
		case 'p': a.sim_profile = hs_profile_find(optarg, profile_path, sizeof(profile_path)); break;
		case 'r':
			if (hs_opt_number("calibrate", "--repeats", optarg, 1, 100000, &v))
				return HIPSIM_EXIT_USAGE;
			a.repeats = (unsigned)v;
			break;
		case 'P':
			if (hs_opt_number("calibrate", "--passes", optarg, 1, 99, &v))
				return HIPSIM_EXIT_USAGE;
			a.passes = (unsigned)v;
			break;
		case 'O':
			if (hs_opt_number("calibrate", "--ordinal", optarg, 0, 100000, &v))
				return HIPSIM_EXIT_USAGE;
			a.ordinal = (int)v;
			break;
		case 'h': calibrate_usage(stdout); return HIPSIM_EXIT_OK;
		default: calibrate_usage(stderr); return HIPSIM_EXIT_USAGE;
		}
	}
	if (optind < argc || !output) {
		fprintf(stderr, optind < argc ? "hipsim calibrate: unexpected argument '%s'\n"
					      : "hipsim calibrate: -o PROFILE is required%s\n",
			optind < argc ? argv[optind] : "");
		return HIPSIM_EXIT_USAGE;
	}
	if (strcmp(a.backend, "hip") != 0 && strcmp(a.backend, "sim") != 0) {
		fprintf(stderr, "hipsim calibrate: unknown backend '%s' (hip or sim)\n", a.backend);
		return HIPSIM_EXIT_USAGE;
	}
	/* The profile's file before the measurements (minutes on a GPU): a bad
	 * path fails now.  An existing profile stays as it is until the new
	 * one is written, so a calibration that fails leaves it intact. */
	if (hs_output_open(&out, "calibrate", "-o", output, true, true) != 0)
		return HIPSIM_EXIT_USAGE;
	a.progress_tty = isatty(STDERR_FILENO);
	msg[0] = '\0';
	st = hs_calibrate(&a, &p, msg, sizeof(msg));
	if (st != HC_OK) {
		hs_output_abort(&out);
		fprintf(stderr, "hipsim calibrate: %s\n", msg);
		if (st == HC_ERR_NO_RUNTIME || st == HC_ERR_DEVICE)
			fprintf(stderr, "hipsim calibrate: no usable %s device; nothing written\n",
				a.backend);
		return (st == HC_ERR_NO_RUNTIME || st == HC_ERR_INVALID ||
			(st == HC_ERR_DEVICE && strstr(msg, "device_open")))
			       ? HIPSIM_EXIT_USAGE
			       : HIPSIM_EXIT_FAILED;
	}
	for (int i = 1; i < argc; i++) {
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof(cmd) - l, " %s", argv[i]);
	}
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(header, sizeof(header),
		 "Calibrated by hipsim (%s %s).\ndevice: %s\ndate: %s\nruntime: %s backend\n"
		 "command: %s\nrepeats: %u per figure (median); passes: %u (each key their median)%s%s",
		 PACKAGE_NAME, PACKAGE_VERSION, p.name, date, a.backend, cmd,
		 a.repeats ? a.repeats : (a.quick ? 5 : 11), a.passes ? a.passes : (a.quick ? 1 : HS_CALIBRATE_PASSES), msg[0] ? "\nwarning: " : "", msg);
	if (msg[0])
		fprintf(stderr, "hipsim calibrate: warning: %s\n", msg);
	if (hs_output_begin(&out) != 0) {
		hs_output_abort(&out);
		return HIPSIM_EXIT_USAGE;
	}
	hs_profile_write(out.f, &p, header);
	if (hs_output_close(&out) != 0)
		return HIPSIM_EXIT_USAGE;
	return HIPSIM_EXIT_OK;
}
