/*
 * check_expandable_shared.c - HC_LAYOUT_EXPANDABLE_SHARED (expandable.c,
 * reclaim_at HC_RECLAIM_AT_SHARED) on the simulator's virtual memory: a
 * block freed on stream A keeps its memory mapped, so another stream
 * cannot take it, until A's work up to the free has passed; then the
 * other stream's map unmaps it (no wait, A does nothing) and maps; A's
 * live data survives and A maps afresh where the block was; A's own next
 * request reuses it at once; with one stream open nothing is unmapped at
 * all; nothing is unmapped while a stream records a capture.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define MIB HC_MIB

static hc_kernel kcopy;

static void open_shared(uint64_t capacity)
{
	hc_pool_layout l = { .preset = HC_LAYOUT_EXPANDABLE_SHARED };

	sim_device_open(capacity, true);
	ck_assert_int_eq(hc_install_memory_pools(s, &l), HC_OK);
	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, "copy", &kcopy), HC_OK);
}

static hc_stream open_second(void)
{
	hc_pool_layout l = { .preset = HC_LAYOUT_EXPANDABLE_SHARED };
	hc_stream s2;

	ck_assert_int_eq(hc_stream_open(dev, &s2), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s2, &l), HC_OK);
	return s2;
}

static uint64_t reserved(hc_stream on)
{
	hc_memory_usage u;

	ck_assert_int_eq(hc_memory_usage_get(on, HC_MEMORY_DEVICE, &u), HC_OK);
	return u.bytes_reserved;
}

static uint64_t unmaps(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st.device_unmaps;
}

static void fill(hc_stream on, hc_buffer b, uint64_t size, unsigned char seed)
{
	unsigned char *h = malloc(size);

	for (uint64_t i = 0; i < size; i++)
		h[i] = (unsigned char)(seed + i * 7);
	ck_assert_int_eq(hc_write(on, b, 0, h, size, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	free(h);
}

static void check_fill(hc_stream on, hc_buffer b, uint64_t size, unsigned char seed)
{
	unsigned char *h = malloc(size), *want = malloc(size);

	for (uint64_t i = 0; i < size; i++)
		want[i] = (unsigned char)(seed + i * 7);
	ck_assert_int_eq(hc_read(on, b, 0, h, size, NULL), HC_OK);
	ck_assert_int_eq(memcmp(h, want, size), 0);
	free(h);
	free(want);
}

/* A 10 ms copy of @n bytes from @src to @dst on @on: work the device is
 * still doing when the host's next calls run. */
static void slow_copy(hc_stream on, hc_buffer src, hc_buffer dst, uint64_t n)
{
	hc_binding bd[2] = { { src, 0, n, HC_ACCESS_READ }, { dst, 0, n, HC_ACCESS_WRITE } };
	hc_launch_desc l = { .kernel = kcopy, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .bindings = bd, .n_bindings = 2, .duration_hint_ns = 10000000 };

	ck_assert_int_eq(hc_launch(on, &l), HC_OK);
}

START_TEST(freed_block_waits_for_its_stream)
{
	hc_stream s2;
	hc_buffer keep, trig, a, b;
	uint64_t before;

	open_shared(64 * MIB);
	s2 = open_second();
	/* keep and trig: a mapping each at the bottom (4 MiB: 2 MiB ones would
	 * go to the small-tensor pages); a: one of 40 MiB above */
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &keep), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &trig), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &a), HC_OK);
	fill(s, keep, 4 * MIB, 3);
	slow_copy(s, keep, a, 4 * MIB); /* a's last use: 10 ms of device time */
	ck_assert_int_eq(hc_free(a), HC_OK); /* lent, behind a fence */
	before = unmaps();
	/* while the copy runs s2 cannot take it: 48 + 40 MiB do not fit in 64 */
	ck_assert_int_eq(hc_alloc(s2, 40 * MIB, &b), HC_ERR_OOM);
	ck_assert_uint_eq(unmaps(), before);
	ck_assert_uint_eq(reserved(s), 48 * MIB);
	/* the copy done, s2's map takes a's memory (s did nothing) */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_alloc(s2, 40 * MIB, &b), HC_OK);
	ck_assert_uint_eq(unmaps(), before + 1);
	ck_assert_uint_eq(reserved(s2), 40 * MIB);
	/* s's next free forgets the mapping taken */
	ck_assert_int_eq(hc_free(trig), HC_OK);
	ck_assert_uint_eq(reserved(s), 8 * MIB);
	/* s2's block holds its bytes, and s's live block kept its own */
	fill(s2, b, 40 * MIB, 9);
	check_fill(s2, b, 40 * MIB, 9);
	check_fill(s, keep, 4 * MIB, 3);
	/* and s's pool maps afresh where a was */
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &a), HC_OK);
	fill(s, a, 40 * MIB, 5);
	check_fill(s, a, 40 * MIB, 5);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_free(keep), HC_OK);
	sim_device_close();
}
END_TEST

/* The stream's own next request reuses its freed block at once, mapped,
 * whether or not the fence passed. */
