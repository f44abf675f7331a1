/*
 * pool_internal.h - what the files of core/pool/ share: the free tree,
 * slices, pages, the pool kinds' ops table and the helpers every kind uses.
 *
 * Glossary: a *page* is one storage allocation; a *slice* is a byte range of
 * a page (sliced pools hold many per page, the other kinds exactly one); a
 * slice is *free* when no owner holds it and its pin count is zero.
 *
 * Layers, each calling only the ones below it:
 *  - the router (manager.c with park.c, mode.c and valid.c, sharing
 *    manager.h): routes reservations, releases, pins, cleanup, modes;
 *  - the pool kinds (sliced.c, exclusive.c, direct.c, split.c,
 *    persistent.c, expandable.c), each behind a struct hc_pool_ops, and layout.c, which
 *    says which kind each pool of a layout is;
 *  - what the kinds take from below (pages.c: slice records, storage
 *    calls, pages; free_tree.c; lend.c: the device's list of mappings
 *    expandable pools lend each other), which sees only a manager's
 *    struct hc_mm_core (lend.c: the device's shared figures), never the
 *    router's state.
 * The inline fast paths below (usage counting, the split pool's parked
 * pair) sit here because the router's hot paths and the kinds both use them.
 */
#ifndef HIPCORE_CORE_POOL_INTERNAL_H
#define HIPCORE_CORE_POOL_INTERNAL_H

#include "core/debug.h"
#include "core/pool/pool.h"

/* free_tree.c: a treap ordered by (k1, k2) with subtree max of val.  64
 * bytes: a node and the slice around it start a cache line together. */
