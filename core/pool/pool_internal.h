/*
 * pool_internal.h - what the pool files share: the free tree, slices, pages
 * and the per-kind pool operations.  Only the files of core/pool/ include
 * it.
 *
 * Glossary: a *page* is one storage allocation; a *slice* is a byte range of
 * a page (sliced pools hold many per page, the other kinds exactly one); a
 * slice is *free* when no owner holds it and its pin count is zero.
 */
#ifndef HIPCORE_CORE_POOL_INTERNAL_H
#define HIPCORE_CORE_POOL_INTERNAL_H

#include "core/pool/pool.h"

/* free_tree.c: a treap ordered by (k1, k2) with subtree max of val. */
struct hc_tnode {
	struct hc_tnode *l, *r;
	uint64_t k1, k2; /* order key */
	uint64_t val;    /* searched by hc_tree_first_fit */
	uint64_t max;    /* max val in this subtree */
	uint32_t prio;
};

struct hc_tree {
	struct hc_tnode *root;
	uint64_t n;
	uint32_t seed;
};

/* Deepest root-to-node path the iterative updates keep on the stack; a
 * deeper treap (vanishingly unlikely: expected depth is about 2 ln n)
 * takes the recursive walks instead. */
#define HC_TREE_PATH_MAX 96

struct hc_tree_path {
	unsigned n;
	struct hc_tnode *node[HC_TREE_PATH_MAX];
};

void hc_tree_insert(struct hc_tree *t, struct hc_tnode *x);
struct hc_tnode *hc_tree_first_fit_path(const struct hc_tree *t, uint64_t need,
					struct hc_tree_path *path);
/* x->val = @v, no more than it was, after x's key moved without passing a
 * neighbour's; @path: hc_tree_first_fit_path's descent to x. */
void hc_tree_lower_path(struct hc_tree *t, struct hc_tree_path *path, struct hc_tnode *x, uint64_t v);
void hc_tree_remove(struct hc_tree *t, struct hc_tnode *x);
struct hc_tnode *hc_tree_first_fit(const struct hc_tree *t, uint64_t need);
struct hc_tnode *hc_tree_lower_bound(const struct hc_tree *t, uint64_t k1, uint64_t k2);
struct hc_tnode *hc_tree_first(const struct hc_tree *t);
void hc_tree_refresh(struct hc_tree *t, struct hc_tnode *x);
/* x->val = @v and hc_tree_refresh; when @v is not below the old val, one
 * descent that reads no sibling. */
void hc_tree_raise(struct hc_tree *t, struct hc_tnode *x, uint64_t v);
bool hc_tree_valid(const struct hc_tree *t);

struct hc_pool;
struct hc_page;

/* One slice.  Lives in the manager's slab; @id is 0 while nobody may name it. */
struct hc_slice {
	struct hc_tnode node;      /* in the pool's free structure while free */
	uint64_t id;               /* identity handed out; 0 = free or dead */
	uint64_t addr;             /* page base + offset (or own allocation) */
	uint64_t offset;           /* within its page */
	uint64_t size;             /* recorded size: requested bytes, or a free run */
	uint64_t padding;          /* (align - size % align) % align while in use */
	struct hc_slice *prev;     /* sliced, split: neighbours in page order */
	struct hc_slice *next;
	struct hc_page *page;      /* sliced/exclusive/split: owning page */
	struct hc_pool *pool;
	uint64_t seq;              /* direct: slot index; persistent: creation order */
	uint64_t span;             /* direct/persistent: bytes of its own allocation */
	uint32_t pins;
	bool owned;
	bool in_tree;
	bool sfree;                /* sliced, split: free (sliced: in the tree unless size 0) */
	bool touched;              /* capture: already in the touched list */
	bool primed;               /* capture: pinned by priming */
	bool dead;                 /* on the slab free list */
	struct hc_slice *slab_next;
};

struct hc_page {
	uint64_t addr, size;
	uint64_t seq;              /* creation order; page order key */
	uint64_t live;             /* non-free slices on the page */
	struct hc_slice *first;    /* slices in offset order */
	struct hc_page *prev, *next;
	/* exclusive pool */
	uint64_t alloc_size;
	uint32_t free_count;
	uint64_t fc_class;         /* ring slot while free */
};

struct hc_mm_core; /* the parts of hc_mm a pool may use */

