/*
 * check_q_metacache.c - the metadata info cache: upstream's cases by name,
 * the free callback's exactly-once rule, and a 4096-entry property test
 * against a naive model.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/queue/metacache.h"
#include "tests/check_queues.h"

#define MAXV 65536

/* Values carry their id in .a; the callback counts frees per id. */
static int freed[MAXV];
static int nfreed;

static void count_free(void *ctx, struct hc_mc_value v)
{
	(void)ctx;
	ck_assert_uint_lt(v.a, MAXV);
	freed[v.a]++;
	nfreed++;
}

static struct hc_metacache *mc;

static void make(uint32_t max_entries)
{
	struct hc_mc_policy p = { max_entries, 2048 };

	memset(freed, 0, sizeof(freed));
	nfreed = 0;
	ck_assert_int_eq(hc_mc_create(&p, count_free, NULL, &mc), HC_OK);
}

static void teardown(void)
{
	int i;

	hc_mc_destroy(mc);
	mc = NULL;
	for (i = 0; i < MAXV; i++)
		ck_assert_int_le(freed[i], 1);
}

/* Key k: three words derived from k. */
static const uint64_t *key(uint64_t k)
{
	static uint64_t w[3];

	w[0] = k;
	w[1] = k * 7 + 1;
	w[2] = ~k;
	return w;
}

static void put(uint64_t k)
{
	struct hc_mc_value v = { k, k * 100 };
	bool stored = false;

	ck_assert_int_eq(hc_mc_insert(mc, key(k), 3, v, &stored), HC_OK);
	ck_assert(stored);
}

static bool hit(uint64_t k)
{
	struct hc_mc_value v = { 0, 0 };
	bool h = hc_mc_get(mc, key(k), 3, &v);

	if (h) {
		ck_assert_uint_eq(v.a, k);
		ck_assert_uint_eq(v.b, k * 100);
	}
	return h;
}

static bool has(uint64_t k)
{
	return hc_mc_contains(mc, key(k), 3);
}

static uint32_t pins(uint64_t k)
{
	return hc_mc_pins(mc, key(k), 3);
}

START_TEST(normal_mode_evicts_least_recently_used)
{
	make(2);
	put(1);
	put(2);
	ck_assert(hit(1)); /* 1 is now more recent than 2 */
	put(3);
	ck_assert_uint_eq(hc_mc_len(mc), 2);
	ck_assert(has(1));
	ck_assert(!has(2));
	ck_assert(has(3));
	ck_assert_int_eq(freed[2], 1);
	ck_assert_int_eq(nfreed, 1);
}
END_TEST

START_TEST(pinned_entry_survives_eviction_until_graph_released)
{
	make(1);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	ck_assert(!hit(1));
	put(1);
	ck_assert_uint_eq(pins(1), 1);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 7), HC_OK);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	put(2); /* full, but the only entry is pinned: grow */
	ck_assert_uint_eq(hc_mc_len(mc), 2);
	put(3); /* evicts 2, the only unpinned entry */
	ck_assert(has(1));
	ck_assert(!has(2));
	ck_assert(has(3));
	ck_assert_uint_eq(hc_mc_graph_release(mc, 7), 1);
	ck_assert(!has(1));
	ck_assert_int_eq(freed[1], 1);
	ck_assert_uint_eq(hc_mc_len(mc), 1);
}
END_TEST

START_TEST(capture_hit_on_normal_entry_pins_it)
{
	make(2);
	put(1);
	ck_assert_uint_eq(pins(1), 0);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	ck_assert(hit(1));
	ck_assert(hit(1)); /* once per capture */
	ck_assert_uint_eq(pins(1), 1);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 1), HC_OK);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	put(2);
	put(3);
	put(4);
	ck_assert(has(1));
	ck_assert_uint_eq(pins(1), 1);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 1), 1);
	ck_assert(!has(1));
}
END_TEST

START_TEST(pin_is_refcounted_across_graphs)
{
	make(4);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	put(1);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 10), HC_OK);
	ck_assert(hit(1));
	ck_assert_int_eq(hc_mc_capture_commit(mc, 11), HC_OK);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	ck_assert_uint_eq(pins(1), 2);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 10), 0);
	ck_assert(has(1));
	ck_assert_uint_eq(pins(1), 1);
	ck_assert_int_eq(freed[1], 0);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 11), 1);
	ck_assert(!has(1));
	ck_assert_int_eq(freed[1], 1);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 11), 0); /* unknown now: no-op */
}
END_TEST

