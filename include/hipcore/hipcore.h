/*
 * hipcore.h - libhipcore's public interface.
 *
 * libhipcore runs GPU work on HIP devices with pooled, predictable memory,
 * and records every decision it takes as LTTng-UST events so that hipsim can
 * replay a production run on a deterministic simulator.
 *
 * Conventions (they hold for every function below):
 *  - Every function returns an hc_status; HC_OK is 0.  The two exceptions
 *    are pure functions of their arguments: hc_status_str() and
 *    hc_staging_of().
 *  - Bad input never aborts: it returns a status, and hc_last_error() then
 *    holds a message that says what was wrong.  The detail is per thread.
 *  - Objects are handles: small structs holding a 64-bit id.  A handle that
 *    was closed, freed or never opened is reported as HC_ERR_STALE, never
 *    dereferenced.  A zero id is never valid.
 *  - Any thread may call.  Calls on one stream are serialised by the stream;
 *    state shared between streams is guarded at device level.
 *
 * Threading and blocking (each function's Context: says which apply):
 *  - Each stream has a lock that every call naming it holds for the whole
 *    call, waits included: calls on one stream run one at a time, whichever
 *    threads make them, and a thread blocked in hc_sync() holds up every
 *    other call on that stream.  Calls on different streams run in parallel.
 *    A call on one stream that names another stream's buffer (a write
 *    target, a read source, a launch binding, hc_buffer_hold) locks both,
 *    always in the same order, so it also waits for calls on the origin.
 *  - Each device has a lock over what its streams share: the stream, kernel
 *    and graph tables, the layout and policy for new streams, the backend's
 *    fault and stats controls.  It is taken before any stream lock.  The
 *    device-wide calls (hc_device_memory_usage, hc_device_set_policy) then
 *    lock each stream in turn, so they wait for the call in progress on
 *    every stream.  Small leaf locks (the error graph, the idle cache, the
 *    streams' inboxes) are never held across a wait.
 *  - While an LTTng session records libhipcore's events, the calls a replay
 *    follows (stream open, adopt and close, hc_alloc, hc_free,
 *    hc_buffer_hold, hc_sync, hc_write, hc_read, hc_launch,
 *    hc_install_memory_pools) also take one process-wide lock, first: they
 *    run one at a time, so the trace's order is the order they ran in.
 *  - A device allocation or free may synchronise the whole device (hipFree
 *    does).  Pools take device memory when they grow past what they and the
 *    device's idle cache hold, and free it on cleanup, at a cap, and when
 *    idle memory is given back.
 *  - While any stream of a device records a graph capture, the backend
 *    refuses a device allocation or free and a host wait on any stream of
 *    that device, with HC_ERR_STATE (the simulator also invalidates every
 *    capture recording there: hc_graph_end then fails).  The library puts
 *    off its drop-queue flushes meanwhile, and refuses (HC_ERR_STATE) on
 *    any stream the calls whose waits or frees it cannot put off:
 *    hc_stream_close, hc_graph_destroy, hc_device_idle_release, and an
 *    hc_alloc miss the idle cache cannot serve.  On the recording stream
 *    itself, hc_sync and hc_read return HC_ERR_STATE before waiting too,
 *    and hc_memory_cleanup does nothing.
 *  - hc_release_fn callbacks may run with stream locks held: they must not
 *    call libhipcore.  hc_pool_report_fn runs with no lock held.
 *  - hc_device_close() must not run while another thread calls into the
 *    same device.
 */
#ifndef HIPCORE_HIPCORE_H
#define HIPCORE_HIPCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HC_API __attribute__((visibility("default")))
#else
#define HC_API
#endif

#define HIPCORE_VERSION_MAJOR 0
#define HIPCORE_VERSION_MINOR 1
#define HIPCORE_VERSION_PATCH 0

/* ------------------------------------------------------------------ */
/* Statuses                                                            */
/* ------------------------------------------------------------------ */

/* One list generates the enum and hc_status_str(): X(name, value, text). */
#define HC_STATUS_LIST(X)                                                        \
	X(HC_OK, 0, "ok")                                                        \
	X(HC_ERR_INVALID, 1, "invalid argument")                                 \
	X(HC_ERR_OOM, 2, "out of memory after cleanup and retry")               \
	X(HC_ERR_TOO_BIG, 3, "no memory pool accepts this size")                \
	X(HC_ERR_CAPACITY, 4, "capped pool is full and no pool behind it takes the request") \
	X(HC_ERR_STATE, 5, "lifecycle order violated; state unchanged")         \
	X(HC_ERR_STALE, 6, "handle is closed, freed, reused or unknown")        \
	X(HC_ERR_TAINTED, 7, "data was produced by failed work")                \
	X(HC_ERR_IN_USE, 8, "pools still hold live memory")                     \
	X(HC_ERR_DEVICE, 9, "device backend call failed")                       \
	X(HC_ERR_UNSUPPORTED, 10, "not supported by this backend")              \
	X(HC_ERR_NO_RUNTIME, 11, "no GPU runtime library could be loaded")      \
	X(HC_ERR_IO, 12, "file could not be read or written")                   \
	X(HC_ERR_PARSE, 13, "malformed input")

