/*
 * check_api_edges.c - edges of the public calls' Context: contracts, each
 * found by reading hipcore.h against core/ and pinned here by a test that
 * failed before its fix:
 *  - a refused hc_install_memory_pools changes nothing, the device's layout
 *    for later streams included;
 *  - hc_memory_report's callback may call libhipcore on the stream itself
 *    (it used to run under the stream's lock: a self-deadlock);
 *  - the device's idle cache keeps an entry whose free the backend refuses
 *    while another stream records, and a miss on one stream leaves another
 *    stream's capture valid.
 * A call that used to hang runs in a helper thread bounded by a timeout,
 * so a regression fails the test instead of hanging it (with or without
 * CK_FORK).  All on the simulator.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hipcore/hipcore.h"

#define MIB HC_MIB

static hc_device dev;

static void open_dev(void)
{
	ck_assert_int_eq(hc_device_open("sim", NULL, &dev), HC_OK);
}

static void close_dev(void)
{
	ck_assert_int_eq(hc_device_close(dev), HC_OK);
}

/* --- a call bounded in time ------------------------------------------------ */

struct bounded {
	void (*fn)(void *);
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done;
};

static void *bounded_main(void *p)
{
	struct bounded *b = p;

	b->fn(b->arg);
	pthread_mutex_lock(&b->lock);
	b->done = true;
	pthread_cond_signal(&b->done_cv);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Runs @fn(@arg) in a thread; whether it returned within @seconds.  A
 * thread that did not is left behind (detached): the test fails. */
static bool run_bounded(void (*fn)(void *), void *arg, int seconds)
{
	struct bounded *b = calloc(1, sizeof(*b));
	struct timespec until;
	pthread_t t;
	bool done;
	int rc = 0;

	ck_assert_ptr_nonnull(b);
	b->fn = fn;
	b->arg = arg;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->done_cv, NULL);
	ck_assert_int_eq(pthread_create(&t, NULL, bounded_main, b), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += seconds;
	pthread_mutex_lock(&b->lock);
	while (!b->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&b->done_cv, &b->lock, &until);
	done = b->done;
	pthread_mutex_unlock(&b->lock);
	if (!done) {
		pthread_detach(t);
		return false; /* @b stays: the thread still uses it */
	}
	pthread_join(t, NULL);
	pthread_cond_destroy(&b->done_cv);
	pthread_mutex_destroy(&b->lock);
	free(b);
	return true;
}

/* --- pool counts ------------------------------------------------------------ */

static void count_pool(const hc_pool_report *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
}

static int pools_of(hc_stream s)
{
	int n = 0;

	ck_assert_int_eq(hc_memory_report(s, HC_MEMORY_DEVICE, count_pool, &n), HC_OK);
	return n;
}

/* One sliced pool: with the persistent pool, a stream reports 2. */
static const hc_pool_spec one_sliced[] = {
	{ .kind = HC_POOL_SLICED, .page_size = 8 * MIB, .max_pool_size = 16 * MIB },
};

/* --- 1. hc_install_memory_pools ------------------------------------------- */

/* A capture prepared on the stream refuses the install (HC_ERR_STATE,
 * "state unchanged"): neither the stream's pools nor the layout streams
 * opened later get are changed.  It used to store the device's layout
 * before the capture check. */
START_TEST(install_refused_by_capture_changes_nothing)
{
	hc_pool_layout explicit_ = { HC_LAYOUT_EXPLICIT, one_sliced, 1 };
	hc_stream s, before, after;
	hc_graph g;
	int n_default;

	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &before), HC_OK);
	n_default = pools_of(before);
	ck_assert_int_ne(n_default, 2);

	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &explicit_), HC_ERR_STATE);
	ck_assert_int_eq(pools_of(s), n_default);
	ck_assert_int_eq(hc_stream_open(dev, &after), HC_OK);
	ck_assert_int_eq(pools_of(after), n_default);

	/* once the capture is over the same install works, for both */
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &explicit_), HC_OK);
	ck_assert_int_eq(pools_of(s), 2);
	ck_assert_int_eq(hc_stream_close(after), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &after), HC_OK);
	ck_assert_int_eq(pools_of(after), 2);
	close_dev();
}
END_TEST

/* HC_ERR_IN_USE keeps its documented effect: the stream keeps its pools,
 * streams opened later get the layout. */
START_TEST(install_in_use_installs_for_later_streams)
{
	hc_pool_layout explicit_ = { HC_LAYOUT_EXPLICIT, one_sliced, 1 };
	hc_stream s, later;
	hc_buffer b;
	int n_default;

	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
	n_default = pools_of(s);
	ck_assert_int_eq(hc_alloc(s, 4096, &b), HC_OK);
	ck_assert_int_eq(hc_install_memory_pools(s, &explicit_), HC_ERR_IN_USE);
	ck_assert_int_eq(pools_of(s), n_default);
	ck_assert_int_eq(hc_stream_open(dev, &later), HC_OK);
	ck_assert_int_eq(pools_of(later), 2);
	ck_assert_int_eq(hc_free(b), HC_OK);
	close_dev();
}
END_TEST

