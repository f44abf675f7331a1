/*
 * callmix.c - probe: what the backend's calls cost in a workload's
 * conditions, against calibrate's way of timing them.
 *
 * The fidelity run of 2026-12-05 08:31 (BENCHMARKS.md) found the small
 * driver calls at 1.3-2 x their calibrated figure inside the built-in
 * workloads, and mem_alloc / mem_free at 1.3-1.8 x, while training's 7200
 * back-to-back launches (calibrate's own pattern) matched within 3.4 %.
 * Calibrate times each call alone on an idle device, the same call again
 * and again; a workload interleaves calls of every kind, odd allocation
 * sizes, host copies of megabytes that evict the caches, and a device
 * that is still busy.  One row per suspect, per call, µs (median and
 * mean of REPS):
 *   idle       calibrate's way: each call after a stream sync;
 *   loop       the same call back to back, no sync;
 *   rotate     record, launch, copy, query, destroy in turn, no sync;
 *   evicted    idle, after the host copied 8 MiB (the library's staging
 *              copies between a workload's calls);
 *   busy       the device kept busy by device-to-device copies on another
 *              stream.
 * Device allocations, sizes as the workloads ask (1.2-19 MiB, not
 * multiples of 2 MiB):
 *   cal        calibrate's: REPS allocations of one size live, then freed;
 *   alt        each allocation freed right after;
 *   odd        workload sizes, up to 16 live, allocations and frees mixed;
 *   odd_evicted  the same, 8 MiB host copy before each call;
 *   odd_busy   the same while the device copies (a free syncs the device
 *              untimed first, so its figure is the free's own cost).
 * And how much copying it takes: event_record, launch, copy_h2d and a 2 MiB
 * mem_alloc / mem_free right after a host copy of 64 KiB .. 32 MiB.
 * Built by `make gpu-carry`; on the GPU machine
 * tests/gpu/run-on-device.sh _carry/gpu callmix.  Prints one JSON line per
 * figure (bench "callmix"); without a GPU one SKIP line on stderr, exit 0.
 * Usage: callmix [BACKEND]  (default hip; "sim" exercises the probe itself)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/probes/probe.h"
#include "hal/hal.h"
#include "hipcore/hipcore.h"

#define REPS 201
#define MIB (1ull << 20)
#define EVICT_BYTES (8 * MIB)
#define EVICT_MAX (32 * MIB)
#define BUSY_BYTES (256 * MIB)

/* One entry point with no parameters: a launch that costs only the call. */
static const char empty_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
				".visible .entry empty()\n{\n\tret;\n}\n";

static const struct hc_hal_ops *H;
static hc_hal_dev *dev;
static hc_hal_stream *s, *s_busy;
static hc_hal_function *fn;
static hc_hal_dptr d_small, busy_a, busy_b;
static void *pinned;
static unsigned char *evict_src, *evict_dst;
static uint64_t samples[REPS];
static int failed;

static void emit(const char *call, const char *cond, uint64_t *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += (double)v[i];
	printf("{\"bench\":\"callmix\",\"metric\":\"%s_%s_median\",\"value\":%.2f,\"unit\":\"us\"}\n",
	       call, cond, probe_median(v, n) / 1e3);
	printf("{\"bench\":\"callmix\",\"metric\":\"%s_%s_mean\",\"value\":%.2f,\"unit\":\"us\"}\n",
	       call, cond, n ? sum / n / 1e3 : 0.0);
	fflush(stdout);
}

static void check(hc_status st, const char *what)
{
	if (st != HC_OK && !failed) {
		hc_error_info e;

		hc_last_error(&e);
		fprintf(stderr, "callmix: %s: %s: %s\n", what, hc_status_str(st), e.message);
		failed = 1;
	}
}

static void evict_n(uint64_t bytes)
{
	memcpy(evict_dst, evict_src, bytes);
	evict_src[0]++;
}

