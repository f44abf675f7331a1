/*
 * sliced.c - fixed-size pages carved first-fit into slices.
 *
 * Each page is a list of slices in offset order; a new page starts as one
 * free slice.  A reservation of effective size E (size + alignment padding)
 * takes the first free slice, in (page order, offset order), whose recorded
 * size is at least E, keeps the requested size and padding on it, and turns
 * the rest into a new free slice at offset + E.  Pages are kept in creation
 * order; cleanup removes pages without renumbering the survivors' order.
 *
 * Upstream keeps the slices in a vector per page and, on each reservation,
 * walks the pages in order, coalescing each one (every run of two or more
 * adjacent free slices becomes one free slice whose size is the sum of their
 * effective sizes, padding 0) and then scanning it for the first fit.  Here
 * the free slices sit in a tree keyed by (page order, offset) with the
 * largest free size of each subtree, so the first fit is one O(log n)
 * descent, and coalescing is eager: a slice that becomes free merges at once
 * with a free predecessor and/or successor.
 *
 * Why eager coalescing places exactly as lazy coalesce-then-fit:
 *  - upstream never fits into page P before coalescing P on that same call,
 *    so every fit decision upstream sees P fully coalesced, which is the
 *    state eager merging keeps P in at all times;
 *  - merging is associative: a merged slice has padding 0, so its effective
 *    size is its size, and merging A+B then +C gives eff(A)+eff(B)+eff(C),
 *    the same sum as merging the whole run at once;
 *  - a free slice with no free neighbour is left alone by both, keeping its
 *    recorded (requested) size, so the quirk that a lone freed slice offers
 *    only its requested bytes, not its padding, is reproduced, as is the
 *    loss of that padding when such a slice is split (the remainder gets
 *    recorded size minus E, padding 0);
 *  - pages later than the one that fits are not coalesced upstream on that
 *    call, but their state cannot influence that call's result, and they
 *    will be coalesced before any later decision that looks at them.
 * Hence the tree's leftmost run of at least E is upstream's fit.
 *
 * One deliberate difference: a size-0 request (E = 0) in a sliced pool
 * leaves a zero-size slice that shares its offset with its successor.  Free
 * zero-size slices are kept out of the tree (every key stays unique, so the
 * order is total) and wait to be merged by a neighbour; a later size-0
 * request therefore takes the first run with bytes, where upstream could
 * take such an empty slice.  Only the address handed to size-0 requests can
 * differ, and the presets never route size 0 to a sliced pool.
 */
#include "core/internal.h"
#include "core/pool/pool_internal.h"

#define SLICE_OF(n) ((struct hc_slice *)(n))

static void sliced_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align)
{
	uint64_t page = spec->page_size;
	uint64_t max_slice = spec->max_slice_size ? spec->max_slice_size : page;
	uint64_t cap = spec->max_pool_size;

	p->align = align;
	p->park = HC_PARK_SLICED;
	p->capped = cap != 0;
	p->max_pages = UINT64_MAX;
	if (p->capped) {
		/* A cap below one page shrinks the page to what fits, never below
		 * the alignment; a cap below the alignment then allows no page. */
		if (cap < page) {
			page = cap / align * align;
			if (page < align)
				page = align;
		}
		p->max_pages = cap / page;
		if (p->max_pages > HC_MM_MAX_PAGES)
			p->max_pages = HC_MM_MAX_PAGES;
	}
	if (max_slice > page)
		max_slice = page;
	p->spec = *spec;
	p->spec.page_size = page;
	p->spec.max_slice_size = max_slice;
	/* Slices up to max_slice_size; an uncapped pool also takes near-page
	 * requests, those within 20% of a page: size in (0.8 page, page], that
	 * is 5 * (page - size) < page, or page - size < ceil(page / 5). */
	p->accept_max = max_slice;
	if (!p->capped) {
		p->near_hi = page;
		p->near_lo = page - (page / 5 + (page % 5 != 0));
	}
}

