/*
 * rmm.c - the RMM CSV reader on good input and on every kind of malformed
 * input, a missing file, and format detection.  Inputs are written by the
 * tests into the case's scratch directory.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/readers/readers_suites.h"

/* --- RMM: good input ---------------------------------------------------- */

static void expect(struct hs_trace *t, enum hs_rev_kind kind, uint32_t stream, uint64_t buffer,
		   uint64_t size, uint64_t time_ns, uint64_t line)
{
	struct hs_rev ev;
	uint64_t index = t->events;
	int rc = hs_trace_next(t, &ev);

	ck_assert_msg(rc == 1, "next: %d %s", rc, hs_trace_error(t));
	ck_assert_msg(ev.kind == kind, "event %" PRIu64 ": kind %s, want %s", index,
		      hs_rev_kind_name(ev.kind), hs_rev_kind_name(kind));
	ck_assert_uint_eq(ev.stream, stream);
	ck_assert_uint_eq(ev.buffer, buffer);
	ck_assert_uint_eq(ev.size, size);
	ck_assert_uint_eq(ev.time_ns, time_ns);
	ck_assert_uint_eq(ev.line, line);
	ck_assert_uint_eq(ev.index, index);
}

START_TEST(rmm_good_file)
{
	/* Columns reordered, an extra column, CRLF on one line, a blank line,
	 * hex and decimal pointers, both free spellings, a failure, the last
	 * line without a newline. */
	const char *path = write_file("good.csv",
		"Time,Thread,Extra,Action,Pointer,Size,Stream\n"	     /* 1 */
		"10:00:00.000001,140,x,allocate,0x7f0000001000,1024,0x0\n" /* 2 */
		"10:00:00.000002,140,x,allocate,4096,2048,0x0\r\n"	     /* 3 */
		"\n"							     /* 4 */
		"10:00:00.000003,141,x,allocate,0x7F0000002000,512,0x5a00\n" /* 5 */
		"10:00:00.000004,141,x,free,0x7f0000001000,1024,0x5a00\n"    /* 6 */
		"10:00:00.000005,140,x,allocate failure,(nil),99999999999,0x0\n" /* 7 */
		"10:00:00.000006,140,x,deallocate,0x1000,,0x0\n"	      /* 8 */
		"10:00:01.5,140,x,free,0x7f0000002000,512,0x5a00");	      /* 9 */
	struct hs_trace *t = open_rmm(path);
	const uint64_t t0 = 36000ull * 1000000000ull;
	struct hs_rev ev;

	ck_assert_str_eq(t->format, "rmm");
	expect(t, HS_REV_STREAM_CREATE, 0, 0, 0, t0 + 1000, 2);
	expect(t, HS_REV_ALLOC, 0, 1, 1024, t0 + 1000, 2);
	expect(t, HS_REV_ALLOC, 0, 2, 2048, t0 + 2000, 3);
	expect(t, HS_REV_STREAM_CREATE, 1, 0, 0, t0 + 3000, 5);
	expect(t, HS_REV_ALLOC, 1, 3, 512, t0 + 3000, 5);
	expect(t, HS_REV_FREE, 1, 1, 1024, t0 + 4000, 6);
	expect(t, HS_REV_ALLOC_FAILURE, 0, 0, 99999999999ull, t0 + 5000, 7);
	expect(t, HS_REV_FREE, 0, 2, 0, t0 + 6000, 8);
	expect(t, HS_REV_FREE, 1, 3, 512, t0 + 1500000000ull, 9);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_uint_eq(t->events, 9);
	hs_trace_close(t);
}
END_TEST

START_TEST(rmm_stream_ids)
{
	const char *path = write_file("streams.csv",
		"Thread,Time,Action,Pointer,Size,Stream\n"
		"1,0,allocate,0x10,16,0x7f00aa\n"
		"1,0,allocate,0x20,16,default\n"
		"1,0,allocate,0x30,16,0x7f00aa\n"
		"1,0,allocate,0x40,16,17\n");
	struct hs_trace *t = open_rmm(path);
	struct hs_rev ev;
	uint64_t hash_id;

	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_int_eq(ev.kind, HS_REV_STREAM_CREATE);
	ck_assert_uint_eq(ev.stream_id, 0x7f00aa);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.stream_id, 0x7f00aa);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_int_eq(ev.kind, HS_REV_STREAM_CREATE);
	ck_assert_uint_eq(ev.stream, 1);
	hash_id = ev.stream_id; /* "default" is not a number: a hash */
	ck_assert_uint_ne(hash_id, 0);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.stream, 1);
	ck_assert_uint_eq(ev.stream_id, hash_id);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_int_eq(ev.kind, HS_REV_ALLOC);
	ck_assert_uint_eq(ev.stream, 0);
	ck_assert_uint_eq(ev.buffer, 3);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_int_eq(ev.kind, HS_REV_STREAM_CREATE);
	ck_assert_uint_eq(ev.stream, 2);
	ck_assert_uint_eq(ev.stream_id, 17);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.buffer, 4);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	hs_trace_close(t);
}
END_TEST

