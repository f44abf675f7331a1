/*
 * object.h - devices and streams: the objects every public call resolves.
 *
 * A device (struct hc_dev) owns one backend device, a table of stream slots,
 * the kernels and graphs opened on it, the pool layout that new streams get,
 * and the error graph.  Its @lock guards exactly that shared state.
 *
 * A stream (struct hc_strm) owns one backend stream, a device memory manager
 * and a pinned host memory manager, the table of buffers allocated from it,
 * its drop queue, cursor, capture state and metadata cache.  Its @lock
 * serialises every call on the stream.  A stream slot's memory lives until
 * the device closes, so a handle to a closed stream can be checked (open
 * flag and generation) without touching freed memory.
 *
 * Locking order: device lock, then stream locks.  A call that involves
 * several streams (a stream using another stream's buffer: write target,
 * read source, launch binding) holds all of them, taken in ascending slot
 * order by hc_lockset_acquire() (core/streamops.h) and no other way, so the
 * order is total and no two calls deadlock; a call on one stream with its
 * own buffers takes that lock once.  Releases that must reach another
 * stream after a fence go through that stream's inbox (a leaf lock), which
 * the owner drains at its next call.  The device's copy-worker pool
 * (pipeline.c) has its own leaf locks.  The error graph (dev->errors) is
 * guarded by dev->eg_lock, a leaf: taken under stream locks (or none),
 * never while another lock is taken inside it (core/errtrack.c).  The
 * device's idle storage cache (dev->idle.lock, core/pool/idle.h) is a leaf too:
 * taken by a stream's storage callbacks under that stream's lock, and
 * never held across a HAL call that may block.
 */
#ifndef HIPCORE_CORE_OBJECT_H
#define HIPCORE_CORE_OBJECT_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/queue/capture.h"
#include "core/queue/cursor.h"
#include "core/queue/drop_queue.h"
#include "core/queue/errgraph.h"
#include "core/errtrack.h"
#include "core/handle.h"
#include "core/pool/idle.h"
#include "core/lock.h"
#include "core/internal.h"
#include "core/queue/metacache.h"
#include "core/pool/pool.h"

/* One live allocation of a stream.  Guarded by the stream's lock. */
struct hc_buf {
	struct hc_slice_ref ref; /* the slice in the stream's device manager */
	uint64_t addr;           /* device address of byte 0 */
	uint64_t size;           /* requested size */
	uint64_t stamp;          /* origin cursor at allocation and at each write */
	uint32_t gen;            /* generation of this table entry */
	uint32_t next_free;      /* free list link when !live */
	uint32_t remote_pins;    /* other streams' work in flight on it */
	bool live;               /* allocated and not freed by the user */
	bool freed_pinned;       /* freed by the user while remote_pins > 0 */
};

/* Releases another stream asks this stream to do; a leaf lock. */
struct hc_inbox {
	pthread_mutex_t lock;
	uint32_t *unpin; /* buffer indexes whose remote pin is over */
	size_t n, cap;
	bool closed; /* the stream closed: unpins posted now are dropped */
};

struct hc_strm {
	hc_lock lock; /* core/lock.h */
	struct hc_dev *dev;
	uint32_t slot;
	uint32_t gen;   /* current generation of the slot */
	bool open;      /* guarded by @lock and the device lock */
	hc_stream handle;
	uint64_t buf_base; /* its buffers' handles without generation and index */

	hc_hal_stream *hal;
	bool adopted;   /* hc_stream_adopt: @native is the caller's stream */
	void *native;   /* the handle adopted (NULL: the runtime's default stream) */
	struct hc_mm *dmm; /* device memory */
	struct hc_mm *pmm; /* pinned host memory (alignment 16) */
	struct hc_storage dstore, pstore;

	struct hc_buf *bufs; /* buffer table */
	uint32_t buf_seq;    /* generation source; survives close and reopen */
	uint32_t nbufs, capbufs;
	uint32_t free_head; /* UINT32_MAX when empty */

