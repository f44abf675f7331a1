/*
 * sim_vmm.c - virtual memory: reservations of address space and the device
 * memory mapped into them (hal.h's va_reserve, va_release, pmem_map,
 * pmem_unmap).
 *
 * A reservation takes its addresses from the device's one address space
 * (sim_memory.c), aligned to the profile's vmm_granularity G, and charges
 * nothing.  pmem_map charges the capacity exactly as mem_alloc does (the
 * same injected faults, the same HC_ERR_OOM, device_bytes_live and _peak),
 * so a memory figure of a run that maps is the figure a GPU would show.
 * Each reservation keeps the ranges mapped into it sorted by address, each
 * as one pmem_map made it: pmem_unmap must cover whole mappings, as CUDA's
 * cuMemUnmap must.  The simulator enforces every rule of the contract that a
 * GPU would enforce or fault on (alignment, bounds, double maps, partial
 * unmaps, releasing a reservation still mapped), so a caller's mistake
 * shows here rather than on the device.
 *
 * Accesses: sim_dev_range asks sim_vmm_range about an address in no
 * allocation; a range inside one reservation whose granules are all mapped
 * is valid, whichever mappings cover it, so adjacent mappings are one
 * buffer for copies and kernels.  A range that reaches an unmapped granule
 * is refused when queued (HC_ERR_INVALID) and fails late when a graph
 * replays it, as an access to freed memory does.
 *
 * Data mode: each reservation is backed by one anonymous host mapping of
 * its size made with MAP_NORESERVE, so untouched granules cost no host
 * memory and mapped ones are contiguous bytes.  pmem_unmap drops the
 * granules' pages (madvise MADV_DONTNEED: they read as zero when mapped
 * again, and a freshly mapped range is zero); where the host page does not
 * divide G they are cleared instead.
 *
 * Costs (host clock): va_reserve and va_release a fixed figure each;
 * pmem_map pmem_map + pmem_map_per_mib for each MiB beyond the first
 * (sim_alloc_cost, as mem_alloc); pmem_unmap the same with its own figures
 * for each mapping it releases (a GPU backend makes one runtime call pair
 * per mapping).  None of them waits for the device: the runtimes do not
 * (hal.h), so neither does the model.  A call refused for its arguments
 * costs nothing; one the device refuses (HC_ERR_OOM) costs its figure.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "sim/sim_internal.h"

#define ULL(x) ((unsigned long long)(x))

/* Index of the first reservation whose base is above @addr. */
static size_t resv_upper(const hc_hal_dev *dev, uint64_t addr)
{
	size_t lo = 0, hi = dev->nresv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dev->resv[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the reservation containing @addr, or -1. */
static long resv_find(const hc_hal_dev *dev, uint64_t addr)
{
	size_t i = resv_upper(dev, addr);

	if (i == 0 || addr - dev->resv[i - 1].base >= dev->resv[i - 1].size)
		return -1;
	return (long)i - 1;
}

static hc_status no_vmm(const char *fn)
{
	return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL,
			    "sim %s: the profile has no virtual memory (vmm_granularity = 0)", fn);
}

/* Whether @v is a multiple of the granule. */
static bool granular(const hc_hal_dev *dev, uint64_t v)
{
	return (v & (dev->prof.vmm_granularity - 1)) == 0;
}

hc_status sim_va_reserve(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out)
{
	uint64_t g = dev->prof.vmm_granularity, base;
	struct sim_resv r = { 0 };
	size_t at;
	hc_status st;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim va_reserve: out is NULL");
	if (g == 0)
		return no_vmm("va_reserve");
	if (size == 0 || !granular(dev, size))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim va_reserve: %llu bytes is not a nonzero multiple of the "
				    "granularity (%llu)", ULL(size), ULL(g));
	st = sim_not_while_capturing(dev, "va_reserve", true);
	if (st)
		return st;
	sim_host_cost(dev, dev->prof.va_reserve_ns);
	if (dev->nresv == dev->capresv) {
		size_t ncap = dev->capresv ? dev->capresv * 2 : 8;
		struct sim_resv *nr = realloc(dev->resv, ncap * sizeof(*nr));

		if (!nr)
			return hc_hal_error(HC_ERR_OOM, 0, NULL,
					    "sim va_reserve: no host memory for bookkeeping");
		dev->resv = nr;
		dev->capresv = ncap;
	}
	if (!sim_space_take(dev, size, g, &base))
		return hc_hal_error(HC_ERR_OOM, 0, NULL,
				    "sim va_reserve: %llu bytes: the device's address space is "
				    "exhausted", ULL(size));
	if (dev->data_mode) {
		void *p = size <= SIZE_MAX ? mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
					   : MAP_FAILED;

		if (p == MAP_FAILED) {
			sim_space_give(dev, base, size);
			return hc_hal_error(HC_ERR_OOM, 0, NULL,
					    "sim va_reserve: no host address space to back %llu "
					    "bytes in data mode", ULL(size));
		}
		r.host = p;
	}
	r.base = base;
	r.size = size;
	at = resv_upper(dev, base);
	memmove(dev->resv + at + 1, dev->resv + at, (dev->nresv - at) * sizeof(*dev->resv));
	dev->resv[at] = r;
	dev->nresv++;
	dev->stats.va_bytes_reserved += size;
	*out = base;
	return HC_OK;
}

