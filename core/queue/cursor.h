/*
 * cursor.h - cross-stream cursors.
 *
 * Each stream slot has a cursor that advances on every operation, and for
 * every other slot ("origin") the origin's cursor at the time this stream
 * last waited on it.  A buffer carries a stamp: its origin stream's cursor
 * when it was allocated and whenever the origin wrote it (UINT64_MAX when
 * the buffer is stale: freed, reused or renumbered).  A consumer must wait
 * on a fresh event from the origin before using the buffer when it never
 * synced with that origin, when its last sync is older than the stamp, or
 * when the stamp is UINT64_MAX.
 *
 * Slots are indices below HC_CURSOR_MAX_SLOTS (regular streams plus the GC
 * slot); last_synced is a plain array indexed by slot.
 *
 * Context: no locking inside.  The caller holds the device lock that orders
 * cross-stream resolution (or the consumer stream's lock while it reads an
 * origin cursor it already has).  Nothing here blocks or allocates.
 */
#ifndef HIPCORE_CORE_CURSOR_H
#define HIPCORE_CORE_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "hipcore/hipcore.h"

#define HC_CURSOR_MAX_SLOTS 256u
#define HC_CURSOR_STALE UINT64_MAX /* the stamp of a stale buffer */

/**
 * struct hc_cursor_state - one stream slot's cursor and sync record
 * @cursor: advances on every operation of the stream; starts at 0
 * @last_synced: origin's cursor at this stream's last wait on it, by slot
 * @synced: bit per slot, set once this stream waited on that origin
 */
struct hc_cursor_state {
	uint64_t cursor;
	uint64_t last_synced[HC_CURSOR_MAX_SLOTS];
	uint64_t synced[HC_CURSOR_MAX_SLOTS / 64];
};

/* hc_cursor_init - cursor 0, never synced with anyone.  Context: owner. */
void hc_cursor_init(struct hc_cursor_state *s);

/**
 * hc_cursor_advance - one more operation on this stream
 * @s: the stream's state
 *
 * Context: caller holds the stream lock.
 * Return: the new cursor (the value new allocations and writes stamp).
 */
static inline uint64_t hc_cursor_advance(struct hc_cursor_state *s)
{
	if (!s)
		return 0;
	return ++s->cursor;
}

/**
 * hc_cursor_needs_wait - must @consumer wait on @origin_slot before using a buffer?
 * @consumer: the consuming stream's state
 * @origin_slot: the buffer's stream slot
 * @buffer_stamp: the buffer's stamp (HC_CURSOR_STALE for a stale buffer)
 *
 * Context: caller holds the lock that orders resolution.
 * Return: true when never synced with the origin, when last_synced[origin]
 * < @buffer_stamp, when the stamp is HC_CURSOR_STALE, or when the slot is out
 * of range (waiting is the safe answer).
 */
bool hc_cursor_needs_wait(const struct hc_cursor_state *consumer, uint32_t origin_slot,
			  uint64_t buffer_stamp);

/**
 * hc_cursor_synced - record that @consumer waited on an event of @origin_slot
 * @consumer: the consuming stream's state
 * @origin_slot: the origin's slot
 * @origin_cursor_at_flush: the origin's cursor when its event was recorded
 *
 * Context: caller holds the lock that orders resolution.
 * Return: HC_OK; HC_ERR_INVALID for NULL or a slot >= HC_CURSOR_MAX_SLOTS.
 */
hc_status hc_cursor_synced(struct hc_cursor_state *consumer, uint32_t origin_slot,
			   uint64_t origin_cursor_at_flush);

/**
 * hc_cursor_last_synced - read last_synced[@origin_slot]
 * @consumer: the consuming stream's state
 * @origin_slot: the origin's slot
 * @out: the origin cursor of the last wait
 *
 * Context: caller holds the lock that orders resolution.
 * Return: true and *@out set when @consumer synced with the origin; false
 * when it never did (or the slot is out of range).
 */
bool hc_cursor_last_synced(const struct hc_cursor_state *consumer, uint32_t origin_slot,
			   uint64_t *out);

#endif /* HIPCORE_CORE_CURSOR_H */
