/*
 * stage_copy.c - hc_stage_copy(): the library's out-of-line copy into
 * pinned staging (core/stage_copy.h says why it uses streaming stores).
 */
#include "core/stage_copy.h"
#include "core/streamops.h"

void hc_stage_copy(void *dst, const void *src, size_t n)
{
	hc_stage_copy_inline(dst, src, n);
}
