/*
 * check_hip_gpu.c - the HIP backend against a real device, through
 * hc_hip_ops() directly (make check-gpu).
 *
 * Every case checks bytes, statuses or counts.  Without a runtime or a
 * device it prints "SKIP: no GPU runtime/device: <reason>" and exits 77.
 * The kernel comes from tests/gpu/kernels.cu as PTX (HC_GPU_PTX names the
 * file).  Plain C with its own CHECK macro, so it needs no Check library on
 * the GPU machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "hal/fault.h"
#include "hal/hip/hip_rt.h"

static int failures, checks;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		checks++;                                                       \
		if (!(cond)) {                                                  \
			failures++;                                             \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
			printf(__VA_ARGS__);                                    \
			printf(" [last error: %s]\n", last_msg());              \
		}                                                               \
	} while (0)

static const struct hc_hal_ops *H;
static hc_hal_dev *D;

static const char *last_msg(void)
{
	static hc_error_info e;

	hc_last_error(&e);
	return e.message;
}

static const hc_error_info *last(void)
{
	static hc_error_info e;

	hc_last_error(&e);
	return &e;
}

static void fill(unsigned char *p, uint64_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		p[i] = (unsigned char)(x >> 24);
	}
}

/* H2D, D2D, D2H of @n bytes, host side pinned or pageable; bytes checked. */
static void round_trip(hc_hal_stream *s, uint64_t n, int pinned)
{
	unsigned char *src = NULL, *dst = NULL;
	hc_hal_dptr a = 0, b = 0;
	hc_hal_event *e = NULL;
	hc_status st;

	if (pinned) {
		CHECK(H->host_alloc(D, n, (void **)&src) == HC_OK, "pinned %llu", (unsigned long long)n);
		CHECK(H->host_alloc(D, n, (void **)&dst) == HC_OK, "pinned %llu", (unsigned long long)n);
	} else {
		src = malloc(n);
		dst = malloc(n);
	}
	if (!src || !dst)
		goto out;
	fill(src, n, (unsigned)n);
	memset(dst, 0, n);
	CHECK(H->mem_alloc(D, n, &a) == HC_OK, "alloc");
	CHECK(H->mem_alloc(D, n, &b) == HC_OK, "alloc");
	CHECK(H->copy_h2d(D, s, a, src, n, pinned) == HC_OK, "h2d");
	CHECK(H->copy_d2d(D, s, b, a, n) == HC_OK, "d2d");
	CHECK(H->copy_d2h(D, s, dst, b, n, pinned) == HC_OK, "d2h");
	CHECK(H->event_record(D, s, &e) == HC_OK, "record");
	CHECK(H->event_sync(D, e) == HC_OK, "sync");
	st = memcmp(src, dst, n) == 0 ? HC_OK : HC_ERR_DEVICE;
	CHECK(st == HC_OK, "%s round trip of %llu bytes differs", pinned ? "pinned" : "pageable",
	      (unsigned long long)n);
	H->event_destroy(D, e);
out:
	if (a)
		H->mem_free(D, a);
	if (b)
		H->mem_free(D, b);
	if (pinned) {
		if (src)
			H->host_free(D, src);
		if (dst)
			H->host_free(D, dst);
	} else {
		free(src);
		free(dst);
	}
}

static void cross_stream(void)
{
	enum { N = 8 << 20 };
	hc_hal_stream *s1, *s2;
	hc_hal_dptr a, b;
	unsigned char *src, *dst;
	hc_hal_event *e1, *e2;
	bool done = false;

	CHECK(H->stream_create(D, &s1) == HC_OK, "stream");
	CHECK(H->stream_create(D, &s2) == HC_OK, "stream");
	CHECK(H->host_alloc(D, N, (void **)&src) == HC_OK, "pinned");
	CHECK(H->host_alloc(D, N, (void **)&dst) == HC_OK, "pinned");
	CHECK(H->mem_alloc(D, N, &a) == HC_OK && H->mem_alloc(D, N, &b) == HC_OK, "alloc");
	fill(src, N, 7);
	memset(dst, 0, N);
	/* s1 writes a; s2 waits on s1's event, copies a -> b -> host */
	CHECK(H->copy_h2d(D, s1, a, src, N, true) == HC_OK, "h2d");
	CHECK(H->event_record(D, s1, &e1) == HC_OK, "record");
	CHECK(H->event_wait(D, s2, e1) == HC_OK, "wait");
	CHECK(H->copy_d2d(D, s2, b, a, N) == HC_OK, "d2d");
	CHECK(H->copy_d2h(D, s2, dst, b, N, true) == HC_OK, "d2h");
	CHECK(H->event_record(D, s2, &e2) == HC_OK, "record");
	CHECK(H->event_sync(D, e2) == HC_OK, "sync");
	CHECK(H->event_query(D, e2, &done) == HC_OK && done, "query after sync");
	CHECK(memcmp(src, dst, N) == 0, "cross-stream bytes differ");
	H->event_destroy(D, e1);
	H->event_destroy(D, e2);
	H->mem_free(D, a);
	H->mem_free(D, b);
	H->host_free(D, src);
	H->host_free(D, dst);
	CHECK(H->stream_destroy(D, s1) == HC_OK, "destroy");
	CHECK(H->stream_destroy(D, s2) == HC_OK, "destroy");
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
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*size = (size_t)n;
	return buf;
}

