/*
 * pool.h - the memory manager: pools of pages carved into slices.
 *
 * A memory manager (struct hc_mm) owns an ordered list of dynamic pools and
 * one persistent pool.  Pages come from a storage (device memory or pinned
 * host memory) through two callbacks, so this module knows nothing about
 * streams or devices; the stream that owns a manager serialises its calls.
 *
 * A reservation returns a struct hc_slice_ref: a pointer to a slice struct
 * that stays valid memory for the manager's whole life (slices come from a
 * slab that is only returned at hc_mm_destroy) plus the identity the slice
 * had when it was handed out.  Every lookup compares the two, so a freed,
 * reused or destroyed slice reports HC_ERR_STALE and is never misread.
 *
 * Observable behaviour is upstream CubeCL's (reference/cubecl-semantics.md
 * section a): deterministic first-fit placement, the near-page 20% rule,
 * caps with spill, the exclusive pool's running average and periodic
 * deallocation, the direct pool's reclaim watermark, persistent windows.
 */
#ifndef HIPCORE_CORE_POOL_H
#define HIPCORE_CORE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"

/* Where pages come from.  @alloc returns HC_ERR_OOM when it is refused.
 * @free gets back what @alloc returned, with the size it was asked for.
 * @alloc_fit (optional, NULL: @alloc is used) may hand out a block of any
 * size from @size to @max, *@got saying which (a device reuses memory it
 * holds idle); @free then gets *@got.  Only the splitting direct pool asks
 * for more than @size. */
struct hc_storage {
	hc_status (*alloc)(void *ctx, uint64_t size, uint64_t *addr);
	hc_status (*free)(void *ctx, uint64_t addr, uint64_t size);
	void *ctx;
	hc_status (*alloc_fit)(void *ctx, uint64_t size, uint64_t max, uint64_t *addr,
			       uint64_t *got);
	/* Virtual memory (optional; all four or none, only expandable pools
	 * call them): the HAL's va_reserve, va_release, pmem_map and
	 * pmem_unmap with its rules (hal/hal.h), in multiples of the
	 * manager's hc_mm_props.vmm_granularity.  @unmap also orders: the
	 * storage makes sure no queued work still uses the range first.  A
	 * refusal while a capture records is HC_ERR_STATE, a device refusal
	 * HC_ERR_OOM, each with nothing changed. */
	hc_status (*va_reserve)(void *ctx, uint64_t size, uint64_t *addr);
	hc_status (*va_release)(void *ctx, uint64_t addr, uint64_t size);
	hc_status (*map)(void *ctx, uint64_t addr, uint64_t size);
	hc_status (*unmap)(void *ctx, uint64_t addr, uint64_t size);
	/* Fences (optional, all four or none; an expandable pool with
	 * HC_RECLAIM_AT_SHARED uses them): @fence records a point on the
	 * storage's stream after all work queued so far, @fence_passed says
	 * (without waiting) whether the device reached it, @fence_drop
	 * forgets it, and @unmap_passed is @unmap for a range whose last use
	 * precedes a fence that passed: it does not wait for the stream.
	 * Each refuses with HC_ERR_STATE while a capture records. */
	hc_status (*fence)(void *ctx, void **out);
	hc_status (*fence_passed)(void *ctx, void *fence, bool *done);
	void (*fence_drop)(void *ctx, void *fence);
	hc_status (*unmap_passed)(void *ctx, uint64_t addr, uint64_t size);
};

/*
 * What the HC_RECLAIM_AT_PEAK direct pools of several managers (the streams
 * of one device) share: the bytes they hold in use (effective sizes) and
 * reserved, and the peak of the in-use figure.  A miss in any of them
 * compares the device's reserved bytes with the device's peak in-use, so
 * one stream's cached allocations are given back when the device as a whole
 * would pass its highest demand.  Relaxed atomics: each manager is still
 * serialised by its owner; only these three counters are shared.
 */
struct hc_mm_shared {
	_Atomic uint64_t used, reserved, peak;
	_Atomic uint32_t managers; /* managers made with these figures, alive */
	/* Idle mappings that expandable pools with HC_RECLAIM_AT_SHARED lend
	 * to the device's other streams (core/pool/lend.c), under @lend_lock
	 * (a leaf; zero bytes are an unlocked mutex on the platforms we run). */
	pthread_mutex_t lend_lock;
	struct hc_lend *lend;
	/* A split pool's parked free (park.c) keeps
	 * its bytes in @used and notes them in its manager's slot instead of
	 * moving @used twice, at the release and again at the reuse: those are
	 * two locked read-modify-writes of a line every stream writes, the
	 * whole difference between a parked 64 MiB pair and a sliced 4 KiB one
	 * on the GPU hosts.  The in-use figure is @used less every held slot
	 * (hc_mm_shared_used).  A manager that finds every slot held parks
	 * the old way. */
	_Atomic uint64_t slots_held; /* bit i: park[i] belongs to a live manager */
	struct {
		_Alignas(64) _Atomic uint64_t bytes; /* one writer: its manager */
	} park[64];
};

/* The device-wide in-use bytes of @sh: @used less the parked bytes. */
uint64_t hc_mm_shared_used(struct hc_mm_shared *sh);

