/*
 * timing.c - the simulator's clock: the same seed gives the same numbers
 * and jitter only lengthens device work; events order streams; pageable
 * copies block the host, pinned ones do not until a sync; a destroyed
 * stream's work finishes first; the copy engines serialise one direction
 * and overlap the two.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Determinism                                                         */
/* ------------------------------------------------------------------ */

struct script_result {
	uint64_t t[6];
	struct hc_hal_stats st;
};

static struct script_result run_script(hc_hal_dev *dev)
{
	struct script_result r;
	hc_hal_stream *a, *b;
	hc_hal_event *ea;
	hc_hal_module *mod;
	hc_hal_function *fn;
	hc_hal_dptr d1, d2;
	void *pin;
	static unsigned char page[64 * 1024];
	struct hc_hal_launch l = { .duration_hint_ns = 12345 };

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(ops->stream_create(dev, &a), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &d1), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, 3 * MIB, &d2), HC_OK);
	ck_assert_int_eq(ops->host_alloc(dev, MIB, &pin), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "fill", &fn), HC_OK);
	r.t[0] = now(dev);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(ops->copy_h2d(dev, a, d1, pin, MIB, true), HC_OK);
		ck_assert_int_eq(ops->copy_h2d(dev, b, d2, page, sizeof(page), false), HC_OK);
		ck_assert_int_eq(ops->launch(dev, a, fn, &l), HC_OK);
		ck_assert_int_eq(ops->event_record(dev, a, &ea), HC_OK);
		ck_assert_int_eq(ops->event_wait(dev, b, ea), HC_OK);
		ck_assert_int_eq(ops->copy_d2d(dev, b, d2, d1, MIB), HC_OK);
		ck_assert_int_eq(ops->copy_d2h(dev, b, pin, d2, MIB, true), HC_OK);
		ops->event_destroy(dev, ea);
	}
	r.t[1] = now(dev);
	ck_assert_int_eq(ops->stream_sync(dev, a), HC_OK);
	r.t[2] = now(dev);
	ck_assert_int_eq(ops->stream_sync(dev, b), HC_OK);
	r.t[3] = now(dev);
	ck_assert_int_eq(ops->mem_free(dev, d1), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, d2), HC_OK);
	ck_assert_int_eq(ops->host_free(dev, pin), HC_OK);
	ck_assert_int_eq(ops->stream_destroy(dev, a), HC_OK);
	ck_assert_int_eq(ops->stream_destroy(dev, b), HC_OK);
	ops->module_unload(dev, mod);
	r.t[4] = now(dev);
	r.st = stats(dev);
	return r;
}

static const char jitter_profile[] = REQUIRED_KEYS "d2d_latency = 1 us\njitter_ppm = 200000\n";

START_TEST(determinism_same_seed_same_numbers)
{
	char path[64];
	hc_hal_dev *d1, *d2, *d3;
	struct script_result r1, r2, r3;

	write_temp(jitter_profile, path);
	d1 = open_dev(false, 0, 42, path);
	d2 = open_dev(false, 0, 42, path);
	d3 = open_dev(false, 0, 43, path);
	r1 = run_script(d1);
	r2 = run_script(d2);
	r3 = run_script(d3);
	ck_assert_mem_eq(r1.t, r2.t, sizeof(r1.t));
	ck_assert_mem_eq(&r1.st, &r2.st, sizeof(r1.st));
	ck_assert_uint_ne(r1.t[3], r3.t[3]); /* another seed, other jitter */
	ck_assert_uint_eq(r1.st.launches, 5);
	ck_assert_uint_eq(r1.st.copies_h2d, 10);
	ck_assert_uint_eq(r1.st.copies_d2d, 5);
	ck_assert_uint_eq(r1.st.copies_d2h, 5);
	ck_assert_uint_eq(r1.st.bytes_h2d, 5 * (MIB + 64 * 1024));
	ck_assert_uint_eq(r1.st.bytes_d2h, 5 * MIB);
	ck_assert_uint_eq(r1.st.stream_waits, 5);
	ck_assert_uint_eq(r1.st.host_waits, 2);
	ck_assert_uint_eq(r1.st.device_allocs, 2);
	ck_assert_uint_eq(r1.st.device_frees, 2);
	ck_assert_uint_eq(r1.st.host_allocs, 1);
	ck_assert_uint_eq(r1.st.host_frees, 1);
	ck_assert_uint_eq(r1.st.device_bytes_live, 0);
	ck_assert_uint_eq(r1.st.device_bytes_peak, 4 * MIB);
	ops->device_close(d1);
	ops->device_close(d2);
	ops->device_close(d3);
	unlink(path);
}
END_TEST

