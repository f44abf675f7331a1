/*
 * service.c - a small service linking the installed libhipcore.
 *
 * It opens a device with backend "auto" (a GPU when a HIP runtime and a
 * device are present, the simulator otherwise), then serves a stream of
 * synthetic requests spread over four streams: each request uploads its
 * input, runs on the device, reads the result back and checks it.
 *
 * Build: make -C examples   (uses `pkg-config hipcore`)
 */
#include <hipcore/hipcore.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTREAMS 4
#define NREQUESTS 64

static int fail(const char *what, hc_status rc)
{
	hc_error_info e;

	hc_last_error(&e);
	fprintf(stderr, "service: %s: %s (%s)\n", what, hc_status_str(rc), e.message);
	return 1;
}

/* One request: upload @n bytes, copy them device-side when the backend has
 * built-in kernels, read them back and compare. */
static int serve(hc_stream s, hc_kernel copy, bool have_kernel, uint32_t req)
{
	uint64_t n = 4096 + (uint64_t)(req % 7) * 65536;
	uint8_t *in = malloc(n), *out = malloc(n);
	hc_buffer a = { 0 }, b = { 0 };
	hc_status rc;
	int bad = 1;

	if (!in || !out)
		goto out_free;
	for (uint64_t i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 31 + req);
	if ((rc = hc_alloc(s, n, &a)) != HC_OK || (rc = hc_alloc(s, n, &b)) != HC_OK) {
		fail("alloc", rc);
		goto out_release;
	}
	if ((rc = hc_write(s, a, 0, in, n, HC_ALLOC_NATIVE, NULL, NULL)) != HC_OK) {
		fail("write", rc);
		goto out_release;
	}
	if (have_kernel) {
		hc_binding bind[2] = { { a, 0, n, HC_ACCESS_READ }, { b, 0, n, HC_ACCESS_WRITE } };
		hc_launch_desc l = { .kernel = copy, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
				     .bindings = bind, .n_bindings = 2 };
		if ((rc = hc_launch(s, &l)) != HC_OK) {
			fail("launch", rc);
			goto out_release;
		}
	} else if ((rc = hc_write(s, b, 0, in, n, HC_ALLOC_NATIVE, NULL, NULL)) != HC_OK) {
		fail("write", rc);
		goto out_release;
	}
	if ((rc = hc_read(s, b, 0, out, n, NULL)) != HC_OK) {
		fail("read", rc);
		goto out_release;
	}
	bad = memcmp(in, out, n) != 0;
	if (bad)
		fprintf(stderr, "service: request %u: wrong bytes\n", req);
out_release:
	if (a.id)
		hc_free(a);
	if (b.id)
		hc_free(b);
out_free:
	free(in);
	free(out);
	return bad;
}

int main(void)
{
	hc_device_options opts;
	hc_device dev;
	hc_device_info info;
	hc_stream streams[NSTREAMS];
	hc_kernel copy = { 0 };
	hc_status rc;
	int bad = 0;

	hc_device_options_init(&opts);
	opts.data_mode = true; /* on the simulator: real bytes */
	if ((rc = hc_device_open("auto", &opts, &dev)) != HC_OK)
		return fail("open device", rc);
	hc_device_info_get(dev, &info);
	if (strcmp(info.backend, "sim") == 0)
		printf("service: no GPU runtime or device found; running on the simulator\n");
	printf("service: device \"%s\" (%s), %" PRIu64 " MiB\n", info.name, info.backend,
	       info.total_memory >> 20);
	bool have_kernel = hc_kernel_load(dev, NULL, 0, "copy", &copy) == HC_OK;
	for (int i = 0; i < NSTREAMS; i++)
		if ((rc = hc_stream_open(dev, &streams[i])) != HC_OK)
			return fail("open stream", rc);
	for (uint32_t r = 0; r < NREQUESTS; r++)
		bad += serve(streams[r % NSTREAMS], copy, have_kernel, r);
	for (int i = 0; i < NSTREAMS; i++)
		hc_stream_close(streams[i]);
	hc_device_close(dev);
	printf("service: %d requests served, %d wrong\n", NREQUESTS, bad);
	return bad ? 1 : 0;
}
