/*
 * read_isolated.h - a trace reader run in a child process.
 *
 * libbabeltrace2's CTF plugin trusts a trace more than a replay tool can: on
 * some corrupt traces it dereferences a field that is not there and the
 * process dies (seen with fuzz_ctf on Debian's 2.0: a SEGV inside
 * bt_field_array_borrow_element_field_by_index, called from the plugin).
 * hipsim must answer such a trace with a read error, not a crash, so
 * hs_trace_open() runs the CTF reader in a forked child that streams the
 * decoded events back through a pipe.  A child that dies becomes a read error
 * naming the signal and the event it reached; the events before it were
 * delivered as usual.  The pipe also lets decoding overlap replay.
 *
 * libbabeltrace2 can also loop forever or allocate without bound on a
 * corrupt trace, so the child runs under the CPU, memory and progress bounds
 * of decode_guard.h (the limits of the read options); passing one ends the
 * child and reads as an error that names the bound.  The child's stderr is
 * kept from the user unless the options say verbose.
 *
 * HIPSIM_CTF_IN_PROCESS=1 in the environment reads in the calling process
 * (for a debugger).  Tests and fuzzers that want the reader itself call
 * hs_ctf_open() directly.
 */
#ifndef HIPSIM_READ_ISOLATED_H
#define HIPSIM_READ_ISOLATED_H

#include <stddef.h>

#include "tools/hipsim/read_options.h"
#include "tools/hipsim/replay_event.h"

/* An in-process reader's open function (hs_ctf_open_with, ...). */
typedef int (*hs_trace_open_fn)(const char *path, const struct hs_read_options *o, struct hs_trace **out,
				char *err, size_t errlen);

/**
 * hs_isolated_open() - open @path with @open in a child process.
 * @path: passed to @open in the child; also the reader's path.
 * @format: the reader's format name ("ctf").
 * @open: the reader to run in the child.
 * @o: passed to @open; its limits and verbose flag are the child's (NULL:
 *     hs_read_options_init()'s defaults).
 * @out: the reader; close with hs_trace_close() (which stops the child).
 *
 * The returned reader gives the same events, error and warning texts,
 * partial flag and source_events as @open's would; a child that dies or is
 * stopped gives -1 from hs_trace_next() (or from this function, when that
 * happens while opening) with "PATH: event N: ..." naming the signal or the
 * bound.  Its helper_cpu_ns is the CPU time the child spent from the end of
 * its open to its last event.
 *
 * Context: forks: call it before starting threads where possible (the child
 * uses only the calling thread, through @open).  SIGPIPE is not touched: the
 * parent only reads.
 * Return: 0, or -1 with @err set.
 */
int hs_isolated_open(const char *path, const char *format, hs_trace_open_fn open,
		     const struct hs_read_options *o, struct hs_trace **out, char *err, size_t errlen);

#endif /* HIPSIM_READ_ISOLATED_H */
