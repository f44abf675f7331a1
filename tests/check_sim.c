/*
 * check_sim.c - the simulator backend, through hc_sim_ops() directly.
 *
 * Times below are exact virtual nanoseconds computed from the built-in H200
 * profile (sim/sim_profile.c): stream_create 2000, dev_alloc 40000 (up to
 * 1 MiB), host_alloc 600000 (up to 1 MiB), copy_call 1090, launch_call 1090,
 * launch_overhead 500, event_record 300, event_wait 210, event_sync 500,
 * stream_sync 500; a 1 MiB pinned copy lasts 8000 + ceil(2^20 / 55) = 27066,
 * a 1 MiB pageable H2D 10000 + 2^20 / 8 = 141072.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hal/hal.h"
#include "sim/sim.h"
#include "tests/runner.h"

#define MIB HC_MIB
#define PINNED_1M (8000 + 19066)
#define PAGEABLE_H2D_1M (10000 + 131072)

static const struct hc_hal_ops *ops;

static void setup(void)
{
	ops = hc_sim_ops();
}

static hc_hal_dev *open_dev(bool data_mode, uint64_t capacity, uint64_t seed, const char *profile)
{
	struct hc_hal_open_args a = { .ordinal = 0, .profile = profile, .seed = seed,
				      .capacity = capacity, .data_mode = data_mode };
	hc_hal_dev *dev = NULL;

	ck_assert_int_eq(ops->device_open(&a, &dev), HC_OK);
	ck_assert_ptr_nonnull(dev);
	return dev;
}

static uint64_t now(hc_hal_dev *dev)
{
	uint64_t t = 0;

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_NOW_NS, &t), HC_OK);
	return t;
}

static struct hc_hal_stats stats(hc_hal_dev *dev)
{
	struct hc_hal_stats s;

	memset(&s, 0xff, sizeof(s));
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_STATS, &s), HC_OK);
	return s;
}

static void arm(hc_hal_dev *dev, hc_fault_kind kind, uint64_t n, hc_fault_mode mode)
{
	struct hc_hal_fault_arg f = { kind, n, mode };

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_OK);
}

static bool last_error_has(const char *needle)
{
	hc_error_info e;

	hc_last_error(&e);
	if (!strstr(e.message, needle)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", e.message, needle);
		return false;
	}
	return true;
}

/* Writes @text to a fresh temporary file; the caller unlinks @path. */
static void write_temp(const char *text, char path[64])
{
	int fd;

	snprintf(path, 64, "/tmp/check_sim_XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

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

#define REQUIRED_KEYS                                                                        \
	"name = \"Test GPU\"\n"                                                              \
	"total_memory = 1 GiB   # a comment\n"                                               \
	"alignment = 512\n"                                                                  \
	"integrated = yes\n"                                                                 \
	"h2d_pinned_bw = 1 MB/s\n"                                                           \
	"h2d_pageable_bw = 2GiB/s\n"                                                         \
	"d2h_pinned_bw = 3000 kB/s\n"                                                        \
	"d2h_pageable_bw = 4 GB/s\n"                                                         \
	"d2d_bw = 5\n"                                                                       \
	"h2d_pinned_latency = 3 us\n"                                                        \
	"h2d_pageable_latency = 2ms\n"                                                       \
	"d2h_pinned_latency = 1 s\n"                                                         \
	"d2h_pageable_latency = 7\n"

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

static void host_copy(hc_hal_dev *dev, uint64_t bytes);

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

/* ------------------------------------------------------------------ */
/* Determinism                                                         */
/* ------------------------------------------------------------------ */

struct script_result {
	uint64_t t[6];
	struct hc_hal_stats st;
};

static struct script_result run_script(hc_hal_dev *dev)
{
	struct script_result r;
	hc_hal_stream *a, *b;
	hc_hal_event *ea;
	hc_hal_module *mod;
	hc_hal_function *fn;
	hc_hal_dptr d1, d2;
	void *pin;
	static unsigned char page[64 * 1024];
	struct hc_hal_launch l = { .duration_hint_ns = 12345 };

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(ops->stream_create(dev, &a), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &d1), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 3 * MIB, &d2), HC_OK);
	ck_assert_int_eq(ops->host_alloc(dev, MIB, &pin), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "fill", &fn), HC_OK);
	r.t[0] = now(dev);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(ops->copy_h2d(dev, a, d1, pin, MIB, true), HC_OK);
		ck_assert_int_eq(ops->copy_h2d(dev, b, d2, page, sizeof(page), false), HC_OK);
		ck_assert_int_eq(ops->launch(dev, a, fn, &l), HC_OK);
		ck_assert_int_eq(ops->event_record(dev, a, &ea), HC_OK);
		ck_assert_int_eq(ops->event_wait(dev, b, ea), HC_OK);
		ck_assert_int_eq(ops->copy_d2d(dev, b, d2, d1, MIB), HC_OK);
		ck_assert_int_eq(ops->copy_d2h(dev, b, pin, d2, MIB, true), HC_OK);
		ops->event_destroy(dev, ea);
	}
	r.t[1] = now(dev);
	ck_assert_int_eq(ops->stream_sync(dev, a), HC_OK);
	r.t[2] = now(dev);
	ck_assert_int_eq(ops->stream_sync(dev, b), HC_OK);
	r.t[3] = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, d1), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, d2), HC_OK);
	ck_assert_int_eq(ops->host_free(dev, pin), HC_OK);
	ck_assert_int_eq(ops->stream_destroy(dev, a), HC_OK);
	ck_assert_int_eq(ops->stream_destroy(dev, b), HC_OK);
	ops->module_unload(dev, mod);
	r.t[4] = now(dev);
	r.st = stats(dev);
	return r;
}

static const char jitter_profile[] = REQUIRED_KEYS "d2d_latency = 1 us\njitter_ppm = 200000\n";