typedef enum hc_status {
#define HC_STATUS_ENUM_(name, value, text) name = value,
	HC_STATUS_LIST(HC_STATUS_ENUM_)
#undef HC_STATUS_ENUM_
} hc_status;

/* The fixed description of a status; "unknown status" for other values. */
/* Context: any thread; pure, never blocks. */
HC_API const char *hc_status_str(hc_status status);

/* What went wrong in this thread's last failing call. */
typedef struct hc_error_info {
	hc_status status;      /* the status that call returned */
	int backend_code;      /* the runtime's own code for HC_ERR_DEVICE, else 0 */
	char backend_name[64]; /* the runtime's name for that code, or "" */
	char message[512];     /* a sentence naming the function and the cause */
} hc_error_info;

/* Copies this thread's last error (HC_OK and "" when none) into @out.  A NULL
 * @out gives HC_ERR_INVALID and leaves the recorded error as it was.
 * Context: any thread (the detail is the caller's own); never blocks; legal
 * while capturing. */
HC_API hc_status hc_last_error(hc_error_info *out);

/* ------------------------------------------------------------------ */
/* Handles                                                             */
/* ------------------------------------------------------------------ */

typedef struct hc_device { uint64_t id; } hc_device;
typedef struct hc_stream { uint64_t id; } hc_stream;
typedef struct hc_buffer { uint64_t id; } hc_buffer;
typedef struct hc_kernel { uint64_t id; } hc_kernel;
typedef struct hc_graph { uint64_t id; } hc_graph;
/* A failure recorded in the device's error graph; 0 means "no failure". */
typedef uint64_t hc_failure_id;

/* ------------------------------------------------------------------ */
/* Staging: the host-to-device copy policy (exact, public contract)    */
/* ------------------------------------------------------------------ */

typedef enum hc_alloc_property {
	HC_ALLOC_NATIVE = 0, /* ordinary pageable host memory */
	HC_ALLOC_PINNED = 1, /* page-locked host memory the caller owns */
	HC_ALLOC_FILE = 2,   /* a file mapping the caller keeps */
	HC_ALLOC_DEVICE = 3, /* lazily device-backed memory */
	HC_ALLOC_OTHER = 4,
} hc_alloc_property;

typedef struct hc_staging {
	bool through_pinned; /* copy into a pinned staging buffer first */
	bool flush_after;    /* flush the drop queue after the copy */
} hc_staging;

#define HC_MIB ((uint64_t)1024 * 1024)
#define HC_STAGING_MAX_BYTES (100 * HC_MIB) /* stage only below this */
#define HC_FLUSH_MIN_BYTES (10 * HC_MIB)    /* flush above this */

/*
 * hc_staging_of - the staging decision for one write.
 * through_pinned = FILE, or (size < 100 MiB and not PINNED).
 * flush_after    = FILE, or size > 10 MiB.
 * An unknown property is treated as HC_ALLOC_OTHER.
 * Context: any thread; pure, never blocks.
 */
HC_API hc_staging hc_staging_of(uint64_t size, hc_alloc_property property);

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

typedef struct hc_device_options {
	uint32_t struct_size; /* set by hc_device_options_init() */
	int ordinal;          /* which GPU of the backend; 0 by default */
	/* Simulator settings; other backends ignore them. */
	const char *profile;  /* device profile file; NULL: the built-in H200 */
	uint64_t seed;        /* seed of the simulator's jitter */
	uint64_t capacity;    /* device memory in bytes; 0: the profile's */
	/* Back device memory with host memory, so bytes written come back and
	 * the built-in kernels compute.  Without it (the default) the
	 * simulator models time and memory only: no copy moves bytes, the
	 * library's staging copies included, and a read leaves its destination
	 * as it was. */
	bool data_mode;
	/* HIP backend: measure every kernel launched outside a capture with
	 * timing events and emit its duration as the trace event
	 * hipcore:kernel_time at the next fence (also HIPCORE_TIME_KERNELS=1
	 * in the environment).  Costs two event records per launch. */
	bool time_kernels;
	/* Count every backend call and the host time spent inside it, by
	 * kind, for hc_device_op_times() (also HIPCORE_OP_TIMES=1 in the
	 * environment).  Costs two clock reads per backend call. */
	bool op_times;
	/* Round the device's allocation alignment up to this power of two
	 * (0: the backend's own).  A framework that picks kernels by pointer
	 * alignment wants its own figure on every backend: PyTorch aligns to
	 * 512 bytes.  Appended: options of the older size are still accepted. */
	uint64_t min_alignment;
} hc_device_options;

