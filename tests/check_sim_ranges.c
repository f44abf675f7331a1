/*
 * check_sim_ranges.c - the simulator's ordered range sets (sim/sim_ranges.c)
 * and the device memory built on them.
 *
 * Model: random insertions, removals, resizes and queries against a plain
 * sorted array, compared answer by answer, with the whole-set check along
 * the way.  Cost: a device with many live allocations freed lowest address
 * first (what a close does), highest first and in random order, and the
 * address space's first fit among many holes, must visit O(log n) nodes a
 * call: the sets count their visits (sim_rset.steps), so the bound is
 * checked without a clock (issue 28: the sorted arrays before made a close
 * with 256k live allocations take 27 s).  First fit is aligned, as the
 * address space takes are (sim_space_take): the model tests its definition
 * with alignments from 1 B to 1 MiB, and a device case checks an aligned
 * take's gap left as a hole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hal/hal.h"
#include "sim/sim.h"
#include "sim/sim_internal.h"
#include "sim/sim_ranges.h"
#include "tests/runner.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The model: ranges sorted by base. */
struct model {
	struct sim_range v[4096];
	size_t n;
};

static size_t model_upper(const struct model *m, uint64_t addr)
{
	size_t i = 0;

	while (i < m->n && m->v[i].base <= addr)
		i++;
	return i;
}

static const struct sim_range *model_floor(const struct model *m, uint64_t addr)
{
	size_t i = model_upper(m, addr);

	return i ? &m->v[i - 1] : NULL;
}

static const struct sim_range *model_after(const struct model *m, uint64_t addr)
{
	size_t i = model_upper(m, addr);

	return i < m->n ? &m->v[i] : NULL;
}

/* First fit with alignment, by its definition: the lowest range whose
 * first @align-aligned address leaves at least @size bytes to its end. */
static const struct sim_range *model_first_fit(const struct model *m, uint64_t size,
					       uint64_t align)
{
	for (size_t i = 0; i < m->n; i++) {
		uint64_t at = (m->v[i].base + align - 1) / align * align;

		if (at - m->v[i].base < m->v[i].size && m->v[i].size - (at - m->v[i].base) >= size)
			return &m->v[i];
	}
	return NULL;
}

static void same(const struct sim_rnode *got, const struct sim_range *want)
{
	if (!want) {
		ck_assert_ptr_null(got);
		return;
	}
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got->r.base, want->base);
	ck_assert_uint_eq(got->r.size, want->size);
}

/* Slots of 1 MiB, each holding at most one range inside it: disjoint. */
START_TEST(matches_a_sorted_array)
{
	struct sim_rset s;
	struct model m = { .n = 0 };
	const uint64_t slot = 1 << 20;

	rng_state = 28;
	sim_rset_init(&s);
	for (int step = 0; step < 60000; step++) {
		uint64_t r = rnd(), k = (r >> 8) % 4096, addr = k * slot + (r >> 40) % slot;
		struct sim_rnode *n;
		size_t i;

		switch (r % 6) {
		case 0:
		case 1: /* insert into slot k if free */
			i = model_upper(&m, k * slot + slot - 1);
			if (i && m.v[i - 1].base >= k * slot)
				break;
			{
				struct sim_range x = { k * slot + (r >> 20) % 4096,
						       1 + (r >> 32) % (slot - 4096), NULL };

				ck_assert_ptr_nonnull(sim_rset_insert(&s, x));
				memmove(&m.v[i + 1], &m.v[i], (m.n - i) * sizeof(m.v[0]));
				m.v[i] = x;
				m.n++;
			}
			break;
		case 2: /* remove the floor of addr */
			n = sim_rset_floor(&s, addr);
			same(n, model_floor(&m, addr));
			if (n) {
				i = model_upper(&m, addr) - 1;
				sim_rset_remove(&s, n);
				memmove(&m.v[i], &m.v[i + 1], (m.n - i - 1) * sizeof(m.v[0]));
				m.n--;
			}
			break;
		case 3: /* shrink the floor of addr from the front, as space_take does */
			n = sim_rset_floor(&s, addr);
			same(n, model_floor(&m, addr));
			if (n && n->r.size > 1) {
				uint64_t cut = 1 + (r >> 16) % (n->r.size - 1);

				i = model_upper(&m, addr) - 1;
				n->r.base += cut;
				n->r.size -= cut;
				sim_rset_update(&s, n);
				m.v[i].base += cut;
				m.v[i].size -= cut;
			}
			break;
		case 4:
			same(sim_rset_after(&s, addr), model_after(&m, addr));
			break;
		default: {
			uint64_t need = 1 + (r >> 24) % slot, align = 1ull << (r >> 50) % 21;
			const struct sim_range *want = model_first_fit(&m, need, align);
			struct sim_rnode *got = sim_rset_first_fit(&s, need, align);
			uint64_t at = 0;

			same(got, want);
			if (got) {
				ck_assert(sim_rset_fit_at(&got->r, need, align, &at));
				ck_assert_uint_eq(at % align, 0);
				ck_assert_uint_ge(at, got->r.base);
				ck_assert_uint_le(at - got->r.base + need, got->r.size);
			}
		}
		}
		ck_assert_uint_eq(s.n, m.n);
		if (step % 2000 == 0)
			ck_assert(sim_rset_valid(&s));
	}
	ck_assert(sim_rset_valid(&s));
	sim_rset_clear(&s, NULL);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_ptr_null(s.root);
}
END_TEST

