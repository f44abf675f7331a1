/*
 * drop_queue.c - the fenced, double-buffered drop queue.
 *
 * Design: two growable arrays of entries, staged and pending, and at most one
 * fence.  The fence always covers exactly the pending batch: it is recorded
 * right after staged becomes pending, and it is synced and destroyed right
 * before pending is released.  If recording fails, pending is left without a
 * fence and the next flush covers it with a fresh fence it syncs at once
 * (the safety net), so no entry is ever released before a completed fence,
 * except by hc_dq_fini() when no fence can be recorded at all.
 *
 * Release order is push order: pending is released front to back.
 * Nothing here locks; see the header.
 */
#include <stdlib.h>
#include <string.h>

#include "core/queue/drop_queue.h"
#include "core/internal.h"

struct hc_dq_policy hc_dq_policy_default(bool integrated)
{
	struct hc_dq_policy p = {
		.max_count = integrated ? HC_DQ_INTEGRATED_MAX_COUNT : HC_DQ_DEFAULT_MAX_COUNT,
		.max_bytes = HC_DQ_DEFAULT_MAX_BYTES,
	};
	return p;
}

hc_status hc_dq_init(struct hc_drop_queue *dq, const struct hc_dq_policy *policy,
		     const struct hc_fence_ops *ops)
{
	if (!dq || !ops)
		return hc_fail(HC_ERR_INVALID, "hc_dq_init: NULL %s", dq ? "fence ops" : "queue");
	if (!ops->record || !ops->sync)
		return hc_fail(HC_ERR_INVALID, "hc_dq_init: fence ops need record and sync");
	if (policy && (policy->max_count == 0 || policy->max_bytes == 0))
		return hc_fail(HC_ERR_INVALID,
			       "hc_dq_init: flush limits must be > 0 (max_count %llu, max_bytes %llu)",
			       (unsigned long long)policy->max_count,
			       (unsigned long long)policy->max_bytes);
	memset(dq, 0, sizeof(*dq));
	dq->ops = *ops;
	dq->policy = policy ? *policy : hc_dq_policy_default(false);
	return HC_OK;
}

static hc_status dq_list_append(struct hc_dq_list *l, const struct hc_dq_entry *e)
{
	if (l->len == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct hc_dq_entry *n;

		if (ncap > SIZE_MAX / sizeof(*n))
			return hc_fail(HC_ERR_OOM, "hc_dq_push: queue too long");
		n = realloc(l->items, ncap * sizeof(*n));
		if (!n)
			return hc_fail(HC_ERR_OOM, "hc_dq_push: cannot grow the queue to %zu entries",
				       ncap);
		l->items = n;
		l->cap = ncap;
	}
	l->items[l->len++] = *e;
	return HC_OK;
}

hc_status hc_dq_push(struct hc_drop_queue *dq, const struct hc_dq_entry *entry)
{
	hc_status st;

	if (!dq || !entry)
		return hc_fail(HC_ERR_INVALID, "hc_dq_push: NULL %s", dq ? "entry" : "queue");
	if (!entry->release)
		return hc_fail(HC_ERR_INVALID, "hc_dq_push: entry has no release callback");
	st = dq_list_append(&dq->staged, entry);
	if (st != HC_OK)
		return st;
	/* Saturate rather than wrap: the byte trigger must still fire. */
	if (dq->staged_bytes > UINT64_MAX - entry->bytes)
		dq->staged_bytes = UINT64_MAX;
	else
		dq->staged_bytes += entry->bytes;
	dq->stats.pushed++;
	return HC_OK;
}

bool hc_dq_should_flush(const struct hc_drop_queue *dq)
{
	if (!dq)
		return false;
	return (uint64_t)dq->staged.len >= dq->policy.max_count ||
	       dq->staged_bytes >= dq->policy.max_bytes;
}

static void dq_release_pending(struct hc_drop_queue *dq)
{
	size_t i;

	for (i = 0; i < dq->pending.len; i++)
		dq->pending.items[i].release(dq->pending.items[i].arg);
	dq->stats.released += dq->pending.len;
	dq->pending.len = 0;
}

static void dq_fence_destroy(struct hc_drop_queue *dq, void *fence)
{
	if (dq->ops.destroy)
		dq->ops.destroy(dq->ops.ctx, fence);
}

/* Syncs and destroys @fence; counts the sync and a failure. */
static hc_status dq_fence_wait(struct hc_drop_queue *dq, void *fence)
{
	hc_status st = dq->ops.sync(dq->ops.ctx, fence);

	dq->stats.host_syncs++;
	if (st != HC_OK)
		dq->stats.sync_failures++;
	dq_fence_destroy(dq, fence);
	return st;
}

