/*
 * sim_profile.c - device profiles: the built-in H200 and the text format.
 *
 * A profile is a text file, one "key = value" per line.  '#' starts a
 * comment that runs to the end of the line; blank lines are ignored; spaces
 * and tabs around keys and values are ignored.  Each key may appear once.
 * Values are non-negative integers (decimal, no sign) followed by an
 * optional unit, with or without a space between:
 *
 *   bytes      B, KiB, MiB, GiB, TiB (binary), kB/KB, MB, GB, TB (decimal);
 *              none = bytes
 *   time       ns, us, ms, s; none = ns
 *   bandwidth  B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s; none = B/s
 *   flag       0, 1, yes, no, true, false
 *   count      a plain integer (jitter_ppm)
 *   name       the rest of the line (optionally in double quotes), < 256 chars;
 *              it cannot contain '#'
 *
 * Keys (the built-in value in brackets; "*" = required in a file, the
 * others default to the built-in value):
 *
 *   name*                  "NVIDIA H200 (simulated)"
 *   total_memory*          bytes [143771 MiB]; must be > 0
 *   alignment*             bytes [256]; a power of two
 *   integrated*            flag [0]
 *   h2d_pinned_bw*         [55 GB/s]   h2d_pageable_bw*   [8 GB/s]
 *   d2h_pinned_bw*         [55 GB/s]   d2h_pageable_bw*   [16 GB/s]
 *   d2d_bw*                [2000 GB/s]; every bandwidth must be > 0
 *   h2d_pinned_latency*    [8 us]      h2d_pageable_latency*  [10 us]
 *   d2h_pinned_latency*    [8 us]      d2h_pageable_latency*  [10 us]
 *   d2d_latency*           [1 us]
 *   copy_call              host cost of queuing a copy [1090 ns]
 *   host_copy_call         fixed cost of one library memcpy, one thread [0]
 *   host_copy_bw           the library's memcpy, one thread [9 GB/s]
 *   host_copy_split_call   fixed cost of one split over the workers [0]
 *   host_copy_max_bw       the same split over its copy workers [20 GB/s]
 *   host_copy_split_wake   extra for a split copy after the workers slept [0]
 *   host_copy_spin         how long the workers spin before they sleep [50 us]
 *   launch_call            host cost of a launch [1090 ns]
 *   launch_overhead        device time added to each kernel [500 ns]
 *   launch_latency         from a launch call to the kernel's soonest start [0]
 *   launch_lib             the library's own host work per hc_launch [0]
 *   write_lib              the same per hc_write that copied [0]
 *   kernel_default         a kernel's device time without a hint [500 ns]
 *   kernel_per_mib         ... plus this per MiB a built-in kernel reads and
 *                          writes [0]
 *   dev_alloc, dev_alloc_per_mib     [40 us, 600 ns]
 *   dev_free, dev_free_per_mib       [37 us, 306 ns]
 *   host_alloc, host_alloc_per_mib   [600 us, 400 us]
 *   host_free, host_free_per_mib     [50 us, 24800 ns]
 *       an allocation costs base + per_mib for each MiB beyond the first,
 *       so the pairs give 77 us (device) and 650 us (pinned) up to 1 MiB,
 *       540 us and 218 ms at 512 MiB, as measured on the H200.
 *   dev_alloc_small, dev_free_small  [0, 0]
 *       a device allocation (free) below 1 MiB: the runtimes carve those
 *       from chunks they already hold, several times cheaper than a new
 *       chunk (cudaMalloc of 64 KiB kept live ~1.5 us on an H100, of
 *       1 MiB ~40 us); 0 keeps the line above for every size.
 *   vmm_granularity        bytes [2 MiB]; 0 (no virtual memory) or a power
 *                          of two from 4 KiB to 1 GiB
 *   va_reserve [15 us]     va_release [10 us]
 *   pmem_map, pmem_map_per_mib       [30 us, 600 ns]
 *   pmem_unmap, pmem_unmap_per_mib   [25 us, 306 ns]
 *       public figures for 2 MiB pages on an A100 (a VMM latency benchmark,
 *       two runs): cuMemAddressReserve of 8 GB 19 and 9 us; cuMemCreate +
 *       cuMemMap + cuMemSetAccess 230 and 29 us (median 29: the second run's
 *       driver); cuMemUnmap 26 and 11 us (cuMemRelease not timed).  The
 *       per-MiB figures are cudaMalloc's and cudaFree's on the H200, the
 *       same page work; va_release has no public figure (an estimate).
 *   event_record [300 ns]  event_query [160 ns]  event_wait [210 ns]
 *   event_sync [500 ns]    stream_sync [500 ns]  (host API costs; the two
 *       syncs are estimates, the rest measured)
 *   stream_create [2000 ns]  stream_destroy [1300 ns]  (3.3 us the pair)
 *   capture_begin [2 us]   capture_node [1480 ns] (host cost per recorded op)
 *   graph_instantiate [10 us] graph_instantiate_node [2430 ns]
 *   graph_launch [5 us]
 *   jitter_ppm             count [0]: each device duration d becomes
 *                          d + d * r / 1e6, r uniform in [0, jitter_ppm]
 *
 * Ranges (prof_check): times 0 to 1 hour, bandwidths 1 B/s to 1 PB/s,
 * bytes 0 to 1 PiB (total_memory from 1 B, alignment a power of two up to
 * 1 GiB), jitter_ppm 0 to 1000000.
 *
 * profiles/h200.profile is the built-in profile written out; a test checks
 * that the two are equal.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hal/hal.h"
#include "sim/sim.h"

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)
#define US 1000ULL
#define MS (1000ULL * US)
#define GBPS 1000000000ULL

/* Keys in file order, as hipsim calibrate writes them (hc_sim_profile_keys);
 * @section opens a group of keys in a written profile. */
