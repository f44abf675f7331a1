/*
 * sim_internal.h - what the simulator's files share.
 *
 * The device (struct hc_hal_dev) holds all state under one mutex: the op
 * wrappers in sim_device.c lock dev->lock, call the sim_* function and
 * unlock; every sim_* function runs with the lock held.  Times are virtual nanoseconds; nothing reads a
 * wall clock.
 *
 * Files: sim_device.c (open/close/props/ctl, the ops table), sim_profile.c,
 * sim_memory.c (capacity, address space, data mode, pinned memory),
 * sim_ranges.c (the ordered range sets of the address space),
 * sim_stream.c (streams, events, syncs, late failures), sim_copy.c,
 * sim_kernels.c (modules and built-in kernels), sim_graph.c (capture and
 * replay), sim_fault.c (fault injection), sim_vmm.c (reservations and the
 * memory mapped into them).
 */
#ifndef HIPCORE_SIM_INTERNAL_H
#define HIPCORE_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "hal/hal.h"
#include "sim/sim.h"
#include "sim/sim_ranges.h"

/* One recorded (captured) operation, replayed by graph_launch. */
enum sim_op_kind { SIM_OP_H2D, SIM_OP_D2H, SIM_OP_D2D, SIM_OP_KERNEL, SIM_OP_WAIT };

struct sim_op {
	enum sim_op_kind kind;
	hc_hal_dptr dst_d, src_d; /* D2D, H2D dst, D2H src */
	void *dst_h;              /* D2H */
	const void *src_h;        /* H2D */
	uint64_t size;
	bool pinned;
	hc_hal_function *fn; /* KERNEL: holds a reference on fn->mod */
	uint64_t duration_hint_ns;
	size_t n_args;
	hc_hal_dptr *arg_dptr; /* owned copies, NULL when the launch had none */
	uint64_t *arg_bytes;
	uint64_t wait_done_ns; /* WAIT: the event's completion when captured */
	uint32_t wait_fail;
};

/* Fault injector for one hc_fault_kind (SQLite test_vfs style). */
struct sim_fault {
	uint64_t countdown; /* calls left until the one that fails; 0 = fired */
	hc_fault_mode mode;
	uint64_t nfail; /* failures injected so far */
};
#define SIM_N_FAULTS 6

/* A sorted array of ranges: a reservation's mappings (few a reservation). */
struct sim_vec {
	struct sim_range *v;
	size_t n, cap;
};

/* A reservation of address space (sim_vmm.c) and what is mapped into it. */
struct sim_resv {
	uint64_t base, size;
	unsigned char *host; /* data mode: one MAP_NORESERVE mapping of size bytes, else NULL */
	struct sim_vec maps; /* the pmem_map ranges live, sorted by base (data unused) */
	uint64_t mapped;     /* their bytes */
};

struct sim_host_block {
	void *ptr;
	uint64_t size;
};

/* A failure reported late (by a fence); index + 1 is its id. */
struct sim_failure {
	char msg[256];
	uint64_t stream_id; /* the stream whose work failed */
	uint64_t op;        /* that stream's op id of the failed work */
	bool reported;
	bool taken; /* returned by ctl(TAKE_FAILED) */
};

struct sim_capture {
	struct sim_op *ops;
	size_t n, cap;
	uint64_t mem_ops;  /* memory operations attempted while capturing */
	uint64_t sync_ops; /* syncs attempted while capturing */
};

struct hc_hal_stream {
	LIST_ENTRY(hc_hal_stream) link;
	struct hc_hal_dev *dev;
	uint64_t id;       /* serial number, for failures */
	uint64_t ready_ns; /* completion time of the last queued op */
	uint32_t fail;     /* first unreported failure of queued work, 0 none */
	uint64_t op_seq;   /* op id of the last launch/copy/graph_launch queued */
	bool capturing;
	bool adopted;      /* stream_adopt: a caller's stream, costs nothing to wrap */
	struct sim_capture cap;
};

