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
 * The input is read through zlib: plain text or gzip (a .csv.gz), from a
 * file or a pipe, once.
 *
 * A free of a pointer that is not live gives a free of buffer 0 (never a
 * live id), an allocation of a pointer already live gives an allocation of
 * its buffer id again: logs that begin mid-run have both, and the replay
 * engine counts them.
 *
 * Errors name FILE:LINE: a line with fewer fields than the header (truncated
 * line), unknown action, non-numeric pointer/size/time, a negative or
 * overflowing size, empty input, missing header columns, a line over 1 MiB,
 * more than HS_REV_MAX_STREAMS streams, gzip data that is corrupt or cut
 * short.
 */
#ifndef HIPSIM_READ_RMM_H
#define HIPSIM_READ_RMM_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/hipsim/replay_event.h"

/**
 * hs_rmm_open() - open an RMM CSV and read its header.
 * @path: the file; "-" is standard input.
 * @out: the reader, for hs_trace_next()/hs_trace_close().
 * @err, @errlen: the message on failure.
 *
 * Context: any thread.
 * Return: 0, or -1 with "@path:1: ..." (or the system error) in @err.
 */
int hs_rmm_open(const char *path, struct hs_trace **out, char *err, size_t errlen);

/**
 * hs_rmm_open_fd() - hs_rmm_open() on an open file descriptor.
 * @fd: read from where it stands; taken over (closed with the reader, or
 *      before an error return).
 * @name: the input's name in messages.
 * @sniff: the format was not chosen (--format auto): a first line that names
 *         none of the header's columns, or no line end in the first 1 MiB,
 *         is "unknown trace format" (quoting what was seen), not a header
 *         error.
 * Return: as hs_rmm_open().
 */
int hs_rmm_open_fd(int fd, const char *name, bool sniff, struct hs_trace **out, char *err, size_t errlen);

/* Bytes the reader holds now (buffer, maps): for the streaming test. */
size_t hs_rmm_memory_bytes(const struct hs_trace *t);

#endif /* HIPSIM_READ_RMM_H */
