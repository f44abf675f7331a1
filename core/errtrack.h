/*
 * errtrack.h - wiring the error graph (errgraph.h) into stream operations.
 *
 * Each stream keeps the work it queued since its last clean fence (struct
 * hc_et_item: the backend's op ids of the work, what it was, the byte ranges
 * it reads and writes).  A fence that passes cleanly retires the items
 * queued before the fence was recorded, and retiring clears the taint of
 * their write ranges (a host write also cleared its range when queued).
 * Taint entered at once (a derived failure at launch, a call that failed
 * when queued) stops earlier in-flight work of the same stream from
 * clearing the overlapping ranges when it retires; in-flight work of other
 * streams is not adjusted (known limit).  A fence that fails (HC_ERR_DEVICE)
 * attributes the failure:
 *  - exact (the backend implements HC_HAL_CTL_LAST_OP/TAKE_FAILED, hal.h):
 *    items in queue order; an item whose op ids include a failed op gets a
 *    kernel/copy failure and taints its write ranges; an item that read
 *    bytes tainted by then gets a derived failure with an edge to each cause
 *    and taints its writes; any other item is retired as clean (clearing its
 *    write ranges, so a later host write repairs what a failed kernel
 *    before it tainted).  Failed ops of the call in progress (struct
 *    hc_et_call: a read's bounce, a pipelined write's chunks, waited for
 *    inside the call) record one failure named after the call, tainting
 *    what it writes.  Other failed ops that match no item (a graph launch)
 *    record one device failure without taint.  A failed fence for which
 *    the backend names no failed op (an injected fence fault, a failure
 *    inherited through an event wait) is handled conservatively, as below.
 *  - conservative (hip: errors are sticky and name no op): one device
 *    failure taints the write ranges of every item in flight.
 * Either way the stream's item list is empty afterwards.
 *
 * Locking: the error graph is device-wide and guarded by dev->eg_lock, a
 * leaf (nothing else is taken while holding it).  A stream's items are
 * guarded by the stream's lock.
 */
#ifndef HIPCORE_CORE_ERRTRACK_H
#define HIPCORE_CORE_ERRTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/queue/errgraph.h"

struct hc_strm;
struct hc_dev;

/* One byte range a work item reads or writes. */
struct hc_et_range {
	uint64_t buf; /* buffer handle id */
	uint64_t off, size;
	bool write; /* written (WRITE, READ_WRITE, a copy's destination) */
	bool read;  /* read (READ, READ_WRITE) */
};

#define HC_ET_DESC_MAX 64

/*
 * What a work item is, for the messages of a failure: kept as plain data
 * and formatted (hc_et_desc_format) only when something fails, since every
 * launch and write records one and most never fail.
 */
enum hc_et_what {
	HC_ET_LAUNCH, /* "kernel NAME (launch A)" */
	HC_ET_WRITE,  /* "write of A bytes at B" */
	HC_ET_READ,   /* "read of A bytes at B" */
	HC_ET_REPLAY, /* "replay of graph A" (a graph handle) */
};

struct hc_et_desc {
	enum hc_et_what what;
	char name[41]; /* HC_ET_LAUNCH: the kernel's name, at most 40 bytes */
	uint64_t a, b;
};

/* The text of @d into @buf (at most @len bytes, terminated). */
void hc_et_desc_format(const struct hc_et_desc *d, char *buf, size_t len);

struct hc_et_item {
	uint64_t seq;          /* the stream's item number */
	uint64_t op_lo, op_hi; /* backend op ids in (op_lo, op_hi]; 0, 0 unknown */
	enum hc_eg_kind kind;  /* HC_EG_KERNEL or HC_EG_COPY */
	struct hc_et_desc desc;
	struct hc_et_range *r;
	size_t nr;
};

/*
 * A public call that waits on fences for its own work before it returns (a
 * pipelined write reusing its ring, a read's bounce).  A fence it waits on
 * may find its own ops failed; they belong to no item yet, and without this
 * they would be recorded as "untracked work" and then the call's own error
 * path would record the same fault a second time.  While a call is open,
 * failed ops after its mark are its own: one failure with its description,
 * tainting its write range.
 */
struct hc_et_call {
	bool open;
	uint64_t mark; /* ops after it are the call's */
	enum hc_eg_kind kind;
	struct hc_et_desc desc;
	struct hc_et_range r; /* size 0: writes no device bytes */
	hc_failure_id failed; /* recorded for the call by a fence; 0 none */
};

#define HC_ET_FENCES 8

