/*
 * errgraph.c - the error graph: failures, their causes, and tainted bytes.
 *
 * Design: failure nodes live in one growable array indexed by id - 1 (ids
 * are handed out in order and never reused), so a lookup is O(1) and every
 * edge points to a smaller id: the graph is a DAG by construction.
 *
 * Taint is kept per buffer in a sorted array of disjoint half-open ranges
 * [off, end) with their failure id.  Since the ranges are disjoint and
 * sorted by offset, their ends are sorted too, and "first range ending after
 * x" is a binary search.  Setting or clearing [a, b) replaces the ranges it
 * overlaps by at most three pieces: the part of the first one left of a,
 * the new range (when tainting), the part of the last one right of b.
 * Touching ranges with the same failure are merged so re-tainting does not
 * fragment.  Buffers are found through a chained hash on the buffer id; a
 * buffer whose last range is cleared is dropped from the table.
 *
 * Division map: nodes; buffer table; range edits; queries; explain.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/queue/errgraph.h"
#include "core/internal.h"

struct eg_node {
	enum hc_eg_kind kind;
	uint64_t stream;
	char desc[HC_EG_DESC_MAX];
	hc_failure_id *causes;
	size_t ncauses;
};

struct eg_range {
	uint64_t off;
	uint64_t end; /* exclusive; > off */
	hc_failure_id failure;
};

struct eg_buffer {
	struct eg_buffer *next; /* hash chain */
	uint64_t id;
	struct eg_range *r;
	size_t n, cap;
};

struct hc_errgraph {
	struct eg_node *nodes; /* nodes[id - 1] */
	size_t nnodes, cap_nodes;
	struct eg_buffer **buckets;
	size_t nbuckets; /* power of two */
	size_t nbuffers;
};

#define EG_INITIAL_BUCKETS 64u

/* ---- nodes ---- */

static const struct eg_node *eg_node(const struct hc_errgraph *eg, hc_failure_id id)
{
	if (!eg || id == 0 || id > eg->nnodes)
		return NULL;
	return &eg->nodes[id - 1];
}

const char *hc_eg_kind_name(enum hc_eg_kind kind)
{
	switch (kind) {
	case HC_EG_KERNEL:
		return "kernel";
	case HC_EG_COPY:
		return "copy";
	case HC_EG_DEVICE:
		return "device";
	case HC_EG_INJECTED:
		return "injected";
	case HC_EG_DERIVED:
		return "derived";
	}
	return "unknown";
}

hc_status hc_eg_create(struct hc_errgraph **out)
{
	struct hc_errgraph *eg;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_eg_create: NULL output");
	*out = NULL;
	eg = calloc(1, sizeof(*eg));
	if (!eg)
		return hc_fail(HC_ERR_OOM, "hc_eg_create: no memory for the error graph");
	eg->nbuckets = EG_INITIAL_BUCKETS;
	eg->buckets = calloc(eg->nbuckets, sizeof(*eg->buckets));
	if (!eg->buckets)
		goto err_free_graph;
	*out = eg;
	return HC_OK;

err_free_graph:
	free(eg);
	return hc_fail(HC_ERR_OOM, "hc_eg_create: no memory for the buffer table");
}

void hc_eg_destroy(struct hc_errgraph *eg)
{
	size_t i;

	if (!eg)
		return;
	for (i = 0; i < eg->nbuckets; i++) {
		struct eg_buffer *b = eg->buckets[i], *next;

		for (; b; b = next) {
			next = b->next;
			free(b->r);
			free(b);
		}
	}
	for (i = 0; i < eg->nnodes; i++)
		free(eg->nodes[i].causes);
	free(eg->nodes);
	free(eg->buckets);
	free(eg);
}

