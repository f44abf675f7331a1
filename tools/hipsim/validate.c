/*
 * validate.c - `hipsim validate`: the simulator's predictions against a GPU.
 *
 * Each built-in workload runs twice with the same seed, steps, streams and
 * pool layout: on the hip backend (measured) and on the simulator with a
 * profile, ideally one `hipsim calibrate` wrote on the same machine
 * (predicted).  The memory figures (peak in use, peak reserved, device
 * allocations) and the host-wait count come from libhipcore's own decisions,
 * which do not depend on time, so they must be identical; with the
 * calibrated profile the device's memory size, hence the pool presets, match
 * too.  Times are compared as an error in percent: total (device clock from
 * just after the device opened to the end of the workload) and host-blocked
 * time (hc_device_stats.host_blocked_ns).  Copy time is not compared:
 * hc_device_stats counts copies and bytes but no copy time on either
 * backend, so the table prints the copy counts and bytes (which must be
 * equal) instead.
 *
 * Both sides run the workloads' real kernels, the built-in fill, copy and
 * add (hal/builtins.h): as device code on the GPU, and on the simulator
 * without a duration hint, so that the profile's kernel model times them
 * (kernel_default + kernel_per_mib per MiB read and written, which
 * `hipsim calibrate` measures); a profile without that model
 * (kernel_per_mib 0) charges kernel_default for each, and validate says
 * so.
 *
 * The measured side runs --repeats times (default 3): its times are the
 * medians, and its memory figures and counts must agree between repeats
 * (else the row says "varies" and validation fails).
 *
 * --pools, --flush-count, --flush-bytes and --stage-max (variant.h) set
 * the pool layout and the device policy of every run, measured and
 * predicted (and, with --via-trace, recorded and replayed), so that a
 * variant's predicted time can be set beside its measured time, and the
 * ratio between two variants' predictions beside the measured ratio
 * (tests/gpu/whatif.sh).  The variant heads each table and is recorded in
 * the JSON's top-level object.
 *
 * Exit status: 0 memory figures identical everywhere, 1 a difference or a
 * failed operation, 2 usage, HIPSIM_EXIT_SKIP (77) no GPU (nothing run).
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/calibrate.h"
#include "tools/hipsim/driver.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/options.h"
#include "tools/hipsim/variant.h"
#include "tools/hipsim/via_trace.h"
#include "tools/hipsim/workloads.h"

#define VALIDATE_MAX_OPS 32

static const char *const all_workloads[] = { "service", "training", "inference", "loader" };

struct vrun {
	uint64_t peak_in_use, peak_reserved, device_allocs, host_waits;
	uint64_t copies, copy_bytes, launches, failures;
	uint64_t dq_flushes; /* reported, not compared: the policy's effect */
	uint64_t total_ns, blocked_ns;
	uint64_t total_min_ns, total_max_ns; /* over the repeats (measured side) */
	char first_failure[1024];
	/* Host time by backend call (hc_device_op_times), and what is left of
	 * total_ns outside every call: the library's own host work. */
	hc_op_time ops[VALIDATE_MAX_OPS];
	size_t nops;
	uint64_t outside_ns;
	/* --call-times: time inside each kind of public call and the driver's
	 * sampling; total_ns less all of them is the driver's own code. */
	struct hs_call_time call[HS_CALL_KINDS];
};

static int run_one(const char *backend, const char *profile, const struct workload *w,
		   const struct workload_params *wp, const struct hs_variant *var, bool call_times,
		   struct vrun *out)
{
	struct hs_options opt = { .backend = backend, .profile = profile, .seed = wp->seed,
				  .model_kernels = true, .op_times = true, .call_times = call_times };
	hc_op_time ops[VALIDATE_MAX_OPS];
	size_t nops = 0;
	uint64_t in_ops = 0;
	struct hs_driver d;
	struct hs_report r;
	uint64_t t0 = 0;