/* floor(log2(n)) + 1 */
static uint64_t log2_of(uint64_t n)
{
	uint64_t l = 0;

	while (n) {
		l++;
		n >>= 1;
	}
	return l;
}

enum { LIVE = 1 << 14 };
/* Node visits allowed per allocation + free, over log2(n): an insertion and
 * a removal in the live set and in the holes, a floor, a first fit; expected
 * ~2 ln n each.  A sorted array's memmove (or a walk) would be ~n. */
#define STEPS_PER_LOG 48

static hc_hal_dev *open_big(const struct hc_hal_ops **ops)
{
	struct hc_hal_open_args a = { .ordinal = 0, .capacity = 1ull << 40 };
	hc_hal_dev *dev = NULL;

	*ops = hc_sim_ops();
	ck_assert_int_eq((*ops)->device_open(&a, &dev), HC_OK);
	return dev;
}

static uint64_t steps_of(const hc_hal_dev *dev)
{
	return dev->live.steps + dev->holes.steps;
}

/* Order 0: lowest address first (a close); 1: highest first; 2: random. */
static void alloc_then_free(int order)
{
	const struct hc_hal_ops *ops;
	hc_hal_dev *dev = open_big(&ops);
	hc_hal_dptr *p = malloc(LIVE * sizeof(*p));
	uint64_t bound = (uint64_t)STEPS_PER_LOG * LIVE * log2_of(LIVE), before;

	ck_assert_ptr_nonnull(p);
	for (int i = 0; i < LIVE; i++)
		ck_assert_int_eq(ops->mem_alloc(dev, (1 << 20) + 1, &p[i]), HC_OK);
	ck_assert_uint_le(steps_of(dev), bound / 2);
	if (order == 2) {
		rng_state = 7;
		for (int i = LIVE - 1; i > 0; i--) {
			int j = (int)(rnd() % (uint64_t)(i + 1));
			hc_hal_dptr t = p[i];

			p[i] = p[j];
			p[j] = t;
		}
	}
	before = steps_of(dev);
	for (int i = 0; i < LIVE; i++)
		ck_assert_int_eq(ops->mem_free(dev, p[order == 1 ? LIVE - 1 - i : i]), HC_OK);
	ck_assert_msg(steps_of(dev) - before <= bound / 2,
		      "%llu node visits to free %d allocations (bound %llu)",
		      (unsigned long long)(steps_of(dev) - before), LIVE,
		      (unsigned long long)(bound / 2));
	ck_assert_uint_eq(dev->live.n, 0);
	ck_assert_uint_eq(dev->holes.n, 0); /* all coalesced and given back to the top */
	free(p);
	ops->device_close(dev);
}

START_TEST(free_lowest_first)
{
	alloc_then_free(0);
}
END_TEST

START_TEST(free_highest_first)
{
	alloc_then_free(1);
}
END_TEST

START_TEST(free_random_order)
{
	alloc_then_free(2);
}
END_TEST

/* Every other allocation freed: LIVE / 2 holes that no request fits but the
 * last; first fit must not walk them. */
START_TEST(first_fit_among_many_holes)
{
	const struct hc_hal_ops *ops;
	hc_hal_dev *dev = open_big(&ops);
	hc_hal_dptr *p = malloc(LIVE * sizeof(*p)), big, small;
	uint64_t before;

	ck_assert_ptr_nonnull(p);
	for (int i = 0; i < LIVE; i++)
		ck_assert_int_eq(ops->mem_alloc(dev, 4096, &p[i]), HC_OK);
	for (int i = 0; i < LIVE - 1; i += 2)
		ck_assert_int_eq(ops->mem_free(dev, p[i]), HC_OK);
	ck_assert_int_eq(ops->mem_free(dev, p[LIVE - 3]), HC_OK); /* one hole of 3 pages */
	ck_assert_uint_eq(dev->holes.n, LIVE / 2 - 1);
	ck_assert(sim_rset_valid(&dev->holes) && sim_rset_valid(&dev->live));
	before = steps_of(dev);
	for (int i = 0; i < 1000; i++) {
		ck_assert_int_eq(ops->mem_alloc(dev, 3 * 4096, &big), HC_OK);
		ck_assert_uint_eq(big, p[LIVE - 4]); /* the only hole that fits */
		ck_assert_int_eq(ops->mem_free(dev, big), HC_OK);
	}
	ck_assert_uint_le(steps_of(dev) - before, 1000ull * STEPS_PER_LOG * log2_of(LIVE));
	ck_assert_int_eq(ops->mem_alloc(dev, 4096, &small), HC_OK);
	ck_assert_uint_eq(small, p[0]); /* first fit: the lowest hole */
	free(p);
	ops->device_close(dev);
}
END_TEST