START_TEST(determinism_same_seed_same_numbers)
{
	char path[64];
	hc_hal_dev *d1, *d2, *d3;
	struct script_result r1, r2, r3;

	write_temp(jitter_profile, path);
	d1 = open_dev(false, 0, 42, path);
	d2 = open_dev(false, 0, 42, path);
	d3 = open_dev(false, 0, 43, path);
	r1 = run_script(d1);
	r2 = run_script(d2);
	r3 = run_script(d3);
	ck_assert_mem_eq(r1.t, r2.t, sizeof(r1.t));
	ck_assert_mem_eq(&r1.st, &r2.st, sizeof(r1.st));
	ck_assert_uint_ne(r1.t[3], r3.t[3]); /* another seed, other jitter */
	ck_assert_uint_eq(r1.st.launches, 5);
	ck_assert_uint_eq(r1.st.copies_h2d, 10);
	ck_assert_uint_eq(r1.st.copies_d2d, 5);
	ck_assert_uint_eq(r1.st.copies_d2h, 5);
	ck_assert_uint_eq(r1.st.bytes_h2d, 5 * (MIB + 64 * 1024));
	ck_assert_uint_eq(r1.st.bytes_d2h, 5 * MIB);
	ck_assert_uint_eq(r1.st.stream_waits, 5);
	ck_assert_uint_eq(r1.st.host_waits, 2);
	ck_assert_uint_eq(r1.st.device_allocs, 2);
	ck_assert_uint_eq(r1.st.device_frees, 2);
	ck_assert_uint_eq(r1.st.host_allocs, 1);
	ck_assert_uint_eq(r1.st.host_frees, 1);
	ck_assert_uint_eq(r1.st.device_bytes_live, 0);
	ck_assert_uint_eq(r1.st.device_bytes_peak, 4 * MIB);
	ops->device_close(d1);
	ops->device_close(d2);
	ops->device_close(d3);
	unlink(path);
}
END_TEST

START_TEST(jitter_only_lengthens_device_work)
{
	char path[64], path0[64];
	hc_hal_dev *dj, *d0;
	struct script_result rj, r0;

	write_temp(jitter_profile, path);
	write_temp(REQUIRED_KEYS "d2d_latency = 1 us\n", path0);
	dj = open_dev(false, 0, 7, path);
	d0 = open_dev(false, 0, 7, path0);
	rj = run_script(dj);
	r0 = run_script(d0);
	ck_assert_uint_eq(rj.t[0], r0.t[0]); /* host API costs carry no jitter */
	ck_assert_uint_gt(rj.t[3], r0.t[3]);
	/* at most +20% of the device time on top of the unjittered run */
	ck_assert_uint_le(rj.t[3] - r0.t[3], (r0.t[3] - r0.t[0]) / 5);
	ck_assert_mem_eq(&rj.st.launches, &r0.st.launches, sizeof(uint64_t));
	ops->device_close(dj);
	ops->device_close(d0);
	unlink(path);
	unlink(path0);
}
END_TEST

START_TEST(determinism_without_jitter_seed_is_irrelevant)
{
	hc_hal_dev *d1 = open_dev(false, 0, 1, NULL), *d2 = open_dev(false, 0, 999, NULL);
	struct script_result r1 = run_script(d1), r2 = run_script(d2);

	ck_assert_mem_eq(r1.t, r2.t, sizeof(r1.t));
	ck_assert_mem_eq(&r1.st, &r2.st, sizeof(r1.st));
	/* setup: 2 streams, allocs of 1 MiB and 3 MiB (40000 + 2 * 600), a pinned MiB */
	ck_assert_uint_eq(r1.t[0], 2 * 2000 + 40000 + 41200 + 600000);
	ops->device_close(d1);
	ops->device_close(d2);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Event ordering across streams                                       */
/* ------------------------------------------------------------------ */

static void ordering_case(bool wait)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *a, *b;
	hc_hal_event *ea, *eb;
	hc_hal_module *mod;
	hc_hal_function *fn;
	struct hc_hal_launch longk = { .duration_hint_ns = 1000000 }, shortk = { .duration_hint_ns = 10 };
	bool done = true;
	uint64_t t;

	ck_assert_int_eq(ops->stream_create(dev, &a), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &b), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "add", &fn), HC_OK);
	ck_assert_int_eq(ops->launch(dev, a, fn, &longk), HC_OK); /* 4000+1090 .. +1000500 */
	ck_assert_int_eq(ops->event_record(dev, a, &ea), HC_OK);
	if (wait)
		ck_assert_int_eq(ops->event_wait(dev, b, ea), HC_OK);
	ck_assert_int_eq(ops->launch(dev, b, fn, &shortk), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, b, &eb), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, eb), HC_OK);
	t = now(dev);
	ck_assert_int_eq(ops->event_query(dev, ea, &done), HC_OK);
	if (wait) {
		/* B's kernel starts when A's ends: 5090 + 1000500, then 510 more */
		ck_assert_uint_eq(t, 5090 + 1000500 + 510);
		ck_assert(done);
		ck_assert_uint_eq(stats(dev).host_blocked_ns, t - (4000 + 1090 + 300 + 210 + 1090 + 300 + 500));
	} else {
		/* B ran at once: its event completed at 6480 + 510 < host 7280 */
		ck_assert_uint_eq(t, 4000 + 1090 + 300 + 1090 + 300 + 500);
		ck_assert(!done);
		ck_assert_uint_eq(stats(dev).host_blocked_ns, 0);
	}
	ck_assert_uint_eq(stats(dev).stream_waits, wait ? 1 : 0);
	ck_assert_uint_eq(stats(dev).host_waits, 1);
	ops->event_destroy(dev, ea);
	ops->event_destroy(dev, eb);
	ops->device_close(dev); /* frees the streams and the module */
}

START_TEST(event_wait_orders_streams)
{
	ordering_case(true);
}
END_TEST

START_TEST(no_wait_no_order)
{
	ordering_case(false);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Host blocking                                                       */
/* ------------------------------------------------------------------ */

START_TEST(pageable_h2d_blocks_host)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_dptr d;
	static unsigned char src[MIB];

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &d), HC_OK);
	ck_assert_uint_eq(now(dev), 2000 + 40000);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d, src, MIB, false), HC_OK);
	ck_assert_uint_eq(now(dev), 42000 + 1090 + PAGEABLE_H2D_1M);
	ck_assert_int_eq(ops->copy_d2h(dev, s, src, d, MIB, false), HC_OK);
	/* pageable D2H: 10000 + 2^20 / 16 */
	ck_assert_uint_eq(now(dev), 42000 + 1090 + PAGEABLE_H2D_1M + 1090 + 10000 + 65536);
	ck_assert_uint_eq(stats(dev).host_waits, 0);
	ops->device_close(dev);
}
END_TEST

START_TEST(pinned_copy_does_not_block_until_sync)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_dptr d;
	void *pin;
	struct hc_hal_stats st;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &d), HC_OK);
	ck_assert_int_eq(ops->host_alloc(dev, MIB, &pin), HC_OK);
	ck_assert_uint_eq(now(dev), 642000);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d, pin, MIB, true), HC_OK);
	ck_assert_uint_eq(now(dev), 643090);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_uint_eq(now(dev), 643090 + PINNED_1M);
	st = stats(dev);
	ck_assert_uint_eq(st.host_waits, 1);
	ck_assert_uint_eq(st.host_blocked_ns, PINNED_1M - 500);
	/* a second sync finds nothing to wait for */
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_uint_eq(now(dev), 643090 + PINNED_1M + 500);
	ck_assert_uint_eq(stats(dev).host_blocked_ns, PINNED_1M - 500);
	ck_assert_int_eq(ops->host_free(dev, pin), HC_OK);
	ops->device_close(dev);
}
END_TEST