	if (strcmp(backend, "hip") == 0)
		opt.profile = NULL;
	hs_variant_apply(var, &opt);
	workload_prepare(wp->seed);
	if (hs_driver_open(&d, &opt) != 0)
		return -1;
	if (hs_variant_set_policy(&d, "validate") != 0) {
		hs_driver_close(&d);
		return -1;
	}
	hc_device_now(d.dev, &t0);
	w->run(&d, wp);
	hs_driver_report(&d, w->name, &r);
	if (hc_device_op_times(d.dev, ops, VALIDATE_MAX_OPS, &nops) != HC_OK)
		nops = 0;
	hs_driver_close(&d);
	memset(out, 0, sizeof(*out));
	out->nops = nops < VALIDATE_MAX_OPS ? nops : VALIDATE_MAX_OPS;
	memcpy(out->ops, ops, out->nops * sizeof(ops[0]));
	for (size_t i = 0; i < out->nops; i++)
		in_ops += ops[i].host_ns;
	out->peak_in_use = r.peak_in_use_bytes;
	out->peak_reserved = r.peak_reserved_bytes;
	out->device_allocs = r.stats.device_allocs;
	out->host_waits = r.stats.host_waits;
	out->copies = r.stats.copies_h2d + r.stats.copies_d2h + r.stats.copies_d2d;
	out->copy_bytes = r.stats.bytes_h2d + r.stats.bytes_d2h;
	out->launches = r.stats.launches;
	out->failures = r.failures;
	out->dq_flushes = r.stats.dq_flushes;
	out->total_ns = r.device_ns - (t0 - d.clock_start_ns); /* from t0, not from the open */
	out->total_min_ns = out->total_max_ns = out->total_ns;
	out->blocked_ns = r.stats.host_blocked_ns;
	out->outside_ns = out->total_ns > in_ops ? out->total_ns - in_ops : 0;
	memcpy(out->call, r.call, sizeof(out->call));
	snprintf(out->first_failure, sizeof(out->first_failure), "%s", r.first_failure);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Runs @n times into @out: times are medians; false when a figure other
 * than time differs between runs. */
static int run_repeated(const char *backend, const struct workload *w,
			const struct workload_params *wp, const struct hs_variant *var,
			bool call_times, unsigned n, struct vrun *out, bool *stable)
{
	uint64_t tot[64], blk[64], out_ns[64], op_ns[VALIDATE_MAX_OPS][64];
	uint64_t call_ns[HS_CALL_KINDS][64];
	struct vrun r;

	*stable = true;
	for (unsigned i = 0; i < n; i++) {
		if (run_one(backend, NULL, w, wp, var, call_times, &r) != 0)
			return -1;
		if (i == 0)
			*out = r;
		else if (r.peak_in_use != out->peak_in_use || r.peak_reserved != out->peak_reserved ||
			 r.device_allocs != out->device_allocs || r.host_waits != out->host_waits ||
			 r.copies != out->copies || r.copy_bytes != out->copy_bytes ||
			 r.launches != out->launches || r.failures != out->failures)
			*stable = false;
		tot[i] = r.total_ns;
		blk[i] = r.blocked_ns;
		out_ns[i] = r.outside_ns;
		for (size_t k = 0; k < out->nops; k++)
			op_ns[k][i] = k < r.nops ? r.ops[k].host_ns : 0;
		for (size_t k = 0; k < HS_CALL_KINDS; k++)
			call_ns[k][i] = r.call[k].ns;
	}
	qsort(tot, n, sizeof(tot[0]), cmp_u64);
	qsort(blk, n, sizeof(blk[0]), cmp_u64);
	qsort(out_ns, n, sizeof(out_ns[0]), cmp_u64);
	out->total_ns = tot[n / 2];
	out->total_min_ns = tot[0];
	out->total_max_ns = tot[n - 1];
	out->blocked_ns = blk[n / 2];
	out->outside_ns = out_ns[n / 2];
	for (size_t k = 0; k < out->nops; k++) {
		qsort(op_ns[k], n, sizeof(op_ns[k][0]), cmp_u64);
		out->ops[k].host_ns = op_ns[k][n / 2];
	}
	for (size_t k = 0; k < HS_CALL_KINDS; k++) {
		qsort(call_ns[k], n, sizeof(call_ns[k][0]), cmp_u64);
		out->call[k].ns = call_ns[k][n / 2];
	}
	return 0;
}

static double err_pct(uint64_t measured, uint64_t predicted)
{
	if (measured == 0)
		return predicted == 0 ? 0.0 : INFINITY;
	return 100.0 * ((double)predicted - (double)measured) / (double)measured;
}

struct vresult {
	const char *workload;
	const char *variant; /* hs_variant_str() */
	struct vrun m, p;
	bool memory_same, counts_same, stable, calls;
	unsigned repeats;
	double total_err, blocked_err;
};

/* Host time by backend call, both sides: which op's model is off.  The
 * measured side's times are per-op medians over the repeats. */
static void print_ops(FILE *f, const struct vresult *v)
{
	fprintf(f, "  host time by backend call (ms; calls measured/predicted):\n");
	for (size_t i = 0; i < v->m.nops && i < v->p.nops; i++) {
		const hc_op_time *m = &v->m.ops[i], *p = &v->p.ops[i];

		if (!m->calls && !p->calls)
			continue;
		fprintf(f, "    %-18s %7" PRIu64 "/%-7" PRIu64 " %12.3f %12.3f  %+.1f %%\n", m->op,
			m->calls, p->calls, (double)m->host_ns / 1e6, (double)p->host_ns / 1e6,
			err_pct(m->host_ns, p->host_ns));
	}
	fprintf(f, "    %-18s %15s %12.3f %12.3f  %+.1f %%\n", "outside the calls", "",
		(double)v->m.outside_ns / 1e6, (double)v->p.outside_ns / 1e6,
		err_pct(v->m.outside_ns, v->p.outside_ns));
}

/* --call-times: time inside each kind of public call, both sides, and
 * what is left of the total: the harness's own code between calls. */
static void print_calls(FILE *f, const struct vresult *v)
{
	uint64_t in_m = 0, in_p = 0, rest_m, rest_p;

	fprintf(f, "  time inside public calls (ms; calls measured/predicted):\n");
	for (size_t k = 0; k < HS_CALL_KINDS; k++) {
		const struct hs_call_time *m = &v->m.call[k], *p = &v->p.call[k];

		in_m += m->ns;
		in_p += p->ns;
		if (!m->calls && !p->calls)
			continue;
		fprintf(f, "    %-18s %7" PRIu64 "/%-7" PRIu64 " %12.3f %12.3f  %+.1f %%\n",
			hs_call_names[k], m->calls, p->calls, (double)m->ns / 1e6,
			(double)p->ns / 1e6, err_pct(m->ns, p->ns));
	}
	rest_m = v->m.total_ns > in_m ? v->m.total_ns - in_m : 0;
	rest_p = v->p.total_ns > in_p ? v->p.total_ns - in_p : 0;
	fprintf(f, "    %-18s %15s %12.3f %12.3f  %+.1f %%\n", "between the calls", "",
		(double)rest_m / 1e6, (double)rest_p / 1e6, err_pct(rest_m, rest_p));
}

static void print_table(FILE *f, const struct vresult *v)
{
#define ROW_EQ(name, field)                                                                    \
	fprintf(f, "  %-22s %16" PRIu64 " %16" PRIu64 "  %s\n", name, v->m.field, v->p.field,   \
		v->m.field == v->p.field ? "identical" : "DIFFERENT")
	if (!v->stable)
		fprintf(f, "workload %s: the measured runs VARY between repeats (figures of run 1)\n",
			v->workload);
	fprintf(f, "workload %s, %s (measured: median of %u runs)\n  %-22s %16s %16s  %s\n",
		v->workload, v->variant, v->repeats, "metric", "measured", "predicted (sim)", "error");
	ROW_EQ("peak in use, bytes", peak_in_use);
	ROW_EQ("peak reserved, bytes", peak_reserved);
	ROW_EQ("device allocations", device_allocs);
	ROW_EQ("host waits", host_waits);
	ROW_EQ("copies", copies);
	ROW_EQ("bytes copied", copy_bytes);
	ROW_EQ("launches", launches);
	fprintf(f, "  %-22s %16" PRIu64 " %16" PRIu64 "  %s\n", "drop-queue flushes",
		v->m.dq_flushes, v->p.dq_flushes, "(not compared)");
	fprintf(f, "  %-22s %16.3f %16.3f  %+.1f %%\n", "total time, ms", (double)v->m.total_ns / 1e6,
		(double)v->p.total_ns / 1e6, v->total_err);
	if (v->repeats > 1) /* the measurement's own noise, beside the error */
		fprintf(f, "  %-22s %16s %16s  %.3f-%.3f ms (%.1f %% of the median)\n",
			"measured runs spread", "", "", (double)v->m.total_min_ns / 1e6,
			(double)v->m.total_max_ns / 1e6,
			v->m.total_ns ? 100.0 * (double)(v->m.total_max_ns - v->m.total_min_ns) /
						(double)v->m.total_ns
				      : 0.0);
	fprintf(f, "  %-22s %16.3f %16.3f  %+.1f %%\n", "host blocked, ms",
		(double)v->m.blocked_ns / 1e6, (double)v->p.blocked_ns / 1e6, v->blocked_err);
	fprintf(f, "  %-22s %16s %16s  %s\n", "copy time", "n/a", "n/a",
		"not counted by hc_device_stats");
	print_ops(f, v);
	if (v->calls)
		print_calls(f, v);
	fprintf(f, "  overall: memory %s, time error %+.1f %% (target within 10 %%)\n",
		v->memory_same && v->counts_same ? "exact" : "DIFFERS", v->total_err);
	if (v->m.failures || v->p.failures)
		fprintf(f, "  failures: measured %" PRIu64 " (%s), predicted %" PRIu64 " (%s)\n",
			v->m.failures, v->m.first_failure, v->p.failures, v->p.first_failure);
#undef ROW_EQ
}

static json_t *ops_json(const struct vrun *r)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < r->nops; i++)
		if (r->ops[i].calls)
			json_object_set_new(o, r->ops[i].op,
					    json_pack("{sIsI}", "calls", (json_int_t)r->ops[i].calls,
						      "host_ns", (json_int_t)r->ops[i].host_ns));
	return o;
}

