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
 *    stream's capture valid;
 *  - hc_stream_close decides under the device and stream locks together,
 *    so a capture begun or a close made by another thread meanwhile is
 *    seen, and it refuses while another stream records instead of closing
 *    without its waits.
 * A call that used to hang runs in a helper thread bounded by a timeout,
 * so a regression fails the test instead of hanging it (with or without
 * CK_FORK).  All on the simulator.
 */
#include <check.h>

#include "tests/runner.h"
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
	hc_device_stats st = { .struct_size = sizeof(st) };

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

/* --- 4. hc_stream_close ---------------------------------------------------- */

/* While stream a records, closing stream b would wait for b's work and
 * its drop queue's fences: host waits the backend refuses then (and that
 * invalidate a's capture), after which the close went on without them,
 * its consumers' unpins posted before their work was known done.  The
 * close is refused instead (HC_ERR_STATE, b still open), as
 * hc_graph_destroy is, and works once a's capture is over. */
START_TEST(close_refused_while_another_stream_records)
{
	unsigned char bytes[4096], back[4096];
	hc_stream a, b;
	hc_buffer x;
	hc_graph g;
	hc_memory_usage u;

	memset(bytes, 0x5a, sizeof(bytes));
	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &a), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &b), HC_OK);
	ck_assert_int_eq(hc_alloc(b, sizeof(bytes), &x), HC_OK);
	ck_assert_int_eq(hc_write(b, x, 0, bytes, sizeof(bytes), HC_ALLOC_NATIVE, NULL, NULL),
			 HC_OK);
	ck_assert_int_eq(hc_graph_prepare(a), HC_OK);
	ck_assert_int_eq(hc_graph_begin(a), HC_OK);
	ck_assert_int_eq(hc_stream_close(b), HC_ERR_STATE);
	ck_assert_int_eq(hc_memory_usage_get(b, HC_MEMORY_DEVICE, &u), HC_OK);
	ck_assert_uint_eq(u.number_allocs, 1);
	ck_assert_int_eq(hc_graph_end(a, &g), HC_OK); /* not invalidated */
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_read(b, x, 0, back, sizeof(back), NULL), HC_OK); /* b works on */
	ck_assert_int_eq(hc_stream_close(b), HC_OK);
	ck_assert_int_eq(hc_stream_close(a), HC_OK);
	close_dev();
}
END_TEST

/*
 * Holding the device lock for as long as a test needs: thread "holder"
 * runs hc_sync on stream x, whose drop queue then calls a pinned write's
 * release callback with x's lock held (hc_release_fn's rule), and the
 * callback blocks until the test lets it go; thread "usage" runs
 * hc_device_memory_usage, which takes the device lock and then waits for
 * x's lock.  A close started meanwhile waits for the device lock.
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool armed, entered, open;
	int released;
};

static struct gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false,
			    false, 0 };

static void gate_release(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate.lock);
	gate.released++;
	if (gate.armed) {
		gate.entered = true;
		pthread_cond_broadcast(&gate.cv);
		while (!gate.open)
			pthread_cond_wait(&gate.cv, &gate.lock);
	}
	pthread_mutex_unlock(&gate.lock);
}

static bool gate_wait_entered(int seconds)
{
	struct timespec until;
	int rc = 0;
	bool in;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += seconds;
	pthread_mutex_lock(&gate.lock);
	while (!gate.entered && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&gate.cv, &gate.lock, &until);
	in = gate.entered;
	pthread_mutex_unlock(&gate.lock);
	return in;
}

static void gate_open(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	pthread_cond_broadcast(&gate.cv);
	pthread_mutex_unlock(&gate.lock);
}

struct call {
	hc_stream s;
	_Atomic int rc;
	pthread_t t;
};

static void *sync_main(void *p)
{
	struct call *c = p;

	c->rc = hc_sync(c->s);
	return NULL;
}

static void *usage_main(void *p)
{
	struct call *c = p;
	hc_memory_usage u;

	c->rc = hc_device_memory_usage(dev, HC_MEMORY_DEVICE, &u);
	return NULL;
}

static void *close_main(void *p)
{
	struct call *c = p;

	c->rc = hc_stream_close(c->s);
	return NULL;
}

static void *begin_main(void *p)
{
	struct call *c = p;

	c->rc = hc_graph_begin(c->s);
	return NULL;
}

static void start(struct call *c, void *(*fn)(void *), hc_stream s)
{
	c->s = s;
	c->rc = -1;
	ck_assert_int_eq(pthread_create(&c->t, NULL, fn, c), 0);
}

/* Joins @c within @seconds (polling its status, which each thread sets
 * last); false when it is still running. */