hc_status sim_va_release(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	long i;
	struct sim_resv *r;
	hc_status st;

	if (dev->prof.vmm_granularity == 0)
		return no_vmm("va_release");
	st = sim_not_while_capturing(dev, "va_release", true);
	if (st)
		return st;
	i = resv_find(dev, addr);
	if (i < 0 || dev->resv[i].base != addr || dev->resv[i].size != size)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim va_release: 0x%llx, %llu bytes is not a reservation "
				    "va_reserve made", ULL(addr), ULL(size));
	r = &dev->resv[i];
	if (r->mapped)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim va_release: the reservation at 0x%llx still has %llu bytes "
				    "mapped in %zu mapping(s); pmem_unmap them first",
				    ULL(addr), ULL(r->mapped), r->maps.n);
	sim_host_cost(dev, dev->prof.va_release_ns);
	if (r->host)
		munmap(r->host, (size_t)r->size);
	free(r->maps.v);
	sim_space_give(dev, r->base, r->size);
	dev->stats.va_bytes_reserved -= size;
	memmove(dev->resv + i, dev->resv + i + 1, (dev->nresv - (size_t)i - 1) * sizeof(*dev->resv));
	dev->nresv--;
	return HC_OK;
}

/* The reservation that holds all of [addr, addr + size), granule-aligned,
 * or an HC_ERR_INVALID naming what is wrong.  @fn names the op. */
static hc_status map_range(hc_hal_dev *dev, const char *fn, hc_hal_dptr addr, uint64_t size,
			   struct sim_resv **out)
{
	uint64_t g = dev->prof.vmm_granularity;
	long i;

	if (size == 0 || !granular(dev, addr) || !granular(dev, size))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim %s: 0x%llx, %llu bytes: address and size must be nonzero "
				    "multiples of the granularity (%llu)", fn, ULL(addr), ULL(size), ULL(g));
	i = resv_find(dev, addr);
	if (i < 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim %s: 0x%llx is not inside a reservation", fn, ULL(addr));
	if (size > dev->resv[i].size - (addr - dev->resv[i].base))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim %s: 0x%llx + %llu bytes runs past its reservation "
				    "(0x%llx, %llu bytes)", fn, ULL(addr), ULL(size),
				    ULL(dev->resv[i].base), ULL(dev->resv[i].size));
	*out = &dev->resv[i];
	return HC_OK;
}

hc_status sim_pmem_map(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	struct sim_resv *r;
	size_t at;
	hc_status st;

	if (dev->prof.vmm_granularity == 0)
		return no_vmm("pmem_map");
	st = map_range(dev, "pmem_map", addr, size, &r);
	if (st)
		return st;
	/* the mapping before the new one must end at or below it, the one
	 * after it must start at or above its end */
	at = sim_vec_upper(&r->maps, addr);
	if ((at > 0 && r->maps.v[at - 1].base + r->maps.v[at - 1].size > addr) ||
	    (at < r->maps.n && r->maps.v[at].base - addr < size)) {
		const struct sim_range *m = at > 0 && r->maps.v[at - 1].base +
							      r->maps.v[at - 1].size > addr
						    ? &r->maps.v[at - 1]
						    : &r->maps.v[at];

		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim pmem_map: 0x%llx + %llu bytes overlaps the mapping at "
				    "0x%llx (%llu bytes)", ULL(addr), ULL(size), ULL(m->base),
				    ULL(m->size));
	}
	st = sim_not_while_capturing(dev, "pmem_map", true);
	if (st)
		return st;
	sim_host_cost(dev, sim_alloc_cost(dev->prof.pmem_map_ns, dev->prof.pmem_map_ns_per_mib,
					  size));
	st = sim_capacity_take(dev, size, "pmem_map");
	if (st)
		return st;
	if (!sim_vec_insert(&r->maps, at, (struct sim_range){ addr, size, NULL })) {
		sim_capacity_give(dev, size);
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim pmem_map: no host memory for bookkeeping");
	}
	r->mapped += size;
	dev->stats.pmem_maps++;
	return HC_OK;
}

