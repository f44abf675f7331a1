/*
 * hip_suites.h - what the suites of tests/check_hip share: the HIP backend
 * without a GPU, driven through the fake runtimes of tests/fake_cudart.c
 * (tests/hip/fake_runtime.c).
 *
 * HIPCORE_HIP_LIBRARY picks the library; hc_hip_runtime_reset() unloads it
 * between cases so each case loads what it names (CK_FORK=no works too).
 */
#ifndef HC_TESTS_HIP_SUITES_H
#define HC_TESTS_HIP_SUITES_H

#include <stdint.h>

#include "core/internal.h"
#include "hal/fault.h"
#include "hal/hip/hip_rt.h"
#include "tests/runner.h"

/* The fake runtime built three ways: CUDA names, CUDA without
 * cudaGraphLaunch, HIP names. */
extern char fake_path[1024], partial_path[1024], hip_path[1024];
/* Our own handle on the fake: keeps its state across the backend's
 * reloads. */
extern void *fake;

/* The fake's controls (tests/fake_cudart.c), found by fake_load. */
extern int (*fake_set_error)(const char *, int, int);
extern unsigned long (*fake_calls)(const char *);
extern long (*fake_live)(void);
extern void (*fake_set_devices)(int);
extern void (*fake_reset)(void);
extern void (*fake_set_attr)(int, int);
extern unsigned long (*fake_lookups)(const char *);
extern unsigned long (*fake_builtin_runs)(void);
extern void (*fake_set_vmm)(uint64_t, uint64_t);
extern void (*fake_set_version)(int);

/* The runner's hooks: open the fake for the run and find its controls;
 * unload the backend's runtime and close the fake after it. */
int fake_load(int argc, char **argv);
void fake_unload(void);

/* The calling thread's last error. */
const hc_error_info *last(void);
/* Opens device @ordinal of the backend with HIPCORE_HIP_LIBRARY = @lib
 * (unset when NULL), the backend's runtime unloaded first. */
hc_status open_with(const char *lib, int ordinal, hc_hal_dev **dev);

/* The fixture of the cases on a device: fake_open resets the fake and
 * opens H's device D on it; fake_close closes it and asserts the fake holds
 * nothing live. */
extern const struct hc_hal_ops *H;
extern hc_hal_dev *D;
void fake_open(void);
void fake_close(void);

/* The fake's virtual-memory granule. */
#define G (2ull << 20)

/* The built-in kernels' module loaded and run through H's device D on the
 * fake (CUDA or HIP names) whose controls are given (builtins.c). */
void builtins_through(unsigned long (*calls)(const char *),
		      unsigned long (*lookups)(const char *),
		      unsigned long (*runs)(void));

/* The suites, in the order tests/check_hip runs them. */
Suite *hip_loader_suite(void);
Suite *hip_errors_suite(void);
Suite *hip_ops_suite(void);
Suite *hip_builtins_suite(void);
Suite *hip_vmm_suite(void);
Suite *hip_amd_suite(void);

#endif
