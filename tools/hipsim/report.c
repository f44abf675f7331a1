/*
 * report.c - hipsim's outputs: a readable text report, JSON (jansson), and
 * an SVG plot of memory over virtual time, per stream and device-wide.  Text, JSON and SVG come from the
 * same struct hs_report, so they always agree.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>

#include "tools/hipsim/driver.h"

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

void hs_report_text(FILE *out, const struct hs_report *r)
{
	char a[32], b[32], c[32], h[32], dd[32];

	bytes_str(a, sizeof(a), r->peak_in_use_bytes);
	bytes_str(b, sizeof(b), r->peak_reserved_bytes);
	bytes_str(c, sizeof(c), r->padding_bytes_peak);
	bytes_str(h, sizeof(h), r->stats.bytes_h2d);
	bytes_str(dd, sizeof(dd), r->stats.bytes_d2h);
	fprintf(out, "hipsim report: workload %s on %s (%s)\n", r->workload, r->backend, r->device);
	fprintf(out, "  events ............... %" PRIu64 " on %" PRIu64 " streams\n", r->events,
		r->streams);
	fprintf(out, "  predicted time ....... %.3f ms (virtual)\n", (double)r->predicted_ns / 1e6);
	fprintf(out, "  memory in use, peak .. %s\n", a);
	fprintf(out, "  reserved, peak ....... %s", b);
	if (r->peak_in_use_bytes)
		fprintf(out, " (%.3f x in use)", (double)r->peak_reserved_bytes /
						   (double)r->peak_in_use_bytes);
	fprintf(out, "\n  padding, peak ........ %s\n", c);
	fprintf(out, "  device allocations ... %" PRIu64 " allocs, %" PRIu64 " frees\n",
		r->stats.device_allocs, r->stats.device_frees);
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

int hs_report_json(FILE *out, const struct hs_report *r)
{
	json_t *o = json_object();
	int rc;

	if (!o)
		return -1;
	json_object_set_new(o, "workload", json_string(r->workload));
	json_object_set_new(o, "backend", json_string(r->backend));
	json_object_set_new(o, "device", json_string(r->device));
	json_object_set_new(o, "events", json_integer((json_int_t)r->events));
	json_object_set_new(o, "streams", json_integer((json_int_t)r->streams));
	json_object_set_new(o, "peak_in_use_bytes", json_integer((json_int_t)r->peak_in_use_bytes));
	json_object_set_new(o, "peak_reserved_bytes", json_integer((json_int_t)r->peak_reserved_bytes));
	json_object_set_new(o, "device_allocs", json_integer((json_int_t)r->stats.device_allocs));
	json_object_set_new(o, "device_frees", json_integer((json_int_t)r->stats.device_frees));
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
	json_object_set_new(o, "failures", json_integer((json_int_t)r->failures));
	json_object_set_new(o, "first_failing_event",
			    r->first_failing_event >= 0 ? json_integer(r->first_failing_event)
							: json_null());
	json_object_set_new(o, "first_failure",
			    r->first_failing_event >= 0 ? json_string(r->first_failure) : json_null());
	json_object_set_new(o, "predicted_ns", json_integer((json_int_t)r->predicted_ns));
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

/* One step polyline: @stream's samples (or the device totals when @stream
 * is HS_MAX_STREAMS), in use or reserved. */
static void svg_line(FILE *f, const struct hs_driver *d, uint32_t stream, int reserved,
		     const char *style, double x0, double w, double y0, double h, uint64_t tmax,
		     uint64_t ymax)
{
	double px = x0, py = y0;
	int any = 0;

	for (size_t i = 0; i < d->nsamples; i++) {
		const struct hs_sample *p = &d->samples[i];
		uint64_t v;
		double x, y;

		if (stream < HS_MAX_STREAMS && p->stream != stream)
			continue;
		if (stream < HS_MAX_STREAMS)
			v = reserved ? p->reserved : p->in_use;
		else
			v = reserved ? p->dev_reserved : p->dev_in_use;
		x = x0 + w * (double)p->t_ns / (double)tmax;
		y = y0 - h * (double)v / (double)ymax;
		if (!any++)
			fprintf(f, "<polyline fill=\"none\" %s points=\"%.1f,%.1f", style, x0, y0);
		fprintf(f, " %.1f,%.1f %.1f,%.1f", x, py, x, y); /* a step */
		px = x;
		py = y;
	}
	if (any)
		fprintf(f, " %.1f,%.1f\"/>\n", px > x0 + w ? px : x0 + w, py);
}

