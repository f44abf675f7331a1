/*
 * layout_file.c - parses explicit pool layout files (format in
 * layout_file.h) into hc_pool_spec arrays for hc_install_memory_pools().
 *
 * Line by line with a fixed buffer: a line longer than it is an error, not
 * a silent split.  Words are split on blanks; every error names the file
 * and line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hipsim/layout_file.h"

#define LAYOUT_LINE_MAX 1024

static const struct {
	const char *name;
	hc_pool_kind kind;
} kinds[] = {
	{ "exclusive", HC_POOL_EXCLUSIVE },
	{ "direct", HC_POOL_DIRECT },
	{ "sliced", HC_POOL_SLICED },
	{ "persistent", HC_POOL_PERSISTENT },
};

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

/* The field of @p that key @k names, or NULL. */
static uint64_t *field(hc_pool_spec *p, const char *k)
{
	if (strcmp(k, "page") == 0)
		return &p->page_size;
	if (strcmp(k, "max_slice") == 0)
		return &p->max_slice_size;
	if (strcmp(k, "cap") == 0)
		return &p->max_pool_size;
	if (strcmp(k, "max_alloc") == 0)
		return &p->max_alloc_size;
	if (strcmp(k, "reclaim_at") == 0)
		return &p->reclaim_at;
	if (strcmp(k, "dealloc_period") == 0)
		return &p->dealloc_period;
	return NULL;
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
		int known = 0;

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
			if (strcmp(w, kinds[i].name) == 0) {
				p->kind = kinds[i].kind;
				known = 1;
			}
		if (!known) {
			snprintf(err, errlen,
				 "%s:%lu: unknown pool kind '%.64s' (exclusive, direct, sliced, persistent)",
				 name, lineno, w);
			return -1;
		}
		while ((w = strtok_r(NULL, " \t\r\n", &save))) {
			char *eq = strchr(w, '=');
			uint64_t *dst;

			if (!eq) {
				snprintf(err, errlen, "%s:%lu: '%.64s' is not KEY=VALUE", name, lineno, w);
				return -1;
			}
			*eq = 0;
			dst = field(p, w);
			if (!dst) {
				snprintf(err, errlen,
					 "%s:%lu: unknown key '%.64s' (page, max_slice, cap, max_alloc, "
					 "reclaim_at, dealloc_period)", name, lineno, w);
				return -1;
			}
			if (parse_size(eq + 1, dst) != 0) {
				snprintf(err, errlen, "%s:%lu: %s: '%.64s' is not a size", name, lineno, w,
					 eq + 1);
				return -1;
			}
		}
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
			 "'%s' is neither a pool layout (default, workload, subslices, exclusive) nor a readable "
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
