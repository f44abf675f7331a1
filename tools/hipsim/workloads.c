/*
 * workloads.c - deterministic built-in workloads shaped like real services.
 *
 * service:   requests on several streams: upload, kernel, read back, free;
 *            a weights buffer shared by every stream (cross-stream waits).
 * training:  a loop over layers: weights and optimizer state live for the
 *            whole run, activations grow through the forward pass and are
 *            freed in the backward pass, gradients come and go per step.
 * inference: bursts of requests of varied sizes over several streams.
 * loader:    copy-heavy: large pageable and file-backed uploads, no kernels.
 *
 * The kernels are the built-in ones (hal/builtins.h), and every launch is
 * one they can run on every backend: each reads only bytes a write or an
 * earlier kernel wrote, and binds what it needs.  So the bytes read back
 * are defined and the same on the simulator in data mode and on a GPU,
 * whose fresh allocations hold whatever they held (--data compares them:
 * hs_read_fold).  Uploads come from a scratch buffer filled from the seed
 * before the device opens (workload_prepare), as a program's data would
 * be, not from never-touched pages that all map the zero page.
 */
#include <string.h>

#include "tools/hipsim/workloads.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A deterministic size in [lo, hi), rounded to 256 bytes like a tensor. */
static uint64_t pick_size(uint64_t *rng, uint64_t lo, uint64_t hi)
{
	uint64_t s = lo + splitmix64(rng) % (hi - lo);
	return (s + 255) & ~(uint64_t)255;
}

/* Scratch host memory for uploads, and where the workloads read back. */
static uint8_t scratch[64u << 20];
/* Where the loader's --data read-backs land: not scratch, which a
 * file-backed write above the staging limit still reads until its fence. */
static uint8_t readback[256u << 10];

void workload_prepare(uint64_t seed)
{
	uint64_t state = seed ^ 0x6a09e667f3bcc909ull;

	for (size_t i = 0; i < sizeof(scratch); i += 8) {
		uint64_t w = splitmix64(&state);

		memcpy(scratch + i, &w, 8);
	}
}

/* The driver's memory sampling after an event, timed as a call of its
 * own under --call-times. */
static void w_sample(struct hs_driver *d, uint32_t si)
{
	uint64_t t0 = hs_call_begin(d);

	hs_sample(d, si);
	hs_call_end(d, HS_CALL_SAMPLE, t0);
}

static hc_buffer w_alloc(struct hs_driver *d, uint32_t si, uint64_t size)
{
	hc_stream s;
	hc_buffer b = { 0 };
	hc_status rc;
	uint64_t t0;

	if (hs_stream(d, si, &s) != HC_OK)
		return b;
	t0 = hs_call_begin(d);
	rc = hc_alloc(s, size, &b);
	hs_call_end(d, HS_CALL_ALLOC, t0);
	if (hs_event(d, rc, "alloc") != HC_OK)
		b.id = 0;
	w_sample(d, si);
	return b;
}

static void w_free(struct hs_driver *d, uint32_t si, hc_buffer *b)
{
	hc_status rc;
	uint64_t t0;

	if (!b->id)
		return;
	t0 = hs_call_begin(d);
	rc = hc_free(*b);
	hs_call_end(d, HS_CALL_FREE, t0);
	hs_event(d, rc, "free");
	b->id = 0;
	w_sample(d, si);
}

static void w_write(struct hs_driver *d, uint32_t si, hc_buffer b, uint64_t size,
		    hc_alloc_property prop)
{
	hc_stream s;
	hc_status rc;
	uint64_t t0;

	if (!b.id || hs_stream(d, si, &s) != HC_OK)
		return;
	if (size > sizeof(scratch))
		size = sizeof(scratch);
	t0 = hs_call_begin(d);
	rc = hc_write(s, b, 0, scratch, size, prop, NULL, NULL);
	hs_call_end(d, HS_CALL_WRITE, t0);
	hs_event(d, rc, "write");
	w_sample(d, si);
}

static void w_read(struct hs_driver *d, uint32_t si, hc_buffer b, uint64_t size)
{
	hc_stream s;
	hc_status rc;
	uint64_t t0;

	if (!b.id || hs_stream(d, si, &s) != HC_OK)
		return;
	if (size > sizeof(scratch))
		size = sizeof(scratch);
	t0 = hs_call_begin(d);
	rc = hc_read(s, b, 0, scratch, size, NULL);
	hs_call_end(d, HS_CALL_READ, t0);
	if (hs_event(d, rc, "read") == HC_OK && d->opt.data_mode)
		hs_read_fold(d, scratch, size);
}

/* --data: the loader reads back what it wrote, @size bytes at @off, into
 * readback[] (it reads nothing otherwise). */