static json_t *calls_json(const struct vrun *r)
{
	json_t *o = json_object();

	for (size_t k = 0; o && k < HS_CALL_KINDS; k++)
		if (r->call[k].calls)
			json_object_set_new(o, hs_call_names[k],
					    json_pack("{sIsI}", "calls", (json_int_t)r->call[k].calls,
						      "ns", (json_int_t)r->call[k].ns));
	return o;
}

static json_t *run_json(const struct vrun *r, bool calls)
{
	json_t *o = json_pack("{sIsIsIsIsIsIsIsIsIsI}", "peak_in_use_bytes", (json_int_t)r->peak_in_use,
			 "peak_reserved_bytes", (json_int_t)r->peak_reserved, "device_allocs",
			 (json_int_t)r->device_allocs, "host_waits", (json_int_t)r->host_waits,
			 "copies", (json_int_t)r->copies, "bytes_copied", (json_int_t)r->copy_bytes,
			 "launches", (json_int_t)r->launches, "failures", (json_int_t)r->failures,
			 "total_ns", (json_int_t)r->total_ns, "host_blocked_ns",
			 (json_int_t)r->blocked_ns);

	if (o) {
		json_object_set_new(o, "dq_flushes", json_integer((json_int_t)r->dq_flushes));
		json_object_set_new(o, "total_min_ns", json_integer((json_int_t)r->total_min_ns));
		json_object_set_new(o, "total_max_ns", json_integer((json_int_t)r->total_max_ns));
		json_object_set_new(o, "op_times", ops_json(r));
		json_object_set_new(o, "outside_ops_ns", json_integer((json_int_t)r->outside_ns));
		if (calls)
			json_object_set_new(o, "call_times", calls_json(r));
	}
	return o;
}

