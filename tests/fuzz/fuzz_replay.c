/*
 * fuzz_replay.c - libFuzzer target for the path `hipsim replay TRACE` takes:
 * format detection, the reader (the RMM CSV reader through zlib, or the CTF
 * reader in its bounded child process), the replay engine on the simulator,
 * and the JSON and text reports.
 *
 * The first byte chooses what the rest is:
 *   bit 0 clear: a file's bytes (a CSV, gzip or not, or anything), written
 *                to a memfd and opened by path (/proc/self/fd/N, as hipsim
 *                opens a file or <(...)) with --format auto;
 *   bit 0 set:   the event bytes of a CTF data stream, in the frame of
 *                tests/data/ctf-small's metadata and ch_0 (its first FROZEN
 *                bytes, the packet header and context, kept; as fuzz_ctf
 *                does), written to a private trace directory and read as
 *                hipsim reads one: decoded by libbabeltrace2 in a child
 *                process under the decoder limits below;
 *   bit 1:       --strict.
 * Each input is replayed to its end exactly as hipsim_replay_main() does
 * (the same calls; the reports go to /dev/null), under the limits CPU 5 s,
 * memory 256 MiB and no progress 2 s, so no input can hang the target or
 * grow it: that bound is what lets CI fuzz the CTF path at all.
 *
 * Checked: no crash or sanitizer report in hipsim's code; hs_trace_next()
 * returns -1, 0 or 1, events have known kinds and bounded bindings, an
 * error begins with the input's path (and leaves the CTF reader failed); the
 * report's events and failures match the engine's.  A decoder child that
 * dies is a read error, not a crash of the target; when its last message
 * is a sanitizer's SUMMARY naming a frame outside libbabeltrace2, its
 * plugins and glib (read_ctf.c's own bug, which the child hides from
 * libFuzzer), the target aborts.  libFuzzer sees coverage of the parent's
 * side only (the child's counters are its own copy).
 *
 * Seeds (tests/fuzz/corpus/replay/, written by tests/fuzz/replay_seeds.sh):
 * a CSV with several streams, a failed allocation and a mid-run free and
 * re-allocation; the same CSV gzip-compressed; ctf-small's ch_0 events; the
 * same with a binding-array length byte set to 0x08.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/hipsim/read_options.h"
#include "tools/hipsim/replay.h"
#include "tools/hipsim/replay_event.h"

#ifndef HC_SRCDIR
#define HC_SRCDIR "."
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FROZEN 96
#define PACKET 4096
#define MAX_READS 200000

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "fuzz_replay: " __VA_ARGS__);     \
			fputc('\n', stderr);                              \
			abort();                                          \
		}                                                         \
	} while (0)

static char dir[256], stream_path[300];
static uint8_t frame[PACKET], file[PACKET];
static FILE *devnull;

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
		fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
		abort();
	}
	got = fread(p, 1, n, f);
	fclose(f);
	return got;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *trace = getenv("HC_FUZZ_CTF_TRACE");
	static char meta[65536];
	char path[300];
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
	snprintf(dir, sizeof(dir), "/tmp/fuzz_replay.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (write_file(path, meta, n) != 0)
		abort();
	snprintf(stream_path, sizeof(stream_path), "%s/ch_0", dir);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

/* Whether a decoder child's death, as the error words it, is a sanitizer
 * report on hipsim's code (a finding) rather than libbabeltrace2's own.
 * Only a CTF input has a decoder child, and only the guard's own words
 * ("its last message: \"SUMMARY: ...") quote what the child said: a CSV
 * reader's error may quote the input's bytes, "SUMMARY: " among them. */
static int child_finding(int ctf, const char *error)
{
	const char *sum = ctf ? strstr(error, "its last message: \"SUMMARY: ") : NULL;

	if (!sum || strstr(sum, "libFuzzer: out-of-memory"))
		return 0;
	return !strstr(sum, "libbabeltrace2") && !strstr(sum, "babeltrace-plugin") && !strstr(sum, "libglib");
}

/* Replays @path as hipsim_replay_main() does.  Return: the reader's last
 * hs_trace_next(), or -2 when it did not open. */
static int replay(const char *path, int ctf, int strict)
{
	struct hs_options opt = { .backend = "sim" };
	static struct hs_replay r;
	static struct hs_rev ev;
	struct hs_read_options ro;
	struct hs_trace *t = NULL;
	struct hs_report rep;
	char err[700];
	uint64_t n = 0;
	int rc = 0;

	CHECK(hs_read_options_init(&ro, err, sizeof(err)) == 0, "%s", err);
	ro.limits.cpu_s = 5;
	ro.limits.memory = 256u << 20;
	ro.limits.stall_s = 2;
	ro.cpu_explicit = true;
	if (hs_trace_open_with(path, &ro, &t, err, sizeof(err)) != 0) {
		CHECK(t == NULL && strncmp(err, path, strlen(path)) == 0, "open error '%s'", err);
		CHECK(!child_finding(ctf, err), "the decoder child: %s", err);
		return -2;
	}
	CHECK(hs_replay_open(&r, &opt, path) == 0, "the simulator did not open");
	r.strict = strict;
	while (n++ < MAX_READS && (rc = hs_trace_next(t, &ev)) == 1) {
		CHECK(ev.kind < HS_REV_KIND_COUNT && ev.n_bindings <= HS_REV_MAX_BINDINGS,
		      "event %llu: kind %d, %u bindings", (unsigned long long)ev.index, (int)ev.kind, ev.n_bindings);
		hs_replay_event(&r, &ev);
	}
	CHECK(rc >= -1 && rc <= 1, "hs_trace_next returned %d", rc);
	if (rc < 0) {
		CHECK(strncmp(hs_trace_error(t), path, strlen(path)) == 0, "error '%s'", hs_trace_error(t));
		CHECK(!child_finding(ctf, hs_trace_error(t)), "the decoder child: %s", hs_trace_error(t));
		/* (after -1 a reader is for hs_trace_close() only; the
		 * isolated one promises to stay failed) */
		CHECK(strcmp(t->format, "ctf") != 0 || hs_trace_next(t, &ev) == -1,
		      "the CTF reader did not stay failed");
	}
	hs_driver_report(&r.d, path, &rep);
	CHECK(rep.failures == r.d.failures && rep.events == r.d.events, "the report lost count");
	rep.unknown_frees = r.unknown_frees;
	rep.live_allocs = r.live_allocs;
	rep.partial = rc < 0 || t->partial;
	if (rep.partial)
		snprintf(rep.partial_reason, sizeof(rep.partial_reason), "%s", rc < 0 ? hs_trace_error(t) : t->warning);
	hs_report_json(devnull, &rep);
	hs_report_text(devnull, &rep);
	hs_replay_close(&r);
	hs_trace_close(t);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int strict;

	if (size == 0)
		return 0;
	strict = (data[0] >> 1) & 1;
	if (data[0] & 1) {
		size_t n = size - 1 > PACKET - FROZEN ? PACKET - FROZEN : size - 1;

		memcpy(file, frame, PACKET);
		memcpy(file + FROZEN, data + 1, n);
		if (write_file(stream_path, file, PACKET) == 0)
			replay(dir, 1, strict);
	} else {
		char path[64];
		int fd = memfd_create("fuzz_replay", MFD_CLOEXEC);

		if (fd < 0)
			return 0;
		if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
			close(fd);
			return 0;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		replay(path, 0, strict);
		close(fd);
	}
	return 0;
}
