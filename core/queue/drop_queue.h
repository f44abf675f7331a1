/*
 * drop_queue.h - the fenced, double-buffered drop queue.
 *
 * Host memory that an asynchronous host-to-device copy reads (a pinned
 * staging buffer, or a caller's buffer copied without staging) must stay
 * alive until the copy is over.  The stream pushes a release callback for it
 * after issuing the copy; the queue calls that callback only once a fence
 * recorded after the copy has completed.
 *
 * Two lists: entries pushed since the last flush are "staged"; the batch
 * moved at the last flush is "pending" and covered by that flush's fence.
 * A flush waits for the previous fence, releases pending, moves staged to
 * pending and records a new fence.  A batch therefore lives for at most two
 * flushes, and a flush blocks the host only up to the previous flush.
 *
 * Fences come from callbacks given at init (the stream passes HAL event
 * operations; tests pass fakes).  Counters are 64-bit throughout.
 *
 * Context: no locking inside.  The caller holds the owning stream's lock for
 * every call.  hc_dq_flush() and hc_dq_drain() may block (fence sync) and
 * call release callbacks; the other calls never block.
 */
#ifndef HIPCORE_CORE_DROP_QUEUE_H
#define HIPCORE_CORE_DROP_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"

/* Default flush triggers: an entry count (16 on integrated GPUs) and bytes. */
#define HC_DQ_DEFAULT_MAX_COUNT 64u
#define HC_DQ_INTEGRATED_MAX_COUNT 16u
#define HC_DQ_DEFAULT_MAX_BYTES (64ull * 1024 * 1024)

/**
 * struct hc_dq_entry - one host resource kept alive until its copy is over
 * @release: called exactly once, after the fence that covers the entry
 * @arg: passed to @release
 * @bytes: size accounted against the byte trigger (64-bit, any value)
 */
struct hc_dq_entry {
	void (*release)(void *arg);
	void *arg;
	uint64_t bytes;
};

/**
 * struct hc_fence_ops - how the queue records and waits for fences
 * @record: record a fence after all work queued so far; store it in *fence
 * @sync: block the host until @fence completes; a failure status is passed
 *        on to the flush's caller (the entries are released regardless)
 * @destroy: free a fence (recorded, synced or not); may be NULL
 * @ctx: first argument of each callback
 */
struct hc_fence_ops {
	hc_status (*record)(void *ctx, void **fence);
	hc_status (*sync)(void *ctx, void *fence);
	void (*destroy)(void *ctx, void *fence);
	void *ctx;
};

/**
 * struct hc_dq_policy - flush triggers; UINT64_MAX disables one
 * @max_count: staged entries that trigger a flush (must be > 0)
 * @max_bytes: staged bytes that trigger a flush (must be > 0)
 */
struct hc_dq_policy {
	uint64_t max_count;
	uint64_t max_bytes;
};

/**
 * struct hc_dq_stats - observable counters
 * @staged_count: entries pushed since the last flush (the count trigger)
 * @staged_bytes: bytes pushed since the last flush (the byte trigger)
 * @pending_count: entries waiting for the last flush's fence
 * @depth: staged_count + pending_count (entries not yet released)
 * @flushes: flushes that ran (deferred requests not included)
 * @deferred_flushes: flush requests skipped while in deferred mode
 * @host_syncs: fence syncs performed (the host blocked)
 * @sync_failures: fence syncs that returned an error
 * @released: entries whose release callback has been called
 * @pushed: entries ever pushed
 */
struct hc_dq_stats {
	uint64_t staged_count;
	uint64_t staged_bytes;
	uint64_t pending_count;
	uint64_t depth;
	uint64_t flushes;
	uint64_t deferred_flushes;
	uint64_t host_syncs;
	uint64_t sync_failures;
	uint64_t released;
	uint64_t pushed;
};

/* A growable list of entries (internal to the queue). */
struct hc_dq_list {
	struct hc_dq_entry *items;
	size_t len;
	size_t cap;
};

/* The queue; fields are private to drop_queue.c, read them through hc_dq_stats(). */
struct hc_drop_queue {
	struct hc_fence_ops ops;
	struct hc_dq_policy policy;
	void *fence;              /* covers @pending; NULL when none */
	struct hc_dq_list staged; /* pushed since the last flush */
	struct hc_dq_list pending;
	uint64_t staged_bytes;
	bool deferred;
	struct hc_dq_stats stats; /* monotonic counters */
};

/**
 * hc_dq_policy_default - the default triggers
 * @integrated: true for an integrated GPU (APU), which uses a count of 16
 *
 * Context: any.
 * Return: {64 or 16, 64 MiB}.
 */
struct hc_dq_policy hc_dq_policy_default(bool integrated);

