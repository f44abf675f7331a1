/*
 * helpers.c - what several suites of tests/check_readers share
 * (readers_suites.h): an RMM trace that must open, the fixture trace's
 * path and the check of one CTF event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/readers/readers_suites.h"

struct hs_trace *open_rmm(const char *path)
{
	struct hs_trace *t = NULL;
	char err[512];

	if (hs_rmm_open(path, &t, err, sizeof(err)) != 0)
		ck_abort_msg("hs_rmm_open: %s", err);
	return t;
}

#ifdef HIPCORE_WITH_BABELTRACE2

const char *ctf_fixture(void)
{
	static char path[1024];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/data/ctf-small", top && *top ? top : HC_ABS_TOP_SRCDIR);
	return path;
}

void next_ok(struct hs_trace *t, struct hs_rev *ev, enum hs_rev_kind kind, uint32_t stream,
		    uint64_t stream_id)
{
	int rc = hs_trace_next(t, ev);

	ck_assert_msg(rc == 1, "next: %d %s", rc, hs_trace_error(t));
	ck_assert_msg(ev->kind == kind, "event %" PRIu64 ": %s, want %s", ev->index, hs_rev_kind_name(ev->kind),
		      hs_rev_kind_name(kind));
	ck_assert_uint_eq(ev->stream, stream);
	ck_assert_uint_eq(ev->stream_id, stream_id);
	ck_assert_uint_eq(ev->line, 0);
	ck_assert_uint_eq(ev->index, t->events - 1);
}

#endif /* HIPCORE_WITH_BABELTRACE2 */
