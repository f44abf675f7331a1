/*
 * device.c - opening and closing devices; resolving handles to objects.
 *
 * Open devices live in a fixed table of HC_MAX_DEVICES slots.  A slot holds
 * an atomic pointer and a generation: closing a device clears the pointer
 * and bumps the generation, so a handle kept after close resolves to
 * HC_ERR_STALE.  Open and close take the table lock; resolving a handle is
 * two atomic loads.  Closing a device while another thread still calls into
 * it is a caller error, as with any C object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/streamops.h"
#include "trace/hipcore_trace.h"
#include "util/env.h"

struct hc_dev_slot hc_dev_table[HC_MAX_DEVICES];
#define dev_table hc_dev_table
static pthread_mutex_t dev_table_lock = PTHREAD_MUTEX_INITIALIZER;

hc_status hc_device_options_init(hc_device_options *opts)
{
	if (!opts)
		return hc_fail(HC_ERR_INVALID, "hc_device_options_init: opts is NULL");
	memset(opts, 0, sizeof(*opts));
	opts->struct_size = sizeof(*opts);
	return HC_OK;
}

hc_status hc_dev_get_slow(hc_device d, struct hc_dev **out)
{
	struct hc_handle_parts p = hc_handle_unpack(d.id);
	struct hc_dev *dev;

	if (d.id == 0 || p.kind != HC_KIND_DEVICE || p.dev >= HC_MAX_DEVICES)
		return hc_fail(HC_ERR_STALE, "device handle %#llx is not a device",
			       (unsigned long long)d.id);
	dev = atomic_load_explicit(&dev_table[p.dev].dev, memory_order_acquire);
	if (!dev || atomic_load_explicit(&dev_table[p.dev].gen, memory_order_acquire) != p.gen)
		return hc_fail(HC_ERR_STALE, "device handle %#llx is closed",
			       (unsigned long long)d.id);
	*out = dev;
	return HC_OK;
}

hc_status hc_strm_lock_slow(hc_stream s, struct hc_strm **out)
{
	struct hc_handle_parts p = hc_handle_unpack(s.id);
	hc_device d = { hc_handle_pack(HC_KIND_DEVICE, p.dev, 0, 0, 0) };
	struct hc_dev *dev;
	struct hc_strm *st;
	hc_status rc;

	if (s.id == 0 || p.kind != HC_KIND_STREAM)
		return hc_fail(HC_ERR_STALE, "stream handle %#llx is not a stream",
			       (unsigned long long)s.id);
	dev = atomic_load_explicit(&dev_table[p.dev].dev, memory_order_acquire);
	if (!dev)
		return hc_fail(HC_ERR_STALE, "stream %#llx: its device is closed",
			       (unsigned long long)s.id);
	/* hc_dev_get's check, inline: the slot's generation is the handle's. */
	if (atomic_load_explicit(&dev_table[p.dev].gen, memory_order_acquire) !=
	    hc_handle_unpack(dev->handle.id).gen) {
		d.id = dev->handle.id;
		rc = hc_dev_get(d, &dev);
		if (rc != HC_OK)
			return rc;
	}
	/* Stream slots are published once and never freed before the device. */
	st = p.stream < HC_MAX_STREAMS ? __atomic_load_n(&dev->streams[p.stream], __ATOMIC_ACQUIRE)
				       : NULL;
	if (!st)
		return hc_fail(HC_ERR_STALE, "stream handle %#llx is unknown",
			       (unsigned long long)s.id);
	hc_lock_acquire(&st->lock);
	if (!st->open || st->handle.id != s.id) {
		hc_lock_release(&st->lock);
		return hc_fail(HC_ERR_STALE, "stream handle %#llx is closed",
			       (unsigned long long)s.id);
	}
	hc_strm_inbox_drain(st);
	*out = st;
	return HC_OK;
}

