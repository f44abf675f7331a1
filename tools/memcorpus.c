/*
 * memcorpus.c - synthetic allocation traces and a model of PyTorch's caching
 * allocator, for judging pool layouts on workload-shaped histories.
 *
 * `memcorpus gen NAME` writes an RMM memory-event CSV (the format hipsim
 * replay reads) to stdout.  Every trace is a pure function of its name: a
 * fixed-seed xorshift drives every choice, so CI regenerates the corpus at
 * test time instead of storing it.  The shapes follow what is known of real
 * training and serving histories (doc/memory-efficiency.md, section 3): weights
 * allocated first and live for the whole run, activations that grow through
 * the forward pass and shrink through the backward pass, gradients made in
 * the backward pass and dropped after the optimizer step, optimizer state
 * made at the first step and kept, a few-hundred-MB logits/loss buffer per
 * step, many small temporaries, and an inference server that spreads
 * variable-length requests over several streams.
 *
 * `memcorpus torch FILE` replays such a CSV through a model of PyTorch's
 * native caching allocator and prints "peak_live BYTES",
 * "torch_peak_reserved BYTES" and "torch_segments N" (its device
 * allocations: segments are never returned in the model).  The model implements the documented policy
 * (c10/cuda/CUDACachingAllocator.cpp header comment and notes/cuda.md):
 * sizes round up to 512 B (minimum 512); requests of at most 1 MiB use the
 * small pool, whose segments are 2 MiB; larger requests use the large pool,
 * whose segments are 20 MiB for requests below 10 MiB and the request
 * rounded up to 2 MiB otherwise; a request takes the best fit (smallest free
 * block that holds it, lowest segment/offset on ties) among the free blocks
 * of its own pool and stream only; a block is split when the remainder is at
 * least 512 B (small pool) or more than 1 MiB (large pool), else handed out
 * whole; a freed block merges with free neighbours of its segment; segments
 * are never returned (the model has no OOM, so the free-cached-and-retry
 * path never runs; max_split_size_mb and expandable segments are off, as
 * by default).  Reserved bytes are the sum of segment sizes.
 *
 * The model is O(free blocks) per request; corpus traces are small.  Its
 * input is what `gen` writes (integer-ns time, hex pointers, numeric
 * streams, at most 2^19 live pointers); it is not a general RMM reader.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB (1024ull)
#define MIB (1024ull * KIB)

/* ---- generator -------------------------------------------------------- */

struct gen {
	uint64_t rng;
	uint64_t t;      /* ns */
	uint64_t next;   /* pointer counter */
	uint64_t live, peak;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static uint64_t rrange(struct gen *g, uint64_t lo, uint64_t hi)
{
	return lo + rnd(g) % (hi - lo + 1);
}

struct tensor {
	uint64_t ptr, size;
	unsigned stream;
};

static struct tensor alloc_t(struct gen *g, uint64_t size, unsigned stream)
{
	struct tensor x = { ++g->next * 0x1000ull + 0x7f0000000000ull, size, stream };