struct hc_pool {
	hc_pool_kind kind;
	hc_pool_spec spec;         /* after rounding and shrinking (report) */
	uint64_t align;
	struct hc_mm *mm;
	/* pages, in creation order */
	struct hc_page *head, *tail;
	uint64_t npages, pages_peak, largest_alloc, page_seq;
	/* usage, kept incrementally so usage/report cost O(pools) */
	hc_memory_usage use;
	/* The manager's sum of every pool's @use (struct hc_mm.total), moved
	 * with it, so that hc_mm_usage reads one figure instead of adding up
	 * the pools (hipsim samples usage after every replayed event). */
	hc_memory_usage *total;
	/* sliced */
	struct hc_tree free_runs;  /* free slices keyed by (page seq, offset), val = size */
	uint64_t max_pages;        /* UINT64_MAX when uncapped */
	bool capped;
	/* exclusive */
	struct hc_tree ring[5];    /* free pages by free_count, rotating */
	uint64_t epoch;            /* periodic checks done */
	double cur_avg;
	uint64_t period, last_check;
	/* direct / persistent: free slices keyed by (effective size, seq) */
	struct hc_tree by_size;
	struct hc_slice **slots;   /* direct: slot index -> slice (NULL = vacant) */
	uint64_t nslots, cap_slots;
	uint64_t *vacant;
	uint64_t nvacant, cap_vacant;
	uint64_t next_seq;         /* persistent: creation order; split: free stamps */
	uint64_t used_peak;        /* direct: peak of in-use + padding bytes */
	struct hc_mm_shared *shared; /* direct at peak: device-wide figures, or NULL */
	bool split;                /* direct: best-fit split segments (split.c) */
	bool capacity_warned;
};

static inline uint64_t hc_pad(uint64_t size, uint64_t align)
{
	/* Every reservation pays this: a mask for the usual power-of-two
	 * alignment instead of two divisions (the same value). */
	if ((align & (align - 1)) == 0)
		return (0 - size) & (align - 1);
	return (align - size % align) % align;
}

/* manager.c: services for the pool files */
struct hc_slice *hc_mm_slice_new(struct hc_mm *mm);
void hc_mm_slice_put(struct hc_mm *mm, struct hc_slice *s);
hc_status hc_mm_storage_alloc(struct hc_mm *mm, uint64_t size, uint64_t *addr);
hc_status hc_mm_storage_alloc_fit(struct hc_mm *mm, uint64_t size, uint64_t max, uint64_t *addr,
				  uint64_t *got);
void hc_mm_storage_free(struct hc_mm *mm, uint64_t addr, uint64_t size);
struct hc_slice *hc_pool_take_exact(struct hc_pool *p, uint64_t size);

/* The usage counters of a reservation of @s: hc_pool_mark_used but for
 * the page's live count and largest_alloc, which a parked reuse knows
 * without testing (manager.c, park_take). */
static inline void hc_pool_count_used(struct hc_pool *p, struct hc_slice *s)
{
	s->owned = true;
	p->use.number_allocs++;
	p->use.bytes_in_use += s->size;
	p->use.bytes_padding += s->padding;
	p->total->number_allocs++;
	p->total->bytes_in_use += s->size;
	p->total->bytes_padding += s->padding;
}

/* Usage bookkeeping of every reservation and release: inline, it sits on
 * the pool-hit path of each pool file. */
static inline void hc_pool_mark_used(struct hc_pool *p, struct hc_slice *s, uint64_t size)
{
	hc_pool_count_used(p, s);
	if (s->page)
		s->page->live++;
	if (size > p->largest_alloc)
		p->largest_alloc = size;
}

/* Each figure of the pool and of the manager's sum together: written as
 * the pool's three then the sum's three, GCC's SLP vectorizer paired the
 * pool's count and bytes into one SSE read-modify-write with a blend,
 * about ten instructions more per release (bench/callgrind-pair). */
static inline void hc_pool_mark_unused(struct hc_pool *p, struct hc_slice *s)
{
	p->use.number_allocs--;
	p->total->number_allocs--;
	p->use.bytes_in_use -= s->size;
	p->total->bytes_in_use -= s->size;
	p->use.bytes_padding -= s->padding;
	p->total->bytes_padding -= s->padding;
	if (s->page)
		s->page->live--;
}
struct hc_page *hc_pool_page_new(struct hc_pool *p, uint64_t size, hc_status *st);
struct hc_page *hc_pool_page_new_fit(struct hc_pool *p, uint64_t size, uint64_t max,
				     hc_status *st);
void hc_pool_page_drop(struct hc_pool *p, struct hc_page *pg);