static void kernels_and_graphs(const char *ptx_path)
{
	enum { N = 1 << 20 };
	size_t ptx_size;
	char *ptx = read_file(ptx_path, &ptx_size);
	hc_hal_module *m;
	hc_hal_function *f, *nf;
	hc_hal_stream *s;
	hc_hal_dptr d, d2, bad = 0;
	uint32_t *host;
	unsigned n = N;
	void *args[2] = { &d, &n };
	void *args2[2] = { &d2, &n };
	struct hc_hal_launch l = { .grid = { N / 256, 1, 1 }, .block = { 256, 1, 1 }, .args = args,
				   .n_args = 2 };
	struct hc_hal_launch l2 = l;
	hc_hal_graph *g = NULL;
	void *raw = NULL;
	int ok = 1;

	CHECK(ptx != NULL, "cannot read PTX from %s", ptx_path);
	if (!ptx)
		return;
	l2.args = args2;
	CHECK(H->stream_create(D, &s) == HC_OK, "stream");
	CHECK(H->module_load(D, ptx, ptx_size, &m) == HC_OK, "module_load");
	CHECK(H->function_get(D, m, "add_one", &f) == HC_OK, "function_get");
	CHECK(H->function_get(D, m, "no_such_kernel", &nf) == HC_ERR_DEVICE, "missing kernel");
	printf("# missing kernel: %s (%d) %s\n", last()->backend_name, last()->backend_code,
	       last()->message);
	{
		hc_hal_module *gm = NULL;
		hc_status gs = H->module_load(D, "not ptx at all", 14, &gm);

		CHECK(gs == HC_ERR_DEVICE, "garbage image: %s", hc_status_str(gs));
		printf("# garbage image: %s (%d)\n", last()->backend_name, last()->backend_code);
		if (gs == HC_OK)
			H->module_unload(D, gm);
	}
	CHECK(H->host_alloc(D, N * 4, (void **)&host) == HC_OK, "pinned");
	CHECK(H->mem_alloc(D, N * 4, &d) == HC_OK && H->mem_alloc(D, N * 4, &d2) == HC_OK, "alloc");
	for (unsigned i = 0; i < N; i++)
		host[i] = i * 3u;
	CHECK(H->copy_h2d(D, s, d, host, N * 4, true) == HC_OK, "h2d");
	CHECK(H->launch(D, s, f, &l) == HC_OK, "launch");
	CHECK(H->copy_d2h(D, s, host, d, N * 4, true) == HC_OK, "d2h");
	CHECK(H->stream_sync(D, s) == HC_OK, "sync");
	for (unsigned i = 0; i < N && ok; i++)
		ok = host[i] == i * 3u + 1u;
	CHECK(ok, "add_one result wrong");

	/* a real launch error: 4096 threads per block */
	l.block[0] = 4096;
	CHECK(H->launch(D, s, f, &l) == HC_ERR_DEVICE, "invalid launch config");
	printf("# invalid launch: %s (%d): %s\n", last()->backend_name, last()->backend_code,
	       last()->message);
	CHECK(last()->backend_code != 0 && last()->backend_name[0], "code and name kept");
	l.block[0] = 256;
	CHECK(H->stream_sync(D, s) == HC_OK, "stream fine after refused launch");

	/* capture d -> d2, add_one(d2), d2 -> d: each replay adds one to d */
	CHECK(H->capture_begin(D, s) == HC_OK, "capture_begin");
	CHECK(H->mem_alloc(D, 4096, &bad) == HC_ERR_STATE, "alloc inside capture refused");
	CHECK(H->stream_sync(D, s) == HC_ERR_STATE, "sync inside capture refused");
	CHECK(H->copy_d2d(D, s, d2, d, N * 4) == HC_OK, "captured d2d");
	CHECK(H->launch(D, s, f, &l2) == HC_OK, "captured launch");
	CHECK(H->copy_d2d(D, s, d, d2, N * 4) == HC_OK, "captured d2d");
	CHECK(H->capture_end(D, s, &g) == HC_OK, "capture_end");
	for (int r = 0; r < 3 && g; r++)
		CHECK(H->graph_launch(D, s, g) == HC_OK, "replay");
	CHECK(H->copy_d2h(D, s, host, d, N * 4, true) == HC_OK, "d2h");
	CHECK(H->stream_sync(D, s) == HC_OK, "sync");
	ok = 1;
	for (unsigned i = 0; i < N && ok; i++)
		ok = host[i] == i * 3u + 4u;
	CHECK(ok, "graph replays: got %u at 0, want 4", host[0]);
	if (g)
		H->graph_destroy(D, g);

	/* a memory node recorded behind the backend's back: rejected at end */
	if (HIP_HAVE(MallocAsync) && HIP_HAVE(FreeAsync)) {
		g = NULL;
		CHECK(H->capture_begin(D, s) == HC_OK, "capture_begin");
		CHECK(HIP_CALL(MallocAsync)(&raw, 4096, hc_hip_stream_raw(s)) == 0, "raw MallocAsync");
		CHECK(HIP_CALL(FreeAsync)(raw, hc_hip_stream_raw(s)) == 0, "raw FreeAsync");
		CHECK(H->capture_end(D, s, &g) == HC_ERR_STATE && g == NULL, "memory nodes rejected");
		printf("# %s\n", last()->message);
		CHECK(strstr(last()->message, "(1 alloc, 1 free)") != NULL, "node counts");
		CHECK(H->stream_sync(D, s) == HC_OK, "stream usable after rejection");
	}
	/* the runtime's own refusal maps to HC_ERR_STATE */
	CHECK(H->capture_begin(D, s) == HC_OK, "capture_begin");
	{
		int err = HIP_CALL(Malloc)(&raw, 4096);
		CHECK(hip_err_status(HIP_SPACE_CUDART, err) == HC_ERR_STATE,
		      "cudaMalloc inside capture returned %d", err);
		printf("# raw cudaMalloc inside capture: %d\n", err);
	}
	g = NULL;
	{
		hc_status st = H->capture_end(D, s, &g);
		CHECK(st == HC_ERR_STATE || st == HC_OK, "capture_end after invalidation: %d", st);
		printf("# capture_end after a refused cudaMalloc: %s\n", hc_status_str(st));
		if (g)
			H->graph_destroy(D, g);
	}

	H->mem_free(D, d);
	H->mem_free(D, d2);
	H->host_free(D, host);
	H->module_unload(D, m);
	CHECK(H->stream_destroy(D, s) == HC_OK, "destroy");
	free(ptx);
}

