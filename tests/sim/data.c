/*
 * data.c - data mode: bytes round-trip, the built-in kernels fill, copy and
 * add exactly (arguments checked only in data mode), modules' rules, and a
 * module's unload waiting for its graphs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Data mode                                                           */
/* ------------------------------------------------------------------ */

START_TEST(data_round_trip)
{
	struct kfix k;
	unsigned char src[1000], mid[1000], out[1000];
	hc_hal_dptr a, b;
	void *pin;

	kfix_open(&k, true);
	for (int i = 0; i < 1000; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	a = dev_with(&k, src, 1000);
	b = dev_with(&k, NULL, 1000);
	ck_assert_int_eq(ops->copy_d2d(k.dev, k.s, b + 100, a, 900), HC_OK);
	read_back(&k, mid, b, 1000);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(mid[i], 0); /* fresh device memory reads as zero */
	ck_assert_mem_eq(mid + 100, src, 900);
	ck_assert_int_eq(ops->host_alloc(k.dev, 1000, &pin), HC_OK);
	ck_assert_uint_eq((uintptr_t)pin % 64, 0);
	ck_assert_int_eq(ops->copy_d2h(k.dev, k.s, pin, a, 1000, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	memcpy(out, pin, 1000);
	ck_assert_mem_eq(out, src, 1000);
	ck_assert_int_eq(ops->host_free(k.dev, pin), HC_OK);
	ops->device_close(k.dev);
}
END_TEST

/* Without data mode kernels only cost time: no count or range to check. */
START_TEST(kernel_args_unchecked_without_data_mode)
{
	struct kfix k;
	hc_hal_dptr args[1] = { 0x1234 };
	uint64_t bytes[1] = { 1u << 30 };

	kfix_open(&k, false);
	ck_assert_int_eq(run_kernel(&k, "fill", 1, args, bytes), HC_OK);
	ck_assert_int_eq(run_kernel(&k, "add", 1, args, bytes), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_uint_eq(stats(k.dev).launches, 2);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(kernel_fill_words_and_bytes)
{
	struct kfix k;
	uint32_t info4[1] = { 0xa1b2c3d4u }, info1[2] = { 0x1234567fu, 1 };
	unsigned char out[10];
	const unsigned char want4[10] = { 0xd4, 0xc3, 0xb2, 0xa1, 0xd4, 0xc3, 0xb2, 0xa1, 0xd4, 0xc3 };
	hc_hal_dptr dst, i4, i1, args[2];
	uint64_t bytes[2];

	kfix_open(&k, true);
	dst = dev_with(&k, NULL, 10);
	i4 = dev_with(&k, info4, sizeof(info4));
	i1 = dev_with(&k, info1, sizeof(info1));
	args[0] = dst, args[1] = i4, bytes[0] = 10, bytes[1] = 4;
	ck_assert_int_eq(run_kernel(&k, "fill", 2, args, bytes), HC_OK);
	read_back(&k, out, dst, 10);
	ck_assert_mem_eq(out, want4, 10);
	args[1] = i1, bytes[0] = 6, bytes[1] = 8;
	ck_assert_int_eq(run_kernel(&k, "fill", 2, args, bytes), HC_OK);
	read_back(&k, out, dst, 10);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(out[i], 0x7f);
	ck_assert_mem_eq(out + 6, want4 + 6, 4);
	/* info too small, wrong count: refused at launch */
	bytes[1] = 2;
	ck_assert_int_eq(run_kernel(&k, "fill", 2, args, bytes), HC_ERR_INVALID);
	ck_assert_int_eq(run_kernel(&k, "fill", 1, args, bytes), HC_ERR_INVALID);
	{	/* extra trailing parameters (hc_launch's info pointer) are accepted */
		hc_hal_dptr a3[3] = { dst, i4, i1 };
		uint64_t b3[3] = { 2, 4, 8 };
		ck_assert_int_eq(run_kernel(&k, "fill", 3, a3, b3), HC_OK);
		read_back(&k, out, dst, 10);
		ck_assert_mem_eq(out, want4, 2);
		ck_assert_uint_eq(out[2], 0x7f);
		ck_assert_uint_eq(out[3], 0x7f);
	}
	ck_assert_uint_eq(stats(k.dev).launches, 3);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(kernel_copy_and_add)
{
	struct kfix k;
	uint32_t a[5] = { 1, 2, 3, 0xffffffffu, 100 }, b[5] = { 10, 20, 30, 2, 7 }, out[5];
	hc_hal_dptr da, db, dout, args[3];
	uint64_t bytes[3];

	kfix_open(&k, true);
	da = dev_with(&k, a, sizeof(a));
	db = dev_with(&k, b, sizeof(b));
	dout = dev_with(&k, NULL, sizeof(out));
	args[0] = da, args[1] = db, args[2] = dout;
	bytes[0] = bytes[1] = bytes[2] = sizeof(a);
	ck_assert_int_eq(run_kernel(&k, "add", 3, args, bytes), HC_OK);
	read_back(&k, out, dout, sizeof(out));
	ck_assert_uint_eq(out[0], 11);
	ck_assert_uint_eq(out[1], 22);
	ck_assert_uint_eq(out[2], 33);
	ck_assert_uint_eq(out[3], 1); /* wraps */
	ck_assert_uint_eq(out[4], 107);
	/* copy(src, dst): 8 bytes of a into the start of out */
	args[0] = da, args[1] = dout, bytes[0] = 20, bytes[1] = 8;
	ck_assert_int_eq(run_kernel(&k, "copy", 2, args, bytes), HC_OK);
	read_back(&k, out, dout, sizeof(out));
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(out[2], 33);
	/* src binding smaller than dst, a range past its allocation */
	bytes[0] = 4;
	ck_assert_int_eq(run_kernel(&k, "copy", 2, args, bytes), HC_ERR_INVALID);
	bytes[0] = 260; /* da is 20 bytes rounded to 256 */
	ck_assert_int_eq(run_kernel(&k, "copy", 2, args, bytes), HC_ERR_INVALID);
	ck_assert(last_error_has("runs past its allocation"));
	/* data mode needs the bindings */
	ck_assert_int_eq(run_kernel(&k, "add", 3, NULL, NULL), HC_ERR_INVALID);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(kernels_without_data_mode_only_cost_time)
{
	struct kfix k;
	hc_hal_function *fn;
	struct hc_hal_launch l = { .duration_hint_ns = 0 };
	uint64_t t;

	kfix_open(&k, false);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "copy", &fn), HC_OK);
	t = now(k.dev);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_uint_eq(now(k.dev), t + 1090 + 500 + 500); /* call, overhead + default */
	ck_assert_uint_eq(stats(k.dev).launches, 1);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(module_rules)
{
	struct kfix k;
	hc_hal_module *m = NULL;
	hc_hal_function *fn = NULL;
	static const char image[16] = "not a module";

	kfix_open(&k, false);
	ck_assert_int_eq(ops->module_load(k.dev, image, sizeof(image), &m), HC_ERR_UNSUPPORTED);
	ck_assert(last_error_has("built-in"));
	ck_assert_ptr_null(m);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "gemm", &fn), HC_ERR_INVALID);
	ck_assert(last_error_has("gemm"));
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, NULL, &fn), HC_ERR_INVALID);
	ck_assert_int_eq(ops->module_load(k.dev, NULL, 0, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->launch(k.dev, k.s, NULL, &(struct hc_hal_launch){ 0 }), HC_ERR_INVALID);
	ops->module_unload(k.dev, k.mod);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(module_unload_waits_for_its_graphs)
{
	struct kfix k;
	hc_hal_function *fn, *f2;
	hc_hal_graph *g;
	hc_hal_dptr d, info, args[2];
	uint64_t bytes[2] = { 4, 4 };
	uint32_t v = 0x0a0b0c0du, out = 0;
	struct hc_hal_launch l = { .n_args = 2, .arg_dptr = args, .arg_bytes = bytes };

	kfix_open(&k, true);
	d = dev_with(&k, NULL, 4);
	info = dev_with(&k, &v, 4);
	args[0] = d, args[1] = info;
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->capture_begin(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->capture_end(k.dev, k.s, &g), HC_OK);
	ops->module_unload(k.dev, k.mod);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &f2), HC_ERR_INVALID);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_ERR_INVALID);
	/* the graph still runs its kernel */
	ck_assert_int_eq(ops->graph_launch(k.dev, k.s, g), HC_OK);
	read_back(&k, &out, d, 4);
	ck_assert_uint_eq(out, 0x0a0b0c0du);
	ops->graph_destroy(k.dev, g); /* frees the module (valgrind checks) */
	/* a capture left open at close releases its kernel ops and module */
	ck_assert_int_eq(ops->module_load(k.dev, NULL, 0, &k.mod), HC_OK);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->capture_begin(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ops->module_unload(k.dev, k.mod);
	ops->device_close(k.dev);
}
END_TEST

Suite *sim_data_suite(void)
{
	Suite *s = suite_create("data");
	TCase *tc;

	tc = tcase_create("data");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, data_round_trip);
	tcase_add_test(tc, kernel_fill_words_and_bytes);
	tcase_add_test(tc, kernel_args_unchecked_without_data_mode);
	tcase_add_test(tc, kernel_copy_and_add);
	tcase_add_test(tc, kernels_without_data_mode_only_cost_time);
	tcase_add_test(tc, module_rules);
	tcase_add_test(tc, module_unload_waits_for_its_graphs);
	suite_add_tcase(s, tc);
	return s;
}
