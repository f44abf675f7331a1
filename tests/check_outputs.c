/*
 * check_outputs.c - hipsim's outputs and option checking, over the real
 * library on the simulator: option errors that name the option and the
 * limit, output files opened before the work and their write errors
 * reported, --pools default and workload giving one report, reports that
 * record their options and compare listing where they differ, and the SVG
 * plot (nice ticks, escaping, decimation that keeps peaks exact, a legend
 * that stays inside the canvas).
 *
 * Subcommands run in this process with stdout and stderr captured;
 * standard output's own write errors are main()'s (tests/hipsim-outputs.sh).
 */
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/svg.h"
#include "tests/fixtures/hipsim_cli.h"
#include "tests/runner.h"

/* @path's contents (malloc'd, NUL-terminated) and its size in @len. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* --- option errors --------------------------------------------------------- */

START_TEST(option_errors_name_option_and_limit)
{
	static const struct {
		int (*fn)(int, char **);
		const char *args[6];
		const char *want;
	} cases[] = {
		{ hipsim_run_main, { "run", "--streams", "257", NULL },
		  "hipsim run: --streams: 257 is out of range: 1 to 256\n" },
		{ hipsim_run_main, { "run", "--streams", "0", NULL },
		  "hipsim run: --streams: 0 is out of range: 1 to 256\n" },
		{ hipsim_run_main, { "run", "--steps", "12x", NULL },
		  "hipsim run: --steps: '12x' is not a number (decimal or 0x hex, optionally followed by "
		  "K, M or G)\n" },
		{ hipsim_run_main, { "run", "--steps", "0", NULL },
		  "hipsim run: --steps: 0 is out of range: 1 to 10000000\n" },
		{ hipsim_run_main, { "run", "--capacity", "1", NULL },
		  "hipsim run: --capacity: 1 B is below the minimum of 4 B (a stream's pools size their "
		  "pages from a quarter of the device's memory)\n" },
		{ hipsim_run_main, { "run", "--capacity", "2000000G", NULL },
		  "hipsim run: --capacity: 2147483648000000 is above the maximum of 1125899906842624\n" },
		{ hipsim_run_main, { "run", "--seed", "-1", NULL },
		  "hipsim run: --seed: '-1' is not a number" },
		{ hipsim_replay_main, { "replay", "x.csv", "--flush-count", "99999999999999999999", NULL },
		  "hipsim replay: --flush-count: '99999999999999999999' is too large: at most "
		  "18446744073709551615\n" },
		{ hipsim_replay_main, { "replay", "x.csv", "--capacity", "3", NULL },
		  "hipsim replay: --capacity: 3 B is below the minimum of 4 B" },
		{ hipsim_replay_main, { "replay", "x.csv", "--stage-max", "1T", NULL },
		  "hipsim replay: --stage-max: '1T' is not a number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(run(cases[i].fn, cases[i].args), 2);
		ck_assert_msg(strncmp(err_text, cases[i].want, strlen(cases[i].want)) == 0,
			      "case %zu: %s", i, err_text);
		ck_assert_str_eq(out_text, "");
	}
}
END_TEST

/* The smallest capacity --capacity takes opens streams: what fails then is
 * an allocation, not the stream. */
START_TEST(capacity_minimum_opens_streams)
{
	const char *args[] = { "run", "--capacity", "4", "--steps", "2", "--json", NULL };
	json_t *j;

	ck_assert_int_eq(run(hipsim_run_main, args), 1);
	j = report();
	ck_assert_int_eq(num(j, "streams"), 4);
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "first_failure")), "alloc: HC_ERR_OOM"),
		      "%s", json_string_value(json_object_get(j, "first_failure")));
	json_decref(j);
}
END_TEST

/* --- output files ------------------------------------------------------------ */

START_TEST(svg_write_error_reported)
{
	const char *args[] = { "run", "--steps", "5", "--svg", "/dev/full", NULL };

	ck_assert_int_eq(run(hipsim_run_main, args), 2);
	ck_assert_msg(strstr(err_text, "hipsim run: writing '/dev/full' failed: No space left on device"),
		      "%s", err_text);
	/* the report itself is still printed: only the plot was lost */
	ck_assert_msg(strstr(out_text, "hipsim report: workload service"), "%s", out_text);
}
END_TEST

