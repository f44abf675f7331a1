/*
 * profile.c - simulator profiles: the shipped ones load, files equal the
 * built-in, units and defaults parse, every malformed, unknown, missing,
 * overflowing or out-of-range key is refused with a message, the largest
 * figures run clean, and mutated files never crash the parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Profiles                                                            */
/* ------------------------------------------------------------------ */

#define PROFILE_FIELDS(X)                                                                    \
	X(total_memory) X(alignment) X(integrated) X(h2d_pinned_bw) X(h2d_pageable_bw)       \
	X(d2h_pinned_bw) X(d2h_pageable_bw) X(d2d_bw) X(h2d_pinned_lat_ns)                   \
	X(h2d_pageable_lat_ns) X(d2h_pinned_lat_ns) X(d2h_pageable_lat_ns) X(d2d_lat_ns)     \
	X(copy_call_ns) X(host_copy_bw) X(host_copy_max_bw) X(launch_call_ns) X(launch_overhead_ns) X(kernel_default_ns)          \
	X(dev_alloc_ns) X(dev_alloc_ns_per_mib) X(dev_free_ns) X(dev_free_ns_per_mib)        \
	X(host_alloc_ns) X(host_alloc_ns_per_mib) X(host_free_ns) X(host_free_ns_per_mib)    \
	X(event_record_ns) X(event_query_ns) X(event_wait_ns) X(event_sync_ns) X(event_destroy_ns)             \
	X(stream_create_ns) X(stream_destroy_ns) X(stream_sync_ns) X(capture_begin_ns)       \
	X(capture_node_ns) X(graph_instantiate_ns) X(graph_instantiate_node_ns)              \
	X(graph_launch_ns) X(jitter_ppm)

static void assert_profiles_equal(const struct hc_sim_profile *a, const struct hc_sim_profile *b)
{
	ck_assert_str_eq(a->name, b->name);
#define CMP_FIELD(f) ck_assert_msg(a->f == b->f, "field " #f " differs: %llu vs %llu", \
				   (unsigned long long)a->f, (unsigned long long)b->f);
	PROFILE_FIELDS(CMP_FIELD)
#undef CMP_FIELD
}

/* The calibrated profile shipped for the H200 loads, with every key a
 * calibration writes, the new ones included. */
START_TEST(calibrated_profile_loads)
{
	struct hc_sim_profile p;

	ck_assert_int_eq(hc_sim_profile_load(HC_TOP_SRCDIR "/profiles/h200-calibrated.profile", &p),
			 HC_OK);
	ck_assert_str_eq(p.name, "NVIDIA H200");
	ck_assert_uint_gt(p.host_copy_split_call_ns, 0);
	ck_assert_uint_gt(p.launch_latency_ns, 0);
	ck_assert_uint_gt(p.h2d_pinned_bw, p.h2d_pageable_bw);
}
END_TEST

/* The H100 machine's calibration carries the cold-call keys: the model is
 * on with it (host_cold_bytes set, calls dearer after host copies). */
START_TEST(h100_profile_has_cold_keys)
{
	struct hc_sim_profile p;

	ck_assert_int_eq(hc_sim_profile_load(HC_TOP_SRCDIR "/profiles/h100-calibrated.profile", &p),
			 HC_OK);
	ck_assert_str_eq(p.name, "NVIDIA H100 80GB HBM3");
	ck_assert_uint_eq(p.host_cold_bytes, 8u << 20);
	ck_assert_uint_gt(p.cold_launch_ns, 0);
	ck_assert_uint_lt(p.host_copy_call_ns, 1000);
}
END_TEST

START_TEST(profile_file_equals_builtin)
{
	struct hc_sim_profile built, loaded;

	hc_sim_profile_builtin(&built);
	ck_assert_int_eq(hc_sim_profile_load(HC_TOP_SRCDIR "/profiles/h200.profile", &loaded), HC_OK);
	assert_profiles_equal(&built, &loaded);
	ck_assert_str_eq(built.name, "NVIDIA H200 (simulated)");
	ck_assert_uint_eq(built.total_memory, 143771 * MIB);
	ck_assert_uint_eq(built.alignment, 256);
	ck_assert_uint_eq(built.h2d_pinned_bw, 55000000000ULL);
}
END_TEST

