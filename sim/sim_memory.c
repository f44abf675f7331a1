/*
 * sim_memory.c - device capacity, the device address space, data mode and
 * pinned host memory.
 *
 * Capacity: an allocation is rounded up to the profile's alignment and
 * fails with HC_ERR_OOM when the rounded bytes in use would exceed the
 * device's capacity (open_args.capacity, else the profile's total_memory).
 *
 * Address space: addresses start at SIM_DEV_BASE (never 0; apart by
 * SIM_DEV_SPACING for each further ordinal, which bounds each device's
 * space) and are handed out first-fit from a coalesced set of holes below
 * a bump pointer; a hole that reaches the bump pointer lowers it, so freed
 * ranges are reused and long replays never run out of 64-bit addresses.
 * Each request is aligned (the profile's alignment for an allocation, the
 * granule for a reservation, sim_vmm.c): a hole's or the top's unaligned
 * head stays a hole.  Live allocations and holes are ordered range sets
 * (sim_ranges.c), O(log n) a call in any order: the sorted arrays they
 * replace made a close with 128k live allocations take seconds (issue 28).
 * A reservation's mappings stay a sorted array (struct sim_vec, sim_vmm.c):
 * a reservation holds few.
 *
 * Data mode: each allocation is backed by calloc'd host memory, so copies
 * and built-in kernels move real bytes; debug builds (HC_DEBUG >= 1) poison
 * the backing before freeing it.  Without data mode no host memory backs
 * the device, so a 141 GB device costs nothing to simulate.
 *
 * Pinned memory (host_alloc) is real host memory, 64-byte aligned and
 * zeroed, since callers write into it; blocks of 1 MiB and more are fresh
 * anonymous mappings (zero already, and a staging pool that uses a few
 * KiB of its page faults in only those), smaller ones are aligned_alloc'd
 * and cleared.
 *
 * Costs: base + per_mib for each MiB beyond the first (sim_alloc_cost);
 * below 1 MiB the profile's small figures when it has them (the runtimes
 * carve small allocations from chunks they hold, a few microseconds);
 * mem_free also waits for every stream of the device, as hipFree does.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "config.h"
#include "sim/sim_internal.h"

/* Below this, the profile's dev_alloc_small and dev_free_small apply. */
#define SMALL_ALLOC (1ULL << 20)

#define SIM_POISON 0xdb

uint64_t sim_alloc_cost(uint64_t base, uint64_t per_mib, uint64_t size)
{
	const uint64_t mib = 1024 * 1024;
	unsigned __int128 extra = 0;

	if (size > mib)
		extra = (unsigned __int128)per_mib * (size - mib) / mib;
	extra += base;
	return extra > UINT64_MAX ? UINT64_MAX : (uint64_t)extra;
}

/* A device allocation's (or free's) host cost: @small below SMALL_ALLOC
 * when the profile has it, else the base + per-MiB line. */
static uint64_t device_cost(uint64_t small, uint64_t base, uint64_t per_mib, uint64_t size)
{
	return size < SMALL_ALLOC && small ? small : sim_alloc_cost(base, per_mib, size);
}

bool sim_vec_insert(struct sim_vec *v, size_t at, struct sim_range r)
{
	if (v->n == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 16;
		struct sim_range *nv = realloc(v->v, ncap * sizeof(*nv));
		if (!nv)
			return false;
		v->v = nv;
		v->cap = ncap;
	}
	memmove(v->v + at + 1, v->v + at, (v->n - at) * sizeof(*v->v));
	v->v[at] = r;
	v->n++;
	return true;
}

void sim_vec_remove(struct sim_vec *v, size_t at)
{
	memmove(v->v + at, v->v + at + 1, (v->n - at - 1) * sizeof(*v->v));
	v->n--;
}

size_t sim_vec_upper(const struct sim_vec *v, uint64_t addr)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->v[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The live allocation containing @addr, or NULL. */
static struct sim_rnode *live_find(hc_hal_dev *dev, uint64_t addr)
{
	struct sim_rnode *n = sim_rset_floor(&dev->live, addr);

	if (!n || addr - n->r.base >= n->r.size)
		return NULL;
	return n;
}

hc_status sim_dev_range(hc_hal_dev *dev, hc_hal_dptr ptr, uint64_t size, const char *what,
			unsigned char **bytes)
{
	struct sim_rnode *n = live_find(dev, ptr);
	const struct sim_range *r;
	hc_status st;

	if (!n && sim_vmm_range(dev, ptr, size, what, bytes, &st))
		return st;
	if (!n)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim: %s 0x%llx is not inside a device allocation", what,
				    (unsigned long long)ptr);
	r = &n->r;
	if (size > r->size - (ptr - r->base))
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim: %s 0x%llx + %llu bytes runs past its allocation "
				    "(0x%llx, %llu bytes)",
				    what, (unsigned long long)ptr, (unsigned long long)size,
				    (unsigned long long)r->base, (unsigned long long)r->size);
	if (bytes)
		*bytes = r->data ? r->data + (ptr - r->base) : NULL;
	return HC_OK;
}

