/*
 * hipcore_tp_define.c - tracepoint definitions of provider "hipcore",
 * compiled into libhipcore when configured with LTTng.
 *
 * Dynamic linkage: the probes live in libhipcore-lttng.so.  Until it is
 * loaded every tracepoint stays off (one load and branch per call site),
 * and libhipcore does not need liblttng-ust at run time: lttng-ust's own
 * constructor here only tries to dlopen liblttng-ust-tracepoint.so.1.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "trace/hipcore_tp.h"