#define PK(k, field, unit, req) { k, offsetof(struct hc_sim_profile, field), unit, req, NULL }
#define PKS(sec, k, field, unit, req) { k, offsetof(struct hc_sim_profile, field), unit, req, sec }
static const struct hc_sim_profile_key prof_keys[] = {
	PK("name", name, HC_SIM_KEY_NAME, true),
	PK("total_memory", total_memory, HC_SIM_KEY_BYTES, true),
	PK("alignment", alignment, HC_SIM_KEY_BYTES, true),
	PK("integrated", integrated, HC_SIM_KEY_FLAG, true),
	PKS("\n# Copies: latency + size / bandwidth.\n", "h2d_pinned_bw", h2d_pinned_bw, HC_SIM_KEY_BW, true),
	PK("h2d_pageable_bw", h2d_pageable_bw, HC_SIM_KEY_BW, true),
	PK("d2h_pinned_bw", d2h_pinned_bw, HC_SIM_KEY_BW, true),
	PK("d2h_pageable_bw", d2h_pageable_bw, HC_SIM_KEY_BW, true),
	PK("d2d_bw", d2d_bw, HC_SIM_KEY_BW, true),
	PK("h2d_pinned_latency", h2d_pinned_lat_ns, HC_SIM_KEY_TIME, true),
	PK("h2d_pageable_latency", h2d_pageable_lat_ns, HC_SIM_KEY_TIME, true),
	PK("d2h_pinned_latency", d2h_pinned_lat_ns, HC_SIM_KEY_TIME, true),
	PK("d2h_pageable_latency", d2h_pageable_lat_ns, HC_SIM_KEY_TIME, true),
	PK("d2d_latency", d2d_lat_ns, HC_SIM_KEY_TIME, true),
	PK("copy_call", copy_call_ns, HC_SIM_KEY_TIME, false),
	PK("host_copy_call", host_copy_call_ns, HC_SIM_KEY_TIME, false),
	PK("host_copy_bw", host_copy_bw, HC_SIM_KEY_BW, false),
	PK("host_copy_split_call", host_copy_split_call_ns, HC_SIM_KEY_TIME, false),
	PK("host_copy_split_wake", host_copy_split_wake_ns, HC_SIM_KEY_TIME, false),
	PK("host_copy_spin", host_copy_spin_ns, HC_SIM_KEY_TIME, false),
	PK("host_copy_max_bw", host_copy_max_bw, HC_SIM_KEY_BW, false),
	PKS("\n# Kernels; without a duration hint a built-in kernel takes kernel_default\n"
	    "# + kernel_per_mib for each MiB it reads and writes.\n", "launch_call",
	    launch_call_ns, HC_SIM_KEY_TIME, false),
	PK("launch_overhead", launch_overhead_ns, HC_SIM_KEY_TIME, false),
	PK("launch_latency", launch_latency_ns, HC_SIM_KEY_TIME, false),
	PK("launch_lib", launch_lib_ns, HC_SIM_KEY_TIME, false),
	PK("write_lib", write_lib_ns, HC_SIM_KEY_TIME, false),
	PK("kernel_default", kernel_default_ns, HC_SIM_KEY_TIME, false),
	PK("kernel_per_mib", kernel_ns_per_mib, HC_SIM_KEY_TIME, false),
	PKS("\n# Allocation: base + per MiB beyond the first.\n", "dev_alloc", dev_alloc_ns,
	    HC_SIM_KEY_TIME, false),
	PK("dev_alloc_per_mib", dev_alloc_ns_per_mib, HC_SIM_KEY_TIME, false),
	PK("dev_free", dev_free_ns, HC_SIM_KEY_TIME, false),
	PK("dev_free_per_mib", dev_free_ns_per_mib, HC_SIM_KEY_TIME, false),
	PKS("# Below 1 MiB (0: the line above).\n", "dev_alloc_small", dev_alloc_small_ns,
	    HC_SIM_KEY_TIME, false),
	PK("dev_free_small", dev_free_small_ns, HC_SIM_KEY_TIME, false),
	PK("host_alloc", host_alloc_ns, HC_SIM_KEY_TIME, false),
	PK("host_alloc_per_mib", host_alloc_ns_per_mib, HC_SIM_KEY_TIME, false),
	PK("host_free", host_free_ns, HC_SIM_KEY_TIME, false),
	PK("host_free_per_mib", host_free_ns_per_mib, HC_SIM_KEY_TIME, false),
	PKS("\n# Virtual memory: the granule (0: none); a map or an unmap costs\n"
	    "# base + per MiB beyond the first, per mapping.\n",
	    "vmm_granularity", vmm_granularity, HC_SIM_KEY_BYTES, false),
	PK("va_reserve", va_reserve_ns, HC_SIM_KEY_TIME, false),
	PK("va_release", va_release_ns, HC_SIM_KEY_TIME, false),
	PK("pmem_map", pmem_map_ns, HC_SIM_KEY_TIME, false),
	PK("pmem_map_per_mib", pmem_map_ns_per_mib, HC_SIM_KEY_TIME, false),
	PK("pmem_unmap", pmem_unmap_ns, HC_SIM_KEY_TIME, false),
	PK("pmem_unmap_per_mib", pmem_unmap_ns_per_mib, HC_SIM_KEY_TIME, false),
	PKS("\n# Streams and events (host costs).\n", "event_record", event_record_ns, HC_SIM_KEY_TIME,
	    false),
	PK("event_query", event_query_ns, HC_SIM_KEY_TIME, false),
	PK("event_wait", event_wait_ns, HC_SIM_KEY_TIME, false),
	PK("event_sync", event_sync_ns, HC_SIM_KEY_TIME, false),
	PK("event_destroy", event_destroy_ns, HC_SIM_KEY_TIME, false),
	PK("stream_create", stream_create_ns, HC_SIM_KEY_TIME, false),
	PK("stream_destroy", stream_destroy_ns, HC_SIM_KEY_TIME, false),
	PK("stream_sync", stream_sync_ns, HC_SIM_KEY_TIME, false),
	PKS("\n# Graphs (host costs).\n", "capture_begin", capture_begin_ns, HC_SIM_KEY_TIME, false),
	PK("capture_node", capture_node_ns, HC_SIM_KEY_TIME, false),
	PK("graph_instantiate", graph_instantiate_ns, HC_SIM_KEY_TIME, false),
	PK("graph_instantiate_node", graph_instantiate_node_ns, HC_SIM_KEY_TIME, false),
	PK("graph_launch", graph_launch_ns, HC_SIM_KEY_TIME, false),
	PKS("\n# Calls after host copies: a call costs a share of its cold_ figure more,\n"
	    "# by the bytes host-copied since its kind last ran: none below\n"
	    "# host_cold_bytes / 16, a quarter per doubling, all from host_cold_bytes\n"
	    "# (0: never).\n",
	    "host_cold_bytes", host_cold_bytes, HC_SIM_KEY_BYTES, false),
	PK("cold_copy", cold_copy_ns, HC_SIM_KEY_TIME, false),
	PK("cold_launch", cold_launch_ns, HC_SIM_KEY_TIME, false),
	PK("cold_event_record", cold_event_record_ns, HC_SIM_KEY_TIME, false),
	PK("cold_event_query", cold_event_query_ns, HC_SIM_KEY_TIME, false),
	PK("cold_event_wait", cold_event_wait_ns, HC_SIM_KEY_TIME, false),
	PK("cold_event_sync", cold_event_sync_ns, HC_SIM_KEY_TIME, false),
	PK("cold_event_destroy", cold_event_destroy_ns, HC_SIM_KEY_TIME, false),
	PK("cold_stream_sync", cold_stream_sync_ns, HC_SIM_KEY_TIME, false),
	PK("cold_dev_alloc", cold_dev_alloc_ns, HC_SIM_KEY_TIME, false),
	PK("cold_dev_free", cold_dev_free_ns, HC_SIM_KEY_TIME, false),
	PKS("\n", "jitter_ppm", jitter_ppm, HC_SIM_KEY_COUNT, false),
};
#undef PK
#undef PKS
#define N_PROF_KEYS (sizeof(prof_keys) / sizeof(prof_keys[0]))

