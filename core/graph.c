/*
 * graph.c - graph capture: prepare -> begin -> end, then replay and destroy.
 *
 * Capture follows the stream's state machine (core/queue/capture.c): a rejected
 * call returns HC_ERR_STATE and changes nothing.
 *
 *  prepare  forces persistent mode on both memory managers and starts
 *           priming: everything warm-up touches is retained, so the pools
 *           grow to the graph's whole working set; the metadata cache pins
 *           what the capture uses.
 *  begin    flushes the drop queue twice (warm-up's staging buffers return
 *           to the pinned pool), ends priming (retained slices become free
 *           but stay in the pools), defers fenced flushes (a host sync would
 *           break the capture) and opens the backend capture.
 *  end      closes the backend capture.  The backend rejects a capture that
 *           recorded a device allocation or free: its first launch would
 *           work and every relaunch fail.  Otherwise the graph keeps exactly
 *           the persistent slices the window touched (pinned until destroy),
 *           the cache's pins are filed under the graph, and the mode returns.
 *
 * A graph record lives in a device table guarded by the device lock; the
 * work on its stream is done under the stream lock, never both at once
 * except dev -> stream in destroy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/object.h"
#include "trace/hipcore_trace.h"

static void trace_transition(struct hc_strm *st, enum hc_capture_state from,
			     enum hc_capture_state to, uint64_t graph)
{
	HC_TRACE(capture, st->handle.id, (uint8_t)from, (uint8_t)to, graph);
}

/* Drops the pins @refs hold in @mm.  Context: @mm's stream locked. */
static void unpin_all(struct hc_mm *mm, const struct hc_slice_ref *refs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hc_mm_unpin(mm, refs[i]);
}

/* Releases what @g holds.  Context: device lock held; @g's stream locked
 * when @locked, else unlocked. */
static void graph_release(struct hc_dev *dev, struct hc_graph_rec *g, bool locked)
{
	struct hc_strm *st = g->stream;

	if (!locked)
		hc_lock_acquire(&st->lock);
	if (st->open && st->gen == g->stream_gen) {
		unpin_all(st->dmm, g->retained, g->nretained);
		unpin_all(st->pmm, g->pretained, g->npretained);
		hc_mc_graph_release(st->cache, g->cache_graph_id);
	}
	if (!locked)
		hc_lock_release(&st->lock);
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
			graph_release(dev, &dev->graphs[i], true);
}

void hc_graphs_destroy_all(struct hc_dev *dev)
{
	for (uint32_t i = 0; i < dev->ngraphs; i++)
		if (dev->graphs[i].live)
			graph_release(dev, &dev->graphs[i], false);
	free(dev->graphs);
	dev->graphs = NULL;
	dev->ngraphs = dev->capgraphs = 0;
}

static hc_status graph_find(struct hc_dev *dev, hc_graph g, struct hc_graph_rec **out)
{
	struct hc_handle_parts p = hc_handle_unpack(g.id);

	if (g.id == 0 || p.kind != HC_KIND_GRAPH || p.index >= dev->ngraphs ||
	    !dev->graphs[p.index].live || dev->graphs[p.index].gen != p.gen)
		return hc_fail(HC_ERR_STALE, "graph %#llx is destroyed or unknown",
			       (unsigned long long)g.id);
	*out = &dev->graphs[p.index];
	return HC_OK;
}

/* The device of a graph handle.  Context: no lock held. */
static hc_status graph_dev(hc_graph g, struct hc_dev **out)
{
	struct hc_handle_parts p = hc_handle_unpack(g.id);
	struct hc_strm *st;
	hc_status rc;

	if (g.id == 0 || p.kind != HC_KIND_GRAPH)
		return hc_fail(HC_ERR_STALE, "graph handle %#llx is not a graph",
			       (unsigned long long)g.id);
	rc = hc_strm_slot_lock(p.dev, p.stream, &st);
	if (rc != HC_OK)
		return hc_fail(HC_ERR_STALE, "graph %#llx: its stream is closed",
			       (unsigned long long)g.id);
	*out = st->dev;
	hc_strm_unlock(st);
	return HC_OK;
}

