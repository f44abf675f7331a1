/*
 * idmap.h - an open-addressing hash map from uint64 keys to uint64 values.
 *
 * Used for the live ids of a replay: RMM pointer -> trace buffer id, trace
 * buffer id -> hc_buffer id, trace stream id -> dense index.  Linear probing
 * over a power-of-two table kept at most half full; removal shifts the
 * following entries back, so there are no tombstones and lookups stay short
 * however many keys come and go.  Any key is allowed (0 and ~0 included):
 * a slot is empty when its key is HS_IDMAP_EMPTY (~0), so slots are 16
 * bytes, and the key ~0 itself is kept beside the table.
 */
#ifndef HIPSIM_IDMAP_H
#define HIPSIM_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HS_IDMAP_EMPTY UINT64_MAX

struct hs_idmap_slot {
	uint64_t key, value; /* key HS_IDMAP_EMPTY: unused */
};

struct hs_idmap {
	struct hs_idmap_slot *slots;
	size_t mask; /* capacity - 1; capacity 0 before the first insert */
	size_t count; /* keys, the key ~0 included */
	bool has_max; /* the key ~0 is present, with value max_value */
	uint64_t max_value;
};

void hs_idmap_init(struct hs_idmap *m);
void hs_idmap_free(struct hs_idmap *m);
/* Return: true and *value when @key is present. */
bool hs_idmap_get(const struct hs_idmap *m, uint64_t key, uint64_t *value);
/* Inserts or replaces.  Return: 0, or -1 when out of memory (map unchanged). */
int hs_idmap_put(struct hs_idmap *m, uint64_t key, uint64_t value);
/*
 * Inserts @key -> @value unless @key is present, in one probe.
 * Return: 1 inserted, 0 present (*old gets its value; may be NULL), -1 out
 * of memory.
 */
int hs_idmap_insert(struct hs_idmap *m, uint64_t key, uint64_t value, uint64_t *old);
/* Return: true and *value (may be NULL) when @key was present and is removed. */
bool hs_idmap_take(struct hs_idmap *m, uint64_t key, uint64_t *value);
/* Bytes the table holds. */
size_t hs_idmap_bytes(const struct hs_idmap *m);

#endif /* HIPSIM_IDMAP_H */
