/*
 * manager.c - the router: a manager's pools, reservations, releases, pins,
 * lookups, cleanup, rebuilding, usage and reports.
 *
 * A manager holds the dynamic pools of its layout, in routing order, and one
 * persistent pool; each pool is of a kind (struct hc_pool_ops) the router
 * calls through, and knows nothing else of the kinds.  A reservation first
 * counts itself and runs the periodic cleanup when one is due (only
 * exclusive pools have one; skipped while a capture is active).  In
 * persistent mode (mode.c: a window is open, or a capture is active) it
 * goes to the persistent pool: exact-size reuse, else a new allocation.
 * Otherwise the first pool that accepts the size is tried for reuse and
 * then for a new page; only a capped pool that is full (HC_ERR_CAPACITY)
 * lets the request go on to the next accepting pool, and the capacity error
 * is what the caller sees if no pool behind takes it.  Any other failure
 * (storage refused: HC_ERR_OOM) returns at once, unless a capacity error was
 * already seen, which is then preferred.  No accepting pool: HC_ERR_TOO_BIG.
 *
 * A slice's id is set when it is handed out and cleared when it becomes
 * free, and slice records live as long as the manager (pages.c), so a
 * reference to a freed, reused, merged or cleaned-up slice fails its
 * identity check.  A slice is free when its owner released it and no pin
 * holds it; pins model extra holders (cross-stream use in flight, a
 * graph's retention) and count as use.  A release the next reservation
 * would undo may be parked instead (park.c; its fast paths are inline in
 * manager.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/pool/manager.h"
#include "util/env.h"

/* --- create / destroy ------------------------------------------------- */

static void due_update(struct hc_mm *mm);

/* A pool of kind @ops with @spec, in @mm. */
static void pool_init(struct hc_mm *mm, struct hc_pool *p, const struct hc_pool_ops *ops,
		      const hc_pool_spec *spec)
{
	p->ops = ops;
	p->kind = ops->report_kind;
	p->core = &mm->core;
	p->total = &mm->core.total;
	p->shared = mm->core.shared;
	ops->init(p, spec, mm->align);
}

static void pools_destroy(struct hc_pool *pools, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pools[i].ops->destroy(&pools[i]);
	free(pools);
}

static hc_status pools_build(struct hc_mm *mm, const struct hc_layout *layout,
			     struct hc_pool **out, size_t *n_out)
{
	size_t i, n = hc_layout_count(layout);
	struct hc_pool *pools;

	if (n == 0 || n > HC_MM_MAX_POOLS)
		return hc_fail(HC_ERR_INVALID, "a layout needs 1 to %u pools", HC_MM_MAX_POOLS);
	pools = calloc(n, sizeof(*pools));
	if (!pools)
		return hc_fail(HC_ERR_OOM, "no host memory for %zu pools", n);
	for (i = 0; i < n; i++) {
		const hc_pool_spec *s = hc_layout_pool(layout, i);
		const struct hc_pool_ops *ops = hc_layout_ops(layout, i);
		hc_pool_spec split;

		if (!ops) {
			free(pools);
			return hc_fail(HC_ERR_INVALID, "pool %zu: kind %d cannot appear in a layout",
				       i, (int)s->kind);
		}
		if (ops == &hc_expandable_ops && !mm->core.vmm_granularity) {
			/* no virtual memory under this manager: the Workload
			 * layout's split pool, which reports call direct */
			split = (hc_pool_spec){ .kind = HC_POOL_DIRECT,
						.reclaim_at = HC_RECLAIM_AT_PEAK };
			ops = &hc_split_ops;
			s = &split;
		}
		pool_init(mm, &pools[i], ops, s);
	}
	*out = pools;
	*n_out = n;
	return HC_OK;
}

/**
 * hc_mm_create - build a manager over @st with the pools of @layout.
 * @layout: resolved layout; the manager copies what it needs.
 * @p: alignment of every slice (0 means 1) and max_page_size (reports).
 * @st: where pages come from; copied.
 * Context: allocates host memory only; pages come on first use.
 * Return: HC_OK and *@out; HC_ERR_INVALID for missing arguments;
 * HC_ERR_OOM when host memory runs out.
 */