/* Zeroes @opts and sets its struct_size.  Context: any thread; touches only
 * @opts. */
HC_API hc_status hc_device_options_init(hc_device_options *opts);

/*
 * hc_device_open - open one device on a backend chosen by name.
 * @backend: "sim" (the deterministic simulator), "hip" (the HIP runtime,
 *           loaded at run time), "auto" (hip when a runtime and a device are
 *           present, else sim), or NULL for "sim".
 * @opts: NULL for defaults.
 * Context: any thread; takes the process's device-table lock only to
 * publish the device.  May block for as long as the backend takes to load
 * and initialise (the HIP runtime, a profile file).
 * Return: HC_ERR_INVALID for an unknown name, HC_ERR_NO_RUNTIME when "hip"
 * finds no runtime, HC_ERR_IO/HC_ERR_PARSE for a bad profile file.
 */
HC_API hc_status hc_device_open(const char *backend, const hc_device_options *opts,
				hc_device *out);
/* Closes the device, its streams, buffers, kernels and graphs.
 * Context: not thread-safe with any other call on @dev or its objects (the
 * caller ends them first; the handle goes stale at once, but a call already
 * inside may touch freed memory).  Blocks: waits for every stream's work
 * and frees the device memory held, which synchronises the device.  Closes
 * streams that are capturing too, without ending their capture. */
HC_API hc_status hc_device_close(hc_device dev);

typedef struct hc_device_info {
	char backend[16];       /* "sim" or "hip" */
	char name[256];         /* the device's name */
	uint64_t total_memory;  /* bytes */
	uint64_t alignment;     /* allocation alignment in bytes */
	bool integrated;        /* shares memory with the host (APU) */
	uint64_t max_page_size; /* total_memory / 4: sizes the pool presets */
} hc_device_info;

/* Context: any thread; takes no lock, never blocks; legal while capturing. */
HC_API hc_status hc_device_info_get(hc_device dev, hc_device_info *out);

/* The device's clock in ns: virtual time on the simulator, CLOCK_MONOTONIC
 * on a real device.  Context: any thread; takes no lock, never blocks;
 * legal while capturing. */
HC_API hc_status hc_device_now(hc_device dev, uint64_t *ns);

/* Counters of one device since it was opened: what the backend did and
 * what the library decided.  Backends that cannot count leave fields 0.
 *
 * Versioned by struct_size, which the caller sets to sizeof(hc_device_stats)
 * of the header it was built with.  Versions only append fields, each a
 * uint64_t.  The library fills the whole fields that fit in struct_size and
 * leaves the bytes past them as they were; on return struct_size holds the
 * bytes it filled (less than the caller's when the caller's header is newer
 * than the library).  The first version ends after alloc_retries
 * (HC_DEVICE_STATS_SIZE_V1); a smaller struct_size is HC_ERR_INVALID. */
typedef struct hc_device_stats {
	uint32_t struct_size;     /* set by the caller: sizeof(hc_device_stats) */
	/* backend */
	uint64_t device_allocs, device_frees;     /* pages taken from / given to the device */
	uint64_t pinned_allocs, pinned_frees;     /* pinned host pages */
	uint64_t device_bytes_peak;               /* backend memory held, peak */
	uint64_t copies_h2d, copies_d2h, copies_d2d;
	uint64_t bytes_h2d, bytes_d2h;
	uint64_t launches;
	uint64_t host_waits;      /* host blocked on a fence or stream */
	uint64_t host_blocked_ns; /* time it spent there */
	uint64_t stream_waits;    /* device-side waits on another stream's event */
	/* library */
	uint64_t writes_staged, writes_direct, writes_pipelined;
	uint64_t dq_flushes;      /* drop-queue flushes */
	uint64_t xstream_waits;   /* cross-stream waits the cursors required */
	uint64_t cache_hits, cache_misses;
	uint64_t failures;        /* failures recorded in the error graph */
	uint64_t alloc_retries;   /* cleanup-and-retry runs */
	/* backend, version 2: expandable pools' mappings made and released */
	uint64_t device_maps, device_unmaps;
} hc_device_stats;

/* The size of the first version: struct_size and the fields up to
 * alloc_retries. */
#define HC_DEVICE_STATS_SIZE_V1 offsetof(hc_device_stats, device_maps)

/* Fills @out as far as @out->struct_size reaches (above).
 * Return: HC_ERR_INVALID for a NULL @out or a struct_size below
 * HC_DEVICE_STATS_SIZE_V1 (nothing written), HC_ERR_STALE for a closed
 * device.
 * Context: any thread; takes the device lock (so it waits for a kernel
 * load, a stream open or close in progress), not the stream locks.  Never
 * waits on the device; legal while capturing. */
HC_API hc_status hc_device_stats_get(hc_device dev, hc_device_stats *out);

