/*
 * check_queues_oom.c - allocation failures in the drop queue, metadata cache
 * and error graph.
 *
 * The program is linked with --wrap for malloc, calloc and realloc, so every
 * allocation made by library code linked into it goes through fault_step()
 * first.  Each test walks a countdown from 0 upward: allocation number n
 * fails, the call must return HC_ERR_OOM (or report a miss) and leave the
 * structure as it was; the walk ends when the call runs without reaching the
 * fault.  Run it under valgrind to see that no failing path leaks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/queue/drop_queue.h"
#include "core/queue/errgraph.h"
#include "core/queue/metacache.h"
#include "tests/runner.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static int countdown = -1; /* allocations left before the fault; -1: off */
static int faults;         /* faults fired */

static bool fault_step(void)
{
	if (countdown < 0)
		return false;
	if (countdown-- == 0) {
		faults++;
		return true;
	}
	return false;
}

void *__wrap_malloc(size_t n)
{
	return fault_step() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fault_step() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fault_step() ? NULL : __real_realloc(p, n);
}

static void arm(int n)
{
	countdown = n;
	faults = 0;
}

static void disarm(void)
{
	countdown = -1;
}

/* ---- metadata cache ---- */

static int mc_freed;

static void mc_count_free(void *ctx, struct hc_mc_value v)
{
	(void)ctx;
	(void)v;
	mc_freed++;
}

static const uint64_t *key(uint64_t k)
{
	static uint64_t w[4];

	w[0] = k;
	w[1] = k + 1;
	w[2] = k * 3;
	w[3] = 17;
	return w;
}

START_TEST(metacache_create_fails_cleanly)
{
	struct hc_metacache *mc = NULL;
	hc_status st;
	int n;

	for (n = 0;; n++) {
		arm(n);
		st = hc_mc_create(NULL, mc_count_free, NULL, &mc);
		disarm();
		if (!faults)
			break;
		ck_assert_int_eq(st, HC_ERR_OOM);
		ck_assert_ptr_null(mc);
	}
	ck_assert_int_eq(st, HC_OK);
	ck_assert_int_eq(n, 2); /* the cache, then its buckets */
	hc_mc_destroy(mc);
}
END_TEST

START_TEST(metacache_insert_and_growth_fail_cleanly)
{
	struct hc_metacache *mc;
	struct hc_mc_value v = { 0, 0 };
	bool stored;
	uint64_t k;
	hc_status st;
	int n;

	mc_freed = 0;
	ck_assert_int_eq(hc_mc_create(NULL, mc_count_free, NULL, &mc), HC_OK);
	for (k = 0; k < 64; k++)
		ck_assert_int_eq(hc_mc_insert(mc, key(k), 4, v, &stored), HC_OK);
	/* The 65th entry grows the table, then allocates the entry. */
	for (n = 0;; n++) {
		arm(n);
		st = hc_mc_insert(mc, key(64), 4, v, &stored);
		disarm();
		if (!faults)
			break;
		ck_assert_int_eq(st, HC_ERR_OOM);
		ck_assert(!stored);
		ck_assert_uint_eq(hc_mc_len(mc), 64);
		ck_assert(!hc_mc_contains(mc, key(64), 4));
	}
	ck_assert_int_eq(st, HC_OK);
	ck_assert_int_eq(n, 2);
	for (k = 0; k <= 64; k++)
		ck_assert(hc_mc_get(mc, key(k), 4, NULL));
	hc_mc_destroy(mc);
	ck_assert_int_eq(mc_freed, 65);
}
END_TEST

