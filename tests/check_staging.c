/*
 * check_staging.c - the staging contract (hc_staging_of) and status names.
 *
 * The decision is the seed's, exactly: MiB = 1024*1024, strict comparisons.
 * hc_write's plan (core/staging.c, hc_write_plan_of): the three ways and
 * the device policy's limit.
 */
#include <stdlib.h>
#include <string.h>

#include "core/streamops.h"
#include "hipcore/hipcore.h"
#include "tests/runner.h"

#define MIB HC_MIB

struct staging_case {
	uint64_t size;
	hc_alloc_property property;
	bool through_pinned;
	bool flush_after;
};

/* The seed's four cases. */
START_TEST(small_native_write_is_staged_without_flush)
{
	hc_staging s = hc_staging_of(4096, HC_ALLOC_NATIVE);
	ck_assert(s.through_pinned);
	ck_assert(!s.flush_after);
}
END_TEST

START_TEST(huge_native_write_goes_direct_and_flushes)
{
	hc_staging s = hc_staging_of(200 * MIB, HC_ALLOC_NATIVE);
	ck_assert(!s.through_pinned);
	ck_assert(s.flush_after);
}
END_TEST

START_TEST(pinned_source_is_never_restaged)
{
	hc_staging s = hc_staging_of(1 * MIB, HC_ALLOC_PINNED);
	ck_assert(!s.through_pinned);
	ck_assert(!s.flush_after);
}
END_TEST

START_TEST(file_source_is_always_staged_and_flushed)
{
	hc_staging s = hc_staging_of(1, HC_ALLOC_FILE);
	ck_assert(s.through_pinned);
	ck_assert(s.flush_after);
	s = hc_staging_of(4096 * MIB, HC_ALLOC_FILE);
	ck_assert(s.through_pinned);
	ck_assert(s.flush_after);
}
END_TEST

/* Boundaries for every property. */
static const hc_alloc_property all_props[] = {
	HC_ALLOC_NATIVE, HC_ALLOC_PINNED, HC_ALLOC_FILE, HC_ALLOC_DEVICE, HC_ALLOC_OTHER,
};
static const uint64_t boundary_sizes[] = {
	0, 1, 10 * MIB - 1, 10 * MIB, 10 * MIB + 1, 100 * MIB - 1, 100 * MIB, 100 * MIB + 1,
	UINT64_MAX,
};

static struct staging_case expected(uint64_t size, hc_alloc_property p)
{
	/* Written out per property from the contract table, not from the formula. */
	struct staging_case c = { size, p, false, false };
	switch (p) {
	case HC_ALLOC_FILE:
		c.through_pinned = true;
		c.flush_after = true;
		break;
	case HC_ALLOC_PINNED:
		c.through_pinned = false;
		c.flush_after = size > 10 * MIB;
		break;
	default: /* NATIVE, DEVICE, OTHER */
		c.through_pinned = size < 100 * MIB;
		c.flush_after = size > 10 * MIB;
		break;
	}
	return c;
}

START_TEST(boundaries_for_every_property)
{
	size_t np = sizeof(all_props) / sizeof(all_props[0]);
	hc_alloc_property p = all_props[_i % np];
	uint64_t size = boundary_sizes[_i / np];
	struct staging_case want = expected(size, p);
	hc_staging got = hc_staging_of(size, p);

	ck_assert_msg(got.through_pinned == want.through_pinned,
		      "through_pinned(size=%llu, prop=%d) = %d", (unsigned long long)size, p,
		      got.through_pinned);
	ck_assert_msg(got.flush_after == want.flush_after, "flush_after(size=%llu, prop=%d) = %d",
		      (unsigned long long)size, p, got.flush_after);
}
END_TEST

START_TEST(named_boundaries)
{
	/* 100 MiB - 1 is staged, 100 MiB is not; 10 MiB does not flush, +1 does. */
	ck_assert(hc_staging_of(100 * MIB - 1, HC_ALLOC_NATIVE).through_pinned);
	ck_assert(!hc_staging_of(100 * MIB, HC_ALLOC_NATIVE).through_pinned);
	ck_assert(!hc_staging_of(10 * MIB, HC_ALLOC_NATIVE).flush_after);
	ck_assert(hc_staging_of(10 * MIB + 1, HC_ALLOC_NATIVE).flush_after);
	ck_assert(hc_staging_of(0, HC_ALLOC_NATIVE).through_pinned);
	ck_assert(!hc_staging_of(0, HC_ALLOC_NATIVE).flush_after);
	ck_assert(!hc_staging_of(0, HC_ALLOC_PINNED).through_pinned);
}
END_TEST

START_TEST(unknown_property_behaves_as_other)
{
	hc_staging a = hc_staging_of(5 * MIB, (hc_alloc_property)77);
	hc_staging b = hc_staging_of(5 * MIB, HC_ALLOC_OTHER);
	ck_assert(a.through_pinned == b.through_pinned && a.flush_after == b.flush_after);
}
END_TEST

START_TEST(every_status_has_a_distinct_name)
{
	static const hc_status all[] = {
#define X_(name, value, text) name,
		HC_STATUS_LIST(X_)
#undef X_
	};
	size_t n = sizeof(all) / sizeof(all[0]);
	for (size_t i = 0; i < n; i++) {
		const char *s = hc_status_str(all[i]);
		ck_assert_ptr_nonnull(s);
		ck_assert(strncmp(s, "HC_", 3) == 0);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(s, hc_status_str(all[j]));
	}
	ck_assert_str_eq(hc_status_str((hc_status)9999), "unknown status");
	ck_assert_int_eq(hc_last_error(NULL), HC_ERR_INVALID);
}
END_TEST

