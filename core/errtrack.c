/*
 * errtrack.c - work in flight per stream, and what a failure taints.
 *
 * The rules are in errtrack.h.  Every call into the error graph holds
 * dev->eg_lock and nothing else is taken under it (a leaf lock), so any
 * stream may record failures and taint while holding its own lock(s).
 * dev->eg_inexact is set the first time the backend says it cannot
 * attribute failures (HC_ERR_UNSUPPORTED from ctl LAST_OP); core then never
 * asks again and treats every failed fence conservatively.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/object.h"
#include "trace/hipcore_trace.h"

#define HC_ET_MAX_CAUSES 64

void hc_et_fini(struct hc_errtrack *et)
{
	for (size_t i = 0; i < et->n; i++)
		free(et->items[i].r);
	free(et->items);
	free(et->last_ops);
	memset(et, 0, sizeof(*et));
}

uint64_t hc_et_mark(struct hc_strm *st)
{
	struct hc_dev *dev = st->dev;
	struct hc_hal_op_arg a = { st->hal, 0 };

	if (atomic_load(&dev->eg_inexact) || hc_capture_is_recording(&st->capture))
		return 0;
	if (dev->ops->ctl(dev->hal, HC_HAL_CTL_LAST_OP, &a) != HC_OK) {
		atomic_store(&dev->eg_inexact, true);
		return 0;
	}
	return a.op;
}

void hc_et_desc_format(const struct hc_et_desc *d, char *buf, size_t len)
{
	switch (d->what) {
	case HC_ET_LAUNCH:
		snprintf(buf, len, "kernel %.40s (launch %llu)", d->name, (unsigned long long)d->a);
		break;
	case HC_ET_WRITE:
		snprintf(buf, len, "write of %llu bytes at %llu", (unsigned long long)d->a,
			 (unsigned long long)d->b);
		break;
	case HC_ET_READ:
		snprintf(buf, len, "read of %llu bytes at %llu", (unsigned long long)d->a,
			 (unsigned long long)d->b);
		break;
	case HC_ET_REPLAY:
		snprintf(buf, len, "replay of graph %#llx", (unsigned long long)d->a);
		break;
	}
}

void hc_et_add(struct hc_strm *st, enum hc_eg_kind kind, uint64_t mark,
	       const struct hc_et_desc *desc, const struct hc_et_range *r, size_t nr)
{
	struct hc_errtrack *et = &st->et;
	struct hc_et_item *it;

	if (hc_capture_is_recording(&st->capture))
		return;
	if (et->n == et->cap) {
		size_t ncap = et->cap ? et->cap * 2 : 16;
		struct hc_et_item *ni = realloc(et->items, ncap * sizeof(*ni));

		if (!ni) {
			et->lost = true;
			return;
		}
		et->items = ni;
		et->cap = ncap;
	}
	it = &et->items[et->n];
	memset(it, 0, sizeof(*it));
	if (nr) {
		it->r = malloc(nr * sizeof(*r));
		if (!it->r) {
			et->lost = true;
			return;
		}
		memcpy(it->r, r, nr * sizeof(*r));
	}
	it->nr = nr;
	it->seq = ++et->seq;
	it->kind = kind;
	it->desc = *desc;
	if (!atomic_load(&st->dev->eg_inexact)) {
		it->op_lo = mark;
		it->op_hi = hc_et_mark(st);
	}
	et->n++;
}

/* --- the error graph under eg_lock ------------------------------------- */

/* Records a failure; 0 when the graph could not (OOM).  eg_lock held. */
static hc_failure_id eg_fail(struct hc_strm *st, enum hc_eg_kind kind, const char *desc,
			     const hc_failure_id *causes, size_t n)
{
	struct hc_dev *dev = st->dev;
	hc_failure_id id = 0;

	if (hc_eg_fail(dev->errors, kind, st->handle.id, desc, causes, n, &id) != HC_OK)
		return 0;
	atomic_fetch_add(&dev->stats.failures, 1);
	HC_TRACE(failure, dev->handle.id, id, (int32_t)kind, (uint32_t)n, st->handle.id);
	return id;
}

