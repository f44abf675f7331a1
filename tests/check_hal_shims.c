/*
 * check_hal_shims.c - the HAL's wrapping shims over a tiny in-test backend:
 * the fault-injecting shim (hal/fault.c: arming, counting, each fault kind,
 * the capacity ceiling) and the op-times shim (hc_optime_wrap).  The sweep
 * of injected faults through the public API is tests/check_fault_sweep.c.
 *
 * The backend below ("toy") keeps device memory in malloc, counts how often
 * each op reached it, and never fails by itself: every failure seen here is
 * the shim's.  That a call was refused before reaching the backend is
 * checked through the counts.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "hal/fault.h"
#include "tests/runner.h"

struct toy_dev {
	int open;
	unsigned allocs, frees, host_allocs, copies, launches, records, syncs;
	unsigned reserves, releases, maps, unmaps;
	long live;
};

static struct toy_dev toy; /* one device at a time */
static int toy_token;

static hc_status toy_open(const struct hc_hal_open_args *a, hc_hal_dev **out)
{
	if (a && a->ordinal != 0)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "toy: one device");
	memset(&toy, 0, sizeof(toy));
	toy.open = 1;
	*out = (hc_hal_dev *)(void *)&toy;
	return HC_OK;
}

static void toy_close(hc_hal_dev *d) { toy.open = 0; }

static hc_status toy_props(hc_hal_dev *d, struct hc_hal_props *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, "toy");
	p->total_memory = 1000;
	p->alignment = 32;
	return HC_OK;
}

static hc_status toy_mem_alloc(hc_hal_dev *d, uint64_t size, hc_hal_dptr *out)
{
	void *p = malloc(size);

	toy.allocs++;
	toy.live++;
	*out = (hc_hal_dptr)(uintptr_t)p;
	return HC_OK;
}

static hc_status toy_mem_free(hc_hal_dev *d, hc_hal_dptr ptr)
{
	toy.frees++;
	toy.live--;
	free((void *)(uintptr_t)ptr);
	return HC_OK;
}

static hc_status toy_host_alloc(hc_hal_dev *d, uint64_t size, void **out)
{
	toy.host_allocs++;
	toy.live++;
	*out = malloc(size);
	return HC_OK;
}

static hc_status toy_host_free(hc_hal_dev *d, void *p)
{
	toy.live--;
	free(p);
	return HC_OK;
}

static hc_status toy_stream_create(hc_hal_dev *d, hc_hal_stream **out)
{
	*out = (hc_hal_stream *)(void *)&toy_token;
	return HC_OK;
}

static hc_status toy_ok_stream(hc_hal_dev *d, hc_hal_stream *s) { return HC_OK; }

static hc_status toy_h2d(hc_hal_dev *d, hc_hal_stream *s, hc_hal_dptr dst, const void *src,
			 uint64_t n, bool pinned)
{
	toy.copies++;
	memcpy((void *)(uintptr_t)dst, src, n);
	return HC_OK;
}

static hc_status toy_d2h(hc_hal_dev *d, hc_hal_stream *s, void *dst, hc_hal_dptr src,
			 uint64_t n, bool pinned)
{
	toy.copies++;
	memcpy(dst, (void *)(uintptr_t)src, n);
	return HC_OK;
}

static hc_status toy_d2d(hc_hal_dev *d, hc_hal_stream *s, hc_hal_dptr dst, hc_hal_dptr src,
			 uint64_t n)
{
	toy.copies++;
	memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	return HC_OK;
}

static hc_status toy_record(hc_hal_dev *d, hc_hal_stream *s, hc_hal_event **out)
{
	toy.records++;
	toy.live++;
	*out = malloc(8);
	return HC_OK;
}

static hc_status toy_wait(hc_hal_dev *d, hc_hal_stream *s, hc_hal_event *e) { return HC_OK; }

static hc_status toy_esync(hc_hal_dev *d, hc_hal_event *e)
{
	toy.syncs++;
	return HC_OK;
}

