/*
 * check_graph.c - the capture lifecycle through the public API on the
 * simulator: every transition legal and illegal, priming, the rejection of
 * a capture that grows the pool, replay and destroy, bad handles; writes
 * and launches recorded with their info words and replayed in data mode,
 * the metadata cache's pins, captures rejected for needing new pages.
 */
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"
#include "tests/fixtures/sim_device.h"
#include "tests/runner.h"

#define MIB HC_MIB

static void setup(void)
{
	sim_device_open(1024 * MIB, true);
}

enum state { NONE, PREPARE, CAPTURE };

/* Drives @s into @st from NoCapture. */
static void enter(enum state st)
{
	if (st >= PREPARE)
		ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	if (st >= CAPTURE)
		ck_assert_int_eq(hc_graph_begin(s), HC_OK);
}

/* Every call from every state: the expected status, and that a rejected
 * call leaves the state as it was (the legal path still works after it). */
START_TEST(transition_table)
{
	static const struct {
		enum state from;
		int call; /* 0 prepare, 1 begin, 2 end */
		hc_status want;
		const char *msg;
	} t[] = {
		{ NONE, 0, HC_OK, NULL },
		{ NONE, 1, HC_ERR_STATE, "graph_prepare" },
		{ NONE, 2, HC_ERR_STATE, "no graph capture is recording" },
		{ PREPARE, 0, HC_ERR_STATE, "already prepared" },
		{ PREPARE, 1, HC_OK, NULL },
		{ PREPARE, 2, HC_ERR_STATE, "no graph capture is recording" },
		{ CAPTURE, 0, HC_ERR_STATE, "already recording" },
		{ CAPTURE, 1, HC_ERR_STATE, "already recording" },
		{ CAPTURE, 2, HC_OK, NULL },
	};
	hc_graph g = { 0 };
	hc_status rc;

	enter(t[_i].from);
	switch (t[_i].call) {
	case 0: rc = hc_graph_prepare(s); break;
	case 1: rc = hc_graph_begin(s); break;
	default: rc = hc_graph_end(s, &g); break;
	}
	ck_assert_int_eq(rc, t[_i].want);
	if (t[_i].msg)
		ck_assert_msg(strstr(last_message(), t[_i].msg) != NULL, "message '%s' lacks '%s'",
			      last_message(), t[_i].msg);
	/* The state after: continue the legal path to NoCapture. */
	enum state now = rc == HC_OK ? (enum state)((t[_i].from + 1) % 3) : t[_i].from;
	if (now == PREPARE)
		ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	if (now != NONE) {
		ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
		ck_assert(g.id != 0);
		ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	}
	/* And a full cycle works again from NoCapture. */
	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(priming_keeps_the_working_set_and_recording_reuses_it)
{
	hc_buffer a, b;
	hc_device_stats before = { .struct_size = sizeof(before) };
	hc_device_stats after = { .struct_size = sizeof(after) };
	hc_graph g;

	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 3 * MIB, &a), HC_OK); /* warm-up */
	ck_assert_int_eq(hc_free(a), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(hc_device_stats_get(dev, &before), HC_OK);
	ck_assert_int_eq(hc_alloc(s, 3 * MIB, &b), HC_OK); /* served by the primed slice */
	ck_assert_int_eq(hc_device_stats_get(dev, &after), HC_OK);
	ck_assert_uint_eq(after.device_allocs, before.device_allocs);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	/* The graph retains the slice: a cleanup frees nothing it holds. */
	hc_memory_usage u1, u2;
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u1), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u2), HC_OK);
	ck_assert_uint_eq(u2.bytes_reserved, u1.bytes_reserved);
	ck_assert_uint_ge(u2.bytes_reserved, 3 * MIB);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	/* Released: now cleanup can free the persistent slice. */
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_memory_usage_get(s, HC_MEMORY_DEVICE, &u2), HC_OK);
	ck_assert_uint_lt(u2.bytes_reserved, u1.bytes_reserved);
}
END_TEST

