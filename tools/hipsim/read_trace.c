/*
 * read_trace.c - choosing a trace reader: --format auto|rmm|ctf.
 *
 * auto: a directory is CTF (LTTng writes a tree of directories); a regular
 * file whose first line is an RMM header is RMM CSV.  Anything else is an
 * error that says what was seen, so the user can pass --format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "tools/hipsim/read_ctf.h"
#include "tools/hipsim/read_isolated.h"
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

/* Return: "rmm", "ctf", or NULL with @err set. */
static const char *detect(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char line[4096];
	FILE *f;

	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
		return "ctf";
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		snprintf(err, errlen, "%s:1: empty file (no header)", path);
		return NULL;
	}
	fclose(f);
	if (hs_rmm_is_header(line))
		return "rmm";
	snprintf(err, errlen,
		 "%s: unknown trace format (not a directory of CTF traces, and the first line is not "
		 "an RMM header Thread,Time,Action,Pointer,Size,Stream); try --format",
		 path);
	return NULL;
}

int hs_trace_open(const char *path, const char *format, struct hs_trace **out, char *err, size_t errlen)
{
	if (!format || strcmp(format, "auto") == 0) {
		format = detect(path, err, errlen);
		if (!format)
			return -1;
	}
	if (strcmp(format, "rmm") == 0)
		return hs_rmm_open(path, out, err, errlen);
	if (strcmp(format, "ctf") == 0) {
		/* libbabeltrace2 can crash on a corrupt trace: read_isolated.h */
		const char *inproc = getenv("HIPSIM_CTF_IN_PROCESS");

		if (inproc && strcmp(inproc, "1") == 0)
			return hs_ctf_open(path, out, err, errlen);
		return hs_isolated_open(path, "ctf", hs_ctf_open, out, err, errlen);
	}
	snprintf(err, errlen, "unknown trace format '%s' (auto, rmm or ctf)", format);
	return -1;
}
