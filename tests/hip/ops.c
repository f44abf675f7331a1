/*
 * ops.c - the HIP backend's ops through the fake CUDA runtime: properties,
 * copies and their counters, runtime and driver errors with their codes,
 * an overridden entry, kernel timing, capture, pinned blocks mapped and
 * registered (and the fallbacks when registering fails), and ctl.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/hip/hip_suites.h"

START_TEST(props_come_from_attributes_and_driver_name)
{
	struct hc_hal_props p;

	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_str_eq(p.name, "Fake GPU 0");
	ck_assert_uint_eq(p.total_memory, (uint64_t)80 << 30);
	ck_assert_uint_eq(p.alignment, 1024); /* max(32, 512, 1024) */
	ck_assert(p.integrated);
	ck_assert_str_eq(H->name, "hip");
	ck_assert_uint_eq(H->version, HC_HAL_VERSION);
}
END_TEST

START_TEST(round_trip_and_counters)
{
	hc_hal_stream *s;
	hc_hal_dptr d, d2;
	void *pin;
	char out[64], in[64];
	struct hc_hal_stats st;
	hc_hal_event *ev;
	bool done = false;

	for (int i = 0; i < 64; i++)
		in[i] = (char)(i * 7 + 1);
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 64, &d), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 64, &d2), HC_OK);
	ck_assert_int_eq(H->host_alloc(D, 64, &pin), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, d, in, 64, false), HC_OK);
	ck_assert_int_eq(H->copy_d2d(D, s, d2, d, 64), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, pin, d2, 64, true), HC_OK);
	ck_assert_int_eq(H->event_record(D, s, &ev), HC_OK);
	ck_assert_int_eq(H->event_wait(D, s, ev), HC_OK);
	fake_set_error("cudaEventQuery", 600, 1);
	ck_assert_int_eq(H->event_query(D, ev, &done), HC_OK);
	ck_assert(!done);
	ck_assert_int_eq(H->event_query(D, ev, &done), HC_OK);
	ck_assert(done);
	ck_assert_int_eq(H->event_sync(D, ev), HC_OK);
	ck_assert_int_eq(memcmp(pin, in, 64), 0);
	ck_assert_int_eq(H->copy_d2h(D, s, out, d, 64, false), HC_OK);
	ck_assert_int_eq(memcmp(out, in, 64), 0);
	ck_assert_int_eq(H->copy_h2d(D, s, d, in, 0, false), HC_OK); /* empty: no call */
	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_STATS, &st), HC_OK);
	ck_assert_uint_eq(st.device_allocs, 2);
	ck_assert_uint_eq(st.host_allocs, 1);
	ck_assert_uint_eq(st.device_bytes_live, 128);
	ck_assert_uint_eq(st.copies_h2d, 1);
	ck_assert_uint_eq(st.copies_d2h, 2);
	ck_assert_uint_eq(st.copies_d2d, 1);
	ck_assert_uint_eq(st.bytes_h2d, 64);
	ck_assert_uint_eq(st.bytes_d2h, 128);
	ck_assert_uint_eq(st.stream_waits, 1);
	ck_assert_uint_eq(st.host_waits, 1);
	ck_assert_uint_eq(fake_calls("cudaMemcpyAsync"), 4);
	/* the pageable read waited for its stream */
	ck_assert_uint_eq(fake_calls("cudaStreamSynchronize"), 1);
	ck_assert_int_eq(H->mem_free(D, d), HC_OK);
	ck_assert_int_eq(H->mem_free(D, d), HC_ERR_INVALID); /* freed twice */
	ck_assert_int_eq(H->host_free(D, pin), HC_OK);
	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_STATS, &st), HC_OK);
	ck_assert_uint_eq(st.device_bytes_live, 64);
	ck_assert_uint_eq(st.device_bytes_peak, 128);
	ck_assert_uint_eq(st.device_frees, 1);
	H->event_destroy(D, ev);
	ck_assert_int_eq(H->stream_destroy(D, s), HC_OK);
	/* d2 is left for device_close; fake_close checks nothing lives */
}
END_TEST

