/*
 * check_queues.c - the program tests/check_queues: the suites for the drop
 * queue, metadata cache, error graph, capture state machine and cursors
 * (no device needed), in the order they run.
 */
#include "tests/check_queues.h"
#include "tests/runner.h"

HC_TEST_PROGRAM(make_drop_queue_suite, make_metacache_suite, make_errgraph_suite,
		make_capture_suite, make_cursor_suite);