	g->t += 1000;
	printf("1,%" PRIu64 ",allocate,0x%" PRIx64 ",%" PRIu64 ",%u\n", g->t, x.ptr, size, stream);
	g->live += size;
	if (g->live > g->peak)
		g->peak = g->live;
	return x;
}

static void free_t(struct gen *g, struct tensor *x)
{
	if (!x->ptr)
		return;
	g->t += 1000;
	printf("1,%" PRIu64 ",free,0x%" PRIx64 ",%" PRIu64 ",%u\n", g->t, x->ptr, x->size,
	       x->stream);
	g->live -= x->size;
	x->ptr = 0;
}

/* Element counts times 4 bytes (fp32) or 2 (bf16). */
static uint64_t el(uint64_t n, unsigned bytes)
{
	return n * bytes;
}

/*
 * A transformer-ish training run: @layers blocks of hidden @h, batch*seq
 * tokens @tok (jittered by @jitter percent per step when non-zero), vocab
 * @vocab for the logits, @steps steps, Adam state.  @recompute frees most
 * activations after the forward pass and rebuilds them per layer in the
 * backward pass (activation checkpointing).
 */
static void gen_train(struct gen *g, unsigned layers, uint64_t h, uint64_t tok0,
		      uint64_t vocab, unsigned steps, unsigned jitter, bool recompute)
{
	enum { PER_LAYER_W = 6, PER_LAYER_A = 8 };
	unsigned nw = layers * PER_LAYER_W + 2, na = layers * PER_LAYER_A;
	struct tensor *w = calloc(nw, sizeof(*w)), *grad = calloc(nw, sizeof(*grad));
	struct tensor *m = calloc(nw, sizeof(*m)), *v = calloc(nw, sizeof(*v));
	struct tensor *act = calloc(na, sizeof(*act));
	uint64_t *wsize = calloc(nw, sizeof(*wsize));
	unsigned i, l, s, k;

	if (!w || !grad || !m || !v || !act || !wsize)
		exit(2);
	/* weights: embedding, per layer qkv, out, 2 mlp, 2 norms (small), head */
	wsize[0] = el(vocab * h, 4);
	for (l = 0; l < layers; l++) {
		uint64_t *p = &wsize[1 + l * PER_LAYER_W];

		p[0] = el(3 * h * h, 4);
		p[1] = el(h * h, 4);
		p[2] = el(4 * h * h, 4);
		p[3] = el(4 * h * h, 4);
		p[4] = el(h, 4);
		p[5] = el(h, 4);
	}
	wsize[nw - 1] = el(h, 4);
	for (i = 0; i < nw; i++)
		w[i] = alloc_t(g, wsize[i], 0);
	for (s = 0; s < steps; s++) {
		uint64_t tok = tok0;
		struct tensor logits, loss, tmp;

		if (jitter)
			tok = tok0 * (100 - jitter + rrange(g, 0, 2 * jitter)) / 100 / 8 * 8;
		/* forward */
		for (l = 0; l < layers; l++) {
			struct tensor *a = &act[l * PER_LAYER_A];

			a[0] = alloc_t(g, el(tok * h, 2), 0);        /* norm out */
			a[1] = alloc_t(g, el(tok * 3 * h, 2), 0);    /* qkv */
			tmp = alloc_t(g, el(tok * h, 4), 0);         /* attn scratch */
			a[2] = alloc_t(g, el(tok * h, 2), 0);        /* attn out */
			free_t(g, &tmp);
			a[3] = alloc_t(g, el(tok * 4 * h, 2), 0);    /* mlp up */
			a[4] = alloc_t(g, el(tok * 4 * h, 2), 0);    /* gelu */
			a[5] = alloc_t(g, el(tok * h, 2), 0);        /* mlp down */
			a[6] = alloc_t(g, el(tok * 4, 4), 0);        /* norm stats */
			a[7] = alloc_t(g, rrange(g, 1, 64) * 512, 0); /* misc small */
			for (k = 0; k < 3; k++) {
				tmp = alloc_t(g, rrange(g, 4, 4096) * 4, 0);
				free_t(g, &tmp);
			}
			if (recompute)
				for (k = 1; k < PER_LAYER_A; k++)
					free_t(g, &a[k]);
		}
		logits = alloc_t(g, el(tok * vocab, 2), 0);    /* few hundred MB */
		loss = alloc_t(g, el(tok, 4), 0);
		tmp = alloc_t(g, el(tok * vocab, 4) / 2, 0);   /* softmax grad */
		free_t(g, &logits);
		free_t(g, &loss);
		/* backward */
		for (l = layers; l-- > 0;) {
			struct tensor *a = &act[l * PER_LAYER_A];
			struct tensor ga, gb;

			if (recompute)
				for (k = 1; k < PER_LAYER_A; k++) {
					static const unsigned mult[PER_LAYER_A] = { 1, 3, 1, 4, 4, 1, 0, 0 };

					if (mult[k])
						a[k] = alloc_t(g, el(tok * mult[k] * h, 2), 0);
					else
						a[k] = alloc_t(g, k == 6 ? el(tok * 4, 4) : 4096, 0);
				}
			ga = alloc_t(g, el(tok * 4 * h, 2), 0);
			for (k = 0; k < PER_LAYER_W; k++) {
				unsigned wi = 1 + l * PER_LAYER_W + k;

				grad[wi] = alloc_t(g, wsize[wi], 0);
			}
			gb = alloc_t(g, el(tok * h, 2), 0);
			for (k = PER_LAYER_A; k-- > 0;)
				free_t(g, &a[k]);
			free_t(g, &ga);
			free_t(g, &gb);
		}
		free_t(g, &tmp);
		grad[0] = alloc_t(g, wsize[0], 0);
		grad[nw - 1] = alloc_t(g, wsize[nw - 1], 0);
		/* optimizer: state made at the first step, grads dropped after */
		for (i = 0; i < nw; i++) {
			if (!m[i].ptr) {
				m[i] = alloc_t(g, wsize[i], 0);
				v[i] = alloc_t(g, wsize[i], 0);
			}
			tmp = alloc_t(g, wsize[i], 0); /* update scratch */
			free_t(g, &tmp);
		}
		for (i = 0; i < nw; i++)
			free_t(g, &grad[i]);
	}
	for (i = 0; i < nw; i++) {
		free_t(g, &m[i]);
		free_t(g, &v[i]);
		free_t(g, &w[i]);
	}
	free(w), free(grad), free(m), free(v), free(act), free(wsize);
}

/* An inference server: weights on stream 0, then @nreq requests with
 * variable prompt length, spread round-robin over @streams streams, each
 * holding a KV cache and per-layer activations until it completes; up to
 * @conc requests in flight. */
static void gen_serve(struct gen *g, unsigned layers, uint64_t h, unsigned streams,
		      unsigned nreq, unsigned conc)
{
	struct tensor *w = calloc(layers * 4, sizeof(*w));
	struct tensor (*kv)[2] = calloc(conc, sizeof(*kv));
	unsigned i, r, l, k;

	if (!w || !kv)
		exit(2);
	for (i = 0; i < layers * 4; i++)
		w[i] = alloc_t(g, el((i % 4 == 3 ? 8 : 4) * h * h / 2, 2), 0);
	for (r = 0; r < nreq; r++) {
		unsigned slot = r % conc, st = 1 + r % streams;
		uint64_t tok = rrange(g, 16, 2048);
		struct tensor a, b;

		free_t(g, &kv[slot][0]);
		free_t(g, &kv[slot][1]);
		kv[slot][0] = alloc_t(g, el(tok * h * layers, 2), st);
		for (l = 0; l < layers; l++) {
			a = alloc_t(g, el(tok * 4 * h, 2), st);
			b = alloc_t(g, el(tok * h, 2), st);
			for (k = 0; k < 2; k++) {
				struct tensor t = alloc_t(g, rrange(g, 1, 256) * 1024, st);

				free_t(g, &t);
			}
			free_t(g, &a);
			free_t(g, &b);
		}
		kv[slot][1] = alloc_t(g, el(tok * 32000, 2), st); /* logits */
	}
	for (i = 0; i < conc; i++) {
		free_t(g, &kv[i][0]);
		free_t(g, &kv[i][1]);
	}
	for (i = 0; i < layers * 4; i++)
		free_t(g, &w[i]);
	free(w), free(kv);
}

/* Many small tensors: a graph-neural-net / data-pipeline style history. */
static void gen_small(struct gen *g, unsigned rounds)
{
	struct tensor pool[512] = { 0 };
	unsigned r, i;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < 512; i++) {
			unsigned j = (unsigned)rrange(g, 0, 511);

			free_t(g, &pool[j]);
			pool[j] = alloc_t(g, rrange(g, 1, 2048) * (rrange(g, 0, 9) ? 64 : 2048), 0);
		}
	for (i = 0; i < 512; i++)
		free_t(g, &pool[i]);
}