/* /proc/version: writable as root, but every write fails; not writable
 * otherwise.  Either way the path is named and the exit is 2. */
START_TEST(svg_proc_file_reported)
{
	const char *args[] = { "run", "--steps", "5", "--svg", "/proc/version", NULL };

	if (access("/proc/version", F_OK) != 0)
		return;
	ck_assert_int_eq(run(hipsim_run_main, args), 2);
	ck_assert_msg(strstr(err_text, "'/proc/version'"), "%s", err_text);
}
END_TEST

/* A plot that cannot be created fails before the work: no report. */
START_TEST(svg_bad_path_fails_first)
{
	const char *path = tmp_path("no/such/dir/x.svg");
	const char *r[] = { "run", "--steps", "5", "--svg", path, NULL };
	char csv[512];
	const char *rp[] = { "replay", csv, "--svg", path, NULL };
	char want[700];

	snprintf(want, sizeof(want), "hipsim run: --svg: cannot write '%s': No such file or directory\n",
		 path);
	ck_assert_int_eq(run(hipsim_run_main, r), 2);
	ck_assert_str_eq(err_text, want);
	ck_assert_str_eq(out_text, "");
	snprintf(csv, sizeof(csv), "%s", write_file("a.csv", HDR "1,0,allocate,0x1000,100,a\n"));
	ck_assert_int_eq(run(hipsim_replay_main, rp), 2);
	ck_assert_msg(strstr(err_text, "hipsim replay: --svg: cannot write"), "%s", err_text);
	ck_assert_str_eq(out_text, "");
	/* a directory is not a file to write */
	rp[3] = tmpdir;
	ck_assert_int_eq(run(hipsim_replay_main, rp), 2);
	ck_assert_msg(strstr(err_text, "Is a directory"), "%s", err_text);
}
END_TEST

/* A replay whose trace fails to open leaves no empty plot behind. */
START_TEST(svg_not_left_after_bad_trace)
{
	const char *svg = tmp_path("p.svg");
	const char *args[] = { "replay", tmp_path("absent.csv"), "--svg", svg, NULL };
	struct stat sb;

	ck_assert_int_eq(run(hipsim_replay_main, args), 2);
	ck_assert_int_ne(stat(svg, &sb), 0);
}
END_TEST

/* --- --pools default and workload -------------------------------------------- */

/* @args' JSON report without the wall-clock keys and options.pools. */
static char *figures(int (*fn)(int, char **), const char *const *args)
{
	json_t *j, *o;
	char *text;

	ck_assert_msg(run(fn, args) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(json_object_del(j, "replay_wall_ns"), 0);
	ck_assert_int_eq(json_object_del(j, "replay_events_per_s"), 0);
	o = json_object_get(j, "options");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_object_del(o, "pools"), 0);
	text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	ck_assert_ptr_nonnull(text);
	return text;
}