/*
 * A sliced pool's slices hold their offset in node.k2, in the tree or not;
 * the record's offset and addr fields (its third line) are kept only while
 * the slice is not free (sfree false), for the manager's and callers'
 * reads.  Free runs move and merge through k2 alone: a replay with random
 * frees finds most records' third line cold, and now touches it only when
 * a run is handed out whole, which reads addr anyway.  hc_sliced_valid
 * checks both halves.
 */
static void free_insert(struct hc_pool *p, struct hc_slice *s)
{
	s->node.k1 = s->page->seq;
	s->node.val = s->size;
	hc_tree_insert(&p->free_runs, &s->node);
	s->in_tree = true;
}

static void free_remove(struct hc_pool *p, struct hc_slice *s)
{
	hc_tree_remove(&p->free_runs, &s->node);
	s->in_tree = false;
}

/* Carves @size (effective @eff) from the front of free slice @s, which is
 * out of the tree.  The remainder, if any, becomes a free slice. */
static hc_status carve(struct hc_pool *p, struct hc_slice *s, uint64_t size, uint64_t eff)
{
	uint64_t old = s->size;

	if (old > eff) {
		struct hc_slice *r = hc_pool_slice_new(p);

		if (!r)
			return hc_fail(HC_ERR_OOM, "no host memory for a slice record");
		hc_slice_split_tail(p, s, r, eff);
		r->node.k2 = r->offset;
		free_insert(p, r);
	}
	s->sfree = false;
	s->size = size;
	s->padding = eff - size;
	hc_pool_mark_used(p, s, size);
	return HC_OK;
}

static struct hc_slice *sliced_try_reserve(struct hc_pool *p, uint64_t size)
{
	uint64_t eff = size + hc_pad(size, p->align);
	struct hc_tree_path path;
	struct hc_tnode *n = hc_tree_first_fit_path(&p->free_runs, eff, &path);
	struct hc_slice *s;

	if (!n)
		return NULL;
	s = SLICE_OF(n);
	hc_pool_empty_remove(p, s->page); /* if it was wholly free */
	if (s->size > eff) {
		/* A new record before @s takes the run's front; @s keeps the
		 * rest (recorded size less @eff, padding 0, as carve() leaves a
		 * remainder) and its place in the tree: its key moves up by @eff
		 * past no other key, and only the maxima above it can fall. */
		struct hc_slice *a = hc_pool_slice_new(p);

		if (!a)
			return NULL;
		a->pool = p;
		a->page = s->page;
		a->offset = s->node.k2; /* @s is free: its offset is k2 */
		a->node.k2 = a->offset;
		a->addr = s->page->addr + a->offset;
		a->prev = s->prev;
		a->next = s;
		if (s->prev)
			s->prev->next = a;
		else
			s->page->first = a;
		s->prev = a;
		s->padding = 0;
		s->node.k2 += eff;
		hc_tree_lower_path(&p->free_runs, &path, &s->node, s->size - eff);
		s->size -= eff;
		a->size = size;
		a->padding = eff - size;
		hc_pool_mark_used(p, a, size);
		return a;
	}
	free_remove(p, s);
	s->sfree = false;
	s->offset = s->node.k2;
	s->addr = s->page->addr + s->offset;
	s->size = size;
	s->padding = eff - size;
	hc_pool_mark_used(p, s, size);
	return s;
}

static hc_status sliced_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out)
{
	uint64_t eff = size + hc_pad(size, p->align);
	struct hc_page *pg;
	struct hc_slice *s;
	hc_status st;

	if (p->capped && p->npages >= p->max_pages)
		return hc_fail(HC_ERR_CAPACITY,
			       "sliced pool full: %llu B requested, capacity %llu B, %llu B in use",
			       (unsigned long long)size, (unsigned long long)p->spec.max_pool_size,
			       (unsigned long long)p->use.bytes_in_use);
	if (eff > p->spec.page_size)
		return hc_fail(HC_ERR_TOO_BIG, "%llu B do not fit a %llu B page",
			       (unsigned long long)size, (unsigned long long)p->spec.page_size);
	pg = hc_pool_page_new(p, p->spec.page_size, &st);
	if (!pg)
		return st;
	s = hc_pool_slice_new(p);
	if (!s) {
		st = hc_fail(HC_ERR_OOM, "no host memory for a slice record");
		goto err_drop_page;
	}
	s->pool = p;
	s->page = pg;
	s->offset = 0;
	s->addr = pg->addr;
	s->size = pg->size;
	pg->first = s;
	st = carve(p, s, size, eff);
	if (st != HC_OK)
		goto err_put_slice;
	*out = s;
	return HC_OK;

err_put_slice:
	pg->first = NULL;
	hc_pool_slice_put(p, s);
err_drop_page:
	hc_pool_page_drop(p, pg);
	return st;
}

