/*
 * check_hal_error.c - the HAL's own error detail (hal/hal_error.c) and how
 * core turns it into hc_last_error (core/status.c): whichever layer spoke
 * last is what the caller reads, the runtime's code and name come through,
 * hc_fail_over keeps the HAL's message as the cause, the detail is per
 * thread, and a backend's failure reaches a public call's caller.
 */
#include <check.h>

#include "tests/runner.h"
#include <pthread.h>
#include <string.h>

#include "core/internal.h"

static hc_error_info last(void)
{
	hc_error_info e;

	memset(&e, 0x5a, sizeof(e));
	ck_assert_int_eq(hc_last_error(&e), HC_OK);
	return e;
}

START_TEST(hal_detail_reaches_last_error)
{
	uint64_t n = hc_hal_error_count();
	hc_error_info e;

	ck_assert_int_eq(hc_hal_error(HC_ERR_DEVICE, 700, "cudaErrorIllegalAddress", "copy %d failed", 3),
			 HC_ERR_DEVICE);
	ck_assert_uint_eq(hc_hal_error_count(), n + 1);
	ck_assert_int_eq(hc_hal_error_last()->status, HC_ERR_DEVICE);
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_DEVICE);
	ck_assert_int_eq(e.backend_code, 700);
	ck_assert_str_eq(e.backend_name, "cudaErrorIllegalAddress");
	ck_assert_str_eq(e.message, "copy 3 failed");
	/* Reading does not consume it. */
	e = last();
	ck_assert_str_eq(e.message, "copy 3 failed");
	/* NULL backend name: "" */
	hc_hal_error(HC_ERR_OOM, 0, NULL, "sim: no room");
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_OOM);
	ck_assert_int_eq(e.backend_code, 0);
	ck_assert_str_eq(e.backend_name, "");
	ck_assert_str_eq(e.message, "sim: no room");
}
END_TEST

START_TEST(latest_layer_wins)
{
	hc_error_info e;

	hc_hal_error(HC_ERR_DEVICE, 1, "hipErrorInvalidValue", "hal first");
	ck_assert_int_eq(hc_fail(HC_ERR_INVALID, "core %s", "second"), HC_ERR_INVALID);
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_INVALID);
	ck_assert_int_eq(e.backend_code, 0);
	ck_assert_str_eq(e.backend_name, "");
	ck_assert_str_eq(e.message, "core second");

	hc_hal_error(HC_ERR_DEVICE, 2, "hipErrorOutOfMemory", "hal third");
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_DEVICE);
	ck_assert_int_eq(e.backend_code, 2);
	ck_assert_str_eq(e.message, "hal third");

	/* Cleared after the HAL spoke: nothing, until the HAL speaks again. */
	hc_error_clear();
	e = last();
	ck_assert_int_eq(e.status, HC_OK);
	ck_assert_str_eq(e.message, "");
	ck_assert_str_eq(e.backend_name, "");
	hc_hal_error(HC_ERR_IO, 0, NULL, "hal fourth");
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_IO);
	ck_assert_str_eq(e.message, "hal fourth");
}
END_TEST

START_TEST(fail_over_keeps_the_hal_cause)
{
	hc_error_info e;

	hc_fail(HC_ERR_INVALID, "an older core message");
	hc_hal_error(HC_ERR_DEVICE, 2, "cudaErrorMemoryAllocation", "cudaMalloc(64 MiB)");
	ck_assert_int_eq(hc_fail_over(HC_ERR_OOM, "hc_alloc: device refused"), HC_ERR_OOM);
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_OOM);
	ck_assert_int_eq(e.backend_code, 2);
	ck_assert_str_eq(e.backend_name, "cudaErrorMemoryAllocation");
	ck_assert_str_eq(e.message, "hc_alloc: device refused (cudaMalloc(64 MiB))");
	/* A second fail_over wraps core's own message, not the HAL's again. */
	hc_fail_over(HC_ERR_OOM, "outer");
	e = last();
	ck_assert_str_eq(e.message, "outer (hc_alloc: device refused (cudaMalloc(64 MiB)))");
}
END_TEST

START_TEST(restore_puts_back_a_saved_detail)
{
	hc_error_info saved, e;

	hc_hal_error(HC_ERR_DEVICE, 719, "cudaErrorLaunchFailure", "fence failed");
	saved = last();
	hc_fail(HC_ERR_STATE, "something in between");
	hc_error_restore(&saved);
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_DEVICE);
	ck_assert_int_eq(e.backend_code, 719);
	ck_assert_str_eq(e.message, "fence failed");
}
END_TEST

static void *other_thread(void *arg)
{
	hc_hal_error(HC_ERR_DEVICE, 99, "elsewhere", "another thread's failure");
	*(uint64_t *)arg = hc_hal_error_count();
	return NULL;
}

START_TEST(detail_is_per_thread)
{
	uint64_t mine, theirs = 0;
	pthread_t t;
	hc_error_info e;

	hc_fail(HC_ERR_INVALID, "this thread's");
	mine = hc_hal_error_count();
	ck_assert_int_eq(pthread_create(&t, NULL, other_thread, &theirs), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(theirs, 1); /* a fresh thread counts from 0 */
	ck_assert_uint_eq(hc_hal_error_count(), mine);
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_INVALID);
	ck_assert_str_eq(e.message, "this thread's");
}
END_TEST

/* The simulator fails to read a profile; the public call's caller reads
 * the backend's message. */
START_TEST(backend_failure_through_the_api)
{
	const char *path = "/nonexistent/hc-check-hal-error.profile";
	hc_device_options o;
	hc_device d;
	hc_error_info e;
	uint64_t n = hc_hal_error_count();

	hc_fail(HC_ERR_STATE, "stale detail");
	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.profile = path;
	ck_assert_int_eq(hc_device_open("sim", &o, &d), HC_ERR_IO);
	ck_assert_uint_gt(hc_hal_error_count(), n);
	e = last();
	ck_assert_int_eq(e.status, HC_ERR_IO);
	ck_assert_ptr_nonnull(strstr(e.message, path));
}
END_TEST

static Suite *hal_error_suite(void)
{
	Suite *s = suite_create("hal_error");
	TCase *tc = tcase_create("detail");

	tcase_add_test(tc, hal_detail_reaches_last_error);
	tcase_add_test(tc, latest_layer_wins);
	tcase_add_test(tc, fail_over_keeps_the_hal_cause);
	tcase_add_test(tc, restore_puts_back_a_saved_detail);
	tcase_add_test(tc, detail_is_per_thread);
	tcase_add_test(tc, backend_failure_through_the_api);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(hal_error_suite);
