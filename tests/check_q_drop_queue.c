/*
 * check_q_drop_queue.c - the fenced, double-buffered drop queue.
 *
 * Fences are fakes: integers handed out in order, a per-fence "synced"
 * flag, and countdowns that make a record or a sync fail.  Every release
 * callback checks that the fence recorded after its push was synced first.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "core/queue/drop_queue.h"
#include "tests/check_queues.h"

#define GIB (1024ull * 1024 * 1024)
#define MIB (1024ull * 1024)

static struct fake_fences {
	int record_calls, recorded, sync_calls, destroyed;
	int fail_record_at; /* record call number that fails; 0: none */
	bool fail_record_always;
	int fail_sync_at; /* sync call number that fails; 0: none */
	bool synced[512];
	int release_log[512];
	int nreleased;
} F;

struct tentry {
	int id;
	int covering_fence; /* first fence id recorded after the push */
	int released;
};

static hc_status fake_record(void *ctx, void **fence)
{
	(void)ctx;
	F.record_calls++;
	if (F.fail_record_always || F.record_calls == F.fail_record_at)
		return HC_ERR_DEVICE;
	*fence = (void *)(intptr_t)++F.recorded;
	return HC_OK;
}

static hc_status fake_sync(void *ctx, void *fence)
{
	(void)ctx;
	F.sync_calls++;
	F.synced[(intptr_t)fence] = true;
	return F.sync_calls == F.fail_sync_at ? HC_ERR_DEVICE : HC_OK;
}

static void fake_destroy(void *ctx, void *fence)
{
	(void)ctx;
	(void)fence;
	F.destroyed++;
}

static void t_release(void *arg)
{
	struct tentry *t = arg;

	ck_assert_msg(F.synced[t->covering_fence], "entry %d released before fence %d synced",
		      t->id, t->covering_fence);
	t->released++;
	F.release_log[F.nreleased++] = t->id;
}

static const struct hc_fence_ops fake_ops = { fake_record, fake_sync, fake_destroy, NULL };

static struct hc_drop_queue dq;
static struct tentry ents[256];

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	memset(ents, 0, sizeof(ents));
	ck_assert_int_eq(hc_dq_init(&dq, NULL, &fake_ops), HC_OK);
}

static void teardown(void)
{
	hc_dq_fini(&dq);
	ck_assert_int_eq(F.destroyed, F.recorded); /* no fence leaked */
}

static void push(int id, uint64_t bytes)
{
	struct hc_dq_entry e = { t_release, &ents[id], bytes };

	ents[id].id = id;
	ents[id].covering_fence = F.recorded + 1;
	ck_assert_int_eq(hc_dq_push(&dq, &e), HC_OK);
}

static struct hc_dq_stats stats(void)
{
	struct hc_dq_stats s;

	ck_assert_int_eq(hc_dq_stats(&dq, &s), HC_OK);
	return s;
}

START_TEST(first_flush_does_not_sync)
{
	push(1, 100);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(F.sync_calls, 0);
	ck_assert_int_eq(F.recorded, 1);
	ck_assert_int_eq(ents[1].released, 0);
	ck_assert_uint_eq(stats().pending_count, 1);
	ck_assert_uint_eq(stats().host_syncs, 0);
}
END_TEST

START_TEST(second_flush_syncs_exactly_once)
{
	push(1, 100);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(F.sync_calls, 1);
	ck_assert(F.synced[1]);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_uint_eq(stats().host_syncs, 1);
	ck_assert_uint_eq(stats().released, 1);
}
END_TEST

START_TEST(ten_push_flush_cycles_sync_nine_times)
{
	int i;

	for (i = 1; i <= 10; i++) {
		push(i, 10);
		ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	}
	ck_assert_int_eq(F.sync_calls, 9);
	ck_assert_uint_eq(stats().host_syncs, 9);
	ck_assert_uint_eq(stats().flushes, 10);
	ck_assert_uint_eq(stats().released, 9);
	ck_assert_int_eq(ents[10].released, 0);
}
END_TEST