static json_t *result_json(const struct vresult *v)
{
	json_t *o = json_pack("{sssosososbsbsbsI}", "workload", v->workload, "measured",
			      run_json(&v->m, v->calls), "predicted", run_json(&v->p, v->calls), "copy_time", json_null(),
			      "memory_identical", v->memory_same, "counts_identical", v->counts_same,
			      "measured_stable", v->stable, "measured_runs", (json_int_t)v->repeats);

	if (o) {
		json_object_set_new(o, "total_time_error_pct",
				    isfinite(v->total_err) ? json_real(v->total_err) : json_null());
		json_object_set_new(o, "host_blocked_error_pct",
				    isfinite(v->blocked_err) ? json_real(v->blocked_err) : json_null());
	}
	return o;
}

/*
 * --via-trace: the measured runs (untraced, median of the repeats) beside
 * one run recorded with LTTng and its kernels timed, and that trace
 * replayed on the simulator (via_trace.c).  Memory must be identical in
 * all three; the time error is the replay's against the untraced runs
 * (what the program costs without a tracer), the recorded run's time
 * beside it (tracing and the kernels' timing events included).
 */
struct vtresult {
	const char *workload;
	const char *variant; /* hs_variant_str() */
	struct vrun m;
	struct hs_vt_result t;
	unsigned repeats;
	bool stable, memory_same, ok;
	double err, err_recorded;
};