static void oom_and_recover(void)
{
	enum { MAXA = 4096 };
	static hc_hal_dptr a[MAXA];
	int n = 0;
	uint64_t chunk = (uint64_t)4 << 30;
	hc_status st = HC_OK;
	struct hc_hal_stats stats;

	while (n < MAXA) {
		st = H->mem_alloc(D, chunk, &a[n]);
		if (st == HC_OK) {
			n++;
			continue;
		}
		if (chunk > (256u << 20)) {
			chunk /= 4;
			continue;
		}
		break;
	}
	CHECK(st == HC_ERR_OOM, "allocation until refusal: %s", hc_status_str(st));
	printf("# refused after %d allocations: %s (%d) %s\n", n, last()->backend_name,
	       last()->backend_code, last()->message);
	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &stats) == HC_OK, "stats");
	printf("# device bytes live at refusal: %llu\n", (unsigned long long)stats.device_bytes_live);
	for (int i = 0; i < n; i++)
		CHECK(H->mem_free(D, a[i]) == HC_OK, "free %d", i);
	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &stats) == HC_OK && stats.device_bytes_live == 0,
	      "all freed");
	CHECK(H->mem_alloc(D, (uint64_t)4 << 30, &a[0]) == HC_OK, "allocate again after OOM");
	CHECK(H->mem_free(D, a[0]) == HC_OK, "free");
}

/* --- virtual memory (hal.h: va_reserve, va_release, pmem_map, pmem_unmap) -- */

/* CHECK, and on failure go to @label: what follows would touch device
 * memory that is not there, a fault that poisons the GPU's context. */
