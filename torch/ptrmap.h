/*
 * ptrmap.h - device address -> allocation, for callers that free by pointer.
 *
 * A framework's allocator interface hands back a raw device pointer and
 * later frees by that pointer alone; libhipcore names buffers by handle.
 * This map closes the gap: one entry per live allocation, found in O(1)
 * from any thread.
 *
 * Shards: the key's hash picks one of PTRMAP_SHARDS tables, each behind its
 * own mutex and on its own cache lines, so threads allocating on different
 * streams rarely meet.  Inside a shard, open addressing with linear probing
 * and backward-shift deletion (no tombstones, so a long run of frees does
 * not slow lookups); a shard doubles at half load.  Key 0 marks an empty
 * slot: no allocation lives at address 0.
 *
 * Context: every function is thread-safe; none blocks except on a shard's
 * mutex, held for a probe sequence only.
 */
#ifndef HIPCORE_TORCH_PTRMAP_H
#define HIPCORE_TORCH_PTRMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTRMAP_SHARDS 64

/* What the map keeps of one allocation. */
struct ptrmap_val {
	uint64_t buffer; /* hc_buffer id */
	uint64_t size;   /* bytes the caller asked for */
	int device;      /* the caller's device ordinal */
	unsigned flags;  /* the caller's marks (ptrmap_mark) */
};

struct ptrmap_slot {
	uint64_t key;
	struct ptrmap_val val;
};

struct ptrmap_shard {
	pthread_mutex_t lock;
	struct ptrmap_slot *slot; /* cap entries, cap a power of two, or NULL */
	size_t cap, n;
} __attribute__((aligned(64)));

struct ptrmap {
	struct ptrmap_shard shard[PTRMAP_SHARDS];
};

void ptrmap_init(struct ptrmap *m);
/* Frees the tables; the map must not be used after, until ptrmap_init. */
void ptrmap_fini(struct ptrmap *m);

/*
 * ptrmap_put - map @key to @val.
 * Return: 0; -1 when @key is 0 or already mapped (the entry is left as it
 * was), or when a shard cannot grow (out of host memory).
 */
int ptrmap_put(struct ptrmap *m, uint64_t key, const struct ptrmap_val *val);

/* ptrmap_take - remove @key, its value in *@out.  Return: false if absent. */
bool ptrmap_take(struct ptrmap *m, uint64_t key, struct ptrmap_val *out);

/* ptrmap_get - @key's value in *@out, the entry kept.  Return: false if absent. */
bool ptrmap_get(struct ptrmap *m, uint64_t key, struct ptrmap_val *out);

/* ptrmap_mark - or @flags into @key's entry.  Return: false if absent. */
bool ptrmap_mark(struct ptrmap *m, uint64_t key, unsigned flags);

/* The number of entries (a snapshot: other threads may change it). */
size_t ptrmap_count(struct ptrmap *m);

#endif /* HIPCORE_TORCH_PTRMAP_H */