static const char *const trace_names[] = {
	"train-gpt-small", "train-gpt-jitter", "train-gpt-recompute", "train-wide",
	"serve-4streams", "small-tensors",
};

static int gen_main(const char *name)
{
	struct gen g = { .rng = 0x9e3779b97f4a7c15ull };
	size_t i;

	for (i = 0; i < strlen(name); i++)
		g.rng = (g.rng ^ (uint8_t)name[i]) * 0x100000001b3ull;
	if (!g.rng)
		g.rng = 1;
	for (i = 0; i < sizeof(trace_names) / sizeof(trace_names[0]); i++)
		if (!strcmp(name, trace_names[i]))
			break;
	if (i == sizeof(trace_names) / sizeof(trace_names[0])) {
		fprintf(stderr, "memcorpus: unknown trace '%s'\n", name);
		return 2;
	}
	printf("Thread,Time,Action,Pointer,Size,Stream\n");
	if (!strcmp(name, "train-gpt-small"))
		gen_train(&g, 12, 768, 8 * 512, 32000, 6, 0, false);
	else if (!strcmp(name, "train-gpt-jitter"))
		gen_train(&g, 12, 768, 8 * 512, 32000, 8, 15, false);
	else if (!strcmp(name, "train-gpt-recompute"))
		gen_train(&g, 16, 1024, 4 * 1024, 50000, 5, 10, true);
	else if (!strcmp(name, "train-wide"))
		gen_train(&g, 4, 2048, 2 * 1024, 50000, 6, 0, false);
	else if (!strcmp(name, "serve-4streams"))
		gen_serve(&g, 16, 1024, 4, 200, 8);
	else
		gen_small(&g, 40);
	return 0;
}

