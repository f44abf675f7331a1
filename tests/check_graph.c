/*
 * check_graph.c - the capture lifecycle through the public API on the
 * simulator: every transition legal and illegal, priming, the rejection of
 * a capture that grows the pool, replay and destroy, bad handles.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"

#define MIB HC_MIB

static hc_device dev;
static hc_stream s;

static void setup(void)
{
	hc_device_options o;

	hc_device_options_init(&o);
	o.capacity = 1024 * MIB;
	o.data_mode = true;
	ck_assert_int_eq(hc_device_open("sim", &o, &dev), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
}

static void teardown(void)
{
	hc_device_close(dev);
}

static const char *last_message(void)
{
	static hc_error_info e;
	hc_last_error(&e);
	return e.message;
}

enum state { NONE, PREPARE, CAPTURE };

/* Drives @s into @st from NoCapture. */
static void enter(enum state st)
{
	if (st >= PREPARE)
		ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	if (st >= CAPTURE)
		ck_assert_int_eq(hc_graph_begin(s), HC_OK);
}

/* Every call from every state: the expected status, and that a rejected
 * call leaves the state as it was (the legal path still works after it). */
START_TEST(transition_table)
{
	static const struct {
		enum state from;
		int call; /* 0 prepare, 1 begin, 2 end */
		hc_status want;
		const char *msg;
	} t[] = {
		{ NONE, 0, HC_OK, NULL },
		{ NONE, 1, HC_ERR_STATE, "graph_prepare" },
		{ NONE, 2, HC_ERR_STATE, "no graph capture is recording" },
		{ PREPARE, 0, HC_ERR_STATE, "already prepared" },
		{ PREPARE, 1, HC_OK, NULL },
		{ PREPARE, 2, HC_ERR_STATE, "no graph capture is recording" },
		{ CAPTURE, 0, HC_ERR_STATE, "already recording" },
		{ CAPTURE, 1, HC_ERR_STATE, "already recording" },
		{ CAPTURE, 2, HC_OK, NULL },
	};
	hc_graph g = { 0 };
	hc_status rc;

	enter(t[_i].from);
	switch (t[_i].call) {
	case 0: rc = hc_graph_prepare(s); break;
	case 1: rc = hc_graph_begin(s); break;
	default: rc = hc_graph_end(s, &g); break;
	}
	ck_assert_int_eq(rc, t[_i].want);
	if (t[_i].msg)
		ck_assert_msg(strstr(last_message(), t[_i].msg) != NULL, "message '%s' lacks '%s'",
			      last_message(), t[_i].msg);
	/* The state after: continue the legal path to NoCapture. */
	enum state now = rc == HC_OK ? (enum state)((t[_i].from + 1) % 3) : t[_i].from;
	if (now == PREPARE)
		ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	if (now != NONE) {
		ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
		ck_assert(g.id != 0);
		ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	}
	/* And a full cycle works again from NoCapture. */
	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(priming_keeps_the_working_set_and_recording_reuses_it)
{
	hc_buffer a, b;
	hc_device_stats before, after;
	hc_graph g;

	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 3 * MIB, &a), HC_OK); /* warm-up */
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &before), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 3 * MIB, &b), HC_OK); /* served by the primed slice */
	ck_assert_int_eq(hc_device_stats_get(dev, &after), HC_OK);
	ck_assert_uint_eq(after.device_allocs, before.device_allocs);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	/* The graph retains the slice: a cleanup frees nothing it holds. */
	hc_memory_usage u1, u2;
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u1), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u2), HC_OK);
	ck_assert_uint_eq(u2.bytes_reserved, u1.bytes_reserved);
	ck_assert_uint_ge(u2.bytes_reserved, 3 * MIB);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	/* Released: now cleanup can free the persistent slice. */
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u2), HC_OK);
	ck_assert_uint_lt(u2.bytes_reserved, u1.bytes_reserved);
}
END_TEST

START_TEST(a_capture_that_grows_the_pool_is_rejected)
{
	hc_buffer b;
	hc_graph g = { 0 };

	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	/* An odd size nothing primed: the pool would need a device allocation. */
	ck_assert(hc_alloc(s, 3145733, &b) != HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_ERR_STATE);
	ck_assert(g.id == 0);
	/* The stream is usable afterwards, in normal mode. */
	ck_assert_int_eq(hc_alloc(s, 3145733, &b), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(pre_existing_buffers_are_left_alone)
{
	hc_buffer keep, b;
	hc_buffer_info before, after;
	hc_graph g;

	ck_assert_int_eq(hc_alloc(s, 1 * MIB, &keep), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(keep, &before), HC_OK);
	enter(PREPARE);
	ck_assert_int_eq(hc_alloc(s, 2 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(keep, &after), HC_OK);
	ck_assert_uint_eq(after.device_address, before.device_address);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_free(keep), HC_OK);
}
END_TEST

START_TEST(bad_graph_handles)
{
	hc_graph g, none = { 0 };
	hc_stream t;

	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_graph_replay(t, g), HC_ERR_INVALID); /* not its stream */
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_destroy(none), HC_ERR_STALE);
	hc_graph wrong_kind = { s.id };
	ck_assert_int_eq(hc_graph_replay(s, wrong_kind), HC_ERR_STALE);
	/* Capture on a closed stream. */
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(t), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_begin(t), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_end(t, &g), HC_ERR_STALE);
}
END_TEST

START_TEST(a_capturing_stream_cannot_close_or_change_layout)
{
	hc_graph g;
	hc_pool_layout sub = { HC_LAYOUT_SUBSLICES, NULL, 0 };

	enter(CAPTURE);
	ck_assert_int_eq(hc_stream_close(s), HC_ERR_STATE);
	ck_assert_int_eq(hc_install_memory_pools(s, &sub), HC_ERR_STATE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(graphs_end_with_their_stream)
{
	hc_stream t;
	hc_graph g;

	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(t), HC_OK);
	ck_assert_int_eq(hc_graph_begin(t), HC_OK);
	ck_assert_int_eq(hc_graph_end(t, &g), HC_OK);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_ERR_STALE);
}
END_TEST

static Suite *graph_suite(void)
{
	Suite *su = suite_create("graph");
	TCase *tc = tcase_create("lifecycle");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, transition_table, 0, 9);
	tcase_add_test(tc, priming_keeps_the_working_set_and_recording_reuses_it);
	tcase_add_test(tc, a_capture_that_grows_the_pool_is_rejected);
	tcase_add_test(tc, pre_existing_buffers_are_left_alone);
	tcase_add_test(tc, bad_graph_handles);
	tcase_add_test(tc, a_capturing_stream_cannot_close_or_change_layout);
	tcase_add_test(tc, graphs_end_with_their_stream);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(graph_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
