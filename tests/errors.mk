# tests/errors.mk: the error graph wired into stream operations (failures,
# taint, derived failures, late failures at fences, hc_failure_explain).
if HAVE_CHECK
check_PROGRAMS += tests/check_errors
TESTS += tests/check_errors
tests_check_errors_SOURCES = tests/check_errors.c $(TEST_RUNNER) $(SIM_DEVICE_FIXTURE)
tests_check_errors_CFLAGS = $(TEST_CFLAGS)
tests_check_errors_LDADD = $(TEST_LDADD)
endif
