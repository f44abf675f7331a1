/*
 * check_stress.c - threads with their own streams sharing buffers: writes,
 * cross-stream reads and launches, frees while others use the buffers.
 * Randomised with a fixed seed per thread, bounded in operations (a few
 * seconds, also under ThreadSanitizer).  Large buffers are freed and
 * taken again, so the device's idle cache moves them between threads.  Every read checks its bytes
 * against what the buffer's owner wrote last.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/runner.h"

#define NTHREADS 4
#define NSHARED 8
#define OPS 4000
#define BIG (9 * HC_MIB) /* pipelined: the device's copy workers are shared */
#define BUFSZ 4096

static hc_device dev;
static hc_kernel kcopy;

/* A shared slot: a buffer and the byte its owner last filled it with.
 * Only the owner thread writes or frees it; others read it. */
struct shared {
	pthread_mutex_t lock;
	hc_buffer buf;
	unsigned char value;
	bool live;
};
static struct shared slots[NTHREADS][NSHARED];
static _Atomic int failures;

#define EXPECT(c) \
	do { \
		if (!(c)) \
			failures++; \
	} while (0)

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
	return *x;
}

static void *worker(void *p)
{
	int me = (int)(intptr_t)p;
	uint32_t seed = 0x9e3779b9u * (uint32_t)(me + 1);
	unsigned char in[BUFSZ], out[BUFSZ];
	hc_stream s;
	hc_buffer mine;

	EXPECT(hc_stream_open(dev, &s) == HC_OK);
	unsigned char *big = malloc(BIG);
	hc_buffer bigbuf;

	EXPECT(big != NULL);
	EXPECT(hc_alloc(s, BUFSZ, &mine) == HC_OK);
	EXPECT(hc_alloc(s, BIG, &bigbuf) == HC_OK);
	for (int op = 0; op < OPS; op++) {
		if (big && op % 500 == 0) {
			/* a fresh large buffer each time: the freed one goes to
			 * the device's idle cache, another thread's stream may
			 * adopt it behind this stream's fence (core/pool/idle.h) */
			if (op) {
				EXPECT(hc_free(bigbuf) == HC_OK);
				EXPECT(hc_alloc(s, BIG, &bigbuf) == HC_OK);
			}
			memset(big, me + op, BIG);
			EXPECT(hc_write(s, bigbuf, 0, big, BIG, HC_ALLOC_NATIVE, NULL, NULL) == HC_OK);
			EXPECT(hc_read(s, bigbuf, BIG - BUFSZ, out, BUFSZ, NULL) == HC_OK);
			EXPECT(out[0] == (unsigned char)(me + op) && out[BUFSZ - 1] == out[0]);
		}
		uint32_t r = rnd(&seed);
		int k = (int)(r % NSHARED), t = (int)((r >> 8) % NTHREADS);
		struct shared *own = &slots[me][k], *peer = &slots[t][k];

		switch ((r >> 16) % 4) {
		case 0: /* (re)fill one of my shared buffers */
			pthread_mutex_lock(&own->lock);
			if (!own->live) {
				EXPECT(hc_alloc(s, BUFSZ, &own->buf) == HC_OK);
				own->live = true;
			}
			own->value = (unsigned char)(r >> 24);
			memset(in, own->value, BUFSZ);
			EXPECT(hc_write(s, own->buf, 0, in, BUFSZ, HC_ALLOC_NATIVE, NULL, NULL) ==
			       HC_OK);
			pthread_mutex_unlock(&own->lock);
			break;
		case 1: /* read a peer's buffer on my stream */
			pthread_mutex_lock(&peer->lock);
			if (peer->live) {
				EXPECT(hc_read(s, peer->buf, 0, out, BUFSZ, NULL) == HC_OK);
				EXPECT(out[0] == peer->value && out[BUFSZ - 1] == peer->value);
			}
			pthread_mutex_unlock(&peer->lock);
			break;
		case 2: { /* copy a peer's buffer into mine with a kernel */
			hc_binding bd[2];
			hc_launch_desc l = { .kernel = kcopy, .grid = { 1, 1, 1 },
					     .block = { 64, 1, 1 }, .bindings = bd, .n_bindings = 2 };
			unsigned char v;
			bool ok = false;

			pthread_mutex_lock(&peer->lock);
			if (peer->live) {
				bd[0] = (hc_binding){ peer->buf, 0, BUFSZ, HC_ACCESS_READ };
				bd[1] = (hc_binding){ mine, 0, BUFSZ, HC_ACCESS_WRITE };
				EXPECT(hc_launch(s, &l) == HC_OK);
				v = peer->value;
				ok = true;
			}
			pthread_mutex_unlock(&peer->lock);
			if (ok) {
				EXPECT(hc_read(s, mine, 0, out, BUFSZ, NULL) == HC_OK);
				EXPECT(out[0] == v && out[BUFSZ - 1] == v);
			}
			break;
		}
		default: /* free one of mine (others may still use it) */
			pthread_mutex_lock(&own->lock);
			if (own->live) {
				EXPECT(hc_free(own->buf) == HC_OK);
				own->live = false;
			}
			pthread_mutex_unlock(&own->lock);
			if (r & 0x100)
				EXPECT(hc_sync(s) == HC_OK);
			break;
		}
	}
	EXPECT(hc_sync(s) == HC_OK);
	free(big);
	return (void *)(uintptr_t)s.id;
}

