/*
 * read_ctf.h - reader of libhipcore's LTTng traces (CTF), via libbabeltrace2.
 *
 * @path is a directory: every directory below it that holds a `metadata`
 * file is one CTF trace (one source.ctf.fs each), all merged in time order by
 * utils.muxer.  Events of provider `hipcore` become replay events; their
 * payload fields are read by name (see the table at the top of read_ctf.c),
 * extra fields are ignored.  Discarded events (a full LTTng channel) are
 * counted and reported in the reader's warning: the replay is then partial.
 *
 * Without babeltrace2 at build time, hs_ctf_open() fails with a message.
 */
#ifndef HIPSIM_READ_CTF_H
#define HIPSIM_READ_CTF_H

#include <stddef.h>

#include "tools/hipsim/replay_event.h"

/**
 * hs_ctf_open() - open every CTF trace under a directory.
 * Context: any thread.
 * Return: 0, or -1 with @err set (not a directory, no trace in it, babeltrace2
 * errors, support not built in).
 */
int hs_ctf_open(const char *path, struct hs_trace **out, char *err, size_t errlen);

struct hs_read_options;

/**
 * hs_ctf_open_with() - hs_ctf_open() with read options: the process to
 * replay (o->pid) and libbabeltrace2's log (o->verbose).  @o NULL: every
 * process, quiet.  The limits are not this function's (read_isolated.h).
 * Return: as hs_ctf_open(); also -1 when ctf_files.c finds the metadata or
 * a stream file cut short.
 */
int hs_ctf_open_with(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
		     size_t errlen);

/*
 * Internal, for tests only: hs_ctf_open_with() without ctf_files.c's checks,
 * so that libbabeltrace2 meets a damaged trace as it is (the tests of
 * decode_guard.c on libbabeltrace2's own hangs).
 */
int hs_ctf_open_unchecked(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
			  size_t errlen);

/*
 * Internal, for tests and fuzzing only (tests/fuzz/fuzz_ctf_decode.c): the
 * same reader, graph and decoding, around a source component the caller
 * adds in place of the source.ctf.fs ones, so that event payloads can be
 * made in memory instead of written as CTF.  Not part of hipsim's interface.
 */
struct bt_graph;
struct bt_component_source;

/**
 * typedef hs_ctf_add_source_fn - adds the caller's source component.
 * @graph: the reader's graph, not yet running.
 * @data: hs_ctf_open_source()'s @data.
 * @src: receives the component (borrowed; the graph owns it); each of its
 *       output ports is connected to the reader's muxer.
 *
 * Called once per pass over the trace: at open, and again when the
 * kernel-time first pass runs (@ktime_watch); each call must add a component
 * that emits the same messages.
 * Return: 0, or -1 with a babeltrace2 error set on the current thread.
 */
typedef int (*hs_ctf_add_source_fn)(struct bt_graph *graph, void *data,
				    const struct bt_component_source **src);

/**
 * hs_ctf_open_source() - a CTF reader around the caller's source component.
 * @name: the reader's path in messages.
 * @add_source: adds the source (see hs_ctf_add_source_fn).
 * @data: passed to @add_source.
 * @ktime_watch: behave as for a trace whose metadata declares
 *               hipcore:kernel_time (the first pass may run).
 * @out: the reader; close with hs_trace_close().
 *
 * Context: any thread; @data must outlive the reader.
 * Return: 0, or -1 with @err set (babeltrace2 errors, support not built in).
 */
int hs_ctf_open_source(const char *name, hs_ctf_add_source_fn add_source, void *data, int ktime_watch,
		       struct hs_trace **out, char *err, size_t errlen);

#endif /* HIPSIM_READ_CTF_H */