/**
 * hc_dq_init - set up an empty queue
 * @dq: storage for the queue
 * @policy: triggers, or NULL for hc_dq_policy_default(false)
 * @ops: fence callbacks (record and sync required); copied
 *
 * Context: caller holds the stream lock (or owns @dq alone).  Never blocks.
 * Return: HC_OK, or HC_ERR_INVALID (NULL argument, missing callback, zero limit).
 */
hc_status hc_dq_init(struct hc_drop_queue *dq, const struct hc_dq_policy *policy,
		     const struct hc_fence_ops *ops);

/**
 * hc_dq_push - queue an entry behind the copy just issued
 * @dq: the queue
 * @entry: copied into the queue; its release is called after a later fence
 *
 * Does not flush; ask hc_dq_should_flush() afterwards.
 *
 * Context: caller holds the stream lock.  Never blocks.  Legal while capturing.
 * Return: HC_OK; HC_ERR_INVALID (NULL, or no release callback);
 * HC_ERR_OOM (the entry was not queued and still belongs to the caller).
 */
hc_status hc_dq_push(struct hc_drop_queue *dq, const struct hc_dq_entry *entry);

/**
 * hc_dq_should_flush - has either trigger been reached?
 * @dq: the queue
 *
 * True when staged entries >= max_count or staged bytes >= max_bytes.  It
 * does not look at deferred mode: the caller decides not to flush while it
 * records (and hc_dq_flush() would only count the request).
 *
 * Context: caller holds the stream lock.  Never blocks.
 */
bool hc_dq_should_flush(const struct hc_drop_queue *dq);

/**
 * hc_dq_flush - rotate the double buffer
 * @dq: the queue
 *
 * 1. If the previous flush recorded a fence: sync it, destroy it and release
 *    every pending entry (in push order).  2. If entries are pending without
 *    a fence (its record failed): record a fresh fence, sync it, release.
 * 3. Move staged to pending.  4. Record a new fence.  5. Reset the triggers.
 * A failed sync still releases the entries (the copy is over, failed or not)
 * and its status is returned.  A failed record leaves the batch pending
 * without a fence; the next flush covers it through step 2.
 *
 * In deferred mode nothing of this happens: the request is counted in
 * @deferred_flushes and HC_OK is returned.
 *
 * Context: caller holds the stream lock.  May block on a fence and calls
 * release callbacks (which must not re-enter this queue).
 * Return: HC_OK, HC_ERR_INVALID for NULL, or the first status a fence
 * callback returned.
 */
hc_status hc_dq_flush(struct hc_drop_queue *dq);

/**
 * hc_dq_set_deferred - enter or leave deferred mode (graph capture)
 * @dq: the queue
 * @deferred: true while a capture records (a host sync would break it)
 *
 * Context: caller holds the stream lock.  Never blocks.
 */
void hc_dq_set_deferred(struct hc_drop_queue *dq, bool deferred);

/**
 * hc_dq_set_policy - change the flush triggers of a live queue
 * @dq: the queue
 * @policy: the new triggers (0 fields: HC_ERR_INVALID, queue unchanged)
 *
 * Entries already staged stay; the next hc_dq_should_flush() uses the new
 * triggers.  Context: caller holds the stream lock.
 * Return: HC_OK or HC_ERR_INVALID.
 */
hc_status hc_dq_set_policy(struct hc_drop_queue *dq, const struct hc_dq_policy *policy);

/* hc_dq_is_deferred - is the queue in deferred mode?  Context: as above. */
bool hc_dq_is_deferred(const struct hc_drop_queue *dq);

/**
 * hc_dq_drain - release every entry, each after its fence (stream close)
 * @dq: the queue
 *
 * Flushes twice (even in deferred mode), then syncs and destroys the last
 * fence.  Afterwards the queue is empty unless a fence could not be recorded
 * at all, in which case the entries stay queued and the status is returned.
 *
 * Context: caller holds the stream lock.  May block; calls release callbacks.
 * Return: HC_OK or the first fence callback status.
 */
hc_status hc_dq_drain(struct hc_drop_queue *dq);

/**
 * hc_dq_stats - copy the counters
 * @dq: the queue
 * @out: filled with the current counters
 *
 * Context: caller holds the stream lock.  Never blocks.
 * Return: HC_OK or HC_ERR_INVALID for NULL.
 */
hc_status hc_dq_stats(const struct hc_drop_queue *dq, struct hc_dq_stats *out);

/**
 * hc_dq_fini - drain, then free the queue's memory
 * @dq: the queue; may be zero-filled storage never initialised
 *
 * Runs hc_dq_drain(); entries it could not cover with a fence are then
 * released anyway (the stream is going away: its device work is over or the
 * device is lost).  Each entry is released exactly once in all cases.
 *
 * Context: caller holds the stream lock or owns the stream alone.  May block.
 * Return: the status of the drain.
 */
hc_status hc_dq_fini(struct hc_drop_queue *dq);

#endif /* HIPCORE_CORE_DROP_QUEUE_H */
