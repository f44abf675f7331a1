/*
 * svg.c - the --svg plot (svg.h).
 *
 * The canvas is fixed: the plot area on the left, the legend in a column
 * on the right inside the canvas, axis labels in margins sized for the
 * longest label the axes can produce ("1000 KiB", "1000 ms").  Ticks are
 * 1, 2 or 5 times a power of ten of a unit chosen by the range (B to TiB,
 * ns to s), and each axis ends on a tick at or past the largest value, so
 * every line stays inside the frame and the top label says how high it
 * goes.
 *
 * Lines are steps: a value holds until the next sample changes it.  Each
 * bucket of the decimated series (plot.h) becomes at most five points at
 * the time of its first sample: the value held before, the first, the
 * extremes in the order they came, the last.  The device's lines are drawn
 * first and wider, the streams' on top, so that a single stream, whose
 * line is the device's, leaves the device line showing around it.
 *
 * Stream colours walk the hue circle by the golden angle (137.5 degrees),
 * with three lightness levels, so no two of the 64 streams share a colour
 * and neighbours differ most; the device lines are black and grey, which
 * no stream takes.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "tools/hipsim/svg.h"

#define SVG_W 1080.0
#define SVG_H 560.0
#define SVG_L 100.0 /* y labels: "1000 KiB" right-aligned at L - 8 */
#define SVG_R 210.0 /* the legend column */
#define SVG_T 64.0  /* title and subtitle */
#define SVG_B 64.0  /* x labels and the axis title */
#define SVG_PW (SVG_W - SVG_L - SVG_R)
#define SVG_PH (SVG_H - SVG_T - SVG_B)
#define LEGEND_ROW 16.0
#define LEGEND_HEAD_ROWS 5

#define DEV_IN_USE_COLOUR "#000000"
#define DEV_RESERVED_COLOUR "#777777"
#define PEAK_COLOUR "#b0b0b0"

/* --- axes ----------------------------------------------------------------- */

struct unit {
	double size;
	const char *name;
};

static void axis_make(double max, const struct unit *units, size_t nunits, struct hs_axis *a)
{
	size_t u = 0;
	double range, raw, mag, m, step, n;

	while (u + 1 < nunits && max >= units[u + 1].size)
		u++;
	range = max / units[u].size;
	if (range <= 0)
		range = 1;
	raw = range / 5.0;
	mag = pow(10.0, floor(log10(raw)));
	m = raw / mag;
	step = (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * mag;
	n = ceil(range / step - 1e-9);
	if (n < 1)
		n = 1;
	a->unit = units[u].size;
	a->unit_name = units[u].name;
	a->step = step;
	a->nticks = (unsigned)n + 1;
	a->top = n * step * units[u].size;
	a->decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
}

void hs_axis_bytes(uint64_t max, struct hs_axis *a)
{
	static const struct unit units[] = {
		{ 1.0, "B" },
		{ 1024.0, "KiB" },
		{ 1024.0 * 1024.0, "MiB" },
		{ 1024.0 * 1024.0 * 1024.0, "GiB" },
		{ 1024.0 * 1024.0 * 1024.0 * 1024.0, "TiB" },
	};

	axis_make((double)max, units, sizeof(units) / sizeof(units[0]), a);
}

void hs_axis_time(uint64_t max_ns, struct hs_axis *a)
{
	static const struct unit units[] = {
		{ 1.0, "ns" },
		{ 1e3, "\xc2\xb5s" }, /* µs */
		{ 1e6, "ms" },
		{ 1e9, "s" },
	};

	axis_make((double)max_ns, units, sizeof(units) / sizeof(units[0]), a);
}

void hs_axis_label(const struct hs_axis *a, unsigned k, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f %s", a->decimals, a->step * k, a->unit_name);
}

/* --- text ----------------------------------------------------------------- */

/* Length of the UTF-8 sequence at @s (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Writes bytes [@s, @s + @len) escaped; @len ends on a character. */
static void escape_n(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end && *p) {
		size_t n = utf8_len(p);

		if (n == 0 || p + n > end || *p < 0x20 || *p == 0x7f) {
			fputc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(p, 1, n, f); break;
		}
		p += n;
	}
}

void hs_svg_escape(FILE *f, const char *s)
{
	escape_n(f, s, strlen(s));
}

/* @s escaped, at most @max bytes of it: a longer text keeps its start and
 * its end (a trace's file name) around an ellipsis. */
