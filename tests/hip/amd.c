/*
 * amd.c - the AMD path: the same backend over tests/fake_cudart.c built
 * with HIP names (fake_hip), opened and closed around each case by its own
 * fixture (amd_open, amd_close).
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/hip/hip_suites.h"

/* ------------------------------------------- the AMD path, through fake_hip */

/* fake_hip is a second library with its own state: its controls. */
static void *fh;
static int (*fh_set_error)(const char *, int, int);
static unsigned long (*fh_calls)(const char *);
static long (*fh_live)(void);
static void (*fh_reset)(void);
static void (*fh_set_attr)(int, int);
static unsigned long (*fh_lookups)(const char *);
static unsigned long (*fh_builtin_runs)(void);
static void (*fh_set_version)(int);

static void amd_open(void)
{
	fh = dlopen(hip_path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(fh != NULL, "%s", dlerror());
	*(void **)&fh_set_error = dlsym(fh, "fake_set_error");
	*(void **)&fh_calls = dlsym(fh, "fake_calls");
	*(void **)&fh_live = dlsym(fh, "fake_live");
	*(void **)&fh_reset = dlsym(fh, "fake_reset");
	*(void **)&fh_set_attr = dlsym(fh, "fake_set_attr");
	*(void **)&fh_lookups = dlsym(fh, "fake_lookups");
	*(void **)&fh_builtin_runs = dlsym(fh, "fake_builtin_runs");
	ck_assert(fh_set_error && fh_calls && fh_live && fh_reset && fh_set_attr && fh_lookups &&
		  fh_builtin_runs);
	*(void **)&fh_set_version = dlsym(fh, "fake_set_version");
	ck_assert(fh_set_error && fh_calls && fh_live && fh_reset && fh_set_attr && fh_set_version);
	fh_reset();
	fh_set_attr(hipDeviceAttributeTextureAlignment, 256);
	fh_set_attr(hipDeviceAttributeSurfaceAlignment, 64);
	fh_set_attr(hipDeviceAttributeIntegrated, 0);
	H = hc_hip_ops();
	ck_assert_int_eq(open_with(hip_path, 0, &D), HC_OK);
}

static void amd_close(void)
{
	if (D)
		H->device_close(D);
	D = NULL;
	ck_assert_int_eq(fh_live(), 0);
	hc_hip_runtime_reset();
	dlclose(fh);
}

START_TEST(amd_props_use_hip_attributes)
{
	struct hc_hal_props p;

	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_str_eq(p.name, "Fake GPU 0");
	ck_assert_uint_eq(p.alignment, 256);
	ck_assert(!p.integrated);
	ck_assert_uint_eq(fh_calls("cuInit"), 1); /* hipInit */
	ck_assert(!HIP_HAVE(GraphInstantiateWithFlags));
	ck_assert(HIP_HAVE(GraphInstantiate));
	/* an alignment attribute the runtime does not know is skipped ... */
	fh_set_error("cudaDeviceGetAttribute", hipErrorInvalidValue, 1);
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.alignment, 64); /* texture unknown: max(32, 64) */
	/* ... any other failure is reported */
	fh_set_error("cudaDeviceGetAttribute", hipErrorInvalidDevice, 1);
	ck_assert_int_eq(H->device_props(D, &p), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "hipErrorInvalidDevice");
	fh_set_error("cudaMemGetInfo", hipErrorOutOfMemory, 1);
	ck_assert_int_eq(H->device_props(D, &p), HC_ERR_OOM);
}
END_TEST

START_TEST(amd_pinned_blocks_register_with_hip)
{
	void *p;

	ck_assert_int_eq(H->host_alloc(D, 4u << 20, &p), HC_OK);
	ck_assert_uint_eq(fh_calls("cudaHostRegister"), 1); /* hipHostRegister */
	ck_assert_uint_eq(fh_calls("cudaHostAlloc"), 0);
	ck_assert_int_eq(H->host_free(D, p), HC_OK);
	ck_assert_uint_eq(fh_calls("cudaHostUnregister"), 1);
}
END_TEST

START_TEST(amd_errors_are_hip_codes)
{
	hc_hal_dptr d;
	hc_hal_module *m;
	hc_hal_function *f;
	hc_hal_stream *s;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 2048, 1, 1 } };

	fh_set_error("cudaMalloc", hipErrorOutOfMemory, 1);
	ck_assert_int_eq(H->mem_alloc(D, 64, &d), HC_ERR_OOM);
	ck_assert_str_eq(last()->backend_name, "fakeMemoryAllocation"); /* hipGetErrorName */
	ck_assert_ptr_nonnull(strstr(last()->message, "hipMalloc"));
	fh_set_error("cudaMalloc", hipErrorRuntimeMemory, 1);
	ck_assert_int_eq(H->mem_alloc(D, 64, &d), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "hipErrorRuntimeMemory"); /* static table */
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->module_load(D, "bad", 3, &m), HC_ERR_DEVICE);
	/* module calls answer in HIP's space too: 218 is hipErrorInvalidKernelFile */
	ck_assert_str_eq(last()->backend_name, "hipErrorInvalidKernelFile");
	ck_assert_int_eq(H->module_load(D, "FAKE", 4, &m), HC_OK);
	ck_assert_int_eq(H->function_get(D, m, "add_one", &f), HC_OK);
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(last()->message, "hipModuleLaunchKernel"));
	fh_set_error("cudaStreamBeginCapture", hipErrorStreamCaptureUnsupported, 1);
	ck_assert_int_eq(H->capture_begin(D, s), HC_ERR_STATE);
	ck_assert_int_eq(last()->backend_code, 900);
}
END_TEST