START_TEST(metacache_capture_pin_failures)
{
	struct hc_metacache *mc;
	struct hc_mc_value v = { 1, 2 };
	bool stored;
	hc_status st;

	mc_freed = 0;
	ck_assert_int_eq(hc_mc_create(NULL, mc_count_free, NULL, &mc), HC_OK);
	ck_assert_int_eq(hc_mc_insert(mc, key(1), 4, v, &stored), HC_OK);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	/* A hit whose pin cannot be recorded is a miss, and pins nothing. */
	arm(0);
	ck_assert(!hc_mc_get(mc, key(1), 4, NULL));
	disarm();
	ck_assert_int_eq(faults, 1);
	ck_assert_uint_eq(hc_mc_pins(mc, key(1), 4), 0);
	/* Re-inserting the key after that miss: the pin fails again, the
	 * caller keeps its new value. */
	arm(0);
	st = hc_mc_insert(mc, key(1), 4, v, &stored);
	disarm();
	ck_assert_int_eq(st, HC_ERR_OOM);
	ck_assert(!stored);
	ck_assert_int_eq(mc_freed, 0);
	/* A new key: the entry is cached, its pin fails (stored but OOM). */
	arm(1);
	st = hc_mc_insert(mc, key(2), 4, v, &stored);
	disarm();
	ck_assert_int_eq(st, HC_ERR_OOM);
	ck_assert(stored);
	ck_assert_uint_eq(hc_mc_pins(mc, key(2), 4), 0);
	/* Commit's record allocation fails: pins stay pending. */
	ck_assert(hc_mc_get(mc, key(1), 4, NULL));
	arm(0);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 4), HC_ERR_OOM);
	disarm();
	ck_assert_uint_eq(hc_mc_pins(mc, key(1), 4), 1);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 4), HC_OK);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 4), 1);
	hc_mc_destroy(mc);
	ck_assert_int_eq(mc_freed, 2);
}
END_TEST

/* ---- error graph ---- */

START_TEST(errgraph_create_and_fail_fail_cleanly)
{
	struct hc_errgraph *eg = NULL;
	hc_failure_id id = 0, causes[2];
	hc_status st;
	int n;

	for (n = 0;; n++) {
		arm(n);
		st = hc_eg_create(&eg);
		disarm();
		if (!faults)
			break;
		ck_assert_int_eq(st, HC_ERR_OOM);
		ck_assert_ptr_null(eg);
	}
	ck_assert_int_eq(st, HC_OK);
	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_KERNEL, 1, "a", NULL, 0, &causes[0]), HC_OK);
	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_COPY, 1, "b", NULL, 0, &causes[1]), HC_OK);
	/* Fill the node array to its first capacity (32) so the next grows it. */
	while (hc_eg_count(eg) < 32)
		ck_assert_int_eq(hc_eg_fail(eg, HC_EG_KERNEL, 1, "x", NULL, 0, &id), HC_OK);
	for (n = 0;; n++) {
		arm(n);
		st = hc_eg_fail(eg, HC_EG_DERIVED, 2, "d", causes, 2, &id);
		disarm();
		if (!faults)
			break;
		ck_assert_int_eq(st, HC_ERR_OOM);
		ck_assert_uint_eq(hc_eg_count(eg), 32);
	}
	ck_assert_int_eq(st, HC_OK);
	ck_assert_int_eq(n, 2); /* the edges, then the node array */
	ck_assert_uint_eq(id, 33);
	ck_assert_uint_eq(hc_eg_cause(eg, id, 1), causes[1]);
	hc_eg_destroy(eg);
}
END_TEST

START_TEST(errgraph_taint_and_split_fail_cleanly)
{
	struct hc_errgraph *eg;
	hc_failure_id a, b;
	hc_status st;
	int n;

	ck_assert_int_eq(hc_eg_create(&eg), HC_OK);
	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_KERNEL, 1, "a", NULL, 0, &a), HC_OK);
	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_KERNEL, 1, "b", NULL, 0, &b), HC_OK);
	/* First taint of a buffer: its record, then its ranges. */
	for (n = 0;; n++) {
		arm(n);
		st = hc_eg_taint(eg, 9, 0, 1000, a);
		disarm();
		if (!faults)
			break;
		ck_assert_int_eq(st, HC_ERR_OOM);
		ck_assert_uint_eq(hc_eg_query(eg, 9, 0, 1000), 0);
		ck_assert_uint_eq(hc_eg_ranges(eg, 9), 0);
	}
	ck_assert_int_eq(st, HC_OK);
	ck_assert_int_eq(n, 2);
	/* Splits within the first capacity (4) do not allocate; the fifth range does. */
	ck_assert_int_eq(hc_eg_taint(eg, 9, 100, 10, b), HC_OK); /* a b a */
	ck_assert_int_eq(hc_eg_written(eg, 9, 500, 10), HC_OK);  /* a b a _ a: 4 */
	ck_assert_uint_eq(hc_eg_ranges(eg, 9), 4);
	arm(0);
	st = hc_eg_written(eg, 9, 700, 10);
	disarm();
	ck_assert_int_eq(st, HC_ERR_OOM);
	ck_assert_uint_eq(hc_eg_ranges(eg, 9), 4);
	ck_assert_uint_eq(hc_eg_query(eg, 9, 700, 10), a);
	ck_assert_int_eq(hc_eg_written(eg, 9, 700, 10), HC_OK);
	ck_assert_uint_eq(hc_eg_ranges(eg, 9), 5);
	ck_assert_uint_eq(hc_eg_query(eg, 9, 700, 10), 0);
	hc_eg_destroy(eg);
}
END_TEST

