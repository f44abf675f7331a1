/*
 * fault.c - fault injection over any backend, as SQLite's test_vfs wraps a
 * parent VFS and faultsim wraps the allocator.
 *
 * hc_fault_wrap(real) returns an ops table whose every op forwards to @real.
 * Faults are armed with ctl(dev, HC_HAL_CTL_FAULT, struct hc_hal_fault_arg)
 * and consumed by the op classes they name:
 *   HC_FAULT_DEVICE_ALLOC  mem_alloc,     -> HC_ERR_OOM, before the real call
 *                          pmem_map          (one countdown for both)
 *   HC_FAULT_PINNED_ALLOC  host_alloc     -> HC_ERR_OOM, before the real call
 *   HC_FAULT_LAUNCH        launch         -> HC_ERR_DEVICE, before the real call
 *   HC_FAULT_COPY          copy_*         -> HC_ERR_DEVICE, before the real call
 *   HC_FAULT_FENCE         event_record   the event is recorded for real but
 *                          event_sync/event_query on it report HC_ERR_DEVICE
 *   HC_FAULT_CAPACITY      mem_alloc,     -> HC_ERR_OOM when the wrapper's live
 *                          pmem_map          device bytes (allocated and mapped
 *                                            through it) plus the request exceed n
 * Countdowns (test_vfs's TestFaultInject): n counts calls from the arming, 1
 * being the next.  ONCE fails the n-th call only; PERSISTENT fails it and
 * every later one; OFF disarms.  For CAPACITY, n is the byte ceiling, ONCE
 * disarms after the first refusal.
 *
 * The wrapper's device (struct fault_dev) embeds the real device pointer;
 * streams, graphs, modules and functions pass through untouched, events are
 * wrapped to carry the "fails when waited on" mark.  Every injected failure
 * goes through fault_hit(), a place to set a breakpoint (sqlite3Fault).
 *
 * device_open has no "self" argument, so each of the HC_FAULT_WRAP_SLOTS
 * wrappers has its own device_open trampoline that knows its slot.  The
 * virtual-memory ops a backend leaves NULL stay NULL in its wrapper's table.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "hal/fault.h"

#define FAULT_KINDS 6 /* hc_fault_kind values 0..5 */

struct fault_inj {
	hc_fault_mode mode;
	uint64_t left;  /* calls until the next failure (1: the next one); CAPACITY: ceiling */
	uint64_t nfail; /* failures injected so far */
};

struct fault_event {
	LIST_ENTRY(fault_event) link;
	hc_hal_event *real;
	bool failed; /* recorded by an armed FENCE fault */
};

struct fault_alloc {
	LIST_ENTRY(fault_alloc) link;
	hc_hal_dptr ptr;
	uint64_t size;
};

struct fault_dev {
	hc_hal_dev *real;                   /* the wrapped backend's device */
	const struct hc_hal_ops *real_ops;
	pthread_mutex_t lock;
	/* guarded by lock: */
	struct fault_inj inj[FAULT_KINDS];
	uint64_t live_bytes;                /* device bytes allocated and mapped through us */
	LIST_HEAD(, fault_alloc) allocs;
	LIST_HEAD(, fault_alloc) maps;      /* pmem_map ranges: ptr, size */
	LIST_HEAD(, fault_event) events;
};

#define FD(d) ((struct fault_dev *)(void *)(d))
#define FE(e) ((struct fault_event *)(void *)(e))

struct fault_slot {
	const struct hc_hal_ops *real;
	struct hc_hal_ops ops;
};

static struct fault_slot slots[HC_FAULT_WRAP_SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

/* A breakpoint site: every injected failure passes here. */
static __attribute__((noinline)) hc_status fault_hit(hc_status st, const char *what)
{
	return hc_hal_error(st, 0, "injected", "fault: injected %s failure", what);
}

/* One call of class @kind: 1 when it must fail.  Caller holds fd->lock. */
static int inj_step(struct fault_inj *f)
{
	if (f->mode == HC_FAULT_OFF)
		return 0;
	if (f->left > 1) {
		f->left--;
		return 0;
	}
	if (f->mode == HC_FAULT_ONCE)
		f->mode = HC_FAULT_OFF;
	f->nfail++;
	return 1;
}

static int step(struct fault_dev *fd, hc_fault_kind kind)
{
	int hit;

	pthread_mutex_lock(&fd->lock);
	hit = inj_step(&fd->inj[kind]);
	pthread_mutex_unlock(&fd->lock);
	return hit;
}

/* ----------------------------------------------------------------- device */

static hc_status fault_open(int slot, const struct hc_hal_open_args *args, hc_hal_dev **out)
{
	const struct hc_hal_ops *real = slots[slot].real;
	struct fault_dev *fd;
	hc_status st;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: device_open needs out");
	fd = calloc(1, sizeof(*fd));
	if (!fd)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "fault: no host memory for a device");
	st = real->device_open(args, &fd->real);
	if (st != HC_OK) {
		free(fd);
		return st;
	}
	fd->real_ops = real;
	pthread_mutex_init(&fd->lock, NULL);
	LIST_INIT(&fd->allocs);
	LIST_INIT(&fd->maps);
	LIST_INIT(&fd->events);
	*out = (hc_hal_dev *)(void *)fd;
	return HC_OK;
}

