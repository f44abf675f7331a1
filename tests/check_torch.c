/*
 * check_torch.c - libhipcore-torch.so driven the way PyTorch drives a
 * pluggable allocator: dlopen by path, alloc(size, device, stream) and
 * free(ptr, size, device, stream) from several threads on several streams,
 * frees ordered on another stream than the allocating one, record_stream,
 * empty_cache, the memory fraction and the figures.
 *
 * On the simulator (HIPCORE_TORCH_BACKEND=sim) streams are synthetic
 * handles; one case runs the HIP backend over tests/fake_cudart.c with a
 * stream the "runtime" created, to show adoption never destroys it.
 *
 * The test links the shared libhipcore, as the plug-in does, so the
 * hc_device the plug-in opened can be asked for its usage here.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/torch_plugin.h"
#include "tests/runner.h"

#define MiB (1024 * 1024)

static struct torch_plugin P;
static void *const SA = (void *)0x1000, *const SB = (void *)0x2000;

static void setup_sim(void)
{
	setenv("HIPCORE_TORCH_BACKEND", "sim", 1);
	if (!P.so)
		ck_assert_int_eq(torch_plugin_load(&P), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(P.shutdown(), HC_OK);
}

static struct hipcore_torch_stats stats_of(int device)
{
	struct hipcore_torch_stats s = { .struct_size = sizeof(s) };

	ck_assert_int_eq(P.stats(device, &s), HC_OK);
	return s;
}

static uint64_t live_slices(int device)
{
	uint64_t id;
	hc_memory_usage u;

	ck_assert_int_eq(P.device(device, &id), HC_OK);
	ck_assert_int_eq(hc_device_memory_usage((hc_device){ id }, HC_MEMORY_DEVICE, &u), HC_OK);
	return u.number_allocs;
}

static const char *last_error(void)
{
	static char buf[512];

	P.last_error(buf, sizeof(buf));
	return buf;
}

/* ------------------------------------------------------------ one thread */

START_TEST(size_zero_is_null_and_free_null_is_ignored)
{
	ck_assert_ptr_null(P.alloc(0, 0, SA));
	P.free(NULL, 0, 0, SA);
	ck_assert_ptr_nonnull(P.alloc(1, 0, SA)); /* opens device 0 */
	ck_assert_uint_eq(stats_of(0).allocs, 1);
	ck_assert_uint_eq(stats_of(0).failed_allocs, 0);
}
END_TEST

START_TEST(allocations_are_aligned_and_counted)
{
	static const ssize_t sizes[] = { 1, 511, 4096, 3 * MiB + 7, 64 * MiB };
	void *p[5];
	uint64_t sum = 0;
	struct hipcore_torch_stats s;

	for (int i = 0; i < 5; i++) {
		p[i] = P.alloc(sizes[i], 0, SA);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % 512, 0);
		sum += (uint64_t)sizes[i];
	}
	s = stats_of(0);
	ck_assert_uint_eq(s.allocs, 5);
	ck_assert_uint_eq(s.bytes_in_use, sum);
	ck_assert_uint_eq(s.streams, 1);
	ck_assert_uint_ge(s.bytes_reserved, sum);
	ck_assert_uint_ge(s.peak_reserved, s.bytes_reserved);
	ck_assert_uint_ge(s.device_allocs, 1);
	for (int i = 0; i < 5; i++)
		P.free(p[i], (size_t)sizes[i], 0, SA);
	s = stats_of(0);
	ck_assert_uint_eq(s.frees, 5);
	ck_assert_uint_eq(s.bytes_in_use, 0);
	ck_assert_uint_eq(s.peak_in_use, sum);
	ck_assert_uint_eq(live_slices(0), 0);
}
END_TEST

/* PyTorch frees in stream order: the same stream may reuse a block at once. */
START_TEST(same_stream_reuses_at_once)
{
	void *p = P.alloc(MiB, 0, SA), *q;

	ck_assert_ptr_nonnull(p);
	P.free(p, MiB, 0, SA);
	q = P.alloc(MiB, 0, SA);
	ck_assert_ptr_eq(q, p);
	P.free(q, MiB, 0, SA);
}
END_TEST

/* A free ordered on stream B: A may not reuse the block before B's work up
 * to the free is done, so it is still held, and A gets other memory. */
START_TEST(free_on_another_stream_holds_the_block)
{
	void *p = P.alloc(MiB, 0, SA), *q;

	ck_assert_ptr_nonnull(p);
	P.free(p, MiB, 0, SB);
	ck_assert_uint_eq(stats_of(0).bytes_in_use, 0);
	ck_assert_uint_eq(live_slices(0), 1); /* held for B */
	q = P.alloc(MiB, 0, SA);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_ne(q, p);
	ck_assert_uint_eq(live_slices(0), 2);
	/* empty_cache flushes B: its fence passed, the block comes back. */
	ck_assert_int_eq(P.empty_cache(), HC_OK);
	ck_assert_uint_eq(live_slices(0), 1);
	ck_assert_uint_eq(stats_of(0).streams, 2);
	P.free(q, MiB, 0, SA);
	ck_assert_uint_eq(live_slices(0), 0);
}
END_TEST

