/*
 * check_api_gpu.c - issue 6's end-to-end suite: the public API
 * (include/hipcore/hipcore.h) on backend "hip" against a real device
 * (make check-gpu, or tests/gpu/run-on-device.sh on the GPU machine).
 *
 * Cases: hc_write/hc_read round trips around every staging threshold and
 * for every hc_alloc_property, at an odd offset, bytes compared; a
 * producer/consumer pair of streams; kernels from tests/gpu/kernels.cu
 * (PTX named by argv[1] or HC_GPU_PTX) launched with bindings and info
 * words, the info cache's hits counted; graph capture and three replays,
 * and an allocation inside a capture refused at hc_graph_end; a real
 * out-of-memory, cleanup and a successful retry; a garbage code object
 * mapped to HC_ERR_DEVICE with the runtime's error name.
 *
 * PINNED sources: the public API hands out no pinned host memory, so the
 * test opens the HIP backend a second time through hc_hip_ops() (the same
 * process and primary context) and takes page-locked memory from its
 * host_alloc.  Without a runtime or device it prints "SKIP: no GPU
 * runtime/device: <reason>" and exits 77.  Plain C with its own CHECK
 * macro: the GPU machine has no Check library.
 *
 * HC_API_GPU_CASES picks cases by name, any of "trips kernels garbage oom"
 * (all by default): "trips garbage" runs over tests/fake_cudart.c too
 * (HIPCORE_HIP_LIBRARY), whose cudaMalloc never fails and which runs no
 * kernel.
 *
 * HC_API_GPU_BACKEND=sim runs the same cases on the simulator in data mode
 * (2 GiB, 128 MiB steps for the OOM case, malloc'd PINNED sources, the
 * built-in "add" kernel against a buffer of the constant in place of the
 * PTX kernels, no garbage-image case): a dry run of the suite's
 * expectations on a machine without a GPU.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/internal.h"
#include "hipcore/hipcore.h"

static int failures, checks;

static const hc_error_info *last(void)
{
	static hc_error_info e;

	hc_last_error(&e);
	return &e;
}

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		checks++;                                                       \
		if (!(cond)) {                                                  \
			failures++;                                             \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
			printf(__VA_ARGS__);                                    \
			printf(" [last error: %s]\n", last()->message);         \
		}                                                               \
	} while (0)

static hc_device dev;
static const struct hc_hal_ops *H; /* second open: pinned host memory only */
static hc_hal_dev *HD;
static int on_sim;                 /* HC_API_GPU_BACKEND=sim: the dry run */
static uint64_t oom_step = (uint64_t)8 << 30;
static uint64_t total_memory;

static void fill(unsigned char *p, uint64_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		p[i] = (unsigned char)(x >> 24);
	}
}

static hc_device_stats stats(void)
{
	hc_device_stats s = { .struct_size = sizeof(s) };

	CHECK(hc_device_stats_get(dev, &s) == HC_OK, "stats");
	return s;
}

static int releases;

static void count_release(void *arg)
{
	(void)arg;
	releases++;
}

static const char *prop_name(hc_alloc_property p)
{
	static const char *n[] = { "NATIVE", "PINNED", "FILE", "DEVICE", "OTHER" };

	return (unsigned)p < 5 ? n[p] : "?";
}

/* Host source memory of the property's kind; *unmap says how to give it back. */
static unsigned char *source_of(hc_alloc_property p, uint64_t n, int *how)
{
	void *m = NULL;

	*how = 0;
	if (p == HC_ALLOC_PINNED && !on_sim) {
		if (H->host_alloc(HD, n ? n : 1, &m) != HC_OK)
			return NULL;
		*how = 1;
		return m;
	}
	if (p == HC_ALLOC_FILE && n > 0) {
		char path[] = "/tmp/hc_api_gpu_XXXXXX";
		int fd = mkstemp(path);

		if (fd < 0)
			return NULL;
		unlink(path);
		if (ftruncate(fd, (off_t)n) == 0)
			m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return NULL;
		*how = 2;
		return m;
	}
	return malloc(n ? n : 1);
}