hc_status hc_graph_prepare(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(graph_prepare);
	struct hc_strm *st;
	hc_status rc;

	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	rc = hc_capture_prepare(&st->capture);
	if (rc == HC_OK) {
		hc_mm_capture_begin(st->dmm);
		hc_mm_capture_begin(st->pmm);
		hc_mc_set_mode(st->cache, hc_capture_cache_mode(&st->capture));
		trace_transition(st, HC_CAPTURE_NONE, HC_CAPTURE_PREPARE, 0);
	}
	HC_TRACE(graph_prepare, s.id, 0, (int32_t)rc, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return rc;
}

/* Ends the managers' capture windows and drops what they would retain. */
static void capture_unwind(struct hc_strm *st)
{
	struct hc_mm *mms[2] = { st->dmm, st->pmm };

	for (int k = 0; k < 2; k++) {
		struct hc_slice_ref *refs = NULL;
		size_t n = 0;

		if (hc_mm_capture_end(mms[k], &refs, &n) == HC_OK) {
			unpin_all(mms[k], refs, n);
			free(refs);
		}
	}
	hc_mc_capture_discard(st->cache);
	hc_mc_set_mode(st->cache, HC_MC_NORMAL);
}

/*
 * The capture is counted (dev->recording) under the device lock, taken
 * before the stream's as the lock order says: hc_stream_close and
 * hc_graph_destroy decide under the device lock and keep it through their
 * waits and frees, so a capture begun meanwhile on another stream starts
 * after them, never during them (their host waits would invalidate it).
 */
hc_status hc_graph_begin(hc_stream s)
{
	uint64_t t0 = HC_TRACE_T0(graph_begin);
	struct hc_strm *st;
	struct hc_dev *dev;
	hc_status rc;

	rc = hc_strm_lock_under_dev(s, &st);
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	rc = hc_capture_begin(&st->capture); /* before any side effect */
	if (rc != HC_OK) {
		pthread_mutex_unlock(&dev->lock);
		goto out_unlock;
	}
	/* Counted now, as recording, before the backend starts, so that no
	 * other stream syncs from then on; this stream's own flushes below are
	 * then put off too when another stream already records. */
	atomic_fetch_add(&dev->recording, 1);
	pthread_mutex_unlock(&dev->lock);
	hc_strm_dq_flush_all(st);
	hc_mm_capture_priming_end(st->dmm);
	hc_mm_capture_priming_end(st->pmm);
	hc_dq_set_deferred(&st->dq, true);
	st->capture_memops = 0;
	rc = st->dev->ops->capture_begin(st->dev->hal, st->hal);
	if (rc != HC_OK) {
		atomic_fetch_sub(&st->dev->recording, 1);
		hc_dq_set_deferred(&st->dq, false);
		capture_unwind(st);
		hc_capture_abort(&st->capture);
		trace_transition(st, HC_CAPTURE_PREPARE, HC_CAPTURE_NONE, 0);
		goto out_unlock;
	}
	trace_transition(st, HC_CAPTURE_PREPARE, HC_CAPTURE_RECORDING, 0);
out_unlock:
	HC_TRACE(graph_begin, s.id, 0, (int32_t)rc, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return rc;
}

/* Takes a free slot of the device's graph table.  Context: device lock. */
static hc_status graph_slot(struct hc_dev *dev, uint32_t *idx)
{
	for (uint32_t i = 0; i < dev->ngraphs; i++)
		if (!dev->graphs[i].live) {
			*idx = i;
			return HC_OK;
		}
	if (dev->ngraphs == dev->capgraphs) {
		uint32_t cap = dev->capgraphs ? dev->capgraphs * 2 : 8;
		struct hc_graph_rec *ng = realloc(dev->graphs, cap * sizeof(*ng));
		if (!ng)
			return hc_fail(HC_ERR_OOM, "hc_graph_end: out of host memory");
		memset(ng + dev->capgraphs, 0, (cap - dev->capgraphs) * sizeof(*ng));
		dev->graphs = ng;
		dev->capgraphs = cap;
	}
	*idx = dev->ngraphs++;
	return HC_OK;
}

hc_status hc_graph_end(hc_stream s, hc_graph *out)
{
	uint64_t t0 = HC_TRACE_T0(graph_end);
	struct hc_graph_rec rec = { 0 };
	hc_hal_graph *hg = NULL;
	struct hc_strm *st;
	struct hc_dev *dev;
	hc_status rc, rc_mm;
	uint32_t idx = 0;

	if (!out)
		return hc_fail(HC_ERR_INVALID, "hc_graph_end: out is NULL");
	out->id = 0;
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	dev = st->dev;
	rc = hc_capture_end(&st->capture); /* leaves Capture even if the rest fails */
	if (rc != HC_OK) {
		HC_TRACE(graph_end, s.id, 0, (int32_t)rc, hc_trace_since_ns(t0));
		hc_strm_unlock(st);
		return rc;
	}
	rc = dev->ops->capture_end(dev->hal, st->hal, &hg);
	atomic_fetch_sub(&dev->recording, 1); /* after the backend left capture */
	if (rc == HC_OK && st->capture_memops) {
		dev->ops->graph_destroy(dev->hal, hg);
		hg = NULL;
		rc = hc_fail(HC_ERR_STATE,
			     "hc_graph_end: the capture attempted %llu device memory operation(s) "
			     "(allocation or free); nothing may be allocated or freed while recording",
			     (unsigned long long)st->capture_memops);
	}
	hc_dq_set_deferred(&st->dq, false);
	trace_transition(st, HC_CAPTURE_RECORDING, HC_CAPTURE_NONE, 0);
	if (rc != HC_OK) {
		capture_unwind(st);
		hc_strm_dq_flush_all(st);
		goto out_unlock;
	}
	rc = hc_mm_capture_end(st->dmm, &rec.retained, &rec.nretained);
	rc_mm = hc_mm_capture_end(st->pmm, &rec.pretained, &rec.npretained);
	if (rc == HC_OK)
		rc = rc_mm;
	rec.cache_graph_id = atomic_fetch_add(&dev->graph_seq, 1) + 1;
	if (rc == HC_OK)
		rc = hc_mc_capture_commit(st->cache, rec.cache_graph_id);
	hc_mc_set_mode(st->cache, HC_MC_NORMAL);
	hc_strm_dq_flush_all(st);
	rec.hal = hg;
	rec.stream = st;
	rec.stream_gen = st->gen;
	if (rc != HC_OK) {
		hc_mc_capture_discard(st->cache);
		goto out_release_rec;
	}
	hc_strm_unlock(st);

	/* Publish under the device lock (never held with a stream lock here). */
	pthread_mutex_lock(&dev->lock);
	rc = graph_slot(dev, &idx);
	if (rc == HC_OK) {
		rec.gen = hc_gen_next(dev->graphs[idx].gen);
		rec.live = true;
		dev->graphs[idx] = rec;
		out->id = hc_handle_pack(HC_KIND_GRAPH, dev->slot, st->slot, rec.gen, idx);
	} else {
		graph_release(dev, &rec, false);
	}
	pthread_mutex_unlock(&dev->lock);
	HC_TRACE(graph_end, s.id, out->id, (int32_t)rc, hc_trace_since_ns(t0));
	return rc;

out_release_rec:
	unpin_all(st->dmm, rec.retained, rec.nretained);
	unpin_all(st->pmm, rec.pretained, rec.npretained);
	free(rec.retained);
	free(rec.pretained);
	if (hg)
		dev->ops->graph_destroy(dev->hal, hg);
out_unlock:
	HC_TRACE(graph_end, s.id, 0, (int32_t)rc, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return rc;
}

hc_status hc_graph_replay(hc_stream s, hc_graph g)
{
	uint64_t t0 = HC_TRACE_T0(graph_replay);
	struct hc_graph_rec *rec;
	hc_hal_graph *hg;
	struct hc_strm *st, *owner;
	struct hc_dev *dev;
	hc_status rc;

	rc = graph_dev(g, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	rc = graph_find(dev, g, &rec);
	hg = rc == HC_OK ? rec->hal : NULL;
	owner = rc == HC_OK ? rec->stream : NULL;
	pthread_mutex_unlock(&dev->lock);
	if (rc != HC_OK)
		return rc;
	rc = hc_strm_lock(s, &st);
	if (rc != HC_OK)
		return rc;
	if (st != owner) {
		rc = hc_fail(HC_ERR_INVALID,
			     "hc_graph_replay: graph %#llx replays on the stream that captured it",
			     (unsigned long long)g.id);
	} else if (hc_capture_is_recording(&st->capture)) {
		rc = hc_fail(HC_ERR_STATE, "hc_graph_replay: the stream is recording a capture");
	} else {
		uint64_t mark = hc_et_mark(st);
		struct hc_et_desc desc = { .what = HC_ET_REPLAY, .a = g.id };

		rc = dev->ops->graph_launch(dev->hal, st->hal, hg);
		hc_cursor_advance(&st->cursor);
		if (rc == HC_OK) /* a failure inside is attributed to the replay */
			hc_et_add(st, HC_EG_KERNEL, mark, &desc, NULL, 0);
	}
	HC_TRACE(graph_replay, s.id, g.id, (int32_t)rc, hc_trace_since_ns(t0));
	hc_strm_unlock(st);
	return rc;
}

hc_status hc_graph_destroy(hc_graph g)
{
	uint64_t t0 = HC_TRACE_T0(graph_destroy);
	struct hc_graph_rec *rec;
	struct hc_dev *dev;
	struct hc_strm *st;
	hc_status rc;

	rc = graph_dev(g, &dev);
	if (rc != HC_OK)
		return rc;
	pthread_mutex_lock(&dev->lock);
	rc = graph_find(dev, g, &rec);
	if (rc != HC_OK)
		goto out_unlock;
	st = rec->stream;
	hc_lock_acquire(&st->lock);
	if (hc_capture_is_recording(&st->capture)) {
		hc_lock_release(&st->lock);
		rc = hc_fail(HC_ERR_STATE,
			     "hc_graph_destroy: its stream is recording a capture; end it first");
		goto out_unlock;
	}
	if (atomic_load(&dev->recording) > 0) {
		hc_lock_release(&st->lock);
		rc = hc_fail(HC_ERR_STATE,
			     "hc_graph_destroy: another stream of the device is recording a capture, "
			     "which the wait for this graph's last replay would invalidate; destroy "
			     "it after that stream's hc_graph_end");
		goto out_unlock;
	}
	/* The graph's last replay may still run: wait before unpinning. */
	rc = hc_strm_sync_wait(st);
	hc_lock_release(&st->lock);
	graph_release(dev, rec, false);
out_unlock:
	pthread_mutex_unlock(&dev->lock);
	HC_TRACE(graph_destroy, 0, g.id, (int32_t)rc, hc_trace_since_ns(t0));
	return rc;
}
