/*
 * check_inputs.c - hipsim's readers on what strangers feed them (issue 28):
 *
 *  - the bounds on a CTF decoder child (decode_guard.c): a reader that
 *    spins, sleeps, grows or chatters in the child is stopped or quieted
 *    with a message naming the bound; one that is slow but moves is not;
 *  - libbabeltrace2's own hangs and blow-ups on damaged copies of the
 *    committed trace tests/data/ctf-small: its metadata cut inside a packet
 *    (which libbabeltrace2 2.0 never returns from: stopped by the guard
 *    when the file checks are bypassed, refused at open when they are not),
 *    a binding-array length byte set to 0x08 (refused by ctf_array_guard.c
 *    before anything is allocated), stream files emptied, removed or cut;
 *  - the RMM reader through zlib: gzip and plain give the same events, a
 *    damaged gzip says so, pipes read by path and as "-", headers longer
 *    than 4 KiB, the stream limit, frees and allocations of a log that
 *    begins mid-run.
 *
 * The damaged traces and inputs are made by the tests in a fresh temporary
 * directory.  Every bound used is a second or a few MiB, so the suite runs
 * in seconds (valgrind too).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "config.h"
#include "tools/hipsim/ctf_array_guard.h"
#include "tools/hipsim/read_ctf.h"
#include "tools/hipsim/read_isolated.h"
#include "tools/hipsim/read_options.h"
#include "tools/hipsim/read_rmm.h"
#include "tools/hipsim/replay_event.h"
#include "tests/fixtures/children.h"
#include "tests/fixtures/scratch.h"
#include "tests/runner.h"

#define HDR "Thread,Time,Action,Pointer,Size,Stream\n"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read options with these bounds and nothing from the environment. */
static struct hs_read_options limits(uint64_t cpu_s, uint64_t memory, uint64_t stall_s)
{
	struct hs_read_options o;
	char err[256];

	ck_assert_int_eq(hs_read_options_init(&o, err, sizeof(err)), 0);
	o.limits.cpu_s = cpu_s;
	o.limits.memory = memory;
	o.limits.stall_s = stall_s;
	o.cpu_explicit = true;
	return o;
}

/* --- the guard, on stand-in readers ------------------------------------- */

enum { FAKE_SPIN, FAKE_SLEEP, FAKE_GROW, FAKE_SLOW_ALIVE, FAKE_CHATTY };
static int fake_mode;

static int fake_next(struct hs_trace *t, struct hs_rev *ev)
{
	switch (fake_mode) {
	case FAKE_SPIN:
		for (volatile uint64_t i = 0;; i++)
			;
	case FAKE_SLEEP:
		for (;;)
			pause();
	case FAKE_GROW:
		for (;;) {
			char *p = malloc(8u << 20);

			if (!p) {
				snprintf(t->error, sizeof(t->error), "fake: event 0: out of memory");
				return -1;
			}
			memset(p, 1, 8u << 20);
			hs_note_progress(1); /* busy growing, not stalled */
		}
	case FAKE_SLOW_ALIVE:
		if (t->events == 2)
			return 0;
		for (int i = 0; i < 5; i++) { /* 2.5 s without a record, progress every 0.5 s */
			struct timespec ts = { 0, 500000000 };

			nanosleep(&ts, NULL);
			hs_note_progress(1);
		}
		break;
	case FAKE_CHATTY:
		fprintf(stderr, "fake: chatter from the decoder %" PRIu64 "\n", t->events);
		if (t->events == 3)
			return 0;
		break;
	}
	memset(ev, 0, sizeof(*ev));
	ev->kind = HS_REV_ALLOC;
	ev->buffer = 1 + t->events;
	ev->index = t->events++;
	return 1;
}

static void fake_close(struct hs_trace *t)
{
	free(t);
}

static int fake_open(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
		     size_t errlen)
{
	struct hs_trace *t = calloc(1, sizeof(*t));

	(void)o, (void)err, (void)errlen;
	if (!t)
		return -1;
	if (fake_mode == FAKE_CHATTY)
		fprintf(stderr, "fake: chatter at open\n");
	t->next = fake_next;
	t->close = fake_close;
	t->path = path;
	t->format = "fake";
	*out = t;
	return 0;
}

