/*
 * check_calibrate.c - hipsim calibrate without a GPU: calibrating the
 * simulator gives back its own profile (written, reloaded, every figure
 * within 1 %, the virtual-memory ones too), the hip backend without a device fails cleanly, and a
 * profile missing any required key is refused with the key named.
 * The hipsim command line (exit statuses, messages) is tests/calibrate.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hipcore/hipcore.h"
#include "sim/sim.h"
#include "tools/hipsim/calibrate.h"
#include "tests/runner.h"

static bool last_error_has(const char *what)
{
	hc_error_info e;

	hc_last_error(&e);
	return strstr(e.message, what) != NULL;
}

static bool within(uint64_t got, uint64_t want, double frac)
{
	double d = fabs((double)got - (double)want);

	return d <= frac * (double)want || d <= 1.0; /* 1 ns of rounding */
}

/* Every numeric figure of @a within 1 % of @b, by name for the message. */
static void assert_close(const struct hc_sim_profile *a, const struct hc_sim_profile *b)
{
#define F(x) { #x, a->x, b->x }
	const struct {
		const char *name;
		uint64_t got, want;
	} f[] = {
		F(total_memory), F(alignment), F(h2d_pinned_bw), F(h2d_pageable_bw),
		F(d2h_pinned_bw), F(d2h_pageable_bw), F(d2d_bw), F(h2d_pinned_lat_ns),
		F(h2d_pageable_lat_ns), F(d2h_pinned_lat_ns), F(d2h_pageable_lat_ns), F(d2d_lat_ns),
		F(copy_call_ns), F(host_copy_call_ns), F(host_copy_bw), F(host_copy_split_call_ns),
		F(host_copy_split_wake_ns), F(host_copy_spin_ns),
		F(host_copy_max_bw), F(launch_call_ns), F(launch_overhead_ns), F(launch_latency_ns), F(launch_lib_ns), F(write_lib_ns),
		F(kernel_default_ns), F(kernel_ns_per_mib),
		F(dev_alloc_ns), F(dev_alloc_ns_per_mib), F(dev_free_ns), F(dev_free_ns_per_mib),
		F(host_alloc_ns), F(host_alloc_ns_per_mib), F(host_free_ns), F(host_free_ns_per_mib),
		F(event_record_ns), F(event_query_ns), F(event_wait_ns), F(event_sync_ns), F(event_destroy_ns),
		F(stream_create_ns), F(stream_destroy_ns), F(stream_sync_ns), F(capture_begin_ns),
		F(capture_node_ns), F(graph_instantiate_ns), F(graph_instantiate_node_ns),
		F(graph_launch_ns), F(jitter_ppm), F(host_cold_bytes), F(cold_copy_ns),
		F(cold_launch_ns), F(cold_event_record_ns), F(cold_event_query_ns),
		F(cold_event_wait_ns), F(cold_event_sync_ns), F(cold_event_destroy_ns),
		F(cold_stream_sync_ns), F(cold_dev_alloc_ns), F(cold_dev_free_ns),
		F(vmm_granularity), F(va_reserve_ns), F(va_release_ns), F(pmem_map_ns),
		F(pmem_map_ns_per_mib), F(pmem_unmap_ns), F(pmem_unmap_ns_per_mib),
	};
#undef F
	/* below 1 MiB the cost the simulator charges: the small figures, or
	 * (0) the base line's */
	const struct {
		const char *name;
		uint64_t got, want;
	} small[] = {
		{ "dev_alloc_small", a->dev_alloc_small_ns ? a->dev_alloc_small_ns : a->dev_alloc_ns,
		  b->dev_alloc_small_ns ? b->dev_alloc_small_ns : b->dev_alloc_ns },
		{ "dev_free_small", a->dev_free_small_ns ? a->dev_free_small_ns : a->dev_free_ns,
		  b->dev_free_small_ns ? b->dev_free_small_ns : b->dev_free_ns },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		ck_assert_msg(within(f[i].got, f[i].want, 0.01), "%s: calibrated %llu, profile %llu",
			      f[i].name, (unsigned long long)f[i].got, (unsigned long long)f[i].want);
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		ck_assert_msg(within(small[i].got, small[i].want, 0.01),
			      "%s: calibrated %llu, profile %llu", small[i].name,
			      (unsigned long long)small[i].got, (unsigned long long)small[i].want);
	ck_assert_str_eq(a->name, b->name);
	ck_assert_int_eq(a->integrated, b->integrated);
}

/* Calibrates the simulator running @prof (NULL built-in), writes the
 * profile, parses it back into @out. */
static void calibrate_sim(const char *prof, bool quick, struct hc_sim_profile *out)
{
	struct hs_calibrate_args a = { .backend = "sim", .sim_profile = prof, .quick = quick,
				       .repeats = 3 };
	struct hc_sim_profile p;
	char msg[1100], *text = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_int_eq(hs_calibrate(&a, &p, msg, sizeof(msg)), HC_OK);
	ck_assert_str_eq(msg, ""); /* no warning: every figure was measured */
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(hs_profile_write(f, &p, "test header\nsecond line"), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "# test header\n# second line\n"));
	ck_assert_int_eq(hc_sim_profile_parse(text, "calibrated", out), HC_OK);
	free(text);
}