static void w_check_read(struct hs_driver *d, uint32_t si, hc_buffer b, uint64_t off,
			 uint64_t size)
{
	hc_stream s;
	hc_status rc;
	uint64_t t0;

	if (!b.id || hs_stream(d, si, &s) != HC_OK)
		return;
	if (size > sizeof(readback))
		size = sizeof(readback);
	t0 = hs_call_begin(d);
	rc = hc_read(s, b, off, readback, size, NULL);
	hs_call_end(d, HS_CALL_READ, t0);
	if (hs_event(d, rc, "read") == HC_OK)
		hs_read_fold(d, readback, size);
}

static void w_launch(struct hs_driver *d, uint32_t si, hc_kernel k, const hc_binding *bind,
		     size_t nbind, const uint64_t *info, size_t ninfo, uint64_t ns)
{
	hc_stream s;
	hc_launch_desc l = { .kernel = k, .grid = { 64, 1, 1 }, .block = { 256, 1, 1 },
			     .info = info, .info_words = ninfo, .bindings = bind,
			     .n_bindings = nbind,
			     .duration_hint_ns = d->opt.model_kernels ? 0 : ns };
	hc_status rc;
	uint64_t t0;

	if (hs_stream(d, si, &s) != HC_OK)
		return;
	t0 = hs_call_begin(d);
	rc = hc_launch(s, &l);
	hs_call_end(d, HS_CALL_LAUNCH, t0);
	hs_event(d, rc, "launch");
	w_sample(d, si);
}

static void w_sync(struct hs_driver *d, uint32_t si)
{
	hc_stream s;

	if (hs_stream(d, si, &s) == HC_OK) {
		uint64_t t0 = hs_call_begin(d);
		hc_status rc = hc_sync(s);

		hs_call_end(d, HS_CALL_SYNC, t0);
		hs_event(d, rc, "sync");
	}
}

static hc_kernel w_kernel(struct hs_driver *d, const char *name)
{
	hc_kernel k = { 0 };

	hs_event(d, hc_kernel_load(d->dev, d->opt.kernel_image, d->opt.kernel_image_size, name, &k), "kernel_load");
	return k;
}

static void run_service(struct hs_driver *d, const struct workload_params *p)
{
	uint64_t rng = p->seed;
	hc_kernel add = w_kernel(d, "add");
	uint64_t wsize = 8u << 20;
	hc_buffer weights = w_alloc(d, 0, wsize);

	w_write(d, 0, weights, wsize, HC_ALLOC_NATIVE);
	for (uint64_t step = 0; step < p->steps; step++) {
		uint32_t si = (uint32_t)(step % p->streams);
		uint64_t n = pick_size(&rng, 4096, 4u << 20);
		hc_buffer in = w_alloc(d, si, n), out = w_alloc(d, si, n);
		hc_binding bind[3] = {
			{ in, 0, n, HC_ACCESS_READ },
			{ weights, 0, n < wsize ? n : wsize, HC_ACCESS_READ },
			{ out, 0, n, HC_ACCESS_WRITE },
		};
		uint64_t info[2] = { n / 4, step % 8 };

		w_write(d, si, in, n, HC_ALLOC_NATIVE);
		if (in.id && out.id && weights.id && n <= wsize)
			w_launch(d, si, add, bind, 3, info, 2, 20000 + n / 1000);
		w_read(d, si, out, n);
		w_free(d, si, &in);
		w_free(d, si, &out);
	}
	for (uint32_t si = 0; si < p->streams; si++)
		w_sync(d, si);
	w_free(d, 0, &weights);
}

/*
 * Per layer and step: the forward pass fills the activation with a value
 * of the step and layer (fill: info word 0 is value | width << 32); the
 * backward pass adds the activation and the weights into the gradient and
 * the optimizer adds the gradient into the weights, both over the bytes
 * the activation and the weights have in common, m = min(asz, wsz) (add
 * reads as many bytes as it writes); the optimizer state is bound as the
 * fourth parameter, read and written as a real optimizer's would be, and
 * add leaves it alone.  The loss read-back then sees every kernel's work.
 */