START_TEST(capture_discard_unpins_without_removing)
{
	make(2);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	put(1);
	put(2);
	put(3); /* capture: past capacity, no eviction */
	ck_assert_uint_eq(hc_mc_len(mc), 3);
	hc_mc_capture_discard(mc);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	ck_assert_uint_eq(hc_mc_len(mc), 3);
	ck_assert_uint_eq(pins(1), 0);
	ck_assert_int_eq(nfreed, 0);
	ck_assert(hit(2));
	put(4); /* evicts one: 1 (2 touched, 3 newer than 1) */
	ck_assert(!has(1));
	ck_assert(has(2));
	ck_assert(has(3));
	ck_assert(has(4));
	ck_assert_int_eq(freed[1], 1);
}
END_TEST

START_TEST(zero_capacity_disables_caching)
{
	struct hc_mc_value v = { 1, 100 };
	bool stored = true;

	make(0);
	ck_assert(!hc_mc_should_cache(mc, 8));
	ck_assert_int_eq(hc_mc_insert(mc, key(1), 3, v, &stored), HC_OK);
	ck_assert(!stored);
	ck_assert_uint_eq(hc_mc_len(mc), 0);
	ck_assert(!hit(1));
	ck_assert_int_eq(nfreed, 0); /* the caller still owns the value */
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	ck_assert(hc_mc_should_cache(mc, 1u << 20));
	put(1);
	ck_assert_uint_eq(hc_mc_len(mc), 1);
}
END_TEST

START_TEST(clear_unpinned_keeps_only_graph_pinned_entries)
{
	make(8);
	put(1);
	put(2);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	put(3);
	ck_assert(hit(1));
	ck_assert_int_eq(hc_mc_capture_commit(mc, 5), HC_OK);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	put(4);
	ck_assert_uint_eq(hc_mc_clear_unpinned(mc), 2);
	ck_assert(has(1));
	ck_assert(!has(2));
	ck_assert(has(3));
	ck_assert(!has(4));
	ck_assert_int_eq(freed[2] + freed[4], 2);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 5), 2);
	ck_assert_uint_eq(hc_mc_len(mc), 0);
	ck_assert_int_eq(nfreed, 4);
}
END_TEST

START_TEST(should_cache_follows_size_and_mode)
{
	make(4096);
	ck_assert(hc_mc_should_cache(mc, 0));
	ck_assert(hc_mc_should_cache(mc, 2048));
	ck_assert(!hc_mc_should_cache(mc, 2049));
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	ck_assert_int_eq(hc_mc_get_mode(mc), HC_MC_CAPTURE);
	ck_assert(hc_mc_should_cache(mc, 2049));
	ck_assert_uint_eq(hc_mc_policy_default().max_entries, 4096);
	ck_assert_uint_eq(hc_mc_policy_default().max_cached_size, 2048);
}
END_TEST

START_TEST(insert_of_existing_key_replaces_and_frees_old)
{
	struct hc_mc_value v = { 9, 900 };
	struct hc_mc_value got;
	bool stored;

	make(4);
	put(1);
	ck_assert_int_eq(hc_mc_insert(mc, key(1), 3, v, &stored), HC_OK);
	ck_assert(stored);
	ck_assert_int_eq(freed[1], 1);
	ck_assert_uint_eq(hc_mc_len(mc), 1);
	ck_assert(hc_mc_get(mc, key(1), 3, &got));
	ck_assert_uint_eq(got.a, 9);
}
END_TEST