/* Reads the stand-in in a child under @o to its end; its error, or "". */
static const char *fake_run(int mode, const struct hs_read_options *o, uint64_t *events, double *secs)
{
	static char msg[700];
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	double t0 = now_s();
	int rc;

	fake_mode = mode;
	ck_assert_msg(hs_isolated_open("fake-path", "fake", fake_open, o, &t, msg, sizeof(msg)) == 0, "%s", msg);
	while ((rc = hs_trace_next(t, &ev)) == 1)
		;
	snprintf(msg, sizeof(msg), "%s", rc < 0 ? hs_trace_error(t) : "");
	if (events)
		*events = t->events;
	ck_assert_int_eq(hs_trace_next(t, &ev), rc); /* stays where it ended */
	hs_trace_close(t);
	no_children();
	*secs = now_s() - t0;
	return msg;
}

START_TEST(guard_stall_stops_a_sleeping_decoder)
{
	struct hs_read_options o = limits(0, 0, 1);
	double secs;
	const char *m = fake_run(FAKE_SLEEP, &o, NULL, &secs);

	ck_assert_msg(strstr(m, "fake-path: event 0: the fake reader (run in a child process) made no progress "
			     "for 1 s (--decode-stall) and was stopped") == m, "%s", m);
	ck_assert_msg(secs >= 1.0 && secs < 10, "%.2f s", secs);
}
END_TEST

START_TEST(guard_cpu_limit_stops_a_spinning_decoder)
{
	struct hs_read_options o = limits(1, 0, 0);
	double secs;
	const char *m = fake_run(FAKE_SPIN, &o, NULL, &secs);

	ck_assert_msg(strstr(m, "used its CPU-time limit of 1 s (--decode-cpu) and was stopped"), "%s", m);
	ck_assert_msg(secs >= 0.9 && secs < 20, "%.2f s", secs);
}
END_TEST

START_TEST(guard_memory_limit_stops_a_growing_decoder)
{
	struct hs_read_options o = limits(0, 64u << 20, 0);
	double secs;
	const char *m = fake_run(FAKE_GROW, &o, NULL, &secs);

	/* RLIMIT_DATA makes malloc fail ("out of memory", with the limit
	 * noted); under a sanitizer, or where the rlimit does not bite, the
	 * parent's check of the child's memory stops it. */
	ck_assert_msg((strstr(m, "fake: event 0: out of memory (the decoder's memory limit is 64 MiB: "
				 "--decode-memory)")) ||
			      strstr(m, "went over its memory limit of 64 MiB (--decode-memory) and was stopped"),
		      "%s", m);
	ck_assert_msg(secs < 20, "%.2f s", secs);
}
END_TEST

START_TEST(guard_progress_keeps_a_slow_decoder)
{
	struct hs_read_options o = limits(0, 0, 2);
	uint64_t events;
	double secs;
	const char *m = fake_run(FAKE_SLOW_ALIVE, &o, &events, &secs);

	/* 2.5 s between records, but its progress counter moves: not stalled */
	ck_assert_msg(!m[0], "%s", m);
	ck_assert_uint_eq(events, 2);
	ck_assert_msg(secs >= 5.0, "%.2f s", secs);
}
END_TEST