/* ---- PyTorch caching allocator model ---------------------------------- */

struct blk {
	uint64_t off, size;
	bool free;
	unsigned seg;
	struct blk *prev, *next;
	uint64_t ptr; /* trace pointer while allocated */
	uint64_t bid;
};

struct tpool {
	struct blk **freel; /* free blocks */
	size_t nfree, capfree;
};

struct model {
	struct tpool *pools; /* 2 per stream */
	unsigned nstreams;
	uint64_t reserved, peak_reserved, live, peak_live, nseg, bid;
	struct blk **byptr; /* open addressing on trace pointer */
	size_t cap;
	struct blk **segs;  /* first block of each segment (never merged away) */
};

static struct tpool *model_pool(struct model *m, unsigned stream, bool small)
{
	if (stream >= m->nstreams) {
		unsigned n = stream + 1;

		m->pools = realloc(m->pools, 2 * n * sizeof(*m->pools));
		if (!m->pools)
			exit(2);
		memset(m->pools + 2 * m->nstreams, 0, 2 * (n - m->nstreams) * sizeof(*m->pools));
		m->nstreams = n;
	}
	return &m->pools[2 * stream + (small ? 1 : 0)];
}

static void free_add(struct tpool *p, struct blk *b)
{
	if (p->nfree == p->capfree) {
		p->capfree = p->capfree ? 2 * p->capfree : 64;
		p->freel = realloc(p->freel, p->capfree * sizeof(*p->freel));
		if (!p->freel)
			exit(2);
	}
	p->freel[p->nfree++] = b;
}

static void free_del(struct tpool *p, struct blk *b)
{
	for (size_t i = 0; i < p->nfree; i++)
		if (p->freel[i] == b) {
			p->freel[i] = p->freel[--p->nfree];
			return;
		}
}