static hc_status toy_query(hc_hal_dev *d, hc_hal_event *e, bool *done)
{
	*done = true;
	return HC_OK;
}

static void toy_edestroy(hc_hal_dev *d, hc_hal_event *e)
{
	toy.live--;
	free(e);
}

static hc_status toy_cap_end(hc_hal_dev *d, hc_hal_stream *s, hc_hal_graph **g)
{
	*g = (hc_hal_graph *)(void *)&toy_token;
	return HC_OK;
}

static hc_status toy_glaunch(hc_hal_dev *d, hc_hal_stream *s, hc_hal_graph *g) { return HC_OK; }
static void toy_gdestroy(hc_hal_dev *d, hc_hal_graph *g) {}

static hc_status toy_mload(hc_hal_dev *d, const void *img, size_t n, hc_hal_module **m)
{
	*m = (hc_hal_module *)(void *)&toy_token;
	return HC_OK;
}

static void toy_munload(hc_hal_dev *d, hc_hal_module *m) {}

static hc_status toy_fget(hc_hal_dev *d, hc_hal_module *m, const char *n, hc_hal_function **f)
{
	*f = (hc_hal_function *)(void *)&toy_token;
	return HC_OK;
}

static hc_status toy_launch(hc_hal_dev *d, hc_hal_stream *s, hc_hal_function *f,
			    const struct hc_hal_launch *l)
{
	toy.launches++;
	return HC_OK;
}

static hc_status toy_ctl(hc_hal_dev *d, int op, void *arg)
{
	if (op == HC_HAL_CTL_NOW_NS) {
		*(uint64_t *)arg = 42;
		return HC_OK;
	}
	return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL, "toy: ctl %d", op);
}

static const struct hc_hal_ops toy_ops = {
	.version = HC_HAL_VERSION, .name = "toy",
	.device_open = toy_open, .device_close = toy_close, .device_props = toy_props,
	.mem_alloc = toy_mem_alloc, .mem_free = toy_mem_free,
	.host_alloc = toy_host_alloc, .host_free = toy_host_free,
	.stream_create = toy_stream_create, .stream_destroy = toy_ok_stream,
	.stream_sync = toy_ok_stream,
	.copy_h2d = toy_h2d, .copy_d2h = toy_d2h, .copy_d2d = toy_d2d,
	.event_record = toy_record, .event_wait = toy_wait, .event_sync = toy_esync,
	.event_query = toy_query, .event_destroy = toy_edestroy,
	.capture_begin = toy_ok_stream, .capture_end = toy_cap_end,
	.graph_launch = toy_glaunch, .graph_destroy = toy_gdestroy,
	.module_load = toy_mload, .module_unload = toy_munload, .function_get = toy_fget,
	.launch = toy_launch, .ctl = toy_ctl,
};

/* The toy with virtual memory: it records calls, checks nothing. */
static hc_status toy_va_reserve(hc_hal_dev *d, uint64_t size, hc_hal_dptr *out)
{
	toy.reserves++;
	*out = 0x100000;
	return HC_OK;
}

static hc_status toy_va_release(hc_hal_dev *d, hc_hal_dptr addr, uint64_t size)
{
	toy.releases++;
	return HC_OK;
}

static hc_status toy_pmem_map(hc_hal_dev *d, hc_hal_dptr addr, uint64_t size)
{
	toy.maps++;
	return HC_OK;
}

static hc_status toy_pmem_unmap(hc_hal_dev *d, hc_hal_dptr addr, uint64_t size)
{
	toy.unmaps++;
	return HC_OK;
}

static const struct hc_hal_ops *toy_vmm_ops(void)
{
	static struct hc_hal_ops t;

	t = toy_ops;
	t.name = "toy-vmm";
	t.va_reserve = toy_va_reserve;
	t.va_release = toy_va_release;
	t.pmem_map = toy_pmem_map;
	t.pmem_unmap = toy_pmem_unmap;
	return &t;
}