START_TEST(stream_destroy_waits_for_its_work)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_module *mod;
	hc_hal_function *fn;
	struct hc_hal_launch l = { .duration_hint_ns = 50000 };

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "copy", &fn), HC_OK);
	ck_assert_int_eq(ops->launch(dev, s, fn, &l), HC_OK);
	ck_assert_uint_eq(now(dev), 2000 + 1090);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ck_assert_uint_eq(now(dev), 2000 + 1090 + 50500 + 1300);
	ops->module_unload(dev, mod);
	ops->device_close(dev);
}
END_TEST

START_TEST(set_host_ns_moves_forward_only)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	uint64_t t = 5000000;
	hc_hal_stream *s;

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_SET_HOST_NS, &t), HC_OK);
	ck_assert_uint_eq(now(dev), 5000000);
	t = 10;
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_SET_HOST_NS, &t), HC_OK);
	ck_assert_uint_eq(now(dev), 5000000);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_uint_eq(now(dev), 5002000);
	ops->device_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Copy engines                                                        */
/* ------------------------------------------------------------------ */

struct engine_fixture {
	hc_hal_dev *dev;
	hc_hal_stream *a, *b;
	hc_hal_dptr d1, d2;
	void *pin;
	uint64_t t0;
};

static void engine_setup(struct engine_fixture *f)
{
	f->dev = open_dev(false, 0, 0, NULL);
	ck_assert_int_eq(ops->stream_create(f->dev, &f->a), HC_OK);
	ck_assert_int_eq(ops->stream_create(f->dev, &f->b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(f->dev, MIB, &f->d1), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(f->dev, MIB, &f->d2), HC_OK);
	ck_assert_int_eq(ops->host_alloc(f->dev, 2 * MIB, &f->pin), HC_OK);
	f->t0 = now(f->dev);
}

START_TEST(two_h2d_serialise_on_the_engine)
{
	struct engine_fixture f;

	engine_setup(&f);
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.a, f.d1, f.pin, MIB, true), HC_OK);
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.b, f.d2, (char *)f.pin + MIB, MIB, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.b), HC_OK);
	/* B's copy waited for A's: starts at t0 + 1090 + PINNED_1M */
	ck_assert_uint_eq(now(f.dev), f.t0 + 1090 + 2 * PINNED_1M);
	ops->device_close(f.dev);
}
END_TEST

START_TEST(h2d_and_d2h_overlap)
{
	struct engine_fixture f;

	engine_setup(&f);
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.a, f.d1, f.pin, MIB, true), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(f.dev, f.b, (char *)f.pin + MIB, f.d2, MIB, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.b), HC_OK);
	ck_assert_uint_eq(now(f.dev), f.t0 + 2180 + PINNED_1M);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.a), HC_OK);
	ck_assert_uint_eq(now(f.dev), f.t0 + 2180 + PINNED_1M + 500);
	ops->device_close(f.dev);
}
END_TEST

START_TEST(same_stream_copies_are_in_order)
{
	struct engine_fixture f;

	engine_setup(&f);
	/* D2H after H2D on one stream waits even though the engines differ */
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.a, f.d1, f.pin, MIB, true), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(f.dev, f.a, (char *)f.pin + MIB, f.d2, MIB, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.a), HC_OK);
	ck_assert_uint_eq(now(f.dev), f.t0 + 1090 + 2 * PINNED_1M);
	ops->device_close(f.dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Capacity and the address space                                      */
/* ------------------------------------------------------------------ */

START_TEST(alloc_until_oom_at_exact_count)
{
	hc_hal_dev *dev = open_dev(false, MIB, 0, NULL);
	hc_hal_dptr p[257], q;
	struct hc_hal_props props;
	int i;

	ck_assert_int_eq(ops->device_props(dev, &props), HC_OK);
	ck_assert_uint_eq(props.total_memory, MIB);
	for (i = 0; i < 257; i++)
		if (ops->mem_alloc(dev, 4000, &p[i]) != HC_OK) /* 4000 rounds to 4096 */
			break;
	ck_assert_int_eq(i, 256);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &q), HC_ERR_OOM);
	ck_assert(last_error_has("1 bytes requested (256 rounded), 1048576 in use, capacity 1048576"));
	for (int j = 0; j < 256; j++) {
		ck_assert_uint_ne(p[j], 0);
		ck_assert_uint_eq(p[j] % 256, 0);
		if (j)
			ck_assert_uint_ge(p[j], p[j - 1] + 4096);
	}
	ck_assert_uint_eq(stats(dev).device_bytes_live, MIB);
	ck_assert_int_eq(ops->mem_free(dev, p[100]), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &q), HC_OK);
	ck_assert_uint_eq(q, p[100]); /* the freed range is reused */
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &q), HC_ERR_OOM);
	ops->device_close(dev); /* frees the live allocations */
}
END_TEST

START_TEST(address_space_is_reused)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b, c, first = 0, x;

	/* first fit: a hole is filled before the top grows */
	ck_assert_int_eq(ops->mem_alloc(dev, 1000, &a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 5000, &b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 1000, &c), HC_OK);
	ck_assert_uint_eq(b, a + 1024);
	ck_assert_uint_eq(c, b + 5120);
	ck_assert_int_eq(ops->mem_free(dev, b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 256, &x), HC_OK);
	ck_assert_uint_eq(x, b);
	ck_assert_int_eq(ops->mem_free(dev, x), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, c), HC_OK);
	/* everything coalesced back: a long alloc/free loop keeps one address */
	for (int i = 0; i < 20000; i++) {
		ck_assert_int_eq(ops->mem_alloc(dev, (uint64_t)(i % 7 + 1) * 100000, &x), HC_OK);
		if (i == 0)
			first = x;
		ck_assert_uint_eq(x, first);
		ck_assert_int_eq(ops->mem_free(dev, x), HC_OK);
	}
	ck_assert_uint_eq(first, a);
	ops->device_close(dev);
}
END_TEST

START_TEST(huge_device_without_data_mode_costs_no_memory)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b;

	ck_assert_int_eq(ops->mem_alloc(dev, 100ULL << 30, &a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 40ULL << 30, &b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 1ULL << 30, &b), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_alloc(dev, UINT64_MAX, &b), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	/* freeing 100 GiB costs 37 us + 306 ns per MiB beyond the first */
	ops->device_close(dev);
}
END_TEST

