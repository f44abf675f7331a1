/*
 * sim_ranges.h - an ordered set of disjoint address ranges for the
 * simulator's device memory (sim_ranges.c): the live allocations, and the
 * holes of the address space below its bump pointer.
 *
 * Every operation costs O(log n) expected, whatever the order of the calls:
 * the simulator used sorted arrays before, whose insertions and removals
 * moved the tail of the array each time, so a device closed with 128k live
 * allocations (freed lowest address first) spent seconds in memmove
 * (issue 28).  @steps counts the nodes the operations visit, so that a test
 * can check the bound without a clock.
 */
#ifndef HIPCORE_SIM_RANGES_H
#define HIPCORE_SIM_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A device allocation or a free range of the address space. */
struct sim_range {
	uint64_t base, size;
	unsigned char *data; /* data mode backing, else NULL */
};

struct sim_rnode {
	struct sim_range r;
	uint64_t max; /* the largest size in this subtree (first fit) */
	struct sim_rnode *left, *right;
	uint32_t prio;
};

struct sim_rset {
	struct sim_rnode *root;
	size_t n;
	uint32_t seed;  /* priorities: a fixed sequence, so runs repeat */
	uint64_t steps; /* nodes visited so far, by every operation */
};

/* An empty set (or zero the struct). */
void sim_rset_init(struct sim_rset *s);

/**
 * sim_rset_insert() - add range @r, whose base no member has.
 * Return: its node, or NULL when no host memory (the set is unchanged).
 */
struct sim_rnode *sim_rset_insert(struct sim_rset *s, struct sim_range r);

/* Removes member @x and frees its node (its range's data is the caller's). */
void sim_rset_remove(struct sim_rset *s, struct sim_rnode *x);

/* The member with the greatest base <= @addr, or NULL. */
struct sim_rnode *sim_rset_floor(struct sim_rset *s, uint64_t addr);

/* The member with the smallest base > @addr, or NULL. */
struct sim_rnode *sim_rset_after(struct sim_rset *s, uint64_t addr);

/**
 * sim_rset_fit_at() - where @size bytes aligned to @align (a power of two)
 * would start inside range @r: the first multiple of @align at or above its
 * base, when the bytes from there to its end are at least @size.
 * Return: true and *@at, or false when they do not fit.
 */
bool sim_rset_fit_at(const struct sim_range *r, uint64_t size, uint64_t align, uint64_t *at);

/**
 * sim_rset_first_fit() - the member with the lowest base that @size bytes
 * aligned to @align fit in (sim_rset_fit_at), or NULL.  A member of at
 * least @size + @align - 1 bytes always fits, a smaller one only when its
 * base is aligned enough: the search skips subtrees whose largest size is
 * below @size and tests the members left in address order, so it is one
 * descent when every member at least @size long fits (the sizes and bases
 * are multiples of @align, as the device's allocations are).
 */
struct sim_rnode *sim_rset_first_fit(struct sim_rset *s, uint64_t size, uint64_t align);

/**
 * sim_rset_update() - after member @x's range changed in place: its size
 * freely, its base only within the gap between its neighbours (the order
 * of the bases holds).  Fixes the size maxima above it.
 */
void sim_rset_update(struct sim_rset *s, struct sim_rnode *x);

/* Frees every node, calling @fn (may be NULL) on each range first; O(n)
 * time, O(1) stack.  The set is empty after. */
void sim_rset_clear(struct sim_rset *s, void (*fn)(struct sim_range *r));

/* Whole-set check (tests): bases strictly increasing, ranges disjoint,
 * heap order of priorities, exact maxima, n nodes.  O(n). */
bool sim_rset_valid(const struct sim_rset *s);

#endif /* HIPCORE_SIM_RANGES_H */
