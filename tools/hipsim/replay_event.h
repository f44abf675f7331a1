/*
 * replay_event.h - one replay event, and the pull interface of trace readers.
 *
 * A trace reader (RMM memory-event CSV, LTTng CTF) turns a trace into a
 * sequence of struct hs_rev, one per call of hs_trace_next().  Readers stream:
 * they hold a bounded read buffer plus maps of the ids that are live (buffers,
 * streams, graphs), never the whole trace, so memory is constant in the trace
 * length.  Ids are the trace's own (uint64): the replay engine maps them to
 * library handles.  Every event carries its source position (file and line, or
 * the event index for binary traces) so messages can point at the input.
 *
 * Streams: each event names its stream by a dense index (0, 1, ... in order of
 * first appearance in the trace) and by the trace's own id.  The first time a
 * stream appears the reader emits HS_REV_STREAM_CREATE for it before the event
 * that named it.
 *
 * Errors: hs_trace_next() returns -1 and leaves a message beginning with
 * "FILE:LINE: " (or "FILE: event N: ") in hs_trace_error(); the reader stays
 * valid for hs_trace_close() only.
 */
#ifndef HIPSIM_REPLAY_EVENT_H
#define HIPSIM_REPLAY_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hs_rev_kind {
	HS_REV_STREAM_CREATE = 0,
	HS_REV_ALLOC,	      /* buffer, size */
	HS_REV_FREE,	      /* buffer, size (0 when the trace does not say) */
	HS_REV_WRITE,	      /* buffer, offset, size, property (hc_alloc_property) */
	HS_REV_READ,	      /* buffer, offset, size */
	HS_REV_LAUNCH,	      /* duration_ns, info_words, bindings */
	HS_REV_SYNC,
	HS_REV_GRAPH_PREPARE,
	HS_REV_GRAPH_BEGIN,
	HS_REV_GRAPH_END,     /* graph: the id the trace gives the new graph */
	HS_REV_GRAPH_REPLAY,  /* graph */
	HS_REV_GRAPH_DESTROY, /* graph */
	HS_REV_ALLOC_FAILURE, /* size: an allocation that failed when recorded */
	HS_REV_HOLD,	      /* buffer: the stream's work so far uses it (hc_buffer_hold) */
	/* The recorded device's geometry, before any stream event: size its
	 * total memory, offset its alignment, buffer its trace id.  CTF only
	 * (device_open), at most once; replay opens its device like it. */
	HS_REV_DEVICE,
	HS_REV_KIND_COUNT
};

/* hs_rev.info_cache */
enum { HS_REV_INFO_UNKNOWN = 0, HS_REV_INFO_HIT, HS_REV_INFO_MISS, HS_REV_INFO_UNCACHED };

/* Bindings beyond this many in one launch are a reader error. */
#define HS_REV_MAX_BINDINGS 64
/* A trace with more streams than this is a reader error, at the first event
 * of the one too many: libhipcore opens at most this many per device
 * (HC_MAX_STREAMS), so the replay could not hold them. */
#define HS_REV_MAX_STREAMS 256

struct hs_rev_binding {
	uint64_t buffer; /* trace buffer id */
	uint64_t offset, size;
	uint32_t access; /* hc_access bits: 1 read, 2 write */
};

struct hs_rev {
	enum hs_rev_kind kind;
	uint32_t stream;    /* dense index of the stream */
	uint64_t stream_id; /* the trace's id of the stream */
	uint64_t buffer;    /* trace buffer id (alloc, free, write, read) */
	uint64_t offset, size;
	uint32_t property; /* writes: hc_alloc_property */
	uint64_t time_ns;  /* as recorded; see each reader for the origin */
	uint64_t duration_ns;
	uint64_t graph;	     /* trace graph id */
	uint32_t info_words; /* launch: words of kernel info */
	/* Launch: what the metadata cache did with the info words when
	 * recorded (CTF "hipcore:cache" before the launch): HS_REV_INFO_*;
	 * info_key is the first info word. */
	uint32_t info_cache;
	uint64_t info_key;
	/* Source position: line for text traces (1-based), 0 otherwise. */
	uint64_t line;
	uint64_t index; /* 0-based index of the event in the trace */
	uint32_t n_bindings;
	/* Last, so that readers copy only the first n_bindings. */
	struct hs_rev_binding bindings[HS_REV_MAX_BINDINGS];
};