START_TEST(keys_differ_by_length_and_content)
{
	uint64_t a[2] = { 5, 0 }, b[1] = { 5 };
	struct hc_mc_value va = { 1, 0 }, vb = { 2, 0 }, ve = { 3, 0 }, got;
	bool stored;

	make(8);
	ck_assert_int_eq(hc_mc_insert(mc, a, 2, va, &stored), HC_OK);
	ck_assert_int_eq(hc_mc_insert(mc, b, 1, vb, &stored), HC_OK);
	ck_assert_int_eq(hc_mc_insert(mc, NULL, 0, ve, &stored), HC_OK);
	ck_assert_uint_eq(hc_mc_len(mc), 3);
	ck_assert(hc_mc_get(mc, a, 2, &got));
	ck_assert_uint_eq(got.a, 1);
	ck_assert(hc_mc_get(mc, b, 1, &got));
	ck_assert_uint_eq(got.a, 2);
	ck_assert(hc_mc_get(mc, NULL, 0, &got));
	ck_assert_uint_eq(got.a, 3);
}
END_TEST

START_TEST(commit_rejects_a_graph_id_twice)
{
	make(4);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	put(1);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 3), HC_OK);
	put(2);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 3), HC_ERR_INVALID);
	ck_assert_uint_eq(pins(2), 1); /* still pending */
	hc_mc_capture_discard(mc);
	ck_assert_uint_eq(pins(2), 0);
	ck_assert_uint_eq(pins(1), 1);
}
END_TEST

START_TEST(discard_restores_recency_order)
{
	make(3);
	put(1);
	ck_assert(!hit(99)); /* clock 1 */
	put(2);              /* stamp 1 */
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	ck_assert(hit(1)); /* clock 2: 1 is newest, pinned */
	hc_mc_capture_discard(mc);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	put(3);
	put(4); /* full: evicts 2, the oldest, not 1 */
	ck_assert(!has(2));
	ck_assert(has(1));
	put(5); /* evicts 1 (stamp 2) before 3 and 4 (stamp 2, inserted later) */
	ck_assert(!has(1));
	ck_assert(has(3));
}
END_TEST

START_TEST(eviction_skips_pinned_entries_in_the_middle)
{
	make(3);
	put(1);
	put(2);
	put(3);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	ck_assert(hit(2)); /* 2 leaves the LRU list, pinned */
	ck_assert_int_eq(hc_mc_capture_commit(mc, 9), HC_OK);
	hc_mc_set_mode(mc, HC_MC_NORMAL);
	put(4); /* evicts 1 */
	put(5); /* evicts 3, skipping pinned 2 */
	put(6); /* evicts 4 */
	ck_assert(!has(1));
	ck_assert(has(2));
	ck_assert(!has(3));
	ck_assert(!has(4));
	ck_assert(has(5));
	ck_assert(has(6));
	ck_assert_int_eq(nfreed, 3);
	ck_assert(hit(2)); /* a normal hit on a pinned entry keeps it pinned */
	ck_assert_uint_eq(pins(2), 1);
	ck_assert_uint_eq(hc_mc_graph_release(mc, 9), 1);
	ck_assert_uint_eq(hc_mc_len(mc), 2);
}
END_TEST

START_TEST(destroy_frees_every_value_once)
{
	int i;

	make(16);
	for (i = 1; i <= 10; i++)
		put((uint64_t)i);
	hc_mc_set_mode(mc, HC_MC_CAPTURE);
	put(11);
	ck_assert_int_eq(hc_mc_capture_commit(mc, 1), HC_OK);
	hc_mc_destroy(mc);
	mc = NULL;
	for (i = 1; i <= 11; i++)
		ck_assert_int_eq(freed[i], 1);
	ck_assert_int_eq(nfreed, 11);
}
END_TEST

