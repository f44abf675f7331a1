/*
 * idle.c - the device's cache of idle storage (design in core/pool/idle.h).
 *
 * Entries sit in a slab on two lists, all entries and the entries of
 * their size, both oldest first, with the sizes in an open-addressing
 * table: adoption takes the oldest entry of a size, trimming the oldest
 * entry of all, each in O(1).  (It was an array scanned per lookup: after
 * a stream with a million small buffers closed, its 2681 pages made every
 * 16 MiB miss of another stream scan them, 1.7-2.0 us a pair.)  The
 * sizes in use are also kept in an ascending array, so a best-fit take is
 * a binary search; a new or vanished size moves the array's tail (one
 * memmove of at most the number of distinct sizes).  HAL calls that may
 * block (mem_free, event_destroy) run after the lock is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pool/idle.h"
#include "core/internal.h"
#include "trace/hipcore_trace.h"

void hc_idle_init(struct hc_idle *c)
{
	memset(c, 0, sizeof(*c));
	c->free_slot = c->head = c->tail = HC_IDLE_NIL;
	pthread_mutex_init(&c->lock, NULL);
}

/* --- the size table ------------------------------------------------------ */

static uint32_t bucket_home(const struct hc_idle *c, uint64_t size)
{
	return (uint32_t)((size * 0x9e3779b97f4a7c15ull) >> 32) & (c->tabcap - 1);
}

/* The bucket of @size, or HC_IDLE_NIL. */
static uint32_t bucket_find(const struct hc_idle *c, uint64_t size)
{
	if (c->tabcap == 0)
		return HC_IDLE_NIL;
	for (uint32_t i = bucket_home(c, size);; i = (i + 1) & (c->tabcap - 1)) {
		if (c->tab[i].size == size)
			return i;
		if (c->tab[i].size == 0)
			return HC_IDLE_NIL;
	}
}

static void bucket_place(struct hc_idle *c, const struct hc_idle_bucket *b)
{
	uint32_t i = bucket_home(c, b->size);

	while (c->tab[i].size != 0)
		i = (i + 1) & (c->tabcap - 1);
	c->tab[i] = *b;
}

