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
 *
 * Written for speed (issue 28: a replay with random frees keeps hundreds of
 * free runs per pool and spent a third of its time here, waiting on nodes).
 * Nodes know their parent, so only an insertion and the searches go down
 * from the root: a removal zips the node's children in its place, a node
 * whose val grows raises its ancestors' maxima until one is already as
 * large (usually at once), and a node whose val falls or whose key moved
 * re-pulls its ancestors until one keeps its maximum.  An insertion goes
 * down while the priorities allow, then splits the subtree it lands on into
 * two spines.  Maxima are recomputed only on those spines and paths; a tree
 * whose vals are all 0 (the size-keyed ones) never recomputes any.
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

/* Whether key (a1, a2) orders before @b's. */
static inline bool key_before(uint64_t a1, uint64_t a2, const struct hc_tnode *b)
{
	return a1 < b->k1 || (a1 == b->k1 && a2 < b->k2);
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

/* Re-pulls @n and its ancestors, bottom up, until one keeps its maximum:
 * every maximum above it then is unchanged too. */
static void pull_up(struct hc_tnode *n)
{
	for (; n; n = n->p) {
		uint64_t old = n->max;

		pull(n);
		if (n->max == old)
			return;
	}
}

/* Re-pulls spine[0..n-1] bottom-up (every one changed below). */
static void pull_spine(struct hc_tnode **spine, unsigned n)
{
	while (n-- > 0)
		pull(spine[n]);
}

/* Recomputes every maximum of @n's subtree (the fallback when a spine was
 * deeper than the updates keep). */
static void pull_all(struct hc_tnode *n)
{
	if (!n)
		return;
	pull_all(n->l);
	pull_all(n->r);
	pull(n);
}

/* The link that holds @x: its parent's child pointer, or the root. */
static struct hc_tnode **link_of(struct hc_tree *t, struct hc_tnode *x)
{
	if (!x->p)
		return &t->root;
	return x->p->l == x ? &x->p->l : &x->p->r;
}

/*
 * Down from the root while the nodes' priorities are not below x's (each of
 * those subtrees gains x, so its maximum becomes max(its maximum, x->val),
 * read from no sibling), then x takes that place and the subtree found
 * there is split around x's key into x's children: its nodes with smaller
 * keys form x->l's right spine, the others x->r's left spine, and only
 * those spines' maxima are recomputed.
 */
void hc_tree_insert(struct hc_tree *t, struct hc_tnode *x)
{
	struct hc_tnode *lo_spine[HC_TREE_PATH_MAX], *hi_spine[HC_TREE_PATH_MAX];
	struct hc_tnode **link = &t->root, **lo = &x->l, **hi = &x->r, *n, *up = NULL;
	struct hc_tnode *lo_up = x, *hi_up = x;
	/* Every val 0 (the size-keyed trees): every maximum stays 0. */
	bool plain = x->val == 0 && (!t->root || t->root->max == 0);
	unsigned nlo = 0, nhi = 0;

	x->prio = next_prio(t);
	x->max = x->val;
	t->n++;
	while ((n = *link) && n->prio >= x->prio) {
		if (n->max < x->val)
			n->max = x->val;
		up = n;
		link = key_before(x->k1, x->k2, n) ? &n->l : &n->r;
	}
	*link = x;
	x->p = up;
	while (n) {
		if (key_before(n->k1, n->k2, x)) {
			*lo = n;
			n->p = lo_up;
			lo_up = n;
			if (nlo < HC_TREE_PATH_MAX)
				lo_spine[nlo] = n;
			nlo++;
			lo = &n->r;
			n = n->r;
		} else {
			*hi = n;
			n->p = hi_up;
			hi_up = n;
			if (nhi < HC_TREE_PATH_MAX)
				hi_spine[nhi] = n;
			nhi++;
			hi = &n->l;
			n = n->l;
		}
	}
	*lo = *hi = NULL;
	if (plain)
		return;
	if (nlo > HC_TREE_PATH_MAX || nhi > HC_TREE_PATH_MAX) {
		pull_all(x);
		return;
	}
	pull_spine(lo_spine, nlo);
	pull_spine(hi_spine, nhi);
	pull(x);
}

/*
 * x's children are merged in its place by priority (x->l's right spine and
 * x->r's left spine zipped together), that zipped spine's maxima recomputed
 * bottom-up, then x's ancestors' only as far as they change.
 */
void hc_tree_remove(struct hc_tree *t, struct hc_tnode *x)
{
	struct hc_tnode *zip[2 * HC_TREE_PATH_MAX];
	struct hc_tnode **link, *up = x->p, *a = x->l, *b = x->r, *n;
	bool plain;
	unsigned nz = 0;

	if (!up && t->root != x)
		return; /* not in this tree (a valid pool never asks) */
	link = link_of(t, x);
	/* Every val 0 (the size-keyed trees): every maximum stays 0. */
	plain = t->root->max == 0;
	while (a && b) {
		if (a->prio > b->prio) {
			n = a;
			*link = n;
			link = &n->r;
			a = n->r;
		} else {
			n = b;
			*link = n;
			link = &n->l;
			b = n->l;
		}
		n->p = up;
		up = n;
		if (nz < 2 * HC_TREE_PATH_MAX)
			zip[nz] = n;
		nz++;
	}
	n = a ? a : b;
	*link = n;
	if (n)
		n->p = up;
	if (!plain) {
		if (nz > 2 * HC_TREE_PATH_MAX)
			pull_all(zip[0]);
		else
			pull_spine(zip, nz);
		pull_up(x->p);
	}
	x->l = x->r = x->p = NULL;
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

/* hc_tree_first_fit for hc_tree_lower_path, which needs no path now that
 * nodes know their parents: path->n stays 0. */
struct hc_tnode *hc_tree_first_fit_path(const struct hc_tree *t, uint64_t need,
					struct hc_tree_path *path)
{
	path->n = 0;
	return hc_tree_first_fit(t, need);
}

struct hc_tnode *hc_tree_lower_bound(const struct hc_tree *t, uint64_t k1, uint64_t k2)
{
	struct hc_tnode *n = t->root, *best = NULL;

	while (n) {
		if (!key_before(n->k1, n->k2, &(struct hc_tnode){ .k1 = k1, .k2 = k2 })) {
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

/* After @x's val changed, or its key moved without passing a neighbour's:
 * @x itself (its max may be stale whatever the old value), then its
 * ancestors as far as their maxima change. */
void hc_tree_refresh(struct hc_tree *t, struct hc_tnode *x)
{
	(void)t;
	pull(x);
	pull_up(x->p);
}

/*
 * Sets @x's val to @v, after its key moved without passing a neighbour's
 * (or did not move).  When @v is not below the old val, every subtree that
 * holds @x has max(its max, @v) as its maximum: they are raised from @x up
 * until one already has @v, which holds for all above it.  A smaller @v
 * takes hc_tree_refresh.
 */
void hc_tree_raise(struct hc_tree *t, struct hc_tnode *x, uint64_t v)
{
	struct hc_tnode *n;

	if (v < x->val) {
		x->val = v;
		hc_tree_refresh(t, x);
		return;
	}
	x->val = v;
	for (n = x; n && n->max < v; n = n->p)
		n->max = v;
}

/*
 * Lowers @x's val to @v after its key moved without passing a neighbour's
 * (a sliced pool's run that gave up its front): @x and then its ancestors
 * are re-pulled, bottom up, as far as their maxima change.  No node moves.
 */
void hc_tree_lower_path(struct hc_tree *t, struct hc_tree_path *path, struct hc_tnode *x, uint64_t v)
{
	(void)t;
	(void)path;
	x->val = v;
	pull_up(x);
}

static bool valid_at(const struct hc_tnode *n, const struct hc_tnode *up, const struct hc_tnode *lo,
		     const struct hc_tnode *hi, uint64_t *count)
{
	uint64_t m;

	if (!n)
		return true;
	if (n->p != up)
		return false;
	if (lo && !key_before(lo->k1, lo->k2, n))
		return false;
	if (hi && !key_before(n->k1, n->k2, hi))
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
	return valid_at(n->l, n, lo, n, count) && valid_at(n->r, n, n, hi, count);
}

/* Whole-tree check (tests, debugging): strict key order, heap order of the
 * priorities, parent links, correct subtree maxima, node count.  O(n). */
bool hc_tree_valid(const struct hc_tree *t)
{
	uint64_t count = 0;

	return valid_at(t->root, NULL, NULL, NULL, &count) && count == t->n;
}