START_TEST(sim_round_trip_builtin)
{
	struct hc_sim_profile want, got;

	hc_sim_profile_builtin(&want);
	calibrate_sim(NULL, _i == 0, &got);
	assert_close(&got, &want);
}
END_TEST

/* A profile unlike the built-in one: every figure must come from the
 * measurement, not from the base profile. */
static const char other_profile[] =
	"name = Other GPU\ntotal_memory = 24 GiB\nalignment = 512\nintegrated = 1\n"
	"h2d_pinned_bw = 25 GB/s\nh2d_pageable_bw = 6 GB/s\nd2h_pinned_bw = 26 GB/s\n"
	"d2h_pageable_bw = 7 GB/s\nd2d_bw = 900 GB/s\nh2d_pinned_latency = 5 us\n"
	"h2d_pageable_latency = 12 us\nd2h_pinned_latency = 6 us\nd2h_pageable_latency = 13 us\n"
	"d2d_latency = 2 us\ncopy_call = 3 us\nlaunch_call = 4 us\nlaunch_overhead = 2 us\n"
	"dev_alloc = 90 us\ndev_alloc_per_mib = 1 us\ndev_free = 70 us\ndev_free_per_mib = 500\n"
	"dev_alloc_small = 3 us\ndev_free_small = 2500\n"
	"host_alloc = 300 us\nhost_alloc_per_mib = 200 us\nhost_free = 40 us\n"
	"host_free_per_mib = 10 us\nevent_record = 700\nevent_query = 400\nevent_wait = 350\n"
	"event_sync = 900\nevent_destroy = 450\nhost_copy_bw = 7 GB/s\nhost_copy_max_bw = 30 GB/s\n"
	"host_copy_call = 2 us\nhost_copy_split_call = 15 us\nlaunch_latency = 3 us\nlaunch_lib = 1500\nwrite_lib = 2200\n"
	"host_copy_split_wake = 12 us\n"
	"stream_create = 5 us\nstream_destroy = 3 us\nstream_sync = 800\n"
	"capture_begin = 4 us\ncapture_node = 2 us\ngraph_instantiate = 20 us\n"
	"graph_instantiate_node = 3 us\ngraph_launch = 7 us\n"
	"host_cold_bytes = 8 MiB\ncold_copy = 3 us\ncold_launch = 4 us\ncold_event_record = 2 us\n"
	"cold_event_query = 2500\ncold_event_wait = 900\ncold_event_sync = 1100\n"
	"cold_event_destroy = 600\ncold_stream_sync = 1300\ncold_dev_alloc = 30 us\n"
	"cold_dev_free = 25 us\nkernel_default = 1800 ns\nkernel_per_mib = 600 ns\n"
	"vmm_granularity = 4 MiB\nva_reserve = 12 us\nva_release = 8 us\npmem_map = 45 us\n"
	"pmem_map_per_mib = 900\npmem_unmap = 33 us\npmem_unmap_per_mib = 450\n";

START_TEST(sim_round_trip_other)
{
	char path[] = "/tmp/check_calibrate_XXXXXX";
	struct hc_sim_profile want, got;
	FILE *f;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(other_profile, f);
	fclose(f);
	ck_assert_int_eq(hc_sim_profile_load(path, &want), HC_OK);
	calibrate_sim(path, true, &got);
	unlink(path);
	/* jitter is not measured: it comes from the base */
	{
		struct hc_sim_profile b;
		hc_sim_profile_builtin(&b);
		want.jitter_ppm = b.jitter_ppm;
	}
	assert_close(&got, &want);
}
END_TEST

START_TEST(hip_without_device)
{
	struct hs_calibrate_args a = { .backend = "hip", .quick = true, .repeats = 1 };
	struct hc_sim_profile p;
	char msg[1100] = "";
	hc_device dev;
	hc_status st;

	if (hc_device_open("hip", NULL, &dev) == HC_OK) {
		hc_device_close(dev);
		return; /* a GPU machine: tests/gpu/fidelity.sh covers it */
	}
	st = hs_calibrate(&a, &p, msg, sizeof(msg));
	ck_assert_msg(st == HC_ERR_NO_RUNTIME || st == HC_ERR_DEVICE, "status %s", hc_status_str(st));
	ck_assert_ptr_nonnull(strstr(msg, "device_open"));
}
END_TEST

START_TEST(unknown_backend)
{
	struct hs_calibrate_args a = { .backend = "cuda" };
	struct hc_sim_profile p;
	char msg[1100] = "";

	ck_assert_int_eq(hs_calibrate(&a, &p, msg, sizeof(msg)), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(msg, "'cuda'"));
}
END_TEST

/* Every required key: a calibrated profile without its line is refused,
 * and the message names that key. */