START_TEST(record_stream_holds_the_block_at_free)
{
	void *p = P.alloc(2 * MiB, 0, SA), *q;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(P.record_stream(p, SB), HC_OK);
	ck_assert_int_eq(P.record_stream(p, SB), HC_OK); /* twice: one hold */
	ck_assert_int_eq(P.record_stream(p, SA), HC_OK); /* its own: none */
	ck_assert_uint_eq(live_slices(0), 1);
	P.free(p, 2 * MiB, 0, SA);
	ck_assert_uint_eq(live_slices(0), 1);
	q = P.alloc(2 * MiB, 0, SA);
	ck_assert_ptr_ne(q, p);
	ck_assert_int_eq(P.empty_cache(), HC_OK);
	ck_assert_uint_eq(live_slices(0), 1);
	P.free(q, 2 * MiB, 0, SA);
	/* a freed pointer is not recorded any more */
	ck_assert_int_eq(P.record_stream(p, SB), HC_ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(last_error(), "not an allocation of this plug-in"));
}
END_TEST

START_TEST(unknown_frees_are_counted_not_fatal)
{
	void *p = P.alloc(4096, 0, SA);

	P.free((void *)0xdead000, 8, 0, SA);
	P.free((void *)0xdead000, 8, 99, SA); /* a device out of range too */
	ck_assert_uint_eq(stats_of(0).frees_unknown, 1);
	ck_assert_ptr_nonnull(strstr(last_error(), "was not allocated here"));
	P.free(p, 4096, 0, SA);
	P.free(p, 4096, 0, SA); /* twice */
	ck_assert_uint_eq(stats_of(0).frees, 1);
	ck_assert_uint_eq(stats_of(0).frees_unknown, 2);
}
END_TEST

START_TEST(memory_fraction_caps_what_is_held)
{
	struct hipcore_torch_stats s;
	void *small, *big, *fits;

	small = P.alloc(4096, 0, SA);
	ck_assert_ptr_nonnull(small);
	s = stats_of(0);
	ck_assert_uint_gt(s.total_memory, 0);
	ck_assert_int_eq(P.set_memory_fraction((double)(256 * MiB) / (double)s.total_memory, 0),
			 HC_OK);
	ck_assert_uint_le(stats_of(0).memory_limit, 256 * MiB);
	ck_assert_uint_ge(stats_of(0).memory_limit, 255 * MiB);
	big = P.alloc(512 * MiB, 0, SA);
	ck_assert_ptr_null(big);
	ck_assert_ptr_nonnull(strstr(last_error(), "limit"));
	ck_assert_uint_eq(stats_of(0).failed_allocs, 1);
	fits = P.alloc(64 * MiB, 0, SA);
	ck_assert_ptr_nonnull(fits);
	ck_assert_uint_le(stats_of(0).bytes_reserved, 256 * MiB);
	/* a fraction of 1 lifts the cap; a negative one is refused */
	ck_assert_int_eq(P.set_memory_fraction(1.0, 0), HC_OK);
	ck_assert_uint_eq(stats_of(0).memory_limit, 0);
	big = P.alloc(512 * MiB, 0, SA);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(P.set_memory_fraction(-0.5, 0), HC_ERR_INVALID);
	P.free(big, 512 * MiB, 0, SA);
	P.free(fits, 64 * MiB, 0, SA);
	P.free(small, 4096, 0, SA);
}
END_TEST

START_TEST(stats_check_their_arguments)
{
	struct hipcore_torch_stats s = { .struct_size = 4 };

	ck_assert_int_eq(P.stats(0, &s), HC_ERR_INVALID);
	ck_assert_int_eq(P.stats(0, NULL), HC_ERR_INVALID);
	s.struct_size = sizeof(s);
	ck_assert_int_eq(P.stats(5, &s), HC_ERR_STATE);
	ck_assert_ptr_nonnull(strstr(last_error(), "never used"));
	ck_assert_ptr_null(P.alloc(16, 64, SA)); /* device out of range */
	ck_assert_ptr_nonnull(strstr(last_error(), "out of range"));
}
END_TEST

START_TEST(reset_peaks_starts_from_now)
{
	void *a = P.alloc(8 * MiB, 0, SA), *b;

	P.free(a, 8 * MiB, 0, SA);
	b = P.alloc(MiB, 0, SA);
	ck_assert_uint_eq(stats_of(0).peak_in_use, 8 * MiB);
	ck_assert_int_eq(P.reset_peaks(0), HC_OK);
	ck_assert_uint_eq(stats_of(0).peak_in_use, MiB);
	P.free(b, MiB, 0, SA);
}
END_TEST

