/*
 * options.c - option values shared by hipsim's subcommands (options.h).
 *
 * A number is parsed once, here, so that every subcommand accepts the same
 * spellings and answers a bad value with the option's name and the limit
 * it broke, not a bare "not a valid number".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "tools/hipsim/driver.h"
#include "tools/hipsim/options.h"

#ifndef HS_PROFILE_DIR
#define HS_PROFILE_DIR "/usr/local/share/hipcore/profiles"
#endif

enum parse_result { PARSE_OK, PARSE_MALFORMED, PARSE_TOO_LARGE };

/* @s as a number with an optional K/M/G suffix. */
static enum parse_result parse_number(const char *s, uint64_t *out)
{
	unsigned shift = 0;
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t')
		return PARSE_MALFORMED;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s)
		return PARSE_MALFORMED;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M')
		shift = 20, end++;
	else if (*end == 'G')
		shift = 30, end++;
	if (*end)
		return PARSE_MALFORMED;
	if (errno == ERANGE || (shift && v > (UINT64_MAX >> shift)))
		return PARSE_TOO_LARGE;
	*out = (uint64_t)v << shift;
	return PARSE_OK;
}

int hs_parse_size(const char *s, uint64_t *out)
{
	return parse_number(s, out) == PARSE_OK ? 0 : -1;
}

int hs_opt_number(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	uint64_t v = 0;

	switch (parse_number(arg, &v)) {
	case PARSE_MALFORMED:
		fprintf(stderr,
			"hipsim %s: %s: '%.64s' is not a number (decimal or 0x hex, optionally "
			"followed by K, M or G)\n", cmd, opt, arg ? arg : "");
		return -1;
	case PARSE_TOO_LARGE:
		fprintf(stderr, "hipsim %s: %s: '%.64s' is too large: at most %" PRIu64 "\n", cmd, opt,
			arg, max);
		return -1;
	case PARSE_OK:
		break;
	}
	if (v < min || v > max) {
		if (max == UINT64_MAX)
			fprintf(stderr, "hipsim %s: %s: %" PRIu64 " is below the minimum of %" PRIu64 "\n",
				cmd, opt, v, min);
		else if (min == 0)
			fprintf(stderr, "hipsim %s: %s: %" PRIu64 " is above the maximum of %" PRIu64 "\n",
				cmd, opt, v, max);
		else
			fprintf(stderr, "hipsim %s: %s: %" PRIu64 " is out of range: %" PRIu64 " to %" PRIu64
					"\n", cmd, opt, v, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int hs_opt_capacity(const char *cmd, const char *arg, uint64_t *out)
{
	uint64_t v;

	if (hs_opt_number(cmd, "--capacity", arg, 0, HS_CAPACITY_MAX, &v) != 0)
		return -1;
	if (v < HS_CAPACITY_MIN) {
		fprintf(stderr, "hipsim %s: --capacity: %" PRIu64 " B is below the minimum of %llu B "
				"(a stream's pools size their pages from a quarter of the device's "
				"memory)\n", cmd, v, HS_CAPACITY_MIN);
		return -1;
	}
	*out = v;
	return 0;
}

const char *hs_profile_find(const char *arg, char *buf, size_t len)
{
	const char *dir = getenv("HIPSIM_PROFILE_DIR");
	size_t n = strlen(arg);
	struct stat sb;
	int w;

	if (stat(arg, &sb) == 0 || strchr(arg, '/') || n == 0)
		return arg;
	if (!dir || !*dir)
		dir = HS_PROFILE_DIR;
	if (n > 8 && strcmp(arg + n - 8, ".profile") == 0)
		w = snprintf(buf, len, "%s/%s", dir, arg);
	else
		w = snprintf(buf, len, "%s/%s.profile", dir, arg);
	if (w < 0 || (size_t)w >= len || stat(buf, &sb) != 0)
		return arg; /* not installed either: the loader names @arg */
	return buf;
}