START_TEST(own_stream_reuses_at_once)
{
	hc_stream s2;
	hc_buffer a, b, c;
	hc_device_stats st = { .struct_size = sizeof(st) };
	uint64_t maps;

	open_shared(256 * MIB);
	s2 = open_second();
	(void)s2;
	ck_assert_int_eq(hc_alloc(s, 32 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 8 * MIB, &c), HC_OK);
	slow_copy(s, c, a, 8 * MIB);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	maps = st.device_maps;
	ck_assert_int_eq(hc_alloc(s, 32 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	ck_assert_uint_eq(st.device_maps, maps);
	ck_assert_uint_eq(reserved(s), 40 * MIB);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_free(c), HC_OK);
	sim_device_close();
}
END_TEST

/* With one stream open the layout is the Expandable preset: frees never
 * unmap, however long ago the stream passed them. */
START_TEST(one_stream_keeps_its_mappings)
{
	hc_buffer a, t;
	uint64_t before;

	open_shared(256 * MIB);
	before = unmaps();
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &t), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	for (int i = 0; i < 3; i++) {
		hc_buffer u;

		ck_assert_int_eq(hc_free(t), HC_OK);
		ck_assert_int_eq(hc_sync(s), HC_OK);
		ck_assert_int_eq(hc_alloc(s, 4 * MIB, &u), HC_OK);
		t = u;
	}
	ck_assert_uint_eq(unmaps(), before);
	ck_assert_uint_eq(reserved(s), 44 * MIB);
	ck_assert_int_eq(hc_free(t), HC_OK);
	sim_device_close();
}
END_TEST

/* While a stream records a capture, a lent mapping whose fence passed is
 * not unmapped (the runtime would refuse the call and invalidate the
 * capture); the first map after the capture ends takes it. */
START_TEST(capture_unmaps_nothing)
{
	hc_stream s2, s3;
	hc_buffer keep, a, b;
	hc_graph g;
	uint64_t before;

	open_shared(256 * MIB);
	s2 = open_second();
	s3 = open_second();
	ck_assert_int_eq(hc_alloc(s, 4 * MIB, &keep), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 40 * MIB, &a), HC_OK);
	ck_assert_int_eq(hc_free(a), HC_OK); /* lent */
	ck_assert_int_eq(hc_sync(s), HC_OK); /* its fence passed */
	before = unmaps();
	ck_assert_int_eq(hc_graph_prepare(s2), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s2), HC_OK);
	ck_assert_int_eq(hc_alloc(s3, 40 * MIB, &b), HC_ERR_STATE);
	ck_assert_uint_eq(unmaps(), before);
	ck_assert_uint_eq(reserved(s), 44 * MIB);
	ck_assert_int_eq(hc_graph_end(s2, &g), HC_OK);
	ck_assert_int_eq(hc_alloc(s3, 40 * MIB, &b), HC_OK);
	ck_assert_uint_eq(unmaps(), before + 1);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_free(keep), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	sim_device_close();
}
END_TEST

/* Four threads, a stream each, allocating, writing, reading back and
 * freeing blocks of 1 to 24 MiB on a device that holds less than their
 * sum: streams lend and take each other's mappings all the time, and
 * every block still reads back what its thread wrote (a mapping taken
 * under a live block, or before its stream's work passed, would not). */
#define THREADS 4
#define ROUNDS 60

struct worker {
	hc_stream st;
	unsigned seed;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned char *h = malloc(24 * MIB), *back = malloc(24 * MIB);

	for (int r = 0; r < ROUNDS && h && back && !w->bad; r++) {
		uint64_t n = (1 + rand_r(&w->seed) % 24) * MIB - rand_r(&w->seed) % 4096;
		unsigned char v = (unsigned char)rand_r(&w->seed);
		hc_buffer b;

		if (hc_alloc(w->st, n, &b) != HC_OK)
			continue; /* the device is full for now: another round */
		memset(h, v, n);
		if (hc_write(w->st, b, 0, h, n, HC_ALLOC_NATIVE, NULL, NULL) != HC_OK ||
		    hc_read(w->st, b, 0, back, n, NULL) != HC_OK || memcmp(h, back, n) != 0)
			w->bad = 1;
		if (hc_free(b) != HC_OK)
			w->bad = 1;
	}
	free(h);
	free(back);
	return NULL;
}

START_TEST(threads_lend_and_take)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	hc_device_stats st = { .struct_size = sizeof(st) };

	open_shared(96 * MIB);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .st = i ? open_second() : s, .seed = 7u + (unsigned)i };
		ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(w[i].bad, 0);
	}
	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	ck_assert_uint_gt(st.device_unmaps, 0); /* memory did move */
	sim_device_close();
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("expandable_shared");
	TCase *tc = tcase_create("shared");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, freed_block_waits_for_its_stream);
	tcase_add_test(tc, own_stream_reuses_at_once);
	tcase_add_test(tc, one_stream_keeps_its_mappings);
	tcase_add_test(tc, capture_unmaps_nothing);
	tcase_add_test(tc, threads_lend_and_take);
	suite_add_tcase(su, tc);
	return su;
}

HC_TEST_PROGRAM(suite);
