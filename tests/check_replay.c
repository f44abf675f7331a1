/*
 * check_replay.c - hipsim's replay engine and compare, end to end, over
 * the real library on the simulator: exit statuses, event mapping (buffers,
 * streams, graphs, launches), the first failure named with its trace
 * position, partial traces, policies, layout files, and `hipsim compare`.
 *
 * Figures are exact and follow from the simulator's rules: device memory is
 * aligned to 256 bytes (padding = rounded - requested), a sliced pool
 * reserves one page per stream on the first allocation, and pages stay
 * reserved until the device closes (after the report), so device_frees is 0.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hipcore/hipcore.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/layout_file.h"
#include "tests/fixtures/hipsim_cli.h"
#include "tests/runner.h"

START_TEST(replay_rmm_ok)
{
	const char *p = NULL;
	const char *layout = write_file("l.txt", "# one 1 MiB sliced page per stream\nsliced page=1M\n");
	char lpath[512];
	const char *args[] = { "replay", p, "--pools", lpath, "--json", NULL };
	json_t *j;

	snprintf(lpath, sizeof(lpath), "%s", layout);
	p = write_file("ok.csv", HDR
		       "1,0,allocate,0x1000,1000,0x1\n"
		       "1,1,allocate,0x2000,3000,0x2\n"
		       "1,2,free,0x1000,1000,0x1\n"
		       "1,3,allocate,0x1000,500,0x1\n"
		       "1,4,allocate failure,(nil),99999999999,0x2\n"
		       "1,5,free,0x2000,3000,0x2\n"
		       "1,6,free,0x1000,500,0x1\n");
	args[1] = p;
	ck_assert_msg(run(hipsim_replay_main, args) == 0, "%s", err_text);
	j = report();
	/* 2 stream opens + 3 allocs + 3 frees + 1 failure retried (the
	 * layout's install is set-up, not an event) */
	ck_assert_int_eq(num(j, "events"), 9);
	ck_assert_int_eq(num(j, "streams"), 2);
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 4000);	       /* 1000 + 3000 live */
	ck_assert_int_eq(num(j, "peak_reserved_bytes"), 2 << 20);      /* a 1 MiB page per stream */
	ck_assert_int_eq(num(j, "device_allocs"), 2);		       /* those two pages */
	ck_assert_int_eq(num(j, "device_frees"), 0);		       /* kept until close */
	ck_assert_int_eq(num(j, "padding_bytes_peak"), 24 + 72);       /* 1024-1000, 3072-3000 */
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert(json_is_null(json_object_get(j, "first_failing_event")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "workload")), p);
	/* 99999999999 B fits no pool of a 1 MiB layout */
	ck_assert_msg(strstr(err_text, "1 failed here too, 0 succeeded"), "%s", err_text);
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
	char lpath[512], ppath[512];
	const char *args[] = { "replay", p, "--capacity", "1000", "--pools", lpath, "--json", NULL };
	char want[600];
	json_t *j;

	/* A direct pool: exact-size device allocations, so the second 600 B
	 * (768 aligned) does not fit a 1000 B device beside the first. */
	snprintf(ppath, sizeof(ppath), "%s", p);
	args[1] = ppath;
	snprintf(lpath, sizeof(lpath), "%s", write_file("direct.txt", "direct\n"));
	ck_assert_int_eq(run(hipsim_replay_main, args), 1);
	j = report();
	ck_assert_int_eq(num(j, "failures"), 2); /* the OOM, then the free of what it never got */
	/* driver events: stream open, alloc, alloc */
	ck_assert_int_eq(num(j, "first_failing_event"), 2);
	snprintf(want, sizeof(want), "trace event 2 (%s:3, alloc): alloc: HC_ERR_OOM", ppath);
	ck_assert_msg(strstr(json_string_value(json_object_get(j, "first_failure")), want), "%s",
		      json_string_value(json_object_get(j, "first_failure")));
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 600);
	ck_assert_int_eq(num(j, "peak_reserved_bytes"), 768);
	ck_assert_int_eq(num(j, "padding_bytes_peak"), 168);
	ck_assert_int_eq(num(j, "device_allocs"), 1);
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
	/* 2 opens + 2 allocs */
	ck_assert_msg(strstr(out_text, "events ............... 4 on 2 streams"), "%s", out_text);
	ck_assert_msg(strstr(out_text, "hipsim report: trace"), "%s", out_text);
	/* the report says which options made it */
	ck_assert_msg(strstr(out_text, "options .............. pools exclusive, seed 0, profile built-in, "
				       "capacity 140.40 GiB, backend sim, flush-count 5, flush-bytes "
				       "2097152, stage-max 1024\n"), "%s", out_text);
}
END_TEST

