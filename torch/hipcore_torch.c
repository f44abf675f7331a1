/*
 * hipcore_torch.c - libhipcore-torch.so, PyTorch's allocator plug-in
 * (include/hipcore/torch.h says what each call does).
 *
 * Three tables sit between PyTorch's raw pointers and libhipcore's handles:
 *  - devices[]: one hc_device per ordinal, opened on first use under its
 *    lock, then read without it (state is published with release order);
 *  - each device's streams: native handle -> adopted hc_stream, under the
 *    device's lock, with a per-thread cache of the last one used in front,
 *    since a thread allocates on one current stream for long runs;
 *  - live: device address -> buffer, requested size and device (ptrmap.h),
 *    the O(1) lookup a free by pointer needs;
 *  - recorded: the streams record_stream named for a live address, held at
 *    its free.  Rare (a side stream's copies, collectives), so one lock.
 *
 * Streams are adopted for the process's life: PyTorch's streams are pooled
 * and never destroyed, and a stream's pools must outlive every block freed
 * on it.  Peaks of the caller's bytes are kept here; reserved bytes and
 * device allocations come from libhipcore's own device figures.
 *
 * Nothing here prints or aborts: a failed alloc returns NULL, and
 * hipcore_torch_last_error tells the calling thread why.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "hipcore/torch.h"
#include "torch/ptrmap.h"
#include "util/env.h"

#define TORCH_MAX_DEVICES 64

struct adopted {
	void *native;
	hc_stream stream;
};

struct torch_device {
	pthread_mutex_t lock;   /* opening; the stream table */
	/* One alloc or free of the device at a time, with its figures, as
	 * PyTorch's own allocator takes a lock per device: the figures then
	 * change in the order of the calls, which is the order a recorded
	 * trace gives them, so a replay's peaks are the live ones. */
	pthread_mutex_t call_lock;
	_Atomic int open;       /* 1 once dev is usable; read without the lock */
	hc_device dev;
	uint64_t total_memory;
	struct adopted *streams;
	size_t nstreams, capstreams;
	_Atomic uint64_t allocs, frees, failed_allocs, frees_unknown;
	_Atomic uint64_t in_use, peak_in_use;
	_Atomic uint64_t memory_limit; /* bytes; kept here to apply at open */
};

static struct torch_device devices[TORCH_MAX_DEVICES] = {
	[0 ... TORCH_MAX_DEVICES - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER,
					  .call_lock = PTHREAD_MUTEX_INITIALIZER },
};
static struct ptrmap live;
static pthread_once_t live_once = PTHREAD_ONCE_INIT;

/* A refused allocation throws (torch/raise.cc) instead of returning NULL:
 * hipcore_torch_set_raise, which hipcore_torch.enable() turns on. */
static _Atomic int raise_on_failure;
void hipcore_torch_throw(const char *message) __attribute__((visibility("hidden"), noreturn));

/* ptrmap_val.flags of live entries */
#define LIVE_RECORDED 1u

/* The streams one address was recorded on; recorded's val.buffer points
 * to it.  Guarded by recorded_lock. */
struct recorded_streams {
	size_t n, cap;
	hc_stream s[];
};

static pthread_mutex_t recorded_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptrmap recorded;

/* The calling thread's last message; hc_last_error covers libhipcore's. */
static __thread char last_msg[512];

/* The last stream this thread used: devices never close streams, so the
 * cache stays true until hipcore_torch_shutdown bumps the epoch. */
static _Atomic uint64_t epoch = 1;
static __thread struct {
	uint64_t epoch;
	int device;
	void *native;
	hc_stream stream;
} last_stream;

static void live_init(void)
{
	ptrmap_init(&live);
	ptrmap_init(&recorded);
}

static int fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return status;
}

/* libhipcore's own message for a failed hc_* call, kept as this thread's. */
static int fail_hc(hc_status rc, const char *what)
{
	hc_error_info e;

	hc_last_error(&e);
	snprintf(last_msg, sizeof(last_msg), "%s: %.400s", what, e.message[0] ? e.message :
							     hc_status_str(rc));
	return (int)rc;
}

static const char *backend_name(void)
{
	const char *b = hc_env_get(HC_ENV_TORCH_BACKEND);

	return b && b[0] ? b : "hip";
}

/* HIPCORE_TORCH_POOLS: the device layout by name (default, workload,
 * expandable, subslices, exclusive); unset or empty: the library's default.
 * Return: false for a name it does not know. */
