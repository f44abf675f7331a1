/*
 * staging.c - the host-to-device staging decision.
 *
 * The decision is plain data with a constructor so it can be tested without
 * a device.  It is the seed's contract, bit for bit: a file-backed source is
 * always staged and always flushed; a pinned source is never restaged; any
 * other source is staged below 100 MiB; and a write above 10 MiB flushes the
 * drop queue after it.  How staged bytes travel (one bounce or a pipeline of
 * pinned chunks) is decided elsewhere (write.c); this only says whether.
 */
#include "core/internal.h"

hc_staging hc_staging_of(uint64_t size, hc_alloc_property property)
{
	bool file = property == HC_ALLOC_FILE;
	bool pinned = property == HC_ALLOC_PINNED;
	hc_staging s;

	s.through_pinned = file || (size < HC_STAGING_MAX_BYTES && !pinned);
	s.flush_after = file || size > HC_FLUSH_MIN_BYTES;
	return s;
}