START_TEST(jitter_only_lengthens_device_work)
{
	char path[64], path0[64];
	hc_hal_dev *dj, *d0;
	struct script_result rj, r0;

	write_temp(jitter_profile, path);
	write_temp(REQUIRED_KEYS "d2d_latency = 1 us\n", path0);
	dj = open_dev(false, 0, 7, path);
	d0 = open_dev(false, 0, 7, path0);
	rj = run_script(dj);
	r0 = run_script(d0);
	ck_assert_uint_eq(rj.t[0], r0.t[0]); /* host API costs carry no jitter */
	ck_assert_uint_gt(rj.t[3], r0.t[3]);
	/* at most +20% of the device time on top of the unjittered run */
	ck_assert_uint_le(rj.t[3] - r0.t[3], (r0.t[3] - r0.t[0]) / 5);
	ck_assert_mem_eq(&rj.st.launches, &r0.st.launches, sizeof(uint64_t));
	ops->device_close(dj);
	ops->device_close(d0);
	unlink(path);
	unlink(path0);
}
END_TEST

START_TEST(determinism_without_jitter_seed_is_irrelevant)
{
	hc_hal_dev *d1 = open_dev(false, 0, 1, NULL), *d2 = open_dev(false, 0, 999, NULL);
	struct script_result r1 = run_script(d1), r2 = run_script(d2);

	ck_assert_mem_eq(r1.t, r2.t, sizeof(r1.t));
	ck_assert_mem_eq(&r1.st, &r2.st, sizeof(r1.st));
	/* setup: 2 streams, allocs of 1 MiB and 3 MiB (40000 + 2 * 600), a pinned MiB */
	ck_assert_uint_eq(r1.t[0], 2 * 2000 + 40000 + 41200 + 600000);
	ops->device_close(d1);
	ops->device_close(d2);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Event ordering across streams                                       */
/* ------------------------------------------------------------------ */

static void ordering_case(bool wait)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *a, *b;
	hc_hal_event *ea, *eb;
	hc_hal_module *mod;
	hc_hal_function *fn;
	struct hc_hal_launch longk = { .duration_hint_ns = 1000000 }, shortk = { .duration_hint_ns = 10 };
	bool done = true;
	uint64_t t;

	ck_assert_int_eq(ops->stream_create(dev, &a), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &b), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "add", &fn), HC_OK);
	ck_assert_int_eq(ops->launch(dev, a, fn, &longk), HC_OK); /* 4000+1090 .. +1000500 */
	ck_assert_int_eq(ops->event_record(dev, a, &ea), HC_OK);
	if (wait)
		ck_assert_int_eq(ops->event_wait(dev, b, ea), HC_OK);
	ck_assert_int_eq(ops->launch(dev, b, fn, &shortk), HC_OK);
	ck_assert_int_eq(ops->event_record(dev, b, &eb), HC_OK);
	ck_assert_int_eq(ops->event_sync(dev, eb), HC_OK);
	t = now(dev);
	ck_assert_int_eq(ops->event_query(dev, ea, &done), HC_OK);
	if (wait) {
		/* B's kernel starts when A's ends: 5090 + 1000500, then 510 more */
		ck_assert_uint_eq(t, 5090 + 1000500 + 510);
		ck_assert(done);
		ck_assert_uint_eq(stats(dev).host_blocked_ns, t - (4000 + 1090 + 300 + 210 + 1090 + 300 + 500));
	} else {
		/* B ran at once: its event completed at 6480 + 510 < host 7280 */
		ck_assert_uint_eq(t, 4000 + 1090 + 300 + 1090 + 300 + 500);
		ck_assert(!done);
		ck_assert_uint_eq(stats(dev).host_blocked_ns, 0);
	}
	ck_assert_uint_eq(stats(dev).stream_waits, wait ? 1 : 0);
	ck_assert_uint_eq(stats(dev).host_waits, 1);
	ops->event_destroy(dev, ea);
	ops->event_destroy(dev, eb);
	ops->device_close(dev); /* frees the streams and the module */
}

