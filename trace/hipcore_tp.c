/*
 * hipcore_tp.c - the probes of provider "hipcore": libhipcore-lttng.so.
 *
 * Built as a module (pkglibdir, -module -avoid-version, linked to
 * liblttng-ust).  libhipcore holds only the tracepoint definitions
 * (hipcore_tp_define.c, dynamic linkage) and loads this module at start
 * (hipcore_trace_load.c), so libhipcore itself never needs liblttng-ust.
 * Loading it registers the probes; it must never be dlclose()d.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "trace/hipcore_tp.h"