/* The first multiple of @align at or above @a, or 0 when there is none. */
static uint64_t align_up(uint64_t a, uint64_t align)
{
	return a > UINT64_MAX - (align - 1) ? 0 : (a + align - 1) & ~(align - 1);
}

/* Takes @size bytes of address space aligned to @align: first fit in a
 * hole, else the top.  A hole's unaligned head stays a hole; so does the
 * gap between the top and an aligned start above it. */
bool sim_space_take(hc_hal_dev *dev, uint64_t size, uint64_t align, uint64_t *out)
{
	struct sim_rnode *h = sim_rset_first_fit(&dev->holes, size, align);
	uint64_t at;

	if (h) {
		uint64_t head;

		sim_rset_fit_at(&h->r, size, align, &at);
		head = at - h->r.base;
		if (head == 0 && h->r.size == size) {
			sim_rset_remove(&dev->holes, h);
		} else if (head == 0) {
			/* the hole's base moves up inside its own range */
			h->r.base += size;
			h->r.size -= size;
			sim_rset_update(&dev->holes, h);
		} else if (h->r.size - head == size) {
			h->r.size = head;
			sim_rset_update(&dev->holes, h);
		} else {
			struct sim_range tail = { at + size, h->r.size - head - size, NULL };

			if (!sim_rset_insert(&dev->holes, tail))
				return false;
			h->r.size = head;
			sim_rset_update(&dev->holes, h);
		}
		*out = at;
		return true;
	}
	at = align_up(dev->top, align);
	if (at == 0 || at > dev->space_end || dev->space_end - at < size)
		return false;
	if (at != dev->top &&
	    !sim_rset_insert(&dev->holes, (struct sim_range){ dev->top, at - dev->top, NULL }))
		return false;
	*out = at;
	dev->top = at + size;
	return true;
}

/* Gives a range back: coalesce with neighbours, lower the top if it ends
 * there.  Returns false only when the hole set cannot grow (then the range
 * is leaked from the address space, never handed out twice). */
bool sim_space_give(hc_hal_dev *dev, uint64_t base, uint64_t size)
{
	struct sim_rset *v = &dev->holes;
	struct sim_rnode *h = sim_rset_floor(v, base), *next;

	if (h && h->r.base + h->r.size == base) {
		h->r.size += size;
		sim_rset_update(v, h);
	} else {
		h = sim_rset_insert(v, (struct sim_range){ base, size, NULL });
		if (!h)
			return false;
	}
	next = sim_rset_after(v, h->r.base);
	if (next && h->r.base + h->r.size == next->r.base) {
		uint64_t more = next->r.size;

		sim_rset_remove(v, next);
		h->r.size += more;
		sim_rset_update(v, h);
	}
	if (h->r.base + h->r.size == dev->top) {
		dev->top = h->r.base;
		sim_rset_remove(v, h);
	}
	return true;
}

/*
 * sim_capacity_check - may the device give @rounded more bytes (@size asked)?
 * The injected faults first (HC_FAULT_DEVICE_ALLOC counts mem_alloc and
 * pmem_map calls alike, HC_FAULT_CAPACITY their bytes), then the capacity.
 * Changes nothing but the fault counters.  @what names the op in messages.
 */
static hc_status sim_capacity_check(hc_hal_dev *dev, uint64_t size, uint64_t rounded,
				    const char *what)
{
	if (sim_fault_step(dev, HC_FAULT_DEVICE_ALLOC,
			   dev->stats.device_allocs + dev->stats.pmem_maps + 1))
		return hc_hal_error(HC_ERR_OOM, 0, "injected",
				    "sim %s: injected device allocation fault (%llu bytes)", what,
				    (unsigned long long)size);
	if (sim_fault_capacity(dev, rounded))
		return hc_hal_error(HC_ERR_OOM, 0, "injected",
				    "sim %s: injected capacity fault: %llu bytes requested, "
				    "%llu in use, ceiling %llu",
				    what, (unsigned long long)rounded, (unsigned long long)dev->in_use,
				    (unsigned long long)dev->faults[HC_FAULT_CAPACITY].countdown);
	if (rounded > dev->capacity - dev->in_use)
		return hc_hal_error(HC_ERR_OOM, 0, NULL,
				    "sim %s: %llu bytes requested (%llu rounded), %llu in use, "
				    "capacity %llu",
				    what, (unsigned long long)size, (unsigned long long)rounded,
				    (unsigned long long)dev->in_use, (unsigned long long)dev->capacity);
	return HC_OK;
}

