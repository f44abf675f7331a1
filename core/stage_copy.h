/*
 * stage_copy.h - copying into pinned staging memory that the device reads
 * next.
 *
 * The bytes a write stages are read once, by the copy engine, right after
 * the host wrote them.  Written with ordinary stores they sit dirty in the
 * CPU caches of the threads that copied them, and the engine's reads must
 * snoop them out: on the H200 machine a 4 MiB staged write then moved at
 * ~9 GB/s instead of the 55 GB/s the same pinned memory gives when it was
 * written long before (measured with hc_device_op_times: stream_sync
 * waited 446 us for a 4 MiB copy).  Non-temporal stores send the lines to
 * memory instead, so the engine reads memory, and the copy does not evict
 * the caller's working set either.
 *
 * x86-64 only (SSE2, which every x86-64 CPU has); elsewhere memcpy.
 *
 * Inline in this header so that `hipsim calibrate` (which links only the
 * public library) times the very copy the library makes; the library's own
 * callers use hc_stage_copy() (stage_copy.c).
 */
#ifndef HIPCORE_CORE_STAGE_COPY_H
#define HIPCORE_CORE_STAGE_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>

static inline void hc_stage_copy_inline(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;

	if (n < 256) { /* not worth the fence */
		memcpy(d, s, n);
		return;
	}
	memcpy(d, s, head); /* up to 16-byte alignment of the destination */
	d += head, s += head, n -= head;
	for (; n >= 64; d += 64, s += 64, n -= 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));

		_mm_stream_si128((__m128i *)(void *)d, a);
		_mm_stream_si128((__m128i *)(void *)(d + 16), b);
		_mm_stream_si128((__m128i *)(void *)(d + 32), c);
		_mm_stream_si128((__m128i *)(void *)(d + 48), e);
	}
	memcpy(d, s, n);
	/* Streaming stores are weakly ordered: make them visible before the
	 * copy that reads them is queued (the caller's later HAL call). */
	_mm_sfence();
}

#else

static inline void hc_stage_copy_inline(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

#endif

#endif /* HIPCORE_CORE_STAGE_COPY_H */