#define REQUIRE(label, cond, ...)                                               \
	do {                                                                    \
		checks++;                                                       \
		if (!(cond)) {                                                  \
			failures++;                                             \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
			printf(__VA_ARGS__);                                    \
			printf(" [last error: %s]\n", last_msg());              \
			goto label;                                             \
		}                                                               \
	} while (0)

/* The device's free memory as the runtime reports it (cudaMemGetInfo). */
static uint64_t device_free(void)
{
	size_t f = 0, t = 0;

	return HIP_CALL(MemGetInfo)(&f, &t) == 0 ? f : 0;
}

static uint64_t round_up(uint64_t v, uint64_t g)
{
	return (v + g - 1) / g * g;
}

/* add_one over @words uint32 at @p, when the kernel loaded. */
static void add_one_at(hc_hal_stream *s, hc_hal_function *f, hc_hal_dptr p, unsigned words)
{
	void *args[2] = { &p, &words };
	struct hc_hal_launch l = { .grid = { (words + 255) / 256, 1, 1 }, .block = { 256, 1, 1 },
				   .args = args, .n_args = 2 };

	CHECK(H->launch(D, s, f, &l) == HC_OK, "add_one");
}

/*
 * Data survives growth across granules: G bytes written across the first
 * granule boundary of a 2 G mapping, the buffer grown by a second mapping,
 * G bytes copied across the seam between the two, a kernel run over the
 * seam, every byte read back; then the first mapping unmapped and the
 * second's bytes still there.
 */
static void vmm_growth(uint64_t g, const char *ptx_path)
{
	hc_hal_stream *s = NULL;
	hc_hal_module *m = NULL;
	hc_hal_function *f = NULL;
	unsigned char *src = NULL, *dst = NULL;
	hc_hal_dptr r = 0;
	struct hc_hal_stats st0, st1;
	bool first = false, second = false;
	int ok = 1;

	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &st0) == HC_OK, "stats");
	REQUIRE(out, H->stream_create(D, &s) == HC_OK, "stream");
	REQUIRE(out, H->host_alloc(D, g, (void **)&src) == HC_OK, "pinned src");
	REQUIRE(out, H->host_alloc(D, g, (void **)&dst) == HC_OK, "pinned dst");
	fill(src, g, 91);
	REQUIRE(out, H->va_reserve(D, 16 * g, &r) == HC_OK, "va_reserve 16 granules");
	CHECK(r % g == 0, "reservation aligned to the granule: 0x%llx", (unsigned long long)r);
	REQUIRE(out, first = H->pmem_map(D, r, 2 * g) == HC_OK, "map the first two granules");
	CHECK(H->copy_h2d(D, s, r + g / 2, src, g, true) == HC_OK, "write across the boundary");
	REQUIRE(out, second = H->pmem_map(D, r + 2 * g, 2 * g) == HC_OK, "grow: map two more");
	/* [2g - g/4, 3g - g/4): across the seam of the two mappings */
	CHECK(H->copy_d2d(D, s, r + 2 * g - g / 4, r + g / 2, g) == HC_OK, "copy across the seam");
	CHECK(H->copy_d2h(D, s, dst, r + g / 2, g, true) == HC_OK, "read back");
	REQUIRE(out, H->stream_sync(D, s) == HC_OK, "sync");
	CHECK(memcmp(src, dst, g) == 0, "bytes across the granule boundary");
	memset(dst, 0, g);
	CHECK(H->copy_d2h(D, s, dst, r + 2 * g - g / 4, g, true) == HC_OK, "read the copy");
	REQUIRE(out, H->stream_sync(D, s) == HC_OK, "sync");
	CHECK(memcmp(src, dst, g) == 0, "bytes copied across the seam of two mappings");
	if (ptx_path) {
		size_t ptx_size = 0;
		char *ptx = read_file(ptx_path, &ptx_size);

		CHECK(ptx && H->module_load(D, ptx, ptx_size, &m) == HC_OK, "module_load");
		if (m)
			CHECK(H->function_get(D, m, "add_one", &f) == HC_OK, "function_get");
		free(ptx);
	}
	if (f) {
		add_one_at(s, f, r + 2 * g - g / 4, (unsigned)(g / 4));
		CHECK(H->copy_d2h(D, s, dst, r + 2 * g - g / 4, g, true) == HC_OK, "read back");
		REQUIRE(out, H->stream_sync(D, s) == HC_OK, "sync after the kernel");
		for (uint64_t i = 0; i < g / 4 && ok; i++) {
			uint32_t a, b;

			memcpy(&a, src + 4 * i, 4);
			memcpy(&b, dst + 4 * i, 4);
			ok = b == a + 1u;
		}
		CHECK(ok, "add_one over two mappings");
		for (uint64_t i = 0; i < g / 4; i++) { /* what the device holds now */
			uint32_t a;

			memcpy(&a, src + 4 * i, 4);
			a += 1u;
			memcpy(src + 4 * i, &a, 4);
		}
	}
	/* shrink: the first mapping goes, the second keeps its bytes */
	CHECK(H->pmem_unmap(D, r, 2 * g) == HC_OK, "unmap the first mapping");
	first = false;
	memset(dst, 0, g);
	CHECK(H->copy_d2h(D, s, dst, r + 2 * g, g - g / 4, true) == HC_OK, "read the second");
	REQUIRE(out, H->stream_sync(D, s) == HC_OK, "sync");
	CHECK(memcmp(src + g / 4, dst, g - g / 4) == 0, "the second mapping's bytes after the unmap");
