/*
 * optime.c - the timing shim: every op forwarded, its host time counted.
 *
 * Unlike the fault shim (hal/fault.c), this one is made per device, after
 * the backend opened it: its struct holds its own ops table, so no
 * device_open trampolines are needed, and a device without it pays
 * nothing.  Each op reads the backend's clock before and after the real
 * call; on the simulator that is the virtual host clock, so a predicted
 * and a measured run give tables in the same units.  ctl is forwarded
 * untimed (it is the clock itself), except HC_HAL_CTL_OP_TIMES, answered
 * here, and HC_HAL_CTL_HOST_COPY, timed as the op host_copy (the backend
 * runs the library's memcpy inside it).  An op the backend leaves NULL (the
 * virtual-memory ops of a backend without them) stays NULL in the shim's
 * table, so a caller sees the backend's table as it is.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "hal/hal.h"

struct optime_dev {
	struct hc_hal_ops ops; /* first: the shim's table, handed to core */
	const struct hc_hal_ops *real_ops;
	hc_hal_dev *real;
	_Atomic uint64_t calls[HC_OPTIME_COUNT];
	_Atomic uint64_t host_ns[HC_OPTIME_COUNT];
};

#define OD(d) ((struct optime_dev *)(void *)(d))

static const char *const names[HC_OPTIME_COUNT] = {
#define HC_OPTIME_NAME(name) [HC_OPTIME_##name] = #name,
	HC_OPTIME_OPS(HC_OPTIME_NAME)
#undef HC_OPTIME_NAME
};

const char *hc_optime_name(unsigned op)
{
	return op < HC_OPTIME_COUNT ? names[op] : NULL;
}

static uint64_t now(struct optime_dev *o)
{
	uint64_t t = 0;

	o->real_ops->ctl(o->real, HC_HAL_CTL_NOW_NS, &t);
	return t;
}

static void count(struct optime_dev *o, enum hc_optime_op op, uint64_t t0)
{
	uint64_t t1 = now(o);

	atomic_fetch_add_explicit(&o->calls[op], 1, memory_order_relaxed);
	/* The simulator's host clock is shared by every thread: another
	 * thread's blocking call may move it back relative to ours. */
	atomic_fetch_add_explicit(&o->host_ns[op], t1 > t0 ? t1 - t0 : 0, memory_order_relaxed);
}

/* The body of a timed op returning a status: @call is the real op's call. */
#define TIMED(op, call)                                                     \
	do {                                                                \
		struct optime_dev *o = OD(dev);                             \
		uint64_t t0 = now(o);                                       \
		hc_status rc = o->real_ops->call;                           \
		count(o, HC_OPTIME_##op, t0);                               \
		return rc;                                                  \
	} while (0)

#define TIMED_VOID(op, call)                                                \
	do {                                                                \
		struct optime_dev *o = OD(dev);                             \
		uint64_t t0 = now(o);                                       \
		o->real_ops->call;                                          \
		count(o, HC_OPTIME_##op, t0);                               \
	} while (0)

static hc_status t_device_props(hc_hal_dev *dev, struct hc_hal_props *out)
{
	TIMED(device_props, device_props(o->real, out));
}

static hc_status t_mem_alloc(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out)
{
	TIMED(mem_alloc, mem_alloc(o->real, size, out));
}

static hc_status t_mem_free(hc_hal_dev *dev, hc_hal_dptr ptr)
{
	TIMED(mem_free, mem_free(o->real, ptr));
}

static hc_status t_host_alloc(hc_hal_dev *dev, uint64_t size, void **out)
{
	TIMED(host_alloc, host_alloc(o->real, size, out));
}

static hc_status t_host_free(hc_hal_dev *dev, void *ptr)
{
	TIMED(host_free, host_free(o->real, ptr));
}

static hc_status t_stream_create(hc_hal_dev *dev, hc_hal_stream **out)
{
	TIMED(stream_create, stream_create(o->real, out));
}

static hc_status t_stream_adopt(hc_hal_dev *dev, void *native, hc_hal_stream **out)
{
	TIMED(stream_adopt, stream_adopt(o->real, native, out));
}

static hc_status t_stream_destroy(hc_hal_dev *dev, hc_hal_stream *s)
{
	TIMED(stream_destroy, stream_destroy(o->real, s));
}

static hc_status t_stream_sync(hc_hal_dev *dev, hc_hal_stream *s)
{
	TIMED(stream_sync, stream_sync(o->real, s));
}

static hc_status t_copy_h2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst, const void *src,
			    uint64_t size, bool src_pinned)
{
	TIMED(copy_h2d, copy_h2d(o->real, s, dst, src, size, src_pinned));
}

static hc_status t_copy_d2h(hc_hal_dev *dev, hc_hal_stream *s, void *dst, hc_hal_dptr src,
			    uint64_t size, bool dst_pinned)
{
	TIMED(copy_d2h, copy_d2h(o->real, s, dst, src, size, dst_pinned));
}

static hc_status t_copy_d2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst, hc_hal_dptr src,
			    uint64_t size)
{
	TIMED(copy_d2d, copy_d2d(o->real, s, dst, src, size));
}

static hc_status t_event_record(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event **out)
{
	TIMED(event_record, event_record(o->real, s, out));
}

static hc_status t_event_wait(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_event *e)
{
	TIMED(event_wait, event_wait(o->real, s, e));
}

static hc_status t_event_sync(hc_hal_dev *dev, hc_hal_event *e)
{
	TIMED(event_sync, event_sync(o->real, e));
}

static hc_status t_event_query(hc_hal_dev *dev, hc_hal_event *e, bool *done)
{
	TIMED(event_query, event_query(o->real, e, done));
}