START_TEST(pending_holds_previous_batch)
{
	push(1, 1);
	push(2, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_uint_eq(stats().pending_count, 2);
	ck_assert_uint_eq(stats().staged_count, 0);
	push(3, 1);
	ck_assert_uint_eq(stats().depth, 3);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(ents[2].released, 1);
	ck_assert_int_eq(ents[3].released, 0);
	ck_assert_uint_eq(stats().pending_count, 1);
	ck_assert_uint_eq(stats().depth, 1);
}
END_TEST

START_TEST(counters_reset_after_flush)
{
	push(1, 1000);
	push(2, 2000);
	ck_assert_uint_eq(stats().staged_count, 2);
	ck_assert_uint_eq(stats().staged_bytes, 3000);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_uint_eq(stats().staged_count, 0);
	ck_assert_uint_eq(stats().staged_bytes, 0);
	ck_assert(!hc_dq_should_flush(&dq));
	ck_assert_uint_eq(stats().pushed, 2);
}
END_TEST

START_TEST(flush_on_empty_queue_is_safe)
{
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_uint_eq(stats().flushes, 3);
	ck_assert_uint_eq(stats().released, 0);
	ck_assert_uint_eq(stats().depth, 0);
	ck_assert_int_eq(F.sync_calls, 2);
	ck_assert_int_eq(F.destroyed, 2);
}
END_TEST

START_TEST(count_limit_triggers)
{
	int i;

	for (i = 1; i < 64; i++) {
		push(i, 1);
		ck_assert(!hc_dq_should_flush(&dq));
	}
	push(64, 1);
	ck_assert(hc_dq_should_flush(&dq));
}
END_TEST

START_TEST(byte_limit_triggers)
{
	push(1, 64 * MIB - 1);
	ck_assert(!hc_dq_should_flush(&dq));
	push(2, 1);
	ck_assert(hc_dq_should_flush(&dq));
	ck_assert_uint_eq(stats().staged_bytes, 64 * MIB);
}
END_TEST

START_TEST(integrated_policy_counts_sixteen)
{
	struct hc_dq_policy p = hc_dq_policy_default(true);
	struct hc_dq_policy d = hc_dq_policy_default(false);
	int i;

	ck_assert_uint_eq(p.max_count, 16);
	ck_assert_uint_eq(p.max_bytes, 64 * MIB);
	ck_assert_uint_eq(d.max_count, 64);
	ck_assert_uint_eq(d.max_bytes, 64 * MIB);
	hc_dq_fini(&dq);
	ck_assert_int_eq(hc_dq_init(&dq, &p, &fake_ops), HC_OK);
	for (i = 1; i < 16; i++) {
		push(i, 1);
		ck_assert(!hc_dq_should_flush(&dq));
	}
	push(16, 1);
	ck_assert(hc_dq_should_flush(&dq));
}
END_TEST

START_TEST(five_gib_entry_counts_in_64_bits)
{
	struct hc_dq_policy p = { 64, 6 * GIB };

	push(1, 5 * GIB);
	ck_assert_uint_eq(stats().staged_bytes, 5 * GIB);
	ck_assert(hc_dq_should_flush(&dq)); /* over the default 64 MiB */
	hc_dq_fini(&dq);
	ck_assert_int_eq(hc_dq_init(&dq, &p, &fake_ops), HC_OK);
	push(2, 5 * GIB);
	ck_assert(!hc_dq_should_flush(&dq)); /* a u32 would have wrapped to 1 GiB */
	ck_assert_uint_eq(stats().staged_bytes, 5 * GIB);
	push(3, GIB);
	ck_assert_uint_eq(stats().staged_bytes, 6 * GIB);
	ck_assert(hc_dq_should_flush(&dq));
}
END_TEST

START_TEST(byte_counter_saturates)
{
	push(1, UINT64_MAX - 10);
	push(2, 100);
	ck_assert_uint_eq(stats().staged_bytes, UINT64_MAX);
	ck_assert(hc_dq_should_flush(&dq));
}
END_TEST

START_TEST(deferred_mode_counts_requests_and_never_syncs)
{
	push(1, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK); /* fence 1 covers entry 1 */
	hc_dq_set_deferred(&dq, true);
	ck_assert(hc_dq_is_deferred(&dq));
	push(2, 1);
	push(3, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(F.record_calls, 1);
	ck_assert_int_eq(F.sync_calls, 0);
	ck_assert_uint_eq(stats().deferred_flushes, 2);
	ck_assert_uint_eq(stats().flushes, 1);
	ck_assert_uint_eq(stats().depth, 3);
	ck_assert_uint_eq(stats().released, 0);
	hc_dq_set_deferred(&dq, false);
	ck_assert(!hc_dq_is_deferred(&dq));
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(F.sync_calls, 2);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(ents[2].released, 1);
	ck_assert_int_eq(ents[3].released, 1);
}
END_TEST

START_TEST(drain_releases_each_entry_once_after_its_fence)
{
	int i;

	for (i = 1; i <= 100; i++) {
		push(i, (uint64_t)i * MIB);
		if (hc_dq_should_flush(&dq))
			ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	}
	ck_assert_uint_gt(stats().depth, 0);
	ck_assert_int_eq(hc_dq_drain(&dq), HC_OK);
	for (i = 1; i <= 100; i++)
		ck_assert_int_eq(ents[i].released, 1);
	ck_assert_uint_eq(stats().depth, 0);
	ck_assert_uint_eq(stats().released, 100);
	ck_assert_int_eq(F.destroyed, F.recorded); /* the last fence too */
	/* A second drain finds nothing to release. */
	ck_assert_int_eq(hc_dq_drain(&dq), HC_OK);
	ck_assert_uint_eq(stats().released, 100);
}
END_TEST

START_TEST(drain_ignores_deferred_mode)
{
	push(1, 1);
	push(2, 1);
	hc_dq_set_deferred(&dq, true);
	ck_assert_int_eq(hc_dq_drain(&dq), HC_OK);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(ents[2].released, 1);
}
END_TEST

START_TEST(release_follows_push_order)
{
	int i;

	for (i = 1; i <= 5; i++)
		push(i, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	for (i = 6; i <= 8; i++)
		push(i, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_drain(&dq), HC_OK);
	ck_assert_int_eq(F.nreleased, 8);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(F.release_log[i], i + 1);
}
END_TEST

START_TEST(failed_sync_still_releases_and_reports)
{
	F.fail_sync_at = 1;
	push(1, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_ERR_DEVICE);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_uint_eq(stats().sync_failures, 1);
	ck_assert_uint_eq(stats().pending_count, 0);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
}
END_TEST

START_TEST(drain_reports_a_failed_sync_and_releases_all)
{
	F.fail_sync_at = 1;
	push(1, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	push(2, 1);
	ck_assert_int_eq(hc_dq_drain(&dq), HC_ERR_DEVICE);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(ents[2].released, 1);
	ck_assert_uint_eq(stats().depth, 0);
	ck_assert_uint_eq(stats().sync_failures, 1);
}
END_TEST

START_TEST(failed_record_is_covered_by_the_safety_net)
{
	F.fail_record_at = 1;
	push(1, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_ERR_DEVICE);
	ck_assert_uint_eq(stats().pending_count, 1);
	push(2, 1);
	/* Pending has no fence: a fresh one is recorded and synced, then 1 goes. */
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(F.sync_calls, 1);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(ents[2].released, 0);
	ck_assert_uint_eq(stats().pending_count, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_OK);
	ck_assert_int_eq(ents[2].released, 1);
}
END_TEST

START_TEST(no_fence_at_all_keeps_entries_until_fini)
{
	F.fail_record_always = true;
	push(1, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_ERR_DEVICE);
	push(2, 1);
	ck_assert_int_eq(hc_dq_flush(&dq), HC_ERR_DEVICE);
	ck_assert_int_eq(hc_dq_drain(&dq), HC_ERR_DEVICE);
	ck_assert_int_eq(ents[1].released, 0);
	ck_assert_int_eq(ents[2].released, 0);
	ck_assert_uint_eq(stats().depth, 2);
	/* fini gives up on fences: each entry released exactly once, in order.
	 * Mark the fences "synced" so the release check in t_release passes. */
	F.synced[1] = true;
	ck_assert_int_eq(hc_dq_fini(&dq), HC_ERR_DEVICE);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(ents[2].released, 1);
	ck_assert_int_eq(F.release_log[0], 1);
	ck_assert_int_eq(F.release_log[1], 2);
}
END_TEST

START_TEST(bad_arguments_are_rejected)
{
	struct hc_drop_queue q;
	struct hc_fence_ops no_sync = { fake_record, NULL, NULL, NULL };
	struct hc_dq_policy zero = { 0, 1 };
	struct hc_dq_entry no_release = { NULL, NULL, 1 };
	struct hc_dq_stats s;

	ck_assert_int_eq(hc_dq_init(NULL, NULL, &fake_ops), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_init(&q, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_init(&q, NULL, &no_sync), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_init(&q, &zero, &fake_ops), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_push(&dq, &no_release), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_push(&dq, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_flush(NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_drain(NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_stats(&dq, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_dq_stats(NULL, &s), HC_ERR_INVALID);
	ck_assert(!hc_dq_should_flush(NULL));
	ck_assert_uint_eq(stats().pushed, 0);
	/* fini of zero-filled storage and of NULL is harmless */
	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(hc_dq_fini(&q), HC_OK);
	ck_assert_int_eq(hc_dq_fini(NULL), HC_OK);
}
END_TEST

START_TEST(fence_destroy_may_be_null)
{
	struct hc_fence_ops ops = { fake_record, fake_sync, NULL, NULL };
	int destroyed;

	hc_dq_fini(&dq);
	destroyed = F.destroyed;
	ck_assert_int_eq(hc_dq_init(&dq, NULL, &ops), HC_OK);
	push(1, 1);
	ck_assert_int_eq(hc_dq_drain(&dq), HC_OK);
	ck_assert_int_eq(ents[1].released, 1);
	ck_assert_int_eq(F.destroyed, destroyed); /* no destroy callback to call */
	ck_assert_int_gt(F.recorded, destroyed);
	hc_dq_fini(&dq);
	F.destroyed = F.recorded;
	ck_assert_int_eq(hc_dq_init(&dq, NULL, &fake_ops), HC_OK);
}
END_TEST

Suite *make_drop_queue_suite(void)
{
	Suite *s = suite_create("drop_queue");
	TCase *tc = tcase_create("upstream");
	TCase *lim = tcase_create("limits");
	TCase *life = tcase_create("lifecycle");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, first_flush_does_not_sync);
	tcase_add_test(tc, second_flush_syncs_exactly_once);
	tcase_add_test(tc, ten_push_flush_cycles_sync_nine_times);
	tcase_add_test(tc, pending_holds_previous_batch);
	tcase_add_test(tc, counters_reset_after_flush);
	tcase_add_test(tc, flush_on_empty_queue_is_safe);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(lim, setup, teardown);
	tcase_add_test(lim, count_limit_triggers);
	tcase_add_test(lim, byte_limit_triggers);
	tcase_add_test(lim, integrated_policy_counts_sixteen);
	tcase_add_test(lim, five_gib_entry_counts_in_64_bits);
	tcase_add_test(lim, byte_counter_saturates);
	suite_add_tcase(s, lim);

	tcase_add_checked_fixture(life, setup, teardown);
	tcase_add_test(life, deferred_mode_counts_requests_and_never_syncs);
	tcase_add_test(life, drain_releases_each_entry_once_after_its_fence);
	tcase_add_test(life, drain_ignores_deferred_mode);
	tcase_add_test(life, release_follows_push_order);
	tcase_add_test(life, failed_sync_still_releases_and_reports);
	tcase_add_test(life, drain_reports_a_failed_sync_and_releases_all);
	tcase_add_test(life, failed_record_is_covered_by_the_safety_net);
	tcase_add_test(life, no_fence_at_all_keeps_entries_until_fini);
	tcase_add_test(life, bad_arguments_are_rejected);
	tcase_add_test(life, fence_destroy_may_be_null);
	suite_add_tcase(s, life);
	return s;
}
