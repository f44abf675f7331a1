/*
 * fake_cudart.c - a stand-in for libcudart + libcuda, for check_hip.
 *
 * It exports the cuda* and cu* entry points the HIP backend binds on NVIDIA,
 * backed by host memory: cudaMalloc is malloc, cudaMemcpyAsync is memcpy,
 * events are always complete.  A test makes any entry fail with
 * fake_set_error(name, code) (0 clears), reads how often an entry ran with
 * fake_calls(name), and counts live objects with fake_live().  A capture
 * records which calls it saw as graph nodes, with the CUDA node types
 * (memcpy 1, kernel 0, memory allocation 10, free 11), so capture_end's
 * rejection of memory nodes runs without a GPU.  Built with FAKE_PARTIAL it
 * lacks cudaGraphLaunch, to test "runtime missing a symbol".  cuGetErrorName
 * is deliberately absent (the backend falls back to its static table).
 *
 * Built with FAKE_HIP it exports the same entry points under their HIP
 * names instead (hipMalloc, hipHostMalloc, hipModuleLaunchKernel, ...), with
 * hipGraphInstantiate's signature, to drive the AMD path.  The controls keep
 * the CUDA names.  Device attributes answer from a table the test may set
 * (fake_set_attr), since HIP and CUDA number them differently.
 *
 * Virtual memory (cuMem* / hipMem*) is backed by host memory the way a GPU
 * backs it with device memory: a reservation is an inaccessible anonymous
 * mapping; cuMemCreate makes a memfd of the size (the physical memory);
 * cuMemMap maps that memfd over the reservation, still inaccessible;
 * cuMemSetAccess makes it read-write; cuMemUnmap puts an inaccessible
 * anonymous mapping back; cuMemRelease closes the memfd, whose pages go with
 * the last mapping.  So bytes written through a mapping are read back
 * through any other, a range unmapped loses its bytes, and touching it
 * faults.  The rules CUDA documents are enforced (granule-aligned, inside a
 * reservation, no double map, unmap of whole mappings only, free of a whole
 * reservation), each breach answered with invalid value (1).  The
 * allocation properties and access descriptor are read as bytes at their
 * documented offsets, so a layout mistake in the backend fails here.
 * fake_set_vmm(granularity, capacity) sets the granule (0: the runtime has
 * no VMM entry that works: cuMemGetAllocationGranularity fails) and how many
 * bytes cuMemCreate gives before answering out of memory (2);
 * fake_set_version sets what cuda/hipRuntimeGetVersion reports.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hal/builtins.h"

#define EXPORT __attribute__((visibility("default")))

#ifdef FAKE_HIP
#define cudaGetErrorName hipGetErrorName
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaSetDevice hipSetDevice
#define cudaMemGetInfo hipMemGetInfo
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaHostAlloc hipHostMalloc
#define cudaFreeHost hipHostFree
#define cudaHostRegister hipHostRegister
#define cudaHostUnregister hipHostUnregister
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventRecord hipEventRecord
#define cudaStreamWaitEvent hipStreamWaitEvent
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventQuery hipEventQuery
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaGraphGetNodes hipGraphGetNodes
#define cudaGraphNodeGetType hipGraphNodeGetType
#define cudaGraphLaunch hipGraphLaunch
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphDestroy hipGraphDestroy
#define cudaMallocAsync hipMallocAsync
#define cudaFreeAsync hipFreeAsync
#define cuInit hipInit
#define cuDeviceGet hipDeviceGet
#define cuDeviceGetName hipDeviceGetName
#define cuModuleLoadData hipModuleLoadData
#define cuModuleUnload hipModuleUnload
#define cuModuleGetFunction hipModuleGetFunction
#define cuLaunchKernel hipModuleLaunchKernel
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cuMemGetAllocationGranularity hipMemGetAllocationGranularity
#define cuMemAddressReserve hipMemAddressReserve
#define cuMemAddressFree hipMemAddressFree
#define cuMemCreate hipMemCreate
#define cuMemMap hipMemMap
#define cuMemSetAccess hipMemSetAccess
#define cuMemUnmap hipMemUnmap
#define cuMemRelease hipMemRelease
#endif

enum {
	F_GetDeviceCount, F_SetDevice, F_MemGetInfo, F_DeviceGetAttribute, F_Malloc, F_Free,
	F_HostAlloc, F_FreeHost, F_MemcpyAsync, F_StreamCreate, F_StreamDestroy, F_StreamSync,
	F_EventCreate, F_EventRecord, F_StreamWaitEvent, F_EventSync, F_EventQuery,
	F_EventDestroy, F_BeginCapture, F_EndCapture, F_GraphGetNodes, F_NodeGetType,
	F_Instantiate, F_GraphLaunch, F_GraphExecDestroy, F_GraphDestroy, F_MallocAsync,
	F_FreeAsync, F_cuInit, F_cuDeviceGet, F_cuDeviceGetName, F_cuModuleLoadData,
	F_cuModuleUnload, F_cuModuleGetFunction, F_cuLaunchKernel, F_EventElapsed,
	F_EventCreateTiming, F_HostRegister, F_HostUnregister, F_RuntimeGetVersion,
	F_MemGetAllocationGranularity, F_MemAddressReserve, F_MemAddressFree, F_MemCreate,
	F_MemMap, F_MemSetAccess, F_MemUnmap, F_MemRelease, F_COUNT
};

static const char *const names[F_COUNT] = {
	"cudaGetDeviceCount", "cudaSetDevice", "cudaMemGetInfo", "cudaDeviceGetAttribute",
	"cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaFreeHost", "cudaMemcpyAsync",
	"cudaStreamCreateWithFlags", "cudaStreamDestroy", "cudaStreamSynchronize",
	"cudaEventCreateWithFlags", "cudaEventRecord", "cudaStreamWaitEvent",
	"cudaEventSynchronize", "cudaEventQuery", "cudaEventDestroy", "cudaStreamBeginCapture",
	"cudaStreamEndCapture", "cudaGraphGetNodes", "cudaGraphNodeGetType",
	"cudaGraphInstantiateWithFlags", "cudaGraphLaunch", "cudaGraphExecDestroy",
	"cudaGraphDestroy", "cudaMallocAsync", "cudaFreeAsync", "cuInit", "cuDeviceGet",
	"cuDeviceGetName", "cuModuleLoadData", "cuModuleUnload", "cuModuleGetFunction",
	"cuLaunchKernel", "cudaEventElapsedTime",
	"cudaEventCreateWithFlags:timing", /* creations with timing on (flags 0) */
	"cudaHostRegister", "cudaHostUnregister", "cudaRuntimeGetVersion",
	"cuMemGetAllocationGranularity", "cuMemAddressReserve", "cuMemAddressFree", "cuMemCreate",
	"cuMemMap", "cuMemSetAccess", "cuMemUnmap", "cuMemRelease",
};

