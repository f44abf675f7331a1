/*
 * free_tree.c - an ordered set of free blocks with "leftmost block of at
 * least N" in O(log n).
 *
 * A treap (binary search tree on the key, heap on a pseudo-random priority)
 * keyed by the pair (k1, k2).  Each node keeps the largest val of its
 * subtree, so the first node in key order whose val is at least N is found
 * by one descent: go left while the left subtree can satisfy N, else take
 * the node itself, else go right.  Priorities come from a per-tree xorshift
 * generator, so the shape (and the cost) is the same on every run.
 *
 * The pools use it three ways: free runs of a sliced pool keyed by (page
 * order, offset) with val = run size (first fit); free pages of an exclusive
 * pool keyed by page order with val = page size; free slices of the direct
 * and persistent pools keyed by (effective size, order) (exact-size lookup).
 * Nodes are embedded in the slices and pages, so the tree allocates nothing.
 */
#include "core/pool/pool_internal.h"

static uint64_t node_max(const struct hc_tnode *n)
{
	return n ? n->max : 0;
}

static void pull(struct hc_tnode *n)
{
	uint64_t m = n->val;

	if (node_max(n->l) > m)
		m = node_max(n->l);
	if (node_max(n->r) > m)
		m = node_max(n->r);
	n->max = m;
}

static int key_cmp(uint64_t a1, uint64_t a2, const struct hc_tnode *b)
{
	if (a1 != b->k1)
		return a1 < b->k1 ? -1 : 1;
	if (a2 != b->k2)
		return a2 < b->k2 ? -1 : 1;
	return 0;
}

static uint32_t next_prio(struct hc_tree *t)
{
	uint32_t x = t->seed ? t->seed : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->seed = x;
	return x;
}

/* Splits @n into keys < (k1, k2) and keys >= (k1, k2). */
static void split(struct hc_tnode *n, uint64_t k1, uint64_t k2, struct hc_tnode **lo,
		  struct hc_tnode **hi)
{
	if (!n) {
		*lo = *hi = NULL;
		return;
	}
	if (key_cmp(n->k1, n->k2, &(struct hc_tnode){ .k1 = k1, .k2 = k2 }) < 0) {
		split(n->r, k1, k2, &n->r, hi);
		*lo = n;
	} else {
		split(n->l, k1, k2, lo, &n->l);
		*hi = n;
	}
	pull(n);
}

/* Joins two treaps where every key of @a precedes every key of @b. */
static struct hc_tnode *join(struct hc_tnode *a, struct hc_tnode *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a->r = join(a->r, b);
		pull(a);
		return a;
	}
	b->l = join(a, b->l);
	pull(b);
	return b;
}

static struct hc_tnode *insert_at(struct hc_tnode *n, struct hc_tnode *x)
{
	if (!n)
		return x;
	if (x->prio > n->prio) {
		split(n, x->k1, x->k2, &x->l, &x->r);
		pull(x);
		return x;
	}
	if (key_cmp(x->k1, x->k2, n) < 0)
		n->l = insert_at(n->l, x);
	else
		n->r = insert_at(n->r, x);
	pull(n);
	return n;
}

void hc_tree_insert(struct hc_tree *t, struct hc_tnode *x)
{
	x->l = x->r = NULL;
	x->prio = next_prio(t);
	x->max = x->val;
	t->root = insert_at(t->root, x);
	t->n++;
}

static struct hc_tnode *remove_at(struct hc_tnode *n, struct hc_tnode *x)
{
	int c;

	if (!n)
		return NULL;
	if (n == x)
		return join(n->l, n->r);
	c = key_cmp(x->k1, x->k2, n);
	if (c < 0)
		n->l = remove_at(n->l, x);
	else
		n->r = remove_at(n->r, x);
	pull(n);
	return n;
}

void hc_tree_remove(struct hc_tree *t, struct hc_tnode *x)
{
	t->root = remove_at(t->root, x);
	x->l = x->r = NULL;
	t->n--;
}

struct hc_tnode *hc_tree_first_fit(const struct hc_tree *t, uint64_t need)
{
	struct hc_tnode *n = t->root;

	if (!n || n->max < need)
		return NULL;
	for (;;) {
		if (n->l && n->l->max >= need)
			n = n->l;
		else if (n->val >= need)
			return n;
		else
			n = n->r; /* n->max >= need guarantees the right side fits */
	}
}

/* hc_tree_first_fit, remembering the descent for hc_tree_lower_path:
 * path->n is 0 when the path was deeper than HC_TREE_PATH_MAX. */
struct hc_tnode *hc_tree_first_fit_path(const struct hc_tree *t, uint64_t need,
					struct hc_tree_path *path)
{
	struct hc_tnode *n = t->root;
	unsigned d = 0;

	path->n = 0;
	if (!n || n->max < need)
		return NULL;
	for (;;) {
		if (d < HC_TREE_PATH_MAX)
			path->node[d] = n;
		d++;
		if (n->l && n->l->max >= need)
			n = n->l;
		else if (n->val >= need)
			break;
		else
			n = n->r;
	}
	path->n = d <= HC_TREE_PATH_MAX ? d : 0;
	return n;
}

