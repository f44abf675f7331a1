/*
 * hal.h - the one interface between core/ and a device.
 *
 * A backend fills one struct hc_hal_ops.  core/ calls nothing else: it never
 * includes a HIP, CUDA or simulator header.  Two backends exist: sim/ (the
 * deterministic simulator, the default) and hal/hip/ (the HIP runtime bound
 * at run time).  hal/fault.c wraps either one to inject faults.
 *
 * Backend objects are opaque to core: each backend defines struct
 * hc_hal_dev, hc_hal_stream, hc_hal_event, hc_hal_graph, hc_hal_module and
 * hc_hal_function as it likes.
 *
 * Errors: an op returns HC_OK or a status.  Before returning an error an op
 * calls hc_hal_error() so the thread's error detail names the runtime's own
 * code and name.  The detail is the HAL's own (hal/hal_error.c): hal/ and the
 * backends link nothing of core/, which turns the detail into hc_last_error.
 * HC_ERR_OOM from mem_alloc/host_alloc means "the device refused", which
 * core answers with cleanup-and-retry.
 *
 * Ordering: operations queued on one hal stream run in order.  Nothing is
 * ordered across streams except through events.  "Blocks" below means the
 * calling host thread may wait for the device.
 *
 * Capture: between capture_begin and capture_end on a stream, queued
 * operations are recorded, not run.  Ops marked "not while capturing" fail
 * (as real runtimes do) when any stream of the device is capturing.
 */
#ifndef HIPCORE_HAL_H
#define HIPCORE_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"
#include "hipcore/private.h"

/*
 * Version 2 appended the virtual-memory ops (va_reserve, va_release,
 * pmem_map, pmem_unmap) to struct hc_hal_ops, hc_hal_props.vmm_granularity,
 * and the counters pmem_maps, pmem_unmaps and va_bytes_reserved to struct
 * hc_hal_stats.  Version 1 is every op before them.
 */
#define HC_HAL_VERSION 2

typedef struct hc_hal_dev hc_hal_dev;
typedef struct hc_hal_stream hc_hal_stream;
typedef struct hc_hal_event hc_hal_event;
typedef struct hc_hal_graph hc_hal_graph;
typedef struct hc_hal_module hc_hal_module;
typedef struct hc_hal_function hc_hal_function;

/* A device address.  0 is never a valid allocation. */
typedef uint64_t hc_hal_dptr;

struct hc_hal_props {
	char name[256];
	uint64_t total_memory; /* bytes */
	uint64_t alignment;    /* max(32, texture, surface alignment) */
	bool integrated;       /* APU: drop-queue count limit 16, else 64 */
	/* Virtual memory (va_reserve .. pmem_unmap): the unit of every
	 * reservation and mapping, in bytes, a power of two (the runtime's
	 * minimum allocation granularity: 2 MiB on H100 and H200).  0: the
	 * backend has no virtual memory management, its four ops may be NULL,
	 * and core offers no pool that needs them. */
	uint64_t vmm_granularity;
};

/* What a backend is opened with (from hc_device_options). */
struct hc_hal_open_args {
	int ordinal;
	const char *profile; /* sim: profile file or NULL */
	uint64_t seed;       /* sim */
	uint64_t capacity;   /* sim: 0 = the profile's */
	bool data_mode;      /* sim */
	bool time_kernels;   /* hip: time every launch (hipcore:kernel_time) */
	/* Allocations aligned to at least this power of two (0: the backend's
	 * own).  sim: raises the profile's alignment; hip: the runtime aligns
	 * device memory to 256 bytes or more, pages of 2 MiB and up to 2 MiB. */
	uint64_t min_alignment;
};

