/*
 * builtins.c - the built-in kernels' table, range checks and host
 * reference (builtins.h).  No state and no library calls: the simulator,
 * the HIP backend and a test runtime link the same code, so "the same
 * semantics" is one definition, not three.
 */
#include <stdio.h>
#include <string.h>

#include "hal/builtins.h"

const struct hc_builtin_info hc_builtins[HC_BUILTIN_COUNT] = {
	[HC_BUILTIN_FILL] = { "fill", 2 },
	[HC_BUILTIN_COPY] = { "copy", 2 },
	[HC_BUILTIN_ADD] = { "add", 3 },
};

int hc_builtin_find(const char *name)
{
	if (!name)
		return -1;
	for (int k = 0; k < HC_BUILTIN_COUNT; k++)
		if (strcmp(name, hc_builtins[k].name) == 0)
			return k;
	return -1;
}

int hc_builtin_check(enum hc_builtin k, size_t n_args, const uint64_t *bytes, char *why,
		     size_t len)
{
	size_t want = hc_builtins[k].n_args;

	if (n_args < want || !bytes) {
		snprintf(why, len, "kernel '%s' takes %zu parameters, got %zu", hc_builtins[k].name,
			 want, bytes ? n_args : 0);
		return -1;
	}
	switch (k) {
	case HC_BUILTIN_FILL:
		if (bytes[1] < 4) {
			snprintf(why, len, "fill: info binds %llu bytes, needs at least 4",
				 (unsigned long long)bytes[1]);
			return -1;
		}
		break;
	case HC_BUILTIN_COPY:
		if (bytes[0] < bytes[1]) {
			snprintf(why, len, "copy: src binds %llu bytes, dst %llu",
				 (unsigned long long)bytes[0], (unsigned long long)bytes[1]);
			return -1;
		}
		break;
	case HC_BUILTIN_ADD:
		if (bytes[0] < bytes[2] / 4 * 4 || bytes[1] < bytes[2] / 4 * 4) {
			snprintf(why, len, "add: a and b must bind at least out's %llu bytes",
				 (unsigned long long)(bytes[2] / 4 * 4));
			return -1;
		}
		break;
	default:
		snprintf(why, len, "no built-in kernel %d", (int)k);
		return -1;
	}
	return 0;
}

uint64_t hc_builtin_traffic(enum hc_builtin k, size_t n_args, const uint64_t *bytes)
{
	if (!bytes || (int)k < 0 || k >= HC_BUILTIN_COUNT || n_args < hc_builtins[k].n_args)
		return 0;
	switch (k) {
	case HC_BUILTIN_FILL:
		return bytes[0];
	case HC_BUILTIN_COPY:
		return bytes[1] > UINT64_MAX / 2 ? UINT64_MAX : 2 * bytes[1];
	case HC_BUILTIN_ADD:
		return bytes[2] / 4 > UINT64_MAX / 12 ? UINT64_MAX : 3 * (bytes[2] / 4 * 4);
	default:
		return 0;
	}
}

static const char *run_fill(unsigned char *dst, uint64_t n, const unsigned char *info,
			    uint64_t info_bytes)
{
	uint32_t value, width = 4;

	memcpy(&value, info, 4);
	if (info_bytes >= 8)
		memcpy(&width, info + 4, 4);
	if (width == 1) {
		memset(dst, (int)(value & 0xff), n);
	} else if (width == 4) { /* 256-byte runs of the word: byte i is w[i % 4] */
		unsigned char run[256];

		for (size_t i = 0; i < sizeof(run); i++)
			run[i] = (unsigned char)(value >> (8 * (i % 4)));
		for (uint64_t i = 0; i < n; i += sizeof(run))
			memcpy(dst + i, run, n - i < sizeof(run) ? n - i : sizeof(run));
	} else {
		return "fill: element width (info word 1) must be 1 or 4";
	}
	return NULL;
}

/* Whether @x's n bytes overlap @out's without starting where they do. */
static int overlaps_askew(const unsigned char *x, const unsigned char *out, uint64_t n)
{
	return x != out && x < out + n && out < x + n;
}

/* out[i] = a[i] + b[i] over @n uint32 elements at any alignment.  Element
 * by element, each read before it is written, when an input overlaps out
 * askew (out may be a or b itself either way); else in blocks. */
static void run_add(const unsigned char *a, const unsigned char *b, unsigned char *out,
		    uint64_t n)
{
	uint32_t x[256], y[256];
	uint64_t i = 0;

	if (!overlaps_askew(a, out, 4 * n) && !overlaps_askew(b, out, 4 * n)) {
		for (; i + 256 <= n; i += 256) {
			memcpy(x, a + 4 * i, sizeof(x));
			memcpy(y, b + 4 * i, sizeof(y));
			for (int k = 0; k < 256; k++)
				x[k] += y[k];
			memcpy(out + 4 * i, x, sizeof(x));
		}
	}
	for (; i < n; i++) {
		uint32_t u, v;

		memcpy(&u, a + 4 * i, 4);
		memcpy(&v, b + 4 * i, 4);
		u += v;
		memcpy(out + 4 * i, &u, 4);
	}
}

const char *hc_builtin_run(enum hc_builtin k, unsigned char *const *p, const uint64_t *bytes)
{
	switch (k) {
	case HC_BUILTIN_FILL:
		return run_fill(p[0], bytes[0], p[1], bytes[1]);
	case HC_BUILTIN_COPY:
		memmove(p[1], p[0], bytes[1]);
		return NULL;
	case HC_BUILTIN_ADD:
		run_add(p[0], p[1], p[2], bytes[2] / 4);
		return NULL;
	default:
		return "no such built-in kernel";
	}
}
