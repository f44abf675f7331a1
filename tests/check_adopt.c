/*
 * check_adopt.c - streams the caller owns (hc_stream_adopt), holds from
 * other streams (hc_buffer_hold), the device memory limit, idle release and
 * the minimum alignment, on the simulator: the public calls a framework's
 * allocator plug-in is built from (torch/hipcore_torch.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/runner.h"

#define MiB (1024ull * 1024)

static hc_device dev;

static void setup(void)
{
	ck_assert_int_eq(hc_device_open("sim", NULL, &dev), HC_OK);
}

static void teardown(void)
{
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}

static const char *msg(void)
{
	static hc_error_info e;

	hc_last_error(&e);
	return e.message;
}

static uint64_t live_slices(void)
{
	hc_memory_usage u;

	ck_assert_int_eq(hc_device_memory_usage(dev, HC_MEMORY_DEVICE, &u), HC_OK);
	return u.number_allocs;
}

START_TEST(adopted_stream_works_like_an_opened_one)
{
	hc_stream a, b;
	hc_buffer x;
	hc_buffer_info info;

	ck_assert_int_eq(hc_stream_adopt(dev, (void *)0x40, &a), HC_OK);
	ck_assert_int_eq(hc_stream_adopt(dev, NULL, &b), HC_OK); /* the default stream */
	ck_assert_uint_ne(a.id, b.id);
	ck_assert_int_eq(hc_alloc(a, 3 * MiB, &x), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(x, &info), HC_OK);
	ck_assert_uint_eq(info.stream.id, a.id);
	ck_assert_int_eq(hc_write(a, x, 0, "abc", 3, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_sync(a), HC_OK);
	ck_assert_int_eq(hc_free(x), HC_OK);
	ck_assert_int_eq(hc_stream_close(a), HC_OK);
	ck_assert_int_eq(hc_stream_close(b), HC_OK);
	/* once closed, the same native handle may be adopted again */
	ck_assert_int_eq(hc_stream_adopt(dev, (void *)0x40, &a), HC_OK);
	ck_assert_int_eq(hc_stream_close(a), HC_OK);
}
END_TEST

START_TEST(one_native_stream_is_adopted_once)
{
	hc_stream a, again, other;

	ck_assert_int_eq(hc_stream_adopt(dev, (void *)0x40, &a), HC_OK);
	ck_assert_int_eq(hc_stream_adopt(dev, (void *)0x40, &again), HC_ERR_STATE);
	ck_assert_uint_eq(again.id, 0);
	ck_assert_ptr_nonnull(strstr(msg(), "already stream"));
	ck_assert_int_eq(hc_stream_open(dev, &other), HC_OK); /* its own: no clash */
	ck_assert_int_eq(hc_stream_adopt(dev, (void *)0x40, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_stream_adopt((hc_device){ 0 }, (void *)0x50, &again), HC_ERR_STALE);
}
END_TEST

/* The hold keeps the block from its origin until the holder's fence. */
START_TEST(hold_keeps_the_block_until_the_holders_fence)
{
	hc_stream a, b;
	hc_buffer x, y;
	hc_buffer_info xi, yi;

	ck_assert_int_eq(hc_stream_open(dev, &a), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &b), HC_OK);
	ck_assert_int_eq(hc_alloc(a, MiB, &x), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(x, &xi), HC_OK);
	ck_assert_int_eq(hc_buffer_hold(x, a), HC_OK); /* its own stream: nothing */
	ck_assert_int_eq(hc_buffer_hold(x, b), HC_OK);
	ck_assert_int_eq(hc_free(x), HC_OK);
	ck_assert_int_eq(hc_free(x), HC_ERR_STALE); /* freed for the user */
	ck_assert_uint_eq(live_slices(), 1);
	ck_assert_int_eq(hc_alloc(a, MiB, &y), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(y, &yi), HC_OK);
	ck_assert_uint_ne(yi.device_address, xi.device_address);
	/* b's next flushes pass its fence; a's next call drains the unpin */
	ck_assert_int_eq(hc_memory_cleanup(b), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(a), HC_OK);
	ck_assert_uint_eq(live_slices(), 1);
	ck_assert_int_eq(hc_free(y), HC_OK);
	ck_assert_uint_eq(live_slices(), 0);
}
END_TEST