static int errs[F_COUNT];
static unsigned long calls[F_COUNT];
static int err_once[F_COUNT];
static long live; /* streams, events, graphs, execs, modules, allocations */
static int device_count = 1;
/* Names cuModuleGetFunction was asked for, and launches that ran a
 * built-in kernel's host reference (see Modules, below). */
#define FAKE_MAX_LOOKUPS 16
static struct {
	char name[32];
	unsigned long count;
} lookups[FAKE_MAX_LOOKUPS];
static unsigned long builtin_runs;

/* What a capture records: node types in order. */
#define MAX_NODES 64
struct fake_graph {
	int n;
	int types[MAX_NODES];
};
static struct fake_graph *capturing; /* one capture at a time is enough here */

static int find(const char *name)
{
	for (int i = 0; i < F_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

EXPORT int fake_set_error(const char *name, int code, int once)
{
	int i = find(name);

	if (i < 0)
		return -1;
	errs[i] = code;
	err_once[i] = once;
	return 0;
}

EXPORT unsigned long fake_calls(const char *name)
{
	int i = find(name);

	return i < 0 ? 0 : calls[i];
}

EXPORT long fake_live(void)
{
	return live;
}

EXPORT void fake_set_devices(int n)
{
	device_count = n;
}

/* {attribute, value}; CUDA's numbers by default: texture alignment 14,
 * surface alignment 30, integrated 18. */
static int attrs[8][2] = { { 14, 512 }, { 30, 1024 }, { 18, 1 } };
static int n_attrs = 3;

EXPORT void fake_set_attr(int attr, int value)
{
	for (int i = 0; i < n_attrs; i++)
		if (attrs[i][0] == attr) {
			attrs[i][1] = value;
			return;
		}
	if (n_attrs < 8) {
		attrs[n_attrs][0] = attr;
		attrs[n_attrs++][1] = value;
	}
}

#ifdef FAKE_HIP
#define FAKE_VERSION 60342134 /* ROCm 6.3 */
#else
#define FAKE_VERSION 13000 /* CUDA 13.0 */
#endif
static int version = FAKE_VERSION;
static uint64_t vmm_gran = 2u << 20, vmm_capacity = 64u << 20, vmm_created;

EXPORT void fake_set_vmm(uint64_t granularity, uint64_t capacity)
{
	vmm_gran = granularity;
	vmm_capacity = capacity;
}

EXPORT void fake_set_version(int v)
{
	version = v;
}

EXPORT void fake_reset(void)
{
	memset(errs, 0, sizeof(errs));
	memset(calls, 0, sizeof(calls));
	memset(err_once, 0, sizeof(err_once));
	memset(lookups, 0, sizeof(lookups));
	builtin_runs = 0;
	version = FAKE_VERSION;
	vmm_gran = 2u << 20;
	vmm_capacity = 64u << 20;
	device_count = 1;
	n_attrs = 3;
	attrs[0][0] = 14, attrs[0][1] = 512;
	attrs[1][0] = 30, attrs[1][1] = 1024;
	attrs[2][0] = 18, attrs[2][1] = 1;
}

/* Counts the call; returns the error armed for it (0: go on). */
static int enter(int f)
{
	int e = errs[f];

	calls[f]++;
	if (e && err_once[f])
		errs[f] = 0;
	return e;
}

static void record(int type)
{
	if (capturing && capturing->n < MAX_NODES)
		capturing->types[capturing->n++] = type;
}

EXPORT const char *cudaGetErrorName(int code)
{
	static const char *const fake_names[] = { "fakeSuccess", "fakeInvalidValue",
						  "fakeMemoryAllocation" };

	return code >= 0 && code < 3 ? fake_names[code] : NULL;
}

EXPORT int cudaGetDeviceCount(int *n)
{
	int e = enter(F_GetDeviceCount);

	*n = e ? 0 : device_count;
	return e;
}

EXPORT int cudaSetDevice(int d) { return enter(F_SetDevice); }

EXPORT int cudaMemGetInfo(size_t *f, size_t *t)
{
	int e = enter(F_MemGetInfo);

	if (!e) {
		*f = (size_t)70 << 30;
		*t = (size_t)80 << 30;
	}
	return e;
}

EXPORT int cudaDeviceGetAttribute(int *v, int attr, int dev)
{
	int e = enter(F_DeviceGetAttribute);

	if (e)
		return e;
	*v = 0;
	for (int i = 0; i < n_attrs; i++)
		if (attrs[i][0] == attr)
			*v = attrs[i][1];
	return 0;
}

EXPORT int cudaMalloc(void **p, size_t n)
{
	int e = enter(F_Malloc);

	if (e)
		return e;
	*p = malloc(n ? n : 1);
	if (!*p)
		return 2;
	live++;
	return 0;
}

EXPORT int cudaFree(void *p)
{
	int e = enter(F_Free);

	if (e)
		return e;
	if (p) {
		free(p);
		live--;
	}
	return 0;
}

EXPORT int cudaHostAlloc(void **p, size_t n, unsigned flags)
{
	int e = enter(F_HostAlloc);

	if (e)
		return e;
	if (flags != 2) /* cudaHostAllocMapped, and only it */
		return 1;
	*p = malloc(n);
	live++;
	return 0;
}

EXPORT int cudaFreeHost(void *p)
{
	int e = enter(F_FreeHost);

	if (!e) {
		free(p);
		live--;
	}
	return e;
}

/* Registered ranges, so an unregister of anything else fails as the real
 * one does (cudaErrorHostMemoryNotRegistered, hipErrorHostMemoryNotRegistered). */
#define MAX_REGISTERED 64
static void *registered[MAX_REGISTERED];

EXPORT int cudaHostRegister(void *p, size_t n, unsigned flags)
{
	int e = enter(F_HostRegister);
	int i = -1;

	if (e)
		return e;
	if (flags != 2 || !p || n == 0) /* cudaHostRegisterMapped, and only it */
		return 1;
	for (int k = 0; k < MAX_REGISTERED; k++) {
		if (registered[k] == p)
			return 712;
		if (!registered[k] && i < 0)
			i = k;
	}
	if (i < 0)
		return 2;
	/* what the runtime pins must be there, writable, from end to end */
	((volatile char *)p)[0] = ((volatile char *)p)[0];
	((volatile char *)p)[n - 1] = ((volatile char *)p)[n - 1];
	registered[i] = p;
	live++;
	return 0;
}

EXPORT int cudaHostUnregister(void *p)
{
	int e = enter(F_HostUnregister);

	if (e)
		return e;
	for (int i = 0; i < MAX_REGISTERED; i++)
		if (registered[i] == p) {
			registered[i] = NULL;
			live--;
			return 0;
		}
	return 713;
}

EXPORT int cudaMemcpyAsync(void *d, const void *s, size_t n, int kind, void *stream)
{
	int e = enter(F_MemcpyAsync);

	if (e)
		return e;
	if (kind < 1 || kind > 3)
		return 21;
	if (capturing)
		record(1);
	else
		memcpy(d, s, n);
	return 0;
}

static void *token(void)
{
	live++;
	return malloc(16);
}

static void untoken(void *p)
{
	live--;
	free(p);
}

EXPORT int cudaStreamCreateWithFlags(void **s, unsigned flags)
{
	int e = enter(F_StreamCreate);

	if (e)
		return e;
	if (flags != 1) /* cudaStreamNonBlocking */
		return 1;
	*s = token();
	return 0;
}

EXPORT int cudaStreamDestroy(void *s)
{
	int e = enter(F_StreamDestroy);

	if (!e)
		untoken(s);
	return e;
}

EXPORT int cudaStreamSynchronize(void *s) { return enter(F_StreamSync); }

EXPORT int cudaEventCreateWithFlags(void **ev, unsigned flags)
{
	int e = enter(F_EventCreate);

	if (e)
		return e;
	if (flags == 0) /* timing on: only the opt-in kernel timing asks for it */
		calls[F_EventCreateTiming]++;
	else if (flags != 2) /* cudaEventDisableTiming */
		return 1;
	*ev = token();
	return 0;
}

/* 0.25 ms between any two events. */
EXPORT int cudaEventElapsedTime(float *ms, void *a, void *b)
{
	int e = enter(F_EventElapsed);

	if (!e)
		*ms = 0.25f;
	return e;
}

EXPORT int cudaEventRecord(void *ev, void *s) { return enter(F_EventRecord); }
EXPORT int cudaStreamWaitEvent(void *s, void *ev, unsigned f) { return enter(F_StreamWaitEvent); }
EXPORT int cudaEventSynchronize(void *ev) { return enter(F_EventSync); }
EXPORT int cudaEventQuery(void *ev) { return enter(F_EventQuery); }

EXPORT int cudaEventDestroy(void *ev)
{
	int e = enter(F_EventDestroy);

	if (!e)
		untoken(ev);
	return e;
}

EXPORT int cudaStreamBeginCapture(void *s, int mode)
{
	int e = enter(F_BeginCapture);

	if (e)
		return e;
	if (mode != 0 || capturing)
		return 1;
	capturing = calloc(1, sizeof(*capturing));
	live++;
	return 0;
}

EXPORT int cudaStreamEndCapture(void *s, void **graph)
{
	int e = enter(F_EndCapture);

	if (e)
		return e;
	if (!capturing)
		return 903;
	*graph = capturing;
	capturing = NULL;
	return 0;
}

EXPORT int cudaGraphGetNodes(void *graph, void **nodes, size_t *n)
{
	struct fake_graph *g = graph;
	int e = enter(F_GraphGetNodes);

	if (e)
		return e;
	if (nodes)
		for (int i = 0; i < g->n && (size_t)i < *n; i++)
			nodes[i] = (void *)(uintptr_t)(g->types[i] + 1);
	*n = (size_t)g->n;
	return 0;
}

EXPORT int cudaGraphNodeGetType(void *node, int *type)
{
	int e = enter(F_NodeGetType);

	if (!e)
		*type = (int)(uintptr_t)node - 1;
	return e;
}

#ifdef FAKE_HIP
EXPORT int hipGraphInstantiate(void **exec, void *graph, void **err_node, char *log, size_t n)
#else
EXPORT int cudaGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags)
#endif
{
	int e = enter(F_Instantiate);

	if (!e)
		*exec = token();
	return e;
}

#ifndef FAKE_PARTIAL
EXPORT int cudaGraphLaunch(void *exec, void *s) { return enter(F_GraphLaunch); }
#endif

EXPORT int cudaGraphExecDestroy(void *exec)
{
	int e = enter(F_GraphExecDestroy);

	if (!e)
		untoken(exec);
	return e;
}

EXPORT int cudaGraphDestroy(void *graph)
{
	int e = enter(F_GraphDestroy);

	if (!e) {
		free(graph);
		live--;
	}
	return e;
}

EXPORT int cudaMallocAsync(void **p, size_t n, void *s)
{
	int e = enter(F_MallocAsync);

	if (e)
		return e;
	if (capturing) {
		record(10);
		*p = (void *)(uintptr_t)0x1000;
		return 0;
	}
	return cudaMalloc(p, n);
}

EXPORT int cudaFreeAsync(void *p, void *s)
{
	int e = enter(F_FreeAsync);

	if (e)
		return e;
	if (capturing) {
		record(11);
		return 0;
	}
	return cudaFree(p);
}

EXPORT int cuInit(unsigned flags) { return enter(F_cuInit); }

EXPORT int cuDeviceGet(int *d, int ordinal)
{
	int e = enter(F_cuDeviceGet);

	if (!e)
		*d = ordinal;
	return e;
}

EXPORT int cuDeviceGetName(char *name, int len, int dev)
{
	int e = enter(F_cuDeviceGetName);

	if (!e)
		snprintf(name, (size_t)len, "Fake GPU %d", dev);
	return e;
}

/*
 * Modules.  An image starting "FAKE" has the one kernel add_one.  PTX text
 * and AMD offload bundles (the HIP backend's embedded built-in kernels)
 * have the kernels they define: ".entry NAME(" in PTX, a "NAME.kd" symbol
 * in a code object.  Functions named after a built-in kernel run its host
 * reference (hal/builtins.c) at launch, on the fake's host-backed memory.
 * Every name looked up is counted (fake_lookups).
 */
#define FAKE_MAX_KERNELS 8
struct fake_module {
	int n;
	char names[FAKE_MAX_KERNELS][32];
	int params[FAKE_MAX_KERNELS]; /* declared parameters, -1: not known */
};

struct fake_function {
	char name[32];
	int builtin; /* enum hc_builtin, or -1 */
};

/* Functions are never destroyed one by one (a module's unload ends them):
 * a fixed table, reused round robin, leaks nothing. */
static struct fake_function functions[64];
static unsigned next_function;


/* How many times cuModuleGetFunction (hipModuleGetFunction) was asked for
 * @name since the last fake_reset. */
EXPORT unsigned long fake_lookups(const char *name)
{
	for (int i = 0; i < FAKE_MAX_LOOKUPS; i++)
		if (lookups[i].name[0] && !strcmp(lookups[i].name, name))
			return lookups[i].count;
	return 0;
}

/* Launches that ran a built-in kernel's host reference. */
EXPORT unsigned long fake_builtin_runs(void)
{
	return builtin_runs;
}

static void count_lookup(const char *name)
{
	for (int i = 0; i < FAKE_MAX_LOOKUPS; i++) {
		if (!lookups[i].name[0])
			snprintf(lookups[i].name, sizeof(lookups[i].name), "%s", name);
		if (!strcmp(lookups[i].name, name)) {
			lookups[i].count++;
			return;
		}
	}
}

static void module_add(struct fake_module *m, const char *name, size_t len, int params)
{
	if (m->n < FAKE_MAX_KERNELS && len > 0 && len < sizeof(m->names[0])) {
		m->params[m->n] = params;
		snprintf(m->names[m->n++], sizeof(m->names[0]), "%.*s", (int)len, name);
	}
}

#ifndef FAKE_HIP
/* The PTX's ".entry NAME(...)" names, with their ".param" counts. */
static void ptx_entries(struct fake_module *m, const char *ptx)
{
	for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
		const char *name = p + 7, *end = strchr(name, '('), *close;
		int params = 0;

		if (!end || !(close = strchr(end, ')')))
			continue;
		for (const char *q = strstr(end, ".param"); q && q < close; q = strstr(q + 1, ".param"))
			params++;
		module_add(m, name, (size_t)(end - name), params);
	}
}
#endif

