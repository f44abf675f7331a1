/*
 * memory.c - the simulated device's memory: allocations until the exact
 * out-of-memory count, address reuse, a huge device costing no host memory
 * without data mode, allocation costs by size, and calls that run cold
 * after host copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Capacity and the address space                                      */
/* ------------------------------------------------------------------ */

START_TEST(alloc_until_oom_at_exact_count)
{
	hc_hal_dev *dev = open_dev(false, MIB, 0, NULL);
	hc_hal_dptr p[257], q;
	struct hc_hal_props props;
	int i;

	ck_assert_int_eq(ops->device_props(dev, &props), HC_OK);
	ck_assert_uint_eq(props.total_memory, MIB);
	for (i = 0; i < 257; i++)
		if (ops->mem_alloc(dev, 4000, &p[i]) != HC_OK) /* 4000 rounds to 4096 */
			break;
	ck_assert_int_eq(i, 256);
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &q), HC_ERR_OOM);
	ck_assert(last_error_has("1 bytes requested (256 rounded), 1048576 in use, capacity 1048576"));
	for (int j = 0; j < 256; j++) {
		ck_assert_uint_ne(p[j], 0);
		ck_assert_uint_eq(p[j] % 256, 0);
		if (j)
			ck_assert_uint_ge(p[j], p[j - 1] + 4096);
	}
	ck_assert_uint_eq(stats(dev).device_bytes_live, MIB);
	ck_assert_int_eq(ops->mem_free(dev, p[100]), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &q), HC_OK);
	ck_assert_uint_eq(q, p[100]); /* the freed range is reused */
	ck_assert_int_eq(ops->mem_alloc(dev, 1, &q), HC_ERR_OOM);
	ops->device_close(dev); /* frees the live allocations */
}
END_TEST

START_TEST(address_space_is_reused)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b, c, first = 0, x;

	/* first fit: a hole is filled before the top grows */
	ck_assert_int_eq(ops->mem_alloc(dev, 1000, &a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 5000, &b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 1000, &c), HC_OK);
	ck_assert_uint_eq(b, a + 1024);
	ck_assert_uint_eq(c, b + 5120);
	ck_assert_int_eq(ops->mem_free(dev, b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 256, &x), HC_OK);
	ck_assert_uint_eq(x, b);
	ck_assert_int_eq(ops->mem_free(dev, x), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, c), HC_OK);
	/* everything coalesced back: a long alloc/free loop keeps one address */
	for (int i = 0; i < 20000; i++) {
		ck_assert_int_eq(ops->mem_alloc(dev, (uint64_t)(i % 7 + 1) * 100000, &x), HC_OK);
		if (i == 0)
			first = x;
		ck_assert_uint_eq(x, first);
		ck_assert_int_eq(ops->mem_free(dev, x), HC_OK);
	}
	ck_assert_uint_eq(first, a);
	ops->device_close(dev);
}
END_TEST

START_TEST(huge_device_without_data_mode_costs_no_memory)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a, b;

	ck_assert_int_eq(ops->mem_alloc(dev, 100ULL << 30, &a), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 40ULL << 30, &b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 1ULL << 30, &b), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_alloc(dev, UINT64_MAX, &b), HC_ERR_OOM);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	/* freeing 100 GiB costs 37 us + 306 ns per MiB beyond the first */
	ops->device_close(dev);
}
END_TEST

START_TEST(alloc_cost_scales_with_size)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_dptr a;
	void *h;
	uint64_t t;

	ck_assert_int_eq(ops->mem_alloc(dev, 512 * MIB, &a), HC_OK);
	ck_assert_uint_eq(now(dev), 40000 + 511 * 600);
	t = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 37000 + 511 * 306); /* the pair: 539.8 us */
	t = now(dev);
	ck_assert_int_eq(ops->host_alloc(dev, 32 * MIB, &h), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 600000 + 31 * 400000ULL);
	t = now(dev);
	ck_assert_int_eq(ops->host_free(dev, h), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 50000 + 31 * 24800);
	ops->device_close(dev);
}
END_TEST

/* dev_alloc_small / dev_free_small price device allocations below 1 MiB;
 * from 1 MiB the base + per-MiB line holds. */