/* Taints the write ranges of @r with @id.  eg_lock held. */
static void eg_taint_writes(struct hc_dev *dev, hc_failure_id id, const struct hc_et_range *r,
			    size_t nr)
{
	if (!id)
		return;
	for (size_t i = 0; i < nr; i++) {
		if (!r[i].write || r[i].size == 0)
			continue;
		atomic_store_explicit(&dev->eg_tainted, true, memory_order_release);
		if (hc_eg_taint(dev->errors, r[i].buf, r[i].off, r[i].size, id) == HC_OK)
			HC_TRACE(taint, id, r[i].buf, r[i].off, r[i].size);
	}
}

/* --- the call in progress (struct hc_et_call) ----------------------------- */

void hc_et_call_open(struct hc_strm *st, enum hc_eg_kind kind, const struct hc_et_desc *desc,
		     const struct hc_et_range *r)
{
	struct hc_et_call *c = &st->et.call;

	if (hc_capture_is_recording(&st->capture))
		return;
	memset(c, 0, sizeof(*c));
	c->open = true;
	c->mark = hc_et_mark(st);
	c->kind = kind;
	c->desc = *desc;
	if (r)
		c->r = *r;
}

hc_failure_id hc_et_call_close(struct hc_strm *st)
{
	struct hc_et_call *c = &st->et.call;
	hc_failure_id id = c->open ? c->failed : 0;

	memset(c, 0, sizeof(*c));
	return id;
}

/* The open call's failure, recorded once: its write range tainted.
 * eg_lock held. */
static void eg_fail_call(struct hc_strm *st, const char *how)
{
	struct hc_et_call *c = &st->et.call;
	char desc[HC_EG_DESC_MAX], what[HC_ET_DESC_MAX];

	if (c->failed)
		return;
	hc_et_desc_format(&c->desc, what, sizeof(what));
	snprintf(desc, sizeof(desc), "%s %s", what, how);
	c->failed = eg_fail(st, c->kind, desc, NULL, 0);
	eg_taint_writes(st->dev, c->failed, &c->r, c->r.size ? 1 : 0);
}

/* The distinct failures tainting the read ranges of @r (at most @cap). */
static size_t eg_read_causes(struct hc_dev *dev, const struct hc_et_range *r, size_t nr,
			     hc_failure_id *causes, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < nr && n < cap; i++) {
		hc_failure_id got[HC_ET_MAX_CAUSES];
		size_t ng = 0;

		if (!r[i].read || r[i].size == 0)
			continue;
		if (hc_eg_causes_in(dev->errors, r[i].buf, r[i].off, r[i].size, got,
				    HC_ET_MAX_CAUSES, &ng) != HC_OK)
			continue;
		if (ng > HC_ET_MAX_CAUSES)
			ng = HC_ET_MAX_CAUSES;
		for (size_t j = 0; j < ng && n < cap; j++) {
			size_t k;

			for (k = 0; k < n && causes[k] != got[j]; k++)
				;
			if (k == n)
				causes[n++] = got[j];
		}
	}
	return n;
}

/*
 * Taint entered now (not at a fence) must not be cleared when earlier work
 * of the stream retires: such work no longer counts as writing any range
 * that overlaps @r's write ranges (conservative: the rest of its range
 * keeps whatever taint it has).  Context: @st locked.
 */
static void items_drop_writes(struct hc_strm *st, const struct hc_et_range *r, size_t nr)
{
	struct hc_errtrack *et = &st->et;

	for (size_t i = 0; i < et->n; i++)
		for (size_t j = 0; j < et->items[i].nr; j++) {
			struct hc_et_range *w = &et->items[i].r[j];

			for (size_t k = 0; w->write && k < nr; k++)
				if (r[k].write && r[k].buf == w->buf && r[k].off < w->off + w->size &&
				    w->off < r[k].off + r[k].size)
					w->write = false;
		}
}

