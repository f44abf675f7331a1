/*
 * sim_graph.c - stream capture and graph replay.
 *
 * capture_begin puts a stream in capture mode (global mode): copies,
 * kernel launches and event waits queued on it are recorded as struct
 * sim_op (kernel parameters copied; host pointers kept by reference; an
 * event wait keeps the event's completion time and failure as they were when
 * captured) instead of run.  While any stream of the device captures,
 * mem_alloc, mem_free, host_alloc, host_free, stream_sync and event_sync
 * fail with HC_ERR_STATE, as cudaErrorStreamCaptureUnsupported, and
 * invalidate every capture in progress: capture_end then destroys the
 * recording and returns HC_ERR_STATE naming the number of memory
 * operations (and synchronisations) attempted.  A clean capture_end
 * instantiates the graph (graph_instantiate_ns + a per-node cost).
 * graph_launch costs graph_launch_ns and runs the recorded ops on the
 * launch stream with their usual device times, fault counting and
 * data-mode effects.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

void sim_op_clear(struct sim_op *op)
{
	if (op->kind == SIM_OP_KERNEL) {
		free(op->arg_dptr);
		free(op->arg_bytes);
		op->arg_dptr = NULL;
		op->arg_bytes = NULL;
		if (op->fn)
			sim_module_put(op->fn->mod);
		op->fn = NULL;
	}
}

void sim_capture_clear(struct sim_capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		sim_op_clear(&c->ops[i]);
	free(c->ops);
	memset(c, 0, sizeof(*c));
}

hc_status sim_capture_add(hc_hal_dev *dev, hc_hal_stream *s, struct sim_op *op)
{
	struct sim_capture *c = &s->cap;

	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		struct sim_op *nops = realloc(c->ops, ncap * sizeof(*nops));
		if (!nops) {
			sim_op_clear(op);
			return hc_hal_error(HC_ERR_OOM, 0, NULL,
					    "sim capture: no host memory to record an operation");
		}
		c->ops = nops;
		c->cap = ncap;
	}
	c->ops[c->n++] = *op;
	return HC_OK;
}

hc_status sim_capture_begin(hc_hal_dev *dev, hc_hal_stream *s)
{
	hc_status st = sim_check_stream(dev, s, "capture_begin");

	if (st)
		return st;
	if (s->capturing)
		return hc_hal_error(HC_ERR_STATE, 0, NULL,
				    "sim capture_begin: the stream is already capturing");
	sim_host_cost(dev, dev->prof.capture_begin_ns);
	sim_capture_clear(&s->cap);
	s->capturing = true;
	dev->ncapturing++;
	return HC_OK;
}

hc_status sim_capture_end(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph **out)
{
	hc_status st = sim_check_stream(dev, s, "capture_end");
	struct sim_capture *c = &s->cap;
	hc_hal_graph *g;
	unsigned __int128 cost;

	if (st)
		return st;
	if (!out)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim capture_end: out is NULL");
	if (!s->capturing)
		return hc_hal_error(HC_ERR_STATE, 0, NULL, "sim capture_end: the stream is not capturing");
	s->capturing = false;
	dev->ncapturing--;
	if (c->mem_ops || c->sync_ops) {
		st = hc_hal_error(HC_ERR_STATE, 0, "cudaErrorStreamCaptureInvalidated",
				  "sim capture_end: capture invalidated by %llu memory operations "
				  "and %llu synchronisations attempted while capturing",
				  (unsigned long long)c->mem_ops, (unsigned long long)c->sync_ops);
		sim_capture_clear(c);
		return st;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		sim_capture_clear(c);
		return hc_hal_error(HC_ERR_OOM, 0, NULL, "sim capture_end: no host memory");
	}
	g->dev = dev;
	g->ops = c->ops;
	g->n = c->n;
	memset(c, 0, sizeof(*c));
	cost = (unsigned __int128)dev->prof.graph_instantiate_node_ns * g->n +
	       dev->prof.graph_instantiate_ns;
	sim_host_cost(dev, cost > UINT64_MAX ? UINT64_MAX : (uint64_t)cost);
	LIST_INSERT_HEAD(&dev->graphs, g, link);
	*out = g;
	return HC_OK;
}

hc_status sim_graph_launch(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_graph *g)
{
	hc_status st = sim_check_stream(dev, s, "graph_launch");

	if (st)
		return st;
	if (!g)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim graph_launch: graph is NULL");
	if (g->dev != dev)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL,
				    "sim graph_launch: graph belongs to another device");
	if (s->capturing)
		return hc_hal_error(HC_ERR_UNSUPPORTED, 0, NULL,
				    "sim graph_launch: launching a graph into a capture is not modelled");
	sim_host_cost(dev, dev->prof.graph_launch_ns);
	s->op_seq++; /* the whole launch is one op (hal.h) */
	for (size_t i = 0; i < g->n; i++) {
		const struct sim_op *op = &g->ops[i];
		switch (op->kind) {
		case SIM_OP_KERNEL:
			sim_run_kernel(dev, s, op);
			break;
		case SIM_OP_WAIT:
			sim_wait_op(dev, s, op->wait_done_ns, op->wait_fail);
			break;
		default:
			sim_run_copy(dev, s, op);
			break;
		}
	}
	return HC_OK;
}

void sim_graph_destroy(hc_hal_dev *dev, hc_hal_graph *g)
{
	if (!g || g->dev != dev)
		return;
	for (size_t i = 0; i < g->n; i++)
		sim_op_clear(&g->ops[i]);
	free(g->ops);
	LIST_REMOVE(g, link);
	free(g);
}

void sim_graphs_release(hc_hal_dev *dev)
{
	while (!LIST_EMPTY(&dev->graphs))
		sim_graph_destroy(dev, LIST_FIRST(&dev->graphs));
}
