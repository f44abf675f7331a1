/*
 * check_hip.c - the HIP backend without a GPU: its loader, its error tables,
 * and every op driven through a fake CUDA runtime (tests/fake_cudart.c).
 *
 * HIPCORE_HIP_LIBRARY picks the library; hc_hip_runtime_reset() unloads it
 * between cases so each case loads what it names (CK_FORK=no works too).
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "hal/fault.h"
#include "hal/hip/hip_rt.h"
#include "tests/runner.h"

static char fake_path[1024], partial_path[1024], hip_path[1024];
static void *fake; /* our own handle on the fake: keeps its state across reloads */

static int (*fake_set_error)(const char *, int, int);
static unsigned long (*fake_calls)(const char *);
static long (*fake_live)(void);
static void (*fake_set_devices)(int);
static void (*fake_reset)(void);
static void (*fake_set_attr)(int, int);
static unsigned long (*fake_lookups)(const char *);
static unsigned long (*fake_builtin_runs)(void);
static void (*fake_set_vmm)(uint64_t, uint64_t);
static void (*fake_set_version)(int);

static void paths_init(void)
{
	const char *b = getenv("top_builddir");

	snprintf(fake_path, sizeof(fake_path), "%s/tests/.libs/fake_cudart.so", b ? b : ".");
	snprintf(partial_path, sizeof(partial_path), "%s/tests/.libs/fake_cudart_partial.so",
		 b ? b : ".");
	snprintf(hip_path, sizeof(hip_path), "%s/tests/.libs/fake_hip.so", b ? b : ".");
}

static const hc_error_info *last(void)
{
	static hc_error_info e;

	hc_last_error(&e);
	return &e;
}

static hc_status open_with(const char *lib, int ordinal, hc_hal_dev **dev)
{
	struct hc_hal_open_args a = { .ordinal = ordinal };

	hc_hip_runtime_reset();
	if (lib)
		setenv("HIPCORE_HIP_LIBRARY", lib, 1);
	else
		unsetenv("HIPCORE_HIP_LIBRARY");
	return hc_hip_ops()->device_open(&a, dev);
}

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

/* -------------------------------------------------- ops through the fake */

static const struct hc_hal_ops *H;
static hc_hal_dev *D;

static void fake_open(void)
{
	fake_reset();
	H = hc_hip_ops();
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
}

static void fake_close(void)
{
	if (D)
		H->device_close(D);
	D = NULL;
	ck_assert_int_eq(fake_live(), 0);
	hc_hip_runtime_reset();
}

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
static void builtins_through(unsigned long (*calls)(const char *),
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

/* ---------------------------------------------------- virtual memory */

#define G (2ull << 20) /* the fake's granule */

static struct hc_hal_stats hal_stats(void)
{
	struct hc_hal_stats st;

	ck_assert_int_eq(H->ctl(D, HC_HAL_CTL_STATS, &st), HC_OK);
	return st;
}

/* Written across a granule boundary, grown by a second mapping, copied
 * across the mappings' seam: the bytes are the runtime's memory (the fake
 * maps a memfd per cuMemCreate), so they prove the calls and their order. */
START_TEST(vmm_grow_copy_across_mappings_and_shrink)
{
	struct hc_hal_props p;
	struct hc_hal_stats st;
	hc_hal_stream *s;
	hc_hal_dptr r;
	unsigned char *src = malloc(G), *out = malloc(G);
	long live0 = fake_live();

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(out);
	for (uint64_t i = 0; i < G; i++)
		src[i] = (unsigned char)(i * 13 + 5);
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, G);
	ck_assert_uint_eq(fake_calls("cuMemGetAllocationGranularity"), 1); /* at open */
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 8 * G, &r), HC_OK);
	ck_assert_uint_eq(r % G, 0);
	ck_assert_int_eq(H->pmem_map(D, r, 2 * G), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, r + G / 2, src, G, false), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + 2 * G, G), HC_OK);
	ck_assert_int_eq(H->copy_d2d(D, s, r + 3 * G / 2, r + G / 2, G), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r + 3 * G / 2, G, false), HC_OK);
	ck_assert_int_eq(memcmp(out, src, G), 0);
	ck_assert_uint_eq(fake_calls("cuMemCreate"), 2);
	ck_assert_uint_eq(fake_calls("cuMemMap"), 2);
	ck_assert_uint_eq(fake_calls("cuMemSetAccess"), 2);
	st = hal_stats();
	ck_assert_uint_eq(st.pmem_maps, 2);
	ck_assert_uint_eq(st.device_bytes_live, 3 * G);
	ck_assert_uint_eq(st.device_bytes_peak, 3 * G);
	ck_assert_uint_eq(st.va_bytes_reserved, 8 * G);
	ck_assert_int_eq(fake_live(), live0 + 1 + 1 + 2); /* stream, reservation, two handles */
	/* one unmap over both: each unmapped and released */
	ck_assert_int_eq(H->pmem_unmap(D, r, 3 * G), HC_OK);
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 2);
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 2);
	st = hal_stats();
	ck_assert_uint_eq(st.pmem_unmaps, 2);
	ck_assert_uint_eq(st.device_bytes_live, 0);
	ck_assert_int_eq(fake_live(), live0 + 2);
	/* mapped again: fresh memory */
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r, 64, false), HC_OK);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(out[i], 0);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_OK);
	ck_assert_int_eq(H->va_release(D, r, 8 * G), HC_OK);
	ck_assert_uint_eq(fake_calls("cuMemAddressFree"), 1);
	ck_assert_uint_eq(hal_stats().va_bytes_reserved, 0);
	ck_assert_int_eq(H->stream_destroy(D, s), HC_OK);
	ck_assert_int_eq(fake_live(), live0);
	free(src);
	free(out);
}
END_TEST

