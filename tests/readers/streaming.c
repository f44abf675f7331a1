/*
 * streaming.c - the RMM reader streams a long log in bounded memory.
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

/* --- RMM: streaming ----------------------------------------------------- */

START_TEST(rmm_streaming_bounded)
{
	enum { LINES = 1000000, LIVE = 1000, STREAMS = 4 };
	char path[512];
	struct hs_trace *t;
	struct hs_rev ev;
	uint64_t allocs = 0, frees = 0, creates = 0, bytes = 0;
	size_t peak = 0;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/big.csv", tmpdir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("Thread,Time,Action,Pointer,Size,Stream\n", f);
	/* Allocation i lives until line i + LIVE frees it: LIVE pointers live. */
	for (uint64_t i = 0; i < LINES / 2; i++) {
		fprintf(f, "7,%" PRIu64 ",allocate,0x%" PRIx64 ",%" PRIu64 ",0x%x\n", 2 * i,
			(uint64_t)(0x7f0000000000ull + i * 256), 256 + i % 4096, (unsigned)(i % STREAMS));
		if (i >= LIVE)
			fprintf(f, "7,%" PRIu64 ",free,0x%" PRIx64 ",%" PRIu64 ",0x%x\n", 2 * i + 1,
				(uint64_t)(0x7f0000000000ull + (i - LIVE) * 256), 256 + (i - LIVE) % 4096,
				(unsigned)((i - LIVE) % STREAMS));
	}
	ck_assert_int_eq(fclose(f), 0);

	t = open_rmm(path);
	while ((rc = hs_trace_next(t, &ev)) == 1) {
		if (ev.kind == HS_REV_ALLOC)
			allocs++, bytes += ev.size;
		else if (ev.kind == HS_REV_FREE)
			frees++;
		else if (ev.kind == HS_REV_STREAM_CREATE)
			creates++;
		if ((t->events & 0xffff) == 0 && hs_rmm_memory_bytes(t) > peak)
			peak = hs_rmm_memory_bytes(t);
	}
	ck_assert_msg(rc == 0, "%s", hs_trace_error(t));
	ck_assert_uint_eq(allocs, LINES / 2);
	ck_assert_uint_eq(frees, LINES / 2 - LIVE);
	ck_assert_uint_eq(creates, STREAMS);
	ck_assert_uint_eq(t->events, LINES - LIVE + STREAMS);
	/* sum of 256 + i % 4096 over i < 500000 */
	{
		uint64_t want = 0;

		for (uint64_t i = 0; i < LINES / 2; i++)
			want += 256 + i % 4096;
		ck_assert_uint_eq(bytes, want);
	}
	/* The file is ~45 MB; the reader holds its 1 MiB buffer and a map of
	 * ~1000 live pointers, nothing proportional to the file. */
	ck_assert_msg(peak < (1u << 20) + (256u << 10), "reader held %zu bytes", peak);
	hs_trace_close(t);
}
END_TEST

Suite *readers_streaming_suite(void)
{
	Suite *s = suite_create("streaming");
	TCase *tc;

	tc = tcase_create("streaming");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rmm_streaming_bounded);
	suite_add_tcase(s, tc);
	return s;
}
