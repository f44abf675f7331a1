# tests/check_pools: the memory manager (core/pool.h) over a fake storage.
if HAVE_CHECK
check_PROGRAMS += tests/check_pools
TESTS += tests/check_pools
tests_check_pools_SOURCES = tests/check_pools.c
tests_check_pools_CFLAGS = $(TEST_CFLAGS)
tests_check_pools_LDADD = $(TEST_LDADD)
endif