static const struct hc_hal_ops *F;
static hc_hal_dev *D;
static hc_hal_stream *S;

static void setup(void)
{
	struct hc_hal_open_args a = { .ordinal = 0 };

	F = hc_fault_wrap(&toy_ops);
	ck_assert_ptr_nonnull(F);
	ck_assert_int_eq(F->device_open(&a, &D), HC_OK);
	ck_assert_int_eq(F->stream_create(D, &S), HC_OK);
}

static void teardown(void)
{
	if (D) /* a test may have closed it another way */
		F->device_close(D);
	ck_assert(!toy.open);
}

static hc_status arm(hc_fault_kind k, uint64_t n, hc_fault_mode m)
{
	struct hc_hal_fault_arg a = { k, n, m };

	return F->ctl(D, HC_HAL_CTL_FAULT, &a);
}

static hc_status last_status(void)
{
	hc_error_info e;

	hc_last_error(&e);
	return e.status;
}

START_TEST(wrap_is_idempotent_and_keeps_the_name)
{
	ck_assert_ptr_eq(hc_fault_wrap(&toy_ops), F);
	ck_assert_ptr_eq(hc_fault_wrap(F), F);
	ck_assert_ptr_null(hc_fault_wrap(NULL));
	ck_assert_str_eq(F->name, "toy");
	ck_assert_uint_eq(F->version, HC_HAL_VERSION);
	ck_assert_ptr_ne(F, &toy_ops);
}
END_TEST

START_TEST(forwards_every_op_when_disarmed)
{
	struct hc_hal_props p;
	hc_hal_dptr d;
	void *h;
	char buf[4] = "abc", out[4] = "";
	hc_hal_event *e;
	hc_hal_graph *g;
	hc_hal_module *m;
	hc_hal_function *f;
	bool done;
	uint64_t now;
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };

	ck_assert_int_eq(F->device_props(D, &p), HC_OK);
	ck_assert_str_eq(p.name, "toy");
	ck_assert_int_eq(F->mem_alloc(D, 4, &d), HC_OK);
	ck_assert_int_eq(F->host_alloc(D, 4, &h), HC_OK);
	ck_assert_int_eq(F->copy_h2d(D, S, d, buf, 4, false), HC_OK);
	ck_assert_int_eq(F->copy_d2h(D, S, out, d, 4, false), HC_OK);
	ck_assert_str_eq(out, "abc");
	ck_assert_int_eq(F->copy_d2d(D, S, d, d, 4), HC_OK);
	ck_assert_int_eq(F->event_record(D, S, &e), HC_OK);
	ck_assert_int_eq(F->event_wait(D, S, e), HC_OK);
	ck_assert_int_eq(F->event_query(D, e, &done), HC_OK);
	ck_assert(done);
	ck_assert_int_eq(F->event_sync(D, e), HC_OK);
	F->event_destroy(D, e);
	ck_assert_int_eq(F->capture_begin(D, S), HC_OK);
	ck_assert_int_eq(F->capture_end(D, S, &g), HC_OK);
	ck_assert_int_eq(F->graph_launch(D, S, g), HC_OK);
	F->graph_destroy(D, g);
	ck_assert_int_eq(F->module_load(D, "x", 1, &m), HC_OK);
	ck_assert_int_eq(F->function_get(D, m, "k", &f), HC_OK);
	ck_assert_int_eq(F->launch(D, S, f, &l), HC_OK);
	F->module_unload(D, m);
	ck_assert_int_eq(F->stream_sync(D, S), HC_OK);
	ck_assert_int_eq(F->ctl(D, HC_HAL_CTL_NOW_NS, &now), HC_OK);
	ck_assert_uint_eq(now, 42);
	ck_assert_int_eq(F->ctl(D, HC_HAL_CTL_STATS, &now), HC_ERR_UNSUPPORTED);
	ck_assert_int_eq(F->mem_free(D, d), HC_OK);
	ck_assert_int_eq(F->host_free(D, h), HC_OK);
	ck_assert_int_eq(F->stream_destroy(D, S), HC_OK);
	ck_assert_uint_eq(toy.copies, 3);
	ck_assert_uint_eq(toy.launches, 1);
	ck_assert_int_eq(toy.live, 0);
}
END_TEST

