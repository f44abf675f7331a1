/*
 * replay.c - `hipsim replay TRACE`: a recorded trace through libhipcore.
 *
 * A reader (replay_event.h) yields events one at a time; each becomes the
 * matching public call through the driver's scorekeeping (driver.h), so the
 * report is the one `hipsim run` prints.  Trace ids are the trace's: buffer
 * and graph ids map to library handles through open-addressing maps of the
 * live ones; trace streams are dense indexes, opened on first use.
 *
 * Host memory for writes and reads is one static scratch buffer of 64 MiB;
 * a larger transfer is clamped to it (as `hipsim run` does), so its bytes
 * and time are those of 64 MiB.  Kernel info words are zeros (at most 256).
 * Launches run a built-in kernel with the recorded duration as the hint.
 *
 * An allocation that failed when recorded ("allocate failure") is tried
 * again; whether it fails here too is counted apart and is not a replay
 * failure.  A free of a buffer the replay does not hold and an allocation
 * of one it holds (the free of the earlier one is taken as unlogged) are
 * what a log that begins mid-run has: counted and reported with the first
 * one's position, failing events only with --strict.  Other events the
 * trace gets wrong (a binding, write or read of a buffer the replay does
 * not hold, more than HS_MAX_STREAMS streams) count as failing events.
 * The first failing event is named with its trace position.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hipcore/private.h"
#include "tools/hipsim/driver.h"
#include "tools/hipsim/hipsim.h"
#include "tools/hipsim/layout_file.h"
#include "tools/hipsim/variant.h"
#include "tools/hipsim/idmap.h"
#include "tools/hipsim/read_options.h"
#include "tools/hipsim/options.h"
#include "tools/hipsim/output.h"
#include "tools/hipsim/replay.h"
#include "tools/hipsim/replay_event.h"

_Static_assert(HS_REV_MAX_STREAMS <= HS_MAX_STREAMS, "the readers pass more streams than the driver holds");

#define REPLAY_SCRATCH (64u << 20)
#define REPLAY_MAX_INFO 256
#define REPLAY_PROGRESS_EVERY (1u << 20)

static uint8_t scratch[REPLAY_SCRATCH];
static uint64_t info_words[REPLAY_MAX_INFO];


static void replay_usage(FILE *out)
{
	fprintf(out,
		"usage: hipsim replay TRACE [OPTIONS]\n"
		"Replays a trace (LTTng CTF directory or RMM memory-event CSV) through libhipcore.\n\n"
		"  --format F        auto (default), rmm, ctf\n"
		"  --backend NAME    sim (default), hip, auto\n"
		HS_VARIANT_USAGE
		"  --profile FILE    simulator device profile, or an installed one's name\n"
		"  --capacity BYTES  simulated device memory\n"
		"  --seed N          simulator seed\n"
		"  --json            print the report as JSON\n"
		"  --svg FILE        plot memory in use and reserved over virtual time\n"
		"  --strict          frees of buffers not held, allocations of ones held fail\n"
		HS_READ_USAGE
		"TRACE may be gzip-compressed; - reads standard input.\n"
		"Exit status: 0 ok, 1 replayed but some event failed, 2 bad input or usage.\n");
}

/* After a driver event: if it was the first failure, say where in the trace. */
static void note_failure_position(struct hs_replay *r, const struct hs_rev *ev);

static inline void note_position(struct hs_replay *r, const struct hs_rev *ev)
{
	if (r->d.failures != r->failures_seen)
		note_failure_position(r, ev);
}

static void note_failure_position(struct hs_replay *r, const struct hs_rev *ev)
{
	char pos[160], msg[sizeof(r->d.first_message)];

	if (r->failures_seen == 0) {
		if (ev->line)
			snprintf(pos, sizeof(pos), "%s:%" PRIu64, r->trace_path, ev->line);
		else
			snprintf(pos, sizeof(pos), "%s: event %" PRIu64, r->trace_path, ev->index);
		snprintf(msg, sizeof(msg), "trace event %" PRIu64 " (%.150s, %s): %.300s", ev->index, pos,
			 hs_rev_kind_name(ev->kind), r->d.first_message);
		memcpy(r->d.first_message, msg, sizeof(msg));
	}
	r->failures_seen = r->d.failures;
}

