/*
 * fuzz_profile.c - libFuzzer target for the simulator's device profiles,
 * through the path a user's --profile takes: the text parsed, then, when
 * it parses, a device opened with it and driven.
 *
 * The input, NUL-terminated, is handed to hc_sim_profile_parse().  Checked:
 * no crash or sanitizer report; the status is HC_OK or HC_ERR_PARSE (never
 * anything else for non-NULL arguments); on HC_OK the profile is one the
 * simulator can run (a power-of-two alignment, non-zero memory, jitter at
 * most 100 %), and on failure the thread's message is set and names
 * "<fuzz>:".  An accepted profile is then written to a memfd and opened by
 * path with hc_device_open("sim"), as hipsim opens a profile file, which
 * must succeed; a stream, allocations, a write, a launch of a built-in
 * kernel, a read, syncs and a graph capture and replay run on it.  Every
 * figure is at its limit somewhere in the corpus, so the cost model's
 * arithmetic (UBSan checks overflow and division) meets the ranges the
 * loader allows.  The device's calls may fail for what the profile says
 * (too little memory for the allocations), never crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hipcore/hipcore.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int profile_fd = -1;

/* A few public calls on a device opened with @text as its profile file. */
static void drive(const char *text, uint64_t total_memory, uint64_t seed)
{
	static uint8_t host[64 * 1024];
	hc_device_options o;
	hc_device dev;
	hc_stream s;
	hc_buffer a = { 0 }, b = { 0 };
	hc_kernel k = { 0 };
	hc_graph g;
	char path[64];
	size_t len = strlen(text);

	if (profile_fd < 0 && (profile_fd = memfd_create("fuzz-profile", 0)) < 0)
		return;
	if (ftruncate(profile_fd, 0) != 0 || pwrite(profile_fd, text, len, 0) != (ssize_t)len)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", profile_fd);
	hc_device_options_init(&o);
	o.profile = path;
	o.seed = seed;
	o.data_mode = true;
	/* data mode backs device memory with the host's: at most 256 MiB of it */
	if (total_memory > (256u << 20))
		o.capacity = 256u << 20;
	if (hc_device_open("sim", &o, &dev) != HC_OK)
		__builtin_trap(); /* it parsed: the same bytes must load */
	if (hc_stream_open(dev, &s) == HC_OK) {
		if (hc_alloc(s, sizeof(host), &a) == HC_OK && hc_alloc(s, sizeof(host), &b) == HC_OK) {
			hc_binding bind[2] = { { a, 0, sizeof(host), HC_ACCESS_READ },
					       { b, 0, sizeof(host), HC_ACCESS_WRITE } };
			hc_launch_desc l = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
					     .bindings = bind, .n_bindings = 2 };

			(void)hc_write(s, a, 0, host, sizeof(host), HC_ALLOC_NATIVE, NULL, NULL);
			if (hc_kernel_load(dev, NULL, 0, "copy", &k) == HC_OK) {
				l.kernel = k;
				(void)hc_launch(s, &l);
				if (hc_graph_prepare(s) == HC_OK && hc_graph_begin(s) == HC_OK) {
					(void)hc_launch(s, &l);
					if (hc_graph_end(s, &g) == HC_OK) {
						(void)hc_graph_replay(s, g);
						(void)hc_graph_destroy(g);
					}
				}
			}
			(void)hc_read(s, b, 0, host, sizeof(host), NULL);
			(void)hc_sync(s);
		}
		if (a.id)
			(void)hc_free(a);
		if (b.id)
			(void)hc_free(b);
		(void)hc_stream_close(s);
	}
	if (hc_device_close(dev) != HC_OK)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hc_sim_profile p;
	hc_error_info e;
	char *text = malloc(size + 1);
	hc_status rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&p, 0xa5, sizeof(p));
	rc = hc_sim_profile_parse(text, "<fuzz>", &p);
	if (rc == HC_OK) {
		if (p.alignment == 0 || (p.alignment & (p.alignment - 1)) != 0)
			__builtin_trap();
		if (p.total_memory == 0 || p.jitter_ppm > 1000000)
			__builtin_trap();
		if (memchr(p.name, '\0', sizeof(p.name)) == NULL)
			__builtin_trap();
		drive(text, p.total_memory, size);
	} else {
		if (rc != HC_ERR_PARSE)
			__builtin_trap();
		if (hc_last_error(&e) != HC_OK || e.status != HC_ERR_PARSE ||
		    strncmp(e.message, "<fuzz>:", 7) != 0)
			__builtin_trap();
	}
	free(text);
	return 0;
}