/* Two devices: each ordinal its own hc_device, figures apart. */
START_TEST(devices_are_apart)
{
	void *a = P.alloc(MiB, 0, SA), *b = P.alloc(3 * MiB, 1, SA);
	uint64_t d0, d1;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(P.device(0, &d0), HC_OK);
	ck_assert_int_eq(P.device(1, &d1), HC_OK);
	ck_assert_uint_ne(d0, d1);
	ck_assert_uint_eq(stats_of(0).bytes_in_use, MiB);
	ck_assert_uint_eq(stats_of(1).bytes_in_use, 3 * MiB);
	P.free(b, 3 * MiB, 1, SA);
	P.free(a, MiB, 0, SA);
}
END_TEST

/* ------------------------------------------------------------- threads */

#define THREADS 4
#define OPS 4000
#define KEEP 48

struct block {
	void *p;
	size_t size;
};

/* Blocks a thread hands over for another thread to free. */
static struct {
	pthread_mutex_t lock;
	struct block b[THREADS * OPS];
	size_t n;
} handoff = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct worker {
	int id;
	struct block live[KEEP];
	size_t nlive;
	unsigned failed;
};

static void *stream_of(int t)
{
	return (void *)(uintptr_t)(0x10000 + 0x100 * t);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);

	for (int i = 0; i < OPS; i++) {
		size_t size, k;
		void *p;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size = (size_t)256 << (x % 15); /* 256 B to 4 MiB */
		size += x % 4096;
		p = P.alloc((ssize_t)size, 0, stream_of(w->id));
		if (!p) {
			w->failed++;
			continue;
		}
		if (w->nlive < KEEP) {
			w->live[w->nlive++] = (struct block){ p, size };
			continue;
		}
		k = (size_t)(x >> 32) % KEEP;
		switch ((x >> 20) % 8) {
		case 0: /* ordered on the next thread's stream */
			P.free(w->live[k].p, w->live[k].size, 0, stream_of((w->id + 1) % THREADS));
			break;
		case 1: /* handed to whichever thread frees next */
			pthread_mutex_lock(&handoff.lock);
			handoff.b[handoff.n++] = w->live[k];
			pthread_mutex_unlock(&handoff.lock);
			break;
		case 2: /* used on another stream, then freed on its own */
			ck_assert_int_eq(P.record_stream(w->live[k].p, stream_of((w->id + 2) % THREADS)),
					 HC_OK);
			P.free(w->live[k].p, w->live[k].size, 0, stream_of(w->id));
			break;
		default:
			P.free(w->live[k].p, w->live[k].size, 0, stream_of(w->id));
		}
		w->live[k] = (struct block){ p, size };
		pthread_mutex_lock(&handoff.lock);
		if (handoff.n > 0) {
			struct block b = handoff.b[--handoff.n];

			pthread_mutex_unlock(&handoff.lock);
			P.free(b.p, b.size, 0, stream_of(w->id));
		} else {
			pthread_mutex_unlock(&handoff.lock);
		}
	}
	return NULL;
}

static int by_addr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct block *)a)->p;
	uintptr_t y = (uintptr_t)((const struct block *)b)->p;

	return x < y ? -1 : x > y;
}