/* Steps 1 and 2: release pending once a fence covering it completed. */
static hc_status dq_retire_pending(struct hc_drop_queue *dq)
{
	hc_status st = HC_OK;
	void *fence;

	if (dq->fence) {
		fence = dq->fence;
		dq->fence = NULL;
		st = dq_fence_wait(dq, fence);
		dq_release_pending(dq);
		return st;
	}
	if (dq->pending.len == 0)
		return HC_OK;
	/* Safety net: the batch's own fence could not be recorded. */
	fence = NULL;
	st = dq->ops.record(dq->ops.ctx, &fence);
	if (st != HC_OK)
		return st; /* pending stays, still uncovered */
	st = dq_fence_wait(dq, fence);
	dq_release_pending(dq);
	return st;
}

static hc_status dq_flush_now(struct hc_drop_queue *dq)
{
	struct hc_dq_list tmp;
	hc_status st, rec;
	void *fence = NULL;

	st = dq_retire_pending(dq);
	if (dq->pending.len != 0)
		return st; /* no fence could be recorded: keep both batches */

	/* Step 3: staged becomes pending (pending is empty, keep its array). */
	tmp = dq->pending;
	dq->pending = dq->staged;
	dq->staged = tmp;
	dq->staged_bytes = 0;

	/* Step 4: a fence covering the new pending batch. */
	rec = dq->ops.record(dq->ops.ctx, &fence);
	if (rec == HC_OK)
		dq->fence = fence;
	else if (st == HC_OK)
		st = rec;
	dq->stats.flushes++;
	return st;
}

hc_status hc_dq_flush(struct hc_drop_queue *dq)
{
	if (!dq)
		return hc_fail(HC_ERR_INVALID, "hc_dq_flush: NULL queue");
	if (dq->deferred) {
		dq->stats.deferred_flushes++;
		return HC_OK;
	}
	return dq_flush_now(dq);
}

void hc_dq_set_deferred(struct hc_drop_queue *dq, bool deferred)
{
	if (dq)
		dq->deferred = deferred;
}

bool hc_dq_is_deferred(const struct hc_drop_queue *dq)
{
	return dq && dq->deferred;
}

hc_status hc_dq_drain(struct hc_drop_queue *dq)
{
	hc_status st, s2;

	if (!dq)
		return hc_fail(HC_ERR_INVALID, "hc_dq_drain: NULL queue");
	st = dq_flush_now(dq);
	s2 = dq_flush_now(dq);
	if (st == HC_OK)
		st = s2;
	/* The second flush left staged empty; retire what it moved (nothing
	 * normally) and the last fence, which then covers no entry. */
	s2 = dq_retire_pending(dq);
	if (st == HC_OK)
		st = s2;
	return st;
}

hc_status hc_dq_stats(const struct hc_drop_queue *dq, struct hc_dq_stats *out)
{
	if (!dq || !out)
		return hc_fail(HC_ERR_INVALID, "hc_dq_stats: NULL %s", dq ? "output" : "queue");
	*out = dq->stats;
	out->staged_count = dq->staged.len;
	out->staged_bytes = dq->staged_bytes;
	out->pending_count = dq->pending.len;
	out->depth = dq->staged.len + dq->pending.len;
	return HC_OK;
}

hc_status hc_dq_fini(struct hc_drop_queue *dq)
{
	hc_status st = HC_OK;

	if (!dq)
		return HC_OK;
	if (dq->ops.record && dq->ops.sync)
		st = hc_dq_drain(dq);
	/* Whatever no fence could cover: pending first, then staged (push order). */
	dq_release_pending(dq);
	free(dq->pending.items);
	dq->pending = dq->staged;
	dq->staged.items = NULL;
	dq->staged.len = dq->staged.cap = 0;
	dq_release_pending(dq);
	if (dq->fence) {
		dq_fence_destroy(dq, dq->fence);
		dq->fence = NULL;
	}
	free(dq->pending.items);
	free(dq->staged.items);
	memset(dq, 0, sizeof(*dq));
	return st;
}

hc_status hc_dq_set_policy(struct hc_drop_queue *dq, const struct hc_dq_policy *policy)
{
	if (!dq || !policy)
		return hc_fail(HC_ERR_INVALID, "hc_dq_set_policy: NULL %s", dq ? "policy" : "queue");
	if (policy->max_count == 0 || policy->max_bytes == 0)
		return hc_fail(HC_ERR_INVALID, "hc_dq_set_policy: triggers must be > 0");
	dq->policy = *policy;
	return HC_OK;
}