#define FAULT_OPEN_(n)                                                                    \
	static hc_status fault_open_##n(const struct hc_hal_open_args *a, hc_hal_dev **o) \
	{                                                                                 \
		return fault_open(n, a, o);                                               \
	}
FAULT_OPEN_(0)
FAULT_OPEN_(1)
FAULT_OPEN_(2)
FAULT_OPEN_(3)
_Static_assert(HC_FAULT_WRAP_SLOTS == 4, "one trampoline per slot");

static hc_status (*const fault_opens[HC_FAULT_WRAP_SLOTS])(const struct hc_hal_open_args *,
							   hc_hal_dev **) = {
	fault_open_0, fault_open_1, fault_open_2, fault_open_3,
};

static void fault_close(hc_hal_dev *d)
{
	struct fault_dev *fd = FD(d);
	struct fault_alloc *a;
	struct fault_event *e;

	if (!fd)
		return;
	fd->real_ops->device_close(fd->real); /* frees the real events too */
	while ((a = LIST_FIRST(&fd->allocs))) {
		LIST_REMOVE(a, link);
		free(a);
	}
	while ((a = LIST_FIRST(&fd->maps))) {
		LIST_REMOVE(a, link);
		free(a);
	}
	while ((e = LIST_FIRST(&fd->events))) {
		LIST_REMOVE(e, link);
		free(e);
	}
	pthread_mutex_destroy(&fd->lock);
	free(fd);
}

static hc_status fault_props(hc_hal_dev *d, struct hc_hal_props *out)
{
	return FD(d)->real_ops->device_props(FD(d)->real, out);
}

/* ----------------------------------------------------------------- memory */

/* The device-memory faults, before a mem_alloc or pmem_map of @size: the
 * status to fail with (HC_OK: go on). */
static hc_status device_memory_faults(struct fault_dev *fd, uint64_t size)
{
	struct fault_inj *cap = &fd->inj[HC_FAULT_CAPACITY];
	int over = 0;

	if (step(fd, HC_FAULT_DEVICE_ALLOC))
		return fault_hit(HC_ERR_OOM, "device allocation");
	pthread_mutex_lock(&fd->lock);
	if (cap->mode != HC_FAULT_OFF && (size > cap->left || fd->live_bytes > cap->left - size)) {
		over = 1;
		cap->nfail++;
		if (cap->mode == HC_FAULT_ONCE)
			cap->mode = HC_FAULT_OFF;
	}
	pthread_mutex_unlock(&fd->lock);
	return over ? fault_hit(HC_ERR_OOM, "capacity") : HC_OK;
}

static hc_status fault_mem_alloc(hc_hal_dev *d, uint64_t size, hc_hal_dptr *out)
{
	struct fault_dev *fd = FD(d);
	struct fault_alloc *a;
	hc_status st;

	st = device_memory_faults(fd, size);
	if (st != HC_OK)
		return st;
	a = malloc(sizeof(*a));
	if (!a)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "fault: no host memory to track an allocation");
	st = fd->real_ops->mem_alloc(fd->real, size, out);
	if (st != HC_OK) {
		free(a);
		return st;
	}
	a->ptr = *out;
	a->size = size;
	pthread_mutex_lock(&fd->lock);
	LIST_INSERT_HEAD(&fd->allocs, a, link);
	fd->live_bytes += size;
	pthread_mutex_unlock(&fd->lock);
	return HC_OK;
}

