/*
 * hip_vmm.c - virtual memory on the HIP backend: address reservations and
 * the device memory mapped into them, through the driver's VMM entries
 * (NVIDIA: cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess,
 * cuMemUnmap, cuMemRelease, cuMemAddressFree; AMD: the hipMem* calls of the
 * same names), bound at run time like every other call (hip_rt.h).
 *
 * pmem_map is three calls: create an allocation of the size, map it at the
 * address, make it read-write for this device; each failure undoes the
 * steps before it.  The allocation handle is kept with the mapping, so
 * pmem_unmap can unmap the range and release the handle, which gives the
 * memory back.  A runtime cannot unmap part of a mapping, so neither can
 * the contract (hal.h): an unmap covers whole mappings.
 *
 * The property structs are written here from the documented layout (no
 * CUDA header at build time): CUmemAllocationProp {type, requestedHandleTypes,
 * location {type, id}, win32HandleMetaData, allocFlags {compressionType,
 * gpuDirectRDMACapable, usage, reserved[4]}}, 32 bytes, and CUmemAccessDesc
 * {location, flags}, 12 bytes.  ROCm's hipMemAllocationProp has had that
 * layout since ROCm 5.3; ROCm 5.2's (the Debian headers this builds with)
 * put its fields in another order, so on AMD virtual memory is offered only
 * by a runtime reporting 5.3 or later (hipRuntimeGetVersion), and the
 * structs here are used on both platforms.  The AMD enums and the location
 * and access structs are checked against the HIP headers below.
 *
 * Bookkeeping: each device's reservations, each with its mappings in an
 * array sorted by address (growth appends, so inserting is cheap).  The
 * lock is never held across a runtime call: a mapping being made or
 * unmapped is marked busy in the array first, so two threads can neither
 * map one granule twice nor unmap a mapping twice.
 *
 * HIPCORE_VMM=0 in the environment (read with secure_getenv) turns virtual
 * memory off: the device reports vmm_granularity 0.
 */
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/hip/hip_vmm.h"
#include "util/env.h"

#define ULL(x) ((unsigned long long)(x))

/* CUmemLocation / hipMemLocation */
struct vmm_location {
	int type; /* CU_MEM_LOCATION_TYPE_DEVICE */
	int id;   /* the device ordinal */
};

/* CUmemAllocationProp (CUDA 10.2 - 13), hipMemAllocationProp (ROCm >= 5.3) */
struct vmm_alloc_prop {
	int type;                   /* CU_MEM_ALLOCATION_TYPE_PINNED */
	int requested_handle_types; /* CU_MEM_HANDLE_TYPE_NONE: not exported */
	struct vmm_location location;
	void *win32_handle_meta_data; /* must be NULL off Windows */
	struct {
		unsigned char compression_type;
		unsigned char gpu_direct_rdma_capable;
		unsigned short usage;
		unsigned char reserved[4];
	} alloc_flags;
};

/* CUmemAccessDesc / hipMemAccessDesc */
struct vmm_access_desc {
	struct vmm_location location;
	int flags; /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE */
};

#define VMM_ALLOCATION_TYPE_PINNED 1
#define VMM_HANDLE_TYPE_NONE 0
#define VMM_LOCATION_TYPE_DEVICE 1
#define VMM_ACCESS_READWRITE 3
#define VMM_GRANULARITY_MINIMUM 0
/* hipRuntimeGetVersion's figure for ROCm 5.3: major * 1e7 + minor * 1e5 */
#define VMM_ROCM_LAYOUT_VERSION 50300000

_Static_assert(sizeof(struct vmm_alloc_prop) == 32 &&
		       offsetof(struct vmm_alloc_prop, location) == 8 &&
		       offsetof(struct vmm_alloc_prop, win32_handle_meta_data) == 16 &&
		       offsetof(struct vmm_alloc_prop, alloc_flags) == 24,
	       "CUmemAllocationProp's documented layout");
_Static_assert(sizeof(struct vmm_access_desc) == 12 &&
		       offsetof(struct vmm_access_desc, flags) == 8,
	       "CUmemAccessDesc's documented layout");
