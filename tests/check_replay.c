/*
 * check_replay.c - hipsim's replay engine and compare, end to end, over a
 * stand-in for the public API (tests/fake_hipcore.c) until the core links:
 * exit statuses, event mapping (buffers, streams, graphs, launches), the
 * first failure named with its trace position, partial traces, policies,
 * and `hipsim compare`.
 */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hipcore/hipcore.h"
#include "tools/hipsim/hipsim.h"

extern hc_policy fake_policy;
extern int fake_policy_set;
extern int fake_layout_installs;

static char tmpdir[256];
static char out_text[1 << 16], err_text[1 << 16];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_replay.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Runs a hipsim subcommand with stdout and stderr captured. */
static int run(int (*fn)(int, char **), const char *const *args)
{
	char *argv[32], o[512], e[512];
	int argc = 0, so, se, fo, fe, rc;

	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	snprintf(o, sizeof(o), "%s/stdout", tmpdir);
	snprintf(e, sizeof(e), "%s/stderr", tmpdir);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(so >= 0 && se >= 0 && fo >= 0 && fe >= 0);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so), close(se), close(fo), close(fe);
	slurp(o, out_text, sizeof(out_text));
	slurp(e, err_text, sizeof(err_text));
	return rc;
}

static json_t *report(void)
{
	json_error_t je;
	json_t *j = json_loads(out_text, 0, &je);

	ck_assert_msg(j != NULL, "not JSON: %s\n%s", je.text, out_text);
	return j;
}

static long long num(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	ck_assert_msg(json_is_integer(v), "no integer %s", key);
	return json_integer_value(v);
}

#define HDR "Thread,Time,Action,Pointer,Size,Stream\n"

START_TEST(replay_rmm_ok)
{
	const char *p = write_file("ok.csv", HDR
				   "1,0,allocate,0x1000,1000,0x1\n"
				   "1,1,allocate,0x2000,3000,0x2\n"
				   "1,2,free,0x1000,1000,0x1\n"
				   "1,3,allocate,0x1000,500,0x1\n"
				   "1,4,allocate failure,(nil),99999999999,0x2\n"
				   "1,5,free,0x2000,3000,0x2\n"
				   "1,6,free,0x1000,500,0x1\n");
	const char *args[] = { "replay", p, "--json", NULL };
	json_t *j;

	ck_assert_msg(run(hipsim_replay_main, args) == 0, "%s", err_text);
	j = report();
	/* 2 stream opens + 3 allocs + 3 frees + 1 failure retried */
	ck_assert_int_eq(num(j, "events"), 9);
	ck_assert_int_eq(num(j, "streams"), 2);
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 4000);
	ck_assert_int_eq(num(j, "device_allocs"), 3);
	ck_assert_int_eq(num(j, "device_frees"), 3);
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert(json_is_null(json_object_get(j, "first_failing_event")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "workload")), p);
	ck_assert_msg(strstr(err_text, "1 failed here too, 0 succeeded"), "%s", err_text);
	ck_assert_int_eq(fake_policy_set, 0);
	json_decref(j);
}
END_TEST

START_TEST(replay_failure_named)
{
	const char *p = write_file("oom.csv", HDR
				   "1,0,allocate,0x1000,600,s\n"
				   "1,0,allocate,0x2000,600,s\n"	 /* above 1000 */
				   "1,0,free,0x2000,600,s\n"		 /* the replay never held it */
				   "1,0,free,0x1000,600,s\n");
	const char *args[] = { "replay", p, "--capacity", "1000", "--json", NULL };
	char want[600];
	json_t *j;

	ck_assert_int_eq(run(hipsim_replay_main, args), 1);
	j = report();
	ck_assert_int_eq(num(j, "failures"), 2);
	ck_assert_int_eq(num(j, "first_failing_event"), 2); /* driver events: open, alloc, alloc */
	snprintf(want, sizeof(want), "trace event 2 (%s:3, alloc): alloc: out of memory", p);
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "first_failure")), want), "%s",
		      json_string_value(json_object_get(j, "first_failure")));
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 600);
	json_decref(j);
}
END_TEST

START_TEST(replay_partial_trace)
{
	const char *p = write_file("partial.csv", HDR
				   "1,0,allocate,0x1000,100,s\n"
				   "1,0,allocate,0x2000,200,s\n"
				   "1,0,bogus,0x2000,200,s\n"
				   "1,0,allocate,0x3000,300,s\n");
	const char *args[] = { "replay", p, "--json", NULL };
	char want[600];
	json_t *j;

	ck_assert_int_eq(run(hipsim_replay_main, args), 2);
	j = report();
	ck_assert_int_eq(num(j, "events"), 3);
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 300);
	snprintf(want, sizeof(want), "%s:4: unknown action 'bogus'", p);
	ck_assert_msg(strstr(err_text, want), "%s", err_text);
	ck_assert_msg(strstr(err_text, "the trace is partial: 3 events replayed"), "%s", err_text);
	json_decref(j);
}
END_TEST