/* Device figures the presets are sized from. */
struct hc_mm_props {
	uint64_t max_page_size; /* total device memory / 4 */
	uint64_t alignment;     /* 0 is treated as 1 */
	struct hc_mm_shared *shared; /* NULL: each direct pool on its own */
	bool host;            /* addresses are host pointers (pinned memory):
				 debug level 3 poisons freed slices (core/debug.h) */
	/* Virtual memory: the granule (0: none, and a layout asking for an
	 * expandable pool gets the Workload layout's split direct pool) and
	 * the address range an expandable pool without max_pool_size
	 * reserves (the device's total memory). */
	uint64_t vmm_granularity;
	uint64_t va_size;
};

struct hc_slice;  /* opaque; stable memory for the manager's life */
struct hc_layout; /* a validated, resolved pool list */
struct hc_mm;

/* An identity-checked reference to a slice.  id 0 never names a slice. */
struct hc_slice_ref {
	struct hc_slice *slice;
	uint64_t id;
};

/* Most dynamic pools a layout may hold (upstream: 255 is the persistent sentinel). */
#define HC_MM_MAX_POOLS 254u
/* Most pages a capped sliced pool may hold (upstream's u16 page index). */
#define HC_MM_MAX_PAGES 65535u

/* layout.c */

/*
 * hc_layout_resolve - validate @in and resolve it against @p.
 * Presets become their pool lists (SubSlices ladder, ExclusivePages buckets,
 * the Workload layout; HC_LAYOUT_DEFAULT is Workload, which needs no
 * max_page_size).  Explicit sizes are rounded up to the
 * alignment and max_slice_size defaults to the page size.
 * Context: pure; never blocks.
 * Return: HC_OK and *@out (free with hc_layout_free); HC_ERR_INVALID with
 * upstream's PoolConfigError message for a bad layout.
 */
hc_status hc_layout_resolve(const hc_pool_layout *in, const struct hc_mm_props *p,
			    struct hc_layout **out);
/*
 * hc_layout_custom - take @n specs verbatim (upstream's Custom configuration,
 * no rounding and no validation beyond kind and count).  Lets a caller or a
 * test build pools that validation would reject, e.g. a cap below the page.
 * Return: HC_OK; HC_ERR_INVALID for a NULL list, no pools, too many pools
 * or an unknown kind.
 */
hc_status hc_layout_custom(const hc_pool_spec *specs, size_t n, struct hc_layout **out);
void hc_layout_free(struct hc_layout *layout);
size_t hc_layout_count(const struct hc_layout *layout);
const hc_pool_spec *hc_layout_pool(const struct hc_layout *layout, size_t i);
/* Whether pool @i is the kind that splits its storage allocations
 * best-fit (core/pool/split.c; reports call it direct): only the Workload
 * layout's large pool. */
bool hc_layout_split(const struct hc_layout *layout, size_t i);

/* manager.c (the router), park.c (parked frees), mode.c (persistent
 * windows and capture), valid.c (hc_mm_valid) */

hc_status hc_mm_create(const struct hc_layout *layout, const struct hc_mm_props *p,
		       const struct hc_storage *st, struct hc_mm **out);
void hc_mm_destroy(struct hc_mm *mm);
hc_status hc_mm_reserve(struct hc_mm *mm, uint64_t size, struct hc_slice_ref *out,
			uint64_t *addr);
hc_status hc_mm_release(struct hc_mm *mm, struct hc_slice_ref ref);
hc_status hc_mm_address(struct hc_mm *mm, struct hc_slice_ref ref, uint64_t *addr,
			uint64_t *size);
hc_status hc_mm_pin(struct hc_mm *mm, struct hc_slice_ref ref);
hc_status hc_mm_unpin(struct hc_mm *mm, struct hc_slice_ref ref);
hc_status hc_mm_cleanup(struct hc_mm *mm, bool explicit_);
hc_status hc_mm_install(struct hc_mm *mm, const struct hc_layout *layout);
void hc_mm_mode_push_persistent(struct hc_mm *mm);
void hc_mm_mode_pop(struct hc_mm *mm);
bool hc_mm_persistent(const struct hc_mm *mm);
/* Parked frees on or off (park.c); on unless HIPCORE_MM_PARK=0 was set
 * when the manager was made. */
void hc_mm_set_park(struct hc_mm *mm, bool on);
/* Whether a parked free is pending (tests). */
bool hc_mm_parked(const struct hc_mm *mm);
/* What the last successful hc_mm_reserve decided (for the pool_reserve trace
 * event): the pool's report index (the persistent pool is the last index)
 * and whether it took a new page/allocation from storage or reused one. */
struct hc_mm_decision {
	uint32_t pool;
	bool new_page;
};
void hc_mm_last_decision(const struct hc_mm *mm, struct hc_mm_decision *out);
void hc_mm_usage(const struct hc_mm *mm, hc_memory_usage *out);
/* Whole-manager consistency check for tests and debugging, O(slices):
 * tree order and maxima, slice lists, page and usage counters. */
bool hc_mm_valid(const struct hc_mm *mm);
void hc_mm_report(const struct hc_mm *mm, hc_pool_report_fn fn, void *arg);

/* Graph capture support (DESIGN 4.8, reference section d). */
void hc_mm_capture_begin(struct hc_mm *mm);
void hc_mm_capture_priming_end(struct hc_mm *mm);
hc_status hc_mm_capture_end(struct hc_mm *mm, struct hc_slice_ref **retained, size_t *n);
bool hc_mm_capture_active(const struct hc_mm *mm);

#endif /* HIPCORE_CORE_POOL_H */