/* Per-stream state; guarded by the stream lock. */
struct hc_errtrack {
	struct hc_et_item *items;
	size_t n, cap;
	uint64_t seq; /* last item number handed out */
	struct {
		void *ev;
		uint64_t upto; /* items with seq <= upto precede the fence */
	} fences[HC_ET_FENCES];
	size_t nfences;
	bool lost; /* an item could not be recorded: the next failure is conservative */
	uint64_t *last_ops; /* failed op ids the last failed fence took */
	size_t nlast_ops;
	bool last_exact; /* ... and whether it was attributed exactly */
	struct hc_et_call call;
};

/* hc_et_fini - free the items.  Context: stream teardown. */
void hc_et_fini(struct hc_errtrack *et);

/* hc_et_mark - the backend's last op id on @st (0 when not attributable).
 * Call before queuing; pass it to hc_et_add().  Context: @st locked. */
uint64_t hc_et_mark(struct hc_strm *st);

/*
 * hc_et_add - remember queued work until its fence
 * @st: the stream it was queued on
 * @kind: HC_EG_KERNEL or HC_EG_COPY
 * @mark: hc_et_mark() from before queuing
 * @desc: what it is (copied), e.g. kernel add, launch 7
 * @r, @nr: ranges it reads and writes (copied)
 * Out of memory marks the stream lost (conservative at the next failure).
 * Does nothing while a capture records.  Context: @st locked.
 */
void hc_et_add(struct hc_strm *st, enum hc_eg_kind kind, uint64_t mark,
	       const struct hc_et_desc *desc, const struct hc_et_range *r, size_t nr);

/*
 * hc_et_check_reads - refuse work that reads failed data
 * Return: HC_OK when no read range is tainted; else HC_ERR_TAINTED after
 * recording a derived failure (@desc; edges to each cause, at most 64) that
 * taints the write ranges, with its id in *@out and the message.
 * Context: stream lock(s) held; takes eg_lock.
 */
hc_status hc_et_check_reads(struct hc_strm *st, const char *fn, const struct hc_et_desc *desc,
			    const struct hc_et_range *r, size_t nr, hc_failure_id *out);

/*
 * hc_et_call_open - a call begins queuing work it will wait for itself
 * @kind, @desc: what it is, for its failure (copied)
 * @r: the device range it writes, or NULL
 * Does nothing while a capture records.  Context: @st locked.
 */
void hc_et_call_open(struct hc_strm *st, enum hc_eg_kind kind, const struct hc_et_desc *desc,
		     const struct hc_et_range *r);
/* hc_et_call_close - the call is done queuing.  Return: the failure a fence
 * recorded for it meanwhile, or 0.  Context: @st locked. */
hc_failure_id hc_et_call_close(struct hc_strm *st);
/* hc_et_fail_now - work failed when queued (HC_ERR_DEVICE from the call):
 * record a @kind failure and taint the write ranges.  Context: as above. */
hc_failure_id hc_et_fail_now(struct hc_strm *st, enum hc_eg_kind kind,
			     const struct hc_et_desc *desc, const struct hc_et_range *r, size_t nr);

/* hc_et_written - a successful host write covered the range.  Context: any. */
void hc_et_written(struct hc_dev *dev, uint64_t buf, uint64_t off, uint64_t size);
/* hc_et_query - first failure tainting the range, 0 if clean.  Context: any. */
hc_failure_id hc_et_query(struct hc_dev *dev, uint64_t buf, uint64_t off, uint64_t size);
/* hc_et_forget - a buffer was freed.  Context: any. */
void hc_et_forget(struct hc_dev *dev, uint64_t buf);

/* hc_et_fence_recorded / _forget - @ev was recorded on @st / destroyed. */
void hc_et_fence_recorded(struct hc_strm *st, void *ev);
void hc_et_fence_forget(struct hc_strm *st, void *ev);

/*
 * hc_et_fence_result - account a host wait on @st
 * @ev: the event waited on, NULL for a whole-stream sync
 * @rc: what the wait returned
 * HC_OK retires the items before the fence (all of them for NULL);
 * HC_ERR_DEVICE attributes the failure (see above).  The thread's error
 * detail from the wait is kept.
 * Return: @rc.  Context: @st locked.
 */
hc_status hc_et_fence_result(struct hc_strm *st, void *ev, hc_status rc);

/*
 * hc_et_ops_clean - after a failed fence, did the ops in (@lo, @hi] succeed?
 * True only when that fence was attributed exactly and named none of them
 * (a read whose own copy succeeded may use its bytes).  Context: @st locked.
 */
bool hc_et_ops_clean(const struct hc_strm *st, uint64_t lo, uint64_t hi);

#endif /* HIPCORE_CORE_ERRTRACK_H */