static void evict(void)
{
	evict_n(EVICT_BYTES);
}

/* Keeps the device busy for a few ms on its own stream. */
static void make_busy(void)
{
	for (int i = 0; i < 4; i++)
		check(H->copy_d2d(dev, s_busy, busy_b, busy_a, BUSY_BYTES), "copy_d2d");
}

enum call { C_RECORD, C_LAUNCH, C_COPY, C_QUERY, C_DESTROY, NCALL };
static const char *const call_name[NCALL] = { "event_record", "launch", "copy_h2d", "event_query",
					      "event_destroy" };
enum cond { K_IDLE, K_LOOP, K_ROTATE, K_EVICTED, K_BUSY, NCOND };
static const char *const cond_name[NCOND] = { "idle", "loop", "rotate", "evicted", "busy" };

/* One call of @c; events come from and go to @ev. */
static uint64_t one_call(enum call c, hc_hal_event **ev)
{
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	uint64_t t0;
	bool done;

	if ((c == C_QUERY || c == C_DESTROY) && !*ev)
		check(H->event_record(dev, s, ev), "event_record (set-up)");
	if (c == C_RECORD && *ev) { /* a record replaces the last event */
		H->event_destroy(dev, *ev);
		*ev = NULL;
	}
	t0 = bench_now_ns();
	switch (c) {
	case C_RECORD:
		check(H->event_record(dev, s, ev), "event_record");
		break;
	case C_LAUNCH:
		check(H->launch(dev, s, fn, &l), "launch");
		break;
	case C_COPY:
		check(H->copy_h2d(dev, s, d_small, pinned, 4096, true), "copy_h2d");
		break;
	case C_QUERY:
		check(H->event_query(dev, *ev, &done), "event_query");
		break;
	case C_DESTROY:
		H->event_destroy(dev, *ev);
		*ev = NULL;
		break;
	default:
		break;
	}
	return bench_now_ns() - t0;
}

static void small_calls(void)
{
	for (int c = 0; c < NCALL && !failed; c++)
		for (int k = 0; k < NCOND && !failed; k++) {
			hc_hal_event *ev = NULL;

			for (int r = 0; r < REPS && !failed; r++) {
				if (k == K_IDLE || k == K_EVICTED || k == K_BUSY)
					check(H->stream_sync(dev, s), "stream_sync");
				if (k == K_EVICTED)
					evict();
				if (k == K_BUSY && r % 16 == 0)
					make_busy();
				if (k == K_ROTATE) /* the calls before this one, untimed */
					for (int o = 0; o < NCALL; o++)
						if (o != c)
							(void)one_call((enum call)o, &ev);
				samples[r] = one_call((enum call)c, &ev);
				if (k != K_IDLE && k != K_EVICTED && k != K_BUSY && r % 64 == 63)
					check(H->stream_sync(dev, s), "stream_sync");
			}
			if (ev)
				H->event_destroy(dev, ev);
			check(H->stream_sync(dev, s), "stream_sync");
			check(H->stream_sync(dev, s_busy), "stream_sync");
			if (!failed)
				emit(call_name[c], cond_name[k], samples, REPS);
		}
}

/* Sizes the built-in workloads ask the device for (hipsim validate). */
static const uint64_t odd_sizes[] = { 1242112, 1642496, 1665280, 2097152, 2510848, 4139008,
				      4193280, 7310336, 8159232, 9272320, 9529344, 19367424 };
#define NODD (sizeof(odd_sizes) / sizeof(odd_sizes[0]))
#define LIVE_MAX 16

