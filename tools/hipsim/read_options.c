/*
 * read_options.c - the defaults and parsing of struct hs_read_options.
 *
 * Every limit is read the same way from an option or its environment
 * variable, so the table below names each once: its option, its variable,
 * whether it takes a size suffix, and where it goes.  A malformed value is
 * refused with the option's (or the variable's) name and the form it takes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/hipsim/read_options.h"

struct limit_knob {
	int code;
	const char *option, *env;
	bool size; /* takes K/M/G (powers of 1024) */
	size_t offset; /* in struct hs_decode_limits */
};

static const struct limit_knob knobs[] = {
	{ HS_OPT_DECODE_CPU, "--decode-cpu", "HIPSIM_DECODE_CPU", false,
	  offsetof(struct hs_decode_limits, cpu_s) },
	{ HS_OPT_DECODE_MEMORY, "--decode-memory", "HIPSIM_DECODE_MEMORY", true,
	  offsetof(struct hs_decode_limits, memory) },
	{ HS_OPT_DECODE_STALL, "--decode-stall", "HIPSIM_DECODE_STALL", false,
	  offsetof(struct hs_decode_limits, stall_s) },
};

/* A decimal number, with a K/M/G suffix when @size.  Return: 0, or -1. */
static int parse_amount(const char *s, bool size, uint64_t *out)
{
	unsigned shift = 0;
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (size && (*end == 'K' || *end == 'k'))
		shift = 10, end++;
	else if (size && *end == 'M')
		shift = 20, end++;
	else if (size && *end == 'G')
		shift = 30, end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int set_knob(struct hs_read_options *o, const struct limit_knob *k, const char *name, const char *arg,
		    char *err, size_t errlen)
{
	uint64_t v;

	if (parse_amount(arg, k->size, &v) != 0) {
		snprintf(err, errlen, "%s: '%s' is not %s", name, arg,
			 k->size ? "a size in bytes (a whole number, K/M/G allowed; 0: no limit)"
				 : "a whole number of seconds (0: no limit)");
		return -1;
	}
	memcpy((char *)&o->limits + k->offset, &v, sizeof(v));
	if (k->code == HS_OPT_DECODE_CPU)
		o->cpu_explicit = true;
	return 0;
}

int hs_read_options_init(struct hs_read_options *o, char *err, size_t errlen)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t half = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : HS_DECODE_MEMORY_MAX;

	memset(o, 0, sizeof(*o));
	o->format = "auto";
	o->limits.cpu_s = HS_DECODE_CPU_BASE_S;
	o->limits.memory = half < HS_DECODE_MEMORY_MAX ? half : HS_DECODE_MEMORY_MAX;
	o->limits.stall_s = HS_DECODE_STALL_S;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		const char *v = getenv(knobs[i].env);

		if (v && *v && set_knob(o, &knobs[i], knobs[i].env, v, err, errlen) != 0)
			return -1;
	}
	return 0;
}

int hs_read_option(struct hs_read_options *o, int code, const char *arg, char *err, size_t errlen)
{
	switch (code) {
	case HS_OPT_VERBOSE:
		o->verbose = true;
		return 1;
	case HS_OPT_PID:
		if (parse_amount(arg, false, &o->pid) != 0) {
			snprintf(err, errlen, "--pid: '%s' is not a process id (a whole number)", arg);
			return -1;
		}
		o->have_pid = true;
		return 1;
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (knobs[i].code == code)
			return set_knob(o, &knobs[i], knobs[i].option, arg, err, errlen) == 0 ? 1 : -1;
	return 0;
}