out:
	if (s)
		H->stream_sync(D, s);
	if (first)
		CHECK(H->pmem_unmap(D, r, 2 * g) == HC_OK, "unmap the first");
	if (second)
		CHECK(H->pmem_unmap(D, r + 2 * g, 2 * g) == HC_OK, "unmap the second");
	if (r)
		CHECK(H->va_release(D, r, 16 * g) == HC_OK, "va_release");
	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &st1) == HC_OK, "stats");
	CHECK(st1.pmem_maps - st0.pmem_maps == st1.pmem_unmaps - st0.pmem_unmaps,
	      "maps %llu unmaps %llu", (unsigned long long)(st1.pmem_maps - st0.pmem_maps),
	      (unsigned long long)(st1.pmem_unmaps - st0.pmem_unmaps));
	CHECK(st1.device_bytes_live == st0.device_bytes_live && st1.va_bytes_reserved == 0,
	      "nothing left mapped or reserved");
	if (m)
		H->module_unload(D, m);
	if (src)
		H->host_free(D, src);
	if (dst)
		H->host_free(D, dst);
	if (s)
		CHECK(H->stream_destroy(D, s) == HC_OK, "destroy");
}

/*
 * Unmapping returns memory the runtime reports free: one mapping of 512 MiB
 * takes it from cudaMemGetInfo's free bytes and its unmap gives it back,
 * and so do single granules unmapped out of a run of them, each within a
 * granule (the driver's page tables may take a little).
 */
static void vmm_memgetinfo(uint64_t g)
{
	enum { N = 8 };
	const uint64_t big = round_up(512ull << 20, g);
	uint64_t f0, f1, f2, f3, f4;
	bool mapped[N] = { false };
	hc_hal_dptr r = 0;

	REQUIRE(out, H->va_reserve(D, big + N * g, &r) == HC_OK, "va_reserve");
	f0 = device_free();
	REQUIRE(out, H->pmem_map(D, r, big) == HC_OK, "map %llu bytes", (unsigned long long)big);
	f1 = device_free();
	REQUIRE(out, H->pmem_unmap(D, r, big) == HC_OK, "unmap");
	f2 = device_free();
	printf("# cudaMemGetInfo free: before %llu, mapped %llu (-%lld), unmapped %llu (+%lld)\n",
	       (unsigned long long)f0, (unsigned long long)f1, (long long)(f0 - f1),
	       (unsigned long long)f2, (long long)(f2 - f1));
	CHECK(f0 >= f1 + big && f0 - f1 <= big + g, "mapping took %lld bytes, not %llu within %llu",
	      (long long)(f0 - f1), (unsigned long long)big, (unsigned long long)g);
	CHECK(f2 >= f1 + big - g && f2 - f1 <= big + g,
	      "unmapping gave back %lld bytes, not %llu within %llu", (long long)(f2 - f1),
	      (unsigned long long)big, (unsigned long long)g);
	/* N single granules, every other one unmapped */
	for (int i = 0; i < N; i++)
		REQUIRE(out, mapped[i] = H->pmem_map(D, r + big + i * g, g) == HC_OK,
			"map granule %d", i);
	f3 = device_free();
	for (int i = 0; i < N; i += 2) {
		CHECK(H->pmem_unmap(D, r + big + i * g, g) == HC_OK, "unmap granule %d", i);
		mapped[i] = false;
	}
	f4 = device_free();
	printf("# %d granules mapped, %d unmapped: free +%lld\n", N, N / 2, (long long)(f4 - f3));
	CHECK(f4 >= f3 + (N / 2) * g - g && f4 - f3 <= (N / 2) * g + g,
	      "unmapping %d granules gave back %lld bytes", N / 2, (long long)(f4 - f3));
out:
	for (int i = 0; i < N; i++)
		if (mapped[i])
			CHECK(H->pmem_unmap(D, r + big + i * g, g) == HC_OK, "unmap granule %d", i);
	if (r)
		CHECK(H->va_release(D, r, big + N * g) == HC_OK, "va_release");
}

