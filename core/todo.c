/*
 * todo.c - public calls whose implementation is being written on another
 * branch (the error graph's explain).  Each returns HC_ERR_UNSUPPORTED with a
 * message until it lands; this file goes away when it does.
 */
#include "core/object.h"

hc_status hc_failure_explain(hc_device d, hc_failure_id f, char *buf, size_t len)
{
	return hc_fail(HC_ERR_UNSUPPORTED, "hc_failure_explain: not implemented yet");
}