static hc_status fault_mem_free(hc_hal_dev *d, hc_hal_dptr ptr)
{
	struct fault_dev *fd = FD(d);
	struct fault_alloc *a;
	hc_status st = fd->real_ops->mem_free(fd->real, ptr);

	if (st != HC_OK)
		return st;
	pthread_mutex_lock(&fd->lock);
	LIST_FOREACH(a, &fd->allocs, link)
		if (a->ptr == ptr)
			break;
	if (a) {
		LIST_REMOVE(a, link);
		fd->live_bytes -= a->size;
	}
	pthread_mutex_unlock(&fd->lock);
	free(a);
	return HC_OK;
}

static hc_status fault_host_alloc(hc_hal_dev *d, uint64_t size, void **out)
{
	if (step(FD(d), HC_FAULT_PINNED_ALLOC))
		return fault_hit(HC_ERR_OOM, "pinned host allocation");
	return FD(d)->real_ops->host_alloc(FD(d)->real, size, out);
}

static hc_status fault_host_free(hc_hal_dev *d, void *ptr)
{
	return FD(d)->real_ops->host_free(FD(d)->real, ptr);
}

/* ---------------------------------------------------------------- streams */

static hc_status fault_stream_create(hc_hal_dev *d, hc_hal_stream **out)
{
	return FD(d)->real_ops->stream_create(FD(d)->real, out);
}

static hc_status fault_stream_adopt(hc_hal_dev *d, void *native, hc_hal_stream **out)
{
	if (!FD(d)->real_ops->stream_adopt)
		return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL, "fault: the backend cannot adopt streams");
	return FD(d)->real_ops->stream_adopt(FD(d)->real, native, out);
}

static hc_status fault_stream_destroy(hc_hal_dev *d, hc_hal_stream *s)
{
	return FD(d)->real_ops->stream_destroy(FD(d)->real, s);
}

static hc_status fault_stream_sync(hc_hal_dev *d, hc_hal_stream *s)
{
	return FD(d)->real_ops->stream_sync(FD(d)->real, s);
}

/* ----------------------------------------------------------------- copies */

static hc_status fault_copy_h2d(hc_hal_dev *d, hc_hal_stream *s, hc_hal_dptr dst,
				const void *src, uint64_t size, bool pinned)
{
	if (step(FD(d), HC_FAULT_COPY))
		return fault_hit(HC_ERR_DEVICE, "host-to-device copy");
	return FD(d)->real_ops->copy_h2d(FD(d)->real, s, dst, src, size, pinned);
}

static hc_status fault_copy_d2h(hc_hal_dev *d, hc_hal_stream *s, void *dst, hc_hal_dptr src,
				uint64_t size, bool pinned)
{
	if (step(FD(d), HC_FAULT_COPY))
		return fault_hit(HC_ERR_DEVICE, "device-to-host copy");
	return FD(d)->real_ops->copy_d2h(FD(d)->real, s, dst, src, size, pinned);
}

static hc_status fault_copy_d2d(hc_hal_dev *d, hc_hal_stream *s, hc_hal_dptr dst,
				hc_hal_dptr src, uint64_t size)
{
	if (step(FD(d), HC_FAULT_COPY))
		return fault_hit(HC_ERR_DEVICE, "device-to-device copy");
	return FD(d)->real_ops->copy_d2d(FD(d)->real, s, dst, src, size);
}

/* ----------------------------------------------------------------- events */

static hc_status fault_event_record(hc_hal_dev *d, hc_hal_stream *s, hc_hal_event **out)
{
	struct fault_dev *fd = FD(d);
	struct fault_event *e;
	hc_status st;

	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: event_record needs out");
	e = calloc(1, sizeof(*e));
	if (!e)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "fault: no host memory for an event");
	st = fd->real_ops->event_record(fd->real, s, &e->real);
	if (st != HC_OK) {
		free(e);
		return st;
	}
	e->failed = step(fd, HC_FAULT_FENCE) != 0;
	pthread_mutex_lock(&fd->lock);
	LIST_INSERT_HEAD(&fd->events, e, link);
	pthread_mutex_unlock(&fd->lock);
	*out = (hc_hal_event *)(void *)e;
	return HC_OK;
}

static hc_status fault_event_wait(hc_hal_dev *d, hc_hal_stream *s, hc_hal_event *e)
{
	if (!e)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: event_wait needs an event");
	return FD(d)->real_ops->event_wait(FD(d)->real, s, FE(e)->real);
}

static hc_status fault_event_sync(hc_hal_dev *d, hc_hal_event *e)
{
	hc_status st;

	if (!e)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: event_sync needs an event");
	st = FD(d)->real_ops->event_sync(FD(d)->real, FE(e)->real);
	if (st == HC_OK && FE(e)->failed)
		return fault_hit(HC_ERR_DEVICE, "fence");
	return st;
}

