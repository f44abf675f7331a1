/*
 * fuzz_api.c - libFuzzer target: the input is a sequence of public calls on
 * the simulator backend, checked against a small model after every call.
 *
 * Device: sim, data mode, 64 MiB, seed from the first byte.  Two stream
 * slots (closed and reopened by the sequence), the built-in kernels, up to
 * 24 live buffers, 8 graphs.  Each following byte picks an operation; its
 * operands come from the next bytes (a short input just runs out: missing
 * bytes read as 0).  Operations: alloc, free, write, read, launch (fill /
 * copy / add over live buffers, bindings in or out of range), sync, the five
 * graph calls, fault injection (every kind, ONCE / PERSISTENT / OFF),
 * cleanup, persistent windows, stream close and reopen, pool layout presets,
 * and calls on stale handles.
 *
 * Invariants checked after every call (a violation is __builtin_trap()):
 *  - every live buffer answers hc_buffer_info_get with its size and stream;
 *    live buffers' device ranges never overlap;
 *  - per stream, bytes in use <= bytes reserved (hc_memory_usage_get);
 *  - every freed buffer (and every buffer of a closed stream) reports
 *    HC_ERR_STALE, and so does a free or write through it;
 *  - the capture state machine: graph_prepare/begin/end return HC_ERR_STATE
 *    exactly when the model says the call is illegal, and the model follows
 *    the documented transitions (end always leaves Capture);
 *  - a tainted read names a failure that hc_failure_explain can explain;
 *  - statuses are always members of HC_STATUS_LIST.
 * The device is closed at the end; LSan reports anything left.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipcore/hipcore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSTREAMS 2
#define NBUF 24
#define NDEAD 16
#define NGRAPH 8
#define HOSTBUF (1u << 20)

enum cap { CAP_NONE, CAP_PREPARE, CAP_RECORDING };

struct buf {
	hc_buffer h;
	uint64_t size;
	int stream;
};

struct graph {
	hc_graph h;
	int stream;
};

struct st {
	const uint8_t *p;
	size_t n;
	hc_device dev;
	hc_stream s[NSTREAMS];
	bool open[NSTREAMS];
	enum cap cap[NSTREAMS];
	bool dirty[NSTREAMS]; /* a call other than a graph call while recording */
	int persist[NSTREAMS];
	hc_kernel k_fill, k_copy, k_add;
	struct buf live[NBUF];
	size_t nlive;
	hc_buffer dead[NDEAD];
	size_t ndead;
	struct graph g[NGRAPH];
	size_t ng;
	hc_graph gdead[NDEAD];
	size_t ngdead;
};

static uint8_t *host_src, *host_dst;

