/*
 * errgraph.h - the error graph: failures, their causes, and tainted bytes.
 *
 * Every failure (a kernel or copy that failed, a device error, an injected
 * fault, or work skipped because it read failed data) becomes a node with an
 * id (nonzero, increasing from 1), a kind, the stream it happened on, a short
 * description and edges to the failures that caused it.  Nodes are never
 * removed while the graph lives, so an id stays explainable.
 *
 * Taint: for each buffer id, a sorted array of disjoint byte ranges, each
 * carrying the failure that produced those bytes.  Failed work taints exactly
 * the ranges it was to write (overriding older taint there); a successful
 * write clears exactly its range; a read or launch asks which failures
 * overlap its ranges.  Lookups are a hash of buffer id, then binary search.
 *
 * Context: no locking inside.  The caller holds the device lock (the graph is
 * per device; streams only ever taint their own buffers).  Nothing blocks;
 * taint and fail allocate.
 */
#ifndef HIPCORE_CORE_ERRGRAPH_H
#define HIPCORE_CORE_ERRGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "hipcore/hipcore.h"

#define HC_EG_DESC_MAX 96 /* descriptions are truncated to 95 characters */

enum hc_eg_kind {
	HC_EG_KERNEL = 0, /* a kernel failed */
	HC_EG_COPY,       /* a copy failed */
	HC_EG_DEVICE,     /* the device reported an error */
	HC_EG_INJECTED,   /* a fault injected on purpose (simulator, shim) */
	HC_EG_DERIVED,    /* work not run because it read failed data */
};

/**
 * struct hc_eg_failure - a copy of one node
 * @id: the failure id
 * @kind: what failed
 * @stream: the stream id it happened on
 * @desc: the description (NUL-terminated)
 * @n_causes: number of direct causes (their ids via hc_eg_cause())
 */
struct hc_eg_failure {
	hc_failure_id id;
	enum hc_eg_kind kind;
	uint64_t stream;
	char desc[HC_EG_DESC_MAX];
	size_t n_causes;
};

struct hc_errgraph;

/**
 * hc_eg_create - an empty error graph
 * @out: the new graph
 *
 * Context: any; allocates.
 * Return: HC_OK, HC_ERR_INVALID (NULL), HC_ERR_OOM.
 */
hc_status hc_eg_create(struct hc_errgraph **out);

/* hc_eg_destroy - free everything; NULL is fine.  Context: device owner. */
void hc_eg_destroy(struct hc_errgraph *eg);

/**
 * hc_eg_fail - record a failure
 * @eg: the graph
 * @kind: what failed
 * @stream: the stream id
 * @desc: a short description (copied, truncated); NULL for none
 * @causes: ids of earlier failures that caused it (duplicates ignored); may
 *          be NULL when @n_causes is 0
 * @n_causes: count of @causes
 * @out: the new id
 *
 * Context: device lock.  Never blocks; allocates.
 * Return: HC_OK; HC_ERR_INVALID (NULL, bad kind); HC_ERR_STALE (a cause is
 * not a recorded failure); HC_ERR_OOM.  On error nothing is recorded.
 */
hc_status hc_eg_fail(struct hc_errgraph *eg, enum hc_eg_kind kind, uint64_t stream,
		     const char *desc, const hc_failure_id *causes, size_t n_causes,
		     hc_failure_id *out);

/**
 * hc_eg_taint - mark [@off, @off + @size) of @buffer as produced by @failure
 * @eg: the graph
 * @buffer: buffer id
 * @off: first byte
 * @size: byte count; 0 does nothing
 * @failure: a recorded failure; replaces any older taint in the range
 *
 * Context: device lock.  Never blocks; allocates.
 * Return: HC_OK; HC_ERR_INVALID (NULL, range past 2^64); HC_ERR_STALE
 * (unknown failure); HC_ERR_OOM (taint unchanged).
 */
hc_status hc_eg_taint(struct hc_errgraph *eg, uint64_t buffer, uint64_t off, uint64_t size,
		      hc_failure_id failure);