/* Index of the first size >= @size in the ascending size array. */
static uint32_t sizes_lower_bound(const struct hc_idle *c, uint64_t size)
{
	uint32_t lo = 0, hi = c->tabn;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->sizes[mid] < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The bucket of @size, made empty when new; HC_IDLE_NIL: no memory. */
static uint32_t bucket_get(struct hc_idle *c, uint64_t size)
{
	uint32_t i = bucket_find(c, size), at;

	if (i != HC_IDLE_NIL)
		return i;
	if (c->tabn == c->capsizes) {
		uint32_t cap = c->capsizes ? c->capsizes * 2 : 16;
		uint64_t *ns = realloc(c->sizes, (size_t)cap * sizeof(*ns));

		if (!ns)
			return HC_IDLE_NIL;
		c->sizes = ns;
		c->capsizes = cap;
	}
	if ((c->tabn + 1) * 4 > c->tabcap * 3) { /* keep the load under 3/4 */
		uint32_t cap = c->tabcap ? c->tabcap * 2 : 16, old = c->tabcap;
		struct hc_idle_bucket *t = calloc(cap, sizeof(*t)), *o = c->tab;

		if (!t)
			return HC_IDLE_NIL;
		c->tab = t;
		c->tabcap = cap;
		for (uint32_t k = 0; k < old; k++)
			if (o[k].size)
				bucket_place(c, &o[k]);
		free(o);
	}
	bucket_place(c, &(struct hc_idle_bucket){ size, HC_IDLE_NIL, HC_IDLE_NIL });
	at = sizes_lower_bound(c, size);
	memmove(&c->sizes[at + 1], &c->sizes[at], (size_t)(c->tabn - at) * sizeof(c->sizes[0]));
	c->sizes[at] = size;
	c->tabn++;
	return bucket_find(c, size);
}

/* Empties bucket @i, shifting back the buckets its probe chain holds. */
static void bucket_del(struct hc_idle *c, uint32_t i)
{
	uint32_t mask = c->tabcap - 1, k = sizes_lower_bound(c, c->tab[i].size);

	memmove(&c->sizes[k], &c->sizes[k + 1], (size_t)(c->tabn - k - 1) * sizeof(c->sizes[0]));
	for (uint32_t j = (i + 1) & mask; c->tab[j].size != 0; j = (j + 1) & mask) {
		uint32_t home = bucket_home(c, c->tab[j].size);

		/* j may move to i unless its home lies cyclically in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			c->tab[i] = c->tab[j];
			i = j;
		}
	}
	c->tab[i].size = 0;
	c->tabn--;
}

/* --- entries ------------------------------------------------------------- */

/* Takes entry @i off both lists and frees its slot; *@out gets it. */
static void entry_remove(struct hc_idle *c, uint32_t i, struct hc_idle_entry *out)
{
	struct hc_idle_entry *x = &c->e[i];
	uint32_t b = bucket_find(c, x->size);

	if (x->prev != HC_IDLE_NIL)
		c->e[x->prev].next = x->next;
	else
		c->head = x->next;
	if (x->next != HC_IDLE_NIL)
		c->e[x->next].prev = x->prev;
	else
		c->tail = x->prev;
	if (x->sprev != HC_IDLE_NIL)
		c->e[x->sprev].snext = x->snext;
	else
		c->tab[b].head = x->snext;
	if (x->snext != HC_IDLE_NIL)
		c->e[x->snext].sprev = x->sprev;
	else
		c->tab[b].tail = x->sprev;
	if (c->tab[b].head == HC_IDLE_NIL)
		bucket_del(c, b);
	*out = *x;
	x->next = c->free_slot;
	c->free_slot = i;
	c->n--;
	atomic_fetch_sub_explicit(&c->bytes, out->size, memory_order_relaxed);
}

/* Adds an entry to both lists: the newest (appended), or with @oldest an
 * entry put back, in its place by age (it was the oldest when taken out).
 * Return: false when out of host memory (nothing changed). */
static bool entry_insert(struct hc_idle *c, const struct hc_idle_entry *v, bool oldest)
{
	uint32_t b = bucket_get(c, v->size), i, j, k;
	struct hc_idle_entry *x;

	if (b == HC_IDLE_NIL)
		return false;
	if (c->free_slot == HC_IDLE_NIL) {
		uint32_t cap = c->cap ? c->cap * 2 : 32;
		struct hc_idle_entry *ne = cap > c->cap ? realloc(c->e, (size_t)cap * sizeof(*ne)) : NULL;

		if (!ne) {
			if (c->tab[b].head == HC_IDLE_NIL)
				bucket_del(c, b);
			return false;
		}
		for (uint32_t n = c->cap; n < cap; n++)
			ne[n].next = n + 1 < cap ? n + 1 : HC_IDLE_NIL;
		c->e = ne;
		c->free_slot = c->cap;
		c->cap = cap;
	}
	i = c->free_slot;
	x = &c->e[i];
	c->free_slot = x->next;
	*x = *v;
	/* before @j in all entries and @k in its size's: the end for a new
	 * entry; for one put back, the first entry released after it (the
	 * head, unless another thread put back an older one meanwhile) */
	j = k = HC_IDLE_NIL;
	if (oldest) {
		for (j = c->head; j != HC_IDLE_NIL && c->e[j].seq < x->seq; j = c->e[j].next)
			;
		for (k = c->tab[b].head; k != HC_IDLE_NIL && c->e[k].seq < x->seq; k = c->e[k].snext)
			;
	}
	x->next = j;
	x->prev = j != HC_IDLE_NIL ? c->e[j].prev : c->tail;
	*(x->prev != HC_IDLE_NIL ? &c->e[x->prev].next : &c->head) = i;
	*(j != HC_IDLE_NIL ? &c->e[j].prev : &c->tail) = i;
	x->snext = k;
	x->sprev = k != HC_IDLE_NIL ? c->e[k].sprev : c->tab[b].tail;
	*(x->sprev != HC_IDLE_NIL ? &c->e[x->sprev].snext : &c->tab[b].head) = i;
	*(k != HC_IDLE_NIL ? &c->e[k].sprev : &c->tab[b].tail) = i;
	c->n++;
	atomic_fetch_add_explicit(&c->bytes, v->size, memory_order_relaxed);
	return true;
}

/*
 * Frees entry @x, which the caller took off the lists (the oldest one), to
 * the device.  When the backend refuses (HC_ERR_STATE while a stream of
 * the device records a capture, a failing runtime), the entry goes back
 * where it was, fence and all, and false tells the caller to stop: taken
 * out first and freed after the lock, a refused entry used to be neither
 * idle nor freed, its device memory lost for good.  Only without the host
 * memory to put it back is it dropped.  Context: @c's lock not held.
 */
static bool entry_free(struct hc_idle *c, const struct hc_idle_hal *h, struct hc_idle_entry *x)
{
	bool back;

	if (h->ops->mem_free(h->dev, x->addr) == HC_OK) {
		if (x->fence)
			h->ops->event_destroy(h->dev, x->fence);
		HC_TRACE(device_free, x->from, x->addr, x->size);
		return true;
	}
	pthread_mutex_lock(&c->lock);
	back = entry_insert(c, x, true);
	pthread_mutex_unlock(&c->lock);
	if (!back && x->fence)
		h->ops->event_destroy(h->dev, x->fence);
	return false;
}

void hc_idle_fini(struct hc_idle *c, const struct hc_idle_hal *h)
{
	hc_idle_trim(c, h, 0);
	free(c->e);
	free(c->tab);
	free(c->sizes);
	c->e = NULL;
	c->tab = NULL;
	c->sizes = NULL;
	c->cap = c->tabcap = c->capsizes = 0;
	pthread_mutex_destroy(&c->lock);
}

static void held_add(struct hc_idle *c, uint64_t size)
{
	c->held += size;
	if (c->held > c->held_peak)
		c->held_peak = c->held;
}

bool hc_idle_take(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t who,
		  hc_hal_stream *to, uint64_t size, uint64_t *addr)
{
	uint64_t got;

	return hc_idle_take_fit(c, h, who, to, size, size, addr, &got);
}

bool hc_idle_take_fit(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t who,
		      hc_hal_stream *to, uint64_t size, uint64_t max, uint64_t *addr,
		      uint64_t *got)
{
	struct hc_idle_entry x;
	bool done = false;
	uint32_t b;

	if (atomic_load_explicit(&c->bytes, memory_order_relaxed) < size)
		return false;
	pthread_mutex_lock(&c->lock);
	b = bucket_find(c, size);
	if (b == HC_IDLE_NIL && max > size) {
		uint32_t k = sizes_lower_bound(c, size);

		if (k < c->tabn && c->sizes[k] <= max)
			b = bucket_find(c, c->sizes[k]);
	}
	if (b == HC_IDLE_NIL) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	entry_remove(c, c->tab[b].head, &x); /* the oldest of that size */
	size = x.size;
	held_add(c, size);
	pthread_mutex_unlock(&c->lock);
	atomic_fetch_add_explicit(&c->adopted, 1, memory_order_relaxed);
	if (x.from != who)
		atomic_fetch_add_explicit(&c->adopted_other, 1, memory_order_relaxed);
	if (x.fence) {
		/* Another stream's memory: its last use must be over before
		 * this stream's next work.  A failed query or wait leaves the
		 * safe choice: wait on the host. */
		if (x.from != who &&
		    (h->ops->event_query(h->dev, x.fence, &done) != HC_OK || !done) &&
		    h->ops->event_wait(h->dev, to, x.fence) != HC_OK)
			(void)h->ops->event_sync(h->dev, x.fence);
		h->ops->event_destroy(h->dev, x.fence);
	}
	*addr = x.addr;
	*got = x.size;
	return true;
}

void hc_idle_make_room(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t size)
{
	for (;;) {
		struct hc_idle_entry x;
		uint64_t want, idle;

		pthread_mutex_lock(&c->lock);
		idle = atomic_load_explicit(&c->bytes, memory_order_relaxed);
		want = c->held + size;
		if (c->held_peak > want)
			want = c->held_peak;
		if (c->n == 0 || c->held + idle + size <= want) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		entry_remove(c, c->head, &x);
		pthread_mutex_unlock(&c->lock);
		if (!entry_free(c, h, &x))
			return; /* the backend refuses frees now */
	}
}

void hc_idle_trim(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t keep)
{
	for (;;) {
		struct hc_idle_entry x;

		pthread_mutex_lock(&c->lock);
		if (c->n == 0 || atomic_load_explicit(&c->bytes, memory_order_relaxed) <= keep) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		entry_remove(c, c->head, &x);
		pthread_mutex_unlock(&c->lock);
		if (!entry_free(c, h, &x))
			return; /* the backend refuses frees now */
	}
}

bool hc_idle_fit_limit(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t size,
		       uint64_t limit)
{
	uint64_t held;

	pthread_mutex_lock(&c->lock);
	held = c->held;
	pthread_mutex_unlock(&c->lock);
	if (held > limit || size > limit - held)
		return false;
	hc_idle_trim(c, h, limit - held - size);
	return true;
}

void hc_idle_note_alloc(struct hc_idle *c, uint64_t size)
{
	pthread_mutex_lock(&c->lock);
	held_add(c, size);
	pthread_mutex_unlock(&c->lock);
}

void hc_idle_note_free(struct hc_idle *c, uint64_t size)
{
	pthread_mutex_lock(&c->lock);
	c->held -= size < c->held ? size : c->held;
	pthread_mutex_unlock(&c->lock);
}

hc_status hc_idle_put(struct hc_idle *c, const struct hc_idle_hal *h, uint64_t who,
		      hc_hal_stream *from, uint64_t addr, uint64_t size)
{
	hc_hal_event *fence = NULL;

	if (h->ops->event_record(h->dev, from, &fence) != HC_OK)
		goto free_now;
	pthread_mutex_lock(&c->lock);
	if (!entry_insert(c, &(struct hc_idle_entry){ .addr = addr, .size = size, .seq = c->seq + 1,
						  .from = who, .fence = fence }, false)) {
		pthread_mutex_unlock(&c->lock);
		h->ops->event_destroy(h->dev, fence);
		goto free_now;
	}
	c->seq++;
	c->held -= size < c->held ? size : c->held;
	pthread_mutex_unlock(&c->lock);
	return HC_OK;

free_now:
	hc_idle_note_free(c, size);
	HC_TRACE(device_free, who, addr, size);
	return h->ops->mem_free(h->dev, addr);
}