/* One kind of backend call: how often the library made it and the host
 * time spent inside it, on the device's clock (hc_device_now).  On the
 * simulator that is its model of the call; on a GPU, the call's real cost.
 * "host_copy" is the library's own memcpy into or out of pinned staging
 * memory on the calling thread, "host_copy_split" the same split over its
 * copy workers (from 512 KiB); it runs them through the backend so that
 * they are counted too. */
typedef struct hc_op_time {
	const char *op; /* the HAL op's name: "mem_alloc", "copy_h2d", ... */
	uint64_t calls;
	uint64_t host_ns;
} hc_op_time;

/*
 * hc_device_op_times - where a device's host time went, by backend call.
 * @out: receives up to @cap entries, one per kind of call, in a fixed order
 * (kinds never called included); @n receives the number of kinds.
 * Context: any thread; takes no library lock (the counters are the
 * backend shim's own) and never waits on the device; legal while capturing.
 * Return: HC_OK; HC_ERR_STATE when @dev was opened without op_times;
 * HC_ERR_INVALID when @n is NULL, or @out is NULL with @cap > 0.
 */
HC_API hc_status hc_device_op_times(hc_device dev, hc_op_time *out, size_t cap, size_t *n);

/*
 * Policies of a device's streams, for a service to tune and for hipsim
 * replay's what-ifs (--flush-count, --flush-bytes, --stage-max).  0 in a
 * field keeps the library's default.
 * @dq_max_count: drop-queue entries that trigger a flush.
 * @dq_max_bytes: drop-queue bytes that trigger a flush.
 * @stage_max_bytes: largest write that is staged through pinned memory.
 */
typedef struct hc_policy {
	uint64_t dq_max_count, dq_max_bytes, stage_max_bytes;
} hc_policy;

/* Sets @policy for @dev's streams, those open and those to come.
 * Context: any thread; device-wide: takes the device lock, then each
 * stream's lock in turn, so it waits for the call in progress on every
 * stream (a blocked hc_sync included).  Never waits on the device itself;
 * legal while capturing. */
HC_API hc_status hc_device_set_policy(hc_device dev, const hc_policy *policy);

/* Deterministic fault injection.  The simulator implements every kind. */
typedef enum hc_fault_kind {
	HC_FAULT_DEVICE_ALLOC = 0, /* the n-th device memory allocation fails */
	HC_FAULT_LAUNCH = 1,       /* the n-th kernel launch fails */
	HC_FAULT_COPY = 2,         /* the n-th copy fails */
	HC_FAULT_FENCE = 3,        /* the n-th fence reports a failure when waited on */
	HC_FAULT_CAPACITY = 4,     /* allocations fail above n bytes in use */
	HC_FAULT_PINNED_ALLOC = 5, /* the n-th pinned host allocation fails */
} hc_fault_kind;

typedef enum hc_fault_mode {
	HC_FAULT_OFF = 0,        /* disarm */
	HC_FAULT_ONCE = 1,       /* fail the n-th call only */
	HC_FAULT_PERSISTENT = 2, /* fail the n-th call and every later one */
} hc_fault_mode;

/* Arms a fault: @n counts calls from now, 1 being the next one (for
 * HC_FAULT_CAPACITY, @n is the byte ceiling).
 * Context: any thread; takes the device lock, not the stream locks, so a
 * call on a stream in another thread may or may not be the one counted
 * first.  Never waits on the device; legal while capturing. */
HC_API hc_status hc_fault_inject(hc_device dev, hc_fault_kind kind, uint64_t n,
				 hc_fault_mode mode);

/* ------------------------------------------------------------------ */
/* Streams                                                             */
/* ------------------------------------------------------------------ */

/* Context: any thread; takes the device lock while the backend creates the
 * stream (so it waits for a kernel load or stream close in progress);
 * never waits on the device's work.  No capture check. */
HC_API hc_status hc_stream_open(hc_device dev, hc_stream *out);
/* Waits for the stream's work, releases its drop queue and pools.  Its
 * buffers and graphs become stale.  HC_ERR_STATE, changing nothing, while a
 * graph capture is prepared or recording on it (hc_graph_begin and
 * hc_graph_end end it; hc_device_close closes the stream regardless), and
 * while another stream of the device records (the close's waits would
 * invalidate that capture; close after its hc_graph_end).
 * Context: any thread; takes the stream's lock (to find its device), then
 * the device lock and the stream's together, and decides there: a capture
 * begun on the stream or a close of it by another thread meanwhile is seen
 * (HC_ERR_STATE, HC_ERR_STALE).  Blocks: waits for the stream's work (its
 * graphs' replays included) and its drop queue's fences; its pools'
 * device memory goes to the device's idle cache.  A capture another thread
 * begins on another stream while the close runs is not waited for: the
 * backend refuses the close's waits then. */