struct prof_suffix {
	const char *text;
	uint64_t mult;
};

static const struct prof_suffix bytes_suffixes[] = {
	{ "B", 1 }, { "KiB", KIB }, { "MiB", MIB }, { "GiB", GIB }, { "TiB", 1024 * GIB },
	{ "kB", 1000ULL }, { "KB", 1000ULL }, { "MB", 1000000ULL }, { "GB", GBPS },
	{ "TB", 1000 * GBPS }, { NULL, 0 },
};
static const struct prof_suffix time_suffixes[] = {
	{ "ns", 1 }, { "us", US }, { "ms", MS }, { "s", 1000 * MS }, { NULL, 0 },
};
static const struct prof_suffix bw_suffixes[] = {
	{ "B/s", 1 }, { "kB/s", 1000ULL }, { "KB/s", 1000ULL }, { "MB/s", 1000000ULL },
	{ "GB/s", GBPS }, { "KiB/s", KIB }, { "MiB/s", MIB }, { "GiB/s", GIB }, { NULL, 0 },
};

/**
 * hc_sim_profile_builtin - the built-in "NVIDIA H200 (simulated)" profile.
 * @p: receives it (every byte written, padding zeroed).
 *
 * Context: any thread.  profiles/h200.profile holds the same figures.
 */