START_TEST(pools_default_equals_workload_run)
{
	const char *d[] = { "run", "--workload", "service", "--pools", "default", "--json", NULL };
	const char *w[] = { "run", "--workload", "service", "--pools", "workload", "--json", NULL };
	const char *none[] = { "run", "--workload", "service", "--json", NULL };
	char *a = figures(hipsim_run_main, d), *b = figures(hipsim_run_main, w);
	char *c = figures(hipsim_run_main, none);

	ck_assert_str_eq(a, b);
	ck_assert_str_eq(a, c);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* Streams that open after others freed memory: the device's idle cache
 * holds what they freed, and a later stream adopts it. */
START_TEST(pools_default_equals_workload_replay)
{
	char csv[512];
	const char *d[] = { "replay", csv, "--pools", "default", "--json", NULL };
	const char *w[] = { "replay", csv, "--pools", "workload", "--json", NULL };
	char *a, *b;

	snprintf(csv, sizeof(csv), "%s", write_file("idle.csv", HDR
		"1,0,allocate,0x1000,8388608,a\n"
		"1,1,allocate,0x2000,16777216,a\n"
		"1,2,free,0x1000,8388608,a\n"
		"1,3,free,0x2000,16777216,a\n"
		"1,4,allocate,0x3000,4194304,a\n"
		"1,5,allocate,0x4000,8388608,b\n"
		"1,6,free,0x4000,8388608,b\n"
		"1,7,allocate,0x5000,16777216,c\n"
		"1,8,free,0x3000,4194304,a\n"
		"1,9,free,0x5000,16777216,c\n"));
	a = figures(hipsim_replay_main, d);
	b = figures(hipsim_replay_main, w);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
}
END_TEST

/* A layout file the parser takes but the library refuses once its sizes
 * are rounded to the device's 256-byte alignment: refused before the work,
 * not as a failing event per stream. */
START_TEST(layout_refused_by_the_library_fails_first)
{
	char lpath[512];
	const char *args[] = { "run", "--steps", "3", "--pools", lpath, NULL };

	snprintf(lpath, sizeof(lpath), "%s", write_file("l.txt", "sliced page=1000 cap=1000\n"));
	ck_assert_int_eq(run(hipsim_run_main, args), 2);
	ck_assert_str_eq(out_text, "");
	ck_assert_msg(strstr(err_text, "cannot be installed: HC_ERR_INVALID") &&
			      strstr(err_text, "max_pool_size (1000) is smaller than page_size (1024)"),
		      "%s", err_text);
}
END_TEST

/* --- options in reports -------------------------------------------------------- */

START_TEST(report_records_options)
{
	const char *r[] = { "run", "--pools", "subslices", "--seed", "7", "--capacity", "1G", "--steps", "3",
			    "--streams", "2", "--json", NULL };
	char csv[512];
	const char *rp[] = { "replay", csv, "--flush-count", "5", "--stage-max", "1K", "--json", NULL };
	json_t *j, *o;

	ck_assert_msg(run(hipsim_run_main, r) == 0, "%s", err_text);
	j = report();
	o = json_object_get(j, "options");
	ck_assert_str_eq(json_string_value(json_object_get(o, "workload")), "service");
	ck_assert_str_eq(json_string_value(json_object_get(o, "pools")), "subslices");
	ck_assert_str_eq(json_string_value(json_object_get(o, "backend")), "sim");
	ck_assert_str_eq(json_string_value(json_object_get(o, "profile")), "built-in");
	ck_assert_int_eq(num(o, "seed"), 7);
	ck_assert_int_eq(num(o, "capacity_bytes"), 1 << 30);
	ck_assert_int_eq(num(o, "steps"), 3);
	ck_assert_int_eq(num(o, "streams"), 2);
	ck_assert(json_is_false(json_object_get(o, "data_mode")));
	json_decref(j);

	snprintf(csv, sizeof(csv), "%s", write_file("o.csv", HDR "1,0,allocate,0x1000,100,a\n"));
	ck_assert_msg(run(hipsim_replay_main, rp) == 0, "%s", err_text);
	j = report();
	o = json_object_get(j, "options");
	ck_assert_str_eq(json_string_value(json_object_get(o, "trace")), csv);
	ck_assert_str_eq(json_string_value(json_object_get(o, "pools")), "default");
	ck_assert_int_eq(num(o, "flush_count"), 5);
	ck_assert_int_eq(num(o, "flush_bytes"), 0);
	ck_assert_int_eq(num(o, "stage_max"), 1024);
	ck_assert_int_eq(num(o, "seed"), 0);
	json_decref(j);

	/* the text report says the same in one line */
	rp[6] = NULL;
	ck_assert_msg(run(hipsim_replay_main, rp) == 0, "%s", err_text);
	ck_assert_msg(strstr(out_text, "  options .............. pools default, seed 0, profile built-in, "
				       "capacity 140.40 GiB, backend sim, flush-count 5, flush-bytes "
				       "default, stage-max 1024\n"),
		      "%s", out_text);
}
END_TEST

START_TEST(compare_lists_options_that_differ)
{
	const char *a = tmp_path("a.json"), *b = tmp_path("b.json");
	const char *ra[] = { "run", "--steps", "3", "--json", NULL };
	const char *rb[] = { "run", "--steps", "3", "--pools", "subslices", "--seed", "2", "--json", NULL };
	const char *cmp[] = { "compare", a, b, NULL };
	const char *same[] = { "compare", a, a, NULL };
	char *text;

	ck_assert_msg(run(hipsim_run_main, ra) == 0, "%s", err_text);
	write_file("a.json", out_text);
	ck_assert_msg(run(hipsim_run_main, rb) == 0, "%s", err_text);
	write_file("b.json", out_text);
	ck_assert_int_eq(run(hipsim_compare_main, cmp), 0);
	text = out_text;
	ck_assert_msg(strncmp(text, "options that differ:\n", 21) == 0, "%s", text);
	ck_assert_msg(strstr(text, "\n  seed ") && strstr(text, "\n  pools "), "%s", text);
	ck_assert_msg(strstr(text, "default            subslices\n"), "%s", text);
	/* only those two, then the table */
	ck_assert_msg(!strstr(text, "\n  steps "), "%s", text);
	ck_assert_int_eq(run(hipsim_compare_main, same), 0);
	ck_assert_msg(strncmp(out_text, "options: the same in both reports\n", 34) == 0, "%s", out_text);
}
END_TEST

/* --- the SVG plot ------------------------------------------------------------------ */

static void label(const struct hs_axis *a, unsigned k, const char *want)
{
	char buf[64];

	hs_axis_label(a, k, buf, sizeof(buf));
	ck_assert_str_eq(buf, want);
}

START_TEST(svg_axis_ticks)
{
	struct hs_axis a;

	hs_axis_bytes((uint64_t)(9.5 * 1048576), &a); /* the "9.5 MiB" */
	ck_assert_uint_eq(a.nticks, 6);
	label(&a, 1, "2 MiB");
	label(&a, 5, "10 MiB");
	ck_assert(a.top >= 9.5 * 1048576);
	hs_axis_bytes((uint64_t)(13241.6 * 1048576), &a); /* GiB, not 13241.6 MiB */
	label(&a, 1, "5 GiB");
	label(&a, a.nticks - 1, "15 GiB");
	hs_axis_bytes(37990000, &a);
	label(&a, a.nticks - 1, "40 MiB");
	hs_axis_bytes(700, &a);
	label(&a, 1, "200 B");
	label(&a, a.nticks - 1, "800 B");
	hs_axis_bytes(0, &a); /* nothing allocated: still an axis */
	ck_assert(a.top > 0);
	label(&a, a.nticks - 1, "1.0 B");
	hs_axis_bytes(1536, &a);
	label(&a, 1, "0.5 KiB");
	label(&a, a.nticks - 1, "1.5 KiB");
	hs_axis_bytes(3ull << 40, &a);
	label(&a, a.nticks - 1, "3 TiB");

	hs_axis_time(93238000, &a); /* 93.238 ms */
	label(&a, 1, "20 ms");
	label(&a, a.nticks - 1, "100 ms");
	hs_axis_time(999, &a);
	label(&a, a.nticks - 1, "1000 ns");
	hs_axis_time(4500, &a);
	label(&a, 1, "1 \xc2\xb5s");
	label(&a, a.nticks - 1, "5 \xc2\xb5s");
	hs_axis_time(1330000000, &a);
	label(&a, a.nticks - 1, "1.5 s");
	/* every axis: 1, 2 or 5 times a power of ten, 2 to 11 ticks */
	for (uint64_t v = 1; v < (1ull << 62); v = v * 3 + 1) {
		double m;

		hs_axis_bytes(v, &a);
		m = a.step / pow(10.0, floor(log10(a.step) + 1e-9));
		ck_assert_msg(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9, "%llu: %g",
			      (unsigned long long)v, a.step);
		ck_assert(a.nticks >= 2 && a.nticks <= 11);
		ck_assert(a.top >= (double)v);
	}
}
END_TEST

/* The y coordinate of the topmost point of polyline @id, and how many
 * points it has. */
static double top_point(const char *svg, const char *id, size_t *npoints)
{
	char key[96];
	const char *p, *end;
	double top = 1e9;

	snprintf(key, sizeof(key), "<polyline id=\"%s\"", id);
	p = strstr(svg, key);
	ck_assert_msg(p, "no %s", id);
	p = strstr(p, "points=\"");
	ck_assert_ptr_nonnull(p);
	p += 8;
	end = strchr(p, '"');
	*npoints = 0;
	while (p < end) {
		double x, y;
		int n = 0;

		ck_assert_int_eq(sscanf(p, " %lf,%lf%n", &x, &y, &n), 2);
		if (y < top)
			top = y;
		(*npoints)++;
		p += n;
	}
	return top;
}

/* 3 M samples: the plot's size is bounded by its buckets, and the one
 * sample at the peak is drawn at the peak, not averaged away. */
START_TEST(svg_decimates_and_keeps_the_peak)
{
	struct hs_plot *p = hs_plot_new();
	const uint64_t n = 3000000, spike = 1234567, peak = 900ull << 20;
	uint64_t v, x = 88172645463325252ull;
	struct hs_axis ya;
	char *buf = NULL, want[64], got[80];
	size_t len = 0, pts;
	FILE *f;

	ck_assert_ptr_nonnull(p);
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = (100u << 20) + x % (200u << 20);
		hs_plot_add(p, i * 7, (uint32_t)(i % 2), v / 2, v / 2, v, i == spike ? peak : v + (1 << 20));
	}
	ck_assert_uint_eq(p->device[HS_PLOT_RESERVED].peak, peak);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(hs_svg_write(f, p, 2, n * 7, "t", "s"), 0);
	ck_assert_int_eq(fclose(f), 0);
	/* 6 series of at most 5 points per bucket, "x,y " 14 bytes each */
	ck_assert_msg(len < 6 * 5 * HS_PLOT_BUCKETS * 14 + 20000, "%zu bytes", len);
	/* the plot area is 432 pixels high from y = 64 */
	hs_axis_bytes(peak, &ya);
	snprintf(want, sizeof(want), "%.1f", 64.0 + 432.0 - 432.0 * (double)peak / ya.top);
	snprintf(got, sizeof(got), "%.1f", top_point(buf, "device-reserved", &pts));
	ck_assert_str_eq(got, want);
	ck_assert_uint_le(pts, 5 * HS_PLOT_BUCKETS + 2);
	ck_assert_uint_ge(pts, HS_PLOT_BUCKETS / 2);
	/* the marker of the peak is at the same height */
	snprintf(got, sizeof(got), "y1=\"%s\"", want);
	ck_assert_msg(strstr(strstr(buf, "id=\"peak-reserved\""), got), "no marker at %s", want);
	free(buf);
	hs_plot_free(p);
}
END_TEST