START_TEST(profile_parse_units_and_defaults)
{
	struct hc_sim_profile p, built;

	hc_sim_profile_builtin(&built);
	ck_assert_int_eq(hc_sim_profile_parse(REQUIRED_KEYS "d2d_latency = 9 ns\n"
					      "\n   # only a comment\n"
					      "kernel_default = 2 ms\njitter_ppm = 10\n",
					      "t", &p),
			 HC_OK);
	ck_assert_str_eq(p.name, "Test GPU");
	ck_assert_uint_eq(p.total_memory, 1ULL << 30);
	ck_assert_uint_eq(p.alignment, 512);
	ck_assert(p.integrated);
	ck_assert_uint_eq(p.h2d_pinned_bw, 1000000);
	ck_assert_uint_eq(p.h2d_pageable_bw, 2ULL << 30);
	ck_assert_uint_eq(p.d2h_pinned_bw, 3000000);
	ck_assert_uint_eq(p.d2h_pageable_bw, 4000000000ULL);
	ck_assert_uint_eq(p.d2d_bw, 5);
	ck_assert_uint_eq(p.h2d_pinned_lat_ns, 3000);
	ck_assert_uint_eq(p.h2d_pageable_lat_ns, 2000000);
	ck_assert_uint_eq(p.d2h_pinned_lat_ns, 1000000000);
	ck_assert_uint_eq(p.d2h_pageable_lat_ns, 7);
	ck_assert_uint_eq(p.d2d_lat_ns, 9);
	ck_assert_uint_eq(p.kernel_default_ns, 2000000);
	ck_assert_uint_eq(p.jitter_ppm, 10);
	/* optional keys not given keep the built-in value */
	ck_assert_uint_eq(p.event_record_ns, built.event_record_ns);
	ck_assert_uint_eq(p.host_alloc_ns_per_mib, built.host_alloc_ns_per_mib);
}
END_TEST

START_TEST(profile_missing_file)
{
	struct hc_sim_profile p;
	struct hc_hal_open_args a = { .profile = "/nonexistent/dir/x.profile" };
	hc_hal_dev *dev = NULL;

	ck_assert_int_eq(hc_sim_profile_load("/nonexistent/dir/x.profile", &p), HC_ERR_IO);
	ck_assert(last_error_has("/nonexistent/dir/x.profile"));
	ck_assert(last_error_has("No such file or directory"));
	ck_assert_int_eq(ops->device_open(&a, &dev), HC_ERR_IO);
	ck_assert_ptr_null(dev);
	ck_assert_int_eq(hc_sim_profile_load("/tmp", &p), HC_ERR_IO);
	ck_assert(last_error_has("'/tmp': Is a directory"));
	ck_assert_int_eq(hc_sim_profile_load(NULL, &p), HC_ERR_INVALID);
}
END_TEST

