/*
 * check_streams.c - the stream operations through the public API on the
 * simulator in data mode: hc_write/hc_read around every staging threshold
 * and property, release callbacks, cross-stream waits and pins, drop-queue
 * behaviour, launches of the built-in kernels and the info cache, policies,
 * and bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define MIB HC_MIB

static void setup(void)
{
	sim_device_open(2048 * MIB, true);
}

static hc_device_stats stats(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st;
}

static void pattern(unsigned char *p, uint64_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (unsigned char)x;
	}
}

static int released;
static uint64_t released_at;
static void count_release(void *arg)
{
	released++;
	if (arg)
		hc_device_now(*(hc_device *)arg, &released_at);
}

/* --- write then read around every threshold ----------------------------- */

static const uint64_t sizes[] = { 0, 1, 4095, 8 * MIB - 1, 8 * MIB, 10 * MIB, 10 * MIB + 1,
				  100 * MIB - 1, 100 * MIB, 100 * MIB + 1 };

START_TEST(round_trip_every_threshold)
{
	uint64_t n = sizes[_i / 5];
	hc_alloc_property prop = (hc_alloc_property)(_i % 5);
	uint64_t off = n % 2 ? 7 : 64;
	unsigned char *src = malloc(n + 1), *dst = malloc(n + 1);
	hc_buffer b;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	pattern(src, n, (unsigned)_i);
	memset(dst, 0xee, n + 1);
	ck_assert_int_eq(hc_alloc(s, n + off + 5, &b), HC_OK);
	released = 0;
	ck_assert_int_eq(hc_write(s, b, off, src, n, prop, count_release, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s, b, off, dst, n, NULL), HC_OK);
	ck_assert_int_eq(memcmp(src, dst, n), 0);
	ck_assert_uint_eq(dst[n], 0xee); /* nothing past the end */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(released, 1);
	ck_assert_int_eq(hc_free(b), HC_OK);
	free(src);
	free(dst);
}
END_TEST

