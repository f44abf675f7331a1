/*
 * layout_file.c - parses explicit pool layout files (format in
 * layout_file.h) into hc_pool_spec arrays for hc_install_memory_pools().
 *
 * Line by line with a fixed buffer: a line longer than it is an error, not
 * a silent split.  Words are split on blanks; every error names the file
 * and line.  What the library would refuse when the layout is installed
 * (a sliced pool without a page, a slice larger than its page, a cap below
 * one page or above 65535 pages) is refused here, at load, so that a bad
 * file is a usage error with its line, not a failing event per stream.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/layout_file.h"

#define LAYOUT_LINE_MAX 1024

/* The keys, in the order messages list them; a kind takes some of them. */
enum layout_key { K_PAGE, K_MAX_SLICE, K_CAP, K_MAX_ALLOC, K_RECLAIM_AT, K_DEALLOC_PERIOD, K_N };
static const char *const key_names[K_N] = { "page",	  "max_slice",	 "cap",
					    "max_alloc", "reclaim_at", "dealloc_period" };

static const struct {
	const char *name;
	hc_pool_kind kind;
	unsigned keys; /* 1 << enum layout_key for each key that applies */
	const char *key_list;
	const char *a_pool; /* for messages */
} kinds[] = {
	{ "exclusive", HC_POOL_EXCLUSIVE, 1u << K_MAX_ALLOC | 1u << K_DEALLOC_PERIOD,
	  "max_alloc, dealloc_period", "an exclusive pool" },
	{ "direct", HC_POOL_DIRECT, 1u << K_RECLAIM_AT, "reclaim_at", "a direct pool" },
	{ "sliced", HC_POOL_SLICED,
	  1u << K_PAGE | 1u << K_MAX_SLICE | 1u << K_CAP | 1u << K_DEALLOC_PERIOD,
	  "page, max_slice, cap, dealloc_period", "a sliced pool" },
	{ "expandable", HC_POOL_EXPANDABLE, 1u << K_CAP | 1u << K_RECLAIM_AT, "cap, reclaim_at",
	  "an expandable pool" },
};

/* Most pages a capped sliced pool may hold: the library's limit
 * (core/pool.h, HC_MM_MAX_PAGES). */
#define LAYOUT_MAX_PAGES 65535u

/* A number with an optional K/M/G/T suffix.  Return: 0, or -1. */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	default: break;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/* The key named @k, or K_N. */
static enum layout_key key_find(const char *k)
{
	for (int i = 0; i < K_N; i++)
		if (strcmp(k, key_names[i]) == 0)
			return (enum layout_key)i;
	return K_N;
}

static uint64_t *key_field(hc_pool_spec *p, enum layout_key k)
{
	switch (k) {
	case K_PAGE: return &p->page_size;
	case K_MAX_SLICE: return &p->max_slice_size;
	case K_CAP: return &p->max_pool_size;
	case K_MAX_ALLOC: return &p->max_alloc_size;
	case K_RECLAIM_AT: return &p->reclaim_at;
	default: return &p->dealloc_period;
	}
}

/* The rules the library checks when it installs a sliced pool
 * (core/layout.c), here at load, where the file and line can be named. */
static int check_sliced(const hc_pool_spec *p, const char *name, unsigned long lineno, char *err,
			size_t errlen)
{
	if (p->page_size == 0) {
		snprintf(err, errlen, "%s:%lu: a sliced pool needs page=SIZE, greater than 0", name,
			 lineno);
		return -1;
	}
	if (p->max_slice_size > p->page_size) {
		snprintf(err, errlen,
			 "%s:%lu: max_slice (%llu) is larger than page (%llu): a slice cannot span pages",
			 name, lineno, (unsigned long long)p->max_slice_size,
			 (unsigned long long)p->page_size);
		return -1;
	}
	if (p->max_pool_size && p->max_pool_size < p->page_size) {
		snprintf(err, errlen, "%s:%lu: cap (%llu) is smaller than page (%llu): no page fits",
			 name, lineno, (unsigned long long)p->max_pool_size,
			 (unsigned long long)p->page_size);
		return -1;
	}
	if (p->max_pool_size / p->page_size > LAYOUT_MAX_PAGES) {
		snprintf(err, errlen, "%s:%lu: cap spans %llu pages, more than the %u a pool can hold",
			 name, lineno, (unsigned long long)(p->max_pool_size / p->page_size),
			 LAYOUT_MAX_PAGES);
		return -1;
	}
	return 0;
}

