/*
 * sim_suites.h - what the suites of tests/check_sim share: the simulator's
 * HAL fixture (tests/fixtures/sim_hal.h, set up before every case) and the
 * helpers of tests/sim/helpers.c.
 *
 * Times below are exact virtual nanoseconds computed from the built-in H200
 * profile (sim/sim_profile.c): stream_create 2000, dev_alloc 40000 (up to
 * 1 MiB), host_alloc 600000 (up to 1 MiB), copy_call 1090, launch_call 1090,
 * launch_overhead 500, event_record 300, event_wait 210, event_sync 500,
 * stream_sync 500; a 1 MiB pinned copy lasts 8000 + ceil(2^20 / 55) = 27066,
 * a 1 MiB pageable H2D 10000 + 2^20 / 8 = 141072.
 */
#ifndef HC_TESTS_SIM_SUITES_H
#define HC_TESTS_SIM_SUITES_H

#include "tests/fixtures/sim_hal.h"
#include "tests/runner.h"

#define MIB HC_MIB
#define PINNED_1M (8000 + 19066)
#define PAGEABLE_H2D_1M (10000 + 131072)

#define REQUIRED_KEYS                                                                        \
	"name = \"Test GPU\"\n"                                                              \
	"total_memory = 1 GiB   # a comment\n"                                               \
	"alignment = 512\n"                                                                  \
	"integrated = yes\n"                                                                 \
	"h2d_pinned_bw = 1 MB/s\n"                                                           \
	"h2d_pageable_bw = 2GiB/s\n"                                                         \
	"d2h_pinned_bw = 3000 kB/s\n"                                                        \
	"d2h_pageable_bw = 4 GB/s\n"                                                         \
	"d2d_bw = 5\n"                                                                       \
	"h2d_pinned_latency = 3 us\n"                                                        \
	"h2d_pageable_latency = 2ms\n"                                                       \
	"d2h_pinned_latency = 1 s\n"                                                         \
	"d2h_pageable_latency = 7\n"

/* Writes @text to a fresh temporary file; the caller unlinks @path. */
void write_temp(const char *text, char path[64]);
/* A host copy of @bytes (HC_HAL_CTL_HOST_COPY): what makes calls cold. */
void host_copy(hc_hal_dev *dev, uint64_t bytes);

/* A device (data mode or not), a stream and the built-in kernels' module. */
struct kfix {
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_hal_module *mod;
};

void kfix_open(struct kfix *k, bool data_mode);
/* @n bytes of device memory holding @bytes (uninitialised when NULL). */
hc_hal_dptr dev_with(struct kfix *k, const void *bytes, uint64_t n);
/* @n bytes of @src copied to @dst, the stream synchronised. */
void read_back(struct kfix *k, void *dst, hc_hal_dptr src, uint64_t n);
/* Launches the built-in kernel @name with @n arguments on one block. */
hc_status run_kernel(struct kfix *k, const char *name, size_t n,
		     const hc_hal_dptr *dptr, const uint64_t *bytes);

/* The suites, in the order tests/check_sim runs them. */
Suite *sim_profile_suite(void);
Suite *sim_timing_suite(void);
Suite *sim_memory_suite(void);
Suite *sim_data_suite(void);
Suite *sim_capture_suite(void);
Suite *sim_fault_suite(void);
Suite *sim_threads_suite(void);
Suite *sim_bad_input_suite(void);

#endif
