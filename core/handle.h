/*
 * handle.h - 64-bit handles with a kind, a place and a generation.
 *
 * Every public object is named by a handle, never by a pointer, so that a
 * closed or freed object is reported as HC_ERR_STALE instead of being
 * dereferenced.  A handle packs:
 *
 *   63..60 kind   (device, stream, buffer, kernel, graph; 0 is never valid)
 *   59..54 device slot  (64 devices open at once)
 *   53..46 stream slot  (256 streams per device; buffers name their origin)
 *   45..24 generation   (22 bits, bumped each time the slot is reused)
 *   23..0  index        (16 M live objects per table)
 *
 * A slot's generation only grows, so an old handle stays detectably stale
 * until the same index has been reused 4 M times; the pool-level identity
 * check (core/pool/pool.h) backs this up for buffers.
 */
#ifndef HIPCORE_CORE_HANDLE_H
#define HIPCORE_CORE_HANDLE_H

#include <stdint.h>

enum hc_handle_kind {
	HC_KIND_DEVICE = 1,
	HC_KIND_STREAM = 2,
	HC_KIND_BUFFER = 3,
	HC_KIND_KERNEL = 4,
	HC_KIND_GRAPH = 5,
};

#define HC_MAX_DEVICES 64u
#define HC_MAX_STREAMS 256u
#define HC_HANDLE_GEN_MASK ((1u << 22) - 1)
#define HC_HANDLE_INDEX_MAX ((1u << 24) - 1)

struct hc_handle_parts {
	unsigned kind;
	unsigned dev;
	unsigned stream;
	uint32_t gen;
	uint32_t index;
};

static inline uint64_t hc_handle_pack(unsigned kind, unsigned dev, unsigned stream, uint32_t gen,
				      uint32_t index)
{
	return ((uint64_t)kind << 60) | ((uint64_t)(dev & 63) << 54) |
	       ((uint64_t)(stream & 255) << 46) | ((uint64_t)(gen & HC_HANDLE_GEN_MASK) << 24) |
	       (index & HC_HANDLE_INDEX_MAX);
}

static inline struct hc_handle_parts hc_handle_unpack(uint64_t id)
{
	struct hc_handle_parts p;

	p.kind = (unsigned)(id >> 60);
	p.dev = (unsigned)(id >> 54) & 63;
	p.stream = (unsigned)(id >> 46) & 255;
	p.gen = (uint32_t)(id >> 24) & HC_HANDLE_GEN_MASK;
	p.index = (uint32_t)id & HC_HANDLE_INDEX_MAX;
	return p;
}

static inline uint32_t hc_gen_next(uint32_t gen)
{
	/* Generation 0 is skipped so a zeroed handle never matches. */
	gen = (gen + 1) & HC_HANDLE_GEN_MASK;
	return gen ? gen : 1;
}

#endif /* HIPCORE_CORE_HANDLE_H */
