/*
 * metacache.c - the metadata info cache of one stream.
 *
 * Design: each entry is one allocation holding its key words.  Entries sit
 * in a chained hash table (power-of-two buckets, grown at load factor 1) for
 * lookup, and the unpinned ones also sit on an intrusive doubly linked LRU
 * list ordered by last_used (head = least recent).  A hit stamps the entry
 * with the newest clock value and moves it to the tail; an insert stamps the
 * current clock, which no entry exceeds, and appends: so the list stays
 * sorted and eviction takes the head in O(1).  Pinned entries leave the list;
 * an entry unpinned without being removed goes back at its place by
 * last_used (a short walk from the tail; it only happens on discard).
 *
 * Capture pins: an entry pinned in the current capture carries a flag and
 * sits on the pending array, so a key is pinned at most once per capture.
 * Commit moves the pending array into a per-graph record.  Pinned entries
 * are never removed (except by destroy), so records may point at them.
 *
 * Division map: hashing and lookup; LRU list; entry removal; public calls.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/queue/metacache.h"

struct mc_entry {
	struct mc_entry *hnext; /* hash chain */
	struct mc_entry *prev;  /* LRU list, only while unpinned */
	struct mc_entry *next;
	uint64_t hash;
	uint64_t last_used;
	struct hc_mc_value value;
	uint32_t locks;    /* pins: one per graph (or open capture) holding it */
	bool pending;      /* pinned by the current capture */
	size_t nwords;
	uint64_t words[];
};

struct mc_graph {
	uint64_t id;
	struct mc_entry **entries;
	size_t n;
};

struct hc_metacache {
	struct hc_mc_policy policy;
	enum hc_mc_mode mode;
	hc_mc_free_fn free_value;
	void *ctx;
	struct mc_entry **buckets;
	size_t nbuckets; /* power of two */
	size_t len;
	uint64_t clock;
	struct mc_entry *lru_head; /* least recently used unpinned entry */
	struct mc_entry *lru_tail;
	struct mc_entry **pending; /* pinned by the open capture */
	size_t npending, cap_pending;
	struct mc_graph *graphs;
	size_t ngraphs, cap_graphs;
};

#define MC_INITIAL_BUCKETS 64u

/* ---- hashing and lookup ---- */

static uint64_t mc_hash(const uint64_t *w, size_t n)
{
	uint64_t h = 0x243F6A8885A308D3ull ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull);
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	h ^= h >> 29;
	h *= 0x94D049BB133111EBull;
	h ^= h >> 32;
	return h;
}

static struct mc_entry *mc_find(const struct hc_metacache *mc, const uint64_t *w, size_t n,
				uint64_t h)
{
	struct mc_entry *e = mc->buckets[h & (mc->nbuckets - 1)];

	for (; e; e = e->hnext)
		if (e->hash == h && e->nwords == n &&
		    (n == 0 || memcmp(e->words, w, n * sizeof(*w)) == 0))
			return e;
	return NULL;
}

