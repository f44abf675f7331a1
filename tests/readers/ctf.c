/*
 * ctf.c - the CTF reader on the fixture traces of tests/data: events in
 * order with their streams, kernel times attached, two traces merged,
 * discarded events counted, the isolated reader agreeing with the
 * in-process one, and the errors of a directory that holds no trace.
 * Built with babeltrace2 only (tests/readers/check_readers.c).
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

#ifdef HIPCORE_WITH_BABELTRACE2

#include <babeltrace2/babeltrace.h>

START_TEST(ctf_small_trace)
{
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char err[700];
	uint64_t last_time = 0;

	ck_assert_msg(hs_trace_open(ctf_fixture(), "auto", &t, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(t->format, "ctf");
	next_ok(t, &ev, HS_REV_STREAM_CREATE, 0, 7);
	ck_assert_uint_gt(ev.time_ns, 1600000000ull * 1000000000ull); /* since the epoch */
	last_time = ev.time_ns;
	next_ok(t, &ev, HS_REV_ALLOC, 0, 7);
	ck_assert_uint_eq(ev.buffer, 100);
	ck_assert_uint_eq(ev.size, 4096);
	ck_assert_uint_ge(ev.time_ns, last_time);
	/* hipcore:pool_reserve is not replayed; stream 9 never had stream_open */
	next_ok(t, &ev, HS_REV_STREAM_CREATE, 1, 9);
	next_ok(t, &ev, HS_REV_ALLOC, 1, 9);
	ck_assert_uint_eq(ev.buffer, 101);
	ck_assert_uint_eq(ev.size, 8192);
	next_ok(t, &ev, HS_REV_WRITE, 0, 7);
	ck_assert_uint_eq(ev.buffer, 100);
	ck_assert_uint_eq(ev.offset, 0);
	ck_assert_uint_eq(ev.size, 4096);
	ck_assert_uint_eq(ev.property, 2);
	next_ok(t, &ev, HS_REV_LAUNCH, 0, 7);
	ck_assert_uint_eq(ev.duration_ns, 25000);
	ck_assert_uint_eq(ev.info_words, 3);
	ck_assert_uint_eq(ev.n_bindings, 2);
	ck_assert_uint_eq(ev.bindings[0].buffer, 100);
	ck_assert_uint_eq(ev.bindings[0].offset, 0);
	ck_assert_uint_eq(ev.bindings[0].size, 4096);
	ck_assert_uint_eq(ev.bindings[0].access, 1);
	ck_assert_uint_eq(ev.bindings[1].buffer, 101);
	ck_assert_uint_eq(ev.bindings[1].offset, 64);
	ck_assert_uint_eq(ev.bindings[1].size, 128);
	ck_assert_uint_eq(ev.bindings[1].access, 2);
	next_ok(t, &ev, HS_REV_READ, 1, 9);
	ck_assert_uint_eq(ev.buffer, 101);
	ck_assert_uint_eq(ev.offset, 64);
	ck_assert_uint_eq(ev.size, 128);
	next_ok(t, &ev, HS_REV_SYNC, 0, 7);
	next_ok(t, &ev, HS_REV_GRAPH_PREPARE, 0, 7);
	next_ok(t, &ev, HS_REV_GRAPH_BEGIN, 0, 7);
	next_ok(t, &ev, HS_REV_GRAPH_END, 0, 7);
	ck_assert_uint_eq(ev.graph, 55);
	next_ok(t, &ev, HS_REV_GRAPH_REPLAY, 0, 7);
	ck_assert_uint_eq(ev.graph, 55);
	next_ok(t, &ev, HS_REV_GRAPH_DESTROY, 0, 0); /* no stream field */
	ck_assert_uint_eq(ev.graph, 55);
	next_ok(t, &ev, HS_REV_ALLOC_FAILURE, 0, 7); /* status 2 when recorded */
	ck_assert_uint_eq(ev.size, 1ull << 40);
	next_ok(t, &ev, HS_REV_FREE, 0, 0);
	ck_assert_uint_eq(ev.buffer, 100);
	next_ok(t, &ev, HS_REV_FREE, 0, 0);
	ck_assert_uint_eq(ev.buffer, 101);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_uint_eq(t->events, 16);
	ck_assert_str_eq(t->warning, "");
	hs_trace_close(t);
}
END_TEST