START_TEST(alloc_cost_scales_with_size)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a;
	void *h;
	uint64_t t;

	ck_assert_int_eq(ops->mem_alloc(dev, 512 * MIB, &a), HC_OK);
	ck_assert_uint_eq(now(dev), 40000 + 511 * 600);
	t = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 37000 + 511 * 306); /* the pair: 539.8 us */
	t = now(dev);
	ck_assert_int_eq(ops->host_alloc(dev, 32 * MIB, &h), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 600000 + 31 * 400000ULL);
	t = now(dev);
	ck_assert_int_eq(ops->host_free(dev, h), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 50000 + 31 * 24800);
	ops->device_close(dev);
}
END_TEST

static void host_copy(hc_hal_dev *dev, uint64_t bytes)
{
	struct hc_hal_host_copy h = { bytes, false, NULL, NULL, false };

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_HOST_COPY, &h), HC_OK);
}

/* The host time of one event_record (the event destroyed after, untimed). */
static uint64_t record_cost(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_hal_event *e = NULL;
	uint64_t t = now(dev), d;

	ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
	d = now(dev) - t;
	ops->event_destroy(dev, e);
	return d;
}

/* sim_cold.c: a call pays a share of its cold_ figure by the bytes
 * host-copied since its kind last ran (none up to host_cold_bytes / 16, a
 * quarter per doubling, all from host_cold_bytes); back to back it is hot. */
START_TEST(calls_after_host_copies_run_cold)
{
	static const char cold[] = REQUIRED_KEYS "d2d_latency = 1 us\nevent_record = 1000\nevent_destroy = 100\n"
					       "dev_alloc = 40 us\ndev_alloc_per_mib = 0\n"
					       "cold_event_record = 2000\ncold_dev_alloc = 36 us\n";
	char text[sizeof(cold) + 64], path[64];
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_hal_dptr a, b;
	uint64_t t;

	snprintf(text, sizeof(text), "%shost_cold_bytes = 8 MiB\n", cold);
	write_temp(text, path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_uint_eq(record_cost(dev, s), 1000); /* nothing copied yet */
	host_copy(dev, 512 * 1024);
	ck_assert_uint_eq(record_cost(dev, s), 1000); /* up to 8 MiB / 16: none */
	host_copy(dev, MIB);
	ck_assert_uint_eq(record_cost(dev, s), 1500); /* one doubling: a quarter */
	host_copy(dev, 3 * MIB);
	ck_assert_uint_eq(record_cost(dev, s), 2250); /* 1.5 doublings past 2 MiB */
	host_copy(dev, 3 * MIB);
	host_copy(dev, 5 * MIB);
	ck_assert_uint_eq(record_cost(dev, s), 3000); /* 8 MiB and more: all */
	ck_assert_uint_eq(record_cost(dev, s), 1000); /* back to back: hot */
	t = now(dev); /* never called: 12.5 MiB copied since the start */
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &a), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 76000);
	host_copy(dev, 2 * MIB);
	t = now(dev);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &b), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 58000); /* 2 MiB: half */
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, b), HC_OK);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);

	/* host_cold_bytes 0 (and in every profile written before it): never */
	snprintf(text, sizeof(text), "%shost_cold_bytes = 0\n", cold);
	write_temp(text, path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	host_copy(dev, 64 * MIB);
	ck_assert_uint_eq(record_cost(dev, s), 1000);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Data mode                                                           */
/* ------------------------------------------------------------------ */

struct kfix {
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_hal_module *mod;
};

static void kfix_open(struct kfix *k, bool data_mode)
{
	k->dev = open_dev(data_mode, 0, 0, NULL);
	ck_assert_int_eq(ops->stream_create(k->dev, &k->s), HC_OK);
	ck_assert_int_eq(ops->module_load(k->dev, NULL, 0, &k->mod), HC_OK);
}

static hc_hal_dptr dev_with(struct kfix *k, const void *bytes, uint64_t n)
{
	hc_hal_dptr d;

	ck_assert_int_eq(ops->mem_alloc(k->dev, n, &d), HC_OK);
	if (bytes)
		ck_assert_int_eq(ops->copy_h2d(k->dev, k->s, d, bytes, n, false), HC_OK);
	return d;
}

static void read_back(struct kfix *k, void *dst, hc_hal_dptr src, uint64_t n)
{
	ck_assert_int_eq(ops->copy_d2h(k->dev, k->s, dst, src, n, false), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k->dev, k->s), HC_OK);
}

static hc_status run_kernel(struct kfix *k, const char *name, size_t n,
			    const hc_hal_dptr *dptr, const uint64_t *bytes)
{
	hc_hal_function *fn;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
				   .n_args = n, .arg_dptr = dptr, .arg_bytes = bytes };

	ck_assert_int_eq(ops->function_get(k->dev, k->mod, name, &fn), HC_OK);
	return ops->launch(k->dev, k->s, fn, &l);
}