static void vt_compute(struct vtresult *v)
{
	const struct hs_vt_figures *r = &v->t.recorded, *p = &v->t.replayed;

	v->memory_same = v->m.peak_in_use == r->peak_in_use && r->peak_in_use == p->peak_in_use &&
			 v->m.peak_reserved == r->peak_reserved &&
			 r->peak_reserved == p->peak_reserved &&
			 v->m.device_allocs == r->device_allocs &&
			 r->device_allocs == p->device_allocs &&
			 v->m.copy_bytes == r->bytes_copied && r->bytes_copied == p->bytes_copied &&
			 v->m.launches == r->launches && r->launches == p->launches;
	v->err = err_pct(v->m.total_ns, p->device_ns);
	v->err_recorded = err_pct(r->device_ns, p->device_ns);
}

static void vt_print(FILE *f, const struct vtresult *v)
{
	const struct hs_vt_figures *r = &v->t.recorded, *p = &v->t.replayed;

#define VT_ROW(name, mf, rf)                                                                    	fprintf(f, "  %-22s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n", name, v->m.mf, r->rf, 		p->rf, v->m.mf == r->rf && r->rf == p->rf ? "identical" : "DIFFERENT")
	fprintf(f, "workload %s, %s, via its trace (measured: median of %u untraced runs; "
		   "recorded: one run under hipsim record, kernels timed; predicted: its trace "
		   "replayed)\n",
		v->workload, v->variant, v->repeats);
	if (!v->ok) {
		fprintf(f, "  via trace FAILED: %s\n", v->t.why);
		return;
	}
	fprintf(f, "  %-22s %14s %14s %14s\n", "metric", "measured", "recorded", "predicted");
	VT_ROW("peak in use, bytes", peak_in_use, peak_in_use);
	VT_ROW("peak reserved, bytes", peak_reserved, peak_reserved);
	VT_ROW("device allocations", device_allocs, device_allocs);
	VT_ROW("bytes copied", copy_bytes, bytes_copied);
	VT_ROW("launches", launches, launches);
#undef VT_ROW
	fprintf(f, "  %-22s %14.3f %14.3f %14.3f  %+.1f %% (against the recorded run %+.1f %%)\n",
		"total time, ms", (double)v->m.total_ns / 1e6, (double)r->device_ns / 1e6,
		(double)p->device_ns / 1e6, v->err, v->err_recorded);
	fprintf(f, "  overall: memory %s, time error %+.1f %% (target within 10 %%)\n",
		v->memory_same ? "exact" : "DIFFERS", v->err);
	if (v->m.failures || r->failures || p->failures)
		fprintf(f, "  failures: measured %" PRIu64 ", recorded %" PRIu64 ", replayed %" PRIu64 "\n",
			v->m.failures, r->failures, p->failures);
}