hc_status hc_eg_fail(struct hc_errgraph *eg, enum hc_eg_kind kind, uint64_t stream,
		     const char *desc, const hc_failure_id *causes, size_t n_causes,
		     hc_failure_id *out)
{
	hc_failure_id *edges = NULL;
	struct eg_node *node;
	size_t i, j, n = 0;

	if (!eg || !out || (n_causes && !causes))
		return hc_fail(HC_ERR_INVALID, "hc_eg_fail: NULL argument");
	if ((unsigned)kind > HC_EG_DERIVED)
		return hc_fail(HC_ERR_INVALID, "hc_eg_fail: unknown failure kind %d", (int)kind);
	for (i = 0; i < n_causes; i++)
		if (!eg_node(eg, causes[i]))
			return hc_fail(HC_ERR_STALE, "hc_eg_fail: cause %llu is not a recorded failure",
				       (unsigned long long)causes[i]);
	if (n_causes) {
		edges = malloc(n_causes * sizeof(*edges));
		if (!edges)
			return hc_fail(HC_ERR_OOM, "hc_eg_fail: no memory for %zu causes", n_causes);
		for (i = 0; i < n_causes; i++) {
			for (j = 0; j < n && edges[j] != causes[i]; j++)
				;
			if (j == n)
				edges[n++] = causes[i];
		}
	}
	if (eg->nnodes == eg->cap_nodes) {
		size_t nc = eg->cap_nodes ? eg->cap_nodes * 2 : 32;
		struct eg_node *nn = realloc(eg->nodes, nc * sizeof(*nn));

		if (!nn)
			goto err_free_edges;
		eg->nodes = nn;
		eg->cap_nodes = nc;
	}
	node = &eg->nodes[eg->nnodes++];
	node->kind = kind;
	node->stream = stream;
	snprintf(node->desc, sizeof(node->desc), "%s", desc ? desc : "");
	node->causes = edges;
	node->ncauses = n;
	*out = eg->nnodes;
	return HC_OK;

err_free_edges:
	free(edges);
	return hc_fail(HC_ERR_OOM, "hc_eg_fail: no memory for failure %zu", eg->nnodes + 1);
}

hc_status hc_eg_get(const struct hc_errgraph *eg, hc_failure_id id, struct hc_eg_failure *out)
{
	const struct eg_node *node;

	if (!eg || !out)
		return hc_fail(HC_ERR_INVALID, "hc_eg_get: NULL argument");
	node = eg_node(eg, id);
	if (!node)
		return hc_fail(HC_ERR_STALE, "hc_eg_get: failure %llu is unknown",
			       (unsigned long long)id);
	out->id = id;
	out->kind = node->kind;
	out->stream = node->stream;
	memcpy(out->desc, node->desc, sizeof(out->desc));
	out->n_causes = node->ncauses;
	return HC_OK;
}

hc_failure_id hc_eg_cause(const struct hc_errgraph *eg, hc_failure_id id, size_t i)
{
	const struct eg_node *node = eg_node(eg, id);

	return node && i < node->ncauses ? node->causes[i] : 0;
}

uint64_t hc_eg_count(const struct hc_errgraph *eg)
{
	return eg ? eg->nnodes : 0;
}

/* ---- buffer table ---- */

static size_t eg_slot(const struct hc_errgraph *eg, uint64_t id)
{
	uint64_t h = id * 0x9E3779B97F4A7C15ull;

	return (size_t)(h ^ (h >> 32)) & (eg->nbuckets - 1);
}

static struct eg_buffer *eg_buffer_find(const struct hc_errgraph *eg, uint64_t id)
{
	struct eg_buffer *b = eg->buckets[eg_slot(eg, id)];

	while (b && b->id != id)
		b = b->next;
	return b;
}

static void eg_buckets_grow(struct hc_errgraph *eg)
{
	size_t nb = eg->nbuckets * 2, old = eg->nbuckets, i;
	struct eg_buffer **nbk = calloc(nb, sizeof(*nbk)), **obk = eg->buckets;

	if (!nbk)
		return; /* longer chains, still correct */
	eg->buckets = nbk;
	eg->nbuckets = nb;
	for (i = 0; i < old; i++) {
		struct eg_buffer *b = obk[i], *next;

		for (; b; b = next) {
			next = b->next;
			b->next = nbk[eg_slot(eg, b->id)];
			nbk[eg_slot(eg, b->id)] = b;
		}
	}
	free(obk);
}

static struct eg_buffer *eg_buffer_get(struct hc_errgraph *eg, uint64_t id)
{
	struct eg_buffer *b = eg_buffer_find(eg, id);
	size_t s;

	if (b)
		return b;
	if (eg->nbuffers >= eg->nbuckets)
		eg_buckets_grow(eg);
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->id = id;
	s = eg_slot(eg, id);
	b->next = eg->buckets[s];
	eg->buckets[s] = b;
	eg->nbuffers++;
	return b;
}

static void eg_buffer_drop(struct hc_errgraph *eg, uint64_t id)
{
	struct eg_buffer **pp = &eg->buckets[eg_slot(eg, id)], *b;

	while (*pp && (*pp)->id != id)
		pp = &(*pp)->next;
	b = *pp;
	if (!b)
		return;
	*pp = b->next;
	eg->nbuffers--;
	free(b->r);
	free(b);
}

void hc_eg_forget(struct hc_errgraph *eg, uint64_t buffer)
{
	if (eg)
		eg_buffer_drop(eg, buffer);
}

/* ---- range edits ---- */