START_TEST(threads_share_buffers)
{
	hc_device_options o;
	pthread_t th[NTHREADS];
	hc_stream streams[NTHREADS];

	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.data_mode = true;
	o.capacity = 1024 * HC_MIB;
	o.seed = 42;
	ck_assert_int_eq(hc_device_open("sim", &o, &dev), HC_OK);
	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, "copy", &kcopy), HC_OK);
	for (int t = 0; t < NTHREADS; t++)
		for (int k = 0; k < NSHARED; k++)
			pthread_mutex_init(&slots[t][k].lock, NULL);
	for (int t = 0; t < NTHREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
	for (int t = 0; t < NTHREADS; t++) {
		void *ret;
		pthread_join(th[t], &ret);
		streams[t].id = (uint64_t)(uintptr_t)ret;
	}
	ck_assert_int_eq(failures, 0);
	{	/* the threads did meet on each other's buffers */
		hc_device_stats st = { .struct_size = sizeof(st) };
		ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
		ck_assert_uint_gt(st.xstream_waits, 0);
		ck_assert_uint_gt(st.launches, 0);
		ck_assert_uint_eq(st.writes_pipelined, NTHREADS * (OPS / 500));
	}
	/* all joined: each stream closes cleanly with buffers still shared */
	for (int t = 0; t < NTHREADS; t++)
		ck_assert_int_eq(hc_stream_close(streams[t]), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
	for (int t = 0; t < NTHREADS; t++)
		for (int k = 0; k < NSHARED; k++)
			pthread_mutex_destroy(&slots[t][k].lock);
}
END_TEST

/* Large buffers of the split pool on several streams at once.  A block
 * whose segment holds another live block is parked at its free and taken
 * back by the next reservation of its size: its bytes go into its stream's
 * slot of the device's shared figures while the other threads'
 * reservations read those slots for the in-use figure and the peak
 * (core/pool/pool.h, struct hc_mm_shared).  A 6 MiB buffer freed goes to the
 * idle cache; the 3 MiB anchor adopts such a segment and leaves 3 MiB free
 * behind it, which the pairs then take and park. */
#define PARK_ROUNDS 40
#define PARK_PAIRS 50

static _Atomic unsigned park_done;

static void *park_worker(void *p)
{
	hc_stream s;
	hc_buffer a, anchor, b;

	(void)p;
	EXPECT(hc_stream_open(dev, &s) == HC_OK);
	for (int r = 0; r < PARK_ROUNDS; r++) {
		EXPECT(hc_alloc(s, 6 * HC_MIB, &a) == HC_OK);
		EXPECT(hc_free(a) == HC_OK);
		EXPECT(hc_alloc(s, 3 * HC_MIB, &anchor) == HC_OK);
		for (int k = 0; k < PARK_PAIRS; k++) {
			/* now and then another size: the parked free completes */
			uint64_t size = k % 16 == 15 ? 2 * HC_MIB : 3 * HC_MIB;

			EXPECT(hc_alloc(s, size, &b) == HC_OK);
			EXPECT(hc_free(b) == HC_OK);
		}
		EXPECT(hc_free(anchor) == HC_OK);
	}
	EXPECT(hc_sync(s) == HC_OK);
	atomic_fetch_add(&park_done, 1);
	return (void *)(uintptr_t)s.id;
}

START_TEST(threads_park_large)
{
	hc_device_options o;
	pthread_t th[NTHREADS];
	hc_stream streams[NTHREADS];
	hc_memory_usage u;

	ck_assert_int_eq(hc_device_options_init(&o), HC_OK);
	o.capacity = 1024 * HC_MIB;
	o.seed = 7;
	ck_assert_int_eq(hc_device_open("sim", &o, &dev), HC_OK);
	failures = 0;
	for (int t = 0; t < NTHREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, park_worker, NULL), 0);
	for (int t = 0; t < NTHREADS; t++) {
		void *ret;
		pthread_join(th[t], &ret);
		streams[t].id = (uint64_t)(uintptr_t)ret;
	}
	ck_assert_int_eq(failures, 0);
	ck_assert_uint_eq(atomic_load(&park_done), NTHREADS);
	/* every buffer freed: nothing counted in use, parked or not */
	ck_assert_int_eq(hc_device_memory_usage(dev, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 0);
	ck_assert_uint_eq(u.bytes_in_use, 0);
	for (int t = 0; t < NTHREADS; t++)
		ck_assert_int_eq(hc_stream_close(streams[t]), HC_OK);
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}
END_TEST

static Suite *stress_suite(void)
{
	Suite *su = suite_create("stress");
	TCase *tc = tcase_create("threads");

	tcase_add_test(tc, threads_share_buffers);
	tcase_add_test(tc, threads_park_large);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(su, tc);
	return su;
}

HC_TEST_PROGRAM(stress_suite);
