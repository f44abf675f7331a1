/*
 * lockset.c - the streams one call holds locked (DESIGN §4.7).
 *
 * A call that queues work on stream C naming buffers of other streams (a
 * write target, a read source, a launch binding) needs C's lock and each
 * origin's: deciding whether C must wait reads the origin's cursor and
 * buffer entry (xstream.c).  hc_lockset_acquire locks every involved stream
 * in ascending slot order, which makes the order total and deadlock-free,
 * and resolves each buffer in its origin; the common case (every buffer is
 * C's own) takes C's lock once.
 */
#include "core/debug.h"
#include "core/streamops.h"

static bool slot_locked(const struct hc_lockset *ls, uint32_t slot)
{
	for (size_t i = 0; i < ls->nlocked; i++)
		if (ls->locked[i]->slot == slot)
			return true;
	return false;
}

static struct hc_strm *locked_slot(const struct hc_lockset *ls, uint32_t slot)
{
	for (size_t i = 0; i < ls->nlocked; i++)
		if (ls->locked[i]->slot == slot)
			return ls->locked[i];
	return NULL;
}

void hc_lockset_release(struct hc_lockset *ls)
{
	while (ls->nlocked > 0)
		hc_strm_unlock(ls->locked[--ls->nlocked]);
	ls->st = NULL;
	ls->nuse = 0;
}

/* Resolves each buffer in its (locked) origin stream. */
static hc_status lockset_resolve(struct hc_lockset *ls, const hc_buffer *bufs, size_t n)
{
	hc_status rc;

	for (size_t i = 0; i < n; i++) {
		struct hc_handle_parts p = hc_handle_unpack(bufs[i].id);
		struct hc_strm *o = locked_slot(ls, p.stream);

		if (!o)
			return hc_fail(HC_ERR_STALE, "buffer %#llx: its stream is closed",
				       (unsigned long long)bufs[i].id);
		rc = hc_buf_find(o, bufs[i], &ls->use[i].buf);
		if (rc != HC_OK)
			return rc;
		ls->use[i].origin = o;
		ls->use[i].idx = (uint32_t)(ls->use[i].buf - o->bufs);
	}
	ls->nuse = n;
	return HC_OK;
}

hc_status hc_lockset_acquire(hc_stream s, const hc_buffer *bufs, size_t n, const char *fn,
			     struct hc_lockset *ls)
{
	uint64_t mask[HC_MAX_STREAMS / 64] = { 0 };
	struct hc_strm *st;
	struct hc_dev *dev;
	bool own = true;
	hc_status rc;

	ls->nlocked = ls->nuse = 0;
	ls->st = NULL;
	if (n > HC_LOCKSET_MAX_BUFS)
		return hc_fail(HC_ERR_INVALID, "%s: %zu buffers, at most %u", fn, n,
			       HC_LOCKSET_MAX_BUFS);
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	for (size_t i = 0; i < n; i++) {
		struct hc_handle_parts p = hc_handle_unpack(bufs[i].id);

		if (bufs[i].id == 0 || p.kind != HC_KIND_BUFFER) {
			hc_strm_unlock(st);
			return hc_fail(HC_ERR_STALE, "%s: handle %#llx is not a buffer", fn,
				       (unsigned long long)bufs[i].id);
		}
		if (p.dev != dev->slot) {
			hc_strm_unlock(st);
			return hc_fail(HC_ERR_INVALID, "%s: buffer %#llx belongs to another device",
				       fn, (unsigned long long)bufs[i].id);
		}
		if (p.stream != st->slot)
			own = false;
		mask[p.stream / 64] |= (uint64_t)1 << (p.stream % 64);
	}
	ls->st = st;
	ls->locked[ls->nlocked++] = st;
	if (own)
		goto resolve; /* the fast path: one lock */

	/* Relock everything in ascending slot order. */
	hc_strm_unlock(st);
	ls->nlocked = 0;
	mask[st->slot / 64] |= (uint64_t)1 << (st->slot % 64);
	for (uint32_t slot = 0; slot < HC_MAX_STREAMS; slot++) {
		struct hc_strm *x;

		if (!(mask[slot / 64] & ((uint64_t)1 << (slot % 64))))
			continue;
		if (hc_strm_slot_lock(dev->slot, slot, &x) != HC_OK) {
			if (slot == st->slot) {
				hc_lockset_release(ls);
				return hc_fail(HC_ERR_STALE, "%s: stream %#llx is closed", fn,
					       (unsigned long long)s.id);
			}
			continue; /* resolve reports the buffer as stale */
		}
		ls->locked[ls->nlocked++] = x;
	}
	if (!slot_locked(ls, st->slot) || !st->open || st->handle.id != s.id) {
		hc_lockset_release(ls);
		return hc_fail(HC_ERR_STALE, "%s: stream %#llx was closed", fn,
			       (unsigned long long)s.id);
	}
	ls->st = st;
resolve:
	rc = lockset_resolve(ls, bufs, n);
	if (rc != HC_OK)
		hc_lockset_release(ls);
	HC_ASSERT(rc != HC_OK || (ls->st && ls->nlocked >= 1 && ls->locked[0] && ls->nuse == n));
	return rc;
}