static void escape_fit(FILE *f, const char *s, size_t max)
{
	size_t len = strlen(s), head, tail;

	if (len <= max) {
		escape_n(f, s, len);
		return;
	}
	head = max / 3;
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	tail = len - (max - head - 3);
	while (tail < len && ((unsigned char)s[tail] & 0xc0) == 0x80)
		tail++;
	escape_n(f, s, head);
	fputs("\xe2\x80\xa6", f); /* … */
	escape_n(f, s + tail, len - tail);
}

/* --- colours --------------------------------------------------------------- */

static void stream_colour(uint32_t s, char buf[8])
{
	double h = fmod(s * 137.50776405, 360.0) / 60.0, l = (s / 7) % 3 == 0 ? 0.40 : (s / 7) % 3 == 1 ? 0.30 : 0.52;
	double sat = 0.80, c = (1.0 - fabs(2.0 * l - 1.0)) * sat, x = c * (1.0 - fabs(fmod(h, 2.0) - 1.0));
	double m = l - c / 2.0, r = 0, g = 0, b = 0;

	switch ((int)h) {
	case 0: r = c, g = x; break;
	case 1: r = x, g = c; break;
	case 2: g = c, b = x; break;
	case 3: g = x, b = c; break;
	case 4: r = x, b = c; break;
	default: r = c, b = x; break;
	}
	snprintf(buf, 8, "#%02x%02x%02x", (unsigned)lround((r + m) * 255), (unsigned)lround((g + m) * 255),
		 (unsigned)lround((b + m) * 255));
}

/* --- lines ----------------------------------------------------------------- */

struct frame {
	struct hs_axis x, y;
};

static double fx(const struct frame *fr, uint64_t t)
{
	return SVG_L + SVG_PW * (double)t / fr->x.top;
}

static double fy(const struct frame *fr, uint64_t v)
{
	return SVG_T + SVG_PH - SVG_PH * (double)v / fr->y.top;
}

/* Appends point (@x, @y) unless it repeats the last one. */
static void point(FILE *f, char last[48], double x, double y)
{
	char pt[48];

	snprintf(pt, sizeof(pt), " %.1f,%.1f", x, y);
	if (strcmp(pt, last) == 0)
		return;
	fputs(pt, f);
	memcpy(last, pt, sizeof(pt));
}

static void series_line(FILE *f, const struct frame *fr, const struct hs_plot_series *s,
			uint64_t t_end, const char *id, const char *style)
{
	char last[48] = "";
	uint64_t prev = 0;
	double x = SVG_L;

	if (!s->b)
		return;
	fprintf(f, "<polyline id=\"%s\" fill=\"none\" %s points=\"", id, style);
	point(f, last, x, fy(fr, 0));
	for (uint32_t i = 0; i < HS_PLOT_BUCKETS; i++) {
		const struct hs_plot_bucket *b = &s->b[i];

		if (!b->used)
			continue;
		x = fx(fr, b->t_first);
		point(f, last, x, fy(fr, prev));
		point(f, last, x, fy(fr, b->first));
		point(f, last, x, fy(fr, b->max_last ? b->min : b->max));
		point(f, last, x, fy(fr, b->max_last ? b->max : b->min));
		point(f, last, x, fy(fr, b->last));
		prev = b->last;
	}
	point(f, last, fx(fr, t_end), fy(fr, prev));
	fputs("\"/>\n", f);
}

/* --- the document ---------------------------------------------------------- */

static void axes(FILE *f, const struct frame *fr)
{
	char label[64];

	for (unsigned k = 0; k < fr->y.nticks; k++) {
		double y = SVG_T + SVG_PH - SVG_PH * k / (fr->y.nticks - 1);

		hs_axis_label(&fr->y, k, label, sizeof(label));
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			SVG_L, y, SVG_L + SVG_PW, y, SVG_L - 8, y + 4, label);
	}
	for (unsigned k = 0; k < fr->x.nticks; k++) {
		double x = SVG_L + SVG_PW * k / (fr->x.nticks - 1);

		hs_axis_label(&fr->x, k, label, sizeof(label));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#e4e4e4\"/>"
			   "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			x, SVG_T, x, SVG_T + SVG_PH, x, SVG_T + SVG_PH + 18, label);
	}
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
		   "stroke=\"black\"/>\n", SVG_L, SVG_T, SVG_PW, SVG_PH);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">virtual time</text>\n",
		SVG_L + SVG_PW / 2, SVG_H - 16);
	fprintf(f, "<text transform=\"translate(20,%.0f) rotate(-90)\" text-anchor=\"middle\">device "
		   "memory</text>\n", SVG_T + SVG_PH / 2);
}

static void legend_row(FILE *f, double y, const char *colour, const char *dash, double width,
		       const char *text)
{
	double x = SVG_L + SVG_PW + 16;

	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
		   "stroke-width=\"%.1f\"%s%s%s/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
		x, y, x + 22, y, colour, width, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
		dash ? "\"" : "", x + 28, y + 4, text);
}

