/*
 * check_readers.c - the program tests/check_readers: hipsim's trace
 * readers (the id map, the RMM CSV reader, format detection, a reader in a
 * child process, and the CTF reader on fixture traces and damaged streams),
 * one suite per file of tests/readers/, in the order below.
 */
#include "tests/readers/readers_suites.h"

#ifdef HIPCORE_WITH_BABELTRACE2
HC_TEST_PROGRAM(readers_idmap_suite, readers_rmm_suite, readers_isolated_suite,
		readers_streaming_suite, readers_ctf_suite, readers_ctf_damaged_suite);
#else
HC_TEST_PROGRAM(readers_idmap_suite, readers_rmm_suite, readers_isolated_suite,
		readers_streaming_suite);
#endif
