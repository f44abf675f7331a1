/*
 * pools_suites.h - what the suites of tests/check_pools share: the fake storage
 * (fake_storage.c) and the helpers that build and check managers over it
 * (helpers.c).
 *
 * The suites run most cases under a checked fixture, fake_reset before and
 * fake_done after: a fresh storage for each case, and at its end no bad
 * free, nothing live, as many frees as allocations.  A case that resets the
 * storage itself (a walk, two storages) is in a tcase without the fixture.
 */
#ifndef HC_TESTS_POOLS_SUITES_H
#define HC_TESTS_POOLS_SUITES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pool/pool.h"
#include "tests/runner.h"

#define KIB ((uint64_t)1024)
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

/* ---- the fake storage (fake_storage.c) ---------------------------------- */

struct fake_alloc {
	uint64_t addr, size;
};

struct fake {
	uint64_t next;
	uint64_t allocs, frees, live, live_bytes;
	long fail_in;          /* refuse the fail_in-th next alloc (1 = next); 0 = never */
	uint64_t fit_extra;    /* alloc_fit hands out this much more when allowed */
	uint64_t fit_lie;      /* alloc_fit hands out this much more than allowed */
	uint64_t limit;        /* refuse when live_bytes + size > limit; 0 = none */
	bool refuse_free;      /* refuse every free (HC_ERR_STATE), as a backend may */
	struct fake_alloc *a;
	size_t n, cap;
	int bad_frees;
	uint64_t freed[16];    /* the addresses of the first frees, in order */
	size_t nfreed;
};

/* fk backs fake_storage and fake_fit_storage (with alloc_fit); fk2 backs
 * the twins' second pair. */
extern struct fake fk, fk2;
extern struct hc_storage fake_storage, fake_fit_storage;
extern struct hc_storage fake_storage2, fake_fit_storage2;

/* The storage's alloc, for a case that builds its own storage from it. */
hc_status fake_alloc(void *ctx, uint64_t size, uint64_t *addr);
/* A fresh fk (the fixture's setup). */
void fake_reset(void);
/* Asserts fk is back to nothing live with no bad free, then clears it (the
 * fixture's teardown). */
void fake_done(void);

/* ---- managers and checks (helpers.c) ------------------------------------ */

hc_pool_spec sliced(uint64_t page, uint64_t max_slice, uint64_t cap);
hc_pool_spec exclusive(uint64_t max, uint64_t period);
hc_pool_spec direct(uint64_t reclaim);
/* A manager over the fake storage with @n pools taken verbatim. */
struct hc_mm *mm_custom(const hc_pool_spec *specs, size_t n, uint64_t align);
/* A Workload manager over @st (alignment 256), or over fake_storage. */
struct hc_mm *mm_workload_on(struct hc_mm_shared *sh, const struct hc_storage *st);
struct hc_mm *mm_workload(struct hc_mm_shared *sh);
/* A reservation that must succeed; its address in @addr when non-NULL. */
struct hc_slice_ref res(struct hc_mm *mm, uint64_t size, uint64_t *addr);

struct reports {
	hc_pool_report r[300];
	size_t n;
};

/* hc_mm_report's callback: appends to the struct reports at @arg. */
void collect(const hc_pool_report *r, void *arg);
struct reports report(struct hc_mm *mm);
hc_memory_usage usage(struct hc_mm *mm);
/* Asserts the last error's message contains @needle. */
void expect_msg(const char *needle);

/* One live reservation of a property test. */
struct live_ent {
	struct hc_slice_ref r;
	uint64_t addr, size;
	int pins;
	bool released;
};

/* The manager is valid, @v's ranges are where the manager says and do not
 * overlap, and the usage figures add up to them and to the storage's. */
void check_invariants(struct hc_mm *mm, struct live_ent *v, size_t n);

/* The twins: two managers over two identical fake storages (fk and fk2),
 * one parking and one not, driven in lockstep by a sequence rich in
 * temporaries (release the latest reservation, reserve the size just
 * released) mixed with every other entry point: every status, address, id,
 * decision, usage figure, report and the storage traffic must agree after
 * every step.  One reservation on both: */
struct twin {
	struct hc_slice_ref a, b;
	uint64_t size;
	int pins;
	bool released;
};

void twins_same(struct hc_mm *ma, struct hc_mm *mb);
bool twin_reserve(struct hc_mm *ma, struct hc_mm *mb, struct twin *t, uint64_t size,
		  bool fail);
void twins_capture_end(struct hc_mm *ma, struct hc_mm *mb);
bool twin_touch(struct hc_mm *ma, struct hc_mm *mb, struct twin *t, unsigned *seed,
		int pin_odds);

/* ---- the suites, in the order tests/check_pools runs them ---------------- */

Suite *pools_placement_suite(void);
Suite *pools_kinds_suite(void);
Suite *pools_lifecycle_suite(void);
Suite *pools_refusals_suite(void);
Suite *pools_layouts_suite(void);
Suite *pools_workload_split_suite(void);
Suite *pools_capture_suite(void);
Suite *pools_property_suite(void);
Suite *pools_park_suite(void);
Suite *pools_park_split_suite(void);

#endif
