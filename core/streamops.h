/*
 * streamops.h - internal interfaces shared by the stream operations
 * (write.c, pipeline.c, read.c, launch.c, sync.c, policy.c) and what they
 * are made of (lockset.c, xstream.c, flush.c).
 *
 * A stream operation resolves its stream and every buffer it touches into a
 * lock set (lockset.c): the consumer stream and each origin stream locked in
 * ascending slot order, so two calls never wait on each other's stream locks.
 * Work queued on the consumer that names another stream's buffer first waits
 * (on the device) for the origin when the cursors say so, and pins the buffer
 * until the consumer's fence has passed (xstream.c).  Releases that must wait
 * for the consumer's fence go through its drop queue (hc_strm_defer,
 * flush.c).
 */
#ifndef HIPCORE_CORE_STREAMOPS_H
#define HIPCORE_CORE_STREAMOPS_H

#include "core/object.h"

/* Most distinct buffers one call may name (a launch's bindings). */
#define HC_LOCKSET_MAX_BUFS 64u

/* One buffer a call uses, resolved in its origin stream. */
struct hc_use {
	struct hc_strm *origin;
	struct hc_buf *buf;
	uint32_t idx;
};

/* The streams one call holds locked and the buffers it uses. */
struct hc_lockset {
	struct hc_strm *st;                    /* the consumer: where work is queued */
	struct hc_strm *locked[HC_LOCKSET_MAX_BUFS + 1]; /* ascending slot order */
	size_t nlocked;
	struct hc_use use[HC_LOCKSET_MAX_BUFS];
	size_t nuse;
};

/*
 * hc_lockset_acquire - lock @s and the origin streams of @bufs
 * @fn: the public call's name, for messages
 * Locks every involved stream in ascending slot order (the stream itself
 * only, once, when every buffer is its own) and resolves each buffer.
 * Context: no stream lock held.  Return: HC_OK with all locked; else
 * nothing locked and HC_ERR_STALE (closed stream, freed buffer) or
 * HC_ERR_INVALID (a buffer of another device, too many buffers).
 */
hc_status hc_lockset_acquire(hc_stream s, const hc_buffer *bufs, size_t n, const char *fn,
			     struct hc_lockset *ls);
/* hc_lockset_release - unlock in descending order.  Context: after acquire. */
void hc_lockset_release(struct hc_lockset *ls);

/*
 * hc_xs_before - make the consumer's next work see @u's buffer: waits on a
 * fresh event of the origin when the cursors require it, and pins the
 * buffer until hc_xs_after's drop-queue entry is released.  No-op for a
 * buffer of the consumer itself.  Context: lock set held.
 */
hc_status hc_xs_before(struct hc_lockset *ls, struct hc_use *u);
/* hc_xs_after - queue the unpin of @u behind the consumer's next fence. */
void hc_xs_after(struct hc_lockset *ls, struct hc_use *u);

/* streamop.c: the skeleton every stream operation runs (see there). */
struct hc_op;

/*
 * What kind of stream operation: which of the skeleton's steps apply, and
 * its own parts.  One static const per operation.
 */
struct hc_op_kind {
	const char *fn;     /* the public call, for messages */
	enum hc_eg_kind eg; /* what its failures are (copy, kernel) */
	int lib_work;       /* enum hc_lib_work noted once queued; -1: none */
	bool checks_reads;  /* refused when it reads tainted bytes */
	bool tracked;       /* remembered until its fence; a failure when queued is recorded */
	bool waits_inside;  /* waits for its own work (errtrack's call in progress) */
	bool host_writes;   /* its write ranges hold the host's bytes once queued */
	bool pins;          /* other streams' buffers stay pinned until its fence */
	bool flushes;       /* ends with the drop queue's trigger */
	/* Its preparation before the cross-stream waits (NULL: none), its
	 * backend call, and what it does once queued (NULL: nothing). */
	hc_status (*prepare)(struct hc_op *op, void *ctx);
	hc_status (*queue)(struct hc_op *op, void *ctx);
	void (*queued)(struct hc_op *op, void *ctx);
};

/* One operation in progress.  The caller fills @desc, @r, @nr and @flush
 * between hc_op_lock and hc_op_run. */
struct hc_op {
	const struct hc_op_kind *k;
	struct hc_lockset ls;
	struct hc_strm *st;     /* the consumer, once locked */
	struct hc_et_desc desc; /* what it is, for a failure's message */
	struct hc_et_range *r;  /* one per buffer of the lock set, in its order */
	size_t nr;
	bool flush;             /* flush the drop queue after it */
	bool recording;         /* the consumer records a capture */
	hc_failure_id derived;  /* checks_reads: the failure a refusal recorded */
	uint64_t mark;          /* the skeleton's own */
	bool ordered, locked, call_open;
};

/* hc_op_enter - start @op of kind @k; @ordered: its trace event is being
 * recorded (HC_TRACE_ENABLED), so it runs under the trace-order lock.
 * Context: no lock held. */