int hs_layout_parse(FILE *f, const char *name, hc_pool_spec *pools, size_t *n, char *err,
		    size_t errlen)
{
	char line[LAYOUT_LINE_MAX];
	unsigned long lineno = 0;
	size_t count = 0;

	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *w, *hash;
		hc_pool_spec *p;
		size_t len = strlen(line);
		unsigned seen = 0;
		int kind = -1;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			snprintf(err, errlen, "%s:%lu: line longer than %d bytes", name, lineno,
				 LAYOUT_LINE_MAX - 2);
			return -1;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		w = strtok_r(line, " \t\r\n", &save);
		if (!w)
			continue;
		if (count == HS_LAYOUT_MAX_POOLS) {
			snprintf(err, errlen, "%s:%lu: more than %d pools", name, lineno,
				 HS_LAYOUT_MAX_POOLS);
			return -1;
		}
		p = &pools[count];
		memset(p, 0, sizeof(*p));
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strcmp(w, kinds[i].name) == 0)
				kind = (int)i;
		if (kind < 0 && strcmp(w, "persistent") == 0) {
			snprintf(err, errlen,
				 "%s:%lu: 'persistent' is not a layout pool: every stream has one, "
				 "used between hc_memory_persistent_begin and _end (exclusive, direct, "
				 "sliced, expandable)", name, lineno);
			return -1;
		}
		if (kind < 0) {
			snprintf(err, errlen,
				 "%s:%lu: unknown pool kind '%.64s' (exclusive, direct, sliced, "
				 "expandable)", name,
				 lineno, w);
			return -1;
		}
		p->kind = kinds[kind].kind;
		while ((w = strtok_r(NULL, " \t\r\n", &save))) {
			char *eq = strchr(w, '=');
			enum layout_key k;

			if (!eq) {
				snprintf(err, errlen, "%s:%lu: '%.64s' is not KEY=VALUE", name, lineno, w);
				return -1;
			}
			*eq = 0;
			k = key_find(w);
			if (k == K_N) {
				snprintf(err, errlen,
					 "%s:%lu: unknown key '%.64s' (page, max_slice, cap, max_alloc, "
					 "reclaim_at, dealloc_period)", name, lineno, w);
				return -1;
			}
			if (!(kinds[kind].keys & 1u << k)) {
				snprintf(err, errlen,
					 "%s:%lu: key '%s' does not apply to %s (its keys: %s)", name,
					 lineno, key_names[k], kinds[kind].a_pool, kinds[kind].key_list);
				return -1;
			}
			if (seen & 1u << k) {
				snprintf(err, errlen, "%s:%lu: key '%s' given twice", name, lineno,
					 key_names[k]);
				return -1;
			}
			seen |= 1u << k;
			/* reclaim_at=peak: the pool's own peak in use (HC_RECLAIM_AT_PEAK) */
			if (k == K_RECLAIM_AT && strcmp(eq + 1, "peak") == 0) {
				p->reclaim_at = HC_RECLAIM_AT_PEAK;
				continue;
			}
			/* reclaim_at=shared: HC_RECLAIM_AT_SHARED (expandable only) */
			if (p->kind == HC_POOL_EXPANDABLE && k == K_RECLAIM_AT &&
			    strcmp(eq + 1, "shared") == 0) {
				p->reclaim_at = HC_RECLAIM_AT_SHARED;
				continue;
			}
			if (p->kind == HC_POOL_EXPANDABLE && k == K_RECLAIM_AT &&
			    strcmp(eq + 1, "0") != 0) {
				snprintf(err, errlen,
					 "%s:%lu: an expandable pool's reclaim_at is 0 (unmap on cleanup "
					 "only), peak or shared, not '%.64s'", name, lineno, eq + 1);
				return -1;
			}
			if (parse_size(eq + 1, key_field(p, k)) != 0) {
				snprintf(err, errlen, "%s:%lu: %s: '%.64s' is not a size", name, lineno, w,
					 eq + 1);
				return -1;
			}
		}
		if (p->kind == HC_POOL_SLICED && check_sliced(p, name, lineno, err, errlen) != 0)
			return -1;
		count++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", name);
		return -1;
	}
	if (count == 0) {
		snprintf(err, errlen, "%s:%lu: no pool in the layout file", name, lineno);
		return -1;
	}
	*n = count;
	return 0;
}

int hs_pools_option(const char *arg, hc_pool_layout *layout, hc_pool_spec *pools, char *err,
		    size_t errlen)
{
	FILE *f;
	size_t n = 0;
	int rc;

	memset(layout, 0, sizeof(*layout));
	if (strcmp(arg, "default") == 0) {
		layout->preset = HC_LAYOUT_DEFAULT;
		return 0;
	}
	if (strcmp(arg, "workload") == 0) {
		layout->preset = HC_LAYOUT_WORKLOAD;
		return 0;
	}
	if (strcmp(arg, "expandable") == 0) {
		layout->preset = HC_LAYOUT_EXPANDABLE;
		return 0;
	}
	if (strcmp(arg, "expandable-shared") == 0) {
		layout->preset = HC_LAYOUT_EXPANDABLE_SHARED;
		return 0;
	}
	if (strcmp(arg, "subslices") == 0) {
		layout->preset = HC_LAYOUT_SUBSLICES;
		return 0;
	}
	if (strcmp(arg, "exclusive") == 0) {
		layout->preset = HC_LAYOUT_EXCLUSIVE_PAGES;
		return 0;
	}
	f = fopen(arg, "r");
	if (!f) {
		snprintf(err, errlen,
			 "'%s' is neither a pool layout (default, workload, expandable, "
			 "expandable-shared, subslices, exclusive) nor a readable "
			 "layout file: %s", arg, strerror(errno));
		return -1;
	}
	rc = hs_layout_parse(f, arg, pools, &n, err, errlen);
	fclose(f);
	if (rc != 0)
		return -1;
	layout->preset = HC_LAYOUT_EXPLICIT;
	layout->pools = pools;
	layout->n_pools = n;
	return 0;
}