static bool pools_from_env(hc_pool_layout *l)
{
	static const struct {
		const char *name;
		hc_layout_preset preset;
	} names[] = { { "default", HC_LAYOUT_DEFAULT },	     { "workload", HC_LAYOUT_WORKLOAD },
		      { "expandable", HC_LAYOUT_EXPANDABLE },
		      { "expandable-shared", HC_LAYOUT_EXPANDABLE_SHARED },
		      { "subslices", HC_LAYOUT_SUBSLICES },
		      { "exclusive", HC_LAYOUT_EXCLUSIVE_PAGES } };
	const char *v = hc_env_get(HC_ENV_TORCH_POOLS);

	memset(l, 0, sizeof(*l));
	if (!v || !v[0])
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i].name) == 0) {
			l->preset = names[i].preset;
			return true;
		}
	return false;
}

/* Device @ordinal, opened on first use.  NULL with the message set. */
static struct torch_device *device_get(int ordinal)
{
	struct torch_device *td;
	hc_device_options o;
	hc_device_info info;
	hc_status rc;

	if (ordinal < 0 || ordinal >= TORCH_MAX_DEVICES) {
		fail(HC_ERR_INVALID, "hipcore_torch: device %d is out of range (0 to %d)", ordinal,
		     TORCH_MAX_DEVICES - 1);
		return NULL;
	}
	td = &devices[ordinal];
	if (atomic_load_explicit(&td->open, memory_order_acquire))
		return td;
	pthread_once(&live_once, live_init);
	pthread_mutex_lock(&td->lock);
	if (!atomic_load_explicit(&td->open, memory_order_relaxed)) {
		hc_device_options_init(&o);
		o.ordinal = ordinal;
		o.min_alignment = 512; /* PyTorch's own allocator aligns so */
		rc = hc_device_open(backend_name(), &o, &td->dev);
		if (rc == HC_OK)
			rc = hc_device_info_get(td->dev, &info);
		if (rc != HC_OK) {
			fail_hc(rc, "hipcore_torch: opening the device");
			pthread_mutex_unlock(&td->lock);
			return NULL;
		}
		td->total_memory = info.total_memory;
		if (atomic_load(&td->memory_limit))
			hc_device_set_memory_limit(td->dev, atomic_load(&td->memory_limit));
		atomic_store_explicit(&td->open, 1, memory_order_release);
	}
	pthread_mutex_unlock(&td->lock);
	return td;
}

/* The adopted stream for @native, adopting it on first use.  Device lock. */
static hc_status stream_find_locked(struct torch_device *td, void *native, hc_stream *out)
{
	struct adopted *a;
	hc_status rc;

	for (size_t i = 0; i < td->nstreams; i++)
		if (td->streams[i].native == native) {
			*out = td->streams[i].stream;
			return HC_OK;
		}
	if (td->nstreams == td->capstreams) {
		size_t cap = td->capstreams ? td->capstreams * 2 : 8;

		a = realloc(td->streams, cap * sizeof(*a));
		if (!a)
			return HC_ERR_OOM;
		td->streams = a;
		td->capstreams = cap;
	}
	rc = hc_stream_adopt(td->dev, native, out);
	if (rc != HC_OK)
		return rc;
	if (td->nstreams == 0) {
		/* the first stream installs the device's layout for every later one */
		hc_pool_layout l;

		if (!pools_from_env(&l))
			rc = (hc_status)fail(HC_ERR_INVALID,
					     "hipcore_torch: HIPCORE_TORCH_POOLS is not a layout "
					     "(default, workload, expandable, subslices, exclusive)");
		else if (l.preset != HC_LAYOUT_DEFAULT)
			rc = hc_install_memory_pools(*out, &l);
		if (rc != HC_OK) {
			(void)hc_stream_close(*out);
			return rc;
		}
	}
	td->streams[td->nstreams++] = (struct adopted){ native, *out };
	return HC_OK;
}

static hc_status stream_of(struct torch_device *td, int ordinal, void *native, hc_stream *out)
{
	uint64_t now = atomic_load_explicit(&epoch, memory_order_relaxed);
	hc_status rc;

	if (last_stream.epoch == now && last_stream.device == ordinal &&
	    last_stream.native == native) {
		*out = last_stream.stream;
		return HC_OK;
	}
	pthread_mutex_lock(&td->lock);
	rc = stream_find_locked(td, native, out);
	pthread_mutex_unlock(&td->lock);
	if (rc == HC_OK) {
		last_stream.epoch = now;
		last_stream.device = ordinal;
		last_stream.native = native;
		last_stream.stream = *out;
	}
	return rc;
}