START_TEST(runtime_errors_carry_code_and_name)
{
	hc_hal_dptr d;
	void *p;

	fake_set_error("cudaMalloc", 2, 1);
	ck_assert_int_eq(H->mem_alloc(D, 4096, &d), HC_ERR_OOM);
	ck_assert_int_eq(last()->backend_code, 2);
	/* the name comes from the runtime's cudaGetErrorName, through the table */
	ck_assert_str_eq(last()->backend_name, "fakeMemoryAllocation");
	ck_assert_ptr_nonnull(strstr(last()->message, "cudaMalloc"));
	fake_set_error("cudaHostAlloc", 2, 1);
	ck_assert_int_eq(H->host_alloc(D, 4096, &p), HC_ERR_OOM);
	/* a code the runtime cannot name falls back to the static table */
	fake_set_error("cudaMalloc", 719, 1);
	ck_assert_int_eq(H->mem_alloc(D, 4096, &d), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "cudaErrorLaunchFailure");
	ck_assert_int_eq(H->mem_alloc(D, 0, &d), HC_ERR_INVALID);
	ck_assert_int_eq(H->mem_free(D, 0xdead), HC_ERR_INVALID);
	/* the free failing keeps the allocation known */
	ck_assert_int_eq(H->mem_alloc(D, 16, &d), HC_OK);
	fake_set_error("cudaFree", 1, 1);
	ck_assert_int_eq(H->mem_free(D, d), HC_ERR_DEVICE);
	ck_assert_int_eq(H->mem_free(D, d), HC_OK);
}
END_TEST

static int fail_malloc(void **p, size_t n)
{
	(void)p;
	(void)n;
	return 2;
}

START_TEST(overridden_entry_makes_malloc_fail_without_a_gpu)
{
	hc_hal_dptr d;

	ck_assert_int_eq(hc_hip_sym_override("hipMalloc", (void *)fail_malloc), 0);
	ck_assert_int_eq(H->mem_alloc(D, 4096, &d), HC_ERR_OOM);
	ck_assert_uint_eq(fake_calls("cudaMalloc"), 0);
	ck_assert_int_eq(hc_hip_sym_override("hipMalloc", NULL), 0);
	ck_assert_int_eq(H->mem_alloc(D, 4096, &d), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaMalloc"), 1);
	ck_assert_int_eq(H->mem_free(D, d), HC_OK);
}
END_TEST

START_TEST(driver_errors_use_the_driver_table)
{
	hc_hal_module *m;
	hc_hal_function *f;
	hc_hal_stream *s;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 2048, 1, 1 } };

	ck_assert_int_eq(H->module_load(D, "nonsense", 8, &m), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_INVALID_PTX");
	ck_assert_int_eq(H->module_load(D, "FAKE module", 11, &m), HC_OK);
	ck_assert_int_eq(H->function_get(D, m, "nope", &f), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_NOT_FOUND");
	ck_assert_int_eq(H->function_get(D, m, "add_one", &f), HC_OK);
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_ERR_DEVICE);
	ck_assert_int_eq(last()->backend_code, 1);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_INVALID_VALUE");
	l.block[0] = 256;
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_OK);
	H->module_unload(D, m);
	/* the stream is left for device_close */
}
END_TEST

/* Opt-in kernel timing: two timing events per launch outside a capture,
 * read back at the next fence; none without the option (the backend's own
 * events stay timing-free); nothing left at close. */
START_TEST(time_kernels_brackets_launches)
{
	struct hc_hal_open_args a = { .ordinal = 0, .time_kernels = _i == 1 };
	hc_hal_module *m;
	hc_hal_function *f;
	hc_hal_stream *s;
	hc_hal_event *e;
	hc_hal_graph *g = NULL;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	unsigned long want = _i >= 1 ? 3 : 0;

	if (_i == 2) /* the environment instead of the option */
		setenv("HIPCORE_TIME_KERNELS", "1", 1);
	H->device_close(D); /* reopen with the option */
	D = NULL;
	ck_assert_int_eq(fake_live(), 0);
	fake_reset();
	ck_assert_int_eq(H->device_open(&a, &D), HC_OK);
	ck_assert_int_eq(H->module_load(D, "FAKE module", 11, &m), HC_OK);
	ck_assert_int_eq(H->function_get(D, m, "add_one", &f), HC_OK);
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(H->launch(D, s, f, &l), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaEventCreateWithFlags:timing"), 2 * want);
	ck_assert_uint_eq(fake_calls("cudaEventRecord"), 2 * want);
	ck_assert_uint_eq(fake_calls("cudaEventElapsedTime"), 0); /* not before a fence */
	ck_assert_int_eq(H->stream_sync(D, s), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaEventElapsedTime"), want);
	/* a captured launch is not timed */
	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_OK);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_OK);
	H->graph_destroy(D, g);
	ck_assert_uint_eq(fake_calls("cudaEventCreateWithFlags:timing"), 2 * want);
	/* the backend's own events never ask for timing */
	ck_assert_int_eq(H->event_record(D, s, &e), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaEventCreateWithFlags:timing"), 2 * want);
	/* pending at close: destroyed (fake_close checks nothing is live) */
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_OK);
	ck_assert_int_eq(H->event_sync(D, e), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaEventElapsedTime"), want ? want + 1 : 0);
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_OK);
	H->event_destroy(D, e);
	H->module_unload(D, m);
	unsetenv("HIPCORE_TIME_KERNELS");
}
END_TEST