static void source_free(unsigned char *p, uint64_t n, int how)
{
	if (how == 1)
		H->host_free(HD, p);
	else if (how == 2)
		munmap(p, n);
	else
		free(p);
}

/* hc_write of @n bytes at offset 13 of a fresh buffer, hc_read back. */
static void round_trip(hc_stream s, uint64_t n, hc_alloc_property p)
{
	const uint64_t off = 13;
	hc_device_stats s0 = stats(), s1;
	unsigned char *src, *dst;
	hc_buffer b = { 0 };
	hc_staging how = hc_staging_of(n, p);
	int kind, r0 = releases;
	hc_status st;

	src = source_of(p, n, &kind);
	dst = malloc(n ? n : 1);
	CHECK(src && dst, "host memory for %llu bytes %s", (unsigned long long)n, prop_name(p));
	if (!src || !dst)
		goto out;
	fill(src, n, (unsigned)(n + p));
	memset(dst, 0xee, n);
	CHECK(hc_alloc(s, n + off + 64, &b) == HC_OK, "alloc %llu", (unsigned long long)n);
	st = hc_write(s, b, off, src, n, p, count_release, NULL);
	CHECK(st == HC_OK, "write %llu %s: %s", (unsigned long long)n, prop_name(p),
	      hc_status_str(st));
	/* a staged or pageable source may be reused now: scribble over it */
	if (how.through_pinned && p != HC_ALLOC_FILE) {
		unsigned char *copy = malloc(n ? n : 1);

		if (copy) {
			memcpy(copy, src, n);
			memset(src, 0, n);
			CHECK(hc_read(s, b, off, dst, n, NULL) == HC_OK, "read");
			CHECK(memcmp(copy, dst, n) == 0, "%llu bytes %s (staged) differ",
			      (unsigned long long)n, prop_name(p));
			free(copy);
		}
	} else {
		CHECK(hc_read(s, b, off, dst, n, NULL) == HC_OK, "read");
		CHECK(memcmp(src, dst, n) == 0, "%llu bytes %s differ", (unsigned long long)n,
		      prop_name(p));
	}
	CHECK(hc_sync(s) == HC_OK, "sync");
	CHECK(releases == r0 + 1, "release ran once for %llu %s: %d", (unsigned long long)n,
	      prop_name(p), releases - r0);
	s1 = stats();
	if (n > 0) {
		uint64_t staged = s1.writes_staged - s0.writes_staged,
			 piped = s1.writes_pipelined - s0.writes_pipelined,
			 direct = s1.writes_direct - s0.writes_direct;

		/* Pageable sources at or above the staging limit are not staged in
		 * one piece but still move through the chunk pipeline. */
		bool pageable = p != HC_ALLOC_PINNED && p != HC_ALLOC_FILE;
		bool piped_direct = !how.through_pinned && pageable && n >= 8 * HC_MIB;

		CHECK(how.through_pinned ? staged + piped == 1 && direct == 0
		      : piped_direct     ? piped == 1 && staged + direct == 0
					 : direct == 1 && staged + piped == 0,
		      "%llu %s: staged %llu pipelined %llu direct %llu", (unsigned long long)n,
		      prop_name(p), (unsigned long long)staged, (unsigned long long)piped,
		      (unsigned long long)direct);
		CHECK(s1.bytes_d2h - s0.bytes_d2h >= n, "d2h bytes counted");
	}
out:
	if (b.id)
		CHECK(hc_free(b) == HC_OK, "free");
	if (src)
		source_free(src, n, kind);
	free(dst);
}

static void round_trips(void)
{
	static const uint64_t sizes[] = {
		0, 1, 4095, 8 * HC_MIB - 1, 8 * HC_MIB, 10 * HC_MIB, 10 * HC_MIB + 1,
		100 * HC_MIB - 1, 100 * HC_MIB, 100 * HC_MIB + 1, 256 * HC_MIB,
	};
	hc_stream s;

	CHECK(hc_stream_open(dev, &s) == HC_OK, "stream");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int p = HC_ALLOC_NATIVE; p <= HC_ALLOC_OTHER; p++)
			round_trip(s, sizes[i], (hc_alloc_property)p);
	CHECK(hc_stream_close(s) == HC_OK, "close");
}

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	*size = (size_t)n + 1; /* with the NUL: PTX is text */
	return buf;
}