hc_status hc_et_check_reads(struct hc_strm *st, const char *fn, const struct hc_et_desc *d,
			    const struct hc_et_range *r, size_t nr, hc_failure_id *out)
{
	struct hc_dev *dev = st->dev;
	hc_failure_id causes[HC_ET_MAX_CAUSES], id;
	char desc[HC_ET_DESC_MAX];
	size_t n;

	*out = 0;
	pthread_mutex_lock(&dev->eg_lock);
	n = eg_read_causes(dev, r, nr, causes, HC_ET_MAX_CAUSES);
	if (n == 0) {
		pthread_mutex_unlock(&dev->eg_lock);
		return HC_OK;
	}
	hc_et_desc_format(d, desc, sizeof(desc));
	id = eg_fail(st, HC_EG_DERIVED, desc, causes, n);
	eg_taint_writes(dev, id, r, nr);
	pthread_mutex_unlock(&dev->eg_lock);
	items_drop_writes(st, r, nr);
	*out = id;
	return hc_fail(HC_ERR_TAINTED,
		       "%s: %s reads data of failed work (failure #%llu); not run, recorded as "
		       "failure #%llu", fn, desc, (unsigned long long)causes[0],
		       (unsigned long long)id);
}

hc_failure_id hc_et_fail_now(struct hc_strm *st, enum hc_eg_kind kind,
			     const struct hc_et_desc *d, const struct hc_et_range *r, size_t nr)
{
	hc_failure_id id;
	char desc[HC_ET_DESC_MAX];

	hc_et_desc_format(d, desc, sizeof(desc));
	pthread_mutex_lock(&st->dev->eg_lock);
	id = eg_fail(st, kind, desc, NULL, 0);
	eg_taint_writes(st->dev, id, r, nr);
	pthread_mutex_unlock(&st->dev->eg_lock);
	items_drop_writes(st, r, nr);
	return id;
}

void hc_et_written(struct hc_dev *dev, uint64_t buf, uint64_t off, uint64_t size)
{
	pthread_mutex_lock(&dev->eg_lock);
	hc_eg_written(dev->errors, buf, off, size);
	pthread_mutex_unlock(&dev->eg_lock);
}

hc_failure_id hc_et_query(struct hc_dev *dev, uint64_t buf, uint64_t off, uint64_t size)
{
	hc_failure_id id;

	pthread_mutex_lock(&dev->eg_lock);
	id = hc_eg_query(dev->errors, buf, off, size);
	pthread_mutex_unlock(&dev->eg_lock);
	return id;
}

void hc_et_forget(struct hc_dev *dev, uint64_t buf)
{
	/* Every hc_free passes here: skip the lock on a device nothing ever
	 * tainted (the flag is set before the first taint, under the lock). */
	if (!atomic_load_explicit(&dev->eg_tainted, memory_order_acquire))
		return;
	pthread_mutex_lock(&dev->eg_lock);
	hc_eg_forget(dev->errors, buf);
	pthread_mutex_unlock(&dev->eg_lock);
}

/* --- fences -------------------------------------------------------------- */

void hc_et_fence_recorded(struct hc_strm *st, void *ev)
{
	struct hc_errtrack *et = &st->et;

	if (et->nfences == HC_ET_FENCES) { /* forget the oldest: its wait retires nothing */
		memmove(&et->fences[0], &et->fences[1], (HC_ET_FENCES - 1) * sizeof(et->fences[0]));
		et->nfences--;
	}
	et->fences[et->nfences].ev = ev;
	et->fences[et->nfences].upto = et->seq;
	et->nfences++;
}