START_TEST(replay_policy_and_pools)
{
	const char *p = write_file("p.csv", HDR "1,0,allocate,0x1000,100,a\n1,0,allocate,0x2000,100,b\n");
	const char *args[] = { "replay", p, "--flush-count", "5", "--flush-bytes", "2M", "--stage-max", "1K",
			       "--pools", "exclusive", NULL };

	ck_assert_int_eq(run(hipsim_replay_main, args), 0);
	ck_assert_int_eq(fake_policy_set, 1);
	ck_assert_uint_eq(fake_policy.dq_max_count, 5);
	ck_assert_uint_eq(fake_policy.dq_max_bytes, 2u << 20);
	ck_assert_uint_eq(fake_policy.stage_max_bytes, 1024);
	ck_assert_int_eq(fake_layout_installs, 2);
	ck_assert_msg(strstr(out_text, "hipsim report: workload"), "%s", out_text);
}
END_TEST

START_TEST(replay_usage_errors)
{
	const char *none[] = { "replay", NULL };
	const char *two[] = { "replay", "a", "b", NULL };
	const char *pools[] = { "replay", "x.csv", "--pools", "huge", NULL };
	const char *num_bad[] = { "replay", "x.csv", "--flush-count", "-1", NULL };
	const char *fmt[] = { "replay", "x.csv", "--format", "xml", NULL };
	char missing[512];
	const char *absent[] = { "replay", missing, NULL };

	ck_assert_int_eq(run(hipsim_replay_main, none), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "a TRACE is needed"));
	ck_assert_int_eq(run(hipsim_replay_main, two), 2);
	ck_assert_int_eq(run(hipsim_replay_main, pools), 2);
	ck_assert_int_eq(run(hipsim_replay_main, num_bad), 2);
	char cwd[1024];

	write_file("x.csv", HDR);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(run(hipsim_replay_main, fmt), 2);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_msg(strstr(err_text, "unknown trace format 'xml'"), "%s", err_text);
	snprintf(missing, sizeof(missing), "%s/absent.csv", tmpdir);
	ck_assert_int_eq(run(hipsim_replay_main, absent), 2);
	ck_assert_msg(strstr(err_text, "No such file"), "%s", err_text);
}
END_TEST

#ifdef HIPCORE_WITH_BABELTRACE2
START_TEST(replay_ctf_fixture)
{
	char path[1024];
	const char *top = getenv("top_srcdir");
	const char *args[] = { "replay", path, "--json", NULL };
	json_t *j;

	snprintf(path, sizeof(path), "%s/tests/data/ctf-small", top && *top ? top : HC_ABS_TOP_SRCDIR);
	ck_assert_msg(run(hipsim_replay_main, args) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert_int_eq(num(j, "streams"), 2);
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 4096 + 8192);
	ck_assert_int_eq(num(j, "launches"), 1);
	ck_assert_int_eq(num(j, "bytes_h2d"), 4096);
	ck_assert_int_eq(num(j, "bytes_d2h"), 128);
	ck_assert_int_eq(num(j, "predicted_ns"), 25000);
	/* 2 stream opens, kernel load, alloc x2, write, launch, read, sync,
	 * prepare, begin, end, replay, destroy, failure retried, free x2 */
	ck_assert_int_eq(num(j, "events"), 17);
	ck_assert_msg(strstr(err_text, "1 failed here too"), "%s", err_text);
	json_decref(j);
}
END_TEST
#endif

START_TEST(compare_reports)
{
	const char *a = write_file("a.json", "{\"workload\":\"x\",\"peak_in_use_bytes\":1000,\"rate\":2.5,"
					     "\"nested\":{\"k\":4},\"only_a\":1}");
	char pa[512];
	const char *b, *args[4];

	snprintf(pa, sizeof(pa), "%s", a);
	b = write_file("b.json", "{\"workload\":\"y\",\"peak_in_use_bytes\":1500,\"rate\":5,"
				 "\"nested\":{\"k\":4},\"only_b\":null}");
	args[0] = "compare", args[1] = pa, args[2] = b, args[3] = NULL;
	ck_assert_int_eq(run(hipsim_compare_main, args), 0);
	ck_assert_msg(strstr(out_text, "peak_in_use_bytes") && strstr(out_text, "500") &&
			      strstr(out_text, "1.5000"),
		      "%s", out_text);
	ck_assert_msg(strstr(out_text, "nested.k"), "%s", out_text);
	ck_assert_msg(strstr(out_text, "2.0000"), "%s", out_text); /* rate */
	ck_assert_msg(strstr(out_text, "differs"), "%s", out_text); /* workload */
	ck_assert_msg(strstr(out_text, "only in A: only_a") && strstr(out_text, "only in B: only_b"), "%s",
		      out_text);
	b = write_file("bad.json", "{\"x\": ");
	args[2] = b;
	ck_assert_int_eq(run(hipsim_compare_main, args), 2);
	ck_assert_msg(strstr(err_text, "bad.json:1:"), "%s", err_text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("replay");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, replay_rmm_ok);
	tcase_add_test(tc, replay_failure_named);
	tcase_add_test(tc, replay_partial_trace);
	tcase_add_test(tc, replay_policy_and_pools);
	tcase_add_test(tc, replay_usage_errors);
#ifdef HIPCORE_WITH_BABELTRACE2
	tcase_add_test(tc, replay_ctf_fixture);
#endif
	tcase_add_test(tc, compare_reports);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