START_TEST(bad_arguments)
{
	struct hc_mc_value v = { 1, 1 };
	bool stored = true;

	make(4);
	ck_assert_int_eq(hc_mc_create(NULL, NULL, NULL, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mc_insert(mc, NULL, 3, v, &stored), HC_ERR_INVALID);
	ck_assert(!stored);
	ck_assert_int_eq(hc_mc_insert(mc, key(1), 3, v, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_mc_insert(NULL, key(1), 3, v, &stored), HC_ERR_INVALID);
	ck_assert(!hc_mc_get(NULL, key(1), 3, NULL));
	ck_assert(!hc_mc_get(mc, NULL, 3, NULL));
	ck_assert_int_eq(hc_mc_capture_commit(NULL, 1), HC_ERR_INVALID);
	ck_assert_uint_eq(hc_mc_graph_release(NULL, 1), 0);
	ck_assert_uint_eq(hc_mc_clear_unpinned(NULL), 0);
	hc_mc_destroy(NULL);
	ck_assert_uint_eq(hc_mc_len(mc), 0);
}
END_TEST

/*
 * Property test: 4096 entries of 8 words, 40,000 random lookups over 6,000
 * keys (insert on miss), against a naive model that evicts the smallest
 * (last_used, order of stamping) by a scan.
 */
#define PKEYS 6000
#define PCAP 4096

static struct {
	bool present;
	uint64_t last;
	uint64_t seq;
} model[PKEYS];

static const uint64_t *key8(uint64_t k)
{
	static uint64_t w[8];
	int i;

	for (i = 0; i < 8; i++)
		w[i] = k * 0x100000001ull + (uint64_t)i * 31;
	return w;
}

START_TEST(fill_4096_and_random_lookups_match_a_model)
{
	uint64_t clock = 0, seq = 0, rng = 88172645463325252ull;
	size_t len = 0, inserts = 0;
	int op, k;

	make(PCAP);
	memset(model, 0, sizeof(model));
	for (op = 0; op < 40000; op++) {
		struct hc_mc_value v;
		bool h, stored;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		k = op < PCAP ? op : (int)(rng % PKEYS);
		clock++;
		h = hc_mc_get(mc, key8((uint64_t)k), 8, &v);
		ck_assert_int_eq(h, model[k].present);
		if (h) {
			ck_assert_uint_eq(v.b, (uint64_t)k);
			model[k].last = clock;
			model[k].seq = ++seq;
			continue;
		}
		if (len >= PCAP) {
			int j, victim = -1;

			for (j = 0; j < PKEYS; j++)
				if (model[j].present &&
				    (victim < 0 || model[j].last < model[victim].last ||
				     (model[j].last == model[victim].last &&
				      model[j].seq < model[victim].seq)))
					victim = j;
			model[victim].present = false;
			len--;
		}
		v.a = inserts; /* unique per value: freed[] checks exactly once */
		v.b = (uint64_t)k;
		ck_assert_int_eq(hc_mc_insert(mc, key8((uint64_t)k), 8, v, &stored), HC_OK);
		ck_assert(stored);
		inserts++;
		model[k].present = true;
		model[k].last = clock;
		model[k].seq = ++seq;
		len++;
		ck_assert_uint_eq(hc_mc_len(mc), len);
	}
	for (k = 0; k < PKEYS; k++)
		ck_assert_int_eq(hc_mc_contains(mc, key8((uint64_t)k), 8), model[k].present);
	ck_assert_uint_eq((size_t)nfreed, inserts - len);
	hc_mc_destroy(mc);
	mc = NULL;
	ck_assert_uint_eq((size_t)nfreed, inserts);
}
END_TEST

Suite *make_metacache_suite(void)
{
	Suite *s = suite_create("metacache");
	TCase *tc = tcase_create("upstream");
	TCase *more = tcase_create("more");
	TCase *prop = tcase_create("property");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, normal_mode_evicts_least_recently_used);
	tcase_add_test(tc, pinned_entry_survives_eviction_until_graph_released);
	tcase_add_test(tc, capture_hit_on_normal_entry_pins_it);
	tcase_add_test(tc, pin_is_refcounted_across_graphs);
	tcase_add_test(tc, capture_discard_unpins_without_removing);
	tcase_add_test(tc, zero_capacity_disables_caching);
	tcase_add_test(tc, clear_unpinned_keeps_only_graph_pinned_entries);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(more, NULL, teardown);
	tcase_add_test(more, should_cache_follows_size_and_mode);
	tcase_add_test(more, insert_of_existing_key_replaces_and_frees_old);
	tcase_add_test(more, keys_differ_by_length_and_content);
	tcase_add_test(more, commit_rejects_a_graph_id_twice);
	tcase_add_test(more, discard_restores_recency_order);
	tcase_add_test(more, eviction_skips_pinned_entries_in_the_middle);
	tcase_add_test(more, destroy_frees_every_value_once);
	tcase_add_test(more, bad_arguments);
	suite_add_tcase(s, more);

	tcase_add_checked_fixture(prop, NULL, teardown);
	tcase_set_timeout(prop, 60);
	tcase_add_test(prop, fill_4096_and_random_lookups_match_a_model);
	suite_add_tcase(s, prop);
	return s;
}