_Static_assert(sizeof(struct vmm_location) == sizeof(hipMemLocation) &&
		       sizeof(struct vmm_access_desc) == sizeof(hipMemAccessDesc) &&
		       offsetof(hipMemAccessDesc, flags) == offsetof(struct vmm_access_desc, flags),
	       "HIP's location and access structs are CUDA's");
_Static_assert(hipMemAllocationTypePinned == VMM_ALLOCATION_TYPE_PINNED &&
		       hipMemHandleTypeNone == VMM_HANDLE_TYPE_NONE &&
		       hipMemLocationTypeDevice == VMM_LOCATION_TYPE_DEVICE &&
		       hipMemAccessFlagsProtReadWrite == VMM_ACCESS_READWRITE &&
		       hipMemAllocationGranularityMinimum == VMM_GRANULARITY_MINIMUM,
	       "HIP's VMM enums are CUDA's");
/* The handle and the device pointer travel as void * (hip_rt.h). */
_Static_assert(sizeof(void *) == sizeof(unsigned long long), "64-bit handles");

static const char *call_name(const struct hip_vmm *v, enum hip_sym_id id)
{
	return v->flavor == HIP_FLAVOR_NVIDIA ? hip_syms[id].cuda_name : hip_syms[id].hip_name;
}

static hc_status call_fail(const struct hip_vmm *v, enum hip_sym_id id, int err)
{
	return hip_err_fail(v->space, err, call_name(v, id));
}

static void *dptr(hc_hal_dptr a)
{
	return (void *)(uintptr_t)a;
}

static struct vmm_alloc_prop device_prop(const struct hip_vmm *v)
{
	struct vmm_alloc_prop p;

	memset(&p, 0, sizeof(p));
	p.type = VMM_ALLOCATION_TYPE_PINNED;
	p.requested_handle_types = VMM_HANDLE_TYPE_NONE;
	p.location.type = VMM_LOCATION_TYPE_DEVICE;
	p.location.id = v->cudev;
	return p;
}

void hip_vmm_init(struct hip_vmm *v, enum hip_flavor flavor, enum hip_space space)
{
	memset(v, 0, sizeof(*v));
	pthread_mutex_init(&v->lock, NULL);
	LIST_INIT(&v->resvs);
	v->flavor = flavor;
	v->space = space;
}

void hip_vmm_probe(struct hip_vmm *v, int cudev)
{
	static const enum hip_sym_id needed[] = {
		HS_MemGetAllocationGranularity, HS_MemAddressReserve, HS_MemAddressFree, HS_MemCreate,
		HS_MemMap, HS_MemSetAccess, HS_MemUnmap, HS_MemRelease,
	};
	struct vmm_alloc_prop prop;
	size_t g = 0;
	int version = 0;

	v->cudev = cudev;
	v->gran = 0;
	if (!hc_env_flag(HC_ENV_VMM))
		return;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!hip_syms[needed[i]].current)
			return;
	if (v->flavor == HIP_FLAVOR_AMD &&
	    (!HIP_HAVE(RuntimeGetVersion) || HIP_CALL(RuntimeGetVersion)(&version) != 0 ||
	     version < VMM_ROCM_LAYOUT_VERSION))
		return;
	prop = device_prop(v);
	if (HIP_CALL(MemGetAllocationGranularity)(&g, &prop, VMM_GRANULARITY_MINIMUM) != 0 || g == 0 ||
	    (g & (g - 1)) != 0)
		return;
	v->gran = g;
}

static hc_status no_vmm(const char *op)
{
	return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL,
			    "hip %s: the runtime or the device has no virtual memory management "
			    "(or HIPCORE_VMM=0)", op);
}

static bool granular(const struct hip_vmm *v, uint64_t x)
{
	return (x & (v->gran - 1)) == 0;
}

/* The reservation holding @addr; caller holds the lock. */
static struct hip_vmm_resv *resv_of(struct hip_vmm *v, uint64_t addr)
{
	struct hip_vmm_resv *r;