/* The contract's rules are checked before the runtime sees a call. */
START_TEST(vmm_refusals_reach_no_runtime_call)
{
	hc_hal_dptr r, x;

	ck_assert_int_eq(H->va_reserve(D, 8 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + G, 2 * G), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, G + 4096, &x), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r + 4096, G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r + 8 * G, G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r + 7 * G, 2 * G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_map(D, r, 2 * G), HC_ERR_INVALID);
	ck_assert(strstr(last()->message, "overlaps a mapping") != NULL);
	ck_assert_int_eq(H->pmem_unmap(D, r + G, G), HC_ERR_INVALID);
	ck_assert(strstr(last()->message, "not a run of whole") != NULL);
	ck_assert_int_eq(H->pmem_unmap(D, r + 2 * G, G), HC_ERR_INVALID);
	ck_assert_int_eq(H->pmem_unmap(D, r, 3 * G), HC_ERR_INVALID);
	ck_assert_int_eq(H->va_release(D, r, 8 * G), HC_ERR_INVALID);
	ck_assert(strstr(last()->message, "still has 1 mapping(s)") != NULL);
	ck_assert_int_eq(H->va_release(D, r, 4 * G), HC_ERR_INVALID);
	ck_assert_uint_eq(fake_calls("cuMemCreate"), 1);
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 0);
	ck_assert_uint_eq(fake_calls("cuMemAddressReserve"), 1);
	ck_assert_uint_eq(fake_calls("cuMemAddressFree"), 0);
	/* the mapping and the reservation are left to device_close */
}
END_TEST

/* Out of memory on map: HC_ERR_OOM in the driver's words, the reservation
 * usable, nothing mapped before it lost. */
START_TEST(vmm_map_oom_leaves_the_reservation_usable)
{
	hc_hal_stream *s;
	hc_hal_dptr r;
	char in[64] = "kept across a refused map", out[64] = "";

	fake_set_vmm(G, 4 * G);
	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 16 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r, 3 * G), HC_OK);
	ck_assert_int_eq(H->copy_h2d(D, s, r, in, sizeof(in), false), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + 3 * G, 2 * G), HC_ERR_OOM);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_OUT_OF_MEMORY");
	ck_assert(strstr(last()->message, "cuMemCreate") != NULL);
	ck_assert_uint_eq(hal_stats().device_bytes_live, 3 * G);
	ck_assert_int_eq(H->pmem_map(D, r + 3 * G, G), HC_OK);
	ck_assert_int_eq(H->copy_d2h(D, s, out, r, sizeof(out), false), HC_OK);
	ck_assert_str_eq(out, in);
	ck_assert_int_eq(H->pmem_unmap(D, r, 3 * G), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r + 4 * G, 2 * G), HC_OK); /* room again */
	ck_assert_int_eq(H->stream_destroy(D, s), HC_OK);
}
END_TEST