START_TEST(amd_capture_instantiates_with_hip_signature)
{
	hc_hal_stream *s;
	hc_hal_graph *g = NULL;
	hc_hal_dptr a, b;
	void *raw;

	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 8, &a), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 8, &b), HC_OK);
	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(HIP_CALL(MallocAsync)(&raw, 8, hc_hip_stream_raw(s)), 0);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_ERR_STATE);
	ck_assert_ptr_nonnull(strstr(last()->message, "(1 alloc, 0 free)"));
	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->copy_d2d(D, s, b, a, 8), HC_OK);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_OK);
	ck_assert_uint_eq(fh_calls("cudaGraphInstantiateWithFlags"), 1); /* hipGraphInstantiate */
	ck_assert_int_eq(H->graph_launch(D, s, g), HC_OK);
	/* g, a, b and s are left to device_close */
}
END_TEST

/* The AMD flavor loads the embedded offload bundle, not the PTX. */
START_TEST(amd_builtin_kernels_load_the_bundle)
{
	builtins_through(fh_calls, fh_lookups, fh_builtin_runs);
	fh_set_error("cuModuleLoadData", hipErrorNoBinaryForGpu, 1);
	{
		hc_hal_module *m;

		ck_assert_int_eq(H->module_load(D, NULL, 0, &m), HC_ERR_DEVICE);
		ck_assert_ptr_nonnull(strstr(last()->message, "AMD code objects for gfx"));
		ck_assert_ptr_nonnull(strstr(last()->message, "gfx90a"));
	}
}
END_TEST

/* ROCm 6: hipMem* under their own names, HIP's error codes. */
START_TEST(amd_vmm_through_hip_names)
{
	struct hc_hal_props p;
	hc_hal_stream *s;
	hc_hal_dptr r;
	char in[32] = "hipMemMap'd bytes", out[32] = "";

	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, G);
	ck_assert_uint_eq(fh_calls("cudaRuntimeGetVersion"), 1); /* hipRuntimeGetVersion */
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + G, G), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, r + 2 * G - 8, in, 8, false), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r + 2 * G - 8, 8, false), HC_OK);
	ck_assert_int_eq(memcmp(out, in, 8), 0);
	ck_assert_uint_eq(fh_calls("cuMemCreate"), 1); /* hipMemCreate */
	fh_set_error("cuMemCreate", hipErrorOutOfMemory, 1);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_ERR_OOM);
	ck_assert(strstr(last()->message, "hipMemCreate") != NULL);
	fh_set_error("cuMemMap", hipErrorInvalidValue, 1);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "fakeInvalidValue"); /* hipGetErrorName */
	ck_assert_int_eq(H->pmem_unmap(D, r + G, G), HC_OK);
	ck_assert_uint_eq(fh_calls("cuMemRelease"), 2); /* the failed map's and this one's */
	/* r and s are left to device_close */
}
END_TEST

/* ROCm before 5.3 laid hipMemAllocationProp out in another order: no
 * virtual memory there, and the runtime is not even asked. */
START_TEST(amd_runtime_before_5_3_has_no_vmm)
{
	struct hc_hal_props p;
	hc_hal_dptr r;

	H->device_close(D);
	D = NULL;
	fh_reset();
	fh_set_version(50200000);
	ck_assert_int_eq(open_with(hip_path, 0, &D), HC_OK);
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	ck_assert_uint_eq(fh_calls("cuMemGetAllocationGranularity"), 0);
	ck_assert_int_eq(H->va_reserve(D, G, &r), HC_ERR_UNSUPPORTED);
}
END_TEST

Suite *hip_amd_suite(void)
{
	Suite *s = suite_create("amd");
	TCase *tc;

	tc = tcase_create("amd");
	tcase_add_checked_fixture(tc, amd_open, amd_close);
	tcase_add_test(tc, amd_props_use_hip_attributes);
	tcase_add_test(tc, amd_errors_are_hip_codes);
	tcase_add_test(tc, amd_pinned_blocks_register_with_hip);
	tcase_add_test(tc, amd_capture_instantiates_with_hip_signature);
	tcase_add_test(tc, amd_builtin_kernels_load_the_bundle);
	tcase_add_test(tc, amd_vmm_through_hip_names);
	tcase_add_test(tc, amd_runtime_before_5_3_has_no_vmm);
	suite_add_tcase(s, tc);
	return s;
}