struct hc_hal_launch {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_bytes;
	void **args;        /* one pointer per kernel parameter, as cuLaunchKernel */
	size_t n_args;
	/* The parameters as device addresses and sizes, for a backend (the
	 * simulator) that interprets kernels itself: arg_dptr[i] is the value
	 * *(hc_hal_dptr *)args[i], arg_bytes[i] the size of the bound range. */
	const hc_hal_dptr *arg_dptr;
	const uint64_t *arg_bytes;
	uint64_t duration_hint_ns; /* sim: 0 = the profile's cost model */
};

/* Escape hatch for backend-specific requests (SQLite's xFileControl). */
enum hc_hal_ctl_op {
	HC_HAL_CTL_NOW_NS = 1,      /* arg: uint64_t *: the backend's clock */
	HC_HAL_CTL_FAULT = 2,       /* arg: struct hc_hal_fault_arg * */
	HC_HAL_CTL_STATS = 3,       /* arg: struct hc_hal_stats * */
	HC_HAL_CTL_SET_HOST_NS = 4, /* sim: arg: uint64_t *: advance host clock to */
	HC_HAL_CTL_LAST_OP = 5,     /* arg: struct hc_hal_op_arg * */
	HC_HAL_CTL_TAKE_FAILED = 6, /* arg: struct hc_hal_failed_arg * */
	HC_HAL_CTL_OP_TIMES = 7,    /* arg: struct hc_hal_op_times * (below) */
	HC_HAL_CTL_HOST_COPY = 8,   /* arg: struct hc_hal_host_copy * */
	HC_HAL_CTL_LIB_WORK = 9,    /* arg: enum hc_lib_work * (below) */
};

/*
 * Attributing late failures (core/errtrack.c).  A backend that can say
 * which queued work failed numbers the work it queues per stream: each
 * launch, copy (h2d, d2h, d2d) and graph_launch that is queued (not
 * captured) gets the next op id of its stream, from 1.  Event and wait
 * operations get none.  The caller queues on a stream under its own lock, so
 * reading LAST_OP right before and right after queuing brackets exactly the
 * ids of what it queued.
 *
 * HC_HAL_CTL_LAST_OP: @op receives the id of the last op queued on @stream
 * (0 before the first).
 * HC_HAL_CTL_TAKE_FAILED: @ops receives up to @cap ids of ops of @stream
 * that failed and were not taken yet, oldest first; @n the number of such
 * ops (may exceed @cap: the rest stay for the next take).  Work of a graph
 * launch that fails is reported as the graph_launch op.  A failure another
 * stream inherited through an event wait is reported only on the stream
 * whose work failed.
 *
 * A backend whose errors are not attributable (hip: the runtime's errors
 * are sticky and name no operation) returns HC_ERR_UNSUPPORTED for both;
 * core then taints, at a failed fence, every work item in flight on that
 * stream since its last clean fence.  sim implements both exactly.
 */
struct hc_hal_op_arg {
	hc_hal_stream *stream;
	uint64_t op;
};

struct hc_hal_failed_arg {
	hc_hal_stream *stream;
	uint64_t *ops;
	size_t cap, n;
};

/*
 * HC_HAL_CTL_HOST_COPY: the library copies @bytes on the host (staging a
 * write into pinned memory, or a read out of it), split over its copy
 * workers when @parallel.  The backend runs the copy itself, @copy(@ctx),
 * when @copy is set (else the copy already happened): so the timing shim,
 * which times this ctl as the op "host_copy" (one thread) or
 * "host_copy_split" (@parallel: over the copy workers), sees the real
 * memcpy on a GPU.  A real device lets the copy take its time; the
 * simulator runs it (data mode needs the bytes) and charges its model to
 * the host clock, since that memcpy is host time its other ops never see
 * (profile keys host_copy_bw and host_copy_max_bw).  Without data mode no
 * copy of the simulator moves bytes, so it sets @unread instead of running
 * the copy: a replay or a what-if run then neither reads its writes'
 * sources nor touches staging memory (a read's destination is left as it
 * was).
 */
struct hc_hal_host_copy {
	uint64_t bytes;
	bool parallel;
	void (*copy)(void *ctx);
	void *ctx;
	bool unread; /* out: the backend reads none of these bytes; skip it */
};