/* Gives the host pages behind [off, off + len) of @r back (data mode). */
static void drop_pages(struct sim_resv *r, uint64_t off, uint64_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!r->host)
		return;
	if (page > 0 && off % (uint64_t)page == 0 && len % (uint64_t)page == 0 &&
	    madvise(r->host + off, (size_t)len, MADV_DONTNEED) == 0)
		return;
	memset(r->host + off, 0, (size_t)len);
}

hc_status sim_pmem_unmap(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	struct sim_resv *r;
	size_t first, last;
	uint64_t end, cost = 0;
	hc_status st;

	if (dev->prof.vmm_granularity == 0)
		return no_vmm("pmem_unmap");
	st = map_range(dev, "pmem_unmap", addr, size, &r);
	if (st)
		return st;
	/* whole mappings, adjacent, from addr to addr + size exactly */
	first = sim_vec_upper(&r->maps, addr);
	if (first == 0 || r->maps.v[first - 1].base != addr)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim pmem_unmap: no mapping starts at 0x%llx (an unmap covers "
				    "whole pmem_map ranges)", ULL(addr));
	first--;
	end = addr;
	for (last = first; last < r->maps.n && r->maps.v[last].base == end &&
			   r->maps.v[last].size <= addr + size - end;
	     last++)
		end += r->maps.v[last].size;
	if (end != addr + size)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim pmem_unmap: 0x%llx + %llu bytes is not a run of whole "
				    "mappings (they cover up to 0x%llx without a gap or a split)",
				    ULL(addr), ULL(size), ULL(end));
	st = sim_not_while_capturing(dev, "pmem_unmap", true);
	if (st)
		return st;
	for (size_t k = first; k < last; k++) {
		uint64_t c = sim_alloc_cost(dev->prof.pmem_unmap_ns, dev->prof.pmem_unmap_ns_per_mib,
					    r->maps.v[k].size);

		cost = cost > UINT64_MAX - c ? UINT64_MAX : cost + c;
	}
	sim_host_cost(dev, cost);
	drop_pages(r, addr - r->base, size);
	memmove(r->maps.v + first, r->maps.v + last, (r->maps.n - last) * sizeof(*r->maps.v));
	r->maps.n -= last - first;
	r->mapped -= size;
	sim_capacity_give(dev, size);
	dev->stats.pmem_unmaps += last - first;
	return HC_OK;
}

bool sim_vmm_range(hc_hal_dev *dev, hc_hal_dptr ptr, uint64_t size, const char *what,
		   unsigned char **bytes, hc_status *st)
{
	long i = resv_find(dev, ptr);
	const struct sim_resv *r;
	uint64_t end;
	size_t k;

	if (i < 0)
		return false;
	r = &dev->resv[i];
	if (size > r->size - (ptr - r->base)) {
		*st = hc_hal_error(HC_ERR_INVALID, 0, NULL,
				   "sim: %s 0x%llx + %llu bytes runs past its reservation "
				   "(0x%llx, %llu bytes)", what, ULL(ptr), ULL(size), ULL(r->base),
				   ULL(r->size));
		return true;
	}
	/* the mappings from the one holding ptr on must cover the range
	 * without a gap (an empty range needs its first byte mapped) */
	k = sim_vec_upper(&r->maps, ptr);
	end = ptr;
	if (k > 0 && ptr - r->maps.v[k - 1].base < r->maps.v[k - 1].size) {
		end = r->maps.v[k - 1].base + r->maps.v[k - 1].size;
		while (end - ptr < size && k < r->maps.n && r->maps.v[k].base == end)
			end += r->maps.v[k++].size;
	}
	if (end == ptr || end - ptr < size) {
		*st = hc_hal_error(HC_ERR_INVALID, 0, NULL,
				   "sim: %s 0x%llx + %llu bytes reaches an unmapped granule at 0x%llx "
				   "of its reservation (0x%llx)", what, ULL(ptr), ULL(size), ULL(end),
				   ULL(r->base));
		return true;
	}
	if (bytes)
		*bytes = r->host ? r->host + (ptr - r->base) : NULL;
	*st = HC_OK;
	return true;
}

/* At device close: every reservation goes, mapped or not. */
void sim_vmm_release(hc_hal_dev *dev)
{
	for (size_t i = 0; i < dev->nresv; i++) {
		if (dev->resv[i].host)
			munmap(dev->resv[i].host, (size_t)dev->resv[i].size);
		free(dev->resv[i].maps.v);
	}
	free(dev->resv);
	dev->resv = NULL;
	dev->nresv = dev->capresv = 0;
}
