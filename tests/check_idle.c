/*
 * check_idle.c - the device's idle-storage cache (core/pool/idle.c) over the
 * simulator's HAL.
 *
 * The cache promises: adoption by exact size takes the oldest entry of that
 * size, adoption by best fit the oldest of the smallest size within the
 * bound; trimming and making room free the oldest entries of all; byte
 * counts follow.  The reference is the plain array it used to be (scanned
 * oldest first), run side by side with the real one on random operations,
 * many sizes (so the size table grows, collides and deletes), and the same
 * answers are expected at every step.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool/idle.h"
#include "sim/sim.h"
#include "tests/runner.h"

#define MAXREF 4096

struct ref {
	uint64_t addr[MAXREF], size[MAXREF];
	size_t n;
};

static const struct hc_hal_ops *ops;
static hc_hal_dev *dev;
static hc_hal_stream *strm;
static struct hc_idle_hal H;

static void setup(void)
{
	struct hc_hal_open_args a = { .seed = 1 };

	ops = hc_sim_ops();
	ck_assert_int_eq(ops->device_open(&a, &dev), HC_OK);
	ck_assert_int_eq(ops->stream_create(dev, &strm), HC_OK);
	H = (struct hc_idle_hal){ ops, dev };
}

static void teardown(void)
{
	ops->stream_destroy(dev, strm);
	ops->device_close(dev);
}

static uint64_t put(struct hc_idle *c, struct ref *r, uint64_t size)
{
	hc_hal_dptr p;

	ck_assert_int_eq(ops->mem_alloc(dev, size, &p), HC_OK);
	hc_idle_note_alloc(c, size);
	ck_assert_int_eq(hc_idle_put(c, &H, 1, strm, p, size), HC_OK);
	r->addr[r->n] = p;
	r->size[r->n++] = size;
	return p;
}

/* The reference: the oldest entry of @size, removed; 0 when none. */
static uint64_t ref_take(struct ref *r, uint64_t size)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->size[i] == size) {
			uint64_t a = r->addr[i];

			memmove(&r->addr[i], &r->addr[i + 1], (r->n - i - 1) * sizeof(r->addr[0]));
			memmove(&r->size[i], &r->size[i + 1], (r->n - i - 1) * sizeof(r->size[0]));
			r->n--;
			return a;
		}
	return 0;
}

/* Best fit: the oldest entry of the smallest size in [@size, @max]. */
static uint64_t ref_take_fit(struct ref *r, uint64_t size, uint64_t max, uint64_t *got)
{
	uint64_t best = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->size[i] >= size && r->size[i] <= max && (!best || r->size[i] < best))
			best = r->size[i];
	*got = best;
	return best ? ref_take(r, best) : 0;
}

static uint64_t ref_bytes(const struct ref *r)
{
	uint64_t b = 0;

	for (size_t i = 0; i < r->n; i++)
		b += r->size[i];
	return b;
}

START_TEST(oldest_of_a_size_first)
{
	struct hc_idle c;
	struct ref r = { .n = 0 };
	uint64_t a1, a2, a3, got = 0;

	hc_idle_init(&c);
	a1 = put(&c, &r, 4 << 20);
	a2 = put(&c, &r, 8 << 20);
	a3 = put(&c, &r, 4 << 20);
	ck_assert_uint_eq(hc_idle_bytes(&c), 16u << 20);
	ck_assert(hc_idle_take(&c, &H, 1, strm, 4 << 20, &got));
	ck_assert_uint_eq(got, a1);
	ck_assert(hc_idle_take(&c, &H, 1, strm, 4 << 20, &got));
	ck_assert_uint_eq(got, a3);
	ck_assert(!hc_idle_take(&c, &H, 1, strm, 4 << 20, &got));
	ck_assert(!hc_idle_take(&c, &H, 1, strm, 2 << 20, &got));
	ck_assert(hc_idle_take(&c, &H, 1, strm, 8 << 20, &got));
	ck_assert_uint_eq(got, a2);
	ck_assert_uint_eq(hc_idle_bytes(&c), 0);
	/* best fit within a bound: 6 MiB for [5, 7] MiB, oldest first */
	{
		uint64_t b4, b6, b6b, b8, sz = 0;

		b8 = put(&c, &r, 8 << 20);
		b6 = put(&c, &r, 6 << 20);
		b4 = put(&c, &r, 4 << 20);
		b6b = put(&c, &r, 6 << 20);
		ck_assert(!hc_idle_take(&c, &H, 1, strm, 5 << 20, &got));
		ck_assert(hc_idle_take_fit(&c, &H, 1, strm, 5 << 20, 7 << 20, &got, &sz));
		ck_assert_uint_eq(got, b6);
		ck_assert_uint_eq(sz, 6u << 20);
		ck_assert(hc_idle_take_fit(&c, &H, 1, strm, 5 << 20, 7 << 20, &got, &sz));
		ck_assert_uint_eq(got, b6b);
		ck_assert(!hc_idle_take_fit(&c, &H, 1, strm, 5 << 20, 7 << 20, &got, &sz));
		ck_assert(hc_idle_take_fit(&c, &H, 1, strm, 3 << 20, 9 << 20, &got, &sz));
		ck_assert_uint_eq(got, b4);
		ck_assert(hc_idle_take_fit(&c, &H, 1, strm, 8 << 20, 8 << 20, &got, &sz));
		ck_assert_uint_eq(got, b8);
		ck_assert_uint_eq(hc_idle_bytes(&c), 0);
		ck_assert_int_eq(ops->mem_free(dev, b4), HC_OK);
		ck_assert_int_eq(ops->mem_free(dev, b6), HC_OK);
		ck_assert_int_eq(ops->mem_free(dev, b6b), HC_OK);
		ck_assert_int_eq(ops->mem_free(dev, b8), HC_OK);
	}
	ck_assert_int_eq(ops->mem_free(dev, a1), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, a2), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, a3), HC_OK);
	hc_idle_fini(&c, &H);
}
END_TEST

