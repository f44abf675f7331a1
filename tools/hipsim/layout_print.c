/*
 * layout_print.c - pool specs written back as layout-file lines, the
 * format layout_file.c parses, so that what `hipsim plan` prints can be
 * handed to --pools as it is.
 *
 * Sizes print with a K/M/G suffix when they are exact multiples, and a
 * watermark of HC_RECLAIM_AT_PEAK as "peak", the word the parser takes for
 * it (its value, UINT64_MAX, would parse too but says nothing to a reader).
 */
#include <inttypes.h>

#include "tools/hipsim/hipsim.h"

static void size_str(char *buf, size_t n, uint64_t v)
{
	static const char suffix[] = "GMK";
	unsigned i;

	for (i = 0; i < 3; i++) {
		uint64_t unit = 1ull << (10 * (3 - i));

		if (v && v % unit == 0) {
			snprintf(buf, n, "%" PRIu64 "%c", v / unit, suffix[i]);
			return;
		}
	}
	snprintf(buf, n, "%" PRIu64, v);
}

/* reclaim_at as the parser spells it: "peak", "shared" or a size. */
static void reclaim_str(char *buf, size_t n, uint64_t v)
{
	if (v == HC_RECLAIM_AT_PEAK)
		snprintf(buf, n, "peak");
	else if (v == HC_RECLAIM_AT_SHARED)
		snprintf(buf, n, "shared");
	else
		size_str(buf, n, v);
}

/**
 * hs_layout_print() - write @n pools as layout-file lines.
 * @out: where to write.
 * @pools: the pools, in routing order.
 * @n: how many.
 *
 * A kind the layout file has no word for (persistent) is written as a
 * comment naming it, so the output still parses.
 *
 * Context: any.
 */
void hs_layout_print(FILE *out, const hc_pool_spec *pools, size_t n)
{
	char a[32], b[32], c[32];
	size_t i;

	for (i = 0; i < n; i++) {
		const hc_pool_spec *s = &pools[i];

		switch (s->kind) {
		case HC_POOL_SLICED:
			size_str(a, sizeof(a), s->page_size);
			size_str(b, sizeof(b), s->max_slice_size ? s->max_slice_size : s->page_size);
			fprintf(out, "sliced page=%s max_slice=%s", a, b);
			if (s->max_pool_size) {
				size_str(c, sizeof(c), s->max_pool_size);
				fprintf(out, " cap=%s", c);
			}
			fputc('\n', out);
			break;
		case HC_POOL_EXCLUSIVE:
			size_str(a, sizeof(a), s->max_alloc_size);
			fprintf(out, "exclusive max_alloc=%s dealloc_period=%" PRIu64 "\n", a,
				s->dealloc_period);
			break;
		case HC_POOL_DIRECT:
			reclaim_str(a, sizeof(a), s->reclaim_at);
			fprintf(out, "direct reclaim_at=%s\n", a);
			break;
		case HC_POOL_EXPANDABLE:
			fputs("expandable", out);
			if (s->max_pool_size) {
				size_str(a, sizeof(a), s->max_pool_size);
				fprintf(out, " cap=%s", a);
			}
			if (s->reclaim_at) {
				reclaim_str(a, sizeof(a), s->reclaim_at);
				fprintf(out, " reclaim_at=%s", a);
			}
			fputc('\n', out);
			break;
		default:
			fprintf(out, "# pool %zu: kind %d has no layout-file form\n", i, (int)s->kind);
			break;
		}
	}
}