/* Calibrate's way: REPS allocations live, then freed. */
static void allocs_cal(uint64_t size, const char *cond)
{
	static hc_hal_dptr p[REPS];
	static uint64_t fs[REPS];
	int n = 0;

	for (; n < REPS && !failed; n++) {
		uint64_t t0 = bench_now_ns();

		check(H->mem_alloc(dev, size, &p[n]), "mem_alloc");
		samples[n] = bench_now_ns() - t0;
	}
	for (int i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();

		if (p[i])
			check(H->mem_free(dev, p[i]), "mem_free");
		fs[i] = bench_now_ns() - t0;
		p[i] = 0;
	}
	if (failed)
		return;
	emit("mem_alloc", cond, samples, n);
	emit("mem_free", cond, fs, n);
}

/* Each allocation freed right after; each call after a host copy of
 * @evict_bytes when not 0.  Rows "mem_alloc_<cond>", "mem_free_<cond>". */
static void allocs_alt(uint64_t size, const char *cond, uint64_t evict_bytes)
{
	static uint64_t fs[REPS];

	for (int r = 0; r < REPS && !failed; r++) {
		hc_hal_dptr p = 0;
		uint64_t t0;

		if (evict_bytes)
			evict_n(evict_bytes);
		t0 = bench_now_ns();
		check(H->mem_alloc(dev, size, &p), "mem_alloc");
		samples[r] = bench_now_ns() - t0;
		if (evict_bytes)
			evict_n(evict_bytes);
		t0 = bench_now_ns();
		if (p)
			check(H->mem_free(dev, p), "mem_free");
		fs[r] = bench_now_ns() - t0;
	}
	if (failed)
		return;
	emit("mem_alloc", cond, samples, REPS);
	emit("mem_free", cond, fs, REPS);
}

/* How much copying makes a call cold: event_record, launch, copy_h2d and
 * a 2 MiB mem_alloc + mem_free, each right after a host copy of 64 KiB to
 * 32 MiB (rows "<call>_after<KiB>K"). */
static void eviction_sizes(void)
{
	static const uint64_t kib[] = { 64, 256, 1024, 2048, 4096, 8192, 32768 };
	char cond[32];

	for (size_t z = 0; z < sizeof(kib) / sizeof(kib[0]) && !failed; z++) {
		snprintf(cond, sizeof(cond), "after%lluK", (unsigned long long)kib[z]);
		for (int c = C_RECORD; c <= C_COPY && !failed; c++) {
			hc_hal_event *ev = NULL;

			for (int r = 0; r < REPS && !failed; r++) {
				check(H->stream_sync(dev, s), "stream_sync");
				evict_n(kib[z] * 1024);
				samples[r] = one_call((enum call)c, &ev);
			}
			if (ev)
				H->event_destroy(dev, ev);
			if (!failed)
				emit(call_name[c], cond, samples, REPS);
		}
		allocs_alt(2 * MIB, cond, kib[z] * 1024);
	}
}

/* @mode: 0 idle, 1 evicted, 2 busy. */
static void allocs_odd(int mode, const char *cond)
{
	static uint64_t fs[REPS];
	hc_hal_dptr live[LIVE_MAX] = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int nlive = 0, na = 0, nf = 0;

	while ((na < REPS || nf < REPS) && !failed) {
		bool do_alloc;
		uint64_t t0;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		do_alloc = nlive == 0 || (nlive < LIVE_MAX && (x & 3) < 2);
		if (do_alloc ? na >= REPS : nf >= REPS)
			do_alloc = !do_alloc;
		if (!do_alloc && nlive == 0)
			break;
		if (do_alloc && nlive == LIVE_MAX)
			break;
		if (mode == 1)
			evict();
		if (mode == 2) {
			make_busy();
			if (!do_alloc)
				check(H->stream_sync(dev, s_busy), "stream_sync");
		}
		t0 = bench_now_ns();
		if (do_alloc) {
			check(H->mem_alloc(dev, odd_sizes[(x >> 8) % NODD], &live[nlive]), "mem_alloc");
			samples[na++] = bench_now_ns() - t0;
			nlive++;
		} else {
			int i = (int)((x >> 16) % (uint64_t)nlive);

			check(H->mem_free(dev, live[i]), "mem_free");
			fs[nf++] = bench_now_ns() - t0;
			live[i] = live[--nlive];
		}
		if (mode == 2 && do_alloc)
			check(H->stream_sync(dev, s_busy), "stream_sync");
	}
	while (nlive > 0)
		check(H->mem_free(dev, live[--nlive]), "mem_free");
	if (!failed && na > 0 && nf > 0) {
		emit("mem_alloc", cond, samples, na);
		emit("mem_free", cond, fs, nf);
	}
}

