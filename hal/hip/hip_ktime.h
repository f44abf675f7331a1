/*
 * hip_ktime.h - kernel durations measured with timing events (opt-in).
 *
 * With hc_device_options.time_kernels (or HIPCORE_TIME_KERNELS=1 in the
 * environment, read with secure_getenv at device open) the HIP backend
 * brackets every launch outside a capture with two timing events and keeps
 * them here.  At the next fence (stream_sync, event_sync) and at device
 * close, every pair whose end event has completed is read back with
 * hipEventElapsedTime and emitted as hipcore:kernel_time; pending pairs
 * beyond HIP_KT_MAX make later launches go untimed (counted in dropped).
 * The caller holds the device's lock around every call.
 */
#ifndef HIPCORE_HAL_HIP_KTIME_H
#define HIPCORE_HAL_HIP_KTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIP_KT_MAX 4096

struct hip_kt_pending {
	uint64_t stream, kernel, ordinal;
	void *start, *end; /* the runtime's events */
};

struct hip_ktimes {
	struct hip_kt_pending *v;
	size_t n, cap;
	uint64_t emitted, dropped;
};

/* Keeps one bracketed launch; false (nothing kept) when full or out of
 * memory: the caller destroys the events. */
bool hip_kt_add(struct hip_ktimes *kt, const struct hip_kt_pending *p);
/*
 * hip_kt_drain - emit hipcore:kernel_time for every completed pair.
 * @query: the runtime's event query (0 done, else not yet or failed);
 * @elapsed: its elapsed-time call (ms between two events);
 * @destroy: its event destroy.  @all: destroy pairs not yet complete too
 * (device close), without emitting them.
 */
void hip_kt_drain(struct hip_ktimes *kt, int (*query)(void *e),
		  int (*elapsed)(float *ms, void *start, void *end), int (*destroy)(void *e),
		  bool all);

#endif /* HIPCORE_HAL_HIP_KTIME_H */
