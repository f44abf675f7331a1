/*
 * workloads.h - hipsim's built-in workloads.
 */
#ifndef HIPSIM_WORKLOADS_H
#define HIPSIM_WORKLOADS_H

#include "tools/hipsim/driver.h"

/* --steps at most: a service step is about 7 events, a training step some
 * hundreds, so this bounds a run at minutes to hours, not forever. */
#define HS_MAX_STEPS 10000000ull

struct workload_params {
	uint64_t steps;
	uint32_t streams;
	uint64_t seed;
};

struct workload {
	const char *name;
	const char *summary;
	void (*run)(struct hs_driver *d, const struct workload_params *p);
};

const struct workload *workload_find(const char *name);

/* Fills the workloads' upload buffer from @seed.  Call before the device
 * opens: the figures start after it. */
void workload_prepare(uint64_t seed);

#endif /* HIPSIM_WORKLOADS_H */
