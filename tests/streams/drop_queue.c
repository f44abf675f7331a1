/*
 * drop_queue.c - the drop queue's flushes: its cycle through writes, its count and
 * byte limits.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/streams/streams_suites.h"

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

Suite *streams_drop_queue_suite(void)
{
	Suite *su = suite_create("drop_queue");
	TCase *tc = tcase_create("ops"); /* the single file's name */

	tcase_add_checked_fixture(tc, streams_setup, sim_device_close);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, drop_queue_flush_cycles_through_writes);
	tcase_add_test(tc, drop_queue_count_limit_triggers);
	tcase_add_test(tc, drop_queue_byte_limit_triggers);
	suite_add_tcase(su, tc);
	return su;
}