/**
 * hc_eg_written - a successful write covered [@off, @off + @size): clear its taint
 * @eg: the graph
 * @buffer: buffer id
 * @off: first byte
 * @size: byte count; 0 does nothing
 *
 * Bytes outside the range keep their taint (a range cut in two is split).
 *
 * Context: device lock.  Never blocks; may allocate (a split).
 * Return: HC_OK; HC_ERR_INVALID (NULL, range past 2^64); HC_ERR_OOM.
 */
hc_status hc_eg_written(struct hc_errgraph *eg, uint64_t buffer, uint64_t off, uint64_t size);

/**
 * hc_eg_query - first failure overlapping a range
 * @eg: the graph
 * @buffer: buffer id
 * @off: first byte
 * @size: byte count
 *
 * Context: device lock.  Never blocks.
 * Return: the id of the tainted range at the lowest offset overlapping the
 * range, or 0 when the range is clean (or empty, or @eg is NULL).
 */
hc_failure_id hc_eg_query(const struct hc_errgraph *eg, uint64_t buffer, uint64_t off,
			  uint64_t size);

/**
 * hc_eg_causes_in - every distinct failure overlapping a range
 * @eg: the graph
 * @buffer: buffer id
 * @off: first byte
 * @size: byte count
 * @out: receives up to @cap ids, in order of first appearance by offset
 * @cap: room in @out (0 with @out NULL only counts)
 * @n: the number of distinct ids (may exceed @cap: call again with more room)
 *
 * A launch calls it per read binding and passes the union to hc_eg_fail().
 *
 * Context: device lock.  Never blocks.
 * Return: HC_OK or HC_ERR_INVALID (NULL @eg or @n, @out NULL with @cap > 0).
 */
hc_status hc_eg_causes_in(const struct hc_errgraph *eg, uint64_t buffer, uint64_t off,
			  uint64_t size, hc_failure_id *out, size_t cap, size_t *n);

/**
 * hc_eg_forget - drop all taint of a freed buffer
 * @eg: the graph
 * @buffer: buffer id
 *
 * Context: device lock.  Never blocks.
 */
void hc_eg_forget(struct hc_errgraph *eg, uint64_t buffer);

/**
 * hc_eg_get - copy one failure node
 * @eg: the graph
 * @id: a failure id
 * @out: the node
 *
 * Context: device lock.  Never blocks.
 * Return: HC_OK, HC_ERR_INVALID (NULL), HC_ERR_STALE (unknown id).
 */
hc_status hc_eg_get(const struct hc_errgraph *eg, hc_failure_id id, struct hc_eg_failure *out);

/* hc_eg_cause - the @i-th direct cause of @id, or 0.  Context: device lock. */
hc_failure_id hc_eg_cause(const struct hc_errgraph *eg, hc_failure_id id, size_t i);

/**
 * hc_eg_explain - the chain of @id back to its root(s), as text
 * @eg: the graph
 * @id: the failure to explain
 * @buf: receives the text, always NUL-terminated when @len > 0
 * @len: size of @buf
 *
 * One line per failure, starting with @id and going breadth-first through
 * the causes; a failure reached twice (shared cause in a DAG) is printed
 * once.  Line format:
 *   "#<id> <kind> on stream <stream>: <desc>; caused by #<a>, #<b>\n"
 *   "#<id> <kind> on stream <stream>: <desc>; root cause\n"
 *
 * Context: device lock.  Never blocks; allocates a visited set.
 * Return: HC_OK; HC_ERR_STALE (unknown id); HC_ERR_INVALID (NULL, or @len too
 * small: the text is truncated and the message gives the size needed);
 * HC_ERR_OOM.
 */
hc_status hc_eg_explain(const struct hc_errgraph *eg, hc_failure_id id, char *buf, size_t len);

/* hc_eg_kind_name - "kernel", "copy", "device", "injected", "derived".  Context: any. */
const char *hc_eg_kind_name(enum hc_eg_kind kind);

/* hc_eg_count - number of failures recorded.  Context: device lock. */
uint64_t hc_eg_count(const struct hc_errgraph *eg);

/* hc_eg_ranges - number of disjoint tainted ranges of @buffer.  Context: device lock. */
size_t hc_eg_ranges(const struct hc_errgraph *eg, uint64_t buffer);

#endif /* HIPCORE_CORE_ERRGRAPH_H */