/* Alignment: a hole long enough but with its aligned start too late is
 * passed over for a later one; a short hole already aligned fits; a long
 * misaligned one keeps its head as a hole, and the top its gap. */
START_TEST(first_fit_with_alignment)
{
	struct sim_rset s;
	const uint64_t A = 1 << 16;
	struct sim_rnode *n;
	uint64_t at;

	sim_rset_init(&s);
	/* 0: size A + 4096 at A + 4096: aligned start 2A leaves 8192 bytes */
	ck_assert_ptr_nonnull(sim_rset_insert(&s, (struct sim_range){ A + 4096, A + 4096, NULL }));
	/* 1: exactly A at 4A (aligned) */
	ck_assert_ptr_nonnull(sim_rset_insert(&s, (struct sim_range){ 4 * A, A, NULL }));
	/* 2: 3A at 6A + 1 */
	ck_assert_ptr_nonnull(sim_rset_insert(&s, (struct sim_range){ 6 * A + 1, 3 * A, NULL }));
	n = sim_rset_first_fit(&s, A, A);
	ck_assert_ptr_nonnull(n);
	ck_assert_uint_eq(n->r.base, 4 * A);
	n = sim_rset_first_fit(&s, 8192, A);
	ck_assert_uint_eq(n->r.base, A + 4096);
	ck_assert(sim_rset_fit_at(&n->r, 8192, A, &at));
	ck_assert_uint_eq(at, 2 * A);
	ck_assert_ptr_null(sim_rset_first_fit(&s, 2 * A + 2, A)); /* hole 2 gives 2A + 1 */
	n = sim_rset_first_fit(&s, A + 1, A);
	ck_assert_uint_eq(n->r.base, 6 * A + 1);
	ck_assert(sim_rset_fit_at(&n->r, A + 1, A, &at));
	ck_assert_uint_eq(at, 7 * A);
	ck_assert(sim_rset_valid(&s));
	sim_rset_clear(&s, NULL);

	/* On a device: an aligned take above an unaligned top leaves the gap a
	 * hole, which a smaller take then fits first. */
	{
		const struct hc_hal_ops *ops = hc_sim_ops();
		struct hc_hal_open_args a = { .ordinal = 0, .capacity = 1ull << 40 };
		hc_hal_dev *dev = NULL;
		const uint64_t G = 1 << 21;
		uint64_t top, al, b0, b1, b2;

		ck_assert_int_eq(ops->device_open(&a, &dev), HC_OK);
		top = dev->top;
		al = dev->prof.alignment;
		ck_assert_uint_eq(top % G, 0);
		ck_assert_uint_lt(2 * al, G);
		ck_assert(sim_space_take(dev, al, al, &b0));
		ck_assert_uint_eq(b0, top);
		ck_assert(sim_space_take(dev, A, G, &b1));
		ck_assert_uint_eq(b1, top + G);
		ck_assert_uint_eq(dev->holes.n, 1); /* [top + al, top + G) */
		ck_assert(sim_space_take(dev, al, al, &b2));
		ck_assert_uint_eq(b2, top + al);
		ck_assert_uint_eq(dev->holes.n, 1);
		ck_assert_uint_eq(dev->top, top + G + A);
		ck_assert(sim_space_give(dev, b1, A)); /* coalesces with the gap, lowers the top */
		ck_assert_uint_eq(dev->holes.n, 0);
		ck_assert_uint_eq(dev->top, top + 2 * al);
		ck_assert(sim_space_give(dev, b0, al));
		ck_assert_uint_eq(dev->holes.n, 1);
		ck_assert(sim_space_give(dev, b2, al));
		ck_assert_uint_eq(dev->holes.n, 0);
		ck_assert_uint_eq(dev->top, top);
		ops->device_close(dev);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("sim_ranges");
	TCase *tc = tcase_create("ranges");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, matches_a_sorted_array);
	tcase_add_test(tc, free_lowest_first);
	tcase_add_test(tc, free_highest_first);
	tcase_add_test(tc, free_random_order);
	tcase_add_test(tc, first_fit_among_many_holes);
	tcase_add_test(tc, first_fit_with_alignment);
	suite_add_tcase(s, tc);
	return s;
}

HC_TEST_PROGRAM(make_suite);
