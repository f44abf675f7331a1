/*
 * check_errors.c - the error graph through the public API on the simulator
 * in data mode with fault injection: what a failed kernel or copy taints,
 * derived failures and their edges, taint cleared by writes and by clean
 * kernels, the conservative handling of a fence fault, isolation between
 * streams, and hc_failure_explain's text and bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define N 1024

static hc_kernel kcopy;
static unsigned char pat[N], zero[N];

static void setup(void)
{
	sim_device_open(256 * HC_MIB, true);
	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, "copy", &kcopy), HC_OK);
	for (int i = 0; i < N; i++)
		pat[i] = (unsigned char)(i * 7 + 3);
	memset(zero, 0, sizeof(zero));
}

static uint64_t failures(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st.failures;
}

/* A buffer of N bytes on @st holding @src. */
static hc_buffer buf_with(hc_stream st, const unsigned char *src)
{
	hc_buffer b;

	ck_assert_int_eq(hc_alloc(st, N, &b), HC_OK);
	ck_assert_int_eq(hc_write(st, b, 0, src, N, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	return b;
}

/* copy kernel: @n bytes from src+so to dst+do on @st. */
static hc_status copy_k(hc_stream st, hc_buffer src, uint64_t so, hc_buffer dst, uint64_t dof,
			uint64_t n)
{
	hc_binding bd[2] = { { src, so, n, HC_ACCESS_READ }, { dst, dof, n, HC_ACCESS_WRITE } };
	hc_launch_desc l = { .kernel = kcopy, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .bindings = bd, .n_bindings = 2 };

	return hc_launch(st, &l);
}

/* hc_read expecting taint: returns the failure id. */
static hc_failure_id read_tainted(hc_stream st, hc_buffer b, uint64_t off, uint64_t n)
{
	unsigned char out[N];
	hc_failure_id f = 12345;

	ck_assert_int_eq(hc_read(st, b, off, out, n, &f), HC_ERR_TAINTED);
	ck_assert_uint_ne(f, 0);
	ck_assert_uint_ne(f, 12345);
	return f;
}

/* hc_read expecting clean bytes equal to @want. */
static void read_ok(hc_stream st, hc_buffer b, uint64_t off, uint64_t n, const unsigned char *want)
{
	unsigned char out[N];
	hc_failure_id f = 12345;

	ck_assert_int_eq(hc_read(st, b, off, out, n, &f), HC_OK);
	ck_assert_uint_eq(f, 0);
	ck_assert_mem_eq(out, want, n);
}

static size_t count_lines(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* --- a failed kernel taints exactly its outputs ------------------------- */

START_TEST(failed_kernel_taints_its_output_range)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_failure_id f, g;
	char text[512];

	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 256, 256), HC_OK); /* fails late */
	ck_assert_uint_eq(failures(), 0);
	/* the read of an untouched range finds the failure at its fence, and
	 * its own bytes are good */
	read_ok(s, b, 0, 256, zero);
	ck_assert_uint_eq(failures(), 1);
	read_ok(s, b, 512, 512, zero);
	read_ok(s, a, 0, N, pat);
	f = read_tainted(s, b, 256, 256);
	ck_assert_uint_eq(read_tainted(s, b, 300, 1), f);
	ck_assert_uint_eq(read_tainted(s, b, 0, 257), f); /* one byte overlaps */
	ck_assert_uint_eq(read_tainted(s, b, 511, 2), f);
	ck_assert_ptr_nonnull(strstr(last_message(), "failure #"));
	ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
	ck_assert_ptr_nonnull(strstr(text, "kernel on stream"));
	ck_assert_ptr_nonnull(strstr(text, "kernel copy (launch 1) failed on the device"));
	ck_assert_ptr_nonnull(strstr(text, "root cause"));
	ck_assert_uint_eq(count_lines(text), 1);
	/* the sync after the read reports nothing new */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_uint_eq(failures(), 1);
	g = read_tainted(s, b, 256, 256);
	ck_assert_uint_eq(g, f);
}
END_TEST

