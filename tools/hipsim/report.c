/*
 * report.c - hipsim's outputs: a readable text report, JSON (jansson), and
 * an SVG plot of memory over virtual time, per stream and device-wide
 * (drawn by svg.c).  Text, JSON and SVG come from the same struct
 * hs_report, so they always agree, and each records the options that
 * produced it, so that two reports can be told apart (hipsim compare).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "tools/hipsim/driver.h"
#include "tools/hipsim/svg.h"

static void bytes_str(char *buf, size_t len, uint64_t b)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
}

/* A line for events of a trace that begins mid-run, when there were any. */
static void midrun_text(FILE *out, const char *label, const struct hs_midrun *m, const char *what)
{
	if (!m->count)
		return;
	fprintf(out, "  %s %" PRIu64 " (first at event %" PRIu64, label, m->count, m->first_event);
	if (m->first_line)
		fprintf(out, ", line %" PRIu64, m->first_line);
	fprintf(out, "): %s\n", what);
}

static json_t *midrun_json(const struct hs_midrun *m)
{
	if (!m->count)
		return json_null();
	return json_pack("{s:I, s:o}", "event", (json_int_t)m->first_event, "line",
			 m->first_line ? json_integer((json_int_t)m->first_line) : json_null());
}

/* "default" for a policy field left to the library (0), else the number. */
static const char *policy_str(char *buf, size_t len, uint64_t v)
{
	if (!v)
		return "default";
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

void hs_report_options(const struct hs_report *r, char *buf, size_t len)
{
	const struct hs_options *o = &r->opt;
	char cap[32], n[3][24];
	int w;

	bytes_str(cap, sizeof(cap), r->capacity_bytes);
	w = snprintf(buf, len, "pools %s, seed %" PRIu64 ", profile %s, capacity %s, backend %s%s%s",
		     o->pools ? o->pools : "default", o->seed, o->profile ? o->profile : "built-in",
		     cap, o->backend ? o->backend : "sim", o->data_mode ? ", data mode" : "",
		     o->model_kernels ? ", kernels without hints" : "");
	if (w < 0 || (size_t)w >= len)
		return;
	if (o->trace || o->policy.dq_max_count || o->policy.dq_max_bytes || o->policy.stage_max_bytes)
		w += snprintf(buf + w, len - (size_t)w,
			      ", flush-count %s, flush-bytes %s, stage-max %s",
			      policy_str(n[0], sizeof(n[0]), o->policy.dq_max_count),
			      policy_str(n[1], sizeof(n[1]), o->policy.dq_max_bytes),
			      policy_str(n[2], sizeof(n[2]), o->policy.stage_max_bytes));
	if (!o->trace && w >= 0 && (size_t)w < len)
		w += snprintf(buf + w, len - (size_t)w, ", steps %" PRIu64 ", streams %" PRIu32,
			      o->steps, o->streams);
}

void hs_report_text(FILE *out, const struct hs_report *r)
{
	char opts[1024];

	char a[32], b[32], c[32], h[32], dd[32];

	bytes_str(a, sizeof(a), r->peak_in_use_bytes);
	bytes_str(b, sizeof(b), r->peak_reserved_bytes);
	bytes_str(c, sizeof(c), r->padding_bytes_peak);
	bytes_str(h, sizeof(h), r->stats.bytes_h2d);
	bytes_str(dd, sizeof(dd), r->stats.bytes_d2h);
	hs_report_options(r, opts, sizeof(opts));
	fprintf(out, "hipsim report: %s %s on %s (%s)\n", r->opt.trace ? "trace" : "workload",
		r->workload, r->backend, r->device);
	fprintf(out, "  options .............. %s\n", opts);
	fprintf(out, "  events ............... %" PRIu64 " on %" PRIu64 " streams\n", r->events,
		r->streams);
	if (r->measured)
		fprintf(out, "  measured time ........ %.3f ms (device clock, from the device's open)\n",
			(double)r->device_ns / 1e6);
	else
		fprintf(out, "  predicted time ....... %.3f ms (virtual)\n", (double)r->device_ns / 1e6);
	fprintf(out, "  memory in use, peak .. %s\n", a);
	fprintf(out, "  reserved, peak ....... %s", b);
	if (r->peak_in_use_bytes)
		fprintf(out, " (%.3f x in use)", (double)r->peak_reserved_bytes /
						   (double)r->peak_in_use_bytes);
	fprintf(out, "\n  padding, peak ........ %s\n", c);
	fprintf(out, "  device allocations ... %" PRIu64 " allocs, %" PRIu64 " frees\n",
		r->stats.device_allocs, r->stats.device_frees);
	if (r->stats.device_maps || r->stats.device_unmaps)
		fprintf(out, "  device mappings ...... %" PRIu64 " maps, %" PRIu64 " unmaps\n",
			r->stats.device_maps, r->stats.device_unmaps);
	fprintf(out, "  pinned allocations ... %" PRIu64 " allocs, %" PRIu64 " frees\n",
		r->stats.pinned_allocs, r->stats.pinned_frees);
	fprintf(out, "  copied ............... %s host->device in %" PRIu64 " copies, %s device->host in %" PRIu64 "\n",
		h, r->stats.copies_h2d, dd, r->stats.copies_d2h);
	fprintf(out, "  writes ............... %" PRIu64 " staged, %" PRIu64 " direct, %" PRIu64 " pipelined\n",
		r->stats.writes_staged, r->stats.writes_direct, r->stats.writes_pipelined);
	fprintf(out, "  launches ............. %" PRIu64 "\n", r->stats.launches);
	fprintf(out, "  host waits ........... %" PRIu64 " (%.3f ms blocked)\n", r->stats.host_waits,
		(double)r->stats.host_blocked_ns / 1e6);
	fprintf(out, "  drop-queue flushes ... %" PRIu64 "\n", r->stats.dq_flushes);
	fprintf(out, "  cross-stream waits ... %" PRIu64 "\n", r->stats.xstream_waits);
	if (r->opt.data_mode) {
		bytes_str(dd, sizeof(dd), r->reads.bytes);
		fprintf(out, "  bytes read back ...... %s in %" PRIu64 " reads, checksum %016" PRIx64 "\n",
			dd, r->reads.reads, r->reads.hash);
	}
	fprintf(out, "  failures ............. %" PRIu64, r->failures);
	if (r->first_failing_event >= 0)
		fprintf(out, " (first at event %" PRId64 ": %s)", r->first_failing_event,
			r->first_failure);
	fprintf(out, "\n  wall time ............ %.3f ms (%.0f events/s)\n",
		(double)r->replay_wall_ns / 1e6, r->replay_events_per_s);
	midrun_text(out, "unknown frees ........", &r->unknown_frees, "frees of buffers the trace did not hold");
	midrun_text(out, "live allocations .....", &r->live_allocs, "allocations of buffers the trace held");
	if (r->partial)
		fprintf(out, "  partial .............. yes: %s\n", r->partial_reason);
}

/* The options that produced @r (hipsim compare lists the ones that differ). */
static json_t *options_json(const struct hs_report *r)
{
	const struct hs_options *o = &r->opt;
	json_t *j = json_object();

	if (!j)
		return json_null();
	if (o->trace)
		json_object_set_new(j, "trace", json_string(o->trace));
	else
		json_object_set_new(j, "workload", json_string(r->workload));
	json_object_set_new(j, "backend", json_string(o->backend ? o->backend : "sim"));
	json_object_set_new(j, "profile", json_string(o->profile ? o->profile : "built-in"));
	json_object_set_new(j, "capacity_bytes", json_integer((json_int_t)r->capacity_bytes));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(j, "data_mode", json_boolean(o->data_mode));
	json_object_set_new(j, "model_kernels", json_boolean(o->model_kernels));
	json_object_set_new(j, "pools", json_string(o->pools ? o->pools : "default"));
	if (o->trace || o->policy.dq_max_count || o->policy.dq_max_bytes ||
	    o->policy.stage_max_bytes) { /* a run records its policy when it set one */
		json_object_set_new(j, "flush_count", json_integer((json_int_t)o->policy.dq_max_count));
		json_object_set_new(j, "flush_bytes", json_integer((json_int_t)o->policy.dq_max_bytes));
		json_object_set_new(j, "stage_max", json_integer((json_int_t)o->policy.stage_max_bytes));
	}
	if (!o->trace) {
		json_object_set_new(j, "steps", json_integer((json_int_t)o->steps));
		json_object_set_new(j, "streams", json_integer((json_int_t)o->streams));
	}
	return j;
}

int hs_report_json(FILE *out, const struct hs_report *r)
{
	json_t *o = json_object();
	int rc;

	if (!o)
		return -1;
	json_object_set_new(o, "workload", json_string(r->workload));
	json_object_set_new(o, "backend", json_string(r->backend));
	json_object_set_new(o, "device", json_string(r->device));
	json_object_set_new(o, "options", options_json(r));
	json_object_set_new(o, "events", json_integer((json_int_t)r->events));
	json_object_set_new(o, "streams", json_integer((json_int_t)r->streams));
	json_object_set_new(o, "peak_in_use_bytes", json_integer((json_int_t)r->peak_in_use_bytes));
	json_object_set_new(o, "peak_reserved_bytes", json_integer((json_int_t)r->peak_reserved_bytes));
	json_object_set_new(o, "device_allocs", json_integer((json_int_t)r->stats.device_allocs));
	json_object_set_new(o, "device_frees", json_integer((json_int_t)r->stats.device_frees));
	json_object_set_new(o, "device_maps", json_integer((json_int_t)r->stats.device_maps));
	json_object_set_new(o, "device_unmaps", json_integer((json_int_t)r->stats.device_unmaps));
	json_object_set_new(o, "pinned_allocs", json_integer((json_int_t)r->stats.pinned_allocs));
	json_object_set_new(o, "pinned_frees", json_integer((json_int_t)r->stats.pinned_frees));
	json_object_set_new(o, "padding_bytes_peak", json_integer((json_int_t)r->padding_bytes_peak));
	json_object_set_new(o, "host_waits", json_integer((json_int_t)r->stats.host_waits));
	json_object_set_new(o, "host_blocked_ns", json_integer((json_int_t)r->stats.host_blocked_ns));
	json_object_set_new(o, "bytes_h2d", json_integer((json_int_t)r->stats.bytes_h2d));
	json_object_set_new(o, "bytes_d2h", json_integer((json_int_t)r->stats.bytes_d2h));
	json_object_set_new(o, "launches", json_integer((json_int_t)r->stats.launches));
	json_object_set_new(o, "writes_staged", json_integer((json_int_t)r->stats.writes_staged));
	json_object_set_new(o, "writes_direct", json_integer((json_int_t)r->stats.writes_direct));
	json_object_set_new(o, "writes_pipelined", json_integer((json_int_t)r->stats.writes_pipelined));
	json_object_set_new(o, "dq_flushes", json_integer((json_int_t)r->stats.dq_flushes));
	json_object_set_new(o, "xstream_waits", json_integer((json_int_t)r->stats.xstream_waits));
	if (r->opt.data_mode) { /* --data: what the reads brought back */
		char h[24];

		snprintf(h, sizeof(h), "%016" PRIx64, r->reads.hash);
		json_object_set_new(o, "read_checksum", json_string(h));
		json_object_set_new(o, "reads_checked", json_integer((json_int_t)r->reads.reads));
		json_object_set_new(o, "bytes_read_back", json_integer((json_int_t)r->reads.bytes));
	}
	json_object_set_new(o, "failures", json_integer((json_int_t)r->failures));
	json_object_set_new(o, "first_failing_event",
			    r->first_failing_event >= 0 ? json_integer(r->first_failing_event)
							: json_null());
	json_object_set_new(o, "first_failure",
			    r->first_failing_event >= 0 ? json_string(r->first_failure) : json_null());
	/* device_time_ns in both kinds of report, so that `hipsim compare`
	 * sets a GPU's measurement beside the simulator's prediction; the
	 * kind's own key too */
	json_object_set_new(o, "time_kind", json_string(r->measured ? "measured" : "predicted"));
	json_object_set_new(o, "device_time_ns", json_integer((json_int_t)r->device_ns));
	json_object_set_new(o, r->measured ? "measured_ns" : "predicted_ns",
			    json_integer((json_int_t)r->device_ns));
	json_object_set_new(o, "replay_wall_ns", json_integer((json_int_t)r->replay_wall_ns));
	json_object_set_new(o, "replay_events_per_s", json_real(r->replay_events_per_s));
	json_object_set_new(o, "unknown_frees", json_integer((json_int_t)r->unknown_frees.count));
	json_object_set_new(o, "first_unknown_free", midrun_json(&r->unknown_frees));
	json_object_set_new(o, "live_allocs", json_integer((json_int_t)r->live_allocs.count));
	json_object_set_new(o, "first_live_alloc", midrun_json(&r->live_allocs));
	json_object_set_new(o, "partial", json_boolean(r->partial));
	json_object_set_new(o, "partial_reason", r->partial ? json_string(r->partial_reason) : json_null());
	rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(o);
	return rc;
}

int hs_report_svg(FILE *f, const struct hs_driver *d, const struct hs_report *r)
{
	char title[1400], opts[1024];

	if (!d->plot || d->plot->oom) {
		fprintf(stderr, "hipsim: no host memory for the --svg plot\n");
		return -1;
	}
	hs_report_options(r, opts, sizeof(opts));
	snprintf(title, sizeof(title), "hipsim: %s on %s (%s): device memory over virtual time",
		 r->workload, r->backend, r->device);
	return hs_svg_write(f, d->plot, d->nstreams, d->clock_start_ns + r->device_ns, title, opts);
}
