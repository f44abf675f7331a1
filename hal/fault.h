/*
 * fault.h - a fault-injecting shim over any HAL backend (hal/fault.c).
 */
#ifndef HIPCORE_HAL_FAULT_H
#define HIPCORE_HAL_FAULT_H

#include "hal/hal.h"

/*
 * hc_fault_wrap - an ops table that forwards every op to @real and injects
 * the faults armed through ctl(HC_HAL_CTL_FAULT).
 * @real: the backend to wrap.  Wrapping the same table twice returns the
 * same wrapper; a wrapper is never wrapped again (it is returned as is).
 * Context: any thread.  The wrapper lives as long as the process.
 * Return: the wrapper, or NULL when @real is NULL or all of its
 * HC_FAULT_WRAP_SLOTS slots hold other backends.
 */
const struct hc_hal_ops *hc_fault_wrap(const struct hc_hal_ops *real);

#define HC_FAULT_WRAP_SLOTS 4

#endif /* HIPCORE_HAL_FAULT_H */