#ifdef HIPCORE_WITH_BABELTRACE2
/* --flush-count 1: the fixture's first free fills the drop queue at once,
 * one flush more than with the default policy (9 with the default Workload
 * layout; it was 7 under SubSlices). */
START_TEST(replay_flush_policy_counts)
{
	char path[1024];
	const char *top = getenv("top_srcdir");
	const char *def[] = { "replay", path, "--json", NULL };
	const char *one[] = { "replay", path, "--flush-count", "1", "--json", NULL };
	json_t *j;

	snprintf(path, sizeof(path), "%s/tests/data/ctf-small", top && *top ? top : HC_ABS_TOP_SRCDIR);
	ck_assert_msg(run(hipsim_replay_main, def) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "dq_flushes"), 9);
	json_decref(j);
	ck_assert_msg(run(hipsim_replay_main, one) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "dq_flushes"), 10);
	json_decref(j);
}
END_TEST
#endif

START_TEST(layout_file_parse)
{
	hc_pool_spec pools[HS_LAYOUT_MAX_POOLS];
	hc_pool_layout l;
	char err[600], path[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s", write_file("good.txt",
		"# a layout\n\n  sliced page=32M max_slice=8M cap=1G dealloc_period=64 # tail\n"
		"exclusive max_alloc=0x100000\n"
		"direct reclaim_at=4G\n"));
	ck_assert_int_eq(hs_pools_option(path, &l, pools, err, sizeof(err)), 0);
	ck_assert_int_eq(l.preset, HC_LAYOUT_EXPLICIT);
	ck_assert_uint_eq(l.n_pools, 3);
	ck_assert_int_eq(pools[0].kind, HC_POOL_SLICED);
	ck_assert_uint_eq(pools[0].page_size, 32u << 20);
	ck_assert_uint_eq(pools[0].max_slice_size, 8u << 20);
	ck_assert_uint_eq(pools[0].max_pool_size, 1u << 30);
	ck_assert_uint_eq(pools[0].dealloc_period, 64);
	ck_assert_int_eq(pools[1].kind, HC_POOL_EXCLUSIVE);
	ck_assert_uint_eq(pools[1].max_alloc_size, 1u << 20);
	ck_assert_int_eq(pools[2].kind, HC_POOL_DIRECT);
	ck_assert_uint_eq(pools[2].reclaim_at, 4ull << 30);
	ck_assert_int_eq(hs_pools_option("subslices", &l, pools, err, sizeof(err)), 0);
	ck_assert_int_eq(l.preset, HC_LAYOUT_SUBSLICES);
	ck_assert_int_eq(hs_pools_option("expandable-shared", &l, pools, err, sizeof(err)), 0);
	ck_assert_int_eq(l.preset, HC_LAYOUT_EXPANDABLE_SHARED);
	snprintf(path, sizeof(path), "%s", write_file("shared.txt", "expandable reclaim_at=shared\n"));
	ck_assert_int_eq(hs_pools_option(path, &l, pools, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.n_pools, 1);
	ck_assert_int_eq(pools[0].kind, HC_POOL_EXPANDABLE);
	ck_assert_uint_eq(pools[0].reclaim_at, HC_RECLAIM_AT_SHARED);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "sliced page=1M\nhuge page=1M\n", ":2: unknown pool kind 'huge'" },
		{ "\n# c\nsliced pages=1M\n", ":3: unknown key 'pages'" },
		{ "sliced page=1Q\n", ":1: page: '1Q' is not a size" },
		{ "sliced page=-1\n", ":1: page: '-1' is not a size" },
		{ "sliced page=99999999999G\n", ":1: page: '99999999999G' is not a size" },
		{ "sliced page\n", ":1: 'page' is not KEY=VALUE" },
		{ "# nothing\n\n", ":2: no pool in the layout file" },
		/* what the library would refuse at install, refused at load */
		{ "direct\nsliced page=0\n", ":2: a sliced pool needs page=SIZE, greater than 0" },
		{ "sliced max_slice=1M\n", ":1: a sliced pool needs page=SIZE, greater than 0" },
		{ "sliced page=1M max_slice=2M\n",
		  ":1: max_slice (2097152) is larger than page (1048576): a slice cannot span pages" },
		{ "sliced page=2M cap=1M\n", ":1: cap (1048576) is smaller than page (2097152): no page fits" },
		{ "sliced page=1K cap=1G\n", ":1: cap spans 1048576 pages, more than the 65535 a pool can hold" },
		{ "sliced page=1M page=2M\n", ":1: key 'page' given twice" },
		{ "exclusive max_alloc=1M max_alloc=1M\n", ":1: key 'max_alloc' given twice" },
		{ "direct page=1M\n", ":1: key 'page' does not apply to a direct pool (its keys: reclaim_at)" },
		{ "exclusive reclaim_at=1G\n",
		  ":1: key 'reclaim_at' does not apply to an exclusive pool (its keys: max_alloc, dealloc_period)" },
		{ "persistent\n", ":1: 'persistent' is not a layout pool" },
		{ "expandable reclaim_at=4G\n",
		  ":1: an expandable pool's reclaim_at is 0 (unmap on cleanup only), peak or shared" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s", write_file("bad.txt", bad[i].text));
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(hs_layout_parse(f, "bad.txt", pools, &n, err, sizeof(err)), -1);
		fclose(f);
		ck_assert_msg(strstr(err, bad[i].want) && strncmp(err, "bad.txt:", 8) == 0,
			      "case %zu: %s", i, err);
	}
	ck_assert_int_eq(hs_pools_option("/nonexistent/layout", &l, pools, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "neither a pool layout"), "%s", err);
}
END_TEST

