# tools/: hipsim.

# hipsim's trace readers (RMM CSV through zlib, CTF through libbabeltrace2
# in a bounded child process), as a convenience library that hipsim, the
# reader tests and the replay benchmark link.  zlib is hipsim's alone:
# libhipcore.so does not link it.
noinst_LTLIBRARIES += tools/hipsim/libhipsim-read.la
tools_hipsim_libhipsim_read_la_SOURCES = \
	tools/hipsim/replay_event.h \
	tools/hipsim/idmap.h \
	tools/hipsim/idmap.c \
	tools/hipsim/read_options.h \
	tools/hipsim/read_options.c \
	tools/hipsim/read_rmm.h \
	tools/hipsim/read_rmm.c \
	tools/hipsim/read_ctf.h \
	tools/hipsim/read_ctf.c \
	tools/hipsim/ctf_names.h \
	tools/hipsim/ctf_files.h \
	tools/hipsim/ctf_files.c \
	tools/hipsim/ctf_array_guard.h \
	tools/hipsim/ctf_array_guard.c \
	tools/hipsim/read_trace.c \
	tools/hipsim/read_isolated.h \
	tools/hipsim/read_isolated.c \
	tools/hipsim/decode_guard.h \
	tools/hipsim/decode_guard.c
tools_hipsim_libhipsim_read_la_CFLAGS = $(AM_CFLAGS) $(BABELTRACE2_CFLAGS) $(ZLIB_CFLAGS)
tools_hipsim_libhipsim_read_la_LIBADD = $(BABELTRACE2_LIBS) $(ZLIB_LIBS)

# The replay engine and what it reports through (the device driver, the
# report, the options, outputs, plot and SVG, the layout file, the variant
# options, compare), compiled once for hipsim, the replay tests and the
# replay benchmark.  Each program links the library flavour it tests:
# hipsim libhipcore.so, the tests and benchmarks libhipcore-internal.
noinst_LTLIBRARIES += tools/hipsim/libhipsim-engine.la
tools_hipsim_libhipsim_engine_la_SOURCES = \
	tools/hipsim/driver.h \
	tools/hipsim/driver.c \
	tools/hipsim/report.c \
	tools/hipsim/options.h \
	tools/hipsim/options.c \
	tools/hipsim/output.h \
	tools/hipsim/output.c \
	tools/hipsim/plot.h \
	tools/hipsim/plot.c \
	tools/hipsim/svg.h \
	tools/hipsim/svg.c \
	tools/hipsim/variant.h \
	tools/hipsim/variant.c \
	tools/hipsim/replay.h \
	tools/hipsim/replay.c \
	tools/hipsim/layout_file.h \
	tools/hipsim/layout_file.c \
	tools/hipsim/compare.c
tools_hipsim_libhipsim_engine_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(BABELTRACE2_CFLAGS)
tools_hipsim_libhipsim_engine_la_CPPFLAGS = $(AM_CPPFLAGS) -DHS_PROFILE_DIR='"$(pkgdatadir)/profiles"'

bin_PROGRAMS += tools/hipsim/hipsim
tools_hipsim_hipsim_SOURCES = \
	tools/hipsim/hipsim.h \
	tools/hipsim/main.c \
	tools/hipsim/run.c \
	tools/hipsim/workloads.h \
	tools/hipsim/workloads.c \
	tools/hipsim/calibrate.h \
	tools/hipsim/calibrate.c \
	tools/hipsim/validate.c \
	tools/hipsim/via_trace.h \
	tools/hipsim/via_trace.c \
	tools/hipsim/layout_print.c \
	tools/hipsim/plan.c
tools_hipsim_hipsim_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(BABELTRACE2_CFLAGS)
tools_hipsim_hipsim_CPPFLAGS = $(AM_CPPFLAGS) -DHS_PROFILE_DIR='"$(pkgdatadir)/profiles"'
tools_hipsim_hipsim_LDADD = tools/hipsim/libhipsim-engine.la libhipcore.la tools/hipsim/libhipsim-read.la tools/hipsim/libhipsim-record.la \
	$(JANSSON_LIBS) $(BABELTRACE2_LIBS) $(ZLIB_LIBS) -lm
