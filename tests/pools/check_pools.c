/*
 * check_pools.c - the program tests/check_pools: the memory manager
 * (core/pool/pool.h) and every pool kind over a fake storage
 * (tests/pools/fake_storage.c), parked frees against a non-parking twin.
 * One suite per file of tests/pools/, in the order below.
 */
#include "tests/pools/pools_suites.h"

HC_TEST_PROGRAM(pools_placement_suite, pools_kinds_suite, pools_lifecycle_suite,
		pools_refusals_suite, pools_layouts_suite, pools_workload_split_suite,
		pools_capture_suite, pools_property_suite, pools_park_suite,
		pools_park_split_suite);