void hc_sim_profile_builtin(struct hc_sim_profile *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", "NVIDIA H200 (simulated)");
	p->total_memory = 143771 * MIB;
	p->alignment = 256;
	p->integrated = false;
	p->h2d_pinned_bw = 55 * GBPS;
	p->h2d_pageable_bw = 8 * GBPS;
	p->d2h_pinned_bw = 55 * GBPS;
	p->d2h_pageable_bw = 16 * GBPS;
	p->d2d_bw = 2000 * GBPS;
	p->h2d_pinned_lat_ns = 8 * US;
	p->h2d_pageable_lat_ns = 10 * US;
	p->d2h_pinned_lat_ns = 8 * US;
	p->d2h_pageable_lat_ns = 10 * US;
	p->d2d_lat_ns = 1 * US;
	p->copy_call_ns = 1090;
	p->host_copy_bw = 9 * GBPS;
	p->host_copy_max_bw = 20 * GBPS;
	p->host_copy_spin_ns = 50000; /* core/pipeline.c's HC_PIPE_SPIN_NS */
	p->launch_call_ns = 1090;
	p->launch_overhead_ns = 500;
	p->kernel_default_ns = 500;
	p->dev_alloc_ns = 40 * US;
	p->dev_alloc_ns_per_mib = 600;
	p->dev_free_ns = 37 * US;
	p->dev_free_ns_per_mib = 306;
	p->host_alloc_ns = 600 * US;
	p->host_alloc_ns_per_mib = 400 * US;
	p->host_free_ns = 50 * US;
	p->host_free_ns_per_mib = 24800;
	p->vmm_granularity = 2 * MIB;
	p->va_reserve_ns = 15 * US;
	p->va_release_ns = 10 * US;
	p->pmem_map_ns = 30 * US;
	p->pmem_map_ns_per_mib = 600;
	p->pmem_unmap_ns = 25 * US;
	p->pmem_unmap_ns_per_mib = 306;
	p->event_record_ns = 300;
	p->event_query_ns = 160;
	p->event_wait_ns = 210;
	p->event_sync_ns = 500;
	p->event_destroy_ns = 0;
	p->stream_create_ns = 2000;
	p->stream_destroy_ns = 1300;
	p->stream_sync_ns = 500;
	p->capture_begin_ns = 2 * US;
	p->capture_node_ns = 1480;
	p->graph_instantiate_ns = 10 * US;
	p->graph_instantiate_node_ns = 2430;
	p->graph_launch_ns = 5 * US;
	p->jitter_ppm = 0;
}