START_TEST(errgraph_explain_fails_cleanly)
{
	struct hc_errgraph *eg;
	hc_failure_id a;
	char buf[128];
	hc_status st;
	int n;

	ck_assert_int_eq(hc_eg_create(&eg), HC_OK);
	ck_assert_int_eq(hc_eg_fail(eg, HC_EG_KERNEL, 1, "a", NULL, 0, &a), HC_OK);
	for (n = 0;; n++) {
		arm(n);
		st = hc_eg_explain(eg, a, buf, sizeof(buf));
		disarm();
		if (!faults)
			break;
		ck_assert_int_eq(st, HC_ERR_OOM);
	}
	ck_assert_int_eq(st, HC_OK);
	ck_assert_str_eq(buf, "#1 kernel on stream 1: a; root cause\n");
	hc_eg_destroy(eg);
}
END_TEST

/* ---- drop queue ---- */

static hc_status f_record(void *ctx, void **fence)
{
	(void)ctx;
	*fence = NULL;
	return HC_OK;
}

static hc_status f_sync(void *ctx, void *fence)
{
	(void)ctx;
	(void)fence;
	return HC_OK;
}

static int dq_released;

static void dq_release(void *arg)
{
	(void)arg;
	dq_released++;
}

START_TEST(drop_queue_push_fails_cleanly)
{
	struct hc_fence_ops ops = { f_record, f_sync, NULL, NULL };
	struct hc_dq_entry e = { dq_release, NULL, 10 };
	struct hc_drop_queue dq;
	struct hc_dq_stats s;
	int i;

	dq_released = 0;
	ck_assert_int_eq(hc_dq_init(&dq, NULL, &ops), HC_OK);
	arm(0);
	ck_assert_int_eq(hc_dq_push(&dq, &e), HC_ERR_OOM);
	disarm();
	hc_dq_stats(&dq, &s);
	ck_assert_uint_eq(s.depth, 0);
	ck_assert_uint_eq(s.staged_bytes, 0);
	for (i = 0; i < 16; i++)
		ck_assert_int_eq(hc_dq_push(&dq, &e), HC_OK);
	arm(0); /* the 17th push grows the list */
	ck_assert_int_eq(hc_dq_push(&dq, &e), HC_ERR_OOM);
	disarm();
	hc_dq_stats(&dq, &s);
	ck_assert_uint_eq(s.depth, 16);
	ck_assert_uint_eq(s.staged_bytes, 160);
	ck_assert_int_eq(hc_dq_fini(&dq), HC_OK);
	ck_assert_int_eq(dq_released, 16);
}
END_TEST

static Suite *queues_oom_suite(void)
{
	Suite *s = suite_create("queues_oom");
	TCase *tc = tcase_create("countdown");

	tcase_add_test(tc, metacache_create_fails_cleanly);
	tcase_add_test(tc, metacache_insert_and_growth_fail_cleanly);
	tcase_add_test(tc, metacache_capture_pin_failures);
	tcase_add_test(tc, errgraph_create_and_fail_fail_cleanly);
	tcase_add_test(tc, errgraph_taint_and_split_fail_cleanly);
	tcase_add_test(tc, errgraph_explain_fails_cleanly);
	tcase_add_test(tc, drop_queue_push_fails_cleanly);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(queues_oom_suite);