static hc_status mc_grow_buckets(struct hc_metacache *mc)
{
	size_t nb = mc->nbuckets * 2, i;
	struct mc_entry **b = calloc(nb, sizeof(*b));

	if (!b)
		return hc_fail(HC_ERR_OOM, "metacache: cannot grow the table to %zu buckets", nb);
	for (i = 0; i < mc->nbuckets; i++) {
		struct mc_entry *e = mc->buckets[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			e->hnext = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(mc->buckets);
	mc->buckets = b;
	mc->nbuckets = nb;
	return HC_OK;
}

/* ---- LRU list (unpinned entries, sorted by last_used) ---- */

static void lru_unlink(struct hc_metacache *mc, struct mc_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		mc->lru_head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		mc->lru_tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_insert_after(struct hc_metacache *mc, struct mc_entry *pos, struct mc_entry *e)
{
	e->prev = pos;
	e->next = pos ? pos->next : mc->lru_head;
	if (e->next)
		e->next->prev = e;
	else
		mc->lru_tail = e;
	if (pos)
		pos->next = e;
	else
		mc->lru_head = e;
}

/* Puts an entry that just became unpinned back at its place by last_used. */
static void lru_insert_sorted(struct hc_metacache *mc, struct mc_entry *e)
{
	struct mc_entry *pos = mc->lru_tail;

	while (pos && pos->last_used > e->last_used)
		pos = pos->prev;
	lru_insert_after(mc, pos, e);
}

/* ---- entry removal ---- */

static void mc_remove(struct hc_metacache *mc, struct mc_entry *e)
{
	struct mc_entry **pp = &mc->buckets[e->hash & (mc->nbuckets - 1)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	if (e->locks == 0)
		lru_unlink(mc, e);
	mc->len--;
	if (mc->free_value)
		mc->free_value(mc->ctx, e->value);
	free(e);
}

static void mc_unpin(struct hc_metacache *mc, struct mc_entry *e)
{
	if (e->locks > 0 && --e->locks == 0)
		lru_insert_sorted(mc, e);
}

/* Pins @e for the open capture, once.  Return: HC_OK or HC_ERR_OOM. */
static hc_status mc_capture_pin(struct hc_metacache *mc, struct mc_entry *e)
{
	if (e->pending)
		return HC_OK;
	if (mc->npending == mc->cap_pending) {
		size_t nc = mc->cap_pending ? mc->cap_pending * 2 : 16;
		struct mc_entry **p = realloc(mc->pending, nc * sizeof(*p));

		if (!p)
			return hc_fail(HC_ERR_OOM, "metacache: cannot record a capture pin");
		mc->pending = p;
		mc->cap_pending = nc;
	}
	mc->pending[mc->npending++] = e;
	e->pending = true;
	if (e->locks++ == 0)
		lru_unlink(mc, e);
	return HC_OK;
}

/* ---- public calls ---- */

struct hc_mc_policy hc_mc_policy_default(void)
{
	struct hc_mc_policy p = {
		.max_entries = HC_MC_DEFAULT_MAX_ENTRIES,
		.max_cached_size = HC_MC_DEFAULT_MAX_CACHED_SIZE,
	};
	return p;
}

hc_status hc_mc_create(const struct hc_mc_policy *policy, hc_mc_free_fn free_value, void *ctx,
		       struct hc_metacache **out)
{
	struct hc_metacache *mc;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_mc_create: NULL output");
	*out = NULL;
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return hc_fail(HC_ERR_OOM, "hc_mc_create: no memory for the cache");
	mc->nbuckets = MC_INITIAL_BUCKETS;
	mc->buckets = calloc(mc->nbuckets, sizeof(*mc->buckets));
	if (!mc->buckets)
		goto err_free_cache;
	mc->policy = policy ? *policy : hc_mc_policy_default();
	mc->free_value = free_value;
	mc->ctx = ctx;
	*out = mc;
	return HC_OK;

err_free_cache:
	free(mc);
	return hc_fail(HC_ERR_OOM, "hc_mc_create: no memory for the hash table");
}

void hc_mc_destroy(struct hc_metacache *mc)
{
	size_t i;

	if (!mc)
		return;
	for (i = 0; i < mc->nbuckets; i++) {
		struct mc_entry *e = mc->buckets[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			if (mc->free_value)
				mc->free_value(mc->ctx, e->value);
			free(e);
		}
	}
	for (i = 0; i < mc->ngraphs; i++)
		free(mc->graphs[i].entries);
	free(mc->graphs);
	free(mc->pending);
	free(mc->buckets);
	free(mc);
}

void hc_mc_set_mode(struct hc_metacache *mc, enum hc_mc_mode mode)
{
	if (mc)
		mc->mode = mode == HC_MC_CAPTURE ? HC_MC_CAPTURE : HC_MC_NORMAL;
}

enum hc_mc_mode hc_mc_get_mode(const struct hc_metacache *mc)
{
	return mc ? mc->mode : HC_MC_NORMAL;
}

bool hc_mc_should_cache(const struct hc_metacache *mc, uint64_t size)
{
	if (!mc)
		return false;
	if (mc->mode == HC_MC_CAPTURE)
		return true;
	return mc->policy.max_entries > 0 && size <= mc->policy.max_cached_size;
}

bool hc_mc_get(struct hc_metacache *mc, const uint64_t *words, size_t nwords,
	       struct hc_mc_value *out)
{
	struct mc_entry *e;

	if (!mc || (!words && nwords))
		return false;
	mc->clock++;
	e = mc_find(mc, words, nwords, mc_hash(words, nwords));
	if (!e)
		return false;
	e->last_used = mc->clock;
	if (mc->mode == HC_MC_CAPTURE) {
		if (mc_capture_pin(mc, e) != HC_OK)
			return false;
	} else if (e->locks == 0 && e != mc->lru_tail) {
		lru_unlink(mc, e);
		lru_insert_after(mc, mc->lru_tail, e);
	}
	if (out)
		*out = e->value;
	return true;
}

static void mc_evict_one(struct hc_metacache *mc)
{
	if (mc->lru_head)
		mc_remove(mc, mc->lru_head);
}

hc_status hc_mc_insert(struct hc_metacache *mc, const uint64_t *words, size_t nwords,
		       struct hc_mc_value value, bool *stored)
{
	struct mc_entry *e;
	uint64_t h;
	hc_status st;

	if (stored)
		*stored = false;
	if (!mc || !stored || (!words && nwords))
		return hc_fail(HC_ERR_INVALID, "hc_mc_insert: NULL argument");
	if (nwords > (SIZE_MAX - sizeof(*e)) / sizeof(uint64_t))
		return hc_fail(HC_ERR_INVALID, "hc_mc_insert: key of %zu words is too long", nwords);
	if (mc->mode == HC_MC_NORMAL && mc->policy.max_entries == 0)
		return HC_OK; /* caching disabled: the caller keeps the value */
	h = mc_hash(words, nwords);
	e = mc_find(mc, words, nwords, h);
	if (e) {
		struct hc_mc_value old = e->value;

		if (mc->mode == HC_MC_CAPTURE) {
			st = mc_capture_pin(mc, e);
			if (st != HC_OK)
				return st;
		}
		e->value = value;
		*stored = true;
		if (mc->free_value)
			mc->free_value(mc->ctx, old);
		return HC_OK;
	}
	if (mc->len >= mc->nbuckets && mc_grow_buckets(mc) != HC_OK)
		return HC_ERR_OOM;
	e = malloc(sizeof(*e) + nwords * sizeof(uint64_t));
	if (!e)
		return hc_fail(HC_ERR_OOM, "hc_mc_insert: no memory for an entry of %zu words",
			       nwords);
	memset(e, 0, sizeof(*e));
	e->hash = h;
	e->nwords = nwords;
	if (nwords)
		memcpy(e->words, words, nwords * sizeof(uint64_t));
	e->value = value;
	e->last_used = mc->clock;
	if (mc->mode == HC_MC_NORMAL && mc->len >= mc->policy.max_entries)
		mc_evict_one(mc);
	e->hnext = mc->buckets[h & (mc->nbuckets - 1)];
	mc->buckets[h & (mc->nbuckets - 1)] = e;
	mc->len++;
	lru_insert_after(mc, mc->lru_tail, e);
	*stored = true;
	if (mc->mode == HC_MC_CAPTURE && mc_capture_pin(mc, e) != HC_OK) {
		/* Keep the entry unpinned: the caller's value is cached, the
		 * capture must be discarded for lack of memory. */
		return HC_ERR_OOM;
	}
	return HC_OK;
}

hc_status hc_mc_capture_commit(struct hc_metacache *mc, uint64_t graph_id)
{
	struct mc_graph *g;
	size_t i;

	if (!mc)
		return hc_fail(HC_ERR_INVALID, "hc_mc_capture_commit: NULL cache");
	for (i = 0; i < mc->ngraphs; i++)
		if (mc->graphs[i].id == graph_id)
			return hc_fail(HC_ERR_INVALID,
				       "hc_mc_capture_commit: graph %llu already holds pins",
				       (unsigned long long)graph_id);
	if (mc->npending == 0)
		return HC_OK;
	if (mc->ngraphs == mc->cap_graphs) {
		size_t nc = mc->cap_graphs ? mc->cap_graphs * 2 : 8;

		g = realloc(mc->graphs, nc * sizeof(*g));
		if (!g)
			return hc_fail(HC_ERR_OOM, "hc_mc_capture_commit: no memory for graph records");
		mc->graphs = g;
		mc->cap_graphs = nc;
	}
	g = &mc->graphs[mc->ngraphs++];
	g->id = graph_id;
	g->entries = mc->pending;
	g->n = mc->npending;
	for (i = 0; i < g->n; i++)
		g->entries[i]->pending = false;
	mc->pending = NULL;
	mc->npending = mc->cap_pending = 0;
	return HC_OK;
}

void hc_mc_capture_discard(struct hc_metacache *mc)
{
	size_t i;

	if (!mc)
		return;
	for (i = 0; i < mc->npending; i++) {
		mc->pending[i]->pending = false;
		mc_unpin(mc, mc->pending[i]);
	}
	mc->npending = 0;
}

size_t hc_mc_graph_release(struct hc_metacache *mc, uint64_t graph_id)
{
	struct mc_graph g;
	size_t i, removed = 0;

	if (!mc)
		return 0;
	for (i = 0; i < mc->ngraphs; i++)
		if (mc->graphs[i].id == graph_id)
			break;
	if (i == mc->ngraphs)
		return 0;
	g = mc->graphs[i];
	mc->graphs[i] = mc->graphs[--mc->ngraphs];
	for (i = 0; i < g.n; i++) {
		struct mc_entry *e = g.entries[i];

		if (--e->locks == 0) {
			/* No list position to restore: remove it (it is not on
			 * the LRU list while pinned, and mc_remove sees locks 0,
			 * so put it there first to keep the unlink balanced). */
			lru_insert_after(mc, mc->lru_tail, e);
			mc_remove(mc, e);
			removed++;
		}
	}
	free(g.entries);
	return removed;
}

size_t hc_mc_clear_unpinned(struct hc_metacache *mc)
{
	size_t removed = 0;

	if (!mc)
		return 0;
	while (mc->lru_head) {
		mc_remove(mc, mc->lru_head);
		removed++;
	}
	return removed;
}

size_t hc_mc_len(const struct hc_metacache *mc)
{
	return mc ? mc->len : 0;
}

uint32_t hc_mc_pins(const struct hc_metacache *mc, const uint64_t *words, size_t nwords)
{
	struct mc_entry *e;

	if (!mc || (!words && nwords))
		return 0;
	e = mc_find(mc, words, nwords, mc_hash(words, nwords));
	return e ? e->locks : 0;
}

bool hc_mc_contains(const struct hc_metacache *mc, const uint64_t *words, size_t nwords)
{
	if (!mc || (!words && nwords))
		return false;
	return mc_find(mc, words, nwords, mc_hash(words, nwords)) != NULL;
}