static json_t *vt_fig_json(const struct hs_vt_figures *x)
{
	return json_pack("{sIsIsIsIsIsIsIsI}", "device_time_ns", (json_int_t)x->device_ns,
			 "peak_in_use_bytes", (json_int_t)x->peak_in_use, "peak_reserved_bytes",
			 (json_int_t)x->peak_reserved, "device_allocs", (json_int_t)x->device_allocs,
			 "bytes_copied", (json_int_t)x->bytes_copied, "launches",
			 (json_int_t)x->launches, "events", (json_int_t)x->events, "failures",
			 (json_int_t)x->failures);
}

static json_t *vt_json(const struct vtresult *v)
{
	json_t *o = json_pack("{sssbsosIsb}", "workload", v->workload, "via_trace", 1, "measured",
			      run_json(&v->m, false), "measured_runs", (json_int_t)v->repeats,
			      "measured_stable", v->stable);

	if (!o)
		return NULL;
	if (!v->ok) {
		json_object_set_new(o, "error", json_string(v->t.why));
		return o;
	}
	json_object_set_new(o, "recorded", vt_fig_json(&v->t.recorded));
	json_object_set_new(o, "predicted", vt_fig_json(&v->t.replayed));
	json_object_set_new(o, "memory_identical", json_boolean(v->memory_same));
	json_object_set_new(o, "total_time_error_pct",
			    isfinite(v->err) ? json_real(v->err) : json_null());
	json_object_set_new(o, "recorded_time_error_pct",
			    isfinite(v->err_recorded) ? json_real(v->err_recorded) : json_null());
	return o;
}

static void validate_usage(FILE *out)
{
	fprintf(out,
		"usage: hipsim validate [OPTIONS]\n"
		"Runs built-in workloads on the GPU (hip) and on the simulator and compares them.\n\n"
		"  --profile FILE    simulator profile (default built-in; use `hipsim calibrate`'s)\n"
		"  --workload NAME   service, training, inference, loader or all (default all)\n"
		"  --steps N         workload steps (default 200)\n"
		"  --streams N       streams (default 4)\n"
		"  --seed N          workload seed (default 1)\n"
		"  --json            print JSON instead of tables\n"
		"  --repeats N       measured runs per workload, times are medians (default 3)\n"
		"  --call-times      also time each kind of public call the workloads make and\n"
		"                    the harness's memory sampling, both sides (two clock reads\n"
		"                    per call, which the totals then include)\n"
		"  --measure-on sim  measure on the simulator (built-in profile) instead of a GPU:\n"
		"                    a self-test of the harness that runs without a GPU\n"
		"  --via-trace       predict from a recording instead: record one run with\n"
		"                    `hipsim record` (kernels timed: HIPCORE_TIME_KERNELS=1) and\n"
		"                    replay its trace on the simulator with --profile\n"
		"  --provider SO     the LTTng probe module for the recording (hipsim record\n"
		"                    --provider; default: the installed one)\n"
		"  --keep-traces DIR keep the traces and both reports in DIR\n"
		"  --trace-timeout S each recording and replay at most S seconds (default 300)\n"
		"The variant, for every run (measured, predicted, recorded and replayed):\n"
		HS_VARIANT_USAGE "\n"
		"Exit status: 0 memory figures identical, 1 a difference or a failed operation,\n"
		"2 usage, 77 no GPU (the hip backend did not open; nothing was compared).\n");
}