/* Merging buckets keeps the extremes in the order they came. */
START_TEST(svg_plot_keeps_order_of_extremes)
{
	struct hs_plot *p = hs_plot_new();

	ck_assert_ptr_nonnull(p);
	/* a dip then a peak in the first bucket once everything merged */
	hs_plot_add(p, 0, 0, 0, 0, 50, 50);
	hs_plot_add(p, 1, 0, 0, 0, 10, 10);
	hs_plot_add(p, 2, 0, 0, 0, 90, 90);
	hs_plot_add(p, 3, 0, 0, 0, 40, 40);
	hs_plot_add(p, 1u << 30, 0, 0, 0, 60, 60); /* forces the widths up */
	ck_assert_uint_ge(p->width_ns, 4);
	ck_assert(p->device[0].b[0].used);
	ck_assert_uint_eq(p->device[0].b[0].first, 50);
	ck_assert_uint_eq(p->device[0].b[0].min, 10);
	ck_assert_uint_eq(p->device[0].b[0].max, 90);
	ck_assert_uint_eq(p->device[0].b[0].last, 40);
	ck_assert(p->device[0].b[0].max_last);
	hs_plot_free(p);
}
END_TEST

START_TEST(svg_escapes_text)
{
	struct hs_plot *p = hs_plot_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(p);
	hs_plot_add(p, 10, 0, 1, 2, 1, 2);
	ck_assert_int_eq(hs_svg_write(f, p, 1, 20, "a<b&c\"d'e\xff\x01z \xc2\xb5", "<s>"), 0);
	fclose(f);
	ck_assert_msg(strstr(buf, ">a&lt;b&amp;c&quot;d&apos;e??z \xc2\xb5</text>"), "%s", buf);
	ck_assert_msg(strstr(buf, ">&lt;s&gt;</text>"), "%s", buf);
	free(buf);
	hs_plot_free(p);
}
END_TEST

