/*
 * check_driver.c - hipsim's scorekeeping (tools/hipsim/driver.c): the end
 * of a run.  hs_driver_finish closes the device, with whatever the run left
 * live, before it takes the report's wall time, and keeps the plot for
 * --svg; hs_driver_close then frees it without closing anything twice.
 */
#include <stdlib.h>

#include "hipcore/hipcore.h"
#include "tools/hipsim/driver.h"
#include "tests/runner.h"

START_TEST(finish_closes_then_times)
{
	struct hs_options opt = { .backend = "sim", .svg = "(plot kept)" };
	struct hs_driver d;
	struct hs_report rep;
	hc_device_info info;
	hc_device dev;
	hc_stream s;
	hc_buffer b;
	uint64_t wall;

	ck_assert_int_eq(hs_driver_open(&d, &opt), 0);
	ck_assert_int_eq(hs_stream(&d, 0, &s), HC_OK);
	for (int i = 0; i < 64; i++) {
		ck_assert_int_eq(hs_event(&d, hc_alloc(s, (1u << 20) + 1, &b), "alloc"), HC_OK);
		hs_sample(&d, 0);
	}
	hs_driver_report(&d, "t", &rep);
	ck_assert_uint_eq(rep.events, 65); /* the stream's open and 64 allocations */
	ck_assert_uint_eq(rep.stats.device_allocs, 64);
	wall = rep.replay_wall_ns;
	dev = d.dev;
	ck_assert_int_eq(hc_device_info_get(dev, &info), HC_OK);
	hs_driver_finish(&d, &rep);
	/* closed inside finish, so before its clock read */
	ck_assert_int_eq(hc_device_info_get(dev, &info), HC_ERR_STALE);
	ck_assert_uint_eq(d.dev.id, 0);
	ck_assert_uint_ge(rep.replay_wall_ns, wall);
	ck_assert(rep.replay_events_per_s > 0.0);
	ck_assert_double_eq_tol(rep.replay_events_per_s, 65e9 / (double)rep.replay_wall_ns, 1e-6);
	/* the report's figures stay those taken before the close */
	ck_assert_uint_eq(rep.stats.device_allocs, 64);
	ck_assert_uint_eq(rep.stats.device_frees, 0);
	ck_assert_ptr_nonnull(d.plot);
	ck_assert_uint_eq(d.plot->samples, 64);
	hs_driver_close(&d);
	ck_assert_ptr_null(d.plot);
}
END_TEST

static Suite *driver_suite(void)
{
	Suite *s = suite_create("driver");
	TCase *tc = tcase_create("finish");

	tcase_add_test(tc, finish_closes_then_times);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(driver_suite);
