/*
 * hip_ops.c - the HIP backend: struct hc_hal_ops over a dlopen()ed runtime.
 *
 * Every op is one or two runtime calls through hip_syms[] (hip_rt.h), the
 * same on AMD (hip*) and NVIDIA (cuda* runtime, cu* driver for modules and
 * launches); only error spaces, device attributes, graph node types and graph
 * instantiation differ, and the device records which apply.
 *
 * The device keeps every object it handed out on a list (streams, events,
 * graphs, modules, device and host allocations), so device_close can free
 * what the caller left, and mem_free knows each allocation's size for the
 * counters.  dev->lock guards the lists, the capture count and the counters;
 * it is never held across a runtime call.
 *
 * "Not while capturing" is checked here, before the runtime sees the call:
 * a real runtime fails such a call and also invalidates the capture, which
 * would turn one refused allocation into a lost graph.
 *
 * Virtual memory (va_reserve .. pmem_unmap) is hip_vmm.c's; the ops here
 * check the capture rule, bind the thread and keep the counters.
 *
 * Divisions: helpers; device; memory; virtual memory; streams; copies;
 * events; graphs; modules and kernels; ctl; the ops table.
 */
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include "hal/hip/hip_builtins.h"
#include "hal/hip/hip_ktime.h"
#include "hal/hip/hip_rt.h"
#include "hal/hip/hip_vmm.h"
#include "util/env.h"

/* CUDA values (no CUDA headers at build time). */
#define CUDA_ATTR_TEXTURE_ALIGNMENT 14
#define CUDA_ATTR_INTEGRATED 18
#define CUDA_ATTR_SURFACE_ALIGNMENT 30
#define CUDA_GRAPH_NODE_MEM_ALLOC 10
#define CUDA_GRAPH_NODE_MEM_FREE 11
/* hipErrorNotReady, cudaErrorNotReady and CUDA_ERROR_NOT_READY are all 600. */
#define HIP_NOT_READY 600
/* hipMemcpyKind values, equal to cudaMemcpyKind's. */
#define KIND_H2D 1
#define KIND_D2H 2
#define KIND_D2D 3

_Static_assert(hipMemcpyHostToDevice == KIND_H2D && hipMemcpyDeviceToHost == KIND_D2H &&
		       hipMemcpyDeviceToDevice == KIND_D2D,
	       "HIP and CUDA memcpy kinds coincide");
_Static_assert(hipErrorNotReady == HIP_NOT_READY, "not-ready code");

struct hc_hal_stream {
	LIST_ENTRY(hc_hal_stream) link;
	void *s;
	int capturing;
	bool adopted; /* the caller's stream (stream_adopt): never destroyed here */
	uint64_t id; /* serial number, for hipcore:kernel_time */
};

struct hc_hal_event {
	LIST_ENTRY(hc_hal_event) link;
	void *e;
};

struct hc_hal_graph {
	LIST_ENTRY(hc_hal_graph) link;
	void *graph;
	void *exec;
};

struct hc_hal_function {
	LIST_ENTRY(hc_hal_function) link;
	void *f;
	uint64_t id; /* serial number, for hipcore:kernel_time */
	int builtin; /* enum hc_builtin of a built-in kernel, else -1 */
};

struct hc_hal_module {
	LIST_ENTRY(hc_hal_module) link;
	void *m;
	bool builtin; /* the built-in kernels (image NULL) */
	LIST_HEAD(, hc_hal_function) functions;
};

struct hip_alloc {
	LIST_ENTRY(hip_alloc) link;
	void *ptr;
	uint64_t size;
	size_t map_len; /* pinned: mapped by hip_pin_map and registered; 0: HostMalloc */
};

LIST_HEAD(hip_alloc_list, hip_alloc);

/* Returns a pinned block the way it was obtained; for teardown, where a
 * failure has no one left to report to. */
static void host_give_back(const struct hip_alloc *a)
{
	if (a->map_len) {
		if (HIP_CALL(HostUnregister)(a->ptr) == 0)
			hip_pin_unmap(a->ptr, a->map_len);
	} else {
		HIP_CALL(HostFree)(a->ptr);
	}
}

struct hc_hal_dev {
	const struct hip_runtime *rt;
	int ordinal;
	int cudev;             /* the driver's device handle */
	enum hip_space rs, ds; /* error spaces of runtime and driver calls */
	int mem_alloc_node, mem_free_node; /* graph node types to reject; -1 none */
	pthread_mutex_t lock;
	/* guarded by lock: */
	int capturing; /* streams of this device now capturing */
	struct hc_hal_stats stats;
	LIST_HEAD(, hc_hal_stream) streams;
	LIST_HEAD(, hc_hal_event) events;
	LIST_HEAD(, hc_hal_graph) graphs;
	LIST_HEAD(, hc_hal_module) modules;
	struct hip_alloc_list dallocs;
	struct hip_alloc_list hallocs;
	bool time_kernels;          /* bracket launches with timing events */
	atomic_bool pin_register;   /* large pinned blocks: hip_pin_map + HostRegister */
	uint64_t nstreams, nfunctions, nlaunch; /* serials and the launch ordinal */
	struct hip_ktimes kt;       /* launches timed, not yet read back */
	struct hip_vmm vmm;         /* reservations and mappings (its own lock) */
};

/* ---------------------------------------------------------------- helpers */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *nm(const struct hc_hal_dev *dev, enum hip_sym_id id)
{
	const struct hip_sym *s = &hip_syms[id];

	return dev->rt->flavor == HIP_FLAVOR_NVIDIA ? s->cuda_name : s->hip_name;
}

/* Records a failed runtime call @id returning @code. */
static hc_status rt_fail(const struct hc_hal_dev *dev, enum hip_sym_id id, int code)
{
	const struct hip_sym *s = &hip_syms[id];
	enum hip_space sp = (s->lib == HIP_LIB_DRV) ? dev->ds : dev->rs;

	return hip_err_fail(sp, code, nm(dev, id));
}

