/*
 * ctf_names.h - the event and field names read_ctf.c looks for in a trace.
 *
 * The provider "hipcore" (trace/hipcore_tp.h, listed in
 * doc/trace-events.md) defines them; they are written down here once, as
 * data, so that the reader and the test that holds it to the provider
 * (tests/check_trace_schema.c) read the same tables.
 *
 * Each field list starts with the provider's name for the field.  Names
 * after it are those of CTF written by other producers (the hand-made
 * providers behind the traces in tests/data, traces made in memory by the
 * fuzzers): the reader tries them in order when the provider's is absent.
 * role_kind says what the provider's field holds: a number (any integer or
 * boolean), a sequence of numbers, or nothing the provider emits (the
 * launch's "bindings" array of structures, a layout other producers use).
 */
#ifndef HIPSIM_CTF_NAMES_H
#define HIPSIM_CTF_NAMES_H

#include <stddef.h>

#include "tools/hipsim/replay_event.h"

/* The events replayed, each to one replay event. */
static const struct ctf_event_map {
	const char *name;
	enum hs_rev_kind kind;
} ctf_events[] = {
	{ "hipcore:stream_open", HS_REV_STREAM_CREATE },
	{ "hipcore:stream_adopt", HS_REV_STREAM_CREATE },
	{ "hipcore:buffer_hold", HS_REV_HOLD },
	{ "hipcore:alloc", HS_REV_ALLOC },
	{ "hipcore:free", HS_REV_FREE },
	{ "hipcore:write", HS_REV_WRITE },
	{ "hipcore:read", HS_REV_READ },
	{ "hipcore:launch", HS_REV_LAUNCH },
	{ "hipcore:sync", HS_REV_SYNC },
	{ "hipcore:graph_prepare", HS_REV_GRAPH_PREPARE },
	{ "hipcore:graph_begin", HS_REV_GRAPH_BEGIN },
	{ "hipcore:graph_end", HS_REV_GRAPH_END },
	{ "hipcore:graph_replay", HS_REV_GRAPH_REPLAY },
	{ "hipcore:graph_destroy", HS_REV_GRAPH_DESTROY },
};
#define CTF_N_EVENTS (sizeof(ctf_events) / sizeof(ctf_events[0]))

/* Events read but not replayed.  hipcore:cache's kind and key ride on the
 * launch that follows it on the same stream (hs_rev.info_cache,
 * info_key); kernel_time gives launches their measured durations;
 * device_open gives the device's geometry and whether it is simulated. */
#define CTF_CACHE_EVENT "hipcore:cache"
static const char ktime_event[] = "hipcore:kernel_time";
static const char devopen_event[] = "hipcore:device_open";
/* device_open's backend for the simulator (enum hc_trace_backend), whose
 * devices never time kernels. */
#define CTF_BACKEND_SIM 1

/* Payload field names; the first present wins.  NULL ends each list. */
static const char *const f_stream[] = { "stream", "stream_id", NULL };
static const char *const f_buffer[] = { "buffer", "buffer_id", NULL };
static const char *const f_size[] = { "size", "bytes", NULL };
static const char *const f_offset[] = { "offset", NULL };
static const char *const f_property[] = { "property", NULL };
static const char *const f_duration[] = { "duration_ns", "duration", NULL };
static const char *const f_info[] = { "info_words", "info_size", NULL };
static const char *const f_graph[] = { "graph", "graph_id", NULL };
static const char *const f_status[] = { "status", NULL };
static const char *const f_ordinal[] = { "ordinal", NULL };
static const char *const f_device[] = { "device", NULL };
static const char *const f_backend[] = { "backend", NULL };
static const char *const f_total_memory[] = { "total_memory", NULL };
static const char *const f_alignment[] = { "alignment", NULL };
static const char *const f_cache_kind[] = { "kind", NULL };
static const char *const f_cache_key[] = { "key", NULL };
/* Launch bindings: parallel arrays named as below (the provider's), or an
 * array named "bindings" of structures whose members are named as f_buffer,
 * f_offset, f_size and f_bind_struct_access. */
static const char *const f_bindings[] = { "bindings", NULL };
static const char *const f_bind_buffer[] = { "binding_buffer", NULL };
static const char *const f_bind_offset[] = { "binding_offset", NULL };
static const char *const f_bind_size[] = { "binding_size", NULL };
static const char *const f_bind_access[] = { "binding_access", NULL };
static const char f_bind_struct_access[] = "access";
/* The event context member that names the process (LTTng's vpid). */
static const char *const f_vpid[] = { "vpid", NULL };

enum ctf_role {
	R_STREAM, R_BUFFER, R_SIZE, R_OFFSET, R_PROPERTY, R_DURATION, R_INFO, R_GRAPH, R_STATUS,
	R_BINDINGS, R_BIND_BUFFER, R_BIND_OFFSET, R_BIND_SIZE, R_BIND_ACCESS, R_CACHE_KIND, R_CACHE_KEY,
	R_ORDINAL, R_DEVICE, R_BACKEND, R_TOTAL_MEMORY, R_ALIGNMENT, R_COUNT
};

static const char *const *const role_names[R_COUNT] = {
	[R_STREAM] = f_stream,		 [R_BUFFER] = f_buffer,		  [R_SIZE] = f_size,
	[R_OFFSET] = f_offset,		 [R_PROPERTY] = f_property,	  [R_DURATION] = f_duration,
	[R_INFO] = f_info,		 [R_GRAPH] = f_graph,		  [R_STATUS] = f_status,
	[R_BINDINGS] = f_bindings,	 [R_BIND_BUFFER] = f_bind_buffer, [R_BIND_OFFSET] = f_bind_offset,
	[R_BIND_SIZE] = f_bind_size,	 [R_BIND_ACCESS] = f_bind_access, [R_CACHE_KIND] = f_cache_kind,
	[R_CACHE_KEY] = f_cache_key,	 [R_ORDINAL] = f_ordinal,	  [R_DEVICE] = f_device,
	[R_BACKEND] = f_backend,	 [R_TOTAL_MEMORY] = f_total_memory, [R_ALIGNMENT] = f_alignment,
};

/* What the provider's field of each role holds. */
enum ctf_role_kind { CTF_NUMBER, CTF_SEQUENCE, CTF_NOT_PROVIDED };
static const unsigned char role_kind[R_COUNT] = {
	[R_BINDINGS] = CTF_NOT_PROVIDED, [R_BIND_BUFFER] = CTF_SEQUENCE, [R_BIND_OFFSET] = CTF_SEQUENCE,
	[R_BIND_SIZE] = CTF_SEQUENCE,	 [R_BIND_ACCESS] = CTF_SEQUENCE,
};

#endif /* HIPSIM_CTF_NAMES_H */