enum { N = 1 << 20 }; /* words per kernel buffer */

static hc_launch_desc desc(hc_kernel k, const hc_binding *b, size_t nb, const uint64_t *info)
{
	return (hc_launch_desc){ .kernel = k, .grid = { N / 256, 1, 1 }, .block = { 256, 1, 1 },
				 .info = info, .info_words = 2, .bindings = b, .n_bindings = nb };
}

/*
 * The two kernels: out = in + info[1] and p += info[1], over N words.  On
 * the simulator both are its "add" with a buffer of info[1] as the second
 * operand (made before any capture, on stream kstream; info still passed,
 * so the info cache sees the same words).
 */
static hc_kernel k_add, k_inc;
static hc_stream kstream;
static struct {
	uint32_t k;
	hc_buffer b;
} consts[8];

static hc_status const_buf(uint32_t k, hc_buffer *out)
{
	uint32_t *w;
	size_t i;
	hc_status st;

	for (i = 0; i < 8 && consts[i].b.id; i++)
		if (consts[i].k == k) {
			*out = consts[i].b;
			return HC_OK;
		}
	if (i == 8 || !(w = malloc(N * 4)))
		return HC_ERR_OOM;
	for (uint32_t j = 0; j < N; j++)
		w[j] = k;
	st = hc_alloc(kstream, N * 4, &consts[i].b);
	if (st == HC_OK)
		st = hc_write(kstream, consts[i].b, 0, w, N * 4, HC_ALLOC_NATIVE, NULL, NULL);
	if (st == HC_OK)
		st = hc_sync(kstream);
	free(w);
	consts[i].k = k;
	*out = consts[i].b;
	return st;
}

static hc_status launch_add(hc_stream s, hc_buffer in, uint64_t in_off, hc_buffer out,
			    uint64_t out_off, const uint64_t *info)
{
	hc_binding b[3] = { { in, in_off, N * 4, HC_ACCESS_READ },
			    { out, out_off, N * 4, HC_ACCESS_WRITE } };
	hc_launch_desc l = desc(k_add, b, 2, info);

	if (on_sim) {
		b[2] = b[1];
		b[1] = (hc_binding){ { 0 }, 0, N * 4, HC_ACCESS_READ };
		if (const_buf((uint32_t)info[1], &b[1].buffer) != HC_OK)
			return HC_ERR_OOM;
		l.n_bindings = 3;
	}
	return hc_launch(s, &l);
}

static hc_status launch_inc(hc_stream s, hc_buffer p, const uint64_t *info)
{
	hc_binding b[3] = { { p, 0, N * 4, HC_ACCESS_READ_WRITE } };
	hc_launch_desc l = desc(k_inc, b, 1, info);

	if (on_sim) {
		b[1] = (hc_binding){ { 0 }, 0, N * 4, HC_ACCESS_READ };
		b[2] = b[0];
		if (const_buf((uint32_t)info[1], &b[1].buffer) != HC_OK)
			return HC_ERR_OOM;
		l.n_bindings = 3;
	}
	return hc_launch(s, &l);
}

static int words_are(const uint32_t *w, uint32_t mul, uint32_t add)
{
	for (uint32_t i = 0; i < N; i++)
		if (w[i] != i * mul + add)
			return 0;
	return 1;
}

