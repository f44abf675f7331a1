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

#endif /* HIPSIM_READ_CTF_H */