HC_API hc_status hc_stream_close(hc_stream stream);
/* Blocks the host until every operation queued on the stream is done.
 * Context: any thread; holds the stream lock while it waits, so other calls
 * on the stream wait with it; other streams run on.  HC_ERR_STATE, nothing
 * done, while @stream records a capture; while another stream of the
 * device records, the backend refuses the wait (HC_ERR_STATE). */
HC_API hc_status hc_sync(hc_stream stream);

/*
 * hc_stream_adopt - make a stream the caller created and keeps a libhipcore
 * stream, so that libhipcore's pools, drop queue and cursors order their
 * work on the caller's queue (a framework's allocator plug-in, say).
 * @native: the runtime's handle (hipStream_t, or cudaStream_t on NVIDIA);
 *          NULL is the runtime's default stream.  On the simulator any
 *          value: a synthetic handle that names a new simulated queue.
 * The stream behaves as one from hc_stream_open, except that
 * hc_stream_close and hc_device_close wait for its work and never destroy
 * it: the caller keeps it alive until then.
 * Context: any thread; takes the device lock, as hc_stream_open.  Never
 * waits on the device; no capture check.
 * Return: HC_ERR_STATE when an open stream of @dev already adopted @native
 * (two libhipcore streams on one queue would each believe they order it).
 */
HC_API hc_status hc_stream_adopt(hc_device dev, void *native, hc_stream *out);

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* Allocates @size bytes of device memory from @stream's pools.
 * Context: any thread; takes @stream's lock.  A pool hit never blocks.  A
 * miss takes device memory: from the idle cache (a device-side wait on
 * the releasing stream; a host wait only where that fails), else from the
 * backend, after freeing idle memory above the watermark (each free may
 * synchronise the device); a refusal runs hc_memory_cleanup's work (fence
 * waits, frees) and retries once.  While @stream records, the retry is
 * skipped and a device allocation is refused by the backend and makes
 * hc_graph_end fail; while another stream of the device records, a miss
 * the idle cache cannot serve is refused (HC_ERR_STATE) before it frees
 * idle memory or asks the backend, so that capture stays valid.
 * Return: HC_ERR_TOO_BIG when no pool of the layout takes @size,
 * HC_ERR_OOM when the device refuses it after cleanup and retry. */
HC_API hc_status hc_alloc(hc_stream stream, uint64_t size, hc_buffer *out);
/* Returns a buffer to its origin stream's pools; HC_ERR_STALE if freed.
 * Context: any thread; takes the origin stream's lock; never waits on the
 * device: memory it releases stays in the pool or goes to the device's
 * idle cache behind a fence.  Legal while capturing (storage given back
 * to the device then would make hc_graph_end fail). */
HC_API hc_status hc_free(hc_buffer buffer);

/*
 * hc_buffer_hold - the work queued on @stream so far uses @buffer, which
 * another stream allocated (what CUDA frameworks call record_stream).
 * When the buffer is freed, its memory returns to its origin's pools only
 * once that work is done.  A stream-ordered free on a stream other than the
 * origin is hc_buffer_hold on that stream, then hc_free.  A hold from the
 * origin itself changes nothing: its own work is ordered before any reuse.
 * The hold flushes @stream's drop queue, which may wait for the fence of
 * its previous flush.
 * Context: any thread; locks both streams (so it waits for calls on the
 * origin too).  May block on that fence; the flush is skipped while
 * @stream records and put off while another stream of the device records,
 * so the hold is legal while capturing.
 */
HC_API hc_status hc_buffer_hold(hc_buffer buffer, hc_stream stream);

typedef struct hc_buffer_info {
	hc_stream stream;        /* the origin stream */
	uint64_t size;           /* the requested size */
	uint64_t device_address; /* the backend's address of byte 0 */
} hc_buffer_info;

/* Context: any thread; takes the origin stream's lock, never blocks; legal
 * while capturing. */
HC_API hc_status hc_buffer_info_get(hc_buffer buffer, hc_buffer_info *out);

/* Host-to-device write.  The call returns once a staged or pageable source
 * may be reused.  A source copied without staging (PINNED, or FILE above the
 * staging limit) stays the caller's until @release(@release_arg) is called,
 * after the copy's fence; @release may be NULL when the caller syncs.
 * @release runs on whichever thread gets there (this call, or a later
 * call on the stream that flushes its drop queue) with stream locks held:
 * it must not call libhipcore. */
typedef void (*hc_release_fn)(void *arg);

/*
 * Context: any thread; takes @stream's lock and, for another stream's
 * buffer, the origin's.  Blocks the host for its copy into pinned memory,
 * and a pipelined write (a large staged one, outside a capture) waits for
 * its chunks; a write that flushes the drop queue may wait for the fence
 * of the previous flush.  A staging slice the pinned pool lacks is a
 * pinned host allocation.  Legal while capturing (recorded; flushes put
 * off); while another stream of the device records, a pinned allocation
 * is refused (HC_ERR_STATE).
 */