hc_status hc_mm_create(const struct hc_layout *layout, const struct hc_mm_props *p,
		       const struct hc_storage *st, struct hc_mm **out)
{
	hc_pool_spec persistent = { .kind = HC_POOL_PERSISTENT };
	struct hc_mm *mm;
	hc_status s;

	if (!layout || !p || !st || !st->alloc || !st->free || !out)
		return hc_fail(HC_ERR_INVALID, "layout, properties, storage callbacks and "
					       "result must be non-NULL");
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return hc_fail(HC_ERR_OOM, "no host memory for a memory manager");
	mm->core.st = *st;
	mm->core.shared = p->shared;
	mm->core.host = p->host;
	mm->core.vmm_granularity = st->map ? p->vmm_granularity : 0;
	mm->core.va_size = p->va_size;
	mm->align = p->alignment ? p->alignment : 1;
	mm->max_page_size = p->max_page_size;
	mm->park_on = hc_env_flag(HC_ENV_MM_PARK);
	if (mm->core.shared) {
		atomic_fetch_add_explicit(&mm->core.shared->managers, 1, memory_order_relaxed);
		hc_mm_park_slot_claim(mm);
	}
	s = pools_build(mm, layout, &mm->pools, &mm->npools);
	if (s != HC_OK)
		goto err_free_mm;
	due_update(mm);
	persistent.max_alloc_size = p->max_page_size;
	pool_init(mm, &mm->persistent, &hc_persistent_ops, &persistent);
	mm->persistent.shared = NULL; /* its figures are its own */
	*out = mm;
	return HC_OK;

err_free_mm:
	if (mm->core.shared) {
		hc_mm_park_slot_release(mm);
		atomic_fetch_sub_explicit(&mm->core.shared->managers, 1, memory_order_relaxed);
	}
	free(mm);
	return s;
}

/**
 * hc_mm_destroy - return every page to storage and free the manager.
 * Every reference into it becomes meaningless (its memory is gone).
 * Context: calls storage free once per page.  NULL is accepted.
 */
void hc_mm_destroy(struct hc_mm *mm)
{
	if (!mm)
		return;
	park_settle(mm);
	pools_destroy(mm->pools, mm->npools);
	mm->persistent.ops->destroy(&mm->persistent);
	hc_mm_orphans_retry(&mm->core); /* the last chance: what is refused now is lost */
	hc_mm_core_fini(&mm->core);
	free(mm->touched);
	if (mm->core.shared) {
		hc_mm_park_slot_release(mm);
		atomic_fetch_sub_explicit(&mm->core.shared->managers, 1, memory_order_relaxed);
	}
	free(mm);
}

/* --- reserve and routing ---------------------------------------------- */

static hc_status route(struct hc_mm *mm, uint64_t size, struct hc_slice **out)
{
	hc_status seen = HC_OK, st;
	bool accepted = false;
	size_t i;

	for (i = 0; i < mm->npools; i++) {
		struct hc_pool *p = &mm->pools[i];

		if (!hc_pool_accepts(p, size))
			continue;
		accepted = true;
		mm->last.pool = (uint32_t)i;
		mm->last.new_page = false;
		*out = p->ops->try_reserve(p, size);
		if (*out) {
			/* a hit of the first accepting pool: a park candidate */
			mm->last_res = seen == HC_OK ? *out : NULL;
			mm->last_shaped = false;
			return HC_OK;
		}
		mm->last_res = NULL;
		mm->last.new_page = true;
		st = p->ops->alloc(p, size, out);
		if (st == HC_OK)
			return HC_OK;
		if (st == HC_ERR_CAPACITY) {
			p->capacity_warned = true; /* spill: the next accepting pool */
			seen = st;
			continue;
		}
		return seen != HC_OK ? seen : st;
	}
	mm->last_res = NULL;
	if (seen != HC_OK)
		return seen;
	if (!accepted)
		return hc_fail(HC_ERR_TOO_BIG, "no pool accepts %llu B", (unsigned long long)size);
	return hc_fail(HC_ERR_TOO_BIG, "no pool could serve %llu B", (unsigned long long)size);
}

/* Recomputes when the next periodic check of a pool falls due (only
 * exclusive pools have one), so that the reservation path looks at one
 * number instead of every pool. */
static void due_update(struct hc_mm *mm)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < mm->npools; i++) {
		const struct hc_pool *p = &mm->pools[i];
		uint64_t due;

		if (!p->ops->next_due)
			continue;
		due = p->ops->next_due(p);
		if (due < next)
			next = due;
	}
	mm->next_due = next;
}

static void periodic_cleanup(struct hc_mm *mm)
{
	size_t i;

	if (mm->alloc_nr < mm->next_due)
		return;
	for (i = 0; i < mm->npools; i++)
		if (mm->pools[i].ops->next_due)
			mm->pools[i].ops->cleanup(&mm->pools[i], mm->alloc_nr, false);
	due_update(mm);
}