START_TEST(failure_found_by_sync)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 128), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	ck_assert_uint_eq(failures(), 1);
	read_tainted(s, b, 0, 128);
	read_ok(s, b, 128, N - 128, zero);
}
END_TEST

/* --- derived failures ----------------------------------------------------- */

START_TEST(chain_of_three_launches)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero), c = buf_with(s, zero),
		  d = buf_with(s, zero);
	hc_failure_id f1, f2, f3;
	char text[1024], want[128];

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 64), HC_OK); /* k1 fails */
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f1 = read_tainted(s, b, 0, 64);
	ck_assert_int_eq(copy_k(s, b, 0, c, 0, 64), HC_ERR_TAINTED); /* k2 */
	ck_assert_ptr_nonnull(strstr(last_message(), "kernel copy (launch 2)"));
	snprintf(want, sizeof(want), "failure #%llu", (unsigned long long)f1);
	ck_assert_ptr_nonnull(strstr(last_message(), want));
	f2 = read_tainted(s, c, 0, 64);
	ck_assert_uint_ne(f2, f1);
	ck_assert_int_eq(copy_k(s, c, 0, d, 0, 64), HC_ERR_TAINTED); /* k3 */
	f3 = read_tainted(s, d, 0, 64);
	ck_assert_uint_eq(failures(), 3);
	ck_assert_uint_eq(f2, f1 + 1);
	ck_assert_uint_eq(f3, f2 + 1);
	/* k2, k3 did not run: the rest of c, d untouched and clean */
	read_ok(s, c, 64, N - 64, zero);
	read_ok(s, d, 64, N - 64, zero);
	ck_assert_int_eq(hc_failure_explain(dev, f3, text, sizeof(text)), HC_OK);
	ck_assert_uint_eq(count_lines(text), 3);
	snprintf(want, sizeof(want), "#%llu derived", (unsigned long long)f3);
	ck_assert_ptr_eq(strstr(text, want), text); /* starts with f3 */
	snprintf(want, sizeof(want), "caused by #%llu\n#%llu derived", (unsigned long long)f2,
		 (unsigned long long)f2);
	ck_assert_ptr_nonnull(strstr(text, want));
	snprintf(want, sizeof(want), "caused by #%llu\n#%llu kernel", (unsigned long long)f1,
		 (unsigned long long)f1);
	ck_assert_ptr_nonnull(strstr(text, want));
	ck_assert_ptr_nonnull(strstr(text, "kernel copy (launch 3)"));
	ck_assert_ptr_nonnull(strstr(text, "root cause\n"));
	/* explaining the middle one stops at the root */
	ck_assert_int_eq(hc_failure_explain(dev, f2, text, sizeof(text)), HC_OK);
	ck_assert_uint_eq(count_lines(text), 2);
}
END_TEST

START_TEST(chain_in_flight_is_derived_at_the_fence)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero), c = buf_with(s, zero),
		  d = buf_with(s, zero);
	hc_failure_id f3;
	char text[1024];

	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	/* all three queued before anyone knows: k2 and k3 run on bad data */
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 64), HC_OK);
	ck_assert_int_eq(copy_k(s, b, 0, c, 0, 64), HC_OK);
	ck_assert_int_eq(copy_k(s, c, 0, d, 0, 64), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 512, d, 512, 64), HC_OK); /* good work */
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	ck_assert_uint_eq(failures(), 3);
	f3 = read_tainted(s, d, 0, 64);
	read_ok(s, d, 512, 64, pat + 512);
	ck_assert_int_eq(hc_failure_explain(dev, f3, text, sizeof(text)), HC_OK);
	ck_assert_uint_eq(count_lines(text), 3);
	ck_assert_ptr_nonnull(strstr(text, "ran on failed data"));
	ck_assert_ptr_nonnull(strstr(text, "failed on the device; root cause"));
}
END_TEST