/* Per kind.  try_reserve returns NULL on a miss; alloc reports the status. */
void hc_sliced_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align);
/* Slices up to max_slice_size; an uncapped pool also takes near-page
 * requests, those within 20% of a page: size in (0.8 page, page].
 * Inline: the router asks every pool in turn on each reservation. */
static inline bool hc_sliced_accept(const struct hc_pool *p, uint64_t size)
{
	uint64_t page = p->spec.page_size;

	if (size <= p->spec.max_slice_size)
		return true;
	/* 5 * (page - size) < page, without overflow */
	return !p->capped && size <= page && (page - size) < page / 5 + (page % 5 != 0);
}
struct hc_slice *hc_sliced_try_reserve(struct hc_pool *p, uint64_t size);
hc_status hc_sliced_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out);
void hc_sliced_on_free(struct hc_pool *p, struct hc_slice *s);
void hc_sliced_cleanup(struct hc_pool *p, bool explicit_);
void hc_sliced_destroy(struct hc_pool *p);

void hc_exclusive_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align);
static inline bool hc_exclusive_accept(const struct hc_pool *p, uint64_t size)
{
	return size <= p->spec.max_alloc_size;
}
struct hc_slice *hc_exclusive_try_reserve(struct hc_pool *p, uint64_t size);
hc_status hc_exclusive_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out);
void hc_exclusive_on_free(struct hc_pool *p, struct hc_slice *s);
void hc_exclusive_cleanup(struct hc_pool *p, uint64_t alloc_nr, bool explicit_);
void hc_exclusive_destroy(struct hc_pool *p);

void hc_direct_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align);
struct hc_slice *hc_direct_try_reserve(struct hc_pool *p, uint64_t size);
hc_status hc_direct_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out);
void hc_direct_on_free(struct hc_pool *p, struct hc_slice *s);
void hc_direct_cleanup(struct hc_pool *p, bool explicit_);
void hc_direct_destroy(struct hc_pool *p);

/* The device-wide figures of HC_RECLAIM_AT_PEAK pools (struct hc_mm_shared):
 * relaxed, as each manager is serialised by its owner. */

/* Whether direct pool @p keeps the device-wide figures. */
static inline bool hc_pool_at_peak_shared(const struct hc_pool *p)
{
	return p->shared && p->spec.reclaim_at == HC_RECLAIM_AT_PEAK;
}

/* The bytes parked in held slots: counted in sh->used, not in use. */
static inline uint64_t hc_shared_parked(struct hc_mm_shared *sh)
{
	uint64_t held = atomic_load_explicit(&sh->slots_held, memory_order_acquire), sum = 0;

	for (; held; held &= held - 1)
		sum += atomic_load_explicit(&sh->park[__builtin_ctzll(held)].bytes,
					    memory_order_relaxed);
	return sum;
}

/* The peak rises to @u (in-use bytes) if that is higher. */
static inline void hc_shared_peak_note(struct hc_mm_shared *sh, uint64_t u)
{
	uint64_t pk = atomic_load_explicit(&sh->peak, memory_order_relaxed);

	while (u > pk && !atomic_compare_exchange_weak_explicit(&sh->peak, &pk, u,
								 memory_order_relaxed,
								 memory_order_relaxed))
		;
}

/* In-use bytes grow by @n.  Only a candidate for a new peak pays for the
 * parked bytes' slots (growth; a steady state's hits never do). */
static inline void hc_shared_used_add(struct hc_mm_shared *sh, uint64_t n)
{
	uint64_t u = atomic_fetch_add_explicit(&sh->used, n, memory_order_relaxed) + n;
	uint64_t parked;

	if (u <= atomic_load_explicit(&sh->peak, memory_order_relaxed))
		return;
	parked = hc_shared_parked(sh);
	hc_shared_peak_note(sh, u > parked ? u - parked : 0);
}

/* Storage held by @p grows or shrinks by @n bytes. */
static inline void hc_pool_reserved_add(struct hc_pool *p, uint64_t n)
{
	p->use.bytes_reserved += n;
	p->total->bytes_reserved += n;
}

static inline void hc_pool_reserved_sub(struct hc_pool *p, uint64_t n)
{
	p->use.bytes_reserved -= n;
	p->total->bytes_reserved -= n;
}

static inline void hc_shared_sub(_Atomic uint64_t *x, uint64_t n)
{
	atomic_fetch_sub_explicit(x, n, memory_order_relaxed);
}