struct hc_tnode {
	struct hc_tnode *l, *r, *p; /* children, parent */
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

/* Longest spine the iterative updates keep on the stack; a deeper treap
 * (vanishingly unlikely: expected depth is about 2 ln n) has the maxima
 * below recomputed whole instead. */
#define HC_TREE_PATH_MAX 96

/* What hc_tree_first_fit_path hands hc_tree_lower_path.  Nodes know their
 * parents now, so it carries nothing (n stays 0); kept so that the pools'
 * calls need not change. */
struct hc_tree_path {
	unsigned n;
};

void hc_tree_insert(struct hc_tree *t, struct hc_tnode *x);
struct hc_tnode *hc_tree_first_fit_path(const struct hc_tree *t, uint64_t need,
					struct hc_tree_path *path);
/* x->val = @v, no more than it was, after x's key moved without passing a
 * neighbour's; @path: what hc_tree_first_fit_path returned x with. */
void hc_tree_lower_path(struct hc_tree *t, struct hc_tree_path *path, struct hc_tnode *x, uint64_t v);
void hc_tree_remove(struct hc_tree *t, struct hc_tnode *x);
struct hc_tnode *hc_tree_first_fit(const struct hc_tree *t, uint64_t need);
struct hc_tnode *hc_tree_lower_bound(const struct hc_tree *t, uint64_t k1, uint64_t k2);
struct hc_tnode *hc_tree_first(const struct hc_tree *t);
void hc_tree_refresh(struct hc_tree *t, struct hc_tnode *x);
/* x->val = @v and hc_tree_refresh; when @v is not below the old val, x's
 * ancestors are raised until one already holds @v, reading no sibling. */
void hc_tree_raise(struct hc_tree *t, struct hc_tnode *x, uint64_t v);
bool hc_tree_valid(const struct hc_tree *t);

struct hc_pool;
struct hc_page;

/* One slice.  Lives in the manager's slab; @id is 0 while nobody may name it.
 * Laid out for the cache (issue 28: replays with thousands of scattered
 * free runs wait on these lines): a record is 64-byte aligned, three
 * lines; the first is the tree node, the second what a release and a
 * neighbour's merge read (flags, pins, identity, sizes, neighbours, page),
 * the third the rest. */
struct hc_slice {
	struct hc_tnode node;      /* in the pool's free structure while free */
	bool owned;
	bool in_tree;
	bool sfree;                /* sliced, split: free (sliced: in the tree unless size 0) */
	bool dead;                 /* on the slab free list */
	uint32_t pins;
	uint64_t id;               /* identity handed out; 0 = free or dead */
	struct hc_pool *pool;
	uint64_t size;             /* recorded size: requested bytes, or a free run */
	uint64_t padding;          /* (align - size % align) % align while in use */
	struct hc_slice *prev;     /* sliced, split: neighbours in page order */
	struct hc_slice *next;     /* dead: the next spare record (pages.c) */
	struct hc_page *page;      /* sliced/exclusive/split: owning page */
	bool touched;              /* capture: already in the touched list */
	bool primed;               /* capture: pinned by priming */
	uint64_t offset;           /* within its page (sliced: node.k2 holds it; this and
				    * addr only while not free, sliced.c) */
	uint64_t addr;             /* page base + offset (or own allocation) */
	uint64_t seq;              /* direct: slot index; persistent: creation order */
	uint64_t span;             /* direct/persistent: bytes of its own allocation */
} __attribute__((aligned(64)));

struct hc_page {
	struct hc_tnode empty_node; /* first: in the pool's @empty while there */
	bool in_empty;             /* sliced, split: wholly free, in the pool's @empty */
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

struct slab_chunk;

/*
 * What a pool may use of its manager: where pages come from, the slab of
 * slice records, the sum of every pool's usage, the device-wide figures and
 * whether a capture is active.  The router's own state (struct hc_mm,
 * manager.h) begins with this and is never seen by a kind.
 */
/* Storage blocks whose free the storage refused (a backend that refuses
 * frees while another stream records, a failed fence): still held from
 * storage, so still counted reserved, and freed again at the next explicit
 * cleanup and at destroy instead of being forgotten with their page. */
struct hc_orphan {
	uint64_t addr, size;
};

struct hc_orphans {
	struct hc_orphan *v;
	size_t n, cap;
	uint64_t bytes; /* their sum, inside total.bytes_reserved */
};

struct hc_mm_core {
	struct hc_storage st;
	struct slab_chunk *chunks;    /* slice records, returned at destroy only */
	struct hc_slice *spare;       /* free slice records */
	hc_memory_usage total;        /* the sum of every pool's use (hc_pool.total) */
	struct hc_mm_shared *shared;  /* props' shared figures (direct pools at peak) */
	bool capture;                 /* a capture is active: frees keep their storage */
	bool host;                    /* props' host: addresses are host pointers */
	uint64_t vmm_granularity;     /* props': 0, no virtual memory */
	uint64_t va_size;             /* props': an expandable pool's default range */
	struct hc_orphans orphans;    /* refused storage frees, retried (pages.c) */
};

/*
 * A pool kind, genalloc-style: the router holds a pointer to one of these
 * per pool and calls nothing kind-specific otherwise.  @try_reserve is a
 * hit or NULL (no storage call); @alloc takes storage (a new page, a new
 * allocation) and reports why it could not; @on_free makes a released
 * slice, its usage already counted free, reusable; @cleanup gives free
 * storage back (@explicit_: all of it; else the periodic check, which only
 * a kind with @next_due has: the manager's reservation count at which it
 * is due); @valid checks the pool's structure and adds up its usage
 * (@parked: a slice whose free the router has counted but deferred,
 * park.c).  Which requests a pool accepts is data the kind's init sets
 * (hc_pool_accepts), and so is whether its frees may be parked
 * (hc_pool.park): both are tested on every reservation or release.
 */
struct hc_pool_ops {
	const char *name;
	hc_pool_kind report_kind; /* the kind reports show */
	void (*init)(struct hc_pool *p, const hc_pool_spec *spec, uint64_t align);
	struct hc_slice *(*try_reserve)(struct hc_pool *p, uint64_t size);
	hc_status (*alloc)(struct hc_pool *p, uint64_t size, struct hc_slice **out);
	void (*on_free)(struct hc_pool *p, struct hc_slice *s);
	void (*cleanup)(struct hc_pool *p, uint64_t alloc_nr, bool explicit_);
	uint64_t (*next_due)(const struct hc_pool *p); /* NULL: never due */
	void (*destroy)(struct hc_pool *p);
	bool (*valid)(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u);
};

extern const struct hc_pool_ops hc_sliced_ops, hc_exclusive_ops, hc_direct_ops, hc_split_ops,
	hc_persistent_ops, hc_expandable_ops;

struct hc_xrange; /* expandable.c: the reservation and its granules */

/* How a pool's release may be parked (park.c): never, as a sliced pool's
 * (mm->parked), as a split pool's (mm->parked_split). */
enum hc_pool_park { HC_PARK_NONE, HC_PARK_SLICED, HC_PARK_SPLIT };

struct hc_pool {
	const struct hc_pool_ops *ops;
	hc_pool_kind kind;         /* ops->report_kind, for reports */
	uint8_t park;              /* enum hc_pool_park, set by the kind's init */
	hc_pool_spec spec;         /* after rounding and shrinking (report) */
	uint64_t align;
	/* Accepted sizes, set by the kind's init: up to @accept_max, and
	 * (@near_lo, @near_hi] (a sliced pool's near-page requests). */
	uint64_t accept_max, near_lo, near_hi;
	struct hc_mm_core *core;
	/* pages, in creation order */
	struct hc_page *head, *tail;
	/* sliced, split: the wholly free pages, keyed by creation order, so
	 * that cleanup and reclaim visit only what they can give back
	 * (pages.c, hc_pool_empty_*) */
	struct hc_tree empty;
	uint64_t npages, pages_peak, largest_alloc, page_seq;
	/* usage, kept incrementally so usage/report cost O(pools) */
	hc_memory_usage use;
	/* The manager's sum of every pool's @use (core->total), moved with
	 * it, so that hc_mm_usage reads one figure instead of adding up the
	 * pools (hipsim samples usage after every replayed event). */
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
	/* direct / persistent / split: free slices keyed by (effective size, seq) */
	struct hc_tree by_size;
	struct hc_slice **slots;   /* direct: slot index -> slice (NULL = vacant) */
	uint64_t nslots, cap_slots;
	uint64_t *vacant;
	uint64_t nvacant, cap_vacant;
	uint64_t next_seq;         /* persistent: creation order; split: free stamps */
	uint64_t used_peak;        /* direct, split: peak of in-use + padding bytes */
	struct hc_mm_shared *shared; /* direct, split at peak: device-wide figures, or NULL */
	bool capacity_warned;
	/* expandable: the reservation, made on first use (NULL before) */
	struct hc_xrange *xr;
};

/* Whether @p takes requests of @size (the router asks each pool in turn
 * on every reservation that is not a parked reuse). */
static inline bool hc_pool_accepts(const struct hc_pool *p, uint64_t size)
{
	return size <= p->accept_max || (size > p->near_lo && size <= p->near_hi);
}

static inline uint64_t hc_pad(uint64_t size, uint64_t align)
{
	/* Every reservation pays this: a mask for the usual power-of-two
	 * alignment instead of two divisions (the same value). */
	if ((align & (align - 1)) == 0)
		return (0 - size) & (align - 1);
	return (align - size % align) % align;
}

/* The bytes a block of @size takes in a pool that places blocks of any
 * size in one address range (split.c, expandable.c): aligned, and never 0
 * (a block has bytes). */
static inline uint64_t hc_pool_block_bytes(const struct hc_pool *p, uint64_t size)
{
	uint64_t eff = size + hc_pad(size, p->align);

	return eff ? eff : p->align;
}

/* Makes @r the free record of @s's bytes past its first @eff, next to @s
 * in the page's address order; @s keeps its first @eff bytes.  The caller
 * puts @r in its kind's free index (sliced.c, split.c, expandable.c). */
static inline void hc_slice_split_tail(struct hc_pool *p, struct hc_slice *s,
				       struct hc_slice *r, uint64_t eff)
{
	r->pool = p;
	r->page = s->page;
	r->offset = s->offset + eff;
	r->addr = s->addr + eff;
	r->size = s->size - eff;
	r->prev = s;
	r->next = s->next;
	if (s->next)
		s->next->prev = r;
	s->next = r;
	r->sfree = true;
}

/* pages.c: what every kind takes from below (the manager's core). */

/* A cleared slice record from the slab, or NULL without host memory. */
struct hc_slice *hc_pool_slice_new(struct hc_pool *p);
/* Gives @s's record back to the slab; its references become stale. */
void hc_pool_slice_put(struct hc_pool *p, struct hc_slice *s);
/* Frees the slab's chunks: every record of the manager (its destroy). */
void hc_mm_core_fini(struct hc_mm_core *c);
/* Storage calls; a refusal is HC_ERR_OOM with a message. */
hc_status hc_pool_storage_alloc(struct hc_pool *p, uint64_t size, uint64_t *addr);
hc_status hc_pool_storage_alloc_fit(struct hc_pool *p, uint64_t size, uint64_t max,
				    uint64_t *addr, uint64_t *got);
void hc_pool_storage_free(struct hc_pool *p, uint64_t addr, uint64_t size);
/* Frees the orphans again; those the storage still refuses stay. */
void hc_mm_orphans_retry(struct hc_mm_core *c);
/* Exact-size reuse (direct and persistent pools). */
struct hc_slice *hc_pool_take_exact(struct hc_pool *p, uint64_t size);
/* A page of @size bytes (of @size to @max: hc_storage.alloc_fit decides,
 * pg->size says) at the end of @p's page list, its bytes counted reserved;
 * NULL and *@st when storage or host memory refused. */
struct hc_page *hc_pool_page_new(struct hc_pool *p, uint64_t size, hc_status *st);
struct hc_page *hc_pool_page_new_fit(struct hc_pool *p, uint64_t size, uint64_t max,
				     hc_status *st);
/* Gives page @pg (its slices already gone) back to storage; out of
 * @p->empty first. */
void hc_pool_page_drop(struct hc_pool *p, struct hc_page *pg);
/* Page @pg became wholly free (a no-op when it already was); the oldest
 * wholly free page, or NULL. */
void hc_pool_empty_add(struct hc_pool *p, struct hc_page *pg);
struct hc_page *hc_pool_empty_first(const struct hc_pool *p);
void hc_pool_empty_unlink(struct hc_pool *p, struct hc_page *pg);

/* Page @pg is no longer wholly free, if it was.  Inline: every reservation
 * from a free run or block asks. */
static inline void hc_pool_empty_remove(struct hc_pool *p, struct hc_page *pg)
{
	if (pg->in_empty)
		hc_pool_empty_unlink(p, pg);
}

/* The usage counters of a reservation of @s: hc_pool_mark_used but for
 * the page's live count and largest_alloc, which a parked reuse knows
 * without testing (manager.h, park_take). */
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
	HC_ASSERT(p->use.number_allocs > 0 && p->use.bytes_in_use >= s->size &&
		  p->use.bytes_padding >= s->padding && (!s->page || s->page->live > 0));
	/* debug level 3: a freed slice of host memory reads as poison */
	if (HC_DEBUG >= 3 && p->core->host)
		hc_debug_poison(s->addr, s->size + s->padding);
	p->use.number_allocs--;
	p->total->number_allocs--;
	p->use.bytes_in_use -= s->size;
	p->total->bytes_in_use -= s->size;
	p->use.bytes_padding -= s->padding;
	p->total->bytes_padding -= s->padding;
	if (s->page)
		s->page->live--;
}

/* layout.c: the kind of pool @i of @layout. */
const struct hc_pool_ops *hc_layout_ops(const struct hc_layout *layout, size_t i);

/* valid.c: each kind's hc_pool_ops.valid. */
bool hc_sliced_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u);
bool hc_exclusive_valid(const struct hc_pool *p, const struct hc_slice *parked,
			hc_memory_usage *u);