/* Runs the chatty stand-in with fd 2 in a file; what reached it. */
static const char *chatter(bool verbose)
{
	static char text[4096];
	struct hs_read_options o = limits(0, 0, 0);
	int saved = dup(2), fd = open(tmp_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	uint64_t events;
	double secs;
	const char *m;
	FILE *f;
	size_t n;

	o.verbose = verbose;
	ck_assert(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	m = fake_run(FAKE_CHATTY, &o, &events, &secs);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	ck_assert_msg(!m[0], "%s", m);
	ck_assert_uint_eq(events, 3);
	f = fopen(tmp_path("stderr"), "r");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

START_TEST(guard_decoder_log_only_when_verbose)
{
	ck_assert_str_eq(chatter(false), "");
	ck_assert_str_eq(chatter(true), "fake: chatter at open\nfake: chatter from the decoder 0\n"
					"fake: chatter from the decoder 1\nfake: chatter from the decoder 2\n"
					"fake: chatter from the decoder 3\n");
}
END_TEST

START_TEST(read_options_from_env_and_args)
{
	struct hs_read_options o;
	char err[256];

	setenv("HIPSIM_DECODE_MEMORY", "256M", 1);
	setenv("HIPSIM_DECODE_STALL", "7", 1);
	unsetenv("HIPSIM_DECODE_CPU");
	ck_assert_int_eq(hs_read_options_init(&o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.limits.memory, 256u << 20);
	ck_assert_uint_eq(o.limits.stall_s, 7);
	ck_assert_uint_eq(o.limits.cpu_s, HS_DECODE_CPU_BASE_S);
	ck_assert(!o.cpu_explicit);
	ck_assert_int_eq(hs_read_option(&o, HS_OPT_DECODE_CPU, "0", err, sizeof(err)), 1);
	ck_assert_uint_eq(o.limits.cpu_s, 0);
	ck_assert(o.cpu_explicit);
	ck_assert_int_eq(hs_read_option(&o, HS_OPT_DECODE_STALL, "1.5", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--decode-stall: '1.5' is not a whole number of seconds (0: no limit)");
	ck_assert_int_eq(hs_read_option(&o, HS_OPT_DECODE_MEMORY, "-1", err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "--decode-memory: '-1' is not a size in bytes"), "%s", err);
	ck_assert_int_eq(hs_read_option(&o, HS_OPT_PID, "12x", err, sizeof(err)), -1);
	ck_assert_int_eq(hs_read_option(&o, HS_OPT_PID, "4242", err, sizeof(err)), 1);
	ck_assert(o.have_pid);
	ck_assert_uint_eq(o.pid, 4242);
	ck_assert_int_eq(hs_read_option(&o, 'x', NULL, err, sizeof(err)), 0);
	setenv("HIPSIM_DECODE_STALL", "soon", 1);
	ck_assert_int_eq(hs_read_options_init(&o, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "HIPSIM_DECODE_STALL: 'soon'"), "%s", err);
	unsetenv("HIPSIM_DECODE_MEMORY");
	unsetenv("HIPSIM_DECODE_STALL");
}
END_TEST

/* --- libbabeltrace2 on damaged copies of tests/data/ctf-small ------------ */

#ifdef HIPCORE_WITH_BABELTRACE2

#define TRACE_SUB "ust/uid/0/64-bit"

/* Copies tests/data/ctf-small to the temp dir; returns the copy's path. */
static const char *copy_fixture(void)
{
	static char dir[512];
	const char *top = getenv("top_srcdir");
	char cmd[2048];

	snprintf(dir, sizeof(dir), "%s/trace", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp -R '%s/tests/data/ctf-small' '%s' && chmod -R u+w '%s'",
		 top && *top ? top : HC_ABS_TOP_SRCDIR, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	return dir;
}

static const char *trace_file(const char *dir, const char *name)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/" TRACE_SUB "/%s", dir, name);
	return path;
}

/* Reads @dir with hs_trace_open_with(@o) to the end: the return of the last
 * hs_trace_next() (or -2 when the open failed), with @msg the error. */
static int read_all(const char *dir, const struct hs_read_options *o, char *msg, size_t len, uint64_t *events,
		    bool *partial)
{
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	int rc;

	if (hs_trace_open_with(dir, o, &t, msg, len) != 0)
		return -2;
	while ((rc = hs_trace_next(t, &ev)) == 1)
		;
	snprintf(msg, len, "%s", rc < 0 ? hs_trace_error(t) : "");
	if (events)
		*events = t->events;
	if (partial)
		*partial = t->partial;
	hs_trace_close(t);
	no_children();
	return rc;
}

/* The hang: the metadata cut inside its second packet. */
START_TEST(ctf_cut_metadata_hang_is_bounded)
{
	const char *dir = copy_fixture();
	struct hs_read_options stall = limits(0, 0, 1), cpu = limits(1, 0, 0);
	struct hs_trace *t = NULL;
	char err[700];
	double t0;

	ck_assert_int_eq(truncate(trace_file(dir, "metadata"), 5000), 0);
	/* libbabeltrace2 as it is: it never returns, so the guard stops it */
	t0 = now_s();
	ck_assert_int_eq(hs_isolated_open(dir, "ctf", hs_ctf_open_unchecked, &stall, &t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "event 0: the ctf reader (run in a child process) made no progress for 1 s"),
		      "%s", err);
	ck_assert_msg(now_s() - t0 < 15, "%.1f s", now_s() - t0);
	t0 = now_s();
	ck_assert_int_eq(hs_isolated_open(dir, "ctf", hs_ctf_open_unchecked, &cpu, &t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "used its CPU-time limit of 1 s (--decode-cpu)"), "%s", err);
	ck_assert_msg(now_s() - t0 < 20, "%.1f s", now_s() - t0);
	no_children();
	/* with the file checks, refused before libbabeltrace2 sees it */
	ck_assert_int_eq(read_all(dir, NULL, err, sizeof(err), NULL, NULL), -2);
	ck_assert_msg(strstr(err, "/metadata: cut short: the packet at byte 4096 holds 3121 bytes, the file has "
				  "904 after it"),
		      "%s", err);
}
END_TEST

/* Sets the top byte of the first binding-array length (2, before the
 * bindings 100 and 101 of the fixture's launch) to 0x08: 134217730. */
static void flip_binding_length(const char *dir)
{
	const unsigned char want[20] = { 2, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 101, 0, 0, 0, 0, 0, 0, 0 };
	unsigned char buf[4096];
	const char *path = trace_file(dir, "ch_0");
	FILE *f = fopen(path, "r+b");
	size_t n, at;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf), f);
	for (at = 0; at + sizeof(want) <= n && memcmp(buf + at, want, sizeof(want)) != 0; at++)
		;
	ck_assert_msg(at + sizeof(want) <= n, "no binding array in %s", path);
	ck_assert_int_eq(fseek(f, (long)at + 3, SEEK_SET), 0);
	ck_assert_int_eq(fputc(0x08, f), 0x08);
	ck_assert_int_eq(fclose(f), 0);
}

extern void __lsan_disable(void) __attribute__((weak));
extern void __lsan_enable(void) __attribute__((weak));

START_TEST(ctf_array_length_refused_before_allocating)
{
	const char *dir = copy_fixture();
	const char *want = "reading the trace: a dynamic array of the trace claims 134217730 elements of at least "
			   "64 bits, more than its largest packet (4096 bytes) has room for";
	struct hs_read_options o = limits(0, 0, 0);
	uint64_t refused = hs_ctf_array_guard_refused(), events;
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char err[700];
	int rc;

	flip_binding_length(dir);
	/* In this process with no bound at all: refused, so nothing was
	 * allocated for it (the ~13 GB it claims would not be here).
	 * libbabeltrace2 2.0.4 keeps its source's state after a decoding
	 * error (glib allocations, tests/readers.supp): not ours. */
	if (__lsan_disable)
		__lsan_disable();
	ck_assert_msg(hs_ctf_open(dir, &t, err, sizeof(err)) == 0, "%s", err);
	while ((rc = hs_trace_next(t, &ev)) == 1)
		;
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(hs_trace_error(t), want), "%s", hs_trace_error(t));
	ck_assert_uint_eq(t->events, 5); /* the events before the launch */
	hs_trace_close(t);
	if (__lsan_enable)
		__lsan_enable();
	ck_assert_uint_eq(hs_ctf_array_guard_refused(), refused + 1);
	/* the same through the child process hipsim uses, without limits */
	ck_assert_int_eq(read_all(dir, &o, err, sizeof(err), &events, NULL), -1);
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert_uint_eq(events, 5);
}
END_TEST

START_TEST(ctf_lost_stream_files_reported)
{
	const char *dir = copy_fixture();
	uint64_t intact, events;
	bool partial;
	char err[700], want[700];

	ck_assert_int_eq(read_all(dir, NULL, err, sizeof(err), &intact, &partial), 0);
	ck_assert(!partial);
	ck_assert_uint_gt(intact, 10);
	/* ch_1 holds no event of this trace: emptied, every event is read,
	 * then the loss is an error */
	ck_assert_int_eq(truncate(trace_file(dir, "ch_1"), 0), 0);
	ck_assert_int_eq(read_all(dir, NULL, err, sizeof(err), &events, &partial), -1);
	snprintf(want, sizeof(want), "%s is empty (0 bytes): its events are lost (the replay is partial)",
		 trace_file(dir, "ch_1"));
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert(partial);
	ck_assert_uint_eq(events, intact);
	/* removed: its index still names it */
	ck_assert_int_eq(unlink(trace_file(dir, "ch_1")), 0);
	ck_assert_int_eq(read_all(dir, NULL, err, sizeof(err), &events, &partial), -1);
	snprintf(want, sizeof(want), "%s is missing (index/ch_1.idx lists its packets): its events are lost",
		 trace_file(dir, "ch_1"));
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert(partial);
	/* ch_0, which holds the events, emptied: none read, not 0 events and
	 * a clean end */
	write_bytes(trace_file(dir, "ch_1"), "", 0);
	ck_assert_int_eq(truncate(trace_file(dir, "ch_0"), 0), 0);
	ck_assert_int_eq(read_all(dir, NULL, err, sizeof(err), &events, &partial), -1);
	ck_assert_msg(strstr(err, "is empty (0 bytes): its events are lost, and more stream files like it"), "%s",
		      err);
	ck_assert_uint_eq(events, 0);
}
END_TEST

START_TEST(ctf_cut_stream_file_refused)
{
	const char *dir = copy_fixture();
	char err[700], want[700];

	ck_assert_int_eq(truncate(trace_file(dir, "ch_0"), 2000), 0);
	ck_assert_int_eq(read_all(dir, NULL, err, sizeof(err), NULL, NULL), -2);
	snprintf(want, sizeof(want),
		 "%s: cut short: 2000 bytes, its index (index/ch_0.idx) lists packets up to byte 4096",
		 trace_file(dir, "ch_0"));
	ck_assert_msg(strstr(err, want) == err, "%s", err);
}
END_TEST

/* libbabeltrace2's own log reaches stderr with verbose only. */
START_TEST(ctf_decoder_log_only_when_verbose)
{
	const char *dir = copy_fixture();
	struct hs_read_options o = limits(0, 0, 0);
	char text[8192], err[700];

	flip_binding_length(dir);
	for (int verbose = 0; verbose < 2; verbose++) {
		int saved = dup(2), fd = open(tmp_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		FILE *f;
		size_t n;

		o.verbose = verbose;
		fflush(stderr);
		dup2(fd, 2);
		ck_assert_int_eq(read_all(dir, &o, err, sizeof(err), NULL, NULL), -1);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		close(fd);
		f = fopen(tmp_path("stderr"), "r");
		ck_assert_ptr_nonnull(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = '\0';
		fclose(f);
		if (verbose)
			ck_assert_msg(strstr(text, "PLUGIN/SRC.CTF.FS") && strstr(text, "length=134217730"), "%s",
				      text);
		else
			ck_assert_msg(n == 0, "%s", text);
	}
}
END_TEST

#endif /* HIPCORE_WITH_BABELTRACE2 */

/* --- the RMM reader: zlib, pipes, long headers, streams, mid-run -------- */

/* Reads @path (auto format) to its end; the kinds, buffers and lines in
 * @out as "kind:buffer@line " words; returns the last hs_trace_next(). */
static int events_of(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	size_t n = 0;
	int rc;

	out[0] = '\0';
	if (hs_trace_open(path, "auto", &t, err, errlen) != 0)
		return -2;
	while ((rc = hs_trace_next(t, &ev)) == 1)
		if (n < len)
			n += (size_t)snprintf(out + n, len - n, "%s:%" PRIu64 "@%" PRIu64 " ",
					      hs_rev_kind_name(ev.kind), ev.buffer, ev.line);
	snprintf(err, errlen, "%s", rc < 0 ? hs_trace_error(t) : "");
	hs_trace_close(t);
	return rc;
}

static void write_gz(const char *path, const char *text, size_t n)
{
	gzFile g = gzopen(path, "wb");

	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(gzwrite(g, text, (unsigned)n), (int)n);
	ck_assert_int_eq(gzclose(g), Z_OK);
}

static const char midrun_csv[] = HDR "1,0,free,0x500,64,s\n"	  /* 2: never allocated */
				     "1,0,allocate,0x10,16,s\n"	  /* 3 */
				     "1,0,allocate,0x10,32,s\n"	  /* 4: live: its free unlogged */
				     "1,0,free,0x10,32,s\n"	  /* 5 */
				     "1,0,free,0x10,32,s\n";	  /* 6: freed already */

START_TEST(rmm_midrun_frees_and_allocations)
{
	char ev[512], err[700];
	const char *p = tmp_path("midrun.csv");

	write_bytes(p, midrun_csv, strlen(midrun_csv));
	ck_assert_int_eq(events_of(p, ev, sizeof(ev), err, sizeof(err)), 0);
	/* free of buffer 0 (never live), the same id allocated twice */
	ck_assert_str_eq(ev, "stream_create:0@2 free:0@2 alloc:1@3 alloc:1@4 free:1@5 free:0@6 ");
}
END_TEST

START_TEST(rmm_gzip_reads_as_plain)
{
	char plain[4096], gz[4096], err[700], text[8192];
	size_t n = (size_t)snprintf(text, sizeof(text), "%s", HDR);
	const char *p;

	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "1,%d,%s,0x%x,%d,s%d\n", i,
				      i % 2 ? "free" : "allocate", 0x1000 + (i / 2) * 0x100, 64 + i, i % 3);
	p = tmp_path("t.csv");
	write_bytes(p, text, n);
	ck_assert_int_eq(events_of(p, plain, sizeof(plain), err, sizeof(err)), 0);
	p = tmp_path("t.csv.gz");
	write_gz(p, text, n);
	ck_assert_int_eq(events_of(p, gz, sizeof(gz), err, sizeof(err)), 0);
	ck_assert_str_eq(gz, plain);
	ck_assert_uint_gt(strlen(gz), 200);
}
END_TEST

START_TEST(rmm_gzip_damage_named)
{
	char ev[4096], err[700], text[65536], want[700];
	unsigned char gzbuf[65536];
	size_t n = (size_t)snprintf(text, sizeof(text), "%s", HDR), gn;
	const char *p = tmp_path("d.csv.gz");
	FILE *f;

	for (int i = 0; n < sizeof(text) - 64; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "1,%d,allocate,0x%x,%d,s\n", i, 0x1000 + i * 16,
				      i * 7 % 1000 + 1);
	write_gz(p, text, n);
	f = fopen(p, "rb");
	ck_assert_ptr_nonnull(f);
	gn = fread(gzbuf, 1, sizeof(gzbuf), f);
	fclose(f);
	ck_assert_uint_gt(gn, 1000);
	/* cut short */
	write_bytes(p, gzbuf, gn / 2);
	ck_assert_int_eq(events_of(p, ev, sizeof(ev), err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "the gzip data ends early (a truncated file?)"), "%s", err);
	/* corrupt in the middle of the deflate data */
	for (size_t i = gn / 2; i < gn / 2 + 64; i++)
		gzbuf[i] ^= 0x5a;
	write_bytes(p, gzbuf, gn);
	/* the first read (64 KiB, the header's) decompresses past the damage */
	ck_assert_int_eq(events_of(p, ev, sizeof(ev), err, sizeof(err)), -2);
	snprintf(want, sizeof(want), "%s:1: the gzip data is corrupt: ", p);
	ck_assert_msg(strstr(err, want) == err, "%s", err);
	/* gzip of something else: the message names gzip */
	write_gz(p, "{\"not\": \"a trace\"}\n", 19);
	ck_assert_int_eq(events_of(p, ev, sizeof(ev), err, sizeof(err)), -2);
	snprintf(want, sizeof(want), "%s (gzip, decompressed): unknown trace format: not a directory of CTF "
		 "traces, and its first line ('{\"not\": \"a trace\"}') is not an RMM header", p);
	ck_assert_msg(strstr(err, want) == err, "%s", err);
}
END_TEST

START_TEST(rmm_pipes_read_once)
{
	/* More than a pipe holds, so the writer is still writing while the
	 * header is read (a reopen would lose it, as it did). */
	size_t cap = 4u << 20, n = (size_t)snprintf(NULL, 0, "%s", HDR);
	char *text = malloc(cap), path[64], err[700], *ev = malloc(1u << 20);
	int lines = 0, status;
	pid_t pid;

	ck_assert(text && ev);
	memcpy(text, HDR, n);
	while (n < 1000000) {
		n += (size_t)snprintf(text + n, cap - n, "1,%d,%s,0x%x,4096,s\n", lines, lines % 2 ? "free" : "allocate",
				      0x7000 + (lines / 2) * 0x10);
		lines++;
	}
	for (int mode = 0; mode < 3; mode++) {
		struct hs_trace *t = NULL;
		struct hs_rev e;
		int fd = pipe_from_child(text, n, mode == 2, &pid), saved = -1, rc;

		if (mode == 0) { /* by path, as /dev/stdin or <(...) */
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		} else { /* "-": standard input (plain, then gzip) */
			saved = dup(0);
			dup2(fd, 0);
			snprintf(path, sizeof(path), "-");
		}
		ck_assert_msg(hs_trace_open(path, "auto", &t, err, sizeof(err)) == 0, "%s", err);
		while ((rc = hs_trace_next(t, &e)) == 1)
			;
		ck_assert_msg(rc == 0, "%s", hs_trace_error(t));
		ck_assert_uint_eq(t->events, (uint64_t)lines + 1); /* and the stream */
		hs_trace_close(t);
		if (saved >= 0) {
			dup2(saved, 0);
			close(saved);
		}
		close(fd);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_int_eq(status, 0);
	}
	free(text);
	free(ev);
}
END_TEST

START_TEST(rmm_header_longer_than_4k)
{
	char *text = malloc(200000), ev[512], err[700];
	size_t n = 0;

	ck_assert_ptr_nonnull(text);
	n += (size_t)snprintf(text + n, 200000 - n, "Note_");
	memset(text + n, 'x', 150000);
	n += 150000;
	n += (size_t)snprintf(text + n, 200000 - n, ",Thread,Time,Action,Pointer,Size,Stream\n"
						 "long note,1,0,allocate,0x10,16,s\n");
	write_bytes(tmp_path("long.csv"), text, n);
	ck_assert_msg(events_of(tmp_path("long.csv"), ev, sizeof(ev), err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(ev, "stream_create:0@2 alloc:1@2 ");
	free(text);
}
END_TEST

/* A CSV of one allocation on each of @streams streams. */
static const char *streams_csv(unsigned streams)
{
	static char name[64];
	size_t cap = 64 + streams * 64, n;
	char *text = malloc(cap);

	ck_assert_ptr_nonnull(text);
	n = (size_t)snprintf(text, cap, "%s", HDR);
	for (unsigned i = 0; i < streams; i++)
		n += (size_t)snprintf(text + n, cap - n, "1,%u,allocate,0x%x,256,stream-%u\n", i, 0x1000 + i * 0x100, i);
	snprintf(name, sizeof(name), "streams%u.csv", streams);
	write_bytes(tmp_path(name), text, n);
	free(text);
	return tmp_path(name);
}

START_TEST(rmm_stream_limit)
{
	char *ev = malloc(1 << 16), err[700], want[700];
	const char *p;

	ck_assert_ptr_nonnull(ev);
	p = streams_csv(HS_REV_MAX_STREAMS);
	ck_assert_msg(events_of(p, ev, 1 << 16, err, sizeof(err)) == 0, "%s", err);
	p = streams_csv(300);
	ck_assert_int_eq(events_of(p, ev, 1 << 16, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:258: stream 'stream-256' is the trace's 257th: hipsim replays at most 256 "
		 "streams (libhipcore opens at most 256 per device)", p);
	ck_assert_str_eq(err, want);
	free(ev);
}
END_TEST

static Suite *inputs_suite(void)
{
	Suite *s = suite_create("inputs");
	TCase *tc = tcase_create("guard");

	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, guard_stall_stops_a_sleeping_decoder);
	tcase_add_test(tc, guard_cpu_limit_stops_a_spinning_decoder);
	tcase_add_test(tc, guard_memory_limit_stops_a_growing_decoder);
	tcase_add_test(tc, guard_progress_keeps_a_slow_decoder);
	tcase_add_test(tc, guard_decoder_log_only_when_verbose);
	tcase_add_test(tc, read_options_from_env_and_args);
	suite_add_tcase(s, tc);
#ifdef HIPCORE_WITH_BABELTRACE2
	tc = tcase_create("ctf");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ctf_cut_metadata_hang_is_bounded);
	tcase_add_test(tc, ctf_array_length_refused_before_allocating);
	tcase_add_test(tc, ctf_lost_stream_files_reported);
	tcase_add_test(tc, ctf_cut_stream_file_refused);
	tcase_add_test(tc, ctf_decoder_log_only_when_verbose);
	suite_add_tcase(s, tc);
#endif
	tc = tcase_create("rmm");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, rmm_midrun_frees_and_allocations);
	tcase_add_test(tc, rmm_gzip_reads_as_plain);
	tcase_add_test(tc, rmm_gzip_damage_named);
	tcase_add_test(tc, rmm_pipes_read_once);
	tcase_add_test(tc, rmm_header_longer_than_4k);
	tcase_add_test(tc, rmm_stream_limit);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(inputs_suite);
