/*
 * threads.c - several threads on one simulated device.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_suites.h"

/* ------------------------------------------------------------------ */
/* Several threads on one device                                       */
/* ------------------------------------------------------------------ */

struct worker {
	hc_hal_dev *dev;
	int fails;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	hc_hal_stream *s;
	unsigned char buf[256], back[256];

	if (ops->stream_create(w->dev, &s) != HC_OK)
		return (void *)1;
	for (int i = 0; i < 500; i++) {
		hc_hal_dptr d;
		memset(buf, i & 0xff, sizeof(buf));
		if (ops->mem_alloc(w->dev, sizeof(buf), &d) != HC_OK ||
		    ops->copy_h2d(w->dev, s, d, buf, sizeof(buf), false) != HC_OK ||
		    ops->copy_d2h(w->dev, s, back, d, sizeof(back), false) != HC_OK ||
		    ops->stream_sync(w->dev, s) != HC_OK || memcmp(buf, back, sizeof(buf)) != 0 ||
		    ops->mem_free(w->dev, d) != HC_OK)
			w->fails++;
	}
	return ops->stream_destroy(w->dev, s) == HC_OK ? NULL : (void *)1;
}

START_TEST(threads_share_a_device)
{
	hc_hal_dev *dev = open_dev(true, 0, 0, NULL);
	pthread_t th[4];
	struct worker w[4];
	struct hc_hal_stats st;

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ dev, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		void *ret = (void *)1;
		ck_assert_int_eq(pthread_join(th[i], &ret), 0);
		ck_assert_ptr_null(ret);
		ck_assert_int_eq(w[i].fails, 0);
	}
	st = stats(dev);
	ck_assert_uint_eq(st.device_allocs, 2000);
	ck_assert_uint_eq(st.device_frees, 2000);
	ck_assert_uint_eq(st.copies_h2d, 2000);
	ck_assert_uint_eq(st.copies_d2h, 2000);
	ck_assert_uint_eq(st.host_waits, 2000);
	ck_assert_uint_eq(st.device_bytes_live, 0);
	ops->device_close(dev);
}
END_TEST

Suite *sim_threads_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc;

	tc = tcase_create("threads");
	tcase_add_checked_fixture(tc, sim_hal_setup, NULL);
	tcase_add_test(tc, threads_share_a_device);
	suite_add_tcase(s, tc);
	return s;
}