void hc_op_enter(struct hc_op *op, const struct hc_op_kind *k, bool ordered);
/* hc_op_lock - hc_lockset_acquire for @op (step 1).  Return: its status. */
hc_status hc_op_lock(struct hc_op *op, hc_stream s, const hc_buffer *bufs, size_t n);
hc_status hc_op_run(struct hc_op *op, void *ctx);
/* hc_op_check_range - the @n bytes at @off lie inside buffer @i of @op's
 * lock set.  @binding >= 0 names the binding in the message (launches).
 * Context: after hc_op_lock succeeded.
 * Return: HC_OK, or HC_ERR_INVALID naming the call, the range and the size. */
hc_status hc_op_check_range(const struct hc_op *op, size_t i, uint64_t off, uint64_t n,
			    long binding);
/* hc_op_leave - unlock what hc_op_enter and hc_op_lock took. */
void hc_op_leave(struct hc_op *op);

/*
 * hc_strm_defer - release(@arg) after the stream's next fence (drop queue).
 * When the queue cannot take it, the stream is synced and release runs now.
 * Context: @st locked.
 */
void hc_strm_defer(struct hc_strm *st, void (*release)(void *), void *arg, uint64_t bytes);
/* hc_strm_defer_slice - give @ref back to @mm after the next fence. */
void hc_strm_defer_slice(struct hc_strm *st, struct hc_mm *mm, struct hc_slice_ref ref,
			 uint64_t bytes);
/* hc_strm_maybe_flush - flush when @want or the queue's triggers say so,
 * never while a capture records.  Context: @st locked. */
hc_status hc_strm_maybe_flush(struct hc_strm *st, bool want);

/* staging.c: the way a write moves its bytes (see there). */
enum hc_write_way {
	HC_WRITE_STAGED,    /* one pinned bounce slice */
	HC_WRITE_PIPELINED, /* the chunk pipeline's pinned ring */
	HC_WRITE_DIRECT,    /* the backend reads the caller's memory */
};
struct hc_write_plan {
	hc_staging staging;    /* hc_staging_of's answer, the policy's limit applied */
	enum hc_write_way way;
};
/* What hc_write does with @size bytes of @property: @stage_max_bytes is
 * the device's policy (0: the contract's 100 MiB); @recording: the stream
 * records a capture. */
struct hc_write_plan hc_write_plan_of(uint64_t size, hc_alloc_property property,
				      uint64_t stage_max_bytes, bool recording);
/* The way of a write through pinned memory: staged, or pipelined from
 * HC_PIPE_MIN_BYTES when not recording. */
enum hc_write_way hc_staged_way(uint64_t size, bool recording);

/* write.c: H2D of @n bytes at device address @dst through pinned memory
 * (hc_staged_way's way); *@pipelined says which it took. */
hc_status hc_write_staged(struct hc_strm *st, uint64_t dst, const void *src, uint64_t n,
			  bool *pipelined);

/* pipeline.c */
#define HC_PIPE_MIN_BYTES (8 * HC_MIB)
#define HC_PIPE_CHUNK_BYTES (8 * HC_MIB)
#define HC_PIPE_CHUNKS 4u
#define HC_PIPE_STREAM_MAX (128 * HC_MIB) /* larger pipelined writes: memcpy */
#define HC_PIPE_WORKERS_CAP 32u
/* The pipeline's knobs, one table (pipeline.c has the defaults and why).
 * Only benchmarks that sweep them write it, between writes; a change of
 * max_workers takes effect on a device opened after it. */
struct hc_pipe_tuning {
	unsigned max_workers; /* copy workers per device besides the caller */
	uint64_t first_chunk; /* the first chunk; each next one doubles */
	uint64_t chunk_max;   /* the largest chunk (a ring slot's size) */
	uint64_t piece_min;   /* the smallest piece handed to a worker */
	unsigned lookahead;   /* chunks whose copy is queued ahead of the one
				 the next transfer waits for (0 to HC_PIPE_CHUNKS - 2) */
	unsigned parts;       /* a write's chunk is 1/parts of it ... */
	uint64_t chunk_min;   /* ... but no smaller than this (nor 1 MiB) */
	uint64_t chunk_piece_min; /* a pipeline chunk's smallest piece (0: piece_min):
				     a write's first chunk is copied before any
				     transfer, so it is worth splitting finer */
	uint64_t worker_spin_ns; /* how long an idle copy worker polls before it
				    sleeps (taken when the workers start) */
	unsigned chunk_pieces_per_thread; /* a pipeline chunk's pieces per copying
					     thread (0 or 1: one each) */
};
extern struct hc_pipe_tuning hc_pipe_tuning;
/* Pipelined pageable write; returns once every source byte is in pinned
 * memory.  Context: @st locked, not recording. */
hc_status hc_pipeline_write(struct hc_strm *st, uint64_t dst, const void *src, uint64_t n);
/* Joins the device's copy workers.  Context: device closing. */
void hc_pipeline_workers_stop(struct hc_dev *dev);
/* memcpy spread over the device's copy workers and the caller (pipeline.c);
 * @to_device: @dst is pinned staging the device reads next, copied with
 * hc_stage_copy. */
void hc_host_copy(struct hc_dev *dev, void *dst, const void *src, uint64_t len, bool to_device);
/* memcpy with streaming stores, for staging the device reads next
 * (stage_copy.c). */
void hc_stage_copy(void *dst, const void *src, size_t n);

#endif /* HIPCORE_CORE_STREAMOPS_H */
