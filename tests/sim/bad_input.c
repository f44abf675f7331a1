/*
 * bad_input.c - every op of the simulator's table on bad arguments:
 * refused with a status and a message, nothing changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Bad input                                                           */
/* ------------------------------------------------------------------ */

START_TEST(bad_input)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL), *other = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s, *os;
	hc_hal_dptr d, x;
	hc_hal_event *e = NULL;
	struct hc_hal_props props;
	struct hc_hal_open_args a = { 0 };
	hc_hal_dev *nd = NULL;
	char buf[16];
	uint64_t t;

	ck_assert_int_eq(ops->device_open(NULL, &nd), HC_ERR_INVALID);
	ck_assert_int_eq(ops->device_open(&a, NULL), HC_ERR_INVALID);
	a.ordinal = -1;
	ck_assert_int_eq(ops->device_open(&a, &nd), HC_ERR_INVALID);
	ck_assert_int_eq(ops->device_props(NULL, &props), HC_ERR_INVALID);
	ck_assert_int_eq(ops->device_props(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_alloc(NULL, 8, &d), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_alloc(dev, 0, &d), HC_ERR_INVALID);
	ck_assert(last_error_has("size is 0"));
	ck_assert_int_eq(ops->mem_alloc(dev, 8, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->host_alloc(dev, 0, (void **)&x), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_alloc(dev, 1024, &d), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, 0), HC_ERR_INVALID);
	ck_assert_int_eq(ops->mem_free(dev, d + 256), HC_ERR_INVALID); /* interior */
	ck_assert_int_eq(ops->mem_free(dev, 0xdead000), HC_ERR_INVALID);
	ck_assert(last_error_has("0xdead000"));
	ck_assert_int_eq(ops->host_free(dev, buf), HC_ERR_INVALID);
	ck_assert_int_eq(ops->host_free(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_create(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->stream_create(other, &os), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_sync(dev, os), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d, NULL, 8, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d + 1020, buf, 16, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2h(dev, s, buf, 0x1234, 8, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2h(dev, s, NULL, d, 8, false), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2d(dev, s, d, d + 1024, 8), HC_ERR_INVALID);
	ck_assert_int_eq(ops->copy_d2d(dev, NULL, d, d, 8), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_record(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_record(dev, NULL, &e), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_sync(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_wait(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->event_query(dev, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->capture_begin(dev, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->capture_end(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->graph_launch(dev, s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->ctl(dev, 999, &t), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_NOW_NS, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(ops->ctl(NULL, HC_HAL_CTL_NOW_NS, &t), HC_ERR_INVALID);
	ck_assert_int_eq(ops->stream_destroy(dev, NULL), HC_ERR_INVALID);
	ops->event_destroy(dev, NULL);
	ops->graph_destroy(dev, NULL);
	ops->module_unload(dev, NULL);
	ops->device_close(NULL);
	ck_assert_uint_eq(stats(dev).copies_h2d + stats(dev).copies_d2h + stats(dev).copies_d2d, 0);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, d), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, d), HC_ERR_INVALID); /* double free */
	ops->device_close(dev);
	ops->device_close(other);
	ck_assert_str_eq(ops->name, "sim");
	ck_assert_uint_eq(ops->version, HC_HAL_VERSION);
}
END_TEST

Suite *sim_bad_input_suite(void)
{
	Suite *s = suite_create("bad_input");
	TCase *tc;

	tc = tcase_create("bad_input");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	return s;
}
