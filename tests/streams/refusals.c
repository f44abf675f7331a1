/*
 * refusals.c - failures on the way (pinned memory, a pipelined write midway, the
 * info buffer refused: nothing leaks, the caller keeps its source) and the
 * bad-input matrix of the stream operations.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/streams/streams_suites.h"

/* --- failures on the way: nothing leaks, the caller keeps its source ------ */

START_TEST(pinned_memory_refused)
{
	hc_stream s2;
	hc_buffer b;
	unsigned char *src = calloc(1, 16 * MIB), out[64];

	ck_assert_ptr_nonnull(src);
	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK); /* its pinned pool is empty */
	ck_assert_int_eq(hc_alloc(s2, 16 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 1, HC_FAULT_PERSISTENT), HC_OK);
	released = 0;
	ck_assert_int_eq(hc_write(s2, b, 0, src, 4096, HC_ALLOC_NATIVE, count_release, NULL),
			 HC_ERR_OOM);
	ck_assert_int_eq(hc_write(s2, b, 0, src, 16 * MIB, HC_ALLOC_NATIVE, count_release, NULL),
			 HC_ERR_OOM);
	ck_assert_int_eq(hc_read(s2, b, 0, out, sizeof(out), NULL), HC_ERR_OOM);
	ck_assert_int_eq(released, 0); /* a failed write leaves the source to the caller */
	/* unstaged writes need no pinned memory */
	ck_assert_int_eq(hc_write(s2, b, 0, src, 4096, HC_ALLOC_PINNED, count_release, NULL), HC_OK);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 0, HC_FAULT_OFF), HC_OK);
	memset(src, 0x3c, 64);
	ck_assert_int_eq(hc_write(s2, b, 0, src, 16 * MIB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s2, b, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_mem_eq(out, src, sizeof(out));
	ck_assert_int_eq(hc_sync(s2), HC_OK);
	ck_assert_int_eq(released, 1);
	free(src);
}
END_TEST

/* A transfer failing in the middle of a pipelined write.  The failure
 * surfaces at a fence: the write's own wait for a ring slot (then the
 * chunks whose copies were already queued to the copy workers must be
 * waited for before their pinned slots go back; ASan sees a copy left
 * running into freed memory), or the next sync.  Either way it is
 * reported, no pinned slot leaks, and the stream works on. */
START_TEST(pipelined_write_fails_midway)
{
	const uint64_t n = 40 * MIB; /* five chunks of 8 MiB: more than the ring holds */
	unsigned char *src = malloc(n), *out = malloc(n);
	hc_memory_usage u;
	hc_buffer b;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(hc_alloc(s, n, &b), HC_OK);
	for (unsigned nth = 1; nth <= 5; nth++) {
		uint64_t failures = stats().failures;
		hc_failure_id f;
		char text[512];
		hc_status w, y;

		pattern(src, n, 11 + nth);
		ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_COPY, nth, HC_FAULT_ONCE), HC_OK);
		w = hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL);
		ck_assert_msg(w == HC_OK || w == HC_ERR_DEVICE, "copy %u: %s", nth, hc_status_str(w));
		y = hc_sync(s);
		ck_assert_msg(w == HC_ERR_DEVICE || y == HC_ERR_DEVICE,
			      "copy %u failed and neither the write nor the sync said so", nth);
		/* one fault, one failure, named after the write; its range tainted */
		ck_assert_uint_eq(stats().failures, failures + 1);
		ck_assert_int_eq(hc_read(s, b, 0, out, 64, &f), HC_ERR_TAINTED);
		ck_assert_uint_eq(f, failures + 1);
		ck_assert_int_eq(hc_failure_explain(dev, f, text, sizeof(text)), HC_OK);
		ck_assert_msg(strstr(text, "write of 41943040 bytes at 0 failed") != NULL, "%s", text);
		ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_PINNED, &u), HC_OK);
		ck_assert_uint_eq(u.number_allocs, 0);
		/* a whole write clears the range's taint */
		ck_assert_int_eq(hc_write(s, b, 0, src, n, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
		memset(out, 0, n);
		ck_assert_int_eq(hc_read(s, b, 0, out, n, NULL), HC_OK);
		ck_assert_msg(memcmp(out, src, n) == 0, "bytes differ after a failure at copy %u", nth);
	}
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	free(src);
	free(out);
}
END_TEST

START_TEST(info_buffer_refused)
{
	hc_stream s2;
	hc_buffer a;
	uint64_t info = 7 | (4ull << 32);
	hc_binding bd = { { 0 }, 0, 64, HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = &info, .info_words = 1 };

	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 64, &a), HC_OK);
	bd.buffer = a;
	l.kernel = kern("fill");
	/* the pinned bounce of the info words is refused: nothing queued */
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 1, HC_FAULT_PERSISTENT), HC_OK);
	ck_assert_int_eq(hc_launch(s2, &l), HC_ERR_OOM);
	ck_assert_uint_eq(stats().launches, 0);
	ck_assert_int_eq(hc_fault_inject(dev, HC_FAULT_PINNED_ALLOC, 0, HC_FAULT_OFF), HC_OK);
	ck_assert_int_eq(hc_launch(s2, &l), HC_OK);
	ck_assert_uint_eq(stats().launches, 1);
	ck_assert_uint_eq(stats().cache_misses, 2); /* the failed upload cached nothing */
	ck_assert_uint_eq(stats().cache_hits, 0);
	ck_assert_int_eq(hc_sync(s2), HC_OK);
}
END_TEST