bool hc_direct_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u);
bool hc_split_valid(const struct hc_pool *p, const struct hc_slice *parked, hc_memory_usage *u);
bool hc_persistent_valid(const struct hc_pool *p, const struct hc_slice *parked,
			 hc_memory_usage *u);

/* The device-wide figures of HC_RECLAIM_AT_PEAK pools (struct hc_mm_shared):
 * relaxed, as each manager is serialised by its owner. */

/* lend.c: idle mappings lent between the streams of a device. */
struct hc_lend_fence {
	void *ev;      /* the storage's fence */
	uint32_t refs; /* the owner's pending record and each entry; under lend_lock */
};
/* A fence record holding @ev, one reference; NULL without host memory. */
struct hc_lend_fence *hc_lend_fence_new(void *ev);
/* Drops a reference; the last destroys the event through @st. */
void hc_lend_fence_put(struct hc_mm_shared *sh, struct hc_lend_fence *f,
		       const struct hc_storage *st);
/* Lends @owner's mapping at granule @m (@len granules, [@addr, +@bytes))
 * behind fence @f; false without host memory (nothing lent). */
bool hc_lend_put(struct hc_mm_shared *sh, struct hc_pool *owner, uint32_t m, uint32_t len,
		 uint64_t addr, uint64_t bytes, struct hc_lend_fence *f);
/* Takes back every entry of @owner (@taken_only: those another pool
 * unmapped), calling @back for each (taken: another pool unmapped it).
 * Context: @owner's stream lock.  Return: the entries taken back. */
uint32_t hc_lend_withdraw(struct hc_mm_shared *sh, struct hc_pool *owner, bool taken_only,
			  const struct hc_storage *st,
			  void (*back)(struct hc_pool *, uint32_t m, uint32_t len, bool taken));
/* Pool @who about to map: unmaps other pools' entries whose fence passed,
 * through @st (unmap_passed), until @want bytes went.  Return: the bytes. */
uint64_t hc_lend_take(struct hc_mm_shared *sh, struct hc_pool *who, const struct hc_storage *st,
		      uint64_t want);

/* Whether direct or split pool @p keeps the device-wide figures. */
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

/* split.c: the split pool's parts the router and the validators use. */

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
 * Parked frees of a split pool (park.c argues why these conditions make
 * the reuse exact).  The release and the reuse
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

/* persistent.c: capture end takes a touched slice that is free back out
 * of the pool, for the graph to hold. */
void hc_persistent_take(struct hc_pool *p, struct hc_slice *s);

#endif /* HIPCORE_CORE_POOL_INTERNAL_H */
