/*
 * pipeline.c - pipelined staging of large pageable writes.
 *
 * A write of at least HC_PIPE_MIN_BYTES (8 MiB) from memory that is not
 * pinned moves through a ring of HC_PIPE_CHUNKS pinned chunks of
 * a quarter of the write each (2 MiB to HC_PIPE_CHUNK_BYTES), reserved from
 * the stream's pinned pool.  For
 * chunk k the host copies the source into the chunk while the device still
 * transfers chunk k-1 (copies queued on the stream run asynchronously from
 * pinned memory); a chunk is reused only after the event recorded behind
 * its previous transfer.  The call returns when every source byte is in
 * pinned memory; the chunks go back to the pool through the drop queue
 * after their fence.
 *
 * Chunk size and count (h200-probe.md): pinned H2D reaches ~38 GB/s at
 * 1 MiB and ~53 GB/s at 10 MiB, so 1 MiB chunks would lose a quarter of the
 * link; 4 MiB chunks sit near the knee while four of them (16 MiB pinned)
 * keep two transfers queued ahead of the host copy.  The first chunk's host
 * copy is the part that cannot overlap any transfer, so the chunks may ramp
 * up: the first is hc_pipe_tuning.first_chunk and each next one doubles up
 * to the ring's slot size.
 *
 * The copies of the next hc_pipe_tuning.lookahead chunks (2) are queued to
 * the workers as soon as their ring slots are free, so the workers go from
 * one chunk to the next without waiting for the caller to issue the
 * transfer in between; the caller waits for its chunk, issues the transfer
 * and plans the next chunk.  A slot is waited for two transfers behind, so
 * one stays queued on the link.  H200 machine, 2026-12-05, pipelined /
 * pinned without -> with lookahead: 64 MiB 0.75-0.78 -> 0.76-0.79, 256 MiB
 * 0.58-0.76 -> 0.89-0.92 (BENCHMARKS.md).
 *
 * Nothing overlaps the first chunk's copy, and a split copy takes as long
 * as its largest piece at one thread's rate (~9 GB/s: a 256 KiB piece
 * ~29 us, whatever the chunk), so the first chunk is 1 MiB and every chunk
 * is cut into pieces down to 64 KiB (chunk_piece_min).  H100 machine,
 * five rounds, medians, before -> after: 16 MiB 0.69 -> 0.76, 32 MiB
 * 0.73 -> 0.79, 64 MiB 0.77 -> 0.82; 8 MiB 0.70 -> 0.72.
 *
 * The host copy of a chunk is split over the calling thread and a
 * device-level pool of copy workers (min(8, online CPUs - 1), created on
 * first use, joined when the device closes): one thread's memcpy from
 * pageable memory runs at roughly a fifth of the link (H200: ~8-10 GB/s
 * against 55 GB/s pinned), so the pipeline is only as fast as the number of
 * threads copying.  The copies into chunks use streaming stores
 * (stage_copy.c) below HC_PIPE_STREAM_MAX, so the copy engine reads memory
 * rather than snooping dirty cache lines.  Measured on the H200 machine (8
 * workers and the caller, hand-offs spinning), pipelined / pinned:
 * 16 MiB 0.72-0.73, 64 MiB 0.76; larger sizes vary run to run
 * (BENCHMARKS.md).  Only memcpy runs on the workers: every HAL call stays on the
 * calling thread in a fixed order, so the simulator's virtual clock is as
 * deterministic as with no workers at all.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/streamops.h"

/* How many chunks' copies are queued ahead; a build may set it to test
 * another value through every suite. */
#ifndef HC_PIPE_LOOKAHEAD
#define HC_PIPE_LOOKAHEAD 2
#endif
/* An idle copy worker's polling before it sleeps (the hand-off comment
 * below says why they poll at all). */
#define HC_PIPE_SPIN_NS 50000u

struct hc_pipe_tuning hc_pipe_tuning = {
	.max_workers = 8,
	.first_chunk = 1 * HC_MIB, /* where the ramp starts; 0: none, every chunk a slot */
	.chunk_max = HC_PIPE_CHUNK_BYTES,
	.piece_min = 256 * 1024, /* below it a hand-off costs more than it saves */
	.lookahead = HC_PIPE_LOOKAHEAD,
	.parts = 4,
	.chunk_min = 2 * HC_MIB,
	.chunk_piece_min = 64 * 1024, /* 0: piece_min */
	.worker_spin_ns = HC_PIPE_SPIN_NS,
	.chunk_pieces_per_thread = 1,
};