static void peak_raise(_Atomic uint64_t *peak, uint64_t v)
{
	uint64_t p = atomic_load_explicit(peak, memory_order_relaxed);

	while (v > p && !atomic_compare_exchange_weak_explicit(peak, &p, v, memory_order_relaxed,
							       memory_order_relaxed))
		;
}

void *hipcore_torch_alloc(ssize_t size, int device, void *stream)
{
	struct torch_device *td;
	struct ptrmap_val v;
	hc_buffer_info info;
	hc_stream s;
	hc_buffer b;
	hc_status rc;

	if (size <= 0) /* PyTorch keeps a null data pointer for empty tensors */
		return NULL;
	td = device_get(device);
	if (!td) {
		if (atomic_load_explicit(&raise_on_failure, memory_order_relaxed))
			hipcore_torch_throw(last_msg);
		return NULL;
	}
	rc = stream_of(td, device, stream, &s);
	if (rc != HC_OK) {
		fail_hc(rc, "hipcore_torch_alloc: adopting the stream");
		goto err_count;
	}
	pthread_mutex_lock(&td->call_lock);
	rc = hc_alloc(s, (uint64_t)size, &b);
	if (rc != HC_OK) {
		fail_hc(rc, "hipcore_torch_alloc");
		goto err_unlock;
	}
	rc = hc_buffer_info_get(b, &info);
	v = (struct ptrmap_val){ b.id, (uint64_t)size, device, 0 };
	if (rc != HC_OK || ptrmap_put(&live, info.device_address, &v) != 0) {
		if (rc == HC_OK)
			fail(HC_ERR_OOM, "hipcore_torch_alloc: no host memory to map %zd bytes", size);
		else
			fail_hc(rc, "hipcore_torch_alloc");
		hc_free(b);
		goto err_unlock;
	}
	atomic_fetch_add_explicit(&td->allocs, 1, memory_order_relaxed);
	peak_raise(&td->peak_in_use,
		   atomic_fetch_add_explicit(&td->in_use, (uint64_t)size, memory_order_relaxed) +
			   (uint64_t)size);
	pthread_mutex_unlock(&td->call_lock);
	return (void *)(uintptr_t)info.device_address;

err_unlock:
	pthread_mutex_unlock(&td->call_lock);
err_count:
	atomic_fetch_add_explicit(&td->failed_allocs, 1, memory_order_relaxed);
	if (atomic_load_explicit(&raise_on_failure, memory_order_relaxed))
		hipcore_torch_throw(last_msg); /* no lock held here */
	return NULL;
}

int hipcore_torch_set_raise(int on)
{
	atomic_store(&raise_on_failure, on != 0);
	return HC_OK;
}

/* The streams recorded for @addr, taken out of the table (NULL: none). */
static struct recorded_streams *recorded_take(uint64_t addr)
{
	struct ptrmap_val v;
	bool found;

	pthread_mutex_lock(&recorded_lock);
	found = ptrmap_take(&recorded, addr, &v);
	pthread_mutex_unlock(&recorded_lock);
	return found ? (struct recorded_streams *)(uintptr_t)v.buffer : NULL;
}

void hipcore_torch_free(void *ptr, size_t size, int device, void *stream)
{
	uint64_t addr = (uint64_t)(uintptr_t)ptr;
	struct recorded_streams *rec = NULL;
	struct torch_device *td;
	struct ptrmap_val v;
	hc_buffer b;
	hc_stream s;

	if (!ptr)
		return;
	if (!ptrmap_take(&live, addr, &v)) {
		if (device >= 0 && device < TORCH_MAX_DEVICES)
			atomic_fetch_add_explicit(&devices[device].frees_unknown, 1,
						  memory_order_relaxed);
		fail(HC_ERR_INVALID, "hipcore_torch_free: %p was not allocated here", ptr);
		return;
	}
	td = &devices[v.device];
	b.id = v.buffer;
	/* The memory waits for the work queued so far on each recorded stream
	 * and on the stream the free is ordered on, where that is not the
	 * allocating one (hc_buffer_hold: a no-op from the origin). */
	if (v.flags & LIVE_RECORDED)
		rec = recorded_take(addr);
	if (stream_of(td, v.device, stream, &s) != HC_OK)
		s.id = 0; /* no hold from that stream: the free is ordered on the origin */
	pthread_mutex_lock(&td->call_lock);
	for (size_t i = 0; rec && i < rec->n; i++)
		hc_buffer_hold(b, rec->s[i]);
	if (s.id)
		hc_buffer_hold(b, s);
	hc_free(b);
	atomic_fetch_add_explicit(&td->frees, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&td->in_use, v.size, memory_order_relaxed);
	pthread_mutex_unlock(&td->call_lock);
	free(rec);
	(void)size;
}

