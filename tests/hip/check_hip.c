/*
 * check_hip.c - the program tests/check_hip: the HIP backend without a GPU,
 * its loader, its error tables, and every op driven through a fake CUDA
 * runtime (tests/fake_cudart.c), one suite per file of tests/hip/, in the
 * order below.  The fake is opened once for the run (fake_load).
 */
#include "tests/hip/hip_suites.h"

HC_TEST_PROGRAM_HOOKED(fake_load, fake_unload, hip_loader_suite, hip_errors_suite, hip_ops_suite,
		       hip_builtins_suite, hip_vmm_suite, hip_amd_suite);