	struct hc_drop_queue dq;
	struct hc_cursor_state cursor;
	struct hc_capture capture;
	uint64_t capture_memops; /* memory operations attempted while recording */
	struct hc_metacache *cache;
	struct hc_inbox inbox;
	struct hc_errtrack et; /* work in flight since the last clean fence */
};

struct hc_kern {
	hc_hal_module *module;
	hc_hal_function *fn;
	char name[64];
	uint32_t gen;
	bool live;
};

struct hc_graph_rec {
	hc_hal_graph *hal;
	struct hc_strm *stream;    /* the stream that captured it */
	uint32_t stream_gen;       /* its generation then: a reopened slot is another stream */
	struct hc_slice_ref *retained; /* device slices the graph keeps */
	size_t nretained;
	struct hc_slice_ref *pretained; /* pinned slices */
	size_t npretained;
	uint64_t cache_graph_id;
	uint32_t gen;
	bool live;
};

/* Library counters of hc_device_stats; atomics, any stream may bump them. */
struct hc_core_stats {
	_Atomic uint64_t writes_staged, writes_direct, writes_pipelined;
	_Atomic uint64_t dq_flushes, xstream_waits, cache_hits, cache_misses;
	_Atomic uint64_t failures, alloc_retries;
};

struct hc_dev {
	pthread_mutex_t lock;
	uint32_t slot;
	uint32_t gen;
	hc_device handle;

	const struct hc_hal_ops *ops;
	hc_hal_dev *hal;
	struct hc_hal_props props;
	bool op_times; /* @ops is the timing shim (hal/optime.c) */

	struct hc_strm *streams[HC_MAX_STREAMS]; /* slots; allocated on first use */
	uint32_t nstreams;                       /* slots allocated so far */

	hc_pool_layout layout;       /* for streams opened later */
	hc_pool_spec *layout_pools;  /* owned copy of layout.pools */

	struct hc_kern *kernels;
	uint32_t nkernels, capkernels;
	struct hc_graph_rec *graphs;
	uint32_t ngraphs, capgraphs;
	_Atomic uint64_t graph_seq; /* ids of graphs' metadata-cache pins */

	struct hc_errgraph *errors;   /* guarded by @eg_lock (a leaf) */
	pthread_mutex_t eg_lock;
	_Atomic bool eg_inexact;      /* the backend cannot attribute failures */
	_Atomic uint64_t launch_seq;  /* numbers launches in failure descriptions */
	struct hc_core_stats stats;
	_Atomic bool eg_tainted; /* some range was ever tainted on this device */
	hc_policy policy; /* drop-queue and staging policy for new streams; 0 = default */
	struct hc_copy_workers *workers; /* pipeline.c: memcpy helpers, created lazily */
	struct hc_mm_shared dshared;     /* device managers' direct pools at peak */
	struct hc_idle idle;             /* released device storage any stream may adopt */
	_Atomic uint64_t memory_limit;   /* device bytes pools + idle may hold; 0: no cap */
	/* Streams recording a capture.  Captures are global-mode (DESIGN §5):
	 * a host sync on any stream of the device would invalidate them. */
	_Atomic uint32_t recording;
};

/* device.c */
/* The table of open devices: a slot's pointer is cleared and its
 * generation bumped when the device closes (device.c). */
struct hc_dev_slot {
	_Atomic(struct hc_dev *) dev;
	_Atomic uint32_t gen;
};
extern struct hc_dev_slot hc_dev_table[HC_MAX_DEVICES];

/* The whole of hc_dev_get, with the message of each failure; the inline
 * version below falls back to it whenever its fast path does not succeed. */
hc_status hc_dev_get_slow(hc_device d, struct hc_dev **out);

/*
 * hc_dev_get - resolve device handle @d.
 * Return: HC_OK with *@out; HC_ERR_STALE (message set) when @d is not an
 * open device.  Inline: every hc_device_* call passes here (hipsim asks
 * for the idle bytes after every replayed event).
 */