#define CHECK(c)                                                                       \
	do {                                                                           \
		if (!(c)) {                                                            \
			hc_error_info e_;                                              \
			hc_last_error(&e_);                                            \
			fprintf(stderr, "fuzz_api: %s:%d: %s (last error: %s)\n", __FILE__, \
				__LINE__, #c, e_.message);                             \
			__builtin_trap();                                              \
		}                                                                      \
	} while (0)

static uint8_t u8(struct st *z)
{
	if (!z->n)
		return 0;
	z->n--;
	return *z->p++;
}

static uint64_t usize(struct st *z)
{
	uint8_t a = u8(z), b = u8(z);

	switch (a % 4) {
	case 0:
		return b;				/* 0..255 */
	case 1:
		return (uint64_t)b << 8 | u8(z);	/* < 64 KiB */
	case 2:
		return ((uint64_t)b << 12) + u8(z);	/* < 1 MiB */
	default:
		return (uint64_t)1 << (b % 28);		/* powers of two to 128 MiB */
	}
}

static bool valid_status(hc_status rc)
{
	return (unsigned)rc <= HC_ERR_PARSE;
}

static void kill_buffer(struct st *z, size_t i)
{
	z->dead[z->ndead++ % NDEAD] = z->live[i].h;
	z->live[i] = z->live[--z->nlive];
}

static void kill_graph(struct st *z, size_t i)
{
	z->gdead[z->ngdead++ % NDEAD] = z->g[i].h;
	z->g[i] = z->g[--z->ng];
}

static void check(struct st *z)
{
	hc_buffer_info bi;
	hc_memory_usage u;

	for (size_t i = 0; i < z->nlive; i++) {
		struct buf *b = &z->live[i];
		CHECK(hc_buffer_info_get(b->h, &bi) == HC_OK);
		CHECK(bi.size == b->size && bi.stream.id == z->s[b->stream].id);
		for (size_t j = 0; j < i; j++) {
			hc_buffer_info bj;
			if (!b->size || !z->live[j].size)
				continue;
			CHECK(hc_buffer_info_get(z->live[j].h, &bj) == HC_OK);
			CHECK(bi.device_address + bi.size <= bj.device_address ||
			      bj.device_address + bj.size <= bi.device_address);
		}
	}
	for (size_t i = 0; i < z->ndead && i < NDEAD; i++)
		CHECK(hc_buffer_info_get(z->dead[i], &bi) == HC_ERR_STALE);
	for (int s = 0; s < NSTREAMS; s++) {
		if (!z->open[s])
			continue;
		CHECK(hc_memory_usage_get(z->s[s], HC_MEMORY_DEVICE, &u) == HC_OK);
		CHECK(u.bytes_in_use <= u.bytes_reserved);
		CHECK(hc_memory_usage_get(z->s[s], HC_MEMORY_PINNED, &u) == HC_OK);
		CHECK(u.bytes_in_use <= u.bytes_reserved);
	}
}

static int pick_stream(struct st *z)
{
	int s = u8(z) % NSTREAMS;

	return z->open[s] ? s : -1;
}

static struct buf *pick_buf(struct st *z)
{
	return z->nlive ? &z->live[u8(z) % z->nlive] : NULL;
}

static void op_launch(struct st *z, int s)
{
	hc_binding bind[3];
	hc_launch_desc d = { 0 };
	uint64_t info[2] = { u8(z), (u8(z) & 1) ? 1 : 4 };
	uint8_t which = u8(z) % 3;
	size_t nb = which == 0 ? 1 : which == 1 ? 2 : 3;
	hc_status rc;

	if (!z->nlive)
		return;
	for (size_t i = 0; i < nb; i++) {
		struct buf *b = pick_buf(z);
		uint64_t off = u8(z) & 1 ? 0 : u8(z);
		uint64_t sz = u8(z) & 1 ? b->size : usize(z);
		bind[i].buffer = b->h;
		bind[i].offset = off;
		bind[i].size = sz;
		bind[i].access = i + 1 == nb ? HC_ACCESS_WRITE : HC_ACCESS_READ;
	}
	d.kernel = which == 0 ? z->k_fill : which == 1 ? z->k_copy : z->k_add;
	d.grid[0] = d.grid[1] = d.grid[2] = 1;
	d.block[0] = d.block[1] = d.block[2] = 1;
	d.info = info;
	d.info_words = which == 0 ? 2 : u8(z) % 3;
	d.bindings = bind;
	d.n_bindings = nb;
	rc = hc_launch(z->s[s], &d);
	CHECK(valid_status(rc));
}

static void op_graph(struct st *z, int s, uint8_t which)
{
	hc_status rc;
	hc_graph g;

	if (getenv("FUZZ_API_TRACE"))
		fprintf(stderr, "  graph call %u on stream %d\n", which, s);

	switch (which) {
	case 0:
		rc = hc_graph_prepare(z->s[s]);
		if (z->cap[s] == CAP_NONE) {
			CHECK(rc == HC_OK);
			z->cap[s] = CAP_PREPARE;
		} else {
			CHECK(rc == HC_ERR_STATE);
		}
		break;
	case 1:
		rc = hc_graph_begin(z->s[s]);
		if (z->cap[s] == CAP_PREPARE) {
			CHECK(rc != HC_ERR_STATE);
			z->cap[s] = rc == HC_OK ? CAP_RECORDING : CAP_NONE;
			z->dirty[s] = false;
		} else {
			CHECK(rc == HC_ERR_STATE);
		}
		break;
	case 2:
		g.id = 12345;
		rc = hc_graph_end(z->s[s], &g);
		if (z->cap[s] == CAP_RECORDING) {
			/* STATE here: the backend found the capture invalidated
			 * by a sync or memory operation; it ends all the same */
			CHECK(rc != HC_ERR_STATE || z->dirty[s]);
			z->cap[s] = CAP_NONE;
			if (rc == HC_OK) {
				CHECK(g.id != 0);
				bool others = false;

				for (int j = 0; j < NSTREAMS; j++)
					others |= z->cap[j] == CAP_RECORDING;
				if (z->ng == NGRAPH && !others) {
					CHECK(hc_graph_destroy(z->g[0].h) == HC_OK);
					kill_graph(z, 0);
				}
				if (z->ng < NGRAPH) { /* else left to hc_device_close */
					z->g[z->ng].h = g;
					z->g[z->ng++].stream = s;
				}
			} else {
				CHECK(g.id == 0);
			}
		} else {
			CHECK(rc == HC_ERR_STATE && g.id == 0);
		}
		break;
	case 3:
		if (z->ng) {
			struct graph *gr = &z->g[u8(z) % z->ng];
			rc = hc_graph_replay(z->s[s], gr->h);
			if (gr->stream != s)
				CHECK(rc == HC_ERR_INVALID);
			else if (z->cap[s] == CAP_RECORDING)
				CHECK(rc == HC_ERR_STATE);
			else
				CHECK(valid_status(rc) && rc != HC_ERR_STALE && rc != HC_ERR_INVALID);
		} else if (z->ngdead) {
			rc = hc_graph_replay(z->s[s], z->gdead[u8(z) % (z->ngdead < NDEAD ? z->ngdead : NDEAD)]);
			CHECK(rc == HC_ERR_STALE);
		}
		break;
	default:
		if (z->ng) {
			size_t i = u8(z) % z->ng;
			rc = hc_graph_destroy(z->g[i].h);
			bool any = false;

			/* while any stream records, destroy would have to wait
			 * for the graph's last replay: refused, graph kept */
			for (int j = 0; j < NSTREAMS; j++)
				any |= z->cap[j] == CAP_RECORDING;
			if (any) {
				CHECK(rc == HC_ERR_STATE);
			} else {
				CHECK(valid_status(rc) && rc != HC_ERR_STALE && rc != HC_ERR_STATE);
				kill_graph(z, i);
			}
		}
		break;
	}
}

static void close_stream(struct st *z, int s)
{
	hc_status rc = hc_stream_close(z->s[s]);
	bool others = false;

	for (int j = 0; j < NSTREAMS; j++)
		others |= j != s && z->cap[j] == CAP_RECORDING;
	/* prepared or recording, or another stream records (the close's
	 * waits would invalidate that capture): refused */
	if (z->cap[s] != CAP_NONE || others) {
		CHECK(rc == HC_ERR_STATE);
		return;
	}
	if (rc != HC_OK && rc != HC_ERR_DEVICE && rc != HC_ERR_TAINTED) {
		hc_error_info e;
		hc_last_error(&e);
		fprintf(stderr, "fuzz_api: hc_stream_close: %s: %s\n", hc_status_str(rc), e.message);
		__builtin_trap();
	}
	z->open[s] = false;
	z->cap[s] = CAP_NONE;
	z->persist[s] = 0;
	for (size_t i = z->nlive; i-- > 0;)
		if (z->live[i].stream == s)
			kill_buffer(z, i);
	for (size_t i = z->ng; i-- > 0;)
		if (z->g[i].stream == s)
			kill_graph(z, i);
	CHECK(hc_sync(z->s[s]) == HC_ERR_STALE);
}

static void step(struct st *z)
{
	uint8_t op = u8(z);
	int s = pick_stream(z);
	struct buf *b;
	hc_status rc;
	hc_buffer h;
	uint64_t off, sz;
	hc_failure_id f;

	if (s < 0 && op % 20 != 17) {
		s = op % NSTREAMS;
		if (!z->open[s]) {
			CHECK(hc_stream_open(z->dev, &z->s[s]) == HC_OK);
			z->open[s] = true;
		}
		return;
	}
	/* launches count too (their info words may need a new cache page), and
	 * the cross-stream case touches the other stream */
	if (op % 20 != 10 && op % 20 != 11 && op % 20 != 12 && op % 20 != 18)
		for (int i = 0; i < NSTREAMS; i++)
			if (z->cap[i] == CAP_RECORDING)
				z->dirty[i] = true;
	/* Graph calls on one stream never invalidate another stream's capture
	 * (doc/reliability.md, finding 5, fixed): no dirtying for them.  Corpus
	 * inputs cross-stream-capture-invalidated and cross-stream-destroy-sync
	 * found it. */
	switch (op % 20) {
	case 0:
	case 1: /* alloc */
		sz = usize(z);
		h.id = 99;
		rc = hc_alloc(z->s[s], sz, &h);
		CHECK(valid_status(rc));
		if (rc == HC_OK) {
			CHECK(h.id != 0);
			if (z->nlive == NBUF) {
				CHECK(hc_free(h) == HC_OK);
				z->dead[z->ndead++ % NDEAD] = h;
			} else {
				z->live[z->nlive].h = h;
				z->live[z->nlive].size = sz;
				z->live[z->nlive++].stream = s;
			}
		}
		break;
	case 2: /* free */
		if (z->nlive) {
			size_t i = u8(z) % z->nlive;
			rc = hc_free(z->live[i].h);
			CHECK(rc == HC_OK);
			kill_buffer(z, i);
			CHECK(hc_free(z->dead[(z->ndead - 1) % NDEAD]) == HC_ERR_STALE);
		}
		break;
	case 3:
	case 4: /* write */
		if ((b = pick_buf(z))) {
			off = u8(z) & 1 ? 0 : usize(z);
			sz = u8(z) & 1 ? b->size : usize(z);
			if (sz > HOSTBUF)
				sz = HOSTBUF;
			rc = hc_write(z->s[s], b->h, off, host_src, sz,
				      u8(z) & 1 ? HC_ALLOC_FILE : HC_ALLOC_NATIVE, NULL, NULL);
			CHECK(valid_status(rc) && rc != HC_ERR_STALE);
			if (off + sz > b->size || off + sz < off)
				CHECK(rc == HC_ERR_INVALID);
		}
		break;
	case 5:
	case 6: /* read */
		if ((b = pick_buf(z))) {
			off = u8(z) & 1 ? 0 : usize(z);
			sz = u8(z) & 1 ? b->size : usize(z);
			if (sz > HOSTBUF)
				sz = HOSTBUF;
			f = 0;
			rc = hc_read(z->s[s], b->h, off, host_dst, sz, &f);
			CHECK(valid_status(rc) && rc != HC_ERR_STALE);
			if (rc == HC_ERR_TAINTED) {
				char why[512];
				CHECK(f != 0);
				/* a long chain may not fit: cut, and said so (finding 11) */
				rc = hc_failure_explain(z->dev, f, why, sizeof(why));
				CHECK(rc == HC_OK || rc == HC_ERR_INVALID);
				CHECK(why[0] != '\0' && strlen(why) < sizeof(why));
			}
			if (off + sz > b->size || off + sz < off)
				CHECK(rc == HC_ERR_INVALID);
		}
		break;
	case 7:
	case 8:
		op_launch(z, s);
		break;
	case 9:
		CHECK(valid_status(hc_sync(z->s[s])));
		break;
	case 10:
	case 11:
		op_graph(z, s, u8(z) % 5);
		break;
	case 12: { /* fault injection */
		hc_fault_kind k = (hc_fault_kind)(u8(z) % 6);
		uint64_t n = k == HC_FAULT_CAPACITY ? usize(z) : 1 + u8(z) % 8;
		hc_fault_mode m = (hc_fault_mode)(u8(z) % 3);
		rc = hc_fault_inject(z->dev, k, n, m);
		CHECK(n == 0 && m != HC_FAULT_OFF ? rc == HC_ERR_INVALID : rc == HC_OK);
		break;
	}
	case 13:
		CHECK(valid_status(hc_memory_cleanup(z->s[s])));
		break;
	case 14:
		if (u8(z) & 1) {
			CHECK(hc_memory_persistent_begin(z->s[s]) == HC_OK);
			z->persist[s]++;
		} else {
			rc = hc_memory_persistent_end(z->s[s]);
			/* documented: an unmatched end changes nothing, HC_OK */
			CHECK(rc == HC_OK);
			if (z->persist[s])
				z->persist[s]--;
		}
		break;
	case 15: {
		hc_pool_layout l = { (hc_layout_preset)(u8(z) % 3), NULL, 0 };
		rc = hc_install_memory_pools(z->s[s], &l);
		CHECK(valid_status(rc));
		break;
	}
	case 16:
		close_stream(z, s);
		break;
	case 17: /* stale handles */
		if (z->ndead) {
			hc_buffer d = z->dead[u8(z) % (z->ndead < NDEAD ? z->ndead : NDEAD)];
			CHECK(hc_free(d) == HC_ERR_STALE);
			if (s >= 0) {
				CHECK(hc_write(z->s[s], d, 0, host_src, 1, HC_ALLOC_NATIVE, NULL, NULL) ==
				      HC_ERR_STALE);
				CHECK(hc_read(z->s[s], d, 0, host_dst, 1, NULL) == HC_ERR_STALE);
			}
		}
		break;
	case 18: {
		hc_device_stats ds = { .struct_size = sizeof(ds) };
		hc_memory_usage u;
		CHECK(hc_device_stats_get(z->dev, &ds) == HC_OK);
		CHECK(hc_device_memory_usage(z->dev, HC_MEMORY_DEVICE, &u) == HC_OK);
		CHECK(u.bytes_in_use <= u.bytes_reserved);
		break;
	}
	default: /* a buffer of one stream used on the other */
		if ((b = pick_buf(z)) && z->open[1 - b->stream]) {
			rc = hc_write(z->s[1 - b->stream], b->h, 0, host_src, b->size ? 1 : 0,
				      HC_ALLOC_NATIVE, NULL, NULL);
			CHECK(valid_status(rc) && rc != HC_ERR_STALE);
		}
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st *z = calloc(1, sizeof(*z));
	hc_device_options o;

	if (!z)
		return 0;
	if (!host_src) {
		host_src = malloc(HOSTBUF);
		host_dst = malloc(HOSTBUF);
		if (!host_src || !host_dst)
			abort();
		for (size_t i = 0; i < HOSTBUF; i++)
			host_src[i] = (uint8_t)(i * 7 + 1);
	}
	z->p = data;
	z->n = size;
	hc_device_options_init(&o);
	o.data_mode = true;
	o.capacity = 64 * HC_MIB;
	o.seed = u8(z);
	CHECK(hc_device_open("sim", &o, &z->dev) == HC_OK);
	CHECK(hc_kernel_load(z->dev, NULL, 0, "fill", &z->k_fill) == HC_OK);
	CHECK(hc_kernel_load(z->dev, NULL, 0, "copy", &z->k_copy) == HC_OK);
	CHECK(hc_kernel_load(z->dev, NULL, 0, "add", &z->k_add) == HC_OK);
	for (int s = 0; s < NSTREAMS; s++) {
		CHECK(hc_stream_open(z->dev, &z->s[s]) == HC_OK);
		z->open[s] = true;
	}
	for (int i = 0; i < 400 && z->n; i++) {
		if (getenv("FUZZ_API_TRACE")) /* replaying a crash: name each step */
			fprintf(stderr, "step %d: op %u (%u), capture %d/%d\n", i, z->n ? z->p[0] : 0,
				z->n ? z->p[0] % 20 : 0, z->cap[0], z->cap[1]);
		step(z);
		check(z);
	}
	CHECK(hc_device_close(z->dev) == HC_OK);
	for (size_t i = 0; i < z->nlive; i++)
		CHECK(hc_free(z->live[i].h) == HC_ERR_STALE);
	free(z);
	return 0;
}
