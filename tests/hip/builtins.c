/*
 * builtins.c - the built-in kernels on the HIP backend over the fake CUDA
 * runtime: loaded from the PTX image and run, and a load failure naming
 * the image.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/hip/hip_suites.h"

void builtins_through(unsigned long (*calls)(const char *),
		      unsigned long (*lookups)(const char *),
		      unsigned long (*runs)(void))
{
	hc_hal_module *m;
	hc_hal_function *fill, *copy, *add, *f;
	hc_hal_stream *s;
	hc_hal_dptr a, b, out, info;
	uint32_t av[8], bv[8], ov[8];
	uint64_t iw = 0x7u | (uint64_t)1 << 32; /* fill: value 7, width 1 */
	hc_hal_dptr dp[3];
	uint64_t by[3];
	void *args[3] = { &dp[0], &dp[1], &dp[2] };
	struct hc_hal_launch l = { .grid = { 2, 1, 1 }, .block = { 32, 1, 1 }, .args = args,
				   .arg_dptr = dp, .arg_bytes = by };
	unsigned char bytes[32];

	ck_assert_int_eq(H->module_load(D, NULL, 0, &m), HC_OK);
	ck_assert_uint_eq(calls("cuModuleLoadData"), 1);
	ck_assert_int_eq(H->function_get(D, m, "fill", &fill), HC_OK);
	ck_assert_int_eq(H->function_get(D, m, "copy", &copy), HC_OK);
	ck_assert_int_eq(H->function_get(D, m, "add", &add), HC_OK);
	/* a name outside the set is refused without asking the runtime */
	ck_assert_int_eq(H->function_get(D, m, "add_one", &f), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last()->message, "fill, copy, add"));
	ck_assert_uint_eq(calls("cuModuleGetFunction"), 3);
	ck_assert_uint_eq(lookups("fill"), 1);
	ck_assert_uint_eq(lookups("copy"), 1);
	ck_assert_uint_eq(lookups("add"), 1);
	ck_assert_uint_eq(lookups("add_one"), 0);

	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 32, &a), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 32, &b), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 32, &out), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 8, &info), HC_OK);
	for (int i = 0; i < 8; i++) {
		av[i] = 0xfffffff0u + (uint32_t)i;
		bv[i] = 0x20u * (uint32_t)i;
	}
	ck_assert_int_eq(H->copy_h2d(D, s, a, av, 32, false), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, b, bv, 32, false), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, info, &iw, 8, false), HC_OK);

	/* add(a, b, out) over 7 elements and a stray byte: the 8th is left */
	memset(ov, 0xee, sizeof(ov));
	ck_assert_int_eq(H->copy_h2d(D, s, out, ov, 32, false), HC_OK);
	dp[0] = a, dp[1] = b, dp[2] = out;
	by[0] = 32, by[1] = 32, by[2] = 29;
	l.n_args = 3;
	ck_assert_int_eq(H->launch(D, s, add, &l), HC_OK);
	ck_assert_uint_eq(runs(), 1);
	ck_assert_int_eq(H->copy_d2h(D, s, ov, out, 32, false), HC_OK);
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(ov[i], av[i] + bv[i]); /* wrapping */
	ck_assert_uint_eq(ov[7], 0xeeeeeeeeu);

	/* fill(out, info) with width 1, then copy(out, a) of 5 bytes */
	dp[0] = out, dp[1] = info;
	by[0] = 13, by[1] = 8;
	l.n_args = 2;
	ck_assert_int_eq(H->launch(D, s, fill, &l), HC_OK);
	dp[0] = out, dp[1] = a;
	by[0] = 32, by[1] = 5;
	ck_assert_int_eq(H->launch(D, s, copy, &l), HC_OK);
	ck_assert_uint_eq(runs(), 3);
	ck_assert_int_eq(H->copy_d2h(D, s, bytes, a, 32, false), HC_OK);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(bytes[i], 7);
	ck_assert_int_eq(memcmp(bytes + 8, (unsigned char *)av + 8, 24), 0);
	ck_assert_uint_eq(bytes[5], ((unsigned char *)av)[5]);

	/* ranges the kernel cannot take: refused before the runtime */
	dp[0] = a, dp[1] = b, dp[2] = out;
	by[0] = 8, by[1] = 32, by[2] = 32;
	l.n_args = 3;
	ck_assert_int_eq(H->launch(D, s, add, &l), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last()->message, "add: a and b must bind at least out's 32 bytes"));
	l.n_args = 1;
	ck_assert_int_eq(H->launch(D, s, fill, &l), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last()->message, "kernel 'fill' takes 2 parameters, got 1"));
	l.n_args = 2;
	l.arg_dptr = NULL;
	ck_assert_int_eq(H->launch(D, s, copy, &l), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last()->message, "need arg_dptr"));
	ck_assert_uint_eq(calls("cuLaunchKernel"), 3);
	ck_assert_uint_eq(runs(), 3);
	H->module_unload(D, m);
	ck_assert_uint_eq(calls("cuModuleUnload"), 1);
	/* the allocations and the stream are left for device_close */
}

START_TEST(builtin_kernels_load_and_run_on_nvidia)
{
	builtins_through(fake_calls, fake_lookups, fake_builtin_runs);
}
END_TEST

/* The image that failed to load is named in the message. */
START_TEST(builtin_kernels_load_failure_names_the_image)
{
	hc_hal_module *m;

	fake_set_error("cuModuleLoadData", 222, 1); /* CUDA_ERROR_UNSUPPORTED_PTX_VERSION */
	ck_assert_int_eq(H->module_load(D, NULL, 0, &m), HC_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(last()->message, "PTX for compute_80"));
	ck_assert_int_eq(last()->backend_code, 222);
}
END_TEST

Suite *hip_builtins_suite(void)
{
	Suite *s = suite_create("builtins");
	TCase *tc;

	tc = tcase_create("ops");
	tcase_add_checked_fixture(tc, fake_open, fake_close);
	tcase_add_test(tc, builtin_kernels_load_and_run_on_nvidia);
	tcase_add_test(tc, builtin_kernels_load_failure_names_the_image);
	suite_add_tcase(s, tc);
	return s;
}
