/*
 * check_queues.c - runs the suites for the drop queue, metadata cache, error
 * graph, capture state machine and cursors (no device needed).
 */
#include <stdlib.h>

#include "tests/check_queues.h"

int main(void)
{
	SRunner *sr = srunner_create(make_drop_queue_suite());
	int failed;

	srunner_add_suite(sr, make_metacache_suite());
	srunner_add_suite(sr, make_errgraph_suite());
	srunner_add_suite(sr, make_capture_suite());
	srunner_add_suite(sr, make_cursor_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