struct plan_case {
	uint64_t size;
	hc_alloc_property property;
	uint64_t stage_max; /* the device policy's limit, 0: none */
	bool recording;
	bool through_pinned, flush_after;
	enum hc_write_way way;
};

static const struct plan_case plan_cases[] = {
	{ 4096, HC_ALLOC_NATIVE, 0, false, true, false, HC_WRITE_STAGED },
	{ 8 * MIB - 1, HC_ALLOC_NATIVE, 0, false, true, false, HC_WRITE_STAGED },
	{ 8 * MIB, HC_ALLOC_NATIVE, 0, false, true, false, HC_WRITE_PIPELINED },
	{ 8 * MIB, HC_ALLOC_NATIVE, 0, true, true, false, HC_WRITE_STAGED },
	/* not staged, but pageable and large: through the pipeline */
	{ 100 * MIB, HC_ALLOC_NATIVE, 0, false, false, true, HC_WRITE_PIPELINED },
	{ 100 * MIB, HC_ALLOC_DEVICE, 0, false, false, true, HC_WRITE_PIPELINED },
	{ 100 * MIB, HC_ALLOC_NATIVE, 0, true, false, true, HC_WRITE_DIRECT },
	{ 1 * MIB, HC_ALLOC_PINNED, 0, false, false, false, HC_WRITE_DIRECT },
	{ 1 * MIB, HC_ALLOC_PINNED, 1024 * MIB, false, false, false, HC_WRITE_DIRECT },
	{ 200 * MIB, HC_ALLOC_PINNED, 0, false, false, true, HC_WRITE_DIRECT },
	{ 200 * MIB, HC_ALLOC_FILE, 0, false, true, true, HC_WRITE_PIPELINED },
	{ 200 * MIB, HC_ALLOC_FILE, 1 * MIB, false, true, true, HC_WRITE_PIPELINED },
	{ 1, HC_ALLOC_FILE, 0, true, true, true, HC_WRITE_STAGED },
	/* the policy's limit replaces 100 MiB for the other properties */
	{ 2 * MIB, HC_ALLOC_NATIVE, 4 * MIB, false, true, false, HC_WRITE_STAGED },
	{ 4 * MIB, HC_ALLOC_NATIVE, 4 * MIB, false, false, false, HC_WRITE_DIRECT },
	{ 50 * MIB, HC_ALLOC_OTHER, 16 * MIB, false, false, true, HC_WRITE_PIPELINED },
	{ 150 * MIB, HC_ALLOC_NATIVE, 1024 * MIB, false, true, true, HC_WRITE_PIPELINED },
	{ 150 * MIB, HC_ALLOC_NATIVE, 1024 * MIB, true, true, true, HC_WRITE_STAGED },
};

START_TEST(write_plan_ways)
{
	const struct plan_case *c = &plan_cases[_i];
	struct hc_write_plan w = hc_write_plan_of(c->size, c->property, c->stage_max, c->recording);
	hc_staging contract = hc_staging_of(c->size, c->property);

	ck_assert_msg(w.staging.through_pinned == c->through_pinned &&
			      w.staging.flush_after == c->flush_after && w.way == c->way,
		      "case %d: %llu B, property %d, limit %llu, recording %d: staged %d flush %d "
		      "way %d", _i, (unsigned long long)c->size, (int)c->property,
		      (unsigned long long)c->stage_max, (int)c->recording,
		      (int)w.staging.through_pinned, (int)w.staging.flush_after, (int)w.way);
	/* without a policy the plan's decision is the contract's, exactly */
	if (c->stage_max == 0)
		ck_assert(w.staging.through_pinned == contract.through_pinned &&
			  w.staging.flush_after == contract.flush_after);
	/* a staged write is one bounce or the pipeline, never direct */
	if (w.staging.through_pinned)
		ck_assert(w.way == hc_staged_way(c->size, c->recording));
}
END_TEST

static Suite *staging_suite(void)
{
	Suite *s = suite_create("staging");
	TCase *seed = tcase_create("seed");
	TCase *limits = tcase_create("limits");

	tcase_add_test(seed, small_native_write_is_staged_without_flush);
	tcase_add_test(seed, huge_native_write_goes_direct_and_flushes);
	tcase_add_test(seed, pinned_source_is_never_restaged);
	tcase_add_test(seed, file_source_is_always_staged_and_flushed);
	tcase_add_loop_test(limits, boundaries_for_every_property, 0,
			    (int)(sizeof(all_props) / sizeof(all_props[0]) *
				  (sizeof(boundary_sizes) / sizeof(boundary_sizes[0]))));
	tcase_add_test(limits, named_boundaries);
	tcase_add_test(limits, unknown_property_behaves_as_other);
	tcase_add_test(limits, every_status_has_a_distinct_name);
	TCase *plan = tcase_create("plan");

	tcase_add_loop_test(plan, write_plan_ways, 0,
			    (int)(sizeof(plan_cases) / sizeof(plan_cases[0])));
	suite_add_tcase(s, seed);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, plan);
	return s;
}

HC_TEST_PROGRAM(staging_suite);