const struct hc_sim_profile_key *hc_sim_profile_keys(size_t *n)
{
	*n = N_PROF_KEYS;
	return prof_keys;
}

static const struct hc_sim_profile_key *prof_find(const char *key, size_t len)
{
	for (size_t i = 0; i < N_PROF_KEYS; i++)
		if (strlen(prof_keys[i].key) == len && memcmp(prof_keys[i].key, key, len) == 0)
			return &prof_keys[i];
	return NULL;
}

static const struct prof_suffix *prof_suffixes(enum hc_sim_key_unit unit)
{
	switch (unit) {
	case HC_SIM_KEY_BYTES:
		return bytes_suffixes;
	case HC_SIM_KEY_TIME:
		return time_suffixes;
	case HC_SIM_KEY_BW:
		return bw_suffixes;
	default:
		return NULL;
	}
}

/* Parses an integer with an optional unit; false on anything else. */
static bool prof_number(const char *v, size_t len, enum hc_sim_key_unit unit, uint64_t *out,
			const char **why)
{
	uint64_t n = 0;
	size_t i = 0;

	if (unit == HC_SIM_KEY_FLAG) {
		static const char *const yes[] = { "1", "yes", "true" }, *const no[] = { "0", "no", "false" };
		for (size_t k = 0; k < 3; k++) {
			if (strlen(yes[k]) == len && memcmp(v, yes[k], len) == 0)
				return (*out = 1), true;
			if (strlen(no[k]) == len && memcmp(v, no[k], len) == 0)
				return (*out = 0), true;
		}
		*why = "expected 0, 1, yes, no, true or false";
		return false;
	}
	if (len == 0 || !isdigit((unsigned char)v[0])) {
		*why = v[0] == '-' ? "negative numbers are not allowed" : "expected a non-negative integer";
		return false;
	}
	for (; i < len && isdigit((unsigned char)v[i]); i++) {
		unsigned d = (unsigned)(v[i] - '0');
		if (n > (UINT64_MAX - d) / 10) {
			*why = "number out of range";
			return false;
		}
		n = n * 10 + d;
	}
	while (i < len && (v[i] == ' ' || v[i] == '\t'))
		i++;
	if (i < len) {
		const struct prof_suffix *s = prof_suffixes(unit);
		size_t rest = len - i;
		for (; s && s->text; s++)
			if (strlen(s->text) == rest && memcmp(v + i, s->text, rest) == 0)
				break;
		if (!s || !s->text) {
			*why = unit == HC_SIM_KEY_COUNT ? "this key takes a plain integer" : "unknown unit";
			return false;
		}
		if (n != 0 && s->mult > UINT64_MAX / n) {
			*why = "number out of range";
			return false;
		}
		n *= s->mult;
	}
	*out = n;
	return true;
}

/*
 * Every figure has a range, checked at load so that no arithmetic of the
 * cost model can overflow or divide by zero on a profile that loaded:
 * times up to an hour (a cost model's sums then stay far below 2^64 ns,
 * and sim_cold.c's share of a cold figure fits its integer), bandwidths
 * from 1 B/s to 1 PB/s, memory up to 1 PiB, jitter up to 100 % (a duration
 * at most doubles; sim_device.c divides by jitter_ppm + 1).  A value
 * outside them is a typo or a unit slip, not a device.
 */
#define PROF_TIME_MAX (3600ULL * 1000 * MS)
#define PROF_BW_MAX (1000000ULL * GBPS)
#define PROF_BYTES_MAX (1ULL << 50)
#define PROF_ALIGN_MAX (1ULL << 30)
#define PROF_JITTER_MAX 1000000ULL

