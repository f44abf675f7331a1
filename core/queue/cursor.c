/*
 * cursor.c - cross-stream cursors.
 *
 * Design: a fixed array per stream indexed by origin slot, and a bitmap for
 * "has synced".  Keeping the bitmap apart lets last_synced hold any value,
 * 0 included, so "synced at cursor 0" and "never synced" stay distinct.
 * The comparison is strict (last < stamp), as upstream's.
 */
#include <string.h>

#include "core/queue/cursor.h"
#include "core/internal.h"

void hc_cursor_init(struct hc_cursor_state *s)
{
	if (s)
		memset(s, 0, sizeof(*s));
}

static bool cursor_has_synced(const struct hc_cursor_state *s, uint32_t slot)
{
	return (s->synced[slot / 64] >> (slot % 64)) & 1u;
}

bool hc_cursor_needs_wait(const struct hc_cursor_state *consumer, uint32_t origin_slot,
			  uint64_t buffer_stamp)
{
	if (!consumer || origin_slot >= HC_CURSOR_MAX_SLOTS)
		return true;
	if (buffer_stamp == HC_CURSOR_STALE)
		return true;
	if (!cursor_has_synced(consumer, origin_slot))
		return true;
	return consumer->last_synced[origin_slot] < buffer_stamp;
}

hc_status hc_cursor_synced(struct hc_cursor_state *consumer, uint32_t origin_slot,
			   uint64_t origin_cursor_at_flush)
{
	if (!consumer)
		return hc_fail(HC_ERR_INVALID, "hc_cursor_synced: NULL state");
	if (origin_slot >= HC_CURSOR_MAX_SLOTS)
		return hc_fail(HC_ERR_INVALID, "hc_cursor_synced: slot %u out of range (max %u)",
			       origin_slot, HC_CURSOR_MAX_SLOTS - 1);
	consumer->last_synced[origin_slot] = origin_cursor_at_flush;
	consumer->synced[origin_slot / 64] |= (uint64_t)1 << (origin_slot % 64);
	return HC_OK;
}

bool hc_cursor_last_synced(const struct hc_cursor_state *consumer, uint32_t origin_slot,
			   uint64_t *out)
{
	if (!consumer || origin_slot >= HC_CURSOR_MAX_SLOTS ||
	    !cursor_has_synced(consumer, origin_slot))
		return false;
	if (out)
		*out = consumer->last_synced[origin_slot];
	return true;
}