static uint64_t eff_of(const struct hc_slice *s)
{
	return s->size + s->padding;
}

/* Puts @s (free, just grown or new to the tree) where it belongs: in the
 * tree when it has bytes to offer.  Zero-size free slices stay out of it:
 * they share their offset with their successor, and keeping every key in
 * the tree unique keeps the tree's order total.  A run in the tree only
 * grows here (a merge adds a neighbour's bytes), so its ancestors' maxima
 * are raised, not recomputed. */
static void track(struct hc_pool *p, struct hc_slice *s)
{
	if (s->in_tree) {
		hc_tree_raise(&p->free_runs, &s->node, s->size); /* its key is node.k2 already */
	} else if (s->size > 0) {
		free_insert(p, s);
	}
}

static void sliced_on_free(struct hc_pool *p, struct hc_slice *s)
{
	struct hc_slice *prev = s->prev, *next = s->next;
	struct hc_page *pg = s->page;
	bool pf = prev && prev->sfree, nf = next && next->sfree;

	/* Its last live slice: free neighbours always merge, so the page is
	 * one free run now, and cleanup may give it back. */
	if (pg->live == 0)
		hc_pool_empty_add(p, pg);

	s->sfree = true;
	if (pf && nf) {
		prev->size = eff_of(prev) + eff_of(s) + eff_of(next);
		prev->padding = 0;
		if (next->in_tree)
			free_remove(p, next);
		hc_slice_unlink(s);
		hc_slice_unlink(next);
		hc_pool_slice_put(p, s);
		hc_pool_slice_put(p, next);
		track(p, prev);
	} else if (pf) {
		prev->size = eff_of(prev) + eff_of(s);
		prev->padding = 0;
		hc_slice_unlink(s);
		hc_pool_slice_put(p, s);
		track(p, prev);
	} else if (nf) {
		/* @next takes @s's place: its key moves down to @s's offset, and no
		 * other tracked run lies between the two, so the tree order holds. */
		next->size = eff_of(s) + eff_of(next);
		next->padding = 0;
		next->node.k2 = s->node.k2;
		hc_slice_unlink(s);
		hc_pool_slice_put(p, s);
		track(p, next);
	} else {
		track(p, s);
	}
}

static void page_release(struct hc_pool *p, struct hc_page *pg)
{
	struct hc_slice *s = pg->first, *nx;

	for (; s; s = nx) {
		nx = s->next;
		if (s->in_tree)
			free_remove(p, s);
		hc_pool_slice_put(p, s);
	}
	pg->first = NULL;
	hc_pool_page_drop(p, pg);
}

/* Explicit cleanup frees every page with no live slice, oldest first;
 * periodic does nothing. */
static void sliced_cleanup(struct hc_pool *p, uint64_t alloc_nr, bool explicit_)
{
	struct hc_page *pg;

	if (!explicit_)
		return;
	while ((pg = hc_pool_empty_first(p)))
		page_release(p, pg);
}

static void sliced_destroy(struct hc_pool *p)
{
	while (p->head)
		page_release(p, p->head);
}

const struct hc_pool_ops hc_sliced_ops = {
	.name = "sliced",
	.report_kind = HC_POOL_SLICED,
	.init = sliced_init,
	.try_reserve = sliced_try_reserve,
	.alloc = sliced_alloc,
	.on_free = sliced_on_free,
	.cleanup = sliced_cleanup,
	.destroy = sliced_destroy,
	.valid = hc_sliced_valid,
};
