/*
 * debug.c - what a failed consistency check does (debug.h): the one place
 * the library writes to stderr, and only in a debug build, for a bug of
 * its own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/debug.h"

void hc_debug_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "libhipcore: %s:%d: consistency check failed: %s\n", file, line, what);
	abort();
}
