/*
 * ctf_files.h - what a CTF trace directory's files say before
 * libbabeltrace2 reads them.
 *
 * Three things libbabeltrace2 2.0 gets wrong on a damaged LTTng trace are
 * checked here, from the files' sizes, LTTng's packet index (index/NAME.idx)
 * and the metadata's packet headers, without decoding an event:
 *
 *  - a metadata file cut inside a packet: its decoder reads the packet's
 *    content in a loop that never ends at the end of the file (issue 28:
 *    `truncate -s 5000 metadata` hangs hipsim replay and babeltrace2);
 *  - a stream file that is empty, or missing where its index is: it is
 *    skipped without a word, and the replay silently loses its events;
 *  - a stream file shorter than its index says: "Failed to index CTF stream
 *    file", naming no cause.
 *
 * It also finds the largest packet of the trace, which bounds what one
 * event can hold (ctf_array_guard.h).
 */
#ifndef HIPSIM_CTF_FILES_H
#define HIPSIM_CTF_FILES_H

#include <stddef.h>
#include <stdint.h>

/* What the checks of one or more trace directories found. */
struct hs_ctf_files {
	/* The largest packet, in bytes: from the index where there is one,
	 * else the stream file's size (a packet is never larger). */
	uint64_t max_packet_bytes;
	/* The first stream file found empty or missing ("" when none) and how
	 * many there were: their events are lost, the rest can be read. */
	char damage[400];
	unsigned damaged;
};

/**
 * hs_ctf_check_dir() - checks the files of the trace directory @dir (the one
 * holding `metadata`), adding what it finds to @f.
 * @f: zeroed by the caller before the first directory.
 * Return: 0, or -1 with @err set ("@dir/metadata: ..." or "@dir/NAME: ...")
 * when the trace cannot be read at all: the metadata is cut short or its
 * packet sizes are impossible, or a stream file is shorter than its index.
 */
int hs_ctf_check_dir(const char *dir, struct hs_ctf_files *f, char *err, size_t errlen);

#endif /* HIPSIM_CTF_FILES_H */
