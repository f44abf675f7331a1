/*
 * hal_error.c - the HAL's own per-thread error detail.
 *
 * A backend that fails names the runtime's code and says why before it
 * returns the status (hal.h, "Errors").  It records that here, below core:
 * hal/ and the backends link nothing of core/ (tests/layering.sh checks it),
 * so a tool can drive a backend through its ops table alone.
 *
 * Core turns the detail into the public hc_last_error (core/status.c): each
 * thread counts the details recorded here, and core, when it next reads or
 * builds on the thread's error, takes this one if the count moved since it
 * last looked.  So whichever layer spoke last is what the caller sees, as
 * when both wrote one record, and no HAL call site in core has to copy it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "hal/hal.h"

static _Thread_local hc_error_info hal_last;
static _Thread_local uint64_t hal_count;

hc_status hc_hal_error(hc_status status, int backend_code, const char *backend_name,
		       const char *fmt, ...)
{
	va_list ap;

	hal_last.status = status;
	hal_last.backend_code = backend_code;
	snprintf(hal_last.backend_name, sizeof(hal_last.backend_name), "%s",
		 backend_name ? backend_name : "");
	va_start(ap, fmt);
	vsnprintf(hal_last.message, sizeof(hal_last.message), fmt, ap);
	va_end(ap);
	hal_count++;
	return status;
}

uint64_t hc_hal_error_count(void)
{
	return hal_count;
}

const hc_error_info *hc_hal_error_last(void)
{
	return &hal_last;
}