/*
 * HC_HAL_CTL_LIB_WORK: the library did its own host work for one public
 * call of this kind, beyond the backend calls it made (resolving handles,
 * bindings, cursors, the error graph, the metadata cache).  A real device
 * ignores it (the time passed by itself); the simulator charges the
 * profile's figure for it to the host clock, outside any op, as it is on a
 * GPU (profile keys launch_lib and write_lib).
 */
enum hc_lib_work {
	HC_LIB_WORK_LAUNCH = 0, /* one hc_launch */
	HC_LIB_WORK_WRITE = 1,  /* one hc_write that copied */
};

struct hc_hal_fault_arg {
	hc_fault_kind kind;
	uint64_t n;
	hc_fault_mode mode;
};

/* Counters a backend keeps; sim fills all, hip what it can. */
struct hc_hal_stats {
	uint64_t device_allocs, device_frees;
	uint64_t host_allocs, host_frees;
	uint64_t device_bytes_live, device_bytes_peak;
	uint64_t copies_h2d, copies_d2h, copies_d2d;
	uint64_t bytes_h2d, bytes_d2h;
	uint64_t launches;
	uint64_t host_waits;      /* event_sync and stream_sync calls */
	uint64_t host_blocked_ns; /* host time spent in them */
	uint64_t stream_waits;    /* event_wait calls */
	uint64_t host_allocs_registered; /* of host_allocs, mapped by us and registered (hip) */
	/* Virtual memory: device_bytes_live and device_bytes_peak count the
	 * bytes pmem_map mapped as well as mem_alloc's.  pmem_maps counts the
	 * mappings made, pmem_unmaps those released (one pmem_unmap may release
	 * several), so their difference is the mappings live. */
	uint64_t pmem_maps, pmem_unmaps;
	uint64_t va_bytes_reserved; /* address space reserved now (va_reserve) */
};

struct hc_hal_ops {
	unsigned version; /* HC_HAL_VERSION */
	const char *name; /* "sim", "hip" */

	/* --- device ------------------------------------------------------ */
	/* Opens device @args->ordinal.  HC_ERR_NO_RUNTIME / HC_ERR_DEVICE /
	 * HC_ERR_IO / HC_ERR_PARSE.  May block. */
	hc_status (*device_open)(const struct hc_hal_open_args *args, hc_hal_dev **out);
	/* Frees everything the device still holds.  Never fails. */
	void (*device_close)(hc_hal_dev *dev);
	hc_status (*device_props)(hc_hal_dev *dev, struct hc_hal_props *out);

	/* --- memory ------------------------------------------------------ */
	/* Device memory, @size > 0, aligned to props.alignment.  HC_ERR_OOM when
	 * the device refuses.  Not while capturing.  May block. */
	hc_status (*mem_alloc)(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out);
	/* Frees what mem_alloc returned.  Synchronises the device (as hipFree);
	 * not while capturing. */
	hc_status (*mem_free)(hc_hal_dev *dev, hc_hal_dptr ptr);
	/* Page-locked, device-mapped host memory, 16-byte aligned at least.
	 * HC_ERR_OOM when refused.  Not while capturing.  May block. */
	hc_status (*host_alloc)(hc_hal_dev *dev, uint64_t size, void **out);
	hc_status (*host_free)(hc_hal_dev *dev, void *ptr);

