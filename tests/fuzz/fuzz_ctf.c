/*
 * fuzz_ctf.c - libFuzzer target for hipsim's CTF reader (event decoding).
 *
 * read_ctf.c decodes payloads straight from libbabeltrace2's bt_field
 * objects (convert_event/decode_bindings take bt_message and bt_field), so
 * the decoding is not separable from libbabeltrace2 without a fake of its
 * field API.  This target therefore fuzzes the whole path with real CTF:
 * the metadata and the first data stream (ch_0) of tests/data/ctf-small (a
 * libhipcore LTTng trace, event classes hipcore:*) are the frame, and the
 * input replaces the stream's bytes after its packet header and context
 * (FROZEN bytes): event headers (class id, timestamp) and event payloads are
 * what the fuzzer mutates; a shorter input leaves the seed's bytes after it.
 * Freezing the packet header and context keeps the inputs away from
 * libbabeltrace2's own packet-level assertions (a mutated packet context
 * aborts inside Debian's libbabeltrace2 2.0, msg-iter.c, before read_ctf.c
 * sees a message: not this project's code).  Each input is written to a
 * private temporary trace directory and read with
 * hs_ctf_open()/hs_trace_next() to its end (at most 100000 events).
 * Checked: no crash or sanitizer report in read_ctf.c; hs_trace_next
 * returns -1, 0 or 1; events have known kinds and at most
 * HS_REV_MAX_BINDINGS bindings.  Malformed events are an error (-1), never a
 * crash.  The seed corpus tests/fuzz/corpus/ctf/ holds the event bytes of
 * ch_0 and ch_1.
 *
 * The trace is found at $HC_FUZZ_CTF_TRACE (the directory holding metadata
 * and ch_0), else at the path compiled in (HC_SRCDIR).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "tools/hipsim/read_ctf.h"

#ifndef HC_SRCDIR
#define HC_SRCDIR "."
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FROZEN 96
#define PACKET 4096

static char dir[256], stream_path[300];
static uint8_t frame[PACKET], file[PACKET];

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

static size_t read_file(const char *path, void *p, size_t n)
{
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f) {
		fprintf(stderr, "fuzz_ctf: cannot read %s\n", path);
		abort();
	}
	got = fread(p, 1, n, f);
	fclose(f);
	return got;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *trace = getenv("HC_FUZZ_CTF_TRACE");
	char path[300];
	static char meta[65536];
	size_t n;

	(void)argc;
	(void)argv;
	if (!trace)
		trace = HC_SRCDIR "/tests/data/ctf-small/ust/uid/0/64-bit";
	snprintf(path, sizeof(path), "%s/metadata", trace);
	n = read_file(path, meta, sizeof(meta));
	snprintf(path, sizeof(path), "%s/ch_0", trace);
	if (read_file(path, frame, sizeof(frame)) != PACKET)
		abort();
	snprintf(dir, sizeof(dir), "/tmp/fuzz_ctf.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (write_file(path, meta, n) != 0)
		abort();
	snprintf(stream_path, sizeof(stream_path), "%s/ch_0", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char err[640];
	int rc;

	memcpy(file, frame, PACKET);
	if (size > PACKET - FROZEN)
		size = PACKET - FROZEN;
	memcpy(file + FROZEN, data, size);
	if (write_file(stream_path, file, PACKET) != 0)
		return 0;
	if (hs_ctf_open(dir, &t, err, sizeof(err)) != 0) {
		if (t != NULL || bt_current_thread_take_error())
			__builtin_trap();
		return 0;
	}
	for (int n = 0; n < 100000; n++) {
		rc = hs_trace_next(t, &ev);
		if (rc <= 0) {
			if (rc < -1)
				__builtin_trap();
			break;
		}
		if (rc != 1 || ev.kind >= HS_REV_KIND_COUNT || ev.n_bindings > HS_REV_MAX_BINDINGS)
			__builtin_trap();
	}
	hs_trace_close(t);
	/* An error left on the thread makes libbabeltrace2 abort the next
	 * open: fail on the input that left it, not on the one after. */
	if (bt_current_thread_take_error())
		__builtin_trap();
	return 0;
}