START_TEST(a_capture_that_grows_the_pool_is_rejected)
{
	hc_buffer b;
	hc_graph g = { 0 };

	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	/* An odd size nothing primed: the pool would need a device allocation. */
	ck_assert(hc_alloc(s, 3145733, &b) != HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_ERR_STATE);
	ck_assert(g.id == 0);
	/* The stream is usable afterwards, in normal mode. */
	ck_assert_int_eq(hc_alloc(s, 3145733, &b), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(pre_existing_buffers_are_left_alone)
{
	hc_buffer keep, b;
	hc_buffer_info before, after;
	hc_graph g;

	ck_assert_int_eq(hc_alloc(s, 1 * MIB, &keep), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(keep, &before), HC_OK);
	enter(PREPARE);
	ck_assert_int_eq(hc_alloc(s, 2 * MIB, &b), HC_OK);
	ck_assert_int_eq(hc_free(b), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_buffer_info_get(keep, &after), HC_OK);
	ck_assert_uint_eq(after.device_address, before.device_address);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_free(keep), HC_OK);
}
END_TEST

START_TEST(bad_graph_handles)
{
	hc_graph g, none = { 0 };
	hc_stream t;

	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, NULL), HC_ERR_INVALID);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_graph_replay(t, g), HC_ERR_INVALID); /* not its stream */
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_destroy(none), HC_ERR_STALE);
	hc_graph wrong_kind = { s.id };
	ck_assert_int_eq(hc_graph_replay(s, wrong_kind), HC_ERR_STALE);
	/* Capture on a closed stream. */
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(t), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_begin(t), HC_ERR_STALE);
	ck_assert_int_eq(hc_graph_end(t, &g), HC_ERR_STALE);
}
END_TEST

START_TEST(a_capturing_stream_cannot_close_or_change_layout)
{
	hc_graph g;
	hc_pool_layout sub = { HC_LAYOUT_SUBSLICES, NULL, 0 };

	enter(CAPTURE);
	ck_assert_int_eq(hc_stream_close(s), HC_ERR_STATE);
	ck_assert_int_eq(hc_install_memory_pools(s, &sub), HC_ERR_STATE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(graphs_end_with_their_stream)
{
	hc_stream t;
	hc_graph g;

	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(t), HC_OK);
	ck_assert_int_eq(hc_graph_begin(t), HC_OK);
	ck_assert_int_eq(hc_graph_end(t, &g), HC_OK);
	ck_assert_int_eq(hc_stream_close(t), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_ERR_STALE);
}
END_TEST


/* --- capture with writes, launches and the metadata cache ---------------- */

#define NB 4096

static hc_kernel kern(const char *name)
{
	hc_kernel k;

	ck_assert_int_eq(hc_kernel_load(dev, NULL, 0, name, &k), HC_OK);
	return k;
}

static hc_device_stats stats(void)
{
	hc_device_stats st = { .struct_size = sizeof(st) };

	ck_assert_int_eq(hc_device_stats_get(dev, &st), HC_OK);
	return st;
}

static void fill_bytes(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed * 7 + 1);
}

static hc_status launch_copy(hc_kernel k, hc_buffer src, hc_buffer dst, uint64_t n)
{
	hc_binding bd[2] = { { src, 0, n, HC_ACCESS_READ }, { dst, 0, n, HC_ACCESS_WRITE } };
	hc_launch_desc l = { .kernel = k, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .bindings = bd, .n_bindings = 2 };

	return hc_launch(s, &l);
}

/* fill(@dst, value) with the value in the info words (cached). */
static hc_status launch_fill(hc_kernel k, hc_buffer dst, uint64_t n, uint32_t value)
{
	uint64_t info = value | (4ull << 32);
	hc_binding bd[1] = { { dst, 0, n, HC_ACCESS_WRITE } };
	hc_launch_desc l = { .kernel = k, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
			     .bindings = bd, .n_bindings = 1, .info = &info, .info_words = 1 };

	return hc_launch(s, &l);
}

static void expect_fill(hc_buffer b, uint64_t n, uint32_t value)
{
	uint32_t out[NB / 4];

	ck_assert_int_eq(hc_read(s, b, 0, out, n, NULL), HC_OK);
	for (uint64_t i = 0; i < n / 4; i++)
		ck_assert_uint_eq(out[i], value);
}

static void expect_bytes(hc_buffer b, const unsigned char *want, uint64_t n)
{
	unsigned char out[NB];

	ck_assert_int_eq(hc_read(s, b, 0, out, n, NULL), HC_OK);
	ck_assert_mem_eq(out, want, n);
}