/* A runtime call failing part way undoes what came before it. */
START_TEST(vmm_runtime_failures_undo_their_steps)
{
	hc_hal_dptr r;
	long live0;

	ck_assert_int_eq(H->va_reserve(D, 8 * G, &r), HC_OK);
	live0 = fake_live();
	fake_set_error("cuMemMap", 1, 1);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_ERR_DEVICE);
	ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_INVALID_VALUE");
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 1); /* the handle went back */
	ck_assert_int_eq(fake_live(), live0);
	fake_set_error("cuMemSetAccess", 1, 1);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_ERR_DEVICE);
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 1);
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 2);
	ck_assert_int_eq(fake_live(), live0);
	ck_assert_uint_eq(hal_stats().pmem_maps, 0);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK); /* the range is free */
	ck_assert_int_eq(H->pmem_map(D, r + G, G), HC_OK);
	/* an unmap over two mappings whose first fails: nothing changed */
	fake_set_error("cuMemUnmap", 1, 1);
	ck_assert_int_eq(H->pmem_unmap(D, r, 2 * G), HC_ERR_DEVICE);
	ck_assert_uint_eq(hal_stats().device_bytes_live, 2 * G);
	/* whose first release fails: the first is unmapped, the second
	 * stays, and the handle is released at close (fake_close: nothing
	 * of the runtime's left) */
	{
		unsigned long before = fake_calls("cuMemUnmap");

		fake_set_error("cuMemRelease", 400, 1);
		ck_assert_int_eq(H->pmem_unmap(D, r, 2 * G), HC_ERR_DEVICE);
		ck_assert_str_eq(last()->backend_name, "CUDA_ERROR_INVALID_HANDLE");
		ck_assert_uint_eq(fake_calls("cuMemUnmap"), before + 1);
	}
	ck_assert_uint_eq(hal_stats().device_bytes_live, G);
	ck_assert_uint_eq(hal_stats().pmem_unmaps, 1);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_ERR_INVALID); /* gone already */
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK);             /* and free to map */
	ck_assert_int_eq(H->pmem_unmap(D, r, 2 * G), HC_OK);
	ck_assert_int_eq(H->va_release(D, r, 8 * G), HC_OK);
	/* the reservation gone, the orphaned handle still the runtime's */
	ck_assert_int_eq(fake_live(), live0);
}
END_TEST

START_TEST(vmm_not_while_capturing)
{
	hc_hal_stream *s;
	hc_hal_graph *g = NULL;
	hc_hal_dptr r, x;

	ck_assert_int_eq(H->stream_create(D, &s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r, G), HC_OK);
	ck_assert_int_eq(H->capture_begin(D, s), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, G, &x), HC_ERR_STATE);
	ck_assert_int_eq(H->pmem_map(D, r + G, G), HC_ERR_STATE);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_ERR_STATE);
	ck_assert_int_eq(H->va_release(D, r, 4 * G), HC_ERR_STATE);
	ck_assert_int_eq(H->capture_end(D, s, &g), HC_OK); /* the capture survived */
	H->graph_destroy(D, g);
	ck_assert_uint_eq(fake_calls("cuMemCreate"), 1);
	ck_assert_uint_eq(fake_calls("cuMemAddressReserve"), 1);
	ck_assert_int_eq(H->pmem_unmap(D, r, G), HC_OK);
}
END_TEST

/* No virtual memory: a runtime that cannot say its granularity, or the
 * environment's HIPCORE_VMM=0. */
START_TEST(vmm_absent_is_granularity_zero)
{
	struct hc_hal_props p;
	hc_hal_dptr r;

	H->device_close(D);
	D = NULL;
	fake_set_vmm(0, 0);
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	ck_assert_int_eq(H->va_reserve(D, G, &r), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(H->pmem_map(D, G, G), HC_ERR_UNSUPPORTED);
	H->device_close(D);
	D = NULL;
	fake_reset();
	setenv("HIPCORE_VMM", "0", 1);
	ck_assert_int_eq(open_with(fake_path, 0, &D), HC_OK);
	unsetenv("HIPCORE_VMM");
	ck_assert_int_eq(H->device_props(D, &p), HC_OK);
	ck_assert_uint_eq(p.vmm_granularity, 0);
	ck_assert_uint_eq(fake_calls("cuMemGetAllocationGranularity"), 0);
	ck_assert_int_eq(H->va_release(D, G, G), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(H->pmem_unmap(D, G, G), HC_ERR_UNSUPPORTED);
}
END_TEST

/* Mappings and reservations left at close are unmapped, released, freed
 * (fake_close checks that nothing of the runtime's is live). */
START_TEST(vmm_close_gives_everything_back)
{
	hc_hal_dptr r1, r2;

	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r1), HC_OK);
	ck_assert_int_eq(H->va_reserve(D, 4 * G, &r2), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r1, G), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r1 + G, 2 * G), HC_OK);
	ck_assert_int_eq(H->pmem_map(D, r2 + 3 * G, G), HC_OK);
	H->device_close(D);
	D = NULL;
	ck_assert_uint_eq(fake_calls("cuMemUnmap"), 3);
	ck_assert_uint_eq(fake_calls("cuMemRelease"), 3);
	ck_assert_uint_eq(fake_calls("cuMemAddressFree"), 2);
}
END_TEST

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

