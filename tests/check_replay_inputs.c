/*
 * check_replay_inputs.c - `hipsim replay` on inputs as strangers give them
 * (issue 28), end to end over the real library on the simulator: gzip
 * files and pipes replay as the plain file does; a log that begins mid-run
 * (frees of pointers it never allocated, allocations of live ones) is
 * counted and reported, not fatal, unless --strict; hundreds of streams
 * replay and one past libhipcore's 256 stops the replay naming the limit; a
 * partial replay says so in its JSON and text; option errors name the
 * option.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "config.h"
#include "tools/hipsim/hipsim.h"
#include "tests/fixtures/children.h"
#include "tests/fixtures/hipsim_cli.h"
#include "tests/runner.h"

/* Runs `hipsim replay ARGS` (stdin from @in when not negative). */
static int replay(int in, const char *const *args)
{
	const char *argv[40] = { "replay" };

	for (int i = 0; args[i]; i++) {
		ck_assert_int_lt(i, 38);
		argv[i + 1] = args[i];
	}
	return run_with_stdin(hipsim_replay_main, argv, in);
}

/* The figures of a report that do not depend on the run's clock. */
static void figures(json_t *j, char *buf, size_t len)
{
	snprintf(buf, len, "events %lld streams %lld in_use %lld reserved %lld allocs %lld frees %lld predicted %lld",
		 num(j, "events"), num(j, "streams"), num(j, "peak_in_use_bytes"), num(j, "peak_reserved_bytes"),
		 num(j, "device_allocs"), num(j, "device_frees"), num(j, "predicted_ns"));
}

/* A log of three streams with frees out of order, some 100 KB long. */
static size_t sample_log(char *text, size_t cap)
{
	size_t n = (size_t)snprintf(text, cap, "%s", HDR);

	for (int i = 0; i < 3000; i++) {
		n += (size_t)snprintf(text + n, cap - n, "7,%d,allocate,0x%x,%d,0x%d\n", i, 0x100000 + i * 0x1000,
				      256 + (i * 37) % 5000, i % 3);
		if (i % 4 == 3)
			n += (size_t)snprintf(text + n, cap - n, "7,%d,free,0x%x,,0x%d\n", i,
					      0x100000 + (i - 2) * 0x1000, (i - 2) % 3);
	}
	return n;
}

START_TEST(replay_gzip_and_pipes_as_the_file)
{
	static char text[1 << 20];
	size_t n = sample_log(text, sizeof(text));
	char want[256], got[256];
	const char *plain = tmp_path("log.csv"), *gz = tmp_path("log.csv.gz");
	const char *a_plain[] = { plain, "--json", NULL }, *a_gz[] = { gz, "--json", NULL };
	const char *a_dash[] = { "-", "--json", NULL }, *a_stdin[] = { "/dev/stdin", "--json", NULL };
	gzFile g;
	json_t *j;

	write_bytes(plain, text, n);
	g = gzopen(gz, "wb");
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(gzwrite(g, text, (unsigned)n), (int)n);
	ck_assert_int_eq(gzclose(g), Z_OK);
	ck_assert_msg(replay(-1, a_plain) == 0, "%s", err_text);
	j = report();
	figures(j, want, sizeof(want));
	ck_assert_int_eq(num(j, "streams"), 3);
	json_decref(j);
	ck_assert_msg(replay(-1, a_gz) == 0, "%s", err_text);
	j = report();
	figures(j, got, sizeof(got));
	ck_assert_str_eq(got, want);
	json_decref(j);
	/* zcat X | hipsim replay -, hipsim replay /dev/stdin, and gzip down a pipe */
	for (int k = 0; k < 3; k++) {
		pid_t pid;
		int status, fd = pipe_from_child(text, n, k == 2, &pid);

		ck_assert_msg(replay(fd, k == 1 ? a_stdin : a_dash) == 0, "%d: %s", k, err_text);
		close(fd);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_int_eq(status, 0);
		j = report();
		figures(j, got, sizeof(got));
		ck_assert_str_eq(got, want);
		json_decref(j);
	}
}
END_TEST