static inline hc_status hc_dev_get(hc_device d, struct hc_dev **out)
{
	struct hc_handle_parts p = hc_handle_unpack(d.id);
	struct hc_dev *dev;

	if (__builtin_expect(d.id != 0 && p.kind == HC_KIND_DEVICE && p.dev < HC_MAX_DEVICES, 1)) {
		dev = atomic_load_explicit(&hc_dev_table[p.dev].dev, memory_order_acquire);
		if (__builtin_expect(dev != NULL, 1) &&
		    atomic_load_explicit(&hc_dev_table[p.dev].gen, memory_order_acquire) == p.gen) {
			*out = dev;
			return HC_OK;
		}
	}
	return hc_dev_get_slow(d, out);
}
/* The open device in slot @dev, or NULL (no generation check). */
struct hc_dev *hc_dev_by_slot(unsigned dev);
/* The whole resolution of hc_strm_slot_lock and hc_strm_lock, with the
 * messages of each failure; the inline versions below fall back to them
 * whenever their fast path does not succeed. */
hc_status hc_strm_slot_lock_slow(unsigned dev, unsigned stream, struct hc_strm **out);
hc_status hc_strm_lock_slow(hc_stream s, struct hc_strm **out);

/* stream.c */
void hc_strm_inbox_drain(struct hc_strm *st);

/* Runs the inbox's pending unpins; skips the call when nothing was posted
 * (every public call passes here).  Context: @st locked. */
static inline void hc_strm_inbox_check(struct hc_strm *st)
{
	if (__builtin_expect(__atomic_load_n(&st->inbox.n, __ATOMIC_ACQUIRE) != 0, 0))
		hc_strm_inbox_drain(st);
}

/*
 * hc_strm_slot_lock - lock the open stream in slot @stream of device slot
 * @dev (no generation check: buffers check their own).
 * Return: HC_OK with *@out locked; HC_ERR_STALE (no message) otherwise.
 * Always inline: with the owner bias's few more instructions (lock.h),
 * GCC kept an out-of-line copy that hc_alloc and hc_free call, 20
 * instructions more per pair under callgrind (bench/callgrind-pair).
 */
static inline __attribute__((always_inline)) hc_status
hc_strm_slot_lock(unsigned dev, unsigned stream, struct hc_strm **out)
{
	struct hc_dev *d;
	struct hc_strm *st;

	if (__builtin_expect(dev < HC_MAX_DEVICES && stream < HC_MAX_STREAMS, 1)) {
		d = atomic_load_explicit(&hc_dev_table[dev].dev, memory_order_acquire);
		/* Stream slots are published once and never freed before the device. */
		st = d ? __atomic_load_n(&d->streams[stream], __ATOMIC_ACQUIRE) : NULL;
		if (__builtin_expect(st != NULL, 1)) {
			hc_lock_acquire(&st->lock);
			if (__builtin_expect(st->open, 1)) {
				hc_strm_inbox_check(st);
				*out = st;
				return HC_OK;
			}
			hc_lock_release(&st->lock);
		}
	}
	return hc_strm_slot_lock_slow(dev, stream, out);
}

/*
 * hc_strm_lock - resolve @s and return its stream locked.
 * Return: HC_OK; HC_ERR_STALE when @s is not an open stream (with the
 * message hc_strm_lock_slow gives).  Always inline: GCC would otherwise
 * keep one out-of-line copy per file with several callers (pools.c), a
 * call more on paths such as hc_memory_usage_get, which hipsim takes after
 * every replayed event.
 */
static inline __attribute__((always_inline)) hc_status hc_strm_lock(hc_stream s, struct hc_strm **out)
{
	struct hc_handle_parts p = hc_handle_unpack(s.id);
	struct hc_dev *dev;
	struct hc_strm *st;

	if (__builtin_expect(p.kind == HC_KIND_STREAM, 1)) {
		dev = atomic_load_explicit(&hc_dev_table[p.dev].dev, memory_order_acquire);
		/* hc_dev_get's check: the slot's generation is the device's
		 * (dev->gen, the one its handle packs, read without unpacking). */
		if (__builtin_expect(dev != NULL, 1) &&
		    atomic_load_explicit(&hc_dev_table[p.dev].gen, memory_order_acquire) == dev->gen &&
		    (st = __atomic_load_n(&dev->streams[p.stream], __ATOMIC_ACQUIRE)) != NULL) {
			hc_lock_acquire(&st->lock);
			if (__builtin_expect(st->open && st->handle.id == s.id, 1)) {
				hc_strm_inbox_check(st);
				*out = st;
				return HC_OK;
			}
			hc_lock_release(&st->lock);
		}
	}
	return hc_strm_lock_slow(s, out);
}