START_TEST(threads_and_streams_never_share_live_memory)
{
	static struct worker w[THREADS];
	static struct block all[THREADS * KEEP + THREADS * OPS];
	pthread_t th[THREADS];
	size_t n = 0;
	uint64_t bytes = 0;
	struct hipcore_torch_stats s;

	handoff.n = 0;
	for (int t = 0; t < THREADS; t++) {
		w[t] = (struct worker){ .id = t };
		ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		ck_assert_int_eq(pthread_join(th[t], NULL), 0);
	for (int t = 0; t < THREADS; t++) {
		ck_assert_uint_eq(w[t].failed, 0);
		for (size_t i = 0; i < w[t].nlive; i++)
			all[n++] = w[t].live[i];
	}
	for (size_t i = 0; i < handoff.n; i++)
		all[n++] = handoff.b[i];
	for (size_t i = 0; i < n; i++)
		bytes += all[i].size;
	s = stats_of(0);
	ck_assert_uint_eq(s.bytes_in_use, bytes);
	ck_assert_uint_eq(s.allocs - s.frees, n);
	ck_assert_uint_eq(s.streams, THREADS);
	/* No two live blocks overlap, whichever thread or stream owns them. */
	qsort(all, n, sizeof(all[0]), by_addr);
	for (size_t i = 1; i < n; i++)
		ck_assert_msg((uintptr_t)all[i - 1].p + all[i - 1].size <= (uintptr_t)all[i].p,
			      "blocks %p+%zu and %p overlap", all[i - 1].p, all[i - 1].size,
			      all[i].p);
	for (size_t i = 0; i < n; i++)
		P.free(all[i].p, all[i].size, 0, SA);
	s = stats_of(0);
	ck_assert_uint_eq(s.bytes_in_use, 0);
	ck_assert_uint_eq(s.allocs, s.frees);
	ck_assert_uint_eq(s.frees_unknown, 0);
	ck_assert_int_eq(P.empty_cache(), HC_OK);
	ck_assert_uint_eq(live_slices(0), 0);
	ck_assert_uint_eq(stats_of(0).bytes_reserved, 0);
}
END_TEST

/* ------------------------------------ the HIP backend, over a fake runtime */

static void *fake;
static long (*fake_live)(void);
static int (*fake_stream_create)(void **, unsigned);
static int (*fake_stream_destroy)(void *);
static unsigned long (*fake_calls)(const char *);

static void setup_hip(void)
{
	const char *top = getenv("top_builddir");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/.libs/fake_cudart.so", top ? top : ".");
	setenv("HIPCORE_TORCH_BACKEND", "hip", 1);
	setenv("HIPCORE_HIP_LIBRARY", path, 1);
	fake = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(fake != NULL, "%s", dlerror());
	*(void **)&fake_live = dlsym(fake, "fake_live");
	*(void **)&fake_stream_create = dlsym(fake, "cudaStreamCreateWithFlags");
	*(void **)&fake_stream_destroy = dlsym(fake, "cudaStreamDestroy");
	*(void **)&fake_calls = dlsym(fake, "fake_calls");
	ck_assert(fake_live && fake_stream_create && fake_stream_destroy && fake_calls);
	if (!P.so)
		ck_assert_int_eq(torch_plugin_load(&P), 0);
}

static void teardown_hip(void)
{
	unsetenv("HIPCORE_HIP_LIBRARY");
	dlclose(fake);
}

/* The caller's stream is adopted, used, and still the caller's after. */
START_TEST(hip_adopts_the_callers_stream_and_leaves_it)
{
	void *mine = NULL, *p, *q;
	long before;

	ck_assert_int_eq(fake_stream_create(&mine, 1), 0);
	before = fake_live();
	p = P.alloc(MiB, 0, mine);
	q = P.alloc(4096, 0, NULL); /* the default stream */
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(stats_of(0).streams, 2);
	ck_assert_int_eq(P.record_stream(p, NULL), HC_OK);
	P.free(p, MiB, 0, mine);
	P.free(q, 4096, 0, NULL);
	ck_assert_int_eq(P.empty_cache(), HC_OK);
	ck_assert_uint_eq(stats_of(0).device_allocs, stats_of(0).device_frees);
	ck_assert_int_eq(P.shutdown(), HC_OK);
	/* everything libhipcore made is gone; the caller's stream is not */
	ck_assert_int_eq(fake_live(), before);
	ck_assert_uint_eq(fake_calls("cudaStreamDestroy"), 0);
	ck_assert_int_eq(fake_stream_destroy(mine), 0);
	ck_assert_int_eq(fake_live(), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("torch");
	TCase *t = tcase_create("sim");
	TCase *h = tcase_create("hip");

	tcase_add_checked_fixture(t, setup_sim, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, size_zero_is_null_and_free_null_is_ignored);
	tcase_add_test(t, allocations_are_aligned_and_counted);
	tcase_add_test(t, same_stream_reuses_at_once);
	tcase_add_test(t, free_on_another_stream_holds_the_block);
	tcase_add_test(t, record_stream_holds_the_block_at_free);
	tcase_add_test(t, unknown_frees_are_counted_not_fatal);
	tcase_add_test(t, memory_fraction_caps_what_is_held);
	tcase_add_test(t, stats_check_their_arguments);
	tcase_add_test(t, reset_peaks_starts_from_now);
	tcase_add_test(t, devices_are_apart);
	tcase_add_test(t, threads_and_streams_never_share_live_memory);
	suite_add_tcase(s, t);
	/* a --without-hip build has no HIP backend to adopt a stream through */
#ifdef HC_TEST_WITH_HIP
	tcase_add_checked_fixture(h, setup_hip, teardown_hip);
	tcase_add_test(h, hip_adopts_the_callers_stream_and_leaves_it);
	suite_add_tcase(s, h);
#else
	(void)h;
	(void)setup_hip;
	(void)teardown_hip;
	(void)hip_adopts_the_callers_stream_and_leaves_it;
	printf("torch: no HIP backend in this build; the HIP case skipped\n");
#endif
	return s;
}

HC_TEST_PROGRAM(suite);