/* Write on A, api_add on B reading A's buffer, read on B. */
static void cross_stream(void)
{
	hc_stream a, b;
	hc_buffer in, out;
	uint32_t *host = malloc(N * 4);
	uint64_t info[2] = { N, 5 };
	hc_device_stats s0 = { .struct_size = sizeof(s0) };
	hc_device_stats s1 = { .struct_size = sizeof(s1) };

	if (!host)
		return;
	CHECK(hc_stream_open(dev, &a) == HC_OK && hc_stream_open(dev, &b) == HC_OK, "streams");
	CHECK(hc_alloc(a, N * 4, &in) == HC_OK && hc_alloc(b, N * 4, &out) == HC_OK, "alloc");
	for (uint32_t i = 0; i < N; i++)
		host[i] = i * 7u;
	s0 = stats();
	/* 4 MiB NATIVE: staged, so the copy is queued when hc_write returns */
	CHECK(hc_write(a, in, 0, host, N * 4, HC_ALLOC_NATIVE, NULL, NULL) == HC_OK, "write on A");
	CHECK(launch_add(b, in, 0, out, 0, info) == HC_OK, "launch on B");
	memset(host, 0, N * 4);
	CHECK(hc_read(b, out, 0, host, N * 4, NULL) == HC_OK, "read on B");
	CHECK(words_are(host, 7, 5), "consumer saw the producer's bytes: [1] = %u", host[1]);
	s1 = stats();
	CHECK(s1.xstream_waits > s0.xstream_waits, "a cross-stream wait was taken (%llu)",
	      (unsigned long long)(s1.xstream_waits - s0.xstream_waits));
	printf("# cross-stream: xstream_waits +%llu, stream_waits +%llu\n",
	       (unsigned long long)(s1.xstream_waits - s0.xstream_waits),
	       (unsigned long long)(s1.stream_waits - s0.stream_waits));
	CHECK(hc_free(in) == HC_OK && hc_free(out) == HC_OK, "free");
	CHECK(hc_stream_close(a) == HC_OK && hc_stream_close(b) == HC_OK, "close");
	free(host);
}

/* api_add twice with the same info: the second is a cache hit. */
static void kernel_and_cache(void)
{
	hc_stream s;
	hc_buffer in, out;
	uint32_t *host = malloc(N * 4);
	uint64_t info[2] = { N, 3 }, info2[2] = { N, 9 };
	hc_device_stats s0 = { .struct_size = sizeof(s0) };
	hc_device_stats s1 = { .struct_size = sizeof(s1) };
	hc_device_stats s2 = { .struct_size = sizeof(s2) };

	if (!host)
		return;
	CHECK(hc_stream_open(dev, &s) == HC_OK, "stream");
	CHECK(hc_alloc(s, N * 4, &in) == HC_OK && hc_alloc(s, N * 4 + 4096, &out) == HC_OK,
	      "alloc");
	for (uint32_t i = 0; i < N; i++)
		host[i] = i * 2u;
	CHECK(hc_write(s, in, 0, host, N * 4, HC_ALLOC_NATIVE, NULL, NULL) == HC_OK, "write");
	const_buf(3, &(hc_buffer){ 0 });
	const_buf(9, &(hc_buffer){ 0 });
	/* out bound at offset 4096: the kernel gets address + offset */
	s0 = stats();
	CHECK(launch_add(s, in, 0, out, 4096, info) == HC_OK, "launch 1");
	s1 = stats();
	CHECK(launch_add(s, in, 0, out, 4096, info) == HC_OK, "launch 2, same info");
	s2 = stats();
	CHECK(s1.cache_misses == s0.cache_misses + 1, "first launch misses");
	CHECK(s2.cache_hits == s1.cache_hits + 1 && s2.cache_misses == s1.cache_misses,
	      "identical info hits the cache: hits +%llu misses +%llu",
	      (unsigned long long)(s2.cache_hits - s1.cache_hits),
	      (unsigned long long)(s2.cache_misses - s1.cache_misses));
	CHECK(s2.launches == s0.launches + 2, "two launches counted");
	memset(host, 0, N * 4);
	CHECK(hc_read(s, out, 4096, host, N * 4, NULL) == HC_OK, "read");
	CHECK(words_are(host, 2, 3), "api_add result: [1] = %u", host[1]);
	CHECK(launch_add(s, in, 0, out, 4096, info2) == HC_OK, "launch 3, other info");
	CHECK(stats().cache_misses == s2.cache_misses + 1, "new info misses");
	CHECK(hc_read(s, out, 4096, host, N * 4, NULL) == HC_OK, "read");
	CHECK(words_are(host, 2, 9), "api_add with info[1] = 9: [1] = %u", host[1]);
	CHECK(hc_free(in) == HC_OK && hc_free(out) == HC_OK, "free");
	CHECK(hc_stream_close(s) == HC_OK, "close");
	free(host);
}