static void copy_tree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(mkdir(to, 0700), 0);
	while ((e = readdir(d))) {
		char a[1024], b[1024];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(a, sizeof(a), "%s/%s", from, e->d_name);
		snprintf(b, sizeof(b), "%s/%s", to, e->d_name);
		ck_assert_int_eq(stat(a, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			copy_tree(a, b);
		} else {
			FILE *in = fopen(a, "rb"), *out = fopen(b, "wb");
			char buf[4096];
			size_t n;

			ck_assert(in && out);
			while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
				ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
			fclose(in);
			ck_assert_int_eq(fclose(out), 0);
		}
	}
	closedir(d);
}

/* Two traces below one directory: both read, merged in time order. */
/* tests/data/ctf-ktime (ctf-ktime-src/app.c): launches with status 0 take
 * the hipcore:kernel_time measured for their ordinal, even though the
 * measurement comes later in the trace; a failed launch has no ordinal; a
 * launch without a measurement keeps its hint; kernel_time is not replayed. */
START_TEST(ctf_kernel_times_attached)
{
	static const uint64_t want[] = { 41000, 42000, 3000, 4000 };
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char path[1100], err[700];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/data/ctf-ktime", top && *top ? top : HC_ABS_TOP_SRCDIR);
	ck_assert_msg(hs_trace_open(path, "ctf", &t, err, sizeof(err)) == 0, "%s", err);
	next_ok(t, &ev, HS_REV_STREAM_CREATE, 0, 7);
	for (int i = 0; i < 4; i++) {
		next_ok(t, &ev, HS_REV_LAUNCH, 0, 7);
		ck_assert_uint_eq(ev.duration_ns, want[i]);
	}
	next_ok(t, &ev, HS_REV_SYNC, 0, 7);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_str_eq(hs_trace_error(t), "");
	hs_trace_close(t);
}
END_TEST

START_TEST(ctf_two_traces_merged)
{
	char a[600], b[600], err[700];
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	uint64_t last = 0, allocs = 0;
	int rc;

	snprintf(a, sizeof(a), "%s/one", tmpdir);
	snprintf(b, sizeof(b), "%s/two", tmpdir);
	copy_tree(ctf_fixture(), a);
	copy_tree(ctf_fixture(), b);
	ck_assert_msg(hs_ctf_open(tmpdir, &t, err, sizeof(err)) == 0, "%s", err);
	while ((rc = hs_trace_next(t, &ev)) == 1) {
		ck_assert_uint_ge(ev.time_ns, last);
		last = ev.time_ns;
		allocs += ev.kind == HS_REV_ALLOC;
	}
	ck_assert_msg(rc == 0, "%s", hs_trace_error(t));
	/* 16 + 16, less the second stream_open of stream 7 and the second
	 * announcement of stream 9 */
	ck_assert_uint_eq(t->events, 30);
	ck_assert_uint_eq(allocs, 4);
	hs_trace_close(t);
}
END_TEST

/* A trace whose channel overflowed: what is there is read, the loss is reported. */
START_TEST(ctf_discarded_events)
{
	char path[1100], err[700];
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	uint64_t kinds[HS_REV_KIND_COUNT] = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/../ctf-discarded", ctf_fixture());
	ck_assert_msg(hs_trace_open(path, NULL, &t, err, sizeof(err)) == 0, "%s", err);
	while ((rc = hs_trace_next(t, &ev)) == 1)
		kinds[ev.kind]++;
	ck_assert_msg(rc == 0, "%s", hs_trace_error(t));
	ck_assert_uint_eq(t->events, 1655);
	ck_assert_uint_eq(kinds[HS_REV_STREAM_CREATE], 1);
	ck_assert_uint_eq(kinds[HS_REV_ALLOC] + kinds[HS_REV_LAUNCH] + kinds[HS_REV_FREE], 1654);
	ck_assert_msg(strstr(t->warning, "discarded 28346 event(s)"), "'%s'", t->warning);
	ck_assert_msg(strstr(t->warning, "partial"), "'%s'", t->warning);
	hs_trace_close(t);
}
END_TEST

