/*
 * sim_device.c - the simulator's ops table: device open/close/props/ctl and
 * the locking wrappers around every op.
 *
 * Every exported op checks its device argument, takes dev->lock, calls the
 * sim_* function of the concept's file and releases the lock, so several
 * threads may call; results are deterministic for one calling thread.
 *
 * Time: dev->host_ns is the calling host's virtual clock.  Each op first
 * charges its host API cost (sim_host_cost), then schedules device work at
 * or after the new host time.  Only host waits (syncs, pageable copies,
 * mem_free, stream_destroy) move host_ns to a device completion time.
 * ctl(HC_HAL_CTL_SET_HOST_NS) lets a replay move the clock forward to a
 * recorded time; a time in the past leaves the clock as it is.
 *
 * Jitter: with jitter_ppm > 0 each device duration d becomes
 * d + d * r / 1e6 with r drawn uniformly from [0, jitter_ppm] by a
 * splitmix64 generator seeded with open_args.seed: the same seed gives the
 * same times.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_jitter(struct hc_hal_dev *dev, uint64_t ns)
{
	unsigned __int128 extra;

	if (dev->prof.jitter_ppm == 0)
		return ns;
	/* the loader keeps jitter_ppm at most 10^6 (sim_profile.c): + 1 cannot wrap */
	extra = (unsigned __int128)ns *
		(splitmix64(&dev->rng) % ((unsigned __int128)dev->prof.jitter_ppm + 1)) / 1000000u;
	extra += ns;
	return extra > UINT64_MAX ? UINT64_MAX : (uint64_t)extra;
}

void sim_host_cost(struct hc_hal_dev *dev, uint64_t ns)
{
	dev->host_ns = dev->host_ns > UINT64_MAX - ns ? UINT64_MAX : dev->host_ns + ns;
}

#define SIM_NULL_DEV(fn) hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim " fn ": device is NULL")

static hc_status sim_device_open(const struct hc_hal_open_args *args, hc_hal_dev **out)
{
	hc_hal_dev *dev;
	hc_status st;

	if (!args || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim device_open: %s is NULL",
				    args ? "out" : "args");
	if (args->ordinal < 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim device_open: ordinal %d is negative",
				    args->ordinal);
	if (args->ordinal >= 64)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim device_open: ordinal %d: the simulator numbers devices 0 to 63",
				    args->ordinal);
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim device_open: no host memory");
	if (args->profile) {
		st = hc_sim_profile_load(args->profile, &dev->prof);
		if (st)
			goto err_free;
	} else {
		hc_sim_profile_builtin(&dev->prof);
	}
	if (pthread_mutex_init(&dev->lock, NULL) != 0) {
		st = hc_hal_error(HC_ERR_OOM, 0, NULL, "sim device_open: cannot create a mutex");
		goto err_free;
	}
	if (args->min_alignment > dev->prof.alignment)
		dev->prof.alignment = args->min_alignment;
	dev->capacity = args->capacity ? args->capacity : dev->prof.total_memory;
	dev->data_mode = args->data_mode;
	dev->rng = args->seed;
	dev->top = SIM_DEV_BASE + (uint64_t)args->ordinal * SIM_DEV_SPACING;
	dev->space_end = dev->top + SIM_DEV_SPACING;
	dev->top = (dev->top + dev->prof.alignment - 1) & ~(dev->prof.alignment - 1);
	LIST_INIT(&dev->streams);
	LIST_INIT(&dev->events);
	LIST_INIT(&dev->graphs);
	LIST_INIT(&dev->modules);
	*out = dev;
	return HC_OK;

err_free:
	free(dev);
	return st;
}