START_TEST(read_write_binding_of_tainted_range)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_binding bd[1];
	hc_launch_desc l = { .kernel = kcopy, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
			     .bindings = bd, .n_bindings = 1 };
	hc_failure_id f1, f2;

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 16), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f1 = read_tainted(s, b, 0, 16);
	/* reads [8, 40): overlaps the taint; its write range grows the taint */
	bd[0] = (hc_binding){ b, 8, 32, HC_ACCESS_READ_WRITE };
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_TAINTED);
	f2 = read_tainted(s, b, 16, 24);
	ck_assert_uint_ne(f2, f1);
	ck_assert_uint_eq(read_tainted(s, b, 0, 8), f1);
	ck_assert_uint_eq(read_tainted(s, b, 8, 8), f2); /* newer taint overrides */
	read_ok(s, b, 40, 64, zero);
}
END_TEST

/* --- what clears taint ---------------------------------------------------- */

START_TEST(host_writes_clear_taint)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_failure_id f;

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 256), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f = read_tainted(s, b, 0, 256);
	ck_assert_int_eq(hc_write(s, b, 0, pat, 100, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	read_ok(s, b, 0, 100, pat);
	ck_assert_uint_eq(read_tainted(s, b, 50, 150), f);
	/* overlapping the end of the taint from above */
	ck_assert_int_eq(hc_write(s, b, 200, pat, 100, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	read_ok(s, b, 200, 100, pat);
	ck_assert_uint_eq(read_tainted(s, b, 100, 100), f);
	ck_assert_uint_eq(read_tainted(s, b, 199, 1), f);
	/* a write in the middle splits what is left */
	ck_assert_int_eq(hc_write(s, b, 140, pat, 20, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	read_ok(s, b, 140, 20, pat);
	ck_assert_uint_eq(read_tainted(s, b, 100, 40), f);
	ck_assert_uint_eq(read_tainted(s, b, 160, 40), f);
	ck_assert_int_eq(hc_write(s, b, 90, zero, 120, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	read_ok(s, b, 90, 120, zero);
	ck_assert_uint_eq(failures(), 1);
}
END_TEST

START_TEST(clean_kernel_write_clears_taint_after_its_fence)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 256), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	read_tainted(s, b, 0, 256);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 128), HC_OK); /* writes, does not read b */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	read_ok(s, b, 0, 128, pat);
	read_tainted(s, b, 128, 128);
}
END_TEST

START_TEST(in_flight_write_repairs_a_later_found_failure)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_failure_id f;

	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 256), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, pat, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	read_ok(s, b, 0, 64, pat); /* written after the failed kernel */
	f = read_tainted(s, b, 64, 192);
	ck_assert_uint_eq(read_tainted(s, b, 60, 8), f);
}
END_TEST

START_TEST(derived_taint_survives_earlier_work_retiring)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero), c = buf_with(s, zero);
	hc_failure_id f1, f2;

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 64), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f1 = read_tainted(s, b, 0, 64);
	ck_assert_int_eq(copy_k(s, a, 0, c, 0, 128), HC_OK);         /* clean, in flight */
	ck_assert_int_eq(copy_k(s, b, 0, c, 0, 64), HC_ERR_TAINTED); /* derived, later */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	f2 = read_tainted(s, c, 0, 64);
	ck_assert_uint_ne(f2, f1);
	read_ok(s, c, 128, 128, zero);
}
END_TEST

/* --- copies and fences ---------------------------------------------------- */