int hipsim_validate_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, 0, 'p' }, { "workload", required_argument, 0, 'w' },
		{ "steps", required_argument, 0, 'n' },   { "streams", required_argument, 0, 's' },
		{ "seed", required_argument, 0, 'S' },    { "json", no_argument, 0, 'j' },
		{ "measure-on", required_argument, 0, 'm' }, { "repeats", required_argument, 0, 'r' },
		{ "call-times", no_argument, 0, 'C' },	{ "help", no_argument, 0, 'h' },
		{ "via-trace", no_argument, 0, 'V' },	{ "provider", required_argument, 0, 'L' },
		{ "keep-traces", required_argument, 0, 'K' },
		{ "trace-timeout", required_argument, 0, 'T' },
		HS_VARIANT_LONGOPTS,
		{ 0, 0, 0, 0 },
	};
	struct hs_vt_args vt = { .timeout_s = 300 };
	struct hs_variant var = { 0 };
	char variant[256];
	bool via_trace = false;
	struct workload_params wp = { .steps = 200, .streams = 4, .seed = 1 };
	const char *profile = NULL, *workload = "all", *measured = "hip";
	char profile_path[4096];
	const char *names[4];
	size_t nnames = 0;
	bool json = false, call_times = false;
	unsigned repeats = 3;
	json_t *arr = NULL;
	int c, rc, status = HIPSIM_EXIT_OK;
	hc_device probe;
	hc_error_info e;
	hc_status st;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		uint64_t v = 0;

		switch (c) {
		case 'p': profile = hs_profile_find(optarg, profile_path, sizeof(profile_path)); break;
		case 'w': workload = optarg; break;
		case 'n':
			if (hs_opt_number("validate", "--steps", optarg, 1, HS_MAX_STEPS, &wp.steps))
				return HIPSIM_EXIT_USAGE;
			break;
		case 's':
			if (hs_opt_number("validate", "--streams", optarg, 1, HS_MAX_STREAMS, &v))
				return HIPSIM_EXIT_USAGE;
			wp.streams = (uint32_t)v;
			break;
		case 'S':
			if (hs_opt_number("validate", "--seed", optarg, 0, UINT64_MAX, &wp.seed))
				return HIPSIM_EXIT_USAGE;
			break;
		case 'r':
			if (hs_opt_number("validate", "--repeats", optarg, 1, 63, &v))
				return HIPSIM_EXIT_USAGE;
			repeats = (unsigned)v;
			break;
		case 'j': json = true; break;
		case 'C': call_times = true; break;
		case 'V': via_trace = true; break;
		case 'L': vt.provider = optarg; break;
		case 'K': vt.keep_dir = optarg; break;
		case 'T':
			if (hs_opt_number("validate", "--trace-timeout", optarg, 1, 86400, &v))
				return HIPSIM_EXIT_USAGE;
			vt.timeout_s = (unsigned)v;
			break;
		case 'm':
			if (strcmp(optarg, "hip") != 0 && strcmp(optarg, "sim") != 0) {
				fprintf(stderr, "hipsim validate: --measure-on takes hip or sim\n");
				return HIPSIM_EXIT_USAGE;
			}
			measured = optarg;
			break;
		case 'h': validate_usage(stdout); return HIPSIM_EXIT_OK;
		default:
			if ((rc = hs_variant_option(&var, "validate", c, optarg)) > 0)
				break;
			if (rc == 0)
				validate_usage(stderr);
			return HIPSIM_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hipsim validate: unexpected argument '%s'\n", argv[optind]);
		return HIPSIM_EXIT_USAGE;
	}
	if (strcmp(workload, "all") == 0) {
		for (size_t i = 0; i < 4; i++)
			names[nnames++] = all_workloads[i];
	} else if (workload_find(workload)) {
		names[nnames++] = workload;
	} else {
		fprintf(stderr, "hipsim validate: unknown workload '%s' (try --help)\n", workload);
		return HIPSIM_EXIT_USAGE;
	}
	{ /* a bad profile is a usage error, before any GPU work */
		struct hc_sim_profile p;

		hc_sim_profile_builtin(&p);
		st = profile ? hc_sim_profile_load(profile, &p) : HC_OK;
		if (st != HC_OK) {
			hc_last_error(&e);
			fprintf(stderr, "hipsim validate: %s\n", e.message);
			return HIPSIM_EXIT_USAGE;
		}
		if (!p.kernel_ns_per_mib && strcmp(measured, "hip") == 0)
			fprintf(stderr, "hipsim validate: the profile %s has no kernel model "
					"(kernel_per_mib 0): each kernel is predicted at kernel_default "
					"(%llu ns); calibrate one with this hipsim\n",
				profile ? profile : "built-in",
				(unsigned long long)p.kernel_default_ns);
	}
	st = hc_device_open(measured, NULL, &probe);
	if (st != HC_OK) {
		hc_last_error(&e);
		fprintf(stderr, "hipsim validate: skipped: no GPU (hip backend: %s: %s)\n",
			hc_status_str(st), e.message);
		return HIPSIM_EXIT_SKIP;
	}
	hc_device_close(probe);
	if (json)
		arr = json_array();
	hs_variant_str(&var, variant, sizeof(variant));
	vt.measured = measured;
	vt.profile = profile;
	vt.variant = &var;
	for (size_t i = 0; via_trace && i < nnames; i++) {
		const struct workload *w = workload_find(names[i]);
		struct vtresult v = { .workload = w->name, .variant = variant, .repeats = repeats };

		if (run_repeated(measured, w, &wp, &var, false, repeats, &v.m, &v.stable) != 0) {
			status = HIPSIM_EXIT_FAILED;
			continue;
		}
		v.ok = hs_via_trace(&vt, w->name, &wp, &v.t) == 0;
		if (v.ok)
			vt_compute(&v);
		if (!v.ok || !v.memory_same || !v.stable || v.m.failures || v.t.recorded.failures ||
		    v.t.replayed.failures)
			status = HIPSIM_EXIT_FAILED;
		if (arr)
			json_array_append_new(arr, vt_json(&v));
		else
			vt_print(stdout, &v);
		fflush(stdout);
	}
	for (size_t i = 0; !via_trace && i < nnames; i++) {
		const struct workload *w = workload_find(names[i]);
		struct vresult v = { .workload = w->name, .variant = variant, .repeats = repeats,
				     .calls = call_times };

		if (run_repeated(measured, w, &wp, &var, call_times, repeats, &v.m, &v.stable) != 0 ||
		    run_one("sim", profile, w, &wp, &var, call_times, &v.p) != 0) {
			status = HIPSIM_EXIT_FAILED;
			continue;
		}
		v.memory_same = v.m.peak_in_use == v.p.peak_in_use &&
				v.m.peak_reserved == v.p.peak_reserved &&
				v.m.device_allocs == v.p.device_allocs;
		v.counts_same = v.m.host_waits == v.p.host_waits && v.m.copies == v.p.copies &&
				v.m.copy_bytes == v.p.copy_bytes && v.m.launches == v.p.launches;
		v.total_err = err_pct(v.m.total_ns, v.p.total_ns);
		v.blocked_err = err_pct(v.m.blocked_ns, v.p.blocked_ns);
		if (!v.memory_same || !v.counts_same || !v.stable || v.m.failures || v.p.failures)
			status = HIPSIM_EXIT_FAILED;
		if (arr)
			json_array_append_new(arr, result_json(&v));
		else
			print_table(stdout, &v);
	}
	if (arr) {
		/* with the variant that produced the figures (0: the library's
		 * default), before the workloads' figures */
		json_t *top = json_pack("{sssssIsIsIsssIsIsIso}", "measured_on", measured, "profile",
					profile ? profile : "built-in", "steps",
					(json_int_t)wp.steps, "streams", (json_int_t)wp.streams,
					"seed", (json_int_t)wp.seed, "pools",
					var.pools ? var.pools : "default", "flush_count",
					(json_int_t)var.policy.dq_max_count, "flush_bytes",
					(json_int_t)var.policy.dq_max_bytes, "stage_max",
					(json_int_t)var.policy.stage_max_bytes, "workloads", arr);

		if (!top) {
			fprintf(stderr, "hipsim validate: out of memory for the JSON\n");
			return HIPSIM_EXIT_FAILED;
		}
		json_dumpf(top, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(top);
	}
	return status;
}
