/*
 * ordering.c - release callbacks after their fence, and what one stream's work
 * on another's buffers waits for (cross-stream waits and pins).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/streams/streams_suites.h"

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

Suite *streams_ordering_suite(void)
{
	Suite *su = suite_create("ordering");
	TCase *tc = tcase_create("ops"); /* the single file's name */

	tcase_add_checked_fixture(tc, streams_setup, sim_device_close);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, release_runs_once_after_the_fence);
	tcase_add_test(tc, cross_stream_waits_exactly_when_needed);
	tcase_add_test(tc, buffer_freed_while_another_stream_uses_it);
	tcase_add_test(tc, write_into_another_streams_buffer);
	suite_add_tcase(su, tc);
	return su;
}
