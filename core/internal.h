/*
 * internal.h - what core/ files share.  Each concept has its own header,
 * included here; this file holds only the error helpers every file uses.
 *
 * core/ depends on hal/hal.h alone (and the public header it includes).
 */
#ifndef HIPCORE_CORE_INTERNAL_H
#define HIPCORE_CORE_INTERNAL_H

#include "hal/hal.h"

/* status.c */

/* Records this thread's error detail (message from @fmt) and returns @status. */
hc_status hc_fail(hc_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* hc_fail, keeping what a lower layer recorded: its message follows in
 * parentheses, its backend code and name stay. */
hc_status hc_fail_over(hc_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hc_error_clear(void);
/* Makes @saved (from hc_last_error) this thread's detail again. */
void hc_error_restore(const hc_error_info *saved);

#endif /* HIPCORE_CORE_INTERNAL_H */