static void legend(FILE *f, const struct hs_plot *p, uint32_t nstreams)
{
	double y = SVG_T + 6;
	uint32_t shown = 0, plotted = 0, rows;
	char colour[8], text[64];

	for (uint32_t s = 0; s < nstreams && s < HS_PLOT_STREAMS; s++)
		plotted += p->stream[s][HS_PLOT_IN_USE].b != NULL;
	fprintf(f, "<g font-size=\"11\">\n");
	legend_row(f, y, DEV_IN_USE_COLOUR, NULL, 3, "device in use");
	legend_row(f, y += LEGEND_ROW, DEV_RESERVED_COLOUR, NULL, 3, "device reserved");
	legend_row(f, y += LEGEND_ROW, PEAK_COLOUR, "2 3", 1, "peak reserved");
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">streams: solid in use,</text>\n",
		SVG_L + SVG_PW + 16, (y += LEGEND_ROW) + 4);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">dashed reserved</text>\n", SVG_L + SVG_PW + 16,
		(y += LEGEND_ROW) + 4);
	rows = (uint32_t)(SVG_PH / LEGEND_ROW) - LEGEND_HEAD_ROWS;
	for (uint32_t s = 0; s < nstreams && s < HS_PLOT_STREAMS; s++) {
		if (!p->stream[s][HS_PLOT_IN_USE].b)
			continue;
		if (shown + 1 == rows && plotted > rows) {
			fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">+%" PRIu32 " more streams</text>\n",
				SVG_L + SVG_PW + 16, y + LEGEND_ROW + 4, plotted - shown);
			break;
		}
		stream_colour(s, colour);
		snprintf(text, sizeof(text), "stream %" PRIu32, s);
		legend_row(f, y += LEGEND_ROW, colour, NULL, 2, text);
		shown++;
	}
	fprintf(f, "</g>\n");
}

int hs_svg_write(FILE *f, const struct hs_plot *p, uint32_t nstreams, uint64_t t_end,
		 const char *title, const char *subtitle)
{
	const struct hs_plot_series *dev = p->device;
	struct frame fr;
	char colour[8], style[160], id[48];
	uint64_t ymax = dev[HS_PLOT_RESERVED].peak > dev[HS_PLOT_IN_USE].peak ? dev[HS_PLOT_RESERVED].peak
									      : dev[HS_PLOT_IN_USE].peak;

	if (t_end < p->t_max)
		t_end = p->t_max;
	for (uint32_t s = 0; s < nstreams && s < HS_PLOT_STREAMS; s++)
		for (int k = 0; k < 2; k++)
			if (p->stream[s][k].peak > ymax)
				ymax = p->stream[s][k].peak;
	hs_axis_bytes(ymax, &fr.y);
	hs_axis_time(t_end, &fr.x);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"16\" y=\"24\" font-size=\"14\">");
	escape_fit(f, title, 130);
	fprintf(f, "</text>\n<text x=\"16\" y=\"44\" font-size=\"11\" fill=\"#444444\">");
	escape_fit(f, subtitle, 175);
	fprintf(f, "</text>\n");
	axes(f, &fr);

	if (dev[HS_PLOT_RESERVED].b) {
		double y = fy(&fr, dev[HS_PLOT_RESERVED].peak);

		fprintf(f, "<line id=\"peak-reserved\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
			   "stroke=\"%s\" stroke-dasharray=\"2 3\"/>\n",
			SVG_L, y, SVG_L + SVG_PW, y, PEAK_COLOUR);
	}
	series_line(f, &fr, &dev[HS_PLOT_RESERVED], t_end, "device-reserved",
		    "stroke=\"" DEV_RESERVED_COLOUR "\" stroke-width=\"3.5\"");
	series_line(f, &fr, &dev[HS_PLOT_IN_USE], t_end, "device-in-use",
		    "stroke=\"" DEV_IN_USE_COLOUR "\" stroke-width=\"3.5\"");
	for (uint32_t s = 0; s < nstreams && s < HS_PLOT_STREAMS; s++) {
		stream_colour(s, colour);
		snprintf(id, sizeof(id), "stream-%" PRIu32 "-reserved", s);
		snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"",
			 colour);
		series_line(f, &fr, &p->stream[s][HS_PLOT_RESERVED], t_end, id, style);
		snprintf(id, sizeof(id), "stream-%" PRIu32 "-in-use", s);
		snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"1.5\"", colour);
		series_line(f, &fr, &p->stream[s][HS_PLOT_IN_USE], t_end, id, style);
	}
	legend(f, p, nstreams);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
