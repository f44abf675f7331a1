/*
 * metacache.h - the metadata info cache of one stream.
 *
 * A kernel launch passes "info words" (shapes, strides, scalars) in a small
 * device buffer.  Identical words are frequent, so the buffer is cached,
 * keyed by the exact words (not by kernel: identical info is shared across
 * kernels).  The cache stores an opaque value per key (the stream stores a
 * slice reference and a device address) and hands it back to a free
 * callback, exactly once, when the entry is removed.
 *
 * Policy: at most max_entries entries (default 4096) of at most
 * max_cached_size bytes of words (default 2048).  Normal mode: when an
 * insert finds len >= max_entries it evicts the least recently used entry
 * that is not pinned (if every entry is pinned, the cache grows); capacity 0
 * disables caching.  Capture mode (while a graph is prepared or records):
 * everything is cached, nothing is evicted, and each key hit or inserted is
 * pinned once per capture.  capture_commit(graph) hands those pins to the
 * graph; graph_release(graph) drops them and removes entries left with no
 * pin; capture_discard() drops them and keeps the entries.
 *
 * Recency follows a logical clock: each lookup advances it by one and a hit
 * stamps the entry; an insert stamps the current clock without advancing.
 *
 * Context: no locking inside.  The caller holds the owning stream's lock for
 * every call.  Nothing blocks; the free callback is called synchronously
 * from insert (eviction), graph_release, clear_unpinned and destroy and must
 * not re-enter the cache.
 */
#ifndef HIPCORE_CORE_METACACHE_H
#define HIPCORE_CORE_METACACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"

#define HC_MC_DEFAULT_MAX_ENTRIES 4096u
#define HC_MC_DEFAULT_MAX_CACHED_SIZE 2048u

enum hc_mc_mode {
	HC_MC_NORMAL = 0,
	HC_MC_CAPTURE,
};

/**
 * struct hc_mc_policy - cache limits
 * @max_entries: capacity in Normal mode; 0 disables caching in Normal mode
 * @max_cached_size: largest info size in bytes that is cached in Normal mode
 */
struct hc_mc_policy {
	uint32_t max_entries;
	uint32_t max_cached_size;
};

/* struct hc_mc_value - the opaque payload of an entry (two words). */
struct hc_mc_value {
	uint64_t a;
	uint64_t b;
};

/* Called once for every value the cache drops (evicted, released, cleared). */
typedef void (*hc_mc_free_fn)(void *ctx, struct hc_mc_value value);

struct hc_metacache;

/* hc_mc_policy_default - {4096, 2048}.  Context: any. */
struct hc_mc_policy hc_mc_policy_default(void);

/**
 * hc_mc_create - an empty cache in Normal mode
 * @policy: limits, or NULL for the defaults
 * @free_value: called for each dropped value; may be NULL
 * @ctx: first argument of @free_value
 * @out: the new cache
 *
 * Context: any; allocates.
 * Return: HC_OK, HC_ERR_INVALID (NULL @out), HC_ERR_OOM.
 */
hc_status hc_mc_create(const struct hc_mc_policy *policy, hc_mc_free_fn free_value, void *ctx,
		       struct hc_metacache **out);

/**
 * hc_mc_destroy - free every entry (values through the callback) and the cache
 * @mc: the cache, or NULL
 *
 * Pins are ignored: the stream and its graphs are going away.
 *
 * Context: caller owns the stream alone.  Never blocks.
 */
void hc_mc_destroy(struct hc_metacache *mc);

/* hc_mc_set_mode - switch Normal/Capture (from the capture state).  Context: stream lock. */
void hc_mc_set_mode(struct hc_metacache *mc, enum hc_mc_mode mode);

/* hc_mc_mode - the current mode.  Context: stream lock. */
enum hc_mc_mode hc_mc_get_mode(const struct hc_metacache *mc);

/**
 * hc_mc_should_cache - should info of @size bytes go through the cache?
 * @mc: the cache
 * @size: info size in bytes
 *
 * Context: stream lock.  Never blocks.
 * Return: Capture mode: true.  Normal: max_entries > 0 && @size <= max_cached_size.
 */
