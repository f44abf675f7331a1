/*
 * readers_suites.h - what the suites of tests/check_readers share: hipsim's
 * trace readers, the scratch directory each case writes its inputs into
 * (tests/fixtures/scratch.h), the check that no reader child is left
 * behind (tests/fixtures/children.h), and tests/readers/helpers.c.
 */
#ifndef HC_TESTS_READERS_SUITES_H
#define HC_TESTS_READERS_SUITES_H

#include <stdint.h>

#include "config.h"
#include "tests/fixtures/children.h"
#include "tests/fixtures/scratch.h"
#include "tests/fuzz/ctf_source.h"
#include "tests/runner.h"
#include "tools/hipsim/idmap.h"
#include "tools/hipsim/read_ctf.h"
#include "tools/hipsim/read_isolated.h"
#include "tools/hipsim/read_rmm.h"
#include "tools/hipsim/replay_event.h"

/* The RMM log at @path, opened; aborts the case when it does not open. */
struct hs_trace *open_rmm(const char *path);

#ifdef HIPCORE_WITH_BABELTRACE2
/* tests/data/ctf-small (under $top_srcdir when set). */
const char *ctf_fixture(void);
/* The next event of @t is of @kind on @stream (@stream_id in the trace),
 * numbered in order and from no line. */
void next_ok(struct hs_trace *t, struct hs_rev *ev, enum hs_rev_kind kind, uint32_t stream,
	     uint64_t stream_id);
#endif

/* The suites, in the order tests/check_readers runs them. */
Suite *readers_idmap_suite(void);
Suite *readers_rmm_suite(void);
Suite *readers_isolated_suite(void);
Suite *readers_streaming_suite(void);
Suite *readers_ctf_suite(void);
Suite *readers_ctf_damaged_suite(void);

#endif