START_TEST(event_wait_orders_streams)
{
	ordering_case(true);
}
END_TEST

START_TEST(no_wait_no_order)
{
	ordering_case(false);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Host blocking                                                       */
/* ------------------------------------------------------------------ */

START_TEST(pageable_h2d_blocks_host)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_dptr d;
	static unsigned char src[MIB];

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &d), HC_OK);
	ck_assert_uint_eq(now(dev), 2000 + 40000);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d, src, MIB, false), HC_OK);
	ck_assert_uint_eq(now(dev), 42000 + 1090 + PAGEABLE_H2D_1M);
	ck_assert_int_eq(ops->copy_d2h(dev, s, src, d, MIB, false), HC_OK);
	/* pageable D2H: 10000 + 2^20 / 16 */
	ck_assert_uint_eq(now(dev), 42000 + 1090 + PAGEABLE_H2D_1M + 1090 + 10000 + 65536);
	ck_assert_uint_eq(stats(dev).host_waits, 0);
	ops->device_close(dev);
}
END_TEST

START_TEST(pinned_copy_does_not_block_until_sync)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_dptr d;
	void *pin;
	struct hc_hal_stats st;

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(dev, MIB, &d), HC_OK);
	ck_assert_int_eq(ops->host_alloc(dev, MIB, &pin), HC_OK);
	ck_assert_uint_eq(now(dev), 642000);
	ck_assert_int_eq(ops->copy_h2d(dev, s, d, pin, MIB, true), HC_OK);
	ck_assert_uint_eq(now(dev), 643090);
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_uint_eq(now(dev), 643090 + PINNED_1M);
	st = stats(dev);
	ck_assert_uint_eq(st.host_waits, 1);
	ck_assert_uint_eq(st.host_blocked_ns, PINNED_1M - 500);
	/* a second sync finds nothing to wait for */
	ck_assert_int_eq(ops->stream_sync(dev, s), HC_OK);
	ck_assert_uint_eq(now(dev), 643090 + PINNED_1M + 500);
	ck_assert_uint_eq(stats(dev).host_blocked_ns, PINNED_1M - 500);
	ck_assert_int_eq(ops->host_free(dev, pin), HC_OK);
	ops->device_close(dev);
}
END_TEST

START_TEST(stream_destroy_waits_for_its_work)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	hc_hal_stream *s;
	hc_hal_module *mod;
	hc_hal_function *fn;
	struct hc_hal_launch l = { .duration_hint_ns = 50000 };

	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_int_eq(ops->module_load(dev, NULL, 0, &mod), HC_OK);
	ck_assert_int_eq(ops->function_get(dev, mod, "copy", &fn), HC_OK);
	ck_assert_int_eq(ops->launch(dev, s, fn, &l), HC_OK);
	ck_assert_uint_eq(now(dev), 2000 + 1090);
	ck_assert_int_eq(ops->stream_destroy(dev, s), HC_OK);
	ck_assert_uint_eq(now(dev), 2000 + 1090 + 50500 + 1300);
	ops->module_unload(dev, mod);
	ops->device_close(dev);
}
END_TEST

START_TEST(set_host_ns_moves_forward_only)
{
	hc_hal_dev *dev = open_dev(false, 0, 0, NULL);
	uint64_t t = 5000000;
	hc_hal_stream *s;

	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_SET_HOST_NS, &t), HC_OK);
	ck_assert_uint_eq(now(dev), 5000000);
	t = 10;
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_SET_HOST_NS, &t), HC_OK);
	ck_assert_uint_eq(now(dev), 5000000);
	ck_assert_int_eq(ops->stream_create(dev, &s), HC_OK);
	ck_assert_uint_eq(now(dev), 5002000);
	ops->device_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Copy engines                                                        */