static bool prof_check(const struct hc_sim_profile_key *k, uint64_t n, char *why, size_t len)
{
	uint64_t min = 0, max = UINT64_MAX;
	const char *limit = "";

	switch (k->unit) {
	case HC_SIM_KEY_TIME:
		max = PROF_TIME_MAX, limit = " (1 hour)";
		break;
	case HC_SIM_KEY_BW:
		min = 1, max = PROF_BW_MAX, limit = " B/s (1 PB/s)";
		break;
	case HC_SIM_KEY_BYTES:
		max = PROF_BYTES_MAX, limit = " B (1 PiB)";
		break;
	case HC_SIM_KEY_COUNT: /* jitter_ppm, the only count */
		max = PROF_JITTER_MAX, limit = " ppm (100 %)";
		break;
	default:
		return true;
	}
	if (k->off == offsetof(struct hc_sim_profile, total_memory))
		min = 1;
	if (k->off == offsetof(struct hc_sim_profile, alignment)) {
		max = PROF_ALIGN_MAX, limit = " B (1 GiB)";
		if (n == 0 || (n & (n - 1)) != 0) {
			snprintf(why, len, "alignment must be a power of two");
			return false;
		}
	}
	if (n < min) {
		snprintf(why, len, "%s must be at least %llu", k->key, (unsigned long long)min);
		return false;
	}
	if (n > max) {
		snprintf(why, len, "above the maximum of %llu%s", (unsigned long long)max, limit);
		return false;
	}
	/* a granule the host's pages can back in data mode, and no larger
	 * than any runtime's (2 MiB on NVIDIA, 4 KiB to 2 MiB on AMD) by far */
	if (k->off == offsetof(struct hc_sim_profile, vmm_granularity) && n != 0 &&
	    ((n & (n - 1)) != 0 || n < 4 * KIB || n > GIB)) {
		snprintf(why, len,
			 "vmm_granularity must be 0 (none) or a power of two from 4 KiB to 1 GiB");
		return false;
	}
	return true;
}

static void prof_store(struct hc_sim_profile *p, const struct hc_sim_profile_key *k, uint64_t n)
{
	char *base = (char *)p + k->off;
	if (k->unit == HC_SIM_KEY_FLAG)
		*(bool *)base = n != 0;
	else
		memcpy(base, &n, sizeof(n));
}

/**
 * hc_sim_profile_parse - parse profile text (the format at the top of this file).
 * @text: NUL-terminated profile text.
 * @origin: names @text in messages ("file.profile"); NULL gives "<string>".
 * @out: receives the profile; written only on success.
 *
 * Keys not given keep the built-in value; required keys must be given.
 * Context: any thread; a pure function of its arguments (fuzzing entry).
 * Return: HC_OK, HC_ERR_INVALID (NULL @text or @out), HC_ERR_PARSE naming
 * origin:line and the key.
 */
hc_status hc_sim_profile_parse(const char *text, const char *origin, struct hc_sim_profile *out)
{
	struct hc_sim_profile p;
	bool seen[N_PROF_KEYS] = { false };
	const char *line = text;
	unsigned lineno = 0;

	if (!text || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hc_sim_profile_parse: %s is NULL",
				    text ? "out" : "text");
	if (!origin)
		origin = "<string>";
	hc_sim_profile_builtin(&p);

	while (*line) {
		const char *end = strchr(line, '\n'), *hash, *eq, *k, *v;
		size_t klen, vlen, llen;
		const struct hc_sim_profile_key *key;
		const char *why = NULL;
		char whybuf[128];
		uint64_t n;

		lineno++;
		llen = end ? (size_t)(end - line) : strlen(line);
		hash = memchr(line, '#', llen);
		if (hash)
			llen = (size_t)(hash - line);
		k = line;
		while (llen && isspace((unsigned char)*k))
			k++, llen--;
		while (llen && isspace((unsigned char)k[llen - 1]))
			llen--;
		if (llen == 0)
			goto next;
		eq = memchr(k, '=', llen);
		if (!eq)
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s:%u: expected 'key = value', got '%.*s'",
					    origin, lineno, (int)(llen > 64 ? 64 : llen), k);
		klen = (size_t)(eq - k);
		while (klen && isspace((unsigned char)k[klen - 1]))
			klen--;
		v = eq + 1;
		vlen = llen - (size_t)(v - k);
		while (vlen && isspace((unsigned char)*v))
			v++, vlen--;
		if (klen == 0)
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s:%u: missing key before '='",
					    origin, lineno);
		key = prof_find(k, klen);
		if (!key)
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s:%u: unknown key '%.*s'", origin,
					    lineno, (int)(klen > 64 ? 64 : klen), k);
		if (seen[key - prof_keys])
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s:%u: key '%s' given twice", origin,
					    lineno, key->key);
		seen[key - prof_keys] = true;
		if (vlen == 0)
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s:%u: key '%s' has no value", origin,
					    lineno, key->key);
		if (key->unit == HC_SIM_KEY_NAME) {
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"')
				v++, vlen -= 2;
			if (vlen == 0 || vlen >= sizeof(p.name))
				return hc_hal_error(HC_ERR_PARSE, 0, NULL,
						    "%s:%u: key 'name' must have 1 to %zu characters",
						    origin, lineno, sizeof(p.name) - 1);
			memset(p.name, 0, sizeof(p.name));
			memcpy(p.name, v, vlen);
			goto next;
		}
		if (prof_number(v, vlen, key->unit, &n, &why) &&
		    !prof_check(key, n, whybuf, sizeof(whybuf)))
			why = whybuf;
		if (why)
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s:%u: key '%s': %s: '%.*s'", origin,
					    lineno, key->key, why, (int)(vlen > 64 ? 64 : vlen), v);
		prof_store(&p, key, n);