struct hc_dev *hc_dev_by_slot(unsigned devslot)
{
	if (devslot >= HC_MAX_DEVICES)
		return NULL;
	return atomic_load_explicit(&dev_table[devslot].dev, memory_order_acquire);
}

hc_status hc_strm_slot_lock_slow(unsigned devslot, unsigned slot, struct hc_strm **out)
{
	struct hc_dev *dev;
	struct hc_strm *st;

	if (devslot >= HC_MAX_DEVICES || slot >= HC_MAX_STREAMS)
		return HC_ERR_STALE;
	dev = atomic_load_explicit(&dev_table[devslot].dev, memory_order_acquire);
	if (!dev)
		return HC_ERR_STALE;
	st = __atomic_load_n(&dev->streams[slot], __ATOMIC_ACQUIRE);
	if (!st)
		return HC_ERR_STALE;
	hc_lock_acquire(&st->lock);
	if (!st->open) {
		hc_lock_release(&st->lock);
		return HC_ERR_STALE;
	}
	hc_strm_inbox_drain(st);
	*out = st;
	return HC_OK;
}

static hc_status open_backend(const char *name, const struct hc_hal_open_args *args,
			      const struct hc_hal_ops **ops, hc_hal_dev **hal)
{
	const struct hc_hal_ops *o;

	if (strcmp(name, "auto") == 0) {
		/* A GPU when there is one; the simulator otherwise. */
		o = hc_hal_find("hip");
		if (o && o->device_open(args, hal) == HC_OK) {
			*ops = o;
			return HC_OK;
		}
		name = "sim";
	}
	o = hc_hal_find(name);
	if (!o)
		return hc_fail(HC_ERR_INVALID,
			       "hc_device_open: unknown backend '%s' (expected sim, hip or auto)", name);
	*ops = o;
	return o->device_open(args, hal);
}

static bool want_op_times(const hc_device_options *opts)
{
	return (opts && opts->op_times) || hc_env_flag(HC_ENV_OP_TIMES);
}

static hc_status publish(struct hc_dev *dev)
{
	uint32_t i;

	pthread_mutex_lock(&dev_table_lock);
	for (i = 0; i < HC_MAX_DEVICES; i++)
		if (!atomic_load(&dev_table[i].dev))
			break;
	if (i == HC_MAX_DEVICES) {
		pthread_mutex_unlock(&dev_table_lock);
		return hc_fail(HC_ERR_INVALID, "hc_device_open: %u devices are already open",
			       HC_MAX_DEVICES);
	}
	dev->slot = i;
	dev->gen = hc_gen_next(atomic_load(&dev_table[i].gen));
	dev->handle.id = hc_handle_pack(HC_KIND_DEVICE, i, 0, dev->gen, 0);
	atomic_store(&dev_table[i].gen, dev->gen);
	atomic_store_explicit(&dev_table[i].dev, dev, memory_order_release);
	pthread_mutex_unlock(&dev_table_lock);
	return HC_OK;
}

