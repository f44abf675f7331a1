/*
 * todo.c - public calls whose implementation is being written on other
 * branches (capture: graphs; errors).
 * Each returns HC_ERR_UNSUPPORTED with a message until it lands; this file
 * goes away when they do.
 */
#include "core/object.h"

#define NOT_YET(fn) hc_fail(HC_ERR_UNSUPPORTED, fn ": not implemented yet")

hc_status hc_write(hc_stream s, hc_buffer b, uint64_t o, const void *src, uint64_t n,
		   hc_alloc_property p, hc_release_fn r, void *a)
{
	return NOT_YET("hc_write");
}
hc_status hc_read(hc_stream s, hc_buffer b, uint64_t o, void *dst, uint64_t n, hc_failure_id *f)
{
	return NOT_YET("hc_read");
}
hc_status hc_launch(hc_stream s, const hc_launch_desc *l)
{
	return NOT_YET("hc_launch");
}
hc_status hc_sync(hc_stream s)
{
	return NOT_YET("hc_sync");
hc_status hc_graph_prepare(hc_stream s)
	return NOT_YET("hc_graph_prepare");
hc_status hc_graph_begin(hc_stream s)
	return NOT_YET("hc_graph_begin");
hc_status hc_graph_end(hc_stream s, hc_graph *g)
	return NOT_YET("hc_graph_end");
hc_status hc_graph_replay(hc_stream s, hc_graph g)
	return NOT_YET("hc_graph_replay");
hc_status hc_graph_destroy(hc_graph g)
	return NOT_YET("hc_graph_destroy");
}
hc_status hc_failure_explain(hc_device d, hc_failure_id f, char *buf, size_t len)
{
	return NOT_YET("hc_failure_explain");
}
