/*
 * debug.h - the consistency checks configure's --enable-debug turns on,
 * graded by what they cost (HC_DEBUG, 0 by default):
 *   1  cheap invariants where state changes, O(1) each (HC_ASSERT);
 *   2  and the memory managers' whole check (hc_mm_valid, O(slices))
 *      after every call that changes a manager (HC_VALIDATE);
 *   3  and poisoning: a slice of pinned host memory is filled with
 *      HC_DEBUG_POISON when it is freed, so that a read through a stale
 *      staging slice shows (hc_debug_poison); the simulator's device
 *      memory is poisoned from level 1 (sim/sim_memory.c).
 * A failed check is a bug in the library, never the caller's input: it
 * names the file, line and condition on stderr and aborts.  At level 0
 * every check compiles to nothing; the stubs below keep the .c files free
 * of #if.
 */
#ifndef HIPCORE_CORE_DEBUG_H
#define HIPCORE_CORE_DEBUG_H

#include <stdint.h>
#include <string.h>

#include "config.h"

#ifndef HC_DEBUG
#define HC_DEBUG 0
#endif

#define HC_DEBUG_POISON 0xdb

/* debug.c: reports a failed check and aborts. */
void hc_debug_fail(const char *file, int line, const char *what)
	__attribute__((noreturn, cold));

#if HC_DEBUG >= 1
#define HC_ASSERT(x) ((x) ? (void)0 : hc_debug_fail(__FILE__, __LINE__, #x))
#else
#define HC_ASSERT(x) ((void)0)
#endif

#if HC_DEBUG >= 2
#define HC_VALIDATE(x) ((x) ? (void)0 : hc_debug_fail(__FILE__, __LINE__, #x))
#else
#define HC_VALIDATE(x) ((void)0)
#endif

/* Fills @size bytes of host memory at @addr with HC_DEBUG_POISON at
 * level 3; nothing below. */
static inline void hc_debug_poison(uint64_t addr, uint64_t size)
{
#if HC_DEBUG >= 3
	if (size)
		memset((void *)(uintptr_t)addr, HC_DEBUG_POISON, (size_t)size);
#else
	(void)addr;
	(void)size;
#endif /* HC_DEBUG >= 3 */
}

#endif /* HIPCORE_CORE_DEBUG_H */