hc_status hc_device_open(const char *backend, const hc_device_options *opts, hc_device *out)
{
	uint64_t t0 = HC_TRACE_T0(device_open);
	struct hc_hal_open_args args = { 0 };
	uint64_t min_alignment = 0;
	struct hc_dev *dev;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_device_open: out is NULL");
	out->id = 0;
	/* Fields are only ever appended: a caller built against an older header
	 * passes a smaller struct_size, and the fields it lacks keep defaults. */
	if (opts && (opts->struct_size < offsetof(hc_device_options, min_alignment) ||
		     opts->struct_size > sizeof(*opts)))
		return hc_fail(HC_ERR_INVALID,
			       "hc_device_open: options not initialised by hc_device_options_init");
	if (opts && opts->struct_size >= offsetof(hc_device_options, min_alignment) +
						  sizeof(opts->min_alignment)) {
		min_alignment = opts->min_alignment;
		if (min_alignment & (min_alignment - 1))
			return hc_fail(HC_ERR_INVALID,
				       "hc_device_open: min_alignment %llu is not a power of two",
				       (unsigned long long)min_alignment);
	}
	if (opts) {
		if (opts->ordinal < 0)
			return hc_fail(HC_ERR_INVALID, "hc_device_open: ordinal %d is negative",
				       opts->ordinal);
		args.ordinal = opts->ordinal;
		args.profile = opts->profile;
		args.seed = opts->seed;
		args.capacity = opts->capacity;
		args.data_mode = opts->data_mode;
		args.time_kernels = opts->time_kernels;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return hc_fail(HC_ERR_OOM, "hc_device_open: out of host memory");
	if (pthread_mutex_init(&dev->lock, NULL) != 0) {
		free(dev);
		return hc_fail(HC_ERR_OOM, "hc_device_open: cannot create a mutex");
	}
	args.min_alignment = min_alignment;
	rc = open_backend(backend ? backend : "sim", &args, &dev->ops, &dev->hal);
	if (rc != HC_OK)
		goto err_free_dev;
	if (want_op_times(opts)) {
		rc = hc_optime_wrap(dev->ops, dev->hal, &dev->ops, &dev->hal);
		if (rc != HC_OK)
			goto err_close_hal;
		dev->op_times = true;
	}
	rc = dev->ops->device_props(dev->hal, &dev->props);
	if (rc != HC_OK)
		goto err_close_hal;
	if (dev->props.alignment < min_alignment)
		dev->props.alignment = min_alignment;
	rc = hc_eg_create(&dev->errors);
	if (rc != HC_OK)
		goto err_close_hal;
	pthread_mutex_init(&dev->eg_lock, NULL);
	hc_idle_init(&dev->idle);
	pthread_mutex_init(&dev->dshared.lend_lock, NULL);
	dev->layout.preset = HC_LAYOUT_DEFAULT;
	rc = publish(dev);
	if (rc != HC_OK)
		goto err_free_errors;
	*out = dev->handle;
	HC_TRACE(device_open, dev->handle.id,
		 (uint8_t)(strcmp(dev->ops->name, "sim") == 0 ? HC_TRACE_BACKEND_SIM : HC_TRACE_BACKEND_HIP),
		 (int32_t)HC_OK, hc_trace_since_ns(t0), dev->props.total_memory, dev->props.alignment);
	return HC_OK;

err_free_errors:
	pthread_mutex_destroy(&dev->eg_lock);
	pthread_mutex_destroy(&dev->idle.lock);
	hc_eg_destroy(dev->errors);
err_close_hal:
	dev->ops->device_close(dev->hal);
err_free_dev:
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return rc;
}

hc_status hc_device_close(hc_device d)
{
	uint64_t t0 = HC_TRACE_T0(device_close);
	struct hc_handle_parts p = hc_handle_unpack(d.id);
	struct hc_dev *dev;
	hc_status rc;
	uint32_t i;

	pthread_mutex_lock(&dev_table_lock);
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK) {
		pthread_mutex_unlock(&dev_table_lock);
		return rc;
	}
	atomic_store_explicit(&dev_table[p.dev].dev, NULL, memory_order_release);
	atomic_store(&dev_table[p.dev].gen, hc_gen_next(dev->gen));
	pthread_mutex_unlock(&dev_table_lock);

	/* Graphs first: they hold slices of the streams' pools. */
	hc_graphs_destroy_all(dev);
	/* Tear every stream down before freeing any: a stream's drop queue may
	 * post unpins to another stream's inbox while it drains. */
	for (i = 0; i < dev->nstreams; i++)
		if (dev->streams[i]->open)
			hc_strm_teardown(dev->streams[i]);
	hc_pipeline_workers_stop(dev);
	hc_idle_fini(&dev->idle, &(struct hc_idle_hal){ dev->ops, dev->hal });
	for (i = 0; i < dev->nstreams; i++) {
		struct hc_strm *st = dev->streams[i];
		hc_lock_destroy(&st->lock);
		pthread_mutex_destroy(&st->inbox.lock);
		free(st);
	}
	hc_kernels_unload_all(dev);
	hc_eg_destroy(dev->errors);
	pthread_mutex_destroy(&dev->eg_lock);
	pthread_mutex_destroy(&dev->dshared.lend_lock);
	free(dev->layout_pools);
	dev->ops->device_close(dev->hal);
	pthread_mutex_destroy(&dev->lock);
	HC_TRACE(device_close, d.id, (int32_t)HC_OK, hc_trace_since_ns(t0));
	free(dev);
	return HC_OK;
}