START_TEST(failed_copy_taints_its_destination)
{
	hc_buffer b = buf_with(s, zero);
	hc_failure_id f;
	char text[512];

	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_COPY, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 64, pat, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	f = read_tainted(s, b, 64, 64);
	read_ok(s, b, 0, 64, zero);
	read_ok(s, b, 128, 64, zero);
	ck_assert_uint_eq(failures(), 1);
	ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
	ck_assert_ptr_nonnull(strstr(text, " copy on stream"));
	ck_assert_ptr_nonnull(strstr(text, "write of 64 bytes at 64 failed on the device"));
	/* rewriting it fixes it */
	ck_assert_int_eq(hc_write(s, b, 64, pat, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	read_ok(s, b, 64, 64, pat);
}
END_TEST

START_TEST(fence_fault_taints_in_flight_work_conservatively)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero), c = buf_with(s, zero);
	hc_failure_id f;
	char text[512];

	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 256), HC_OK);
	ck_assert_int_eq(hc_write(s, c, 0, pat, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_FENCE, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	ck_assert_uint_eq(failures(), 1);
	/* the backend names no failed work: everything in flight is suspect */
	f = read_tainted(s, b, 0, 256);
	ck_assert_uint_eq(read_tainted(s, c, 0, 64), f);
	read_ok(s, b, 256, 256, zero);
	read_ok(s, c, 64, 64, zero);
	read_ok(s, a, 0, N, pat); /* only read: not tainted */
	ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
	ck_assert_ptr_nonnull(strstr(text, " device on stream"));
	ck_assert_ptr_nonnull(strstr(text, "2 work items in flight tainted"));
	/* work after it is tracked afresh */
	ck_assert_int_eq(copy_k(s, a, 0, b, 512, 64), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	read_ok(s, b, 512, 64, pat);
	ck_assert_uint_eq(failures(), 1);
}
END_TEST

START_TEST(clean_fences_retire_work)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);

	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 256), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	/* a fence fault now finds nothing in flight to taint */
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_FENCE, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	ck_assert_uint_eq(failures(), 1);
	read_ok(s, b, 0, 256, pat);
}
END_TEST

/* --- other streams -------------------------------------------------------- */

START_TEST(other_stream_unaffected)
{
	hc_stream s2;
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero), e, g;
	hc_failure_id f;

	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	e = buf_with(s2, pat);
	g = buf_with(s2, zero);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 128), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f = read_tainted(s, b, 0, 128);
	/* s2's own work goes on */
	ck_assert_int_eq(hc_sync(s2), HC_OK);
	read_ok(s2, e, 0, N, pat);
	ck_assert_int_eq(copy_k(s2, e, 0, g, 0, 256), HC_OK);
	ck_assert_int_eq(hc_sync(s2), HC_OK);
	read_ok(s2, g, 0, 256, pat);
	/* only the tainted bytes of s's buffer fail it */
	read_ok(s2, b, 128, 128, zero);
	ck_assert_uint_eq(read_tainted(s2, b, 0, 128), f);
	ck_assert_int_eq(copy_k(s2, b, 0, g, 256, 64), HC_ERR_TAINTED);
	ck_assert_uint_ne(read_tainted(s2, g, 256, 64), f);
	read_ok(s2, g, 0, 256, pat);
	ck_assert_uint_eq(failures(), 2);
	ck_assert_int_eq(hc_stream_close(s2), HC_OK);
}
END_TEST

START_TEST(failed_kernel_of_another_stream_taints_the_origins_buffer)
{
	hc_stream s2;
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_failure_id f;
	char text[512];

	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s2, a, 0, b, 64, 64), HC_OK); /* queued on s2, writes s's b */
	ck_assert_int_eq(hc_sync(s2), HC_ERR_DEVICE);
	f = read_tainted(s, b, 64, 64); /* the origin sees it */
	read_ok(s, b, 0, 64, zero);
	ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
	ck_assert_ptr_nonnull(strstr(text, "kernel copy (launch 1) failed on the device"));
	ck_assert_int_eq(hc_stream_close(s2), HC_OK);
}
END_TEST

START_TEST(failed_graph_replay_is_recorded)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_graph g;
	hc_failure_id f = 0;
	char text[512];

	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 64), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	ck_assert_uint_eq(failures(), 1);
	/* the failure names the replay (its work's ranges are not tracked) */
	for (hc_failure_id i = 1; i < 16 && !f; i++)
		if (hc_failure_explain(dev, i, text, sizeof(text)) == HC_OK)
			f = i;
	ck_assert_uint_ne(f, 0);
	ck_assert_ptr_nonnull(strstr(text, "replay of graph"));
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	read_ok(s, b, 0, 64, pat);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(free_forgets_taint)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_failure_id f;
	char text[512];

	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 128), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f = read_tainted(s, b, 0, 128);
	ck_assert_int_eq(hc_free(b), HC_OK);
	b = buf_with(s, pat); /* may reuse the slot: a new handle, clean */
	read_ok(s, b, 0, N, pat);
	/* the failure itself stays explainable */
	ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
}
END_TEST