static Suite *hip_suite(void)
{
	Suite *s = suite_create("hip");
	TCase *tc;

	tc = tcase_create("loader");
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
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, every_table_entry_follows_the_rule);
	tcase_add_test(tc, tables_translate_explicitly_where_spaces_differ);
	tcase_add_test(tc, unknown_code_is_device_error_with_its_number);
	suite_add_tcase(s, tc);

	tc = tcase_create("ops");
	tcase_add_checked_fixture(tc, fake_open, fake_close);
	tcase_add_test(tc, props_come_from_attributes_and_driver_name);
	tcase_add_test(tc, round_trip_and_counters);
	tcase_add_test(tc, runtime_errors_carry_code_and_name);
	tcase_add_test(tc, overridden_entry_makes_malloc_fail_without_a_gpu);
	tcase_add_test(tc, driver_errors_use_the_driver_table);
	tcase_add_test(tc, builtin_kernels_load_and_run_on_nvidia);
	tcase_add_test(tc, builtin_kernels_load_failure_names_the_image);
	tcase_add_test(tc, capture_rejects_memory_nodes_and_instantiates_the_rest);
	tcase_add_loop_test(tc, time_kernels_brackets_launches, 0, 3);
	tcase_add_test(tc, large_pinned_blocks_are_mapped_and_registered);
	tcase_add_test(tc, register_failure_falls_back_to_host_alloc_for_good);
	tcase_add_test(tc, unregister_failure_keeps_the_block_known);
	tcase_add_test(tc, pinned_register_off_by_environment);
	tcase_add_test(tc, ctl_clock_and_unknown_ops);
	tcase_add_test(tc, vmm_grow_copy_across_mappings_and_shrink);
	tcase_add_test(tc, vmm_refusals_reach_no_runtime_call);
	tcase_add_test(tc, vmm_map_oom_leaves_the_reservation_usable);
	tcase_add_test(tc, vmm_runtime_failures_undo_their_steps);
	tcase_add_test(tc, vmm_not_while_capturing);
	tcase_add_test(tc, vmm_absent_is_granularity_zero);
	tcase_add_test(tc, vmm_close_gives_everything_back);
	suite_add_tcase(s, tc);

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

/* Opens the fake runtime once for the whole run and finds its controls. */
static int fake_load(int argc, char **argv)
{
	paths_init();
	fake = dlopen(fake_path, RTLD_NOW | RTLD_LOCAL);
	if (!fake) {
		fprintf(stderr, "check_hip: cannot open the fake runtime: %s\n", dlerror());
		return EXIT_FAILURE;
	}
	*(void **)&fake_set_error = dlsym(fake, "fake_set_error");
	*(void **)&fake_calls = dlsym(fake, "fake_calls");
	*(void **)&fake_live = dlsym(fake, "fake_live");
	*(void **)&fake_set_devices = dlsym(fake, "fake_set_devices");
	*(void **)&fake_reset = dlsym(fake, "fake_reset");
	*(void **)&fake_set_attr = dlsym(fake, "fake_set_attr");
	*(void **)&fake_lookups = dlsym(fake, "fake_lookups");
	*(void **)&fake_builtin_runs = dlsym(fake, "fake_builtin_runs");
	*(void **)&fake_set_vmm = dlsym(fake, "fake_set_vmm");
	*(void **)&fake_set_version = dlsym(fake, "fake_set_version");
	if (!fake_set_attr || !fake_set_error || !fake_calls || !fake_live || !fake_set_devices ||
	    !fake_reset || !fake_lookups || !fake_builtin_runs || !fake_set_vmm || !fake_set_version) {
		fprintf(stderr, "check_hip: the fake runtime lacks its controls\n");
		dlclose(fake);
		return EXIT_FAILURE;
	}
	return 0;
}

static void fake_unload(void)
{
	hc_hip_runtime_reset();
	dlclose(fake);
}

HC_TEST_PROGRAM_HOOKED(fake_load, fake_unload, hip_suite);
