/*
 * hip_none.c - the "hip" backend of a library configured --without-hip:
 * the simulator alone, built without HIP headers.
 *
 * The name stays in the backend table (hal.c), so that asking for it gets
 * a status and a reason rather than "unknown backend": device_open answers
 * HC_ERR_NO_RUNTIME, as the real backend does on a host without a runtime,
 * and "auto" falls back to the simulator the same way.  No other op is
 * ever reached: there is never a device to call it on.
 */
#include "hal/hal.h"

static hc_status hip_none_open(const struct hc_hal_open_args *args, hc_hal_dev **out)
{
	(void)args;
	(void)out;
	return hc_hal_error(HC_ERR_NO_RUNTIME, 0, NULL,
			    "hip: this libhipcore was configured --without-hip (the simulator "
			    "only); rebuild it with HIP headers for GPUs");
}

static const struct hc_hal_ops hip_none_ops = {
	.version = HC_HAL_VERSION,
	.name = "hip",
	.device_open = hip_none_open,
};

const struct hc_hal_ops *hc_hip_ops(void)
{
	return &hip_none_ops;
}