/*
 * The runtime's current device is per host thread: make it ours.  The last
 * device bound is cached per thread, so a thread using one device pays for
 * cudaSetDevice once.  Limitation: code outside libhipcore that switches the
 * thread's device behind our back is not noticed.
 */
static _Thread_local int tls_ordinal = -1;
static _Thread_local const struct hc_hal_dev *tls_dev;

static hc_status bind_thread(hc_hal_dev *dev)
{
	int err;

	if (tls_dev == dev && tls_ordinal == dev->ordinal)
		return HC_OK;
	err = HIP_CALL(SetDevice)(dev->ordinal);
	if (err)
		return rt_fail(dev, HS_SetDevice, err);
	tls_dev = dev;
	tls_ordinal = dev->ordinal;
	return HC_OK;
}

static int is_capturing(hc_hal_dev *dev)
{
	int c;

	pthread_mutex_lock(&dev->lock);
	c = dev->capturing;
	pthread_mutex_unlock(&dev->lock);
	return c;
}

static hc_status refuse_capturing(const char *op)
{
	return hc_hal_error(HC_ERR_STATE, 0, NULL,
			    "hip: %s is not allowed while a stream of the device is capturing", op);
}

/* ----------------------------------------------------------------- device */

static void hip_device_close(hc_hal_dev *dev);
static void kt_drain(hc_hal_dev *dev, bool all);

static hc_status hip_device_open(const struct hc_hal_open_args *args, hc_hal_dev **out)
{
	const struct hip_runtime *rt;
	hc_hal_dev *dev;
	hc_status st;
	int err;

	if (!args || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: device_open needs args and out");
	st = hip_runtime_get(&rt);
	if (st != HC_OK)
		return st;
	if (args->ordinal < 0 || args->ordinal >= rt->device_count)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip: device ordinal %d out of range: %s sees %d device(s)",
				    args->ordinal, rt->path, rt->device_count);
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for a device");
	dev->rt = rt;
	dev->ordinal = args->ordinal;
	dev->time_kernels = (args->time_kernels || hc_env_flag(HC_ENV_TIME_KERNELS)) &&
			    HIP_HAVE(EventElapsedTime);
	/* HIPCORE_PINNED_REGISTER=0 keeps every pinned block on the runtime's
	 * HostMalloc, to compare or where registering misbehaves. */
	dev->pin_register = hc_env_flag(HC_ENV_PINNED_REGISTER) && HIP_HAVE(HostRegister) &&
			    HIP_HAVE(HostUnregister);
	pthread_mutex_init(&dev->lock, NULL);
	LIST_INIT(&dev->streams);
	LIST_INIT(&dev->events);
	LIST_INIT(&dev->graphs);
	LIST_INIT(&dev->modules);
	LIST_INIT(&dev->dallocs);
	LIST_INIT(&dev->hallocs);
	if (rt->flavor == HIP_FLAVOR_NVIDIA) {
		dev->rs = HIP_SPACE_CUDART;
		dev->ds = HIP_SPACE_CUDRV;
		dev->mem_alloc_node = CUDA_GRAPH_NODE_MEM_ALLOC;
		dev->mem_free_node = CUDA_GRAPH_NODE_MEM_FREE;
	} else {
		dev->rs = dev->ds = HIP_SPACE_HIP;
		/* ROCm 6 numbers graph nodes as CUDA does; ROCm 5 has no memory nodes. */
		int v6 = strstr(rt->path, ".so.5") == NULL;
		dev->mem_alloc_node = v6 ? CUDA_GRAPH_NODE_MEM_ALLOC : -1;
		dev->mem_free_node = v6 ? CUDA_GRAPH_NODE_MEM_FREE : -1;
	}
	hip_vmm_init(&dev->vmm, rt->flavor, dev->ds);
	hip_runtime_hold();
	tls_dev = NULL;
	st = bind_thread(dev);
	if (st != HC_OK)
		goto err_close;
	/* Make the runtime's primary context exist and be current before any
	 * driver call (module loads on NVIDIA go through the driver). */
	err = HIP_CALL(Free)(NULL);
	if (err) {
		st = rt_fail(dev, HS_Free, err);
		goto err_close;
	}
	err = HIP_CALL(Init)(0);
	if (err) {
		st = rt_fail(dev, HS_Init, err);
		goto err_close;
	}
	err = HIP_CALL(DeviceGet)(&dev->cudev, dev->ordinal);
	if (err) {
		st = rt_fail(dev, HS_DeviceGet, err);
		goto err_close;
	}
	hip_vmm_probe(&dev->vmm, dev->cudev);
	*out = dev;
	return HC_OK;

err_close:
	hip_device_close(dev);
	return st;
}