static void graphs(void)
{
	hc_stream s;
	hc_buffer p, extra;
	hc_graph g = { 0 }, g2 = { 0 };
	uint32_t *host = malloc(N * 4);
	uint64_t info[2] = { N, 1 };
	hc_status st;

	if (!host)
		return;
	CHECK(hc_stream_open(dev, &s) == HC_OK, "stream");
	CHECK(hc_alloc(s, N * 4, &p) == HC_OK, "alloc");
	for (uint32_t i = 0; i < N; i++)
		host[i] = i;
	CHECK(hc_write(s, p, 0, host, N * 4, HC_ALLOC_NATIVE, NULL, NULL) == HC_OK, "write");
	const_buf(1, &(hc_buffer){ 0 });

	CHECK(hc_graph_prepare(s) == HC_OK, "prepare");
	CHECK(launch_inc(s, p, info) == HC_OK, "warm-up launch"); /* +1 */
	CHECK(hc_graph_begin(s) == HC_OK, "begin");
	CHECK(launch_inc(s, p, info) == HC_OK, "captured launch"); /* not run */
	st = hc_graph_end(s, &g);
	CHECK(st == HC_OK && g.id != 0, "end: %s", hc_status_str(st));
	CHECK(hc_read(s, p, 0, host, N * 4, NULL) == HC_OK, "read");
	CHECK(words_are(host, 1, 1), "warm-up ran once, capture did not run: [0] = %u", host[0]);
	for (uint32_t r = 1; r <= 3 && g.id; r++) {
		CHECK(hc_graph_replay(s, g) == HC_OK, "replay %u", r);
		CHECK(hc_read(s, p, 0, host, N * 4, NULL) == HC_OK, "read");
		CHECK(words_are(host, 1, 1 + r), "after replay %u: [0] = %u", r, host[0]);
	}
	if (g.id) {
		CHECK(hc_graph_destroy(g) == HC_OK, "destroy");
		CHECK(hc_graph_replay(s, g) == HC_ERR_STALE, "replay of a destroyed graph");
	}

	/* an allocation of a never-seen size inside the capture */
	CHECK(hc_graph_prepare(s) == HC_OK, "prepare");
	CHECK(launch_inc(s, p, info) == HC_OK, "warm-up launch");
	CHECK(hc_graph_begin(s) == HC_OK, "begin");
	st = hc_alloc(s, 3 * HC_MIB + 777, &extra);
	printf("# hc_alloc inside capture: %s\n", hc_status_str(st));
	CHECK(st != HC_OK, "a never-seen size allocated inside a capture");
	if (st == HC_OK)
		hc_free(extra);
	CHECK(launch_inc(s, p, info) == HC_OK, "captured launch");
	st = hc_graph_end(s, &g2);
	CHECK(st == HC_ERR_STATE && g2.id == 0, "end after an allocation inside the capture: %s",
	      hc_status_str(st));
	printf("# %s\n", last()->message);
	if (st == HC_OK)
		printf("# note: the backend refused the allocation before the runtime saw it, so the\n"
		       "# capture stayed valid; HC_ERR_STATE here needs core to remember the refusal\n");
	if (g2.id)
		hc_graph_destroy(g2);
	CHECK(hc_sync(s) == HC_OK, "stream usable after the rejected capture");
	CHECK(hc_stream_close(s) == HC_OK, "close");
	free(host);
}

