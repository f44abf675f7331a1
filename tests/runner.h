/*
 * runner.h - the one main() of tests/: every Check program links
 * tests/runner.c and lists its suites in a table (HC_TEST_PROGRAM).
 *
 * A suite file defines its cases and a constructor that returns its Suite;
 * the program's table names the constructors in the order they run.  The
 * runner adds them all to one SRunner and runs it with srunner_run_all, so
 * every program answers Check's environment the same way: CK_RUN_SUITE and
 * CK_RUN_CASE pick what runs, CK_FORK=no runs every case in this process
 * (valgrind, gdb), CK_DEFAULT_TIMEOUT and CK_TIMEOUT_MULTIPLIER scale the
 * per-case timeouts set with tcase_set_timeout, and CK_VERBOSITY sets how
 * much is printed (normal when unset).
 */
#ifndef HC_TESTS_RUNNER_H
#define HC_TESTS_RUNNER_H

#include <check.h>

typedef Suite *(*hc_suite_maker)(void);

/* What a program is: its suites (a NULL-terminated table) and, for the few
 * that need one, a hook before the suites are made (its non-zero return is
 * the exit status, without running anything) and one after the run. */
struct hc_test_program {
	const hc_suite_maker *suites;
	int (*before)(int argc, char **argv);
	void (*after)(void);
};

/* Each program defines this exactly once, with one of the macros below. */
extern const struct hc_test_program hc_test_program;

#define HC_TEST_PROGRAM(...)                                                       \
	static const hc_suite_maker hc_test_suites_[] = { __VA_ARGS__, NULL };      \
	const struct hc_test_program hc_test_program = { hc_test_suites_, NULL, NULL }

#define HC_TEST_PROGRAM_HOOKED(before_fn, after_fn, ...)                           \
	static const hc_suite_maker hc_test_suites_[] = { __VA_ARGS__, NULL };      \
	const struct hc_test_program hc_test_program = { hc_test_suites_, before_fn, \
							 after_fn }

#endif
