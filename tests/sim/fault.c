/*
 * fault.c - the simulator's own fault injection (HC_HAL_CTL_FAULT): device
 * and pinned allocations, capacity, launches (seen through events and
 * waits too), copies and fences fail as armed, and bad arming is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Fault injection                                                     */
/* ------------------------------------------------------------------ */

/* Runs @calls allocations of @kind; returns a bitmask of those that failed. */
static unsigned alloc_pattern(hc_hal_dev *dev, bool pinned, int calls)
{
	unsigned mask = 0;

	for (int i = 0; i < calls; i++) {
		hc_status st;
		if (pinned) {
			void *h;
			st = ops->host_alloc(dev, 100, &h);
			if (st == HC_OK)
				ck_assert_int_eq(ops->host_free(dev, h), HC_OK);
		} else {
			hc_hal_dptr d;
			st = ops->mem_alloc(dev, 100, &d);
			if (st == HC_OK)
				ck_assert_int_eq(ops->mem_free(dev, d), HC_OK);
		}
		if (st != HC_OK) {
			ck_assert_int_eq(st, HC_ERR_OOM);
			ck_assert(last_error_has("injected"));
			mask |= 1u << i;
		}
	}
	return mask;
}

static void alloc_fault_case(hc_fault_kind kind, bool pinned)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);

	ck_assert_uint_eq(alloc_pattern(dev, pinned, 2), 0);
	arm(dev, kind, 3, HC_FAULT_ONCE);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 6), 1u << 2);
	arm(dev, kind, 2, HC_FAULT_PERSISTENT);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 5), 0x1eu);
	arm(dev, kind, 0, HC_FAULT_OFF);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 3), 0);
	arm(dev, kind, 1, HC_FAULT_ONCE);
	ck_assert_uint_eq(alloc_pattern(dev, pinned, 2), 1u);
	if (pinned)
		ck_assert_uint_eq(stats(dev).host_allocs, 2 + 5 + 1 + 3 + 1);
	else
		ck_assert_uint_eq(stats(dev).device_allocs, 2 + 5 + 1 + 3 + 1);
	ops->device_close(dev);
}

START_TEST(fault_device_alloc)
{
	alloc_fault_case(HC_FAULT_DEVICE_ALLOC, false);
}
END_TEST

START_TEST(fault_pinned_alloc)
{
	alloc_fault_case(HC_FAULT_PINNED_ALLOC, true);
}
END_TEST

START_TEST(fault_capacity)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b, c;

	arm(dev, HC_FAULT_CAPACITY, 1024, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->mem_alloc(dev, 512, &a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 500, &b), HC_OK); /* 1024 in use: at the ceiling */
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	ck_assert(last_error_has("ceiling 1024"));
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_OK); /* ONCE: disarmed */
	ck_assert_int_eq(ops->mem_free(dev, c), HC_OK);
	arm(dev, HC_FAULT_CAPACITY, 1280, HC_FAULT_PERSISTENT);
	ck_assert_int_eq(ops->mem_alloc(dev, 256, &c), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 512, &a), HC_OK); /* fits under the ceiling again */
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_ERR_OOM);
	arm(dev, HC_FAULT_CAPACITY, 0, HC_FAULT_OFF);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &c), HC_OK);
	ck_assert_uint_eq(stats(dev).device_bytes_live, 512 + 512 + 256 + 256);
	ops->device_close(dev);
}
END_TEST

/* Queues fills of three buffers; each launch call succeeds. */
static void fill_three(struct kfix *k, hc_hal_dptr d[3], hc_hal_dptr info)
{
	for (int i = 0; i < 3; i++) {
		hc_hal_dptr args[2] = { d[i], info };
		uint64_t bytes[2] = { 8, 4 };
		ck_assert_int_eq(run_kernel(k, "fill", 2, args, bytes), HC_OK);
	}
}

static unsigned filled_mask(struct kfix *k, hc_hal_dptr d[3])
{
	unsigned mask = 0;
	unsigned char out[8], zero[8] = { 0 };

	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ops->copy_d2h(k->dev, k->s, out, d[i], 8, false), HC_OK);
		if (memcmp(out, zero, 8) != 0)
			mask |= 1u << i;
		ck_assert_int_eq(ops->copy_h2d(k->dev, k->s, d[i], zero, 8, false), HC_OK);
	}
	return mask;
}

