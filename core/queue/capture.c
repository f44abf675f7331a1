/*
 * capture.c - the graph capture state machine of one stream.
 *
 * Design: one enum and four transitions, each checked before it changes
 * anything.  The rejection messages follow upstream's wording so that users
 * of both see the same sentence for the same mistake.
 */
#include "core/queue/capture.h"
#include "core/internal.h"

void hc_capture_init(struct hc_capture *c)
{
	if (c)
		c->state = HC_CAPTURE_NONE;
}

hc_status hc_capture_prepare(struct hc_capture *c)
{
	if (!c)
		return hc_fail(HC_ERR_INVALID, "graph_prepare: NULL capture state");
	switch (c->state) {
	case HC_CAPTURE_NONE:
		c->state = HC_CAPTURE_PREPARE;
		return HC_OK;
	case HC_CAPTURE_PREPARE:
		return hc_fail(HC_ERR_STATE,
			       "graph_prepare: a graph capture is already prepared on this stream");
	case HC_CAPTURE_RECORDING:
		break;
	}
	return hc_fail(HC_ERR_STATE,
		       "graph_prepare: a graph capture is already recording on this stream");
}

hc_status hc_capture_begin(struct hc_capture *c)
{
	if (!c)
		return hc_fail(HC_ERR_INVALID, "begin_capture: NULL capture state");
	switch (c->state) {
	case HC_CAPTURE_PREPARE:
		c->state = HC_CAPTURE_RECORDING;
		return HC_OK;
	case HC_CAPTURE_NONE:
		return hc_fail(HC_ERR_STATE,
			       "begin_capture: call graph_prepare before starting a capture");
	case HC_CAPTURE_RECORDING:
		break;
	}
	return hc_fail(HC_ERR_STATE,
		       "begin_capture: a graph capture is already recording on this stream");
}

hc_status hc_capture_end(struct hc_capture *c)
{
	if (!c)
		return hc_fail(HC_ERR_INVALID, "end_capture: NULL capture state");
	if (c->state != HC_CAPTURE_RECORDING)
		return hc_fail(HC_ERR_STATE,
			       "end_capture: no graph capture is recording on this stream");
	c->state = HC_CAPTURE_NONE;
	return HC_OK;
}

hc_status hc_capture_abort(struct hc_capture *c)
{
	if (!c)
		return hc_fail(HC_ERR_INVALID, "abort_capture: NULL capture state");
	c->state = HC_CAPTURE_NONE;
	return HC_OK;
}

bool hc_capture_is_recording(const struct hc_capture *c)
{
	return c && c->state == HC_CAPTURE_RECORDING;
}

bool hc_capture_is_active(const struct hc_capture *c)
{
	return c && c->state != HC_CAPTURE_NONE;
}

enum hc_mc_mode hc_capture_cache_mode(const struct hc_capture *c)
{
	return hc_capture_is_active(c) ? HC_MC_CAPTURE : HC_MC_NORMAL;
}

const char *hc_capture_state_name(enum hc_capture_state s)
{
	switch (s) {
	case HC_CAPTURE_NONE:
		return "NoCapture";
	case HC_CAPTURE_PREPARE:
		return "Prepare";
	case HC_CAPTURE_RECORDING:
		return "Capture";
	}
	return "unknown";
}