static hc_status fault_event_query(hc_hal_dev *d, hc_hal_event *e, bool *done)
{
	hc_status st;

	if (!e || !done)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: event_query needs event and done");
	st = FD(d)->real_ops->event_query(FD(d)->real, FE(e)->real, done);
	if (st == HC_OK && *done && FE(e)->failed)
		return fault_hit(HC_ERR_DEVICE, "fence");
	return st;
}

static void fault_event_destroy(hc_hal_dev *d, hc_hal_event *e)
{
	struct fault_dev *fd = FD(d);

	if (!e)
		return;
	fd->real_ops->event_destroy(fd->real, FE(e)->real);
	pthread_mutex_lock(&fd->lock);
	LIST_REMOVE(FE(e), link);
	pthread_mutex_unlock(&fd->lock);
	free(e);
}

/* ----------------------------------------------------------------- graphs */

static hc_status fault_capture_begin(hc_hal_dev *d, hc_hal_stream *s)
{
	return FD(d)->real_ops->capture_begin(FD(d)->real, s);
}

static hc_status fault_capture_end(hc_hal_dev *d, hc_hal_stream *s, hc_hal_graph **out)
{
	return FD(d)->real_ops->capture_end(FD(d)->real, s, out);
}

static hc_status fault_graph_launch(hc_hal_dev *d, hc_hal_stream *s, hc_hal_graph *g)
{
	return FD(d)->real_ops->graph_launch(FD(d)->real, s, g);
}

static void fault_graph_destroy(hc_hal_dev *d, hc_hal_graph *g)
{
	FD(d)->real_ops->graph_destroy(FD(d)->real, g);
}

/* ------------------------------------------------------ modules and kernels */

static hc_status fault_module_load(hc_hal_dev *d, const void *image, size_t size,
				   hc_hal_module **out)
{
	return FD(d)->real_ops->module_load(FD(d)->real, image, size, out);
}

static void fault_module_unload(hc_hal_dev *d, hc_hal_module *m)
{
	FD(d)->real_ops->module_unload(FD(d)->real, m);
}

static hc_status fault_function_get(hc_hal_dev *d, hc_hal_module *m, const char *name,
				    hc_hal_function **out)
{
	return FD(d)->real_ops->function_get(FD(d)->real, m, name, out);
}

static hc_status fault_launch(hc_hal_dev *d, hc_hal_stream *s, hc_hal_function *fn,
			      const struct hc_hal_launch *l)
{
	if (step(FD(d), HC_FAULT_LAUNCH))
		return fault_hit(HC_ERR_DEVICE, "launch");
	return FD(d)->real_ops->launch(FD(d)->real, s, fn, l);
}

/* --------------------------------------------------------- virtual memory */

static hc_status fault_va_reserve(hc_hal_dev *d, uint64_t size, hc_hal_dptr *out)
{
	return FD(d)->real_ops->va_reserve(FD(d)->real, size, out);
}

static hc_status fault_va_release(hc_hal_dev *d, hc_hal_dptr addr, uint64_t size)
{
	return FD(d)->real_ops->va_release(FD(d)->real, addr, size);
}

static hc_status fault_pmem_map(hc_hal_dev *d, hc_hal_dptr addr, uint64_t size)
{
	struct fault_dev *fd = FD(d);
	struct fault_alloc *m;
	hc_status st;

	st = device_memory_faults(fd, size);
	if (st != HC_OK)
		return st;
	m = malloc(sizeof(*m));
	if (!m)
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "fault: no host memory to track a mapping");
	st = fd->real_ops->pmem_map(fd->real, addr, size);
	if (st != HC_OK) {
		free(m);
		return st;
	}
	m->ptr = addr;
	m->size = size;
	pthread_mutex_lock(&fd->lock);
	LIST_INSERT_HEAD(&fd->maps, m, link);
	fd->live_bytes += size;
	pthread_mutex_unlock(&fd->lock);
	return HC_OK;
}

/* An unmap covers whole mappings (hal.h): every one inside the range goes. */
static hc_status fault_pmem_unmap(hc_hal_dev *d, hc_hal_dptr addr, uint64_t size)
{
	struct fault_dev *fd = FD(d);
	struct fault_alloc *m, *next;
	hc_status st = fd->real_ops->pmem_unmap(fd->real, addr, size);

	if (st != HC_OK)
		return st;
	pthread_mutex_lock(&fd->lock);
	for (m = LIST_FIRST(&fd->maps); m; m = next) {
		next = LIST_NEXT(m, link);
		if (m->ptr < addr || m->ptr - addr >= size)
			continue;
		LIST_REMOVE(m, link);
		fd->live_bytes -= m->size;
		free(m);
	}
	pthread_mutex_unlock(&fd->lock);
	return HC_OK;
}

