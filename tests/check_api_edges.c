/*
 * check_api_edges.c - edges of the public calls' Context: contracts, each
 * found by reading hipcore.h against core/ and pinned here by a test that
 * failed before its fix:
 *  - a refused hc_install_memory_pools changes nothing, the device's layout
 *    for later streams included.
 * All on the simulator.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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

static Suite *suite(void)
{
	Suite *su = suite_create("api_edges");
	TCase *install = tcase_create("install");

	tcase_add_test(install, install_refused_by_capture_changes_nothing);
	tcase_add_test(install, install_in_use_installs_for_later_streams);
	suite_add_tcase(su, install);
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
