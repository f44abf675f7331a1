/*
 * buffer.c - device buffers: hc_alloc, hc_free and the stream's buffer table.
 *
 * A buffer is an entry in its origin stream's table: the slice it holds in
 * the stream's device memory manager, its address and size, and the cursor
 * stamp cross-stream sync compares against.  Its handle carries the device
 * slot, the stream slot, the entry index and a generation drawn from the
 * stream slot's sequence (which survives close and reopen), so a freed or
 * closed buffer is HC_ERR_STALE.
 *
 * A buffer another stream still uses (remote_pins > 0) may be freed by its
 * owner: the entry then waits, not live and not reusable, until the last
 * consumer's fence has passed and the consumer's unpin reaches the owner's
 * inbox.  Only then does the slice go back to the pool.
 *
 * Allocation failure runs cleanup-and-retry once (DESIGN §4.3), except
 * while a capture records, when nothing may be freed.
 */
#include <stdlib.h>
#include <string.h>

#include "core/object.h"
#include "core/streamops.h"
#include "core/trace_order.h"
#include "trace/hipcore_trace.h"

/* The handle of entry @idx with generation @gen: st->buf_base holds the
 * kind and the device and stream slots (hc_handle_pack's layout). */
static inline uint64_t buf_id(const struct hc_strm *st, uint32_t gen, uint32_t idx)
{
	return st->buf_base | ((uint64_t)(gen & HC_HANDLE_GEN_MASK) << 24) |
	       (idx & HC_HANDLE_INDEX_MAX);
}

hc_buffer hc_buf_handle(const struct hc_strm *st, uint32_t idx)
{
	hc_buffer b = { buf_id(st, st->bufs[idx].gen, idx) };
	return b;
}

/* The live entry @id names in @st, its origin stream, or NULL.  The handle's
 * device and stream slots are @st's when @st was found from them. */
static inline struct hc_buf *buf_find_fast(struct hc_strm *st, uint64_t id)
{
	struct hc_handle_parts p = hc_handle_unpack(id);
	struct hc_buf *b;

	if (p.index >= st->nbufs)
		return NULL;
	b = &st->bufs[p.index];
	return b->gen == p.gen && b->live ? b : NULL;
}

/*
 * hc_buf_find - the live entry @b names in @st.
 * Context: @st locked; @st must be @b's origin stream.
 */
hc_status hc_buf_find(struct hc_strm *st, hc_buffer b, struct hc_buf **out)
{
	struct hc_handle_parts p = hc_handle_unpack(b.id);

	if (b.id == 0 || p.kind != HC_KIND_BUFFER)
		return hc_fail(HC_ERR_STALE, "buffer handle %#llx is not a buffer",
			       (unsigned long long)b.id);
	if (p.dev != st->dev->slot || p.stream != st->slot || p.index >= st->nbufs ||
	    st->bufs[p.index].gen != p.gen || !st->bufs[p.index].live)
		return hc_fail(HC_ERR_STALE, "buffer %#llx is freed or unknown",
			       (unsigned long long)b.id);
	*out = &st->bufs[p.index];
	return HC_OK;
}

static hc_status buf_lock_slow(hc_buffer b, struct hc_strm **sto, struct hc_buf **out)
{
	struct hc_handle_parts p = hc_handle_unpack(b.id);
	struct hc_strm *st;
	hc_status rc;

	if (b.id == 0 || p.kind != HC_KIND_BUFFER)
		return hc_fail(HC_ERR_STALE, "buffer handle %#llx is not a buffer",
			       (unsigned long long)b.id);
	rc = hc_strm_slot_lock(p.dev, p.stream, &st);
	if (rc != HC_OK)
		return hc_fail(HC_ERR_STALE, "buffer %#llx: its stream is closed",
			       (unsigned long long)b.id);
	rc = hc_buf_find(st, b, out);
	if (rc != HC_OK) {
		hc_strm_unlock(st);
		return rc;
	}
	*sto = st;
	return HC_OK;
}

