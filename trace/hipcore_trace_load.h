/*
 * hipcore_trace_load.h - the probe module loader (hipcore_trace_load.c).
 * Exists only in builds configured with LTTng (HIPCORE_WITH_LTTNG).
 */
#ifndef HIPCORE_TRACE_HIPCORE_TRACE_LOAD_H
#define HIPCORE_TRACE_HIPCORE_TRACE_LOAD_H

#include <stdbool.h>

const char *hc_trace_module_path(const char *value);
bool hc_trace_provider_loaded(void);

#endif /* HIPCORE_TRACE_HIPCORE_TRACE_LOAD_H */