START_TEST(capture_rejects_memory_nodes_and_instantiates_the_rest)
{
	hc_hal_stream *s;
	hc_hal_graph *g = NULL;
	hc_hal_dptr d, d2;
	void *raw = NULL, *pin;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	hc_hal_module *m;
	hc_hal_function *f;

	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 64, &d), HC_OK);
	ck_assert_int_eq(H->mem_alloc(D, 64, &d2), HC_OK);
	ck_assert_int_eq(H->module_load(D, "FAKE", 4, &m), HC_OK);
	ck_assert_int_eq(H->function_get(D, m, "add_one", &f), HC_OK);

	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->capture_begin(D, s), HC_ERR_STATE);
	/* refused before the runtime sees it, so the capture survives */
	ck_assert_int_eq(H->mem_alloc(D, 64, &d), HC_ERR_STATE);
	ck_assert_int_eq(H->host_alloc(D, 64, &pin), HC_ERR_STATE);
	ck_assert_int_eq(H->mem_free(D, d), HC_ERR_STATE);
	ck_assert_int_eq(H->stream_sync(D, s), HC_ERR_STATE);
	ck_assert_int_eq(H->stream_destroy(D, s), HC_ERR_STATE);
	ck_assert_uint_eq(fake_calls("cudaMalloc"), 2);
	/* a memory node recorded behind the backend's back */
	ck_assert_int_eq(HIP_CALL(MallocAsync)(&raw, 64, NULL), 0);
	ck_assert_int_eq(HIP_CALL(FreeAsync)(raw, NULL), 0);
	ck_assert_int_eq(H->copy_d2d(D, s, d2, d, 64), HC_OK);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_ERR_STATE);
	ck_assert_ptr_null(g);
	ck_assert_ptr_nonnull(strstr(last()->message, "2 memory node(s) (1 alloc, 1 free)"));
	ck_assert_uint_eq(fake_calls("cudaGraphInstantiateWithFlags"), 0);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_ERR_STATE); /* not capturing */

	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->copy_d2d(D, s, d2, d, 64), HC_OK);
	ck_assert_int_eq(H->launch(D, s, f, &l), HC_OK);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaGraphNodeGetType"), 3 + 2);
	ck_assert_int_eq(H->graph_launch(D, s, g), HC_OK);
	ck_assert_int_eq(H->graph_launch(D, s, g), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaGraphLaunch"), 2);
	ck_assert_int_eq(H->stream_sync(D, s), HC_OK);
	H->graph_destroy(D, g);

	/* a capture left open is ended by device_close */
	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->mem_free(D, d), HC_ERR_STATE);
}
END_TEST

