/*
 * check_misuse.c - the misuse matrix of the public API.
 *
 * One row per (function of include/hipcore/hipcore.h, kind of misuse): NULL
 * pointer arguments, closed objects, objects of another device, stale
 * (freed) buffers and destroyed graphs, zero handles, out-of-range sizes and
 * offsets, unknown enum values, and calls in the wrong lifecycle state.
 * Each row runs on a fresh fixture (two simulated devices in data mode with
 * streams, buffers, kernels and graphs, plus closed and freed objects) and
 * checks:
 *  - the status is the documented one (the header's comment for the
 *    function, or the conventions at its top: NULL -> HC_ERR_INVALID, a
 *    closed/freed/unknown handle -> HC_ERR_STALE, the wrong lifecycle
 *    order -> HC_ERR_STATE);
 *  - hc_last_error() then holds that status and a non-empty message;
 *  - nothing was changed: the fixture's objects still work afterwards (a
 *    write/read round trip on device A, a graph replay, usage counters
 *    unchanged) and both devices close with HC_OK (leaks: ASan/valgrind).
 * The row count is printed ("misuse: N rows") for doc/reliability.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/runner.h"

struct fx {
	hc_device a, b, dc;	   /* dc: opened and closed */
	hc_stream sa, sa2, sb, sc; /* sc: closed */
	hc_kernel ka, kb;
	hc_buffer ba, ba2, bb, bf, bcs; /* bf: freed; bcs: of the closed stream */
	hc_graph ga, gb, gd, gcs;	/* gd: destroyed; gcs: of the closed stream */
	uint8_t host[8192];
	hc_memory_usage usage_before;
};

static struct fx F;

static hc_launch_desc fill_desc(hc_kernel k, const hc_binding *b, size_t n)
{
	static const uint64_t info[1] = { 0x5a | (uint64_t)4 << 32 }; /* value 0x5a, width 4 */
	hc_launch_desc d = { .kernel = k, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .info = info, .info_words = 1, .bindings = b, .n_bindings = n };

	return d;
}

static hc_graph capture(hc_stream s, hc_kernel k, hc_buffer b)
{
	hc_binding bd = { b, 0, 4096, HC_ACCESS_WRITE };
	hc_launch_desc d = fill_desc(k, &bd, 1);
	hc_graph g;

	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_launch(s, &d), HC_OK); /* warm-up: caches its info words */
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(hc_launch(s, &d), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	return g;
}

static void open_dev(hc_device *d)
{
	hc_device_options o;

	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.capacity = 64 * HC_MIB;
	o.data_mode = true;
	ck_assert_int_eq(hc_device_open("sim", &o, d), HC_OK);
}

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	for (size_t i = 0; i < sizeof(F.host); i++)
		F.host[i] = (uint8_t)(i * 5 + 1);
	open_dev(&F.a);
	open_dev(&F.b);
	open_dev(&F.dc);
	ck_assert_int_eq(hc_device_close(F.dc), HC_OK);
	ck_assert_int_eq(hc_stream_open(F.a, &F.sa), HC_OK);
	ck_assert_int_eq(hc_stream_open(F.a, &F.sa2), HC_OK);
	ck_assert_int_eq(hc_stream_open(F.a, &F.sc), HC_OK);
	ck_assert_int_eq(hc_stream_open(F.b, &F.sb), HC_OK);
	ck_assert_int_eq(hc_kernel_load(F.a, NULL, 0, "fill", &F.ka), HC_OK);
	ck_assert_int_eq(hc_kernel_load(F.b, NULL, 0, "fill", &F.kb), HC_OK);
	ck_assert_int_eq(hc_alloc(F.sa, 4096, &F.ba), HC_OK);
	ck_assert_int_eq(hc_alloc(F.sa2, 4096, &F.ba2), HC_OK);
	ck_assert_int_eq(hc_alloc(F.sb, 4096, &F.bb), HC_OK);
	ck_assert_int_eq(hc_alloc(F.sa, 4096, &F.bf), HC_OK);
	ck_assert_int_eq(hc_free(F.bf), HC_OK);
	ck_assert_int_eq(hc_alloc(F.sc, 4096, &F.bcs), HC_OK);
	F.ga = capture(F.sa, F.ka, F.ba);
	F.gb = capture(F.sb, F.kb, F.bb);
	F.gd = capture(F.sa, F.ka, F.ba);
	ck_assert_int_eq(hc_graph_destroy(F.gd), HC_OK);
	F.gcs = capture(F.sc, F.ka, F.bcs);
	ck_assert_int_eq(hc_stream_close(F.sc), HC_OK);
	ck_assert_int_eq(hc_write(F.sa, F.ba, 0, F.host, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_sync(F.sa), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(F.sa, HC_MEMORY_DEVICE, &F.usage_before), HC_OK);
}

