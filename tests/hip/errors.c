/*
 * errors.c - the runtime's error tables: every entry follows the mapping
 * rule, codes translate explicitly where CUDA and HIP differ, and an
 * unknown code is a device error carrying its number.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/hip/hip_suites.h"

/* ------------------------------------------------------------ error tables */

static const struct hip_err_entry *const tables[] = {
	hip_err_table_hip, hip_err_table_cudart, hip_err_table_cudrv,
};

/* The mapping rule, written independently of the tables. */
static hc_status rule(int code, const char *name)
{
	if (code == 0)
		return HC_OK;
	if (strstr(name, "OutOfMemory") || strstr(name, "MemoryAllocation") ||
	    strstr(name, "OUT_OF_MEMORY"))
		return HC_ERR_OOM;
	if (code >= 900 && code <= 908)
		return HC_ERR_STATE;
	if (code == 35 || code == 36 || code == 100 || code == 803 || code == 34)
		return HC_ERR_NO_RUNTIME;
	return HC_ERR_DEVICE;
}

START_TEST(every_table_entry_follows_the_rule)
{
	for (int t = 0; t < 3; t++) {
		int n = 0;

		for (const struct hip_err_entry *e = tables[t]; e->name; e++, n++) {
			ck_assert_msg(e->status == rule(e->code, e->name), "%s", e->name);
			ck_assert_int_eq(hip_err_status((enum hip_space)t, e->code), e->status);
			ck_assert_ptr_eq(hip_err_lookup((enum hip_space)t, e->code), e);
			for (const struct hip_err_entry *f = e + 1; f->name; f++)
				ck_assert_msg(f->code != e->code, "duplicate %d", e->code);
		}
		ck_assert_int_ge(n, 40);
	}
}
END_TEST

START_TEST(tables_translate_explicitly_where_spaces_differ)
{
	ck_assert_str_eq(hip_err_lookup(HIP_SPACE_HIP, 201)->name, "hipErrorInvalidContext");
	ck_assert_str_eq(hip_err_lookup(HIP_SPACE_CUDART, 201)->name,
			 "cudaErrorDeviceUninitialized");
	ck_assert_str_eq(hip_err_lookup(HIP_SPACE_CUDRV, 201)->name, "CUDA_ERROR_INVALID_CONTEXT");
	ck_assert_str_eq(hip_err_lookup(HIP_SPACE_HIP, 500)->name, "hipErrorNotFound");
	ck_assert_str_eq(hip_err_lookup(HIP_SPACE_CUDART, 500)->name, "cudaErrorSymbolNotFound");
	ck_assert_ptr_nonnull(hip_err_lookup(HIP_SPACE_HIP, 1052));
	ck_assert_ptr_null(hip_err_lookup(HIP_SPACE_CUDART, 1052));
	ck_assert_int_eq(hip_err_status(HIP_SPACE_CUDART, 2), HC_ERR_OOM);
	ck_assert_int_eq(hip_err_status(HIP_SPACE_HIP, 2), HC_ERR_OOM);
	ck_assert_int_eq(hip_err_status(HIP_SPACE_CUDRV, 2), HC_ERR_OOM);
	ck_assert_int_eq(hip_err_status(HIP_SPACE_CUDART, 900), HC_ERR_STATE);
	ck_assert_int_eq(hip_err_status(HIP_SPACE_HIP, 901), HC_ERR_STATE);
	ck_assert_int_eq(hip_err_status(HIP_SPACE_CUDART, 719), HC_ERR_DEVICE);
}
END_TEST

START_TEST(unknown_code_is_device_error_with_its_number)
{
	hc_hip_runtime_reset(); /* static names only */
	for (int t = 0; t < 3; t++) {
		ck_assert_int_eq(hip_err_fail((enum hip_space)t, 123456, "someCall"), HC_ERR_DEVICE);
		ck_assert_int_eq(last()->backend_code, 123456);
		ck_assert_ptr_nonnull(strstr(last()->message, "123456"));
		ck_assert_ptr_nonnull(strstr(last()->message, "someCall"));
	}
	ck_assert_int_eq(hip_err_fail(HIP_SPACE_CUDART, 719, "cudaStreamSynchronize"),
			 HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "cudaErrorLaunchFailure");
	ck_assert_int_eq(last()->backend_code, 719);
}
END_TEST

Suite *hip_errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc;

	tc = tcase_create("errors");
	tcase_add_test(tc, every_table_entry_follows_the_rule);
	tcase_add_test(tc, tables_translate_explicitly_where_spaces_differ);
	tcase_add_test(tc, unknown_code_is_device_error_with_its_number);
	suite_add_tcase(s, tc);
	return s;
}