/* A failure that the trace, not the library, caused. */
static void trace_fail(struct hs_replay *r, const struct hs_rev *ev, const char *fmt, uint64_t v)
{
	r->d.events++;
	r->d.failures++;
	if (r->d.first_failing_event < 0) {
		r->d.first_failing_event = (int64_t)(r->d.events - 1);
		r->d.first_status = HC_ERR_INVALID;
		snprintf(r->d.first_message, sizeof(r->d.first_message), fmt, v);
	}
	note_position(r, ev);
}

/* Counts a mid-run event (@m) at @ev; a failing event too when strict. */
static void midrun(struct hs_replay *r, struct hs_midrun *m, const struct hs_rev *ev, const char *what)
{
	if (!m->count++) {
		m->first_event = ev->index;
		m->first_line = ev->line;
	}
	if (r->strict)
		trace_fail(r, ev, what, ev->buffer);
}

/* The live entry of trace buffer @id, or NULL when it is not live. */
static inline struct hs_live_buffer *live_find(struct hs_replay *r, uint64_t id)
{
	uint64_t i;

	if (id < HS_REPLAY_DIRECT_IDS)
		return id < r->capdirect && r->direct[id].handle ? &r->direct[id] : NULL;
	return hs_idmap_get(&r->buffers, id, &i) ? &r->live[i] : NULL;
}

static int get_buffer(struct hs_replay *r, const struct hs_rev *ev, uint64_t id, hc_buffer *b)
{
	const struct hs_live_buffer *e = live_find(r, id);

	if (!e) {
		trace_fail(r, ev, "buffer %" PRIu64 " is not live in the replay", id);
		return -1;
	}
	b->id = e->handle;
	return 0;
}

/*
 * A call on one stream that names another stream's buffer locks that
 * origin too, which then drains its inbox: buffers other streams held and
 * their owner freed go back to its pools, so the origin's memory may change
 * in an event that is not its own.  Sample it as well (hs_sample reads one
 * stream; the totals would otherwise keep its old figures).
 */
static void sample_origin(struct hs_replay *r, const struct hs_rev *ev, uint64_t id)
{
	const struct hs_live_buffer *e = live_find(r, id);

	if (e && e->stream != ev->stream)
		hs_sample(&r->d, e->stream);
}

/* Grows direct[] to hold index @id.  Return: 0, -1 (no memory). */
static int direct_grow(struct hs_replay *r, uint64_t id)
{
	uint32_t cap = r->capdirect ? r->capdirect : 1024;
	struct hs_live_buffer *n;

	while (cap <= id)
		cap *= 2;
	n = realloc(r->direct, (size_t)cap * sizeof(*n));
	if (!n)
		return -1;
	memset(n + r->capdirect, 0, (size_t)(cap - r->capdirect) * sizeof(*n));
	r->direct = n;
	r->capdirect = cap;
	return 0;
}

/* A live[] entry for a mapped id.  Return: its index, UINT32_MAX (no memory). */
static uint32_t live_slot(struct hs_replay *r)
{
	uint32_t i;

	if (r->free_head != UINT32_MAX) {
		i = r->free_head;
		r->free_head = r->live[i].next;
		return i;
	}
	if (r->nlive == r->caplive) {
		uint32_t cap = r->caplive ? r->caplive * 2 : 1024;
		struct hs_live_buffer *n = cap > r->caplive ? realloc(r->live, cap * sizeof(*n)) : NULL;

		if (!n)
			return UINT32_MAX;
		r->live = n;
		r->caplive = cap;
	}
	return r->nlive++;
}

/* Remembers live buffer @b of stream @si under trace id @id.  Return: 0, -1 (no memory). */
static int live_put(struct hs_replay *r, uint64_t id, hc_buffer b, uint32_t si)
{
	uint32_t i;

	if (id < HS_REPLAY_DIRECT_IDS) {
		if (id >= r->capdirect && direct_grow(r, id) != 0)
			return -1;
		r->direct[id] = (struct hs_live_buffer){ b.id, si, 0 };
		return 0;
	}
	i = live_slot(r);
	if (i == UINT32_MAX)
		return -1;
	if (hs_idmap_put(&r->buffers, id, i) != 0) {
		r->live[i].next = r->free_head;
		r->free_head = i;
		return -1;
	}
	r->live[i] = (struct hs_live_buffer){ b.id, si, UINT32_MAX };
	return 0;
}