static void kernels(const char *ptx_path)
{
	size_t size = 0;
	char *ptx = on_sim ? NULL : read_file(ptx_path, &size);
	hc_kernel none;
	hc_status st;

	if (on_sim) {
		CHECK(hc_kernel_load(dev, NULL, 0, "add", &k_add) == HC_OK, "load sim add");
		k_inc = k_add;
	} else {
		CHECK(ptx != NULL, "cannot read PTX from %s", ptx_path);
		if (!ptx)
			return;
		CHECK(hc_kernel_load(dev, ptx, size, "api_add", &k_add) == HC_OK, "load api_add");
		CHECK(hc_kernel_load(dev, ptx, size, "api_inc", &k_inc) == HC_OK, "load api_inc");
		st = hc_kernel_load(dev, ptx, size, "no_such_kernel", &none);
		CHECK(st == HC_ERR_DEVICE, "missing kernel: %s", hc_status_str(st));
		printf("# missing kernel: %s (%d)\n", last()->backend_name, last()->backend_code);
		free(ptx);
	}
	CHECK(hc_stream_open(dev, &kstream) == HC_OK, "constants' stream");
	cross_stream();
	printf("# cross-stream done\n");
	kernel_and_cache();
	printf("# kernel and cache done\n");
	graphs();
	printf("# graphs done\n");
	for (int i = 0; i < 8 && consts[i].b.id; i++)
		CHECK(hc_free(consts[i].b) == HC_OK, "free constant %d", i);
	CHECK(hc_stream_close(kstream) == HC_OK, "close constants' stream");
}

static void garbage_image(void)
{
	static const char junk[] = "this is not a code object";
	hc_kernel k;
	hc_status st = hc_kernel_load(dev, junk, sizeof(junk), "api_add", &k);

	CHECK(st == HC_ERR_DEVICE, "garbage image: %s", hc_status_str(st));
	/* the runtime's own name (CUDA_ERROR_*, hipError*), not the fallback */
	CHECK(last()->status == HC_ERR_DEVICE && last()->backend_code != 0 &&
		      last()->backend_name[0] && strncmp(last()->backend_name, "unknown", 7) != 0,
	      "runtime's name kept: '%s' (%d)", last()->backend_name, last()->backend_code);
	printf("# garbage image: %s (%d): %s\n", last()->backend_name, last()->backend_code,
	       last()->message);
}

/* 8 GiB buffers until the device refuses, free, allocate again. */
static void oom_and_retry(void)
{
	enum { MAXA = 64 };
	const uint64_t big = oom_step;
	hc_buffer a[MAXA];
	hc_device_stats s0 = stats(), s1, s2;
	uint64_t held = 0;
	hc_stream s;
	hc_status st = HC_OK;
	int n = 0;

	CHECK(hc_stream_open(dev, &s) == HC_OK, "stream");
	/* SubSlices keeps freed pages cached until a cleanup: the path this case
	 * tests.  (The default Workload layout gives cached allocations back
	 * before passing its peak, so it rarely needs the retry at all.) */
	CHECK(hc_install_memory_pools(s, &(hc_pool_layout){ HC_LAYOUT_SUBSLICES, NULL, 0 }) == HC_OK,
	      "install SubSlices");
	while (n < MAXA && (st = hc_alloc(s, big, &a[n])) == HC_OK)
		n++;
	CHECK(st == HC_ERR_OOM, "allocation until refusal: %s after %d", hc_status_str(st), n);
	printf("# refused after %d x %llu MiB: %s\n", n, (unsigned long long)(big / HC_MIB),
	       last()->message);
	s1 = stats();
	CHECK(s1.alloc_retries > s0.alloc_retries, "the refusal ran cleanup and retry (%llu)",
	      (unsigned long long)(s1.alloc_retries - s0.alloc_retries));
	for (int i = 0; i < n; i++)
		CHECK(hc_free(a[i]) == HC_OK, "free %d", i);
	{
		hc_memory_usage m;

		CHECK(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &m) == HC_OK && m.number_allocs == 0,
		      "all freed");
		held = m.bytes_reserved;
		printf("# after the frees the pools hold %llu MiB\n",
		       (unsigned long long)(held / HC_MIB));
	}
	/* a size never seen while the pools may still hold every page: the
	 * backend refuses, cleanup gives the empty pages back, the retry passes */
	st = hc_alloc(s, big + big / 2, &a[0]);
	CHECK(st == HC_OK, "1.5 x step after the frees: %s", hc_status_str(st));
	s2 = stats();
	printf("# 1.5 x step: alloc_retries +%llu\n",
	       (unsigned long long)(s2.alloc_retries - s1.alloc_retries));
	if (held + big + big / 2 > total_memory)
		CHECK(s2.alloc_retries == s1.alloc_retries + 1,
		      "the pools' pages stood in the way: one cleanup-and-retry, not %llu",
		      (unsigned long long)(s2.alloc_retries - s1.alloc_retries));
	if (st == HC_OK)
		CHECK(hc_free(a[0]) == HC_OK, "free");
	n = n > 2 ? n - 1 : n;
	for (int i = 0; i < n; i++) {
		st = hc_alloc(s, big, &a[i]);
		CHECK(st == HC_OK, "allocate again after OOM, %d: %s", i, hc_status_str(st));
		if (st != HC_OK) {
			n = i;
			break;
		}
	}
	s2 = stats();
	printf("# reallocated %d x step; alloc_retries %llu -> %llu -> %llu\n", n,
	       (unsigned long long)s0.alloc_retries, (unsigned long long)s1.alloc_retries,
	       (unsigned long long)s2.alloc_retries);
	for (int i = 0; i < n; i++)
		CHECK(hc_free(a[i]) == HC_OK, "free %d", i);
	CHECK(hc_memory_cleanup(s) == HC_OK, "cleanup");
	CHECK(hc_stream_close(s) == HC_OK, "close");
}