/*
 * hc_buf_lock - lock the origin stream of @b and find its entry.
 * Context: no stream lock held by the caller.
 * The fast path is hc_strm_slot_lock's and buf_find_fast's; anything else
 * (a failure, with its message, or a race it lost) goes through the whole
 * resolution again.
 */
static inline __attribute__((always_inline)) hc_status buf_lock(hc_buffer b, struct hc_strm **sto,
								 struct hc_buf **out)
{
	struct hc_handle_parts p = hc_handle_unpack(b.id);
	struct hc_strm *st;
	struct hc_buf *e;

	if (__builtin_expect(p.kind == HC_KIND_BUFFER, 1) &&
	    __builtin_expect(hc_strm_slot_lock(p.dev, p.stream, &st) == HC_OK, 1)) {
		e = buf_find_fast(st, b.id);
		if (__builtin_expect(e != NULL, 1)) {
			*sto = st;
			*out = e;
			return HC_OK;
		}
		hc_strm_unlock(st);
	}
	return buf_lock_slow(b, sto, out);
}

hc_status hc_buf_lock(hc_buffer b, struct hc_strm **sto, struct hc_buf **out)
{
	return buf_lock(b, sto, out);
}

/* Grows the table when the free list is empty.  Context: @st locked. */
static hc_status buf_table_take(struct hc_strm *st, uint32_t *idx)
{
	if (st->nbufs == st->capbufs) {
		uint32_t cap = st->capbufs ? st->capbufs * 2 : 64;
		struct hc_buf *nb;

		if (cap > HC_HANDLE_INDEX_MAX + 1u)
			cap = HC_HANDLE_INDEX_MAX + 1u;
		if (st->nbufs == cap)
			return hc_fail(HC_ERR_OOM, "hc_alloc: %u live buffers on one stream",
				       st->nbufs);
		nb = realloc(st->bufs, (size_t)cap * sizeof(*nb));
		if (!nb)
			return hc_fail(HC_ERR_OOM, "hc_alloc: out of host memory");
		st->bufs = nb;
		st->capbufs = cap;
	}
	*idx = st->nbufs++;
	memset(&st->bufs[*idx], 0, sizeof(st->bufs[*idx]));
	return HC_OK;
}

/* Puts entry @b, index @idx, on the free list.  Context: @st locked. */
static void buf_table_put(struct hc_strm *st, struct hc_buf *b, uint32_t idx)
{
	b->live = false;
	b->freed_pinned = false;
	b->gen = 0; /* never matches a handle while free */
	b->next_free = st->free_head;
	st->free_head = idx;
}

/* hc_strm_reserve's retry after the manager refused with @rc. */
static hc_status reserve_retry(struct hc_strm *st, struct hc_mm *mm, uint64_t size,
			       struct hc_slice_ref *ref, uint64_t *addr, hc_status rc)
{
	if ((rc == HC_ERR_OOM || rc == HC_ERR_CAPACITY) && !hc_capture_is_recording(&st->capture)) {
		atomic_fetch_add(&st->dev->stats.alloc_retries, 1);
		hc_strm_cleanup_locked(st);
		rc = hc_mm_reserve(mm, size, ref, addr);
	}
	return rc;
}

/*
 * hc_strm_reserve - reserve from one of @st's managers with cleanup-and-retry
 * (DESIGN §4.3): a refusal runs what hc_memory_cleanup does and retries
 * once, except while a capture records (nothing may be freed then).
 * Context: @st locked.
 */
hc_status hc_strm_reserve(struct hc_strm *st, struct hc_mm *mm, uint64_t size,
			  struct hc_slice_ref *ref, uint64_t *addr)
{
	hc_status rc = hc_mm_reserve(mm, size, ref, addr);

	return rc == HC_OK ? rc : reserve_retry(st, mm, size, ref, addr, rc);
}

/* What hc_alloc_sampled and hc_free_sampled read before they unlock: the
 * stream's device memory usage and, when asked, the device's idle bytes,
 * as hc_memory_usage_get and hc_device_idle_bytes would right after the
 * call.  NULL @u: plain hc_alloc and hc_free.  Context: @st locked. */