START_TEST(rmm_time_formats)
{
	const char *path = write_file("times.csv",
		"Thread,Time,Action,Pointer,Size,Stream\n"
		"1,1634567890.123456,allocate,0x10,16,s\n"    /* seconds, 6 digits */
		"1,12.0000000019,allocate,0x20,16,s\n"	      /* 9 digits kept */
		"1,123456789,allocate,0x30,16,s\n"	      /* integer: ns */
		"1,23:59:59.999999,allocate,0x40,16,s\n"      /* time of day */
		"1,00:00:00.000001,allocate,0x50,16,s\n"      /* past midnight */
		"1,,allocate,0x60,16,s\n");		      /* empty: 0 */
	struct hs_trace *t = open_rmm(path);
	const uint64_t day = 86400ull * 1000000000ull;
	struct hs_rev ev;

	ck_assert_int_eq(hs_trace_next(t, &ev), 1); /* stream */
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.time_ns, 1634567890123456000ull);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.time_ns, 12000000001ull);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.time_ns, 123456789ull);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.time_ns, day - 1000);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.time_ns, day + 1000);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_uint_eq(ev.time_ns, 0);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	hs_trace_close(t);
}
END_TEST

/* Lines that repeat the clock of the line before (the reader keeps its
 * value) give the same times as lines that do not, whatever the fraction;
 * a clock out of range after a valid one is still an error. */
START_TEST(rmm_repeated_clock)
{
	const char *path = write_file("clock.csv",
		"Thread,Time,Action,Pointer,Size,Stream\n"
		"1,10:00:00.5,allocate,0x10,16,s\n"
		"1,10:00:00.000001,allocate,0x20,16,s\n"
		"1,10:00:00.12345678,allocate,0x30,16,s\n"
		"1,10:00:01.25,allocate,0x40,16,s\n"
		"1,10:00:01.25,allocate,0x50,16,s\n"
		"1,10:00:00.75,allocate,0x60,16,s\n" /* back to an earlier clock */
		"1,10:00:61.5,allocate,0x70,16,s\n");
	struct hs_trace *t = open_rmm(path);
	const uint64_t t0 = 36000ull * 1000000000ull;
	const uint64_t want[] = { t0 + 500000000ull, t0 + 1000ull, t0 + 123456780ull, t0 + 1250000000ull,
				  t0 + 1250000000ull, t0 + 750000000ull };
	struct hs_rev ev;

	ck_assert_int_eq(hs_trace_next(t, &ev), 1); /* stream */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(hs_trace_next(t, &ev), 1);
		ck_assert_uint_eq(ev.time_ns, want[i]);
	}
	ck_assert_int_eq(hs_trace_next(t, &ev), -1);
	ck_assert_ptr_nonnull(strstr(hs_trace_error(t), ":8: time '10:00:61.5'"));
	hs_trace_close(t);
}
END_TEST

START_TEST(rmm_null_pointers_skipped)
{
	const char *path = write_file("null.csv",
		"Thread,Time,Action,Pointer,Size,Stream\n"
		"1,0,allocate,(nil),0,s\n"
		"1,0,free,0x0,0,s\n"
		"1,0,allocate,0x10,16,s\n");
	struct hs_trace *t = open_rmm(path);
	struct hs_rev ev;

	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_int_eq(ev.kind, HS_REV_STREAM_CREATE);
	ck_assert_int_eq(hs_trace_next(t, &ev), 1);
	ck_assert_int_eq(ev.kind, HS_REV_ALLOC);
	ck_assert_uint_eq(ev.line, 4);
	ck_assert_uint_eq(ev.buffer, 1);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	hs_trace_close(t);
}
END_TEST

/* --- RMM: malformed input ----------------------------------------------- */

#define HDR "Thread,Time,Action,Pointer,Size,Stream\n"

static const struct bad_case {
	const char *name, *text;
	int at_open;	 /* the error comes from hs_rmm_open */
	unsigned line;	 /* expected in "path:line:" */
	const char *what; /* expected in the message */
} bad_cases[] = {
	{ "truncated", HDR "1,0,allocate,0x10,16,s\n1,0,allocate,0x20\n", 0, 3, "truncated line (4 of 6" },
	{ "truncated_last", HDR "1,0,allocate,0x10,16,s\n1,0,free", 0, 3, "truncated line" },
	{ "unknown_action", HDR "1,0,allocate,0x10,16,s\n\n1,0,reallocate,0x10,16,s\n", 0, 4,
	  "unknown action 'reallocate'" },
	{ "negative_size", HDR "1,0,allocate,0x10,-5,s\n", 0, 2, "size '-5' is negative" },
	{ "overflow_size", HDR "1,0,allocate,0x10,18446744073709551616,s\n", 0, 2, "overflows 64 bits" },
	{ "text_size", HDR "1,0,allocate,0x10,12a,s\n", 0, 2, "size '12a' is not a number" },
	{ "empty_size", HDR "1,0,allocate,0x10,,s\n", 0, 2, "size '' is not a number" },
	{ "bad_pointer", HDR "1,0,allocate,0xzz,16,s\n", 0, 2, "pointer '0xzz' is not a number" },
	{ "long_pointer", HDR "1,0,allocate,0x10000000000000000,16,s\n", 0, 2, "overflows" },
	{ "bad_time", HDR "1,10:xx:00.1,allocate,0x10,16,s\n", 0, 2, "time '10:xx:00.1'" },
	{ "overflow_time", HDR "1,99999999999.5,allocate,0x10,16,s\n", 0, 2, "time '99999999999.5' overflows" },
	{ "empty_file", "", 1, 1, "empty file" },
	{ "missing_column", "Thread,Time,Action,Pointer,Size\n1,0,allocate,0x10,16\n", 1, 1,
	  "header lacks column(s) Stream" },
	{ "no_header", "1,0,allocate,0x10,16,s\n", 1, 1,
	  "header lacks column(s) Thread, Time, Action, Pointer, Size, Stream" },
};

