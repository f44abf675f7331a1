/*
 * capture.c - stream capture on the simulator: memory and sync operations
 * refused while capturing, replays with their data effects, and a captured
 * event that has no time outside its graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Capture                                                             */
/* ------------------------------------------------------------------ */

START_TEST(capture_rejects_memory_and_sync_ops)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s, *other;
	hc_hal_event *e;
	hc_hal_graph *g = NULL;
	hc_hal_dptr d, d0;
	void *h;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &other), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &d0), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, other, &e), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_ERR_STATE);
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &d), HC_ERR_STATE);
	ck_assert(last_error_has("not permitted while capturing"));
	ck_assert_int_eq(ops->mem_free(dev, d0), HC_ERR_STATE);
	ck_assert_int_eq(ops->host_alloc(dev, 64, &h), HC_ERR_STATE);
	/* a sync of another stream is refused as well */
	ck_assert_int_eq(ops->stream_sync(dev, other), HC_ERR_STATE);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_STATE);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_ERR_STATE);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_ERR_STATE);
	ck_assert(last_error_has("3 memory operations and 2 synchronisations"));
	ck_assert_ptr_null(g);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_ERR_STATE); /* not capturing now */
	/* after the capture everything works again */
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &d), HC_OK);
	ck_assert_int_eq(ops->stream_sync(dev, other), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_OK);
	ck_assert_uint_eq(stats(dev).device_allocs, 2);
	ops->event_destroy(dev, e);
	ops->device_close(dev);
}
END_TEST

START_TEST(capture_replays_with_data_effects)
{
	struct kfix k;
	hc_hal_dptr dst, info, args[2];
	uint64_t bytes[2] = { 16, 4 }, t;
	uint32_t *pin;
	hc_hal_function *fn;
	hc_hal_graph *g;
	hc_hal_event *e;
	struct hc_hal_launch l = { .n_args = 2, .arg_dptr = args, .arg_bytes = bytes,
				   .duration_hint_ns = 1000 };
	unsigned char *out;

	kfix_open(&k, true);
	dst = dev_with(&k, NULL, 16);
	info = dev_with(&k, NULL, 4);
	ck_assert_int_eq(ops->host_alloc(k.dev, 64, (void **)&pin), HC_OK);
	out = (unsigned char *)(pin + 4);
	ck_assert_int_eq(ops->function_get(k.dev, k.mod, "fill", &fn), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->event_record(k.dev, k.s, &e), HC_OK);
	args[0] = dst, args[1] = info;
	pin[0] = 0x01010101u;
	ck_assert_int_eq(ops->capture_begin(k.dev, k.s), HC_OK);
	ck_assert_int_eq(ops->event_wait(k.dev, k.s, e), HC_OK);
	ck_assert_int_eq(ops->copy_h2d(k.dev, k.s, info, pin, 4, true), HC_OK);
	ck_assert_int_eq(ops->launch(k.dev, k.s, fn, &l), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(k.dev, k.s, out, dst, 16, true), HC_OK);
	args[0] = 0; /* the graph holds its own copy of the parameters */
	t = now(k.dev);
	ck_assert_int_eq(ops->capture_end(k.dev, k.s, &g), HC_OK);
	ck_assert_uint_eq(now(k.dev) - t, 10000 + 4 * 2430);
	/* nothing ran yet */
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(stats(k.dev).launches, 0);
	ck_assert_uint_eq(stats(k.dev).copies_d2h, 0);
	ck_assert_int_eq(ops->graph_launch(k.dev, k.s, g), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(out[i], 0x01);
	/* a replay reads the host source again */
	pin[0] = 0x02020202u;
	ck_assert_int_eq(ops->graph_launch(k.dev, k.s, g), HC_OK);
	ck_assert_int_eq(ops->stream_sync(k.dev, k.s), HC_OK);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(out[i], 0x02);
	ck_assert_uint_eq(stats(k.dev).launches, 2);
	ck_assert_uint_eq(stats(k.dev).copies_d2h, 2);
	ops->graph_destroy(k.dev, g);
	ops->event_destroy(k.dev, e);
	ck_assert_int_eq(ops->host_free(k.dev, pin), HC_OK);
	ops->device_close(k.dev);
}
END_TEST

START_TEST(captured_event_has_no_time_outside)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s, *o;
	hc_hal_event *e;
	hc_hal_graph *g;
	bool done;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &o), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, s), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
	ck_assert_int_eq(ops->event_wait(dev, o, e), HC_ERR_STATE);
	ck_assert_int_eq(ops->event_query(dev, e, &done), HC_ERR_STATE);
	ck_assert_int_eq(ops->capture_end(dev, s, &g), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, e), HC_ERR_STATE);
	ops->graph_destroy(dev, g); /* an empty graph */
	ops->device_close(dev);     /* frees the event */
}
END_TEST

Suite *sim_capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc;

	tc = tcase_create("capture");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, capture_rejects_memory_and_sync_ops);
	tcase_add_test(tc, capture_replays_with_data_effects);
	tcase_add_test(tc, captured_event_has_no_time_outside);
	suite_add_tcase(s, tc);
	return s;
}
