/*
 * hostreg.c - probe: cudaHostAlloc against mmap + first touch from threads +
 * cudaHostRegister, alloc and free times and the H2D rate from each block
 * (BENCHMARKS.md, "Pinned host allocation"; hal/hip/hip_pinned.c came from
 * it).  Not built by make: on a machine with CUDA,
 *   nvcc -O2 -o hostreg bench/probes/hostreg.c -lcudart -lpthread
 *   ./hostreg [REPS]            (one JSON object per line)
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../timing.h" /* next to this directory: no -I needed */

struct span { char *p; size_t n; };
static void *touch(void *a) { struct span *s = a; for (size_t i = 0; i < s->n; i += 4096) s->p[i] = 0; return NULL; }
static void ptouch(char *p, size_t n, int nt)
{
	pthread_t t[64]; struct span s[64]; size_t per = (n / nt + 4095) & ~(size_t)4095;
	for (int i = 0; i < nt; i++) { size_t o = per * i; s[i].p = p + o; s[i].n = o < n ? (n - o < per ? n - o : per) : 0; pthread_create(&t[i], NULL, touch, &s[i]); }
	for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
}
static double bw(void *h, void *d, size_t n, cudaStream_t st)
{
	cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, st); cudaStreamSynchronize(st);
	double t = bench_now_ms(); for (int i = 0; i < 3; i++) cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, st);
	cudaStreamSynchronize(st); return 3.0 * n / ((bench_now_ms() - t) * 1e6);
}
int main(int argc, char **argv)
{
	size_t sizes[] = { 2 << 20, 16 << 20, 64 << 20, 256 << 20 };
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	void *d; cudaStream_t st;
	cudaSetDevice(0); cudaFree(0); cudaStreamCreate(&st); cudaMalloc(&d, 256 << 20);
	for (int z = 0; z < 4; z++) for (int r = 0; r < reps; r++) for (int m = 0; m < 5; m++) {
		size_t n = sizes[z]; char *p = NULL; double t0 = bench_now_ms(), ta, tf, g = 0; int e;
		const char *name[] = { "hostalloc", "reg_notouch", "reg_touch8_huge", "reg_touch8", "reg_touch16_huge" };
		if (m == 0) { e = cudaHostAlloc((void **)&p, n, cudaHostAllocMapped); }
		else {
			p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == 2 || m == 4) madvise(p, n, MADV_HUGEPAGE);
			if (m >= 2) ptouch(p, n, m == 4 ? 16 : 8);
			e = cudaHostRegister(p, n, cudaHostRegisterDefault);
		}
		ta = bench_now_ms() - t0;
		if (e) { printf("%s err %d\n", name[m], e); return 1; }
		if (r == reps - 1) g = bw(p, d, n, st);
		t0 = bench_now_ms();
		if (m == 0) cudaFreeHost(p); else { cudaHostUnregister(p); munmap(p, n); }
		tf = bench_now_ms() - t0;
		printf("{\"probe\":\"hostreg\",\"mode\":\"%s\",\"mib\":%zu,\"rep\":%d,\"alloc_ms\":%.3f,\"free_ms\":%.3f,\"gbps\":%.1f}\n", name[m], n >> 20, r, ta, tf, g);
		fflush(stdout);
	}
	return 0;
}