static inline void sample_locked(struct hc_strm *st, hc_memory_usage *u, uint64_t *idle)
{
	if (u) {
		hc_mm_usage(st->dmm, u);
		if (idle)
			*idle = hc_idle_bytes(&st->dev->idle);
	}
}

static inline __attribute__((always_inline)) hc_status alloc_call(hc_stream s, uint64_t size, hc_buffer *out,
								   hc_memory_usage *u, uint64_t *idle)
{
	uint64_t t0 = HC_TRACE_T0(alloc);
	struct hc_strm *st;
	struct hc_buf *b;
	uint32_t idx = 0;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_alloc: out is NULL");
	out->id = 0;
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	if (__builtin_expect(st->free_head != UINT32_MAX, 1)) {
		idx = st->free_head;
		st->free_head = st->bufs[idx].next_free;
	} else {
		rc = buf_table_take(st, &idx);
		if (rc != HC_OK)
			goto out_unlock;
	}
	/* The manager writes the slice and its address into the entry, free
	 * until it goes live below, instead of into locals copied over after
	 * (only buf_table_take moves the table, and not before the entry is
	 * live or back on the free list). */
	b = &st->bufs[idx];
	rc = hc_mm_reserve(st->dmm, size, &b->ref, &b->addr);
	if (__builtin_expect(rc != HC_OK, 0))
		rc = reserve_retry(st, st->dmm, size, &b->ref, &b->addr, rc);
	if (rc != HC_OK) {
		/* Give the entry back: the table entry was never live. */
		st->bufs[idx].next_free = st->free_head;
		st->free_head = idx;
		if (rc == HC_ERR_OOM)
			hc_fail_over(HC_ERR_OOM,
				     "hc_alloc: %llu bytes: the device refused after cleanup and retry",
				     (unsigned long long)size);
		goto out_unlock;
	}
	if (HC_TRACE_ENABLED(pool_reserve)) {
		struct hc_mm_decision dec;
		uint64_t align = st->dev->props.alignment ? st->dev->props.alignment : 1;

		hc_mm_last_decision(st->dmm, &dec);
		/* page: the pool does not report a page index yet; 0 (trace doc). */
		HC_TRACE_DO(pool_reserve, s.id, dec.pool, (uint64_t)0, (uint8_t)dec.new_page, size,
			    (align - size % align) % align);
	}
	st->buf_seq = hc_gen_next(st->buf_seq);
	b->size = size;
	b->stamp = hc_cursor_advance(&st->cursor);
	b->gen = st->buf_seq;
	b->next_free = 0;
	b->remote_pins = 0;
	b->live = true;
	b->freed_pinned = false;
	out->id = buf_id(st, b->gen, idx);
	sample_locked(st, u, idle);
out_unlock:
	HC_TRACE(alloc, s.id, out->id, size, (int32_t)rc, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return rc;
}

/* Gives the slice back and entry @b, index @idx, to the free list: the
 * caller has both, and getting the index back from the pointer costs a
 * division by the entry's size.  Context: @st locked. */
static inline __attribute__((always_inline)) void buf_release(struct hc_strm *st, struct hc_buf *b,
							      uint32_t idx)
{
	/* hc_et_forget's own test, first: no handle to build when nothing on
	 * the device was ever tainted (every hc_free passes here). */
	if (atomic_load_explicit(&st->dev->eg_tainted, memory_order_acquire))
		hc_et_forget(st->dev, buf_id(st, b->gen, idx));
	hc_mm_release(st->dmm, b->ref);
	buf_table_put(st, b, idx);
}

static inline __attribute__((always_inline)) hc_status free_call(hc_buffer buffer, hc_memory_usage *u,
								  uint64_t *idle)
{
	uint64_t t0 = HC_TRACE_T0(free);
	struct hc_strm *st;
	struct hc_buf *b;
	hc_status rc;

	rc = buf_lock(buffer, &st, &b);
	if (rc != HC_OK) {
		HC_TRACE(free, buffer.id, (int32_t)rc, hc_trace_since_ns(t0));
		return rc;
	}
	if (b->remote_pins > 0) {
		b->live = false;
		b->freed_pinned = true;
	} else {
		/* buf_lock found the entry at the handle's index. */
		buf_release(st, b, hc_handle_unpack(buffer.id).index);
	}
	sample_locked(st, u, idle);
	HC_TRACE(free, buffer.id, (int32_t)HC_OK, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return HC_OK;
}

/* One consumer's use of buffer @idx is over.  Context: @st locked. */
void hc_buf_remote_unpin(struct hc_strm *st, uint32_t idx)
{
	struct hc_buf *b;

	if (idx >= st->nbufs)
		return;
	b = &st->bufs[idx];
	if (b->remote_pins == 0)
		return;
	if (--b->remote_pins == 0 && b->freed_pinned)
		buf_release(st, b, idx);
}

/*
 * A hold is a consumer's pin without a launch: hc_xs_after's entry on the
 * holder's drop queue, whose release reaches the owner's inbox after the
 * holder's fence.  The flush puts that fence behind the work queued so far
 * now, rather than at the holder's next trigger, which a stream driven by
 * someone else (an adopted stream) may not reach for a long time.
 */
static hc_status hold_call(hc_buffer buffer, hc_stream stream)
{
	uint64_t t0 = HC_TRACE_T0(buffer_hold);
	struct hc_lockset ls;
	hc_status rc;

	rc = hc_lockset_acquire(stream, &buffer, 1, "hc_buffer_hold", &ls);
	if (rc == HC_OK) {
		if (ls.use[0].origin != ls.st) {
			hc_xs_after(&ls, &ls.use[0]);
			rc = hc_strm_maybe_flush(ls.st, true);
		}
		hc_lockset_release(&ls);
	}
	HC_TRACE(buffer_hold, stream.id, buffer.id, (int32_t)rc, hc_trace_since_ns(t0));
	return rc;
}

hc_status hc_buffer_info_get(hc_buffer buffer, hc_buffer_info *out)
{
	struct hc_strm *st;
	struct hc_buf *b;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_buffer_info_get: out is NULL");
	rc = hc_buf_lock(buffer, &st, &b);
	if (rc != HC_OK)
		return rc;
	out->stream = st->handle;
	out->size = b->size;
	out->device_address = b->addr;
	hc_strm_unlock(st);
	return HC_OK;
}

/* Recorded, these run one at a time (core/trace_order.h). */
hc_status hc_alloc(hc_stream s, uint64_t size, hc_buffer *out)
{
	hc_status rc;

	HC_TRACE_ORDERED(alloc, rc = alloc_call(s, size, out, NULL, NULL));
	return rc;
}

hc_status hc_free(hc_buffer buffer)
{
	hc_status rc;

	HC_TRACE_ORDERED(free, rc = free_call(buffer, NULL, NULL));
	return rc;
}

/* Private (hipcore/private.h): hc_alloc and hc_free with the sample taken
 * under the lock the call holds already, for hipsim replay, which samples
 * after every replayed allocation and free: one stream lock and handle
 * check per event instead of two, and no device lookup for the idle
 * bytes.  The same calls otherwise, tracepoints included. */
hc_status hc_alloc_sampled(hc_stream s, uint64_t size, hc_buffer *out, hc_memory_usage *usage,
			   uint64_t *idle)
{
	hc_status rc;

	if (!usage)
		return hc_fail(HC_ERR_INVALID, "hc_alloc_sampled: usage is NULL");
	HC_TRACE_ORDERED(alloc, rc = alloc_call(s, size, out, usage, idle));
	return rc;
}

hc_status hc_free_sampled(hc_buffer buffer, hc_memory_usage *usage, uint64_t *idle)
{
	hc_status rc;

	if (!usage)
		return hc_fail(HC_ERR_INVALID, "hc_free_sampled: usage is NULL");
	HC_TRACE_ORDERED(free, rc = free_call(buffer, usage, idle));
	return rc;
}

hc_status hc_buffer_hold(hc_buffer buffer, hc_stream stream)
{
	hc_status rc;

	HC_TRACE_ORDERED(buffer_hold, rc = hold_call(buffer, stream));
	return rc;
}