/* --- 2. hc_memory_report's callback ----------------------------------------- */

struct reentry {
	hc_stream s;
	int reports;
	int failures;
	uint64_t in_use_seen;
};

/* Calls the library on the stream being reported: a usage query, an
 * allocation and its free. */
static void report_reenters(const hc_pool_report *r, void *arg)
{
	struct reentry *x = arg;
	hc_memory_usage u;
	hc_buffer b;

	(void)r;
	x->reports++;
	if (hc_memory_usage_get(x->s, HC_MEMORY_DEVICE, &u) != HC_OK)
		x->failures++;
	x->in_use_seen = u.bytes_in_use;
	if (hc_alloc(x->s, 1000, &b) != HC_OK || hc_free(b) != HC_OK)
		x->failures++;
}

static void report_call(void *arg)
{
	struct reentry *x = arg;

	if (hc_memory_report(x->s, HC_MEMORY_DEVICE, report_reenters, x) != HC_OK)
		x->failures++;
}

START_TEST(report_callback_may_call_the_library)
{
	struct reentry x = { 0 };
	hc_buffer held;
	int n;

	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &x.s), HC_OK);
	ck_assert_int_eq(hc_alloc(x.s, 3000, &held), HC_OK);
	n = pools_of(x.s);
	ck_assert_msg(run_bounded(report_call, &x, 20),
		      "hc_memory_report hung: its callback called hc_memory_usage_get on the stream");
	ck_assert_int_eq(x.failures, 0);
	ck_assert_int_eq(x.reports, n); /* one call per pool, as before */
	ck_assert_uint_eq(x.in_use_seen, 3000);
	ck_assert_int_eq(hc_free(held), HC_OK);
	close_dev();
}
END_TEST

/* --- 3. the idle cache while another stream records ----------------------- */

static hc_device_stats stats_of(void)
{
	hc_device_stats st;

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st;
}

static uint64_t idle_bytes(void)
{
	uint64_t n;

	ck_assert_int_eq(hc_device_idle_bytes(dev, &n), HC_OK);
	return n;
}

/*
 * Stream c's 32 MiB goes to the idle cache when c closes.  While b records
 * a capture, a 96 MiB miss on stream a would free that entry to make room
 * (the watermark), and hc_device_idle_release and a cleanup would free it
 * too: the backend refuses every free then.  The entry stays in the cache
 * (it used to be taken out first and lost: never freed, the device's
 * allocations outnumbering its frees for good), the miss and the release
 * are refused before they reach the backend (HC_ERR_STATE) and the cleanup
 * leaves idle memory alone, so b's capture stays valid (the refused frees
 * and allocation used to invalidate it).  Once b's capture is over,
 * everything is freed.
 */
START_TEST(idle_entry_survives_another_streams_capture)
{
	hc_stream a, b, c;
	hc_buffer x, y;
	hc_graph g;
	hc_device_stats st;
	uint64_t idle;

	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &a), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &b), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &c), HC_OK);
	ck_assert_int_eq(hc_alloc(c, 32 * MIB, &x), HC_OK);
	ck_assert_int_eq(hc_free(x), HC_OK);
	ck_assert_int_eq(hc_stream_close(c), HC_OK);
	idle = idle_bytes();
	ck_assert_uint_ge(idle, 32 * MIB);

	ck_assert_int_eq(hc_graph_prepare(b), HC_OK);
	ck_assert_int_eq(hc_graph_begin(b), HC_OK);
	ck_assert_int_eq(hc_alloc(a, 96 * MIB, &y), HC_ERR_STATE);
	ck_assert_uint_eq(idle_bytes(), idle);
	ck_assert_int_eq(hc_device_idle_release(dev), HC_ERR_STATE);
	ck_assert_uint_eq(idle_bytes(), idle);
	ck_assert_int_eq(hc_memory_cleanup(a), HC_OK);
	ck_assert_uint_eq(idle_bytes(), idle);
	ck_assert_int_eq(hc_graph_end(b, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);

	/* after the capture: the miss works, and every byte goes back */
	ck_assert_int_eq(hc_alloc(a, 96 * MIB, &y), HC_OK);
	ck_assert_int_eq(hc_free(y), HC_OK);
	ck_assert_int_eq(hc_stream_close(a), HC_OK);
	ck_assert_int_eq(hc_stream_close(b), HC_OK);
	ck_assert_int_eq(hc_device_idle_release(dev), HC_OK);
	ck_assert_uint_eq(idle_bytes(), 0);
	st = stats_of();
	ck_assert_uint_eq(st.device_allocs, st.device_frees);
	close_dev();
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("api_edges");
	TCase *install = tcase_create("install");
	TCase *report = tcase_create("report");
	TCase *idle = tcase_create("idle");

	tcase_add_test(install, install_refused_by_capture_changes_nothing);
	tcase_add_test(install, install_in_use_installs_for_later_streams);
	suite_add_tcase(su, install);
	tcase_set_timeout(report, 60);
	tcase_add_test(report, report_callback_may_call_the_library);
	suite_add_tcase(su, report);
	tcase_add_test(idle, idle_entry_survives_another_streams_capture);
	suite_add_tcase(su, idle);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
