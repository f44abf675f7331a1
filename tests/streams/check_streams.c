/*
 * check_streams.c - the program tests/check_streams: the stream operations
 * through the public API on the simulator in data mode, one suite per file
 * of tests/streams/, in the order below: transfers around every staging
 * threshold, ordering (release callbacks, cross-stream waits and pins),
 * the drop queue, launches and the info cache, refusals and bad input.
 */
#include "tests/streams/streams_suites.h"

HC_TEST_PROGRAM(streams_transfer_suite, streams_ordering_suite, streams_drop_queue_suite,
		streams_launch_suite, streams_refusals_suite);