START_TEST(small_allocations_cost_the_small_figures)
{
	static const char prof[] = REQUIRED_KEYS "d2d_latency = 1 us\ndev_alloc = 40 us\ndev_alloc_per_mib = 0\n"
						 "dev_free = 30 us\ndev_free_per_mib = 0\n"
						 "dev_alloc_small = 2 us\ndev_free_small = 1500\n";
	char path[64];
	hc_hal_dev *dev;
	hc_hal_dptr a, b;
	uint64_t t;

	write_temp(prof, path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	t = now(dev);
	ck_assert_int_eq(ops->mem_alloc(dev, 64 * 1024, &a), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 2000);
	t = now(dev);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &b), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 40000);
	t = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 1500);
	t = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, b), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 30000);
	ops->device_close(dev);
}
END_TEST

/* The host time of one event_record (the event destroyed after, untimed). */
static uint64_t record_cost(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_hal_event *e = NULL;
	uint64_t t = now(dev), d;

	ck_assert_int_eq(ops->event_record(dev, s, &e), HC_OK);
	d = now(dev) - t;
	ops->event_destroy(dev, e);
	return d;
}

/* sim_cold.c: a call pays a share of its cold_ figure by the bytes
 * host-copied since its kind last ran (none up to host_cold_bytes / 16, a
 * quarter per doubling, all from host_cold_bytes); back to back it is hot. */
START_TEST(calls_after_host_copies_run_cold)
{
	static const char cold[] = REQUIRED_KEYS "d2d_latency = 1 us\nevent_record = 1000\nevent_destroy = 100\n"
					       "dev_alloc = 40 us\ndev_alloc_per_mib = 0\n"
					       "cold_event_record = 2000\ncold_dev_alloc = 36 us\n";
	char text[sizeof(cold) + 64], path[64];
	hc_hal_dev *dev;
	hc_hal_stream *s;
	hc_hal_dptr a, b;
	uint64_t t;

	snprintf(text, sizeof(text), "%shost_cold_bytes = 8 MiB\n", cold);
	write_temp(text, path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_uint_eq(record_cost(dev, s), 1000); /* nothing copied yet */
	host_copy(dev, 512 * 1024);
	ck_assert_uint_eq(record_cost(dev, s), 1000); /* up to 8 MiB / 16: none */
	host_copy(dev, MIB);
	ck_assert_uint_eq(record_cost(dev, s), 1500); /* one doubling: a quarter */
	host_copy(dev, 3 * MIB);
	ck_assert_uint_eq(record_cost(dev, s), 2250); /* 1.5 doublings past 2 MiB */
	host_copy(dev, 3 * MIB);
	host_copy(dev, 5 * MIB);
	ck_assert_uint_eq(record_cost(dev, s), 3000); /* 8 MiB and more: all */
	ck_assert_uint_eq(record_cost(dev, s), 1000); /* back to back: hot */
	t = now(dev); /* never called: 12.5 MiB copied since the start */
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &a), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 76000);
	host_copy(dev, 2 * MIB);
	t = now(dev);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &b), HC_OK);
	ck_assert_uint_eq(now(dev) - t, 58000); /* 2 MiB: half */
	ck_assert_int_eq(ops->mem_free(dev, a), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, b), HC_OK);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);

	/* host_cold_bytes 0 (and in every profile written before it): never */
	snprintf(text, sizeof(text), "%shost_cold_bytes = 0\n", cold);
	write_temp(text, path);
	dev = open_dev(false, 0, 0, path);
	unlink(path);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	host_copy(dev, 64 * MIB);
	ck_assert_uint_eq(record_cost(dev, s), 1000);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ops->device_close(dev);
}
END_TEST

Suite *sim_memory_suite(void)
{
	Suite *s = suite_create("memory");
	TCase *tc;

	tc = tcase_create("memory");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, alloc_until_oom_at_exact_count);
	tcase_add_test(tc, address_space_is_reused);
	tcase_add_test(tc, huge_device_without_data_mode_costs_no_memory);
	tcase_add_test(tc, calls_after_host_copies_run_cold);
	tcase_add_test(tc, alloc_cost_scales_with_size);
	tcase_add_test(tc, small_allocations_cost_the_small_figures);
	suite_add_tcase(s, tc);
	return s;
}