/* Adds @s to @addr's recorded streams.  recorded_lock held. */
static int recorded_add(uint64_t addr, hc_stream s)
{
	struct recorded_streams *r = NULL, *nr;
	struct ptrmap_val v = { 0, 0, 0, 0 };

	if (ptrmap_get(&recorded, addr, &v))
		r = (struct recorded_streams *)(uintptr_t)v.buffer;
	for (size_t i = 0; r && i < r->n; i++)
		if (r->s[i].id == s.id)
			return 0;
	if (!r || r->n == r->cap) {
		size_t cap = r ? r->cap * 2 : 2;

		nr = realloc(r, sizeof(*nr) + cap * sizeof(nr->s[0]));
		if (!nr)
			return -1;
		if (!r)
			nr->n = 0;
		nr->cap = cap;
		ptrmap_take(&recorded, addr, NULL);
		v.buffer = (uint64_t)(uintptr_t)nr;
		if (ptrmap_put(&recorded, addr, &v) != 0) {
			free(nr);
			return -1;
		}
		r = nr;
	}
	r->s[r->n++] = s;
	return 0;
}

int hipcore_torch_record_stream(void *ptr, void *stream)
{
	uint64_t addr = (uint64_t)(uintptr_t)ptr;
	struct ptrmap_val v;
	hc_stream s;
	hc_status rc;
	int added;

	if (!ptrmap_get(&live, addr, &v))
		return fail(HC_ERR_INVALID,
			    "hipcore_torch_record_stream: %p is not an allocation of this plug-in", ptr);
	rc = stream_of(&devices[v.device], v.device, stream, &s);
	if (rc != HC_OK)
		return fail_hc(rc, "hipcore_torch_record_stream");
	pthread_mutex_lock(&recorded_lock);
	added = recorded_add(addr, s);
	pthread_mutex_unlock(&recorded_lock);
	if (added != 0)
		return fail(HC_ERR_OOM, "hipcore_torch_record_stream: no host memory for %p", ptr);
	ptrmap_mark(&live, addr, LIVE_RECORDED);
	return HC_OK;
}

int hipcore_torch_empty_cache(void)
{
	int rc = HC_OK;

	for (int i = 0; i < TORCH_MAX_DEVICES; i++) {
		struct torch_device *td = &devices[i];
		hc_status r;

		if (!atomic_load_explicit(&td->open, memory_order_acquire))
			continue;
		/* Two passes: a block held for another stream comes back to its
		 * own stream's inbox when that stream's cleanup passes its fence,
		 * and leaves the inbox for the pool at its own stream's next call. */
		pthread_mutex_lock(&td->lock);
		for (int pass = 0; pass < 2; pass++)
			for (size_t k = 0; k < td->nstreams; k++) {
				r = hc_memory_cleanup(td->streams[k].stream);
				if (r != HC_OK && rc == HC_OK)
					rc = fail_hc(r, "hipcore_torch_empty_cache");
			}
		pthread_mutex_unlock(&td->lock);
		r = hc_device_idle_release(td->dev);
		if (r != HC_OK && rc == HC_OK)
			rc = fail_hc(r, "hipcore_torch_empty_cache");
	}
	return rc;
}

int hipcore_torch_set_memory_fraction(double fraction, int device)
{
	struct torch_device *td = device_get(device);
	uint64_t limit;
	hc_status rc;

	if (!td)
		return HC_ERR_INVALID;
	if (!(fraction >= 0.0)) /* NaN too */
		return fail(HC_ERR_INVALID, "hipcore_torch_set_memory_fraction: fraction %g is not "
			    "in [0, 1]", fraction);
	limit = fraction > 0.0 && fraction < 1.0 ? (uint64_t)(fraction * (double)td->total_memory)
						 : 0;
	atomic_store(&td->memory_limit, limit);
	rc = hc_device_set_memory_limit(td->dev, limit);
	return rc == HC_OK ? HC_OK : fail_hc(rc, "hipcore_torch_set_memory_fraction");
}

/* Device @device if it was opened, else NULL with the message set. */
static struct torch_device *device_used(int device, const char *fn)
{
	if (device < 0 || device >= TORCH_MAX_DEVICES ||
	    !atomic_load_explicit(&devices[device].open, memory_order_acquire)) {
		fail(HC_ERR_STATE, "%s: device %d was never used", fn, device);
		return NULL;
	}
	return &devices[device];
}

