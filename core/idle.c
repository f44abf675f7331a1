/*
 * idle.c - the device's cache of idle storage (design in core/idle.h).
 *
 * A plain array in release order: lookups scan it, which is fine because
 * it is only touched on the storage path (a pool miss or a pool release),
 * never on a pool hit, and holds at most the allocations the device's
 * watermarks gave back.  Entries leave it by adoption (any position) or
 * by trimming (oldest first).  HAL calls that may block (mem_free,
 * event_destroy) run after the lock is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "core/idle.h"
#include "core/internal.h"
#include "trace/hipcore_trace.h"

void hc_idle_init(struct hc_idle *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
}

static void entry_remove(struct hc_idle *c, size_t i, struct hc_idle_entry *out)
{
	*out = c->e[i];
	memmove(&c->e[i], &c->e[i + 1], (c->n - i - 1) * sizeof(c->e[0]));
	c->n--;
	atomic_fetch_sub_explicit(&c->bytes, out->size, memory_order_relaxed);
}

static void entry_free(const struct hc_idle_hal *h, struct hc_idle_entry *x)
{
	if (x->fence)
		h->ops->event_destroy(h->dev, x->fence);
	HC_TRACE(device_free, x->from, x->addr, x->size);
	(void)h->ops->mem_free(h->dev, x->addr);
}

void hc_idle_fini(struct hc_idle *c, const struct hc_idle_hal *h)
{
	hc_idle_trim(c, h, 0);
	free(c->e);
	c->e = NULL;
	c->cap = 0;
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
	struct hc_idle_entry x;
	bool done = false;
	size_t i;

	if (atomic_load_explicit(&c->bytes, memory_order_relaxed) < size)
		return false;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->n && c->e[i].size != size; i++)
		;
	if (i == c->n) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	entry_remove(c, i, &x);
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
		entry_remove(c, 0, &x);
		pthread_mutex_unlock(&c->lock);
		entry_free(h, &x);
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
		entry_remove(c, 0, &x);
		pthread_mutex_unlock(&c->lock);
		entry_free(h, &x);
	}
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
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct hc_idle_entry *ne = realloc(c->e, cap * sizeof(*ne));

		if (!ne) {
			pthread_mutex_unlock(&c->lock);
			h->ops->event_destroy(h->dev, fence);
			goto free_now;
		}
		c->e = ne;
		c->cap = cap;
	}
	c->e[c->n++] = (struct hc_idle_entry){ addr, size, ++c->seq, who, fence };
	c->held -= size < c->held ? size : c->held;
	atomic_fetch_add_explicit(&c->bytes, size, memory_order_relaxed);
	pthread_mutex_unlock(&c->lock);
	return HC_OK;

free_now:
	hc_idle_note_free(c, size);
	HC_TRACE(device_free, who, addr, size);
	return h->ops->mem_free(h->dev, addr);
}

uint64_t hc_idle_bytes(struct hc_idle *c)
{
	return atomic_load_explicit(&c->bytes, memory_order_relaxed);
}
