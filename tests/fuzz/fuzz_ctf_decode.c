/*
 * fuzz_ctf_decode.c - libFuzzer target for hipsim's CTF event decoding.
 *
 * fuzz_ctf writes mutated bytes into a real CTF stream, so most of its work
 * (and most of what it finds) is libbabeltrace2's own CTF parsing, in fork
 * mode.  This target skips the bytes: a source component class of its own,
 * in this process, builds babeltrace2 trace IR and event messages from the
 * input, and read_ctf.c's reader (hs_ctf_open_source(): the same muxer,
 * sink and convert_event as hs_ctf_open()) decodes them.  So the input
 * chooses what read_ctf.c can meet in a payload: event class names (the
 * hipcore:* names it maps, hipcore:cache, kernel_time, device_open, and
 * names it must skip), payload member names (its role names and others),
 * member types (integers of any width, enumerations, bool, string, real,
 * static and dynamic arrays of anything, nested structures, options),
 * values, array lengths (beyond HS_REV_MAX_BINDINGS too), a default clock or
 * none, discarded events, and source failures.  Only valid trace IR is
 * built: Debian's libbabeltrace2 (no developer mode) checks few of its
 * preconditions, so a misuse here would be undefined behaviour inside it,
 * not a finding (unique member names, integer values within their field
 * value range, every field set, clock snapshots that never go back, one
 * clock class, frequency above offset cycles).
 *
 * Each input is read to its end with hs_trace_next().  Checked: no crash or
 * sanitizer report; hs_trace_next returns -1, 0 or 1; events have known
 * kinds, at most HS_REV_MAX_BINDINGS bindings, consecutive indexes, and a
 * dense stream index announced by a stream_create (or 0); after -1 the
 * error text names the input and an event ("fuzz: event N: ") and the
 * reader stays failed; no babeltrace2 error is left on the thread.
 *
 * Input format (read by tests/fuzz/ctf_source.c, where the tables and
 * limits named below are): the bytes are read front to back; reading past
 * the end gives zeros, so every input is valid.  u8 is one byte, var an
 * unsigned LEB128 number (at most 10 bytes), svar a zigzag LEB128 number.
 *
 *   u8 flags   bit 0: the stream class has a default clock class
 *              bit 1: the clock's origin is the Unix epoch
 *              bit 2: the reader watches for kernel times (as when the
 *                     metadata declares hipcore:kernel_time: the first pass
 *                     over the trace may run, re-adding the source)
 *              bit 3: the stream class supports discarded events
 *              bit 4: two streams (else one), of the one stream class
 *   clock      (flags bit 0 only) u8 frequency (an index in freqs[]),
 *              svar offset seconds, var offset cycles (modulo frequency)
 *   u8 n       1 + n % 8 event classes, each:
 *                u8 name (an index in event_names[]; the last: no name)
 *                u8 payload: 0 none, else a structure (below)
 *   events     until the input ends (at most MAX_EVENTS), each u8 op:
 *                0xff  the source fails (after the messages made so far:
 *                      an error cause, then ERROR)
 *                0xfe  u8 stream, var count: 1 + count % 1000000 discarded
 *                      events (skipped where flags bit 3 is clear)
 *                0xfd  the source says AGAIN (twice per input at most)
 *                else  an event of class op % n: u8 stream (two streams
 *                      only), var clock delta (with a clock), then the
 *                      payload's values depth first (below)
 *
 * A type is u8 t, then by t % 16: 0-3 unsigned integer, 4-5 signed, 6
 * unsigned enumeration, 7 signed enumeration (each: u8 bits, 1 + bits % 64),
 * 8 bool, 9 string, 10 real (u8: bit 0 single precision), 11 static array
 * (u8 length, element type), 12 dynamic array (element type), 13-14
 * structure, 15 option (content type).  A structure is u8 count (count % 9
 * members), each u8 name (an index in member_names[]) then its type; a
 * member whose name is already in the structure, or that would take it past
 * MAX_COST / 2 fields, is left out.  Past MAX_DEPTH or MAX_NODES classes
 * every type is a 64-bit unsigned integer (no bytes read); a static array
 * is shortened to MAX_COST / 2 fields.
 *
 * Values: integers svar (signed) or var (unsigned), wrapped into the field
 * value range; bool u8 & 1; string u8 length % 24 then the bytes (up to a
 * NUL); real 8 bytes (single: the low 4); dynamic array var length % 1024
 * (shortened to keep the event under MAX_COST fields) then the elements;
 * option u8 & 1 (has a field), then its value.
 *
 * The seed corpus tests/fuzz/corpus/ctf_decode/ (written in this format by
 * tests/fuzz/ctf_decode_seeds.py):
 * launch_bindings (a clock; stream_open, alloc, a failed alloc, write, a
 * launch with 3 binding structures, then one with 70: an error),
 * parallel_arrays (no clock, two streams; parallel binding arrays, static
 * and dynamic, a plain-id binding array, cache, graph events, discarded
 * events), kernel_time and kernel_time_sim (the first pass for measured
 * kernel times, run or not needed), types_again_error (unknown and nameless
 * classes, strings, reals, options, nested structures, enumerations, AGAIN,
 * then the source fails), clock_overflow (a snapshot past int64 ns),
 * regress-prescan-stays-failed (check_readers' regression input).
 *
 * The source component is tests/fuzz/ctf_source.c (check_readers uses it
 * too).  $HC_FUZZ_CTF_DECODE_DUMP set: the events read are printed.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "tests/fuzz/ctf_source.h"
#include "tools/hipsim/read_ctf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_READS 200000 /* hs_trace_next calls per input */