START_TEST(profile_malformed_line)
{
	struct hc_sim_profile p;

	ck_assert_int_eq(hc_sim_profile_parse(REQUIRED_KEYS "d2d_latency 5\n", "bad.profile", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("bad.profile:14"));
	ck_assert_int_eq(hc_sim_profile_parse("name = x\ntotal_memory = 12 parsecs\n", "u", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("u:2"));
	ck_assert(last_error_has("total_memory"));
	ck_assert_int_eq(hc_sim_profile_parse("alignment = 3\n", "a", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("power of two"));
	ck_assert_int_eq(hc_sim_profile_parse("d2d_bw = 0\n", "z", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("d2d_bw"));
	ck_assert_int_eq(hc_sim_profile_parse("jitter_ppm = 5 us\n", "j", &p), HC_ERR_PARSE);
	ck_assert_int_eq(hc_sim_profile_parse("integrated = maybe\n", "i", &p), HC_ERR_PARSE);
	ck_assert_int_eq(hc_sim_profile_parse("alignment = 256\nalignment = 256\n", "d", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("d:2"));
	ck_assert(last_error_has("twice"));
	ck_assert_int_eq(hc_sim_profile_parse(" = 5\n", "e", &p), HC_ERR_PARSE);
	ck_assert_int_eq(hc_sim_profile_parse("copy_call =\n", "v", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("copy_call"));
}
END_TEST

START_TEST(profile_unknown_key)
{
	struct hc_sim_profile p;

	ck_assert_int_eq(hc_sim_profile_parse(REQUIRED_KEYS "warp_speed = 9\n", "k.profile", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("k.profile:14"));
	ck_assert(last_error_has("warp_speed"));
}
END_TEST

START_TEST(profile_missing_required_key)
{
	struct hc_sim_profile p;

	ck_assert_int_eq(hc_sim_profile_parse(REQUIRED_KEYS, "m", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("d2d_latency"));
	ck_assert_int_eq(hc_sim_profile_parse("", "empty", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("'name'"));
}
END_TEST

START_TEST(profile_overflow_and_negative)
{
	struct hc_sim_profile p;

	ck_assert_int_eq(hc_sim_profile_parse("total_memory = 18446744073709551616\n", "o", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("out of range"));
	ck_assert_int_eq(hc_sim_profile_parse("total_memory = 17179869184 GiB\n", "o", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("out of range"));
	ck_assert_int_eq(hc_sim_profile_parse("event_sync = 18446744073709552 us\n", "o", &p),
			 HC_ERR_PARSE);
	ck_assert_int_eq(hc_sim_profile_parse("event_sync = -5\n", "n", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("negative"));
	/* the largest 64-bit number parses, and then meets the key's range */
	ck_assert_int_eq(hc_sim_profile_parse(REQUIRED_KEYS "d2d_latency = 1\n"
					      "event_sync = 18446744073709551615\n", "max", &p),
			 HC_ERR_PARSE);
	ck_assert(last_error_has("max:15: key 'event_sync': above the maximum of 3600000000000 (1 hour)"));
	ck_assert_int_eq(hc_sim_profile_parse(NULL, "x", &p), HC_ERR_INVALID);
	ck_assert_int_eq(hc_sim_profile_parse("", "x", NULL), HC_ERR_INVALID);
}
END_TEST

/* Every key has a range, checked at load with the key, the limit and the
 * line named; the limits themselves load. */
START_TEST(profile_keys_range_checked)
{
	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "jitter_ppm = 18446744073709551615",
		  "r:15: key 'jitter_ppm': above the maximum of 1000000 ppm (100 %)" },
		{ "jitter_ppm = 1000001", "key 'jitter_ppm': above the maximum of 1000000 ppm" },
		{ "cold_copy = 18446744073709551615", "key 'cold_copy': above the maximum of 3600000000000" },
		{ "launch_call = 3601 s", "key 'launch_call': above the maximum of 3600000000000 (1 hour)" },
		{ "host_copy_bw = 2000000 GB/s", "key 'host_copy_bw': above the maximum of 1000000000000000 B/s" },
		{ "host_copy_bw = 0", "key 'host_copy_bw': host_copy_bw must be at least 1" },
		{ "host_cold_bytes = 2048 TiB", "key 'host_cold_bytes': above the maximum of 1125899906842624 B" },
	};
	struct hc_sim_profile p;
	char text[2048];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), REQUIRED_KEYS "d2d_latency = 1\n%s\n", bad[i].line);
		ck_assert_int_eq(hc_sim_profile_parse(text, "r", &p), HC_ERR_PARSE);
		ck_assert_msg(last_error_has(bad[i].want), "case %zu", i);
	}
	ck_assert_int_eq(hc_sim_profile_parse("alignment = 2 GiB\n", "a", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("key 'alignment': above the maximum of 1073741824 B (1 GiB)"));
	ck_assert_int_eq(hc_sim_profile_parse("total_memory = 2048 TiB\n", "m", &p), HC_ERR_PARSE);
	ck_assert(last_error_has("key 'total_memory': above the maximum of 1125899906842624 B (1 PiB)"));
	snprintf(text, sizeof(text), REQUIRED_KEYS "d2d_latency = 1\njitter_ppm = 1000000\n"
		 "cold_copy = 3600 s\nhost_cold_bytes = 1024 TiB\nhost_copy_bw = 1000000 GB/s\n");
	ck_assert_int_eq(hc_sim_profile_parse(text, "limits", &p), HC_OK);
	ck_assert_uint_eq(p.jitter_ppm, 1000000);
	ck_assert_uint_eq(p.cold_copy_ns, 3600000000000ull);
}
END_TEST


/* The largest figures a profile may hold, through copies, launches and
 * syncs with cold calls on and full jitter: no overflow, no division by
 * zero (UBSan's -fno-sanitize-recover build aborts on either), and the
 * clock only moves forward. */
START_TEST(profile_limits_run_clean)
{
	char text[2048], path[64];
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_hal_dptr d;
	hc_hal_event *e;
	static char host[4096];
	uint64_t t0, t1;

	snprintf(text, sizeof(text), REQUIRED_KEYS "d2d_latency = 3600 s\njitter_ppm = 1000000\n"
		 "host_cold_bytes = 1\ncold_copy = 3600 s\ncold_launch = 3600 s\n"
		 "cold_event_record = 3600 s\ncold_stream_sync = 3600 s\ncold_dev_alloc = 3600 s\n"
		 "cold_dev_free = 3600 s\ncopy_call = 3600 s\nlaunch_call = 3600 s\n"
		 "dev_alloc = 3600 s\ndev_alloc_per_mib = 3600 s\nkernel_default = 3600 s\n");
	write_temp(text, path);
	dev = open_dev(false, 0, 3, path);
	unlink(path);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	t0 = now(dev);
	for (int i = 0; i < 4; i++) {
		host_copy(dev, 4096);
		ck_assert_int_eq(ops->mem_alloc(dev, 64 * MIB, &d), HC_OK);
		ck_assert_int_eq(ops->copy_h2d(dev, s, d, host, sizeof(host), false), HC_OK);
		ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
		ck_assert_int_eq(ops->event_sync(dev, e), HC_OK);
		ops->event_destroy(dev, e);
		ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
		ck_assert_int_eq(ops->mem_free(dev, d), HC_OK);
	}
	t1 = now(dev);
	ck_assert_uint_gt(t1, t0);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* Deterministic mutations of the shipped profile: each parse returns HC_OK
 * or HC_ERR_PARSE, never anything else, and never touches memory it should
 * not (ASan/valgrind runs check that). */
START_TEST(profile_parse_survives_mutations)
{
	static const char alphabet[] = "=#\n \t-0123456789abcdefgKMGiBs/\"\r";
	FILE *f = fopen(HC_TOP_SRCDIR "/profiles/h200.profile", "rb");
	char base[4096], text[4096];
	size_t n;
	uint64_t x = 0x12345678;
	int ok = 0, bad = 0;
	struct hc_sim_profile p;

	ck_assert_ptr_nonnull(f);
	n = fread(base, 1, sizeof(base) - 1, f);
	fclose(f);
	ck_assert_uint_gt(n, 100);
	base[n] = '\0';
	for (int round = 0; round < 3000; round++) {
		hc_status st;
		memcpy(text, base, n + 1);
		for (int k = 0; k < 1 + round % 4; k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			text[(x >> 33) % n] = alphabet[(x >> 13) % (sizeof(alphabet) - 1)];
		}
		if (round % 7 == 0) /* truncations */
			text[(x >> 40) % n] = '\0';
		st = hc_sim_profile_parse(text, "fuzz", &p);
		ck_assert_msg(st == HC_OK || st == HC_ERR_PARSE, "status %d", (int)st);
		if (st == HC_OK)
			ok++;
		else
			bad++;
	}
	ck_assert_int_gt(ok, 0);
	ck_assert_int_gt(bad, 0);
}
END_TEST

START_TEST(profile_file_opens_device)
{
	char path[64];
	struct hc_hal_props props;
	hc_hal_dev *dev;

	write_temp(REQUIRED_KEYS "d2d_latency = 1 us\n", path);
	dev = open_dev(false, 0, 0, path);
	ck_assert_int_eq(ops->device_props(dev, &props), HC_OK);
	ck_assert_str_eq(props.name, "Test GPU");
	ck_assert_uint_eq(props.total_memory, 1ULL << 30);
	ck_assert_uint_eq(props.alignment, 512);
	ck_assert(props.integrated);
	ops->device_close(dev);
	unlink(path);
}
END_TEST

Suite *sim_profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc;

	tc = tcase_create("profile");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, profile_file_equals_builtin);
	tcase_add_test(tc, calibrated_profile_loads);
	tcase_add_test(tc, h100_profile_has_cold_keys);
	tcase_add_test(tc, profile_parse_units_and_defaults);
	tcase_add_test(tc, profile_missing_file);
	tcase_add_test(tc, profile_malformed_line);
	tcase_add_test(tc, profile_unknown_key);
	tcase_add_test(tc, profile_missing_required_key);
	tcase_add_test(tc, profile_overflow_and_negative);
	tcase_add_test(tc, profile_keys_range_checked);
	tcase_add_test(tc, profile_limits_run_clean);
	tcase_add_test(tc, profile_file_opens_device);
	tcase_add_test(tc, profile_parse_survives_mutations);
	suite_add_tcase(s, tc);
	return s;
}