	/* --- streams ----------------------------------------------------- */
	/* A non-blocking stream (does not sync with the null stream). */
	hc_status (*stream_create)(hc_hal_dev *dev, hc_hal_stream **out);
	/* Wraps a stream its caller created and keeps: @native is the
	 * runtime's handle (NULL: the default stream); on the simulator any
	 * value, a synthetic handle that names a new simulated queue.
	 * stream_destroy of an adopted stream waits for its work and frees
	 * the wrapper only: the caller's stream is never destroyed. */
	hc_status (*stream_adopt)(hc_hal_dev *dev, void *native, hc_hal_stream **out);
	/* Waits for the stream's work, then destroys it.  Blocks. */
	hc_status (*stream_destroy)(hc_hal_dev *dev, hc_hal_stream *stream);
	/* Blocks until every operation queued on @stream is done.  Returns
	 * HC_ERR_DEVICE when queued work failed.  Not while capturing. */
	hc_status (*stream_sync)(hc_hal_dev *dev, hc_hal_stream *stream);

	/* --- copies: queued on @stream, never block unless noted ---------- */
	/* @src_pinned says whether @src came from host_alloc.  A pageable
	 * source is consumed before the call returns (the driver bounces it),
	 * so such a copy may block the host. */
	hc_status (*copy_h2d)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_dptr dst,
			      const void *src, uint64_t size, bool src_pinned);
	/* @dst is written when the stream reaches the copy; read it after a
	 * fence.  A pageable @dst makes the call block until done. */
	hc_status (*copy_d2h)(hc_hal_dev *dev, hc_hal_stream *stream, void *dst,
			      hc_hal_dptr src, uint64_t size, bool dst_pinned);
	hc_status (*copy_d2d)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_dptr dst,
			      hc_hal_dptr src, uint64_t size);

	/* --- events (fences) -------------------------------------------- */
	/* Creates an event and records it on @stream: it completes when every
	 * operation queued before it has. */
	hc_status (*event_record)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_event **out);
	/* Makes @stream wait for @event on the device; the host does not block. */
	hc_status (*event_wait)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_event *event);
	/* Blocks the host until @event completes.  HC_ERR_DEVICE when work
	 * before it failed (a late failure).  Not while capturing. */
	hc_status (*event_sync)(hc_hal_dev *dev, hc_hal_event *event);
	/* Non-blocking: *done = true once @event completed. */
	hc_status (*event_query)(hc_hal_dev *dev, hc_hal_event *event, bool *done);
	void (*event_destroy)(hc_hal_dev *dev, hc_hal_event *event);

	/* --- graphs ------------------------------------------------------ */
	/* Starts recording @stream (global mode).  HC_ERR_UNSUPPORTED if the
	 * backend cannot capture. */
	hc_status (*capture_begin)(hc_hal_dev *dev, hc_hal_stream *stream);
	/* Stops recording.  A capture that recorded a device allocation or free
	 * (a memory node) is destroyed and HC_ERR_STATE returned with the node
	 * count in the message; otherwise it is instantiated into *out. */
	hc_status (*capture_end)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_graph **out);
	hc_status (*graph_launch)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_graph *graph);
	void (*graph_destroy)(hc_hal_dev *dev, hc_hal_graph *graph);

	/* --- modules and kernels ----------------------------------------- */
	/* @image NULL: the built-in kernel set (hal/builtins.h). */
	hc_status (*module_load)(hc_hal_dev *dev, const void *image, size_t size,
				 hc_hal_module **out);
	void (*module_unload)(hc_hal_dev *dev, hc_hal_module *module);
	hc_status (*function_get)(hc_hal_dev *dev, hc_hal_module *module, const char *name,
				  hc_hal_function **out);
	/* Queues a kernel.  A launch that fails to start returns HC_ERR_DEVICE;
	 * a kernel that fails while running is reported by a later fence. */
	hc_status (*launch)(hc_hal_dev *dev, hc_hal_stream *stream, hc_hal_function *fn,
			    const struct hc_hal_launch *launch);

	/* --- escape hatch ------------------------------------------------ */
	/* enum hc_hal_ctl_op; HC_ERR_UNSUPPORTED for an op it does not know. */
	hc_status (*ctl)(hc_hal_dev *dev, int op, void *arg);

	/* --- virtual memory (version 2) ---------------------------------- */
	/*
	 * A reservation is a range of device addresses with no memory behind
	 * it.  Physical memory is mapped into it and unmapped again in
	 * multiples of G = props.vmm_granularity, so one buffer can grow and
	 * shrink in place (CUDA's cuMemAddressReserve, cuMemCreate + cuMemMap
	 * + cuMemSetAccess, cuMemUnmap + cuMemRelease, cuMemAddressFree; HIP's
	 * hipMem* of the same names).  A backend whose props.vmm_granularity
	 * is 0 may leave all four NULL, and core calls none of them then; the
	 * fault and timing shims present exactly the ops their backend has.
	 *
	 * None of the four is allowed while a stream of the device is
	 * capturing (HC_ERR_STATE, as mem_alloc); none is queued on a stream:
	 * each takes effect when it returns.
	 *
	 * Synchronisation: none of the four waits for queued device work, and
	 * none orders anything.  CUDA documents no implicit synchronisation for
	 * cuMemMap, cuMemUnmap, cuMemRelease or cuMemAddressFree (cudaFree's
	 * documentation says it may synchronise), and they do not wait in
	 * practice: PyTorch's expandable segments synchronise the stream
	 * themselves before unmapping ("unlike cudaFree, MemUnmap and
	 * MemRelease do not appear to synchronize in all cases"), and vLLM's
	 * allocator faulted kernels still running when it unmapped without
	 * doing so.  AMD's runtime has waited in some versions; nothing may
	 * rely on either.  So the caller orders: work that uses a range is
	 * queued only after the pmem_map that covers it returned, and a range
	 * is unmapped only when no queued or running work touches it (core:
	 * after a fence that covers its last use).  Work that touches an
	 * unmapped granule fails like a use of freed memory (sim: HC_ERR_INVALID
	 * when queued, a late failure when a graph replays it; a GPU faults).
	 */
	/* Reserves @size bytes of device address space, aligned to G, nothing
	 * mapped; @size a nonzero multiple of G (HC_ERR_INVALID otherwise).
	 * Charges no device memory.  HC_ERR_OOM when the address space is
	 * exhausted.  Not while capturing.  The host pays the call. */
	hc_status (*va_reserve)(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out);
	/* Gives a whole reservation back: @addr and @size exactly as va_reserve
	 * returned and was asked (HC_ERR_INVALID otherwise).  Every granule must
	 * have been unmapped (HC_ERR_INVALID naming the bytes still mapped; the
	 * reservation stays as it was).  Not while capturing. */
	hc_status (*va_release)(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size);
	/* Creates @size bytes of device memory and maps them read-write for
	 * this device at [@addr, @addr + @size).  @addr and @size multiples of
	 * G, @size > 0, the range inside one reservation, none of its granules
	 * mapped (HC_ERR_INVALID otherwise, nothing changed).  The bytes count
	 * against the device like mem_alloc's; HC_ERR_OOM when the device
	 * refuses the memory, which leaves the reservation as it was, usable.
	 * The contents are undefined (sim: zero).  On return, work queued on
	 * any stream may use the range; adjacent mappings of one reservation
	 * are one contiguous buffer for copies and kernels.  Not while
	 * capturing.  The host pays the call (three runtime calls on a GPU;
	 * one that fails, HC_ERR_DEVICE, is undone with the steps before it). */
	hc_status (*pmem_map)(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size);
	/* Unmaps [@addr, @addr + @size) and releases its memory.  The range
	 * must be exactly one or more whole, adjacent ranges of earlier
	 * pmem_map calls: a runtime cannot unmap part of a mapping
	 * (HC_ERR_INVALID otherwise, nothing changed).  Does not wait for the
	 * device (see above): the caller has fenced every use of the range.
	 * The granules stay reserved and may be mapped again.  Not while
	 * capturing.  A runtime failure (HC_ERR_DEVICE) on one of several
	 * mappings leaves those before it unmapped and the rest mapped;
	 * stats.pmem_unmaps and device_bytes_live say which went. */
	hc_status (*pmem_unmap)(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size);
};

