/*
 * idle.h - the device's cache of idle storage: device memory that a
 * stream's pools gave back, kept for any stream of the device to adopt.
 *
 * Live memory belongs to its stream.  Only storage a pool has released
 * (an empty sliced page, a free direct allocation) comes here, and with it
 * a fence recorded on the releasing stream right then: the release happens
 * under that stream's lock, after every use of the memory was enqueued on
 * it, so the fence ends the memory's last use.  A stream that adopts an
 * entry of another stream makes its own stream wait on that fence on the
 * device (or skips the wait when the fence already passed); the host never
 * blocks.  The releasing stream adopts its own entries without a wait.
 *
 * Watermark: the cache keeps entries while the device's storage (held by
 * pools + idle) stays within the highest figure the pools ever held; a
 * request that misses first frees the oldest entries (mem_free
 * synchronises the device, as hipFree, so their fences are over) until it
 * fits.  So the cache never raises the device's peak above the pools'
 * own, and memory a stream's watermark gave back is taken again by the
 * next request of that size on any stream instead of a new device
 * allocation.  Entries are matched by exact size, oldest first, or (for a
 * caller that can use a larger block: hc_idle_take_fit) by best fit, the
 * smallest size up to a bound, oldest first; the age is a per-device
 * sequence number, so the choice depends only on the order of calls
 * (replay stays deterministic).  Adopting, trimming and releasing
 * cost O(1) whatever the number of idle entries.
 *
 * A free the backend refuses (while a stream of the device records a
 * capture, say) puts its entry back where it was and ends that trim: the
 * memory stays idle, never lost between the cache and the device.
 *
 * Locking: @lock is a leaf, taken under a stream lock (the storage
 * callbacks) or none, and never held across a HAL call that can block.
 */
#ifndef HIPCORE_CORE_IDLE_H
#define HIPCORE_CORE_IDLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal/hal.h"

/* One idle allocation; entries live in a slab (indexes, HC_IDLE_NIL ends a
 * list) on two lists: every entry in release order, and the entries of its
 * size, also in release order. */
#define HC_IDLE_NIL UINT32_MAX

struct hc_idle_entry {
	uint64_t addr, size;
	uint64_t seq;          /* age: per-device release order */
	uint64_t from;         /* handle id of the releasing stream */
	hc_hal_event *fence;   /* recorded on it at release; NULL: none needed */
	uint32_t prev, next;   /* all entries, oldest first; next: free slots too */
	uint32_t sprev, snext; /* entries of this size, oldest first */
};

/* The entries of one size: a bucket of an open-addressing table keyed by
 * size (linear probing, backward-shift deletion), so that adopting by
 * size does not scan every idle entry of the device (a stream closing
 * with thousands of pages made each large miss scan them all). */
struct hc_idle_bucket {
	uint64_t size; /* 0: empty bucket */
	uint32_t head, tail;
};

struct hc_idle {
	pthread_mutex_t lock;
	struct hc_idle_entry *e; /* the slab */
	uint32_t cap, n;
	uint32_t free_slot;      /* free slots, through .next */
	uint32_t head, tail;     /* all entries, oldest first */
	struct hc_idle_bucket *tab;
	uint32_t tabcap, tabn;   /* a power of two; buckets in use */
	uint64_t *sizes;         /* the buckets' sizes, ascending (best fit) */
	uint32_t capsizes;       /* tabn of them are in use */
	uint64_t seq;
	uint64_t held, held_peak; /* device bytes the pools hold from storage */
	_Atomic uint64_t bytes;   /* idle bytes (read without the lock) */
	_Atomic uint64_t adopted, adopted_other; /* entries taken; by another stream */
};

/* The HAL a cache works through. */
struct hc_idle_hal {
	const struct hc_hal_ops *ops;
	hc_hal_dev *dev;
};

void hc_idle_init(struct hc_idle *c);
/* Frees every entry (device closing: every stream is torn down). */
void hc_idle_fini(struct hc_idle *c, const struct hc_idle_hal *h);

/*
 * hc_idle_take - adopt an idle entry of exactly @size for stream @who.
 * @to: @who's backend stream; it waits on the entry's fence when the entry
 * came from another stream and the fence has not passed.
 * Context: @who's lock held.  Never blocks the host.
 * Return: true and *@addr when an entry was adopted.
 */
bool hc_idle_take(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t who,
		  hc_hal_stream *to, uint64_t size, uint64_t *addr);
/*
 * hc_idle_take_fit - the same, but any entry of @size to @max bytes will
 * do: the smallest such size, its oldest entry (O(log sizes)).  *@got is
 * the entry's size.  hc_idle_take is this with @max = @size.
 */
bool hc_idle_take_fit(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t who,
		      hc_hal_stream *to, uint64_t size, uint64_t max, uint64_t *addr,
		      uint64_t *got);
/*
 * hc_idle_make_room - before a new device allocation of @size: free the
 * oldest entries while held + idle + @size would pass max(held peak,
 * held + @size), or until the backend refuses a free (that entry stays).
 * Context: a stream lock held.  Calls mem_free.
 */
void hc_idle_make_room(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t size);
/* hc_idle_trim - free the oldest entries until at most @keep bytes stay,
 * or until the backend refuses a free (that entry stays). */
void hc_idle_trim(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t keep);
/*
 * hc_idle_fit_limit - before a new device allocation of @size: free the
 * oldest idle entries until held + idle + @size fits @limit, if it can.
 * Context: a stream lock held.  Calls mem_free.
 * Return: whether held + @size fits @limit (the idle cache then made room).
 */
bool hc_idle_fit_limit(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t size,
		       uint64_t limit);
/* A pool took @size new bytes from the device (counts towards held). */
void hc_idle_note_alloc(struct hc_idle *c, uint64_t size);
/* A pool gave @size bytes straight back to the device (not cached). */
void hc_idle_note_free(struct hc_idle *c, uint64_t size);
/*
 * hc_idle_put - a pool of stream @who releases [@addr, +@size): record a
 * fence on @from and keep the memory idle.  When the fence cannot be
 * recorded or host memory runs out, the memory is freed to the device.
 * Context: @who's lock held.
 * Return: HC_OK or mem_free's status.
 */
hc_status hc_idle_put(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t who,
		      hc_hal_stream *from, uint64_t addr, uint64_t size);
/* Idle bytes now; relaxed, for usage reports.  Inline: hipsim reads them
 * after every replayed event. */
static inline uint64_t hc_idle_bytes(struct hc_idle *c)
{
	return atomic_load_explicit(&c->bytes, memory_order_relaxed);
}

#endif /* HIPCORE_CORE_IDLE_H */