static void teardown(void)
{
	ck_assert_int_eq(hc_device_close(F.a), HC_OK);
	ck_assert_int_eq(hc_device_close(F.b), HC_OK);
}

static hc_device no_dev = { 0 }, bad_dev = { 0xdeadbeefcafeull };
static hc_stream no_stream = { 0 };
static hc_buffer no_buf = { 0 };
static hc_kernel no_kernel = { 0 };
static hc_graph no_graph = { 0 };

/* Calls that need a little set-up of their own. */
static hc_status launch_with(hc_stream s, hc_kernel k, hc_buffer b, uint64_t off, uint64_t size)
{
	hc_binding bd = { b, off, size, HC_ACCESS_WRITE };
	hc_launch_desc d = fill_desc(k, &bd, 1);

	return hc_launch(s, &d);
}

static hc_status launch_null_bindings(void)
{
	hc_launch_desc d = fill_desc(F.ka, NULL, 1);

	return hc_launch(F.sa, &d);
}

static hc_status launch_null_info(void)
{
	hc_binding bd = { F.ba, 0, 4096, HC_ACCESS_WRITE };
	hc_launch_desc d = fill_desc(F.ka, &bd, 1);

	d.info = NULL;
	d.info_words = 2;
	return hc_launch(F.sa, &d);
}

static hc_status launch_bad_access(void)
{
	hc_binding bd = { F.ba, 0, 4096, (hc_access)0 };
	hc_launch_desc d = fill_desc(F.ka, &bd, 1);

	return hc_launch(F.sa, &d);
}

static hc_status layout_explicit_null(void)
{
	hc_pool_layout l = { HC_LAYOUT_EXPLICIT, NULL, 1 };

	return hc_install_memory_pools(F.sa2, &l);
}

static hc_status layout_preset(hc_stream s, int preset)
{
	hc_pool_layout l = { (hc_layout_preset)preset, NULL, 0 };

	return hc_install_memory_pools(s, &l);
}

static hc_status layout_bad_kind(void)
{
	hc_pool_spec p = { .kind = (hc_pool_kind)9, .page_size = HC_MIB };
	hc_pool_layout l = { HC_LAYOUT_EXPLICIT, &p, 1 };

	return hc_install_memory_pools(F.sa2, &l);
}

static hc_status layout_sliced_no_page(void)
{
	hc_pool_spec p = { .kind = HC_POOL_SLICED, .page_size = 0 };
	hc_pool_layout l = { HC_LAYOUT_EXPLICIT, &p, 1 };

	return hc_install_memory_pools(F.sa2, &l);
}

static hc_status open_with(const char *backend, bool null_out)
{
	hc_device d;

	return hc_device_open(backend, NULL, null_out ? NULL : &d);
}

static hc_status open_bad_profile(void)
{
	hc_device_options o;
	hc_device d;

	hc_device_options_init(&o);
	o.profile = "/nonexistent/hipcore.profile";
	return hc_device_open("sim", &o, &d);
}

static hc_status open_bad_struct_size(void)
{
	hc_device_options o;
	hc_device d;

	hc_device_options_init(&o);
	o.struct_size = 3;
	return hc_device_open("sim", &o, &d);
}

static hc_status end_then(hc_stream s, hc_graph *g)
{
	return hc_graph_end(s, g);
}

static hc_status prepared_then(hc_status (*fn)(hc_stream), hc_stream s, int begin)
{
	hc_status rc = hc_graph_prepare(s);

	if (rc != HC_OK)
		return (hc_status)100;
	if (begin && hc_graph_begin(s) != HC_OK)
		return (hc_status)101;
	return fn(s);
}

static hc_status recording_then_replay(void)
{
	hc_status rc;

	if (hc_graph_prepare(F.sa) != HC_OK || hc_graph_begin(F.sa) != HC_OK)
		return (hc_status)100;
	rc = hc_graph_replay(F.sa, F.ga);
	return rc;
}

