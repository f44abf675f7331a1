/*
 * hipcore_trace_load.c - loads the LTTng probe module at library start.
 *
 * The tracepoints in libhipcore use dynamic linkage (hipcore_tp_define.c):
 * they stay off until the probes of libhipcore-lttng.so are registered.
 * A constructor here dlopen()s that module, so `lttng enable-event -u
 * 'hipcore:*'` works on a service that was started without any special
 * environment.  HIPCORE_LTTNG selects what is loaded:
 *
 *	unset, "", "1"	$(pkglibdir)/libhipcore-lttng.so (HIPCORE_LTTNG_MODULE)
 *	"0"		nothing: tracing stays off
 *	a path		that file (must contain a '/'), e.g. a build tree's
 *			.libs/libhipcore-lttng.so
 *
 * The variable is read with secure_getenv() through util/env.h's table,
 * so a setuid program never loads a module named by its caller; the table
 * is constant data, so reading it needs no other library code to have run
 * before this constructor.  A
 * missing module or missing liblttng-ust leaves tracing silently off; the
 * library never prints.  The module is never dlclose()d (lttng-ust(3):
 * unloading a provider in use is unsafe).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/hipcore_trace_load.h"
#include "util/env.h"

#ifndef HIPCORE_LTTNG_MODULE
#error "HIPCORE_LTTNG_MODULE (the installed probe module path) must be defined"
#endif

/* Set once by the constructor; read-only afterwards. */
static bool provider_loaded;

/**
 * hc_trace_module_path() - which probe module HIPCORE_LTTNG asks for.
 * @value: the variable's value, or NULL when unset.
 *
 * Context: any thread; pure.
 * Return: the path to dlopen(), or NULL when tracing is turned off.
 */
const char *hc_trace_module_path(const char *value)
{
	if (!value || !value[0] || strcmp(value, "1") == 0)
		return HIPCORE_LTTNG_MODULE;
	if (strcmp(value, "0") == 0 || !strchr(value, '/'))
		return NULL;
	return value;
}

/**
 * hc_trace_provider_loaded() - whether the probe module was loaded.
 *
 * Context: any thread, after library construction.
 * Return: true when libhipcore-lttng.so (or HIPCORE_LTTNG's file) is loaded.
 */
bool hc_trace_provider_loaded(void)
{
	return provider_loaded;
}

__attribute__((constructor)) static void hc_trace_load(void)
{
	const char *path = hc_trace_module_path(hc_env_get(HC_ENV_LTTNG));
	void *handle;

	if (!path)
		return;
	handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!handle) {
		(void)dlerror(); /* clear it: absence is not an error */
		return;
	}
	/* Deliberately never dlclose()d. */
	provider_loaded = true;
}