START_TEST(staging_stats_per_decision)
{
	unsigned char *src = calloc(1, 101 * MIB);
	hc_buffer b;
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_ptr_nonnull(src);
	ck_assert_int_eq(hc_alloc(s, 101 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, src, 4095, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	st = stats();
	ck_assert_uint_eq(st.writes_staged, 1);
	ck_assert_uint_eq(st.writes_pipelined + st.writes_direct, 0);
	ck_assert_int_eq(hc_write(s, b, 0, src, 8 * MIB, HC_ALLOC_OTHER, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_pipelined, 1);
	ck_assert_int_eq(hc_write(s, b, 0, src, 8 * MIB - 1, HC_ALLOC_DEVICE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_staged, 2);
	/* 100 MiB pageable: not staged in one piece, but pipelined through chunks. */
	ck_assert_int_eq(hc_write(s, b, 0, src, 100 * MIB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_pipelined, 2);
	ck_assert_uint_eq(stats().writes_direct, 0);
	ck_assert_int_eq(hc_write(s, b, 0, src, 4095, HC_ALLOC_PINNED, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_direct, 1);
	ck_assert_int_eq(hc_write(s, b, 0, src, 100 * MIB + 1, HC_ALLOC_FILE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_pipelined, 3);
	ck_assert_int_eq(hc_write(s, b, 0, src, 4095, HC_ALLOC_FILE, NULL, NULL), HC_OK);
	st = stats();
	ck_assert_uint_eq(st.writes_staged, 3);
	ck_assert_uint_eq(st.writes_direct, 1);
	ck_assert_uint_eq(st.writes_pipelined, 3);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	free(src);
}
END_TEST

START_TEST(stage_max_policy_moves_the_limit_of_writes_only)
{
	unsigned char src[8192] = { 1 };
	hc_policy p = { 0, 0, 4096 };
	hc_buffer b;

	ck_assert_int_eq(hc_alloc(s, 8192, &b), HC_OK);
	ck_assert_int_eq(hc_device_set_policy(dev, &p), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, src, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_direct, 1);
	ck_assert_int_eq(hc_write(s, b, 0, src, 4095, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_staged, 1);
	/* the public decision is the seed's, whatever the policy */
	ck_assert(hc_staging_of(4096, HC_ALLOC_NATIVE).through_pinned);
	p.stage_max_bytes = 0;
	ck_assert_int_eq(hc_device_set_policy(dev, &p), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, src, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().writes_staged, 2);
	ck_assert_int_eq(hc_device_set_policy(dev, NULL), HC_ERR_INVALID);
}
END_TEST

/* The pipeline's copy workers run memcpy only: the virtual clock is the
 * same on every run with the same seed, and exact. */
START_TEST(pipelined_write_keeps_virtual_time_deterministic)
{
	uint64_t n = 50 * MIB + 3, t[2];
	unsigned char *src = malloc(n), *dst = malloc(n);

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	pattern(src, n, 77);
	for (int run = 0; run < 2; run++) {
		hc_device d;
		hc_stream st;
		hc_buffer b;
		hc_device_options o;

		hc_device_options_init(&o);
		o.data_mode = true;
		o.seed = 5;
		o.capacity = 512 * MIB;
		ck_assert_int_eq(hc_device_open("sim", &o, &d), HC_OK);
		ck_assert_int_eq(hc_stream_open(d, &st), HC_OK);
		ck_assert_int_eq(hc_alloc(st, n, &b), HC_OK);
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(hc_write(st, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
		ck_assert_int_eq(hc_sync(st), HC_OK);
		ck_assert_int_eq(hc_device_now(d, &t[run]), HC_OK);
		memset(dst, 0, n);
		ck_assert_int_eq(hc_read(st, b, 0, dst, n, NULL), HC_OK);
		ck_assert_int_eq(memcmp(src, dst, n), 0);
		ck_assert_int_eq(hc_device_close(d), HC_OK);
	}
	ck_assert_uint_eq(t[0], t[1]);
	ck_assert_uint_gt(t[0], 0);
	free(src);
	free(dst);
}
END_TEST

/* --- release callbacks ---------------------------------------------------- */

/* Without data mode the simulator moves no bytes, its staging copies
 * included: a read leaves its destination as it was.  The time charged is
 * the model's all the same, so both devices' clocks agree after every
 * call (a staged write, a pipelined one, a bounced read). */
START_TEST(timing_mode_moves_no_bytes_at_the_same_time)
{
	const uint64_t n = 16 * MIB, small = 64 * 1024;
	unsigned char *src = malloc(n), *dst[2] = { malloc(n), malloc(n) };
	hc_device d[2];
	hc_stream st[2];
	hc_buffer b[2];
	uint64_t t[2];

	ck_assert(src && dst[0] && dst[1]);
	pattern(src, n, 7);
	for (int m = 0; m < 2; m++) {
		hc_device_options o;

		ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
		o.data_mode = m == 1;
		ck_assert_int_eq(hc_device_open("sim", &o, &d[m]), HC_OK);
		ck_assert_int_eq(hc_stream_open(d[m], &st[m]), HC_OK);
		ck_assert_int_eq(hc_alloc(st[m], n, &b[m]), HC_OK);
		memset(dst[m], 0x5a, n);
	}
	for (int step = 0; step < 4; step++) {
		for (int m = 0; m < 2; m++) {
			if (step == 0)
				ck_assert_int_eq(hc_write(st[m], b[m], 0, src, small, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
			else if (step == 1)
				ck_assert_int_eq(hc_write(st[m], b[m], small, src + small, n - small,
							  HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
			else if (step == 2)
				ck_assert_int_eq(hc_read(st[m], b[m], 0, dst[m], small, NULL), HC_OK);
			else
				ck_assert_int_eq(hc_read(st[m], b[m], small, dst[m] + small, n - small, NULL), HC_OK);
			ck_assert_int_eq(hc_device_now(d[m], &t[m]), HC_OK);
		}
		ck_assert_uint_eq(t[0], t[1]);
	}
	ck_assert_uint_gt(t[0], 0);
	ck_assert_int_eq(memcmp(dst[1], src, n), 0); /* data mode: the bytes */
	for (uint64_t i = 0; i < n; i++)              /* timing mode: untouched */
		if (dst[0][i] != 0x5a)
			ck_abort_msg("timing mode wrote byte %llu of the read's destination",
				     (unsigned long long)i);
	for (int m = 0; m < 2; m++) {
		ck_assert_int_eq(hc_free(b[m]), HC_OK);
		ck_assert_int_eq(hc_device_close(d[m]), HC_OK);
		free(dst[m]);
	}
	free(src);
}
END_TEST

START_TEST(release_runs_once_after_the_fence)
{
	unsigned char *src = calloc(1, 4 * MIB);
	hc_buffer b;
	uint64_t queued;

	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &b), HC_OK);
	released = 0;
	/* direct (PINNED): the caller's until the copy's fence */
	ck_assert_int_eq(hc_write(s, b, 0, src, 4 * MIB, HC_ALLOC_PINNED, count_release, &dev),
			 HC_OK);
	ck_assert_int_eq(hc_device_now(dev, &queued), HC_OK);
	ck_assert_int_eq(released, 0);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(released, 1);
	/* the copy of 4 MiB takes virtual time: released after it was queued */
	ck_assert_uint_gt(released_at, queued);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(released, 1);
	/* staged: reusable (released) when the call returns */
	ck_assert_int_eq(hc_write(s, b, 0, src, 4096, HC_ALLOC_NATIVE, count_release, NULL), HC_OK);
	ck_assert_int_eq(released, 2);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(released, 2);
	/* closing the stream releases what its queue still holds, once */
	ck_assert_int_eq(hc_write(s, b, 0, src, 4096, HC_ALLOC_PINNED, count_release, NULL), HC_OK);
	ck_assert_int_eq(released, 2);
	ck_assert_int_eq(hc_stream_close(s), HC_OK);
	ck_assert_int_eq(released, 3);
	free(src);
}
END_TEST

/* --- cross-stream -------------------------------------------------------- */

START_TEST(cross_stream_waits_exactly_when_needed)
{
	hc_stream b2;
	hc_buffer x;
	unsigned char in[4096], out[4096];

	ck_assert_int_eq(hc_stream_open(dev, &b2), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 4096, &x), HC_OK);
	pattern(in, sizeof(in), 1);
	ck_assert_int_eq(hc_write(s, x, 0, in, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 0);
	ck_assert_int_eq(hc_read(b2, x, 0, out, 4096, NULL), HC_OK);
	ck_assert_mem_eq(in, out, 4096);
	ck_assert_uint_eq(stats().xstream_waits, 1);
	ck_assert_int_eq(hc_read(b2, x, 0, out, 4096, NULL), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 1); /* nothing new on the origin */
	/* the origin's own reads never wait */
	ck_assert_int_eq(hc_read(s, x, 0, out, 4096, NULL), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 1);
	pattern(in, sizeof(in), 2);
	ck_assert_int_eq(hc_write(s, x, 0, in, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_read(b2, x, 0, out, 4096, NULL), HC_OK);
	ck_assert_mem_eq(in, out, 4096);
	ck_assert_uint_eq(stats().xstream_waits, 2);
	ck_assert_uint_ge(stats().stream_waits, 2);
	ck_assert_int_eq(hc_sync(b2), HC_OK);
}
END_TEST

START_TEST(write_into_another_streams_buffer)
{
	hc_stream b2;
	hc_buffer x;
	unsigned char in[1000], out[1000];

	ck_assert_int_eq(hc_stream_open(dev, &b2), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(in), &x), HC_OK);
	pattern(in, sizeof(in), 9);
	/* the allocation stamped it: the first use from b2 waits */
	ck_assert_int_eq(hc_write(b2, x, 0, in, sizeof(in), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 1);
	ck_assert_int_eq(hc_read(b2, x, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 1);
	ck_assert_mem_eq(in, out, sizeof(in));
	ck_assert_int_eq(hc_sync(b2), HC_OK);
	ck_assert_int_eq(hc_read(s, x, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_mem_eq(in, out, sizeof(in));
	/* the origin closes while b2's queue still pins its buffer */
	ck_assert_int_eq(hc_write(b2, x, 0, in, sizeof(in), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_stream_close(s), HC_OK);
	ck_assert_int_eq(hc_write(b2, x, 0, in, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(b2), HC_OK);
	ck_assert_int_eq(hc_stream_close(b2), HC_OK);
}
END_TEST

START_TEST(buffer_freed_while_another_stream_uses_it)
{
	hc_stream b2;
	hc_buffer x, y, z;
	hc_buffer_info xi, zi;
	hc_kernel copy;
	unsigned char in[1 << 16], out[1 << 16];
	hc_binding bd[2];
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 }, .bindings = bd,
			     .n_bindings = 2, .duration_hint_ns = 1000000 };

	ck_assert_int_eq(hc_stream_open(dev, &b2), HC_OK);
	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, "copy", &copy), HC_OK);
	l.kernel = copy;
	ck_assert_int_eq(hc_alloc(s, sizeof(in), &x), HC_OK);
	ck_assert_int_eq(hc_alloc(b2, sizeof(in), &y), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(x, &xi), HC_OK);
	pattern(in, sizeof(in), 3);
	ck_assert_int_eq(hc_write(s, x, 0, in, sizeof(in), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	bd[0] = (hc_binding){ x, 0, sizeof(in), HC_ACCESS_READ };
	bd[1] = (hc_binding){ y, 0, sizeof(in), HC_ACCESS_WRITE };
	ck_assert_int_eq(hc_launch(b2, &l), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 1);
	ck_assert_int_eq(hc_free(x), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(x, &xi), HC_ERR_STALE);
	/* the origin may not reuse x's memory before b2's fence */
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(hc_alloc(s, sizeof(in), &z), HC_OK);
		ck_assert_int_eq(hc_buffer_info_get(z, &zi), HC_OK);
		ck_assert_uint_ne(zi.device_address, xi.device_address);
		ck_assert_int_eq(hc_free(z), HC_OK);
	}
	ck_assert_int_eq(hc_sync(b2), HC_OK);
	ck_assert_int_eq(hc_read(b2, y, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_mem_eq(in, out, sizeof(in));
	/* after the fence the unpin reached the origin: the memory is reused */
	ck_assert_int_eq(hc_alloc(s, sizeof(in), &z), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(z, &zi), HC_OK);
	ck_assert_uint_eq(zi.device_address, xi.device_address);
}
END_TEST

/* --- drop queue ------------------------------------------------------------ */

START_TEST(drop_queue_flush_cycles_through_writes)
{
	unsigned char *src = calloc(1, 10 * MIB + 1);
	hc_buffer b;
	uint64_t w0;

	ck_assert_int_eq(hc_alloc(s, 10 * MIB + 1, &b), HC_OK);
	w0 = stats().host_waits;
	/* > 10 MiB: each write flushes after it */
	ck_assert_int_eq(hc_write(s, b, 0, src, 10 * MIB + 1, HC_ALLOC_PINNED, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().dq_flushes, 1);
	ck_assert_uint_eq(stats().host_waits, w0); /* the first flush does not wait */
	ck_assert_int_eq(hc_write(s, b, 0, src, 10 * MIB + 1, HC_ALLOC_PINNED, count_release, NULL),
			 HC_OK);
	ck_assert_uint_eq(stats().host_waits, w0 + 1); /* the second does */
	for (int i = 2; i < 10; i++)
		ck_assert_int_eq(hc_write(s, b, 0, src, 10 * MIB + 1, HC_ALLOC_PINNED, NULL, NULL),
				 HC_OK);
	ck_assert_uint_eq(stats().dq_flushes, 10);
	ck_assert_uint_eq(stats().host_waits, w0 + 9);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	free(src);
}
END_TEST

START_TEST(drop_queue_count_limit_triggers)
{
	unsigned char src[64] = { 0 };
	hc_policy p = { 3, 0, 0 };
	hc_buffer b;

	ck_assert_int_eq(hc_alloc(s, 64, &b), HC_OK);
	ck_assert_int_eq(hc_device_set_policy(dev, &p), HC_OK); /* the open stream too */
	ck_assert_int_eq(hc_write(s, b, 0, src, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, src, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().dq_flushes, 0);
	ck_assert_int_eq(hc_write(s, b, 0, src, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().dq_flushes, 1);
}
END_TEST

START_TEST(drop_queue_byte_limit_triggers)
{
	unsigned char src[4096] = { 0 };
	hc_policy p = { 0, 8192, 0 };
	hc_stream s2;
	hc_buffer b;

	ck_assert_int_eq(hc_device_set_policy(dev, &p), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK); /* opened after: gets it too */
	ck_assert_int_eq(hc_alloc(s2, 4096, &b), HC_OK);
	ck_assert_int_eq(hc_write(s2, b, 0, src, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().dq_flushes, 0);
	ck_assert_int_eq(hc_write(s2, b, 0, src, 4096, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_uint_eq(stats().dq_flushes, 1);
}
END_TEST

/* --- launches ---------------------------------------------------------------- */

static hc_kernel kern(const char *name)
{
	hc_kernel k;

	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, name, &k), HC_OK);
	return k;
}

START_TEST(launch_builtin_kernels)
{
	hc_buffer a, b, c;
	uint32_t va[256], vb[256], out[256];
	uint64_t info = 0xdeadbeefull | (4ull << 32);
	hc_binding bd[3];
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 256, 1, 1 }, .bindings = bd };

	ck_assert_int_eq(hc_alloc(s, sizeof(va), &a), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(vb), &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(out), &c), HC_OK);
	/* fill(a, info) */
	l.kernel = kern("fill");
	bd[0] = (hc_binding){ a, 0, sizeof(va), HC_ACCESS_WRITE };
	l.n_bindings = 1, l.info = &info, l.info_words = 1;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(out[i], 0xdeadbeefu);
	/* copy(a, b) on an offset range */
	l.kernel = kern("copy");
	bd[0] = (hc_binding){ a, 16, 64, HC_ACCESS_READ };
	bd[1] = (hc_binding){ b, 32, 64, HC_ACCESS_WRITE };
	l.n_bindings = 2, l.info = NULL, l.info_words = 0;
	for (int i = 0; i < 256; i++)
		vb[i] = (uint32_t)i;
	ck_assert_int_eq(hc_write(s, b, 0, vb, sizeof(vb), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_read(s, b, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(out[i], i >= 8 && i < 24 ? 0xdeadbeefu : (uint32_t)i);
	/* add(a, b, c) */
	for (int i = 0; i < 256; i++)
		va[i] = 1000u * (uint32_t)i, vb[i] = 0xffffffffu - (uint32_t)i;
	ck_assert_int_eq(hc_write(s, a, 0, va, sizeof(va), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, vb, sizeof(vb), HC_ALLOC_PINNED, NULL, NULL), HC_OK);
	l.kernel = kern("add");
	bd[0] = (hc_binding){ a, 0, sizeof(va), HC_ACCESS_READ };
	bd[1] = (hc_binding){ b, 0, sizeof(vb), HC_ACCESS_READ };
	bd[2] = (hc_binding){ c, 0, sizeof(out), HC_ACCESS_WRITE };
	l.n_bindings = 3;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_read(s, c, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(out[i], va[i] + vb[i]);
	ck_assert_uint_eq(stats().launches, 3);
}
END_TEST

START_TEST(launch_binds_buffers_of_three_streams)
{
	hc_stream sa, sb;
	hc_buffer a, b, c;
	uint32_t va[64], vb[64], out[64];
	hc_binding bd[3];
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 }, .bindings = bd,
			     .n_bindings = 3 };

	/* the consumer s has the lowest slot; the origins come after it */
	ck_assert_int_eq(hc_stream_open(dev, &sb), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &sa), HC_OK);
	ck_assert_int_eq(hc_alloc(sa, sizeof(va), &a), HC_OK);
	ck_assert_int_eq(hc_alloc(sb, sizeof(vb), &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(out), &c), HC_OK);
	for (int i = 0; i < 64; i++)
		va[i] = (uint32_t)i << 8, vb[i] = (uint32_t)i;
	ck_assert_int_eq(hc_write(sa, a, 0, va, sizeof(va), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(sb, b, 0, vb, sizeof(vb), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	l.kernel = kern("add");
	bd[0] = (hc_binding){ a, 0, sizeof(va), HC_ACCESS_READ };
	bd[1] = (hc_binding){ b, 0, sizeof(vb), HC_ACCESS_READ };
	bd[2] = (hc_binding){ c, 0, sizeof(out), HC_ACCESS_WRITE };
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 2);
	ck_assert_int_eq(hc_read(s, c, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(out[i], va[i] + vb[i]);
	/* both origins free their buffers; they come back only after s's fence */
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_stream_close(sa), HC_OK);
	ck_assert_int_eq(hc_stream_close(sb), HC_OK);
}
END_TEST

START_TEST(info_cache_hits_on_identical_words)
{
	hc_buffer a;
	uint64_t info[2] = { 0x11223344ull | (4ull << 32), 0 }, other = 0x55ull | (1ull << 32);
	uint32_t out[16];
	hc_binding bd = { { 0 }, 0, sizeof(out), HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 16, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = info, .info_words = 2 };

	ck_assert_int_eq(hc_alloc(s, sizeof(out), &a), HC_OK);
	bd.buffer = a;
	l.kernel = kern("fill");
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_misses, 1);
	ck_assert_uint_eq(stats().cache_hits, 0);
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_hits, 1);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(out[15], 0x11223344u);
	/* different words: a miss, and the kernel sees them */
	l.info = &other, l.info_words = 1;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_misses, 2);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(out[3], 0x55555555u);
	l.info = info, l.info_words = 2;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_hits, 2);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(out[0], 0x11223344u);
}
END_TEST

START_TEST(large_info_bypasses_the_cache)
{
	hc_buffer a;
	static uint64_t info[300]; /* 2400 bytes: above the 2048-byte limit */
	uint32_t out[8];
	hc_binding bd = { { 0 }, 0, sizeof(out), HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 8, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = info, .info_words = 300 };

	ck_assert_int_eq(hc_alloc(s, sizeof(out), &a), HC_OK);
	bd.buffer = a;
	l.kernel = kern("fill");
	for (uint32_t v = 1; v <= 3; v++) {
		info[0] = (uint64_t)(0x01010101u * v) | (4ull << 32);
		ck_assert_int_eq(hc_launch(s, &l), HC_OK);
		ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
		ck_assert_uint_eq(out[7], 0x01010101u * v);
	}
	ck_assert_int_eq(hc_launch(s, &l), HC_OK); /* same words again: still not cached */
	ck_assert_uint_eq(stats().cache_hits, 0);
	ck_assert_uint_eq(stats().cache_misses, 0);
	ck_assert_int_eq(hc_sync(s), HC_OK);
}
END_TEST

/* --- failures on the way: nothing leaks, the caller keeps its source ------ */

START_TEST(pinned_memory_refused)
{
	hc_stream s2;
	hc_buffer b;
	unsigned char *src = calloc(1, 16 * MIB), out[64];

	ck_assert_ptr_nonnull(src);
	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK); /* its pinned pool is empty */
	ck_assert_int_eq(hc_alloc(s2, 16 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 1, HC_FAULT_PERSISTENT), HC_OK);
	released = 0;
	ck_assert_int_eq(hc_write(s2, b, 0, src, 4096, HC_ALLOC_NATIVE, count_release, NULL),
			 HC_ERR_OOM);
	ck_assert_int_eq(hc_write(s2, b, 0, src, 16 * MIB, HC_ALLOC_NATIVE, count_release, NULL),
			 HC_ERR_OOM);
	ck_assert_int_eq(hc_read(s2, b, 0, out, sizeof(out), NULL), HC_ERR_OOM);
	ck_assert_int_eq(released, 0); /* a failed write leaves the source to the caller */
	/* unstaged writes need no pinned memory */
	ck_assert_int_eq(hc_write(s2, b, 0, src, 4096, HC_ALLOC_PINNED, count_release, NULL), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 0, HC_FAULT_OFF), HC_OK);
	memset(src, 0x3c, 64);
	ck_assert_int_eq(hc_write(s2, b, 0, src, 16 * MIB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s2, b, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_mem_eq(out, src, sizeof(out));
	ck_assert_int_eq(hc_sync(s2), HC_OK);
	ck_assert_int_eq(released, 1);
	free(src);
}
END_TEST

/* A transfer failing in the middle of a pipelined write.  The failure
 * surfaces at a fence: the write's own wait for a ring slot (then the
 * chunks whose copies were already queued to the copy workers must be
 * waited for before their pinned slots go back; ASan sees a copy left
 * running into freed memory), or the next sync.  Either way it is
 * reported, no pinned slot leaks, and the stream works on. */
START_TEST(pipelined_write_fails_midway)
{
	const uint64_t n = 40 * MIB; /* five chunks of 8 MiB: more than the ring holds */
	unsigned char *src = malloc(n), *out = malloc(n);
	hc_memory_usage u;
	hc_buffer b;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(hc_alloc(s, n, &b), HC_OK);
	for (unsigned nth = 1; nth <= 5; nth++) {
		uint64_t failures = stats().failures;
		hc_failure_id f;
		char text[512];
		hc_status w, y;

		pattern(src, n, 11 + nth);
		ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_COPY, nth, HC_FAULT_ONCE), HC_OK);
		w = hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL);
		ck_assert_msg(w == HC_OK || w == HC_ERR_DEVICE, "copy %u: %s", nth, hc_status_str(w));
		y = hc_sync(s);
		ck_assert_msg(w == HC_ERR_DEVICE || y == HC_ERR_DEVICE,
			      "copy %u failed and neither the write nor the sync said so", nth);
		/* one fault, one failure, named after the write; its range tainted */
		ck_assert_uint_eq(stats().failures, failures + 1);
		ck_assert_int_eq(hc_read(s, b, 0, out, 64, &f), HC_ERR_TAINTED);
		ck_assert_uint_eq(f, failures + 1);
		ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
		ck_assert_msg(strstr(text, "write of 41943040 bytes at 0 failed") != NULL, "%s", text);
		ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_PINNED, &u), HC_OK);
		ck_assert_uint_eq(u.number_allocs, 0);
		/* a whole write clears the range's taint */
		ck_assert_int_eq(hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
		memset(out, 0, n);
		ck_assert_int_eq(hc_read(s, b, 0, out, n, NULL), HC_OK);
		ck_assert_msg(memcmp(out, src, n) == 0, "bytes differ after a failure at copy %u", nth);
	}
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	free(src);
	free(out);
}
END_TEST

START_TEST(info_buffer_refused)
{
	hc_stream s2;
	hc_buffer a;
	uint64_t info = 7 | (4ull << 32);
	hc_binding bd = { { 0 }, 0, 64, HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = &info, .info_words = 1 };

	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 64, &a), HC_OK);
	bd.buffer = a;
	l.kernel = kern("fill");
	/* the pinned bounce of the info words is refused: nothing queued */
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 1, HC_FAULT_PERSISTENT), HC_OK);
	ck_assert_int_eq(hc_launch(s2, &l), HC_ERR_OOM);
	ck_assert_uint_eq(stats().launches, 0);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 0, HC_FAULT_OFF), HC_OK);
	ck_assert_int_eq(hc_launch(s2, &l), HC_OK);
	ck_assert_uint_eq(stats().launches, 1);
	ck_assert_uint_eq(stats().cache_misses, 2); /* the failed upload cached nothing */
	ck_assert_uint_eq(stats().cache_hits, 0);
	ck_assert_int_eq(hc_sync(s2), HC_OK);
}
END_TEST

/* --- bad input ------------------------------------------------------------------ */

START_TEST(bad_input_matrix)
{
	hc_device d2;
	hc_stream s2, s3;
	hc_buffer b, other, stale;
	hc_kernel kfill, kother;
	unsigned char buf[128] = { 0 };
	uint64_t info = 1 | (4ull << 32);
	hc_binding bd = { { 0 }, 0, 64, HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = &info, .info_words = 1 };
	hc_device_options o;

	ck_assert_int_eq(hc_alloc(s, 64, &b), HC_OK);
	bd.buffer = b;
	ck_assert_int_eq(hc_alloc(s, 64, &stale), HC_OK);
	ck_assert_int_eq(hc_free(stale), HC_OK);
	hc_device_options_init(&o);
	o.data_mode = true;
	ck_assert_int_eq(hc_device_open("sim", &o, &d2), HC_OK);
	ck_assert_int_eq(hc_stream_open(d2, &s2), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 64, &other), HC_OK);
	ck_assert_int_eq(hc_kernel_load(d2, NULL, 0, "fill", &kother), HC_OK);
	kfill = kern("fill");
	l.kernel = kfill;

	/* ranges */
	ck_assert_int_eq(hc_write(s, b, 1, buf, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "past the buffer"));
	ck_assert_int_eq(hc_write(s, b, 65, buf, 0, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_write(s, b, UINT64_MAX, buf, 2, HC_ALLOC_NATIVE, NULL, NULL),
			 HC_ERR_INVALID);
	ck_assert_int_eq(hc_read(s, b, 60, buf, 5, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_read(s, b, 2, buf, UINT64_MAX, NULL), HC_ERR_INVALID);
	/* zero size: OK after the handles check out */
	ck_assert_int_eq(hc_write(s, b, 64, NULL, 0, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s, b, 64, NULL, 0, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s, stale, 0, NULL, 0, NULL), HC_ERR_STALE);
	/* NULL */
	ck_assert_int_eq(hc_write(s, b, 0, NULL, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_read(s, b, 0, NULL, 4, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_launch(s, NULL), HC_ERR_INVALID);
	/* property */
	ck_assert_int_eq(hc_write(s, b, 0, buf, 4, (hc_alloc_property)9, NULL, NULL),
			 HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "property"));
	/* another device's buffer */
	ck_assert_int_eq(hc_write(s, other, 0, buf, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "another device"));
	ck_assert_int_eq(hc_read(s, other, 0, buf, 4, NULL), HC_ERR_INVALID);
	bd.buffer = other;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	bd.buffer = b;
	/* stale buffer, stale stream */
	ck_assert_int_eq(hc_write(s, stale, 0, buf, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_read(s, stale, 0, buf, 4, NULL), HC_ERR_STALE);
	bd.buffer = stale;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_STALE);
	bd.buffer = b;
	ck_assert_int_eq(hc_stream_open(dev, &s3), HC_OK);
	ck_assert_int_eq(hc_stream_close(s3), HC_OK);
	ck_assert_int_eq(hc_write(s3, b, 0, buf, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_read(s3, b, 0, buf, 4, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_launch(s3, &l), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(s3), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync((hc_stream){ 0 }), HC_ERR_STALE);
	/* kernel of another device, unknown kernel */
	l.kernel = kother;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "another device"));
	l.kernel = (hc_kernel){ 0 };
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_STALE);
	l.kernel = kfill;
	/* descriptor */
	bd.access = (hc_access)0;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	bd.access = HC_ACCESS_WRITE;
	bd.offset = 32, bd.size = 33;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	bd.offset = 0, bd.size = 64;
	l.info = NULL;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	l.info = &info;
	l.grid[1] = 0;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	l.grid[1] = 1;
	l.bindings = NULL;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	l.bindings = &bd;
	ck_assert_uint_eq(stats().launches, 0);
	ck_assert_uint_eq(stats().copies_h2d, 0);
	/* still usable */
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_device_close(d2), HC_OK);
}
END_TEST

Suite *streams_suite(void)
{
	Suite *su = suite_create("streams");
	TCase *tc = tcase_create("ops");

	tcase_add_checked_fixture(tc, setup, sim_device_close);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, round_trip_every_threshold, 0, 5 * (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, staging_stats_per_decision);
	tcase_add_test(tc, stage_max_policy_moves_the_limit_of_writes_only);
	tcase_add_test(tc, pipelined_write_keeps_virtual_time_deterministic);
	tcase_add_test(tc, pipelined_write_fails_midway);
	tcase_add_test(tc, timing_mode_moves_no_bytes_at_the_same_time);
	tcase_add_test(tc, release_runs_once_after_the_fence);
	tcase_add_test(tc, cross_stream_waits_exactly_when_needed);
	tcase_add_test(tc, buffer_freed_while_another_stream_uses_it);
	tcase_add_test(tc, write_into_another_streams_buffer);
	tcase_add_test(tc, drop_queue_flush_cycles_through_writes);
	tcase_add_test(tc, drop_queue_count_limit_triggers);
	tcase_add_test(tc, drop_queue_byte_limit_triggers);
	tcase_add_test(tc, launch_builtin_kernels);
	tcase_add_test(tc, launch_binds_buffers_of_three_streams);
	tcase_add_test(tc, info_cache_hits_on_identical_words);
	tcase_add_test(tc, large_info_bypasses_the_cache);
	tcase_add_test(tc, bad_input_matrix);
	tcase_add_test(tc, pinned_memory_refused);
	tcase_add_test(tc, info_buffer_refused);
	suite_add_tcase(su, tc);
	return su;
}

HC_TEST_PROGRAM(streams_suite);
