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
 * of workload sizes 35 -> 70, mem_free 32 -> 63.  Back-to-back calls of
 * one kind stay hot however many other calls come between (training's
 * 7200 launches matched calibrate's figure within 3.4 %).
 *
 * So the model: a call of kind K is cold when the library host-copied at
 * least host_cold_bytes since the previous call of kind K, and then costs
 * its cold_K figure on top of the hot one.  Both come from calibrate
 * (hot: the call alone; cold: the call right after a host copy through
 * the backend's HOST_COPY); host_cold_bytes 0 turns the model off, as in
 * a profile written before it existed.
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

uint64_t sim_call_cost(struct hc_hal_dev *dev, enum sim_call k, uint64_t hot_ns)
{
	uint64_t extra = 0;

	if (dev->prof.host_cold_bytes &&
	    dev->host_copied - dev->cold_mark[k] >= dev->prof.host_cold_bytes)
		extra = *(const uint64_t *)((const char *)&dev->prof + cold_field[k]);
	dev->cold_mark[k] = dev->host_copied;
	return hot_ns > UINT64_MAX - extra ? UINT64_MAX : hot_ns + extra;
}