START_TEST(replay_bad_layout_file)
{
	char lpath[512];
	const char *p = write_file("x.csv", HDR);
	const char *args[] = { "replay", p, "--pools", lpath, NULL };

	snprintf(lpath, sizeof(lpath), "%s", write_file("bad.txt", "sliced page=1M\nsliced nope=1\n"));
	ck_assert_int_eq(run(hipsim_replay_main, args), 2);
	ck_assert_msg(strstr(err_text, "bad.txt:2: unknown key 'nope'"), "%s", err_text);
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
	long long predicted;
	json_t *j;

	snprintf(path, sizeof(path), "%s/tests/data/ctf-small", top && *top ? top : HC_ABS_TOP_SRCDIR);
	ck_assert_msg(run(hipsim_replay_main, args) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "failures"), 0);
	ck_assert_int_eq(num(j, "streams"), 2);
	/* both buffers, plus the launch's 3 info words (24 B) held by the
	 * metadata cache in device memory */
	ck_assert_int_eq(num(j, "peak_in_use_bytes"), 4096 + 8192 + 24);
	ck_assert_int_eq(num(j, "launches"), 1);
	ck_assert_int_eq(num(j, "bytes_h2d"), 4096 + 24); /* the write, the info words */
	ck_assert_int_eq(num(j, "bytes_d2h"), 128);
	/* the virtual clock includes the 25 us kernel plus the simulator's
	 * costs of device and pinned allocations, copies and waits: at least
	 * the kernel, and the same on every replay (checked below) */
	ck_assert_int_ge(num(j, "predicted_ns"), 25000);
	predicted = num(j, "predicted_ns");
	/* 2 stream opens, kernel load, alloc x2, write, launch, read, sync,
	 * prepare, begin, end, replay, destroy, failure retried, free x2 */
	ck_assert_int_eq(num(j, "events"), 17);
	ck_assert_msg(strstr(err_text, "1 failed here too"), "%s", err_text);
	json_decref(j);
	ck_assert_msg(run(hipsim_replay_main, args) == 0, "%s", err_text);
	j = report();
	ck_assert_int_eq(num(j, "predicted_ns"), predicted);
	json_decref(j);
}
END_TEST
#endif