static size_t hslot(struct model *m, uint64_t ptr)
{
	return (size_t)((ptr * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
}

static void map_put(struct model *m, struct blk *b)
{
	size_t i = hslot(m, b->ptr);

	while (m->byptr[i])
		i = (i + 1) & (m->cap - 1);
	m->byptr[i] = b;
}

static struct blk *map_take(struct model *m, uint64_t ptr)
{
	size_t i = hslot(m, ptr), j;
	struct blk *b;

	while (m->byptr[i] && m->byptr[i]->ptr != ptr)
		i = (i + 1) & (m->cap - 1);
	b = m->byptr[i];
	if (!b)
		return NULL;
	m->byptr[i] = NULL;
	/* re-insert the cluster after i */
	for (j = (i + 1) & (m->cap - 1); m->byptr[j]; j = (j + 1) & (m->cap - 1)) {
		struct blk *x = m->byptr[j];

		m->byptr[j] = NULL;
		map_put(m, x);
	}
	return b;
}

static bool blk_before(const struct blk *a, const struct blk *b)
{
	if (a->size != b->size)
		return a->size < b->size;
	if (a->seg != b->seg)
		return a->seg < b->seg;
	return a->off < b->off;
}

static void model_alloc(struct model *m, uint64_t ptr, uint64_t req, unsigned stream)
{
	uint64_t size = req < 512 ? 512 : (req + 511) / 512 * 512;
	bool small = size <= MIB;
	struct tpool *p = model_pool(m, stream, small);
	struct blk *best = NULL;
	size_t i;

	for (i = 0; i < p->nfree; i++) {
		struct blk *b = p->freel[i];

		if (b->size >= size && (!best || blk_before(b, best)))
			best = b;
	}
	if (!best) {
		uint64_t seg = small ? 2 * MIB : size < 10 * MIB ? 20 * MIB
							     : (size + 2 * MIB - 1) / (2 * MIB) * (2 * MIB);

		best = calloc(1, sizeof(*best));
		if (!best)
			exit(2);
		best->size = seg;
		best->seg = (unsigned)++m->nseg;
		best->free = true;
		m->segs = realloc(m->segs, m->nseg * sizeof(*m->segs));
		if (!m->segs)
			exit(2);
		m->segs[m->nseg - 1] = best;
		m->reserved += seg;
		if (m->reserved > m->peak_reserved)
			m->peak_reserved = m->reserved;
	} else {
		free_del(p, best);
	}
	if (best->size - size >= (small ? 512 : MIB + 1)) {
		struct blk *rest = calloc(1, sizeof(*rest));

		if (!rest)
			exit(2);
		rest->off = best->off + size;
		rest->size = best->size - size;
		rest->seg = best->seg;
		rest->free = true;
		rest->prev = best;
		rest->next = best->next;
		if (best->next)
			best->next->prev = rest;
		best->next = rest;
		best->size = size;
		free_add(p, rest);
	}
	best->free = false;
	best->ptr = ptr;
	best->bid = (uint64_t)small | (uint64_t)stream << 1; /* pool and stream */
	map_put(m, best);
	m->live += req;
	if (m->live > m->peak_live)
		m->peak_live = m->live;
}

static void model_free(struct model *m, uint64_t ptr, uint64_t req)
{
	struct blk *b = map_take(m, ptr), *n;
	struct tpool *p;

	if (!b)
		return;
	p = model_pool(m, (unsigned)(b->bid >> 1), b->bid & 1);
	m->live -= req;
	b->free = true;
	if (b->prev && b->prev->free) {
		struct blk *a = b->prev;

		free_del(p, a);
		a->size += b->size;
		a->next = b->next;
		if (b->next)
			b->next->prev = a;
		free(b);
		b = a;
	}
	n = b->next;
	if (n && n->free) {
		free_del(p, n);
		b->size += n->size;
		b->next = n->next;
		if (n->next)
			n->next->prev = b;
		free(n);
	}
	free_add(p, b);
}

static void model_free_all(struct model *m)
{
	uint64_t i;
	unsigned k;

	for (i = 0; i < m->nseg; i++) {
		struct blk *b = m->segs[i], *n;

		for (; b; b = n) {
			n = b->next;
			free(b);
		}
	}
	for (k = 0; k < 2 * m->nstreams; k++)
		free(m->pools[k].freel);
	free(m->pools);
	free(m->segs);
	free(m->byptr);
}

static int torch_main(const char *path)
{
	struct model m = { 0 };
	char line[512], act[32];
	uint64_t t, ptr, size;
	unsigned th, stream;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 2;
	}
	m.cap = 1u << 20;
	m.byptr = calloc(m.cap, sizeof(*m.byptr));
	if (!m.byptr)
		return 2;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		free(m.byptr);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u,%" SCNu64 ",%31[^,],%" SCNx64 ",%" SCNu64 ",%u", &th, &t, act,
			   &ptr, &size, &stream) != 6) {
			fprintf(stderr, "memcorpus: bad line: %s", line);
			fclose(f);
			model_free_all(&m);
			return 2;
		}
		if (!strcmp(act, "allocate"))
			model_alloc(&m, ptr, size, stream);
		else
			model_free(&m, ptr, size);
	}
	fclose(f);
	printf("peak_live %" PRIu64 "\ntorch_peak_reserved %" PRIu64 "\ntorch_segments %" PRIu64
	       "\n", m.peak_live, m.peak_reserved, m.nseg);
	model_free_all(&m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof(trace_names) / sizeof(trace_names[0]); i++)
			printf("%s\n", trace_names[i]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "gen"))
		return gen_main(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "torch"))
		return torch_main(argv[2]);
	fprintf(stderr, "usage: memcorpus list | gen NAME | torch FILE.csv\n");
	return 2;
}