hc_status sim_capacity_take(hc_hal_dev *dev, uint64_t size, const char *what)
{
	hc_status st = sim_capacity_check(dev, size, size, what);

	if (st)
		return st;
	dev->in_use += size;
	dev->stats.device_bytes_live = dev->in_use;
	if (dev->in_use > dev->stats.device_bytes_peak)
		dev->stats.device_bytes_peak = dev->in_use;
	return HC_OK;
}

void sim_capacity_give(hc_hal_dev *dev, uint64_t size)
{
	dev->in_use -= size;
	dev->stats.device_bytes_live = dev->in_use;
}

hc_status sim_mem_alloc(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out)
{
	uint64_t align = dev->prof.alignment, rounded, base;
	struct sim_range r = { 0, 0, NULL };
	hc_status st;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim mem_alloc: out is NULL");
	if (size == 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim mem_alloc: size is 0");
	st = sim_not_while_capturing(dev, "mem_alloc", true);
	if (st)
		return st;
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_MEM_ALLOC,
					 device_cost(dev->prof.dev_alloc_small_ns, dev->prof.dev_alloc_ns,
						     dev->prof.dev_alloc_ns_per_mib, size)));
	if (size > UINT64_MAX - (align - 1))
		return hc_hal_error(HC_ERR_OOM, 0, NULL,
				    "sim mem_alloc: %llu bytes requested, more than any device has",
				    (unsigned long long)size);
	rounded = (size + align - 1) & ~(align - 1);
	st = sim_capacity_check(dev, size, rounded, "mem_alloc");
	if (st)
		return st;
	if (dev->data_mode) {
		r.data = calloc(1, rounded);
		if (!r.data)
			return hc_hal_error(HC_ERR_OOM, 0, NULL,
					    "sim mem_alloc: no host memory to back %llu bytes in data mode",
					    (unsigned long long)rounded);
	}
	if (!sim_space_take(dev, rounded, align, &base)) {
		st = hc_hal_error(HC_ERR_OOM, 0, NULL, "sim mem_alloc: address space exhausted");
		goto err_free_data;
	}
	r.base = base;
	r.size = rounded;
	if (!sim_rset_insert(&dev->live, r)) {
		st = hc_hal_error(HC_ERR_OOM, 0, NULL, "sim mem_alloc: no host memory for bookkeeping");
		goto err_give_back;
	}
	dev->in_use += rounded;
	dev->stats.device_allocs++;
	dev->stats.device_bytes_live = dev->in_use;
	if (dev->in_use > dev->stats.device_bytes_peak)
		dev->stats.device_bytes_peak = dev->in_use;
	*out = base;
	return HC_OK;

err_give_back:
	sim_space_give(dev, base, rounded);
err_free_data:
	free(r.data);
	return st;
}

/* Host waits for every stream of the device (hipFree synchronises). */
static void sim_device_drain(hc_hal_dev *dev)
{
	hc_hal_stream *s;

	LIST_FOREACH(s, &dev->streams, link)
		if (s->ready_ns > dev->host_ns)
			dev->host_ns = s->ready_ns;
}

hc_status sim_mem_free(hc_hal_dev *dev, hc_hal_dptr ptr)
{
	struct sim_rnode *n;
	struct sim_range r;
	hc_status st;

	st = sim_not_while_capturing(dev, "mem_free", true);
	if (st)
		return st;
	n = live_find(dev, ptr);
	if (!n || n->r.base != ptr)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim mem_free: 0x%llx was not returned by mem_alloc",
				    (unsigned long long)ptr);
	r = n->r;
	sim_device_drain(dev);
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_MEM_FREE,
					 device_cost(dev->prof.dev_free_small_ns, dev->prof.dev_free_ns,
						     dev->prof.dev_free_ns_per_mib, r.size)));
	sim_rset_remove(&dev->live, n);
	sim_space_give(dev, r.base, r.size);
	if (r.data) {
#if HC_DEBUG >= 1
		memset(r.data, SIM_POISON, r.size);
#endif
		free(r.data);
	}
	sim_capacity_give(dev, r.size);
	dev->stats.device_frees++;
	return HC_OK;
}

