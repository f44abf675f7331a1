# tests/check_pools: the memory manager (core/pool/pool.h) over a fake
# storage, one suite per file of tests/pools/ (tests/pools/check_pools.c
# lists them).
if HAVE_CHECK
check_PROGRAMS += tests/check_pools
TESTS += tests/check_pools
tests_check_pools_SOURCES = $(TEST_RUNNER) tests/pools/check_pools.c tests/pools/pools_suites.h \
	tests/pools/fake_storage.c tests/pools/helpers.c \
	tests/pools/placement.c tests/pools/kinds.c tests/pools/lifecycle.c \
	tests/pools/refusals.c tests/pools/layouts.c tests/pools/workload_split.c \
	tests/pools/capture.c tests/pools/property.c tests/pools/park.c tests/pools/park_split.c
tests_check_pools_CFLAGS = $(TEST_CFLAGS)
tests_check_pools_LDADD = $(TEST_LDADD)
endif
# tests/check_idle: the device's idle-storage cache (core/pool/idle.c) over the sim HAL.
if HAVE_CHECK
check_PROGRAMS += tests/check_idle
TESTS += tests/check_idle
tests_check_idle_SOURCES = tests/check_idle.c $(TEST_RUNNER)
tests_check_idle_CFLAGS = $(TEST_CFLAGS)
tests_check_idle_LDADD = $(TEST_LDADD)
endif
# tests/check_expandable: the expandable pool on the simulator's virtual memory.
if HAVE_CHECK
check_PROGRAMS += tests/check_expandable
TESTS += tests/check_expandable
tests_check_expandable_SOURCES = tests/check_expandable.c $(TEST_RUNNER) $(SIM_DEVICE_FIXTURE)
tests_check_expandable_CFLAGS = $(TEST_CFLAGS)
tests_check_expandable_LDADD = $(TEST_LDADD)

# tests/check_expandable_shared: HC_LAYOUT_EXPANDABLE_SHARED, streams sharing memory.
check_PROGRAMS += tests/check_expandable_shared
TESTS += tests/check_expandable_shared
tests_check_expandable_shared_SOURCES = tests/check_expandable_shared.c $(TEST_RUNNER) \
	$(SIM_DEVICE_FIXTURE)
tests_check_expandable_shared_CFLAGS = $(TEST_CFLAGS)
tests_check_expandable_shared_LDADD = $(TEST_LDADD)
endif