#ifdef FAKE_HIP
/* A clang offload bundle's length, from its entry table (magic, uint64
 * count, then per entry uint64 offset, uint64 size, uint64 triple length,
 * the triple): where its last entry ends.  0 when the table looks wrong. */
static size_t bundle_size(const unsigned char *b)
{
	uint64_t n, off, size, tlen, end = 0;
	size_t at = 32;

	memcpy(&n, b + 24, 8);
	if (n == 0 || n > 64)
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		memcpy(&off, b + at, 8);
		memcpy(&size, b + at + 8, 8);
		memcpy(&tlen, b + at + 16, 8);
		if (tlen > 256 || off > (1u << 24) || size > (1u << 24))
			return 0;
		at += 24 + (size_t)tlen;
		if (off + size > end)
			end = off + size;
	}
	return (size_t)end;
}
#endif

EXPORT int cuModuleLoadData(void **m, const void *image)
{
	int e = enter(F_cuModuleLoadData);
	struct fake_module *fm;

	if (e)
		return e;
	fm = calloc(1, sizeof(*fm));
	if (!fm)
		return 2;
	if (!strncmp(image, "FAKE", 4)) {
		module_add(fm, "add_one", 7, 2);
#ifdef FAKE_HIP
	} else if (!strncmp(image, "__CLANG_OFFLOAD_BUNDLE__", 24)) { /* stops at a NUL */
		size_t size = bundle_size(image);

		for (int k = 0; k < HC_BUILTIN_COUNT && size; k++) {
			char kd[40];

			snprintf(kd, sizeof(kd), "%s.kd", hc_builtins[k].name);
			if (memmem(image, size, kd, strlen(kd) + 1))
				module_add(fm, hc_builtins[k].name, strlen(hc_builtins[k].name),
					   2 * HC_BUILTIN_MAX_ARGS);
		}
#else
	} else if (strstr(image, ".version") && strstr(image, ".target")) {
		ptx_entries(fm, image);
#endif
	} else {
		free(fm);
		return 218; /* CUDA_ERROR_INVALID_PTX */
	}
	live++;
	*m = fm;
	return 0;
}

