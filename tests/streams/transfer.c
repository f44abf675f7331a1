/*
 * transfer.c - hc_write and hc_read around every staging threshold, the staging
 * statistics and policy, pipelined writes, and timing mode (no bytes moved,
 * the same virtual time).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/streams/streams_suites.h"

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

Suite *streams_transfer_suite(void)
{
	Suite *su = suite_create("transfer");
	TCase *tc = tcase_create("ops"); /* the single file's name */

	tcase_add_checked_fixture(tc, streams_setup, sim_device_close);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, round_trip_every_threshold, 0, 5 * (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, staging_stats_per_decision);
	tcase_add_test(tc, stage_max_policy_moves_the_limit_of_writes_only);
	tcase_add_test(tc, pipelined_write_keeps_virtual_time_deterministic);
	tcase_add_test(tc, timing_mode_moves_no_bytes_at_the_same_time);
	suite_add_tcase(su, tc);
	return su;
}
