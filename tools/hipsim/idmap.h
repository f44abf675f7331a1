/*
 * idmap.h - an open-addressing hash map from uint64 keys to uint64 values.
 *
 * Used for the live ids of a replay: RMM pointer -> trace buffer id, trace
 * buffer id -> hc_buffer id, trace stream id -> dense index.  Linear probing
 * over a power-of-two table kept at most half full; removal shifts the
 * following entries back, so there are no tombstones and lookups stay short
 * however many keys come and go.  Half, not a quarter (16 bytes a slot: 32
 * per live key instead of 64): a quarter saved ~10 instructions per replayed
 * CSV event in probes and shifts, but with thousands of pointers live and
 * freed in random order (bench_replay --mixed) the larger table took a
 * quarter of the replay's cache room, and callgrind's 1 MiB cache then
 * counted 42 % more last-level read misses per event (0.248 against 0.144);
 * on the VM a miss there costs about as much as a whole replayed event
 * (doc/benchmarks-log.md, "Replay speed").  Any key is allowed (0 and ~0 included):
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
/* Bytes the table holds. */
size_t hs_idmap_bytes(const struct hs_idmap *m);

/* The key ~0 and growing, out of line (idmap.c). */
int hs_idmap_insert_max(struct hs_idmap *m, uint64_t value, uint64_t *old);
bool hs_idmap_take_max(struct hs_idmap *m, uint64_t *value);
int hs_idmap_grow(struct hs_idmap *m);

/* Whether one more key would pass the load limit (or there is no table). */
static inline bool hs_idmap_full(const struct hs_idmap *m)
{
	return !m->slots || (m->count - m->has_max + 1) * 2 > m->mask + 1;
}

/*
 * The hash is a multiply by 2^64 / phi with the high half folded down:
 * pointers and sequential ids both have structure in their low bits that a
 * plain mask would keep, and the product's high bits mix all of the key.
 */
static inline size_t hs_idmap_hash(uint64_t k)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (size_t)(k ^ (k >> 32));
}

/*
 * Inserts @key -> @value unless @key is present, in one probe.
 * Return: 1 inserted, 0 present (*old gets its value; may be NULL), -1 out
 * of memory.  Inline: replay inserts once per allocation.
 */
static inline int hs_idmap_insert(struct hs_idmap *m, uint64_t key, uint64_t value, uint64_t *old)
{
	size_t i;

	if (key == HS_IDMAP_EMPTY)
		return hs_idmap_insert_max(m, value, old);
	if (hs_idmap_full(m) && hs_idmap_grow(m) != 0)
		return -1;
	for (i = hs_idmap_hash(key) & m->mask; m->slots[i].key != HS_IDMAP_EMPTY; i = (i + 1) & m->mask)
		if (m->slots[i].key == key) {
			if (old)
				*old = m->slots[i].value;
			return 0;
		}
	m->slots[i].key = key;
	m->slots[i].value = value;
	m->count++;
	return 1;
}

/* Return: true and *value (may be NULL) when @key was present and is
 * removed.  Inline: replay takes once per free. */
static inline bool hs_idmap_take(struct hs_idmap *m, uint64_t key, uint64_t *value)
{
	size_t hole, i;

	if (key == HS_IDMAP_EMPTY)
		return hs_idmap_take_max(m, value);
	if (!m->slots)
		return false;
	for (hole = hs_idmap_hash(key) & m->mask; m->slots[hole].key != key; hole = (hole + 1) & m->mask)
		if (m->slots[hole].key == HS_IDMAP_EMPTY)
			return false;
	if (value)
		*value = m->slots[hole].value;
	/* Backward-shift deletion: move later members of the run into the hole
	 * when the hole lies on their probe path. */
	m->slots[hole].key = HS_IDMAP_EMPTY;
	for (i = (hole + 1) & m->mask; m->slots[i].key != HS_IDMAP_EMPTY; i = (i + 1) & m->mask) {
		size_t home = hs_idmap_hash(m->slots[i].key) & m->mask;

		/* Does home lie cyclically in (hole, i]? Then it stays. */
		if (hole <= i ? (home > hole && home <= i) : (home > hole || home <= i))
			continue;
		m->slots[hole] = m->slots[i];
		m->slots[i].key = HS_IDMAP_EMPTY;
		hole = i;
	}
	m->count--;
	return true;
}

#endif /* HIPSIM_IDMAP_H */