static bool finish(struct call *c, int seconds)
{
	for (int i = 0; i < seconds * 100 && c->rc == -1; i++)
		usleep(10000);
	if (c->rc == -1)
		return false;
	pthread_join(c->t, NULL);
	return true;
}

/* Blocks the device lock: stream x's release callback holds x's lock, and
 * a device-wide usage query holds the device lock waiting for it.  Whether
 * the query got the device lock before a close started after it is a
 * matter of time (no call says it waits): the tests check that it did and
 * try again otherwise (SETUP_LOST), a few times, before they judge. */
static void hold_device_lock(hc_stream x, struct call *holder, struct call *usage)
{
	static unsigned char src[1024];
	hc_buffer b;

	memset(&gate, 0, sizeof(gate));
	pthread_mutex_init(&gate.lock, NULL);
	pthread_cond_init(&gate.cv, NULL);
	ck_assert_int_eq(hc_alloc(x, sizeof(src), &b), HC_OK);
	ck_assert_int_eq(hc_write(x, b, 0, src, sizeof(src), HC_ALLOC_PINNED, gate_release, NULL),
			 HC_OK);
	ck_assert_int_eq(gate.released, 0); /* queued behind a fence: hc_sync runs it */
	gate.armed = true;
	start(holder, sync_main, x);
	ck_assert_msg(gate_wait_entered(20), "the release callback did not run");
	start(usage, usage_main, x);
	usleep(300000); /* the usage query takes the device lock, waits for x */
}

static void let_device_lock_go(struct call *holder, struct call *usage)
{
	gate_open();
	ck_assert_msg(finish(holder, 20), "hc_sync did not return");
	ck_assert_msg(finish(usage, 20), "hc_device_memory_usage did not return");
	ck_assert_int_eq(holder->rc, HC_OK);
	ck_assert_int_eq(usage->rc, HC_OK);
}

#define SETUP_LOST 1000 /* the device lock was not held in time: try again */
#define ATTEMPTS 5

/* One try of the race below; its verdict, or SETUP_LOST. */
static int close_against_capture(void)
{
	struct call holder, usage, closer, beginner;
	hc_stream s, x;
	hc_graph g;
	int lost = 0;

	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &x), HC_OK);
	hold_device_lock(x, &holder, &usage);
	start(&closer, close_main, s);
	usleep(300000); /* the close waits for the device lock */
	if (usage.rc != -1 || closer.rc != -1 || hc_graph_prepare(s) != HC_OK)
		lost = SETUP_LOST; /* the close got the device lock first */
	else
		start(&beginner, begin_main, s); /* it waits for the device lock too */
	let_device_lock_go(&holder, &usage);
	ck_assert_msg(finish(&closer, 20), "hc_stream_close did not return");
	if (lost) {
		close_dev();
		return lost;
	}
	ck_assert_msg(finish(&beginner, 20), "hc_graph_begin did not return");
	ck_assert_int_eq(beginner.rc, HC_OK);
	ck_assert_int_eq(closer.rc, HC_ERR_STATE); /* prepared, in either order */
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_sync(x), HC_OK);
	ck_assert_int_eq(hc_stream_close(s), HC_OK);
	ck_assert_int_eq(hc_stream_close(x), HC_OK);
	close_dev();
	return 0;
}

/* A close waiting for the device lock while another thread prepares and
 * begins a capture on the stream: the close used to check the capture
 * before it took the device lock, and then tore down a recording stream
 * (its backend stream left capturing, every later wait of the device
 * refused).  It decides under the device and stream locks now, and the
 * begin, which counts its capture under the device lock, waits with it:
 * the prepared stream refuses the close (HC_ERR_STATE) and records. */
START_TEST(close_sees_a_capture_begun_while_it_waited)
{
	int i = 0;

	while (close_against_capture() == SETUP_LOST)
		ck_assert_msg(++i < ATTEMPTS, "the device lock was never held in time");
}
END_TEST