/* A JSON report without the two wall-clock keys, as compact text. */
static char *report_without_wall(void)
{
	json_t *j = report();
	char *text;

	ck_assert_int_eq(json_object_del(j, "replay_wall_ns"), 0);
	ck_assert_int_eq(json_object_del(j, "replay_events_per_s"), 0);
	text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	ck_assert_ptr_nonnull(text);
	return text;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Same trace and seed twice: byte-identical SVG, JSON equal apart from the
 * wall-clock keys; the SVG has the device's two lines and two per stream. */
START_TEST(replay_deterministic_svg)
{
	static char svg1[1 << 16], svg2[1 << 16];
	char csv[512], s1[512], s2[512];
	const char *a1[] = { "replay", csv, "--seed", "9", "--json", "--svg", s1, NULL };
	const char *a2[] = { "replay", csv, "--seed", "9", "--json", "--svg", s2, NULL };
	char *j1, *j2;

	snprintf(csv, sizeof(csv), "%s", write_file("d.csv", HDR
		"1,0,allocate,0x1000,1000,a\n1,1,allocate,0x2000,300000,b\n1,2,allocate,0x3000,5000,c\n"
		"1,3,free,0x1000,1000,a\n1,4,allocate,0x1000,70000,a\n1,5,free,0x2000,300000,b\n"
		"1,6,free,0x3000,5000,c\n1,7,free,0x1000,70000,a\n"));
	snprintf(s1, sizeof(s1), "%s/1.svg", tmpdir);
	snprintf(s2, sizeof(s2), "%s/2.svg", tmpdir);
	ck_assert_msg(run(hipsim_replay_main, a1) == 0, "%s", err_text);
	j1 = report_without_wall();
	ck_assert_msg(run(hipsim_replay_main, a2) == 0, "%s", err_text);
	j2 = report_without_wall();
	ck_assert_str_eq(j1, j2);
	free(j1);
	free(j2);
	slurp_into(s1, svg1, sizeof(svg1));
	slurp_into(s2, svg2, sizeof(svg2));
	ck_assert_str_eq(svg1, svg2);
	ck_assert_uint_eq(count(svg1, "<polyline"), 2 + 2 * 3);
	ck_assert_uint_eq(count(svg1, ">stream "), 3);
	ck_assert_msg(strstr(svg1, ">virtual time</text>") && strstr(svg1, " MiB</text>") &&
			      strstr(svg1, ">device in use</text>"),
		      "%s", svg1);
}
END_TEST

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

/* --keys: only those keys; exit 1 when one differs or is missing. */
START_TEST(compare_keys_status)
{
	char pa[512], pb[512];
	const char *same[] = { "compare", "--keys", "x,y", pa, pb, NULL };
	const char *diff[] = { "compare", "--keys", "x,z", pa, pb, NULL };
	const char *gone[] = { "compare", "--keys", "x,w", pa, pb, NULL };

	snprintf(pa, sizeof(pa), "%s", write_file("ka.json", "{\"x\":1,\"y\":\"s\",\"z\":3,\"w\":0}"));
	snprintf(pb, sizeof(pb), "%s", write_file("kb.json", "{\"x\":1,\"y\":\"s\",\"z\":4}"));
	ck_assert_int_eq(run(hipsim_compare_main, same), 0);
	ck_assert_msg(strstr(out_text, "x ") && !strstr(out_text, "z "), "%s", out_text);
	ck_assert_int_eq(run(hipsim_compare_main, diff), 1);
	ck_assert_msg(strstr(err_text, "z differs"), "%s", err_text);
	ck_assert_int_eq(run(hipsim_compare_main, gone), 1);
	ck_assert_msg(strstr(err_text, "w differs (missing)"), "%s", err_text);
}
END_TEST

/* --what-if: one trace, two policy sets, one table; a bad set is exit 2. */
START_TEST(compare_what_if)
{
	char csv[512], l1[512], set_a[600];
	const char *args[] = { "compare", "--keys", "peak_in_use_bytes,peak_reserved_bytes", "--what-if",
			       csv, set_a, "--pools subslices", NULL };
	const char *bad[] = { "compare", "--what-if", csv, "--pools nope", "", NULL };

	snprintf(l1, sizeof(l1), "%s", write_file("w.txt", "sliced page=1M\n"));
	snprintf(set_a, sizeof(set_a), "--pools %s", l1);
	snprintf(csv, sizeof(csv), "%s", write_file("w.csv", HDR "1,0,allocate,0x1000,1000,a\n"
							       "1,1,free,0x1000,1000,a\n"));
	/* same in use; 1 MiB reserved against the subslices ladder's first page */
	ck_assert_int_eq(run(hipsim_compare_main, args), 1);
	ck_assert_msg(strstr(out_text, "A: --pools ") && strstr(out_text, "B: --pools subslices"), "%s",
		      out_text);
	ck_assert_msg(strstr(out_text, "1048576"), "%s", out_text);
	ck_assert_msg(strstr(err_text, "peak_reserved_bytes differs") &&
			      !strstr(err_text, "peak_in_use_bytes differs"),
		      "%s", err_text);
	ck_assert_int_eq(run(hipsim_compare_main, bad), 2);
	ck_assert_msg(strstr(err_text, "the replay with '--pools nope' failed"), "%s", err_text);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("replay");

	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, replay_rmm_ok);
	tcase_add_test(tc, replay_failure_named);
	tcase_add_test(tc, replay_partial_trace);
	tcase_add_test(tc, replay_policy_and_pools);
	tcase_add_test(tc, replay_usage_errors);
	tcase_add_test(tc, layout_file_parse);
	tcase_add_test(tc, replay_bad_layout_file);
#ifdef HIPCORE_WITH_BABELTRACE2
	tcase_add_test(tc, replay_ctf_fixture);
	tcase_add_test(tc, replay_flush_policy_counts);
#endif
	tcase_add_test(tc, replay_deterministic_svg);
	tcase_add_test(tc, compare_reports);
	tcase_add_test(tc, compare_keys_status);
	tcase_add_test(tc, compare_what_if);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(replay_suite);
