/*
 * sim_copy.c - host-to-device, device-to-host and device-to-device copies.
 *
 * A copy lasts latency + size / bandwidth, with the profile's pinned or
 * pageable figures.  H2D and D2H each have one copy engine: a copy starts
 * at max(stream ready, engine free, host time), so two H2D copies on
 * different streams serialise while an H2D and a D2H overlap.  D2D runs on
 * the device (no copy engine).  A pageable copy in either direction blocks
 * the host until it is done (the driver bounces it through its own pinned
 * buffers).  The call itself costs the host copy_call_ns.
 *
 * Data mode moves the bytes when the copy is queued: the simulator is a
 * single timeline, so effects are applied in the order the host queues
 * them (a caller must still fence before reading a D2H destination on a
 * real device).  A copy failed by injection moves nothing and is reported
 * by the next fence covering it.  On a capturing stream the copy is
 * recorded (host pointers by reference, read when the graph runs).
 */
#include <string.h>

#include "sim/sim_internal.h"

static uint64_t copy_ns(uint64_t lat, uint64_t bw, uint64_t size)
{
	unsigned __int128 t = ((unsigned __int128)size * 1000000000u + bw - 1) / bw + lat;

	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

static const char *const copy_dir[] = { "H2D", "D2H", "D2D" };

void sim_run_copy(hc_hal_dev *dev, hc_hal_stream *s, const struct sim_op *op)
{
	const struct hc_sim_profile *p = &dev->prof;
	uint64_t ordinal = ++dev->ncopy, dur, end, *engine = NULL;
	unsigned char *dbytes = NULL, *sbytes = NULL;
	bool blocks = false, failed;

	switch (op->kind) {
	case SIM_OP_H2D:
		dev->stats.copies_h2d++;
		dev->stats.bytes_h2d += op->size;
		dur = op->pinned ? copy_ns(p->h2d_pinned_lat_ns, p->h2d_pinned_bw, op->size)
				 : copy_ns(p->h2d_pageable_lat_ns, p->h2d_pageable_bw, op->size);
		engine = &dev->h2d_free_ns;
		blocks = !op->pinned;
		break;
	case SIM_OP_D2H:
		dev->stats.copies_d2h++;
		dev->stats.bytes_d2h += op->size;
		dur = op->pinned ? copy_ns(p->d2h_pinned_lat_ns, p->d2h_pinned_bw, op->size)
				 : copy_ns(p->d2h_pageable_lat_ns, p->d2h_pageable_bw, op->size);
		engine = &dev->d2h_free_ns;
		blocks = !op->pinned;
		break;
	default:
		dev->stats.copies_d2d++;
		dur = copy_ns(p->d2d_lat_ns, p->d2d_bw, op->size);
		break;
	}
	failed = sim_fault_step(dev, HC_FAULT_COPY, ordinal);
	end = sim_schedule(dev, s, engine, dur);
	if (blocks && end > dev->host_ns)
		dev->host_ns = end;
	if (failed) {
		sim_stream_fail(dev, s, "copy #%llu (%s, %llu bytes) failed (injected)",
				(unsigned long long)ordinal, copy_dir[op->kind],
				(unsigned long long)op->size);
		return;
	}
	if (!dev->data_mode || op->size == 0)
		return;
	/* Ranges were checked when queued; a graph may outlive its buffers. */
	if (op->kind != SIM_OP_H2D && sim_dev_range(dev, op->src_d, op->size, "src", &sbytes))
		goto gone;
	if (op->kind != SIM_OP_D2H && sim_dev_range(dev, op->dst_d, op->size, "dst", &dbytes))
		goto gone;
	if (op->kind == SIM_OP_H2D)
		memcpy(dbytes, op->src_h, op->size);
	else if (op->kind == SIM_OP_D2H)
		memcpy(op->dst_h, sbytes, op->size);
	else
		memmove(dbytes, sbytes, op->size);
	return;
gone:
	sim_stream_fail(dev, s, "copy #%llu (%s): a device range was freed before it ran",
			(unsigned long long)ordinal, copy_dir[op->kind]);
}

static hc_status sim_queue_copy(hc_hal_dev *dev, hc_hal_stream *s, struct sim_op *op,
				const char *fn)
{
	hc_status st = sim_check_stream(dev, s, fn);

	if (st)
		return st;
	if (op->kind != SIM_OP_H2D) {
		st = sim_dev_range(dev, op->src_d, op->size, "src", NULL);
		if (st)
			return st;
	}
	if (op->kind != SIM_OP_D2H) {
		st = sim_dev_range(dev, op->dst_d, op->size, "dst", NULL);
		if (st)
			return st;
	}
	if (s->capturing) {
		sim_host_cost(dev, dev->prof.capture_node_ns);
		return sim_capture_add(dev, s, op);
	}
	sim_host_cost(dev, sim_call_cost(dev, SIM_CALL_COPY, dev->prof.copy_call_ns));
	s->op_seq++;
	sim_run_copy(dev, s, op);
	return HC_OK;
}

hc_status sim_copy_h2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst, const void *src,
		       uint64_t size, bool pinned)
{
	struct sim_op op = { .kind = SIM_OP_H2D, .dst_d = dst, .src_h = src, .size = size,
			     .pinned = pinned };

	if (!src)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim copy_h2d: src is NULL");
	return sim_queue_copy(dev, s, &op, "copy_h2d");
}

hc_status sim_copy_d2h(hc_hal_dev *dev, hc_hal_stream *s, void *dst, hc_hal_dptr src,
		       uint64_t size, bool pinned)
{
	struct sim_op op = { .kind = SIM_OP_D2H, .dst_h = dst, .src_d = src, .size = size,
			     .pinned = pinned };

	if (!dst)
		return hc_hal_error(HC_ERR_INVALID, 0, NULL, "sim copy_d2h: dst is NULL");
	return sim_queue_copy(dev, s, &op, "copy_d2h");
}

hc_status sim_copy_d2d(hc_hal_dev *dev, hc_hal_stream *s, hc_hal_dptr dst, hc_hal_dptr src,
		       uint64_t size)
{
	struct sim_op op = { .kind = SIM_OP_D2D, .dst_d = dst, .src_d = src, .size = size };

	return sim_queue_copy(dev, s, &op, "copy_d2d");
}
