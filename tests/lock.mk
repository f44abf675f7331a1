# tests/lock.mk: the stream lock (core/lock.h) on its own: the owner bias,
# its revocation, and biasing turned off.
if HAVE_CHECK
check_PROGRAMS += tests/check_lock
TESTS += tests/check_lock
tests_check_lock_SOURCES = tests/check_lock.c $(TEST_RUNNER)
tests_check_lock_CFLAGS = $(TEST_CFLAGS)
tests_check_lock_LDADD = $(TEST_LDADD)
endif
