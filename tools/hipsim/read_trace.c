/*
 * read_trace.c - choosing a trace reader: --format auto|rmm|ctf.
 *
 * auto: a directory is CTF (LTTng writes a tree of directories); anything
 * else (a file, "-" for standard input, a pipe such as /dev/stdin or
 * <(zcat X)) is opened once and handed to the RMM reader, whose header read
 * is the format check: it reads through zlib, so gzip is decompressed on
 * the way, and says "unknown trace format" with what it saw when the first
 * line is no RMM header.  Nothing is opened twice, so a pipe loses nothing.
 *
 * CTF is decoded in a child process under the read options' limits
 * (read_isolated.h); the CPU limit, unless given, grows with the trace's
 * bytes (read_options.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tools/hipsim/read_ctf.h"
#include "tools/hipsim/read_isolated.h"
#include "tools/hipsim/read_options.h"
#include "tools/hipsim/read_rmm.h"
#include "tools/hipsim/replay_event.h"

static const char *const kind_names[HS_REV_KIND_COUNT] = {
	[HS_REV_STREAM_CREATE] = "stream_create", [HS_REV_ALLOC] = "alloc",
	[HS_REV_FREE] = "free",			  [HS_REV_WRITE] = "write",
	[HS_REV_READ] = "read",			  [HS_REV_LAUNCH] = "launch",
	[HS_REV_SYNC] = "sync",			  [HS_REV_GRAPH_PREPARE] = "graph_prepare",
	[HS_REV_GRAPH_BEGIN] = "graph_begin",	  [HS_REV_GRAPH_END] = "graph_end",
	[HS_REV_GRAPH_REPLAY] = "graph_replay",	  [HS_REV_GRAPH_DESTROY] = "graph_destroy",
	[HS_REV_ALLOC_FAILURE] = "alloc_failure", [HS_REV_HOLD] = "hold",
	[HS_REV_DEVICE] = "device",
};

const char *hs_rev_kind_name(enum hs_rev_kind kind)
{
	return (unsigned)kind < HS_REV_KIND_COUNT ? kind_names[kind] : "unknown";
}

/* nftw has no user pointer: the sum of one walk (one at a time). */
static uint64_t walk_bytes;

static int add_bytes(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)fpath, (void)ftw;
	if (type == FTW_F)
		walk_bytes += (uint64_t)sb->st_size;
	return 0;
}

/* The CPU limit for decoding the trace under @dir, unless one was given. */
static void scale_cpu_limit(const char *dir, struct hs_read_options *o)
{
	if (o->cpu_explicit || !o->limits.cpu_s)
		return;
	walk_bytes = 0;
	nftw(dir, add_bytes, 32, FTW_PHYS);
	o->limits.cpu_s = HS_DECODE_CPU_BASE_S + walk_bytes / HS_DECODE_CPU_PER_S_BYTES;
}

static int open_ctf(const char *path, struct hs_read_options *o, struct hs_trace **out, char *err,
		    size_t errlen)
{
	/* libbabeltrace2 can crash, spin or grow on a corrupt trace: read_isolated.h */
	const char *inproc = getenv("HIPSIM_CTF_IN_PROCESS");

	if (inproc && strcmp(inproc, "1") == 0)
		return hs_ctf_open_with(path, o, out, err, errlen);
	scale_cpu_limit(path, o);
	return hs_isolated_open(path, "ctf", hs_ctf_open_with, o, out, err, errlen);
}

int hs_trace_open_with(const char *path, const struct hs_read_options *opts, struct hs_trace **out, char *err,
		       size_t errlen)
{
	struct hs_read_options o;
	bool is_stdin = strcmp(path, "-") == 0, sniff;
	const char *format;
	struct stat st;
	int fd;

	if (opts)
		o = *opts;
	else if (hs_read_options_init(&o, err, errlen) != 0)
		return -1;
	format = o.format ? o.format : "auto";
	sniff = strcmp(format, "auto") == 0;
	if (!sniff && strcmp(format, "rmm") != 0 && strcmp(format, "ctf") != 0) {
		snprintf(err, errlen, "unknown trace format '%s' (auto, rmm or ctf)", format);
		return -1;
	}
	if (!is_stdin && stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!is_stdin && S_ISDIR(st.st_mode)) {
		if (strcmp(format, "rmm") == 0) {
			snprintf(err, errlen, "%s: a directory (an RMM CSV is a file)", path);
			return -1;
		}
		return open_ctf(path, &o, out, err, errlen);
	}
	if (strcmp(format, "ctf") == 0)
		return open_ctf(path, &o, out, err, errlen); /* says what a CTF trace is */
	if (o.have_pid) {
		snprintf(err, errlen, "%s: --pid is for CTF traces (an RMM log is one process's)", path);
		return -1;
	}
	fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return hs_rmm_open_fd(fd, path, sniff, out, err, errlen);
}

int hs_trace_open(const char *path, const char *format, struct hs_trace **out, char *err, size_t errlen)
{
	struct hs_read_options o;

	if (hs_read_options_init(&o, err, errlen) != 0)
		return -1;
	o.format = format;
	return hs_trace_open_with(path, &o, out, err, errlen);
}