EXPORT int cuModuleUnload(void *m)
{
	int e = enter(F_cuModuleUnload);

	if (!e) {
		free(m);
		live--;
	}
	return e;
}

EXPORT int cuModuleGetFunction(void **f, void *m, const char *name)
{
	struct fake_module *fm = m;
	struct fake_function *fn;
	int e = enter(F_cuModuleGetFunction);

	if (e)
		return e;
	count_lookup(name);
	for (int i = 0; i < fm->n; i++) {
		if (strcmp(fm->names[i], name))
			continue;
		fn = &functions[next_function++ % (sizeof(functions) / sizeof(functions[0]))];
		snprintf(fn->name, sizeof(fn->name), "%s", name);
		/* a built-in's name with the built-ins' six parameters (other PTX,
		 * such as hipsim's no-op kernels, may reuse the names) */
		fn->builtin = fm->params[i] == 2 * HC_BUILTIN_MAX_ARGS ? hc_builtin_find(name) : -1;
		*f = fn;
		return 0;
	}
	return 500; /* CUDA_ERROR_NOT_FOUND */
}

/* A built-in kernel's six parameters: three addresses, three sizes. */
static void run_builtin(const struct fake_function *fn, void **params)
{
	unsigned char *p[HC_BUILTIN_MAX_ARGS];
	uint64_t bytes[HC_BUILTIN_MAX_ARGS];

	for (int i = 0; i < HC_BUILTIN_MAX_ARGS; i++) {
		p[i] = (unsigned char *)(uintptr_t) * (uint64_t *)params[i];
		bytes[i] = *(uint64_t *)params[HC_BUILTIN_MAX_ARGS + i];
	}
	(void)hc_builtin_run((enum hc_builtin)fn->builtin, p, bytes);
	builtin_runs++;
}

