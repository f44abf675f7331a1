/*
 * ptrmap.c - the sharded address map of ptrmap.h.
 *
 * Device addresses are aligned (512 bytes on the GPUs here), so their low
 * bits carry nothing: a multiplicative hash spreads them, its top bits pick
 * the shard and the bits below them the home slot.
 */
#include <stdlib.h>
#include <string.h>

#include "torch/ptrmap.h"

#define PTRMAP_MIN_CAP 64

static uint64_t hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull;
}

static struct ptrmap_shard *shard_of(struct ptrmap *m, uint64_t h)
{
	return &m->shard[h >> 58]; /* 64 shards: the top six bits */
}

/* Home slot of hash @h in a table of @cap slots (the bits under the shard's). */
static size_t home(uint64_t h, size_t cap)
{
	return (size_t)(h >> 20) & (cap - 1);
}

void ptrmap_init(struct ptrmap *m)
{
	for (int i = 0; i < PTRMAP_SHARDS; i++) {
		pthread_mutex_init(&m->shard[i].lock, NULL);
		m->shard[i].slot = NULL;
		m->shard[i].cap = m->shard[i].n = 0;
	}
}

void ptrmap_fini(struct ptrmap *m)
{
	for (int i = 0; i < PTRMAP_SHARDS; i++) {
		free(m->shard[i].slot);
		m->shard[i].slot = NULL;
		m->shard[i].cap = m->shard[i].n = 0;
		pthread_mutex_destroy(&m->shard[i].lock);
	}
}

/* The slot holding @key, or the empty slot where it would go. */
static size_t probe(const struct ptrmap_shard *s, uint64_t key, uint64_t h)
{
	size_t i = home(h, s->cap);

	while (s->slot[i].key != 0 && s->slot[i].key != key)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int grow(struct ptrmap_shard *s)
{
	size_t cap = s->cap ? s->cap * 2 : PTRMAP_MIN_CAP;
	struct ptrmap_slot *old = s->slot, *nu = calloc(cap, sizeof(*nu));
	size_t old_cap = s->cap;

	if (!nu)
		return -1;
	s->slot = nu;
	s->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			s->slot[probe(s, old[i].key, hash(old[i].key))] = old[i];
	free(old);
	return 0;
}

int ptrmap_put(struct ptrmap *m, uint64_t key, const struct ptrmap_val *val)
{
	uint64_t h = hash(key);
	struct ptrmap_shard *s = shard_of(m, h);
	int rc = -1;
	size_t i;

	if (key == 0)
		return -1;
	pthread_mutex_lock(&s->lock);
	if ((s->n + 1) * 2 > s->cap && grow(s) != 0)
		goto out_unlock;
	i = probe(s, key, h);
	if (s->slot[i].key == 0) {
		s->slot[i].key = key;
		s->slot[i].val = *val;
		s->n++;
		rc = 0;
	}
out_unlock:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/*
 * Backward-shift deletion: after emptying slot @i, each later entry of the
 * run moves back into the hole unless its home lies cyclically in (@i, j],
 * where moving it would put it before its home.
 */
static void remove_at(struct ptrmap_shard *s, size_t i)
{
	size_t mask = s->cap - 1, j = i;

	for (;;) {
		size_t k;

		s->slot[i].key = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (s->slot[j].key == 0)
				return;
			k = home(hash(s->slot[j].key), s->cap);
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue; /* home between the hole and j: stays */
			break;
		}
		s->slot[i] = s->slot[j];
		i = j;
	}
}

enum find_op { FIND_GET, FIND_TAKE, FIND_MARK };

static bool find(struct ptrmap *m, uint64_t key, struct ptrmap_val *out, enum find_op op,
		 unsigned flags)
{
	uint64_t h = hash(key);
	struct ptrmap_shard *s = shard_of(m, h);
	bool found = false;
	size_t i;

	pthread_mutex_lock(&s->lock);
	if (s->cap && key != 0) {
		i = probe(s, key, h);
		if (s->slot[i].key == key) {
			found = true;
			s->slot[i].val.flags |= op == FIND_MARK ? flags : 0;
			if (out)
				*out = s->slot[i].val;
			if (op == FIND_TAKE) {
				remove_at(s, i);
				s->n--;
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	return found;
}

bool ptrmap_take(struct ptrmap *m, uint64_t key, struct ptrmap_val *out)
{
	return find(m, key, out, FIND_TAKE, 0);
}

bool ptrmap_get(struct ptrmap *m, uint64_t key, struct ptrmap_val *out)
{
	return find(m, key, out, FIND_GET, 0);
}

bool ptrmap_mark(struct ptrmap *m, uint64_t key, unsigned flags)
{
	return find(m, key, NULL, FIND_MARK, flags);
}

size_t ptrmap_count(struct ptrmap *m)
{
	size_t n = 0;

	for (int i = 0; i < PTRMAP_SHARDS; i++) {
		pthread_mutex_lock(&m->shard[i].lock);
		n += m->shard[i].n;
		pthread_mutex_unlock(&m->shard[i].lock);
	}
	return n;
}