void hc_et_fence_forget(struct hc_strm *st, void *ev)
{
	struct hc_errtrack *et = &st->et;

	for (size_t i = 0; i < et->nfences; i++) {
		if (et->fences[i].ev != ev)
			continue;
		memmove(&et->fences[i], &et->fences[i + 1],
			(et->nfences - i - 1) * sizeof(et->fences[0]));
		et->nfences--;
		return;
	}
}

/* Retires the first @k items; a clean kernel clears its writes' taint. */
static void items_retire(struct hc_strm *st, size_t k, bool clear)
{
	struct hc_errtrack *et = &st->et;

	if (clear && k > 0) {
		pthread_mutex_lock(&st->dev->eg_lock);
		for (size_t i = 0; i < k; i++) {
			const struct hc_et_item *it = &et->items[i];

			for (size_t j = 0; j < it->nr; j++)
				if (it->r[j].write)
					hc_eg_written(st->dev->errors, it->r[j].buf, it->r[j].off,
						      it->r[j].size);
		}
		pthread_mutex_unlock(&st->dev->eg_lock);
	}
	if (k == 0) /* et->items may still be NULL: no arithmetic on it */
		return;
	for (size_t i = 0; i < k; i++)
		free(et->items[i].r);
	memmove(et->items, et->items + k, (et->n - k) * sizeof(*et->items));
	et->n -= k;
}

/* The backend's failed op ids of @st; NULL with *n 0 when not attributable. */
static uint64_t *take_failed(struct hc_strm *st, size_t *n)
{
	struct hc_dev *dev = st->dev;
	uint64_t *ops = NULL;
	size_t len = 0;

	*n = 0;
	if (atomic_load(&dev->eg_inexact))
		return NULL;
	for (;;) {
		uint64_t buf[16];
		struct hc_hal_failed_arg a = { st->hal, buf, 16, 0 };
		size_t got;
		uint64_t *no;

		if (dev->ops->ctl(dev->hal, HC_HAL_CTL_TAKE_FAILED, &a) != HC_OK) {
			atomic_store(&dev->eg_inexact, true);
			break;
		}
		got = a.n < 16 ? a.n : 16;
		if (got == 0)
			break;
		no = realloc(ops, (len + got) * sizeof(*ops));
		if (!no)
			break; /* those taken are lost: the failure stays conservative */
		ops = no;
		memcpy(ops + len, buf, got * sizeof(*ops));
		len += got;
		if (a.n <= 16)
			break;
	}
	*n = len;
	return ops;
}

static bool item_failed(const struct hc_et_item *it, const uint64_t *ops, size_t n, bool *used)
{
	bool hit = false;

	for (size_t i = 0; i < n; i++)
		if (ops[i] > it->op_lo && ops[i] <= it->op_hi) {
			used[i] = true;
			hit = true;
		}
	return hit;
}

/* A failed fence with attribution: item by item, in queue order. */
static void attribute_exact(struct hc_strm *st, const uint64_t *ops, size_t nops, bool *used)
{
	struct hc_dev *dev = st->dev;
	struct hc_errtrack *et = &st->et;
	char desc[HC_EG_DESC_MAX], what[HC_ET_DESC_MAX];

	pthread_mutex_lock(&dev->eg_lock);
	for (size_t i = 0; i < et->n; i++) {
		const struct hc_et_item *it = &et->items[i];
		hc_failure_id causes[HC_ET_MAX_CAUSES], id;
		size_t nc;

		if (item_failed(it, ops, nops, used)) {
			hc_et_desc_format(&it->desc, what, sizeof(what));
			snprintf(desc, sizeof(desc), "%s failed on the device", what);
			id = eg_fail(st, it->kind, desc, NULL, 0);
			eg_taint_writes(dev, id, it->r, it->nr);
			continue;
		}
		nc = eg_read_causes(dev, it->r, it->nr, causes, HC_ET_MAX_CAUSES);
		if (nc > 0) {
			hc_et_desc_format(&it->desc, what, sizeof(what));
			snprintf(desc, sizeof(desc), "%s ran on failed data", what);
			id = eg_fail(st, HC_EG_DERIVED, desc, causes, nc);
			eg_taint_writes(dev, id, it->r, it->nr);
			continue;
		}
		for (size_t j = 0; j < it->nr; j++)
			if (it->r[j].write)
				hc_eg_written(dev->errors, it->r[j].buf, it->r[j].off, it->r[j].size);
	}
	for (size_t i = 0; i < nops; i++) {
		if (used[i])
			continue;
		if (et->call.open && ops[i] > et->call.mark) {
			eg_fail_call(st, "failed on the device");
			continue;
		}
		snprintf(desc, sizeof(desc), "untracked work (op %llu) failed on the device",
			 (unsigned long long)ops[i]);
		eg_fail(st, HC_EG_DEVICE, desc, NULL, 0);
	}
	pthread_mutex_unlock(&dev->eg_lock);
}

