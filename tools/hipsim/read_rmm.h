/*
 * read_rmm.h - reader of RMM's memory-event CSV (logging_resource_adaptor).
 *
 * Accepted input (documented in doc/hipsim.1 too):
 *   - A first line naming the columns.  Thread, Time, Action, Pointer, Size
 *     and Stream must appear, in any order and any letter case; other columns
 *     are ignored.  Fields are separated by ',' and not quoted; a trailing
 *     '\r' is dropped; blank lines are skipped; a UTF-8 byte-order mark
 *     before the header is skipped.
 *   - Action: "allocate", "free" or "deallocate", "allocate failure".
 *   - Pointer: hex with 0x/0X, decimal, or "(nil)"/"nullptr"/empty for null
 *     (RMM logs allocate failures with a null pointer).
 *   - Size: decimal bytes.  On frees it may be empty.
 *   - Time: "HH:MM:SS.fraction" (what RMM writes: spdlog's %H:%M:%S.%f, time
 *     of day with microseconds; a step back of more than 12 h is taken as
 *     midnight passing), floating seconds "S.fraction" (e.g. seconds since the
 *     epoch), or a plain integer, taken as nanoseconds.  Empty is 0.
 *     Fractions keep 9 digits at most.
 *   - Stream: any text; each distinct value is a stream, numbered densely in
 *     order of appearance.  Its trace id is the value as a number when it is
 *     one (hex or decimal), else a hash of the text.
 * The reader gives each allocation a buffer id and keeps the map from live
 * pointers to ids; a free names the id.  Ids are 1, 2, ... in order, except
 * that the id of a freed buffer is given again (the last freed first), so
 * ids never exceed the peak number of live buffers.
 *
 * Errors name FILE:LINE: a line with fewer fields than the header (truncated
 * line), unknown action, non-numeric pointer/size/time, a negative or
 * overflowing size, free of a pointer that is not live, allocate of a pointer
 * already live, empty file, missing header columns, a line over 1 MiB.
 */
#ifndef HIPSIM_READ_RMM_H
#define HIPSIM_READ_RMM_H

#include <stddef.h>

#include "tools/hipsim/replay_event.h"

/**
 * hs_rmm_open() - open an RMM CSV and read its header.
 * @path: the file ("-" is not special).
 * @out: the reader, for hs_trace_next()/hs_trace_close().
 * @err, @errlen: the message on failure.
 *
 * Context: any thread.
 * Return: 0, or -1 with "@path:1: ..." (or the system error) in @err.
 */
int hs_rmm_open(const char *path, struct hs_trace **out, char *err, size_t errlen);

/* Whether @line (NUL-terminated, the file's first line) is an RMM header. */
int hs_rmm_is_header(const char *line);

/* Bytes the reader holds now (buffer, maps): for the streaming test. */
size_t hs_rmm_memory_bytes(const struct hs_trace *t);

#endif /* HIPSIM_READ_RMM_H */