hc_status hc_device_info_get(hc_device d, hc_device_info *out)
{
	struct hc_dev *dev;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_device_info_get: out is NULL");
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	memset(out, 0, sizeof(*out));
	snprintf(out->backend, sizeof(out->backend), "%s", dev->ops->name);
	snprintf(out->name, sizeof(out->name), "%s", dev->props.name);
	out->total_memory = dev->props.total_memory;
	out->alignment = dev->props.alignment;
	out->integrated = dev->props.integrated;
	out->max_page_size = dev->props.total_memory / 4;
	return HC_OK;
}

hc_status hc_device_now(hc_device d, uint64_t *ns)
{
	struct hc_dev *dev;
	hc_status rc;

	if (!ns)
		return hc_fail(HC_ERR_INVALID, "hc_device_now: ns is NULL");
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	return dev->ops->ctl(dev->hal, HC_HAL_CTL_NOW_NS, ns);
}

hc_status hc_device_op_times(hc_device d, hc_op_time *out, size_t cap, size_t *n)
{
	struct hc_hal_op_times t;
	struct hc_dev *dev;
	hc_status rc;

	if (!n)
		return hc_fail(HC_ERR_INVALID, "hc_device_op_times: n is NULL");
	*n = 0;
	if (!out && cap > 0)
		return hc_fail(HC_ERR_INVALID, "hc_device_op_times: out is NULL with cap %zu", cap);
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	if (!dev->op_times)
		return hc_fail(HC_ERR_STATE, "hc_device_op_times: the device was opened without "
					     "op_times (hc_device_options.op_times or HIPCORE_OP_TIMES=1)");
	rc = dev->ops->ctl(dev->hal, HC_HAL_CTL_OP_TIMES, &t);
	if (rc != HC_OK)
		return rc;
	for (unsigned i = 0; i < HC_OPTIME_COUNT && i < cap; i++)
		out[i] = (hc_op_time){ hc_optime_name(i), t.calls[i], t.host_ns[i] };
	*n = HC_OPTIME_COUNT;
	return HC_OK;
}