	LIST_FOREACH(r, &v->resvs, link)
		if (addr >= r->base && addr - r->base < r->size)
			return r;
	return NULL;
}

/* Index of the first mapping of @r whose address is above @addr. */
static size_t map_upper(const struct hip_vmm_resv *r, uint64_t addr)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->maps[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void map_remove(struct hip_vmm_resv *r, size_t at, size_t count)
{
	memmove(r->maps + at, r->maps + at + count, (r->n - at - count) * sizeof(*r->maps));
	r->n -= count;
}

hc_status hip_vmm_reserve(struct hip_vmm *v, uint64_t size, hc_hal_dptr *out)
{
	struct hip_vmm_resv *r;
	void *p = NULL;
	int err;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hip va_reserve: out is NULL");
	if (!v->gran)
		return no_vmm("va_reserve");
	if (size == 0 || !granular(v, size) || size > SIZE_MAX)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip va_reserve: %llu bytes is not a nonzero multiple of the "
				    "granularity (%llu)", ULL(size), ULL(v->gran));
	r = calloc(1, sizeof(*r));
	if (!r)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip va_reserve: no host memory");
	err = HIP_CALL(MemAddressReserve)(&p, (size_t)size, (size_t)v->gran, NULL, 0);
	if (err) {
		free(r);
		return call_fail(v, HS_MemAddressReserve, err);
	}
	r->base = (uint64_t)(uintptr_t)p;
	r->size = size;
	pthread_mutex_lock(&v->lock);
	LIST_INSERT_HEAD(&v->resvs, r, link);
	pthread_mutex_unlock(&v->lock);
	*out = r->base;
	return HC_OK;
}

hc_status hip_vmm_release(struct hip_vmm *v, hc_hal_dptr addr, uint64_t size)
{
	struct hip_vmm_resv *r;
	bool found = false;
	size_t n = 0;
	int err;

	if (!v->gran)
		return no_vmm("va_release");
	pthread_mutex_lock(&v->lock);
	r = resv_of(v, addr);
	if (r && r->base == addr && r->size == size) {
		found = true;
		n = r->n;
		if (n == 0)
			LIST_REMOVE(r, link); /* ours alone while the runtime frees it */
	}
	pthread_mutex_unlock(&v->lock);
	if (!found)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip va_release: 0x%llx, %llu bytes is not a reservation "
				    "va_reserve made", ULL(addr), ULL(size));
	if (n)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip va_release: the reservation at 0x%llx still has %zu mapping(s); "
				    "pmem_unmap them first", ULL(addr), n);
	err = HIP_CALL(MemAddressFree)(dptr(addr), (size_t)size);
	if (err) {
		pthread_mutex_lock(&v->lock);
		LIST_INSERT_HEAD(&v->resvs, r, link);
		pthread_mutex_unlock(&v->lock);
		return call_fail(v, HS_MemAddressFree, err);
	}
	free(r->maps);
	free(r);
	return HC_OK;
}

/*
 * claim - check [addr, addr + size) against the contract and enter it as a
 * busy mapping.  Caller holds the lock.  Return: HC_OK, HC_ERR_INVALID
 * naming the broken rule, HC_ERR_OOM for the array.
 */