struct hc_hal_event {
	LIST_ENTRY(hc_hal_event) link;
	struct hc_hal_dev *dev;
	uint64_t done_ns;
	uint32_t fail;
	bool captured; /* recorded on a capturing stream: no time of its own */
};

struct hc_hal_graph {
	LIST_ENTRY(hc_hal_graph) link;
	struct hc_hal_dev *dev;
	struct sim_op *ops;
	size_t n;
};

enum sim_kernel { SIM_K_FILL, SIM_K_COPY, SIM_K_ADD, SIM_N_KERNELS };

struct hc_hal_function {
	struct hc_hal_module *mod;
	enum sim_kernel which;
	const char *name;
};

struct hc_hal_module {
	LIST_ENTRY(hc_hal_module) link;
	struct hc_hal_dev *dev;
	struct hc_hal_function fns[SIM_N_KERNELS];
	uint64_t refs;  /* captured kernel ops naming this module */
	bool unloaded;  /* module_unload called; freed when refs drops to 0 */
};

/* The calls whose host cost depends on the caches (sim_cold.c). */
enum sim_call {
	SIM_CALL_COPY,
	SIM_CALL_LAUNCH,
	SIM_CALL_EVENT_RECORD,
	SIM_CALL_EVENT_QUERY,
	SIM_CALL_EVENT_WAIT,
	SIM_CALL_EVENT_SYNC,
	SIM_CALL_EVENT_DESTROY,
	SIM_CALL_STREAM_SYNC,
	SIM_CALL_MEM_ALLOC,
	SIM_CALL_MEM_FREE,
	SIM_N_CALLS
};

struct hc_hal_dev {
	pthread_mutex_t lock;
	struct hc_sim_profile prof;
	uint64_t capacity;
	bool data_mode;
	uint64_t rng; /* splitmix64 state */

	uint64_t host_ns;               /* the host thread's virtual clock */
	uint64_t split_end_ns;          /* host clock after the last split host copy */
	bool split_seen;                /* there was one */
	uint64_t host_copied;           /* bytes of host copies so far */
	uint64_t cold_mark[SIM_N_CALLS]; /* host_copied at each kind's last call */
	uint64_t h2d_free_ns, d2h_free_ns; /* copy engines */

	/* memory */
	uint64_t in_use;
	uint64_t top;             /* bump pointer of the address space */
	struct sim_rset live;     /* allocations, by base */
	struct sim_rset holes;    /* free ranges below top, by base, coalesced */
	struct sim_host_block *hosts;
	size_t nhosts, caphosts;
	uint64_t space_end;       /* the address space ends here (next ordinal's start) */
	struct sim_resv *resv;    /* reservations, sorted by base */
	size_t nresv, capresv;

	LIST_HEAD(, hc_hal_stream) streams;
	LIST_HEAD(, hc_hal_event) events;
	LIST_HEAD(, hc_hal_graph) graphs;
	LIST_HEAD(, hc_hal_module) modules;
	unsigned ncapturing;
	uint64_t nstreams; /* streams created, for ids */

	struct sim_failure *fails;
	size_t nfails, capfails;

	struct sim_fault faults[SIM_N_FAULTS];
	uint64_t nlaunch, ncopy, nfence; /* ordinals, for messages */

	struct hc_hal_stats stats;
};

#define SIM_DEV_BASE (1ULL << 40) /* first device address handed out (ordinal 0) */
/* Each ordinal's addresses start this far apart, as a unified address space
 * gives every GPU of a process addresses of its own (a caller may key its
 * allocations by address alone, as PyTorch's allocator plug-ins do). */
#define SIM_DEV_SPACING (1ULL << 46)

/* sim_device.c */
uint64_t sim_jitter(struct hc_hal_dev *dev, uint64_t ns);
void sim_host_cost(struct hc_hal_dev *dev, uint64_t ns);

