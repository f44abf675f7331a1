/*
 * sim_ranges.c - the simulator's ordered range sets (see sim_ranges.h).
 *
 * A treap: a binary search tree on the range's base that is also a heap on
 * a pseudo-random priority, so its expected depth is about 2 ln n whatever
 * order the bases come and go in; freeing every allocation lowest address
 * first, as a device close does, costs O(n log n) instead of the O(n^2) of
 * a sorted array's memmoves.  Each node keeps the largest size of its
 * subtree, so the search for the lowest-based range that an aligned request
 * fits in (the address space's first fit) skips every subtree too small.  Priorities come from a per-set
 * xorshift generator: the shape, and so the cost, repeat run to run.
 *
 * Nodes are malloc'd one per range (the device's bookkeeping, as the array
 * was); only an insertion allocates, so only it can fail.
 */
#include <stdlib.h>

#include "sim/sim_ranges.h"

static uint64_t max_of(const struct sim_rnode *n)
{
	return n ? n->max : 0;
}

static void pull(struct sim_rnode *n)
{
	uint64_t m = n->r.size;

	if (max_of(n->left) > m)
		m = max_of(n->left);
	if (max_of(n->right) > m)
		m = max_of(n->right);
	n->max = m;
}

static uint32_t next_prio(struct sim_rset *s)
{
	uint32_t x = s->seed ? s->seed : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->seed = x;
	return x;
}

void sim_rset_init(struct sim_rset *s)
{
	s->root = NULL;
	s->n = 0;
	s->seed = 0;
	s->steps = 0;
}

/* Splits @t into bases < @base (*lo) and bases >= @base (*hi). */
static void split(struct sim_rset *s, struct sim_rnode *t, uint64_t base, struct sim_rnode **lo,
		  struct sim_rnode **hi)
{
	if (!t) {
		*lo = *hi = NULL;
		return;
	}
	s->steps++;
	if (t->r.base < base) {
		split(s, t->right, base, &t->right, hi);
		*lo = t;
	} else {
		split(s, t->left, base, lo, &t->left);
		*hi = t;
	}
	pull(t);
}

/* Joins @a and @b, every base of @a below every base of @b. */
static struct sim_rnode *join(struct sim_rset *s, struct sim_rnode *a, struct sim_rnode *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	s->steps++;
	if (a->prio > b->prio) {
		a->right = join(s, a->right, b);
		pull(a);
		return a;
	}
	b->left = join(s, a, b->left);
	pull(b);
	return b;
}

static struct sim_rnode *insert_at(struct sim_rset *s, struct sim_rnode *t, struct sim_rnode *x)
{
	if (!t)
		return x;
	s->steps++;
	if (x->prio > t->prio) {
		split(s, t, x->r.base, &x->left, &x->right);
		pull(x);
		return x;
	}
	if (x->r.base < t->r.base)
		t->left = insert_at(s, t->left, x);
	else
		t->right = insert_at(s, t->right, x);
	pull(t);
	return t;
}

struct sim_rnode *sim_rset_insert(struct sim_rset *s, struct sim_range r)
{
	struct sim_rnode *x = malloc(sizeof(*x));

	if (!x)
		return NULL;
	x->r = r;
	x->max = r.size;
	x->left = x->right = NULL;
	x->prio = next_prio(s);
	s->root = insert_at(s, s->root, x);
	s->n++;
	return x;
}

static struct sim_rnode *remove_at(struct sim_rset *s, struct sim_rnode *t, struct sim_rnode *x)
{
	if (!t)
		return NULL;
	s->steps++;
	if (t == x)
		return join(s, t->left, t->right);
	if (x->r.base < t->r.base)
		t->left = remove_at(s, t->left, x);
	else
		t->right = remove_at(s, t->right, x);
	pull(t);
	return t;
}

void sim_rset_remove(struct sim_rset *s, struct sim_rnode *x)
{
	s->root = remove_at(s, s->root, x);
	s->n--;
	free(x);
}

struct sim_rnode *sim_rset_floor(struct sim_rset *s, uint64_t addr)
{
	struct sim_rnode *t = s->root, *best = NULL;

	while (t) {
		s->steps++;
		if (t->r.base <= addr) {
			best = t;
			t = t->right;
		} else {
			t = t->left;
		}
	}
	return best;
}

struct sim_rnode *sim_rset_after(struct sim_rset *s, uint64_t addr)
{
	struct sim_rnode *t = s->root, *best = NULL;

	while (t) {
		s->steps++;
		if (t->r.base > addr) {
			best = t;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	return best;
}

bool sim_rset_fit_at(const struct sim_range *r, uint64_t size, uint64_t align, uint64_t *at)
{
	uint64_t a, head;

	if (r->base > UINT64_MAX - (align - 1))
		return false;
	a = (r->base + align - 1) & ~(align - 1);
	head = a - r->base;
	if (head >= r->size || r->size - head < size)
		return false;
	*at = a;
	return true;
}

/* The lowest-based member of subtree @t that fits, or NULL.  Recursion is
 * as deep as the tree (about 2 ln n). */
static struct sim_rnode *fit_in(struct sim_rset *s, struct sim_rnode *t, uint64_t size,
				uint64_t align)
{
	struct sim_rnode *got;
	uint64_t at;

	while (t && t->max >= size) {
		s->steps++;
		got = fit_in(s, t->left, size, align);
		if (got)
			return got;
		if (t->r.size >= size && sim_rset_fit_at(&t->r, size, align, &at))
			return t;
		t = t->right;
	}
	return NULL;
}

struct sim_rnode *sim_rset_first_fit(struct sim_rset *s, uint64_t size, uint64_t align)
{
	return fit_in(s, s->root, size, align ? align : 1);
}

static void update_at(struct sim_rset *s, struct sim_rnode *t, struct sim_rnode *x)
{
	if (!t)
		return;
	s->steps++;
	if (t != x)
		update_at(s, x->r.base < t->r.base ? t->left : t->right, x);
	pull(t);
}

void sim_rset_update(struct sim_rset *s, struct sim_rnode *x)
{
	update_at(s, s->root, x);
}

void sim_rset_clear(struct sim_rset *s, void (*fn)(struct sim_range *r))
{
	struct sim_rnode *t = s->root, *l;

	/* Rotate left children up until the root has none, then free it: no
	 * recursion, each node rotated at most once. */
	while (t) {
		if (t->left) {
			l = t->left;
			t->left = l->right;
			l->right = t;
			t = l;
			continue;
		}
		l = t->right;
		if (fn)
			fn(&t->r);
		free(t);
		t = l;
	}
	s->root = NULL;
	s->n = 0;
}

static bool valid_at(const struct sim_rnode *t, const struct sim_rnode **prev, size_t *count)
{
	uint64_t m;

	if (!t)
		return true;
	if (!valid_at(t->left, prev, count))
		return false;
	if (*prev && ((*prev)->r.base >= t->r.base || t->r.base - (*prev)->r.base < (*prev)->r.size))
		return false;
	if ((t->left && t->left->prio > t->prio) || (t->right && t->right->prio > t->prio))
		return false;
	m = t->r.size;
	if (max_of(t->left) > m)
		m = max_of(t->left);
	if (max_of(t->right) > m)
		m = max_of(t->right);
	if (m != t->max)
		return false;
	*prev = t;
	(*count)++;
	return valid_at(t->right, prev, count);
}

bool sim_rset_valid(const struct sim_rset *s)
{
	const struct sim_rnode *prev = NULL;
	size_t count = 0;

	return valid_at(s->root, &prev, &count) && count == s->n;
}
