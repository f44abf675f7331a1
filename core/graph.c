/*
 * graph.c - captured graphs kept by a device.
 *
 * A graph record holds the backend's executable graph, the slices of the
 * capturing stream that the graph keeps (retained at hc_graph_end), and the
 * id its metadata-cache pins are filed under.  Records live in a device
 * table guarded by the device lock.
 */
#include <stdlib.h>

#include "core/object.h"

/* Releases what @g holds.  Context: device lock; @g's stream not locked. */
static void graph_release(struct hc_dev *dev, struct hc_graph_rec *g)
{
	struct hc_strm *st = g->stream;

	pthread_mutex_lock(&st->lock);
	if (st->open) {
		for (size_t i = 0; i < g->nretained; i++)
			hc_mm_unpin(st->dmm, g->retained[i]);
		for (size_t i = 0; i < g->npretained; i++)
			hc_mm_unpin(st->pmm, g->pretained[i]);
		hc_mc_graph_release(st->cache, g->cache_graph_id);
	}
	pthread_mutex_unlock(&st->lock);
	if (g->hal)
		dev->ops->graph_destroy(dev->hal, g->hal);
	free(g->retained);
	free(g->pretained);
	g->retained = g->pretained = NULL;
	g->nretained = g->npretained = 0;
	g->hal = NULL;
	g->live = false;
}

void hc_graphs_destroy_stream(struct hc_dev *dev, struct hc_strm *st)
{
	for (uint32_t i = 0; i < dev->ngraphs; i++)
		if (dev->graphs[i].live && dev->graphs[i].stream == st)
			graph_release(dev, &dev->graphs[i]);
}

void hc_graphs_destroy_all(struct hc_dev *dev)
{
	for (uint32_t i = 0; i < dev->ngraphs; i++)
		if (dev->graphs[i].live)
			graph_release(dev, &dev->graphs[i]);
	free(dev->graphs);
	dev->graphs = NULL;
	dev->ngraphs = dev->capgraphs = 0;
}