START_TEST(data_round_trip)
{
	struct kfix k;
	unsigned char src[1000], mid[1000], out[1000];
	hc_hal_dptr a, b;
	void *pin;

	kfix_open(&k, true);
	for (int i = 0; i < 1000; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	a = dev_with(&k, src, 1000);
	b = dev_with(&k, NULL, 1000);
	ck_assert_int_eq(ops->copy_d2d(k.dev, k.s, b + 100, a, 900), HC_OK);
	read_back(&k, mid, b, 1000);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(mid[i], 0); /* fresh device memory reads as zero */
	ck_assert_mem_eq(mid + 100, src, 900);
	ck_assert_int_eq(ops->host_alloc(k.dev, 1000, &pin), HC_OK);
	ck_assert_uint_eq((uintptr_t)pin % 64, 0);
	ck_assert_int_eq(ops->copy_d2h(k.dev, k.s, pin, a, 1000, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	memcpy(out, pin, 1000);
	ck_assert_mem_eq(out, src, 1000);
	ck_assert_int_eq(ops->host_free(k.dev, pin), HC_OK);
	ops->device_close(k.dev);
}
END_TEST

/* Without data mode kernels only cost time: no count or range to check. */
START_TEST(kernel_args_unchecked_without_data_mode)
{
	struct kfix k;
	hc_hal_dptr args[1] = { 0x1234 };
	uint64_t bytes[1] = { 1u << 30 };

	kfix_open(&k, false);
	ck_assert_int_eq(run_kernel(&k, "fill", 1, args, bytes), HC_OK);
	ck_assert_int_eq(run_kernel(&k, "add", 1, args, bytes), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_uint_eq(stats(k.dev).launches, 2);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(kernel_fill_words_and_bytes)
{
	struct kfix k;
	uint32_t info4[1] = { 0xa1b2c3d4u }, info1[2] = { 0x1234567fu, 1 };
	unsigned char out[10];
	const unsigned char want4[10] = { 0xd4, 0xc3, 0xb2, 0xa1, 0xd4, 0xc3, 0xb2, 0xa1, 0xd4, 0xc3 };
	hc_hal_dptr dst, i4, i1, args[2];
	uint64_t bytes[2];

	kfix_open(&k, true);
	dst = dev_with(&k, NULL, 10);
	i4 = dev_with(&k, info4, sizeof(info4));
	i1 = dev_with(&k, info1, sizeof(info1));
	args[0] = dst, args[1] = i4, bytes[0] = 10, bytes[1] = 4;
	ck_assert_int_eq(run_kernel(&k, "fill", 2, args, bytes), HC_OK);
	read_back(&k, out, dst, 10);
	ck_assert_mem_eq(out, want4, 10);
	args[1] = i1, bytes[0] = 6, bytes[1] = 8;
	ck_assert_int_eq(run_kernel(&k, "fill", 2, args, bytes), HC_OK);
	read_back(&k, out, dst, 10);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(out[i], 0x7f);
	ck_assert_mem_eq(out + 6, want4 + 6, 4);
	/* info too small, wrong count: refused at launch */
	bytes[1] = 2;
	ck_assert_int_eq(run_kernel(&k, "fill", 2, args, bytes), HC_ERR_INVALID);
	ck_assert_int_eq(run_kernel(&k, "fill", 1, args, bytes), HC_ERR_INVALID);
	{	/* extra trailing parameters (hc_launch's info pointer) are accepted */
		hc_hal_dptr a3[3] = { dst, i4, i1 };
		uint64_t b3[3] = { 2, 4, 8 };
		ck_assert_int_eq(run_kernel(&k, "fill", 3, a3, b3), HC_OK);
		read_back(&k, out, dst, 10);
		ck_assert_mem_eq(out, want4, 2);
		ck_assert_uint_eq(out[2], 0x7f);
		ck_assert_uint_eq(out[3], 0x7f);
	}
	ck_assert_uint_eq(stats(k.dev).launches, 3);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(kernel_copy_and_add)
{
	struct kfix k;
	uint32_t a[5] = { 1, 2, 3, 0xffffffffu, 100 }, b[5] = { 10, 20, 30, 2, 7 }, out[5];
	hc_hal_dptr da, db, dout, args[3];
	uint64_t bytes[3];

	kfix_open(&k, true);
	da = dev_with(&k, a, sizeof(a));
	db = dev_with(&k, b, sizeof(b));
	dout = dev_with(&k, NULL, sizeof(out));
	args[0] = da, args[1] = db, args[2] = dout;
	bytes[0] = bytes[1] = bytes[2] = sizeof(a);
	ck_assert_int_eq(run_kernel(&k, "add", 3, args, bytes), HC_OK);
	read_back(&k, out, dout, sizeof(out));
	ck_assert_uint_eq(out[0], 11);
	ck_assert_uint_eq(out[1], 22);
	ck_assert_uint_eq(out[2], 33);
	ck_assert_uint_eq(out[3], 1); /* wraps */
	ck_assert_uint_eq(out[4], 107);
	/* copy(src, dst): 8 bytes of a into the start of out */
	args[0] = da, args[1] = dout, bytes[0] = 20, bytes[1] = 8;
	ck_assert_int_eq(run_kernel(&k, "copy", 2, args, bytes), HC_OK);
	read_back(&k, out, dout, sizeof(out));
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(out[2], 33);
	/* src binding smaller than dst, a range past its allocation */
	bytes[0] = 4;
	ck_assert_int_eq(run_kernel(&k, "copy", 2, args, bytes), HC_ERR_INVALID);
	bytes[0] = 260; /* da is 20 bytes rounded to 256 */
	ck_assert_int_eq(run_kernel(&k, "copy", 2, args, bytes), HC_ERR_INVALID);
	ck_assert(last_error_has("runs past its allocation"));
	/* data mode needs the bindings */
	ck_assert_int_eq(run_kernel(&k, "add", 3, NULL, NULL), HC_ERR_INVALID);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(kernels_without_data_mode_only_cost_time)
{
	struct kfix k;
	hc_hal_function *fn;
	struct hc_hal_launch l = { .duration_hint_ns = 0 };
	uint64_t t;

	kfix_open(&k, false);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "copy", &fn), HC_OK);
	t = now(k.dev);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_uint_eq(now(k.dev), t + 1090 + 500 + 500); /* call, overhead + default */
	ck_assert_uint_eq(stats(k.dev).launches, 1);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(module_rules)
{
	struct kfix k;
	hc_hal_module *m = NULL;
	hc_hal_function *fn = NULL;
	static const char image[16] = "not a module";

	kfix_open(&k, false);
	ck_assert_int_eq(ops->module_load(k.dev, image, sizeof(image), &m), HC_ERR_UNSUPPORTED);
	ck_assert(last_error_has("built-in"));
	ck_assert_ptr_null(m);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "gemm", &fn), HC_ERR_INVALID);
	ck_assert(last_error_has("gemm"));
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, NULL, &fn), HC_ERR_INVALID);
	ck_assert_int_eq(ops->module_load(k.dev, NULL, 0, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->launch(k.dev, k.s, NULL, &(struct hc_hal_launch){ 0 }), HC_ERR_INVALID);
	ops->module_unload(k.dev, k.mod);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(module_unload_waits_for_its_graphs)
{
	struct kfix k;
	hc_hal_function *fn, *f2;
	hc_hal_graph *g;
	hc_hal_dptr d, info, args[2];
	uint64_t bytes[2] = { 4, 4 };
	uint32_t v = 0x0a0b0c0du, out = 0;
	struct hc_hal_launch l = { .n_args = 2, .arg_dptr = args, .arg_bytes = bytes };

	kfix_open(&k, true);
	d = dev_with(&k, NULL, 4);
	info = dev_with(&k, &v, 4);
	args[0] = d, args[1] = info;
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->capture_begin(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->capture_end(k.dev, k.s, &g), HC_OK);
	ops->module_unload(k.dev, k.mod);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &f2), HC_ERR_INVALID);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_ERR_INVALID);
	/* the graph still runs its kernel */
	ck_assert_int_eq(ops->graph_launch(k.dev, k.s, g), HC_OK);
	read_back(&k, &out, d, 4);
	ck_assert_uint_eq(out, 0x0a0b0c0du);
	ops->graph_destroy(k.dev, g); /* frees the module (valgrind checks) */
	/* a capture left open at close releases its kernel ops and module */
	ck_assert_int_eq(ops->module_load(k.dev, NULL, 0, &k.mod), HC_OK);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->capture_begin(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ops->module_unload(k.dev, k.mod);
	ops->device_close(k.dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Capture                                                             */
/* ------------------------------------------------------------------ */

START_TEST(capture_rejects_memory_and_sync_ops)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s, *other;
	hc_hal_event *e;
	hc_hal_graph *g = NULL;
	hc_hal_dptr d, d0;
	void *h;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &other), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &d0), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, other, &e), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_ERR_STATE);
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &d), HC_ERR_STATE);
	ck_assert(last_error_has("not permitted while capturing"));
	ck_assert_int_eq(ops->mem_free(dev, d0), HC_ERR_STATE);
	ck_assert_int_eq(ops->host_alloc(dev, 64, &h), HC_ERR_STATE);
	/* a sync of another stream is refused as well */
	ck_assert_int_eq(ops->stream_sync(dev, other), HC_ERR_STATE);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_STATE);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_ERR_STATE);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_ERR_STATE);
	ck_assert(last_error_has("3 memory operations and 2 synchronisations"));
	ck_assert_ptr_null(g);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_ERR_STATE); /* not capturing now */
	/* after the capture everything works again */
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &d), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, other), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_OK);
	ck_assert_uint_eq(stats(dev).device_allocs, 2);
	ops->event_destroy(dev, e);
	ops->device_close(dev);
}
END_TEST

