/*
 * hip_rt.h - the HIP backend's runtime binding, shared by its three files.
 *
 * hip_loader.c finds a runtime (AMD's libamdhip64 or NVIDIA's libcudart plus
 * libcuda) with dlopen and fills hip_syms[], a table of {name, current,
 * fallback} entries in the manner of SQLite's aSyscall[]: "fallback" is what
 * dlsym returned, "current" is what calls go through, so a test can replace
 * one entry (hc_hip_sym_override) and make, say, hipMalloc fail without a
 * GPU.  hip_errors.c translates the runtime's codes into hc_status with
 * explicit tables (HIP, CUDA runtime, CUDA driver).  hip_ops.c is the
 * struct hc_hal_ops itself.
 *
 * Every entry has a HIP name and a CUDA name; the CUDA runtime and driver
 * calls bound here take the same arguments as the HIP ones they stand for,
 * except where two entries exist (hipGraphInstantiate on AMD,
 * cudaGraphInstantiateWithFlags on NVIDIA).  A NULL name means "not used on
 * that platform".  Handles are passed as void *, enums as int.  The driver's
 * CUdeviceptr and CUmemGenericAllocationHandle are unsigned long long, HIP's
 * are pointers: both are 64-bit integers in a register on every platform
 * the library builds for (hip_vmm.c asserts the sizes), so the virtual-memory
 * entries take void * for both.  The virtual-memory entries are optional:
 * a runtime without them still loads, and the device reports no virtual
 * memory (hip_vmm.c).
 */
#ifndef HIPCORE_HAL_HIP_RT_H
#define HIPCORE_HAL_HIP_RT_H

#include <stddef.h>

#include "hal/hal.h"

enum hip_flavor {
	HIP_FLAVOR_NONE = 0,
	HIP_FLAVOR_AMD = 1,    /* libamdhip64: every call returns hipError_t */
	HIP_FLAVOR_NVIDIA = 2, /* libcudart (cudaError_t) + libcuda (CUresult) */
};

/* Which error space a call's return value lives in. */
enum hip_space {
	HIP_SPACE_HIP = 0,     /* hipError_t */
	HIP_SPACE_CUDART = 1,  /* cudaError_t */
	HIP_SPACE_CUDRV = 2,   /* CUresult */
};

/* Where an entry is looked up on NVIDIA: the runtime or the driver. */
#define HIP_LIB_RT 0
#define HIP_LIB_DRV 1
/* Optional entries may be missing without failing the load. */
#define HIP_REQ 0
#define HIP_OPT 1

/*
 * X(id, hip_name, cuda_name, lib, optional, return type, parameter list)
 */