/* One host copy split into pieces. */
struct copy_batch {
	unsigned char *dst;
	const unsigned char *src;
	uint64_t len, piece;
	bool to_device; /* hc_stage_copy rather than memcpy */
	uint64_t next, npieces; /* guarded by the pool's lock */
	_Atomic uint64_t done;  /* pieces copied; written under the lock */
	struct copy_batch *link;
};

struct hc_copy_workers {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct copy_batch *head, *tail;
	_Atomic bool queued; /* head != NULL, for spinning without the lock */
	pthread_t thr[HC_PIPE_WORKERS_CAP];
	unsigned n;
	uint64_t spin_ns; /* hc_pipe_tuning.worker_spin_ns when they started */
	bool stop;
};

/*
 * Hand-offs spin before they sleep.  A pipelined write hands the workers a
 * chunk every ~100 us and waits for the chunk's last piece; a condition
 * variable's wake-up costs tens of microseconds on a VM, per chunk, on both
 * sides.  So a worker that finds no work polls for HC_PIPE_SPIN_NS before
 * it sleeps (the next chunk usually comes within that), and the caller
 * polls its batch's pieces for up to HC_PIPE_SPIN_WAIT_NS.
 */
#define HC_PIPE_SPIN_WAIT_NS 500000u

static uint64_t spin_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Polls @flag (or @count reaching @want) for up to @ns; true when seen. */
static bool spin_until(_Atomic bool *flag, _Atomic uint64_t *count, uint64_t want, uint64_t ns)
{
	uint64_t t0 = 0;

	for (unsigned i = 0;; i++) {
		if (flag ? atomic_load_explicit(flag, memory_order_acquire)
			 : atomic_load_explicit(count, memory_order_acquire) >= want)
			return true;
		cpu_relax();
		if ((i & 63) == 63) {
			uint64_t t = spin_now_ns();

			if (!t0)
				t0 = t;
			else if (t - t0 > ns)
				return false;
		}
	}
}

/* Creation is rare; one process-wide leaf lock covers it. */
static pthread_mutex_t workers_create_lock = PTHREAD_MUTEX_INITIALIZER;

/* Takes the next piece of @b, or returns false when none is left.
 * Context: @w->lock held. */
static bool batch_take(struct hc_copy_workers *w, struct copy_batch *b, uint64_t *i)
{
	struct copy_batch **pp;

	if (b->next >= b->npieces)
		return false;
	*i = b->next++;
	if (b->next == b->npieces) { /* fully handed out: unlink it */
		for (pp = &w->head; *pp; pp = &(*pp)->link)
			if (*pp == b) {
				*pp = b->link;
				break;
			}
		w->tail = NULL;
		for (struct copy_batch *t = w->head; t; t = t->link)
			w->tail = t;
		atomic_store_explicit(&w->queued, w->head != NULL, memory_order_release);
	}
	return true;
}

/* @to_device: pinned staging the device reads next (stage_copy.c). */
static void copy_bytes(void *dst, const void *src, uint64_t len, bool to_device)
{
	if (to_device)
		hc_stage_copy(dst, src, len);
	else
		memcpy(dst, src, len);
}

static void piece_copy(const struct copy_batch *b, uint64_t off, uint64_t len)
{
	copy_bytes(b->dst + off, b->src + off, len, b->to_device);
}