/* hc_mm_reserve's path other than a parked reuse, out of line so that the
 * reuse is a leaf that saves no registers.  alloc_nr is already counted. */
static __attribute__((noinline)) hc_status reserve_slow(struct hc_mm *mm, uint64_t size,
							struct hc_slice_ref *out,
							uint64_t *addr)
{
	struct hc_slice *s = NULL;
	hc_status st;

	if (mm->parked || mm->parked_split)
		hc_mm_park_flush(mm);
	/* mm->last_res: set by route, cleared here otherwise */
	if (!mm->core.capture)
		periodic_cleanup(mm);
	if (hc_mm_persistent(mm)) {
		struct hc_pool *p = &mm->persistent;

		mm->last_res = NULL;
		mm->last.pool = (uint32_t)mm->npools;
		mm->last.new_page = false;
		s = p->ops->try_reserve(p, size);
		if (!s) {
			mm->last.new_page = true;
			st = p->ops->alloc(p, size, &s);
			if (st != HC_OK)
				return mm_checked(mm, st);
		}
		if (mm->core.capture && hc_mm_touch(mm, s) != HC_OK) {
			hc_pool_mark_unused(p, s);
			s->owned = false;
			p->ops->on_free(p, s);
			return mm_checked(mm, HC_ERR_OOM);
		}
	} else {
		st = route(mm, size, &s);
		if (st != HC_OK)
			return mm_checked(mm, st);
	}
	s->id = ++mm->next_id;
	out->slice = s;
	out->id = s->id;
	*addr = s->addr;
	return mm_checked(mm, HC_OK);
}

/* hc_mm_reserve while a split pool's free is parked: its reuse (park_take,
 * and what the pool's take adds to its peak and the shared figures), else
 * reserve_slow. */
static __attribute__((noinline)) hc_status reserve_split(struct hc_mm *mm, uint64_t size,
							 struct hc_slice_ref *out,
							 uint64_t *addr)
{
	struct hc_slice *s = mm->parked_split;

	if (!park_fits(mm, s, size))
		return reserve_slow(mm, size, out, addr);
	mm->parked_split = NULL;
	park_take(mm, s, out, addr);
	mm->last_shaped = true;
	hc_split_park_take(s->pool, s, mm->park_bytes);
	return mm_checked(mm, HC_OK);
}

static __attribute__((noinline, cold)) hc_status reserve_invalid(void)
{
	return hc_fail(HC_ERR_INVALID, "manager, reference and address must be non-NULL");
}

/**
 * hc_mm_reserve - reserve @size bytes.
 * @out: the slice's reference; @addr: its address (page base + offset).
 * Context: may call storage alloc (and free, for periodic or watermark
 * reclaim, never while a capture is active).
 * Return: HC_OK; HC_ERR_TOO_BIG when no pool accepts @size; HC_ERR_CAPACITY
 * when a capped pool is full and no pool behind it takes the request;
 * HC_ERR_OOM when storage refused (the caller may clean up and retry).
 */
hc_status hc_mm_reserve(struct hc_mm *mm, uint64_t size, struct hc_slice_ref *out,
			uint64_t *addr)
{
	struct hc_slice *s;

	if (!mm || !out || !addr)
		return reserve_invalid();
	mm->alloc_nr++;
	s = mm->parked;
	if (!s || !park_fits(mm, s, size)) {
		if (mm->parked_split)
			return reserve_split(mm, size, out, addr);
		return reserve_slow(mm, size, out, addr);
	}
	mm->parked = NULL;
	park_take(mm, s, out, addr);
	return mm_checked(mm, HC_OK);
}

/* --- release, pins, lookups ------------------------------------------- */

static hc_status lookup(struct hc_mm *mm, struct hc_slice_ref ref, struct hc_slice **out)
{
	if (!mm)
		return hc_fail(HC_ERR_INVALID, "manager must be non-NULL");
	if (!ref_live(mm, ref))
		return hc_fail(HC_ERR_STALE, "slice reference %llu is freed, reused or unknown",
			       (unsigned long long)ref.id);
	*out = ref.slice;
	return HC_OK;
}

/* hc_mm_release's path other than a park (all of it, checks included),
 * out of line so that the park is a leaf that saves no registers. */