bool hc_mc_should_cache(const struct hc_metacache *mc, uint64_t size);

/**
 * hc_mc_get - look up the exact words
 * @mc: the cache
 * @words: the info words
 * @nwords: their count (0 is a valid, empty key)
 * @out: the value on a hit; may be NULL
 *
 * Advances the clock; a hit stamps the entry and, in Capture mode, pins it
 * (once per capture).  Hashed: cost does not depend on the entry count.
 *
 * Context: stream lock.  Never blocks; may allocate (capture pin list).
 * Return: true on a hit.  A hit whose capture pin cannot be recorded (out
 * of memory) is reported as a miss.
 */
bool hc_mc_get(struct hc_metacache *mc, const uint64_t *words, size_t nwords,
	       struct hc_mc_value *out);

/**
 * hc_mc_insert - cache @value under the exact words
 * @mc: the cache
 * @words: the info words (copied)
 * @nwords: their count
 * @value: the payload; owned by the cache when *@stored is true
 * @stored: set to whether the cache kept @value; when false (capacity 0 in
 *          Normal mode, or an error) the value still belongs to the caller
 *
 * Normal mode: when len >= max_entries, first evict the least recently used
 * unpinned entry (its value goes to the free callback); if all are pinned,
 * grow.  Capture mode: no eviction; the key is pinned once per capture.  An
 * existing key gets the new value (the old one goes to the free callback).
 *
 * Context: stream lock.  Never blocks; allocates; may call the free callback.
 * Return: HC_OK, HC_ERR_INVALID (NULL arguments), HC_ERR_OOM.  In Capture
 * mode HC_ERR_OOM can come with *@stored true: the value is cached (the
 * cache owns it) but its capture pin could not be recorded, so the capture
 * must be discarded.
 */
hc_status hc_mc_insert(struct hc_metacache *mc, const uint64_t *words, size_t nwords,
		       struct hc_mc_value value, bool *stored);

/**
 * hc_mc_capture_commit - hand the current capture's pins to @graph_id
 * @mc: the cache
 * @graph_id: the new graph
 *
 * Context: stream lock.  Never blocks; allocates.
 * Return: HC_OK; HC_ERR_INVALID (@graph_id already holds pins: nothing
 * changes); HC_ERR_OOM (nothing changes; discard or retry).
 */
hc_status hc_mc_capture_commit(struct hc_metacache *mc, uint64_t graph_id);

/**
 * hc_mc_capture_discard - drop the current capture's pins, keep the entries
 * @mc: the cache
 *
 * Context: stream lock.  Never blocks.
 */
void hc_mc_capture_discard(struct hc_metacache *mc);

/**
 * hc_mc_graph_release - drop @graph_id's pins; remove entries left unpinned
 * @mc: the cache
 * @graph_id: a graph given to hc_mc_capture_commit(); unknown ids are a no-op
 *
 * Context: stream lock.  Never blocks; calls the free callback.
 * Return: the number of entries removed.
 */
size_t hc_mc_graph_release(struct hc_metacache *mc, uint64_t graph_id);

/**
 * hc_mc_clear_unpinned - remove every entry no graph or capture pins
 * @mc: the cache
 *
 * Context: stream lock (cleanup; not while recording).  Calls the free callback.
 * Return: the number of entries removed.
 */
size_t hc_mc_clear_unpinned(struct hc_metacache *mc);

/* hc_mc_len - number of entries.  Context: stream lock. */
size_t hc_mc_len(const struct hc_metacache *mc);

/*
 * hc_mc_pins - pin count of the exact words (0 when unpinned or absent);
 * does not touch recency.  Context: stream lock.
 */
uint32_t hc_mc_pins(const struct hc_metacache *mc, const uint64_t *words, size_t nwords);

/* hc_mc_contains - is the key cached?  No recency change.  Context: stream lock. */
bool hc_mc_contains(const struct hc_metacache *mc, const uint64_t *words, size_t nwords);

#endif /* HIPCORE_CORE_METACACHE_H */
