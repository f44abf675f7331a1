/*
 * staging.c - the host-to-device staging decision, and the way each write
 * moves its bytes.
 *
 * hc_staging_of is the public contract, bit for bit the seed's: a
 * file-backed source is always staged and always flushed; a pinned source
 * is never restaged; any other source is staged below 100 MiB; and a write
 * above 10 MiB flushes the drop queue after it.  The decision is plain
 * data with a constructor so it can be tested without a device.
 *
 * hc_write_plan_of is what hc_write does with it (write.c).  It applies
 * the device's policy (hc_device_set_policy's stage_max_bytes replaces the
 * 100 MiB limit for hc_write only, never for a file or a pinned source)
 * and names one of three ways:
 *  - staged: one pinned bounce slice, below HC_PIPE_MIN_BYTES;
 *  - pipelined: the chunk pipeline (pipeline.c), for a staged write of
 *    HC_PIPE_MIN_BYTES or more, and for pageable memory at or above the
 *    staging limit, which the decision says not to copy whole into pinned
 *    memory but which still moves through the pipeline's small ring of
 *    pinned chunks, since the driver's own pageable path runs at a
 *    fraction of pinned bandwidth (reference/h200-probe.md);
 *  - direct: the backend reads the caller's memory (a pinned source, or
 *    any source that is not staged while a capture records, which cannot
 *    wait for the pipeline's chunks).
 * Staged and pipelined writes are done with the source when the call
 * returns; a direct one reads it until its fence.
 */
#include "core/streamops.h"

hc_staging hc_staging_of(uint64_t size, hc_alloc_property property)
{
	bool file = property == HC_ALLOC_FILE;
	bool pinned = property == HC_ALLOC_PINNED;
	hc_staging s;

	s.through_pinned = file || (size < HC_STAGING_MAX_BYTES && !pinned);
	s.flush_after = file || size > HC_FLUSH_MIN_BYTES;
	return s;
}

enum hc_write_way hc_staged_way(uint64_t size, bool recording)
{
	return size >= HC_PIPE_MIN_BYTES && !recording ? HC_WRITE_PIPELINED : HC_WRITE_STAGED;
}

struct hc_write_plan hc_write_plan_of(uint64_t size, hc_alloc_property property,
				      uint64_t stage_max_bytes, bool recording)
{
	struct hc_write_plan w = { .staging = hc_staging_of(size, property) };
	bool pageable = property != HC_ALLOC_PINNED && property != HC_ALLOC_FILE;

	if (stage_max_bytes && property != HC_ALLOC_FILE)
		w.staging.through_pinned = size < stage_max_bytes && property != HC_ALLOC_PINNED;
	if (w.staging.through_pinned)
		w.way = hc_staged_way(size, recording);
	else if (pageable && size >= HC_PIPE_MIN_BYTES && !recording)
		w.way = HC_WRITE_PIPELINED;
	else
		w.way = HC_WRITE_DIRECT;
	return w;
}