static __attribute__((noinline)) hc_status release_slow(struct hc_mm *mm,
							struct hc_slice_ref ref)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	if (!s->owned)
		return hc_fail(HC_ERR_STALE, "slice %llu was already released",
			       (unsigned long long)ref.id);
	/* Every release that may park took hc_mm_release's fast path, whose
	 * test is this function's checks and park_ok or park_split: what
	 * reaches here does not park, and completes any parked free first. */
	park_settle(mm);
	if (s->pins) {
		s->owned = false;
		return mm_checked(mm, HC_OK);
	}
	become_free(s);
	return mm_checked(mm, HC_OK);
}

/* The release of the latest reservation's slice, live and owned, when
 * park_ok does not hold: park_split's park, else release_slow. */
static __attribute__((noinline)) hc_status release_last(struct hc_mm *mm,
							struct hc_slice_ref ref)
{
	if (park_split(mm, ref.slice))
		return mm_checked(mm, HC_OK);
	return release_slow(mm, ref);
}

/**
 * hc_mm_release - the owner gives the slice back.  It becomes reusable at
 * once unless pins hold it, in which case it does when the last pin goes.
 * Return: HC_OK; HC_ERR_STALE for a freed/reused ref or a second release.
 */
hc_status hc_mm_release(struct hc_mm *mm, struct hc_slice_ref ref)
{
	struct hc_slice *s = ref.slice;

	/* The park, checked with no side effect first: lookup's and the
	 * owner's checks and park_ok (last_res first: a release that does not
	 * park, the common case on replays, leaves after it); the latest
	 * reservation's slice that park_ok refuses is release_last's (a split
	 * pool's park).  Anything else, errors included, is release_slow's
	 * from the start. */
	if (mm && mm->last_res == s && ref_live(mm, ref) && s->owned) {
		if (park_ok(mm, s)) {
			mm->last_res = NULL;
			park(mm, s);
			return mm_checked(mm, HC_OK);
		}
		return release_last(mm, ref);
	}
	return release_slow(mm, ref);
}

/**
 * hc_mm_address - identity-checked lookup of a slice's address and size.
 * @addr, @size: may be NULL.  The size is the requested size.
 * A slice released by its owner but still pinned still answers.
 * Context: O(1), no storage call.
 * Return: HC_OK; HC_ERR_STALE for a freed, reused, cleaned-up or foreign ref.
 */
hc_status hc_mm_address(struct hc_mm *mm, struct hc_slice_ref ref, uint64_t *addr,
			uint64_t *size)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	if (addr)
		*addr = s->addr;
	if (size)
		*size = s->size;
	return HC_OK;
}

/**
 * hc_mm_pin - add a holder (in-flight use on another stream, a graph): the
 * slice is not reusable while pinned, even after its owner released it.
 * Return: HC_OK; HC_ERR_STALE for a dead ref; HC_ERR_INVALID on pin overflow.
 */
hc_status hc_mm_pin(struct hc_mm *mm, struct hc_slice_ref ref)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	park_settle(mm);
	if (s->pins == UINT32_MAX)
		return hc_fail(HC_ERR_INVALID, "slice %llu has too many pins",
			       (unsigned long long)ref.id);
	s->pins++;
	return mm_checked(mm, HC_OK);
}

/**
 * hc_mm_unpin - drop a holder; the last one frees a released slice.
 * Return: HC_OK; HC_ERR_STALE for a dead ref; HC_ERR_INVALID when not pinned.
 */
hc_status hc_mm_unpin(struct hc_mm *mm, struct hc_slice_ref ref)
{
	struct hc_slice *s = NULL;
	hc_status st = lookup(mm, ref, &s);

	if (st != HC_OK)
		return st;
	park_settle(mm);
	if (s->pins == 0)
		return hc_fail(HC_ERR_INVALID, "slice %llu is not pinned",
			       (unsigned long long)ref.id);
	unpin(s);
	return mm_checked(mm, HC_OK);
}

/* --- cleanup and install ---------------------------------------------- */

/**
 * hc_mm_cleanup - periodic (@explicit_ false: exclusive pools' free-count
 * check when due) or explicit (every empty page and free slice of every pool
 * goes back to storage).  Does nothing while a capture is active.
 * Context: calls storage free.  Return: HC_OK; HC_ERR_INVALID for NULL.
 */
hc_status hc_mm_cleanup(struct hc_mm *mm, bool explicit_)
{
	size_t i;

	if (!mm)
		return hc_fail(HC_ERR_INVALID, "manager must be non-NULL");
	park_settle(mm);
	if (mm->core.capture)
		return HC_OK;
	if (explicit_ && mm->core.orphans.n)
		hc_mm_orphans_retry(&mm->core);
	mm->persistent.ops->cleanup(&mm->persistent, mm->alloc_nr, explicit_);
	for (i = 0; i < mm->npools; i++)
		mm->pools[i].ops->cleanup(&mm->pools[i], mm->alloc_nr, explicit_);
	due_update(mm);
	return mm_checked(mm, HC_OK);
}