START_TEST(capture_replays_with_data_effects)
{
	struct kfix k;
	hc_hal_dptr dst, info, args[2];
	uint64_t bytes[2] = { 16, 4 }, t;
	uint32_t *pin;
	hc_hal_function *fn;
	hc_hal_graph *g;
	hc_hal_event *e;
	struct hc_hal_launch l = { .n_args = 2, .arg_dptr = args, .arg_bytes = bytes,
				   .duration_hint_ns = 1000 };
	unsigned char *out;

	kfix_open(&k, true);
	dst = dev_with(&k, NULL, 16);
	info = dev_with(&k, NULL, 4);
	ck_assert_int_eq(ops->host_alloc(k.dev, 64, (void **)&pin), HC_OK);
	out = (unsigned char *)(pin + 4);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->event_record(k.dev, k.s, &e), HC_OK);
	args[0] = dst, args[1] = info;
	pin[0] = 0x01010101u;
	ck_assert_int_eq(ops->capture_begin(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->event_wait(k.dev, k.s, e), HC_OK);
	ck_assert_int_eq(ops->copy_h2d(k.dev, k.s, info, pin, 4, true), HC_OK);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(k.dev, k.s, out, dst, 16, true), HC_OK);
	args[0] = 0; /* the graph holds its own copy of the parameters */
	t = now(k.dev);
	ck_assert_int_eq(ops->capture_end(k.dev, k.s, &g), HC_OK);
	ck_assert_uint_eq(now(k.dev) - t, 10000 + 4 * 2430);
	/* nothing ran yet */
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(stats(k.dev).launches, 0);
	ck_assert_uint_eq(stats(k.dev).copies_d2h, 0);
	ck_assert_int_eq(ops->graph_launch(k.dev, k.s, g), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(out[i], 0x01);
	/* a replay reads the host source again */
	pin[0] = 0x02020202u;
	ck_assert_int_eq(ops->graph_launch(k.dev, k.s, g), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(out[i], 0x02);
	ck_assert_uint_eq(stats(k.dev).launches, 2);
	ck_assert_uint_eq(stats(k.dev).copies_d2h, 2);
	ops->graph_destroy(k.dev, g);
	ops->event_destroy(k.dev, e);
	ck_assert_int_eq(ops->host_free(k.dev, pin), HC_OK);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(captured_event_has_no_time_outside)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s, *o;
	hc_hal_event *e;
	hc_hal_graph *g;
	bool done;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &o), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
	ck_assert_int_eq(ops->event_wait(dev, o, e), HC_ERR_STATE);
	ck_assert_int_eq(ops->event_query(dev, e, &done), HC_ERR_STATE);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_STATE);
	ops->graph_destroy(dev, g); /* an empty graph */
	ops->device_close(dev);     /* frees the event */
}
END_TEST

/* ------------------------------------------------------------------ */
/* Fault injection                                                     */
/* ------------------------------------------------------------------ */

/* Runs @calls allocations of @kind; returns a bitmask of those that failed. */
static unsigned alloc_pattern(hc_hal_dev *dev, bool pinned, int calls)
{
	unsigned mask = 0;

	for (int i = 0; i < calls; i++) {
		hc_status st;
		if (pinned) {
			void *h;
			st = ops->host_alloc(dev, 100, &h);
			if (st == HC_OK)
				ck_assert_int_eq(ops->host_free(dev, h), HC_OK);
		} else {
			hc_hal_dptr d;
			st = ops->mem_alloc(dev, 100, &d);
			if (st == HC_OK)
				ck_assert_int_eq(ops->mem_free(dev, d), HC_OK);
		}
		if (st != HC_OK) {
			ck_assert_int_eq(st, HC_ERR_OOM);
			ck_assert(last_error_has("injected"));
			mask |= 1u << i;
		}
	}
	return mask;
}

static void alloc_fault_case(hc_fault_kind kind, bool pinned)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);

	ck_assert_uint_eq(alloc_pattern(dev, pinned, 2), 0);
	arm(dev, kind, 3, HC_FAULT_ONCE);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 6), 1u << 2);
	arm(dev, kind, 2, HC_FAULT_PERSISTENT);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 5), 0x1eu);
	arm(dev, kind, 0, HC_FAULT_OFF);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 3), 0);
	arm(dev, kind, 1, HC_FAULT_ONCE);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 2), 1u);
	if (pinned)
		ck_assert_uint_eq(stats(dev).host_allocs, 2 + 5 + 1 + 3 + 1);
	else
		ck_assert_uint_eq(stats(dev).device_allocs, 2 + 5 + 1 + 3 + 1);
	ops->device_close(dev);
}

START_TEST(fault_device_alloc)
{
	alloc_fault_case(HC_FAULT_DEVICE_ALLOC, false);
}
END_TEST

START_TEST(fault_pinned_alloc)
{
	alloc_fault_case(HC_FAULT_PINNED_ALLOC, true);
}
END_TEST

