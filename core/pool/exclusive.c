/*
 * exclusive.c - one slice per page, pages sized by a running average.
 *
 * A page holds exactly one slice (upstream wrote it for wgpu, where a buffer
 * must not be bound both read-only and read-write).  Every reservation
 * updates an exponential moving average of requested sizes (decay 0.01,
 * seeded at max_alloc_size / 2); a new page gets max(average, size) rounded
 * up to the alignment, so pages may be larger than the request.
 *
 * Reuse takes, among free pages of at least the requested size, the one with
 * the smallest free_count, the earliest page on a tie.  A new page starts at
 * free_count 4, a reuse lowers it by one (not below 0), and each periodic
 * check (every dealloc_period / 5 reservations of the manager) raises it by
 * one for every free page, deallocating those that reach 5.  An explicit
 * cleanup deallocates every free page.
 *
 * Free pages sit in five trees, one per free_count, keyed by page order with
 * the page size as the searched value: the pick is at most five O(log n)
 * descents.  Since a check raises every free page's count at once, the five
 * trees form a ring indexed by (free_count - checks) mod 5: a check frees the
 * tree of count 4 and advances the ring, touching no other page.
 */
#include <string.h>

#include "core/internal.h"
#include "core/pool/pool_internal.h"

#define ALLOC_AFTER_FREE 5u
#define SIZE_AVG_DECAY 0.01

static unsigned ring_slot(const struct hc_pool *p, uint32_t free_count)
{
	return (unsigned)((free_count + ALLOC_AFTER_FREE - p->epoch % ALLOC_AFTER_FREE) %
			  ALLOC_AFTER_FREE);
}

static void exclusive_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align)
{
	p->align = align;
	p->spec = *spec;
	p->accept_max = spec->max_alloc_size;
	p->period = spec->dealloc_period ? spec->dealloc_period : UINT64_MAX;
	p->cur_avg = (double)spec->max_alloc_size / 2.0;
}

static struct hc_slice *exclusive_try_reserve(struct hc_pool *p, uint64_t size)
{
	struct hc_tnode *n = NULL;
	struct hc_slice *s;
	uint32_t fc;

	p->cur_avg = p->cur_avg * (1.0 - SIZE_AVG_DECAY) + (double)size * SIZE_AVG_DECAY;
	for (fc = 0; fc < ALLOC_AFTER_FREE; fc++) {
		n = hc_tree_first_fit(&p->ring[ring_slot(p, fc)], size);
		if (n)
			break;
	}
	if (!n)
		return NULL;
	s = (struct hc_slice *)n;
	hc_tree_remove(&p->ring[ring_slot(p, fc)], n);
	s->in_tree = false;
	s->page->free_count = fc ? fc - 1 : 0;
	s->size = size;
	s->padding = hc_pad(size, p->align);
	hc_pool_mark_used(p, s, size);
	return s;
}

static hc_status exclusive_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out)
{
	uint64_t avg = p->cur_avg < 18446744073709549568.0 ? (uint64_t)p->cur_avg : UINT64_MAX;
	uint64_t want = avg > size ? avg : size;
	uint64_t alloc_size = want + hc_pad(want, p->align);
	struct hc_page *pg;
	struct hc_slice *s;
	hc_status st;

	if (size > p->spec.max_alloc_size || alloc_size < want)
		return hc_fail(HC_ERR_TOO_BIG, "%llu B exceed the pool's %llu B",
			       (unsigned long long)size,
			       (unsigned long long)p->spec.max_alloc_size);
	s = hc_pool_slice_new(p);
	if (!s)
		return hc_fail(HC_ERR_OOM, "no host memory for a slice record");
	pg = hc_pool_page_new(p, alloc_size, &st);
	if (!pg) {
		hc_pool_slice_put(p, s);
		return st;
	}
	pg->alloc_size = alloc_size;
	pg->free_count = ALLOC_AFTER_FREE - 1;
	pg->first = s;
	s->pool = p;
	s->page = pg;
	s->addr = pg->addr;
	s->size = size;
	s->padding = hc_pad(size, p->align);
	hc_pool_mark_used(p, s, size);
	*out = s;
	return HC_OK;
}

static void exclusive_on_free(struct hc_pool *p, struct hc_slice *s)
{
	s->node.k1 = s->page->seq;
	s->node.k2 = 0;
	s->node.val = s->page->alloc_size;
	hc_tree_insert(&p->ring[ring_slot(p, s->page->free_count)], &s->node);
	s->in_tree = true;
}

static void drop_tree(struct hc_pool *p, struct hc_tree *t)
{
	struct hc_tnode *n;

	while ((n = hc_tree_first(t))) {
		struct hc_slice *s = (struct hc_slice *)n;
		struct hc_page *pg = s->page;

		hc_tree_remove(t, n);
		hc_pool_slice_put(p, s);
		pg->first = NULL;
		hc_pool_page_drop(p, pg);
	}
}

static void exclusive_cleanup(struct hc_pool *p, uint64_t alloc_nr, bool explicit_)
{
	unsigned i;

	if (!explicit_ && alloc_nr - p->last_check < p->period / ALLOC_AFTER_FREE)
		return;
	p->last_check = alloc_nr;
	if (explicit_) {
		for (i = 0; i < ALLOC_AFTER_FREE; i++)
			drop_tree(p, &p->ring[i]);
		return;
	}
	/* Every free page's count goes up by one: those at 4 reach 5 and go. */
	drop_tree(p, &p->ring[ring_slot(p, ALLOC_AFTER_FREE - 1)]);
	p->epoch++;
}

static void exclusive_destroy(struct hc_pool *p)
{
	while (p->head) {
		struct hc_page *pg = p->head;

		if (pg->first)
			hc_pool_slice_put(p, pg->first);
		pg->first = NULL;
		hc_pool_page_drop(p, pg);
	}
	memset(p->ring, 0, sizeof(p->ring));
}

/* The reservation count at which the next periodic check is due. */
static uint64_t exclusive_next_due(const struct hc_pool *p)
{
	uint64_t cp = p->period / ALLOC_AFTER_FREE;

	return p->last_check > UINT64_MAX - cp ? UINT64_MAX : p->last_check + cp;
}

const struct hc_pool_ops hc_exclusive_ops = {
	.name = "exclusive",
	.report_kind = HC_POOL_EXCLUSIVE,
	.init = exclusive_init,
	.try_reserve = exclusive_try_reserve,
	.alloc = exclusive_alloc,
	.on_free = exclusive_on_free,
	.cleanup = exclusive_cleanup,
	.next_due = exclusive_next_due,
	.destroy = exclusive_destroy,
	.valid = hc_exclusive_valid,
};
