/*
 * sim_cold.c - calls made with cold caches.
 *
 * A driver call's host cost depends on what the core's caches still hold
 * of the driver's code and data.  Calibrate times each call in a loop, so
 * hot; a service copies megabytes of staging data between its calls, and
 * those copies push the driver out of the private caches.  The callmix
 * probe (bench/probes/callmix.c) measured it on the H100 machine,
 * 2026-12-05, median µs per call, alone vs right after an 8 MiB host
 * copy: event_record 0.80 -> 2.81, launch 3.48 -> 7.04, copy_h2d 2.02 ->
 * 5.76, event_query 1.34 -> 4.23, event_destroy 0.20 -> 0.70, mem_alloc
 * of workload sizes 35 -> 70, mem_free 32 -> 63.
 *
 * How much copying it takes (the same probe, a call right after a host
 * copy of N bytes, its extra cost as a share of the one after 8 MiB):
 * nothing up to 256 KiB; 1 MiB 0.17-0.45, 2 MiB 0.27-0.67, 4 MiB
 * 0.67-0.86 over event_record, launch, copy_h2d, mem_alloc and mem_free.
 * The private L2 is 2 MiB; a copy streams its source and its destination
 * through it.
 *
 * So the model: a call of kind K costs its hot figure plus a share of its
 * cold_K figure, the share growing with the bytes the library host-copied
 * since the previous call of kind K: 0 up to host_cold_bytes / 16, then a
 * quarter per doubling, all of it from host_cold_bytes on (1 MiB 0.25,
 * 2 MiB 0.5, 4 MiB 0.75 for 8 MiB).  Back-to-back calls of one kind stay
 * hot however many other calls come between (training's 7200 launches
 * matched calibrate's figure within 3.4 %); a cold call of one kind warming
 * the code it shares with the next (a per-device rather than per-kind
 * count) predicted the workloads 4-13 % lower than measured, against -3 to
 * -9 % this way (H100 machine, 2026-12-05 13:11, BENCHMARKS.md).
 * Calibrate measures cold_K right after an 8 MiB host copy through the
 * backend's HOST_COPY and writes host_cold_bytes = 8 MiB; 0 turns the
 * model off, as in a profile written before it existed.  Copying beyond
 * that costs more still (after 32 MiB about twice the 8 MiB extra, as the
 * last-level cache goes too); the model stops at host_cold_bytes.
 */
#include <stddef.h>

#include "sim/sim_internal.h"

/* Each kind's cold figure in the profile, in enum sim_call order. */
static const size_t cold_field[SIM_N_CALLS] = {
	[SIM_CALL_COPY] = offsetof(struct hc_sim_profile, cold_copy_ns),
	[SIM_CALL_LAUNCH] = offsetof(struct hc_sim_profile, cold_launch_ns),
	[SIM_CALL_EVENT_RECORD] = offsetof(struct hc_sim_profile, cold_event_record_ns),
	[SIM_CALL_EVENT_QUERY] = offsetof(struct hc_sim_profile, cold_event_query_ns),
	[SIM_CALL_EVENT_WAIT] = offsetof(struct hc_sim_profile, cold_event_wait_ns),
	[SIM_CALL_EVENT_SYNC] = offsetof(struct hc_sim_profile, cold_event_sync_ns),
	[SIM_CALL_EVENT_DESTROY] = offsetof(struct hc_sim_profile, cold_event_destroy_ns),
	[SIM_CALL_STREAM_SYNC] = offsetof(struct hc_sim_profile, cold_stream_sync_ns),
	[SIM_CALL_MEM_ALLOC] = offsetof(struct hc_sim_profile, cold_dev_alloc_ns),
	[SIM_CALL_MEM_FREE] = offsetof(struct hc_sim_profile, cold_dev_free_ns),
};

/* Doublings from no share of the cold figure to all of it. */
#define COLD_OCTAVES 4

/* The share of the cold figure after @since bytes of copying, for fully
 * cold at @full: log2 of since over full / 16, in quarters, piecewise
 * linear between powers of two (exact in binary, so deterministic). */
static double cold_share(uint64_t since, uint64_t full)
{
	double lo = (double)full / (1u << COLD_OCTAVES), x;
	unsigned n = 0;

	if (since >= full)
		return 1.0;
	if ((double)since <= lo)
		return 0.0;
	for (x = (double)since / lo; x >= 2.0; x /= 2.0)
		n++;
	return ((double)n + (x - 1.0)) / COLD_OCTAVES;
}

uint64_t sim_call_cost(struct hc_hal_dev *dev, enum sim_call k, uint64_t hot_ns)
{
	uint64_t extra = 0;

	if (dev->prof.host_cold_bytes) {
		uint64_t cold = *(const uint64_t *)((const char *)&dev->prof + cold_field[k]);
		double share = cold_share(dev->host_copied - dev->cold_mark[k],
					  dev->prof.host_cold_bytes);

		double e = share * (double)cold + 0.5;

		/* the loader keeps cold figures at most an hour; saturate anyway,
		 * as a double at or past 2^64 has no uint64_t */
		extra = e < 18446744073709551616.0 ? (uint64_t)e : UINT64_MAX;
	}
	dev->cold_mark[k] = dev->host_copied;
	return hot_ns > UINT64_MAX - extra ? UINT64_MAX : hot_ns + extra;
}