int hipcore_torch_stats(int device, struct hipcore_torch_stats *out)
{
	struct torch_device *td;
	hc_device_stats ds = { .struct_size = sizeof(ds) };
	hc_memory_usage u;
	hc_status rc;

	if (!out || out->struct_size < sizeof(*out))
		return fail(HC_ERR_INVALID, "hipcore_torch_stats: out is NULL or its struct_size "
			    "is less than %zu", sizeof(*out));
	td = device_used(device, "hipcore_torch_stats");
	if (!td)
		return HC_ERR_STATE;
	rc = hc_device_stats_get(td->dev, &ds);
	if (rc == HC_OK)
		rc = hc_device_memory_usage(td->dev, HC_MEMORY_DEVICE, &u);
	if (rc != HC_OK)
		return fail_hc(rc, "hipcore_torch_stats");
	memset((char *)out + sizeof(out->struct_size), 0, sizeof(*out) - sizeof(out->struct_size));
	out->allocs = atomic_load(&td->allocs);
	out->frees = atomic_load(&td->frees);
	out->failed_allocs = atomic_load(&td->failed_allocs);
	out->frees_unknown = atomic_load(&td->frees_unknown);
	out->bytes_in_use = atomic_load(&td->in_use);
	out->peak_in_use = atomic_load(&td->peak_in_use);
	out->bytes_reserved = u.bytes_reserved;
	out->peak_reserved = ds.device_bytes_peak;
	out->device_allocs = ds.device_allocs;
	out->device_frees = ds.device_frees;
	pthread_mutex_lock(&td->lock);
	out->streams = td->nstreams;
	pthread_mutex_unlock(&td->lock);
	out->total_memory = td->total_memory;
	out->memory_limit = atomic_load(&td->memory_limit);
	return HC_OK;
}

int hipcore_torch_reset_peaks(int device)
{
	struct torch_device *td = device_used(device, "hipcore_torch_reset_peaks");

	if (!td)
		return HC_ERR_STATE;
	atomic_store(&td->peak_in_use, atomic_load(&td->in_use));
	return HC_OK;
}

int hipcore_torch_device(int device, uint64_t *hc_device_id)
{
	struct torch_device *td;

	if (!hc_device_id)
		return fail(HC_ERR_INVALID, "hipcore_torch_device: hc_device_id is NULL");
	td = device_get(device);
	if (!td)
		return HC_ERR_INVALID;
	*hc_device_id = td->dev.id;
	return HC_OK;
}

int hipcore_torch_last_error(char *buf, size_t len)
{
	if (!buf || len == 0)
		return HC_ERR_INVALID;
	snprintf(buf, len, "%s", last_msg);
	return HC_OK;
}

int hipcore_torch_shutdown(void)
{
	int rc = HC_OK;

	atomic_fetch_add(&epoch, 1);
	for (int i = 0; i < TORCH_MAX_DEVICES; i++) {
		struct torch_device *td = &devices[i];
		hc_status r;

		pthread_mutex_lock(&td->lock);
		if (atomic_load(&td->open)) {
			r = hc_device_close(td->dev);
			if (r != HC_OK && rc == HC_OK)
				rc = fail_hc(r, "hipcore_torch_shutdown");
			atomic_store(&td->open, 0);
		}
		free(td->streams);
		td->streams = NULL;
		td->nstreams = td->capstreams = 0;
		atomic_store(&td->allocs, 0);
		atomic_store(&td->frees, 0);
		atomic_store(&td->failed_allocs, 0);
		atomic_store(&td->frees_unknown, 0);
		atomic_store(&td->in_use, 0);
		atomic_store(&td->peak_in_use, 0);
		pthread_mutex_unlock(&td->lock);
	}
	/* What was live went with the devices. */
	pthread_once(&live_once, live_init);
	pthread_mutex_lock(&recorded_lock);
	for (int i = 0; i < PTRMAP_SHARDS; i++)
		for (size_t k = 0; k < recorded.shard[i].cap; k++)
			if (recorded.shard[i].slot[k].key)
				free((void *)(uintptr_t)recorded.shard[i].slot[k].val.buffer);
	ptrmap_fini(&recorded);
	ptrmap_init(&recorded);
	pthread_mutex_unlock(&recorded_lock);
	ptrmap_fini(&live);
	ptrmap_init(&live);
	return rc;
}