static const char midrun_csv[] = HDR "1,0,free,0x500,64,s\n"	  /* 2: never allocated */
				     "1,1,allocate,0x10,1024,s\n" /* 3 */
				     "1,2,allocate,0x10,2048,s\n" /* 4: live: its free unlogged */
				     "1,3,free,0x10,2048,s\n"	  /* 5 */
				     "1,4,free,0x10,2048,s\n";	  /* 6: freed already */

START_TEST(replay_midrun_counted)
{
	const char *p = tmp_path("midrun.csv");
	const char *json[] = { p, "--json", NULL }, *text[] = { p, NULL };
	const char *strict[] = { p, "--json", "--strict", NULL };
	json_t *j, *first;

	write_bytes(p, midrun_csv, strlen(midrun_csv));
	ck_assert_msg(replay(-1, json) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert_int_eq(num(j, "unknown_frees"), 2);
	first = json_object_get(j, "first_unknown_free");
	ck_assert_int_eq(num(first, "event"), 1); /* after the stream's */
	ck_assert_int_eq(num(first, "line"), 2);
	ck_assert_int_eq(num(j, "live_allocs"), 1);
	first = json_object_get(j, "first_live_alloc");
	ck_assert_int_eq(num(first, "event"), 3);
	ck_assert_int_eq(num(first, "line"), 4);
	/* the earlier 1 KiB was freed (unlogged) before the 2 KiB: the peak
	 * is the 2 KiB alone, nothing is left live */
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 2048);
	ck_assert(json_is_false(json_object_get(j, "partial")));
	ck_assert(json_is_null(json_object_get(j, "partial_reason")));
	json_decref(j);

	ck_assert_int_eq(replay(-1, text), 0);
	ck_assert_msg(strstr(out_text, "  unknown frees ........ 2 (first at event 1, line 2): frees of buffers the "
				       "trace did not hold\n"),
		      "%s", out_text);
	ck_assert_msg(strstr(out_text, "  live allocations ..... 1 (first at event 3, line 4): allocations of "
				       "buffers the trace held\n"),
		      "%s", out_text);

	ck_assert_int_eq(replay(-1, strict), 1);
	j = report();
	ck_assert_int_eq(num(j, "failures"), 3);
	ck_assert_int_eq(num(j, "unknown_frees"), 2);
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "first_failure")),
			     ":2, free): free of buffer 0, which the trace did not hold (--strict)"),
		      "%s", json_string_value(json_object_get(j, "first_failure")));
	json_decref(j);
}
END_TEST

static const char *streams_csv(unsigned streams)
{
	static char name[64];
	size_t cap = 64 + streams * 64, n;
	char *text = malloc(cap);
	const char *p;

	ck_assert_ptr_nonnull(text);
	n = (size_t)snprintf(text, cap, "%s", HDR);
	for (unsigned i = 0; i < streams; i++)
		n += (size_t)snprintf(text + n, cap - n, "1,%u,allocate,0x%x,256,stream-%u\n", i, 0x1000 + i * 0x100, i);
	snprintf(name, sizeof(name), "streams%u.csv", streams);
	p = tmp_path(name);
	write_bytes(p, text, n);
	free(text);
	return p;
}

START_TEST(replay_hundreds_of_streams)
{
	const char *p200 = streams_csv(200), *p300 = streams_csv(300);
	const char *a200[] = { p200, "--json", NULL }, *a300[] = { p300, "--json", NULL };
	char want[600];
	json_t *j;

	ck_assert_msg(replay(-1, a200) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "streams"), 200);
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 200 * 256);
	json_decref(j);

	/* stopped at the 257th, not failing event by event */
	ck_assert_int_eq(replay(-1, a300), 2);
	snprintf(want, sizeof(want), "hipsim replay: %s:258: stream 'stream-256' is the trace's 257th: hipsim replays "
		 "at most 256 streams (libhipcore opens at most 256 per device)", p300);
	ck_assert_msg(strstr(err_text, want) == err_text, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "streams"), 256);
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert(json_is_true(json_object_get(j, "partial")));
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "partial_reason")), "at most 256 streams"), "%s",
		      out_text);
	json_decref(j);
}
END_TEST