/* --- hc_failure_explain's edges ------------------------------------------- */

START_TEST(explain_bad_input)
{
	hc_buffer a = buf_with(s, pat), b = buf_with(s, zero);
	hc_failure_id f;
	char text[512], small[8];
	hc_device stale;
	hc_device_options o;

	ck_assert_int_eq(hc_failure_explain(dev, 1, text, sizeof(text)), HC_ERR_STALE);
	ck_assert_int_eq(hc_failure_explain(dev, 0, text, sizeof(text)), HC_ERR_STALE);
	ck_assert_uint_eq(text[0], 0);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(copy_k(s, a, 0, b, 0, 128), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_DEVICE);
	f = read_tainted(s, b, 0, 128);
	ck_assert_int_eq(hc_failure_explain(dev, f + 1, text, sizeof(text)), HC_ERR_STALE);
	ck_assert_int_eq(hc_failure_explain(dev, f, NULL, 10), HC_ERR_INVALID);
	ck_assert_int_eq(hc_failure_explain(dev, f, text, 0), HC_ERR_INVALID);
	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(hc_failure_explain(dev, f, small, sizeof(small)), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "needs"));
	ck_assert_uint_eq(strlen(small), 7);
	ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
	ck_assert_int_eq(strncmp(small, text, 7), 0);
	/* exactly the size needed works */
	ck_assert_int_eq(hc_failure_explain(dev, f, text, strlen(text) + 1), HC_OK);
	ck_assert_int_eq(hc_failure_explain(dev, f, text, strlen(text)), HC_ERR_INVALID);
	/* a closed device */
	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	ck_assert_int_eq(hc_device_open("sim", &o, &stale), HC_OK);
	ck_assert_int_eq(hc_device_close(stale), HC_OK);
	ck_assert_int_eq(hc_failure_explain(stale, 1, text, sizeof(text)), HC_ERR_STALE);
	/* ids are per device */
	ck_assert_int_eq(hc_device_open("sim", &o, &stale), HC_OK);
	ck_assert_int_eq(hc_failure_explain(stale, f, text, sizeof(text)), HC_ERR_STALE);
	ck_assert_int_eq(hc_device_close(stale), HC_OK);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *su = suite_create("errors");
	TCase *tc = tcase_create("errors");

	tcase_add_checked_fixture(tc, setup, sim_device_close);
	tcase_add_test(tc, failed_kernel_taints_its_output_range);
	tcase_add_test(tc, failure_found_by_sync);
	tcase_add_test(tc, chain_of_three_launches);
	tcase_add_test(tc, chain_in_flight_is_derived_at_the_fence);
	tcase_add_test(tc, read_write_binding_of_tainted_range);
	tcase_add_test(tc, host_writes_clear_taint);
	tcase_add_test(tc, clean_kernel_write_clears_taint_after_its_fence);
	tcase_add_test(tc, in_flight_write_repairs_a_later_found_failure);
	tcase_add_test(tc, derived_taint_survives_earlier_work_retiring);
	tcase_add_test(tc, failed_copy_taints_its_destination);
	tcase_add_test(tc, fence_fault_taints_in_flight_work_conservatively);
	tcase_add_test(tc, clean_fences_retire_work);
	tcase_add_test(tc, other_stream_unaffected);
	tcase_add_test(tc, failed_kernel_of_another_stream_taints_the_origins_buffer);
	tcase_add_test(tc, failed_graph_replay_is_recorded);
	tcase_add_test(tc, free_forgets_taint);
	tcase_add_test(tc, explain_bad_input);
	suite_add_tcase(su, tc);
	return su;
}

HC_TEST_PROGRAM(errors_suite);
