# tests/: Check suites, one program per area; shell tests beside them.
# GPU and sessiond tests exit 77 (skipped) when they cannot run.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LDADD = libhipcore-internal.la $(CHECK_LIBS)
# The one main() every Check program links: a program's own sources only
# list its suites (tests/runner.h).
TEST_RUNNER = tests/runner.c tests/runner.h
# Fixtures several programs share (tests/fixtures/): a device and stream
# through the public API on the simulator, the simulator's HAL below it, a
# per-case temporary directory, child processes feeding pipes, and hipsim
# subcommands run in-process with their output captured.
SIM_DEVICE_FIXTURE = tests/fixtures/sim_device.c tests/fixtures/sim_device.h
SIM_HAL_FIXTURE = tests/fixtures/sim_hal.c tests/fixtures/sim_hal.h
SCRATCH_FIXTURE = tests/fixtures/scratch.c tests/fixtures/scratch.h
CHILDREN_FIXTURE = tests/fixtures/children.c tests/fixtures/children.h
HIPSIM_CLI_FIXTURE = tests/fixtures/hipsim_cli.c tests/fixtures/hipsim_cli.h $(SCRATCH_FIXTURE)
AM_TESTS_ENVIRONMENT = top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)'; export top_srcdir top_builddir;

if HAVE_CHECK
check_PROGRAMS += tests/check_staging
TESTS += tests/check_staging
tests_check_staging_SOURCES = tests/check_staging.c $(TEST_RUNNER)
tests_check_staging_CFLAGS = $(TEST_CFLAGS)
tests_check_staging_LDADD = $(TEST_LDADD)
endif
include tests/sim.mk
include tests/trace.mk
include tests/pools.mk
include tests/queues.mk
include tests/hip.mk
include tests/replay.mk
include tests/outputs.mk
include tests/packaging.mk
include tests/interfaces.mk
if HAVE_CHECK
check_PROGRAMS += tests/check_api
TESTS += tests/check_api
tests_check_api_SOURCES = tests/check_api.c $(TEST_RUNNER) $(SIM_DEVICE_FIXTURE)
tests_check_api_CFLAGS = $(TEST_CFLAGS)
tests_check_api_LDADD = $(TEST_LDADD)
endif
if HAVE_CHECK
check_PROGRAMS += tests/check_graph
TESTS += tests/check_graph
tests_check_graph_SOURCES = tests/check_graph.c $(TEST_RUNNER) $(SIM_DEVICE_FIXTURE)
tests_check_graph_CFLAGS = $(TEST_CFLAGS)
tests_check_graph_LDADD = $(TEST_LDADD)
endif
include tests/streams.mk
include tests/lock.mk
# hipsim run recorded for real (needs lttng-sessiond; skips otherwise).
TESTS += tests/trace-hipsim.sh
EXTRA_DIST += tests/trace-hipsim.sh
# hipsim validate --via-trace: record, replay, compare (lttng-sessiond).
TESTS += tests/validate-via-trace.sh
EXTRA_DIST += tests/validate-via-trace.sh
include tests/errors.mk
include tests/calibrate.mk
# Real PyTorch traces replayed with the default layout (issue 11's table).
TESTS += tests/torch-corpus.sh
EXTRA_DIST += tests/torch-corpus.sh tests/data/torch-corpus.tsv tests/corpus/torch/corpus.tsv \
	tests/corpus/torch/cnn_train.csv.gz tests/corpus/torch/vit_train.csv.gz \
	tests/corpus/torch/bert_train.csv.gz tests/corpus/torch/unet_train.csv.gz \
	tests/corpus/torch/recsys_train.csv.gz tests/corpus/torch/cnn_infer_streams.csv.gz \
	tests/corpus/torch/bert_infer.csv.gz tools/corpus/record_torch.py
# LTTng recordings of PyTorch on libhipcore on a GPU replay to the live
# run's figures (issue 26).
TESTS += tests/torch-ctf-corpus.sh
EXTRA_DIST += tests/torch-ctf-corpus.sh tests/corpus/ctf/live.tsv \
	tests/corpus/ctf/torch-gpt2-train.tar.gz tests/corpus/ctf/torch-server-4streams.tar.gz
include tests/reliability.mk
# The PyTorch allocator plug-in, loaded and called as PyTorch does; it links
# the shared library, as the plug-in does (one libhipcore in the process).
if HAVE_CHECK
check_PROGRAMS += tests/check_torch
TESTS += tests/check_torch
tests_check_torch_SOURCES = tests/check_torch.c $(TEST_RUNNER) tests/torch_plugin.h
tests_check_torch_CFLAGS = $(TEST_CFLAGS)
tests_check_torch_CPPFLAGS = $(AM_CPPFLAGS)
if HIPCORE_HIP
tests_check_torch_CPPFLAGS += -DHC_TEST_WITH_HIP
endif
tests_check_torch_LDADD = libhipcore.la $(CHECK_LIBS) -ldl
EXTRA_tests_check_torch_DEPENDENCIES = libhipcore-torch.la tests/fake_cudart.la
endif
if HAVE_CHECK
check_PROGRAMS += tests/check_adopt
TESTS += tests/check_adopt
tests_check_adopt_SOURCES = tests/check_adopt.c $(TEST_RUNNER)
tests_check_adopt_CFLAGS = $(TEST_CFLAGS)
tests_check_adopt_LDADD = $(TEST_LDADD)
endif
# The plug-in recorded with LTTng and replayed: memory figures as live.
check_PROGRAMS += tests/torch_driver
tests_torch_driver_SOURCES = tests/torch_driver.c tests/torch_plugin.h
tests_torch_driver_LDADD = -ldl -lpthread
EXTRA_tests_torch_driver_DEPENDENCIES = libhipcore-torch.la
TESTS += tests/torch-trace.sh
EXTRA_DIST += tests/torch-trace.sh
# Raise mode: a refused allocation reaches a C++ caller as an exception.
check_PROGRAMS += tests/torch_raise
TESTS += tests/torch_raise
tests_torch_raise_SOURCES = tests/torch_raise.cc tests/torch_plugin.h
tests_torch_raise_LDADD = -ldl
EXTRA_tests_torch_raise_DEPENDENCIES = libhipcore-torch.la
