/*
 * launch.c - launches of the built-in kernels, bindings across streams, and the
 * per-launch metadata (info) cache.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/streams/streams_suites.h"

START_TEST(launch_builtin_kernels)
{
	hc_buffer a, b, c;
	uint32_t va[256], vb[256], out[256];
	uint64_t info = 0xdeadbeefull | (4ull << 32);
	hc_binding bd[3];
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 256, 1, 1 }, .bindings = bd };

	ck_assert_int_eq(hc_alloc(s, sizeof(va), &a), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(vb), &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(out), &c), HC_OK);
	/* fill(a, info) */
	l.kernel = kern("fill");
	bd[0] = (hc_binding){ a, 0, sizeof(va), HC_ACCESS_WRITE };
	l.n_bindings = 1, l.info = &info, l.info_words = 1;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(out[i], 0xdeadbeefu);
	/* copy(a, b) on an offset range */
	l.kernel = kern("copy");
	bd[0] = (hc_binding){ a, 16, 64, HC_ACCESS_READ };
	bd[1] = (hc_binding){ b, 32, 64, HC_ACCESS_WRITE };
	l.n_bindings = 2, l.info = NULL, l.info_words = 0;
	for (int i = 0; i < 256; i++)
		vb[i] = (uint32_t)i;
	ck_assert_int_eq(hc_write(s, b, 0, vb, sizeof(vb), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_read(s, b, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(out[i], i >= 8 && i < 24 ? 0xdeadbeefu : (uint32_t)i);
	/* add(a, b, c) */
	for (int i = 0; i < 256; i++)
		va[i] = 1000u * (uint32_t)i, vb[i] = 0xffffffffu - (uint32_t)i;
	ck_assert_int_eq(hc_write(s, a, 0, va, sizeof(va), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, vb, sizeof(vb), HC_ALLOC_PINNED, NULL, NULL), HC_OK);
	l.kernel = kern("add");
	bd[0] = (hc_binding){ a, 0, sizeof(va), HC_ACCESS_READ };
	bd[1] = (hc_binding){ b, 0, sizeof(vb), HC_ACCESS_READ };
	bd[2] = (hc_binding){ c, 0, sizeof(out), HC_ACCESS_WRITE };
	l.n_bindings = 3;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_int_eq(hc_read(s, c, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(out[i], va[i] + vb[i]);
	ck_assert_uint_eq(stats().launches, 3);
}
END_TEST

START_TEST(launch_binds_buffers_of_three_streams)
{
	hc_stream sa, sb;
	hc_buffer a, b, c;
	uint32_t va[64], vb[64], out[64];
	hc_binding bd[3];
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 }, .bindings = bd,
			     .n_bindings = 3 };

	/* the consumer s has the lowest slot; the origins come after it */
	ck_assert_int_eq(hc_stream_open(dev, &sb), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &sa), HC_OK);
	ck_assert_int_eq(hc_alloc(sa, sizeof(va), &a), HC_OK);
	ck_assert_int_eq(hc_alloc(sb, sizeof(vb), &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(out), &c), HC_OK);
	for (int i = 0; i < 64; i++)
		va[i] = (uint32_t)i << 8, vb[i] = (uint32_t)i;
	ck_assert_int_eq(hc_write(sa, a, 0, va, sizeof(va), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(sb, b, 0, vb, sizeof(vb), HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	l.kernel = kern("add");
	bd[0] = (hc_binding){ a, 0, sizeof(va), HC_ACCESS_READ };
	bd[1] = (hc_binding){ b, 0, sizeof(vb), HC_ACCESS_READ };
	bd[2] = (hc_binding){ c, 0, sizeof(out), HC_ACCESS_WRITE };
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().xstream_waits, 2);
	ck_assert_int_eq(hc_read(s, c, 0, out, sizeof(out), NULL), HC_OK);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(out[i], va[i] + vb[i]);
	/* both origins free their buffers; they come back only after s's fence */
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_launch(s, &l), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_stream_close(sa), HC_OK);
	ck_assert_int_eq(hc_stream_close(sb), HC_OK);
}
END_TEST

START_TEST(info_cache_hits_on_identical_words)
{
	hc_buffer a;
	uint64_t info[2] = { 0x11223344ull | (4ull << 32), 0 }, other = 0x55ull | (1ull << 32);
	uint32_t out[16];
	hc_binding bd = { { 0 }, 0, sizeof(out), HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 16, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = info, .info_words = 2 };

	ck_assert_int_eq(hc_alloc(s, sizeof(out), &a), HC_OK);
	bd.buffer = a;
	l.kernel = kern("fill");
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_misses, 1);
	ck_assert_uint_eq(stats().cache_hits, 0);
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_hits, 1);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(out[15], 0x11223344u);
	/* different words: a miss, and the kernel sees them */
	l.info = &other, l.info_words = 1;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_misses, 2);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(out[3], 0x55555555u);
	l.info = info, l.info_words = 2;
	ck_assert_int_eq(hc_launch(s, &l), HC_OK);
	ck_assert_uint_eq(stats().cache_hits, 2);
	ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
	ck_assert_uint_eq(out[0], 0x11223344u);
}
END_TEST

START_TEST(large_info_bypasses_the_cache)
{
	hc_buffer a;
	static uint64_t info[300]; /* 2400 bytes: above the 2048-byte limit */
	uint32_t out[8];
	hc_binding bd = { { 0 }, 0, sizeof(out), HC_ACCESS_WRITE };
	hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 8, 1, 1 }, .bindings = &bd,
			     .n_bindings = 1, .info = info, .info_words = 300 };

	ck_assert_int_eq(hc_alloc(s, sizeof(out), &a), HC_OK);
	bd.buffer = a;
	l.kernel = kern("fill");
	for (uint32_t v = 1; v <= 3; v++) {
		info[0] = (uint64_t)(0x01010101u * v) | (4ull << 32);
		ck_assert_int_eq(hc_launch(s, &l), HC_OK);
		ck_assert_int_eq(hc_read(s, a, 0, out, sizeof(out), NULL), HC_OK);
		ck_assert_uint_eq(out[7], 0x01010101u * v);
	}
	ck_assert_int_eq(hc_launch(s, &l), HC_OK); /* same words again: still not cached */
	ck_assert_uint_eq(stats().cache_hits, 0);
	ck_assert_uint_eq(stats().cache_misses, 0);
	ck_assert_int_eq(hc_sync(s), HC_OK);
}
END_TEST

Suite *streams_launch_suite(void)
{
	Suite *su = suite_create("launch");
	TCase *tc = tcase_create("ops"); /* the single file's name */

	tcase_add_checked_fixture(tc, streams_setup, sim_device_close);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, launch_builtin_kernels);
	tcase_add_test(tc, launch_binds_buffers_of_three_streams);
	tcase_add_test(tc, info_cache_hits_on_identical_words);
	tcase_add_test(tc, large_info_bypasses_the_cache);
	suite_add_tcase(su, tc);
	return su;
}