/* --- bad input ------------------------------------------------------------------ */

START_TEST(bad_input_matrix)
{
	hc_device d2;
	hc_stream s2, s3;
	hc_buffer b, other, stale;
	hc_kernel kfill, kother;
	unsigned char buf[128] = { 0 };
	uint64_t info = 1 | (4ull << 32);
	hc_binding bd = { { 0 }, 0, 64, HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = &info, .info_words = 1 };
	hc_device_options o;

	ck_assert_int_eq(hc_alloc(s, 64, &b), HC_OK);
	bd.buffer = b;
	ck_assert_int_eq(hc_alloc(s, 64, &stale), HC_OK);
	ck_assert_int_eq(hc_free(stale), HC_OK);
	hc_device_options_init(&o);
	o.data_mode = true;
	ck_assert_int_eq(hc_device_open("sim", &o, &d2), HC_OK);
	ck_assert_int_eq(hc_stream_open(d2, &s2), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 64, &other), HC_OK);
	ck_assert_int_eq(hc_kernel_load(d2, NULL, 0, "fill", &kother), HC_OK);
	kfill = kern("fill");
	l.kernel = kfill;

	/* ranges */
	ck_assert_int_eq(hc_write(s, b, 1, buf, 64, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "past the buffer"));
	ck_assert_int_eq(hc_write(s, b, 65, buf, 0, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_write(s, b, UINT64_MAX, buf, 2, HC_ALLOC_NATIVE, NULL, NULL),
			 HC_ERR_INVALID);
	ck_assert_int_eq(hc_read(s, b, 60, buf, 5, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_read(s, b, 2, buf, UINT64_MAX, NULL), HC_ERR_INVALID);
	/* zero size: OK after the handles check out */
	ck_assert_int_eq(hc_write(s, b, 64, NULL, 0, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s, b, 64, NULL, 0, NULL), HC_OK);
	ck_assert_int_eq(hc_read(s, stale, 0, NULL, 0, NULL), HC_ERR_STALE);
	/* NULL */
	ck_assert_int_eq(hc_write(s, b, 0, NULL, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_read(s, b, 0, NULL, 4, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_launch(s, NULL), HC_ERR_INVALID);
	/* property */
	ck_assert_int_eq(hc_write(s, b, 0, buf, 4, (hc_alloc_property)9, NULL, NULL),
			 HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "property"));
	/* another device's buffer */
	ck_assert_int_eq(hc_write(s, other, 0, buf, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "another device"));
	ck_assert_int_eq(hc_read(s, other, 0, buf, 4, NULL), HC_ERR_INVALID);
	bd.buffer = other;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	bd.buffer = b;
	/* stale buffer, stale stream */
	ck_assert_int_eq(hc_write(s, stale, 0, buf, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_read(s, stale, 0, buf, 4, NULL), HC_ERR_STALE);
	bd.buffer = stale;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_STALE);
	bd.buffer = b;
	ck_assert_int_eq(hc_stream_open(dev, &s3), HC_OK);
	ck_assert_int_eq(hc_stream_close(s3), HC_OK);
	ck_assert_int_eq(hc_write(s3, b, 0, buf, 4, HC_ALLOC_NATIVE, NULL, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_read(s3, b, 0, buf, 4, NULL), HC_ERR_STALE);
	ck_assert_int_eq(hc_launch(s3, &l), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(s3), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync((hc_stream){ 0 }), HC_ERR_STALE);
	/* kernel of another device, unknown kernel */
	l.kernel = kother;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_message(), "another device"));
	l.kernel = (hc_kernel){ 0 };
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_STALE);
	l.kernel = kfill;
	/* descriptor */
	bd.access = (hc_access)0;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	bd.access = HC_ACCESS_WRITE;
	bd.offset = 32, bd.size = 33;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	bd.offset = 0, bd.size = 64;
	l.info = NULL;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	l.info = &info;
	l.grid[1] = 0;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	l.grid[1] = 1;
	l.bindings = NULL;
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_INVALID);
	l.bindings = &bd;
	ck_assert_uint_eq(stats().launches, 0);
	ck_assert_uint_eq(stats().copies_h2d, 0);
	/* still usable */
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_device_close(d2), HC_OK);
}
END_TEST

Suite *streams_refusals_suite(void)
{
	Suite *su = suite_create("refusals");
	TCase *tc = tcase_create("ops"); /* the single file's name */

	tcase_add_checked_fixture(tc, streams_setup, sim_device_close);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pinned_memory_refused);
	tcase_add_test(tc, pipelined_write_fails_midway);
	tcase_add_test(tc, info_buffer_refused);
	tcase_add_test(tc, bad_input_matrix);
	suite_add_tcase(su, tc);
	return su;
}