/* Name of an event kind ("alloc", "graph_end", ...). */
const char *hs_rev_kind_name(enum hs_rev_kind kind);

/*
 * A reader.  Concrete readers embed this as their first member; callers use
 * the functions below only.
 */
struct hs_trace {
	int (*next)(struct hs_trace *t, struct hs_rev *ev);
	void (*close)(struct hs_trace *t);
	const char *path;
	const char *format; /* "rmm" or "ctf" */
	char error[640];
	char warning[256]; /* e.g. discarded events; empty when none */
	/* Events of the source are known to be missing (discarded by the
	 * tracer, a damaged file): the warning or the error says which. */
	bool partial;
	uint64_t events;   /* events returned so far */
	/* Events read from the source so far, skipped ones included (a CTF
	 * trace also holds decision events replay does not use); 0 when the
	 * reader does not count them (RMM CSV: one line, one event). */
	uint64_t source_events;
	/* CPU time of a reader that decodes in another process
	 * (read_isolated.h), from its open to its last event; 0 in process. */
	uint64_t helper_cpu_ns;
};

struct hs_read_options;

/**
 * hs_trace_open() - open a trace for reading.
 * @path: a CSV file (rmm) or a directory holding CTF traces (ctf).
 * @format: "auto" (or NULL), "rmm" or "ctf".  auto: a directory is CTF; a
 *          file whose first line is an RMM header is rmm; anything else is an
 *          error.
 * @out: the reader; close with hs_trace_close().
 * @err: receives a message on failure.
 *
 * Context: any thread; the reader is for one thread.
 * Return: 0, or -1 with @err set (bad path, unknown format, bad header, CTF
 * support not built in, no CTF trace in the directory).
 */
int hs_trace_open(const char *path, const char *format, struct hs_trace **out, char *err,
		  size_t errlen);

/**
 * hs_trace_open_with() - hs_trace_open() with the options of read_options.h.
 * @path: as for hs_trace_open(); "-" is standard input (an RMM CSV).
 * @o: the format, the CTF decoder's bounds and log, the process to replay;
 *     NULL: hs_read_options_init()'s defaults.
 *
 * A file is read once, from its first byte, through zlib: plain text, gzip
 * and pipes alike; format detection reads the header from the same buffer.
 * Return: 0, or -1 with @err set.
 */
int hs_trace_open_with(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
		       size_t errlen);

/*
 * The progress counter of a decoder process (decode_guard.h): set in the
 * child that read_isolated.c forks, NULL elsewhere.  A reader whose steps
 * can take long (CTF: libbabeltrace2) adds what it got through, so that the
 * parent tells a slow decoder from a stuck one.
 */
extern uint64_t *hs_read_progress;

static inline void hs_note_progress(uint64_t n)
{
	if (hs_read_progress)
		__atomic_fetch_add(hs_read_progress, n, __ATOMIC_RELAXED);
}

/**
 * hs_trace_next() - the next event.
 * Return: 1 with *@ev filled, 0 at the end of the trace, -1 on malformed
 * input (message in hs_trace_error()).
 */
static inline int hs_trace_next(struct hs_trace *t, struct hs_rev *ev)
{
	return t->next(t, ev);
}

static inline const char *hs_trace_error(const struct hs_trace *t)
{
	return t->error;
}

/* Closes @t (NULL is allowed). */
static inline void hs_trace_close(struct hs_trace *t)
{
	if (t)
		t->close(t);
}

#endif /* HIPSIM_REPLAY_EVENT_H */