START_TEST(fault_launch)
{
	struct kfix k;
	hc_hal_dptr d[3], info;
	uint32_t v = 0x55555555u;

	kfix_open(&k, true);
	for (int i = 0; i < 3; i++)
		d[i] = dev_with(&k, NULL, 8);
	info = dev_with(&k, &v, 4);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	arm(k.dev, HC_FAULT_LAUNCH, 2, HC_FAULT_ONCE);
	fill_three(&k, d, info);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("kernel 'fill' launch #2"));
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK); /* reported once */
	ck_assert_uint_eq(filled_mask(&k, d), 0x5u);
	arm(k.dev, HC_FAULT_LAUNCH, 2, HC_FAULT_PERSISTENT);
	fill_three(&k, d, info);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("kernel 'fill' launch #5"));
	ck_assert(last_error_has("later failures"));
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_uint_eq(filled_mask(&k, d), 0x1u);
	ck_assert_uint_eq(stats(k.dev).launches, 6);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(fault_launch_reported_through_event_and_wait)
{
	struct kfix k;
	hc_hal_stream *b;
	hc_hal_event *e, *eb;
	hc_hal_function *fn;
	struct hc_hal_launch l = { 0 };

	kfix_open(&k, false);
	ck_assert_int_eq(ops->stream_create(k.dev, &b), HC_OK);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "add", &fn), HC_OK);
	arm(k.dev, HC_FAULT_LAUNCH, 1, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->event_record(k.dev, k.s, &e), HC_OK);
	ck_assert_int_eq(ops->event_wait(k.dev, b, e), HC_OK);
	ck_assert_int_eq(ops->event_record(k.dev, b, &eb), HC_OK);
	ck_assert_int_eq(ops->event_sync(k.dev, eb), HC_ERR_DEVICE);
	ck_assert(last_error_has("kernel 'add' launch #1"));
	ck_assert_int_eq(ops->event_sync(k.dev, e), HC_OK); /* already reported */
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ops->event_destroy(k.dev, e);
	ops->event_destroy(k.dev, eb);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(fault_copy)
{
	struct kfix k;
	hc_hal_dptr d;
	unsigned char one[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, out[8];

	kfix_open(&k, true);
	d = dev_with(&k, NULL, 8);
	arm(k.dev, HC_FAULT_COPY, 1, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->copy_h2d(k.dev, k.s, d, one, 8, false), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("copy #1 (H2D, 8 bytes)"));
	memset(out, 0xee, 8);
	read_back(&k, out, d, 8); /* copy #2 works */
	ck_assert_uint_eq(out[0], 0); /* the failed copy moved nothing */
	arm(k.dev, HC_FAULT_COPY, 2, HC_FAULT_PERSISTENT);
	ck_assert_int_eq(ops->copy_h2d(k.dev, k.s, d, one, 8, false), HC_OK); /* #3 ok */
	memset(out, 0xee, 8);
	ck_assert_int_eq(ops->copy_d2h(k.dev, k.s, out, d, 8, false), HC_OK); /* #4 fails */
	ck_assert_int_eq(ops->copy_d2d(k.dev, k.s, d, d, 8), HC_OK);        /* #5 fails */
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_ERR_DEVICE);
	ck_assert(last_error_has("copy #4 (D2H"));
	ck_assert_uint_eq(out[0], 0xee);
	arm(k.dev, HC_FAULT_COPY, 0, HC_FAULT_OFF);
	read_back(&k, out, d, 8);
	ck_assert_mem_eq(out, one, 8);
	ck_assert_uint_eq(stats(k.dev).copies_h2d, 2);
	ck_assert_uint_eq(stats(k.dev).copies_d2h, 3);
	ck_assert_uint_eq(stats(k.dev).copies_d2d, 1);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(fault_fence)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_event *e;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
	arm(dev, HC_FAULT_FENCE, 2, HC_FAULT_ONCE);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_DEVICE);
	ck_assert(last_error_has("fence #2"));
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	arm(dev, HC_FAULT_FENCE, 2, HC_FAULT_PERSISTENT);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_ERR_DEVICE);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_DEVICE);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_ERR_DEVICE);
	arm(dev, HC_FAULT_FENCE, 0, HC_FAULT_OFF);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_uint_eq(stats(dev).host_waits, 8);
	ops->event_destroy(dev, e);
	ops->device_close(dev);
}
END_TEST

START_TEST(fault_arm_bad_args)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	struct hc_hal_fault_arg f = { HC_FAULT_LAUNCH, 0, HC_FAULT_ONCE };

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_ERR_INVALID);
	f.kind = (hc_fault_kind)99, f.n = 1;
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_ERR_INVALID);
	f.kind = HC_FAULT_COPY, f.mode = (hc_fault_mode)7;
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_FAULT, &f), HC_ERR_INVALID);
	ops->device_close(dev);
}
END_TEST

Suite *sim_fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc;

	tc = tcase_create("fault");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, fault_device_alloc);
	tcase_add_test(tc, fault_pinned_alloc);
	tcase_add_test(tc, fault_capacity);
	tcase_add_test(tc, fault_launch);
	tcase_add_test(tc, fault_launch_reported_through_event_and_wait);
	tcase_add_test(tc, fault_copy);
	tcase_add_test(tc, fault_fence);
	tcase_add_test(tc, fault_arm_bad_args);
	suite_add_tcase(s, tc);
	return s;
}
