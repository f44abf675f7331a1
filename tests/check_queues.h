/*
 * check_queues.h - the suites of tests/check_queues, one per core module.
 */
#ifndef HIPCORE_TESTS_CHECK_QUEUES_H
#define HIPCORE_TESTS_CHECK_QUEUES_H

#include <check.h>

Suite *make_drop_queue_suite(void);
Suite *make_metacache_suite(void);
Suite *make_errgraph_suite(void);
Suite *make_capture_suite(void);
Suite *make_cursor_suite(void);

#endif /* HIPCORE_TESTS_CHECK_QUEUES_H */
