/*
 * streams_suites.h - what the suites of tests/check_streams share: the
 * simulated device in data mode (tests/fixtures/sim_device.h, opened
 * before every case with 2 GiB) and the helpers of tests/streams/helpers.c.
 */
#ifndef HC_TESTS_STREAMS_SUITES_H
#define HC_TESTS_STREAMS_SUITES_H

#include <stdint.h>

#include "hipcore/hipcore.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define MIB HC_MIB

/* The fixture's setup: a 2 GiB simulated device in data mode, stream s. */
void streams_setup(void);
/* The device's statistics, asserted to be read. */
hc_device_stats stats(void);
/* @n pseudo-random bytes from @seed into @p. */
void pattern(unsigned char *p, uint64_t n, unsigned seed);
/* A release callback: counts its runs in @released and, when @arg points
 * at a device, records that device's virtual time in @released_at. */
extern int released;
extern uint64_t released_at;
void count_release(void *arg);
/* The built-in kernel @name, loaded on dev. */
hc_kernel kern(const char *name);

Suite *streams_transfer_suite(void);
Suite *streams_ordering_suite(void);
Suite *streams_drop_queue_suite(void);
Suite *streams_launch_suite(void);
Suite *streams_refusals_suite(void);

#endif