/* A failed fence without attribution: one failure taints everything. */
static void attribute_conservative(struct hc_strm *st)
{
	struct hc_dev *dev = st->dev;
	struct hc_errtrack *et = &st->et;
	char desc[HC_EG_DESC_MAX];
	hc_failure_id id;

	/* the open call's work is in flight too, and fails with the rest */
	bool call = et->call.open && !et->call.failed;
	size_t n = et->n + call;

	snprintf(desc, sizeof(desc), "device error at a fence; %zu work item%s in flight tainted%s",
		 n, n == 1 ? "" : "s", et->lost ? " (some untracked)" : "");
	pthread_mutex_lock(&dev->eg_lock);
	id = eg_fail(st, HC_EG_DEVICE, desc, NULL, 0);
	for (size_t i = 0; i < et->n; i++)
		eg_taint_writes(dev, id, et->items[i].r, et->items[i].nr);
	if (call) {
		eg_taint_writes(dev, id, &et->call.r, et->call.r.size ? 1 : 0);
		et->call.failed = id;
	}
	pthread_mutex_unlock(&dev->eg_lock);
}

hc_status hc_et_fence_result(struct hc_strm *st, void *ev, hc_status rc)
{
	struct hc_errtrack *et = &st->et;
	hc_error_info saved;
	bool have_saved;

	if (rc == HC_OK) {
		size_t k = 0;
		uint64_t upto = ev ? 0 : et->seq;

		for (size_t i = 0; ev && i < et->nfences; i++)
			if (et->fences[i].ev == ev)
				upto = et->fences[i].upto;
		while (k < et->n && et->items[k].seq <= upto)
			k++;
		items_retire(st, k, true);
		if (!ev)
			et->lost = false;
		return rc;
	}
	if (rc != HC_ERR_DEVICE)
		return rc;
	have_saved = hc_last_error(&saved) == HC_OK;
	{
		size_t nops;
		uint64_t *ops = take_failed(st, &nops);
		bool *used = nops ? calloc(nops, sizeof(*used)) : NULL;

		et->last_exact = nops > 0 && used && !et->lost;
		if (et->last_exact)
			attribute_exact(st, ops, nops, used);
		else
			attribute_conservative(st);
		free(used);
		free(et->last_ops);
		et->last_ops = ops;
		et->nlast_ops = nops;
	}
	items_retire(st, et->n, false);
	et->lost = false;
	if (have_saved) { /* keep the wait's own detail for the caller */
		saved.status = rc;
		hc_error_restore(&saved);
	}
	return rc;
}

bool hc_et_ops_clean(const struct hc_strm *st, uint64_t lo, uint64_t hi)
{
	const struct hc_errtrack *et = &st->et;

	if (!et->last_exact || hi <= lo)
		return false;
	for (size_t i = 0; i < et->nlast_ops; i++)
		if (et->last_ops[i] > lo && et->last_ops[i] <= hi)
			return false;
	return true;
}