/* sim_cold.c: @hot_ns, plus the share of the kind's cold figure that the
 * host copies since its last call earn; notes the call. */
uint64_t sim_call_cost(struct hc_hal_dev *dev, enum sim_call k, uint64_t hot_ns);

/* sim_memory.c */
hc_status sim_mem_alloc(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out);
hc_status sim_mem_free(hc_hal_dev *dev, hc_hal_dptr ptr);
hc_status sim_host_alloc(hc_hal_dev *dev, uint64_t size, void **out);
hc_status sim_host_free(hc_hal_dev *dev, void *ptr);
/* The bytes backing [ptr, ptr + size) (NULL without data mode);
 * HC_ERR_INVALID naming @what when the range is not inside one allocation. */
hc_status sim_dev_range(hc_hal_dev *dev, hc_hal_dptr ptr, uint64_t size, const char *what,
			unsigned char **bytes);
bool sim_host_is_pinned(hc_hal_dev *dev, const void *ptr);
void sim_memory_release(hc_hal_dev *dev);
uint64_t sim_alloc_cost(uint64_t base, uint64_t per_mib, uint64_t size);
/* The address space, shared by allocations and reservations: @size bytes
 * aligned to @align (a power of two), first fit; false when exhausted. */
bool sim_space_take(hc_hal_dev *dev, uint64_t size, uint64_t align, uint64_t *out);
/* Gives a range back; false only when the bookkeeping cannot grow (the
 * range is then lost to the address space, never handed out twice). */
bool sim_space_give(hc_hal_dev *dev, uint64_t base, uint64_t size);
/* Sorted range arrays (struct sim_vec). */
bool sim_vec_insert(struct sim_vec *v, size_t at, struct sim_range r);
void sim_vec_remove(struct sim_vec *v, size_t at);
/* Index of the first range with base > @addr. */
size_t sim_vec_upper(const struct sim_vec *v, uint64_t addr);
/* Rounds @size up to the alignment, charges the capacity, counts the peak:
 * the bookkeeping mem_alloc and pmem_map share (@what names the op).
 * HC_ERR_OOM when the device refuses (injected faults included). */
hc_status sim_capacity_take(hc_hal_dev *dev, uint64_t size, const char *what);
void sim_capacity_give(hc_hal_dev *dev, uint64_t size);

/* sim_vmm.c */
hc_status sim_va_reserve(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out);
hc_status sim_va_release(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size);
hc_status sim_pmem_map(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size);
hc_status sim_pmem_unmap(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size);
/* sim_dev_range for an address inside a reservation: false when @ptr is in
 * none (*st untouched), else true with *st HC_OK (and *bytes) or
 * HC_ERR_INVALID when the range runs into an unmapped granule. */
bool sim_vmm_range(hc_hal_dev *dev, hc_hal_dptr ptr, uint64_t size, const char *what,
		   unsigned char **bytes, hc_status *st);
void sim_vmm_release(hc_hal_dev *dev);

/* sim_stream.c */
hc_status sim_check_stream(hc_hal_dev *dev, hc_hal_stream *s, const char *fn);
/* Schedules one device op of @dur ns on @s (and @engine, if non-NULL);
 * returns its end time.  Marks a late failure @fail (0 none). */
uint64_t sim_schedule(hc_hal_dev *dev, hc_hal_stream *s, uint64_t *engine, uint64_t dur);
/* The same for work that cannot start sooner than @lat after the host
 * queued it (a kernel's launch latency): queued behind busy work, the
 * latency is hidden; on an idle stream it is paid. */
uint64_t sim_schedule_after(hc_hal_dev *dev, hc_hal_stream *s, uint64_t *engine, uint64_t lat,
			    uint64_t dur);
/* Enters a late failure of work queued on @s: the next fence covering it
 * reports it. */