/* Field by field: padding bytes are not part of an event. */
static void same_event(const struct hs_rev *a, const struct hs_rev *b)
{
	uint32_t i;

	ck_assert_int_eq(a->kind, b->kind);
	ck_assert_uint_eq(a->stream, b->stream);
	ck_assert_uint_eq(a->stream_id, b->stream_id);
	ck_assert_uint_eq(a->buffer, b->buffer);
	ck_assert_uint_eq(a->offset, b->offset);
	ck_assert_uint_eq(a->size, b->size);
	ck_assert_uint_eq(a->property, b->property);
	ck_assert_uint_eq(a->time_ns, b->time_ns);
	ck_assert_uint_eq(a->duration_ns, b->duration_ns);
	ck_assert_uint_eq(a->graph, b->graph);
	ck_assert_uint_eq(a->info_words, b->info_words);
	ck_assert_uint_eq(a->info_cache, b->info_cache);
	ck_assert_uint_eq(a->info_key, b->info_key);
	ck_assert_uint_eq(a->line, b->line);
	ck_assert_uint_eq(a->index, b->index);
	ck_assert_uint_eq(a->n_bindings, b->n_bindings);
	for (i = 0; i < a->n_bindings; i++) {
		ck_assert_uint_eq(a->bindings[i].buffer, b->bindings[i].buffer);
		ck_assert_uint_eq(a->bindings[i].offset, b->bindings[i].offset);
		ck_assert_uint_eq(a->bindings[i].size, b->bindings[i].size);
		ck_assert_uint_eq(a->bindings[i].access, b->bindings[i].access);
	}
}

/* hs_trace_open() reads CTF in a child: the same events as in process. */
START_TEST(ctf_isolated_same_as_in_process)
{
	const char *paths[2] = { NULL, NULL };
	char disc[1100], err[700];
	int k;

	snprintf(disc, sizeof(disc), "%s/../ctf-discarded", ctf_fixture());
	paths[0] = ctf_fixture();
	paths[1] = disc;
	for (k = 0; k < 2; k++) {
		struct hs_trace *a = NULL, *b = NULL;
		struct hs_rev ea, eb;
		int ra, rb;

		ck_assert_msg(hs_ctf_open(paths[k], &a, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(hs_trace_open(paths[k], "ctf", &b, err, sizeof(err)) == 0, "%s", err);
		do {
			memset(&ea, 0, sizeof(ea));
			memset(&eb, 0, sizeof(eb));
			ra = hs_trace_next(a, &ea);
			rb = hs_trace_next(b, &eb);
			ck_assert_int_eq(ra, rb);
			ck_assert_uint_eq(a->source_events, b->source_events);
			same_event(&ea, &eb);
		} while (ra == 1);
		ck_assert_int_eq(ra, 0);
		ck_assert_uint_eq(a->events, b->events);
		ck_assert_uint_gt(b->events, 10);
		ck_assert_str_eq(a->warning, b->warning);
		ck_assert_uint_eq(a->helper_cpu_ns, 0);
		ck_assert_uint_gt(b->helper_cpu_ns, 0);
		hs_trace_close(a);
		hs_trace_close(b);
	}
	no_children();
	/* An open error reads the same too. */
	ck_assert_int_eq(hs_ctf_open(tmpdir, &(struct hs_trace *){ NULL }, err, sizeof(err)), -1);
	{
		char err2[700];
		struct hs_trace *t = NULL;

		ck_assert_int_eq(hs_trace_open(tmpdir, "ctf", &t, err2, sizeof(err2)), -1);
		ck_assert_ptr_null(t);
		ck_assert_str_eq(err, err2);
	}
	no_children();
}
END_TEST

START_TEST(ctf_errors)
{
	char err[700], dir[600];
	struct hs_trace *t = NULL;
	FILE *f;

	/* A metadata file that is not CTF metadata. */
	snprintf(dir, sizeof(dir), "%s/bad", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/bad/metadata", tmpdir);
	f = fopen(dir, "w");
	ck_assert_ptr_nonnull(f);
	fputs("this is not TSDL\n", f);
	fclose(f);
	ck_assert_int_eq(hs_ctf_open(tmpdir, &t, err, sizeof(err)), -1);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, tmpdir) == err, "%s", err);
	ck_assert_msg(strstr(err, "/bad"), "%s", err);
	/* Not a directory. */
	ck_assert_int_eq(hs_ctf_open(dir, &t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "not a directory"), "%s", err);
}
END_TEST


Suite *readers_ctf_suite(void)
{
	Suite *s = suite_create("ctf");
	TCase *tc;

	tc = tcase_create("ctf");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ctf_small_trace);
	tcase_add_test(tc, ctf_kernel_times_attached);
	tcase_add_test(tc, ctf_two_traces_merged);
	tcase_add_test(tc, ctf_discarded_events);
	tcase_add_test(tc, ctf_isolated_same_as_in_process);
	tcase_add_test(tc, ctf_errors);
	suite_add_tcase(s, tc);
	return s;
}

#endif /* HIPCORE_WITH_BABELTRACE2 */