START_TEST(fault_capacity)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b, c;

	arm(dev, HC_FAULT_CAPACITY, 1024, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->mem_alloc(dev, 512, &a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 500, &b), HC_OK); /* 1024 in use: at the ceiling */
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	ck_assert(last_error_has("ceiling 1024"));
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_OK); /* ONCE: disarmed */
	ck_assert_int_eq(ops->mem_free(dev, c), HC_OK);
	arm(dev, HC_FAULT_CAPACITY, 1280, HC_FAULT_PERSISTENT);
	ck_assert_int_eq(ops->mem_alloc(dev, 256, &c), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 512, &a), HC_OK); /* fits under the ceiling again */
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	arm(dev, HC_FAULT_CAPACITY, 0, HC_FAULT_OFF);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_OK);
	ck_assert_uint_eq(stats(dev).device_bytes_live, 512 + 512 + 256 + 256);
	ops->device_close(dev);
}
END_TEST

/* Queues fills of three buffers; each launch call succeeds. */
static void fill_three(struct kfix *k, hc_hal_dptr d[3], hc_hal_dptr info)
{
	for (int i = 0; i < 3; i++) {
		hc_hal_dptr args[2] = { d[i], info };
		uint64_t bytes[2] = { 8, 4 };
		ck_assert_int_eq(run_kernel(k, "fill", 2, args, bytes), HC_OK);
	}
}

static unsigned filled_mask(struct kfix *k, hc_hal_dptr d[3])
{
	unsigned mask = 0;
	unsigned char out[8], zero[8] = { 0 };

	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ops->copy_d2h(k->dev, k->s, out, d[i], 8, false), HC_OK);
		if (memcmp(out, zero, 8) != 0)
			mask |= 1u << i;
		ck_assert_int_eq(ops->copy_h2d(k->dev, k->s, d[i], zero, 8, false), HC_OK);
	}
	return mask;
}

START_TEST(fault_launch)
{
	struct kfix k;
	hc_hal_dptr d[3], info;
	uint32_t v = 0x55555555u;

	kfix_open(&k, true);
	for (int i = 0; i < 3; i++)
		d[i] = dev_with(&k, NULL, 8);
	info = dev_with(&k, &v, 4);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	arm(k.dev, HC_FAULT_LAUNCH, 2, HC_FAULT_ONCE);
	fill_three(&k, d, info);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("kernel 'fill' launch #2"));
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK); /* reported once */
	ck_assert_uint_eq(filled_mask(&k, d), 0x5u);
	arm(k.dev, HC_FAULT_LAUNCH, 2, HC_FAULT_PERSISTENT);
	fill_three(&k, d, info);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("kernel 'fill' launch #5"));
	ck_assert(last_error_has("later failures"));
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_uint_eq(filled_mask(&k, d), 0x1u);
	ck_assert_uint_eq(stats(k.dev).launches, 6);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(fault_launch_reported_through_event_and_wait)
{
	struct kfix k;
	hc_hal_stream *b;
	hc_hal_event *e, *eb;
	hc_hal_function *fn;
	struct hc_hal_launch l = { 0 };

	kfix_open(&k, false);
	ck_assert_int_eq(ops->stream_create(k.dev, &b), HC_OK);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "add", &fn), HC_OK);
	arm(k.dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->event_record(k.dev, k.s, &e), HC_OK);
	ck_assert_int_eq(ops->event_wait(k.dev, b, e), HC_OK);
	ck_assert_int_eq(ops->event_record(k.dev, b, &eb), HC_OK);
	ck_assert_int_eq(ops->event_sync(k.dev, eb), HC_ERR_DEVICE);
	ck_assert(last_error_has("kernel 'add' launch #1"));
	ck_assert_int_eq(ops->event_sync(k.dev, e), HC_OK); /* already reported */
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ops->event_destroy(k.dev, e);
	ops->event_destroy(k.dev, eb);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(fault_copy)
{
	struct kfix k;
	hc_hal_dptr d;
	unsigned char one[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, out[8];

	kfix_open(&k, true);
	d = dev_with(&k, NULL, 8);
	arm(k.dev, HC_FAULT_COPY, 1, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->copy_h2d(k.dev, k.s, d, one, 8, false), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("copy #1 (H2D, 8 bytes)"));
	memset(out, 0xee, 8);
	read_back(&k, out, d, 8); /* copy #2 works */
	ck_assert_uint_eq(out[0], 0); /* the failed copy moved nothing */
	arm(k.dev, HC_FAULT_COPY, 2, HC_FAULT_PERSISTENT);
	ck_assert_int_eq(ops->copy_h2d(k.dev, k.s, d, one, 8, false), HC_OK); /* #3 ok */
	memset(out, 0xee, 8);
	ck_assert_int_eq(ops->copy_d2h(k.dev, k.s, out, d, 8, false), HC_OK); /* #4 fails */
	ck_assert_int_eq(ops->copy_d2d(k.dev, k.s, d, d, 8), HC_OK);        /* #5 fails */
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("copy #4 (D2H"));
	ck_assert_uint_eq(out[0], 0xee);
	arm(k.dev, HC_FAULT_COPY, 0, HC_FAULT_OFF);
	read_back(&k, out, d, 8);
	ck_assert_mem_eq(out, one, 8);
	ck_assert_uint_eq(stats(k.dev).copies_h2d, 2);
	ck_assert_uint_eq(stats(k.dev).copies_d2h, 3);
	ck_assert_uint_eq(stats(k.dev).copies_d2d, 1);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(fault_fence)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_event *e;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
	arm(dev, HC_FAULT_FENCE, 2, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_DEVICE);
	ck_assert(last_error_has("fence #2"));
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	arm(dev, HC_FAULT_FENCE, 2, HC_FAULT_PERSISTENT);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_ERR_DEVICE);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_DEVICE);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_ERR_DEVICE);
	arm(dev, HC_FAULT_FENCE, 0, HC_FAULT_OFF);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_uint_eq(stats(dev).host_waits, 8);
	ops->event_destroy(dev, e);
	ops->device_close(dev);
}
END_TEST

START_TEST(fault_arm_bad_args)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	struct hc_hal_fault_arg f = { HC_FAULT_LAUNCH, 0, HC_FAULT_ONCE };

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_ERR_INVALID);
	f.kind = (hc_fault_kind)99, f.n = 1;
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_ERR_INVALID);
	f.kind = HC_FAULT_COPY, f.mode = (hc_fault_mode)7;
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_ERR_INVALID);
	ops->device_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input                                                           */
/* ------------------------------------------------------------------ */

