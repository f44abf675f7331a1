/*
 * check_trace.c - the probe module loader's choice of file from
 * HIPCORE_LTTNG, and that HC_TRACE call sites run with the module absent
 * (every tracepoint off, nothing evaluated).  Built only with LTTng.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/hipcore_trace.h"
#include "trace/hipcore_trace_load.h"
#include "tests/runner.h"

START_TEST(module_path)
{
	ck_assert_str_eq(hc_trace_module_path(NULL), HIPCORE_LTTNG_MODULE);
	ck_assert_str_eq(hc_trace_module_path(""), HIPCORE_LTTNG_MODULE);
	ck_assert_str_eq(hc_trace_module_path("1"), HIPCORE_LTTNG_MODULE);
	ck_assert_ptr_null(hc_trace_module_path("0"));
	ck_assert_ptr_null(hc_trace_module_path("yes")); /* not a path: off */
	ck_assert_str_eq(hc_trace_module_path("/x/y.so"), "/x/y.so");
	ck_assert_str_eq(hc_trace_module_path("./y.so"), "./y.so");
	ck_assert_ptr_nonnull(strstr(HIPCORE_LTTNG_MODULE, "/libhipcore-lttng.so"));
}
END_TEST

static int evaluated;

static uint64_t touch(void)
{
	evaluated++;
	return 1;
}

START_TEST(off_without_module)
{
	uint64_t t0;

	/* module_off() made sure HIPCORE_LTTNG=0: nothing was loaded. */
	ck_assert(!hc_trace_provider_loaded());
	ck_assert(!HC_TRACE_ENABLED(alloc));
	t0 = HC_TRACE_T0(alloc);
	ck_assert_uint_eq(t0, 0);
	HC_TRACE(alloc, touch(), touch(), 4096, 0, hc_trace_since_ns(t0));
	ck_assert_int_eq(evaluated, 0); /* arguments not evaluated when off */
	ck_assert_uint_eq(hc_trace_since_ns(0), 0);
	ck_assert_uint_gt(hc_trace_now_ns(), 0);
}
END_TEST

/* The loader runs before main: re-execute with the module turned off. */
static int module_off(int argc, char **argv)
{
	const char *v = getenv("HIPCORE_LTTNG");

	if (!v || strcmp(v, "0") != 0) {
		setenv("HIPCORE_LTTNG", "0", 1);
		execv("/proc/self/exe", argv);
		return EXIT_FAILURE;
	}
	(void)argc;
	return 0;
}

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("loader");

	tcase_add_test(tc, module_path);
	tcase_add_test(tc, off_without_module);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM_HOOKED(module_off, NULL, trace_suite);