START_TEST(captured_writes_and_launches_replay_with_real_effects)
{
	hc_kernel kc = kern("copy"), kf = kern("fill");
	unsigned char p0[NB], p1[NB], junk[NB];
	hc_buffer in, out, f, other;
	hc_device_stats before = { .struct_size = sizeof(before) };
	hc_device_stats after = { .struct_size = sizeof(after) };
	hc_graph g;

	fill_bytes(p0, NB, 0);
	fill_bytes(p1, NB, 1);
	ck_assert_int_eq(hc_alloc(s, NB, &in), HC_OK);
	ck_assert_int_eq(hc_alloc(s, NB, &out), HC_OK);
	ck_assert_int_eq(hc_alloc(s, NB, &f), HC_OK);
	ck_assert_int_eq(hc_alloc(s, NB, &other), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	/* warm-up: the same shapes, other data */
	ck_assert_int_eq(hc_write(s, in, 0, p0, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(launch_copy(kc, in, out, NB), HC_OK);
	ck_assert_int_eq(launch_fill(kf, f, NB, 0x01020304u), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	expect_bytes(out, p0, NB);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	before = stats();
	ck_assert_int_eq(hc_write(s, in, 0, p1, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(launch_copy(kc, in, out, NB), HC_OK);
	ck_assert_int_eq(launch_fill(kf, f, NB, 0x01020304u), HC_OK);
	after = stats();
	ck_assert_uint_eq(after.device_allocs, before.device_allocs); /* nothing allocated */
	ck_assert_uint_eq(after.cache_hits, before.cache_hits + 1);     /* info from warm-up */
	ck_assert_uint_eq(after.cache_misses, before.cache_misses);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	/* recording ran nothing */
	expect_bytes(out, p0, NB);
	/* change what replay must not depend on: the warm-up's outputs, and
	 * pinned staging traffic that would reuse an early-released slice */
	memset(junk, 0x5a, sizeof(junk));
	ck_assert_int_eq(hc_write(s, out, 0, junk, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(s, f, 0, junk, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(hc_write(s, other, 0, junk, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	expect_bytes(in, p1, NB);  /* the recorded write's bytes, kept by the graph */
	expect_bytes(out, p1, NB); /* the recorded copy read them */
	expect_fill(f, NB, 0x01020304u);
	/* a second replay after the same churn does it again */
	ck_assert_int_eq(hc_write(s, out, 0, junk, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(s, in, 0, junk, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	expect_bytes(out, p1, NB);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

/* upstream hip_graph_input_rewrite: new input bytes, same graph. */
START_TEST(replay_sees_rewritten_input)
{
	hc_kernel kc = kern("copy");
	unsigned char p[NB];
	hc_buffer in, out;
	hc_graph g;

	ck_assert_int_eq(hc_alloc(s, NB, &in), HC_OK);
	ck_assert_int_eq(hc_alloc(s, NB, &out), HC_OK);
	enter(CAPTURE);
	ck_assert_int_eq(launch_copy(kc, in, out, NB), HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	for (unsigned k = 2; k < 5; k++) {
		fill_bytes(p, NB, k);
		ck_assert_int_eq(hc_write(s, in, 0, p, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
		ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
		expect_bytes(out, p, NB);
	}
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(cache_pins_live_as_long_as_the_graph)
{
	hc_kernel kf = kern("fill");
	hc_buffer f;
	hc_device_stats a = { .struct_size = sizeof(a) };
	hc_device_stats b = { .struct_size = sizeof(b) };
	hc_graph g;

	ck_assert_int_eq(hc_alloc(s, NB, &f), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	a = stats();
	ck_assert_int_eq(launch_fill(kf, f, NB, 7), HC_OK); /* warm-up: miss */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	ck_assert_int_eq(launch_fill(kf, f, NB, 7), HC_OK); /* recorded: hit */
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	b = stats();
	ck_assert_uint_eq(b.cache_misses - a.cache_misses, 1);
	ck_assert_uint_eq(b.cache_hits - a.cache_hits, 1);
	ck_assert_int_eq(launch_fill(kf, f, NB, 9), HC_OK); /* normal mode: miss, unpinned */
	ck_assert_int_eq(hc_sync(s), HC_OK);
	/* cleanup evicts what is not pinned; the graph's entry stays */
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	a = stats();
	ck_assert_int_eq(launch_fill(kf, f, NB, 7), HC_OK);
	b = stats();
	ck_assert_uint_eq(b.cache_hits - a.cache_hits, 1);
	ck_assert_int_eq(launch_fill(kf, f, NB, 9), HC_OK);
	a = stats();
	ck_assert_uint_eq(a.cache_misses - b.cache_misses, 1);
	ck_assert_int_eq(hc_graph_replay(s, g), HC_OK);
	expect_fill(f, NB, 7); /* the info buffer the graph uses is intact */
	/* destroyed: its pin goes, and cleanup may evict the entry */
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	a = stats();
	ck_assert_int_eq(launch_fill(kf, f, NB, 7), HC_OK);
	b = stats();
	ck_assert_uint_eq(b.cache_misses - a.cache_misses, 1);
	ck_assert_uint_eq(b.cache_hits, a.cache_hits);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	expect_fill(f, NB, 7);
}
END_TEST

START_TEST(a_capture_needing_a_new_device_page_is_rejected)
{
	hc_kernel kf = kern("fill");
	hc_buffer f;
	hc_device_stats a = { .struct_size = sizeof(a) };
	hc_device_stats b = { .struct_size = sizeof(b) };
	hc_graph g = { 0 };

	ck_assert_int_eq(hc_alloc(s, NB, &f), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	enter(CAPTURE); /* no warm-up: the info buffer needs a fresh page */
	a = stats();
	ck_assert(launch_fill(kf, f, NB, 11) != HC_OK);
	b = stats();
	ck_assert_uint_eq(b.device_allocs, a.device_allocs);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_ERR_STATE);
	ck_assert(g.id == 0);
	/* usable afterwards, in normal mode */
	ck_assert_int_eq(launch_fill(kf, f, NB, 11), HC_OK);
	expect_fill(f, NB, 11);
	enter(CAPTURE);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_OK);
	ck_assert_int_eq(hc_graph_destroy(g), HC_OK);
}
END_TEST

START_TEST(a_failed_end_discards_the_cache_pins)
{
	hc_kernel kf = kern("fill");
	hc_buffer f, b;
	hc_device_stats a = { .struct_size = sizeof(a) };
	hc_device_stats c = { .struct_size = sizeof(c) };
	hc_graph g = { 0 };

	ck_assert_int_eq(hc_alloc(s, NB, &f), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(launch_fill(kf, f, NB, 5), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	a = stats();
	ck_assert_int_eq(launch_fill(kf, f, NB, 5), HC_OK); /* hit: pinned for the capture */
	ck_assert(hc_alloc(s, 3145733, &b) != HC_OK);       /* spoils the capture */
	ck_assert_int_eq(hc_graph_end(s, &g), HC_ERR_STATE);
	c = stats();
	ck_assert_uint_eq(c.cache_hits - a.cache_hits, 1);
	/* nothing holds the entry now: cleanup evicts it */
	ck_assert_int_eq(hc_memory_cleanup(s), HC_OK);
	a = stats();
	ck_assert_int_eq(launch_fill(kf, f, NB, 5), HC_OK);
	c = stats();
	ck_assert_uint_eq(c.cache_misses - a.cache_misses, 1);
	expect_fill(f, NB, 5);
}
END_TEST

START_TEST(a_capture_needing_a_new_pinned_page_is_rejected)
{
	unsigned char p[NB];
	hc_buffer in;
	hc_graph g = { 0 };

	fill_bytes(p, NB, 3);
	ck_assert_int_eq(hc_alloc(s, NB, &in), HC_OK);
	enter(CAPTURE); /* no warm-up: staging needs a pinned page */
	ck_assert(hc_write(s, in, 0, p, NB, HC_ALLOC_NATIVE, NULL, NULL) != HC_OK);
	ck_assert_int_eq(hc_graph_end(s, &g), HC_ERR_STATE);
	ck_assert(g.id == 0);
	ck_assert_int_eq(hc_write(s, in, 0, p, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	expect_bytes(in, p, NB);
}
END_TEST

/* Two streams capturing at once: one stream's graph calls (whose drop-queue
 * flushes wait on fences) do not invalidate the other's capture; destroying
 * a graph, which waits for its last replay, is refused while any stream
 * records and works after. (fuzz_api found both; doc/reliability.md.) */
START_TEST(one_streams_graph_calls_leave_anothers_capture_intact)
{
	hc_kernel kf = kern("fill");
	unsigned char p0[NB], p1[NB];
	hc_buffer a, b;
	hc_graph ga, gb, gb2;
	hc_stream t;

	fill_bytes(p0, NB, 0);
	fill_bytes(p1, NB, 1);
	ck_assert_int_eq(hc_stream_open(dev, &t), HC_OK);
	ck_assert_int_eq(hc_alloc(s, NB, &a), HC_OK);
	ck_assert_int_eq(hc_alloc(t, NB, &b), HC_OK);
	/* s stages writes (drop-queue entries; its pinned pool gets a page) */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(hc_write(s, a, 0, p0, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	/* both warm up (priming grows the pools: memory calls, which would
	 * invalidate a capture recording anywhere on the device) */
	ck_assert_int_eq(hc_graph_prepare(s), HC_OK);
	ck_assert_int_eq(launch_fill(kf, a, NB, 0x01020304u), HC_OK);
	ck_assert_int_eq(hc_graph_prepare(t), HC_OK);
	ck_assert_int_eq(hc_write(t, b, 0, p0, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	/* t records; then s begins, flushing its drop queue twice */
	ck_assert_int_eq(hc_graph_begin(t), HC_OK);
	ck_assert_int_eq(hc_write(t, b, 0, p1, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_graph_begin(s), HC_OK);
	/* (a launch: a staged write would need its own pinned slice now, the
	 * warm-up's still queued; a new pinned page is a memory call) */
	ck_assert_msg(launch_fill(kf, a, NB, 0x01020304u) == HC_OK, "%s", last_message());
	ck_assert_msg(hc_graph_end(s, &ga) == HC_OK, "%s", last_message());
	/* a graph cannot be destroyed while t records; nothing changes */
	ck_assert_int_eq(hc_graph_destroy(ga), HC_ERR_STATE);
	ck_assert_msg(strstr(last_message(), "another stream"), "%s", last_message());
	ck_assert_msg(hc_graph_end(t, &gb) == HC_OK, "t's capture was invalidated: %s", last_message());
	/* both graphs replay with their recorded bytes */
	ck_assert_int_eq(hc_write(s, a, 0, p0, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_write(t, b, 0, p0, NB, HC_ALLOC_NATIVE, NULL, NULL), HC_OK);
	ck_assert_int_eq(hc_graph_replay(s, ga), HC_OK);
	ck_assert_int_eq(hc_graph_replay(t, gb), HC_OK);
	expect_fill(a, NB, 0x01020304u);
	expect_bytes(b, p1, NB);
	ck_assert_int_eq(hc_graph_destroy(ga), HC_OK);
	/* a host sync on another stream still invalidates (global mode) */
	ck_assert_int_eq(hc_graph_prepare(t), HC_OK);
	ck_assert_int_eq(hc_graph_begin(t), HC_OK);
	ck_assert_int_eq(hc_sync(s), HC_ERR_STATE);
	ck_assert_int_eq(hc_graph_end(t, &gb2), HC_ERR_STATE);
	ck_assert_int_eq(hc_graph_destroy(gb), HC_OK);
}
END_TEST

static Suite *graph_suite(void)
{
	Suite *su = suite_create("graph");
	TCase *tc = tcase_create("lifecycle");

	tcase_add_checked_fixture(tc, setup, sim_device_close);
	tcase_add_loop_test(tc, transition_table, 0, 9);
	tcase_add_test(tc, priming_keeps_the_working_set_and_recording_reuses_it);
	tcase_add_test(tc, a_capture_that_grows_the_pool_is_rejected);
	tcase_add_test(tc, pre_existing_buffers_are_left_alone);
	tcase_add_test(tc, bad_graph_handles);
	tcase_add_test(tc, a_capturing_stream_cannot_close_or_change_layout);
	tcase_add_test(tc, graphs_end_with_their_stream);
	tcase_add_test(tc, captured_writes_and_launches_replay_with_real_effects);
	tcase_add_test(tc, replay_sees_rewritten_input);
	tcase_add_test(tc, cache_pins_live_as_long_as_the_graph);
	tcase_add_test(tc, a_capture_needing_a_new_device_page_is_rejected);
	tcase_add_test(tc, a_capture_needing_a_new_pinned_page_is_rejected);
	tcase_add_test(tc, a_failed_end_discards_the_cache_pins);
	tcase_add_test(tc, one_streams_graph_calls_leave_anothers_capture_intact);
	suite_add_tcase(su, tc);
	return su;
}

HC_TEST_PROGRAM(graph_suite);