START_TEST(bad_input)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL), *other = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s, *os;
	hc_hal_dptr d, x;
	hc_hal_event *e = NULL;
	struct hc_hal_props props;
	struct hc_hal_open_args a = { 0 };
	hc_hal_dev *nd = NULL;
	char buf[16];
	uint64_t t;

	ck_assert_int_eq(ops->device_open(NULL, &nd), HC_ERR_INVALID);
	ck_assert_int_eq(ops->device_open(&a, NULL), HC_ERR_INVALID);
	a.ordinal = -1;
	ck_assert_int_eq(ops->device_open(&a, &nd), HC_ERR_INVALID);
	ck_assert_int_eq(ops->device_props(NULL, &props), HC_ERR_INVALID);
	ck_assert_int_eq(ops->device_props(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_alloc(NULL, 8, &d), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_alloc(dev, 0, &d), HC_ERR_INVALID);
	ck_assert(last_error_has("size is 0"));
	ck_assert_int_eq(ops->mem_alloc(dev, 8, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->host_alloc(dev, 0, (void **)&x), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_alloc(dev, 1024, &d), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, 0), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_free(dev, d + 256), HC_ERR_INVALID); /* interior */
	ck_assert_int_eq(ops->mem_free(dev, 0xdead000), HC_ERR_INVALID);
	ck_assert(last_error_has("0xdead000"));
	ck_assert_int_eq(ops->host_free(dev, buf), HC_ERR_INVALID);
	ck_assert_int_eq(ops->host_free(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_create(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->stream_create(other, &os), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_sync(dev, os), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d, NULL, 8, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d + 1020, buf, 16, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2h(dev, s, buf, 0x1234, 8, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2h(dev, s, NULL, d, 8, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2d(dev, s, d, d + 1024, 8), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2d(dev, NULL, d, d, 8), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_record(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_record(dev, NULL, &e), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_sync(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_wait(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_query(dev, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->capture_begin(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->capture_end(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->graph_launch(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->ctl(dev, 999, &t), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_NOW_NS, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->ctl(NULL, HC_HAL_CTL_NOW_NS, &t), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_destroy(dev, NULL), HC_ERR_INVALID);
	ops->event_destroy(dev, NULL);
	ops->graph_destroy(dev, NULL);
	ops->module_unload(dev, NULL);
	ops->device_close(NULL);
	ck_assert_uint_eq(stats(dev).copies_h2d + stats(dev).copies_d2h + stats(dev).copies_d2d, 0);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, d), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, d), HC_ERR_INVALID); /* double free */
	ops->device_close(dev);
	ops->device_close(other);
	ck_assert_str_eq(ops->name, "sim");
	ck_assert_uint_eq(ops->version, HC_HAL_VERSION);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Several threads on one device                                       */
/* ------------------------------------------------------------------ */

struct worker {
	hc_hal_dev *dev;
	int fails;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	hc_hal_stream *s;
	unsigned char buf[256], back[256];

	if (ops->stream_create(w->dev, &s) != HC_OK)
		return (void *)1;
	for (int i = 0; i < 500; i++) {
		hc_hal_dptr d;
		memset(buf, i & 0xff, sizeof(buf));
		if (ops->mem_alloc(w->dev, sizeof(buf), &d) != HC_OK ||
		    ops->copy_h2d(w->dev, s, d, buf, sizeof(buf), false) != HC_OK ||
		    ops->copy_d2h(w->dev, s, back, d, sizeof(back), false) != HC_OK ||
		    ops->stream_sync(w->dev, s) != HC_OK || memcmp(buf, back, sizeof(buf)) != 0 ||
		    ops->mem_free(w->dev, d) != HC_OK)
			w->fails++;
	}
	return ops->stream_destroy(w->dev, s) == HC_OK ? NULL : (void *)1;
}

START_TEST(threads_share_a_device)
{
	hc_hal_dev *dev = open_dev(true, 0, 0, NULL);
	pthread_t th[4];
	struct worker w[4];
	struct hc_hal_stats st;

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ dev, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		void *ret = (void *)1;
		ck_assert_int_eq(pthread_join(th[i], &ret), 0);
		ck_assert_ptr_null(ret);
		ck_assert_int_eq(w[i].fails, 0);
	}
	st = stats(dev);
	ck_assert_uint_eq(st.device_allocs, 2000);
	ck_assert_uint_eq(st.device_frees, 2000);
	ck_assert_uint_eq(st.copies_h2d, 2000);
	ck_assert_uint_eq(st.copies_d2h, 2000);
	ck_assert_uint_eq(st.host_waits, 2000);
	ck_assert_uint_eq(st.device_bytes_live, 0);
	ops->device_close(dev);
}
END_TEST

static Suite *make_sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc;

	tc = tcase_create("profile");
	tcase_add_checked_fixture(tc, setup, NULL);
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

	tc = tcase_create("determinism");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, determinism_same_seed_same_numbers);
	tcase_add_test(tc, determinism_without_jitter_seed_is_irrelevant);
	tcase_add_test(tc, jitter_only_lengthens_device_work);
	suite_add_tcase(s, tc);

	tc = tcase_create("ordering");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, event_wait_orders_streams);
	tcase_add_test(tc, no_wait_no_order);
	tcase_add_test(tc, pageable_h2d_blocks_host);
	tcase_add_test(tc, pinned_copy_does_not_block_until_sync);
	tcase_add_test(tc, set_host_ns_moves_forward_only);
	tcase_add_test(tc, stream_destroy_waits_for_its_work);
	tcase_add_test(tc, two_h2d_serialise_on_the_engine);
	tcase_add_test(tc, h2d_and_d2h_overlap);
	tcase_add_test(tc, same_stream_copies_are_in_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("memory");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, alloc_until_oom_at_exact_count);
	tcase_add_test(tc, address_space_is_reused);
	tcase_add_test(tc, huge_device_without_data_mode_costs_no_memory);
	tcase_add_test(tc, calls_after_host_copies_run_cold);
	tcase_add_test(tc, alloc_cost_scales_with_size);
	suite_add_tcase(s, tc);

	tc = tcase_create("data");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, data_round_trip);
	tcase_add_test(tc, kernel_fill_words_and_bytes);
	tcase_add_test(tc, kernel_args_unchecked_without_data_mode);
	tcase_add_test(tc, kernel_copy_and_add);
	tcase_add_test(tc, kernels_without_data_mode_only_cost_time);
	tcase_add_test(tc, module_rules);
	tcase_add_test(tc, module_unload_waits_for_its_graphs);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, capture_rejects_memory_and_sync_ops);
	tcase_add_test(tc, capture_replays_with_data_effects);
	tcase_add_test(tc, captured_event_has_no_time_outside);
	suite_add_tcase(s, tc);

	tc = tcase_create("fault");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, fault_device_alloc);
	tcase_add_test(tc, fault_pinned_alloc);
	tcase_add_test(tc, fault_capacity);
	tcase_add_test(tc, fault_launch);
	tcase_add_test(tc, fault_launch_reported_through_event_and_wait);
	tcase_add_test(tc, fault_copy);
	tcase_add_test(tc, fault_fence);
	tcase_add_test(tc, fault_arm_bad_args);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, threads_share_a_device);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(make_sim_suite);