static void sim_device_close(hc_hal_dev *dev)
{
	if (!dev)
		return;
	/* graphs and captures hold module references: release them first */
	sim_graphs_release(dev);
	sim_streams_release(dev);
	sim_modules_release(dev);
	sim_vmm_release(dev);
	sim_memory_release(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

static hc_status sim_device_props(hc_hal_dev *dev, struct hc_hal_props *out)
{
	if (!dev || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim device_props: %s is NULL",
				    dev ? "out" : "device");
	pthread_mutex_lock(&dev->lock);
	memset(out, 0, sizeof(*out));
	memcpy(out->name, dev->prof.name, sizeof(out->name));
	out->total_memory = dev->capacity;
	out->alignment = dev->prof.alignment;
	out->integrated = dev->prof.integrated;
	out->vmm_granularity = dev->prof.vmm_granularity;
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

/**
 * hc_sim_device_profile - the profile a simulated device runs with.
 * @dev: a device from hc_sim_ops()->device_open (not another backend's).
 * @out: receives a copy.
 *
 * Context: any thread; takes the device lock.
 * Return: HC_OK, or HC_ERR_INVALID for a NULL argument.
 */
hc_status hc_sim_device_profile(struct hc_hal_dev *dev, struct hc_sim_profile *out)
{
	if (!dev || !out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "hc_sim_device_profile: %s is NULL",
				    dev ? "out" : "device");
	pthread_mutex_lock(&dev->lock);
	*out = dev->prof;
	pthread_mutex_unlock(&dev->lock);
	return HC_OK;
}

static hc_status sim_ctl_locked(hc_hal_dev *dev, int op, void *arg)
{
	switch (op) {
	case HC_HAL_CTL_NOW_NS:
		*(uint64_t *)arg = dev->host_ns;
		return HC_OK;
	case HC_HAL_CTL_SET_HOST_NS:
		if (*(uint64_t *)arg > dev->host_ns)
			dev->host_ns = *(uint64_t *)arg;
		return HC_OK;
	case HC_HAL_CTL_STATS:
		*(struct hc_hal_stats *)arg = dev->stats;
		return HC_OK;
	case HC_HAL_CTL_FAULT:
		return sim_fault_arm(dev, arg);
	case HC_HAL_CTL_LAST_OP:
		return sim_last_op(dev, arg);
	case HC_HAL_CTL_TAKE_FAILED:
		return sim_take_failed(dev, arg);
	case HC_HAL_CTL_LIB_WORK:
		if (arg && *(const enum hc_lib_work *)arg == HC_LIB_WORK_LAUNCH)
			sim_host_cost(dev, dev->prof.launch_lib_ns);
		else if (arg && *(const enum hc_lib_work *)arg == HC_LIB_WORK_WRITE)
			sim_host_cost(dev, dev->prof.write_lib_ns);
		return HC_OK;
	case HC_HAL_CTL_HOST_COPY: {
		struct hc_hal_host_copy *h = arg;
		uint64_t bw = h->parallel ? dev->prof.host_copy_max_bw : dev->prof.host_copy_bw;

		/* The bytes move only in data mode (sim_copy.c's rule too);
		 * the time is the model's either way. */
		dev->host_copied += h->bytes; /* for sim_cold.c */
		if (!dev->data_mode)
			h->unread = true;
		else if (h->copy)
			h->copy(h->ctx);
		if (h->parallel) {
			/* The library's copy workers spin for a while after a
			 * copy, then sleep; waking them costs the split. */
			bool asleep = !dev->split_seen || (dev->host_ns > dev->split_end_ns &&
							   dev->host_ns - dev->split_end_ns >
								   dev->prof.host_copy_spin_ns);

			sim_host_cost(dev, dev->prof.host_copy_split_call_ns +
						   (asleep ? dev->prof.host_copy_split_wake_ns : 0));
		} else {
			sim_host_cost(dev, dev->prof.host_copy_call_ns);
		}

		if (bw) {
			unsigned __int128 t = ((unsigned __int128)h->bytes * 1000000000u + bw - 1) / bw;

			sim_host_cost(dev, t > UINT64_MAX ? UINT64_MAX : (uint64_t)t);
		}
		if (h->parallel) {
			dev->split_end_ns = dev->host_ns;
			dev->split_seen = true;
		}
		return HC_OK;
	}
	default:
		return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL, "sim ctl: unknown op %d", op);
	}
}

static hc_status sim_ctl(hc_hal_dev *dev, int op, void *arg)
{
	hc_status st;

	if (!dev)
		return SIM_NULL_DEV("ctl");
	if (!arg)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim ctl: arg is NULL (op %d)", op);
	pthread_mutex_lock(&dev->lock);
	st = sim_ctl_locked(dev, op, arg);
	pthread_mutex_unlock(&dev->lock);
	return st;
}

/* The locking wrappers: check the device, lock, call, unlock. */
#define SIM_WRAP(name, params, args)                                  \
	static hc_status sim_op_##name params                         \
	{                                                             \
		hc_status st;                                         \
		if (!dev)                                             \
			return SIM_NULL_DEV(#name);                   \
		pthread_mutex_lock(&dev->lock);                       \
		st = sim_##name args;                                 \
		pthread_mutex_unlock(&dev->lock);                     \
		return st;                                            \
	}
#define SIM_WRAP_VOID(name, params, args)                             \
	static void sim_op_##name params                              \
	{                                                             \
		if (!dev)                                             \
			return;                                       \
		pthread_mutex_lock(&dev->lock);                       \
		sim_##name args;                                      \
		pthread_mutex_unlock(&dev->lock);                     \
	}

SIM_WRAP(mem_alloc, (hc_hal_dev * dev, uint64_t size, hc_hal_dptr *out), (dev, size, out))
SIM_WRAP(mem_free, (hc_hal_dev * dev, hc_hal_dptr ptr), (dev, ptr))
SIM_WRAP(host_alloc, (hc_hal_dev * dev, uint64_t size, void **out), (dev, size, out))
SIM_WRAP(host_free, (hc_hal_dev * dev, void *ptr), (dev, ptr))
SIM_WRAP(stream_create, (hc_hal_dev * dev, hc_hal_stream **out), (dev, out))
SIM_WRAP(stream_adopt, (hc_hal_dev * dev, void *native, hc_hal_stream **out), (dev, native, out))
SIM_WRAP(stream_destroy, (hc_hal_dev * dev, hc_hal_stream *s), (dev, s))
SIM_WRAP(stream_sync, (hc_hal_dev * dev, hc_hal_stream *s), (dev, s))
SIM_WRAP(copy_h2d,
	 (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_dptr dst, const void *src, uint64_t size,
	  bool pinned),
	 (dev, s, dst, src, size, pinned))
SIM_WRAP(copy_d2h,
	 (hc_hal_dev * dev, hc_hal_stream *s, void *dst, hc_hal_dptr src, uint64_t size,
	  bool pinned),
	 (dev, s, dst, src, size, pinned))
SIM_WRAP(copy_d2d,
	 (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_dptr dst, hc_hal_dptr src, uint64_t size),
	 (dev, s, dst, src, size))
SIM_WRAP(event_record, (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_event **out), (dev, s, out))
SIM_WRAP(event_wait, (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_event *e), (dev, s, e))
SIM_WRAP(event_sync, (hc_hal_dev * dev, hc_hal_event *e), (dev, e))
SIM_WRAP(event_query, (hc_hal_dev * dev, hc_hal_event *e, bool *done), (dev, e, done))
SIM_WRAP_VOID(event_destroy, (hc_hal_dev * dev, hc_hal_event *e), (dev, e))
SIM_WRAP(capture_begin, (hc_hal_dev * dev, hc_hal_stream *s), (dev, s))
SIM_WRAP(capture_end, (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_graph **out), (dev, s, out))
SIM_WRAP(graph_launch, (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_graph *g), (dev, s, g))
SIM_WRAP_VOID(graph_destroy, (hc_hal_dev * dev, hc_hal_graph *g), (dev, g))
SIM_WRAP(module_load, (hc_hal_dev * dev, const void *image, size_t size, hc_hal_module **out),
	 (dev, image, size, out))
SIM_WRAP_VOID(module_unload, (hc_hal_dev * dev, hc_hal_module *m), (dev, m))
SIM_WRAP(function_get,
	 (hc_hal_dev * dev, hc_hal_module *m, const char *name, hc_hal_function **out),
	 (dev, m, name, out))
SIM_WRAP(launch,
	 (hc_hal_dev * dev, hc_hal_stream *s, hc_hal_function *fn, const struct hc_hal_launch *l),
	 (dev, s, fn, l))
SIM_WRAP(va_reserve, (hc_hal_dev * dev, uint64_t size, hc_hal_dptr *out), (dev, size, out))
SIM_WRAP(va_release, (hc_hal_dev * dev, hc_hal_dptr addr, uint64_t size), (dev, addr, size))
SIM_WRAP(pmem_map, (hc_hal_dev * dev, hc_hal_dptr addr, uint64_t size), (dev, addr, size))
SIM_WRAP(pmem_unmap, (hc_hal_dev * dev, hc_hal_dptr addr, uint64_t size), (dev, addr, size))

static const struct hc_hal_ops sim_ops = {
	.version = HC_HAL_VERSION,
	.name = "sim",
	.device_open = sim_device_open,
	.device_close = sim_device_close,
	.device_props = sim_device_props,
	.mem_alloc = sim_op_mem_alloc,
	.mem_free = sim_op_mem_free,
	.host_alloc = sim_op_host_alloc,
	.host_free = sim_op_host_free,
	.stream_create = sim_op_stream_create,
	.stream_adopt = sim_op_stream_adopt,
	.stream_destroy = sim_op_stream_destroy,
	.stream_sync = sim_op_stream_sync,
	.copy_h2d = sim_op_copy_h2d,
	.copy_d2h = sim_op_copy_d2h,
	.copy_d2d = sim_op_copy_d2d,
	.event_record = sim_op_event_record,
	.event_wait = sim_op_event_wait,
	.event_sync = sim_op_event_sync,
	.event_query = sim_op_event_query,
	.event_destroy = sim_op_event_destroy,
	.capture_begin = sim_op_capture_begin,
	.capture_end = sim_op_capture_end,
	.graph_launch = sim_op_graph_launch,
	.graph_destroy = sim_op_graph_destroy,
	.module_load = sim_op_module_load,
	.module_unload = sim_op_module_unload,
	.function_get = sim_op_function_get,
	.launch = sim_op_launch,
	.ctl = sim_ctl,
	.va_reserve = sim_op_va_reserve,
	.va_release = sim_op_va_release,
	.pmem_map = sim_op_pmem_map,
	.pmem_unmap = sim_op_pmem_unmap,
};

/**
 * hc_sim_ops - the simulator's ops table.
 *
 * Context: any thread; the table is static and never changes.
 * Return: the table; its ops follow hal/hal.h, with the simulator's rules
 * described in each sim/ file.
 */
const struct hc_hal_ops *hc_sim_ops(void)
{
	return &sim_ops;
}
