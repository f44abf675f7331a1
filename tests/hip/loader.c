/*
 * loader.c - how the HIP backend finds and loads a runtime: a missing file
 * or symbol is "no runtime" naming it, the default search is clean without
 * a GPU, a runtime already in the process comes first, device codes and
 * ordinals are checked, one entry can be overridden, a failed open leaves
 * nothing behind, and the fault shim wraps the backend.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/hip/hip_suites.h"

/* ------------------------------------------------------------------ loader */

START_TEST(missing_file_is_no_runtime_naming_it)
{
	hc_hal_dev *dev = NULL;

	ck_assert_int_eq(open_with("/nonexistent/libnothere.so", 0, &dev), HC_ERR_NO_RUNTIME);
	ck_assert_ptr_null(dev);
	ck_assert_int_eq(last()->status, HC_ERR_NO_RUNTIME);
	ck_assert_ptr_nonnull(strstr(last()->message, "/nonexistent/libnothere.so"));
	/* dlerror's own words travel too */
	ck_assert_ptr_nonnull(strstr(last()->message, "No such file"));
}
END_TEST

START_TEST(library_without_symbols_is_no_runtime_naming_one)
{
	hc_hal_dev *dev = NULL;

	ck_assert_int_eq(open_with("libm.so.6", 0, &dev), HC_ERR_NO_RUNTIME);
	ck_assert_ptr_nonnull(strstr(last()->message, "libm.so.6"));
	ck_assert_ptr_nonnull(strstr(last()->message, "missing symbol hipGetDeviceCount"));
}
END_TEST

START_TEST(runtime_missing_one_symbol_names_it)
{
	hc_hal_dev *dev = NULL;

	ck_assert_int_eq(open_with(partial_path, 0, &dev), HC_ERR_NO_RUNTIME);
	ck_assert_ptr_nonnull(strstr(last()->message, "missing symbol cudaGraphLaunch"));
	ck_assert_ptr_nonnull(strstr(last()->message, "fake_cudart_partial.so"));
	/* nothing stays bound after a failed load */
	ck_assert(!HIP_HAVE(Malloc));
}
END_TEST

START_TEST(default_search_is_clean_without_a_gpu)
{
	hc_hal_dev *dev = NULL;
	hc_status st = open_with(NULL, 0, &dev);

	if (st == HC_OK) { /* a machine with a GPU: fine, and close it */
		hc_hip_ops()->device_close(dev);
		return;
	}
	ck_assert_int_eq(st, HC_ERR_NO_RUNTIME);
	ck_assert_ptr_nonnull(strstr(last()->message, "libamdhip64.so.6"));
	ck_assert_ptr_nonnull(strstr(last()->message, "libamdhip64.so.5"));
	ck_assert_ptr_nonnull(strstr(last()->message, "libcudart.so.13"));
	ck_assert_ptr_nonnull(strstr(last()->message, "libcudart.so.12"));
}
END_TEST

/* A runtime the process loaded itself (PyTorch's own libcudart.so.13, say)
 * is bound without HIPCORE_HIP_LIBRARY, before any search by soname. */
START_TEST(a_runtime_already_loaded_comes_first)
{
	char dir[] = "/tmp/hc-loaded.XXXXXX", copy[256], cmd[1400];
	const struct hip_runtime *rt;
	hc_hal_dev *dev = NULL;
	void *lib;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libcudart.so.13", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fake_path, copy);
	ck_assert_int_eq(system(cmd), 0);
	lib = dlopen(copy, RTLD_NOW | RTLD_GLOBAL);
	ck_assert_msg(lib != NULL, "%s", dlerror());
	ck_assert_int_eq(open_with(NULL, 0, &dev), HC_OK);
	ck_assert_int_eq(hip_runtime_get(&rt), HC_OK);
	ck_assert_str_eq(rt->path, copy);
	hc_hip_ops()->device_close(dev);
	ck_assert_int_eq(hc_hip_runtime_reset(), 1);
	dlclose(lib);
	unlink(copy);
	rmdir(dir);
}
END_TEST

START_TEST(no_device_codes_are_no_runtime)
{
	static const int codes[] = { 35, 100 };
	hc_hal_dev *dev = NULL;

	for (size_t i = 0; i < 2; i++) {
		fake_reset();
		fake_set_error("cudaGetDeviceCount", codes[i], 0);
		ck_assert_int_eq(open_with(fake_path, 0, &dev), HC_ERR_NO_RUNTIME);
		ck_assert_ptr_nonnull(strstr(last()->message, "no device"));
	}
	fake_reset();
	fake_set_devices(0);
	ck_assert_int_eq(open_with(fake_path, 0, &dev), HC_ERR_NO_RUNTIME);
	ck_assert_ptr_nonnull(strstr(last()->message, "no device (0 devices)"));
	fake_reset();
}
END_TEST