/*
 * The plot: device totals (in use, reserved) in black and grey, then each
 * stream's in use (solid) and reserved (dashed) in the stream's colour; a
 * legend on the right.  Only integers and %.1f coordinates from the samples
 * go in, so the same samples give the same bytes.
 */
int hs_report_svg(const char *path, const struct hs_driver *d, const struct hs_report *r)
{
	static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
					       "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
					       "#bcbd22", "#17becf" };
	const double W = 1080, H = 520, L = 90, R = 180, T = 40, B = 60;
	const double pw = W - L - R, ph = H - T - B;
	uint64_t tmax = 1, ymax = 1;
	char style[128];
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	for (size_t i = 0; i < d->nsamples; i++) {
		if (d->samples[i].t_ns > tmax)
			tmax = d->samples[i].t_ns;
		if (d->samples[i].dev_reserved > ymax)
			ymax = d->samples[i].dev_reserved;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">hipsim: %s on %s — device memory per "
		   "stream over virtual time</text>\n", L, r->workload, r->backend);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L,
		H - B, L + pw, H - B);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T,
		L, H - B);
	for (int k = 0; k <= 4; k++) {
		double y = H - B - ph * k / 4.0, x = L + pw * k / 4.0;

		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
			L, y, L + pw, y);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.1f MiB</text>\n", L - 6,
			y + 4, (double)ymax * k / 4.0 / 1048576.0);
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3f ms</text>\n", x,
			H - B + 18, (double)tmax * k / 4.0 / 1e6);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">virtual time</text>\n",
		L + pw / 2, H - 15);
	fprintf(f, "<text transform=\"translate(16,%.0f) rotate(-90)\" text-anchor=\"middle\">device "
		   "memory</text>\n", T + ph / 2);

	svg_line(f, d, HS_MAX_STREAMS, 1, "stroke=\"#999999\" stroke-width=\"2\"", L, pw, H - B, ph,
		 tmax, ymax);
	svg_line(f, d, HS_MAX_STREAMS, 0, "stroke=\"black\" stroke-width=\"2\"", L, pw, H - B, ph,
		 tmax, ymax);
	for (uint32_t s = 0; s < d->nstreams; s++) {
		const char *c = palette[s % (sizeof(palette) / sizeof(palette[0]))];

		snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"4 3\"", c);
		svg_line(f, d, s, 1, style, L, pw, H - B, ph, tmax, ymax);
		snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"1.2\"", c);
		svg_line(f, d, s, 0, style, L, pw, H - B, ph, tmax, ymax);
	}

	/* Legend. */
	{
		double x = L + pw + 12, y = T + 4;

		fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\" "
			   "stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.0f\">device in use</text>\n",
			x, y, x + 20, y, x + 26, y + 4);
		y += 16;
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#999999\" "
			   "stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.0f\">device reserved</text>\n",
			x, y, x + 20, y, x + 26, y + 4);
		y += 16;
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">streams: solid in use, dashed reserved</text>\n",
			x, y + 4);
		for (uint32_t s = 0; s < d->nstreams && s < 24; s++) {
			y += 16;
			fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
				   "stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.0f\">stream %u</text>\n",
				x, y, x + 20, y, palette[s % (sizeof(palette) / sizeof(palette[0]))],
				x + 26, y + 4, s);
		}
		if (d->nstreams > 24)
			fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">… %u streams in all</text>\n", x,
				y + 20, d->nstreams);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}