/*
 * A map past the device's free memory is HC_ERR_OOM, and nothing is lost:
 * the bytes of a mapping made before it are intact, the reservation takes
 * a smaller mapping in the same place right after (the retry core makes
 * after its cleanup), and the counters saw no mapping.
 */
static void vmm_oom(uint64_t g, uint64_t total)
{
	/* past the device's memory by more than the map below asks beyond the
	 * free bytes (1 GiB), so that the map is refused for memory, not for
	 * running past the reservation */
	const uint64_t span = round_up(total, g) + (2ull << 30) + 64 * g;
	char in[4096], out[4096];
	hc_hal_stream *s = NULL;
	struct hc_hal_stats st0, st1;
	hc_hal_dptr r = 0;
	uint64_t f, big, retry = 0;
	bool first = false;
	hc_status st;

	for (int i = 0; i < 4096; i++)
		in[i] = (char)(i * 31 + 7);
	REQUIRE(done, H->stream_create(D, &s) == HC_OK, "stream");
	REQUIRE(done, H->va_reserve(D, span, &r) == HC_OK,
		"va_reserve %llu bytes (more than the device has)", (unsigned long long)span);
	REQUIRE(done, first = H->pmem_map(D, r, g) == HC_OK, "map one granule");
	CHECK(H->copy_h2d(D, s, r + g - 2048, in, 2048, false) == HC_OK, "write");
	REQUIRE(done, H->stream_sync(D, s) == HC_OK, "sync");
	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &st0) == HC_OK, "stats");
	f = device_free();
	big = round_up(f + (1ull << 30), g);
	st = H->pmem_map(D, r + g, big);
	CHECK(st == HC_ERR_OOM, "map of %llu bytes with %llu free: %s", (unsigned long long)big,
	      (unsigned long long)f, hc_status_str(st));
	printf("# map past free memory: %s (%d) %s\n", last()->backend_name, last()->backend_code,
	       last()->message);
	if (st == HC_OK)
		H->pmem_unmap(D, r + g, big);
	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &st1) == HC_OK, "stats");
	CHECK(st1.pmem_maps == st0.pmem_maps && st1.device_bytes_live == st0.device_bytes_live,
	      "the refused map changed the counters");
	CHECK(device_free() + g >= f, "the refused map kept memory: %llu free, was %llu",
	      (unsigned long long)device_free(), (unsigned long long)f);
	CHECK(H->copy_d2h(D, s, out, r + g - 2048, 2048, false) == HC_OK, "read");
	CHECK(memcmp(in, out, 2048) == 0, "bytes mapped before the refusal");
	retry = f / 2 < (1ull << 30) ? f / 2 / g * g : (1ull << 30) / g * g;
	REQUIRE(done, H->pmem_map(D, r + g, retry) == HC_OK, "retry: %llu bytes in the same place",
		(unsigned long long)retry);
	CHECK(H->copy_h2d(D, s, r + g, in + 2048, 2048, false) == HC_OK, "write the retried mapping");
	CHECK(H->copy_d2h(D, s, out, r + g - 2048, sizeof(out), false) == HC_OK,
	      "read across the two mappings");
	CHECK(memcmp(in, out, sizeof(out)) == 0, "one buffer across the kept and the retried mapping");
	CHECK(H->pmem_unmap(D, r + g, retry) == HC_OK, "unmap the retried mapping");
done:
	if (s)
		H->stream_sync(D, s);
	if (first)
		CHECK(H->pmem_unmap(D, r, g) == HC_OK, "unmap");
	if (r)
		CHECK(H->va_release(D, r, span) == HC_OK, "va_release");
	if (s)
		CHECK(H->stream_destroy(D, s) == HC_OK, "destroy");
}

/* Not while capturing: refused before the runtime sees it, the capture
 * goes on. */