START_TEST(ordinal_out_of_range_names_the_count)
{
	hc_hal_dev *dev = NULL;

	fake_set_devices(2);
	ck_assert_int_eq(open_with(fake_path, 2, &dev), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last()->message, "sees 2 device(s)"));
	ck_assert_int_eq(open_with(fake_path, -1, &dev), HC_ERR_INVALID);
	ck_assert_int_eq(open_with(fake_path, 1, &dev), HC_OK);
	hc_hip_ops()->device_close(dev);
}
END_TEST

START_TEST(symbol_table_override_replaces_one_entry)
{
	ck_assert_int_eq(hc_hip_sym_override("hipNoSuchCall", NULL), -1);
	ck_assert_int_eq(hc_hip_sym_override("hipMalloc", NULL), 0);
	ck_assert_int_eq(hc_hip_sym_override("cudaMalloc", NULL), 0);
	/* every entry has a name on at least one platform */
	for (int i = 0; i < HIP_SYM_COUNT; i++)
		ck_assert(hip_syms[i].hip_name || hip_syms[i].cuda_name);
}
END_TEST


START_TEST(failed_open_steps_leave_nothing)
{
	hc_hal_dev *dev = NULL;

	fake_reset();
	fake_set_error("cuInit", 3, 0);
	ck_assert_int_eq(open_with(fake_path, 0, &dev), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_NOT_INITIALIZED");
	ck_assert_ptr_null(dev);
	fake_reset();
	fake_set_error("cudaSetDevice", 101, 0);
	ck_assert_int_eq(open_with(fake_path, 0, &dev), HC_ERR_DEVICE);
	fake_reset();
	ck_assert_int_eq(fake_live(), 0);
	hc_hip_runtime_reset();
}
END_TEST

/* Faults injected over the HIP backend through the shim. */
START_TEST(fault_shim_over_hip)
{
	const struct hc_hal_ops *F = hc_fault_wrap(hc_hip_ops());
	struct hc_hal_open_args a = { .ordinal = 0 };
	struct hc_hal_fault_arg arm = { HC_FAULT_DEVICE_ALLOC, 2, HC_FAULT_ONCE };
	hc_hal_dev *dev;
	hc_hal_dptr d1, d2, d3;

	fake_reset();
	hc_hip_runtime_reset();
	setenv("HIPCORE_HIP_LIBRARY", fake_path, 1);
	ck_assert_int_eq(F->device_open(&a, &dev), HC_OK);
	ck_assert_str_eq(F->name, "hip");
	ck_assert_int_eq(F->ctl(dev, HC_HAL_CTL_FAULT, &arm), HC_OK);
	ck_assert_int_eq(F->mem_alloc(dev, 32, &d1), HC_OK);
	ck_assert_int_eq(F->mem_alloc(dev, 32, &d2), HC_ERR_OOM);
	ck_assert_str_eq(last()->backend_name, "injected");
	ck_assert_int_eq(F->mem_alloc(dev, 32, &d3), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaMalloc"), 2);
	ck_assert_int_eq(F->mem_free(dev, d1), HC_OK);
	F->device_close(dev); /* d3 freed by the real close */
	ck_assert_int_eq(fake_live(), 0);
	hc_hip_runtime_reset();
}
END_TEST


/*
 * The built-in kernels on the HIP backend: module_load(NULL) loads the
 * embedded image of the runtime's flavor (the fakes accept PTX and AMD
 * offload bundles and find the kernels each defines), function_get looks
 * up exactly the names asked for, and a launch passes the six parameters
 * (three addresses, three sizes) that the fake runs the host reference
 * on: the bytes must come out as hal/builtins.h says.  A launch whose
 * ranges the kernel cannot take is refused before the runtime sees it,
 * with the simulator's message.
 */

Suite *hip_loader_suite(void)
{
	Suite *s = suite_create("loader");
	TCase *tc;

	tc = tcase_create("loader");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, missing_file_is_no_runtime_naming_it);
	tcase_add_test(tc, library_without_symbols_is_no_runtime_naming_one);
	tcase_add_test(tc, runtime_missing_one_symbol_names_it);
	tcase_add_test(tc, default_search_is_clean_without_a_gpu);
	tcase_add_test(tc, a_runtime_already_loaded_comes_first);
	tcase_add_test(tc, no_device_codes_are_no_runtime);
	tcase_add_test(tc, ordinal_out_of_range_names_the_count);
	tcase_add_test(tc, symbol_table_override_replaces_one_entry);
	tcase_add_test(tc, failed_open_steps_leave_nothing);
	tcase_add_test(tc, fault_shim_over_hip);
	suite_add_tcase(s, tc);
	return s;
}
