/*
 * fuzz_layout_file.c - libFuzzer target for hipsim's layout files
 * (--pools FILE), through the path hipsim takes: the parser of
 * tools/hipsim/layout_file.c on the bytes as a file, then the pools it
 * accepts installed on a stream of a simulated device with the public
 * hc_install_memory_pools(), then a few allocations through them.
 *
 * Checked: the parser returns 0 or -1; on -1 its message names the file
 * ("<fuzz>:"); on 0 it gave 1 to HS_LAYOUT_MAX_POOLS pools of the four
 * kinds a layout file names (sliced, exclusive, direct, expandable), each
 * sliced one with a page, a slice no larger than it and
 * a cap of 0 or one to 65535 pages.  What the parser accepts the library
 * must accept: the device's alignment is 1 (its profile says so), so the
 * library rounds nothing and its rules are the parser's, and an install
 * that answers anything but HC_OK is a disagreement between the two.  The
 * allocations then answer HC_OK, HC_ERR_OOM or HC_ERR_TOO_BIG, and a
 * stream's bytes in use never pass its bytes reserved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hipcore/hipcore.h"
#include "tools/hipsim/layout_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A device whose alignment is 1 byte, 1 GiB of memory, opened once. */
static const char profile[] = "name = fuzz\ntotal_memory = 1 GiB\nalignment = 1\nintegrated = 0\n"
			      "h2d_pinned_bw = 1 GB/s\nh2d_pageable_bw = 1 GB/s\n"
			      "d2h_pinned_bw = 1 GB/s\nd2h_pageable_bw = 1 GB/s\nd2d_bw = 1 GB/s\n"
			      "h2d_pinned_latency = 1\nh2d_pageable_latency = 1\n"
			      "d2h_pinned_latency = 1\nd2h_pageable_latency = 1\nd2d_latency = 1\n";
static hc_device dev;

static int open_device(void)
{
	hc_device_options o;
	char path[64];
	int fd;

	if (dev.id)
		return 0;
	fd = memfd_create("fuzz-profile", 0);
	if (fd < 0 || write(fd, profile, sizeof(profile) - 1) != (ssize_t)(sizeof(profile) - 1))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	hc_device_options_init(&o);
	o.profile = path;
	if (hc_device_open("sim", &o, &dev) != HC_OK)
		__builtin_trap(); /* the profile above is valid */
	close(fd);
	return 0;
}

static void check_pools(const hc_pool_spec *p, size_t n)
{
	if (n < 1 || n > HS_LAYOUT_MAX_POOLS)
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		if (p[i].kind != HC_POOL_SLICED && p[i].kind != HC_POOL_EXCLUSIVE &&
		    p[i].kind != HC_POOL_DIRECT && p[i].kind != HC_POOL_EXPANDABLE)
			__builtin_trap();
		if (p[i].kind != HC_POOL_SLICED)
			continue;
		if (p[i].page_size == 0 || p[i].max_slice_size > p[i].page_size)
			__builtin_trap();
		if (p[i].max_pool_size && (p[i].max_pool_size < p[i].page_size ||
					   p[i].max_pool_size / p[i].page_size > 65535))
			__builtin_trap();
	}
}

/* Allocations of sizes taken from the input's bytes, then their frees. */
static void allocate(hc_stream s, const uint8_t *data, size_t size)
{
	hc_buffer b[16];
	size_t nb = 0;
	hc_memory_usage u;

	for (size_t i = 0; i + 2 < size && nb < 16; i += 3) {
		uint64_t n = ((uint64_t)data[i] << 8 | data[i + 1]) << (data[i + 2] % 24);
		hc_status rc = hc_alloc(s, n, &b[nb]);

		if (rc == HC_OK)
			nb++;
		else if (rc != HC_ERR_OOM && rc != HC_ERR_TOO_BIG)
			__builtin_trap();
		if (hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u) != HC_OK ||
		    u.bytes_in_use > u.bytes_reserved)
			__builtin_trap();
	}
	while (nb)
		if (hc_free(b[--nb]) != HC_OK)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hc_pool_spec pools[HS_LAYOUT_MAX_POOLS];
	hc_pool_layout layout = { .preset = HC_LAYOUT_EXPLICIT, .pools = pools };
	char err[1024];
	size_t n = 0;
	hc_stream s;
	FILE *f;
	int rc;

	if (size == 0 || size > 64 * 1024 || open_device() != 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	err[0] = 0;
	rc = hs_layout_parse(f, "<fuzz>", pools, &n, err, sizeof(err));
	fclose(f);
	if (rc != 0) {
		if (rc != -1 || strncmp(err, "<fuzz>", 6) != 0)
			__builtin_trap();
		return 0;
	}
	check_pools(pools, n);
	layout.n_pools = n;
	if (hc_stream_open(dev, &s) != HC_OK)
		__builtin_trap();
	if (hc_install_memory_pools(s, &layout) != HC_OK) {
		hc_error_info e;

		hc_last_error(&e);
		fprintf(stderr, "parser accepted a layout the library refuses: %s\n", e.message);
		__builtin_trap();
	}
	allocate(s, data, size);
	if (hc_stream_close(s) != HC_OK)
		__builtin_trap();
	return 0;
}