static void run_training(struct hs_driver *d, const struct workload_params *p)
{
	enum { LAYERS = 12 };
	uint64_t rng = p->seed;
	hc_kernel add = w_kernel(d, "add"), fill = w_kernel(d, "fill");
	hc_buffer weight[LAYERS], state[LAYERS], act[LAYERS], grad[LAYERS];
	uint64_t wsz[LAYERS], asz[LAYERS];

	for (int l = 0; l < LAYERS; l++) {
		wsz[l] = pick_size(&rng, 1u << 20, 24u << 20);
		weight[l] = w_alloc(d, 0, wsz[l]);
		w_write(d, 0, weight[l], wsz[l], HC_ALLOC_NATIVE);
		state[l] = w_alloc(d, 0, 2 * wsz[l]);
	}
	for (uint64_t step = 0; step < p->steps; step++) {
		uint64_t batch = 1 + step % 4;
		for (int l = 0; l < LAYERS; l++) { /* forward */
			uint32_t value = (uint32_t)(step * LAYERS + (uint64_t)l + 1);

			asz[l] = pick_size(&rng, 512u << 10, 8u << 20) * batch;
			act[l] = w_alloc(d, 0, asz[l]);
			hc_binding b[1] = { { act[l], 0, asz[l], HC_ACCESS_WRITE } };
			uint64_t info[3] = { value | (uint64_t)4 << 32, batch, asz[l] };
			w_launch(d, 0, fill, b, 1, info, 3, 50000 + asz[l] / 500);
		}
		for (int l = LAYERS - 1; l >= 0; l--) { /* backward */
			uint64_t m = asz[l] < wsz[l] ? asz[l] : wsz[l];

			grad[l] = w_alloc(d, 0, wsz[l]);
			hc_binding b[3] = { { act[l], 0, m, HC_ACCESS_READ },
					    { weight[l], 0, m, HC_ACCESS_READ },
					    { grad[l], 0, m, HC_ACCESS_WRITE } };
			uint64_t info[3] = { (uint64_t)l, batch, wsz[l] };
			w_launch(d, 0, add, b, 3, info, 3, 100000 + wsz[l] / 300);
			w_free(d, 0, &act[l]);
			hc_binding o[4] = { { grad[l], 0, m, HC_ACCESS_READ },
					    { weight[l], 0, m, HC_ACCESS_READ },
					    { weight[l], 0, m, HC_ACCESS_WRITE },
					    { state[l], 0, 2 * wsz[l], HC_ACCESS_READ_WRITE } };
			uint64_t oinfo[2] = { (uint64_t)l, 7 };
			w_launch(d, 0, add, o, 4, oinfo, 2, 30000 + wsz[l] / 1000);
			w_free(d, 0, &grad[l]);
		}
		if (step % 16 == 15) { /* a loss read-back now and then */
			w_read(d, 0, weight[0], 256);
		}
	}
	w_sync(d, 0);
	for (int l = 0; l < LAYERS; l++) {
		w_free(d, 0, &weight[l]);
		w_free(d, 0, &state[l]);
	}
}

static void run_inference(struct hs_driver *d, const struct workload_params *p)
{
	uint64_t rng = p->seed;
	hc_kernel add = w_kernel(d, "add");
	uint64_t msz = 32u << 20;
	hc_buffer model = w_alloc(d, 0, msz);

	w_write(d, 0, model, msz, HC_ALLOC_NATIVE);
	for (uint64_t step = 0; step < p->steps; step++) {
		uint32_t burst = 1 + (uint32_t)(splitmix64(&rng) % 8);
		for (uint32_t r = 0; r < burst; r++) {
			uint32_t si = (uint32_t)((step + r) % p->streams);
			uint64_t n = pick_size(&rng, 16u << 10, 2u << 20);
			hc_buffer in = w_alloc(d, si, n), kv = w_alloc(d, si, 4 * n), out = w_alloc(d, si, n);
			/* out = in + the model's first n bytes; the kv cache is
			 * bound for reading and writing, and add leaves it */
			hc_binding b[4] = { { in, 0, n, HC_ACCESS_READ },
					    { model, 0, msz, HC_ACCESS_READ },
					    { out, 0, n, HC_ACCESS_WRITE },
					    { kv, 0, 4 * n, HC_ACCESS_READ_WRITE } };
			uint64_t info[2] = { n, r };
			w_write(d, si, in, n, HC_ALLOC_NATIVE);
			w_launch(d, si, add, b, 4, info, 2, 40000 + n / 200);
			w_read(d, si, out, n);
			w_free(d, si, &in);
			w_free(d, si, &kv);
			w_free(d, si, &out);
		}
	}
	for (uint32_t si = 0; si < p->streams; si++)
		w_sync(d, si);
	w_free(d, 0, &model);
}

static void run_loader(struct hs_driver *d, const struct workload_params *p)
{
	uint64_t rng = p->seed;

	for (uint64_t step = 0; step < p->steps; step++) {
		uint32_t si = (uint32_t)(step % p->streams);
		uint64_t n = pick_size(&rng, 64u << 10, 48u << 20);
		hc_alloc_property prop = step % 3 == 0 ? HC_ALLOC_FILE : HC_ALLOC_NATIVE;
		hc_buffer b = w_alloc(d, si, n);
		w_write(d, si, b, n, prop);
		if (d->opt.data_mode) { /* --data: its first and last bytes back */
			w_check_read(d, si, b, 0, n);
			w_check_read(d, si, b, n > sizeof(readback) ? n - sizeof(readback) : 0, n);
		}
		if (step % 8 == 7)
			w_sync(d, si);
		w_free(d, si, &b);
	}
	for (uint32_t si = 0; si < p->streams; si++)
		w_sync(d, si);
}

static const struct workload workloads[] = {
	{ "service", "requests on several streams sharing weights", run_service },
	{ "training", "layers, activations, gradients and optimizer state", run_training },
	{ "inference", "bursts of requests over several streams", run_inference },
	{ "loader", "large pageable and file-backed uploads", run_loader },
};

const struct workload *workload_find(const char *name)
{
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (strcmp(workloads[i].name, name) == 0)
			return &workloads[i];
	return NULL;
}
