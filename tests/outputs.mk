# tests/outputs.mk: hipsim's outputs and option checking (issue 28): option
# errors, output files opened first and their write errors, reports that
# record their options, the SVG plot; tests/hipsim-outputs.sh drives the
# hipsim binary (standard output's errors, installed profiles by name, the
# calibrate output) and renders plots with rsvg-convert.
if HAVE_CHECK
check_PROGRAMS += tests/check_outputs
TESTS += tests/check_outputs
tests_check_outputs_SOURCES = tests/check_outputs.c $(TEST_RUNNER) $(HIPSIM_CLI_FIXTURE) \
	tools/hipsim/run.c tools/hipsim/workloads.c
tests_check_outputs_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS) $(BABELTRACE2_CFLAGS)
tests_check_outputs_LDADD = tools/hipsim/libhipsim-engine.la tools/hipsim/libhipsim-read.la $(TEST_LDADD) $(JANSSON_LIBS) \
	$(BABELTRACE2_LIBS) $(ZLIB_LIBS) -lm
endif

# tests/png_probe reads back what rsvg-convert drew.
if HAVE_LIBPNG
check_PROGRAMS += tests/png_probe
tests_png_probe_SOURCES = tests/png_probe.c
tests_png_probe_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
tests_png_probe_LDADD = $(LIBPNG_LIBS)
endif
TESTS += tests/hipsim-outputs.sh
EXTRA_DIST += tests/hipsim-outputs.sh tests/png_probe.c
AM_TESTS_ENVIRONMENT += RSVG_CONVERT='$(RSVG_CONVERT)'; export RSVG_CONVERT;