int main(int argc, char **argv)
{
	struct hc_hal_open_args args = { .ordinal = 0 };
	hc_hal_module *mod = NULL;
	bool sim;
	int rc = 1;

	H = hc_hal_find(argc > 1 ? argv[1] : "hip");
	if (!H) {
		fprintf(stderr, "callmix: no backend %s\n", argv[1]);
		return 2;
	}
	sim = strcmp(H->name, "sim") == 0;
	if (H->device_open(&args, &dev) != HC_OK) {
		hc_error_info e;

		hc_last_error(&e);
		fprintf(stderr, "callmix: SKIP: no GPU runtime/device: %s\n", e.message);
		return 0;
	}
	evict_src = malloc(EVICT_MAX);
	evict_dst = malloc(EVICT_MAX);
	if (!evict_src || !evict_dst)
		goto out;
	memset(evict_src, 1, EVICT_MAX);
	memset(evict_dst, 2, EVICT_MAX);
	check(H->stream_create(dev, &s), "stream_create");
	check(H->stream_create(dev, &s_busy), "stream_create");
	check(H->mem_alloc(dev, 4096, &d_small), "mem_alloc");
	check(H->mem_alloc(dev, BUSY_BYTES, &busy_a), "mem_alloc");
	check(H->mem_alloc(dev, BUSY_BYTES, &busy_b), "mem_alloc");
	check(H->host_alloc(dev, 4096, &pinned), "host_alloc");
	/* the simulator runs built-in kernels: it checks the probe's logic */
	check(H->module_load(dev, sim ? NULL : empty_ptx, sim ? 0 : sizeof(empty_ptx), &mod),
	      "module_load");
	if (!failed)
		check(H->function_get(dev, mod, sim ? "fill" : "empty", &fn), "function_get");
	if (failed)
		goto out_dev;
	/* warm-up: the first calls of each kind load the driver's code */
	for (int i = 0; i < 64; i++) {
		hc_hal_event *ev = NULL;

		(void)one_call(C_LAUNCH, &ev);
		(void)one_call(C_COPY, &ev);
		(void)one_call(C_RECORD, &ev);
		(void)one_call(C_QUERY, &ev);
		(void)one_call(C_DESTROY, &ev);
	}
	make_busy();
	check(H->stream_sync(dev, s_busy), "stream_sync");
	small_calls();
	allocs_cal(2 * MIB, "cal_2M");
	allocs_cal(8 * MIB, "cal_8M");
	allocs_alt(2 * MIB, "alt_2M", 0);
	allocs_alt(8 * MIB, "alt_8M", 0);
	allocs_odd(0, "odd");
	allocs_odd(1, "odd_evicted");
	allocs_odd(2, "odd_busy");
	eviction_sizes();
	rc = failed;
out_dev:
	check(H->stream_sync(dev, s), "stream_sync");
	check(H->stream_sync(dev, s_busy), "stream_sync");
	if (mod)
		H->module_unload(dev, mod);
	if (pinned)
		H->host_free(dev, pinned);
	if (busy_b)
		H->mem_free(dev, busy_b);
	if (busy_a)
		H->mem_free(dev, busy_a);
	if (d_small)
		H->mem_free(dev, d_small);
	if (s_busy)
		H->stream_destroy(dev, s_busy);
	if (s)
		H->stream_destroy(dev, s);
out:
	free(evict_src);
	free(evict_dst);
	H->device_close(dev);
	return rc;
}