/* ------------------------------------------------------------------ */

struct engine_fixture {
	hc_hal_dev *dev;
	hc_hal_stream *a, *b;
	hc_hal_dptr d1, d2;
	void *pin;
	uint64_t t0;
};

static void engine_setup(struct engine_fixture *f)
{
	f->dev = open_dev(false, 0, 0, NULL);
	ck_assert_int_eq(ops->stream_create(f->dev, &f->a), HC_OK);
	ck_assert_int_eq(ops->stream_create(f->dev, &f->b), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(f->dev, MIB, &f->d1), HC_OK);
	ck_assert_int_eq(ops->mem_alloc(f->dev, MIB, &f->d2), HC_OK);
	ck_assert_int_eq(ops->host_alloc(f->dev, 2 * MIB, &f->pin), HC_OK);
	f->t0 = now(f->dev);
}

START_TEST(two_h2d_serialise_on_the_engine)
{
	struct engine_fixture f;

	engine_setup(&f);
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.a, f.d1, f.pin, MIB, true), HC_OK);
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.b, f.d2, (char *)f.pin + MIB, MIB, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.b), HC_OK);
	/* B's copy waited for A's: starts at t0 + 1090 + PINNED_1M */
	ck_assert_uint_eq(now(f.dev), f.t0 + 1090 + 2 * PINNED_1M);
	ops->device_close(f.dev);
}
END_TEST

START_TEST(h2d_and_d2h_overlap)
{
	struct engine_fixture f;

	engine_setup(&f);
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.a, f.d1, f.pin, MIB, true), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(f.dev, f.b, (char *)f.pin + MIB, f.d2, MIB, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.b), HC_OK);
	ck_assert_uint_eq(now(f.dev), f.t0 + 2180 + PINNED_1M);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.a), HC_OK);
	ck_assert_uint_eq(now(f.dev), f.t0 + 2180 + PINNED_1M + 500);
	ops->device_close(f.dev);
}
END_TEST

START_TEST(same_stream_copies_are_in_order)
{
	struct engine_fixture f;

	engine_setup(&f);
	/* D2H after H2D on one stream waits even though the engines differ */
	ck_assert_int_eq(ops->copy_h2d(f.dev, f.a, f.d1, f.pin, MIB, true), HC_OK);
	ck_assert_int_eq(ops->copy_d2h(f.dev, f.a, (char *)f.pin + MIB, f.d2, MIB, true), HC_OK);
	ck_assert_int_eq(ops->stream_sync(f.dev, f.a), HC_OK);
	ck_assert_uint_eq(now(f.dev), f.t0 + 1090 + 2 * PINNED_1M);
	ops->device_close(f.dev);
}
END_TEST

Suite *sim_timing_suite(void)
{
	Suite *s = suite_create("timing");
	TCase *tc;

	tc = tcase_create("determinism");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, determinism_same_seed_same_numbers);
	tcase_add_test(tc, determinism_without_jitter_seed_is_irrelevant);
	tcase_add_test(tc, jitter_only_lengthens_device_work);
	suite_add_tcase(s, tc);

	tc = tcase_create("ordering");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, event_wait_orders_streams);
	tcase_add_test(tc, no_wait_no_order);
	tcase_add_test(tc, pageable_h2d_blocks_host);
	tcase_add_test(tc, pinned_copy_does_not_block_until_sync);
	tcase_add_test(tc, set_host_ns_moves_forward_only);
	tcase_add_test(tc, stream_destroy_waits_for_its_work);
	tcase_add_test(tc, two_h2d_serialise_on_the_engine);
	tcase_add_test(tc, h2d_and_d2h_overlap);
	tcase_add_test(tc, same_stream_copies_are_in_order);
	suite_add_tcase(s, tc);
	return s;
}