HC_API hc_status hc_write(hc_stream stream, hc_buffer buffer, uint64_t offset,
			  const void *src, uint64_t size, hc_alloc_property property,
			  hc_release_fn release, void *release_arg);

/* Device-to-host read; complete when it returns.  A read of bytes written by
 * failed work returns HC_ERR_TAINTED and, when @failure is not NULL, the
 * failure's id.
 * Context: any thread; takes @stream's lock and, for another stream's
 * buffer, the origin's, for the whole read.  Blocks until the bytes are
 * copied (the stream's earlier work first).  HC_ERR_STATE, nothing done,
 * while @stream records; while another stream of the device records, the
 * backend refuses the wait (HC_ERR_STATE). */
HC_API hc_status hc_read(hc_stream stream, hc_buffer buffer, uint64_t offset, void *dst,
			 uint64_t size, hc_failure_id *failure);

/* ------------------------------------------------------------------ */
/* Kernels                                                             */
/* ------------------------------------------------------------------ */

/* Loads @name from a code object (PTX text or a HIP code object).  @image
 * NULL names a built-in kernel, "fill", "copy" or "add", on the simulator
 * and on the HIP backend alike (device code built into libhipcore: PTX for
 * NVIDIA compute_80 and later, AMD code objects for gfx900, gfx906, gfx908,
 * gfx90a and gfx1030); README.md says what each computes.
 * Context: any thread; holds the device lock while the backend loads the
 * code object (which may compile it), so launches, stream opens and other
 * device-locked calls of @dev wait for it.  No capture check. */
HC_API hc_status hc_kernel_load(hc_device dev, const void *image, size_t image_size,
				const char *name, hc_kernel *out);

typedef enum hc_access {
	HC_ACCESS_READ = 1,
	HC_ACCESS_WRITE = 2,
	HC_ACCESS_READ_WRITE = 3,
} hc_access;

typedef struct hc_binding {
	hc_buffer buffer;
	uint64_t offset; /* first byte the kernel touches */
	uint64_t size;   /* bytes it touches */
	hc_access access;
} hc_binding;

/*
 * A launch.  The kernel receives, in order, one device pointer per binding
 * (buffer address + offset), then a pointer to the info words when there
 * are any.  The info words are cached on the device, keyed by their value.
 */
typedef struct hc_launch_desc {
	hc_kernel kernel;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_bytes;
	const uint64_t *info;
	size_t info_words;
	const hc_binding *bindings;
	size_t n_bindings;
	uint64_t duration_hint_ns; /* simulator: the kernel's duration; 0: cost model */
} hc_launch_desc;

/*
 * Context: any thread; takes the device lock briefly (the kernel lookup),
 * then @stream's lock and each binding's origin's.  Does not wait for the
 * kernel.  Info words the cache misses are a staged copy (see hc_write); a
 * flush may wait for the previous flush's fence.  Legal while capturing
 * (recorded, not checked for taint; an info slice that needs new device
 * memory makes hc_graph_end fail).
 */
HC_API hc_status hc_launch(hc_stream stream, const hc_launch_desc *launch);

/* ------------------------------------------------------------------ */
/* Graph capture: prepare -> begin -> end, then replay / destroy       */
/* ------------------------------------------------------------------ */

/*
 * A call out of this order returns HC_ERR_STATE and changes nothing, except
 * hc_graph_end: from recording it always leaves capture, and it returns
 * HC_ERR_STATE (no graph) when the backend found the capture invalidated by
 * a synchronisation or memory operation made while recording.  A graph
 * replays only on the stream that captured it (HC_ERR_INVALID otherwise).
 * Captures are global-mode: a host synchronisation on any stream of the
 * device invalidates every capture recording there.  The library's own
 * waits never do: drop-queue flushes are put off while another stream
 * records, and hc_graph_destroy, which must wait for the graph's last
 * replay, returns HC_ERR_STATE and changes nothing while any stream of the
 * device records (destroy it after that stream's hc_graph_end).
 *
 * Context: each call takes its stream's lock, so one thread at a time per
 * stream; captures on different streams may run in parallel threads.
 * hc_graph_prepare never blocks.  hc_graph_begin takes the device lock,
 * then the stream's (so it waits for an hc_stream_close or hc_graph_destroy
 * of another stream in progress, whose waits would invalidate the capture),
 * counts the capture, releases the device lock, and flushes the drop queue
 * twice (it may wait for a fence, unless another stream already records).
 * hc_graph_end, once capture is left, flushes twice (may wait for a fence)
 * and then takes the device lock, the stream's released, to publish the
 * graph.  hc_graph_replay takes the device lock briefly, then the stream's,
 * and does not wait for the graph; HC_ERR_STATE while the stream records.
 * hc_graph_destroy takes the device lock, then the lock of the stream that
 * captured the graph, and waits for that stream's work.
 */