/* -------------------------------------------------------------------- ctl */

static hc_status fault_arm(struct fault_dev *fd, const struct hc_hal_fault_arg *a)
{
	struct fault_inj *f;

	if ((unsigned)a->kind >= FAULT_KINDS)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: unknown fault kind %d",
				    (int)a->kind);
	if (a->mode != HC_FAULT_OFF && a->mode != HC_FAULT_ONCE && a->mode != HC_FAULT_PERSISTENT)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: unknown fault mode %d",
				    (int)a->mode);
	if (a->mode != HC_FAULT_OFF && a->n == 0 && a->kind != HC_FAULT_CAPACITY)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "fault: n counts calls from 1 (the next call); 0 is not a call");
	pthread_mutex_lock(&fd->lock);
	f = &fd->inj[a->kind];
	f->mode = a->mode;
	f->left = a->n;
	pthread_mutex_unlock(&fd->lock);
	return HC_OK;
}

static hc_status fault_ctl(hc_hal_dev *d, int op, void *arg)
{
	if (!d)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: ctl needs a device");
	if (op == HC_HAL_CTL_FAULT) {
		if (!arg)
			return hc_hal_error(HC_ERR_INVALID, 0, NULL, "fault: ctl FAULT needs an argument");
		return fault_arm(FD(d), arg);
	}
	return FD(d)->real_ops->ctl(FD(d)->real, op, arg);
}

static const struct hc_hal_ops fault_template = {
	.version = HC_HAL_VERSION,
	.name = NULL, /* the real backend's name */
	.device_close = fault_close,
	.device_props = fault_props,
	.mem_alloc = fault_mem_alloc,
	.mem_free = fault_mem_free,
	.host_alloc = fault_host_alloc,
	.host_free = fault_host_free,
	.stream_create = fault_stream_create,
	.stream_adopt = fault_stream_adopt,
	.stream_destroy = fault_stream_destroy,
	.stream_sync = fault_stream_sync,
	.copy_h2d = fault_copy_h2d,
	.copy_d2h = fault_copy_d2h,
	.copy_d2d = fault_copy_d2d,
	.event_record = fault_event_record,
	.event_wait = fault_event_wait,
	.event_sync = fault_event_sync,
	.event_query = fault_event_query,
	.event_destroy = fault_event_destroy,
	.capture_begin = fault_capture_begin,
	.capture_end = fault_capture_end,
	.graph_launch = fault_graph_launch,
	.graph_destroy = fault_graph_destroy,
	.module_load = fault_module_load,
	.module_unload = fault_module_unload,
	.function_get = fault_function_get,
	.launch = fault_launch,
	.ctl = fault_ctl,
	.va_reserve = fault_va_reserve,
	.va_release = fault_va_release,
	.pmem_map = fault_pmem_map,
	.pmem_unmap = fault_pmem_unmap,
};

const struct hc_hal_ops *hc_fault_wrap(const struct hc_hal_ops *real)
{
	const struct hc_hal_ops *ret = NULL;

	if (!real)
		return NULL;
	pthread_mutex_lock(&slots_lock);
	for (int i = 0; i < HC_FAULT_WRAP_SLOTS; i++) {
		if (&slots[i].ops == real || slots[i].real == real) {
			ret = slots[i].real == real ? &slots[i].ops : real;
			goto out_unlock;
		}
	}
	for (int i = 0; i < HC_FAULT_WRAP_SLOTS; i++) {
		if (slots[i].real)
			continue;
		slots[i].ops = fault_template;
		slots[i].ops.name = real->name;
		slots[i].ops.device_open = fault_opens[i];
		if (!real->va_reserve)
			slots[i].ops.va_reserve = NULL;
		if (!real->va_release)
			slots[i].ops.va_release = NULL;
		if (!real->pmem_map)
			slots[i].ops.pmem_map = NULL;
		if (!real->pmem_unmap)
			slots[i].ops.pmem_unmap = NULL;
		slots[i].real = real;
		ret = &slots[i].ops;
		break;
	}
out_unlock:
	pthread_mutex_unlock(&slots_lock);
	return ret;
}