/* A trace whose path has XML's special characters makes a valid plot. */
START_TEST(svg_escapes_the_trace_path)
{
	const char *csv = write_file("a<&b.csv", HDR "1,0,allocate,0x1000,100,a\n");
	char svgpath[512], *svg;
	const char *args[] = { "replay", csv, "--svg", svgpath, NULL };

	snprintf(svgpath, sizeof(svgpath), "%s", tmp_path("t.svg"));
	ck_assert_msg(run(hipsim_replay_main, args) == 0, "%s", err_text);
	svg = slurp(svgpath, NULL);
	ck_assert_msg(strstr(svg, "a&lt;&amp;b.csv on sim"), "%s", svg);
	ck_assert_ptr_null(strstr(svg, "a<&b"));
	free(svg);
}
END_TEST

/* 64 streams: 64 colours, none repeated; the legend names what fits and
 * says how many more there are. */
START_TEST(svg_many_streams)
{
	struct hs_plot *p = hs_plot_new();
	char *buf = NULL, colours[64][8], key[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(p);
	for (uint32_t s = 0; s < 64; s++)
		hs_plot_add(p, 10 + s, s, s, s, s, s);
	ck_assert_int_eq(hs_svg_write(f, p, 64, 100, "t", "s"), 0);
	fclose(f);
	for (uint32_t s = 0; s < 64; s++) {
		const char *q;

		snprintf(key, sizeof(key), "id=\"stream-%u-in-use\" fill=\"none\" stroke=\"", s);
		q = strstr(buf, key);
		ck_assert_msg(q, "no line for stream %u", s);
		memcpy(colours[s], q + strlen(key), 7);
		colours[s][7] = 0;
		for (uint32_t t = 0; t < s; t++)
			ck_assert_msg(strcmp(colours[s], colours[t]) != 0, "streams %u and %u: %s", t, s,
				      colours[s]);
	}
	ck_assert_msg(strstr(buf, ">stream 20</text>") && !strstr(buf, ">stream 21</text>"), "%s", buf);
	ck_assert_msg(strstr(buf, ">+43 more streams</text>"), "%s", buf);
	free(buf);
	hs_plot_free(p);
}
END_TEST

/* --- the suite ------------------------------------------------------------------ */

static Suite *outputs_suite(void)
{
	Suite *s = suite_create("outputs");
	TCase *tc = tcase_create("outputs");

	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, option_errors_name_option_and_limit);
	tcase_add_test(tc, capacity_minimum_opens_streams);
	tcase_add_test(tc, svg_write_error_reported);
	tcase_add_test(tc, svg_proc_file_reported);
	tcase_add_test(tc, svg_bad_path_fails_first);
	tcase_add_test(tc, svg_not_left_after_bad_trace);
	tcase_add_test(tc, pools_default_equals_workload_run);
	tcase_add_test(tc, pools_default_equals_workload_replay);
	tcase_add_test(tc, layout_refused_by_the_library_fails_first);
	tcase_add_test(tc, report_records_options);
	tcase_add_test(tc, compare_lists_options_that_differ);
	tcase_add_test(tc, svg_axis_ticks);
	tcase_add_test(tc, svg_decimates_and_keeps_the_peak);
	tcase_add_test(tc, svg_plot_keeps_order_of_extremes);
	tcase_add_test(tc, svg_escapes_text);
	tcase_add_test(tc, svg_escapes_the_trace_path);
	tcase_add_test(tc, svg_many_streams);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(outputs_suite);