static void *worker_main(void *p)
{
	struct hc_copy_workers *w = p;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct copy_batch *b;
		uint64_t i = 0, off, len, np;

		if (!w->stop && !w->head) {
			pthread_mutex_unlock(&w->lock);
			spin_until(&w->queued, NULL, 0, w->spin_ns);
			pthread_mutex_lock(&w->lock);
		}
		while (!w->stop && !w->head)
			pthread_cond_wait(&w->work, &w->lock);
		if (w->stop)
			break;
		b = w->head;
		batch_take(w, b, &i);
		pthread_mutex_unlock(&w->lock);
		off = i * b->piece;
		len = b->len - off < b->piece ? b->len - off : b->piece;
		piece_copy(b, off, len);
		pthread_mutex_lock(&w->lock);
		/* The caller may return (its batch on its stack gone) as soon
		 * as it sees the last piece counted: read b before that. */
		np = b->npieces;
		if (atomic_fetch_add_explicit(&b->done, 1, memory_order_release) + 1 == np)
			pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static unsigned workers_default(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	/* The caller copies too: one worker fewer than the CPUs. */
	cpus -= 1;
	if (cpus < 1)
		cpus = 1;
	if (cpus > (long)hc_pipe_tuning.max_workers)
		cpus = hc_pipe_tuning.max_workers;
	return cpus < (long)HC_PIPE_WORKERS_CAP ? (unsigned)cpus : HC_PIPE_WORKERS_CAP;
}

/* The device's pool, created on first use; NULL when threads are refused
 * (the caller then copies alone). */
static struct hc_copy_workers *workers_get(struct hc_dev *dev)
{
	struct hc_copy_workers *w;

	pthread_mutex_lock(&workers_create_lock);
	w = dev->workers;
	if (w || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		goto out;
	w = calloc(1, sizeof(*w));
	if (!w)
		goto out;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	w->spin_ns = hc_pipe_tuning.worker_spin_ns;
	for (unsigned i = 0; i < workers_default(); i++) {
		if (pthread_create(&w->thr[w->n], NULL, worker_main, w) != 0)
			break;
		w->n++;
	}
	if (w->n == 0) {
		pthread_cond_destroy(&w->done);
		pthread_cond_destroy(&w->work);
		pthread_mutex_destroy(&w->lock);
		free(w);
		w = NULL;
		goto out;
	}
	dev->workers = w;
out:
	pthread_mutex_unlock(&workers_create_lock);
	return w;
}

void hc_pipeline_workers_stop(struct hc_dev *dev)
{
	struct hc_copy_workers *w;

	pthread_mutex_lock(&workers_create_lock);
	w = dev->workers;
	dev->workers = NULL;
	pthread_mutex_unlock(&workers_create_lock);
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < w->n; i++)
		pthread_join(w->thr[i], NULL);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Sets @b up to copy @len bytes in @per_thread pieces for each of @w's
 * workers and the caller, each of at least @piece_min. */
static void batch_init(struct copy_batch *b, const struct hc_copy_workers *w, void *dst,
		       const void *src, uint64_t len, bool to_device, uint64_t piece_min,
		       unsigned per_thread)
{
	uint64_t parts = (uint64_t)(w->n + 1) * (per_thread ? per_thread : 1);
	uint64_t piece = (len + parts - 1) / parts;

	if (piece < piece_min)
		piece = piece_min;
	b->dst = dst;
	b->src = src;
	b->len = len;
	b->piece = piece;
	b->to_device = to_device;
	b->next = 0;
	b->npieces = (len + piece - 1) / piece;
	atomic_init(&b->done, 0);
	b->link = NULL;
}

/* Queues @b for the workers; it must stay in place until batch_finish. */
static void batch_start(struct hc_copy_workers *w, struct copy_batch *b)
{
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->link = b;
	else
		w->head = b;
	w->tail = b;
	atomic_store_explicit(&w->queued, true, memory_order_release);
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
}

/* Returns once every piece of @b is copied; the caller copies the pieces
 * of @b no worker has taken yet rather than sleep.  Batches queued before
 * @b are not waited for. */
static void batch_finish(struct hc_copy_workers *w, struct copy_batch *b)
{
	uint64_t i;

	pthread_mutex_lock(&w->lock);
	while (batch_take(w, b, &i)) {
		uint64_t off = i * b->piece;
		uint64_t n = b->len - off < b->piece ? b->len - off : b->piece;

		pthread_mutex_unlock(&w->lock);
		piece_copy(b, off, n);
		pthread_mutex_lock(&w->lock);
		atomic_fetch_add_explicit(&b->done, 1, memory_order_release);
	}
	if (atomic_load_explicit(&b->done, memory_order_acquire) < b->npieces) {
		pthread_mutex_unlock(&w->lock);
		spin_until(NULL, &b->done, b->npieces, HC_PIPE_SPIN_WAIT_NS);
		pthread_mutex_lock(&w->lock);
	}
	while (atomic_load_explicit(&b->done, memory_order_acquire) < b->npieces)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

/* Copies @len bytes, spread over the workers and the calling thread. */
static void host_copy(struct hc_copy_workers *w, void *dst, const void *src, uint64_t len,
		      bool to_device)
{
	struct copy_batch b;

	if (!w || len < 2 * hc_pipe_tuning.piece_min) {
		copy_bytes(dst, src, len, to_device);
		return;
	}
	batch_init(&b, w, dst, src, len, to_device, hc_pipe_tuning.piece_min, 1);
	batch_start(w, &b);
	batch_finish(w, &b);
}

/*
 * The copy runs inside ctl HOST_COPY, by the backend: the timing shim then
 * counts it as the op host_copy, measured on a GPU and modelled on the
 * simulator, which charges the bytes to its host clock (the memcpy is
 * invisible to its other ops).  Whether the copy counts as split over the
 * workers depends on its length only, not on how many workers this machine
 * has, so a simulation does not depend on the host it runs on.
 */
struct host_copy_args {
	struct hc_copy_workers *w;
	void *dst;
	const void *src;
	uint64_t len;
	bool to_device;
	bool done;
};

static void host_copy_run(void *p)
{
	struct host_copy_args *a = p;

	host_copy(a->w, a->dst, a->src, a->len, a->to_device);
	a->done = true;
}

void hc_host_copy(struct hc_dev *dev, void *dst, const void *src, uint64_t len, bool to_device)
{
	bool parallel = len >= 2 * hc_pipe_tuning.piece_min;
	struct host_copy_args a = { parallel ? workers_get(dev) : NULL, dst, src, len, to_device, false };
	struct hc_hal_host_copy h = { len, parallel, host_copy_run, &a, false };

	(void)dev->ops->ctl(dev->hal, HC_HAL_CTL_HOST_COPY, &h);
	if (!a.done && !h.unread) /* a backend that did not run it: the bytes still move */
		host_copy_run(&a);
}

struct chunk {
	struct hc_slice_ref ref;
	unsigned char *host;
	hc_hal_event *ev; /* behind the chunk's last transfer; NULL when none */
	bool reserved;
	bool started;          /* b is queued and not yet finished */
	uint64_t off, len;     /* the part of the write it holds now */
	struct copy_batch b;
};

/*
 * One pipelined write.  Chunk k lives in ring slot k % HC_PIPE_CHUNKS.
 * "Planned" chunks have a free slot and their bytes assigned; a planned
 * chunk's copy is queued to the workers (started) from inside the backend's
 * HOST_COPY of an earlier chunk, so a backend that reads no bytes (the
 * simulator without data mode) starts none.
 */
struct pipe {
	struct hc_strm *st;
	struct hc_copy_workers *w;
	const unsigned char *src;
	uint64_t n, chunk, next_len, planned_bytes;
	uint64_t mark; /* the backend's last op before the write (hc_et_mark) */
	unsigned planned, started; /* chunks so far */
	unsigned current;          /* the chunk HOST_COPY is for */
	bool stream_stores, copied;
	struct chunk ring[HC_PIPE_CHUNKS];
};

/* Gives chunk p->planned a slot: waits for the slot's previous transfer. */
static hc_status plan_next(struct pipe *p)
{
	struct hc_strm *st = p->st;
	struct chunk *c = &p->ring[p->planned % HC_PIPE_CHUNKS];
	hc_status rc;

	if (!c->reserved) {
		uint64_t addr;

		rc = hc_strm_reserve(st, st->pmm, p->chunk, &c->ref, &addr);
		if (rc != HC_OK)
			return rc;
		c->host = (unsigned char *)(uintptr_t)addr;
		c->reserved = true;
	}
	if (c->ev) {
		/* Reuse waits for the chunk's previous transfer. */
		rc = hc_strm_fence_wait(st, c->ev);
		st->dev->ops->event_destroy(st->dev->hal, c->ev);
		c->ev = NULL;
		/* Other work's failure: this write's transfers are good. */
		if (rc == HC_ERR_DEVICE && hc_et_ops_clean(st, p->mark, hc_et_mark(st)))
			rc = HC_OK;
		if (rc != HC_OK)
			return rc;
	}
	c->off = p->planned_bytes;
	c->len = p->n - c->off < p->next_len ? p->n - c->off : p->next_len;
	p->planned_bytes += c->len;
	p->planned++;
	p->next_len = p->next_len * 2 < p->chunk ? p->next_len * 2 : p->chunk;
	return HC_OK;
}

/* HOST_COPY's work for chunk p->current: queue the planned chunks' copies,
 * then see the current one done.  Without workers, the caller copies. */
static void pipe_copy_run(void *arg)
{
	struct pipe *p = arg;
	struct chunk *cur = &p->ring[p->current % HC_PIPE_CHUNKS];

	p->copied = true;
	if (!p->w) {
		copy_bytes(cur->host, p->src + cur->off, cur->len, p->stream_stores);
		return;
	}
	for (; p->started < p->planned; p->started++) {
		struct chunk *c = &p->ring[p->started % HC_PIPE_CHUNKS];

		batch_init(&c->b, p->w, c->host, p->src + c->off, c->len, p->stream_stores,
			   hc_pipe_tuning.chunk_piece_min ? hc_pipe_tuning.chunk_piece_min
							 : hc_pipe_tuning.piece_min,
			   hc_pipe_tuning.chunk_pieces_per_thread);
		batch_start(p->w, &c->b);
		c->started = true;
	}
	batch_finish(p->w, &cur->b);
	cur->started = false;
}

hc_status hc_pipeline_write(struct hc_strm *st, uint64_t dst, const void *src, uint64_t n)
{
	const struct hc_hal_ops *ops = st->dev->ops;
	unsigned ahead = hc_pipe_tuning.lookahead;
	struct pipe p;
	hc_status rc = HC_OK;
	uint64_t chunk;

	/* A ring slot must be free while two transfers stay queued behind the
	 * one in flight: at most HC_PIPE_CHUNKS - 2 chunks copy ahead. */
	if (ahead > HC_PIPE_CHUNKS - 2)
		ahead = HC_PIPE_CHUNKS - 2;
	/* A quarter of the write (parts), 2 to 8 MiB: a 16 MiB write then has
	 * four chunks in flight instead of two, so less of it waits for the
	 * first chunk's host copy (H200: 8 MiB chunks gave 0.41 x pinned at
	 * 16 MiB). */
	chunk = (n / (hc_pipe_tuning.parts ? hc_pipe_tuning.parts : 4)) & ~(HC_MIB - 1);
	if (chunk < hc_pipe_tuning.chunk_min)
		chunk = hc_pipe_tuning.chunk_min;
	if (chunk < HC_MIB)
		chunk = HC_MIB;
	if (chunk > hc_pipe_tuning.chunk_max)
		chunk = hc_pipe_tuning.chunk_max;
	memset(&p, 0, sizeof(p));
	p.st = st;
	p.mark = hc_et_mark(st);
	p.w = workers_get(st->dev);
	p.src = src;
	p.n = n;
	p.chunk = chunk;
	p.next_len = hc_pipe_tuning.first_chunk && hc_pipe_tuning.first_chunk < chunk
			     ? hc_pipe_tuning.first_chunk
			     : chunk;
	/* Streaming stores up to HC_PIPE_STREAM_MAX only.  H200 machine,
	 * GB/s (pinned ~54): 16 MiB 17.7 -> 37.7, 64 MiB 33.7 -> 40.7 with
	 * them; 256 MiB 42.4 -> 32.7 (a source that no longer fits in the
	 * caches, read from memory while every chunk goes to memory too, where
	 * ordinary stores keep the 32 MiB ring in the last-level cache). */
	p.stream_stores = n < HC_PIPE_STREAM_MAX;

	for (unsigned k = 0; rc == HC_OK && (k < p.planned || p.planned_bytes < n); k++) {
		struct chunk *c = &p.ring[k % HC_PIPE_CHUNKS];
		struct hc_hal_host_copy h;

		while (rc == HC_OK && p.planned <= k + ahead && p.planned_bytes < n)
			rc = plan_next(&p);
		if (rc != HC_OK)
			break;
		p.current = k;
		p.copied = false;
		/* split or not by length alone, as hc_host_copy classes it */
		h = (struct hc_hal_host_copy){ c->len, c->len >= 2 * hc_pipe_tuning.piece_min,
					       pipe_copy_run, &p, false };
		(void)ops->ctl(st->dev->hal, HC_HAL_CTL_HOST_COPY, &h);
		if (!p.copied && !h.unread) /* a backend that did not run it */
			pipe_copy_run(&p);
		rc = ops->copy_h2d(st->dev->hal, st->hal, dst + c->off, c->host, c->len, true);
		if (rc != HC_OK)
			break;
		rc = ops->event_record(st->dev->hal, st->hal, &c->ev);
		if (rc != HC_OK)
			c->ev = NULL;
	}
	for (unsigned i = 0; i < HC_PIPE_CHUNKS; i++) {
		struct chunk *c = &p.ring[i];

		/* A failure leaves copies queued into slots about to be freed. */
		if (c->started)
			batch_finish(p.w, &c->b);
		if (c->ev)
			ops->event_destroy(st->dev->hal, c->ev);
		if (c->reserved)
			hc_strm_defer_slice(st, st->pmm, c->ref, chunk);
	}
	return rc;
}
