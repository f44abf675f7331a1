/*
 * check_q_cursor.c - cross-stream cursors: upstream's test_state numbers and
 * the restamp-on-write rule.
 *
 * The tests play the stream layer's part: a "resolve" on a stream checks each
 * foreign input, waits (records last_synced = origin cursor) where needed,
 * then advances the stream's cursor.  Buffers are stamped with their origin's
 * cursor when allocated and when the origin writes them.
 */
#include <check.h>
#include <string.h>

#include "core/queue/cursor.h"
#include "tests/check_queues.h"

static struct hc_cursor_state st[4];
static int waits;

struct tbuf {
	uint32_t origin;
	uint64_t stamp;
};

static void setup(void)
{
	int i;

	for (i = 0; i < 4; i++)
		hc_cursor_init(&st[i]);
	waits = 0;
}

/* One operation on @slot reading @in (n inputs); returns the new cursor. */
static uint64_t resolve(uint32_t slot, const struct tbuf *in, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (in[i].origin == slot)
			continue;
		if (hc_cursor_needs_wait(&st[slot], in[i].origin, in[i].stamp)) {
			ck_assert_int_eq(hc_cursor_synced(&st[slot], in[i].origin,
							  st[in[i].origin].cursor),
					 HC_OK);
			waits++;
		}
	}
	return hc_cursor_advance(&st[slot]);
}

START_TEST(upstream_test_state_numbers)
{
	struct tbuf b2;
	uint64_t last;

	ck_assert_uint_eq(resolve(1, NULL, 0), 1);
	b2.origin = 2;
	b2.stamp = resolve(2, NULL, 0); /* allocated in stream 2's operation */
	ck_assert_uint_eq(b2.stamp, 1);
	ck_assert(!hc_cursor_last_synced(&st[1], 2, &last));
	ck_assert_uint_eq(resolve(1, &b2, 1), 2);
	ck_assert_int_eq(waits, 1);
	ck_assert(hc_cursor_last_synced(&st[1], 2, &last));
	ck_assert_uint_eq(last, 1);
	ck_assert_uint_eq(st[1].cursor, 2);
	/* Using it again needs no new wait. */
	ck_assert_uint_eq(resolve(1, &b2, 1), 3);
	ck_assert_int_eq(waits, 1);
}
END_TEST

START_TEST(write_restamps_and_forces_a_new_wait)
{
	struct tbuf b = { 2, 0 };

	b.stamp = resolve(2, NULL, 0);
	resolve(1, &b, 1);
	ck_assert_int_eq(waits, 1);
	resolve(2, NULL, 0); /* unrelated work on stream 2 */
	resolve(1, &b, 1);
	ck_assert_int_eq(waits, 1); /* buffer unchanged: still synced */
	b.stamp = resolve(2, NULL, 0); /* stream 2 writes b: restamp */
	ck_assert_uint_eq(b.stamp, 3);
	ck_assert(hc_cursor_needs_wait(&st[1], 2, b.stamp));
	resolve(1, &b, 1);
	ck_assert_int_eq(waits, 2);
	ck_assert(!hc_cursor_needs_wait(&st[1], 2, b.stamp));
}
END_TEST

START_TEST(stale_buffer_always_waits)
{
	ck_assert_int_eq(hc_cursor_synced(&st[1], 2, 1000), HC_OK);
	ck_assert(!hc_cursor_needs_wait(&st[1], 2, 1000));
	ck_assert(!hc_cursor_needs_wait(&st[1], 2, 0));
	ck_assert(hc_cursor_needs_wait(&st[1], 2, 1001));
	ck_assert(hc_cursor_needs_wait(&st[1], 2, HC_CURSOR_STALE));
}
END_TEST

START_TEST(synced_at_zero_differs_from_never_synced)
{
	uint64_t last = 99;

	ck_assert(hc_cursor_needs_wait(&st[0], 3, 0));
	ck_assert_int_eq(hc_cursor_synced(&st[0], 3, 0), HC_OK);
	ck_assert(!hc_cursor_needs_wait(&st[0], 3, 0));
	ck_assert(hc_cursor_needs_wait(&st[0], 3, 1));
	ck_assert(hc_cursor_last_synced(&st[0], 3, &last));
	ck_assert_uint_eq(last, 0);
	/* Other origins untouched. */
	ck_assert(hc_cursor_needs_wait(&st[0], 2, 0));
}
END_TEST

START_TEST(slot_bounds)
{
	uint32_t top = HC_CURSOR_MAX_SLOTS - 1;

	ck_assert_int_eq(hc_cursor_synced(&st[0], top, 5), HC_OK);
	ck_assert(!hc_cursor_needs_wait(&st[0], top, 5));
	ck_assert_int_eq(hc_cursor_synced(&st[0], HC_CURSOR_MAX_SLOTS, 5), HC_ERR_INVALID);
	ck_assert(hc_cursor_needs_wait(&st[0], HC_CURSOR_MAX_SLOTS, 0));
	ck_assert(!hc_cursor_last_synced(&st[0], HC_CURSOR_MAX_SLOTS, NULL));
	ck_assert_int_eq(hc_cursor_synced(NULL, 1, 5), HC_ERR_INVALID);
	ck_assert(hc_cursor_needs_wait(NULL, 1, 0));
}
END_TEST

Suite *make_cursor_suite(void)
{
	Suite *s = suite_create("cursor");
	TCase *tc = tcase_create("sync");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, upstream_test_state_numbers);
	tcase_add_test(tc, write_restamps_and_forces_a_new_wait);
	tcase_add_test(tc, stale_buffer_always_waits);
	tcase_add_test(tc, synced_at_zero_differs_from_never_synced);
	tcase_add_test(tc, slot_bounds);
	suite_add_tcase(s, tc);
	return s;
}