static void t_event_destroy(hc_hal_dev *dev, hc_hal_event *e)
{
	TIMED_VOID(event_destroy, event_destroy(o->real, e));
}

static hc_status t_capture_begin(hc_hal_dev *dev, hc_hal_stream *s)
{
	TIMED(capture_begin, capture_begin(o->real, s));
}

static hc_status t_capture_end(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph **out)
{
	TIMED(capture_end, capture_end(o->real, s, out));
}

static hc_status t_graph_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph *g)
{
	TIMED(graph_launch, graph_launch(o->real, s, g));
}

static void t_graph_destroy(hc_hal_dev *dev, hc_hal_graph *g)
{
	TIMED_VOID(graph_destroy, graph_destroy(o->real, g));
}

static hc_status t_module_load(hc_hal_dev *dev, const void *image, size_t size, hc_hal_module **out)
{
	TIMED(module_load, module_load(o->real, image, size, out));
}

static void t_module_unload(hc_hal_dev *dev, hc_hal_module *m)
{
	TIMED_VOID(module_unload, module_unload(o->real, m));
}

static hc_status t_function_get(hc_hal_dev *dev, hc_hal_module *m, const char *name,
				hc_hal_function **out)
{
	TIMED(function_get, function_get(o->real, m, name, out));
}

static hc_status t_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_function *fn,
			  const struct hc_hal_launch *l)
{
	TIMED(launch, launch(o->real, s, fn, l));
}

static hc_status t_va_reserve(hc_hal_dev *dev, uint64_t size, hc_hal_dptr *out)
{
	TIMED(va_reserve, va_reserve(o->real, size, out));
}

static hc_status t_va_release(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	TIMED(va_release, va_release(o->real, addr, size));
}

static hc_status t_pmem_map(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	TIMED(pmem_map, pmem_map(o->real, addr, size));
}

static hc_status t_pmem_unmap(hc_hal_dev *dev, hc_hal_dptr addr, uint64_t size)
{
	TIMED(pmem_unmap, pmem_unmap(o->real, addr, size));
}

static hc_status t_ctl(hc_hal_dev *dev, int op, void *arg)
{
	struct optime_dev *o = OD(dev);

	if (op == HC_HAL_CTL_OP_TIMES) {
		struct hc_hal_op_times *t = arg;

		if (!t)
			return hc_hal_error(HC_ERR_INVALID, 0, NULL, "ctl OP_TIMES: arg is NULL");
		for (unsigned i = 0; i < HC_OPTIME_COUNT; i++) {
			t->calls[i] = atomic_load_explicit(&o->calls[i], memory_order_relaxed);
			t->host_ns[i] = atomic_load_explicit(&o->host_ns[i], memory_order_relaxed);
		}
		return HC_OK;
	}
	if (op == HC_HAL_CTL_HOST_COPY) { /* the backend runs the library's memcpy */
		const struct hc_hal_host_copy *h = arg;
		uint64_t t0 = now(o);
		hc_status st = o->real_ops->ctl(o->real, op, arg);

		/* The two paths have their own keys in the profile, so
		 * they are counted apart: a table then says which is off. */
		count(o, h && h->parallel ? HC_OPTIME_host_copy_split : HC_OPTIME_host_copy, t0);
		return st;
	}
	return o->real_ops->ctl(o->real, op, arg);
}

static hc_status t_device_open(const struct hc_hal_open_args *args, hc_hal_dev **out)
{
	(void)args, (void)out;
	return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL,
			    "the timing shim opens no device: hc_optime_wrap an open one");
}

static void t_device_close(hc_hal_dev *dev)
{
	struct optime_dev *o = OD(dev);

	o->real_ops->device_close(o->real);
	free(o);
}

hc_status hc_optime_wrap(const struct hc_hal_ops *real_ops, hc_hal_dev *real_dev,
			 const struct hc_hal_ops **ops, hc_hal_dev **dev)
{
	struct optime_dev *o = calloc(1, sizeof(*o));

	if (!o)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "op times: out of host memory");
	o->real_ops = real_ops;
	o->real = real_dev;
	o->ops = (struct hc_hal_ops){
		.version = HC_HAL_VERSION,
		.name = real_ops->name, /* core asks "is this the simulator?" by name */
		.device_open = t_device_open,
		.device_close = t_device_close,
		.device_props = t_device_props,
		.mem_alloc = t_mem_alloc,
		.mem_free = t_mem_free,
		.host_alloc = t_host_alloc,
		.host_free = t_host_free,
		.stream_create = t_stream_create,
		.stream_adopt = t_stream_adopt,
		.stream_destroy = t_stream_destroy,
		.stream_sync = t_stream_sync,
		.copy_h2d = t_copy_h2d,
		.copy_d2h = t_copy_d2h,
		.copy_d2d = t_copy_d2d,
		.event_record = t_event_record,
		.event_wait = t_event_wait,
		.event_sync = t_event_sync,
		.event_query = t_event_query,
		.event_destroy = t_event_destroy,
		.capture_begin = t_capture_begin,
		.capture_end = t_capture_end,
		.graph_launch = t_graph_launch,
		.graph_destroy = t_graph_destroy,
		.module_load = t_module_load,
		.module_unload = t_module_unload,
		.function_get = t_function_get,
		.launch = t_launch,
		.ctl = t_ctl,
		/* a backend without virtual memory keeps its ops NULL here too */
		.va_reserve = real_ops->va_reserve ? t_va_reserve : NULL,
		.va_release = real_ops->va_release ? t_va_release : NULL,
		.pmem_map = real_ops->pmem_map ? t_pmem_map : NULL,
		.pmem_unmap = real_ops->pmem_unmap ? t_pmem_unmap : NULL,
	};
	*ops = &o->ops;
	*dev = (hc_hal_dev *)(void *)o;
	return HC_OK;
}
