/*
 * helpers.c - the helpers the suites of tests/check_streams share
 * (streams_suites.h).
 */
#include "tests/streams/streams_suites.h"

int released;
uint64_t released_at;

void streams_setup(void)
{
	sim_device_open(2048 * MIB, true);
}

hc_device_stats stats(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st;
}

void pattern(unsigned char *p, uint64_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (unsigned char)x;
	}
}

void count_release(void *arg)
{
	released++;
	if (arg)
		hc_device_now(*(hc_device *)arg, &released_at);
}

hc_kernel kern(const char *name)
{
	hc_kernel k;

	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, name, &k), HC_OK);
	return k;
}