static hc_status recording_then_destroy(void)
{
	if (hc_graph_prepare(F.sa) != HC_OK || hc_graph_begin(F.sa) != HC_OK)
		return (hc_status)100;
	return hc_graph_destroy(F.ga);
}

static hc_status recording_then_close(void)
{
	if (hc_graph_prepare(F.sa) != HC_OK || hc_graph_begin(F.sa) != HC_OK)
		return (hc_status)100;
	return hc_stream_close(F.sa);
}

static hc_status prepared_then_close(void)
{
	if (hc_graph_prepare(F.sa) != HC_OK)
		return (hc_status)100;
	return hc_stream_close(F.sa);
}

static hc_status prepare_twice(void)
{
	if (hc_graph_prepare(F.sa) != HC_OK)
		return (hc_status)100;
	return hc_graph_prepare(F.sa);
}

static hc_status begin_twice(void)
{
	return prepared_then(hc_graph_begin, F.sa, 1);
}

static hc_status explain_small(void)
{
	char c[1];

	return hc_failure_explain(F.a, 1, c, 0);
}

static hc_status explain_unknown(void)
{
	char c[64];

	return hc_failure_explain(F.a, 999, c, sizeof(c));
}

static hc_status explain_dev(hc_device d)
{
	char c[64];

	return hc_failure_explain(d, 1, c, sizeof(c));
}

static void report_nop(const hc_pool_report *r, void *arg)
{
	(void)r;
	(void)arg;
}

static hc_status install_in_use(void)
{
	/* sa holds ba (live): the layout is installed for later streams only */
	return layout_preset(F.sa, HC_LAYOUT_EXCLUSIVE_PAGES);
}

/* hc_device_stats_get with the caller's struct_size @size. */
static hc_status stats_get(hc_device d, uint32_t size)
{
	hc_device_stats st = { .struct_size = size };

	return hc_device_stats_get(d, &st);
}