/* hip_pinned.c: large pinned blocks are our own mapping, registered. */
START_TEST(large_pinned_blocks_are_mapped_and_registered)
{
	void *big, *small, *kept;
	struct hc_hal_stats st;

	ck_assert_int_eq(H->host_alloc(D, HIP_PIN_MAP_MIN + 1, &big), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostRegister"), 1);
	ck_assert_uint_eq(fake_calls("cudaHostAlloc"), 0);
	ck_assert_uint_eq((uintptr_t)big % HIP_PIN_MAP_MIN, 0);
	memset(big, 0x5a, HIP_PIN_MAP_MIN + 1); /* all of it is there */
	ck_assert_int_eq(H->host_alloc(D, HIP_PIN_MAP_MIN - 1, &small), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostAlloc"), 1);
	ck_assert_uint_eq(fake_calls("cudaHostRegister"), 1);
	ck_assert_int_eq(H->host_alloc(D, 9u << 20, &kept), HC_OK); /* several threads touch it */
	memset(kept, 1, 9u << 20);
	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_STATS, &st), HC_OK);
	ck_assert_uint_eq(st.host_allocs, 3);
	ck_assert_uint_eq(st.host_allocs_registered, 2);
	ck_assert_int_eq(H->host_free(D, big), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostUnregister"), 1);
	ck_assert_uint_eq(fake_calls("cudaFreeHost"), 0);
	ck_assert_int_eq(H->host_free(D, small), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaFreeHost"), 1);
	ck_assert_int_eq(H->host_free(D, big), HC_ERR_INVALID); /* already given back */
	/* kept: the device's close unregisters and unmaps it (fake_close
	 * checks that nothing stays registered) */
}
END_TEST

START_TEST(register_failure_falls_back_to_host_alloc_for_good)
{
	void *a, *b;

	fake_set_error("cudaHostRegister", 801, 0); /* cudaErrorNotSupported */
	ck_assert_int_eq(H->host_alloc(D, 4u << 20, &a), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostRegister"), 1);
	ck_assert_uint_eq(fake_calls("cudaHostAlloc"), 1);
	ck_assert_int_eq(H->host_alloc(D, 4u << 20, &b), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostRegister"), 1); /* not tried again */
	ck_assert_uint_eq(fake_calls("cudaHostAlloc"), 2);
	ck_assert_int_eq(H->host_free(D, a), HC_OK);
	ck_assert_int_eq(H->host_free(D, b), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaFreeHost"), 2);
	ck_assert_uint_eq(fake_calls("cudaHostUnregister"), 0);
}
END_TEST

START_TEST(unregister_failure_keeps_the_block_known)
{
	void *p;

	ck_assert_int_eq(H->host_alloc(D, 4u << 20, &p), HC_OK);
	fake_set_error("cudaHostUnregister", 1, 1);
	ck_assert_int_eq(H->host_free(D, p), HC_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(last()->message, "cudaHostUnregister"));
	((volatile char *)p)[0] = 1; /* still mapped */
	ck_assert_int_eq(H->host_free(D, p), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostUnregister"), 2);
}
END_TEST

START_TEST(pinned_register_off_by_environment)
{
	void *p;

	H->device_close(D);
	D = NULL;
	setenv("HIPCORE_PINNED_REGISTER", "0", 1);
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
	unsetenv("HIPCORE_PINNED_REGISTER");
	ck_assert_int_eq(H->host_alloc(D, 64u << 20, &p), HC_OK);
	ck_assert_uint_eq(fake_calls("cudaHostRegister"), 0);
	ck_assert_uint_eq(fake_calls("cudaHostAlloc"), 1);
	ck_assert_int_eq(H->host_free(D, p), HC_OK);
}
END_TEST

START_TEST(ctl_clock_and_unknown_ops)
{
	uint64_t a = 0, b = 0;

	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_NOW_NS, &a), HC_OK);
	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_NOW_NS, &b), HC_OK);
	ck_assert_uint_gt(a, 0);
	ck_assert_uint_ge(b, a);
	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_SET_HOST_NS, &a), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_FAULT, &a), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(H->ctl(D, 999, &a), HC_ERR_UNSUPPORTED);
}
END_TEST

Suite *hip_ops_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc;

	tc = tcase_create("ops");
	tcase_add_checked_fixture(tc, fake_open, fake_close);
	tcase_add_test(tc, props_come_from_attributes_and_driver_name);
	tcase_add_test(tc, round_trip_and_counters);
	tcase_add_test(tc, runtime_errors_carry_code_and_name);
	tcase_add_test(tc, overridden_entry_makes_malloc_fail_without_a_gpu);
	tcase_add_test(tc, driver_errors_use_the_driver_table);
	tcase_add_test(tc, capture_rejects_memory_nodes_and_instantiates_the_rest);
	tcase_add_loop_test(tc, time_kernels_brackets_launches, 0, 3);
	tcase_add_test(tc, large_pinned_blocks_are_mapped_and_registered);
	tcase_add_test(tc, register_failure_falls_back_to_host_alloc_for_good);
	tcase_add_test(tc, unregister_failure_keeps_the_block_known);
	tcase_add_test(tc, pinned_register_off_by_environment);
	tcase_add_test(tc, ctl_clock_and_unknown_ops);
	suite_add_tcase(s, tc);
	return s;
}