#define HIP_SYM_LIST(X)                                                                   \
	X(GetDeviceCount, "hipGetDeviceCount", "cudaGetDeviceCount", HIP_LIB_RT, HIP_REQ,   \
	  int, (int *count))                                                                \
	X(SetDevice, "hipSetDevice", "cudaSetDevice", HIP_LIB_RT, HIP_REQ, int, (int dev))  \
	X(GetErrorName, "hipGetErrorName", "cudaGetErrorName", HIP_LIB_RT, HIP_OPT,         \
	  const char *, (int code))                                                         \
	X(MemGetInfo, "hipMemGetInfo", "cudaMemGetInfo", HIP_LIB_RT, HIP_REQ, int,          \
	  (size_t *free_b, size_t *total_b))                                                \
	X(DeviceGetAttribute, "hipDeviceGetAttribute", "cudaDeviceGetAttribute",            \
	  HIP_LIB_RT, HIP_REQ, int, (int *value, int attr, int dev))                        \
	X(Init, "hipInit", "cuInit", HIP_LIB_DRV, HIP_REQ, int, (unsigned flags))           \
	X(DeviceGet, "hipDeviceGet", "cuDeviceGet", HIP_LIB_DRV, HIP_REQ, int,              \
	  (int *device, int ordinal))                                                       \
	X(DeviceGetName, "hipDeviceGetName", "cuDeviceGetName", HIP_LIB_DRV, HIP_REQ, int,  \
	  (char *name, int len, int device))                                                \
	X(DrvGetErrorName, NULL, "cuGetErrorName", HIP_LIB_DRV, HIP_OPT, int,               \
	  (int code, const char **name))                                                    \
	X(StreamCreateWithFlags, "hipStreamCreateWithFlags", "cudaStreamCreateWithFlags",   \
	  HIP_LIB_RT, HIP_REQ, int, (void **stream, unsigned flags))                        \
	X(StreamDestroy, "hipStreamDestroy", "cudaStreamDestroy", HIP_LIB_RT, HIP_REQ, int, \
	  (void *stream))                                                                   \
	X(StreamSynchronize, "hipStreamSynchronize", "cudaStreamSynchronize", HIP_LIB_RT,   \
	  HIP_REQ, int, (void *stream))                                                     \
	X(Malloc, "hipMalloc", "cudaMalloc", HIP_LIB_RT, HIP_REQ, int,                      \
	  (void **ptr, size_t size))                                                        \
	X(Free, "hipFree", "cudaFree", HIP_LIB_RT, HIP_REQ, int, (void *ptr))               \
	X(HostMalloc, "hipHostMalloc", "cudaHostAlloc", HIP_LIB_RT, HIP_REQ, int,           \
	  (void **ptr, size_t size, unsigned flags))                                        \
	X(HostFree, "hipHostFree", "cudaFreeHost", HIP_LIB_RT, HIP_REQ, int, (void *ptr))   \
	X(HostRegister, "hipHostRegister", "cudaHostRegister", HIP_LIB_RT, HIP_OPT, int,    \
	  (void *ptr, size_t size, unsigned flags))                                         \
	X(HostUnregister, "hipHostUnregister", "cudaHostUnregister", HIP_LIB_RT, HIP_OPT,   \
	  int, (void *ptr))                                                                 \
	X(MemcpyAsync, "hipMemcpyAsync", "cudaMemcpyAsync", HIP_LIB_RT, HIP_REQ, int,       \
	  (void *dst, const void *src, size_t size, int kind, void *stream))                \
	X(EventCreateWithFlags, "hipEventCreateWithFlags", "cudaEventCreateWithFlags",      \
	  HIP_LIB_RT, HIP_REQ, int, (void **event, unsigned flags))                         \
	X(EventRecord, "hipEventRecord", "cudaEventRecord", HIP_LIB_RT, HIP_REQ, int,       \
	  (void *event, void *stream))                                                      \
	X(StreamWaitEvent, "hipStreamWaitEvent", "cudaStreamWaitEvent", HIP_LIB_RT,         \
	  HIP_REQ, int, (void *stream, void *event, unsigned flags))                        \
	X(EventSynchronize, "hipEventSynchronize", "cudaEventSynchronize", HIP_LIB_RT,      \
	  HIP_REQ, int, (void *event))                                                      \
	X(EventQuery, "hipEventQuery", "cudaEventQuery", HIP_LIB_RT, HIP_REQ, int,          \
	  (void *event))                                                                    \
	X(EventDestroy, "hipEventDestroy", "cudaEventDestroy", HIP_LIB_RT, HIP_REQ, int,    \
	  (void *event))                                                                    \
	X(StreamBeginCapture, "hipStreamBeginCapture", "cudaStreamBeginCapture",            \
	  HIP_LIB_RT, HIP_REQ, int, (void *stream, int mode))                               \
	X(StreamEndCapture, "hipStreamEndCapture", "cudaStreamEndCapture", HIP_LIB_RT,      \
	  HIP_REQ, int, (void *stream, void **graph))                                       \
	X(GraphGetNodes, "hipGraphGetNodes", "cudaGraphGetNodes", HIP_LIB_RT, HIP_REQ, int, \
	  (void *graph, void **nodes, size_t *count))                                       \
	X(GraphNodeGetType, "hipGraphNodeGetType", "cudaGraphNodeGetType", HIP_LIB_RT,      \
	  HIP_REQ, int, (void *node, int *type))                                            \
	X(GraphInstantiate, "hipGraphInstantiate", NULL, HIP_LIB_RT, HIP_REQ, int,          \
	  (void **exec, void *graph, void **err_node, char *log, size_t log_size))          \
	X(GraphInstantiateWithFlags, NULL, "cudaGraphInstantiateWithFlags", HIP_LIB_RT,     \
	  HIP_REQ, int, (void **exec, void *graph, unsigned long long flags))               \
	X(GraphLaunch, "hipGraphLaunch", "cudaGraphLaunch", HIP_LIB_RT, HIP_REQ, int,       \
	  (void *exec, void *stream))                                                       \
	X(GraphExecDestroy, "hipGraphExecDestroy", "cudaGraphExecDestroy", HIP_LIB_RT,      \
	  HIP_REQ, int, (void *exec))                                                       \
	X(GraphDestroy, "hipGraphDestroy", "cudaGraphDestroy", HIP_LIB_RT, HIP_REQ, int,    \
	  (void *graph))                                                                    \
	X(ModuleLoadData, "hipModuleLoadData", "cuModuleLoadData", HIP_LIB_DRV, HIP_REQ,    \
	  int, (void **module, const void *image))                                          \
	X(ModuleUnload, "hipModuleUnload", "cuModuleUnload", HIP_LIB_DRV, HIP_REQ, int,     \
	  (void *module))                                                                   \
	X(ModuleGetFunction, "hipModuleGetFunction", "cuModuleGetFunction", HIP_LIB_DRV,    \
	  HIP_REQ, int, (void **fn, void *module, const char *name))                        \
	X(ModuleLaunchKernel, "hipModuleLaunchKernel", "cuLaunchKernel", HIP_LIB_DRV,       \
	  HIP_REQ, int,                                                                     \
	  (void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,       \
	   unsigned bz, unsigned shared, void *stream, void **params, void **extra))        \
	X(MallocAsync, "hipMallocAsync", "cudaMallocAsync", HIP_LIB_RT, HIP_OPT, int,       \
	  (void **ptr, size_t size, void *stream))                                          \
	X(FreeAsync, "hipFreeAsync", "cudaFreeAsync", HIP_LIB_RT, HIP_OPT, int,             \
	  (void *ptr, void *stream))                                                        \
	X(EventElapsedTime, "hipEventElapsedTime", "cudaEventElapsedTime", HIP_LIB_RT,      \
	  HIP_OPT, int, (float *ms, void *start, void *end))                                \
	X(RuntimeGetVersion, "hipRuntimeGetVersion", "cudaRuntimeGetVersion", HIP_LIB_RT,   \
	  HIP_OPT, int, (int *version))                                                     \
	X(MemGetAllocationGranularity, "hipMemGetAllocationGranularity",                    \
	  "cuMemGetAllocationGranularity", HIP_LIB_DRV, HIP_OPT, int,                       \
	  (size_t *granularity, const void *prop, int option))                              \
	X(MemAddressReserve, "hipMemAddressReserve", "cuMemAddressReserve", HIP_LIB_DRV,    \
	  HIP_OPT, int,                                                                     \
	  (void **ptr, size_t size, size_t alignment, void *addr, unsigned long long flags)) \
	X(MemAddressFree, "hipMemAddressFree", "cuMemAddressFree", HIP_LIB_DRV, HIP_OPT,    \
	  int, (void *ptr, size_t size))                                                    \
	X(MemCreate, "hipMemCreate", "cuMemCreate", HIP_LIB_DRV, HIP_OPT, int,              \
	  (void **handle, size_t size, const void *prop, unsigned long long flags))         \
	X(MemMap, "hipMemMap", "cuMemMap", HIP_LIB_DRV, HIP_OPT, int,                       \
	  (void *ptr, size_t size, size_t offset, void *handle, unsigned long long flags))  \
	X(MemSetAccess, "hipMemSetAccess", "cuMemSetAccess", HIP_LIB_DRV, HIP_OPT, int,     \
	  (void *ptr, size_t size, const void *desc, size_t count))                         \
	X(MemUnmap, "hipMemUnmap", "cuMemUnmap", HIP_LIB_DRV, HIP_OPT, int,                 \
	  (void *ptr, size_t size))                                                         \
	X(MemRelease, "hipMemRelease", "cuMemRelease", HIP_LIB_DRV, HIP_OPT, int,           \
	  (void *handle))

