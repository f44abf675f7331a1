/*
 * sim_fault.c - deterministic fault injection, one injector per kind.
 *
 * Each hc_fault_kind has a struct sim_fault {countdown, mode, nfail}, armed
 * through ctl(HC_HAL_CTL_FAULT).  For the counted kinds (DEVICE_ALLOC,
 * LAUNCH, COPY, FENCE, PINNED_ALLOC) n counts calls of that kind from the
 * moment of arming, 1 being the next: HC_FAULT_ONCE fails the n-th call
 * only, HC_FAULT_PERSISTENT the n-th and every later one, HC_FAULT_OFF
 * disarms.  For HC_FAULT_CAPACITY n is a byte ceiling: a device allocation
 * fails when the bytes in use would exceed n (ONCE: the first such
 * allocation only; mapped bytes count as allocated ones).  Which calls
 * count: DEVICE_ALLOC each mem_alloc and each pmem_map that got past
 * argument checks (one countdown for both); CAPACITY the same calls;
 * PINNED_ALLOC each host_alloc; LAUNCH each kernel
 * run (a launch call, or a kernel node of a graph launch); COPY each copy
 * run likewise; FENCE each event_sync and stream_sync.
 *
 * sim_fault_hit() does nothing: it exists to set a breakpoint on.
 */
#include "sim/sim_internal.h"

/* A breakpoint site: every injected fault passes here. */
__attribute__((noinline)) void sim_fault_hit(hc_fault_kind kind, uint64_t ordinal)
{
	__asm__ volatile("" ::"r"(kind), "r"(ordinal) : "memory");
}

bool sim_fault_step(hc_hal_dev *dev, hc_fault_kind kind, uint64_t ordinal)
{
	struct sim_fault *f = &dev->faults[kind];

	if (f->mode == HC_FAULT_OFF)
		return false;
	if (f->countdown > 1) {
		f->countdown--;
		return false;
	}
	f->countdown = 0;
	f->nfail++;
	if (f->mode == HC_FAULT_ONCE)
		f->mode = HC_FAULT_OFF;
	sim_fault_hit(kind, ordinal);
	return true;
}

bool sim_fault_capacity(hc_hal_dev *dev, uint64_t size)
{
	struct sim_fault *f = &dev->faults[HC_FAULT_CAPACITY];

	if (f->mode == HC_FAULT_OFF)
		return false;
	if (size <= f->countdown && dev->in_use <= f->countdown - size)
		return false;
	f->nfail++;
	if (f->mode == HC_FAULT_ONCE)
		f->mode = HC_FAULT_OFF;
	sim_fault_hit(HC_FAULT_CAPACITY, dev->in_use + size);
	return true;
}

hc_status sim_fault_arm(hc_hal_dev *dev, const struct hc_hal_fault_arg *arg)
{
	struct sim_fault *f;

	if (!arg)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim ctl FAULT: arg is NULL");
	if ((unsigned)arg->kind >= SIM_N_FAULTS)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim ctl FAULT: unknown fault kind %d",
				    (int)arg->kind);
	if (arg->mode != HC_FAULT_OFF && arg->mode != HC_FAULT_ONCE &&
	    arg->mode != HC_FAULT_PERSISTENT)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim ctl FAULT: unknown fault mode %d",
				    (int)arg->mode);
	if (arg->mode != HC_FAULT_OFF && arg->kind != HC_FAULT_CAPACITY && arg->n == 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim ctl FAULT: n must be >= 1 (1 = the next call)");
	f = &dev->faults[arg->kind];
	f->mode = arg->mode;
	f->countdown = arg->mode == HC_FAULT_OFF ? 0 : arg->n;
	return HC_OK;
}