START_TEST(replay_partial_said)
{
	const char *p = tmp_path("bad.csv");
	const char *json[] = { p, "--json", NULL }, *text[] = { p, NULL };
	char want[600];
	json_t *j;

	static const char bad[] = HDR "1,0,allocate,0x10,16,s\n1,0,bogus,0x10,16,s\n";

	write_bytes(p, bad, strlen(bad));
	ck_assert_int_eq(replay(-1, json), 2);
	j = report();
	snprintf(want, sizeof(want), "%s:3: unknown action 'bogus'", p);
	ck_assert(json_is_true(json_object_get(j, "partial")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "partial_reason")), want);
	json_decref(j);
	ck_assert_int_eq(replay(-1, text), 2);
	snprintf(want, sizeof(want), "  partial .............. yes: %s:3: unknown action 'bogus'\n", p);
	ck_assert_msg(strstr(out_text, want), "%s", out_text);
}
END_TEST

START_TEST(replay_read_option_errors)
{
	const char *p = tmp_path("ok.csv");
	const char *cpu[] = { p, "--decode-cpu", "soon", NULL }, *pid[] = { p, "--pid", "42", NULL };
	const char *mem[] = { p, "--decode-memory", "1T", NULL };

	static const char ok[] = HDR "1,0,allocate,0x10,16,s\n";

	write_bytes(p, ok, strlen(ok));
	ck_assert_int_eq(replay(-1, cpu), 2);
	ck_assert_str_eq(err_text, "hipsim replay: --decode-cpu: 'soon' is not a whole number of seconds (0: no limit)\n");
	ck_assert_int_eq(replay(-1, mem), 2);
	ck_assert_msg(strstr(err_text, "--decode-memory: '1T' is not a size in bytes"), "%s", err_text);
	ck_assert_int_eq(replay(-1, pid), 2);
	ck_assert_msg(strstr(err_text, "--pid is for CTF traces"), "%s", err_text);
}
END_TEST

#ifdef HIPCORE_WITH_BABELTRACE2
/* A CTF replay that loses events says so: events the tracer discarded
 * (the exit status is the events' own), a lost stream file (exit 2). */
START_TEST(replay_ctf_partial_said)
{
	const char *top = getenv("top_srcdir");
	char src[1024], dir[1024], cmd[4200];
	const char *disc[] = { src, "--json", NULL }, *lost[] = { dir, "--json", NULL };
	json_t *j;

	snprintf(src, sizeof(src), "%s/tests/data/ctf-discarded", top && *top ? top : HC_ABS_TOP_SRCDIR);
	/* exit 1: launches bind buffers whose allocations were discarded */
	ck_assert_msg(replay(-1, disc) == 1, "%s", err_text);
	j = report();
	ck_assert(json_is_true(json_object_get(j, "partial")));
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "partial_reason")), "discarded 28346 event(s)"),
		      "%s", out_text);
	json_decref(j);

	snprintf(dir, sizeof(dir), "%s/trace", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp -R '%s/tests/data/ctf-small' '%s' && chmod -R u+w '%s' && : > '%s/ust/uid/0/64-bit/ch_1'",
		 top && *top ? top : HC_ABS_TOP_SRCDIR, dir, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(replay(-1, lost), 2);
	j = report();
	ck_assert_int_gt(num(j, "events"), 5);
	ck_assert(json_is_true(json_object_get(j, "partial")));
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "partial_reason")), "ch_1 is empty (0 bytes)"), "%s",
		      out_text);
	json_decref(j);
}
END_TEST
#endif

static Suite *replay_inputs_suite(void)
{
	Suite *s = suite_create("replay_inputs");
	TCase *tc = tcase_create("inputs");

	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, replay_gzip_and_pipes_as_the_file);
	tcase_add_test(tc, replay_midrun_counted);
	tcase_add_test(tc, replay_hundreds_of_streams);
	tcase_add_test(tc, replay_partial_said);
	tcase_add_test(tc, replay_read_option_errors);
#ifdef HIPCORE_WITH_BABELTRACE2
	tcase_add_test(tc, replay_ctf_partial_said);
#endif
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(replay_inputs_suite);