/* --- the target ---------------------------------------------------------- */

static int dump; /* $HC_FUZZ_CTF_DECODE_DUMP set: print what is read */

/* A broken promise of the reader: say which, then crash for libFuzzer. */
#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fflush(stdout);                                      \
			fprintf(stderr, "fuzz_ctf_decode: " __VA_ARGS__);    \
			fputc('\n', stderr);                                 \
			abort();                                             \
		}                                                            \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const bt_plugin_set *plugins;

	(void)argc;
	(void)argv;
	dump = getenv("HC_FUZZ_CTF_DECODE_DUMP") != NULL;
	/*
	 * Every open finds the utils plugin again (bt_plugin_find), and the
	 * last reference to a plugin unloads its shared object: held here for
	 * the process, each open's dlopen is a reference count instead of a
	 * map, relocation and unmap (most of an execution's time otherwise).
	 */
	if (bt_plugin_find_all(BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugins) != BT_PLUGIN_FIND_ALL_STATUS_OK)
		bt_current_thread_clear_error();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_ctf_input in = { data, size };
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char err[640];
	uint64_t streams = 0;
	int rc = 0, ktime = size > 0 && (data[0] >> 2) & 1;

	if (hs_ctf_open_source("fuzz", fz_ctf_add_source, &in, ktime, &t, err, sizeof(err)) != 0) {
		CHECK(t == NULL && err[0], "open failed without a message or with a reader");
		return 0;
	}
	for (uint64_t n = 0; n < MAX_READS; n++) {
		rc = hs_trace_next(t, &ev);
		if (rc <= 0)
			break;
		if (dump)
			printf("%" PRIu64 ": %s stream %u/%" PRIu64 " t %" PRIu64 " buffer %" PRIu64 " off %" PRIu64
			       " size %" PRIu64 " prop %u dur %" PRIu64 " graph %" PRIu64 " info %u/%u/%" PRIu64
			       " bindings %u\n",
			       ev.index, hs_rev_kind_name(ev.kind), ev.stream, ev.stream_id, ev.time_ns, ev.buffer,
			       ev.offset, ev.size, ev.property, ev.duration_ns, ev.graph, ev.info_words, ev.info_cache,
			       ev.info_key, ev.n_bindings);
		CHECK(rc == 1, "hs_trace_next returned %d", rc);
		CHECK(ev.kind < HS_REV_KIND_COUNT, "event %" PRIu64 ": kind %d", n, (int)ev.kind);
		CHECK(ev.n_bindings <= HS_REV_MAX_BINDINGS, "event %" PRIu64 ": %u bindings", n, ev.n_bindings);
		CHECK(ev.index == n, "event %" PRIu64 " has index %" PRIu64, n, ev.index);
		/* Dense stream indexes, each announced before use (0: none named). */
		if (ev.kind == HS_REV_STREAM_CREATE && ev.stream == streams)
			streams++;
		else
			CHECK(ev.stream == 0 || ev.stream < streams, "event %" PRIu64 ": stream %u not announced (%" PRIu64 " are)",
			      n, ev.stream, streams);
	}
	if (dump)
		printf("end %d: %s %s\n", rc, rc < 0 ? hs_trace_error(t) : "", t->warning);
	/* An error names the input and an event, and the reader stays failed. */
	CHECK(rc >= -1, "hs_trace_next returned %d", rc);
	if (rc == -1) {
		CHECK(strncmp(hs_trace_error(t), "fuzz: event ", 12) == 0, "error text '%s'", hs_trace_error(t));
		CHECK(hs_trace_next(t, &ev) == -1, "the reader did not stay failed");
	}
	hs_trace_close(t);
	/* Nothing left on the thread: the next reader's first babeltrace2
	 * call would break its precondition. */
	CHECK(!bt_current_thread_take_error(), "a babeltrace2 error is left on the thread");
	return 0;
}