static hc_status claim(struct hip_vmm *v, uint64_t addr, uint64_t size)
{
	struct hip_vmm_resv *r;
	size_t at;

	if (size == 0 || !granular(v, addr) || !granular(v, size))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_map: 0x%llx, %llu bytes: address and size must be nonzero "
				    "multiples of the granularity (%llu)", ULL(addr), ULL(size),
				    ULL(v->gran));
	r = resv_of(v, addr);
	if (!r)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_map: 0x%llx is not inside a reservation", ULL(addr));
	if (size > r->size - (addr - r->base))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_map: 0x%llx + %llu bytes runs past its reservation "
				    "(0x%llx, %llu bytes)", ULL(addr), ULL(size), ULL(r->base),
				    ULL(r->size));
	at = map_upper(r, addr);
	if ((at > 0 && r->maps[at - 1].addr + r->maps[at - 1].size > addr) ||
	    (at < r->n && r->maps[at].addr - addr < size))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_map: 0x%llx + %llu bytes overlaps a mapping", ULL(addr),
				    ULL(size));
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 16;
		struct hip_vmm_map *nm = realloc(r->maps, ncap * sizeof(*nm));

		if (!nm)
			return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip pmem_map: no host memory");
		r->maps = nm;
		r->cap = ncap;
	}
	memmove(r->maps + at + 1, r->maps + at, (r->n - at) * sizeof(*r->maps));
	r->maps[at] = (struct hip_vmm_map){ addr, size, NULL, true };
	r->n++;
	return HC_OK;
}

/* Settles the busy mapping at @addr: keeps it with @handle, or drops it
 * (@handle NULL and @keep false). */
static void settle(struct hip_vmm *v, uint64_t addr, void *handle, bool keep)
{
	struct hip_vmm_resv *r;
	size_t at;

	pthread_mutex_lock(&v->lock);
	r = resv_of(v, addr);
	at = r ? map_upper(r, addr) : 0;
	if (r && at > 0 && r->maps[at - 1].addr == addr) {
		if (keep) {
			r->maps[at - 1].handle = handle;
			r->maps[at - 1].busy = false;
		} else {
			map_remove(r, at - 1, 1);
		}
	}
	pthread_mutex_unlock(&v->lock);
}

hc_status hip_vmm_map(struct hip_vmm *v, hc_hal_dptr addr, uint64_t size)
{
	struct vmm_alloc_prop prop;
	struct vmm_access_desc access;
	void *h = NULL;
	hc_status st;
	int err;

	if (!v->gran)
		return no_vmm("pmem_map");
	pthread_mutex_lock(&v->lock);
	st = claim(v, addr, size);
	pthread_mutex_unlock(&v->lock);
	if (st)
		return st;
	prop = device_prop(v);
	err = HIP_CALL(MemCreate)(&h, (size_t)size, &prop, 0);
	if (err) {
		st = call_fail(v, HS_MemCreate, err); /* out of memory: HC_ERR_OOM */
		goto err_unclaim;
	}
	err = HIP_CALL(MemMap)(dptr(addr), (size_t)size, 0, h, 0);
	if (err) {
		st = call_fail(v, HS_MemMap, err);
		goto err_release;
	}
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = VMM_ACCESS_READWRITE;
	err = HIP_CALL(MemSetAccess)(dptr(addr), (size_t)size, &access, 1);
	if (err) {
		st = call_fail(v, HS_MemSetAccess, err);
		goto err_unmap;
	}
	settle(v, addr, h, true);
	return HC_OK;

err_unmap:
	HIP_CALL(MemUnmap)(dptr(addr), (size_t)size);
err_release:
	HIP_CALL(MemRelease)(h);
err_unclaim:
	settle(v, addr, NULL, false);
	return st;
}

/*
 * claim_run - find the whole, adjacent, idle mappings that make up
 * [addr, addr + size), copy them into *@run (malloc'd, *@count of them) and
 * mark them busy.  Caller holds the lock.  Nothing is marked on failure.
 */
static hc_status claim_run(struct hip_vmm *v, uint64_t addr, uint64_t size,
			   struct hip_vmm_map **run, size_t *count)
{
	struct hip_vmm_resv *r = resv_of(v, addr);
	uint64_t end = addr;
	size_t i, k;

