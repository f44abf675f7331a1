/*
 * hip_vmm.h - the HIP backend's virtual memory (hal.h's va_reserve,
 * va_release, pmem_map, pmem_unmap): the runtime calls and the bookkeeping
 * behind them, in hip_vmm.c.  hip_ops.c embeds one struct hip_vmm in each
 * device, checks the capture rule and binds the thread, then calls these;
 * they record errors themselves (hc_hal_error, hip_err_fail).
 */
#ifndef HIPCORE_HAL_HIP_VMM_H
#define HIPCORE_HAL_HIP_VMM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "hal/hip/hip_rt.h"

/* One pmem_map: its range and the runtime's allocation handle. */
struct hip_vmm_map {
	uint64_t addr, size;
	void *handle; /* CUmemGenericAllocationHandle / hipMemGenericAllocationHandle_t */
	bool busy;    /* a runtime call on it is under way (being mapped or unmapped) */
};

/* One va_reserve, with its mappings sorted by address. */
struct hip_vmm_resv {
	LIST_ENTRY(hip_vmm_resv) link;
	uint64_t base, size;
	struct hip_vmm_map *maps;
	size_t n, cap;
};

struct hip_vmm {
	pthread_mutex_t lock; /* guards the lists; never held across a runtime call */
	uint64_t gran;        /* the runtime's minimum granularity; 0: no virtual memory */
	int cudev;            /* the device, as the driver numbers it */
	enum hip_flavor flavor;
	enum hip_space space; /* of the driver entries: CUresult or hipError_t */
	LIST_HEAD(, hip_vmm_resv) resvs;
	void **orphans; /* handles unmapped whose release failed: tried again at close */
	size_t norphans, caporphans;
};

/* Empty bookkeeping for one device, no virtual memory yet (v->gran 0); no
 * runtime call. */
void hip_vmm_init(struct hip_vmm *v, enum hip_flavor flavor, enum hip_space space);
/*
 * hip_vmm_probe - whether the runtime gives device @cudev virtual memory,
 * into v->gran: every entry bound, on AMD a runtime of ROCm 5.3 or later
 * (whose hipMemAllocationProp is laid out as CUDA's), a granularity the
 * runtime reports as a power of two, and HIPCORE_VMM not "0"; else 0.
 * Needs the device's context current on the calling thread.  Records no
 * error: a device without virtual memory is not one.
 */
void hip_vmm_probe(struct hip_vmm *v, int cudev);
/* Unmaps and releases every mapping, frees every reservation; for device
 * close, where a failure has no one to report to.  v is unusable after. */
void hip_vmm_fini(struct hip_vmm *v);

/* The ops, with hal.h's rules; HC_ERR_UNSUPPORTED when v->gran is 0. */
hc_status hip_vmm_reserve(struct hip_vmm *v, uint64_t size, hc_hal_dptr *out);
hc_status hip_vmm_release(struct hip_vmm *v, hc_hal_dptr addr, uint64_t size);
hc_status hip_vmm_map(struct hip_vmm *v, hc_hal_dptr addr, uint64_t size);
/* *@maps and *@bytes: the mappings unmapped and their bytes, also when a
 * runtime call failed part way (those unmapped before it are gone). */
hc_status hip_vmm_unmap(struct hip_vmm *v, hc_hal_dptr addr, uint64_t size, uint64_t *maps,
			uint64_t *bytes);

#endif /* HIPCORE_HAL_HIP_VMM_H */