static int close_against_close(void)
{
	struct call holder, usage, c1, c2;
	hc_stream s, x;
	int ok, lost = 0;

	open_dev();
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &x), HC_OK);
	hold_device_lock(x, &holder, &usage);
	start(&c1, close_main, s);
	start(&c2, close_main, s);
	usleep(300000); /* both wait for the device lock */
	if (usage.rc != -1 || c1.rc != -1 || c2.rc != -1)
		lost = SETUP_LOST;
	let_device_lock_go(&holder, &usage);
	ck_assert_msg(finish(&c1, 20) && finish(&c2, 20), "hc_stream_close did not return");
	ok = (c1.rc == HC_OK) + (c2.rc == HC_OK);
	ck_assert_int_eq(ok, 1);
	ck_assert(c1.rc == HC_ERR_STALE || c2.rc == HC_ERR_STALE);
	ck_assert_int_eq(hc_stream_close(s), HC_ERR_STALE);
	ck_assert_int_eq(hc_sync(x), HC_OK);
	ck_assert_int_eq(hc_stream_close(x), HC_OK);
	close_dev();
	return lost;
}

/* Two threads closing one stream: both used to pass the check and tear it
 * down twice (the second time a closed stream, or one opened in its slot
 * meanwhile).  One closes it, the other gets HC_ERR_STALE. */
START_TEST(close_twice_at_once_closes_once)
{
	int i = 0;

	while (close_against_close() == SETUP_LOST)
		ck_assert_msg(++i < ATTEMPTS, "the device lock was never held in time");
}
END_TEST

/* A capture begun on stream y while stream s's close is in its teardown
 * (held in a release callback its drop queue runs there): hc_graph_begin
 * took no device lock and began at once, and the teardown's waits and
 * frees that followed ran while y recorded.  It waits for the close now,
 * then begins, and y's capture ends valid. */
START_TEST(capture_begins_after_a_close_in_teardown)
{
	static unsigned char src[1024];
	struct call closer, beginner;
	hc_stream s, y;
	hc_buffer b, b2;
	hc_graph g;

	open_dev();
	memset(&gate, 0, sizeof(gate));
	pthread_mutex_init(&gate.lock, NULL);
	pthread_cond_init(&gate.cv, NULL);
	ck_assert_int_eq(hc_stream_open(dev, &s), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &y), HC_OK);
	ck_assert_int_eq(hc_alloc(s, sizeof(src), &b), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 4 << 20, &b2), HC_OK);
	ck_assert_int_eq(hc_write(s, b, 0, src, sizeof(src), HC_ALLOC_PINNED, gate_release, NULL),
			 HC_OK);
	ck_assert_int_eq(hc_write(s, b2, 0, src, sizeof(src), HC_ALLOC_PINNED, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_free(b2), HC_OK);
	ck_assert_int_eq(gate.released, 0);
	gate.armed = true;
	start(&closer, close_main, s);
	ck_assert_msg(gate_wait_entered(20), "the close did not run the release callback");
	ck_assert_int_eq(hc_graph_prepare(y), HC_OK);
	start(&beginner, begin_main, y);
	usleep(300000);
	ck_assert_msg(beginner.rc == -1, "hc_graph_begin returned %d during the close's teardown",
		      (int)beginner.rc);
	gate_open();
	ck_assert_msg(finish(&closer, 20), "hc_stream_close did not return");
	ck_assert_msg(finish(&beginner, 20), "hc_graph_begin did not return");
	ck_assert_int_eq(closer.rc, HC_OK);
	ck_assert_int_eq(beginner.rc, HC_OK);
	ck_assert_int_eq(hc_graph_end(y, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_stream_close(y), HC_OK);
	close_dev();
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("api_edges");
	TCase *install = tcase_create("install");
	TCase *report = tcase_create("report");
	TCase *idle = tcase_create("idle");
	TCase *close = tcase_create("close");

	tcase_add_test(install, install_refused_by_capture_changes_nothing);
	tcase_add_test(install, install_in_use_installs_for_later_streams);
	suite_add_tcase(su, install);
	tcase_set_timeout(report, 60);
	tcase_add_test(report, report_callback_may_call_the_library);
	suite_add_tcase(su, report);
	tcase_add_test(idle, idle_entry_survives_another_streams_capture);
	suite_add_tcase(su, idle);
	tcase_set_timeout(close, 60);
	tcase_add_test(close, close_refused_while_another_stream_records);
	tcase_add_test(close, close_sees_a_capture_begun_while_it_waited);
	tcase_add_test(close, close_twice_at_once_closes_once);
	tcase_add_test(close, capture_begins_after_a_close_in_teardown);
	suite_add_tcase(su, close);
	return su;
}

HC_TEST_PROGRAM(suite);