	if (!r || size == 0 || size > r->size - (addr - r->base))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_unmap: 0x%llx + %llu bytes is not inside a reservation",
				    ULL(addr), ULL(size));
	i = map_upper(r, addr);
	if (i == 0 || r->maps[i - 1].addr != addr)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_unmap: no mapping starts at 0x%llx (an unmap covers "
				    "whole pmem_map ranges)", ULL(addr));
	i--;
	for (k = i; k < r->n && r->maps[k].addr == end && !r->maps[k].busy &&
		    r->maps[k].size <= addr + size - end;
	     k++)
		end += r->maps[k].size;
	if (end != addr + size)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "hip pmem_unmap: 0x%llx + %llu bytes is not a run of whole, "
				    "settled mappings (they cover up to 0x%llx)", ULL(addr), ULL(size),
				    ULL(end));
	*run = malloc((k - i) * sizeof(**run));
	if (!*run)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "hip pmem_unmap: no host memory");
	memcpy(*run, r->maps + i, (k - i) * sizeof(**run));
	for (size_t j = i; j < k; j++)
		r->maps[j].busy = true;
	*count = k - i;
	return HC_OK;
}

/* Keeps a handle whose release failed, for hip_vmm_fini (dropped when the
 * host has no memory to keep it: the runtime's teardown frees it then). */
static void adopt_orphan(struct hip_vmm *v, void *handle)
{
	pthread_mutex_lock(&v->lock);
	if (v->norphans == v->caporphans) {
		size_t ncap = v->caporphans ? v->caporphans * 2 : 4;
		void **no = realloc(v->orphans, ncap * sizeof(*no));

		if (no) {
			v->orphans = no;
			v->caporphans = ncap;
		}
	}
	if (v->norphans < v->caporphans)
		v->orphans[v->norphans++] = handle;
	pthread_mutex_unlock(&v->lock);
}

hc_status hip_vmm_unmap(struct hip_vmm *v, hc_hal_dptr addr, uint64_t size, uint64_t *maps,
			uint64_t *bytes)
{
	struct hip_vmm_map *run = NULL;
	struct hip_vmm_resv *r;
	size_t count = 0, done = 0, at;
	hc_status st;
	int err;

	*maps = *bytes = 0;
	if (!v->gran)
		return no_vmm("pmem_unmap");
	pthread_mutex_lock(&v->lock);
	st = claim_run(v, addr, size, &run, &count);
	pthread_mutex_unlock(&v->lock);
	if (st)
		return st;
	/* The memory goes with the unmap and the release.  A release that
	 * fails after its unmap leaves the range unmapped (dropped here) and
	 * its handle an orphan, released again at close. */
	for (; done < count; done++) {
		err = HIP_CALL(MemUnmap)(dptr(run[done].addr), (size_t)run[done].size);
		if (err) {
			st = call_fail(v, HS_MemUnmap, err);
			break;
		}
		*maps += 1;
		*bytes += run[done].size;
		err = HIP_CALL(MemRelease)(run[done].handle);
		if (err) {
			st = call_fail(v, HS_MemRelease, err);
			adopt_orphan(v, run[done].handle);
			done++;
			break;
		}
	}
	/* The run is still where claim_run found it, marked busy: other calls
	 * may have moved it in the array, never changed or split it. */
	pthread_mutex_lock(&v->lock);
	r = resv_of(v, addr);
	at = map_upper(r, addr) - 1;
	for (size_t j = done; j < count; j++)
		r->maps[at + j].busy = false;
	map_remove(r, at, done);
	pthread_mutex_unlock(&v->lock);
	free(run);
	return st;
}

void hip_vmm_fini(struct hip_vmm *v)
{
	struct hip_vmm_resv *r;

	while ((r = LIST_FIRST(&v->resvs))) {
		LIST_REMOVE(r, link);
		for (size_t i = 0; i < r->n; i++) {
			if (r->maps[i].busy)
				continue; /* another thread's call, cut short by close */
			if (HIP_CALL(MemUnmap)(dptr(r->maps[i].addr), (size_t)r->maps[i].size) == 0)
				HIP_CALL(MemRelease)(r->maps[i].handle);
		}
		HIP_CALL(MemAddressFree)(dptr(r->base), (size_t)r->size);
		free(r->maps);
		free(r);
	}
	for (size_t i = 0; i < v->norphans; i++)
		HIP_CALL(MemRelease)(v->orphans[i]);
	free(v->orphans);
	pthread_mutex_destroy(&v->lock);
}
