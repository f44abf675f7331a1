/*
 * check_q_capture.c - the capture state machine: every call from every state.
 */
#include <check.h>
#include <string.h>

#include "core/queue/capture.h"
#include "core/internal.h"
#include "tests/check_queues.h"

enum call { PREPARE, BEGIN, END, ABORT };

struct transition {
	enum hc_capture_state from;
	enum call call;
	hc_status status;
	enum hc_capture_state to;
	const char *message; /* substring of the error message, or NULL */
};

static const struct transition table[] = {
	{ HC_CAPTURE_NONE, PREPARE, HC_OK, HC_CAPTURE_PREPARE, NULL },
	{ HC_CAPTURE_NONE, BEGIN, HC_ERR_STATE, HC_CAPTURE_NONE,
	  "begin_capture: call graph_prepare before starting a capture" },
	{ HC_CAPTURE_NONE, END, HC_ERR_STATE, HC_CAPTURE_NONE,
	  "end_capture: no graph capture is recording on this stream" },
	{ HC_CAPTURE_NONE, ABORT, HC_OK, HC_CAPTURE_NONE, NULL },

	{ HC_CAPTURE_PREPARE, PREPARE, HC_ERR_STATE, HC_CAPTURE_PREPARE,
	  "graph_prepare: a graph capture is already prepared on this stream" },
	{ HC_CAPTURE_PREPARE, BEGIN, HC_OK, HC_CAPTURE_RECORDING, NULL },
	{ HC_CAPTURE_PREPARE, END, HC_ERR_STATE, HC_CAPTURE_PREPARE,
	  "end_capture: no graph capture is recording on this stream" },
	{ HC_CAPTURE_PREPARE, ABORT, HC_OK, HC_CAPTURE_NONE, NULL },

	{ HC_CAPTURE_RECORDING, PREPARE, HC_ERR_STATE, HC_CAPTURE_RECORDING,
	  "graph_prepare: a graph capture is already recording on this stream" },
	{ HC_CAPTURE_RECORDING, BEGIN, HC_ERR_STATE, HC_CAPTURE_RECORDING,
	  "begin_capture: a graph capture is already recording on this stream" },
	{ HC_CAPTURE_RECORDING, END, HC_OK, HC_CAPTURE_NONE, NULL },
	{ HC_CAPTURE_RECORDING, ABORT, HC_OK, HC_CAPTURE_NONE, NULL },
};

/* Reaches @s through legal calls only. */
static void reach(struct hc_capture *c, enum hc_capture_state s)
{
	hc_capture_init(c);
	if (s >= HC_CAPTURE_PREPARE)
		ck_assert_int_eq(hc_capture_prepare(c), HC_OK);
	if (s >= HC_CAPTURE_RECORDING)
		ck_assert_int_eq(hc_capture_begin(c), HC_OK);
	ck_assert_int_eq(c->state, s);
}

static hc_status do_call(struct hc_capture *c, enum call call)
{
	switch (call) {
	case PREPARE:
		return hc_capture_prepare(c);
	case BEGIN:
		return hc_capture_begin(c);
	case END:
		return hc_capture_end(c);
	case ABORT:
		return hc_capture_abort(c);
	}
	return HC_ERR_INVALID;
}

START_TEST(every_call_from_every_state)
{
	const struct transition *t = &table[_i];
	struct hc_capture c;
	hc_error_info err;

	reach(&c, t->from);
	hc_error_clear();
	ck_assert_int_eq(do_call(&c, t->call), t->status);
	ck_assert_int_eq(c.state, t->to);
	ck_assert_int_eq(hc_last_error(&err), HC_OK);
	if (t->message) {
		ck_assert_int_eq(err.status, HC_ERR_STATE);
		ck_assert_str_eq(err.message, t->message);
	} else {
		ck_assert_int_eq(err.status, HC_OK);
	}
}
END_TEST

START_TEST(queries_follow_the_state)
{
	struct hc_capture c;

	reach(&c, HC_CAPTURE_NONE);
	ck_assert(!hc_capture_is_recording(&c));
	ck_assert(!hc_capture_is_active(&c));
	ck_assert_int_eq(hc_capture_cache_mode(&c), HC_MC_NORMAL);
	ck_assert_str_eq(hc_capture_state_name(c.state), "NoCapture");
	reach(&c, HC_CAPTURE_PREPARE);
	ck_assert(!hc_capture_is_recording(&c));
	ck_assert(hc_capture_is_active(&c));
	ck_assert_int_eq(hc_capture_cache_mode(&c), HC_MC_CAPTURE);
	ck_assert_str_eq(hc_capture_state_name(c.state), "Prepare");
	reach(&c, HC_CAPTURE_RECORDING);
	ck_assert(hc_capture_is_recording(&c));
	ck_assert(hc_capture_is_active(&c));
	ck_assert_int_eq(hc_capture_cache_mode(&c), HC_MC_CAPTURE);
	ck_assert_str_eq(hc_capture_state_name(c.state), "Capture");
}
END_TEST

START_TEST(full_cycle_twice_and_zero_fill_is_no_capture)
{
	struct hc_capture c;
	int round;

	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(c.state, HC_CAPTURE_NONE);
	for (round = 0; round < 2; round++) {
		ck_assert_int_eq(hc_capture_prepare(&c), HC_OK);
		ck_assert_int_eq(hc_capture_begin(&c), HC_OK);
		ck_assert_int_eq(hc_capture_end(&c), HC_OK);
		ck_assert_int_eq(c.state, HC_CAPTURE_NONE);
	}
}
END_TEST

START_TEST(null_state_is_invalid)
{
	ck_assert_int_eq(hc_capture_prepare(NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_capture_begin(NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_capture_end(NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_capture_abort(NULL), HC_ERR_INVALID);
	ck_assert(!hc_capture_is_recording(NULL));
	ck_assert_int_eq(hc_capture_cache_mode(NULL), HC_MC_NORMAL);
}
END_TEST

Suite *make_capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("transitions");

	tcase_add_loop_test(tc, every_call_from_every_state, 0,
			    (int)(sizeof(table) / sizeof(table[0])));
	tcase_add_test(tc, queries_follow_the_state);
	tcase_add_test(tc, full_cycle_twice_and_zero_fill_is_no_capture);
	tcase_add_test(tc, null_state_is_invalid);
	suite_add_tcase(s, tc);
	return s;
}