START_TEST(hold_checks_its_arguments)
{
	hc_stream a;
	hc_buffer x;

	ck_assert_int_eq(hc_stream_open(dev, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(a, 64, &x), HC_OK);
	ck_assert_int_eq(hc_buffer_hold((hc_buffer){ 0 }, a), HC_ERR_STALE);
	ck_assert_int_eq(hc_buffer_hold(x, (hc_stream){ 0 }), HC_ERR_STALE);
	ck_assert_int_eq(hc_free(x), HC_OK);
	ck_assert_int_eq(hc_buffer_hold(x, a), HC_ERR_STALE);
}
END_TEST

START_TEST(memory_limit_refuses_then_cleans_up)
{
	hc_stream a;
	hc_buffer x, y, z;
	uint64_t idle = 0;

	ck_assert_int_eq(hc_stream_open(dev, &a), HC_OK);
	ck_assert_int_eq(hc_device_set_memory_limit(dev, 256 * MiB), HC_OK);
	ck_assert_int_eq(hc_alloc(a, 512 * MiB, &x), HC_ERR_OOM);
	ck_assert_ptr_nonnull(strstr(msg(), "device memory limit of 268435456 bytes"));
	ck_assert_int_eq(hc_alloc(a, 200 * MiB, &x), HC_OK);
	ck_assert_int_eq(hc_free(x), HC_OK);
	/* the freed 200 MiB, pooled or idle, is given back for a larger
	 * request that fits the cap only without it */
	ck_assert_int_eq(hc_alloc(a, 250 * MiB, &y), HC_OK);
	ck_assert_int_eq(hc_alloc(a, 8 * MiB, &z), HC_ERR_OOM);
	ck_assert_int_eq(hc_free(y), HC_OK);
	ck_assert_int_eq(hc_device_set_memory_limit(dev, 0), HC_OK);
	ck_assert_int_eq(hc_alloc(a, 512 * MiB, &x), HC_OK);
	ck_assert_int_eq(hc_free(x), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(a), HC_OK);
	ck_assert_int_eq(hc_device_idle_release(dev), HC_OK);
	ck_assert_int_eq(hc_device_idle_bytes(dev, &idle), HC_OK);
	ck_assert_uint_eq(idle, 0);
	ck_assert_int_eq(hc_device_set_memory_limit((hc_device){ 0 }, 1), HC_ERR_STALE);
	ck_assert_int_eq(hc_device_idle_release((hc_device){ 0 }), HC_ERR_STALE);
}
END_TEST

START_TEST(min_alignment_raises_the_devices)
{
	hc_device_options o;
	hc_device d2;
	hc_device_info info;
	hc_stream s;
	hc_buffer b[8];
	hc_buffer_info bi;

	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.min_alignment = 3000;
	ck_assert_int_eq(hc_device_open("sim", &o, &d2), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(msg(), "power of two"));
	o.min_alignment = 4096;
	ck_assert_int_eq(hc_device_open("sim", &o, &d2), HC_OK);
	ck_assert_int_eq(hc_device_info_get(d2, &info), HC_OK);
	ck_assert_uint_eq(info.alignment, 4096);
	ck_assert_int_eq(hc_stream_open(d2, &s), HC_OK);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(hc_alloc(s, (uint64_t)(i * 777 + 1), &b[i]), HC_OK);
		ck_assert_int_eq(hc_buffer_info_get(b[i], &bi), HC_OK);
		ck_assert_uint_eq(bi.device_address % 4096, 0);
	}
	ck_assert_int_eq(hc_device_close(d2), HC_OK);
	/* an options struct of the size before min_alignment is still taken */
	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.struct_size = (uint32_t)offsetof(hc_device_options, min_alignment);
	ck_assert_int_eq(hc_device_open("sim", &o, &d2), HC_OK);
	ck_assert_int_eq(hc_device_close(d2), HC_OK);
	o.struct_size = 8;
	ck_assert_int_eq(hc_device_open("sim", &o, &d2), HC_ERR_INVALID);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("adopt");
	TCase *t = tcase_create("adopt");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, adopted_stream_works_like_an_opened_one);
	tcase_add_test(t, one_native_stream_is_adopted_once);
	tcase_add_test(t, hold_keeps_the_block_until_the_holders_fence);
	tcase_add_test(t, hold_checks_its_arguments);
	tcase_add_test(t, memory_limit_refuses_then_cleans_up);
	tcase_add_test(t, min_alignment_raises_the_devices);
	suite_add_tcase(s, t);
	return s;
}

HC_TEST_PROGRAM(suite);