/* Forgets trace buffer @id.  Return: true with its handle and stream, false when not live. */
static bool live_take(struct hs_replay *r, uint64_t id, hc_buffer *b, uint32_t *si)
{
	uint64_t i;

	if (id < HS_REPLAY_DIRECT_IDS) {
		struct hs_live_buffer *e;

		if (id >= r->capdirect || !r->direct[id].handle)
			return false;
		e = &r->direct[id];
		b->id = e->handle;
		*si = e->stream;
		e->handle = 0;
		return true;
	}
	if (!hs_idmap_take(&r->buffers, id, &i))
		return false;
	b->id = r->live[i].handle;
	*si = r->live[i].stream;
	r->live[i].next = r->free_head;
	r->free_head = (uint32_t)i;
	return true;
}

/*
 * Info words that meet the metadata cache as the recorded ones did.  The
 * trace gives the first word (key) and whether the cache hit; contents are
 * {key, tag, 0...}: a miss gets a fresh tag, a hit reuses the tag of the
 * last contents with that key and length, so the replay's cache holds the
 * same entries (by size and order) as the recorded one.  Without a cache
 * event the words are zeros.
 */
static void make_info(struct hs_replay *r, const struct hs_rev *ev, size_t nw)
{
	uint64_t slot = ev->info_key * 0x9e3779b97f4a7c15ull ^ nw, tag = 0;

	memset(info_words, 0, nw * sizeof(info_words[0]));
	if (nw == 0 || ev->info_cache == HS_REV_INFO_UNKNOWN)
		return;
	info_words[0] = ev->info_key;
	if (nw == 1)
		return;
	if (ev->info_cache != HS_REV_INFO_HIT || !hs_idmap_get(&r->info_tags, slot, &tag)) {
		tag = ++r->info_next_tag;
		hs_idmap_put(&r->info_tags, slot, tag);
	}
	info_words[1] = tag;
}

static void do_launch(struct hs_replay *r, const struct hs_rev *ev, hc_stream s)
{
	hc_binding bind[HS_REV_MAX_BINDINGS];
	hc_launch_desc l = { .grid = { 64, 1, 1 }, .block = { 256, 1, 1 } };

	if (!r->kernel.id &&
	    hs_event(&r->d, hc_kernel_load(r->d.dev, NULL, 0, "add", &r->kernel), "kernel_load") != HC_OK) {
		note_position(r, ev);
		return;
	}
	for (uint32_t i = 0; i < ev->n_bindings; i++) {
		if (get_buffer(r, ev, ev->bindings[i].buffer, &bind[i].buffer) != 0)
			return;
		bind[i].offset = ev->bindings[i].offset;
		bind[i].size = ev->bindings[i].size;
		bind[i].access = (hc_access)ev->bindings[i].access;
	}
	l.kernel = r->kernel;
	l.info_words = ev->info_words < REPLAY_MAX_INFO ? ev->info_words : REPLAY_MAX_INFO;
	make_info(r, ev, l.info_words);
	l.bindings = bind;
	l.n_bindings = ev->n_bindings;
	l.info = info_words;
	l.duration_hint_ns = ev->duration_ns;
	hs_event(&r->d, hc_launch(s, &l), "launch");
	for (uint32_t i = 0; i < ev->n_bindings; i++)
		sample_origin(r, ev, ev->bindings[i].buffer);
}

/* Opens @d with @opt, then sets its device policy (opt->policy, the
 * --flush-* and --stage-max variant).  0, or -1 with a message on stderr. */
static int device_open(struct hs_driver *d, const struct hs_options *opt)
{
	if (hs_driver_open(d, opt) != 0)
		return -1;
	if (hs_variant_set_policy(d, "replay") != 0) {
		hs_driver_close(d);
		return -1;
	}
	return 0;
}

/*
 * The recorded device's geometry comes first in a CTF trace: unless the
 * user named a device (a profile or a capacity) or the replay runs on
 * something other than the simulator, the simulated device is reopened
 * with the recorded total memory and alignment, before any event ran, so
 * that pages and placement come out as they did when recorded.
 */
static void replay_device(struct hs_replay *r, const struct hs_rev *ev)
{
	struct hs_options opt = r->d.opt;
	struct hs_driver nd;

	if (r->d.events || r->d.nstreams || opt.profile || opt.capacity ||
	    (opt.backend && strcmp(opt.backend, "sim") != 0))
		return;
	opt.capacity = ev->size;
	opt.min_alignment = ev->offset;
	/* Swapped in only once open: a geometry that does not take (its
	 * message is on stderr) leaves the device asked for. */
	if (device_open(&nd, &opt) != 0)
		return;
	hs_driver_close(&r->d);
	r->d = nd;
	r->recorded_total_memory = ev->size;
	r->recorded_alignment = ev->offset;
}