START_TEST(missing_key_named)
{
	static const char *const required[] = {
		"name", "total_memory", "alignment", "integrated", "h2d_pinned_bw",
		"h2d_pageable_bw", "d2h_pinned_bw", "d2h_pageable_bw", "d2d_bw",
		"h2d_pinned_latency", "h2d_pageable_latency", "d2h_pinned_latency",
		"d2h_pageable_latency", "d2d_latency",
	};
	struct hc_sim_profile p;
	char *text = NULL, key[64];
	size_t len = 0;
	FILE *f;

	hc_sim_profile_builtin(&p);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(hs_profile_write(f, &p, NULL), 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		char *copy = strdup(text), *line;
		ck_assert_ptr_nonnull(copy);
		snprintf(key, sizeof(key), "\n%s = ", required[i]);
		line = strstr(copy, key);
		ck_assert_msg(line != NULL, "%s not written", required[i]);
		memset(line + 1, '#', strcspn(line + 1, "\n")); /* comment it out */
		line[1] = '#';
		ck_assert_int_eq(hc_sim_profile_parse(copy, "cut.profile", &p), HC_ERR_PARSE);
		snprintf(key, sizeof(key), "'%s'", required[i]);
		ck_assert_msg(last_error_has(key), "message does not name %s", key);
		free(copy);
	}
	/* the uncut text parses */
	ck_assert_int_eq(hc_sim_profile_parse(text, "whole.profile", &p), HC_OK);
	free(text);
}
END_TEST

/*
 * Passes: every key of the combined profile is the median of the passes'
 * (the middle of three, whichever pass holds it; the mean of the middle
 * two of four).  Built as text so that each key is set by its name, and
 * read back through the writer, so a key the median skips shows up.
 */
static void profile_scaled(unsigned mul, struct hc_sim_profile *out)
{
	struct hc_sim_profile b;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	hc_sim_profile_builtin(&b);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(hs_profile_write(f, &b, NULL), 0);
	fclose(f);
	/* every number after " = " times @mul, except the identity lines (the
	 * device's own: its name, memory, alignment, kind and granule) */
	{
		char *o = malloc(len * 2 + 64), *w = o;
		const char *r = text;

		ck_assert_ptr_nonnull(o);
		while (*r) {
			const char *eq = strstr(r, " = "), *nl = strchr(r, '\n');

			if (!nl)
				nl = r + strlen(r);
			if (eq && eq < nl && *r != '#' && strncmp(r, "name", 4) && strncmp(r, "total_memory", 12) &&
			    strncmp(r, "alignment", 9) && strncmp(r, "integrated", 10) &&
			    strncmp(r, "vmm_granularity", 15)) {
				unsigned long long v = strtoull(eq + 3, NULL, 10);
				const char *unit = eq + 3 + strspn(eq + 3, "0123456789");

				w += sprintf(w, "%.*s = %llu%.*s\n", (int)(eq - r), r, (v + 1) * mul,
					     (int)(nl - unit), unit);
			} else {
				w += sprintf(w, "%.*s\n", (int)(nl - r), r);
			}
			r = *nl ? nl + 1 : nl;
		}
		*w = '\0';
		ck_assert_int_eq(hc_sim_profile_parse(o, "scaled", out), HC_OK);
		free(o);
	}
	free(text);
}

START_TEST(median_of_passes)
{
	struct hc_sim_profile p[4], m, want2, want5;

	/* out of order, so that neither the first nor the last pass is the middle */
	profile_scaled(5, &p[0]);
	profile_scaled(1, &p[1]);
	profile_scaled(2, &p[2]);
	profile_scaled(9, &p[3]);
	profile_scaled(2, &want2);
	ck_assert_int_eq(hs_profile_median(p, 3, &m), 0);
	assert_close(&m, &want2);
	ck_assert_uint_eq(m.host_copy_max_bw, want2.host_copy_max_bw);
	/* four: between 2x and 5x, i.e. 3.5x, rounded half up */
	profile_scaled(5, &want5);
	ck_assert_int_eq(hs_profile_median(p, 4, &m), 0);
	ck_assert_uint_eq(m.launch_lib_ns, (want2.launch_lib_ns + want5.launch_lib_ns + 1) / 2);
	ck_assert_uint_eq(m.event_sync_ns, (want2.event_sync_ns + want5.event_sync_ns + 1) / 2);
	/* one is itself */
	ck_assert_int_eq(hs_profile_median(&p[3], 1, &m), 0);
	ck_assert_uint_eq(m.graph_launch_ns, p[3].graph_launch_ns);
	ck_assert_str_eq(m.name, p[3].name);
}
END_TEST

static Suite *calibrate_suite(void)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tcase_create("calibrate");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, sim_round_trip_builtin, 0, 2); /* quick, full */
	tcase_add_test(tc, sim_round_trip_other);
	tcase_add_test(tc, hip_without_device);
	tcase_add_test(tc, unknown_backend);
	tcase_add_test(tc, missing_key_named);
	tcase_add_test(tc, median_of_passes);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(calibrate_suite);
