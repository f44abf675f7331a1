/*
 * sim.h - the simulator's device profile, for code outside sim/ that needs
 * it (hipsim's calibrate and replay, the profile fuzzer, tests).
 *
 * A profile holds every figure the simulator's cost model uses.  It comes
 * from the built-in H200 figures (hc_sim_profile_builtin) or from a text
 * file (hc_sim_profile_load, format in sim/sim_profile.c and
 * doc/sim-profile.md).  core/ never includes this header: it reaches the
 * simulator only through hc_sim_ops() and ops->ctl.
 */
#ifndef HIPCORE_SIM_H
#define HIPCORE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"
#include "hipcore/private.h"

/* Bandwidths in bytes per second, times in virtual nanoseconds. */
struct hc_sim_profile {
	char name[256];
	uint64_t total_memory; /* bytes */
	uint64_t alignment;    /* bytes, a power of two */
	bool integrated;

	/* copies: latency + size / bandwidth on the engine */
	uint64_t h2d_pinned_bw, h2d_pageable_bw;
	uint64_t d2h_pinned_bw, d2h_pageable_bw;
	uint64_t d2d_bw;
	uint64_t h2d_pinned_lat_ns, h2d_pageable_lat_ns;
	uint64_t d2h_pinned_lat_ns, d2h_pageable_lat_ns;
	uint64_t d2d_lat_ns;
	uint64_t copy_call_ns; /* host cost of queuing a copy */
	/* the library's own host memcpy (staging): call + size / bandwidth,
	 * on one thread, and split over its copy workers (ctl
	 * HC_HAL_CTL_HOST_COPY) */
	uint64_t host_copy_call_ns, host_copy_bw;
	uint64_t host_copy_split_call_ns, host_copy_max_bw;
	/* a split copy that finds the workers asleep (no split copy for
	 * longer than their spin window, host_copy_spin) pays the wake-up */
	uint64_t host_copy_split_wake_ns, host_copy_spin_ns;

	/* kernels: device time = launch_overhead_ns + the hint, or without one
	 * kernel_default_ns + kernel_ns_per_mib for each MiB a built-in kernel
	 * reads and writes (hc_builtin_traffic) */
	uint64_t launch_call_ns;
	uint64_t launch_overhead_ns; /* device occupancy per kernel */
	uint64_t launch_latency_ns;  /* from the call to the soonest start */
	uint64_t launch_lib_ns;      /* the library's own host work per hc_launch */
	uint64_t write_lib_ns;       /* ... per hc_write that copied */
	uint64_t kernel_default_ns;
	uint64_t kernel_ns_per_mib;

	/* allocation: base + per_mib for each MiB beyond the first */
	uint64_t dev_alloc_ns, dev_alloc_ns_per_mib;
	uint64_t dev_free_ns, dev_free_ns_per_mib;
	/* device allocations below 1 MiB, which the runtimes carve from memory
	 * they already hold (0: the base + per_mib line above) */
	uint64_t dev_alloc_small_ns, dev_free_small_ns;
	uint64_t host_alloc_ns, host_alloc_ns_per_mib;
	uint64_t host_free_ns, host_free_ns_per_mib;

	/* virtual memory (sim_vmm.c): the granule (0: none), and host costs;
	 * a map or an unmap costs base + per_mib for each MiB beyond the first,
	 * per mapping */
	uint64_t vmm_granularity;
	uint64_t va_reserve_ns, va_release_ns;
	uint64_t pmem_map_ns, pmem_map_ns_per_mib;
	uint64_t pmem_unmap_ns, pmem_unmap_ns_per_mib;

	/* streams and events (host costs) */
	uint64_t event_record_ns, event_query_ns, event_wait_ns, event_sync_ns;
	uint64_t event_destroy_ns;
	uint64_t stream_create_ns, stream_destroy_ns, stream_sync_ns;

	/* graphs (host costs) */
	uint64_t capture_begin_ns, capture_node_ns;
	uint64_t graph_instantiate_ns, graph_instantiate_node_ns;
	uint64_t graph_launch_ns;

	/* calls after host copies (sim_cold.c): a call costs a share of its
	 * cold_ figure on top, from 0 when less than host_cold_bytes / 16 were
	 * host-copied since its kind last ran to all of it from host_cold_bytes
	 * (0: never) */
	uint64_t host_cold_bytes;
	uint64_t cold_copy_ns, cold_launch_ns;
	uint64_t cold_event_record_ns, cold_event_query_ns, cold_event_wait_ns;
	uint64_t cold_event_sync_ns, cold_event_destroy_ns, cold_stream_sync_ns;
	uint64_t cold_dev_alloc_ns, cold_dev_free_ns;

	/* deterministic jitter on device durations, parts per million */
	uint64_t jitter_ppm;
};

/* sim_profile.c.  hc_sim_profile_keys, hc_sim_profile_builtin and
 * hc_sim_profile_load are declared in hipcore/private.h: libhipcore.so
 * exports them to hipsim calibrate and validate (HIPCORE_PRIVATE_1). */

/* The profile format's keys (sim_profile.c's one table), in the order a
 * written profile lists them. */
enum hc_sim_key_unit {
	HC_SIM_KEY_BYTES, HC_SIM_KEY_TIME, HC_SIM_KEY_BW, /* uint64_t */
	HC_SIM_KEY_FLAG,                                 /* bool */
	HC_SIM_KEY_COUNT,                                /* uint64_t, no unit */
	HC_SIM_KEY_NAME,                                 /* char name[] */
};
struct hc_sim_profile_key {
	const char *key;
	size_t off; /* of the field in struct hc_sim_profile */
	enum hc_sim_key_unit unit;
	bool required;
	const char *section; /* a comment that opens a group of keys, or NULL */
};
/*
 * hc_sim_profile_parse - parse profile text.
 * @origin names the text in messages ("file.profile", "<string>").
 * Return: HC_OK, HC_ERR_INVALID (NULL argument), HC_ERR_PARSE naming
 * origin:line and the key.  @out is written only on success.
 */
hc_status hc_sim_profile_parse(const char *text, const char *origin, struct hc_sim_profile *out);

/* sim_device.c */

/* The profile @dev runs with (a copy); HC_ERR_INVALID for a NULL argument.
 * @dev must come from hc_sim_ops()->device_open. */
struct hc_hal_dev;
hc_status hc_sim_device_profile(struct hc_hal_dev *dev, struct hc_sim_profile *out);

#endif /* HIPCORE_SIM_H */