/* Backends, by name: "sim", "hip".  NULL when unknown.  hc_hal_find is
 * declared in hipcore/private.h: libhipcore.so exports it to hipsim
 * calibrate, which measures a backend through its ops table, in the
 * private interface HIPCORE_PRIVATE_1.  The backends' own functions are
 * not exported. */
const struct hc_hal_ops *hc_sim_ops(void);
const struct hc_hal_ops *hc_hip_ops(void);

/* --- error detail (hal/hal_error.c) ------------------------------ */
/*
 * hc_hal_error - record this thread's HAL error detail and return @status.
 * @backend_code/@backend_name: the runtime's own code and name (0/NULL when
 * none).  Backends and shims call it on every error path; core does not (it
 * has hc_fail, core/status.c).
 */
hc_status hc_hal_error(hc_status status, int backend_code, const char *backend_name,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* How many details this thread recorded; core compares it with the count
 * it last took to know whether the HAL spoke after core did. */
uint64_t hc_hal_error_count(void);
/* This thread's latest detail (status HC_OK and "" before the first). */
const hc_error_info *hc_hal_error_last(void);

/* --- the timing shim (hal/optime.c) ------------------------------- */
/*
 * A device opened with hc_device_options.op_times (or HIPCORE_OP_TIMES=1)
 * talks to its backend through this shim, which counts each op's calls and
 * the host time spent inside them, read on the backend's own clock
 * (ctl NOW_NS: CLOCK_MONOTONIC on hip, the virtual host clock on sim).  So
 * the same table, taken on a GPU and on the simulator, says which op's cost
 * model is off, and the time outside every op (the library's own host
 * work, such as staging memcpy) is the total less their sum.
 */

/* The ops timed, in table order; ctl is not timed, except HOST_COPY, as
 * the op host_copy (one thread) or host_copy_split (over the workers). */
#define HC_OPTIME_OPS(X)                                                                          \
	X(device_props) X(mem_alloc) X(mem_free) X(host_alloc) X(host_free) X(stream_create)       \
	X(stream_destroy) X(stream_sync) X(copy_h2d) X(copy_d2h) X(copy_d2d) X(event_record)       \
	X(event_wait) X(event_sync) X(event_query) X(event_destroy) X(capture_begin)               \
	X(capture_end) X(graph_launch) X(graph_destroy) X(module_load) X(module_unload)            \
	X(function_get) X(launch) X(host_copy) X(host_copy_split) X(stream_adopt)                  \
	X(va_reserve) X(va_release) X(pmem_map) X(pmem_unmap)

enum hc_optime_op {
#define HC_OPTIME_ENUM(name) HC_OPTIME_##name,
	HC_OPTIME_OPS(HC_OPTIME_ENUM)
#undef HC_OPTIME_ENUM
	HC_OPTIME_COUNT
};

/* HC_HAL_CTL_OP_TIMES's argument: filled by the shim. */
struct hc_hal_op_times {
	uint64_t calls[HC_OPTIME_COUNT];
	uint64_t host_ns[HC_OPTIME_COUNT];
};

/* The op's name ("mem_alloc"), or NULL past the last. */
const char *hc_optime_name(unsigned op);

/*
 * hc_optime_wrap - put the timing shim between a device and its backend.
 * @real_ops, @real_dev: the backend and the device it opened.
 * @ops, @dev: receive the shim's table and device, to be used in their
 * place; the shim's device_close closes @real_dev and frees the shim.
 * Context: any thread.  The counters are atomics: ops may run concurrently.
 * Return: HC_OK, or HC_ERR_OOM (the caller still owns @real_dev).
 */
hc_status hc_optime_wrap(const struct hc_hal_ops *real_ops, hc_hal_dev *real_dev,
			 const struct hc_hal_ops **ops, hc_hal_dev **dev);

#endif /* HIPCORE_HAL_H */