void hs_replay_event(struct hs_replay *r, const struct hs_rev *ev)
{
	struct hs_driver *d = &r->d;
	hc_stream s = { 0 };
	hc_buffer b = { 0 };
	hc_graph g = { 0 };
	hc_memory_usage u;
	uint64_t size, idle = 0;
	bool idle_seen = d->idle_seen;

	/* Every event may call the library before it samples (hs_sample_free). */
	d->idle_seen = false;
	/* Events that need their stream open. */
	switch (ev->kind) {
	case HS_REV_FREE:
	case HS_REV_GRAPH_DESTROY:
		break;
	case HS_REV_DEVICE:
		replay_device(r, ev);
		return;
	default:
		if (ev->stream >= HS_MAX_STREAMS) {
			trace_fail(r, ev, "the trace has more than %" PRIu64 " streams", HS_MAX_STREAMS);
			return;
		}
		if (ev->stream < d->nstreams) /* open already: hs_stream's answer */
			s = d->streams[ev->stream];
		else if (hs_stream(d, ev->stream, &s) != HC_OK) {
			note_position(r, ev);
			return;
		}
	}

	switch (ev->kind) {
	case HS_REV_STREAM_CREATE:
		break;
	case HS_REV_ALLOC:
		if (live_find(r, ev->buffer)) { /* its free went unlogged */
			uint32_t si;

			midrun(r, &r->live_allocs, ev, "allocation of buffer %" PRIu64 ", which the trace held (--strict)");
			if (r->strict)
				return;
			live_take(r, ev->buffer, &b, &si);
			hc_free(b);
			hs_sample_free(d, si, false);
		}
		if (r->failed_allocs.count)
			hs_idmap_take(&r->failed_allocs, ev->buffer, NULL);
		/* The sample comes with the allocation (one stream lock), as
		 * hs_sample() would read it; the rare other outcomes sample
		 * after what they do. */
		if (hs_event(d, hc_alloc_sampled(s, ev->size, &b, &u, &idle), "alloc") != HC_OK) {
			hs_idmap_put(&r->failed_allocs, ev->buffer, 1);
		} else if (live_put(r, ev->buffer, b, ev->stream) != 0) {
			hc_free(b);
			trace_fail(r, ev, "out of memory for buffer %" PRIu64, ev->buffer);
		} else {
			hs_sample_use(d, ev->stream, &u, &idle);
			break;
		}
		hs_sample(d, ev->stream);
		break;
	case HS_REV_FREE: {
		uint32_t si;

		/* The memory goes back to the buffer's origin stream, which the
		 * trace may not name (CTF frees do not): sample that one. */
		if (!live_take(r, ev->buffer, &b, &si)) {
			if (r->failed_allocs.count && hs_idmap_take(&r->failed_allocs, ev->buffer, NULL))
				trace_fail(r, ev, "free of buffer %" PRIu64 ", whose allocation failed in the replay",
					   ev->buffer);
			else
				midrun(r, &r->unknown_frees, ev,
				       "free of buffer %" PRIu64 ", which the trace did not hold (--strict)");
			return;
		}
		/* hs_sample_free(d, si, idle_seen)'s figures, read by the free
		 * under its lock: the buffer's stream is @si. */
		if (hs_event(d, hc_free_sampled(b, &u, idle_seen ? NULL : &idle), "free") == HC_OK &&
		    si < d->nstreams)
			hs_sample_use(d, si, &u, idle_seen ? NULL : &idle);
		else
			hs_sample_free(d, si, idle_seen);
		break;
	}
	case HS_REV_ALLOC_FAILURE:
		d->events++;
		if (hc_alloc(s, ev->size, &b) == HC_OK) {
			r->alloc_failures_not_reproduced++;
			hc_free(b);
		} else {
			r->alloc_failures_reproduced++;
		}
		break;
	case HS_REV_WRITE:
		if (get_buffer(r, ev, ev->buffer, &b) != 0)
			return;
		size = ev->size < REPLAY_SCRATCH ? ev->size : REPLAY_SCRATCH;
		hs_event(d, hc_write(s, b, ev->offset, scratch, size, (hc_alloc_property)ev->property, NULL, NULL),
			 "write");
		hs_sample(d, ev->stream);
		sample_origin(r, ev, ev->buffer);
		break;
	case HS_REV_READ:
		if (get_buffer(r, ev, ev->buffer, &b) != 0)
			return;
		size = ev->size < REPLAY_SCRATCH ? ev->size : REPLAY_SCRATCH;
		hs_event(d, hc_read(s, b, ev->offset, scratch, size, NULL), "read");
		hs_sample(d, ev->stream);
		sample_origin(r, ev, ev->buffer);
		break;
	case HS_REV_LAUNCH:
		do_launch(r, ev, s);
		hs_sample(d, ev->stream);
		break;
	case HS_REV_SYNC:
		hs_event(d, hc_sync(s), "sync");
		break;
	case HS_REV_HOLD:
		if (get_buffer(r, ev, ev->buffer, &b) != 0)
			return;
		hs_event(d, hc_buffer_hold(b, s), "hold");
		hs_sample(d, ev->stream); /* its flush may release its own deferred memory */
		sample_origin(r, ev, ev->buffer);
		break;
	case HS_REV_GRAPH_PREPARE:
		hs_event(d, hc_graph_prepare(s), "graph_prepare");
		break;
	case HS_REV_GRAPH_BEGIN:
		hs_event(d, hc_graph_begin(s), "graph_begin");
		break;
	case HS_REV_GRAPH_END:
		if (hs_event(d, hc_graph_end(s, &g), "graph_end") == HC_OK &&
		    hs_idmap_put(&r->graphs, ev->graph, g.id) != 0) {
			hc_graph_destroy(g);
			trace_fail(r, ev, "out of memory for graph %" PRIu64, ev->graph);
		}
		break;
	case HS_REV_GRAPH_REPLAY:
		if (!hs_idmap_get(&r->graphs, ev->graph, &g.id)) {
			trace_fail(r, ev, "replay of graph %" PRIu64 ", which does not exist", ev->graph);
			return;
		}
		hs_event(d, hc_graph_replay(s, g), "graph_replay");
		hs_sample(d, ev->stream);
		break;
	case HS_REV_GRAPH_DESTROY:
		if (!hs_idmap_take(&r->graphs, ev->graph, &g.id)) {
			trace_fail(r, ev, "destroy of graph %" PRIu64 ", which does not exist", ev->graph);
			return;
		}
		hs_event(d, hc_graph_destroy(g), "graph_destroy");
		break;
	default:
		trace_fail(r, ev, "unknown event kind %" PRIu64, (uint64_t)ev->kind);
		return;
	}
	note_position(r, ev);
}