next:
		if (!end)
			break;
		line = end + 1;
	}
	for (size_t i = 0; i < N_PROF_KEYS; i++)
		if (prof_keys[i].required && !seen[i])
			return hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s: required key '%s' is missing",
					    origin, prof_keys[i].key);
	*out = p;
	return HC_OK;
}

/**
 * hc_sim_profile_load - read a profile file and parse it.
 * @path: the file (at most 1 MiB).
 * @out: receives the profile; written only on success.
 *
 * Context: any thread; reads the file.
 * Return: HC_OK, HC_ERR_INVALID (NULL argument), HC_ERR_IO naming @path and
 * the errno text, HC_ERR_PARSE (see hc_sim_profile_parse), HC_ERR_OOM.
 */
hc_status hc_sim_profile_load(const char *path, struct hc_sim_profile *out)
{
	FILE *f;
	char *text;
	long len;
	size_t got;
	hc_status st;
	struct stat sb;

	if (!path || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hc_sim_profile_load: %s is NULL",
				    path ? "out" : "path");
	f = fopen(path, "rb");
	if (!f)
		return hc_hal_error(HC_ERR_IO, errno, NULL, "cannot open profile '%s': %s", path,
				    strerror(errno));
	if (fstat(fileno(f), &sb) != 0) {
		st = hc_hal_error(HC_ERR_IO, errno, NULL, "cannot read profile '%s': %s", path,
				  strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(sb.st_mode)) {
		st = hc_hal_error(HC_ERR_IO, 0, NULL, "cannot read profile '%s': %s", path,
				  S_ISDIR(sb.st_mode) ? "Is a directory" : "not a regular file");
		goto out_close;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		st = hc_hal_error(HC_ERR_IO, errno, NULL, "cannot read profile '%s': %s", path,
				  strerror(errno));
		goto out_close;
	}
	if (len > (1L << 20)) {
		st = hc_hal_error(HC_ERR_PARSE, 0, NULL, "profile '%s' is larger than 1 MiB", path);
		goto out_close;
	}
	text = malloc((size_t)len + 1);
	if (!text) {
		st = hc_hal_error(HC_ERR_OOM, 0, NULL, "no host memory to read profile '%s'", path);
		goto out_close;
	}
	got = fread(text, 1, (size_t)len, f);
	if (got != (size_t)len) {
		st = hc_hal_error(HC_ERR_IO, errno, NULL, "cannot read profile '%s': %s", path,
				  ferror(f) ? strerror(errno) : "short read");
		goto out_free;
	}
	text[len] = '\0';
	if (memchr(text, '\0', (size_t)len)) {
		st = hc_hal_error(HC_ERR_PARSE, 0, NULL, "%s: contains a NUL byte", path);
		goto out_free;
	}
	st = hc_sim_profile_parse(text, path, out);
out_free:
	free(text);
out_close:
	fclose(f);
	return st;
}
