/*
 * isolated.c - a reader in a child process (read_isolated.c), on a
 * stand-in reader: its events and warning come back, its read error is
 * passed on, its death is an error, closing early stops it, failures to
 * open are reported, and no child is left behind.
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

/* --- a reader in a child process (read_isolated.c) ---------------------- */

/* A stand-in reader: three events (the second a launch with two bindings),
 * then what fake_mode says.  The child of hs_isolated_open() inherits it. */
enum { FAKE_END, FAKE_ERROR, FAKE_KILLED, FAKE_ENDLESS, FAKE_OPEN_FAILS, FAKE_OPEN_KILLED };
static int fake_mode;

static int fake_next(struct hs_trace *t, struct hs_rev *ev)
{
	if (t->events < 3 || fake_mode == FAKE_ENDLESS) {
		memset(ev, 0, sizeof(*ev));
		ev->kind = t->events == 1 ? HS_REV_LAUNCH : HS_REV_ALLOC;
		ev->buffer = 100 + t->events;
		ev->size = 4096 * (t->events + 1);
		ev->time_ns = 7 * t->events;
		ev->index = t->events;
		if (ev->kind == HS_REV_LAUNCH) {
			ev->n_bindings = 2;
			ev->bindings[0] = (struct hs_rev_binding){ 100, 8, 16, 1 };
			ev->bindings[1] = (struct hs_rev_binding){ 101, 0, 4096, 2 };
		}
		t->events++;
		t->source_events += 2;
		if (t->events == 2)
			snprintf(t->warning, sizeof(t->warning), "fake: discarded 5 event(s)");
		return 1;
	}
	switch (fake_mode) {
	case FAKE_ERROR:
		snprintf(t->error, sizeof(t->error), "fake: event 3: bad payload");
		return -1;
	case FAKE_KILLED:
		/* a decoder dying: SIGTERM, as sanitizers catch SIGSEGV
		 * and a core file could be left */
		raise(SIGTERM);
		return -1;
	default:
		return 0;
	}
}

static void fake_close(struct hs_trace *t)
{
	free(t);
}

static int fake_open(const char *path, const struct hs_read_options *o, struct hs_trace **out, char *err,
		     size_t errlen)
{
	struct hs_trace *t;

	if (fake_mode == FAKE_OPEN_FAILS) {
		snprintf(err, errlen, "%s: no trace in this directory", path);
		return -1;
	}
	if (fake_mode == FAKE_OPEN_KILLED)
		raise(SIGTERM);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -1;
	t->next = fake_next;
	t->close = fake_close;
	t->path = path;
	t->format = "fake";
	*out = t;
	return 0;
}

/* Opens the stand-in in a child and checks its first three events. */
static struct hs_trace *fake_isolated(int mode)
{
	struct hs_trace *t = NULL;
	struct hs_rev ev;
	char err[700];
	int i;

	fake_mode = mode;
	ck_assert_msg(hs_isolated_open("fake-path", "fake", fake_open, NULL, &t, err, sizeof(err)) == 0, "%s", err);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(hs_trace_next(t, &ev), 1);
		ck_assert_uint_eq(ev.index, (uint64_t)i);
		ck_assert_uint_eq(ev.buffer, 100u + (uint64_t)i);
		ck_assert_uint_eq(ev.size, 4096u * (uint64_t)(i + 1));
		ck_assert_uint_eq(ev.time_ns, 7u * (uint64_t)i);
		ck_assert_uint_eq(t->source_events, 2u * (uint64_t)(i + 1));
		if (i == 1) {
			ck_assert_int_eq(ev.kind, HS_REV_LAUNCH);
			ck_assert_uint_eq(ev.n_bindings, 2);
			ck_assert_uint_eq(ev.bindings[0].offset, 8);
			ck_assert_uint_eq(ev.bindings[0].size, 16);
			ck_assert_uint_eq(ev.bindings[1].buffer, 101);
			ck_assert_uint_eq(ev.bindings[1].access, 2);
		} else {
			ck_assert_int_eq(ev.kind, HS_REV_ALLOC);
		}
	}
	ck_assert_uint_eq(t->events, 3);
	return t;
}

START_TEST(isolated_events_end_and_warning)
{
	struct hs_trace *t = fake_isolated(FAKE_END);
	struct hs_rev ev;

	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_int_eq(hs_trace_next(t, &ev), 0);
	ck_assert_str_eq(t->warning, "fake: discarded 5 event(s)");
	ck_assert_str_eq(t->error, "");
	ck_assert_str_eq(t->format, "fake");
	ck_assert_str_eq(t->path, "fake-path");
	hs_trace_close(t);
	no_children();
}
END_TEST

START_TEST(isolated_read_error_passed_on)
{
	struct hs_trace *t = fake_isolated(FAKE_ERROR);
	struct hs_rev ev;

	ck_assert_int_eq(hs_trace_next(t, &ev), -1);
	ck_assert_str_eq(hs_trace_error(t), "fake: event 3: bad payload");
	ck_assert_int_eq(hs_trace_next(t, &ev), -1);
	hs_trace_close(t);
	no_children();
}
END_TEST

START_TEST(isolated_reader_killed_is_an_error)
{
	struct hs_trace *t = fake_isolated(FAKE_KILLED);
	struct hs_rev ev;

	ck_assert_int_eq(hs_trace_next(t, &ev), -1);
	ck_assert_msg(strstr(hs_trace_error(t), "fake-path: event 3: ") == hs_trace_error(t), "%s",
		      hs_trace_error(t));
	ck_assert_msg(strstr(hs_trace_error(t), "killed by signal 15"), "%s", hs_trace_error(t));
	ck_assert_uint_eq(t->events, 3);
	ck_assert_int_eq(hs_trace_next(t, &ev), -1);
	hs_trace_close(t);
	no_children();
}
END_TEST

START_TEST(isolated_close_before_end_stops_child)
{
	struct hs_trace *t = fake_isolated(FAKE_ENDLESS);

	hs_trace_close(t); /* the child is still writing: it must not hang or linger */
	no_children();
}
END_TEST

START_TEST(isolated_open_failures)
{
	struct hs_trace *t = NULL;
	char err[700];

	fake_mode = FAKE_OPEN_FAILS;
	ck_assert_int_eq(hs_isolated_open("dir-x", "fake", fake_open, NULL, &t, err, sizeof(err)), -1);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, "dir-x: no trace in this directory");
	no_children();
	fake_mode = FAKE_OPEN_KILLED;
	ck_assert_int_eq(hs_isolated_open("dir-y", "fake", fake_open, NULL, &t, err, sizeof(err)), -1);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, "dir-y: event 0: ") == err && strstr(err, "killed by signal 15"), "%s", err);
	no_children();
}
END_TEST

Suite *readers_isolated_suite(void)
{
	Suite *s = suite_create("isolated");
	TCase *tc;

	tc = tcase_create("isolated");
	tcase_add_test(tc, isolated_events_end_and_warning);
	tcase_add_test(tc, isolated_read_error_passed_on);
	tcase_add_test(tc, isolated_reader_killed_is_an_error);
	tcase_add_test(tc, isolated_close_before_end_stops_child);
	tcase_add_test(tc, isolated_open_failures);
	suite_add_tcase(s, tc);
	return s;
}
