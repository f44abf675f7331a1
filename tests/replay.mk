# tests/replay.mk: hipsim's trace readers, linked from their objects (not
# hipsim): tests/check_readers, one suite per file of tests/readers/.
if HAVE_CHECK
check_PROGRAMS += tests/check_readers
TESTS += tests/check_readers
tests_check_readers_SOURCES = $(TEST_RUNNER) $(SCRATCH_FIXTURE) $(CHILDREN_FIXTURE) \
	tests/readers/check_readers.c tests/readers/readers_suites.h tests/readers/helpers.c \
	tests/readers/idmap.c tests/readers/rmm.c tests/readers/isolated.c \
	tests/readers/streaming.c tests/readers/ctf.c tests/readers/ctf_damaged.c \
	tests/fuzz/ctf_source.h tests/fuzz/ctf_source.c
tests_check_readers_CFLAGS = $(TEST_CFLAGS) $(BABELTRACE2_CFLAGS) $(ZLIB_CFLAGS) \
	-DHC_ABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_readers_LDADD = tools/hipsim/libhipsim-read.la $(CHECK_LIBS) $(BABELTRACE2_LIBS) $(ZLIB_LIBS)
endif
EXTRA_DIST += tests/data/ctf-small/ust/uid/0/64-bit/metadata \
	tests/data/ctf-small/ust/uid/0/64-bit/ch_0 \
	tests/data/ctf-small/ust/uid/0/64-bit/ch_1 \
	tests/data/ctf-small/ust/uid/0/64-bit/index/ch_0.idx \
	tests/data/ctf-small/ust/uid/0/64-bit/index/ch_1.idx \
	tests/data/ctf-discarded/ust/uid/0/64-bit/metadata \
	tests/data/ctf-discarded/ust/uid/0/64-bit/ch_0 \
	tests/data/ctf-discarded/ust/uid/0/64-bit/ch_1 \
	tests/data/ctf-discarded/ust/uid/0/64-bit/index/ch_0.idx \
	tests/data/ctf-discarded/ust/uid/0/64-bit/index/ch_1.idx \
	tests/data/ctf-small-src/README tests/data/ctf-small-src/app.c tests/data/ctf-small-src/hc_tp.h \
	tests/data/ctf-small-src/loop.c \
	tests/fuzz/corpus/ctf_decode/launch_bindings \
	tests/fuzz/corpus/ctf_decode/regress-prescan-stays-failed

# hipsim's readers on damaged, compressed, piped and mid-run inputs, and
# the bounds on the CTF decoder's child process (issue 28).
if HAVE_CHECK
check_PROGRAMS += tests/check_inputs
TESTS += tests/check_inputs
tests_check_inputs_SOURCES = tests/check_inputs.c $(TEST_RUNNER) $(SCRATCH_FIXTURE) $(CHILDREN_FIXTURE)
tests_check_inputs_CFLAGS = $(TEST_CFLAGS) $(BABELTRACE2_CFLAGS) $(ZLIB_CFLAGS) \
	-DHC_ABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_inputs_LDADD = tools/hipsim/libhipsim-read.la $(CHECK_LIBS) $(BABELTRACE2_LIBS) $(ZLIB_LIBS)
endif

# The replay engine and compare over the real library on the simulator.
if HAVE_CHECK
check_PROGRAMS += tests/check_replay
TESTS += tests/check_replay
tests_check_replay_SOURCES = tests/check_replay.c $(TEST_RUNNER) $(HIPSIM_CLI_FIXTURE)
tests_check_replay_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS) $(BABELTRACE2_CFLAGS) \
	-DHC_ABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_replay_LDADD = tools/hipsim/libhipsim-engine.la tools/hipsim/libhipsim-read.la $(TEST_LDADD) $(JANSSON_LIBS) $(BABELTRACE2_LIBS)

# `hipsim replay` on gzip, pipes, mid-run logs, many streams, partial traces.
check_PROGRAMS += tests/check_replay_inputs
TESTS += tests/check_replay_inputs
tests_check_replay_inputs_SOURCES = tests/check_replay_inputs.c $(TEST_RUNNER) $(HIPSIM_CLI_FIXTURE) \
	$(CHILDREN_FIXTURE)
tests_check_replay_inputs_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS) $(ZLIB_CFLAGS) \
	-DHC_ABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_replay_inputs_LDADD = tools/hipsim/libhipsim-engine.la tools/hipsim/libhipsim-read.la $(TEST_LDADD) $(JANSSON_LIBS) \
	$(BABELTRACE2_LIBS) $(ZLIB_LIBS)
endif
EXTRA_DIST += tests/readers.supp

# Issue 28's damaged LTTng traces, recorded here (skips without LTTng).
TESTS += tests/ctf-inputs.sh
EXTRA_DIST += tests/ctf-inputs.sh

# Record `hipsim run` with LTTng, replay the trace, same memory figures;
# replay determinism.  Skips (77) without LTTng or babeltrace2.
TESTS += tests/replay-roundtrip.sh
EXTRA_DIST += tests/replay-roundtrip.sh

# The end of a run: the device closed before the report's wall time.
if HAVE_CHECK
check_PROGRAMS += tests/check_driver
TESTS += tests/check_driver
tests_check_driver_SOURCES = tests/check_driver.c $(TEST_RUNNER) tools/hipsim/driver.h tools/hipsim/driver.c \
	tools/hipsim/plot.c
tests_check_driver_CFLAGS = $(TEST_CFLAGS)
tests_check_driver_LDADD = $(TEST_LDADD)
endif