EXPORT int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			  unsigned by, unsigned bz, unsigned shared, void *s, void **params,
			  void **extra)
{
	int e = enter(F_cuLaunchKernel);

	if (e)
		return e;
	if (!gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024)
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	if (capturing)
		record(0);
	else if (f && ((struct fake_function *)f)->builtin >= 0)
		run_builtin(f, params);
	return 0;
}

EXPORT int cudaRuntimeGetVersion(int *v)
{
	int e = enter(F_RuntimeGetVersion);

	if (!e)
		*v = version;
	return e;
}

/* --- virtual memory ------------------------------------------------------ */

#define MAX_VMM 64
static struct {
	uintptr_t base;
	size_t size;
} resvs[MAX_VMM];
static struct {
	int fd; /* the memfd + 1; 0: a free slot */
	size_t size;
	int maps;   /* mappings of it live */
	bool released;
} handles[MAX_VMM];
static struct {
	uintptr_t addr;
	size_t size;
	int handle; /* index + 1; 0: free slot */
} vmaps[MAX_VMM];

/* The property bytes at CUDA's documented offsets: pinned (1), no handle
 * types (0), a device location (1) of device 0, no win32 data, no flags. */
static int prop_ok(const void *prop)
{
	const unsigned char *b = prop;
	int v[4];
	void *w;

	if (!prop)
		return 0;
	memcpy(v, b, sizeof(v));
	memcpy(&w, b + 16, sizeof(w));
	for (int i = 24; i < 32; i++)
		if (b[i])
			return 0;
	return v[0] == 1 && v[1] == 0 && v[2] == 1 && v[3] == 0 && !w;
}