HC_API hc_status hc_graph_prepare(hc_stream stream);
HC_API hc_status hc_graph_begin(hc_stream stream);
HC_API hc_status hc_graph_end(hc_stream stream, hc_graph *out);
HC_API hc_status hc_graph_replay(hc_stream stream, hc_graph graph);
HC_API hc_status hc_graph_destroy(hc_graph graph);

/* ------------------------------------------------------------------ */
/* Pools                                                               */
/* ------------------------------------------------------------------ */

typedef enum hc_pool_kind {
	HC_POOL_EXCLUSIVE = 0,  /* one slice per page */
	HC_POOL_DIRECT = 1,     /* exact-size allocations, reclaim watermark */
	HC_POOL_SLICED = 2,     /* fixed pages split first-fit */
	HC_POOL_PERSISTENT = 3, /* exact-size reuse; graph capture */
	HC_POOL_EXPANDABLE = 4, /* one virtual range, granules mapped as it grows */
} hc_pool_kind;

/* One pool of an explicit layout.  0 means "none" for the optional fields. */
typedef struct hc_pool_spec {
	hc_pool_kind kind;
	uint64_t page_size;      /* SLICED: page size (required) */
	uint64_t max_slice_size; /* SLICED: 0 = the page size */
	uint64_t max_pool_size;  /* SLICED: cap in bytes, 0 = unbounded;
				    EXPANDABLE: address range, 0 = device memory */
	uint64_t max_alloc_size; /* EXCLUSIVE: largest request (0 serves size 0 only) */
	uint64_t reclaim_at;     /* DIRECT: watermark, 0 = none, HC_RECLAIM_AT_PEAK;
				  * EXPANDABLE: 0 (unmap on cleanup only) or
				  * HC_RECLAIM_AT_PEAK (unmap idle mappings before
				  * growing past the peak in use) or
				  * HC_RECLAIM_AT_SHARED (with several streams on the
				  * device, lend idle mappings to the other streams) */
	uint64_t dealloc_period; /* EXCLUSIVE/SLICED: reservations between cleanups, 0 = never */
} hc_pool_spec;

/* DIRECT reclaim_at: the pool's own peak of in-use bytes so far (reserved
 * bytes never pass the highest demand seen; a miss releases just enough). */
#define HC_RECLAIM_AT_PEAK UINT64_MAX
/* EXPANDABLE reclaim_at: while several streams of the device are open,
 * mappings no live block touches are lent to the other streams, whose
 * pools unmap them before mapping once a fence recorded on the owner's
 * stream after their last use has passed (never waiting for a stream),
 * so the device's streams share its physical memory. */
#define HC_RECLAIM_AT_SHARED (UINT64_MAX - 1)

typedef enum hc_layout_preset {
	HC_LAYOUT_DEFAULT = 0,         /* the library's default: HC_LAYOUT_WORKLOAD */
	HC_LAYOUT_SUBSLICES = 1,       /* upstream's SubSlices ladder */
	HC_LAYOUT_EXCLUSIVE_PAGES = 2, /* upstream's ExclusivePages buckets */
	HC_LAYOUT_EXPLICIT = 3,        /* @pools, in routing order */
	HC_LAYOUT_WORKLOAD = 4,        /* small-tensor pages + best-fit splitting direct pool */
	HC_LAYOUT_EXPANDABLE = 5,      /* small-tensor pages + an expandable pool (Workload
					  where the device has no virtual memory) */
	HC_LAYOUT_EXPANDABLE_SHARED = 6, /* Expandable with reclaim_at HC_RECLAIM_AT_SHARED:
					    the streams of a device share its memory */
} hc_layout_preset;

typedef struct hc_pool_layout {
	hc_layout_preset preset;
	const hc_pool_spec *pools; /* HC_LAYOUT_EXPLICIT only */
	size_t n_pools;
} hc_pool_layout;

/*
 * hc_install_memory_pools - validate @layout, make it the device layout of
 * streams opened afterwards, and rebuild @stream's dynamic pools.
 * Return: HC_ERR_INVALID (with the reason) for a bad layout; HC_ERR_IN_USE
 * when @stream still holds live memory (the layout is then installed for
 * later streams only).
 */
/* Context: any thread; takes @stream's lock twice, then the device lock,
 * one at a time.  Runs hc_memory_cleanup's work, so it may block as
 * cleanup does.  HC_ERR_STATE, changing nothing (the layout for later
 * streams included), while a capture is prepared or recording on @stream;
 * so does any other refusal but HC_ERR_IN_USE. */
HC_API hc_status hc_install_memory_pools(hc_stream stream, const hc_pool_layout *layout);

typedef enum hc_memory_kind {
	HC_MEMORY_DEVICE = 0,
	HC_MEMORY_PINNED = 1,
} hc_memory_kind;

typedef struct hc_memory_usage {
	uint64_t number_allocs; /* live slices */
	uint64_t bytes_in_use;  /* requested bytes of live slices */
	uint64_t bytes_padding; /* alignment padding of live slices */
	uint64_t bytes_reserved;/* bytes held from the backend */
} hc_memory_usage;