static void hip_device_close(hc_hal_dev *dev)
{
	struct hc_hal_graph *g;
	struct hc_hal_event *e;
	struct hc_hal_module *m;
	struct hc_hal_function *f;
	struct hc_hal_stream *s;
	struct hip_alloc *a;

	if (!dev)
		return;
	bind_thread(dev);
	while ((g = LIST_FIRST(&dev->graphs))) {
		LIST_REMOVE(g, link);
		if (g->exec)
			HIP_CALL(GraphExecDestroy)(g->exec);
		if (g->graph)
			HIP_CALL(GraphDestroy)(g->graph);
		free(g);
	}
	while ((s = LIST_FIRST(&dev->streams))) {
		LIST_REMOVE(s, link);
		if (s->capturing) {
			void *graph = NULL;
			if (HIP_CALL(StreamEndCapture)(s->s, &graph) == 0 && graph)
				HIP_CALL(GraphDestroy)(graph);
		}
		HIP_CALL(StreamSynchronize)(s->s);
		kt_drain(dev, false); /* emits what the streams finished */
		if (!s->adopted)
			HIP_CALL(StreamDestroy)(s->s);
		free(s);
	}
	kt_drain(dev, true);
	while ((e = LIST_FIRST(&dev->events))) {
		LIST_REMOVE(e, link);
		HIP_CALL(EventDestroy)(e->e);
		free(e);
	}
	while ((m = LIST_FIRST(&dev->modules))) {
		LIST_REMOVE(m, link);
		while ((f = LIST_FIRST(&m->functions))) {
			LIST_REMOVE(f, link);
			free(f);
		}
		HIP_CALL(ModuleUnload)(m->m);
		free(m);
	}
	hip_vmm_fini(&dev->vmm); /* the streams are idle: nothing uses a mapping */
	while ((a = LIST_FIRST(&dev->dallocs))) {
		LIST_REMOVE(a, link);
		HIP_CALL(Free)(a->ptr);
		free(a);
	}
	while ((a = LIST_FIRST(&dev->hallocs))) {
		LIST_REMOVE(a, link);
		host_give_back(a);
		free(a);
	}
	if (tls_dev == dev)
		tls_dev = NULL;
	pthread_mutex_destroy(&dev->lock);
	hip_runtime_release();
	free(dev);
}

/* hipErrorInvalidValue and cudaErrorInvalidValue. */
#define HIP_INVALID_VALUE 1

/*
 * attr - one device attribute.  @optional: a runtime that does not know the
 * attribute (HIP marks the surface alignment "CUDA only") answers invalid
 * value; that leaves *value at 0 instead of failing.
 */
static hc_status attr(hc_hal_dev *dev, int hip_attr, int cuda_attr, int optional, int *value)
{
	int a = dev->rt->flavor == HIP_FLAVOR_NVIDIA ? cuda_attr : hip_attr;
	int err = HIP_CALL(DeviceGetAttribute)(value, a, dev->ordinal);

	if (err == HIP_INVALID_VALUE && optional) {
		*value = 0;
		return HC_OK;
	}
	return err ? rt_fail(dev, HS_DeviceGetAttribute, err) : HC_OK;
}