void sim_stream_fail(hc_hal_dev *dev, hc_hal_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Rejects a host-blocking or memory op while any stream captures. */
hc_status sim_not_while_capturing(hc_hal_dev *dev, const char *fn, bool memory_op);
hc_status sim_stream_sync(hc_hal_dev *dev, hc_hal_stream *s);
hc_status sim_stream_create(hc_hal_dev *dev, hc_hal_stream **out);
hc_status sim_stream_adopt(hc_hal_dev *dev, void *native, hc_hal_stream **out);
hc_status sim_stream_destroy(hc_hal_dev *dev, hc_hal_stream *s);
hc_status sim_event_record(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event **out);
hc_status sim_event_wait(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event *e);
hc_status sim_event_sync(hc_hal_dev *dev, hc_hal_event *e);
hc_status sim_event_query(hc_hal_dev *dev, hc_hal_event *e, bool *done);
void sim_event_destroy(hc_hal_dev *dev, hc_hal_event *e);
void sim_wait_op(hc_hal_dev *dev, hc_hal_stream *s, uint64_t done_ns, uint32_t fail);
void sim_streams_release(hc_hal_dev *dev);
/* ctl(HC_HAL_CTL_LAST_OP) and ctl(HC_HAL_CTL_TAKE_FAILED); dev locked. */
hc_status sim_last_op(hc_hal_dev *dev, struct hc_hal_op_arg *a);
hc_status sim_take_failed(hc_hal_dev *dev, struct hc_hal_failed_arg *a);

/* sim_copy.c */
hc_status sim_copy_h2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst, const void *src,
		       uint64_t size, bool pinned);
hc_status sim_copy_d2h(hc_hal_dev *dev, hc_hal_stream *s, void *dst, hc_hal_dptr src,
		       uint64_t size, bool pinned);
hc_status sim_copy_d2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst, hc_hal_dptr src,
		       uint64_t size);
/* Runs one copy op (queued, or replayed from a graph). */
void sim_run_copy(hc_hal_dev *dev, hc_hal_stream *s, const struct sim_op *op);

/* sim_kernels.c */
hc_status sim_module_load(hc_hal_dev *dev, const void *image, size_t size, hc_hal_module **out);
void sim_module_unload(hc_hal_dev *dev, hc_hal_module *m);
hc_status sim_function_get(hc_hal_dev *dev, hc_hal_module *m, const char *name,
			   hc_hal_function **out);
hc_status sim_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_function *fn,
		     const struct hc_hal_launch *l);
void sim_run_kernel(hc_hal_dev *dev, hc_hal_stream *s, const struct sim_op *op);
void sim_modules_release(hc_hal_dev *dev);
/* Drops a captured kernel op's reference on its module. */
void sim_module_put(hc_hal_module *m);

/* sim_graph.c */
/* Appends @op to @s's capture (takes ownership of its arrays). */
hc_status sim_capture_add(hc_hal_dev *dev, hc_hal_stream *s, struct sim_op *op);
void sim_op_clear(struct sim_op *op);
void sim_capture_clear(struct sim_capture *c);
hc_status sim_capture_begin(hc_hal_dev *dev, hc_hal_stream *s);
hc_status sim_capture_end(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph **out);
hc_status sim_graph_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph *g);
void sim_graph_destroy(hc_hal_dev *dev, hc_hal_graph *g);
void sim_graphs_release(hc_hal_dev *dev);

/* sim_fault.c */
void sim_fault_hit(hc_fault_kind kind, uint64_t ordinal);
/* One call of @kind: true when it must fail. */
bool sim_fault_step(hc_hal_dev *dev, hc_fault_kind kind, uint64_t ordinal);
/* HC_FAULT_CAPACITY: true when allocating @size must fail. */
bool sim_fault_capacity(hc_hal_dev *dev, uint64_t size);
hc_status sim_fault_arm(hc_hal_dev *dev, const struct hc_hal_fault_arg *arg);

#endif /* HIPCORE_SIM_INTERNAL_H */