/* Context: any thread; takes @stream's lock, never blocks; legal while
 * capturing. */
HC_API hc_status hc_memory_usage_get(hc_stream stream, hc_memory_kind kind,
				     hc_memory_usage *out);
/* The sum over every open stream of the device; for device memory,
 * bytes_reserved includes the device's idle cache.
 * Context: any thread; device-wide: takes the device lock, then each
 * stream's lock in turn, so it waits for the call in progress on every
 * stream.  Never waits on the device; legal while capturing. */
HC_API hc_status hc_device_memory_usage(hc_device dev, hc_memory_kind kind,
					hc_memory_usage *out);
/*
 * Device memory that the pools of @dev's streams released and that the
 * device keeps for any of its streams to adopt (core/idle.h).  It is in no
 * stream's bytes_reserved; hc_device_memory_usage (device kind) adds it.
 * Context: any thread; one atomic read, no lock; legal while capturing.
 */
HC_API hc_status hc_device_idle_bytes(hc_device dev, uint64_t *out);
/*
 * hc_device_idle_release - give the device's idle memory back to the
 * backend (the runtime's free, which synchronises the device).  Pages the
 * streams' pools still hold stay: hc_memory_cleanup empties those first.
 * Context: any thread; takes no stream lock (the idle cache's own, never
 * across a free).  Blocks: each free may synchronise the device.
 * HC_ERR_STATE, freeing nothing, while a stream of the device records (a
 * free would invalidate its capture).  A free the backend refuses leaves
 * its memory idle.
 */
HC_API hc_status hc_device_idle_release(hc_device dev);
/*
 * hc_device_set_memory_limit - cap the device memory @dev's pools and idle
 * cache may hold at @bytes (0: no cap).  A request that would pass the cap
 * first gives idle memory back, then is refused as the device refuses one:
 * cleanup and retry, then HC_ERR_OOM.  Memory already held stays.
 * Context: any thread; one atomic store, no lock, never blocks; takes
 * effect at the next device allocation.  Legal while capturing.
 */
HC_API hc_status hc_device_set_memory_limit(hc_device dev, uint64_t bytes);

typedef struct hc_pool_report {
	uint32_t index;           /* routing order; the persistent pool comes last */
	hc_pool_kind kind;
	hc_pool_spec spec;        /* after rounding and shrinking */
	hc_memory_usage usage;
	uint64_t pages;
	uint64_t pages_peak;
	uint64_t largest_alloc;
} hc_pool_report;

typedef void (*hc_pool_report_fn)(const hc_pool_report *report, void *arg);

/* Calls @fn once per pool of @stream, in routing order, with the figures
 * of one moment.
 * Context: any thread; takes @stream's lock to copy the reports, then runs
 * @fn in the caller's thread with no lock held, so @fn may call libhipcore,
 * on @stream too (what it changes is not in the reports).  Never waits on
 * the device; legal while capturing.
 * Return: HC_ERR_OOM (@fn not called) when the copy finds no host memory. */
HC_API hc_status hc_memory_report(hc_stream stream, hc_memory_kind kind,
				  hc_pool_report_fn fn, void *arg);
/* Flushes the drop queue twice, drops unpinned cached metadata and frees
 * every empty page of the stream's pools.
 * Context: any thread; takes @stream's lock.  Blocks: the second flush
 * waits for the first one's fence, and the whole device's idle memory
 * (every stream's, not only @stream's) is freed, each free possibly
 * synchronising the device.  While @stream records it does nothing and
 * returns HC_OK; while another stream of the device records, the flushes
 * are put off and nothing is given back to the backend (the pools' empty
 * device pages go to the idle cache; pinned pages and idle memory stay),
 * since a free would invalidate that capture. */
HC_API hc_status hc_memory_cleanup(hc_stream stream);
/* Persistent-mode windows nest: begin/end pairs.  An end without an open
 * window changes nothing and returns HC_OK.
 * Context: any thread; take @stream's lock, never block; legal while
 * capturing. */
HC_API hc_status hc_memory_persistent_begin(hc_stream stream);
HC_API hc_status hc_memory_persistent_end(hc_stream stream);

/* ------------------------------------------------------------------ */
/* Error graph                                                         */
/* ------------------------------------------------------------------ */

/* Writes the chain from @failure back to its root causes into @buf (always
 * NUL-terminated).  Returns HC_ERR_INVALID when the whole text does not fit
 * in @len bytes: @buf then holds it cut to @len - 1 bytes, and the error
 * message says how many bytes the whole text needs.
 * Context: any thread; takes the device's error-graph lock (a leaf), never
 * waits on the device; legal while capturing. */
HC_API hc_status hc_failure_explain(hc_device dev, hc_failure_id failure, char *buf,
				    size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HIPCORE_HIPCORE_H */
