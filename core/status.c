/*
 * status.c - status names and the per-thread last-error detail.
 *
 * Every failing path in the library ends in hc_hal_error() (backends) or
 * hc_fail() (core), which fill this thread's hc_error_info before the status
 * travels back to the caller.  Nothing is printed: the caller asks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static _Thread_local hc_error_info last_error;

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

static hc_status error_vset(hc_status status, int backend_code, const char *backend_name,
			    const char *fmt, va_list ap)
{
	hc_error_info *e = &last_error;

	e->status = status;
	e->backend_code = backend_code;
	snprintf(e->backend_name, sizeof(e->backend_name), "%s", backend_name ? backend_name : "");
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	return status;
}

hc_status hc_hal_error(hc_status status, int backend_code, const char *backend_name,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(status, backend_code, backend_name, fmt, ap);
	va_end(ap);
	return status;
}

hc_status hc_fail(hc_status status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(status, 0, NULL, fmt, ap);
	va_end(ap);
	return status;
}

hc_status hc_fail_over(hc_status status, const char *fmt, ...)
{
	char cause[sizeof(last_error.message)];
	size_t n;
	va_list ap;

	memcpy(cause, last_error.message, sizeof(cause));
	va_start(ap, fmt);
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	va_end(ap);
	last_error.status = status;
	n = strlen(last_error.message);
	if (cause[0] && n + 4 < sizeof(last_error.message))
		snprintf(last_error.message + n, sizeof(last_error.message) - n, " (%s)", cause);
	return status;
}

void hc_error_clear(void)
{
	last_error.status = HC_OK;
	last_error.backend_code = 0;
	last_error.backend_name[0] = '\0';
	last_error.message[0] = '\0';
}

hc_status hc_last_error(hc_error_info *out)
{
	if (!out)
		return HC_ERR_INVALID; /* nowhere to write; keep the detail as is */
	memcpy(out, &last_error, sizeof(*out));
	return HC_OK;
}