static int wanted(const char *name)
{
	const char *c = getenv("HC_API_GPU_CASES");

	return !c || strstr(c, name) != NULL;
}

int main(int argc, char **argv)
{
	struct hc_hal_open_args args = { .ordinal = 0 };
	const char *ptx = argc > 1 ? argv[1] : getenv("HC_GPU_PTX");
	const char *backend = getenv("HC_API_GPU_BACKEND");
	hc_device_options o;
	hc_device_info info;
	hc_status st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	on_sim = backend && strcmp(backend, "sim") == 0;
	hc_device_options_init(&o);
	if (on_sim) {
		o.data_mode = true;
		o.capacity = (uint64_t)2 << 30;
		oom_step = 128 * HC_MIB;
	}
	st = hc_device_open(on_sim ? "sim" : "hip", &o, &dev);
	if (st == HC_ERR_NO_RUNTIME) {
		printf("SKIP: no GPU runtime/device: %s\n", last()->message);
		return 77;
	}
	if (st != HC_OK) {
		printf("FAIL: hc_device_open: %s: %s\n", hc_status_str(st), last()->message);
		return 1;
	}
	H = hc_hip_ops();
	if (!on_sim && H->device_open(&args, &HD) != HC_OK) {
		printf("FAIL: second open of the HIP backend: %s\n", last()->message);
		hc_device_close(dev);
		return 1;
	}
	CHECK(hc_device_info_get(dev, &info) == HC_OK, "info");
	CHECK(strcmp(info.backend, on_sim ? "sim" : "hip") == 0, "backend %s", info.backend);
	total_memory = info.total_memory;
	printf("# device: %s (%s), %llu bytes\n", info.name, info.backend,
	       (unsigned long long)info.total_memory);
	printf("# PINNED sources: %s\n", on_sim ? "malloc (simulator dry run)"
					      : "page-locked memory from a second hc_hip_ops() open");

	if (wanted("trips")) {
		round_trips();
		printf("# round trips done\n");
	}
	if (wanted("kernels") && (ptx || on_sim))
		kernels(ptx);
	else if (wanted("kernels"))
		printf("# no PTX (argv[1] or HC_GPU_PTX): kernel, cross-stream and graph cases not run\n");
	if (wanted("garbage") && !on_sim)
		garbage_image();
	if (wanted("oom")) {
		oom_and_retry();
		printf("# oom and retry done\n");
	}
	{
		hc_device_stats s = stats();

		printf("# stats: staged %llu pipelined %llu direct %llu launches %llu hits %llu "
		       "misses %llu retries %llu failures %llu\n",
		       (unsigned long long)s.writes_staged, (unsigned long long)s.writes_pipelined,
		       (unsigned long long)s.writes_direct, (unsigned long long)s.launches,
		       (unsigned long long)s.cache_hits, (unsigned long long)s.cache_misses,
		       (unsigned long long)s.alloc_retries, (unsigned long long)s.failures);
	}
	if (!on_sim)
		H->device_close(HD);
	CHECK(hc_device_close(dev) == HC_OK, "close");
	printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
	return failures ? 1 : 0;
}