START_TEST(once_fails_exactly_the_nth_call)
{
	hc_hal_dptr d[5];

	ck_assert_int_eq(arm(HC_FAULT_DEVICE_ALLOC, 3, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 8, &d[0]), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 8, &d[1]), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 8, &d[2]), HC_ERR_OOM);
	ck_assert_int_eq(last_status(), HC_ERR_OOM);
	ck_assert_int_eq(F->mem_alloc(D, 8, &d[2]), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 8, &d[3]), HC_OK);
	ck_assert_uint_eq(toy.allocs, 4); /* the failed one never reached the backend */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(F->mem_free(D, d[i]), HC_OK);
}
END_TEST

START_TEST(persistent_fails_from_the_nth_call_until_disarmed)
{
	void *h[3];

	ck_assert_int_eq(arm(HC_FAULT_PINNED_ALLOC, 2, HC_FAULT_PERSISTENT), HC_OK);
	ck_assert_int_eq(F->host_alloc(D, 8, &h[0]), HC_OK);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(F->host_alloc(D, 8, &h[1]), HC_ERR_OOM);
	ck_assert_int_eq(arm(HC_FAULT_PINNED_ALLOC, 0, HC_FAULT_OFF), HC_OK);
	ck_assert_int_eq(F->host_alloc(D, 8, &h[1]), HC_OK);
	ck_assert_uint_eq(toy.host_allocs, 2);
	ck_assert_int_eq(F->host_free(D, h[0]), HC_OK);
	ck_assert_int_eq(F->host_free(D, h[1]), HC_OK);
}
END_TEST