static void vmm_capture(uint64_t g)
{
	hc_hal_stream *s = NULL;
	hc_hal_graph *gr = NULL;
	hc_hal_dptr r = 0, a = 0;
	bool mapped = false;

	REQUIRE(out, H->stream_create(D, &s) == HC_OK, "stream");
	REQUIRE(out, H->va_reserve(D, 4 * g, &r) == HC_OK, "va_reserve");
	REQUIRE(out, mapped = H->pmem_map(D, r, g) == HC_OK, "map");
	REQUIRE(out, H->mem_alloc(D, 4096, &a) == HC_OK, "alloc");
	REQUIRE(out, H->capture_begin(D, s) == HC_OK, "capture_begin");
	CHECK(H->pmem_map(D, r + g, g) == HC_ERR_STATE, "pmem_map inside a capture");
	CHECK(H->pmem_unmap(D, r, g) == HC_ERR_STATE, "pmem_unmap inside a capture");
	CHECK(H->va_reserve(D, g, &(hc_hal_dptr){ 0 }) == HC_ERR_STATE, "va_reserve inside a capture");
	CHECK(H->copy_d2d(D, s, r, a, 4096) == HC_OK, "a captured copy into the mapping");
	CHECK(H->capture_end(D, s, &gr) == HC_OK, "the capture survived");
	if (gr) {
		CHECK(H->graph_launch(D, s, gr) == HC_OK, "replay");
		CHECK(H->stream_sync(D, s) == HC_OK, "sync");
		H->graph_destroy(D, gr);
	}
out:
	if (s)
		H->stream_sync(D, s);
	if (mapped)
		CHECK(H->pmem_unmap(D, r, g) == HC_OK, "unmap");
	if (r)
		CHECK(H->va_release(D, r, 4 * g) == HC_OK, "release");
	if (a)
		H->mem_free(D, a);
	if (s)
		CHECK(H->stream_destroy(D, s) == HC_OK, "destroy");
}

static void vmm_cases(const struct hc_hal_props *p, const char *ptx)
{
	uint64_t g = p->vmm_granularity;

	printf("# virtual memory: granularity %llu\n", (unsigned long long)g);
	if (!g) {
		CHECK(getenv("HIPCORE_VMM") != NULL, "the device reports no virtual memory");
		return;
	}
	CHECK((g & (g - 1)) == 0, "granularity a power of two");
	vmm_growth(g, ptx);
	vmm_memgetinfo(g);
	vmm_oom(g, p->total_memory);
	vmm_capture(g);
	printf("# virtual memory done\n");
}

/* The fault shim over the real device: injected faults, real bytes. */
static void faults_over_hip(void)
{
	const struct hc_hal_ops *F = hc_fault_wrap(hc_hip_ops());
	struct hc_hal_open_args args = { .ordinal = 0 };
	struct hc_hal_fault_arg arm;
	hc_hal_dev *fd;
	hc_hal_stream *s;
	hc_hal_dptr d1, d2;
	hc_hal_event *e1, *e2;
	char in[256], out[256];

	CHECK(F && F->device_open(&args, &fd) == HC_OK, "open through the shim");
	if (!F)
		return;
	for (int i = 0; i < 256; i++)
		in[i] = (char)(i ^ 0x5a);
	CHECK(F->stream_create(fd, &s) == HC_OK, "stream");
	arm = (struct hc_hal_fault_arg){ HC_FAULT_DEVICE_ALLOC, 2, HC_FAULT_ONCE };
	CHECK(F->ctl(fd, HC_HAL_CTL_FAULT, &arm) == HC_OK, "arm");
	CHECK(F->mem_alloc(fd, 256, &d1) == HC_OK, "first alloc passes");
	CHECK(F->mem_alloc(fd, 256, &d2) == HC_ERR_OOM, "second alloc injected");
	CHECK(F->mem_alloc(fd, 256, &d2) == HC_OK, "third alloc passes");
	{
		struct hc_hal_props p;
		hc_hal_dptr r = 0;

		/* a map is a device allocation to the injector (one countdown) */
		if (F->device_props(fd, &p) == HC_OK && p.vmm_granularity && F->pmem_map &&
		    F->va_reserve(fd, 4 * p.vmm_granularity, &r) == HC_OK) {
			arm = (struct hc_hal_fault_arg){ HC_FAULT_DEVICE_ALLOC, 1, HC_FAULT_ONCE };
			CHECK(F->ctl(fd, HC_HAL_CTL_FAULT, &arm) == HC_OK, "arm");
			CHECK(F->pmem_map(fd, r, p.vmm_granularity) == HC_ERR_OOM, "map injected");
			CHECK(F->pmem_map(fd, r, p.vmm_granularity) == HC_OK, "map passes");
			CHECK(F->pmem_unmap(fd, r, p.vmm_granularity) == HC_OK, "unmap");
			CHECK(F->va_release(fd, r, 4 * p.vmm_granularity) == HC_OK, "release");
		}
	}
	arm = (struct hc_hal_fault_arg){ HC_FAULT_COPY, 1, HC_FAULT_ONCE };
	CHECK(F->ctl(fd, HC_HAL_CTL_FAULT, &arm) == HC_OK, "arm");
	CHECK(F->copy_h2d(fd, s, d1, in, 256, false) == HC_ERR_DEVICE, "copy injected");
	CHECK(F->copy_h2d(fd, s, d1, in, 256, false) == HC_OK, "copy passes");
	arm = (struct hc_hal_fault_arg){ HC_FAULT_FENCE, 1, HC_FAULT_ONCE };
	CHECK(F->ctl(fd, HC_HAL_CTL_FAULT, &arm) == HC_OK, "arm");
	CHECK(F->event_record(fd, s, &e1) == HC_OK, "record");
	CHECK(F->copy_d2d(fd, s, d2, d1, 256) == HC_OK, "d2d");
	CHECK(F->copy_d2h(fd, s, out, d2, 256, false) == HC_OK, "d2h");
	CHECK(F->event_record(fd, s, &e2) == HC_OK, "record");
	CHECK(F->event_sync(fd, e1) == HC_ERR_DEVICE, "injected fence failure");
	CHECK(F->event_sync(fd, e2) == HC_OK, "next fence fine");
	CHECK(memcmp(in, out, 256) == 0, "bytes through the shim");
	F->event_destroy(fd, e1);
	F->event_destroy(fd, e2);
	F->device_close(fd); /* frees d1, d2 and s */
}