static void usage_add(hc_memory_usage *a, const hc_memory_usage *b);

void hc_mm_usage_sum(const struct hc_mm *mm, hc_memory_usage *out)
{
	hc_memory_usage u = mm->persistent.use;

	for (size_t i = 0; i < mm->npools; i++)
		usage_add(&u, &mm->pools[i].use);
	u.bytes_reserved += mm->core.orphans.bytes; /* held from storage, in no pool */
	*out = u;
}

/**
 * hc_mm_install - explicit cleanup, then rebuild the dynamic pools from
 * @layout if they hold nothing live.  The persistent pool is kept.
 * Return: HC_OK; HC_ERR_IN_USE when dynamic pools still hold live slices
 * (nothing changes); HC_ERR_STATE during a capture; HC_ERR_INVALID, HC_ERR_OOM.
 */
hc_status hc_mm_install(struct hc_mm *mm, const struct hc_layout *layout)
{
	struct hc_pool *pools;
	uint64_t live = 0, bytes = 0;
	size_t i, n;
	hc_status st;

	if (!mm || !layout)
		return hc_fail(HC_ERR_INVALID, "manager and layout must be non-NULL");
	park_settle(mm);
	if (mm->core.capture)
		return hc_fail(HC_ERR_STATE, "pools cannot be rebuilt while a capture is active");
	hc_mm_cleanup(mm, true);
	for (i = 0; i < mm->npools; i++) {
		live += mm->pools[i].use.number_allocs;
		bytes += mm->pools[i].use.bytes_in_use;
	}
	if (live)
		return hc_fail(HC_ERR_IN_USE, "dynamic pools hold %llu B in %llu live slices",
			       (unsigned long long)bytes, (unsigned long long)live);
	st = pools_build(mm, layout, &pools, &n);
	if (st != HC_OK)
		return st;
	pools_destroy(mm->pools, mm->npools);
	mm->pools = pools;
	mm->npools = n;
	hc_mm_usage_sum(mm, &mm->core.total); /* whatever the old pools' teardown subtracted */
	due_update(mm);
	return mm_checked(mm, HC_OK);
}

/* --- usage and report --------------------------------------------------- */

static void usage_add(hc_memory_usage *a, const hc_memory_usage *b)
{
	a->number_allocs += b->number_allocs;
	a->bytes_in_use += b->bytes_in_use;
	a->bytes_padding += b->bytes_padding;
	a->bytes_reserved += b->bytes_reserved;
}

void hc_mm_last_decision(const struct hc_mm *mm, struct hc_mm_decision *out)
{
	if (mm && out)
		*out = mm->last;
}

/**
 * hc_mm_usage - the sum over every pool, persistent included: number_allocs,
 * bytes_in_use and bytes_padding over non-free slices (pinned ones count),
 * bytes_reserved over what is held from storage.  O(1): the pools keep the
 * sum as they change (hc_pool.total; hc_mm_valid checks it).
 */
void hc_mm_usage(const struct hc_mm *mm, hc_memory_usage *out)
{
	if (!out)
		return;
	if (!mm) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = mm->core.total;
}

static void report_one(const struct hc_pool *p, uint32_t index, hc_pool_report_fn fn, void *arg)
{
	hc_pool_report r;

	memset(&r, 0, sizeof(r));
	r.index = index;
	r.kind = p->kind;
	r.spec = p->spec;
	r.spec.kind = p->kind;
	r.usage = p->use;
	r.pages = p->npages;
	r.pages_peak = p->pages_peak;
	r.largest_alloc = p->largest_alloc;
	fn(&r, arg);
}

/**
 * hc_mm_report - call @fn once per pool: the dynamic pools in routing order
 * (index 0..n-1, spec after rounding and shrinking), then the persistent
 * pool (index n).  pages counts storage allocations held; pages_peak and
 * largest_alloc are high-water marks since the pool was built.  Reads
 * only counters, which a parked free has already updated, so it leaves a
 * parked free pending.
 */
void hc_mm_report(const struct hc_mm *mm, hc_pool_report_fn fn, void *arg)
{
	size_t i;

	if (!mm || !fn)
		return;
	for (i = 0; i < mm->npools; i++)
		report_one(&mm->pools[i], (uint32_t)i, fn, arg);
	report_one(&mm->persistent, (uint32_t)mm->npools, fn, arg);
}
