/*
 * check_sim.c - the program tests/check_sim: the simulator backend through
 * hc_sim_ops() directly, one suite per file of tests/sim/, in the order
 * below.
 */
#include "tests/sim/sim_suites.h"

HC_TEST_PROGRAM(sim_profile_suite, sim_timing_suite, sim_memory_suite, sim_data_suite,
		sim_capture_suite, sim_fault_suite, sim_threads_suite, sim_bad_input_suite);