/* Index of the first range whose end is > @x (n when none). */
static size_t eg_first_after(const struct eg_range *r, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].end > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Replaces whatever covers [a, b) by @failure (0: clear).  Return: HC_OK or
 * HC_ERR_OOM with the buffer unchanged.
 */
static hc_status eg_set_range(struct eg_buffer *buf, uint64_t a, uint64_t b,
			      hc_failure_id failure)
{
	struct eg_range piece[3];
	size_t i, j, m = 0, k, newn;

	i = eg_first_after(buf->r, buf->n, a);
	for (j = i; j < buf->n && buf->r[j].off < b; j++)
		;
	if (i < j && buf->r[i].off < a)
		piece[m++] = (struct eg_range){ buf->r[i].off, a, buf->r[i].failure };
	if (failure)
		piece[m++] = (struct eg_range){ a, b, failure };
	if (i < j && buf->r[j - 1].end > b)
		piece[m++] = (struct eg_range){ b, buf->r[j - 1].end, buf->r[j - 1].failure };

	/* Merge with touching neighbours carrying the same failure. */
	if (failure) {
		if (i > 0 && buf->r[i - 1].end == piece[0].off &&
		    buf->r[i - 1].failure == piece[0].failure) {
			piece[0].off = buf->r[i - 1].off;
			i--;
		}
		if (j < buf->n && buf->r[j].off == piece[m - 1].end &&
		    buf->r[j].failure == piece[m - 1].failure) {
			piece[m - 1].end = buf->r[j].end;
			j++;
		}
		/* Adjacent pieces with the same failure (left part, new range, right part). */
		for (k = 0; k + 1 < m;) {
			if (piece[k].end == piece[k + 1].off && piece[k].failure == piece[k + 1].failure) {
				piece[k].end = piece[k + 1].end;
				memmove(&piece[k + 1], &piece[k + 2], (m - k - 2) * sizeof(piece[0]));
				m--;
			} else {
				k++;
			}
		}
	}
	k = j - i; /* ranges replaced */
	newn = buf->n - k + m;
	if (newn > buf->cap) {
		size_t nc = buf->cap ? buf->cap * 2 : 4;
		struct eg_range *nr;

		while (nc < newn)
			nc *= 2;
		nr = realloc(buf->r, nc * sizeof(*nr));
		if (!nr)
			return hc_fail(HC_ERR_OOM, "errgraph: no memory for %zu taint ranges", newn);
		buf->r = nr;
		buf->cap = nc;
	}
	memmove(&buf->r[i + m], &buf->r[j], (buf->n - j) * sizeof(buf->r[0]));
	memcpy(&buf->r[i], piece, m * sizeof(piece[0]));
	buf->n = newn;
	return HC_OK;
}

static hc_status eg_check_range(const char *fn, uint64_t off, uint64_t size)
{
	if (size > UINT64_MAX - off)
		return hc_fail(HC_ERR_INVALID, "%s: range %llu + %llu runs past 2^64", fn,
			       (unsigned long long)off, (unsigned long long)size);
	return HC_OK;
}

hc_status hc_eg_taint(struct hc_errgraph *eg, uint64_t buffer, uint64_t off, uint64_t size,
		      hc_failure_id failure)
{
	struct eg_buffer *b;
	hc_status st;

	if (!eg)
		return hc_fail(HC_ERR_INVALID, "hc_eg_taint: NULL graph");
	st = eg_check_range("hc_eg_taint", off, size);
	if (st != HC_OK)
		return st;
	if (!eg_node(eg, failure))
		return hc_fail(HC_ERR_STALE, "hc_eg_taint: failure %llu is unknown",
			       (unsigned long long)failure);
	if (size == 0)
		return HC_OK;
	b = eg_buffer_get(eg, buffer);
	if (!b)
		return hc_fail(HC_ERR_OOM, "hc_eg_taint: no memory for buffer %llu",
			       (unsigned long long)buffer);
	st = eg_set_range(b, off, off + size, failure);
	if (b->n == 0)
		eg_buffer_drop(eg, buffer);
	return st;
}

hc_status hc_eg_written(struct hc_errgraph *eg, uint64_t buffer, uint64_t off, uint64_t size)
{
	struct eg_buffer *b;
	hc_status st;

	if (!eg)
		return hc_fail(HC_ERR_INVALID, "hc_eg_written: NULL graph");
	st = eg_check_range("hc_eg_written", off, size);
	if (st != HC_OK || size == 0)
		return st;
	b = eg_buffer_find(eg, buffer);
	if (!b)
		return HC_OK;
	st = eg_set_range(b, off, off + size, 0);
	if (b->n == 0)
		eg_buffer_drop(eg, buffer);
	return st;
}

/* ---- queries ---- */