enum hip_sym_id {
#define HIP_SYM_ENUM_(id, h, c, lib, opt, ret, params) HS_##id,
	HIP_SYM_LIST(HIP_SYM_ENUM_)
#undef HIP_SYM_ENUM_
	HIP_SYM_COUNT
};

/* One function pointer type per entry: hip_fn_<id>. */
#define HIP_SYM_TYPE_(id, h, c, lib, opt, ret, params) typedef ret(*hip_fn_##id) params;
HIP_SYM_LIST(HIP_SYM_TYPE_)
#undef HIP_SYM_TYPE_

struct hip_sym {
	const char *hip_name;  /* the name on AMD, NULL: unused there */
	const char *cuda_name; /* the name on NVIDIA, NULL: unused there */
	int lib;               /* HIP_LIB_RT or HIP_LIB_DRV */
	int optional;
	void *current;         /* what calls go through */
	void *fallback;        /* what dlsym found */
	int overridden;        /* set by hc_hip_sym_override: the loader keeps current */
};

extern struct hip_sym hip_syms[HIP_SYM_COUNT];

/* Call entry @id through the table: HIP_CALL(Malloc)(&p, n). */
#define HIP_CALL(id) ((hip_fn_##id)hip_syms[HS_##id].current)
/* Whether an (optional) entry is bound. */
#define HIP_HAVE(id) (hip_syms[HS_##id].current != NULL)

