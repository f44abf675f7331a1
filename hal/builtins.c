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

static const char *run_fill(unsigned char *dst, uint64_t n, const unsigned char *info,
			    uint64_t info_bytes)
{
	uint32_t value, width = 4;

	memcpy(&value, info, 4);
	if (info_bytes >= 8)
		memcpy(&width, info + 4, 4);
	if (width == 1) {
		memset(dst, (int)(value & 0xff), n);
	} else if (width == 4) {
		unsigned char w[4] = { (unsigned char)value, (unsigned char)(value >> 8),
				       (unsigned char)(value >> 16), (unsigned char)(value >> 24) };
		for (uint64_t i = 0; i < n; i++)
			dst[i] = w[i % 4];
	} else {
		return "fill: element width (info word 1) must be 1 or 4";
	}
	return NULL;
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
		/* element by element through memcpy: any alignment, and out may
		 * be a or b (each element is read before it is written) */
		for (uint64_t i = 0; i < bytes[2] / 4; i++) {
			uint32_t a, b, c;

			memcpy(&a, p[0] + 4 * i, 4);
			memcpy(&b, p[1] + 4 * i, 4);
			c = a + b;
			memcpy(p[2] + 4 * i, &c, 4);
		}
		return NULL;
	default:
		return "no such built-in kernel";
	}
}