static hc_status hip_device_props(hc_hal_dev *dev, struct hc_hal_props *out)
{
	size_t free_b = 0, total_b = 0;
	int tex = 0, surf = 0, integ = 0, err;
	hc_status st;

	if (!dev || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: device_props needs dev and out");
	st = bind_thread(dev);
	if (st != HC_OK)
		return st;
	err = HIP_CALL(MemGetInfo)(&free_b, &total_b);
	if (err)
		return rt_fail(dev, HS_MemGetInfo, err);
	if ((st = attr(dev, hipDeviceAttributeTextureAlignment, CUDA_ATTR_TEXTURE_ALIGNMENT, 1,
		       &tex)) != HC_OK ||
	    (st = attr(dev, hipDeviceAttributeSurfaceAlignment, CUDA_ATTR_SURFACE_ALIGNMENT, 1,
		       &surf)) != HC_OK ||
	    (st = attr(dev, hipDeviceAttributeIntegrated, CUDA_ATTR_INTEGRATED, 0, &integ)) != HC_OK)
		return st;
	memset(out, 0, sizeof(*out));
	err = HIP_CALL(DeviceGetName)(out->name, (int)sizeof(out->name) - 1, dev->cudev);
	if (err)
		return rt_fail(dev, HS_DeviceGetName, err);
	out->total_memory = total_b;
	out->alignment = 32;
	if (tex > 0 && (uint64_t)tex > out->alignment)
		out->alignment = (uint64_t)tex;
	if (surf > 0 && (uint64_t)surf > out->alignment)
		out->alignment = (uint64_t)surf;
	out->integrated = integ != 0;
	out->vmm_granularity = dev->vmm.gran;
	return HC_OK;
}

/* ----------------------------------------------------------------- memory */

static hc_status track(hc_hal_dev *dev, int host, void *ptr, uint64_t size, size_t map_len)
{
	struct hip_alloc *a = malloc(sizeof(*a));

	if (!a)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory to track an allocation");
	a->ptr = ptr;
	a->size = size;
	a->map_len = map_len;
	pthread_mutex_lock(&dev->lock);
	if (host) {
		LIST_INSERT_HEAD(&dev->hallocs, a, link);
		dev->stats.host_allocs++;
		dev->stats.host_allocs_registered += map_len != 0;
	} else {
		LIST_INSERT_HEAD(&dev->dallocs, a, link);
		dev->stats.device_allocs++;
		dev->stats.device_bytes_live += size;
		if (dev->stats.device_bytes_live > dev->stats.device_bytes_peak)
			dev->stats.device_bytes_peak = dev->stats.device_bytes_live;
	}
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

/* Unlinks @ptr's record; NULL when the device never handed it out. */
static struct hip_alloc *untrack(hc_hal_dev *dev, int host, void *ptr)
{
	struct hip_alloc *a;

	pthread_mutex_lock(&dev->lock);
	LIST_FOREACH(a, host ? &dev->hallocs : &dev->dallocs, link)
		if (a->ptr == ptr)
			break;
	if (a)
		LIST_REMOVE(a, link);
	pthread_mutex_unlock(&dev->lock);
	return a;
}

static void relink(hc_hal_dev *dev, int host, struct hip_alloc *a)
{
	pthread_mutex_lock(&dev->lock);
	LIST_INSERT_HEAD(host ? &dev->hallocs : &dev->dallocs, a, link);
	pthread_mutex_unlock(&dev->lock);
}

static hc_status hip_mem_alloc(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out)
{
	void *p = NULL;
	hc_status st;
	int err;

	if (!dev || !out || size == 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: mem_alloc of %llu bytes",
				    (unsigned long long)size);
	if (is_capturing(dev))
		return refuse_capturing("mem_alloc");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(Malloc)(&p, (size_t)size);
	if (err)
		return rt_fail(dev, HS_Malloc, err);
	st = track(dev, 0, p, size, 0);
	if (st != HC_OK) {
		HIP_CALL(Free)(p);
		return st;
	}
	*out = (hc_hal_dptr)(uintptr_t)p;
	return HC_OK;
}

static hc_status hip_mem_free(hc_hal_dev *dev, hc_hal_dptr ptr)
{
	struct hip_alloc *a;
	hc_status st;
	int err;

	if (!dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: mem_free without a device");
	if (is_capturing(dev))
		return refuse_capturing("mem_free");
	a = untrack(dev, 0, (void *)(uintptr_t)ptr);
	if (!a)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip: mem_free of 0x%llx, which mem_alloc did not return",
				    (unsigned long long)ptr);
	if ((st = bind_thread(dev)) != HC_OK)
		goto err_relink;
	err = HIP_CALL(Free)(a->ptr);
	if (err) {
		st = rt_fail(dev, HS_Free, err);
		goto err_relink;
	}
	pthread_mutex_lock(&dev->lock);
	dev->stats.device_frees++;
	dev->stats.device_bytes_live -= a->size;
	pthread_mutex_unlock(&dev->lock);
	free(a);
	return HC_OK;

err_relink:
	relink(dev, 0, a);
	return st;
}

static hc_status hip_host_alloc(hc_hal_dev *dev, uint64_t size, void **out)
{
	void *p = NULL;
	size_t map_len = 0;
	hc_status st;
	int err;

	if (!dev || !out || size == 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: host_alloc of %llu bytes",
				    (unsigned long long)size);
	if (is_capturing(dev))
		return refuse_capturing("host_alloc");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	if (size >= HIP_PIN_MAP_MIN && size <= SIZE_MAX / 2 && atomic_load(&dev->pin_register)) {
		/* A host out of memory here falls through to HostMalloc, which
		 * says so in the runtime's words. */
		p = hip_pin_map((size_t)size, &map_len);
		if (p && HIP_CALL(HostRegister)(p, map_len, hipHostRegisterMapped) != 0) {
			/* A platform that cannot register host memory can still
			 * allocate it pinned: every later block goes there too,
			 * rather than mapping and faulting in memory for nothing. */
			hip_pin_unmap(p, map_len);
			p = NULL;
			map_len = 0;
			atomic_store(&dev->pin_register, false);
		}
	}
	if (!p) {
		err = HIP_CALL(HostMalloc)(&p, (size_t)size, hipHostMallocMapped);
		if (err)
			return rt_fail(dev, HS_HostMalloc, err);
	}
	st = track(dev, 1, p, size, map_len);
	if (st != HC_OK) {
		host_give_back(&(struct hip_alloc){ .ptr = p, .map_len = map_len });
		return st;
	}
	*out = p;
	return HC_OK;
}

static hc_status hip_host_free(hc_hal_dev *dev, void *ptr)
{
	struct hip_alloc *a;
	hc_status st;
	int err;

	if (!dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: host_free without a device");
	a = untrack(dev, 1, ptr);
	if (!a)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip: host_free of %p, which host_alloc did not return", ptr);
	if ((st = bind_thread(dev)) != HC_OK)
		goto err_relink;
	err = a->map_len ? HIP_CALL(HostUnregister)(ptr) : HIP_CALL(HostFree)(ptr);
	if (err) {
		st = rt_fail(dev, a->map_len ? HS_HostUnregister : HS_HostFree, err);
		goto err_relink;
	}
	if (a->map_len)
		hip_pin_unmap(ptr, a->map_len);
	pthread_mutex_lock(&dev->lock);
	dev->stats.host_frees++;
	pthread_mutex_unlock(&dev->lock);
	free(a);
	return HC_OK;

err_relink:
	relink(dev, 1, a);
	return st;
}

/* --------------------------------------------------------- virtual memory */

static hc_status hip_va_reserve(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out)
{
	hc_status st;

	if (!dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: va_reserve without a device");
	if (is_capturing(dev))
		return refuse_capturing("va_reserve");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	st = hip_vmm_reserve(&dev->vmm, size, out);
	if (st == HC_OK) {
		pthread_mutex_lock(&dev->lock);
		dev->stats.va_bytes_reserved += size;
		pthread_mutex_unlock(&dev->lock);
	}
	return st;
}

static hc_status hip_va_release(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	hc_status st;

	if (!dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: va_release without a device");
	if (is_capturing(dev))
		return refuse_capturing("va_release");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	st = hip_vmm_release(&dev->vmm, addr, size);
	if (st == HC_OK) {
		pthread_mutex_lock(&dev->lock);
		dev->stats.va_bytes_reserved -= size;
		pthread_mutex_unlock(&dev->lock);
	}
	return st;
}

static hc_status hip_pmem_map(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	hc_status st;

	if (!dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: pmem_map without a device");
	if (is_capturing(dev))
		return refuse_capturing("pmem_map");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	st = hip_vmm_map(&dev->vmm, addr, size);
	if (st == HC_OK) {
		pthread_mutex_lock(&dev->lock);
		dev->stats.pmem_maps++;
		dev->stats.device_bytes_live += size;
		if (dev->stats.device_bytes_live > dev->stats.device_bytes_peak)
			dev->stats.device_bytes_peak = dev->stats.device_bytes_live;
		pthread_mutex_unlock(&dev->lock);
	}
	return st;
}

static hc_status hip_pmem_unmap(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	uint64_t maps = 0, bytes = 0;
	hc_status st;

	if (!dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: pmem_unmap without a device");
	if (is_capturing(dev))
		return refuse_capturing("pmem_unmap");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	/* a runtime failure part way still unmapped the mappings before it */
	st = hip_vmm_unmap(&dev->vmm, addr, size, &maps, &bytes);
	pthread_mutex_lock(&dev->lock);
	dev->stats.pmem_unmaps += maps;
	dev->stats.device_bytes_live -= bytes;
	pthread_mutex_unlock(&dev->lock);
	return st;
}

/* ---------------------------------------------------------------- streams */

static void stream_link(hc_hal_dev *dev, struct hc_hal_stream *s)
{
	pthread_mutex_lock(&dev->lock);
	s->id = ++dev->nstreams;
	LIST_INSERT_HEAD(&dev->streams, s, link);
	pthread_mutex_unlock(&dev->lock);
}

static hc_status hip_stream_create(hc_hal_dev *dev, hc_hal_stream **out)
{
	struct hc_hal_stream *s;
	hc_status st;
	int err;

	if (!dev || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: stream_create needs dev and out");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	s = calloc(1, sizeof(*s));
	if (!s)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for a stream");
	err = HIP_CALL(StreamCreateWithFlags)(&s->s, hipStreamNonBlocking);
	if (err) {
		free(s);
		return rt_fail(dev, HS_StreamCreateWithFlags, err);
	}
	stream_link(dev, s);
	*out = s;
	return HC_OK;
}

/* No runtime call: the handle is the caller's, valid as long as the caller
 * keeps the stream (a destroyed one fails the next call queued on it). */
static hc_status hip_stream_adopt(hc_hal_dev *dev, void *native, hc_hal_stream **out)
{
	struct hc_hal_stream *s;
	hc_status st;

	if (!dev || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: stream_adopt needs dev and out");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	s = calloc(1, sizeof(*s));
	if (!s)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for a stream");
	s->s = native;
	s->adopted = true;
	stream_link(dev, s);
	*out = s;
	return HC_OK;
}

static hc_status hip_stream_destroy(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_status st;
	int err;

	if (!dev || !s)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: stream_destroy needs dev and stream");
	if (s->capturing)
		return hc_hal_error(HC_ERR_STATE, 0, NULL,
				    "hip: stream_destroy of a stream that is capturing");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(StreamSynchronize)(s->s);
	if (err)
		st = rt_fail(dev, HS_StreamSynchronize, err);
	/* The stream goes even when its work failed: the caller cannot retry. */
	err = s->adopted ? 0 : HIP_CALL(StreamDestroy)(s->s);
	if (err && st == HC_OK)
		st = rt_fail(dev, HS_StreamDestroy, err);
	pthread_mutex_lock(&dev->lock);
	LIST_REMOVE(s, link);
	pthread_mutex_unlock(&dev->lock);
	free(s);
	return st;
}

static void count_wait(hc_hal_dev *dev, uint64_t t0)
{
	uint64_t dt = now_ns() - t0;

	pthread_mutex_lock(&dev->lock);
	dev->stats.host_waits++;
	dev->stats.host_blocked_ns += dt;
	pthread_mutex_unlock(&dev->lock);
}

static hc_status hip_stream_sync(hc_hal_dev *dev, hc_hal_stream *s)
{
	uint64_t t0;
	hc_status st;
	int err;

	if (!dev || !s)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: stream_sync needs dev and stream");
	if (is_capturing(dev))
		return refuse_capturing("stream_sync");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	t0 = now_ns();
	err = HIP_CALL(StreamSynchronize)(s->s);
	count_wait(dev, t0);
	kt_drain(dev, false);
	return err ? rt_fail(dev, HS_StreamSynchronize, err) : HC_OK;
}

/* ----------------------------------------------------------------- copies */

static hc_status copy(hc_hal_dev *dev, hc_hal_stream *s, void *dst, const void *src,
		      uint64_t size, int kind)
{
	hc_status st;
	int err;

	if (!dev || !s || (size && (!dst || !src)))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: copy needs dev, stream and pointers");
	if (size == 0)
		return HC_OK;
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(MemcpyAsync)(dst, src, (size_t)size, kind, s->s);
	if (err)
		return rt_fail(dev, HS_MemcpyAsync, err);
	pthread_mutex_lock(&dev->lock);
	if (kind == KIND_H2D) {
		dev->stats.copies_h2d++;
		dev->stats.bytes_h2d += size;
	} else if (kind == KIND_D2H) {
		dev->stats.copies_d2h++;
		dev->stats.bytes_d2h += size;
	} else {
		dev->stats.copies_d2d++;
	}
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

static hc_status hip_copy_h2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst,
			      const void *src, uint64_t size, bool src_pinned)
{
	/* A pageable source is staged by the runtime before the call returns. */
	return copy(dev, s, (void *)(uintptr_t)dst, src, size, KIND_H2D);
}

static hc_status hip_copy_d2h(hc_hal_dev *dev, hc_hal_stream *s, void *dst, hc_hal_dptr src,
			      uint64_t size, bool dst_pinned)
{
	hc_status st = copy(dev, s, dst, (const void *)(uintptr_t)src, size, KIND_D2H);
	int err;

	/* The contract: a pageable destination is complete when we return.
	 * Runtimes differ in whether an async copy to pageable memory blocks,
	 * so wait here (never inside a capture, where nothing runs). */
	if (st != HC_OK || dst_pinned || size == 0 || s->capturing)
		return st;
	err = HIP_CALL(StreamSynchronize)(s->s);
	return err ? rt_fail(dev, HS_StreamSynchronize, err) : HC_OK;
}

static hc_status hip_copy_d2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst,
			      hc_hal_dptr src, uint64_t size)
{
	return copy(dev, s, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, size, KIND_D2D);
}

/* ----------------------------------------------------------------- events */

static hc_status hip_event_record(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event **out)
{
	struct hc_hal_event *e;
	hc_status st;
	int err;

	if (!dev || !s || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: event_record needs dev, stream, out");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	e = calloc(1, sizeof(*e));
	if (!e)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for an event");
	err = HIP_CALL(EventCreateWithFlags)(&e->e, hipEventDisableTiming);
	if (err) {
		st = rt_fail(dev, HS_EventCreateWithFlags, err);
		goto err_free;
	}
	err = HIP_CALL(EventRecord)(e->e, s->s);
	if (err) {
		st = rt_fail(dev, HS_EventRecord, err);
		goto err_destroy;
	}
	pthread_mutex_lock(&dev->lock);
	LIST_INSERT_HEAD(&dev->events, e, link);
	pthread_mutex_unlock(&dev->lock);
	*out = e;
	return HC_OK;

err_destroy:
	HIP_CALL(EventDestroy)(e->e);
err_free:
	free(e);
	return st;
}

static hc_status hip_event_wait(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event *e)
{
	hc_status st;
	int err;

	if (!dev || !s || !e)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: event_wait needs dev, stream, event");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(StreamWaitEvent)(s->s, e->e, 0);
	if (err)
		return rt_fail(dev, HS_StreamWaitEvent, err);
	pthread_mutex_lock(&dev->lock);
	dev->stats.stream_waits++;
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

static hc_status hip_event_sync(hc_hal_dev *dev, hc_hal_event *e)
{
	uint64_t t0;
	hc_status st;
	int err;

	if (!dev || !e)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: event_sync needs dev and event");
	if (is_capturing(dev))
		return refuse_capturing("event_sync");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	t0 = now_ns();
	err = HIP_CALL(EventSynchronize)(e->e);
	count_wait(dev, t0);
	kt_drain(dev, false);
	return err ? rt_fail(dev, HS_EventSynchronize, err) : HC_OK;
}

static hc_status hip_event_query(hc_hal_dev *dev, hc_hal_event *e, bool *done)
{
	hc_status st;
	int err;

	if (!dev || !e || !done)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: event_query needs dev, event, done");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(EventQuery)(e->e);
	if (err == 0 || err == HIP_NOT_READY) {
		*done = err == 0;
		return HC_OK;
	}
	return rt_fail(dev, HS_EventQuery, err);
}

static void hip_event_destroy(hc_hal_dev *dev, hc_hal_event *e)
{
	if (!dev || !e)
		return;
	bind_thread(dev);
	HIP_CALL(EventDestroy)(e->e);
	pthread_mutex_lock(&dev->lock);
	LIST_REMOVE(e, link);
	pthread_mutex_unlock(&dev->lock);
	free(e);
}

/* ----------------------------------------------------------------- graphs */

static hc_status hip_capture_begin(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_status st;
	int err;

	if (!dev || !s)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: capture_begin needs dev and stream");
	if (s->capturing)
		return hc_hal_error(HC_ERR_STATE, 0, NULL, "hip: the stream is already capturing");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(StreamBeginCapture)(s->s, hipStreamCaptureModeGlobal);
	if (err)
		return rt_fail(dev, HS_StreamBeginCapture, err);
	pthread_mutex_lock(&dev->lock);
	s->capturing = 1;
	dev->capturing++;
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

/* Counts the memory nodes of @graph into @alloc_n and @free_n. */
static hc_status count_mem_nodes(hc_hal_dev *dev, void *graph, size_t *alloc_n, size_t *free_n)
{
	size_t n = 0;
	void **nodes;
	hc_status st = HC_OK;
	int err;

	*alloc_n = *free_n = 0;
	err = HIP_CALL(GraphGetNodes)(graph, NULL, &n);
	if (err)
		return rt_fail(dev, HS_GraphGetNodes, err);
	if (n == 0)
		return HC_OK;
	nodes = calloc(n, sizeof(*nodes));
	if (!nodes)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for %zu graph nodes", n);
	err = HIP_CALL(GraphGetNodes)(graph, nodes, &n);
	if (err) {
		st = rt_fail(dev, HS_GraphGetNodes, err);
		goto out_free;
	}
	for (size_t i = 0; i < n; i++) {
		int type = -1;

		err = HIP_CALL(GraphNodeGetType)(nodes[i], &type);
		if (err) {
			st = rt_fail(dev, HS_GraphNodeGetType, err);
			goto out_free;
		}
		if (type == dev->mem_alloc_node)
			(*alloc_n)++;
		else if (type == dev->mem_free_node)
			(*free_n)++;
	}
out_free:
	free(nodes);
	return st;
}

static hc_status hip_capture_end(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph **out)
{
	struct hc_hal_graph *g;
	size_t n_alloc = 0, n_free = 0;
	void *graph = NULL;
	hc_status st;
	int err;

	if (!dev || !s || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: capture_end needs dev, stream, out");
	if (!s->capturing)
		return hc_hal_error(HC_ERR_STATE, 0, NULL, "hip: capture_end on a stream not capturing");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(StreamEndCapture)(s->s, &graph);
	pthread_mutex_lock(&dev->lock);
	s->capturing = 0;
	dev->capturing--;
	pthread_mutex_unlock(&dev->lock);
	if (err) {
		st = rt_fail(dev, HS_StreamEndCapture, err);
		goto err_graph;
	}
	st = count_mem_nodes(dev, graph, &n_alloc, &n_free);
	if (st != HC_OK)
		goto err_graph;
	if (n_alloc + n_free) {
		st = hc_hal_error(HC_ERR_STATE, 0, NULL,
				  "hip: the capture recorded %zu memory node(s) (%zu alloc, %zu free); "
				  "device memory must not be allocated or freed while capturing",
				  n_alloc + n_free, n_alloc, n_free);
		goto err_graph;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		st = hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for a graph");
		goto err_graph;
	}
	g->graph = graph;
	if (dev->rt->flavor == HIP_FLAVOR_NVIDIA)
		err = HIP_CALL(GraphInstantiateWithFlags)(&g->exec, graph, 0);
	else
		err = HIP_CALL(GraphInstantiate)(&g->exec, graph, NULL, NULL, 0);
	if (err) {
		st = rt_fail(dev, dev->rt->flavor == HIP_FLAVOR_NVIDIA ? HS_GraphInstantiateWithFlags
								       : HS_GraphInstantiate,
			     err);
		free(g);
		goto err_graph;
	}
	pthread_mutex_lock(&dev->lock);
	LIST_INSERT_HEAD(&dev->graphs, g, link);
	pthread_mutex_unlock(&dev->lock);
	*out = g;
	return HC_OK;

err_graph:
	if (graph)
		HIP_CALL(GraphDestroy)(graph);
	return st;
}

static hc_status hip_graph_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph *g)
{
	hc_status st;
	int err;

	if (!dev || !s || !g)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: graph_launch needs dev, stream, graph");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	err = HIP_CALL(GraphLaunch)(g->exec, s->s);
	return err ? rt_fail(dev, HS_GraphLaunch, err) : HC_OK;
}

static void hip_graph_destroy(hc_hal_dev *dev, hc_hal_graph *g)
{
	if (!dev || !g)
		return;
	bind_thread(dev);
	HIP_CALL(GraphExecDestroy)(g->exec);
	HIP_CALL(GraphDestroy)(g->graph);
	pthread_mutex_lock(&dev->lock);
	LIST_REMOVE(g, link);
	pthread_mutex_unlock(&dev->lock);
	free(g);
}

/* ------------------------------------------------------ modules and kernels */

static hc_status hip_module_load(hc_hal_dev *dev, const void *image, size_t size,
				 hc_hal_module **out)
{
	struct hc_hal_module *m;
	const char *what = NULL;
	char *copy_img = NULL;
	hc_status st;
	int err;

	if (!dev || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: module_load needs dev and out");
	if (!image) /* the built-in kernels, in the image the runtime takes */
		hip_builtin_image(dev->rt->flavor, &image, &size, &what);
	else if (size == 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: module_load of an empty image");
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	m = calloc(1, sizeof(*m));
	/* PTX text must end in a NUL; binary images ignore the extra byte.
	 * The embedded images need no copy: the PTX has its NUL. */
	if (!what)
		copy_img = malloc(size + 1);
	if (!m || (!what && !copy_img)) {
		st = hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for a module");
		goto out_free;
	}
	if (copy_img) {
		memcpy(copy_img, image, size);
		copy_img[size] = '\0';
		image = copy_img;
	}
	LIST_INIT(&m->functions);
	m->builtin = what != NULL;
	err = HIP_CALL(ModuleLoadData)(&m->m, image);
	if (err) {
		char call[160];

		snprintf(call, sizeof(call), "%s(%s)", nm(dev, HS_ModuleLoadData),
			 what ? what : "the caller's image");
		st = hip_err_fail(dev->ds, err, call);
		goto out_free;
	}
	pthread_mutex_lock(&dev->lock);
	LIST_INSERT_HEAD(&dev->modules, m, link);
	pthread_mutex_unlock(&dev->lock);
	*out = m;
	m = NULL;
out_free:
	free(m);
	free(copy_img);
	return st;
}

static void hip_module_unload(hc_hal_dev *dev, hc_hal_module *m)
{
	struct hc_hal_function *f;

	if (!dev || !m)
		return;
	bind_thread(dev);
	pthread_mutex_lock(&dev->lock);
	LIST_REMOVE(m, link);
	pthread_mutex_unlock(&dev->lock);
	while ((f = LIST_FIRST(&m->functions))) {
		LIST_REMOVE(f, link);
		free(f);
	}
	HIP_CALL(ModuleUnload)(m->m);
	free(m);
}

static hc_status hip_function_get(hc_hal_dev *dev, hc_hal_module *m, const char *name,
				  hc_hal_function **out)
{
	struct hc_hal_function *f;
	hc_status st;
	int err;

	if (!dev || !m || !name || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip: function_get needs dev, module, name, out");
	if (m->builtin && hc_builtin_find(name) < 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip: function_get: no built-in kernel '%s' (built-ins: "
				    HC_BUILTIN_NAMES ")", name);
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	f = calloc(1, sizeof(*f));
	if (!f)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip: no host memory for a function");
	f->builtin = m->builtin ? hc_builtin_find(name) : -1;
	err = HIP_CALL(ModuleGetFunction)(&f->f, m->m, name);
	if (err) {
		free(f);
		return rt_fail(dev, HS_ModuleGetFunction, err);
	}
	pthread_mutex_lock(&dev->lock);
	f->id = ++dev->nfunctions;
	LIST_INSERT_HEAD(&m->functions, f, link);
	pthread_mutex_unlock(&dev->lock);
	*out = f;
	return HC_OK;
}

/*
 * Kernel timing (hip_ktime.h): kt_begin records a timing event before the
 * launch, kt_end one after it and keeps the pair; any failure leaves the
 * launch untimed.  kt_drain reads back completed pairs at fences.
 */
static int kt_query(void *e)
{
	return HIP_CALL(EventQuery)(e);
}

static int kt_elapsed(float *ms, void *a, void *b)
{
	return HIP_CALL(EventElapsedTime)(ms, a, b);
}

static int kt_destroy(void *e)
{
	return HIP_CALL(EventDestroy)(e);
}

static void kt_drain(hc_hal_dev *dev, bool all)
{
	if (!dev->time_kernels)
		return;
	pthread_mutex_lock(&dev->lock);
	hip_kt_drain(&dev->kt, kt_query, kt_elapsed, kt_destroy, all);
	pthread_mutex_unlock(&dev->lock);
}

static void kt_begin(hc_hal_dev *dev, hc_hal_stream *s, struct hip_kt_pending *p)
{
	if (HIP_CALL(EventCreateWithFlags)(&p->start, 0) != 0) {
		p->start = NULL;
		return;
	}
	if (HIP_CALL(EventCreateWithFlags)(&p->end, 0) != 0 ||
	    HIP_CALL(EventRecord)(p->start, s->s) != 0) {
		if (p->end)
			HIP_CALL(EventDestroy)(p->end);
		HIP_CALL(EventDestroy)(p->start);
		p->start = p->end = NULL;
	}
	(void)dev;
}

static void kt_end(hc_hal_dev *dev, hc_hal_stream *s, struct hip_kt_pending *p, bool launched)
{
	bool kept = false;

	if (!p->start)
		return;
	if (launched && HIP_CALL(EventRecord)(p->end, s->s) == 0) {
		pthread_mutex_lock(&dev->lock);
		kept = hip_kt_add(&dev->kt, p);
		pthread_mutex_unlock(&dev->lock);
	}
	if (!kept) {
		HIP_CALL(EventDestroy)(p->start);
		HIP_CALL(EventDestroy)(p->end);
	}
}

static hc_status hip_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_function *f,
			    const struct hc_hal_launch *l)
{
	struct hip_kt_pending kp = { 0 };
	struct hip_builtin_params bp;
	void **params;
	char why[160];
	hc_status st;
	int err;

	if (!dev || !s || !f || !l || (l->n_args && !l->args))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip: launch needs dev, stream, function and a descriptor");
	params = l->args;
	if (f->builtin >= 0) { /* addresses and sizes, checked as the simulator does */
		if (hip_builtin_pack((enum hc_builtin)f->builtin, l->n_args, l->arg_dptr,
				     l->arg_bytes, &bp, why, sizeof(why)) != 0)
			return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip launch: %s%s", why,
					    l->arg_dptr ? "" : " (built-in kernels need arg_dptr)");
		params = bp.ptr;
	}
	if ((st = bind_thread(dev)) != HC_OK)
		return st;
	if (dev->time_kernels && !s->capturing)
		kt_begin(dev, s, &kp);
	err = HIP_CALL(ModuleLaunchKernel)(f->f, l->grid[0], l->grid[1], l->grid[2], l->block[0],
					   l->block[1], l->block[2], l->shared_bytes, s->s, params,
					   NULL);
	if (err) {
		kt_end(dev, s, &kp, false);
		return rt_fail(dev, HS_ModuleLaunchKernel, err);
	}
	pthread_mutex_lock(&dev->lock);
	dev->stats.launches++;
	kp.ordinal = ++dev->nlaunch;
	pthread_mutex_unlock(&dev->lock);
	kp.stream = s->id;
	kp.kernel = f->id;
	kt_end(dev, s, &kp, true);
	return HC_OK;
}

/* -------------------------------------------------------------------- ctl */

static hc_status hip_ctl(hc_hal_dev *dev, int op, void *arg)
{
	if (!dev || !arg)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip: ctl needs dev and arg");
	switch (op) {
	case HC_HAL_CTL_NOW_NS:
		*(uint64_t *)arg = now_ns();
		return HC_OK;
	case HC_HAL_CTL_STATS:
		pthread_mutex_lock(&dev->lock);
		memcpy(arg, &dev->stats, sizeof(dev->stats));
		pthread_mutex_unlock(&dev->lock);
		return HC_OK;
	case HC_HAL_CTL_LIB_WORK:
		return HC_OK; /* the library's work took its real time already */
	case HC_HAL_CTL_HOST_COPY: {
		const struct hc_hal_host_copy *h = arg;

		if (h && h->copy)
			h->copy(h->ctx); /* its real time is the cost */
		return HC_OK;
	}
	case HC_HAL_CTL_LAST_OP:
	case HC_HAL_CTL_TAKE_FAILED:
		/* HIP errors are sticky and name no operation: core falls back to
		 * tainting all in-flight work of the stream (hal.h). */
		return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL,
				    "hip: ctl op %d: failures are not attributable to operations", op);
	default:
		return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL, "hip: ctl op %d is not supported", op);
	}
}

/* -------------------------------------------------------------- ops table */

static const struct hc_hal_ops hip_ops = {
	.version = HC_HAL_VERSION,
	.name = "hip",
	.device_open = hip_device_open,
	.device_close = hip_device_close,
	.device_props = hip_device_props,
	.mem_alloc = hip_mem_alloc,
	.mem_free = hip_mem_free,
	.host_alloc = hip_host_alloc,
	.host_free = hip_host_free,
	.stream_create = hip_stream_create,
	.stream_adopt = hip_stream_adopt,
	.stream_destroy = hip_stream_destroy,
	.stream_sync = hip_stream_sync,
	.copy_h2d = hip_copy_h2d,
	.copy_d2h = hip_copy_d2h,
	.copy_d2d = hip_copy_d2d,
	.event_record = hip_event_record,
	.event_wait = hip_event_wait,
	.event_sync = hip_event_sync,
	.event_query = hip_event_query,
	.event_destroy = hip_event_destroy,
	.capture_begin = hip_capture_begin,
	.capture_end = hip_capture_end,
	.graph_launch = hip_graph_launch,
	.graph_destroy = hip_graph_destroy,
	.module_load = hip_module_load,
	.module_unload = hip_module_unload,
	.function_get = hip_function_get,
	.launch = hip_launch,
	.ctl = hip_ctl,
	.va_reserve = hip_va_reserve,
	.va_release = hip_va_release,
	.pmem_map = hip_pmem_map,
	.pmem_unmap = hip_pmem_unmap,
};

void *hc_hip_stream_raw(hc_hal_stream *stream)
{
	return stream ? stream->s : NULL;
}

const struct hc_hal_ops *hc_hip_ops(void)
{
	return &hip_ops;
}
