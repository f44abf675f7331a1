/*
 * check_pools.c - the program tests/check_pools: the memory manager
 * (core/pool/pool.h) and every pool kind over a fake storage
 * (tests/pools/fake_storage.c), parked frees against a non-parking twin.
 * One suite per file of tests/pools/, in the order below.
 *
 * The storage hands out fake, non-overlapping addresses and counts
 * allocations, frees and live bytes, and can refuse on demand, so every
 * test asserts exact placement (addresses are page base + offset), exact
 * usage figures and exact storage traffic.  The scenarios and their numbers
 * are those of upstream CubeCL's memory management tests; the property test
 * drives random reserve/release/pin/cleanup/install sequences with
 * fixed seeds and checks the invariants after every step.
 */
#include "tests/pools/pools_suites.h"

HC_TEST_PROGRAM(pools_placement_suite, pools_kinds_suite, pools_lifecycle_suite,
		pools_refusals_suite, pools_layouts_suite, pools_workload_split_suite,
		pools_capture_suite, pools_property_suite, pools_park_suite,
		pools_park_split_suite);
