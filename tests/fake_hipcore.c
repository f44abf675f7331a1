/*
 * fake_hipcore.c - a stand-in for libhipcore's public API, for testing
 * hipsim's replay engine before the core links.  It checks handles and
 * bounds the way the contract says and keeps simple, exact books: bytes in
 * use (reserved = in use), allocations, launches, copies; the clock advances
 * by launch durations.  Allocation fails with HC_ERR_OOM above the device
 * capacity (options.capacity, default 1 GiB).  Not thread-safe; one device.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tools/hipsim/idmap.h"

hc_policy fake_policy;
int fake_policy_set;
int fake_layout_installs;

static struct hs_idmap bufs; /* buffer id -> size */
static struct hs_idmap graphs;
static uint64_t next_id = 1, capacity, in_use, now_ns, open_streams;
static uint64_t capturing; /* stream id capturing, 0: none */
static hc_device_stats stats;
static hc_error_info last;

static hc_status err(hc_status st, const char *fmt, ...)
{
	va_list ap;

	last.status = st;
	va_start(ap, fmt);
	vsnprintf(last.message, sizeof(last.message), fmt, ap);
	va_end(ap);
	return st;
}

const char *hc_status_str(hc_status status)
{
	switch (status) {
#define S_(name, value, text) case name: return text;
		HC_STATUS_LIST(S_)
#undef S_
	}
	return "unknown status";
}

hc_status hc_last_error(hc_error_info *out)
{
	*out = last;
	return HC_OK;
}

hc_status hc_device_options_init(hc_device_options *o)
{
	memset(o, 0, sizeof(*o));
	o->struct_size = sizeof(*o);
	return HC_OK;
}

hc_status hc_device_open(const char *backend, const hc_device_options *o, hc_device *out)
{
	if (backend && strcmp(backend, "sim") != 0)
		return err(HC_ERR_NO_RUNTIME, "hc_device_open: fake has only sim");
	hs_idmap_init(&bufs);
	hs_idmap_init(&graphs);
	capacity = o && o->capacity ? o->capacity : 1ull << 30;
	in_use = now_ns = open_streams = capturing = 0;
	memset(&stats, 0, sizeof(stats));
	out->id = 1;
	return HC_OK;
}

hc_status hc_device_close(hc_device dev)
{
	hs_idmap_free(&bufs);
	hs_idmap_free(&graphs);
	return HC_OK;
}

hc_status hc_device_set_policy(hc_device dev, const hc_policy *p)
{
	fake_policy = *p;
	fake_policy_set = 1;
	return HC_OK;
}

hc_status hc_device_info_get(hc_device dev, hc_device_info *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->backend, sizeof(out->backend), "sim");
	snprintf(out->name, sizeof(out->name), "fake");
	return HC_OK;
}

hc_status hc_device_now(hc_device dev, uint64_t *ns)
{
	*ns = now_ns;
	return HC_OK;
}

hc_status hc_device_stats_get(hc_device dev, hc_device_stats *out)
{
	*out = stats;
	return HC_OK;
}

hc_status hc_device_memory_usage(hc_device dev, hc_memory_kind kind, hc_memory_usage *u)
{
	memset(u, 0, sizeof(*u));
	u->number_allocs = bufs.count;
	u->bytes_in_use = u->bytes_reserved = in_use;
	return HC_OK;
}

hc_status hc_stream_open(hc_device dev, hc_stream *out)
{
	open_streams++;
	out->id = next_id++;
	return HC_OK;
}

hc_status hc_stream_close(hc_stream s)
{
	open_streams--;
	return HC_OK;
}

hc_status hc_install_memory_pools(hc_stream s, const hc_pool_layout *l)
{
	fake_layout_installs++;
	return HC_OK;
}

hc_status hc_sync(hc_stream s)
{
	stats.host_waits++;
	return HC_OK;
}

hc_status hc_alloc(hc_stream s, uint64_t size, hc_buffer *out)
{
	if (size == 0)
		return err(HC_ERR_INVALID, "hc_alloc: size 0");
	if (in_use + size > capacity)
		return err(HC_ERR_OOM, "hc_alloc: %llu bytes above capacity", (unsigned long long)size);
	out->id = next_id++;
	hs_idmap_put(&bufs, out->id, size);
	in_use += size;
	stats.device_allocs++;
	return HC_OK;
}

hc_status hc_free(hc_buffer b)
{
	uint64_t size;

	if (!hs_idmap_take(&bufs, b.id, &size))
		return err(HC_ERR_STALE, "hc_free: unknown buffer");
	in_use -= size;
	stats.device_frees++;
	return HC_OK;
}

static hc_status check_range(const char *fn, hc_buffer b, uint64_t off, uint64_t size)
{
	uint64_t bsize;

	if (!hs_idmap_get(&bufs, b.id, &bsize))
		return err(HC_ERR_STALE, "%s: unknown buffer", fn);
	if (off > bsize || size > bsize - off)
		return err(HC_ERR_INVALID, "%s: range beyond the buffer", fn);
	return HC_OK;
}

hc_status hc_write(hc_stream s, hc_buffer b, uint64_t off, const void *src, uint64_t size,
		   hc_alloc_property p, hc_release_fn release, void *arg)
{
	hc_status rc = check_range("hc_write", b, off, size);

	if (rc == HC_OK) {
		stats.copies_h2d++;
		stats.bytes_h2d += size;
	}
	return rc;
}

hc_status hc_read(hc_stream s, hc_buffer b, uint64_t off, void *dst, uint64_t size, hc_failure_id *f)
{
	hc_status rc = check_range("hc_read", b, off, size);

	if (rc == HC_OK) {
		stats.copies_d2h++;
		stats.bytes_d2h += size;
	}
	return rc;
}

hc_status hc_kernel_load(hc_device dev, const void *image, size_t n, const char *name, hc_kernel *out)
{
	out->id = next_id++;
	return HC_OK;
}

hc_status hc_launch(hc_stream s, const hc_launch_desc *l)
{
	for (size_t i = 0; i < l->n_bindings; i++) {
		hc_status rc = check_range("hc_launch", l->bindings[i].buffer, l->bindings[i].offset,
					   l->bindings[i].size);
		if (rc != HC_OK)
			return rc;
	}
	stats.launches++;
	now_ns += l->duration_hint_ns;
	return HC_OK;
}

hc_status hc_graph_prepare(hc_stream s)
{
	return HC_OK;
}

hc_status hc_graph_begin(hc_stream s)
{
	if (capturing)
		return err(HC_ERR_STATE, "hc_graph_begin: already capturing");
	capturing = s.id;
	return HC_OK;
}

hc_status hc_graph_end(hc_stream s, hc_graph *out)
{
	if (capturing != s.id)
		return err(HC_ERR_STATE, "hc_graph_end: not capturing");
	capturing = 0;
	out->id = next_id++;
	hs_idmap_put(&graphs, out->id, 1);
	return HC_OK;
}

hc_status hc_graph_replay(hc_stream s, hc_graph g)
{
	uint64_t v;

	return hs_idmap_get(&graphs, g.id, &v) ? HC_OK : err(HC_ERR_STALE, "hc_graph_replay: unknown graph");
}

hc_status hc_graph_destroy(hc_graph g)
{
	return hs_idmap_take(&graphs, g.id, NULL) ? HC_OK : err(HC_ERR_STALE, "hc_graph_destroy: unknown graph");
}
