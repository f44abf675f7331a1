/*
 * replay.h - the replay engine: replay events (replay_event.h) into public
 * API calls through the driver's scorekeeping (driver.h).
 *
 * `hipsim replay` is this engine in a loop over a trace reader; a benchmark
 * or test can feed it events directly the same way.
 */
#ifndef HIPSIM_REPLAY_H
#define HIPSIM_REPLAY_H

#include "hipcore/hipcore.h"
#include "tools/hipsim/driver.h"
#include "tools/hipsim/idmap.h"
#include "tools/hipsim/replay_event.h"

#define HS_REPLAY_DIRECT_IDS (1u << 22)

struct hs_replay {
	struct hs_driver d;
	const char *trace_path;	 /* names positions in messages */
	/* A live buffer: its handle (0: the entry is not live; no buffer
	 * handle is 0) and the dense index of its origin stream (where a free
	 * returns the memory, so where to sample). */
	struct hs_live_buffer {
		uint64_t handle;
		uint32_t stream;
		uint32_t next; /* live[]: the next free entry */
	} *direct, *live;
	/* Trace buffer ids below HS_REPLAY_DIRECT_IDS (RMM ids are small: the
	 * reader reuses them) index direct[] itself, one memory access per
	 * event; the others (CTF ids are the recorded handles) map to an index
	 * in live[] through @buffers, whose free entries are chained through
	 * @next from free_head (UINT32_MAX: none). */
	uint32_t capdirect;
	struct hs_idmap buffers;
	uint32_t nlive, caplive, free_head;
	struct hs_idmap graphs;	 /* trace graph id -> hc_graph id */
	hc_kernel kernel;	 /* loaded at the first launch */
	struct hs_idmap info_tags; /* (info key, words) -> tag of its last contents */
	uint64_t info_next_tag;
	uint64_t failures_seen;
	uint64_t alloc_failures_reproduced, alloc_failures_not_reproduced;
	/* The device was reopened with the recorded geometry (HS_REV_DEVICE):
	 * its total memory and alignment, 0 when the trace gave none. */
	uint64_t recorded_total_memory, recorded_alignment;
	/* A log that begins mid-run frees buffers it never allocated and
	 * allocates ones it holds (their frees went unlogged): counted here,
	 * failures only when @strict. */
	bool strict;
	struct hs_midrun unknown_frees, live_allocs;
	/* Trace ids whose allocation failed in the replay: their frees are
	 * failing events (the failure's consequence), not mid-run ones. */
	struct hs_idmap failed_allocs;
};

/**
 * hs_replay_open() - open the device and get ready to replay.
 * @opt: the device, layout and (opt->policy, 0 fields the library's own)
 * device policy.
 * @trace_path: the trace's name, for messages (kept, not copied).
 * Context: one thread.
 * Return: 0, or -1 with a message on stderr (device or policy refused).
 */
int hs_replay_open(struct hs_replay *r, const struct hs_options *opt, const char *trace_path);
/* Replays one event; failures are recorded in r->d (first one named with its
 * trace position), never returned. */
void hs_replay_event(struct hs_replay *r, const struct hs_rev *ev);
/* Closes the device (with what the trace left live) and frees the maps. */
void hs_replay_close(struct hs_replay *r);

#endif /* HIPSIM_REPLAY_H */