#define R HC_ERR_INVALID
#define S HC_ERR_STALE
#define T HC_ERR_STATE
#define H F.host
/* X(function, misuse, expected status, call) */
#define ROWS(X)                                                                                  \
	X("hc_last_error", "NULL out", R, hc_last_error(NULL))                                   \
	X("hc_device_options_init", "NULL opts", R, hc_device_options_init(NULL))                \
	X("hc_device_open", "NULL out", R, open_with("sim", true))                               \
	X("hc_device_open", "unknown backend", R, open_with("cuda-x", false))                    \
	X("hc_device_open", "empty backend name", R, open_with("", false))                       \
	X("hc_device_open", "missing profile file", HC_ERR_IO, open_bad_profile())               \
	X("hc_device_open", "options struct_size too small", R, open_bad_struct_size())          \
	X("hc_device_close", "closed device", S, hc_device_close(F.dc))                          \
	X("hc_device_close", "zero handle", S, hc_device_close(no_dev))                          \
	X("hc_device_close", "unknown handle", S, hc_device_close(bad_dev))                      \
	X("hc_device_close", "a stream handle", S, hc_device_close((hc_device){ F.sa.id }))      \
	X("hc_device_info_get", "NULL out", R, hc_device_info_get(F.a, NULL))                    \
	X("hc_device_info_get", "closed device", S,                                              \
	  hc_device_info_get(F.dc, &(hc_device_info){ 0 }))                                      \
	X("hc_device_idle_bytes", "NULL out", R, hc_device_idle_bytes(F.a, NULL))                \
	X("hc_device_idle_bytes", "closed device", S,                                            \
	  hc_device_idle_bytes(F.dc, &(uint64_t){ 0 }))                                          \
	X("hc_device_now", "NULL out", R, hc_device_now(F.a, NULL))                              \
	X("hc_device_now", "closed device", S, hc_device_now(F.dc, &(uint64_t){ 0 }))            \
	X("hc_device_stats_get", "NULL out", R, hc_device_stats_get(F.a, NULL))                  \
	X("hc_device_stats_get", "closed device", S, stats_get(F.dc, sizeof(hc_device_stats)))   \
	X("hc_device_stats_get", "struct_size below the first version", R, stats_get(F.a, 8))    \
	X("hc_device_set_policy", "NULL policy", R, hc_device_set_policy(F.a, NULL))             \
	X("hc_device_set_policy", "closed device", S,                                            \
	  hc_device_set_policy(F.dc, &(hc_policy){ 0 }))                                         \
	X("hc_device_op_times", "NULL n", R, hc_device_op_times(F.a, NULL, 0, NULL))             \
	X("hc_device_op_times", "NULL out with cap > 0", R,                                      \
	  hc_device_op_times(F.a, NULL, 4, &(size_t){ 0 }))                                       \
	X("hc_device_op_times", "closed device", S,                                              \
	  hc_device_op_times(F.dc, NULL, 0, &(size_t){ 0 }))                                      \
	X("hc_device_op_times", "opened without op_times", T,                                    \
	  hc_device_op_times(F.a, NULL, 0, &(size_t){ 0 }))                                       \
	X("hc_fault_inject", "closed device", S,                                                 \
	  hc_fault_inject(F.dc, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE))                              \
	X("hc_fault_inject", "unknown kind", R,                                                  \
	  hc_fault_inject(F.a, (hc_fault_kind)42, 1, HC_FAULT_ONCE))                             \
	X("hc_fault_inject", "unknown mode", R,                                                  \
	  hc_fault_inject(F.a, HC_FAULT_LAUNCH, 1, (hc_fault_mode)9))                            \
	X("hc_fault_inject", "n = 0", R, hc_fault_inject(F.a, HC_FAULT_COPY, 0, HC_FAULT_ONCE))  \
	X("hc_stream_open", "NULL out", R, hc_stream_open(F.a, NULL))                            \
	X("hc_stream_open", "closed device", S, hc_stream_open(F.dc, &(hc_stream){ 0 }))         \
	X("hc_stream_open", "zero device", S, hc_stream_open(no_dev, &(hc_stream){ 0 }))         \
	X("hc_stream_close", "closed stream", S, hc_stream_close(F.sc))                          \
	X("hc_stream_close", "zero handle", S, hc_stream_close(no_stream))                       \
	X("hc_stream_close", "a buffer handle", S, hc_stream_close((hc_stream){ F.ba.id }))      \
	X("hc_stream_close", "capture prepared", T, prepared_then_close())                       \
	X("hc_stream_close", "capture recording", T, recording_then_close())                     \
	X("hc_sync", "closed stream", S, hc_sync(F.sc))                                          \
	X("hc_sync", "zero handle", S, hc_sync(no_stream))                                       \
	X("hc_alloc", "NULL out", R, hc_alloc(F.sa, 16, NULL))                                   \
	X("hc_alloc", "closed stream", S, hc_alloc(F.sc, 16, &(hc_buffer){ 0 }))                 \
	X("hc_alloc", "larger than the device (default layout)", HC_ERR_OOM,                    \
	  hc_alloc(F.sa, 1ull << 40, &(hc_buffer){ 0 }))                                         \
	X("hc_free", "freed buffer", S, hc_free(F.bf))                                           \
	X("hc_free", "buffer of a closed stream", S, hc_free(F.bcs))                             \
	X("hc_free", "zero handle", S, hc_free(no_buf))                                          \
	X("hc_free", "a stream handle", S, hc_free((hc_buffer){ F.sa.id }))                      \
	X("hc_buffer_info_get", "NULL out", R, hc_buffer_info_get(F.ba, NULL))                   \
	X("hc_buffer_info_get", "freed buffer", S,                                               \
	  hc_buffer_info_get(F.bf, &(hc_buffer_info){ { 0 }, 0, 0 }))                                  \
	X("hc_buffer_info_get", "buffer of a closed stream", S,                                  \
	  hc_buffer_info_get(F.bcs, &(hc_buffer_info){ { 0 }, 0, 0 }))                                 \
	X("hc_write", "NULL src", R, hc_write(F.sa, F.ba, 0, NULL, 16, HC_ALLOC_NATIVE, NULL, NULL)) \
	X("hc_write", "closed stream", S, hc_write(F.sc, F.ba, 0, H, 16, HC_ALLOC_NATIVE, NULL, NULL)) \
	X("hc_write", "freed buffer", S, hc_write(F.sa, F.bf, 0, H, 16, HC_ALLOC_NATIVE, NULL, NULL)) \
	X("hc_write", "buffer of a closed stream", S,                                            \
	  hc_write(F.sa, F.bcs, 0, H, 16, HC_ALLOC_NATIVE, NULL, NULL))                          \
	X("hc_write", "buffer of another device", R,                                             \
	  hc_write(F.sa, F.bb, 0, H, 16, HC_ALLOC_NATIVE, NULL, NULL))                           \
	X("hc_write", "range past the end", R,                                                   \
	  hc_write(F.sa, F.ba, 4090, H, 16, HC_ALLOC_NATIVE, NULL, NULL))                        \
	X("hc_write", "offset past the end", R,                                                  \
	  hc_write(F.sa, F.ba, 5000, H, 0, HC_ALLOC_NATIVE, NULL, NULL))                         \
	X("hc_write", "offset + size overflows", R,                                              \
	  hc_write(F.sa, F.ba, UINT64_MAX - 4, H, 16, HC_ALLOC_NATIVE, NULL, NULL))              \
	X("hc_write", "unknown property", R, hc_write(F.sa, F.ba, 0, H, 16, (hc_alloc_property)77, NULL, NULL)) \
	X("hc_read", "NULL dst", R, hc_read(F.sa, F.ba, 0, NULL, 16, NULL))                      \
	X("hc_read", "closed stream", S, hc_read(F.sc, F.ba, 0, H, 16, NULL))                    \
	X("hc_read", "freed buffer", S, hc_read(F.sa, F.bf, 0, H, 16, NULL))                     \
	X("hc_read", "buffer of another device", R, hc_read(F.sa, F.bb, 0, H, 16, NULL))         \
	X("hc_read", "range past the end", R, hc_read(F.sa, F.ba, 4000, H, 200, NULL))           \
	X("hc_read", "offset + size overflows", R, hc_read(F.sa, F.ba, UINT64_MAX, H, 2, NULL))  \
	X("hc_kernel_load", "NULL out", R, hc_kernel_load(F.a, NULL, 0, "fill", NULL))           \
	X("hc_kernel_load", "NULL name", R, hc_kernel_load(F.a, NULL, 0, NULL, &(hc_kernel){ 0 })) \
	X("hc_kernel_load", "closed device", S, hc_kernel_load(F.dc, NULL, 0, "fill", &(hc_kernel){ 0 })) \
	X("hc_kernel_load", "unknown built-in", R, hc_kernel_load(F.a, NULL, 0, "nope", &(hc_kernel){ 0 })) \
	X("hc_kernel_load", "an image on the simulator", HC_ERR_UNSUPPORTED,                     \
	  hc_kernel_load(F.a, H, 16, "fill", &(hc_kernel){ 0 }))                                 \
	X("hc_launch", "NULL launch", R, hc_launch(F.sa, NULL))                                  \
	X("hc_launch", "NULL bindings", R, launch_null_bindings())                               \
	X("hc_launch", "NULL info with info_words", R, launch_null_info())                       \
	X("hc_launch", "no access bits", R, launch_bad_access())                                 \
	X("hc_launch", "closed stream", S, launch_with(F.sc, F.ka, F.ba, 0, 16))                 \
	X("hc_launch", "zero kernel", S, launch_with(F.sa, no_kernel, F.ba, 0, 16))              \
	X("hc_launch", "kernel of another device", R, launch_with(F.sa, F.kb, F.ba, 0, 16))      \
	X("hc_launch", "buffer of another device", R, launch_with(F.sa, F.ka, F.bb, 0, 16))      \
	X("hc_launch", "freed buffer", S, launch_with(F.sa, F.ka, F.bf, 0, 16))                  \
	X("hc_launch", "binding past the end", R, launch_with(F.sa, F.ka, F.ba, 4000, 200))      \
	X("hc_launch", "binding offset overflows", R, launch_with(F.sa, F.ka, F.ba, UINT64_MAX, 2)) \
	X("hc_graph_prepare", "closed stream", S, hc_graph_prepare(F.sc))                        \
	X("hc_graph_prepare", "twice", T, prepare_twice())                                       \
	X("hc_graph_begin", "closed stream", S, hc_graph_begin(F.sc))                            \
	X("hc_graph_begin", "without prepare", T, hc_graph_begin(F.sa))                          \
	X("hc_graph_begin", "while recording", T, begin_twice())                                 \
	X("hc_graph_end", "NULL out", R, hc_graph_end(F.sa, NULL))                               \
	X("hc_graph_end", "closed stream", S, end_then(F.sc, &(hc_graph){ 0 }))                  \
	X("hc_graph_end", "without begin", T, end_then(F.sa, &(hc_graph){ 0 }))                  \
	X("hc_graph_replay", "closed stream", S, hc_graph_replay(F.sc, F.ga))                    \
	X("hc_graph_replay", "destroyed graph", S, hc_graph_replay(F.sa, F.gd))                  \
	X("hc_graph_replay", "graph of a closed stream", S, hc_graph_replay(F.sa, F.gcs))        \
	X("hc_graph_replay", "zero graph", S, hc_graph_replay(F.sa, no_graph))                   \
	X("hc_graph_replay", "graph of another stream", R, hc_graph_replay(F.sa2, F.ga))         \
	X("hc_graph_replay", "graph of another device", R, hc_graph_replay(F.sa, F.gb))          \
	X("hc_graph_replay", "while recording", T, recording_then_replay())                      \
	X("hc_graph_destroy", "destroyed graph", S, hc_graph_destroy(F.gd))                      \
	X("hc_graph_destroy", "graph of a closed stream", S, hc_graph_destroy(F.gcs))            \
	X("hc_graph_destroy", "zero graph", S, hc_graph_destroy(no_graph))                       \
	X("hc_graph_destroy", "its stream recording", T, recording_then_destroy())               \
	X("hc_install_memory_pools", "NULL layout", R, hc_install_memory_pools(F.sa2, NULL))     \
	X("hc_install_memory_pools", "explicit, NULL pools", R, layout_explicit_null())          \
	X("hc_install_memory_pools", "unknown preset", R, layout_preset(F.sa2, 17))              \
	X("hc_install_memory_pools", "unknown pool kind", R, layout_bad_kind())                  \
	X("hc_install_memory_pools", "sliced pool without page size", R, layout_sliced_no_page()) \
	X("hc_install_memory_pools", "closed stream", S, layout_preset(F.sc, HC_LAYOUT_DEFAULT)) \
	X("hc_install_memory_pools", "stream holds live memory", HC_ERR_IN_USE, install_in_use()) \
	X("hc_memory_usage_get", "NULL out", R, hc_memory_usage_get(F.sa, HC_MEMORY_DEVICE, NULL)) \
	X("hc_memory_usage_get", "unknown kind", R,                                              \
	  hc_memory_usage_get(F.sa, (hc_memory_kind)5, &(hc_memory_usage){ 0 }))                 \
	X("hc_memory_usage_get", "closed stream", S,                                             \
	  hc_memory_usage_get(F.sc, HC_MEMORY_DEVICE, &(hc_memory_usage){ 0 }))                  \
	X("hc_device_memory_usage", "NULL out", R, hc_device_memory_usage(F.a, HC_MEMORY_DEVICE, NULL)) \
	X("hc_device_memory_usage", "unknown kind", R,                                           \
	  hc_device_memory_usage(F.a, (hc_memory_kind)5, &(hc_memory_usage){ 0 }))               \
	X("hc_device_memory_usage", "closed device", S,                                          \
	  hc_device_memory_usage(F.dc, HC_MEMORY_DEVICE, &(hc_memory_usage){ 0 }))               \
	X("hc_memory_report", "NULL callback", R, hc_memory_report(F.sa, HC_MEMORY_DEVICE, NULL, NULL)) \
	X("hc_memory_report", "unknown kind", R, hc_memory_report(F.sa, (hc_memory_kind)5, report_nop, NULL)) \
	X("hc_memory_report", "closed stream", S, hc_memory_report(F.sc, HC_MEMORY_DEVICE, report_nop, NULL)) \
	X("hc_memory_cleanup", "closed stream", S, hc_memory_cleanup(F.sc))                      \
	X("hc_memory_cleanup", "zero handle", S, hc_memory_cleanup(no_stream))                   \
	X("hc_memory_persistent_begin", "closed stream", S, hc_memory_persistent_begin(F.sc))    \
	X("hc_memory_persistent_end", "closed stream", S, hc_memory_persistent_end(F.sc))        \
	X("hc_memory_persistent_end", "no open window", HC_OK, hc_memory_persistent_end(F.sa))   \
	X("hc_failure_explain", "NULL buf", R, hc_failure_explain(F.a, 1, NULL, 10))             \
	X("hc_failure_explain", "len 0", R, explain_small())                                     \
	X("hc_failure_explain", "unknown failure", S, explain_unknown())                         \
	X("hc_failure_explain", "closed device", S, explain_dev(F.dc))

