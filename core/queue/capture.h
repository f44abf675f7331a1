/*
 * capture.h - the graph capture state machine of one stream.
 *
 * NoCapture -> Prepare (hc_capture_prepare) -> Capture (hc_capture_begin)
 * -> NoCapture (hc_capture_end).  hc_capture_abort() forces NoCapture from
 * any state (used when opening the backend capture fails).  A call that is
 * not legal from the current state returns HC_ERR_STATE with a message
 * naming the call and leaves the state unchanged.  This file holds only the
 * states; the stream layer performs the side effects around each transition.
 *
 * Context: no locking inside.  The caller holds the stream lock.  Nothing
 * here blocks or allocates.
 */
#ifndef HIPCORE_CORE_CAPTURE_H
#define HIPCORE_CORE_CAPTURE_H

#include <stdbool.h>

#include "hipcore/hipcore.h"
#include "core/queue/metacache.h"

enum hc_capture_state {
	HC_CAPTURE_NONE = 0, /* no capture: the zero-filled state */
	HC_CAPTURE_PREPARE,  /* warm-up before recording */
	HC_CAPTURE_RECORDING,
};

/* struct hc_capture - one stream's capture state (zero-fill = NoCapture). */
struct hc_capture {
	enum hc_capture_state state;
};

/* hc_capture_init - set NoCapture.  Context: caller owns @c. */
void hc_capture_init(struct hc_capture *c);

/**
 * hc_capture_prepare - NoCapture -> Prepare
 * @c: the state
 *
 * Context: caller holds the stream lock.  Never blocks.
 * Return: HC_OK; HC_ERR_STATE from Prepare ("already prepared") or Capture
 * ("already recording"); HC_ERR_INVALID for NULL.
 */
hc_status hc_capture_prepare(struct hc_capture *c);

/**
 * hc_capture_begin - Prepare -> Capture
 * @c: the state
 *
 * Called before any side effect of starting a capture.
 *
 * Context: caller holds the stream lock.  Never blocks.
 * Return: HC_OK; HC_ERR_STATE from NoCapture ("call graph_prepare first") or
 * Capture ("already recording"); HC_ERR_INVALID for NULL.
 */
hc_status hc_capture_begin(struct hc_capture *c);

/**
 * hc_capture_end - Capture -> NoCapture
 * @c: the state
 *
 * Called first when ending a capture, so the state leaves Capture even when
 * the later steps fail.
 *
 * Context: caller holds the stream lock.  Never blocks.
 * Return: HC_OK; HC_ERR_STATE from NoCapture or Prepare ("no graph capture is
 * recording"); HC_ERR_INVALID for NULL.
 */
hc_status hc_capture_end(struct hc_capture *c);

/**
 * hc_capture_abort - any state -> NoCapture
 * @c: the state
 *
 * Context: caller holds the stream lock.  Never blocks.
 * Return: HC_OK, or HC_ERR_INVALID for NULL.
 */
hc_status hc_capture_abort(struct hc_capture *c);

/* hc_capture_is_recording - true only in Capture.  Context: stream lock. */
bool hc_capture_is_recording(const struct hc_capture *c);

/* hc_capture_is_active - true in Prepare and Capture.  Context: stream lock. */
bool hc_capture_is_active(const struct hc_capture *c);

/*
 * hc_capture_cache_mode - the metadata cache mode: HC_MC_CAPTURE in Prepare
 * and Capture, HC_MC_NORMAL otherwise.  Context: stream lock.
 */
enum hc_mc_mode hc_capture_cache_mode(const struct hc_capture *c);

/* hc_capture_state_name - "NoCapture", "Prepare", "Capture".  Context: any. */
const char *hc_capture_state_name(enum hc_capture_state s);

#endif /* HIPCORE_CORE_CAPTURE_H */
