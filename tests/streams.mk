# tests/streams.mk: the stream operations (write, read, launch, sync,
# cross-stream, policy), one suite per file of tests/streams/, and a
# threaded stress test.
if HAVE_CHECK
check_PROGRAMS += tests/check_streams tests/check_stress
TESTS += tests/check_streams tests/check_stress
tests_check_streams_SOURCES = $(TEST_RUNNER) $(SIM_DEVICE_FIXTURE) tests/streams/check_streams.c \
	tests/streams/streams_suites.h tests/streams/helpers.c tests/streams/transfer.c \
	tests/streams/ordering.c tests/streams/drop_queue.c tests/streams/launch.c \
	tests/streams/refusals.c
tests_check_streams_CFLAGS = $(TEST_CFLAGS)
tests_check_streams_LDADD = $(TEST_LDADD)
tests_check_stress_SOURCES = tests/check_stress.c $(TEST_RUNNER)
tests_check_stress_CFLAGS = $(TEST_CFLAGS)
tests_check_stress_LDADD = $(TEST_LDADD)
endif
# tests/check_api_edges: the public calls' Context: edges (a refused install,
# a report callback calling back, the idle cache and stream close while
# another stream records, close racing a capture); threaded, bounded.
if HAVE_CHECK
check_PROGRAMS += tests/check_api_edges
TESTS += tests/check_api_edges
tests_check_api_edges_SOURCES = tests/check_api_edges.c $(TEST_RUNNER)
tests_check_api_edges_CFLAGS = $(TEST_CFLAGS)
tests_check_api_edges_LDADD = $(TEST_LDADD) -lpthread
endif
