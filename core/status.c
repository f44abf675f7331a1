/*
 * status.c - status names and the per-thread last-error detail.
 *
 * Every failing path in the library ends in hc_hal_error() (backends and
 * shims, hal/hal_error.c) or hc_fail() (core), which fill this thread's
 * detail before the status travels back to the caller.  Nothing is printed:
 * the caller asks.
 *
 * The HAL keeps its own record, below core.  This file takes it over
 * whenever the HAL recorded one since core last looked (hal_take): before
 * hc_last_error answers and before hc_fail_over builds on the cause.  So the
 * caller sees whichever layer failed last, with the runtime's code and name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static _Thread_local hc_error_info last_error;
/* hc_hal_error_count() when core last took or overrode the HAL's detail. */
static _Thread_local uint64_t hal_seen;

/* The HAL's detail, if it recorded one after core's last word. */
static void hal_take(void)
{
	uint64_t n = hc_hal_error_count();

	if (n != hal_seen) {
		memcpy(&last_error, hc_hal_error_last(), sizeof(last_error));
		hal_seen = n;
	}
}

const char *hc_status_str(hc_status status)
{
	switch (status) {
#define HC_STATUS_CASE_(name, value, text) \
	case name:                         \
		return #name ": " text;
		HC_STATUS_LIST(HC_STATUS_CASE_)
#undef HC_STATUS_CASE_
	}
	return "unknown status";
}

hc_status hc_fail(hc_status status, const char *fmt, ...)
{
	va_list ap;

	last_error.status = status;
	last_error.backend_code = 0;
	last_error.backend_name[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	va_end(ap);
	hal_seen = hc_hal_error_count();
	return status;
}

void hc_error_restore(const hc_error_info *saved)
{
	memcpy(&last_error, saved, sizeof(last_error));
	hal_seen = hc_hal_error_count();
}

hc_status hc_fail_over(hc_status status, const char *fmt, ...)
{
	char cause[sizeof(last_error.message)];
	size_t n;
	va_list ap;

	hal_take();
	memcpy(cause, last_error.message, sizeof(cause));
	va_start(ap, fmt);
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	va_end(ap);
	last_error.status = status;
	n = strlen(last_error.message);
	if (cause[0] && n + 4 < sizeof(last_error.message))
		snprintf(last_error.message + n, sizeof(last_error.message) - n, " (%s)", cause);
	hal_seen = hc_hal_error_count();
	return status;
}

void hc_error_clear(void)
{
	last_error.status = HC_OK;
	last_error.backend_code = 0;
	last_error.backend_name[0] = '\0';
	last_error.message[0] = '\0';
	hal_seen = hc_hal_error_count();
}

hc_status hc_last_error(hc_error_info *out)
{
	if (!out)
		return HC_ERR_INVALID; /* nowhere to write; keep the detail as is */
	hal_take();
	memcpy(out, &last_error, sizeof(*out));
	return HC_OK;
}