struct hc_tnode *hc_tree_lower_bound(const struct hc_tree *t, uint64_t k1, uint64_t k2)
{
	struct hc_tnode *n = t->root, *best = NULL;

	while (n) {
		if (key_cmp(k1, k2, n) <= 0) {
			best = n;
			n = n->l;
		} else {
			n = n->r;
		}
	}
	return best;
}

struct hc_tnode *hc_tree_first(const struct hc_tree *t)
{
	struct hc_tnode *n = t->root;

	while (n && n->l)
		n = n->l;
	return n;
}

/*
 * The nodes from the root down to @x, by @x's key: *depth of them, @x last.
 * Return: false when @x is deeper than HC_TREE_PATH_MAX (or absent).
 */
static bool path_to(struct hc_tnode *root, const struct hc_tnode *x, struct hc_tnode **path,
		    unsigned *depth)
{
	struct hc_tnode *n = root;
	unsigned d = 0;

	while (n && d < HC_TREE_PATH_MAX) {
		path[d++] = n;
		if (n == x) {
			*depth = d;
			return true;
		}
		n = key_cmp(x->k1, x->k2, n) < 0 ? n->l : n->r;
	}
	return false;
}

/* Re-pulls path[0..d-1] bottom-up, stopping where a subtree maximum is
 * unchanged: every maximum above it then is too. */
static void pull_path(struct hc_tnode **path, unsigned d)
{
	while (d-- > 0) {
		uint64_t old = path[d]->max;

		pull(path[d]);
		if (path[d]->max == old)
			return;
	}
}

static void refresh_at(struct hc_tnode *n, struct hc_tnode *x)
{
	if (!n)
		return;
	if (n != x) {
		if (key_cmp(x->k1, x->k2, n) < 0)
			refresh_at(n->l, x);
		else
			refresh_at(n->r, x);
	}
	pull(n);
}

/* After @x's val changed, or its key moved without passing a neighbour's.
 * One descent to @x, then maxima are fixed upwards only as far as they
 * change. */
void hc_tree_refresh(struct hc_tree *t, struct hc_tnode *x)
{
	struct hc_tnode *path[HC_TREE_PATH_MAX];
	unsigned d;

	if (!path_to(t->root, x, path, &d)) {
		refresh_at(t->root, x);
		return;
	}
	/* @x itself always: its max may be stale whatever the old value. */
	pull(x);
	pull_path(path, d - 1);
}

/*
 * Sets @x's val to @v, after its key moved without passing a neighbour's
 * (or did not move).  When @v is not below the old val, every subtree that
 * holds @x has max(its max, @v) as its maximum, so one descent to @x fixes
 * them on the way down, reading no sibling; a smaller @v (or a node not
 * found, which a valid tree rules out) takes hc_tree_refresh.
 */
void hc_tree_raise(struct hc_tree *t, struct hc_tnode *x, uint64_t v)
{
	struct hc_tnode *n = t->root;

	if (v < x->val) {
		x->val = v;
		hc_tree_refresh(t, x);
		return;
	}
	x->val = v;
	while (n && n != x) {
		if (n->max < v)
			n->max = v;
		n = key_cmp(x->k1, x->k2, n) < 0 ? n->l : n->r;
	}
	if (!n) {
		hc_tree_refresh(t, x);
		return;
	}
	if (x->max < v)
		x->max = v;
}

/*
 * Lowers @x's val to @v after its key moved without passing a neighbour's
 * (a sliced pool's run that gave up its front), with the descent that
 * hc_tree_first_fit_path recorded to @x (no tree change since): @x and
 * then its ancestors are re-pulled, bottom up, as far as their maxima
 * change.  No node moves.  Without a usable path, hc_tree_refresh.
 */
void hc_tree_lower_path(struct hc_tree *t, struct hc_tree_path *path, struct hc_tnode *x, uint64_t v)
{
	uint64_t old = x->max;

	x->val = v;
	if (path->n == 0 || path->node[path->n - 1] != x) {
		hc_tree_refresh(t, x);
		return;
	}
	pull(x);
	if (x->max != old)
		pull_path(path->node, path->n - 1);
}

static bool valid_at(const struct hc_tnode *n, const struct hc_tnode *lo, const struct hc_tnode *hi,
		     uint64_t *count)
{
	uint64_t m;

	if (!n)
		return true;
	if (lo && key_cmp(lo->k1, lo->k2, n) >= 0)
		return false;
	if (hi && key_cmp(n->k1, n->k2, hi) >= 0)
		return false;
	if ((n->l && n->l->prio > n->prio) || (n->r && n->r->prio > n->prio))
		return false;
	m = n->val;
	if (node_max(n->l) > m)
		m = node_max(n->l);
	if (node_max(n->r) > m)
		m = node_max(n->r);
	if (m != n->max)
		return false;
	(*count)++;
	return valid_at(n->l, lo, n, count) && valid_at(n->r, n, hi, count);
}

/* Whole-tree check (tests, debugging): strict key order, heap order of the
 * priorities, correct subtree maxima, node count.  O(n). */
bool hc_tree_valid(const struct hc_tree *t)
{
	uint64_t count = 0;

	return valid_at(t->root, NULL, NULL, &count) && count == t->n;
}