hc_failure_id hc_eg_query(const struct hc_errgraph *eg, uint64_t buffer, uint64_t off,
			  uint64_t size)
{
	const struct eg_buffer *b;
	uint64_t end;
	size_t i;

	if (!eg || size == 0)
		return 0;
	b = eg_buffer_find(eg, buffer);
	if (!b)
		return 0;
	end = size > UINT64_MAX - off ? UINT64_MAX : off + size;
	i = eg_first_after(b->r, b->n, off);
	return i < b->n && b->r[i].off < end ? b->r[i].failure : 0;
}

hc_status hc_eg_causes_in(const struct hc_errgraph *eg, uint64_t buffer, uint64_t off,
			  uint64_t size, hc_failure_id *out, size_t cap, size_t *n)
{
	const struct eg_buffer *b;
	uint64_t end;
	size_t i, j, found = 0;

	if (!eg || !n || (cap && !out))
		return hc_fail(HC_ERR_INVALID, "hc_eg_causes_in: NULL argument");
	*n = 0;
	if (size == 0)
		return HC_OK;
	b = eg_buffer_find(eg, buffer);
	if (!b)
		return HC_OK;
	end = size > UINT64_MAX - off ? UINT64_MAX : off + size;
	for (i = eg_first_after(b->r, b->n, off); i < b->n && b->r[i].off < end; i++) {
		hc_failure_id f = b->r[i].failure;
		bool seen = false;

		/* Distinct ids are few; past @cap, look back over the ranges. */
		for (j = 0; j < found && j < cap && !seen; j++)
			seen = out[j] == f;
		if (!seen && found > cap) {
			size_t p;

			for (p = eg_first_after(b->r, b->n, off); p < i && !seen; p++)
				seen = b->r[p].failure == f;
		}
		if (seen)
			continue;
		if (found < cap)
			out[found] = f;
		found++;
	}
	*n = found;
	return HC_OK;
}

size_t hc_eg_ranges(const struct hc_errgraph *eg, uint64_t buffer)
{
	const struct eg_buffer *b;

	if (!eg)
		return 0;
	b = eg_buffer_find(eg, buffer);
	return b ? b->n : 0;
}

/* ---- explain ---- */

struct eg_text {
	char *buf;
	size_t len;
	size_t used; /* bytes the full text needs, without the NUL */
};

static void eg_text_add(struct eg_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void eg_text_add(struct eg_text *t, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	if (t->used < t->len)
		w = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
	else
		w = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		t->used += (size_t)w;
}

hc_status hc_eg_explain(const struct hc_errgraph *eg, hc_failure_id id, char *buf, size_t len)
{
	struct eg_text t = { buf, len, 0 };
	hc_failure_id *queue;
	unsigned char *seen;
	size_t head = 0, tail = 0, i;

	if (!eg || (!buf && len))
		return hc_fail(HC_ERR_INVALID, "hc_eg_explain: NULL argument");
	if (len)
		buf[0] = '\0';
	if (!eg_node(eg, id))
		return hc_fail(HC_ERR_STALE, "hc_eg_explain: failure %llu is unknown",
			       (unsigned long long)id);
	/* Every node is queued at most once: ids below @id only. */
	queue = malloc((size_t)id * sizeof(*queue));
	seen = calloc((size_t)id + 1, 1);
	if (!queue || !seen)
		goto err_free;
	queue[tail++] = id;
	seen[id] = 1;
	while (head < tail) {
		hc_failure_id cur = queue[head++];
		const struct eg_node *node = eg_node(eg, cur);

		eg_text_add(&t, "#%llu %s on stream %llu: %s; ", (unsigned long long)cur,
			    hc_eg_kind_name(node->kind), (unsigned long long)node->stream,
			    node->desc);
		if (node->ncauses == 0)
			eg_text_add(&t, "root cause\n");
		for (i = 0; i < node->ncauses; i++) {
			hc_failure_id c = node->causes[i];

			eg_text_add(&t, "%s#%llu", i ? ", " : "caused by ", (unsigned long long)c);
			if (!seen[c]) {
				seen[c] = 1;
				queue[tail++] = c;
			}
		}
		if (node->ncauses)
			eg_text_add(&t, "\n");
	}
	free(seen);
	free(queue);
	if (t.used >= len)
		return hc_fail(HC_ERR_INVALID, "hc_eg_explain: text needs %zu bytes, buffer has %zu",
			       t.used + 1, len);
	return HC_OK;

err_free:
	free(seen);
	free(queue);
	return hc_fail(HC_ERR_OOM, "hc_eg_explain: no memory to walk %llu failures",
		       (unsigned long long)id);
}