/* Random puts, takes and trims against the array reference. */
START_TEST(matches_the_array_it_replaced)
{
	struct hc_idle c;
	struct ref *r = calloc(1, sizeof(*r));
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)_i;
	struct hc_hal_stats st;

	ck_assert_ptr_nonnull(r);
	hc_idle_init(&c);
	for (int step = 0; step < 6000; step++) {
		uint64_t x, size, got = 0, want;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		x = rng % 100;
		/* 1..97 distinct sizes of 2 MiB steps: collisions and deletions */
		size = (uint64_t)(1 + (rng >> 20) % 97) << 21;
		if (x < 55 && r->n < MAXREF) {
			put(&c, r, size);
		} else if (x < 76) {
			uint64_t max = size + ((rng >> 40) % 8 << 21), gsz = 0, wsz;

			want = ref_take_fit(r, size, max, &wsz);
			ck_assert_int_eq(hc_idle_take_fit(&c, &H, 1, strm, size, max, &got, &gsz),
					 want != 0);
			if (want) {
				ck_assert_uint_eq(got, want);
				ck_assert_uint_eq(gsz, wsz);
				ck_assert_int_eq(ops->mem_free(dev, got), HC_OK);
			}
		} else if (x < 97) {
			want = ref_take(r, size);
			ck_assert_int_eq(hc_idle_take(&c, &H, 1, strm, size, &got), want != 0);
			if (want) {
				ck_assert_uint_eq(got, want);
				ck_assert_int_eq(ops->mem_free(dev, got), HC_OK);
			}
		} else { /* trim to about half: the oldest go first */
			uint64_t keep = ref_bytes(r) / 2;

			while (ref_bytes(r) > keep) {
				memmove(&r->addr[0], &r->addr[1], (r->n - 1) * sizeof(r->addr[0]));
				memmove(&r->size[0], &r->size[1], (r->n - 1) * sizeof(r->size[0]));
				r->n--;
			}
			hc_idle_trim(&c, &H, keep);
		}
		ck_assert_uint_eq(hc_idle_bytes(&c), ref_bytes(r));
	}
	/* What is left comes out oldest first, size by size. */
	while (r->n) {
		uint64_t size = r->size[r->n - 1], got = 0, want = ref_take(r, size);

		ck_assert(hc_idle_take(&c, &H, 1, strm, size, &got));
		ck_assert_uint_eq(got, want);
		ck_assert_int_eq(ops->mem_free(dev, got), HC_OK);
	}
	ck_assert_uint_eq(hc_idle_bytes(&c), 0);
	hc_idle_fini(&c, &H);
	/* everything allocated was freed, by the test or by a trim */
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_STATS, &st), HC_OK);
	ck_assert_uint_eq(st.device_allocs, st.device_frees);
	free(r);
}
END_TEST

/* While a stream of the device captures, the backend refuses every free:
 * a trim or a make-room stops at the first refusal and the entry stays,
 * in its place (the oldest), fence and all; the cache used to take it out
 * first and lose it.  After the capture the same trim frees it first. */
START_TEST(refused_free_keeps_the_entry)
{
	struct hc_idle c;
	struct ref r = { .n = 0 };
	hc_hal_stream *rec;
	hc_hal_graph *g = NULL;
	struct hc_hal_stats st;
	uint64_t a1, a2, a3, got = 0;

	hc_idle_init(&c);
	a1 = put(&c, &r, 4 << 20);
	a2 = put(&c, &r, 8 << 20);
	a3 = put(&c, &r, 4 << 20);
	ck_assert_int_eq(ops->stream_create(dev, &rec), HC_OK);
	ck_assert_int_eq(ops->capture_begin(dev, rec), HC_OK);
	hc_idle_trim(&c, &H, 0);
	ck_assert_uint_eq(hc_idle_bytes(&c), 16u << 20);
	hc_idle_make_room(&c, &H, 1ull << 40);
	ck_assert_uint_eq(hc_idle_bytes(&c), 16u << 20);
	ck_assert_int_eq(ops->capture_end(dev, rec, &g), HC_ERR_STATE); /* invalidated */
	ck_assert_int_eq(ops->stream_destroy(dev, rec), HC_OK);

	hc_idle_trim(&c, &H, 12 << 20); /* the oldest, a1, goes */
	ck_assert_uint_eq(hc_idle_bytes(&c), 12u << 20);
	ck_assert(hc_idle_take(&c, &H, 1, strm, 4 << 20, &got));
	ck_assert_uint_eq(got, a3);
	ck_assert(hc_idle_take(&c, &H, 1, strm, 8 << 20, &got));
	ck_assert_uint_eq(got, a2);
	ck_assert_int_eq(ops->mem_free(dev, a2), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, a3), HC_OK);
	(void)a1;
	hc_idle_fini(&c, &H);
	ck_assert_int_eq(ops->ctl(dev, HC_HAL_CTL_STATS, &st), HC_OK);
	ck_assert_uint_eq(st.device_allocs, st.device_frees);
}
END_TEST

static Suite *idle_suite(void)
{
	Suite *s = suite_create("idle");
	TCase *t = tcase_create("cache");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, oldest_of_a_size_first);
	tcase_add_test(t, refused_free_keeps_the_entry);
	tcase_add_loop_test(t, matches_the_array_it_replaced, 0, 4);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

HC_TEST_PROGRAM(idle_suite);