int main(void)
{
	struct hc_hal_open_args args = { .ordinal = 0 };
	struct hc_hal_props p;
	struct hc_hal_stats stats;
	hc_hal_stream *s;
	const char *ptx = getenv("HC_GPU_PTX");
	static const uint64_t sizes[] = { 1, 3, 4096, 65537, 1 << 20, (16 << 20) + 1, 256 << 20 };
	hc_status st;

	H = hc_hip_ops();
	st = H->device_open(&args, &D);
	if (st == HC_ERR_NO_RUNTIME) {
		printf("SKIP: no GPU runtime/device: %s\n", last_msg());
		return 77;
	}
	if (st != HC_OK) {
		printf("FAIL: device_open: %s: %s\n", hc_status_str(st), last_msg());
		return 1;
	}
	CHECK(H->device_props(D, &p) == HC_OK, "props");
	printf("# device: %s, %llu bytes, alignment %llu, integrated %d\n", p.name,
	       (unsigned long long)p.total_memory, (unsigned long long)p.alignment, p.integrated);
	CHECK(p.total_memory > (1ull << 30) && p.alignment >= 32, "props plausible");

	CHECK(H->stream_create(D, &s) == HC_OK, "stream");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		round_trip(s, sizes[i], 1);
		round_trip(s, sizes[i], 0);
	}
	CHECK(H->stream_destroy(D, s) == HC_OK, "destroy");
	{
		struct hc_hal_stats hs;

		/* the pinned blocks of 16 MiB and 256 MiB were mapped and
		 * registered (hip_pinned.c), not allocated by the runtime */
		CHECK(H->ctl(D, HC_HAL_CTL_STATS, &hs) == HC_OK, "stats");
		CHECK(getenv("HIPCORE_PINNED_REGISTER") || hs.host_allocs_registered >= 4,
		      "pinned blocks registered: %llu of %llu", (unsigned long long)hs.host_allocs_registered,
		      (unsigned long long)hs.host_allocs);
		printf("# pinned blocks: %llu, registered: %llu\n", (unsigned long long)hs.host_allocs,
		       (unsigned long long)hs.host_allocs_registered);
	}
	printf("# round trips done\n");
	cross_stream();
	printf("# cross-stream done\n");
	if (ptx)
		kernels_and_graphs(ptx);
	else
		printf("# no HC_GPU_PTX: kernel and graph cases not run\n");
	printf("# kernels and graphs done\n");
	vmm_cases(&p, ptx);
	oom_and_recover();
	faults_over_hip();
	printf("# faults over hip done\n");
	CHECK(H->ctl(D, HC_HAL_CTL_STATS, &stats) == HC_OK, "stats");
	printf("# stats: allocs %llu frees %llu h2d %llu d2h %llu d2d %llu launches %llu waits %llu\n",
	       (unsigned long long)stats.device_allocs, (unsigned long long)stats.device_frees,
	       (unsigned long long)stats.copies_h2d, (unsigned long long)stats.copies_d2h,
	       (unsigned long long)stats.copies_d2d, (unsigned long long)stats.launches,
	       (unsigned long long)stats.host_waits);
	H->device_close(D);
	printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
	return failures ? 1 : 0;
}