START_TEST(rmm_malformed)
{
	const struct bad_case *c = &bad_cases[_i];
	const char *p = write_file(c->name, c->text);
	char path[512], want[600], err[700] = "";
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	int rc;

	snprintf(path, sizeof(path), "%s", p);
	snprintf(want, sizeof(want), "%s:%u: ", path, c->line);
	rc = hs_rmm_open(path, &t, err, sizeof(err));
	if (c->at_open) {
		ck_assert_int_eq(rc, -1);
		ck_assert_ptr_null(t);
	} else {
		ck_assert_msg(rc == 0, "%s: open: %s", c->name, err);
		while ((rc = hs_trace_next(t, &ev)) == 1)
			;
		ck_assert_int_eq(rc, -1);
		snprintf(err, sizeof(err), "%s", hs_trace_error(t));
		hs_trace_close(t);
	}
	ck_assert_msg(strstr(err, want) == err, "%s: '%s' does not start with '%s'", c->name, err, want);
	ck_assert_msg(strstr(err, c->what), "%s: '%s' lacks '%s'", c->name, err, c->what);
}
END_TEST

START_TEST(rmm_missing_file)
{
	char path[512], err[512];
	struct hs_trace *t = NULL;

	snprintf(path, sizeof(path), "%s/absent.csv", tmpdir);
	ck_assert_int_eq(hs_rmm_open(path, &t, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
	ck_assert_int_eq(hs_trace_open(path, "auto", &t, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST


/* --- detection, CTF ----------------------------------------------------- */

START_TEST(detect_formats)
{
	char err[512], dir[512];
	struct hs_trace *t = NULL;
	const char *p;

	p = write_file("a.csv", HDR "1,0,allocate,0x10,16,s\n");
	ck_assert_int_eq(hs_trace_open(p, "auto", &t, err, sizeof(err)), 0);
	ck_assert_str_eq(t->format, "rmm");
	hs_trace_close(t);
	ck_assert_int_eq(hs_trace_open(p, NULL, &t, err, sizeof(err)), 0);
	hs_trace_close(t);
	ck_assert_int_eq(hs_trace_open(p, "rmm", &t, err, sizeof(err)), 0);
	hs_trace_close(t);

	/* A byte-order mark before the header (spreadsheet exports) */
	p = write_file("bom.csv", "\xef\xbb\xbf" HDR "1,0,allocate,0x10,16,s\n");
	ck_assert_int_eq(hs_trace_open(p, "auto", &t, err, sizeof(err)), 0);
	ck_assert_str_eq(t->format, "rmm");
	hs_trace_close(t);

	ck_assert_int_eq(hs_trace_open(p, "json", &t, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown trace format 'json'"));

	p = write_file("b.txt", "hello,world\n");
	ck_assert_int_eq(hs_trace_open(p, "auto", &t, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown trace format"));

	p = write_file("c.txt", "");
	ck_assert_int_eq(hs_trace_open(p, "auto", &t, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, ":1: empty file"));

	/* A directory is CTF; this one holds no trace. */
	snprintf(dir, sizeof(dir), "%s/empty-session", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(hs_trace_open(dir, "auto", &t, err, sizeof(err)), -1);
#ifdef HIPCORE_WITH_BABELTRACE2
	ck_assert_msg(strstr(err, "no CTF trace"), "%s", err);
#else
	ck_assert_msg(strstr(err, "not built in"), "%s", err);
#endif
	/* A file is not a CTF directory. */
	ck_assert_int_eq(hs_trace_open(p, "ctf", &t, err, sizeof(err)), -1);
}
END_TEST

Suite *readers_rmm_suite(void)
{
	Suite *s = suite_create("rmm");
	TCase *tc;

	tc = tcase_create("rmm");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, rmm_good_file);
	tcase_add_test(tc, rmm_stream_ids);
	tcase_add_test(tc, rmm_time_formats);
	tcase_add_test(tc, rmm_repeated_clock);
	tcase_add_test(tc, rmm_null_pointers_skipped);
	tcase_add_loop_test(tc, rmm_malformed, 0, (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
	tcase_add_test(tc, rmm_missing_file);
	tcase_add_test(tc, detect_formats);
	suite_add_tcase(s, tc);
	return s;
}