START_TEST(copy_fault_counts_all_three_directions)
{
	hc_hal_dptr d;
	char b[8] = { 0 };

	ck_assert_int_eq(F->mem_alloc(D, 8, &d), HC_OK);
	ck_assert_int_eq(arm(HC_FAULT_COPY, 3, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(F->copy_h2d(D, S, d, b, 8, true), HC_OK);
	ck_assert_int_eq(F->copy_d2h(D, S, b, d, 8, true), HC_OK);
	ck_assert_int_eq(F->copy_d2d(D, S, d, d, 8), HC_ERR_DEVICE);
	ck_assert_int_eq(F->copy_d2d(D, S, d, d, 8), HC_OK);
	ck_assert_uint_eq(toy.copies, 3);
	ck_assert_int_eq(arm(HC_FAULT_COPY, 1, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(F->copy_h2d(D, S, d, b, 8, false), HC_ERR_DEVICE);
	ck_assert_int_eq(F->mem_free(D, d), HC_OK);
}
END_TEST

START_TEST(launch_fault)
{
	struct hc_hal_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	hc_hal_function *f = (hc_hal_function *)(void *)&toy_token;

	ck_assert_int_eq(arm(HC_FAULT_LAUNCH, 1, HC_FAULT_PERSISTENT), HC_OK);
	ck_assert_int_eq(F->launch(D, S, f, &l), HC_ERR_DEVICE);
	ck_assert_int_eq(F->launch(D, S, f, &l), HC_ERR_DEVICE);
	ck_assert_uint_eq(toy.launches, 0);
	ck_assert_int_eq(arm(HC_FAULT_LAUNCH, 0, HC_FAULT_OFF), HC_OK);
	ck_assert_int_eq(F->launch(D, S, f, &l), HC_OK);
}
END_TEST

START_TEST(fence_fault_reports_when_waited_on)
{
	hc_hal_event *e1, *e2, *e3;
	bool done = false;

	ck_assert_int_eq(arm(HC_FAULT_FENCE, 2, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(F->event_record(D, S, &e1), HC_OK);
	ck_assert_int_eq(F->event_record(D, S, &e2), HC_OK); /* recorded, but marked */
	ck_assert_int_eq(F->event_record(D, S, &e3), HC_OK);
	ck_assert_uint_eq(toy.records, 3);
	ck_assert_int_eq(F->event_sync(D, e1), HC_OK);
	ck_assert_int_eq(F->event_sync(D, e2), HC_ERR_DEVICE);
	ck_assert_int_eq(F->event_query(D, e2, &done), HC_ERR_DEVICE);
	ck_assert_int_eq(F->event_sync(D, e3), HC_OK);
	ck_assert_int_eq(F->event_wait(D, S, e2), HC_OK); /* the device wait itself works */
	F->event_destroy(D, e1);
	F->event_destroy(D, e2);
	F->event_destroy(D, e3);
}
END_TEST

START_TEST(capacity_ceiling_counts_live_bytes)
{
	hc_hal_dptr a, b, c;

	ck_assert_int_eq(arm(HC_FAULT_CAPACITY, 100, HC_FAULT_PERSISTENT), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 60, &a), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 40, &b), HC_OK); /* exactly at the ceiling */
	ck_assert_int_eq(F->mem_alloc(D, 1, &c), HC_ERR_OOM);
	ck_assert_int_eq(F->mem_free(D, a), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 61, &c), HC_ERR_OOM);
	ck_assert_int_eq(F->mem_alloc(D, 60, &c), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, UINT64_MAX, &a), HC_ERR_OOM); /* no overflow */
	ck_assert_uint_eq(toy.allocs, 3);
	ck_assert_int_eq(arm(HC_FAULT_CAPACITY, 100, HC_FAULT_ONCE), HC_OK);
	ck_assert_int_eq(F->mem_alloc(D, 1, &a), HC_ERR_OOM);
	ck_assert_int_eq(F->mem_alloc(D, 1, &a), HC_OK); /* ONCE: disarmed */
	ck_assert_int_eq(F->mem_free(D, a), HC_OK);
	ck_assert_int_eq(F->mem_free(D, b), HC_OK);
	/* c is left to device_close (the toy frees nothing there: free it here) */
	ck_assert_int_eq(F->mem_free(D, c), HC_OK);
	ck_assert_int_eq(toy.live, 0);
}
END_TEST

START_TEST(bad_arming_is_invalid_and_changes_nothing)
{
	hc_hal_dptr d;

	ck_assert_int_eq(arm((hc_fault_kind)6, 1, HC_FAULT_ONCE), HC_ERR_INVALID);
	ck_assert_int_eq(arm((hc_fault_kind)-1, 1, HC_FAULT_ONCE), HC_ERR_INVALID);
	ck_assert_int_eq(arm(HC_FAULT_DEVICE_ALLOC, 1, (hc_fault_mode)3), HC_ERR_INVALID);
	ck_assert_int_eq(arm(HC_FAULT_DEVICE_ALLOC, 0, HC_FAULT_ONCE), HC_ERR_INVALID);
	ck_assert_int_eq(F->ctl(D, HC_HAL_CTL_FAULT, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(F->mem_alloc(D, 8, &d), HC_OK);
	ck_assert_int_eq(F->mem_free(D, d), HC_OK);
}
END_TEST

/* Walk the countdown from 1 upward: the k-th call fails, the others pass. */
START_TEST(countdown_walk)
{
	for (uint64_t n = 1; n <= 6; n++) {
		hc_hal_dptr d[6];
		int fails = 0;

		ck_assert_int_eq(arm(HC_FAULT_DEVICE_ALLOC, n, HC_FAULT_ONCE), HC_OK);
		for (uint64_t i = 1; i <= 6; i++) {
			hc_status st = F->mem_alloc(D, 8, &d[i - 1]);

			ck_assert_int_eq(st, i == n ? HC_ERR_OOM : HC_OK);
			fails += st != HC_OK;
			if (st == HC_OK)
				ck_assert_int_eq(F->mem_free(D, d[i - 1]), HC_OK);
		}
		ck_assert_int_eq(fails, 1);
	}
}
END_TEST

/* A backend without virtual memory: neither shim invents the ops. */
START_TEST(ops_the_backend_lacks_stay_null)
{
	const struct hc_hal_ops *t = NULL;
	hc_hal_dev *td = NULL;

	ck_assert_ptr_null(F->va_reserve);
	ck_assert_ptr_null(F->va_release);
	ck_assert_ptr_null(F->pmem_map);
	ck_assert_ptr_null(F->pmem_unmap);
	ck_assert_int_eq(hc_optime_wrap(F, D, &t, &td), HC_OK);
	ck_assert_ptr_null(t->va_reserve);
	ck_assert_ptr_null(t->pmem_unmap);
	ck_assert_ptr_nonnull(t->mem_alloc);
	t->device_close(td); /* closes D through the fault shim */
	D = NULL;
}
END_TEST

/* pmem_map is a device allocation to the injector: one countdown with
 * mem_alloc, and mapped bytes under the capacity ceiling until unmapped. */
START_TEST(pmem_map_is_a_device_allocation_to_the_injector)
{
	const struct hc_hal_ops *V = hc_fault_wrap(toy_vmm_ops());
	struct hc_hal_open_args a = { .ordinal = 0 };
	struct hc_hal_fault_arg once = { HC_FAULT_DEVICE_ALLOC, 2, HC_FAULT_ONCE };
	struct hc_hal_fault_arg cap = { HC_FAULT_CAPACITY, 100, HC_FAULT_PERSISTENT };
	const uint64_t x = 0x100000;
	hc_hal_dev *dev;
	hc_hal_dptr d, r;

	ck_assert_ptr_nonnull(V);
	ck_assert_str_eq(V->name, "toy-vmm");
	ck_assert_ptr_nonnull(V->pmem_map);
	ck_assert_int_eq(V->device_open(&a, &dev), HC_OK);
	ck_assert_int_eq(V->va_reserve(dev, 1000, &r), HC_OK);
	ck_assert_uint_eq(r, x);
	ck_assert_int_eq(V->ctl(dev, HC_HAL_CTL_FAULT, &once), HC_OK);
	ck_assert_int_eq(V->mem_alloc(dev, 8, &d), HC_OK);
	ck_assert_int_eq(V->pmem_map(dev, x, 10), HC_ERR_OOM);
	ck_assert_uint_eq(toy.maps, 0); /* refused before the backend */
	ck_assert_int_eq(V->pmem_map(dev, x, 10), HC_OK);
	ck_assert_int_eq(V->ctl(dev, HC_HAL_CTL_FAULT, &cap), HC_OK);
	ck_assert_int_eq(V->pmem_map(dev, x + 10, 83), HC_ERR_OOM); /* 8 + 10 + 83 > 100 */
	ck_assert_int_eq(V->pmem_map(dev, x + 10, 82), HC_OK);      /* exactly 100 */
	ck_assert_int_eq(V->mem_alloc(dev, 1, &r), HC_ERR_OOM);
	/* one unmap over both mappings gives both back */
	ck_assert_int_eq(V->pmem_unmap(dev, x, 92), HC_OK);
	ck_assert_int_eq(V->pmem_map(dev, x, 92), HC_OK);
	ck_assert_int_eq(V->pmem_map(dev, x + 92, 1), HC_ERR_OOM);
	ck_assert_int_eq(V->pmem_unmap(dev, x, 92), HC_OK);
	ck_assert_int_eq(V->mem_free(dev, d), HC_OK);
	ck_assert_int_eq(V->va_release(dev, x, 1000), HC_OK);
	ck_assert_uint_eq(toy.maps, 3);
	ck_assert_uint_eq(toy.unmaps, 2);
	ck_assert_uint_eq(toy.reserves, 1);
	ck_assert_uint_eq(toy.releases, 1);
	V->device_close(dev);
}
END_TEST

/* The timing shim times the four ops on the simulator's clock: each call
 * its profile figure (sim/sim_profile.c's built-in values). */
START_TEST(optime_times_the_virtual_memory_ops)
{
	struct hc_hal_open_args a = { .ordinal = 0 };
	const struct hc_hal_ops *t;
	struct hc_hal_op_times ot;
	hc_hal_dev *real, *td;
	hc_hal_dptr r;

	ck_assert_uint_eq(HC_OPTIME_COUNT, 31);
	ck_assert_str_eq(hc_optime_name(HC_OPTIME_stream_adopt), "stream_adopt");
	ck_assert_str_eq(hc_optime_name(HC_OPTIME_va_reserve), "va_reserve");
	ck_assert_str_eq(hc_optime_name(HC_OPTIME_pmem_unmap), "pmem_unmap");
	ck_assert_ptr_null(hc_optime_name(HC_OPTIME_COUNT));
	ck_assert_int_eq(hc_sim_ops()->device_open(&a, &real), HC_OK);
	ck_assert_int_eq(hc_optime_wrap(hc_sim_ops(), real, &t, &td), HC_OK);
	ck_assert_int_eq(t->va_reserve(td, 8u << 20, &r), HC_OK);
	ck_assert_int_eq(t->pmem_map(td, r, 2u << 20), HC_OK);
	ck_assert_int_eq(t->pmem_unmap(td, r, 2u << 20), HC_OK);
	ck_assert_int_eq(t->pmem_unmap(td, r, 2u << 20), HC_ERR_INVALID); /* counted too */
	ck_assert_int_eq(t->va_release(td, r, 8u << 20), HC_OK);
	ck_assert_int_eq(t->ctl(td, HC_HAL_CTL_OP_TIMES, &ot), HC_OK);
	ck_assert_uint_eq(ot.calls[HC_OPTIME_va_reserve], 1);
	ck_assert_uint_eq(ot.host_ns[HC_OPTIME_va_reserve], 15000);
	ck_assert_uint_eq(ot.calls[HC_OPTIME_pmem_map], 1);
	ck_assert_uint_eq(ot.host_ns[HC_OPTIME_pmem_map], 30000 + 600);
	ck_assert_uint_eq(ot.calls[HC_OPTIME_pmem_unmap], 2);
	ck_assert_uint_eq(ot.host_ns[HC_OPTIME_pmem_unmap], 25000 + 306);
	ck_assert_uint_eq(ot.calls[HC_OPTIME_va_release], 1);
	ck_assert_uint_eq(ot.host_ns[HC_OPTIME_va_release], 10000);
	t->device_close(td);
}
END_TEST

static Suite *hal_shims_suite(void)
{
	Suite *s = suite_create("hal_shims");
	TCase *tc = tcase_create("shim");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, wrap_is_idempotent_and_keeps_the_name);
	tcase_add_test(tc, forwards_every_op_when_disarmed);
	tcase_add_test(tc, once_fails_exactly_the_nth_call);
	tcase_add_test(tc, persistent_fails_from_the_nth_call_until_disarmed);
	tcase_add_test(tc, copy_fault_counts_all_three_directions);
	tcase_add_test(tc, launch_fault);
	tcase_add_test(tc, fence_fault_reports_when_waited_on);
	tcase_add_test(tc, capacity_ceiling_counts_live_bytes);
	tcase_add_test(tc, bad_arming_is_invalid_and_changes_nothing);
	tcase_add_test(tc, countdown_walk);
	tcase_add_test(tc, ops_the_backend_lacks_stay_null);
	suite_add_tcase(s, tc);
	tc = tcase_create("vmm");
	tcase_add_test(tc, pmem_map_is_a_device_allocation_to_the_injector);
	tcase_add_test(tc, optime_times_the_virtual_memory_ops);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(hal_shims_suite);