static inline void hc_strm_unlock(struct hc_strm *st)
{
	hc_lock_release(&st->lock);
}

/* stream.c */
/* @adopt: wrap the caller's stream @native instead of creating one. */
hc_status hc_strm_create(struct hc_dev *dev, bool adopt, void *native, struct hc_strm **out);
/*
 * hc_strm_lock_under_dev - the device lock, then @s's (the lock order),
 * for a call that decides under both.  The device is found through the
 * stream's lock, taken and given back first; the stream is checked again
 * once both are held.  Return: HC_OK with both held; HC_ERR_STALE, neither
 * held, when @s is not an open stream or was closed meanwhile.
 */
hc_status hc_strm_lock_under_dev(hc_stream s, struct hc_strm **out);
void hc_strm_teardown(struct hc_strm *st);
void hc_strm_teardown_locked(struct hc_strm *st);
/* Waits for @fence on the host; a late failure taints in-flight work. */
hc_status hc_strm_fence_wait(struct hc_strm *st, void *fence);
/* Records a fence on @st that hc_strm_fence_wait knows; destroys it. */
hc_status hc_strm_fence_record(struct hc_strm *st, void **fence);
void hc_strm_fence_destroy(struct hc_strm *st, void *fence);
/* Syncs the whole stream; a late failure taints in-flight work. */
hc_status hc_strm_sync_wait(struct hc_strm *st);
hc_status hc_strm_queues_init(struct hc_strm *st);
void hc_strm_cache_clear_unpinned(struct hc_strm *st);
void hc_strm_queues_fini(struct hc_strm *st);

/* flush.c: one flush of the drop queue (deferred while another stream
 * of the device records).  Context: @st locked. */
hc_status hc_strm_dq_flush(struct hc_strm *st);
/* Two flushes: the first fences what is staged, the second waits for that
 * fence and releases it, so everything queued before the call is released
 * (unless flushes are deferred).  Return: the first failure.  Context: @st
 * locked. */
hc_status hc_strm_dq_flush_all(struct hc_strm *st);

/* storage.c: st->dstore and st->pstore, the managers' page sources. */
void hc_strm_storage_init(struct hc_strm *st);
/* storage_vmm.c: st->dstore's virtual-memory callbacks, where the backend
 * has them. */
void hc_strm_storage_vmm_init(struct hc_strm *st);

/* buffer.c */
hc_buffer hc_buf_handle(const struct hc_strm *st, uint32_t idx);
hc_status hc_buf_find(struct hc_strm *st, hc_buffer b, struct hc_buf **out);
hc_status hc_buf_lock(hc_buffer b, struct hc_strm **st, struct hc_buf **out);
void hc_buf_remote_unpin(struct hc_strm *st, uint32_t idx);
hc_status hc_strm_reserve(struct hc_strm *st, struct hc_mm *mm, uint64_t size,
			  struct hc_slice_ref *ref, uint64_t *addr);

/* pools.c */
/* Flush the drop queue twice, drop unpinned cache entries, free empty
 * pages.  Context: @st locked; does nothing while a capture records. */
void hc_strm_cleanup_locked(struct hc_strm *st);

/* graph.c */
/* Releases the graphs @st captured.  Context: device lock and @st's held. */
void hc_graphs_destroy_stream(struct hc_dev *dev, struct hc_strm *st);
void hc_graphs_destroy_all(struct hc_dev *dev);

/* kernel.c */
void hc_kernels_unload_all(struct hc_dev *dev);

#endif /* HIPCORE_CORE_OBJECT_H */
