/*
 * hip_pinned.c - where the HIP backend's pinned host memory comes from.
 *
 * hipHostMalloc / cudaHostAlloc zero and pin the pages one by one inside
 * the runtime, on the calling thread.  On the H200 machine that costs
 * 34 ms for 64 MiB and 111 ms for 256 MiB (median of 5), and the figure
 * moves by a third from one run to the next; a pool that grows by 64 MiB
 * pages pays it on the critical path of whoever needed the memory.
 *
 * Mapping anonymous memory ourselves, faulting it in from several threads
 * (2 MiB pages where the kernel gives them), then registering it with the
 * runtime (hipHostRegister / cudaHostRegister, which only pins what is
 * already there) gives the same page-locked, device-mapped memory for a
 * fraction: 5.4 ms for 64 MiB, 17.7 ms for 256 MiB, and copies from it run
 * at the same ~51 GB/s (BENCHMARKS.md, "Pinned host allocation").  The
 * mapping is marked MADV_DONTFORK, as registered memory must be: a fork
 * would otherwise leave the parent's pinned pages copy-on-write.
 *
 * Blocks below HIP_PIN_MAP_MIN stay with the runtime, whose small pinned
 * allocations are cheap and whose granularity we would only round up.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hal/hip/hip_rt.h"

#define HIP_PIN_HUGE (2u << 20)          /* the transparent huge page size on x86-64 */
#define HIP_PIN_TOUCH_PER_THREAD (4u << 20) /* below it a thread costs more than it saves */
#define HIP_PIN_TOUCH_THREADS 8

struct touch_span {
	volatile unsigned char *p;
	size_t len;
};

static void *touch_span(void *arg)
{
	const struct touch_span *s = arg;
	long page = sysconf(_SC_PAGESIZE);

	/* One write per base page faults the page in (a huge page on the
	 * first write of its 2 MiB); the zeroing is the kernel's. */
	for (size_t o = 0; o < s->len; o += (size_t)page)
		s->p[o] = 0;
	return NULL;
}

/* Faults @len bytes at @p in, spread over up to HIP_PIN_TOUCH_THREADS
 * threads; a thread that cannot be created leaves its span to the caller. */
static void touch_parallel(unsigned char *p, size_t len)
{
	pthread_t thr[HIP_PIN_TOUCH_THREADS];
	struct touch_span span[HIP_PIN_TOUCH_THREADS];
	bool started[HIP_PIN_TOUCH_THREADS] = { false };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = len / HIP_PIN_TOUCH_PER_THREAD, per;

	if (n > HIP_PIN_TOUCH_THREADS)
		n = HIP_PIN_TOUCH_THREADS;
	if (cpus > 0 && n > (size_t)cpus)
		n = (size_t)cpus;
	if (n < 2) {
		struct touch_span all = { p, len };

		touch_span(&all);
		return;
	}
	per = (len / n + HIP_PIN_HUGE - 1) & ~(size_t)(HIP_PIN_HUGE - 1);
	for (size_t i = 0; i < n; i++) {
		size_t off = per * i;

		span[i].p = p + off;
		span[i].len = off >= len ? 0 : (len - off < per ? len - off : per);
	}
	/* the caller takes span 0 itself */
	for (size_t i = 1; i < n; i++)
		started[i] = pthread_create(&thr[i], NULL, touch_span, &span[i]) == 0;
	touch_span(&span[0]);
	for (size_t i = 1; i < n; i++) {
		if (started[i])
			pthread_join(thr[i], NULL);
		else
			touch_span(&span[i]);
	}
}

void *hip_pin_map(size_t size, size_t *map_len)
{
	size_t len = (size + HIP_PIN_HUGE - 1) & ~(size_t)(HIP_PIN_HUGE - 1);
	unsigned char *raw, *p;
	uintptr_t a;

	if (len < size) /* wrapped */
		return NULL;
	/* one huge page of slack, so the block can start on a 2 MiB boundary */
	raw = mmap(NULL, len + HIP_PIN_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)raw + HIP_PIN_HUGE - 1) & ~(uintptr_t)(HIP_PIN_HUGE - 1);
	p = (unsigned char *)a;
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (p + len < raw + len + HIP_PIN_HUGE)
		munmap(p + len, (size_t)(raw + len + HIP_PIN_HUGE - (p + len)));
	/* Both are advice: a kernel without THP still gives base pages. */
	(void)madvise(p, len, MADV_HUGEPAGE);
	if (madvise(p, len, MADV_DONTFORK) != 0) {
		munmap(p, len);
		return NULL;
	}
	touch_parallel(p, len);
	*map_len = len;
	return p;
}

void hip_pin_unmap(void *p, size_t map_len)
{
	munmap(p, map_len);
}