/* Takes @s out of its page's offset-ordered slice list. */
static inline void hc_slice_unlink(struct hc_slice *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		s->page->first = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

/* A direct pool with p->split: best-fit, split, coalesced segments. */
void hc_split_init(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align);
struct hc_slice *hc_split_try_reserve(struct hc_pool *p, uint64_t size);
hc_status hc_split_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out);
void hc_split_on_free(struct hc_pool *p, struct hc_slice *s);
/* Several streams share the device: wholly free segments live in its idle
 * cache, not in a split pool. */
static inline bool hc_pool_several(const struct hc_pool *p)
{
	return p->shared && atomic_load_explicit(&p->shared->managers, memory_order_relaxed) > 1;
}

/* The in-use peak and the shared figures grow by a block of @extent bytes
 * handed out. */
void hc_split_used_note(struct hc_pool *p, uint64_t extent);

/*
 * Parked frees of a split pool (manager.c, "parked frees", argues
 * why these conditions make the reuse exact).  The release and the reuse
 * are the parked pair's whole hot path, hence inline here.
 *
 * hc_split_park_shape: the next best fit of @s's size would find it again,
 * whole and in place, with its remainder; @alone: no other block of its
 * segment is in use.  hc_split_park_valid: hc_mm_valid's check of that,
 * @s's usage counted (@in_use: taken back from a park) or not (parked).
 * hc_split_park_flush: a parked free completed.
 */
bool hc_split_park_shape(const struct hc_pool *p, const struct hc_slice *s, bool alone);
bool hc_split_park_valid(const struct hc_pool *p, const struct hc_slice *s, bool in_use);
void hc_split_park_flush(struct hc_pool *p, struct hc_slice *s, _Atomic uint64_t *slot);

/* Whether the release of @s (its usage not yet counted free) may be
 * parked: the shape (known to hold when @shaped: @s was just taken back
 * from a park, which leaves the pool as it was), and a segment it leaves
 * wholly free would not go to the idle cache (one stream; no capture, as
 * the manager has none while it parks).  When it may, the free's one
 * effect outside the pool happens now, as on_free does it: the shared
 * in-use bytes drop, by the manager's @slot taking them (a plain store to
 * a line only this manager writes) or, with no slot, off sh->used. */
static inline bool hc_split_park(struct hc_pool *p, struct hc_slice *s, bool shaped,
				 _Atomic uint64_t *slot)
{
	bool alone = s->page->live == 1;

	if ((alone && hc_pool_several(p)) || (!shaped && !hc_split_park_shape(p, s, alone)))
		return false;
	if (!hc_pool_at_peak_shared(p))
		return true;
	if (slot)
		atomic_store_explicit(slot, s->size + s->padding, memory_order_release);
	else
		hc_shared_sub(&p->shared->used, s->size + s->padding);
	return true;
}

/* A parked @s taken back by a reservation of the same size, its usage
 * counted (hc_pool_mark_used): what handing it out adds to the in-use peak
 * and the shared figures.  With a @slot, sh->used still counts @s:
 * emptying the slot puts it back in use.  Alone on the figures, the in-use
 * bytes are then what they were before the park, never above the peak;
 * with other managers, whose reservations meanwhile saw the block as free,
 * they may pass it. */
static inline void hc_split_park_take(struct hc_pool *p, struct hc_slice *s,
				      _Atomic uint64_t *slot)
{
	uint64_t used;

	if (!slot || !hc_pool_at_peak_shared(p)) {
		hc_split_used_note(p, s->size + s->padding);
		return;
	}
	used = p->use.bytes_in_use + p->use.bytes_padding;
	if (used > p->used_peak)
		p->used_peak = used;
	atomic_store_explicit(slot, 0, memory_order_release);
	if (hc_pool_several(p))
		hc_shared_peak_note(p->shared, hc_mm_shared_used(p->shared));
}
void hc_split_cleanup(struct hc_pool *p, bool explicit_);
void hc_split_destroy(struct hc_pool *p);

void hc_persistent_init(struct hc_pool *p, uint64_t max_page_size, uint64_t align);
struct hc_slice *hc_persistent_try_reserve(struct hc_pool *p, uint64_t size);
hc_status hc_persistent_alloc(struct hc_pool *p, uint64_t size, struct hc_slice **out);
void hc_persistent_on_free(struct hc_pool *p, struct hc_slice *s);
void hc_persistent_cleanup(struct hc_pool *p, bool explicit_);
void hc_persistent_destroy(struct hc_pool *p);
void hc_persistent_take(struct hc_pool *p, struct hc_slice *s);

#endif /* HIPCORE_CORE_POOL_INTERNAL_H */