/* The loaded runtime (hip_loader.c). */
struct hip_runtime {
	enum hip_flavor flavor;
	void *lib_rt;     /* libamdhip64 or libcudart */
	void *lib_drv;    /* libcuda, or NULL when lib_rt serves both */
	char path[256];   /* what lib_rt was opened as */
	int device_count;
};

/* hip_loader.c */

/*
 * hip_runtime_get - load the runtime once (thread-safe) and return it.
 * Return: HC_OK; HC_ERR_NO_RUNTIME naming every file tried and each
 * dlerror, or a missing symbol, or "no device".
 */
hc_status hip_runtime_get(const struct hip_runtime **out);
/* Unloads the runtime when no device holds it; for tests.  Returns whether
 * it did. */
int hc_hip_runtime_reset(void);
/* Device count bookkeeping for reset's safety. */
void hip_runtime_hold(void);
void hip_runtime_release(void);
/*
 * hc_hip_sym_override - replace the entry whose HIP or CUDA name is @name
 * with @fn; @fn NULL restores what dlsym found.  Return: 0, or -1 when no
 * entry has that name.
 */
int hc_hip_sym_override(const char *name, void *fn);

/* hip_pinned.c */

/* Pinned blocks from this size up are mapped here and registered with the
 * runtime; smaller ones come from its HostMalloc. */
#define HIP_PIN_MAP_MIN (2u << 20)
/*
 * hip_pin_map - anonymous memory for at least @size bytes, 2 MiB aligned,
 * not inherited by fork, every page already faulted in (from several
 * threads for large blocks), ready for HostRegister.
 * Return: the block and its length in *@map_len, or NULL when the host has
 * no memory (errno from mmap).
 */
void *hip_pin_map(size_t size, size_t *map_len);
void hip_pin_unmap(void *p, size_t map_len);

/* hip_ops.c */

/* The runtime's own stream handle behind @stream (hipStream_t /
 * cudaStream_t), for GPU tests and benchmarks that call the table directly. */
void *hc_hip_stream_raw(hc_hal_stream *stream);

/* hip_errors.c */

struct hip_err_entry {
	int code;
	const char *name;
	hc_status status;
};

/* The static tables, for tests; each ends with a {0, NULL, 0} sentinel
 * after its last entry (code 0 itself is the first entry, success). */
extern const struct hip_err_entry hip_err_table_hip[];
extern const struct hip_err_entry hip_err_table_cudart[];
extern const struct hip_err_entry hip_err_table_cudrv[];

/* The static table entry for @code in @space, or NULL. */
const struct hip_err_entry *hip_err_lookup(enum hip_space space, int code);
/* The status @code maps to in @space (HC_ERR_DEVICE for unknown codes). */
hc_status hip_err_status(enum hip_space space, int code);
/*
 * hip_err_fail - record a failed runtime call and return its status.
 * @what: the call, e.g. "cudaMalloc(4096 B)".  The name comes from the
 * runtime's own GetErrorName through the table when bound, else from the
 * static table, else "unknown error <code>".
 */
hc_status hip_err_fail(enum hip_space space, int code, const char *what);

#endif /* HIPCORE_HAL_HIP_RT_H */