static int resv_of(uintptr_t a, size_t n)
{
	for (int i = 0; i < MAX_VMM; i++)
		if (resvs[i].size && a >= resvs[i].base && a - resvs[i].base < resvs[i].size &&
		    n <= resvs[i].size - (a - resvs[i].base))
			return i;
	return -1;
}

EXPORT int cuMemGetAllocationGranularity(size_t *g, const void *prop, int option)
{
	int e = enter(F_MemGetAllocationGranularity);

	if (e)
		return e;
	if (!g || !prop_ok(prop) || (option != 0 && option != 1))
		return 1;
	if (!vmm_gran)
		return 801; /* not supported */
	*g = (size_t)vmm_gran;
	return 0;
}

EXPORT int cuMemAddressReserve(void **ptr, size_t size, size_t align, void *addr,
			       unsigned long long flags)
{
	int e = enter(F_MemAddressReserve);
	size_t over;
	char *p, *at;

	if (e)
		return e;
	if (!ptr || !size || size % (size_t)getpagesize() || flags || (align & (align - 1)))
		return 1;
	if (align < (size_t)getpagesize())
		align = (size_t)getpagesize();
	over = size + align;
	p = mmap(NULL, over, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	at = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (at > p)
		munmap(p, (size_t)(at - p));
	if (p + over > at + size)
		munmap(at + size, (size_t)(p + over - (at + size)));
	for (int i = 0; i < MAX_VMM; i++)
		if (!resvs[i].size) {
			resvs[i].base = (uintptr_t)at;
			resvs[i].size = size;
			live++;
			*ptr = at;
			return 0;
		}
	munmap(at, size);
	return 2;
}

EXPORT int cuMemAddressFree(void *ptr, size_t size)
{
	int e = enter(F_MemAddressFree);

	if (e)
		return e;
	for (int i = 0; i < MAX_VMM; i++) {
		if (resvs[i].base != (uintptr_t)ptr || resvs[i].size != size || !size)
			continue;
		for (int k = 0; k < MAX_VMM; k++)
			if (vmaps[k].handle && resv_of(vmaps[k].addr, 1) == i)
				return 1; /* still mapped */
		munmap(ptr, size);
		resvs[i].size = 0;
		live--;
		return 0;
	}
	return 1;
}

EXPORT int cuMemCreate(void **handle, size_t size, const void *prop, unsigned long long flags)
{
	int e = enter(F_MemCreate);
	int fd;

	if (e)
		return e;
	if (!handle || !size || !vmm_gran || size % vmm_gran || !prop_ok(prop) || flags)
		return 1;
	if (size > vmm_capacity - vmm_created)
		return 2; /* out of memory */
	for (int i = 0; i < MAX_VMM; i++) {
		if (handles[i].fd) /* in use, or released but still mapped */
			continue;
		fd = memfd_create("fake-vmm", MFD_CLOEXEC);
		if (fd < 0)
			return 2;
		if (ftruncate(fd, (off_t)size) != 0) {
			close(fd);
			return 2;
		}
		handles[i].fd = fd + 1; /* 0 stays "free" */
		handles[i].size = size;
		handles[i].maps = 0;
		handles[i].released = false;
		vmm_created += size;
		live++;
		*handle = (void *)(uintptr_t)(i + 1);
		return 0;
	}
	return 2;
}

static int handle_of(void *h)
{
	uintptr_t i = (uintptr_t)h;

	return i >= 1 && i <= MAX_VMM && handles[i - 1].fd > 0 ? (int)i - 1 : -1;
}

/* Frees the memory behind handle @i when it is released and unmapped. */
static void handle_settle(int i)
{
	if (!handles[i].released || handles[i].maps)
		return;
	close(handles[i].fd - 1);
	vmm_created -= handles[i].size;
	handles[i].fd = 0;
	handles[i].released = false;
	live--;
}

EXPORT int cuMemMap(void *ptr, size_t size, size_t offset, void *handle,
		    unsigned long long flags)
{
	int e = enter(F_MemMap);
	int h = handle_of(handle), slot = -1;
	uintptr_t a = (uintptr_t)ptr;

	if (e)
		return e;
	if (h < 0 || handles[h].released || offset || flags || size != handles[h].size ||
	    !vmm_gran || a % vmm_gran || resv_of(a, size) < 0)
		return 1;
	for (int k = 0; k < MAX_VMM; k++) {
		if (!vmaps[k].handle) {
			if (slot < 0)
				slot = k;
			continue;
		}
		if (vmaps[k].addr < a + size && a < vmaps[k].addr + vmaps[k].size)
			return 1; /* already mapped */
	}
	if (slot < 0)
		return 2;
	if (mmap(ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, handles[h].fd - 1, 0) == MAP_FAILED)
		return 2;
	vmaps[slot].addr = a;
	vmaps[slot].size = size;
	vmaps[slot].handle = h + 1;
	handles[h].maps++;
	return 0;
}

/* The mapping that is exactly [a, a + n), or -1. */
static int vmap_exact(uintptr_t a, size_t n)
{
	for (int k = 0; k < MAX_VMM; k++)
		if (vmaps[k].handle && vmaps[k].addr == a && vmaps[k].size == n)
			return k;
	return -1;
}

EXPORT int cuMemSetAccess(void *ptr, size_t size, const void *desc, size_t count)
{
	int e = enter(F_MemSetAccess);
	const unsigned char *b = desc;
	int v[3];

	if (e)
		return e;
	if (!desc || count != 1)
		return 1;
	memcpy(v, b, sizeof(v)); /* location {type, id}, flags at offset 8 */
	if (v[0] != 1 || v[1] != 0 || v[2] != 3)
		return 1;
	/* the range must be mapped, from end to end (here: one mapping) */
	if (vmap_exact((uintptr_t)ptr, size) < 0)
		return 1;
	return mprotect(ptr, size, PROT_READ | PROT_WRITE) == 0 ? 0 : 1;
}

EXPORT int cuMemUnmap(void *ptr, size_t size)
{
	int e = enter(F_MemUnmap);
	int k = vmap_exact((uintptr_t)ptr, size), h;

	if (e)
		return e;
	if (k < 0)
		return 1; /* not one whole mapping */
	if (mmap(ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
		 0) == MAP_FAILED)
		return 2;
	h = vmaps[k].handle - 1;
	vmaps[k].handle = 0;
	handles[h].maps--;
	handle_settle(h);
	return 0;
}

EXPORT int cuMemRelease(void *handle)
{
	int e = enter(F_MemRelease);
	int h = handle_of(handle);

	if (e)
		return e;
	if (h < 0 || handles[h].released)
		return 1;
	handles[h].released = true;
	handle_settle(h);
	return 0;
}