static const struct row {
	const char *fn, *misuse;
	hc_status want;
} rows[] = {
#define X(fn, misuse, want, call) { fn, misuse, want },
	ROWS(X)
#undef X
};

#define NROWS ((int)(sizeof(rows) / sizeof(rows[0])))

static hc_status run_row(int i)
{
	int n = 0;

#define X(fn, misuse, want, call) \
	if (i == n++)             \
		return (call);
	ROWS(X)
#undef X
	return (hc_status)-1;
}

/* The fixture still works: nothing the misuse touched has changed. */
static void fixture_intact(int i)
{
	uint8_t out[4096];
	hc_memory_usage u;
	hc_status rc;

	/* rows that end a capture in progress leave it for this check */
	(void)hc_graph_end(F.sa, &(hc_graph){ 0 });
	ck_assert_int_eq(hc_read(F.sa, F.ba, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_msg(memcmp(out, F.host, sizeof(out)) == 0, "row %d: device A's bytes changed", i);
	ck_assert_int_eq(hc_memory_usage_get(F.sa, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, F.usage_before.number_allocs);
	ck_assert_uint_eq(u.bytes_in_use, F.usage_before.bytes_in_use);
	rc = hc_graph_replay(F.sb, F.gb);
	ck_assert_int_eq(rc, HC_OK);
	rc = hc_sync(F.sb);
	if (rc != HC_OK) {
		hc_error_info e;

		hc_last_error(&e);
		ck_abort_msg("row %d: sync after a replay: %s", i, e.message);
	}
}

START_TEST(misuse)
{
	const struct row *r = &rows[_i < NROWS ? _i : 0];
	hc_error_info e;
	hc_status rc = run_row(_i);

	ck_assert_msg(rc == r->want, "%s, %s: got %s, want %s", r->fn, r->misuse,
		      rc >= 0 && rc <= HC_ERR_PARSE ? hc_status_str(rc) : "a set-up failure",
		      hc_status_str(r->want));
	if (rc != HC_OK && _i != 0) { /* row 0: hc_last_error(NULL) keeps the error */
		ck_assert_int_eq(hc_last_error(&e), HC_OK);
		ck_assert_msg(e.status == rc, "%s, %s: hc_last_error holds %s", r->fn, r->misuse,
			      hc_status_str(e.status));
		ck_assert_msg(e.message[0] != '\0', "%s, %s: no message", r->fn, r->misuse);
	}
	fixture_intact(_i);
}
END_TEST

/* The two functions that return no status: total over their input. */
START_TEST(pure_functions)
{
	hc_staging a = hc_staging_of(HC_MIB, (hc_alloc_property)99);
	hc_staging b = hc_staging_of(HC_MIB, HC_ALLOC_OTHER);
	hc_error_info e;

	ck_assert_str_eq(hc_status_str((hc_status)99), "unknown status");
	ck_assert_str_eq(hc_status_str((hc_status)-1), "unknown status");
	ck_assert_str_eq(hc_status_str(HC_ERR_STALE), "HC_ERR_STALE: handle is closed, freed, reused or unknown");
	ck_assert(a.through_pinned == b.through_pinned && a.flush_after == b.flush_after);
	a = hc_staging_of(UINT64_MAX, HC_ALLOC_FILE);
	ck_assert(a.through_pinned && a.flush_after);
	/* hc_last_error(NULL) reports INVALID and keeps the error it guards */
	ck_assert_int_eq(hc_free((hc_buffer){ 0 }), HC_ERR_STALE);
	ck_assert_int_eq(hc_last_error(NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_last_error(&e), HC_OK);
	ck_assert_int_eq(e.status, HC_ERR_STALE);
}
END_TEST

static Suite *misuse_suite(void)
{
	Suite *s = suite_create("misuse");
	TCase *tc = tcase_create("matrix");

	printf("misuse: %d rows\n", NROWS);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, misuse, 0, NROWS);
	suite_add_tcase(s, tc);
	tc = tcase_create("pure");
	tcase_add_test(tc, pure_functions);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(misuse_suite);