/* Pinned blocks of at least this many bytes are mapped, not malloc'd. */
#define SIM_HOST_MAP_MIN (1ull << 20)

static void host_block_free(const struct sim_host_block *b)
{
	uint64_t rounded = (b->size + 63) & ~(uint64_t)63;

	if (rounded >= SIM_HOST_MAP_MIN)
		munmap(b->ptr, (size_t)rounded);
	else
		free(b->ptr);
}

hc_status sim_host_alloc(hc_hal_dev *dev, uint64_t size, void **out)
{
	uint64_t rounded;
	void *p;
	hc_status st;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim host_alloc: out is NULL");
	if (size == 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim host_alloc: size is 0");
	st = sim_not_while_capturing(dev, "host_alloc", true);
	if (st)
		return st;
	sim_host_cost(dev, sim_alloc_cost(dev->prof.host_alloc_ns, dev->prof.host_alloc_ns_per_mib,
					  size));
	if (sim_fault_step(dev, HC_FAULT_PINNED_ALLOC, dev->stats.host_allocs + 1))
		return hc_hal_error(HC_ERR_OOM, 0, "injected",
				    "sim host_alloc: injected pinned allocation fault (%llu bytes)",
				    (unsigned long long)size);
	if (size > SIZE_MAX - 63)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim host_alloc: %llu bytes is too large",
				    (unsigned long long)size);
	rounded = (size + 63) & ~(uint64_t)63;
	if (dev->nhosts == dev->caphosts) {
		size_t ncap = dev->caphosts ? dev->caphosts * 2 : 16;
		struct sim_host_block *nh = realloc(dev->hosts, ncap * sizeof(*nh));
		if (!nh)
			return hc_hal_error(HC_ERR_OOM, 0, NULL,
					    "sim host_alloc: no host memory for bookkeeping");
		dev->hosts = nh;
		dev->caphosts = ncap;
	}
	if (rounded >= SIM_HOST_MAP_MIN) {
		/* Fresh anonymous pages: zero and page-aligned already, and only
		 * the pages written are ever touched. */
		p = mmap(NULL, (size_t)rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	} else {
		p = aligned_alloc(64, (size_t)rounded);
		if (p)
			memset(p, 0, (size_t)rounded);
	}
	if (!p)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim host_alloc: %llu bytes refused",
				    (unsigned long long)size);
	dev->hosts[dev->nhosts++] = (struct sim_host_block){ p, size };
	dev->stats.host_allocs++;
	*out = p;
	return HC_OK;
}

hc_status sim_host_free(hc_hal_dev *dev, void *ptr)
{
	hc_status st;

	if (!ptr)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim host_free: ptr is NULL");
	st = sim_not_while_capturing(dev, "host_free", true);
	if (st)
		return st;
	for (size_t i = 0; i < dev->nhosts; i++) {
		if (dev->hosts[i].ptr != ptr)
			continue;
		sim_device_drain(dev);
		sim_host_cost(dev, sim_alloc_cost(dev->prof.host_free_ns,
						  dev->prof.host_free_ns_per_mib, dev->hosts[i].size));
		host_block_free(&dev->hosts[i]);
		dev->hosts[i] = dev->hosts[--dev->nhosts];
		dev->stats.host_frees++;
		return HC_OK;
	}
	return hc_hal_error(HC_ERR_INVALID, 0, NULL,
			    "sim host_free: %p was not returned by host_alloc", ptr);
}

bool sim_host_is_pinned(hc_hal_dev *dev, const void *ptr)
{
	uintptr_t a = (uintptr_t)ptr;

	for (size_t i = 0; i < dev->nhosts; i++) {
		uintptr_t b = (uintptr_t)dev->hosts[i].ptr;
		if (a >= b && a - b < dev->hosts[i].size)
			return true;
	}
	return false;
}

static void range_free_data(struct sim_range *r)
{
	free(r->data);
}

void sim_memory_release(hc_hal_dev *dev)
{
	sim_rset_clear(&dev->live, range_free_data);
	sim_rset_clear(&dev->holes, NULL);
	for (size_t i = 0; i < dev->nhosts; i++)
		host_block_free(&dev->hosts[i]);
	free(dev->hosts);
	dev->hosts = NULL;
	dev->nhosts = dev->caphosts = 0;
}