static hc_status fault_inject(hc_device d, hc_fault_kind kind, uint64_t n, hc_fault_mode mode)
{
	struct hc_hal_fault_arg arg = { kind, n, mode };
	struct hc_dev *dev;
	hc_status rc;

	if ((unsigned)kind > HC_FAULT_PINNED_ALLOC)
		return hc_fail(HC_ERR_INVALID, "hc_fault_inject: unknown fault kind %d", (int)kind);
	if ((unsigned)mode > HC_FAULT_PERSISTENT)
		return hc_fail(HC_ERR_INVALID, "hc_fault_inject: unknown fault mode %d", (int)mode);
	if (mode != HC_FAULT_OFF && n == 0)
		return hc_fail(HC_ERR_INVALID, "hc_fault_inject: n must be at least 1");
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	rc = dev->ops->ctl(dev->hal, HC_HAL_CTL_FAULT, &arg);
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

hc_status hc_fault_inject(hc_device d, hc_fault_kind kind, uint64_t n, hc_fault_mode mode)
{
	uint64_t t0 = HC_TRACE_T0(call);
	hc_status rc = fault_inject(d, kind, n, mode);

	HC_TRACE_CALL(fault_inject, 0, d.id, (uint64_t)(uint32_t)mode << 32 | (uint32_t)kind, n, rc, t0);
	return rc;
}

/* Every field after struct_size is a uint64_t, so "the whole fields that fit"
 * is struct_size rounded down to them; a version that appends another kind
 * of field must change that. */
_Static_assert(offsetof(hc_device_stats, device_allocs) == 8 && sizeof(hc_device_stats) % 8 == 0,
	       "hc_device_stats: a uint32_t struct_size, then uint64_t fields only");

/* The bytes of a caller's hc_device_stats this library fills: the whole
 * fields within @struct_size, at most this version's. */
static size_t stats_fill_bytes(uint32_t struct_size)
{
	const size_t first = offsetof(hc_device_stats, device_allocs);
	size_t n = struct_size < sizeof(hc_device_stats) ? struct_size : sizeof(hc_device_stats);

	return first + (n - first) / sizeof(uint64_t) * sizeof(uint64_t);
}

hc_status hc_device_stats_get(hc_device d, hc_device_stats *out)
{
	const size_t first = offsetof(hc_device_stats, device_allocs);
	struct hc_hal_stats hs;
	hc_device_stats st;
	struct hc_dev *dev;
	size_t fill;
	hc_status rc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_device_stats_get: out is NULL");
	if (out->struct_size < HC_DEVICE_STATS_SIZE_V1)
		return hc_fail(HC_ERR_INVALID,
			       "hc_device_stats_get: struct_size %u is below the first version's %zu "
			       "(set it to sizeof(hc_device_stats))",
			       out->struct_size, (size_t)HC_DEVICE_STATS_SIZE_V1);
	rc = hc_dev_get(d, &dev);
	if (rc != HC_OK)
		return rc;
	memset(&st, 0, sizeof(st));
	memset(&hs, 0, sizeof(hs));
	pthread_mutex_lock(&dev->lock);
	rc = dev->ops->ctl(dev->hal, HC_HAL_CTL_STATS, &hs);
	pthread_mutex_unlock(&dev->lock);
	if (rc != HC_OK && rc != HC_ERR_UNSUPPORTED)
		return rc;
	st.device_allocs = hs.device_allocs;
	st.device_frees = hs.device_frees;
	st.pinned_allocs = hs.host_allocs;
	st.pinned_frees = hs.host_frees;
	st.device_bytes_peak = hs.device_bytes_peak;
	st.copies_h2d = hs.copies_h2d;
	st.copies_d2h = hs.copies_d2h;
	st.copies_d2d = hs.copies_d2d;
	st.bytes_h2d = hs.bytes_h2d;
	st.bytes_d2h = hs.bytes_d2h;
	st.launches = hs.launches;
	st.host_waits = hs.host_waits;
	st.host_blocked_ns = hs.host_blocked_ns;
	st.stream_waits = hs.stream_waits;
	st.device_maps = hs.pmem_maps;
	st.device_unmaps = hs.pmem_unmaps;
	st.writes_staged = atomic_load(&dev->stats.writes_staged);
	st.writes_direct = atomic_load(&dev->stats.writes_direct);
	st.writes_pipelined = atomic_load(&dev->stats.writes_pipelined);
	st.dq_flushes = atomic_load(&dev->stats.dq_flushes);
	st.xstream_waits = atomic_load(&dev->stats.xstream_waits);
	st.cache_hits = atomic_load(&dev->stats.cache_hits);
	st.cache_misses = atomic_load(&dev->stats.cache_misses);
	st.failures = atomic_load(&dev->stats.failures);
	st.alloc_retries = atomic_load(&dev->stats.alloc_retries);
	fill = stats_fill_bytes(out->struct_size);
	memcpy((char *)out + first, (const char *)&st + first, fill - first);
	out->struct_size = (uint32_t)fill;
	return HC_OK;
}