int hs_replay_open(struct hs_replay *r, const struct hs_options *opt, const char *trace_path)
{
	memset(r, 0, sizeof(*r));
	r->trace_path = trace_path;
	hs_idmap_init(&r->buffers);
	r->free_head = UINT32_MAX;
	hs_idmap_init(&r->graphs);
	hs_idmap_init(&r->info_tags);
	hs_idmap_init(&r->failed_allocs);
	return device_open(&r->d, opt);
}

void hs_replay_close(struct hs_replay *r)
{
	/* Buffers and graphs still live are closed with the device. */
	hs_driver_close(&r->d);
	hs_idmap_free(&r->buffers);
	free(r->live);
	r->live = NULL;
	free(r->direct);
	r->direct = NULL;
	hs_idmap_free(&r->graphs);
	hs_idmap_free(&r->info_tags);
	hs_idmap_free(&r->failed_allocs);
}

int hipsim_replay_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'f' },    { "backend", required_argument, 0, 'b' },
		HS_VARIANT_LONGOPTS,
		{ "profile", required_argument, 0, 'p' },   { "capacity", required_argument, 0, 'c' },
		{ "seed", required_argument, 0, 'S' },	    { "json", no_argument, 0, 'j' },
		{ "svg", required_argument, 0, 'g' },	    { "help", no_argument, 0, 'h' },
		{ "strict", no_argument, 0, 'X' },	    HS_READ_LONGOPTS,
		{ 0, 0, 0, 0 },
	};
	struct hs_options opt = { .backend = "sim", .data_mode = false };
	struct hs_read_options ro;
	struct hs_variant v = { 0 };
	bool progress, strict = false;
	const char *format = "auto", *path;
	struct hs_replay *r;
	struct hs_trace *t = NULL;
	struct hs_report rep;
	struct hs_output svg = { 0 };
	struct hs_rev *ev;
	char err[700], profile_path[4096];
	int c, rc, status;

	if (hs_read_options_init(&ro, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipsim replay: %s\n", err);
		return HIPSIM_EXIT_USAGE;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'X': strict = true; break;
		case 'b': opt.backend = optarg; break;
		case 'p': opt.profile = hs_profile_find(optarg, profile_path, sizeof(profile_path)); break;
		case 'c':
			if (hs_opt_capacity("replay", optarg, &opt.capacity))
				return HIPSIM_EXIT_USAGE;
			break;
		case 'S':
			if (hs_opt_number("replay", "--seed", optarg, 0, UINT64_MAX, &opt.seed))
				return HIPSIM_EXIT_USAGE;
			break;
		case 'j': opt.json = true; break;
		case 'g': opt.svg = optarg; break;
		case 'h': replay_usage(stdout); return HIPSIM_EXIT_OK;
		default:
			if ((rc = hs_variant_option(&v, "replay", c, optarg)) < 0)
				return HIPSIM_EXIT_USAGE;
			if (rc > 0 || (rc = hs_read_option(&ro, c, optarg, err, sizeof(err))) > 0)
				break;
			if (rc < 0)
				fprintf(stderr, "hipsim replay: %s\n", err);
			else
				replay_usage(stderr);
			return HIPSIM_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "hipsim replay: %s\n", optind == argc ? "a TRACE is needed" : "one TRACE only");
		replay_usage(stderr);
		return HIPSIM_EXIT_USAGE;
	}
	path = argv[optind];
	opt.trace = path;
	hs_variant_apply(&v, &opt);
	/* the plot's file before the replay: a bad path fails now, not after it */
	if (opt.svg && hs_output_open(&svg, "replay", "--svg", opt.svg, false, false) != 0)
		return HIPSIM_EXIT_USAGE;

	status = HIPSIM_EXIT_USAGE;
	r = malloc(sizeof(*r));
	ev = malloc(sizeof(*ev));
	if (!r || !ev) {
		fprintf(stderr, "hipsim replay: out of memory\n");
		goto out_free;
	}
	ro.format = format;
	if (hs_trace_open_with(path, &ro, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "hipsim replay: %s\n", err);
		goto out_free;
	}
	if (hs_replay_open(r, &opt, path) != 0)
		goto out_trace;
	r->strict = strict;

	progress = isatty(STDERR_FILENO);
	while ((rc = hs_trace_next(t, ev)) == 1) {
		hs_replay_event(r, ev);
		if (progress && (t->events % REPLAY_PROGRESS_EVERY) == 0)
			fprintf(stderr, "\rhipsim replay: %" PRIu64 " events", t->events);
	}
	if (progress && t->events >= REPLAY_PROGRESS_EVERY)
		fputc('\n', stderr);

	hs_driver_report(&r->d, path, &rep);
	rep.unknown_frees = r->unknown_frees;
	rep.live_allocs = r->live_allocs;
	rep.partial = rc < 0 || t->partial;
	if (rep.partial)
		snprintf(rep.partial_reason, sizeof(rep.partial_reason), "%s", rc < 0 ? hs_trace_error(t) : t->warning);
	hs_driver_finish(&r->d, &rep);
	status = rep.failures ? HIPSIM_EXIT_FAILED : HIPSIM_EXIT_OK;
	if (rc < 0) {
		fprintf(stderr, "hipsim replay: %s\nhipsim replay: the trace is partial: %" PRIu64
				" events replayed before the error\n",
			hs_trace_error(t), t->events);
		status = HIPSIM_EXIT_USAGE;
	}
	if (t->warning[0])
		fprintf(stderr, "hipsim replay: warning: %s\n", t->warning);
	if (r->alloc_failures_reproduced || r->alloc_failures_not_reproduced)
		fprintf(stderr,
			"hipsim replay: allocations that failed when recorded: %" PRIu64
			" failed here too, %" PRIu64 " succeeded\n",
			r->alloc_failures_reproduced, r->alloc_failures_not_reproduced);
	if (opt.svg) {
		bool drawn = hs_report_svg(svg.f, &r->d, &rep) == 0;

		if (hs_output_close(&svg) != 0 || !drawn)
			status = HIPSIM_EXIT_USAGE;
	}
	if (opt.json)
		hs_report_json(stdout, &rep);
	else
		hs_report_text(stdout, &rep);
	hs_replay_close(r);
out_trace:
	hs_trace_close(t);
out_free:
	hs_output_abort(&svg); /* not written: a file it created goes */
	free(ev);
	free(r);
	return status;
}
