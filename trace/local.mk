# trace/: the LTTng-UST provider "hipcore" (doc/trace-events.md).
# Call sites include trace/hipcore_trace.h only.  With LTTng, libhipcore gets
# the tracepoint definitions (dynamic linkage) and the loader of the probe
# module; the probes themselves are the module libhipcore-lttng.so.
libhipcore_internal_la_SOURCES += trace/hipcore_trace.h trace/hipcore_trace_ids.h

EXTRA_DIST += trace/hipcore_tp.h trace/hipcore_tp.c trace/hipcore_tp_define.c \
	trace/hipcore_trace_load.c trace/hipcore_trace_load.h trace/hipcore_track.c \
	trace/hipcore_track.h

if HIPCORE_LTTNG
libhipcore_internal_la_SOURCES += \
	trace/hipcore_tp.h \
	trace/hipcore_tp_define.c \
	trace/hipcore_trace_load.h \
	trace/hipcore_trace_load.c
hc_lttng_module_define = -DHIPCORE_LTTNG_MODULE='"$(pkglibdir)/libhipcore-lttng.so"'
libhipcore_internal_la_CPPFLAGS += $(hc_lttng_module_define)

pkglib_LTLIBRARIES += libhipcore-lttng.la
libhipcore_lttng_la_SOURCES = trace/hipcore_tp.c trace/hipcore_tp.h trace/hipcore_track.c \
	trace/hipcore_track.h util/env.c util/env.h
libhipcore_lttng_la_CPPFLAGS = $(AM_CPPFLAGS) $(LTTNG_UST_CFLAGS)
libhipcore_lttng_la_LDFLAGS = -module -avoid-version -shared -Wl,--no-as-needed
libhipcore_lttng_la_LIBADD = -llttng-ust $(LTTNG_UST_LIBS)
endif

# `hipsim record` (tools/hipsim/record.c), as a convenience library that
# hipsim links; tests/record_driver runs it until hipsim's main exists.
noinst_LTLIBRARIES += tools/hipsim/libhipsim-record.la
tools_hipsim_libhipsim_record_la_SOURCES = \
	tools/hipsim/record.c tools/hipsim/record.h \
	tools/hipsim/record_count.c tools/hipsim/record_count.h \
	tools/hipsim/record_follow.c tools/hipsim/record_follow.h trace/hipcore_track.h
tools_hipsim_libhipsim_record_la_CPPFLAGS = $(AM_CPPFLAGS) $(BABELTRACE2_CFLAGS) \
	$(hc_lttng_module_define)
tools_hipsim_libhipsim_record_la_LIBADD = $(BABELTRACE2_LIBS)

dist_doc_DATA += doc/trace-events.md
